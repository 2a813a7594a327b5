// Unit tests of what the offset-level state relations share
// (state_offsets.hpp): the sizings they serve (SPEC §16.8's counts) and the
// part of a decode rank's state written as the plan writes it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tpcheck/conform/state_offsets.hpp"

namespace tpcheck::conform::state {
namespace {

using I = std::int64_t;

SideSpec page_ds() {
  SideSpec s;
  s.container = StateContainer::VllmPage;
  return s;
}

TEST(StateOffsets, ServedCasesAreTheValidSizingsAndTheEqualOnes) {
  // SPEC §16.8: 110 sizings divide with P != D and load, 34 have P = D.
  const auto cases = served_cases({}, {});
  ASSERT_EQ(cases.size(), 144u);
  std::size_t equal = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    equal += c[0] == c[1];
    const auto s = state_case(c);
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->sizing == Sizing::Valid || s->sizing == Sizing::Equal);
    if (i > 0) {
      EXPECT_LE(cases[i - 1][0] + cases[i - 1][1], c[0] + c[1]);  // P + D smallest first
    }
  }
  EXPECT_EQ(equal, 34u);
  // KDA (24, 2) alone: 20 valid sizings, and T = 1, 2, 3, 4, 6, 8 on both sides.
  EXPECT_EQ(served_cases({}, {StateFamily::Kda}).size(), 26u);
}

// Every decode rank of every served sizing, both parts from the plan: correct
// and complete; one part alone leaves the other unwritten.
TEST(StateOffsets, ThePlansPartsWriteEachDecodeRanksStateOnce) {
  SideSpec pool;
  pool.container = StateContainer::SglangPool;
  std::uint64_t judged = 0;
  for (const auto& c : served_cases({}, {})) {
    const auto s = state_case(c).value();
    for (const SideSpec& spec : {page_ds(), pool}) {
      const StateMemory memory(StateLayout{}, state_configs()[s.config], s.P, s.D, spec, spec);
      for (const bool both : {true, false}) {
        FindingSet findings;
        StateJudge judge(memory, findings);
        for (I d = 0; d < s.D; ++d) {
          judge_plan_part(memory, judge, d, s.P, s.D, StatePart::Conv);
          if (both) judge_plan_part(memory, judge, d, s.P, s.D, StatePart::Ssm);
        }
        judge.finish();
        const auto found = findings.take();
        std::set<std::string> kinds;
        for (const auto& f : found) kinds.insert(f.kind);
        if (both) {
          EXPECT_TRUE(kinds.empty()) << state_configs()[s.config].label << " P=" << s.P << " D=" << s.D << ": "
                                     << (found.empty() ? "" : found.front().kind + " " + found.front().actual);
          judged += judge.decoded_bytes();
        } else {
          EXPECT_EQ(kinds, std::set<std::string>{"unwritten"}) << state_configs()[s.config].label;
        }
      }
    }
  }
  EXPECT_GT(judged, 0u);
}

}  // namespace
}  // namespace tpcheck::conform::state
