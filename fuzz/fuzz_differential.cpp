// Fuzz target: the narrow models against the cpp_int model (SPEC §0, §9.5),
// the registry entry NarrowModelsAgreeWithCppIntModel alone.
//
// Property, for any input (layout in registry_driver.hpp, without the entry
// field):
//   1. decode an integer type, an operation of the typed operation table, and
//      its arguments from the roles of its parameters;
//   2. where the arguments fit, evaluate the operation in the narrow model and
//      in cpp_int and compare the outcomes as values (text only when they differ);
//   3. a difference aborts with both outcomes.
#include "registry_driver.hpp"

namespace {

const tpcheck::inv::Entry* differential() {
  static const tpcheck::inv::Entry* entry = tpcheck::inv::find_entry("NarrowModelsAgreeWithCppIntModel");
  return entry;
}

}  // namespace

// The differential alone (registry_mutator.cpp mutates with this too).
const tpcheck::inv::Entry* tpcheck::fuzz::target_entry() { return differential(); }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tpcheck::fuzz::run_input(data, size, differential());
  return 0;
}

extern "C" int tpcheck_fuzz_report_coverage() { return tpcheck::fuzz::report_coverage({differential()}); }
