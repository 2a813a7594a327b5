// An invariant whose goals cite another's proved statement (Goal::cite)
// stands on it: the cited invariant runs with it, even when not selected,
// and a cited proof that is not proved makes the citing one fail.
#include <gtest/gtest.h>

#include <algorithm>

#include "tpcheck/prove/runner.hpp"

namespace tpcheck::prove::test {
namespace {

constexpr const char* kCiting = "AcceptedSizingIsServedCorrectly";
constexpr const char* kCited = "SingleSourceHoldsExactlyTheDecodeRanksHeads";

InvariantResult result(const char* name, Verdict verdict, std::vector<std::string> cites = {}) {
  return {name, verdict, 1, 1, "", "", {}, std::move(cites)};
}

TEST(Citation, TheCitedInvariantRunsWithTheCitingOne) {
  RunOptions options;
  options.only = {kCiting};
  std::vector<std::string> cited;
  const std::vector<std::string> names = invariants_to_run(options, &cited);
  EXPECT_EQ(names, (std::vector<std::string>{kCiting, kCited}));  // the registry's order
  EXPECT_EQ(cited, std::vector<std::string>{kCited});
  // The cited one alone cites nothing, so it runs alone.
  options.only = {kCited};
  EXPECT_EQ(invariants_to_run(options, &cited), std::vector<std::string>{kCited});
  EXPECT_TRUE(cited.empty());
}

TEST(Citation, TheCitationIsTheCitedInvariantsGoals) {
  z3::context c;
  const Encoding e(c, Fault::None);
  Goals g(e);
  const Citation citation = g.cite(kCited);
  EXPECT_EQ(citation.invariant, kCited);
  // One conjunct per cited goal, "its domain implies its claim" over the same
  // named inputs, so a goal given the citation is given each of them.
  const std::vector<Goal> cited = goals_of(kCited)->goals(e);
  ASSERT_FALSE(cited.empty());
  for (const Goal& goal : cited) {
    z3::solver s(c);
    s.add(citation.statement && goal.domain && !goal.holds);
    EXPECT_EQ(s.check(), z3::unsat) << goal.claim;
  }
  EXPECT_FALSE(citation.statement.simplify().is_true());
}

TEST(Citation, ACitedProofNotProvedFailsTheCitingOne) {
  for (const Verdict cited : {Verdict::Refuted, Verdict::Unknown, Verdict::Vacuous, Verdict::NotProved}) {
    std::vector<InvariantResult> results = {result(kCited, cited), result(kCiting, Verdict::Proved, {kCited})};
    settle_citations(results);
    EXPECT_EQ(results[1].verdict, Verdict::CitesUnproved) << verdict_name(cited);
    EXPECT_EQ(results[1].reason, std::string("depends on ") + kCited + ", which is " + std::string(verdict_name(cited)));
    EXPECT_EQ(results[0].verdict, cited);
  }
  // Proved on both sides: nothing changes.
  std::vector<InvariantResult> proved = {result(kCited, Verdict::Proved), result(kCiting, Verdict::Proved, {kCited})};
  settle_citations(proved);
  EXPECT_EQ(proved[1].verdict, Verdict::Proved);
  EXPECT_EQ(proved[1].reason, "");
  // A cited invariant missing from the results is not proved either.
  std::vector<InvariantResult> alone = {result(kCiting, Verdict::Proved, {kCited})};
  settle_citations(alone);
  EXPECT_EQ(alone[0].verdict, Verdict::CitesUnproved);
  EXPECT_NE(alone[0].reason.find("not run"), std::string::npos);
  // The citing one's own failure stays what it is, with the dependency said.
  std::vector<InvariantResult> both = {result(kCited, Verdict::Unknown), result(kCiting, Verdict::Refuted, {kCited})};
  settle_citations(both);
  EXPECT_EQ(both[1].verdict, Verdict::Refuted);
  EXPECT_NE(both[1].reason.find("depends on"), std::string::npos);
}

}  // namespace
}  // namespace tpcheck::prove::test
