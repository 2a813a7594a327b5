// The error oracle's goals (proofs_oracles.cpp) are not vacuous: an oracle
// that moves a check, or names the other size in a text, is refuted by Z3
// with a counterexample the model confirms; one whose text the encoding never
// raises cannot be stated at all.
#include <gtest/gtest.h>

#include <stdexcept>

#include "tpcheck/operations.hpp"
#include "tpcheck/oracle.hpp"
#include "tpcheck/prove/runner.hpp"
#include "tpcheck/render.hpp"

namespace tpcheck::prove::test {
namespace {

using namespace oracle;

// The verdict of every goal of the oracle, and the counterexample of the first refuted one.
std::vector<GoalResult> prove(const Oracle& o) {
  z3::context c;
  const Encoding e(c);
  std::vector<GoalResult> out;
  for (const Goal& goal : oracle_goals(e, o)) out.push_back(prove_goal(e, goal, 60));
  return out;
}

TEST(OracleGoals, ProveTheDeclaredOracle) {
  for (const GoalResult& g : prove(*oracle_of_operation("window"))) {
    EXPECT_EQ(g.verdict, Verdict::Proved) << g.claim << ": " << g.reason;
  }
}

TEST(OracleGoals, RefuteAnOracleWithTheChecksInTheOtherOrder) {
  const Oracle moved = make_oracle("Moved", "§3", "window(r, L, R)", [](auto r, auto L, auto R) {
    return preconditions(
        fails_if("local size not positive", L <= 0, value_error("local tp_size {L} must be positive")),
        fails_if("remote size not positive", R <= 0, value_error("remote tp_size {R} must be positive")),
        fails_if("remote larger, not divisible", L < R && R % L != 0,
                 assertion_error("Remote tensor parallel size {R} is not divisible by local tensor parallel size {L}.")),
        fails_if("rank out of range", r < 0 || r >= L, value_error("local_tp_rank {r} must be in [0, {L})")));
  });
  const std::vector<GoalResult> results = prove(moved);
  std::size_t refuted = 0;
  for (const GoalResult& g : results) {
    if (g.verdict != Verdict::Refuted) continue;
    ++refuted;
    ASSERT_TRUE(g.counterexample.has_value()) << g.claim;
    std::vector<BigInt> args;
    for (const auto& [name, value] : g.counterexample->inputs) args.push_back(*parse_decimal(value));
    // The model raises something other than what the wrong oracle claims.
    const std::size_t op = *operation_index("window");
    const std::size_t first = first_failing(moved, args.data());
    if (first < moved.preconditions.size()) {
      EXPECT_NE(render(expected_failure(moved, first, args.data())), evaluate_big(op, args)) << g.claim;
    }
  }
  EXPECT_GT(refuted, 0U);
}

TEST(OracleGoals, RefuteATextWithTheOtherSize) {
  const Oracle swapped = make_oracle("Swapped", "§1", "remote_rank(r, L, R)", [](auto r, auto L, auto R) {
    return preconditions(fails_if("sizes not positive", L <= 0 || R <= 0, value_error("TP sizes must be positive")),
                         fails_if("rank out of range", r < 0 || r >= L,
                                  value_error("local_tp_rank {r} must be in [0, {L})").where("L", R)));
  });
  const std::vector<GoalResult> results = prove(swapped);
  ASSERT_EQ(results.size(), 3U);
  EXPECT_EQ(results[0].verdict, Verdict::Proved) << results[0].claim;
  EXPECT_EQ(results[1].verdict, Verdict::Refuted) << results[1].claim;
}

TEST(OracleGoals, NameATextTheEncodingNeverRaises) {
  const Oracle typo = make_oracle("Typo", "§3", "tp_ratio(L, R)", [](auto L, auto) {
    return preconditions(fails_if("local size not positive", L <= 0, value_error("local tp_size {L} must be positiv")));
  });
  z3::context c;
  const Encoding e(c);
  try {
    oracle_goals(e, typo);
    ADD_FAILURE() << "the goals were stated";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("the encoding raises no ValueError \"local tp_size {0} must be positiv\""),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace tpcheck::prove::test
