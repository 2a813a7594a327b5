// The registry itself: the names other tools key by, well-formed entries, and
// the one choice-to-value mapping every random engine uses: any choices give
// values inside the limits, and encode() inverts decode() on every case the
// sweep's enumeration gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "tpcheck/operations.hpp"
#include "tpcheck/oracle.hpp"
#include "tpcheck/registry.hpp"

namespace tpcheck::test {
namespace {

// prove/ keys its proofs by these names: renaming one breaks it. Besides
// them, each operation's error oracle is an entry (oracle_test.cpp).
TEST(Registry, HasEveryInvariantByItsSentenceName) {
  std::set<std::string> expected = {
      "MappedRankStaysInBounds", "RankMapsAreMonotone", "EveryRemoteRankHasBalancedFanIn", "RoundTripReturnsHome",
      "WindowsAreDual", "RatioIsTheQuotientOfDivisibleSizes", "GeneralMapAgreesWithStrictMap",
      "HeadsShardExactlyWhereOneDividesTheOther", "HoldersHoldExactlyTheirHead",
      "SingleSourceHoldsExactlyTheDecodeRanksHeads", "PlanPartitionsTheDecodeRanksHeads",
      "PlanFollowsTheHeadByHeadRule", "PlanSourcesMatchNixlOnDivisiblePairs", "ReadersEqualTheDecodeRanksThatCopy",
      "SingleReadersEqualTheMapsPreimages", "PortOffsetsNeverCollide", "DecodeRankDialsItsMappedPeer",
      "PortRangeRejectsExactlyTheOverflowingDeployments", "AcceptedSizingIsServedCorrectly",
      "NarrowModelsAgreeWithCppIntModel", "StageOverlapsPartitionTheStagesLayers", "StageWindowsAreDualAcrossStages",
      "StagePlanCoversTheRanksLayersAndHeadsExactly", "WholeBlockCopyOnlyBetweenEqualHeadsPerRank",
      "SglangAndTrtllmServeExactlyTheDivisibleSizings", "StateShardsPartitionEachSegment",
      "ReplicatedSegmentsAreHeldWhole", "LocalSegmentsTileTheConvState", "HeadsFindTheirGroupOnTheirRank",
      "StatePlanCoversEachDecodeRanksStateExactlyOnce", "StatePlanReadsOnlyWhatTheSourceHolds",
      "ReplicatedSegmentsComeFromOneHolder", "StatePlanIsTheIdentityAtEqualSizes", "StateServedIsTheWindow",
      "StateFanInMatchesTheCopies", "StateRunsStayInsideTheSlot", "SdAndDsLayoutsMoveTheSameElements"};
  for (const oracle::Oracle* o : oracle::oracles()) EXPECT_TRUE(expected.insert(o->entry).second) << o->entry;
  EXPECT_GE(oracle::oracles().size(), operation_infos().size());
  std::set<std::string> names;
  for (const inv::Entry& e : inv::registry()) EXPECT_TRUE(names.insert(e.name).second) << "two entries named " << e.name;
  EXPECT_EQ(names, expected);
  for (const std::string& name : expected) EXPECT_NE(inv::find_entry(name), nullptr) << name;
  EXPECT_EQ(inv::find_entry("NoSuchInvariant"), nullptr);
}

TEST(Registry, EntriesAreWellFormed) {
  for (const inv::Entry& e : inv::registry()) {
    SCOPED_TRACE(e.name);
    EXPECT_EQ(std::string(e.section).rfind("§", 0), 0U);
    EXPECT_FALSE(e.kinds.empty());
    EXPECT_LE(e.kinds.size(), inv::kMaxKinds);
    EXPECT_GT(e.min_non_vacuous, 0.0);
    EXPECT_LE(e.min_non_vacuous, 1.0);
    ASSERT_FALSE(e.domains.empty());
    EXPECT_EQ(e.domain_names.size(), e.domains.size());
    EXPECT_NE(e.check_int64, nullptr);
    EXPECT_NE(e.check_big, nullptr);
    for (const dom::Domain& d : e.domains) EXPECT_LE(d.width(), dom::kMaxValues);
  }
}

TEST(Registry, DifferentialHasADomainPerOperationShapedByItsParameters) {
  const inv::Entry* e = inv::find_entry("NarrowModelsAgreeWithCppIntModel");
  ASSERT_NE(e, nullptr);
  const auto& ops = operation_infos();
  ASSERT_EQ(e->domains.size(), ops.size());
  for (std::size_t op = 0; op < ops.size(); ++op) {
    SCOPED_TRACE(std::string(ops[op].name));
    EXPECT_EQ(e->domain_names[op], ops[op].name);
    EXPECT_EQ(static_cast<std::size_t>(e->domains[op].width()), ops[op].params.size());
  }
}

// What an engine asserts after a run: each declared kind met, the share reached.
TEST(Coverage, GapsNameTheUnmetKindsAndTheShare) {
  const inv::Entry* e = inv::find_entry("RoundTripReturnsHome");
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(e->kinds.size(), 3U);
  inv::Tally tally;
  EXPECT_EQ(inv::coverage_gaps(*e, tally), std::vector<std::string>{"no case at all"});
  tally.add(inv::holds(), 0b001);  // L < R
  tally.add(inv::holds(), 0b100);  // L == R
  tally.add(inv::vacuous("a reason"), 0b010);  // a vacuous case meets no kind
  EXPECT_EQ(inv::coverage_gaps(*e, tally),
            (std::vector<std::string>{"kind 'L > R' never met", "non-vacuous share 0.667 below the declared 1.000"}));
  inv::Tally more;
  more.add(inv::holds(), 0b010);
  more.add(inv::vacuous("a reason"), 0);
  tally.merge(more);
  EXPECT_EQ(tally.kinds[1], 1U);
  ASSERT_EQ(tally.reasons.size(), 1U);
  EXPECT_EQ(tally.reasons[0].second, 2U);
  EXPECT_EQ(inv::coverage_gaps(*e, tally), std::vector<std::string>{"non-vacuous share 0.600 below the declared 1.000"});
}

// Every choice 0 is the plain case: the smallest sizes and the first rank.
TEST(Choices, AllZeroChoicesGiveThePlainCase) {
  const dom::Domain d({dom::pair("L", "R", dom::Pairs::Divisible), dom::rank("r", "L")});
  const std::vector<dom::Choice> zeros(dom::choice_ranges(d).size(), 0);
  std::vector<BigInt> values(static_cast<std::size_t>(d.width()));
  dom::decode(d, zeros.data(), values.data(), dom::int64_limits());
  EXPECT_EQ(values, (std::vector<BigInt>{1, 1, 0}));
}

// A rank drawn as "the last one" stays the last one of its size when the size
// changes: the dependent value follows its size (RapidCheck shrinks one
// choice at a time).
TEST(Choices, ARankFollowsItsSize) {
  const dom::Domain d({dom::pair("L", "R", dom::Pairs::Divisible), dom::rank("r", "L")});
  const std::vector<dom::Choice> ranges = dom::choice_ranges(d);
  std::vector<dom::Choice> c(ranges.size(), 0);
  c[0] = 1;                    // shape: divisible, local larger
  c[4] = 2;                    // factor k = 4
  c[ranges.size() - 3] = 1;    // rank position: the last ones
  std::vector<BigInt> values(3);
  dom::decode(d, c.data(), values.data(), dom::int64_limits());
  EXPECT_EQ(values, (std::vector<BigInt>{4, 1, 3}));
  c[2] = 4;  // base magnitude 5
  dom::decode(d, c.data(), values.data(), dom::int64_limits());
  EXPECT_EQ(values, (std::vector<BigInt>{20, 5, 19}));
}

// Random choices (any 64-bit values, as fuzz bytes give) decode inside the
// limits of each integer type, with sizes within the entry's cap.
TEST(Choices, AnyChoicesDecodeInsideTheLimits) {
  std::mt19937_64 random(20261129);
  for (const inv::Entry& e : inv::registry()) {
    for (const dom::Domain& d : e.domains) {
      SCOPED_TRACE(std::string(e.name) + ": " + dom::domain_text(d));
      for (const dom::Limits& limits : {dom::int64_limits(e.size_cap), dom::big_limits(e.size_cap)}) {
        for (int round = 0; round < 200; ++round) {
          std::vector<dom::Choice> c(dom::choice_ranges(d).size());
          for (auto& x : c) x = round % 2 ? random() : random() % 20;
          std::vector<BigInt> values(static_cast<std::size_t>(d.width()));
          dom::decode(d, c.data(), values.data(), limits);
          for (int i = 0; i < d.width(); ++i) {
            const BigInt& v = values[static_cast<std::size_t>(i)];
            ASSERT_GE(v, limits.lowest) << d.name(i);
            ASSERT_LE(v, limits.highest) << d.name(i);
            if (d.is_size(i)) {
              ASSERT_LE(v, limits.size_cap) << d.name(i);
            }
          }
        }
      }
    }
  }
}

// encode() inverts decode() on the cases of every domain at a small bound,
// so a seed can be written for any case the sweep finds. A domain of more
// than kEncodedPerDomain cases (the stage operations' reach two million,
// and encoding is a search, some 20 us a case) is checked on an even
// stride through its walk, its first and last cases included.
TEST(Choices, EncodeInvertsDecodeAcrossEverySweptDomain) {
  constexpr std::size_t kEncodedPerDomain = 20000;
  for (const inv::Entry& e : inv::registry()) {
    for (const dom::Domain& d : e.domains) {
      SCOPED_TRACE(std::string(e.name) + ": " + dom::domain_text(d));
      std::size_t total = 0;
      dom::for_each_case(d, dom::Bound{7, 12}, [&](const std::int64_t*) { ++total; });
      const std::size_t stride = std::max<std::size_t>(1, total / kEncodedPerDomain);
      std::size_t cases = 0, index = 0;
      dom::for_each_case(d, dom::Bound{7, 12}, [&](const std::int64_t* v) {
        const std::size_t at = index++;
        if (at % stride != 0 && at + 1 != total) return;
        const std::vector<BigInt> values(v, v + d.width());
        const auto choices = dom::encode(d, values.data(), dom::int64_limits(e.size_cap));
        ASSERT_TRUE(choices.has_value()) << dom::describe(d, values.data());
        std::vector<BigInt> back(values.size());
        dom::decode(d, choices->data(), back.data(), dom::int64_limits(e.size_cap));
        ASSERT_EQ(back, values);
        ++cases;
      });
      EXPECT_GT(cases, 0U);
    }
  }
}

// Values beyond 64 bits encode too, for cpp_int cases (the migrated fuzz regressions).
TEST(Choices, EncodeReachesBeyond64Bits) {
  const dom::Domain d({dom::pair("L", "R"), dom::rank("q", "R")});
  const BigInt huge = BigInt(109951162779647) << 70;
  for (const auto& values : {std::vector<BigInt>{huge, huge, 0}, std::vector<BigInt>{BigInt(655360) << 64, BigInt(1) << 64, 5}}) {
    const auto choices = dom::encode(d, values.data(), dom::big_limits());
    ASSERT_TRUE(choices.has_value()) << dom::describe(d, values.data());
  }
}

// The sweep's enumeration: exactly the values the options promise.
TEST(Enumeration, BlocksGiveTheValuesTheirOptionsPromise) {
  const dom::Bound bound{4, 6};
  std::vector<std::int64_t> out;
  dom::block_values(dom::size("T", dom::Sizes::WithNonPositive), bound, nullptr, out);
  EXPECT_EQ(out, (std::vector<std::int64_t>{-1, 0, 1, 2, 3, 4}));
  out.clear();
  dom::block_values(dom::pair("L", "R", dom::Pairs::Divisible), bound, nullptr, out);
  EXPECT_EQ(out, (std::vector<std::int64_t>{1, 1, 1, 2, 1, 3, 1, 4, 2, 1, 2, 2, 2, 4, 3, 1, 3, 3, 4, 1, 4, 2, 4, 4}));
  const dom::Domain plan({dom::pair("P", "D"), dom::flag("mla"), dom::heads("H", "P", "D", dom::HeadCounts::Compatible, "mla"),
                          dom::rank("d", "D", dom::Ranks::WithInvalid)});
  const std::int64_t values[] = {4, 2, 0, 0, 0};
  out.clear();
  dom::block_values(plan.blocks()[2], bound, values, out);
  EXPECT_EQ(out, (std::vector<std::int64_t>{1, 2, 4}));  // counts both 4 and 2 ranks can shard, up to 6
  const std::int64_t with_mla[] = {4, 2, 1, 0, 0};
  out.clear();
  dom::block_values(plan.blocks()[2], bound, with_mla, out);
  EXPECT_EQ(out, (std::vector<std::int64_t>{1}));  // MLA ignores H: one representative
  out.clear();
  dom::block_values(plan.blocks()[3], bound, values, out);
  EXPECT_EQ(out, (std::vector<std::int64_t>{-1, 0, 1, 2}));
}

TEST(Enumeration, RanksMultiplyOnlyWithAValidHeadCount) {
  const dom::Domain d({dom::size("P"), dom::size("D"), dom::flag("MLA"), dom::heads("H", "P", "D", dom::HeadCounts::Edges, "MLA"),
                       dom::rank_given_heads("d", "D", "H")});
  const dom::Block& rank = d.blocks().back();
  std::vector<std::int64_t> out;
  const std::int64_t valid[] = {4, 6, 0, 2, 0};
  dom::block_values(rank, dom::Bound{8, 8}, valid, out);
  EXPECT_EQ(out, (std::vector<std::int64_t>{-1, 0, 1, 2, 3, 4, 5, 6}));
  const std::int64_t invalid[] = {4, 6, 0, 5, 0};
  out.clear();
  dom::block_values(rank, dom::Bound{8, 8}, invalid, out);
  EXPECT_EQ(out, (std::vector<std::int64_t>{-1, 0, 6}));
}

TEST(Enumeration, UnknownNamesAreRejectedWhenTheDomainIsBuilt) {
  EXPECT_THROW(dom::Domain({dom::rank("r", "L")}), std::invalid_argument);
  EXPECT_THROW(dom::Domain({dom::size("L"), dom::size("L")}), std::invalid_argument);
}

}  // namespace
}  // namespace tpcheck::test
