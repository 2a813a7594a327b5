// libFuzzer's custom mutator and crossover for the registry targets
// (fuzz_invariants, fuzz_differential): whole-field mutations over the
// layout of registry_driver.hpp (field_mutator.hpp), so a field keeps its
// meaning. Linked into those two targets only; libFuzzer calls them, the
// replay driver does not (it still compiles and links them, with any compiler).
#include "registry_driver.hpp"

namespace {

tpcheck::fuzz::FieldLayout layout(const std::uint8_t* data, std::size_t size) {
  return tpcheck::fuzz::field_layout(data, size, tpcheck::fuzz::target_entry());
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  return tpcheck::fuzz::mutate_fields(data, size, max_size, seed, layout);
}

extern "C" std::size_t LLVMFuzzerCustomCrossOver(const std::uint8_t* data1, std::size_t size1,
                                                 const std::uint8_t* data2, std::size_t size2, std::uint8_t* out,
                                                 std::size_t max_out_size, unsigned int seed) {
  return tpcheck::fuzz::cross_fields(data1, size1, data2, size2, out, max_out_size, seed, layout);
}
