// Counterexamples the RapidCheck properties found, kept as named tests so they
// are checked on every run whatever the seed.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "tpcheck/invariants.hpp"

namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// Int64.EveryRemoteRankHasBalancedFanIn, seed 20261129, shrunk to
// (q, L, R) = (0, 2^63 - 9, 2^63 - 9): the predicate's own ceil(L/R) was
// computed as (L + R - 1) // R, which overflows int64 for sizes near its
// maximum and reported a balanced map as unbalanced.
TEST(RegressionFanIn, BalancedFanInHoldsForEqualSizesNearInt64Max) {
  const std::int64_t size = kInt64Max - 8;
  EXPECT_TRUE(tpcheck::inv::fan_in_balanced<std::int64_t>(0, size, size).held());
  EXPECT_TRUE(tpcheck::inv::fan_in_balanced<std::int64_t>(size - 1, size, size).held());
}

TEST(RegressionFanIn, BalancedFanInHoldsWhenLocalSizeIsInt64Max) {
  EXPECT_TRUE(tpcheck::inv::fan_in_balanced<std::int64_t>(0, kInt64Max, 2).held());
  EXPECT_TRUE(tpcheck::inv::fan_in_balanced<std::int64_t>(1, kInt64Max, 2).held());
  EXPECT_TRUE(tpcheck::inv::fan_in_balanced<std::int64_t>(kInt64Max - 1, kInt64Max, kInt64Max).held());
}

}  // namespace
