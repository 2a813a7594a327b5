// The relations between a connector's structured outcomes and the model:
// SPEC §12 and §13 (relations.cpp), §14 (relations_sglang.cpp), §14B
// (relations_transfers.cpp, on the byte judge of byte_judge.hpp) and §15.2
// (trtllm_transceiver.cpp), and the classification they share with exact
// comparison (judge.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tpcheck/conform/judge.hpp"

namespace tpcheck::conform {

// The kind of deviation of `actual` from an expected outcome in tpcheck eval's
// notation (a value, or "Class: message"), if any.
std::optional<Kind> classify(const std::string& expected, const Actual& actual);

// The case's arguments as int64, or nullopt (then the case is not compared).
std::optional<std::vector<std::int64_t>> small_args(const CaseArgs& args);

// A configuration whose driver did not answer (the child died, a call hung):
// one finding of the generic kind, about no pair.
Judgement unreadable(const Actual& actual);

Judgement judge_window_count(const CaseArgs& args, const Actual& actual);    // (P, D)
Judgement judge_nixl_mapping(const CaseArgs& args, const Actual& actual);    // (P, D, H, MLA, d)
Judgement judge_sender_plan(const CaseArgs& args, const Actual& actual);     // (P, D, H, MLA, p, d)
Judgement judge_accepts_sizing(const CaseArgs& args, const Actual& actual);  // (P, D, H, MLA)
// SPEC §15.2 (trtllm_transceiver.cpp): (P, D, H, and the binding's rank).
Judgement judge_trtllm_transceiver(const Binding& binding, const CaseArgs& args, const Actual& actual);

// SPEC §14: findings per pair or rank of one configuration.
Judgement judge_rank_mapping(const CaseArgs& args, const Actual& actual);                // (P, D, MLA)
Judgement judge_head_slice(const CaseArgs& args, const Actual& actual, bool as_run);     // (P, D, H)
Judgement judge_staging_layout(const CaseArgs& args, const Actual& actual);              // (P, D, H)
Judgement judge_slice_config(const CaseArgs& args, const Actual& actual);                // (P, D, H, page_size)

// SPEC §14B: the bytes of a configuration's transfers, and the descriptor index probe.
Judgement judge_transfers(const Binding& binding, const CaseArgs& args, const Actual& actual);  // (P, D, H, page_size, probe)
Judgement judge_index_function(const CaseArgs& args, const Actual& actual);  // (pairs, slots, page_size, groups)

}  // namespace tpcheck::conform
