#include "stage_source.hpp"

#include "tpcheck/json.hpp"
#include "tpcheck/render.hpp"

namespace tpcheck::cli {

std::vector<BigInt> even_split(const BigInt& total, std::int64_t stages) {
  std::vector<BigInt> out;
  const BigInt each = total / stages, more = total % stages;
  for (std::int64_t s = 0; s < stages; ++s) out.push_back(each + (s < more ? 1 : 0));
  return out;
}

namespace {

BigInt sum(const std::vector<BigInt>& counts) {
  BigInt total = 0;
  for (const BigInt& c : counts) total += c;
  return total;
}

std::vector<BigInt> as_big(const std::vector<std::int64_t>& counts) { return {counts.begin(), counts.end()}; }

}  // namespace

std::variant<Stages, std::string> resolve_stages(const StageFlags& f, const HeadSource& heads,
                                                 const std::optional<preflight::ModelConfig>& config) {
  const std::optional<std::int64_t> model_layers = config ? config->layers : std::nullopt;
  if ((f.prefill_pp || f.decode_pp) && !model_layers) {
    return "--model-config '" + heads.model_config.value_or("") + "' has no num_hidden_layers to split: give " +
           (f.prefill_pp ? "--prefill-pp-layers" : "--decode-pp-layers");
  }
  Stages s;
  s.adp = {f.prefill_adp, f.decode_adp};
  s.pipeline = f.prefill_layers || f.decode_layers || f.prefill_pp || f.decode_pp;
  const auto side = [&](const std::optional<std::vector<std::int64_t>>& layers, const std::optional<std::int64_t>& pp,
                        const char* flag) -> std::variant<std::vector<BigInt>, std::string> {
    if (pp) return even_split(*model_layers, *pp);
    if (!layers) return std::vector<BigInt>{};
    const std::vector<BigInt> counts = as_big(*layers);
    if (model_layers && sum(counts) != *model_layers) {
      return std::string(flag) + " holds " + render(sum(counts)) + " layers but --model-config '" +
             heads.model_config.value_or("") + "' has " + config->layers_key + " = " + std::to_string(*model_layers);
    }
    return counts;
  };
  auto prefill = side(f.prefill_layers, f.prefill_pp, "--prefill-pp-layers");
  if (const auto* error = std::get_if<std::string>(&prefill)) return *error;
  auto decode = side(f.decode_layers, f.decode_pp, "--decode-pp-layers");
  if (const auto* error = std::get_if<std::string>(&decode)) return *error;
  s.prefill = std::move(std::get<std::vector<BigInt>>(prefill));
  s.decode = std::move(std::get<std::vector<BigInt>>(decode));
  // A side without a split is one stage of the other's layers (or of the model's).
  const BigInt total = !s.prefill.empty() ? sum(s.prefill)
                       : !s.decode.empty() ? sum(s.decode)
                                           : BigInt(model_layers.value_or(1));
  if (s.prefill.empty()) s.prefill = {total};
  if (s.decode.empty()) s.decode = {total};
  s.layers = total;
  if (model_layers) s.layers_key = config->layers_key;
  // The model validates the pair (stage 0 of any valid split exists).
  const Outcome<Span<BigInt>> checked = overlapping_stages<BigInt>(PpSide::Decode, BigInt(0), s.prefill, s.decode);
  if (!checked.ok()) {
    std::string text;
    checked.failure().message.append_to(text);
    return text;
  }
  return s;
}

std::string split_text(const std::vector<BigInt>& layers) {
  std::string out;
  for (const BigInt& c : layers) out += (out.empty() ? "" : ",") + render(c);
  return out;
}

std::string pipeline_line(const Stages& s) {
  const auto side = [](const char* name, const std::vector<BigInt>& layers) {
    return std::string(name) + " " + std::to_string(layers.size()) + (layers.size() == 1 ? " stage (" : " stages (") +
           split_text(layers) + ")";
  };
  return side("prefill", s.prefill) + ", " + side("decode", s.decode) + ", " + render(s.layers) +
         (s.layers == 1 ? " layer" : " layers") + (s.layers_key.empty() ? "" : " (" + s.layers_key + ")");
}

std::string attention_dp_text(const Stages& s, const BigInt& P, const BigInt& D) {
  const auto side = [](const char* name, const BigInt& T) {
    return std::string(name) + " (" + render(T) + (T == 1 ? " group" : " groups") + " of TP 1)";
  };
  if (s.adp.prefill && s.adp.decode) return side("prefill", P) + " and " + side("decode", D);
  if (s.adp.prefill) return side("prefill", P);
  if (s.adp.decode) return side("decode", D);
  return "off";
}

std::string stages_json_fields(const std::optional<Stages>& s) {
  const auto list = [](const std::vector<BigInt>& layers) { return "[" + split_text(layers) + "]"; };
  const std::string pipeline =
      s && s->pipeline ? "{\"prefill_layers\": " + list(s->prefill) + ", \"decode_layers\": " + list(s->decode) +
                             ", \"layers\": " + render(s->layers) + "}"
                       : "null";
  const AttentionDp adp = s ? s->adp : AttentionDp{};
  return "\"pipeline\": " + pipeline + ", \"attention_dp\": {\"prefill\": " + (adp.prefill ? "true" : "false") +
         ", \"decode\": " + (adp.decode ? "true" : "false") + "}";
}

}  // namespace tpcheck::cli
