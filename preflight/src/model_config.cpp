// Reading a Hugging Face config.json with nlohmann/json (model_config.hpp).
#include "tpcheck/preflight/model_config.hpp"

#include "config_json.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

namespace tpcheck::preflight {
namespace {

using config_json::count_of;
using config_json::Found;
using config_json::Json;
using config_json::member;
using config_json::shown;

// A config.json is a few kilobytes; anything this large is not one.
constexpr std::uintmax_t kMaxFileBytes = 16u << 20;

// Builds the result from a count found under `key` (or its error).
std::variant<ModelConfig, std::string> decided(const std::variant<Found, std::string>& found, const std::string& key,
                                               bool mla, bool fallback) {
  if (const auto* error = std::get_if<std::string>(&found)) return *error;
  const Found& f = std::get<Found>(found);
  ModelConfig c;
  c.kv_heads = mla ? 1 : f.count;
  c.mla = mla;
  c.key = key;
  c.value = f.value;
  c.fallback = fallback;
  return c;
}

bool is_one_of(const std::string& s, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (s == n) return true;
  }
  return false;
}

// The layer count, read from the model's keys (the nested text_config where
// there is one) under the names Hugging Face maps to num_hidden_layers.
std::variant<ModelConfig, std::string> with_layers(std::variant<ModelConfig, std::string> decided_config,
                                                   const Json& text, const std::string& prefix, std::int64_t max) {
  if (auto* config = std::get_if<ModelConfig>(&decided_config)) {
    for (const char* key : {"num_hidden_layers", "n_layer", "n_layers", "num_layers"}) {
      const Json* v = member(text, key);
      if (v == nullptr) continue;
      const auto found = count_of(*v, prefix + key, max);
      if (const auto* error = std::get_if<std::string>(&found)) return *error;
      config->layers = std::get<Found>(found).count;
      config->layers_key = prefix + key;
      break;
    }
  }
  return decided_config;
}

std::variant<ModelConfig, std::string> decide_heads(const Json& root, std::int64_t max_heads);

std::variant<ModelConfig, std::string> decide(const Json& root, std::int64_t max_heads) {
  if (!root.is_object()) return "not a JSON object";
  const Json* nested = member(root, "text_config");
  if (nested != nullptr && !nested->is_object()) return "text_config must be an object, got " + shown(*nested);
  const Json& text = nested != nullptr ? *nested : root;
  const std::string prefix = nested != nullptr ? "text_config." : "";
  auto read = config_json::read_recurrent(root, text, prefix, max_heads);
  if (const auto* error = std::get_if<std::string>(&read)) return *error;
  std::optional<RecurrentConfig>& recurrent = std::get<std::optional<RecurrentConfig>>(read);
  // A model without attention layers (a pure Mamba) has no KV heads to read.
  if (recurrent && recurrent->attention_layers() == 0) {
    ModelConfig c;
    c.attention = false;
    c.layers = recurrent->layers.value;
    c.layers_key = recurrent->layers.key;
    c.recurrent = std::move(recurrent);
    return c;
  }
  auto decided = with_layers(decide_heads(root, max_heads), text, prefix, max_heads);
  if (auto* c = std::get_if<ModelConfig>(&decided)) c->recurrent = std::move(recurrent);
  return decided;
}

std::variant<ModelConfig, std::string> decide_heads(const Json& root, std::int64_t max_heads) {
  const Json* text = &root;
  std::string prefix;
  if (const Json* nested = member(root, "text_config")) {
    if (!nested->is_object()) return "text_config must be an object, got " + shown(*nested);
    text = nested;
    prefix = "text_config.";
  }
  const Json* type = member(root, "model_type");
  const std::string model_type = type != nullptr && type->is_string() ? type->get<std::string>() : "";

  if (const Json* rank = member(*text, "kv_lora_rank")) {
    return decided(count_of(*rank, prefix + "kv_lora_rank", std::int64_t{1} << 30), prefix + "kv_lora_rank", true,
                   false);
  }
  // Falcon's new decoder architecture ignores multi_query and names n_head_kv.
  const Json* new_arch = member(root, "new_decoder_architecture");
  const bool new_falcon = is_one_of(model_type, {"falcon", "RefinedWeb", "RefinedWebModel"}) && new_arch != nullptr &&
                          new_arch->is_boolean() && new_arch->get<bool>();
  if (const Json* mq = member(*text, "multi_query"); mq != nullptr && !new_falcon) {
    if (!mq->is_boolean()) return prefix + "multi_query must be true or false, got " + shown(*mq);
    if (mq->get<bool>()) return decided(Found{1, "true"}, prefix + "multi_query", false, false);
  }
  if (is_one_of(model_type, {"dbrx", "mpt"})) {
    if (const Json* attn = member(root, "attn_config")) {
      if (!attn->is_object()) return "attn_config must be an object, got " + shown(*attn);
      if (const Json* kv = member(*attn, "kv_n_heads")) {
        return decided(count_of(*kv, "attn_config.kv_n_heads", max_heads), "attn_config.kv_n_heads", false, false);
      }
    }
  }
  for (const char* key : {"n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num"}) {
    if (const Json* v = member(*text, key)) return decided(count_of(*v, prefix + key, max_heads), prefix + key, false, false);
  }
  for (const char* key : {"num_attention_heads", "n_head", "n_heads"}) {
    if (const Json* v = member(*text, key)) return decided(count_of(*v, prefix + key, max_heads), prefix + key, false, true);
  }
  return "no KV head count: none of kv_lora_rank, multi_query, attn_config.kv_n_heads, n_head_kv, num_kv_heads, "
         "num_key_value_heads, multi_query_group_num, num_attention_heads" +
         std::string(prefix.empty() ? "" : " (looked in text_config)");
}

}  // namespace

std::variant<ModelConfig, std::string> model_config_from_text(const std::string& text, std::int64_t max_heads) {
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 1, ..." -> "parse error at line 1, ..."
    std::string why = e.what();
    if (const auto at = why.find("] "); at != std::string::npos) why = why.substr(at + 2);
    for (char& c : why) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return "not JSON: " + why;
  }
  return decide(root, max_heads);
}

std::variant<ModelConfig, std::string> read_model_config(const std::string& path, std::int64_t max_heads) {
  const std::string name = "--model-config '" + path + "'";
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) return name + ": " + ec.message();
  // A FIFO or device would block or never end; a directory has no text.
  if (!std::filesystem::is_regular_file(status)) return name + ": not a regular file";
  if (std::filesystem::file_size(path, ec) > kMaxFileBytes || ec) {
    return name + ": larger than " + std::to_string(kMaxFileBytes >> 20) + " MiB, not a config.json";
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return name + ": " + std::strerror(errno);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return name + ": read error";
  const auto config = model_config_from_text(text, max_heads);
  if (const auto* error = std::get_if<std::string>(&config)) return name + ": " + *error;
  return config;
}

std::string describe(const ModelConfig& c) {
  if (!c.attention) return "no KV heads: no attention layers";
  if (c.mla) return "MLA from " + c.key + " = " + c.value + " (one latent vector, which every rank holds)";
  const std::string heads = std::to_string(c.kv_heads) + (c.kv_heads == 1 ? " KV head" : " KV heads");
  if (c.key.ends_with("multi_query")) return heads + " from " + c.key + " = true (multi-query attention)";
  if (c.fallback) return heads + " from " + c.key + " (no KV head count: one KV head per attention head)";
  return heads + " from " + c.key;
}

}  // namespace tpcheck::preflight
