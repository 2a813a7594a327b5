// How a sizing a connector runs is served wrongly, in ranks, for `tpcheck
// check`: SGLang refuses no TP sizes, and on a pair that is not divisible its
// rank resolver (SPEC §14.1) sends some decode ranks to prefill ranks that do
// not exist, or leaves some prefill ranks untargeted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tpcheck/deployment.hpp"
#include "tpcheck/preflight/state_rules.hpp"

namespace tpcheck::preflight {

// SGLang's resolver on prefill TP P, decode TP D (sglang_target_ranks of every
// decode rank): the decode ranks that target a prefill rank >= P and those
// targets, and the prefill ranks no decode rank targets. All empty on a
// divisible pair. O(P + D).
struct SglangUnserved {
  Span<std::int64_t> decode_ranks{0, 0};     // targeting missing prefill ranks
  Span<std::int64_t> missing_targets{0, 0};  // the prefill ranks >= P they target
  Span<std::int64_t> untargeted{0, 0};       // prefill ranks below P no decode rank targets
};
SglangUnserved sglang_unserved(std::int64_t P, std::int64_t D);

// A connector's verdict on the attention layers' KV (sizing_verdict), or, for
// a model without attention, on what it checks of any transfer: the sizes'
// divisibility and TensorRT-LLM's powers of two, not the heads (NIXL's
// replica rule is about KV heads: it does not apply).
SizingVerdict kv_verdict(Connector c, std::int64_t P, std::int64_t D, const AttentionShape& a, AttentionDp adp = {});

// "4 and 5", "4, 5 and 6", "4 to 99": a range of ranks for a sentence.
std::string ranks_text(const Span<std::int64_t>& ranks);

// What happens to a sizing the connector runs but serves wrongly, in one
// sentence for an operator: which decode ranks fail and why, or which
// prefill ranks stall.
std::string misservice_text(Connector c, Misservice how, std::int64_t P, std::int64_t D, AttentionDp adp);

}  // namespace tpcheck::preflight
