// The pipeline stages and attention DP of `check` and `plan` (StageFlags,
// SPEC §15.4): given as layer lists, as stage counts that split the model
// config's num_hidden_layers evenly, or (a side without either) one stage
// holding every layer; checked by the model.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "options.hpp"
#include "tpcheck/preflight/model_config.hpp"
#include "tpcheck/stages.hpp"

namespace tpcheck::cli {

struct Stages {
  std::vector<BigInt> prefill, decode;  // layers per stage
  AttentionDp adp;
  BigInt layers;           // the layer total both sides hold
  std::string layers_key;  // the model config's key it came from, or empty
  bool pipeline = false;   // stages were given (not only attention DP)
};

// `total` layers over `stages` stages as evenly as possible, the first
// stages taking one layer more (16 over 3: 6,5,5).
std::vector<BigInt> even_split(const BigInt& total, std::int64_t stages);

// The splits and flags of `f`, or a one-line error: a split that does not
// hold the config's num_hidden_layers, or the model's failure for the pair
// (an empty stage, totals that differ, more than 4096 stages).
std::variant<Stages, std::string> resolve_stages(const StageFlags& f, const HeadSource& heads,
                                                 const std::optional<preflight::ModelConfig>& config);

// "16,16".
std::string split_text(const std::vector<BigInt>& layers);

// "prefill 2 stages (16,16), decode 4 stages (8,8,8,8), 32 layers" (text output).
std::string pipeline_line(const Stages& s);

// "prefill (4 groups of TP 1)", or "off".
std::string attention_dp_text(const Stages& s, const BigInt& P, const BigInt& D);

// The --json fields "pipeline" (null without stages given) and "attention_dp".
std::string stages_json_fields(const std::optional<Stages>& s);

}  // namespace tpcheck::cli
