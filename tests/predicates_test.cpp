// The invariant predicates (properties/) on a few inputs each: they are never
// violated on the correct model for small, extreme and (cpp_int) huge inputs,
// they speak (hold, not vacuously) about the inputs their invariant is about,
// and they are vacuous, with a reason, exactly on the ones it is not about.
//
// The exhaustive sweep (`tpcheck verify`) and the random engines run these on
// far more inputs through the registry; these tests pin down that the
// predicates themselves accept the SPEC's own examples and handle the int64
// extremes without overflow.
#include <string>

#include "model_test_support.hpp"
#include "tpcheck/invariants.hpp"
#include "tpcheck/oracle.hpp"

namespace tpcheck::test {
namespace {

using inv::Verdict;

// Not violated (held or vacuous); shows the violation in the failure message.
#define EXPECT_HOLDS(call)                                           \
  do {                                                               \
    const Verdict v_ = (call);                                       \
    EXPECT_FALSE(v_.is_violated()) << #call << ": " << v_.message(); \
  } while (0)

// Held on an input the invariant speaks about.
#define EXPECT_SPEAKS(call)                                                                     \
  do {                                                                                          \
    const Verdict v_ = (call);                                                                  \
    EXPECT_TRUE(v_.held()) << #call << ": " << (v_.is_vacuous() ? v_.reason() : v_.message()); \
  } while (0)

// Vacuous, for the reason given (a part of its text).
#define EXPECT_VACUOUS(call, because)                                                          \
  do {                                                                                         \
    const Verdict v_ = (call);                                                                 \
    ASSERT_TRUE(v_.is_vacuous()) << #call << " is not vacuous" << (v_.is_violated() ? ": " + v_.message() : ""); \
    EXPECT_NE(std::string(v_.reason()).find(because), std::string::npos) << #call << ": " << v_.reason(); \
  } while (0)

// The error oracle's verdict on one call of `operation` (its arguments in
// the operation's order): the registry's errors invariants, case by case.
template <class Int, class... Args>
Verdict errors_where_due(const char* operation, const Args&... args) {
  const oracle::Oracle* o = oracle::oracle_of_operation(operation);
  if (!o) return inv::violated(std::string("no oracle for ") + operation);
  const std::array<Int, sizeof...(Args)> values = {Int(args)...};
  return oracle::judge_call(*o, values.data());
}

template <class Int>
struct Predicates : ::testing::Test {};
TYPED_TEST_SUITE(Predicates, ModelInts, IntName);

// (r, L, R) triples: divisible both ways, non-divisible, equal, and invalid
// input the per-rank predicates must treat as vacuous or as an expected error.
TYPED_TEST(Predicates, RankMapPredicatesHoldOnSmallPairs) {
  using Int = TypeParam;
  for (int L = 1; L <= 8; ++L) {
    for (int R = 1; R <= 8; ++R) {
      for (int r = -1; r <= L; ++r) {
        const Int ri = r, Li = L, Ri = R;
        EXPECT_HOLDS(inv::mapped_rank_in_bounds(ri, Li, Ri));
        EXPECT_HOLDS(inv::maps_monotone_at(ri, Li, Ri));
        EXPECT_HOLDS(inv::round_trip_returns_home(ri, Li, Ri));
        EXPECT_HOLDS(inv::windows_are_dual(ri, Li, Ri));
        EXPECT_HOLDS(errors_where_due<Int>("remote_rank", ri, Li, Ri));
        EXPECT_HOLDS(errors_where_due<Int>("general_rank", ri, Li, Ri));
        EXPECT_HOLDS(errors_where_due<Int>("window", ri, Li, Ri));
        EXPECT_HOLDS(inv::general_agrees_with_strict(ri, Li, Ri));
      }
      for (int q = -1; q <= R; ++q) EXPECT_HOLDS(inv::fan_in_balanced(Int(q), Int(L), Int(R)));
      EXPECT_HOLDS(errors_where_due<Int>("tp_ratio", L, R));
      EXPECT_HOLDS(inv::ratio_is_the_quotient(Int(L), Int(R)));
    }
  }
  EXPECT_HOLDS(errors_where_due<Int>("remote_rank", -1, 0, 6));
  EXPECT_HOLDS(errors_where_due<Int>("general_rank", -1, 0, 6));
  EXPECT_HOLDS(errors_where_due<Int>("tp_ratio", 0, -3));
}

TYPED_TEST(Predicates, RankMapPredicatesHoldAtInt64Extremes) {
  using Int = TypeParam;
  const Int M = kMax;
  const Int big_l = Int(4294967296), big_r = Int(4611686018427387904);  // 2^32, 2^62
  for (const auto& [r, L, R] : {std::tuple{Int(M - 1), M, M}, std::tuple{Int(M - 1), M, Int(M - 1)},
                                std::tuple{Int(M - 1), M, Int(1)}, std::tuple{Int(0), Int(1), M},
                                std::tuple{Int(4294967295), big_l, big_r}, std::tuple{Int(kMin), Int(4), Int(4)},
                                std::tuple{Int(0), Int(kMin), M}, std::tuple{M, M, M}}) {
    EXPECT_HOLDS(inv::mapped_rank_in_bounds(r, L, R));
    EXPECT_HOLDS(inv::maps_monotone_at(r, L, R));
    EXPECT_HOLDS(inv::round_trip_returns_home(r, L, R));
    EXPECT_HOLDS(inv::windows_are_dual(r, L, R));
    EXPECT_HOLDS(errors_where_due<Int>("remote_rank", r, L, R));
    EXPECT_HOLDS(errors_where_due<Int>("general_rank", r, L, R));
    EXPECT_HOLDS(errors_where_due<Int>("window_span", r, L, R));
    EXPECT_HOLDS(inv::general_agrees_with_strict(r, L, R));
    EXPECT_HOLDS(inv::fan_in_balanced(r, L, R));
    EXPECT_HOLDS(errors_where_due<Int>("tp_ratio", L, R));
    EXPECT_HOLDS(inv::ratio_is_the_quotient(L, R));
  }
}

TYPED_TEST(Predicates, HeadAndPlanPredicatesHoldOnSpecConfigurations) {
  using Int = TypeParam;
  struct Config {
    int P, D, H;
    bool mla;
  };
  // The SPEC's examples (§5, §6) plus divisible pairs both ways.
  for (const Config c : {Config{4, 2, 2, false}, Config{4, 6, 2, false}, Config{4, 6, 1, true}, Config{4, 6, 12, false},
                         Config{4, 4, 8, false}, Config{8, 4, 4, false}, Config{4, 8, 4, false}, Config{2, 4, 4, true},
                         Config{4, 2, 4, false}, Config{2, 4, 8, false}, Config{8, 4, 8, false}, Config{1, 1, 1, false}}) {
    const Int P = c.P, D = c.D, H = c.H;
    EXPECT_HOLDS(errors_where_due<Int>("kv_heads_guard", D, P, H, c.mla));
    EXPECT_HOLDS(errors_where_due<Int>("kv_heads_guard_strict", D, P, H, c.mla));
    EXPECT_HOLDS(inv::readers_count_plan_copies(P, D, H, c.mla));
    EXPECT_HOLDS(inv::single_readers_count_map_preimages(P, D));
    for (int d = -1; d <= c.D; ++d) {
      EXPECT_HOLDS(inv::plan_partitions_own_heads(Int(d), P, D, H, c.mla));
      EXPECT_HOLDS(inv::plan_matches_head_by_head_rule(Int(d), P, D, H, c.mla));
      EXPECT_HOLDS(inv::plan_sources_match_nixl(Int(d), P, D, H, c.mla));
      EXPECT_HOLDS(inv::single_source_holds_own_heads(Int(d), P, D, H, c.mla));
    }
    for (int h = -1; h <= c.H; ++h) {
      EXPECT_HOLDS(inv::holders_hold_the_head(Int(h), P, H));
      EXPECT_HOLDS(inv::holders_hold_the_head(Int(h), D, H));
    }
    for (int p = -1; p <= c.P; ++p) {
      EXPECT_HOLDS(errors_where_due<Int>("single_readers", p, P, D));
      EXPECT_HOLDS(errors_where_due<Int>("readers", p, P, D, H, c.mla));
    }
    for (int d = -1; d <= c.D; ++d) {
      for (const char* op : {"plan", "plan_copy_count", "single_source_plan"}) {
        EXPECT_HOLDS(errors_where_due<Int>(op, d, P, D, H, c.mla));
      }
    }
  }
  for (const auto& [L, R, H, mla] : {std::tuple{0, 0, 5, false}, std::tuple{-1, 4, 4, true}}) {
    EXPECT_HOLDS(errors_where_due<Int>("kv_heads_guard", L, R, H, mla));
    EXPECT_HOLDS(errors_where_due<Int>("kv_heads_guard_strict", L, R, H, mla));
  }
  EXPECT_HOLDS(errors_where_due<Int>("single_readers", 0, 4, 6));
  EXPECT_HOLDS(errors_where_due<Int>("single_readers", -1, 0, 6));
}

TYPED_TEST(Predicates, HeadAndPlanPredicatesHoldAtInt64Extremes) {
  using Int = TypeParam;
  const Int M = kMax;
  for (const char* guard : {"kv_heads_guard", "kv_heads_guard_strict"}) {
    EXPECT_HOLDS(errors_where_due<Int>(guard, M, Int(M - 1), M, 0));
    EXPECT_HOLDS(errors_where_due<Int>(guard, Int(kMin), M, Int(1), 0));
  }
  for (const auto& [d, P, D, H] : {std::tuple{Int(M - 1), M, M, M}, std::tuple{Int(M - 1), M, M, Int(1)},
                                   std::tuple{Int(M - 2), M, Int(M - 1), Int(1)}, std::tuple{Int(0), Int(1), M, Int(1)},
                                   std::tuple{Int(0), Int(1), Int(1), M}, std::tuple{Int(0), M, Int(1), M}}) {
    EXPECT_HOLDS(inv::plan_partitions_own_heads(d, P, D, H, false));
    EXPECT_HOLDS(inv::plan_matches_head_by_head_rule(d, P, D, H, false));
    EXPECT_HOLDS(inv::plan_sources_match_nixl(d, P, D, H, false));
    EXPECT_HOLDS(inv::single_source_holds_own_heads(d, P, D, H, false));
    EXPECT_HOLDS(inv::plan_partitions_own_heads(d, P, D, H, true));
  }
  EXPECT_HOLDS(inv::holders_hold_the_head(Int(M - 1), M, M));
  EXPECT_HOLDS(inv::holders_hold_the_head(Int(0), M, Int(1)));
  EXPECT_HOLDS(inv::holders_hold_the_head(Int(4294967295), Int(4611686018427387904), Int(4294967296)));
  EXPECT_HOLDS(errors_where_due<Int>("single_readers", Int(M - 1), M, Int(1)));
  EXPECT_HOLDS(errors_where_due<Int>("single_readers", Int(0), Int(M - 1), M));
  EXPECT_HOLDS(errors_where_due<Int>("single_readers", Int(kMin), Int(4), Int(4)));
}

TYPED_TEST(Predicates, PortPredicatesHold) {
  using Int = TypeParam;
  const Int M = kMax;
  for (const auto& [dp, t, T] : {std::tuple{Int(0), Int(7), Int(16)}, std::tuple{Int(3), Int(5), Int(16)},
                                 std::tuple{Int(0), Int(0), Int(0)}, std::tuple{Int(-1), Int(-1), Int(16)},
                                 std::tuple{Int(-1), Int(0), Int(16)}, std::tuple{M, Int(M - 1), M},
                                 std::tuple{Int(kMin), Int(kMin), Int(kMin)}}) {
    EXPECT_HOLDS(errors_where_due<Int>("port_offset", dp, t, T));
  }
  EXPECT_HOLDS(inv::port_offsets_distinct(Int(4), Int(16)));
  EXPECT_HOLDS(inv::port_offsets_distinct(Int(3), Int(1)));
  for (int d = 0; d < 8; ++d) {
    EXPECT_HOLDS(inv::dialed_peer_is_the_mapped_rank(Int(2), Int(d), Int(4), Int(8), Int(2)));
    EXPECT_HOLDS(inv::dialed_peer_is_the_mapped_rank(Int(0), Int(d), Int(16), Int(8), Int(4)));
  }
  EXPECT_HOLDS(inv::dialed_peer_is_the_mapped_rank(M, Int(M - 1), M, M, M));
  for (const auto& [base, dp_size, T] : {std::tuple{Int(1000), Int(2), Int(16)}, std::tuple{Int(65504), Int(2), Int(16)},
                                         std::tuple{Int(65505), Int(2), Int(16)}, std::tuple{Int(0), Int(2), Int(16)},
                                         std::tuple{M, M, M}, std::tuple{Int(1), Int(1), M}}) {
    EXPECT_HOLDS(inv::port_range_rejects_exactly_overflow(base, dp_size, T));
  }
}

TEST(PredicatesBeyond64Bits, HoldOnHugeSizes) {
  const BigInt L = pow2(70), R = pow2(72), H = pow2(66);
  EXPECT_HOLDS(inv::mapped_rank_in_bounds<BigInt>(L - 1, L, R));
  EXPECT_HOLDS(inv::maps_monotone_at<BigInt>(L - 2, L, R));
  EXPECT_HOLDS(inv::fan_in_balanced<BigInt>(R - 1, L, R));
  EXPECT_HOLDS(inv::fan_in_balanced<BigInt>(BigInt(5), L, 3 * pow2(69)));  // non-divisible
  EXPECT_HOLDS(inv::round_trip_returns_home<BigInt>(R - 1, R, L));
  EXPECT_HOLDS(inv::windows_are_dual<BigInt>(L - 1, L, R));
  EXPECT_HOLDS(errors_where_due<BigInt>("remote_rank", BigInt(0), L, BigInt(3 * pow2(69))));
  EXPECT_HOLDS(errors_where_due<BigInt>("general_rank", BigInt(0), L, BigInt(3 * pow2(69))));
  EXPECT_HOLDS(errors_where_due<BigInt>("tp_ratio", L, BigInt(3 * pow2(69))));
  EXPECT_HOLDS(errors_where_due<BigInt>("window", BigInt(0), L, R));  // 4 ranks
  EXPECT_HOLDS(errors_where_due<BigInt>("window", BigInt(0), BigInt(1), L));  // 2^70 ranks: too many to list
  EXPECT_HOLDS(inv::general_agrees_with_strict<BigInt>(L - 1, L, R));
  EXPECT_HOLDS(errors_where_due<BigInt>("kv_heads_guard", L, R, H, 0));
  EXPECT_HOLDS(errors_where_due<BigInt>("kv_heads_guard_strict", L, R, H, 0));
  EXPECT_HOLDS(errors_where_due<BigInt>("single_readers", BigInt(L - 1), L, R));
  EXPECT_HOLDS(errors_where_due<BigInt>("port_offset", L, BigInt(L - 1), L));
  EXPECT_HOLDS(errors_where_due<BigInt>("plan", BigInt(0), L, BigInt(1), L, 0));  // 2^70 copies: too many to list
  EXPECT_HOLDS(inv::holders_hold_the_head<BigInt>(H - 1, L, H));
  EXPECT_HOLDS(inv::plan_partitions_own_heads<BigInt>(R - 1, L, R, H, false));
  EXPECT_HOLDS(inv::plan_matches_head_by_head_rule<BigInt>(R - 1, L, R, H, false));
  EXPECT_HOLDS(inv::plan_sources_match_nixl<BigInt>(R - 1, L, R, H, false));
  EXPECT_HOLDS(inv::single_source_holds_own_heads<BigInt>(R - 1, L, R, H, false));
  EXPECT_HOLDS(inv::dialed_peer_is_the_mapped_rank<BigInt>(BigInt(1), R - 1, L, R, BigInt(64)));
  EXPECT_HOLDS(inv::port_range_rejects_exactly_overflow<BigInt>(BigInt(1), L, L));
}

// Each predicate speaks about the inputs its invariant is about, and says why
// it does not about the others: an engine counts those apart.
TYPED_TEST(Predicates, RankMapPredicatesSpeakExactlyAboutTheirInputs) {
  using Int = TypeParam;
  EXPECT_SPEAKS(inv::round_trip_returns_home(Int(3), Int(4), Int(8)));
  EXPECT_SPEAKS(inv::round_trip_returns_home(Int(5), Int(8), Int(4)));
  EXPECT_VACUOUS(inv::round_trip_returns_home(Int(0), Int(4), Int(6)), "not divisible");
  EXPECT_VACUOUS(inv::round_trip_returns_home(Int(4), Int(4), Int(8)), "not a valid rank");
  EXPECT_SPEAKS(inv::general_agrees_with_strict(Int(1), Int(2), Int(4)));
  EXPECT_VACUOUS(inv::general_agrees_with_strict(Int(1), Int(4), Int(6)), "remote_rank fails");
  EXPECT_SPEAKS(inv::maps_monotone_at(Int(2), Int(4), Int(6)));
  EXPECT_VACUOUS(inv::maps_monotone_at(Int(3), Int(4), Int(6)), "no successor");
  EXPECT_SPEAKS(inv::windows_are_dual(Int(1), Int(2), Int(8)));
  EXPECT_VACUOUS(inv::windows_are_dual(Int(1), Int(4), Int(6)), "no window");
  EXPECT_SPEAKS(inv::mapped_rank_in_bounds(Int(1), Int(4), Int(6)));  // the general map speaks
  EXPECT_VACUOUS(inv::mapped_rank_in_bounds(Int(4), Int(4), Int(6)), "not a valid rank");
  EXPECT_SPEAKS(inv::fan_in_balanced(Int(5), Int(4), Int(6)));
  EXPECT_VACUOUS(inv::fan_in_balanced(Int(6), Int(4), Int(6)), "not a remote rank");
  EXPECT_SPEAKS(inv::ratio_is_the_quotient(Int(8), Int(4)));
  EXPECT_VACUOUS(inv::ratio_is_the_quotient(Int(4), Int(6)), "not a divisible pair");
  // The error oracle speaks about every input.
  EXPECT_SPEAKS(errors_where_due<Int>("remote_rank", -1, 0, 6));
  EXPECT_SPEAKS(errors_where_due<Int>("tp_ratio", 0, -3));
  EXPECT_SPEAKS(errors_where_due<Int>("single_readers", 7, 4, 6));
  EXPECT_SPEAKS(errors_where_due<Int>("port_offset", -1, 0, 0));
}

TYPED_TEST(Predicates, PlanPredicatesSpeakExactlyAboutLoadableDeployments) {
  using Int = TypeParam;
  EXPECT_SPEAKS(inv::plan_partitions_own_heads(Int(1), Int(4), Int(6), Int(12), false));
  EXPECT_SPEAKS(inv::plan_partitions_own_heads(Int(1), Int(4), Int(6), Int(0), true));  // MLA ignores H
  EXPECT_VACUOUS(inv::plan_partitions_own_heads(Int(1), Int(4), Int(6), Int(5), false), "not a loadable");
  EXPECT_VACUOUS(inv::plan_partitions_own_heads(Int(6), Int(4), Int(6), Int(12), false), "not a loadable");
  // A plan of more copies than a predicate walks: P = 2^13 prefill ranks, one decode rank.
  EXPECT_VACUOUS(inv::plan_partitions_own_heads(Int(0), Int(8192), Int(1), Int(8192), false), "too many copies");
  EXPECT_SPEAKS(inv::plan_sources_match_nixl(Int(1), Int(4), Int(2), Int(2), false));
  EXPECT_VACUOUS(inv::plan_sources_match_nixl(Int(1), Int(4), Int(6), Int(2), false), "not divisible");
  EXPECT_VACUOUS(inv::plan_matches_head_by_head_rule(Int(0), Int(1), Int(1), Int(8192), false), "too many heads");
  EXPECT_SPEAKS(inv::single_source_holds_own_heads(Int(3), Int(4), Int(6), Int(2), false));
  EXPECT_SPEAKS(inv::readers_count_plan_copies(Int(4), Int(6), Int(12), false));
  EXPECT_VACUOUS(inv::readers_count_plan_copies(Int(4), Int(6), Int(5), false), "not a loadable");
  EXPECT_SPEAKS(inv::single_readers_count_map_preimages(Int(4), Int(2)));
  EXPECT_VACUOUS(inv::single_readers_count_map_preimages(Int(4), Int(6)), "not divisible");
  EXPECT_SPEAKS(inv::holders_hold_the_head(Int(1), Int(4), Int(2)));
  EXPECT_VACUOUS(inv::holders_hold_the_head(Int(2), Int(4), Int(2)), "not a head");
  EXPECT_SPEAKS(inv::accepted_sizing_is_served_correctly(Int(4), Int(6), Int(5), false));  // not loadable: rejected
}

TYPED_TEST(Predicates, PortPredicatesSpeakExactlyAboutDeployments) {
  using Int = TypeParam;
  EXPECT_SPEAKS(inv::port_offsets_distinct(Int(2), Int(8)));
  EXPECT_VACUOUS(inv::port_offsets_distinct(Int(0), Int(8)), "not a deployment");
  EXPECT_SPEAKS(inv::dialed_peer_is_the_mapped_rank(Int(1), Int(3), Int(2), Int(4), Int(2)));
  EXPECT_VACUOUS(inv::dialed_peer_is_the_mapped_rank(Int(1), Int(3), Int(4), Int(6), Int(2)), "dials no peer");
  EXPECT_VACUOUS(inv::dialed_peer_is_the_mapped_rank(Int(-1), Int(3), Int(2), Int(4), Int(2)), "not a DP rank");
  EXPECT_SPEAKS(inv::port_range_rejects_exactly_overflow(Int(0), Int(2), Int(8)));
}

}  // namespace
}  // namespace tpcheck::test
