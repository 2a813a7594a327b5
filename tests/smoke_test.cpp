// A first check that the model links in both integer types.
#include <gtest/gtest.h>

#include "tpcheck/model.hpp"
#include "tpcheck/render.hpp"

TEST(Smoke, StrictMapKnownValueInBothIntegerTypes) {
  EXPECT_EQ(tpcheck::render(tpcheck::remote_rank<std::int64_t>(5, 8, 4)), "2");
  EXPECT_EQ(tpcheck::render(tpcheck::remote_rank<tpcheck::BigInt>(5, 8, 4)), "2");
}
