// The KV head count and MLA of a model, read from its Hugging Face
// config.json the way vLLM reads them. The only code that parses JSON (with
// nlohmann/json), so the dependency stays in library tpcheck_model_config.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "tpcheck/preflight/recurrent_config.hpp"

namespace tpcheck::preflight {

struct ModelConfig {
  std::int64_t kv_heads = 1;  // 1 for MLA: every rank holds the one latent vector
  bool mla = false;
  std::string key;    // the key that decided it, nested keys dotted: "text_config.num_key_value_heads"
  std::string value;  // that key's value as written in the file ("8", "true")
  bool fallback = false;  // no KV head key: one KV head per attention head
  // The model's decoder layers (num_hidden_layers, or the names Hugging Face
  // maps to it: GPT-2's n_layer, MPT's n_layers, ChatGLM's num_layers), for
  // pipeline stage splits; nothing when the config has none.
  std::optional<std::int64_t> layers;
  std::string layers_key;
  // A hybrid model's recurrent layers (SPEC §16.5), read first; a model
  // whose layers are all recurrent has no attention, and no KV heads read.
  std::optional<RecurrentConfig> recurrent;
  bool attention = true;
};

// Which key decides, first match wins (vLLM's order):
//   1. kv_lora_rank set (not null): MLA (DeepSeek V2/V3 style);
//   2. multi_query true: one KV head (Falcon 7B style; ignored for Falcon's new
//      decoder architecture, model_type falcon/RefinedWeb/RefinedWebModel);
//   3. model_type dbrx or mpt: attn_config.kv_n_heads;
//   4. n_head_kv, num_kv_heads, num_key_value_heads, multi_query_group_num;
//   5. the attention heads: num_attention_heads (or n_head, n_heads, the
//      names Hugging Face maps to it for GPT-2/Falcon and MPT/DBRX).
// The model's keys are read from a nested text_config where there is one
// (multimodal models); model_type, new_decoder_architecture and attn_config
// from the top level. A key set to null counts as absent. Every count must be
// a whole number in [1, max_heads]; so is a layer count, when there is one.
// A recurrent model type (recurrent_config.hpp) adds its state and layers,
// and a config that contradicts itself there is an error.
std::variant<ModelConfig, std::string> model_config_from_text(const std::string& text, std::int64_t max_heads);

// The same for a file; errors name it. Only regular files up to 16 MiB.
std::variant<ModelConfig, std::string> read_model_config(const std::string& path, std::int64_t max_heads);

// "8 KV heads from num_key_value_heads", "MLA from kv_lora_rank = 512 (...)",
// "no KV heads: no attention layers".
std::string describe(const ModelConfig& config);

}  // namespace tpcheck::preflight
