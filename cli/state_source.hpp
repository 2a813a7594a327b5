// The recurrent state of `check`, `plan` and `matrix` (SPEC §16.5): read from
// --model-config's recurrent layers or given by a family flag, each side's
// window, element sizes and layout from its flags, the config's dtypes and
// the defaults (window K - 1 + num_spec, conv elements 2 bytes, SSM elements
// the engine's, vLLM's layout sd); and how it is shown.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "options.hpp"
#include "tpcheck/preflight/model_config.hpp"
#include "tpcheck/preflight/state_rules.hpp"

namespace tpcheck::cli {

struct ResolvedState {
  preflight::HybridState state;
  std::optional<preflight::RecurrentConfig> config;  // what --model-config gave, if it did
  std::string model_line;                 // "recurrent state: mamba2 from ...: num_heads 128 (...), ..."
  std::optional<std::string> layers_line;  // "layers: 52 layers (num_hidden_layers) by ...", from a config
  std::string sides_line;                  // "state sides: both: window 3 (K-1), ..."
};

// Nothing for a model without recurrent layers (and no state flags), or a
// one-line error: a state flag without a recurrent model, --conv-kernel
// beside a config that gives it, a side's window given twice over.
std::variant<std::optional<ResolvedState>, std::string> resolve_state(
    const HeadSource& heads, const std::optional<preflight::ModelConfig>& config);

// The attention layers beside the state, as the connectors' rules see them.
preflight::AttentionShape attention_shape(const HeadSource& heads);

// "1, 2, 4, 8": the TP sizes in 1..up_to at which the state loads (SPEC
// §16.1's state_shape succeeds).
std::string loading_sizes(const preflight::HybridState& s, std::int64_t up_to);

// The --json object of the state: family, dims, kernel, each side, the
// layers a config gave (their rule, counts, attention layers), and with
// `loads_up_to` > 0 the TP sizes up to it at which the state loads.
std::string state_json(const ResolvedState& r, std::int64_t loads_up_to = 0);

}  // namespace tpcheck::cli
