// Fuzz target: the rank maps and windows (SPEC §1-3) on arbitrary inputs.
//
// Property, for any integers L, R (any width and sign), a local rank r and a
// remote rank q:
//   1. decode L, R, r (a rank of L), q (a rank of R);
//   2. in cpp_int, and in int64 when all four fit, check the §9 predicates:
//      bounds, monotonicity, balanced fan-in at q, the round trip, window
//      duality, errors exactly where due (both maps and tp_ratio), and
//      general == strict wherever strict succeeds;
//   3. any violation aborts with its text.
#include "fuzz_check.hpp"

namespace {

template <class Int>
void check_rank_maps(const Int& L, const Int& R, const Int& r, const Int& q) {
  using namespace tpcheck::inv;
  using tpcheck::fuzz::require;
  require(mapped_rank_in_bounds(r, L, R), "bounds");
  require(maps_monotone_at(r, L, R), "fan-in (monotone maps)");
  require(fan_in_balanced(q, L, R), "fan-in (balanced)");
  require(round_trip_returns_home(r, L, R), "round trip");
  require(windows_are_dual(r, L, R), "round trip (window duality)");
  require(rank_map_errors_exactly_where_due(r, L, R), "errors exactly where due (rank maps)");
  require(ratio_errors_exactly_where_due(L, R), "errors exactly where due (tp_ratio)");
  require(general_agrees_with_strict(r, L, R), "agreement (general == strict)");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tpcheck::fuzz::FuzzInput in(data, size);
  const tpcheck::BigInt L = in.integer("L");
  const tpcheck::BigInt R = in.integer("R");
  const tpcheck::BigInt r = in.rank_below("r", L);
  const tpcheck::BigInt q = in.rank_below("q", R);
  tpcheck::fuzz::in_every_int_type<4>({L, R, r, q}, [](const auto&... v) { check_rank_maps(v...); });
  return 0;
}
