// Outcomes in Python's notation: a value as repr() prints it, a failure as
// "Kind: message". Every other test compares rendered outcomes, so this one
// pins the notation itself to literals.
#include <vector>

#include "model_test_support.hpp"

namespace tpcheck::test {
namespace {

TEST(Render, Integers) {
  EXPECT_EQ(render(std::int64_t{3}), "3");
  EXPECT_EQ(render(std::int64_t{-3}), "-3");
  EXPECT_EQ(render(kMin), "-9223372036854775808");
  EXPECT_EQ(render(static_cast<__int128>(kMax) * 4), "36893488147419103228");
  EXPECT_EQ(render(BigInt(-pow2(64))), "-18446744073709551616");
}

TEST(Render, NoneAndBooleans) {
  EXPECT_EQ(render(None{}), "None");
  EXPECT_EQ(render(true), "True");
  EXPECT_EQ(render(false), "False");
}

TEST(Render, SpansAndCopiesAreTuples) {
  EXPECT_EQ(render(Span<std::int64_t>{0, 2}), "(0, 2)");
  EXPECT_EQ(render(Span<BigInt>{pow2(64), pow2(64) + 1}), "(18446744073709551616, 18446744073709551617)");
  EXPECT_EQ(render(Copy<std::int64_t>{1, 2, 4}), "(1, 2, 4)");
  EXPECT_EQ(render(Copy<BigInt>{-1, 0, 1}), "(-1, 0, 1)");
}

TEST(Render, ListsLikePythonRepr) {
  EXPECT_EQ(render(std::vector<std::int64_t>{}), "[]");
  EXPECT_EQ(render(std::vector<std::int64_t>{0}), "[0]");
  EXPECT_EQ(render(std::vector<std::int64_t>{0, 1}), "[0, 1]");
  EXPECT_EQ(render(Plan<std::int64_t>{{0, 0, 2}, {1, 2, 4}}), "[(0, 0, 2), (1, 2, 4)]");
  EXPECT_EQ(render(Plan<BigInt>{}), "[]");
}

TEST(Render, FailuresAsKindColonMessage) {
  EXPECT_EQ(render(failure(ErrorKind::ValueError, "TP sizes must be positive")), "ValueError: TP sizes must be positive");
  EXPECT_EQ(render(failure(ErrorKind::NotImplementedError, "x")), "NotImplementedError: x");
  EXPECT_EQ(render(failure(ErrorKind::AssertionError, "y.")), "AssertionError: y.");
}

TEST(Render, OutcomesShowTheirValueOrTheirFailure) {
  EXPECT_EQ(render(Outcome<std::int64_t>(7)), "7");
  EXPECT_EQ(render(Outcome<None>(None{})), "None");
  EXPECT_EQ(render(Outcome<Window<std::int64_t>>(Window<std::int64_t>{4, 5})), "[4, 5]");
  EXPECT_EQ(render(Outcome<std::int64_t>(failure(ErrorKind::ValueError, "bad"))), "ValueError: bad");
  EXPECT_EQ(render(Outcome<None>(failure(ErrorKind::NotImplementedError, "no"))), "NotImplementedError: no");
}

}  // namespace
}  // namespace tpcheck::test
