// SPEC §8: port offsets, hosts and a deployment's port range — known values,
// exact texts, precedence, int64 extremes (offsets past 2^63) and cpp_int.
#include <string>

#include "model_test_support.hpp"

namespace tpcheck::test {
namespace {

template <class Int>
struct Ports : ::testing::Test {
  static std::string offset(const Int& dp, const Int& t, const Int& T) { return render(port_offset<Int>(dp, t, T)); }
  static std::string host(const Int& q, const Int& T, const Int& n) { return render(host_index<Int>(q, T, n)); }
  static std::string range(const Int& base, const Int& dp_size, const Int& T) {
    return render(port_range<Int>(base, dp_size, T));
  }
};
TYPED_TEST_SUITE(Ports, ModelInts, IntName);

// --- port_offset ---------------------------------------------------------------

TYPED_TEST(Ports, OffsetKnownValuesFromSpec) {
  EXPECT_EQ(this->offset(0, 7, 16), "7");
  EXPECT_EQ(this->offset(1, 0, 16), "16");
  EXPECT_EQ(this->offset(3, 5, 16), "53");
  EXPECT_EQ(this->offset(0, 0, 1), "0");
  EXPECT_EQ(this->offset(5, 0, 1), "5");  // upstream's default tp_size=1
}

TYPED_TEST(Ports, OffsetErrorsInSpecOrder) {
  // tp_size 0 is vLLM's "unknown peer TP" sentinel: checked first, for any tp_size <= 0.
  EXPECT_EQ(this->offset(0, 0, 0), "ValueError: tp_size must be positive");
  EXPECT_EQ(this->offset(0, 0, -1), "ValueError: tp_size must be positive");
  EXPECT_EQ(this->offset(-1, -1, 0), "ValueError: tp_size must be positive");
  EXPECT_EQ(this->offset(0, 16, 16), "ValueError: tp_rank 16 must be in [0, 16)");
  EXPECT_EQ(this->offset(0, -1, 16), "ValueError: tp_rank -1 must be in [0, 16)");
  EXPECT_EQ(this->offset(-1, -1, 16), "ValueError: tp_rank -1 must be in [0, 16)");  // before dp_rank
  EXPECT_EQ(this->offset(-1, 0, 16), "ValueError: dp_rank -1 must be non-negative");
}

TYPED_TEST(Ports, OffsetPastInt64IsExact) {
  const TypeParam M = kMax;
  EXPECT_EQ(this->offset(M, 0, 1), "9223372036854775807");
  EXPECT_EQ(this->offset(1, M - 1, M), "18446744073709551613");
  // M * M + (M - 1) needs 127 bits.
  EXPECT_EQ(this->offset(M, M - 1, M), "85070591730234615856620279821087277055");
  EXPECT_EQ(this->offset(TypeParam(4294967296), 0, TypeParam(4294967296)), "18446744073709551616");
  EXPECT_EQ(this->offset(kMin, 0, 1), "ValueError: dp_rank -9223372036854775808 must be non-negative");
  EXPECT_EQ(this->offset(0, kMin, 1), "ValueError: tp_rank -9223372036854775808 must be in [0, 1)");
  EXPECT_EQ(this->offset(0, 0, kMin), "ValueError: tp_size must be positive");
  EXPECT_EQ(this->offset(0, M, M), "ValueError: tp_rank 9223372036854775807 must be in [0, 9223372036854775807)");
}

// --- host_index: q // max(1, T // n) -----------------------------------------

TYPED_TEST(Ports, HostOfRank) {
  EXPECT_EQ(this->host(5, 8, 2), "1");
  EXPECT_EQ(this->host(3, 8, 2), "0");
  EXPECT_EQ(this->host(7, 8, 8), "7");
  EXPECT_EQ(this->host(0, 8, 1), "0");
  EXPECT_EQ(this->host(1, 2, 4), "1");  // more hosts than ranks: max(1, 0) = 1
  EXPECT_EQ(this->host(1, 2, 3), "1");
}

// The SPEC is silent on invalid hosts input: the model names the bad argument.
// T = 6 over n = 4 hosts would put rank 5 on host 5 by the formula: rejected.
TYPED_TEST(Ports, HostErrorsProjectMessagesAndOrder) {
  EXPECT_EQ(this->host(0, 0, 2), "ValueError: tp_size 0 must be positive");
  EXPECT_EQ(this->host(0, 4, 0), "ValueError: num_hosts 0 must be positive");
  EXPECT_EQ(this->host(4, 4, 2), "ValueError: rank 4 must be in [0, 4)");
  EXPECT_EQ(this->host(-1, 4, 2), "ValueError: rank -1 must be in [0, 4)");
  EXPECT_EQ(this->host(0, 6, 4), "ValueError: tp_size 6 does not spread evenly over num_hosts 4");
  EXPECT_EQ(this->host(-1, -1, -1), "ValueError: tp_size -1 must be positive");
  EXPECT_EQ(this->host(-1, 4, -1), "ValueError: num_hosts -1 must be positive");
  EXPECT_EQ(this->host(9, 6, 4), "ValueError: rank 9 must be in [0, 6)");  // rank before the spread
}

TYPED_TEST(Ports, HostAtInt64Extremes) {
  const TypeParam M = kMax;
  EXPECT_EQ(this->host(M - 1, M, 1), "0");
  EXPECT_EQ(this->host(M - 1, M, M), "9223372036854775806");
  EXPECT_EQ(this->host(0, 1, M), "0");
  EXPECT_EQ(this->host(M - 1, M - 1, 2), "ValueError: rank 9223372036854775806 must be in [0, 9223372036854775806)");
  EXPECT_EQ(this->host(M - 2, M - 1, 2), "1");
  EXPECT_EQ(this->host(kMin, 4, 2), "ValueError: rank -9223372036854775808 must be in [0, 4)");
}

// --- port_range (project: accepts iff base + every offset <= 65535) ----------

TYPED_TEST(Ports, PortRangeProjectChoice) {
  EXPECT_EQ(this->range(1000, 2, 16), "None");
  EXPECT_EQ(this->range(65504, 2, 16), "None");  // last port 65535
  EXPECT_EQ(this->range(65505, 2, 16), "ValueError: ports 65505..65536 exceed 65535");
  EXPECT_EQ(this->range(65535, 1, 1), "None");
  EXPECT_EQ(this->range(1000, 2, 0), "ValueError: tp_size must be positive");
  EXPECT_EQ(this->range(1000, 0, 16), "ValueError: dp_size 0 must be positive");
  EXPECT_EQ(this->range(0, 2, 16), "ValueError: base port 0 must be positive");
  EXPECT_EQ(this->range(0, 0, 0), "ValueError: tp_size must be positive");
  EXPECT_EQ(this->range(0, 0, 16), "ValueError: dp_size 0 must be positive");
}

TYPED_TEST(Ports, PortRangeAtInt64Extremes) {
  const TypeParam M = kMax;
  EXPECT_EQ(this->range(M, M, M),
            "ValueError: ports 9223372036854775807..85070591730234615856620279821087277055 exceed 65535");
  EXPECT_EQ(this->range(1, 1, M), "ValueError: ports 1..9223372036854775807 exceed 65535");
  EXPECT_EQ(this->range(kMin, 1, 1), "ValueError: base port -9223372036854775808 must be positive");
}

// --- cpp_int beyond 2^64 -----------------------------------------------------

TEST(PortsBeyond64Bits, OffsetHostAndRange) {
  EXPECT_EQ(render(port_offset<BigInt>(pow2(64), 1, pow2(64))), "340282366920938463463374607431768211457");
  EXPECT_EQ(render(port_offset<BigInt>(0, pow2(64), pow2(64))),
            "ValueError: tp_rank 18446744073709551616 must be in [0, 18446744073709551616)");
  EXPECT_EQ(render(port_offset<BigInt>(-pow2(64), 0, 1)), "ValueError: dp_rank -18446744073709551616 must be non-negative");
  EXPECT_EQ(render(host_index<BigInt>(pow2(70) - 1, pow2(70), 64)), "63");
  EXPECT_EQ(render(port_range<BigInt>(1, pow2(64), 1)), "ValueError: ports 1..18446744073709551616 exceed 65535");
}

}  // namespace
}  // namespace tpcheck::test
