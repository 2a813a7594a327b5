// SPEC §6-7: the read plan of a decode rank (general rule and MoRIIO's single
// source), its copy count, and fan-in (readers, single_readers) — known
// values, exact texts, precedence, int64 extremes and cpp_int beyond 2^64.
#include <string>

#include "model_test_support.hpp"

namespace tpcheck::test {
namespace {

template <class Int>
struct Plans : ::testing::Test {
  static std::string general(const Int& d, const Int& P, const Int& D, const Int& H, bool mla = false) {
    return render(plan<Int>(d, P, D, H, mla));
  }
  static std::string count(const Int& d, const Int& P, const Int& D, const Int& H, bool mla = false) {
    return render(plan_copy_count<Int>(d, P, D, H, mla));
  }
  static std::string single(const Int& d, const Int& P, const Int& D, const Int& H, bool mla = false) {
    return render(single_source_plan<Int>(d, P, D, H, mla));
  }
  static std::string fan_in(const Int& p, const Int& P, const Int& D, const Int& H, bool mla = false) {
    return render(readers<Int>(p, P, D, H, mla));
  }
  static std::string single_fan_in(const Int& p, const Int& P, const Int& D) {
    return render(single_readers<Int>(p, P, D));
  }
  // [readers(p) for p in range(P)]
  static std::string fan_in_row(const Int& P, const Int& D, const Int& H, bool mla = false) {
    std::string out = "[";
    for (Int p = 0; p < P; ++p) out += (p == 0 ? "" : ", ") + fan_in(p, P, D, H, mla);
    return out + "]";
  }
  static std::string single_fan_in_row(const Int& P, const Int& D) {
    std::string out = "[";
    for (Int p = 0; p < P; ++p) out += (p == 0 ? "" : ", ") + single_fan_in(p, P, D);
    return out + "]";
  }
};
TYPED_TEST_SUITE(Plans, ModelInts, IntName);

// --- §6 the general plan -----------------------------------------------------

TYPED_TEST(Plans, SpecExampleH2P4D2ReadsP0AndP2) {
  EXPECT_EQ(this->general(0, 4, 2, 2), "[(0, 0, 1)]");
  EXPECT_EQ(this->general(1, 4, 2, 2), "[(2, 1, 2)]");
}

TYPED_TEST(Plans, DivisiblePairsReadNixlsSources) {
  // D >= P: one source d // (D/P), offset first(d) - first(p).
  EXPECT_EQ(this->general(3, 2, 4, 8), "[(1, 6, 8)]");
  EXPECT_EQ(this->general(2, 2, 4, 8), "[(1, 4, 6)]");
  EXPECT_EQ(this->general(5, 4, 8, 4), "[(2, 2, 3)]");  // replicated on both sides
  // D < P with split heads: one copy per distinct head range in the window.
  EXPECT_EQ(this->general(1, 8, 4, 8), "[(2, 2, 3), (3, 3, 4)]");
  EXPECT_EQ(this->general(0, 4, 4, 4), "[(0, 0, 1)]");
}

TYPED_TEST(Plans, NonDivisibleP4D6WithTwoHeads) {
  // heads(d, 6, 2): d0-2 hold head 0, d3-5 head 1; holders in P=4: [0,2) and
  // [2,4); anchors floor(d*4/6) = 0,0,1,2,2,3.
  EXPECT_EQ(this->general(0, 4, 6, 2), "[(0, 0, 1)]");
  EXPECT_EQ(this->general(1, 4, 6, 2), "[(0, 0, 1)]");
  EXPECT_EQ(this->general(2, 4, 6, 2), "[(1, 0, 1)]");
  EXPECT_EQ(this->general(3, 4, 6, 2), "[(2, 1, 2)]");
  EXPECT_EQ(this->general(4, 4, 6, 2), "[(2, 1, 2)]");
  EXPECT_EQ(this->general(5, 4, 6, 2), "[(3, 1, 2)]");
}

TYPED_TEST(Plans, NonDivisibleP4D6WithMla) {
  // MLA is one head held by every rank: the source is the anchor itself; H is ignored.
  EXPECT_EQ(this->general(0, 4, 6, 7, true), "[(0, 0, 1)]");
  EXPECT_EQ(this->general(2, 4, 6, 7, true), "[(1, 0, 1)]");
  EXPECT_EQ(this->general(5, 4, 6, 0, true), "[(3, 0, 1)]");
  EXPECT_EQ(this->count(5, 4, 6, -1, true), "1");
}

TYPED_TEST(Plans, NonDivisibleP4D6H12HasTwoSourcesForSomeRanks) {
  // p holds 3 heads ([0,3), [3,6), [6,9), [9,12)); d holds 2.
  EXPECT_EQ(this->general(0, 4, 6, 12), "[(0, 0, 2)]");
  EXPECT_EQ(this->general(1, 4, 6, 12), "[(0, 2, 3), (1, 3, 4)]");
  EXPECT_EQ(this->general(2, 4, 6, 12), "[(1, 4, 6)]");
  EXPECT_EQ(this->general(4, 4, 6, 12), "[(2, 8, 9), (3, 9, 10)]");
  EXPECT_EQ(this->count(1, 4, 6, 12), "2");
  EXPECT_EQ(this->count(2, 4, 6, 12), "1");
}

// The SPEC leaves invalid plan inputs open: the model's messages name the bad
// argument, checked as sizes, then the rank, then shardability on each side.
TYPED_TEST(Plans, PlanErrorsProjectMessagesAndOrder) {
  EXPECT_EQ(this->general(0, 0, 4, 4), "ValueError: prefill tp_size 0 must be positive");
  EXPECT_EQ(this->general(0, 4, -2, 4), "ValueError: decode tp_size -2 must be positive");
  EXPECT_EQ(this->general(0, 4, 4, 0), "ValueError: total_num_kv_heads 0 must be positive");
  EXPECT_EQ(this->general(4, 4, 4, 4), "ValueError: decode_tp_rank 4 must be in [0, 4)");
  EXPECT_EQ(this->general(-1, 4, 4, 4), "ValueError: decode_tp_rank -1 must be in [0, 4)");
  EXPECT_EQ(this->general(0, 4, 6, 3),
            "ValueError: total_num_kv_heads 3 cannot be sharded over prefill tp_size 4: one must divide the other");
  EXPECT_EQ(this->general(0, 4, 6, 4),
            "ValueError: total_num_kv_heads 4 cannot be sharded over decode tp_size 6: one must divide the other");
  EXPECT_EQ(this->general(-1, 0, 0, 0), "ValueError: prefill tp_size 0 must be positive");
  EXPECT_EQ(this->general(9, 4, 0, 0), "ValueError: decode tp_size 0 must be positive");
  EXPECT_EQ(this->general(9, 4, 6, -5), "ValueError: total_num_kv_heads -5 must be positive");
  EXPECT_EQ(this->general(6, 4, 6, 3), "ValueError: decode_tp_rank 6 must be in [0, 6)");
  // plan_copy_count fails exactly as plan does.
  EXPECT_EQ(this->count(0, 0, 4, 4), "ValueError: prefill tp_size 0 must be positive");
  EXPECT_EQ(this->count(4, 4, 4, 4), "ValueError: decode_tp_rank 4 must be in [0, 4)");
  EXPECT_EQ(this->count(0, 4, 6, 4),
            "ValueError: total_num_kv_heads 4 cannot be sharded over decode tp_size 6: one must divide the other");
}

// Project choice: a plan is listed only up to 2^20 copies; its count has no limit.
TYPED_TEST(Plans, PlanTooLongToListProjectMessage) {
  EXPECT_EQ(this->count(0, 2097152, 1, 2097152), "2097152");
  EXPECT_EQ(this->general(0, 2097152, 1, 2097152),
            "ValueError: plan of decode_tp_rank 0 has 2097152 elements, more than the model lists (1048576)");
}

TEST(PlanLimit, PlanOfExactlyTheListLimitIsListed) {
  // P = H = 2^20, D = 1: the one decode rank reads one head from every prefill rank.
  const Outcome<Plan<std::int64_t>> got = plan<std::int64_t>(0, 1048576, 1, 1048576, false);
  ASSERT_TRUE(got.ok()) << render(got);
  ASSERT_EQ(got.value().size(), 1048576u);
  EXPECT_EQ(render(got.value().front()), "(0, 0, 1)");
  EXPECT_EQ(render(got.value().back()), "(1048575, 1048575, 1048576)");
}

TYPED_TEST(Plans, PlanAtInt64Extremes) {
  const TypeParam M = kMax;
  EXPECT_EQ(this->general(M - 1, M, M, M), "[(9223372036854775806, 9223372036854775806, 9223372036854775807)]");
  EXPECT_EQ(this->general(0, M, 1, 1), "[(0, 0, 1)]");
  EXPECT_EQ(this->general(0, 1, M, 1), "[(0, 0, 1)]");
  // anchor = floor((M-1) * M / M) needs a product near 2^126.
  EXPECT_EQ(this->general(M - 1, M, M, 1), "[(9223372036854775806, 0, 1)]");
  EXPECT_EQ(this->general(M - 2, M, M - 1, 1, true), "[(9223372036854775805, 0, 1)]");  // floor((M-2) * M / (M-1))
  EXPECT_EQ(this->general(0, 1, 1, M), "[(0, 0, 9223372036854775807)]");
  EXPECT_EQ(this->count(0, M, 1, M), "9223372036854775807");
  EXPECT_EQ(this->general(0, M, 1, M),
            "ValueError: plan of decode_tp_rank 0 has 9223372036854775807 elements, more than the model lists (1048576)");
  EXPECT_EQ(this->general(kMin, 4, 4, 4), "ValueError: decode_tp_rank -9223372036854775808 must be in [0, 4)");
  EXPECT_EQ(this->general(0, kMin, 4, 4), "ValueError: prefill tp_size -9223372036854775808 must be positive");
}

// --- §6 MoRIIO's single whole-page copy ------------------------------------

TYPED_TEST(Plans, SingleSourceCopiesTheWholePageOfRemoteRank) {
  // Guard accepts (replicated on both sides): equals the general plan.
  EXPECT_EQ(this->single(1, 4, 2, 2), "[(2, 1, 2)]");
  EXPECT_EQ(this->single(3, 2, 4, 1, true), "[(1, 0, 1)]");
  // Guard rejects (P=4, D=2, H=4): one page (2, 2, 3) where d1 needs heads [2, 4).
  EXPECT_EQ(this->single(1, 4, 2, 4), "[(2, 2, 3)]");
  EXPECT_EQ(this->general(1, 4, 2, 4), "[(2, 2, 3), (3, 3, 4)]");
  // D > P split heads: the source page holds more than d's heads.
  EXPECT_EQ(this->single(1, 2, 4, 8), "[(0, 0, 4)]");
}

TYPED_TEST(Plans, SingleSourceFailsLikeTheStrictMapOnNonDivisiblePairs) {
  EXPECT_EQ(this->single(0, 4, 6, 2),
            "ValueError: local tp_size 6 must be a multiple of remote tp_size 4 for heterogeneous-TP P/D");
  EXPECT_EQ(this->single(0, 6, 4, 2),
            "ValueError: remote tp_size 6 must be a multiple of local tp_size 4 for heterogeneous-TP P/D");
  // The plan's own checks come first (project order).
  EXPECT_EQ(this->single(6, 4, 6, 2), "ValueError: decode_tp_rank 6 must be in [0, 6)");
  EXPECT_EQ(this->single(0, 4, 6, 3),
            "ValueError: total_num_kv_heads 3 cannot be sharded over prefill tp_size 4: one must divide the other");
}

// --- §7 fan-in under the general plan ----------------------------------------

TYPED_TEST(Plans, ReadersCountCopiesFromEachPrefillRank) {
  EXPECT_EQ(this->fan_in_row(4, 2, 2), "[1, 0, 1, 0]");  // p1, p3 finish without waiting
  EXPECT_EQ(this->fan_in_row(4, 6, 2), "[2, 1, 2, 1]");
  EXPECT_EQ(this->fan_in_row(4, 6, 12), "[2, 2, 2, 2]");
  EXPECT_EQ(this->fan_in_row(4, 6, 1, true), "[2, 1, 2, 1]");
  EXPECT_EQ(this->fan_in_row(4, 8, 4), "[2, 2, 2, 2]");
  EXPECT_EQ(this->fan_in_row(8, 4, 8), "[1, 1, 1, 1, 1, 1, 1, 1]");
  EXPECT_EQ(this->fan_in_row(2, 4, 8), "[2, 2]");
}

TYPED_TEST(Plans, ReadersErrorsProjectMessages) {
  EXPECT_EQ(this->fan_in(4, 4, 4, 4), "ValueError: prefill_tp_rank 4 must be in [0, 4)");
  EXPECT_EQ(this->fan_in(-1, 4, 4, 4), "ValueError: prefill_tp_rank -1 must be in [0, 4)");
  EXPECT_EQ(this->fan_in(0, 0, 4, 4), "ValueError: prefill tp_size 0 must be positive");
  EXPECT_EQ(this->fan_in(0, 4, 0, 4), "ValueError: decode tp_size 0 must be positive");
  EXPECT_EQ(this->fan_in(0, 4, 4, -1), "ValueError: total_num_kv_heads -1 must be positive");
  EXPECT_EQ(this->fan_in(0, 4, 6, 4),
            "ValueError: total_num_kv_heads 4 cannot be sharded over decode tp_size 6: one must divide the other");
}

TYPED_TEST(Plans, ReadersAtInt64Extremes) {
  const TypeParam M = kMax;
  EXPECT_EQ(this->fan_in(0, 1, M, 1), "9223372036854775807");
  EXPECT_EQ(this->fan_in(0, 1, 1, M), "1");
  // P = M > H = 1, D = M - 1: anchors floor(d * M / (M-1)) = d, so p = M-1 has none.
  EXPECT_EQ(this->fan_in(M - 1, M, M - 1, 1), "0");
  EXPECT_EQ(this->fan_in(M - 2, M, M - 1, 1), "1");
  EXPECT_EQ(this->fan_in(0, M, M - 1, 1), "1");
  EXPECT_EQ(this->fan_in(M - 1, M, 1, 1), "0");
  EXPECT_EQ(this->fan_in(0, M, 1, 1), "1");
  EXPECT_EQ(this->fan_in(M - 1, M, M, M), "1");
  EXPECT_EQ(this->fan_in(kMin, 4, 4, 4), "ValueError: prefill_tp_rank -9223372036854775808 must be in [0, 4)");
}

// --- §7 fan-in under MoRIIO's single-source map ------------------------------

TYPED_TEST(Plans, SingleReadersSpecCounts) {
  // get_moriio_expected_ack_count: (4,4) -> 1, (8,4) -> 1 on the ranks that are read, (4,8) -> 2.
  EXPECT_EQ(this->single_fan_in_row(4, 4), "[1, 1, 1, 1]");
  EXPECT_EQ(this->single_fan_in_row(4, 8), "[2, 2, 2, 2]");
  // D < P: 1 for p % (P/D) == 0, 0 for the others.
  EXPECT_EQ(this->single_fan_in_row(8, 4), "[1, 0, 1, 0, 1, 0, 1, 0]");
  // _read_completion_quorum(2, 4, 3) -> 0: that producer finishes without notification.
  EXPECT_EQ(this->single_fan_in(3, 4, 2), "0");
  EXPECT_EQ(this->single_fan_in(2, 4, 2), "1");
}

TYPED_TEST(Plans, SingleReadersErrorsInSpecOrder) {
  EXPECT_EQ(this->single_fan_in(0, 0, 4), "ValueError: TP sizes must be positive");
  EXPECT_EQ(this->single_fan_in(0, 4, -1), "ValueError: TP sizes must be positive");
  EXPECT_EQ(this->single_fan_in(4, 4, 8), "ValueError: producer_tp_rank 4 must be in [0, 4)");
  EXPECT_EQ(this->single_fan_in(0, 4, 6),
            "ValueError: consumer tp_size 6 must be a multiple of producer tp_size 4 for heterogeneous-TP P/D");
  EXPECT_EQ(this->single_fan_in(0, 6, 4),
            "ValueError: producer tp_size 6 must be a multiple of consumer tp_size 4 for heterogeneous-TP P/D");
  // Precedence: positivity, then the rank, then divisibility.
  EXPECT_EQ(this->single_fan_in(-1, 0, 6), "ValueError: TP sizes must be positive");
  EXPECT_EQ(this->single_fan_in(6, 4, 6), "ValueError: producer_tp_rank 6 must be in [0, 4)");
  EXPECT_EQ(this->single_fan_in(-1, 6, 4), "ValueError: producer_tp_rank -1 must be in [0, 6)");
}

TYPED_TEST(Plans, SingleReadersAtInt64Extremes) {
  const TypeParam M = kMax;
  EXPECT_EQ(this->single_fan_in(0, 1, M), "9223372036854775807");
  EXPECT_EQ(this->single_fan_in(0, M, 1), "1");
  EXPECT_EQ(this->single_fan_in(M - 1, M, 1), "0");
  EXPECT_EQ(this->single_fan_in(M - 1, M, M), "1");
  EXPECT_EQ(this->single_fan_in(0, M - 1, M),
            "ValueError: consumer tp_size 9223372036854775807 must be a multiple of producer tp_size "
            "9223372036854775806 for heterogeneous-TP P/D");
  EXPECT_EQ(this->single_fan_in(kMin, 4, 4), "ValueError: producer_tp_rank -9223372036854775808 must be in [0, 4)");
  EXPECT_EQ(this->single_fan_in(0, kMin, 4), "ValueError: TP sizes must be positive");
}

// --- cpp_int beyond 2^64 -----------------------------------------------------

TEST(PlansBeyond64Bits, PlanCountsAndFanIn) {
  EXPECT_EQ(render(plan<BigInt>(pow2(64), pow2(65), pow2(65), pow2(66), false)),
            "[(18446744073709551616, 36893488147419103232, 36893488147419103234)]");
  EXPECT_EQ(render(plan_copy_count<BigInt>(0, pow2(70), 1, pow2(70), false)), "1180591620717411303424");
  EXPECT_EQ(render(plan<BigInt>(pow2(70) - 1, pow2(70), pow2(70), 1, false)), "[(1180591620717411303423, 0, 1)]");
  EXPECT_EQ(render(single_source_plan<BigInt>(pow2(65) - 1, pow2(64), pow2(65), 1, true)),
            "[(18446744073709551615, 0, 1)]");
  EXPECT_EQ(render(readers<BigInt>(0, 1, pow2(70), 1, false)), "1180591620717411303424");
  EXPECT_EQ(render(single_readers<BigInt>(0, pow2(64), pow2(70))), "64");
  EXPECT_EQ(render(single_readers<BigInt>(0, pow2(64), pow2(64) + 1)),
            "ValueError: consumer tp_size 18446744073709551617 must be a multiple of producer tp_size "
            "18446744073709551616 for heterogeneous-TP P/D");
  EXPECT_EQ(render(plan<BigInt>(0, pow2(64), 6, 4, false)),
            "ValueError: total_num_kv_heads 4 cannot be sharded over decode tp_size 6: one must divide the other");
}

}  // namespace
}  // namespace tpcheck::test
