// SPEC §4-5: head-compatibility, which heads a rank holds, who holds a head,
// and MoRIIO's head guard (upstream and strict) — known values, exact texts,
// precedence, int64 extremes and cpp_int beyond 2^64.
#include <string>

#include "model_test_support.hpp"

namespace tpcheck::test {
namespace {

template <class Int>
struct Heads : ::testing::Test {
  static bool compatible(const Int& T, const Int& H) { return head_compatible<Int>(T, H); }
  static std::string own(const Int& r, const Int& T, const Int& H) { return render(heads<Int>(r, T, H)); }
  static std::string holding(const Int& h, const Int& T, const Int& H) { return render(holders<Int>(h, T, H)); }
  static std::string guard(const Int& L, const Int& R, const Int& H, bool mla) {
    return render(kv_heads_guard<Int>(L, R, H, mla));
  }
  static std::string strict_guard(const Int& L, const Int& R, const Int& H, bool mla) {
    return render(kv_heads_guard_strict<Int>(L, R, H, mla));
  }
};
TYPED_TEST_SUITE(Heads, ModelInts, IntName);

// --- §4 head-compatibility and ownership -----------------------------------

TYPED_TEST(Heads, CompatibleWhenOneDividesTheOther) {
  EXPECT_TRUE(this->compatible(4, 8));
  EXPECT_TRUE(this->compatible(8, 4));
  EXPECT_TRUE(this->compatible(4, 4));
  EXPECT_TRUE(this->compatible(6, 1));  // MLA: one head
  EXPECT_FALSE(this->compatible(4, 6));
  EXPECT_FALSE(this->compatible(6, 4));
  EXPECT_FALSE(this->compatible(3, 2));
  EXPECT_TRUE(this->compatible(kMax, 1));
  EXPECT_TRUE(this->compatible(1, kMax));
  EXPECT_FALSE(this->compatible(kMax, kMax - 1));
}

TYPED_TEST(Heads, SplitHeadsAreContiguousRanges) {
  // T <= H: H/T heads per rank starting at r * H / T.
  EXPECT_EQ(this->own(0, 4, 8), "(0, 2)");
  EXPECT_EQ(this->own(1, 4, 8), "(2, 4)");
  EXPECT_EQ(this->own(3, 4, 8), "(6, 8)");
  EXPECT_EQ(this->own(2, 4, 4), "(2, 3)");
  EXPECT_EQ(this->own(0, 1, 12), "(0, 12)");
}

TYPED_TEST(Heads, ReplicatedHeadsAreSharedByTOverHRanks) {
  // T >= H: one head per rank, floor(r * H / T).
  EXPECT_EQ(this->own(5, 8, 4), "(2, 3)");
  EXPECT_EQ(this->own(3, 4, 2), "(1, 2)");
  EXPECT_EQ(this->own(2, 6, 2), "(0, 1)");
  EXPECT_EQ(this->own(3, 6, 2), "(1, 2)");
  EXPECT_EQ(this->own(5, 6, 1), "(0, 1)");  // MLA: every rank holds the one latent head
}

TYPED_TEST(Heads, HoldersOfAHead) {
  EXPECT_EQ(this->holding(5, 4, 8), "(2, 3)");  // T <= H: the one rank h // (H/T)
  EXPECT_EQ(this->holding(0, 4, 8), "(0, 1)");
  EXPECT_EQ(this->holding(3, 4, 4), "(3, 4)");
  EXPECT_EQ(this->holding(1, 8, 4), "(2, 4)");  // T >= H: [h*(T/H), (h+1)*(T/H))
  EXPECT_EQ(this->holding(0, 6, 1), "(0, 6)");
}

// The SPEC says only that a non-shardable model "does not load"; the messages
// and their order (T, H, index, compatibility) are the project's.
TYPED_TEST(Heads, OwnershipErrorsProjectMessagesAndOrder) {
  EXPECT_EQ(this->own(0, 0, 4), "ValueError: tp_size 0 must be positive");
  EXPECT_EQ(this->own(0, 4, 0), "ValueError: total_num_kv_heads 0 must be positive");
  EXPECT_EQ(this->own(4, 4, 8), "ValueError: tp_rank 4 must be in [0, 4)");
  EXPECT_EQ(this->own(0, 4, 6), "ValueError: total_num_kv_heads 6 cannot be sharded over tp_size 4: one must divide the other");
  EXPECT_EQ(this->own(-1, 0, 0), "ValueError: tp_size 0 must be positive");
  EXPECT_EQ(this->own(-1, 4, -3), "ValueError: total_num_kv_heads -3 must be positive");
  EXPECT_EQ(this->own(-1, 4, 6), "ValueError: tp_rank -1 must be in [0, 4)");

  EXPECT_EQ(this->holding(8, 4, 8), "ValueError: head 8 must be in [0, 8)");
  EXPECT_EQ(this->holding(-1, 4, 8), "ValueError: head -1 must be in [0, 8)");
  EXPECT_EQ(this->holding(0, 0, 4), "ValueError: tp_size 0 must be positive");
  EXPECT_EQ(this->holding(0, 4, 0), "ValueError: total_num_kv_heads 0 must be positive");
  EXPECT_EQ(this->holding(0, 4, 6), "ValueError: total_num_kv_heads 6 cannot be sharded over tp_size 4: one must divide the other");
}

TYPED_TEST(Heads, OwnershipAtInt64Extremes) {
  const TypeParam M = kMax;
  EXPECT_EQ(this->own(M - 1, M, M), "(9223372036854775806, 9223372036854775807)");
  EXPECT_EQ(this->own(M - 1, M, 1), "(0, 1)");
  EXPECT_EQ(this->own(0, 1, M), "(0, 9223372036854775807)");
  EXPECT_EQ(this->own(1, 2, M - 1), "(4611686018427387903, 9223372036854775806)");
  // r * H passes 2^63 in both directions of sharding.
  EXPECT_EQ(this->own(TypeParam(4294967295), TypeParam(4294967296), TypeParam(4611686018427387904)),
            "(4611686017353646080, 4611686018427387904)");
  EXPECT_EQ(this->own(TypeParam(4611686018427387903), TypeParam(4611686018427387904), TypeParam(4294967296)),
            "(4294967295, 4294967296)");
  EXPECT_EQ(this->holding(M - 1, 1, M), "(0, 1)");
  EXPECT_EQ(this->holding(0, M, 1), "(0, 9223372036854775807)");
  EXPECT_EQ(this->holding(TypeParam(4294967295), TypeParam(4611686018427387904), TypeParam(4294967296)),
            "(4611686017353646080, 4611686018427387904)");
  EXPECT_EQ(this->own(0, M, M - 1),
            "ValueError: total_num_kv_heads 9223372036854775806 cannot be sharded over tp_size 9223372036854775807: "
            "one must divide the other");
  EXPECT_EQ(this->own(kMin, 4, 4), "ValueError: tp_rank -9223372036854775808 must be in [0, 4)");
  EXPECT_EQ(this->holding(0, kMin, 4), "ValueError: tp_size -9223372036854775808 must be positive");
}

// --- §5 the head guard -------------------------------------------------------

TYPED_TEST(Heads, GuardAcceptsSpecKnownValues) {
  EXPECT_EQ(this->guard(4, 4, 8, false), "None");
  EXPECT_EQ(this->guard(8, 4, 4, false), "None");
  EXPECT_EQ(this->guard(4, 8, 4, false), "None");
  EXPECT_EQ(this->guard(2, 4, 4, true), "None");
}

TYPED_TEST(Heads, GuardRejectsSpecKnownValues) {
  EXPECT_EQ(this->guard(4, 2, 4, false),
            "NotImplementedError: MoRIIO heterogeneous TP requires replicated KV heads on both prefill and decode. "
            "Got total_num_kv_heads=4, local_tp_size=4, remote_tp_size=2.");
  EXPECT_EQ(this->guard(2, 4, 4, false),
            "NotImplementedError: MoRIIO heterogeneous TP requires replicated KV heads on both prefill and decode. "
            "Got total_num_kv_heads=4, local_tp_size=2, remote_tp_size=4.");
}

TYPED_TEST(Heads, GuardRuleOneAcceptsBeforeAnyCheckAsUpstream) {
  EXPECT_EQ(this->guard(0, 0, 5, false), "None");  // the SPEC's example
  EXPECT_EQ(this->guard(4, 4, -1, false), "None");
  EXPECT_EQ(this->guard(4, 2, -3, true), "None");
  EXPECT_EQ(this->guard(-1, 0, 0, true), "None");
}

TYPED_TEST(Heads, GuardPositivityComesBeforeTheHeadRule) {
  EXPECT_EQ(this->guard(0, 4, 4, false), "ValueError: TP sizes and total_num_kv_heads must be positive");
  EXPECT_EQ(this->guard(4, -2, 4, false), "ValueError: TP sizes and total_num_kv_heads must be positive");
  EXPECT_EQ(this->guard(4, 2, 0, false), "ValueError: TP sizes and total_num_kv_heads must be positive");
}

TYPED_TEST(Heads, StrictGuardChecksPositivityFirst) {
  EXPECT_EQ(this->strict_guard(0, 0, 5, false), "ValueError: TP sizes and total_num_kv_heads must be positive");
  EXPECT_EQ(this->strict_guard(4, 4, -1, false), "ValueError: TP sizes and total_num_kv_heads must be positive");
  EXPECT_EQ(this->strict_guard(0, 4, 4, true), "ValueError: TP sizes and total_num_kv_heads must be positive");
  EXPECT_EQ(this->strict_guard(4, 2, 0, true), "ValueError: TP sizes and total_num_kv_heads must be positive");
  // Otherwise as upstream.
  EXPECT_EQ(this->strict_guard(4, 4, 8, false), "None");
  EXPECT_EQ(this->strict_guard(8, 4, 4, false), "None");
  EXPECT_EQ(this->strict_guard(2, 4, 4, true), "None");
  EXPECT_EQ(this->strict_guard(4, 2, 4, false),
            "NotImplementedError: MoRIIO heterogeneous TP requires replicated KV heads on both prefill and decode. "
            "Got total_num_kv_heads=4, local_tp_size=4, remote_tp_size=2.");
}

TYPED_TEST(Heads, GuardAtInt64Extremes) {
  const TypeParam M = kMax;
  EXPECT_EQ(this->guard(M, M - 1, M - 1, false), "None");
  EXPECT_EQ(this->guard(M, M - 1, M, false),
            "NotImplementedError: MoRIIO heterogeneous TP requires replicated KV heads on both prefill and decode. "
            "Got total_num_kv_heads=9223372036854775807, local_tp_size=9223372036854775807, "
            "remote_tp_size=9223372036854775806.");
  EXPECT_EQ(this->guard(kMin, M, 1, false), "ValueError: TP sizes and total_num_kv_heads must be positive");
  EXPECT_EQ(this->guard(kMin, kMin, kMin, false), "None");
  EXPECT_EQ(this->strict_guard(kMin, kMin, kMin, false), "ValueError: TP sizes and total_num_kv_heads must be positive");
}

// --- cpp_int beyond 2^64 -----------------------------------------------------

TEST(HeadsBeyond64Bits, OwnershipAndGuard) {
  EXPECT_TRUE(head_compatible<BigInt>(pow2(70), pow2(64)));
  EXPECT_FALSE(head_compatible<BigInt>(pow2(70) + 1, pow2(64)));
  EXPECT_EQ(render(heads<BigInt>(pow2(64), pow2(65), pow2(66))), "(36893488147419103232, 36893488147419103234)");
  EXPECT_EQ(render(holders<BigInt>(pow2(64), pow2(65), pow2(66))), "(9223372036854775808, 9223372036854775809)");
  EXPECT_EQ(render(heads<BigInt>(pow2(65), pow2(65), 4)), "ValueError: tp_rank 36893488147419103232 must be in [0, 36893488147419103232)");
  EXPECT_EQ(render(kv_heads_guard<BigInt>(pow2(64), pow2(65), pow2(64), false)), "None");
  EXPECT_EQ(render(kv_heads_guard<BigInt>(pow2(64), pow2(65), pow2(64) + 1, false)),
            "NotImplementedError: MoRIIO heterogeneous TP requires replicated KV heads on both prefill and decode. "
            "Got total_num_kv_heads=18446744073709551617, local_tp_size=18446744073709551616, "
            "remote_tp_size=36893488147419103232.");
  EXPECT_EQ(render(kv_heads_guard_strict<BigInt>(-pow2(64), -pow2(64), 1, false)),
            "ValueError: TP sizes and total_num_kv_heads must be positive");
}

}  // namespace
}  // namespace tpcheck::test
