// The head-ownership arithmetic of SPEC §4 on already validated sizes, shared
// by heads() and the read plan.
#pragma once

#include <algorithm>

#include "tpcheck/model.hpp"

namespace tpcheck::detail {

// heads(r, T, H) for T, H >= 1 head-compatible and 0 <= r < T.
template <ModelInt Int>
Span<Int> heads_of(const Int& r, const Int& T, const Int& H) {
  const Int first = mul_floor_div<Int>(r, H, T);  // r * H overflows for large sizes
  return {first, Int(first + std::max(Int(1), floor_div<Int>(H, T)))};
}

}  // namespace tpcheck::detail
