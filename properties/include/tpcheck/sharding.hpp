// Two facts of the SPEC that predicates and domains both need, stated here
// again rather than taken from the model: a wrong head_compatible in lib/ must
// neither make the plan predicates hold vacuously nor change which
// configurations an engine draws.
#pragma once

#include <algorithm>

#include "tpcheck/pyint.hpp"

namespace tpcheck::inv {

// SPEC §4: H heads shard over T ranks when both are positive and one divides
// the other.
template <class Int>
bool heads_shard(const Int& T, const Int& H) {
  return T >= 1 && H >= 1 && (floor_mod<Int>(T, H) == 0 || floor_mod<Int>(H, T) == 0);
}

// SPEC §1/§3: a pair of TP sizes is divisible when both are positive and the
// larger is a multiple of the smaller.
template <class Int>
bool divisible_pair(const Int& a, const Int& b) {
  return a >= 1 && b >= 1 && floor_mod<Int>(std::max(a, b), std::min(a, b)) == 0;
}

}  // namespace tpcheck::inv
