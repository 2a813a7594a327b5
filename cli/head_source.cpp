#include "head_source.hpp"

#include "tpcheck/json.hpp"
#include "tpcheck/render.hpp"

namespace tpcheck::cli {

std::variant<std::optional<preflight::ModelConfig>, std::string> resolve_heads(HeadSource& heads) {
  if (!heads.model_config) return std::optional<preflight::ModelConfig>();
  auto read = preflight::read_model_config(*heads.model_config, kMaxOperatorSize);
  if (const auto* error = std::get_if<std::string>(&read)) return *error;
  const preflight::ModelConfig& config = std::get<preflight::ModelConfig>(read);
  heads.kv_heads = BigInt(config.kv_heads);
  heads.mla = config.mla;
  heads.attention = config.attention;
  return std::optional<preflight::ModelConfig>(config);
}

std::string heads_text(const HeadSource& heads) {
  if (!heads.attention) return "no attention";
  if (heads.mla) return "MLA";
  return render(heads.kv_heads) + (heads.kv_heads == 1 ? " KV head" : " KV heads");
}

std::string model_config_line(const HeadSource& heads, const preflight::ModelConfig& config) {
  return "model config: " + heads.model_config.value_or("") + ": " + preflight::describe(config);
}

std::string heads_json_fields(const HeadSource& heads, const std::optional<preflight::ModelConfig>& config) {
  std::string out = "\"kv_heads\": " + (heads.mla || !heads.attention ? std::string("null") : render(heads.kv_heads)) +
                    ", \"mla\": " + (heads.mla ? "true" : "false") +
                    ", \"attention\": " + (heads.attention ? "true" : "false") + ", \"model_config\": ";
  if (!config) return out + "null";
  return out + "{\"path\": " + json_string(heads.model_config.value_or("")) + ", \"key\": " + json_string(config->key) +
         ", \"value\": " + json_string(config->value) + "}";
}

std::string failure_text(const Failure& failure) { return preflight::failure_line(failure); }

}  // namespace tpcheck::cli
