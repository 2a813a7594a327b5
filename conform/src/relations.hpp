// The relations of SPEC §12, §13 and §15.2 between a connector's structured
// outcomes and the model's read plan, and the classification they share
// with exact comparison (judge.cpp).
#pragma once

#include <optional>
#include <string>

#include "tpcheck/conform/judge.hpp"

namespace tpcheck::conform {

// The kind of deviation of `actual` from an expected outcome in tpcheck eval's
// notation (a value, or "Class: message"), if any.
std::optional<Kind> classify(const std::string& expected, const Actual& actual);

Judgement judge_window_count(const CaseArgs& args, const Actual& actual);    // (P, D)
Judgement judge_nixl_mapping(const CaseArgs& args, const Actual& actual);    // (P, D, H, MLA, d)
Judgement judge_sender_plan(const CaseArgs& args, const Actual& actual);     // (P, D, H, MLA, p, d)
Judgement judge_accepts_sizing(const CaseArgs& args, const Actual& actual);  // (P, D, H, MLA)
// SPEC §15.2 (trtllm_transceiver.cpp): (P, D, H, and the binding's rank).
Judgement judge_trtllm_transceiver(const Binding& binding, const CaseArgs& args, const Actual& actual);

}  // namespace tpcheck::conform
