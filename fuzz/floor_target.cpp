// The engine's floor for one fuzz target (scripts/fuzz_speed): the target's
// own binary, every object and library it links, its custom mutator, with
// LLVMFuzzerTestOneInput returning at once.
//
// libFuzzer's cost per input is not only the code an input runs: on every
// input it scans and resets every coverage counter of the binary, and calls
// the target's custom mutator. The empty target (empty_target.cpp, one
// counter) measures the engine alone; this one measures the engine on a
// binary of the target's size, the most the target could reach with a check
// that cost nothing. Linked with -Wl,--wrap=LLVMFuzzerTestOneInput
// (fuzz/CMakeLists.txt): libFuzzer's call reaches this function, the
// target's definition is still linked (and instrumented) but never runs.
#include <cstddef>
#include <cstdint>

extern "C" int __wrap_LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
