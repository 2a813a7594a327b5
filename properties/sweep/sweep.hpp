// The exhaustive sweep behind `tpcheck verify`: every registry entry on every
// case of its domain up to a bound (dom::Bound), in int64, work spread over
// threads. It lists no invariant or domain of its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tpcheck/domain.hpp"
#include "tpcheck/registry.hpp"

namespace tpcheck::sweep {

struct Options {
  dom::Bound bound;
  int threads = 1;
  std::vector<const inv::Entry*> only;  // empty: every entry the sweep runs
};

// The smallest violation of one entry: smallest sizes first, then the values
// in the domain's order.
struct Counterexample {
  std::vector<std::int64_t> key;
  std::string input;      // "RoundTripReturnsHome(L=4, R=2, r=3)"
  std::string violation;  // what the check saw
};

struct EntryResult {
  const inv::Entry* entry = nullptr;
  inv::Tally tally;
  std::optional<Counterexample> smallest;
  std::vector<std::string> gaps;  // coverage the entry declares and the sweep lacks
  bool failed() const { return tally.violated > 0 || !gaps.empty(); }
};

struct Result {
  std::vector<EntryResult> entries;  // in registry order
  std::uint64_t non_vacuous() const;
  std::uint64_t violations() const;
  bool failed() const;
};

Result run(const Options& options);

// The entries the sweep runs by default: all but those that exclude it.
std::vector<const inv::Entry*> swept_entries();

}  // namespace tpcheck::sweep
