// A failure's message is kept as pieces and spelled out on demand
// (outcome.hpp): the text, emptiness and equality must be the text's own,
// whichever way a message was made; and plan_into, the buffer-reusing plan,
// gives exactly plan()'s outcome.
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "model_test_support.hpp"

namespace tpcheck::test {
namespace {

FailureText pieces_of_multiple_text(std::int64_t larger, std::int64_t smaller) {
  FailureText m;
  m.add_literal("remote");
  m.add_literal(" tp_size ");
  m.add_integer(larger);
  m.add_literal(" must be a multiple of ");
  m.add_literal("local");
  m.add_literal(" tp_size ");
  m.add_integer(smaller);
  m.add_literal(" for heterogeneous-TP P/D");
  return m;
}

TEST(FailureMessage, SpelledOutFromItsPieces) {
  EXPECT_EQ(text_of(pieces_of_multiple_text(6, 4)),
            "remote tp_size 6 must be a multiple of local tp_size 4 for heterogeneous-TP P/D");
  FailureText big;
  big.add_literal("n=");
  big.add_digits("18446744073709551616");
  big.add_integer(kMin);
  EXPECT_EQ(text_of(big), "n=18446744073709551616-9223372036854775808");
}

TEST(FailureMessage, EqualExactlyWhenTheTextsAre) {
  const FailureText whole = failure(ErrorKind::ValueError,
      "remote tp_size 6 must be a multiple of local tp_size 4 for heterogeneous-TP P/D").message;
  EXPECT_EQ(pieces_of_multiple_text(6, 4), whole);
  EXPECT_EQ(whole, pieces_of_multiple_text(6, 4));
  EXPECT_EQ(pieces_of_multiple_text(6, 4), pieces_of_multiple_text(6, 4));
  EXPECT_NE(pieces_of_multiple_text(6, 4), pieces_of_multiple_text(6, 3));
  EXPECT_NE(pieces_of_multiple_text(6, 4), failure(ErrorKind::ValueError, "remote tp_size 6").message);
  // An integer and its digits spell the same text.
  FailureText as_integer;
  as_integer.add_integer(42);
  FailureText as_digits;
  as_digits.add_digits("42");
  EXPECT_EQ(as_integer, as_digits);
  FailureText other;
  other.add_digits("43");
  EXPECT_NE(as_integer, other);
}

TEST(FailureMessage, EmptyOnlyWithoutText) {
  EXPECT_TRUE(FailureText().empty());
  FailureText blank;
  blank.add_literal("");
  EXPECT_TRUE(blank.empty());
  FailureText zero;
  zero.add_integer(0);
  EXPECT_FALSE(zero.empty());
  EXPECT_FALSE(failure(ErrorKind::ValueError, "x").message.empty());
  FailureText digits;
  digits.add_digits("18446744073709551616");
  EXPECT_FALSE(digits.empty());
}

TEST(FailureMessage, MorePiecesThanItHoldsIsAnError) {
  FailureText m;
  for (std::size_t i = 0; i < FailureText::kMaxPieces; ++i) m.add_literal("x");
  EXPECT_THROW(m.add_literal("x"), std::logic_error);
  EXPECT_EQ(text_of(m), std::string(FailureText::kMaxPieces, 'x'));
}

// The int64 and cpp_int models' failures on the same arguments are equal (the
// differential compares them), and equal to the SPEC's text.
TEST(FailureMessage, TheTwoModelsFailAlike) {
  const auto narrow = remote_rank<std::int64_t>(0, 4, 6);
  const auto wide = remote_rank<BigInt>(0, 4, 6);
  ASSERT_FALSE(narrow.ok());
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(narrow.failure(), wide.failure());
  EXPECT_EQ(narrow.failure(),
            failure(ErrorKind::ValueError, "remote tp_size 6 must be a multiple of local tp_size 4 for heterogeneous-TP P/D"));
  const auto beyond = remote_rank<BigInt>(0, 4, pow2(64) + 2);
  EXPECT_EQ(render(beyond),
            "ValueError: remote tp_size 18446744073709551618 must be a multiple of local tp_size 4 for heterogeneous-TP P/D");
  EXPECT_NE(beyond.failure(), wide.failure());
}

template <class Int>
struct PlanInto : ::testing::Test {};
TYPED_TEST_SUITE(PlanInto, ModelInts, IntName);

// Into a buffer holding an older plan: the same outcome as plan(), success or failure.
TYPED_TEST(PlanInto, GivesPlansOutcome) {
  using Int = TypeParam;
  Plan<Int> buffer = {{Int(9), Int(9), Int(9)}};
  struct Case { std::int64_t d, P, D, H; bool mla; };
  for (const Case c : {Case{0, 4, 2, 8, false}, Case{1, 3, 2, 6, false}, Case{1, 8, 2, 2, false}, Case{0, 2, 4, 1, true},
                       Case{2, 4, 2, 8, false}, Case{0, 3, 2, 4, false}, Case{0, 0, 2, 4, false}}) {
    const Outcome<Plan<Int>> expected = plan<Int>(c.d, c.P, c.D, c.H, c.mla);
    const std::optional<Failure> failed = plan_into<Int>(buffer, c.d, c.P, c.D, c.H, c.mla);
    ASSERT_EQ(failed.has_value(), !expected.ok()) << render(expected);
    if (failed) {
      EXPECT_EQ(*failed, expected.failure());
      EXPECT_TRUE(buffer.empty());
    } else {
      EXPECT_EQ(buffer, expected.value());
    }
  }
}

// Copies [first, first + count) of a plan are those copies of plan(), fewer
// past its end, and the whole range is plan_into; a failure is plan()'s.
TYPED_TEST(PlanInto, ARangeIsThatSliceOfThePlan) {
  using Int = TypeParam;
  struct Case { std::int64_t d, P, D, H; bool mla; };
  Plan<Int> buffer;
  for (const Case c : {Case{0, 8, 1, 8, false}, Case{1, 12, 2, 4, false}, Case{0, 3, 2, 6, false}, Case{0, 6, 1, 3, false},
                       Case{0, 2, 4, 1, true}, Case{0, 0, 2, 4, false}, Case{2, 4, 2, 8, false}}) {
    const Outcome<Plan<Int>> whole = plan<Int>(c.d, c.P, c.D, c.H, c.mla);
    if (!whole.ok()) {
      const std::optional<Failure> failed = plan_range_into<Int>(buffer, c.d, c.P, c.D, c.H, c.mla, Int(0), Int(1));
      ASSERT_TRUE(failed.has_value());
      EXPECT_EQ(*failed, whole.failure());
      continue;
    }
    const auto n = static_cast<std::int64_t>(whole.value().size());
    for (std::int64_t first = 0; first <= n + 1; ++first) {
      for (std::int64_t count = 0; count <= n + 1; ++count) {
        ASSERT_FALSE(plan_range_into<Int>(buffer, c.d, c.P, c.D, c.H, c.mla, Int(first), Int(count)).has_value());
        const std::int64_t from = std::min(first, n);
        const std::int64_t to = std::min(n, first + count);
        EXPECT_EQ(buffer, Plan<Int>(whole.value().begin() + from, whole.value().begin() + std::max(from, to)))
            << render(whole) << " [" << first << ", +" << count << ")";
      }
    }
  }
}

// A plan too long to list whole (past kMaxListed) still gives any range of
// it, each copy the one after the copy before; a range that long fails as
// the plan does.
TYPED_TEST(PlanInto, ARangeOfAPlanTooLongToList) {
  using Int = TypeParam;
  if constexpr (std::is_same_v<Int, std::int16_t>) {
    GTEST_SKIP() << "int16 holds no plan past 2^20 copies";
  } else {
    const Int P = Int(std::int64_t{1} << 22), D = 1, H = P;  // one copy per prefill rank
    Plan<Int> buffer;
    const Outcome<Plan<Int>> whole = plan<Int>(0, P, D, H, false);
    ASSERT_FALSE(whole.ok());
    const std::optional<Failure> too_long = plan_range_into<Int>(buffer, 0, P, D, H, false, Int(0), P);
    ASSERT_TRUE(too_long.has_value());
    EXPECT_EQ(*too_long, whole.failure());
    ASSERT_FALSE(plan_range_into<Int>(buffer, 0, P, D, H, false, Int(P - 3), Int(8)).has_value());
    EXPECT_EQ(buffer, (Plan<Int>{{Int(P - 3), Int(P - 3), Int(P - 2)}, {Int(P - 2), Int(P - 2), Int(P - 1)},
                                 {Int(P - 1), Int(P - 1), P}}));
  }
}

}  // namespace
}  // namespace tpcheck::test
