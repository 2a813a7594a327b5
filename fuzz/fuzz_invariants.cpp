// Fuzz target: every registry entry, on inputs decoded from bytes.
//
// Property, for any input (layout in registry_driver.hpp):
//   1. decode an entry of the registry, an integer type (int64 or cpp_int),
//      for the differential an operation, then the domain's choices, and
//      from them the values (the same mapping RapidCheck uses);
//   2. run the entry's check on them in that type;
//   3. a violation aborts with the case and the check's message.
// Work per input is bounded by the entries themselves: per-rank checks walk
// at most inv::kMaxWalked elements, per-configuration ones draw sizes up to
// their declared cap.
#include "registry_driver.hpp"

// Every entry: the input chooses (registry_mutator.cpp mutates with this too).
const tpcheck::inv::Entry* tpcheck::fuzz::target_entry() { return nullptr; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tpcheck::fuzz::run_input(data, size, nullptr);
  return 0;
}

// The replay driver's --assert-coverage: every fuzzed entry and its kinds reached.
extern "C" int tpcheck_fuzz_report_coverage() {
  return tpcheck::fuzz::report_coverage(tpcheck::fuzz::fuzzed_entries());
}
