// The relations of SPEC §12 and §13 between a connector's structured
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

}  // namespace tpcheck::conform
