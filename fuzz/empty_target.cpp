// The speed reference of scripts/fuzz_speed: a target that does nothing,
// built with exactly the flags of the real ones, so that their exec/s can be
// read as a share of what the engine itself can do on this machine.
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
