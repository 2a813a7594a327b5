// The walk budget (tpcheck/invariants.hpp): which elements of a list a check
// visits with and without one, and that a budget keeps a long list's case
// non-vacuous while the sweep's default still walks everything.
#include <gtest/gtest.h>

#include <cstdint>
#include <tuple>
#include <vector>

#include "tpcheck/domain.hpp"
#include "tpcheck/invariants.hpp"
#include "tpcheck/registry.hpp"

namespace tpcheck::test {
namespace {

using inv::ScopedWalk;
using inv::Walk;

// The elements walk_range visits of [first, end), in order.
template <class Int>
std::vector<Int> visited(const Int& first, const Int& end, std::int64_t unbudgeted_cap = 0) {
  std::vector<Int> seen;
  const inv::Verdict v = inv::walk_range(first, end, [&](const Int& x) {
    seen.push_back(x);
    return inv::holds();
  }, unbudgeted_cap);
  EXPECT_TRUE(v.held());
  return seen;
}

// The walk field as the fuzz drivers pass it: the index sits above the low bit.
std::uint64_t chosen(std::uint64_t index) { return index << 1; }

TEST(Walk, WithoutABudgetEveryElementIsVisited) {
  EXPECT_TRUE(inv::walks_every_element());
  EXPECT_EQ(visited<std::int64_t>(3, 9), (std::vector<std::int64_t>{3, 4, 5, 6, 7, 8}));
  EXPECT_TRUE(visited<std::int64_t>(5, 5).empty());
}

TEST(Walk, ABudgetVisitsTheEndsAndARunFromTheChosenElement) {
  const ScopedWalk walk(Walk{5, chosen(4)});
  EXPECT_FALSE(inv::walks_every_element());
  // [10, 30): first, three from index 4 (element 14), last.
  EXPECT_EQ(visited<std::int64_t>(10, 30), (std::vector<std::int64_t>{10, 14, 15, 16, 29}));
  // A list that fits the budget is walked whole.
  EXPECT_EQ(visited<std::int64_t>(0, 5), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
}

TEST(Walk, TheRunStaysInsideTheListAndTheChoiceWrapsAroundItsLength) {
  {
    const ScopedWalk walk(Walk{5, chosen(18)});  // near the end: moved back before the last
    EXPECT_EQ(visited<std::int64_t>(0, 20), (std::vector<std::int64_t>{0, 16, 17, 18, 19}));
  }
  {
    const ScopedWalk walk(Walk{5, chosen(23)});  // 23 % 20 = 3
    EXPECT_EQ(visited<std::int64_t>(0, 20), (std::vector<std::int64_t>{0, 3, 4, 5, 19}));
  }
  {
    const ScopedWalk walk(Walk{5, chosen(0)});  // the first is not visited twice
    EXPECT_EQ(visited<std::int64_t>(0, 20), (std::vector<std::int64_t>{0, 1, 2, 3, 19}));
  }
  {
    const ScopedWalk walk(Walk{4, ~std::uint64_t{0}});  // any 64-bit field is a valid choice
    const auto seen = visited<std::int64_t>(0, 1000);
    ASSERT_EQ(seen.size(), 4U);
    EXPECT_EQ(seen.front(), 0);
    EXPECT_EQ(seen.back(), 999);
  }
}

TEST(Walk, AChoiceReachesAnyElementOfAListPast64Bits) {
  const BigInt first = BigInt(1) << 70;
  const BigInt end = first + (BigInt(1) << 66);
  const ScopedWalk walk(Walk{3, chosen(12345)});
  EXPECT_EQ(visited<BigInt>(first, end), (std::vector<BigInt>{first, first + 12345, end - 1}));
}

TEST(Walk, WithoutABudgetACappedListIsVisitedAtItsEndsAndMiddle) {
  EXPECT_EQ(visited<std::int64_t>(0, 100, 64), (std::vector<std::int64_t>{0, 50, 99}));
  EXPECT_EQ(visited<std::int64_t>(0, 64, 64).size(), 64U);
  const ScopedWalk walk(Walk{3, chosen(7)});  // a budget overrides the cap
  EXPECT_EQ(visited<std::int64_t>(0, 100, 64), (std::vector<std::int64_t>{0, 7, 99}));
}

TEST(Walk, WalkedRunsAreWhatAWalkVisits) {
  const inv::WalkedRuns<std::int64_t> all = inv::walked_runs<std::int64_t>(10, 30);
  ASSERT_EQ(all.count, 1U);
  EXPECT_EQ(all.runs[0], (Span<std::int64_t>{10, 30}));
  const ScopedWalk walk(Walk{5, chosen(4)});
  const inv::WalkedRuns<std::int64_t> some = inv::walked_runs<std::int64_t>(10, 30);
  ASSERT_EQ(some.count, 3U);
  EXPECT_EQ(some.runs[0], (Span<std::int64_t>{10, 11}));
  EXPECT_EQ(some.runs[1], (Span<std::int64_t>{14, 17}));
  EXPECT_EQ(some.runs[2], (Span<std::int64_t>{29, 30}));
}

// The plan checks read a plan longer than the budget a few copies at a time
// (plan_range_into): on every loadable sizing up to 16 ranks and 32 heads, and
// with the run at every copy, each gives the verdict it gives reading the
// whole plan, and some of those plans are longer than the budget.
TEST(Walk, BudgetedPlanChecksGiveTheWholePlansVerdict) {
  using Check = inv::Verdict (*)(const std::int64_t&, const std::int64_t&, const std::int64_t&, const std::int64_t&, bool);
  const Check checks[] = {&inv::plan_partitions_own_heads<std::int64_t>, &inv::plan_matches_head_by_head_rule<std::int64_t>,
                          &inv::plan_sources_match_nixl<std::int64_t>, &inv::single_source_holds_own_heads<std::int64_t>};
  std::int64_t longer_than_budget = 0;
  for (std::int64_t P = 1; P <= 16; ++P) {
    for (std::int64_t D = 1; D <= 16; ++D) {
      for (std::int64_t H = 1; H <= 32; ++H) {
        for (std::int64_t d = 0; d < D; ++d) {
          const Outcome<std::int64_t> n = plan_copy_count<std::int64_t>(d, P, D, H, false);
          if (!n.ok()) continue;
          if (n.value() > 3) ++longer_than_budget;
          for (const Check check : checks) {
            const inv::Verdict whole = check(d, P, D, H, false);
            ASSERT_FALSE(whole.is_violated()) << whole.message();
            for (std::uint64_t at = 0; at < static_cast<std::uint64_t>(n.value()); ++at) {
              const ScopedWalk walk(Walk{3, chosen(at)});
              const inv::Verdict walked = check(d, P, D, H, false);
              EXPECT_EQ(walked.state(), whole.state()) << "P=" << P << " D=" << D << " H=" << H << " d=" << d << " at=" << at;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(longer_than_budget, 100);
}

TEST(Walk, AListWalkedInsideAnotherIsWalkedAtItsEndsAndTheChosenElement) {
  const ScopedWalk walk(Walk{5, chosen(4)});
  std::vector<std::vector<std::int64_t>> inner;
  const inv::Verdict v = inv::walk_range(std::int64_t{10}, std::int64_t{30}, [&](const std::int64_t&) {
    inner.push_back(visited<std::int64_t>(0, 20));
    return inv::holds();
  });
  EXPECT_TRUE(v.held());
  ASSERT_EQ(inner.size(), 5U);  // the outer list: 10, 14, 15, 16, 29
  for (const auto& seen : inner) EXPECT_EQ(seen, (std::vector<std::int64_t>{0, 4, 19}));
  EXPECT_EQ(inv::current_walk().budget, 5);  // the outer budget again after the walk
  EXPECT_EQ(visited<std::int64_t>(10, 30), (std::vector<std::int64_t>{10, 14, 15, 16, 29}));
}

// StateFanInMatchesTheCopies sums over every rank without a budget and checks
// counts at the walked ranks with one: on every case of its sweep, with the
// walk at every rank, both give the same verdict, and some sides are longer
// than the budget (so the counts at walked ranks were what decided).
TEST(Walk, BudgetedStateFanInGivesTheWholeVerdict) {
  const inv::Entry* e = inv::find_entry("StateFanInMatchesTheCopies");
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(e->domains.size(), 1U);
  constexpr std::int64_t kBudget = 4;
  std::int64_t held = 0, longer_than_budget = 0;
  dom::for_each_case(e->domains[0], dom::Bound{8, 16}, [&](const std::int64_t* values) {
    inv::KindMask kinds = 0;
    const inv::Verdict whole = e->check(0, values, &kinds);
    ASSERT_FALSE(whole.is_violated()) << whole.message();
    if (!whole.held()) return;
    ++held;
    const std::int64_t P = values[1], D = values[2];  // (family, P, D, dims...)
    if (std::max(P, D) > kBudget) ++longer_than_budget;
    for (std::uint64_t at = 0; at < static_cast<std::uint64_t>(std::max(P, D)); ++at) {
      const ScopedWalk walk(Walk{kBudget, chosen(at)});
      const inv::Verdict walked = e->check(0, values, &kinds);
      EXPECT_EQ(walked.state(), whole.state()) << "P=" << P << " D=" << D << " at=" << at << ": " << walked.message();
    }
  });
  EXPECT_GT(held, 100);
  EXPECT_GT(longer_than_budget, 50);
}

TEST(Walk, AScopeRestoresTheWalkBefore) {
  {
    const ScopedWalk outer(Walk{8, 2});
    {
      const ScopedWalk inner(Walk{0, 0});
      EXPECT_TRUE(inv::walks_every_element());
    }
    EXPECT_EQ(inv::current_walk().budget, 8);
    EXPECT_EQ(inv::current_walk().chosen, 2U);
  }
  EXPECT_TRUE(inv::walks_every_element());
}

TEST(Walk, TheFirstViolationStopsTheWalk) {
  const ScopedWalk walk(Walk{5, chosen(4)});
  std::vector<std::int64_t> seen;
  const inv::Verdict v = inv::walk_range(std::int64_t{10}, std::int64_t{30}, [&](const std::int64_t& x) {
    seen.push_back(x);
    return x == 15 ? inv::violated("at 15") : inv::holds();
  });
  EXPECT_TRUE(v.is_violated());
  EXPECT_EQ(seen, (std::vector<std::int64_t>{10, 14, 15}));
}

// A window longer than inv::kMaxWalked (P = 8192 prefill ranks replicating
// one head, one decode rank: its window is every prefill rank, its plan one
// copy): the sweep's default calls the case vacuous, a budgeted walk checks it.
TEST(Walk, ABudgetChecksAWindowTooLongToWalkWhole) {
  const std::int64_t P = 8192, D = 1, H = 1;
  EXPECT_TRUE(inv::plan_sources_match_nixl<std::int64_t>(0, P, D, H, false).is_vacuous());
  const ScopedWalk walk(Walk{8, chosen(5000)});
  EXPECT_TRUE(inv::plan_sources_match_nixl<std::int64_t>(0, P, D, H, false).held());
}

// The per-configuration counts agree with and without a budget on a
// deployment larger than the budget, in both directions of the pair.
TEST(Walk, BudgetedCountsHoldWhereTheWholeWalkHolds) {
  for (const auto& [P, D, H] : {std::tuple{96, 32, 8}, std::tuple{32, 96, 96}, std::tuple{128, 128, 1}, std::tuple{64, 2, 64},
                                   std::tuple{256, 64, 256}}) {
    SCOPED_TRACE(testing::Message() << "P=" << P << " D=" << D << " H=" << H);
    const std::int64_t p = P, d = D, h = H;
    EXPECT_TRUE(inv::readers_count_plan_copies<std::int64_t>(p, d, h, false).held());
    EXPECT_EQ(inv::single_readers_count_map_preimages<std::int64_t>(p, d).held(), true);
    for (std::uint64_t at : {0, 7, 40, 95}) {
      const ScopedWalk walk(Walk{8, chosen(at)});
      EXPECT_TRUE(inv::readers_count_plan_copies<std::int64_t>(p, d, h, false).held());
      EXPECT_TRUE(inv::single_readers_count_map_preimages<std::int64_t>(p, d).held());
      EXPECT_TRUE(inv::accepted_sizing_is_served_correctly<std::int64_t>(p, d, h, false).held());
      EXPECT_TRUE(inv::port_offsets_distinct<std::int64_t>(p, d).held());
    }
  }
}

}  // namespace
}  // namespace tpcheck::test
