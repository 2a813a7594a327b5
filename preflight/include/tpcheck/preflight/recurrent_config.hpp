// A hybrid model's recurrent layers as its Hugging Face config.json gives
// them (SPEC §16.5): the state family and its dims, the conv kernel, the
// state dtypes, and which layers are recurrent and which attention, each
// value with the key it came from. Read by model_config.cpp's reader.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tpcheck/state.hpp"

namespace tpcheck::preflight {

// A value read from the config and where it came from: its key, nested keys
// dotted ("text_config.linear_num_key_heads"), or the product that made it
// ("mamba_expand * hidden_size").
struct ConfigValue {
  std::int64_t value = 0;
  std::string key;
};

// A state dtype the config names, and its element size in bytes.
struct ConfigDtype {
  std::int64_t bytes = 0;
  std::string key;   // "mamba_ssm_cache_dtype"
  std::string name;  // "float32"
};

// What a decoder layer holds: a recurrent state, KV (attention), both
// (Falcon-H1's parallel blocks), or neither (an MLP or MoE layer).
enum class LayerKind : std::uint8_t { Recurrent, Attention, Both, Neither };

struct RecurrentConfig {
  std::string model_type;      // as written: "nemotron_h"
  std::string model_type_key;  // "model_type" or "text_config.model_type"
  StateFamily family = StateFamily::Mamba2;
  std::array<ConfigValue, kMaxStateDims> dims{};  // state_dim_count(family) of them, SPEC §16.0's order
  ConfigValue conv_kernel;                        // K
  std::optional<ConfigDtype> conv_dtype, ssm_dtype;
  ConfigValue layers;            // num_hidden_layers
  std::string rule;              // what gave the layer kinds: a key, or "model_type falcon_h1"
  std::vector<LayerKind> kinds;  // one per layer, 0-based

  // Layers holding a recurrent state (Recurrent or Both), and KV (Attention or Both).
  std::int64_t recurrent_layers() const;
  std::int64_t attention_layers() const;
  // The 0-based indices of the layers of `kind`.
  std::vector<std::int64_t> layers_of(LayerKind kind) const;
  // The family and its dims as the model takes them.
  StateDims<std::int64_t> state_dims() const;
};

// The model types whose recurrent layers tpcheck reads, in SPEC §16.5's
// order: "nemotron_h, granitemoehybrid, ...".
std::string known_recurrent_model_types();

// "mamba2 from model_type nemotron_h: num_heads 128 (mamba_num_heads),
// head_dim 64 (mamba_head_dim), n_groups 8 (n_groups), d_state 128
// (ssm_state_size), conv kernel 4 (conv_kernel)".
std::string describe_state(const RecurrentConfig& r);

// "52 layers (num_hidden_layers) by hybrid_override_pattern: 24 mamba2, 4
// attention (7, 18, 29, 40), 24 neither", attention layers 0-based.
std::string describe_layers(const RecurrentConfig& r);

}  // namespace tpcheck::preflight
