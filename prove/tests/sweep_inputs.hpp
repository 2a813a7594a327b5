// The inputs the differential runs every encoded operation on: those of
// `tpcheck verify`'s sweep (properties/sweep/sweep.cpp) on a small bound,
// with the invalid inputs around them, plus inputs beyond 64 bits and at the
// model's listing limit.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tpcheck/pyint.hpp"

namespace tpcheck::prove::test {

using Args = std::vector<BigInt>;

struct SweepBounds {
  std::int64_t max_tp;
  std::int64_t max_heads;
};

// The inputs for the encoded operation `op` (a name of encoded_operations()).
std::vector<Args> sweep_inputs(std::string_view op, const SweepBounds& bounds);

}  // namespace tpcheck::prove::test
