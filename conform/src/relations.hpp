// What the relations share (judge.cpp): the engine-neutral relations are
// there too (profile.hpp's kExact, kCountForEveryProducerRank); each
// engine's are beside its profiles, in conform/engines/ENGINE/.
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

}  // namespace tpcheck::conform
