#include "state_source.hpp"

#include "tpcheck/json.hpp"

namespace tpcheck::cli {
namespace {

using preflight::StateSide;

std::string layout_name(ConvOrder o) { return std::string(conv_order_name(o)); }

// One side's values: its own flag, else the shared one, else the config's, else the default.
std::variant<StateSide, std::string> resolve_side(const char* name, const StateSideFlags& own, const StateSideFlags& both,
                                                  std::int64_t kernel, const std::optional<preflight::ModelConfig>& config) {
  const auto window = own.window ? own.window : both.window;
  const auto num_spec = own.num_spec ? own.num_spec : both.num_spec;
  if (window && num_spec) {
    return std::string(name) + " side: --conv-window and --num-spec both give its conv window: give one";
  }
  StateSide s;
  s.window = window ? *window : kernel - 1 + num_spec.value_or(0);
  const auto& r = config ? config->recurrent : std::optional<preflight::RecurrentConfig>();
  const auto conv = own.conv_bytes ? own.conv_bytes : both.conv_bytes;
  s.conv_bytes = conv ? *conv : r && r->conv_dtype ? r->conv_dtype->bytes : 2;
  const auto ssm = own.ssm_bytes ? own.ssm_bytes : both.ssm_bytes;
  s.ssm_bytes = ssm ? ssm : r && r->ssm_dtype ? std::optional<std::int64_t>(r->ssm_dtype->bytes) : std::nullopt;
  s.layout = own.layout ? *own.layout : both.layout ? *both.layout : ConvOrder::StateFirst;
  return s;
}

std::string side_text(const StateSide& s) {
  return "window " + std::to_string(s.window) + ", conv elements " + std::to_string(s.conv_bytes) +
         " B, SSM elements " + (s.ssm_bytes ? std::to_string(*s.ssm_bytes) + " B" : std::string("the engine's")) +
         ", vLLM layout " + layout_name(s.layout);
}

std::string side_json(const StateSide& s) {
  return "{\"conv_window\": " + std::to_string(s.window) + ", \"conv_element_bytes\": " + std::to_string(s.conv_bytes) +
         ", \"ssm_element_bytes\": " + (s.ssm_bytes ? std::to_string(*s.ssm_bytes) : std::string("null")) +
         ", \"conv_layout\": " + json_string(layout_name(s.layout)) + "}";
}

bool same_side(const StateSide& a, const StateSide& b) {
  return a.window == b.window && a.conv_bytes == b.conv_bytes && a.ssm_bytes == b.ssm_bytes && a.layout == b.layout;
}

}  // namespace

std::variant<std::optional<ResolvedState>, std::string> resolve_state(
    const HeadSource& heads, const std::optional<preflight::ModelConfig>& config) {
  const StateFlags& f = heads.state;
  const preflight::RecurrentConfig* read = config && config->recurrent ? &*config->recurrent : nullptr;
  if (read == nullptr && !f.dims) {
    if (f.kernel || f.any_side()) {
      return std::string("the state flags (--conv-kernel, --conv-window, ...) need a recurrent model: ") +
             (config ? "--model-config '" + heads.model_config.value_or("") + "' has no recurrent layers; " : "") +
             "give a --model-config with them, or --mamba2, --gdn, --kda or --mamba1";
    }
    return std::optional<ResolvedState>();
  }
  if (read != nullptr && f.kernel) {
    return "--conv-kernel: --model-config gives the conv kernel (" + read->conv_kernel.key + " = " +
           std::to_string(read->conv_kernel.value) + ")";
  }
  if (read == nullptr) {
    // Dims that contradict each other (SPEC §16.1's config check; a config's were checked when read).
    const Outcome<StateShape<std::int64_t>> shape = state_shape<std::int64_t>(1, *f.dims);
    if (!shape.ok()) return std::string(family_flag(f.dims->family)) + ": " + preflight::failure_line(shape.failure());
  }
  ResolvedState r;
  r.state.dims = read != nullptr ? read->state_dims() : *f.dims;
  r.state.kernel = read != nullptr ? read->conv_kernel.value : f.kernel.value_or(4);
  for (const auto& [name, own, target] : {std::tuple{"prefill", &f.prefill, &r.state.prefill},
                                          std::tuple{"decode", &f.decode, &r.state.decode}}) {
    auto side = resolve_side(name, *own, f.both, r.state.kernel, config);
    if (const auto* error = std::get_if<std::string>(&side)) return *error;
    *target = std::get<StateSide>(side);
  }
  if (read != nullptr) {
    r.config = *read;
    r.model_line = "recurrent state: " + preflight::describe_state(*read);
    r.layers_line = "layers: " + preflight::describe_layers(*read);
  } else {
    const StateFamily family = r.state.dims.family;
    r.model_line = "recurrent state: " + std::string(state_family_name(family)) + " from " + family_flag(family) + ":";
    const auto names = state_dim_config_names(family);
    for (std::size_t i = 0; i < names.size(); ++i) {
      r.model_line += " " + std::string(names[i]) + " " + std::to_string(r.state.dims.v[i]) + ",";
    }
    r.model_line += " conv kernel " + std::to_string(r.state.kernel) + (f.kernel ? "" : " (the default)") +
                    (heads.attention ? "" : "; no attention layers");
  }
  r.sides_line = same_side(r.state.prefill, r.state.decode)
                     ? "state sides: both " + side_text(r.state.prefill)
                     : "state sides: prefill " + side_text(r.state.prefill) + "; decode " + side_text(r.state.decode);
  return std::optional<ResolvedState>(std::move(r));
}

preflight::AttentionShape attention_shape(const HeadSource& heads) {
  // The options bound the head count to kMaxOperatorSize: it fits int64.
  return {heads.attention, static_cast<std::int64_t>(heads.kv_heads), heads.mla};
}

std::string loading_sizes(const preflight::HybridState& s, std::int64_t up_to) {
  std::string out;
  for (std::int64_t T = 1; T <= up_to; ++T) {
    if (state_shape<std::int64_t>(T, s.dims).ok()) out += (out.empty() ? "" : ", ") + std::to_string(T);
  }
  return out.empty() ? "none" : out;
}

std::string state_json(const ResolvedState& r, std::int64_t loads_up_to) {
  const StateFamily family = r.state.dims.family;
  std::string dims;
  const auto names = state_dim_config_names(family);
  for (std::size_t i = 0; i < names.size(); ++i) {
    dims += std::string(i ? ", " : "") + json_string(std::string(names[i])) + ": " + std::to_string(r.state.dims.v[i]);
  }
  std::string out = "{\"family\": " + json_string(std::string(state_family_name(family))) + ", \"dims\": {" + dims +
                    "}, \"conv_kernel\": " + std::to_string(r.state.kernel) + ", \"prefill\": " +
                    side_json(r.state.prefill) + ", \"decode\": " + side_json(r.state.decode) + ", \"layers\": ";
  if (r.config) {
    const preflight::RecurrentConfig& c = *r.config;
    std::string attention;  // the layers with KV: attention only, or beside the state (Falcon-H1)
    for (std::size_t l = 0; l < c.kinds.size(); ++l) {
      if (c.kinds[l] != preflight::LayerKind::Attention && c.kinds[l] != preflight::LayerKind::Both) continue;
      attention += (attention.empty() ? "" : ", ") + std::to_string(l);
    }
    out += "{\"count\": " + std::to_string(c.layers.value) + ", \"key\": " + json_string(c.layers.key) +
           ", \"rule\": " + json_string(c.rule) + ", \"recurrent\": " + std::to_string(c.recurrent_layers()) +
           ", \"attention\": " + std::to_string(c.attention_layers()) + ", \"attention_layers\": [" + attention +
           "]}";
  } else {
    out += "null";
  }
  if (loads_up_to > 0) {
    std::string sizes;
    for (std::int64_t T = 1; T <= loads_up_to; ++T) {
      if (state_shape<std::int64_t>(T, r.state.dims).ok()) sizes += (sizes.empty() ? "" : ", ") + std::to_string(T);
    }
    out += ", \"loads_at\": [" + sizes + "]";
  }
  return out + "}";
}

}  // namespace tpcheck::cli
