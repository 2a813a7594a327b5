// SPEC §1-3: the strict and general rank maps, tp_ratio and windows — known
// values, exact error texts and their precedence, int64 extremes (products
// past 2^63) and cpp_int inputs beyond 2^64.
#include <string>

#include "model_test_support.hpp"

namespace tpcheck::test {
namespace {

template <class Int>
struct RankMap : ::testing::Test {
  static std::string strict(const Int& r, const Int& L, const Int& R) { return render(remote_rank<Int>(r, L, R)); }
  static std::string general(const Int& r, const Int& L, const Int& R) { return render(general_rank<Int>(r, L, R)); }
  static std::string ratio(const Int& L, const Int& R) { return render(tp_ratio<Int>(L, R)); }
  static std::string span(const Int& r, const Int& L, const Int& R) { return render(window_span<Int>(r, L, R)); }
  static std::string listed(const Int& r, const Int& L, const Int& R) { return render(window<Int>(r, L, R)); }

  // [map(r) for r in range(L)] in Python's notation, as the SPEC writes it.
  template <class Map>
  static std::string row(const Int& L, const Int& R, Map map) {
    std::string out = "[";
    for (Int r = 0; r < L; ++r) out += (r == 0 ? "" : ", ") + map(r, L, R);
    return out + "]";
  }
};
TYPED_TEST_SUITE(RankMap, ModelInts, IntName);

// --- §1 the strict map -------------------------------------------------------

TYPED_TEST(RankMap, StrictKnownValuesFromSpec) {
  EXPECT_EQ(this->row(4, 4, this->strict), "[0, 1, 2, 3]");
  EXPECT_EQ(this->row(8, 4, this->strict), "[0, 0, 1, 1, 2, 2, 3, 3]");
  EXPECT_EQ(this->row(4, 8, this->strict), "[0, 2, 4, 6]");
}

TYPED_TEST(RankMap, StrictMultipleErrorsNameTheRightSide) {
  EXPECT_EQ(this->strict(0, 6, 4),
            "ValueError: local tp_size 6 must be a multiple of remote tp_size 4 for heterogeneous-TP P/D");
  EXPECT_EQ(this->strict(0, 4, 6),
            "ValueError: remote tp_size 6 must be a multiple of local tp_size 4 for heterogeneous-TP P/D");
  EXPECT_EQ(this->strict(2, 3, 2),
            "ValueError: local tp_size 3 must be a multiple of remote tp_size 2 for heterogeneous-TP P/D");
}

TYPED_TEST(RankMap, StrictRankCheckComesBeforeDivisibility) {
  EXPECT_EQ(this->strict(5, 4, 6), "ValueError: local_tp_rank 5 must be in [0, 4)");
  EXPECT_EQ(this->strict(4, 4, 6), "ValueError: local_tp_rank 4 must be in [0, 4)");
  EXPECT_EQ(this->strict(-1, 4, 6), "ValueError: local_tp_rank -1 must be in [0, 4)");
  EXPECT_EQ(this->strict(4, 4, 4), "ValueError: local_tp_rank 4 must be in [0, 4)");  // before L == R
}

TYPED_TEST(RankMap, StrictPositivityComesFirst) {
  EXPECT_EQ(this->strict(-1, 0, 6), "ValueError: TP sizes must be positive");
  EXPECT_EQ(this->strict(0, 4, 0), "ValueError: TP sizes must be positive");
  EXPECT_EQ(this->strict(0, -4, -4), "ValueError: TP sizes must be positive");  // even when L == R
  EXPECT_EQ(this->strict(99, 4, -6), "ValueError: TP sizes must be positive");
}

TYPED_TEST(RankMap, StrictAtInt64Extremes) {
  const TypeParam M = kMax;
  EXPECT_EQ(this->strict(M - 1, M, M), "9223372036854775806");
  EXPECT_EQ(this->strict(M - 1, M, 1), "0");
  EXPECT_EQ(this->strict(0, 1, M), "0");
  // L = 2^32, R = 2^62: r * (R // L) is near 2^62 for the last rank.
  EXPECT_EQ(this->strict(TypeParam(4294967295), TypeParam(4294967296), TypeParam(4611686018427387904)),
            "4611686017353646080");
  EXPECT_EQ(this->strict(0, M, M - 1),
            "ValueError: local tp_size 9223372036854775807 must be a multiple of remote tp_size 9223372036854775806 "
            "for heterogeneous-TP P/D");
  EXPECT_EQ(this->strict(kMin, 4, 4), "ValueError: local_tp_rank -9223372036854775808 must be in [0, 4)");
  EXPECT_EQ(this->strict(M, M, M), "ValueError: local_tp_rank 9223372036854775807 must be in [0, 9223372036854775807)");
  EXPECT_EQ(this->strict(0, kMin, kMin), "ValueError: TP sizes must be positive");
}

// --- §2 the general map ------------------------------------------------------

TYPED_TEST(RankMap, GeneralEqualsStrictKnownValues) {
  EXPECT_EQ(this->row(4, 4, this->general), "[0, 1, 2, 3]");
  EXPECT_EQ(this->row(8, 4, this->general), "[0, 0, 1, 1, 2, 2, 3, 3]");
  EXPECT_EQ(this->row(4, 8, this->general), "[0, 2, 4, 6]");
}

TYPED_TEST(RankMap, GeneralNeedsNoDivisibility) {
  // floor(r * R / L)
  EXPECT_EQ(this->row(4, 6, this->general), "[0, 1, 3, 4]");
  EXPECT_EQ(this->row(6, 4, this->general), "[0, 0, 1, 2, 2, 3]");
  EXPECT_EQ(this->row(3, 2, this->general), "[0, 0, 1]");
}

TYPED_TEST(RankMap, GeneralSharesTheStrictPositivityAndRankErrors) {
  EXPECT_EQ(this->general(-1, 0, 6), "ValueError: TP sizes must be positive");
  EXPECT_EQ(this->general(0, 4, 0), "ValueError: TP sizes must be positive");
  EXPECT_EQ(this->general(5, 4, 6), "ValueError: local_tp_rank 5 must be in [0, 4)");
  EXPECT_EQ(this->general(-1, 4, 4), "ValueError: local_tp_rank -1 must be in [0, 4)");
}

TYPED_TEST(RankMap, GeneralWithoutOverflowAtInt64Extremes) {
  const TypeParam M = kMax;
  // (M-1) * (M-1) is near 2^126: floor((M-1)^2 / M) = M - 2.
  EXPECT_EQ(this->general(M - 1, M, M - 1), "9223372036854775805");
  EXPECT_EQ(this->general(M - 1, M, M), "9223372036854775806");
  EXPECT_EQ(this->general(M - 1, M, 1), "0");
  EXPECT_EQ(this->general(1, 2, M), "4611686018427387903");
  // Sizes above 2^32 whose product passes 2^63.
  EXPECT_EQ(this->general(TypeParam(4294967295), TypeParam(4294967296), TypeParam(6442450944)), "6442450942");
  EXPECT_EQ(this->general(kMin, M, M), "ValueError: local_tp_rank -9223372036854775808 must be in [0, 9223372036854775807)");
}

// --- §3 tp_ratio -------------------------------------------------------------

TYPED_TEST(RankMap, RatioKnownValues) {
  EXPECT_EQ(this->ratio(8, 4), "2");
  EXPECT_EQ(this->ratio(4, 4), "1");
  EXPECT_EQ(this->ratio(4, 8), "-2");  // the remote side is larger
  EXPECT_EQ(this->ratio(1, 2), "-2");
  EXPECT_EQ(this->ratio(2, 1), "2");
}

TYPED_TEST(RankMap, RatioAssertionErrors) {
  EXPECT_EQ(this->ratio(6, 4), "AssertionError: Local tensor parallel size 6 is not divisible by remote tensor parallel size 4.");
  EXPECT_EQ(this->ratio(4, 6), "AssertionError: Remote tensor parallel size 6 is not divisible by local tensor parallel size 4.");
}

// The SPEC says nothing about non-positive sizes here: the model names the bad one.
TYPED_TEST(RankMap, RatioNonPositiveSizesProjectMessages) {
  EXPECT_EQ(this->ratio(0, 4), "ValueError: local tp_size 0 must be positive");
  EXPECT_EQ(this->ratio(4, -1), "ValueError: remote tp_size -1 must be positive");
  EXPECT_EQ(this->ratio(-2, 0), "ValueError: local tp_size -2 must be positive");  // local checked first
}

TYPED_TEST(RankMap, RatioAtInt64Extremes) {
  const TypeParam M = kMax;
  EXPECT_EQ(this->ratio(M, 1), "9223372036854775807");
  EXPECT_EQ(this->ratio(1, M), "-9223372036854775807");
  EXPECT_EQ(this->ratio(M, M), "1");
  EXPECT_EQ(this->ratio(M, M - 1),
            "AssertionError: Local tensor parallel size 9223372036854775807 is not divisible by remote tensor "
            "parallel size 9223372036854775806.");
  EXPECT_EQ(this->ratio(kMin, 1), "ValueError: local tp_size -9223372036854775808 must be positive");
  EXPECT_EQ(this->ratio(1, kMin), "ValueError: remote tp_size -9223372036854775808 must be positive");
}

// --- §3 windows --------------------------------------------------------------

TYPED_TEST(RankMap, WindowKnownValuesFromSpec) {
  EXPECT_EQ(this->listed(0, 2, 4), "[0, 1]");  // local 2 rank 0 reading remote 4
  EXPECT_EQ(this->listed(3, 4, 2), "[1]");     // local 4 rank 3 reading remote 2
  EXPECT_EQ(this->listed(0, 1, 2), "[0, 1]");  // local 1 rank 0 reading remote 2
  EXPECT_EQ(this->listed(2, 4, 2), "[1]");     // local 4 rank 2 reading remote 2
  EXPECT_EQ(this->listed(1, 2, 8), "[4, 5, 6, 7]");
  EXPECT_EQ(this->listed(3, 4, 4), "[3]");
}

TYPED_TEST(RankMap, WindowSpanMatchesTheListedWindow) {
  EXPECT_EQ(this->span(0, 2, 4), "(0, 2)");
  EXPECT_EQ(this->span(3, 4, 2), "(1, 2)");
  EXPECT_EQ(this->span(1, 2, 8), "(4, 8)");
}

TYPED_TEST(RankMap, WindowFailsWithTpRatiosAssertion) {
  EXPECT_EQ(this->listed(0, 4, 6), "AssertionError: Remote tensor parallel size 6 is not divisible by local tensor parallel size 4.");
  EXPECT_EQ(this->span(0, 6, 4), "AssertionError: Local tensor parallel size 6 is not divisible by remote tensor parallel size 4.");
}

// Project choice: sizes first (as tp_ratio), then the rank (§1's text), then divisibility.
TYPED_TEST(RankMap, WindowErrorPrecedenceProjectChoice) {
  EXPECT_EQ(this->listed(0, 0, 4), "ValueError: local tp_size 0 must be positive");
  EXPECT_EQ(this->span(9, 4, -1), "ValueError: remote tp_size -1 must be positive");
  EXPECT_EQ(this->listed(4, 4, 6), "ValueError: local_tp_rank 4 must be in [0, 4)");
  EXPECT_EQ(this->span(-1, 4, 2), "ValueError: local_tp_rank -1 must be in [0, 4)");
}

// Project choice: a window is listed only up to 2^20 ranks; its span has no limit.
TYPED_TEST(RankMap, WindowTooLongToListProjectMessage) {
  EXPECT_EQ(this->span(0, 1, 2097152), "(0, 2097152)");
  EXPECT_EQ(this->listed(0, 1, 2097152),
            "ValueError: window of local_tp_rank 0 has 2097152 elements, more than the model lists (1048576)");
}

TEST(RankMapLimit, WindowOfExactlyTheListLimitIsListed) {
  const Outcome<Window<std::int64_t>> w = window<std::int64_t>(0, 1, 1048576);
  ASSERT_TRUE(w.ok()) << render(w);
  ASSERT_EQ(w.value().size(), 1048576u);
  EXPECT_EQ(w.value().front(), 0);
  EXPECT_EQ(w.value().back(), 1048575);
}

TYPED_TEST(RankMap, WindowAtInt64Extremes) {
  const TypeParam M = kMax;
  EXPECT_EQ(this->span(M - 1, M, 1), "(0, 1)");
  EXPECT_EQ(this->span(M - 1, M, M), "(9223372036854775806, 9223372036854775807)");
  EXPECT_EQ(this->span(0, 1, M), "(0, 9223372036854775807)");
  EXPECT_EQ(this->span(TypeParam(4294967295), TypeParam(4294967296), TypeParam(4611686018427387904)),
            "(4611686017353646080, 4611686018427387904)");
  EXPECT_EQ(this->listed(0, 1, M),
            "ValueError: window of local_tp_rank 0 has 9223372036854775807 elements, more than the model lists (1048576)");
  EXPECT_EQ(this->listed(kMin, 4, 4), "ValueError: local_tp_rank -9223372036854775808 must be in [0, 4)");
}

// --- cpp_int beyond 2^64 -----------------------------------------------------

TEST(RankMapBeyond64Bits, StrictMap) {
  // 2^70 - 1 of L = 2^70 to R = 2^71: r * 2.
  EXPECT_EQ(render(remote_rank<BigInt>(pow2(70) - 1, pow2(70), pow2(71))), "2361183241434822606846");
  EXPECT_EQ(render(remote_rank<BigInt>(pow2(70) - 1, pow2(70), pow2(6))), "63");
  EXPECT_EQ(render(remote_rank<BigInt>(0, pow2(64), 3 * pow2(63))),
            "ValueError: remote tp_size 27670116110564327424 must be a multiple of local tp_size "
            "18446744073709551616 for heterogeneous-TP P/D");
  EXPECT_EQ(render(remote_rank<BigInt>(-pow2(70), 4, 4)), "ValueError: local_tp_rank -1180591620717411303424 must be in [0, 4)");
  EXPECT_EQ(render(remote_rank<BigInt>(0, -pow2(70), 4)), "ValueError: TP sizes must be positive");
}

TEST(RankMapBeyond64Bits, GeneralMap) {
  EXPECT_EQ(render(general_rank<BigInt>(pow2(64), pow2(65), 3)), "1");
  EXPECT_EQ(render(general_rank<BigInt>(pow2(70) - 1, pow2(70), 3 * pow2(69))), "1770887431076116955134");
  EXPECT_EQ(render(general_rank<BigInt>(pow2(65), pow2(65), 3)), "ValueError: local_tp_rank 36893488147419103232 must be in [0, 36893488147419103232)");
}

TEST(RankMapBeyond64Bits, RatioAndWindow) {
  EXPECT_EQ(render(tp_ratio<BigInt>(1, pow2(64))), "-18446744073709551616");
  EXPECT_EQ(render(tp_ratio<BigInt>(pow2(70), 3)),
            "AssertionError: Local tensor parallel size 1180591620717411303424 is not divisible by remote tensor "
            "parallel size 3.");
  EXPECT_EQ(render(window_span<BigInt>(pow2(64) - 1, pow2(64), pow2(66))), "(73786976294838206460, 73786976294838206464)");
  EXPECT_EQ(render(window<BigInt>(pow2(64) - 1, pow2(64), pow2(66))),
            "[73786976294838206460, 73786976294838206461, 73786976294838206462, 73786976294838206463]");
  EXPECT_EQ(render(window<BigInt>(pow2(66) - 1, pow2(66), pow2(64))), "[18446744073709551615]");
}

}  // namespace
}  // namespace tpcheck::test
