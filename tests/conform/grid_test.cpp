// Unit tests of conform's case grid: each parameter kind's values, the order
// parent and child share, the far-out block, and extra cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tpcheck/conform/grid.hpp"
#include "tpcheck/conform/profile.hpp"

namespace tpcheck::conform {
namespace {

std::vector<CaseArgs> cases_of(const Grid& g) {
  std::vector<CaseArgs> out;
  GridCursor cursor(g);
  for (const CaseArgs* c = cursor.next(); c != nullptr; c = cursor.next()) out.push_back(*c);
  return out;
}

std::vector<ParamSpec> named(const std::vector<std::string>& names) {
  std::vector<ParamSpec> out;
  for (const auto& n : names) out.push_back(param_from_model_name(n));
  return out;
}

CaseArgs args(std::initializer_list<long long> v) { return CaseArgs(v.begin(), v.end()); }

// How many cases the walk makes, without keeping them.
std::uint64_t walked(const Grid& g) {
  std::uint64_t n = 0;
  GridCursor cursor(g);
  while (cursor.next() != nullptr) ++n;
  return n;
}

TEST(ConformGrid, EdgeGridWalksASizeThenItsRanksWithOneInvalidRankOnEachSide) {
  const Grid g = make_grid(named({"r", "L", "R"}), GridStyle::EdgesAndFarOut, {2, 2}, {});
  const auto all = cases_of(g);
  ASSERT_EQ(g.blocks.size(), 2u);
  std::vector<CaseArgs> first(all.begin(), all.begin() + 6);
  // L (which r depends on) first, then r, then R: L = -1 has ranks -1 and 0
  // (the size clamped at 0), each with every R.
  EXPECT_EQ(first, (std::vector<CaseArgs>{args({-1, -1, -1}), args({-1, -1, 0}), args({-1, -1, 1}), args({-1, -1, 2}),
                                          args({0, -1, -1}), args({0, -1, 0})}));
  // The exhaustive block: for each L, ranks -1..max(L, 0), times 4 values of R.
  std::uint64_t exhaustive = 0;
  for (int L = -1; L <= 2; ++L) exhaustive += 4 * (std::max(L, 0) + 2);
  EXPECT_EQ(std::count_if(all.begin(), all.end(),
                          [](const CaseArgs& c) { return c[0] >= -1 && c[0] <= 2 && c[1] >= -1 && c[1] <= 2 && c[2] >= -1 && c[2] <= 2; }),
            static_cast<long>(exhaustive));
  EXPECT_EQ(case_count(g), all.size());
}

TEST(ConformGrid, FarOutBlockHasOnlyCasesPastTheBoundsAndRanksOfHugeSizes) {
  const Grid g = make_grid(named({"r", "L", "R"}), GridStyle::EdgesAndFarOut, {2, 2}, {});
  const auto all = cases_of(g);
  const BigInt two63 = BigInt(1) << 63;
  std::set<CaseArgs> seen;
  bool half_of_negative_size = false;
  for (const auto& c : all) {
    EXPECT_TRUE(seen.insert(c).second) << "case repeated";
    if (c[1] == -two63 - 1 && c[0] == -(two63 / 2) - 1) half_of_negative_size = true;  // floor((-2^63-1) / 2)
  }
  EXPECT_TRUE(half_of_negative_size);
  EXPECT_TRUE(seen.count(args({0, 0, 0})) == 1);
  EXPECT_TRUE(seen.count(CaseArgs{two63 - 1, two63, 3}) == 1);  // rank S-1 of a size past int64
}

TEST(ConformGrid, ValidGridHasHeadCountsBothSidesCanShard) {
  const std::vector<ParamSpec> params = {{"P", ParamKind::Size, {}},
                                         {"D", ParamKind::Size, {}},
                                         {"H", ParamKind::HeadCount, {"P", "D"}},
                                         {"MLA", ParamKind::Flag, {}},
                                         {"d", ParamKind::Rank, {"D"}}};
  const Grid g = make_grid(params, GridStyle::ValidOnly, {4, 8}, {});
  ASSERT_EQ(g.blocks.size(), 1u);
  std::set<BigInt> heads_for_4_2;
  std::uint64_t n = 0;
  for (const auto& c : cases_of(g)) {
    ++n;
    EXPECT_GE(c[0], 1);
    EXPECT_GE(c[1], 1);
    EXPECT_GE(c[4], 0);
    EXPECT_LT(c[4], c[1]);
    if (c[0] == 4 && c[1] == 2) heads_for_4_2.insert(c[2]);
  }
  EXPECT_EQ(heads_for_4_2, (std::set<BigInt>{1, 2, 4, 8}));
  EXPECT_EQ(n, case_count(g));
}

TEST(ConformGrid, WindowMembersAreTheRanksAPrefillRankServes) {
  const std::vector<ParamSpec> params = {{"P", ParamKind::Size, {}},
                                         {"D", ParamKind::Size, {}},
                                         {"p", ParamKind::Rank, {"P"}},
                                         {"d", ParamKind::WindowMember, {"p", "P", "D"}}};
  const Grid g = make_grid(params, GridStyle::ValidOnly, {4, 4}, {});
  std::vector<CaseArgs> for_2_4, for_3_2;
  for (const auto& c : cases_of(g)) {
    if (c[0] == 2 && c[1] == 4) for_2_4.push_back(c);
    if (c[0] == 3 && c[1] == 2) for_3_2.push_back(c);  // not divisible: no window
  }
  EXPECT_EQ(for_2_4, (std::vector<CaseArgs>{args({2, 4, 0, 0}), args({2, 4, 0, 1}), args({2, 4, 1, 2}),
                                            args({2, 4, 1, 3})}));
  EXPECT_TRUE(for_3_2.empty());
}

TEST(ConformGrid, PartnersDivideOrAreMultiples) {
  const Grid g = make_grid({{"P", ParamKind::Size, {}}, {"D", ParamKind::Partner, {"P"}}}, GridStyle::ValidOnly,
                           {6, 6}, {});
  std::set<BigInt> partners_of_4;
  for (const auto& c : cases_of(g)) {
    if (c[0] == 4) partners_of_4.insert(c[1]);
  }
  EXPECT_EQ(partners_of_4, (std::set<BigInt>{1, 2, 4}));
}

// SPEC §14B.2: P, D in 1..8, divisible and unequal; H in 1..16 that both
// sides can shard; page sizes 1 and 4: 248 configurations, 1292 sends and
// 846 decode ranks; then the probes of §14B.8, as they are.
TEST(ConformGrid, ByteLevelGridIsTheSpecsWithItsProbesLast) {
  const auto bindings = profile_bindings("sglang");
  ASSERT_TRUE(bindings);
  const auto b = std::find_if(bindings->begin(), bindings->end(),
                              [](const Binding& x) { return x.name == "MooncakeKVManager.send_kvcache_slice"; });
  ASSERT_NE(b, bindings->end());
  const Grid g = make_grid(b->params, b->style, {16, 16}, {}, b->probes);
  std::uint64_t configurations = 0, sends = 0, decode_ranks = 0, probes = 0;
  for (const auto& c : cases_of(g)) {
    const auto P = static_cast<std::int64_t>(c[0]), D = static_cast<std::int64_t>(c[1]);
    if (c[4] != 0) {
      ++probes;
      continue;
    }
    EXPECT_EQ(probes, 0u) << "a probe before the grid's end";
    EXPECT_TRUE(P != D && (P % D == 0 || D % P == 0) && P <= 8 && D <= 8 && c[2] <= 16) << P << " " << D;
    EXPECT_TRUE(c[3] == 1 || c[3] == 4);
    ++configurations;
    sends += static_cast<std::uint64_t>(D * std::max<std::int64_t>(1, P / D));
    decode_ranks += static_cast<std::uint64_t>(D);
  }
  EXPECT_EQ(configurations, 248u);
  EXPECT_EQ(sends, 1292u);
  EXPECT_EQ(decode_ranks, 846u);
  EXPECT_EQ(probes, b->probes.size());
  EXPECT_EQ(probes, 8u);  // four sizings, pages past 2^31 bytes and bit-63 pointers
  // --max-tp 4 --max-heads 4 caps the grid below the SPEC's bounds.
  for (const auto& c : cases_of(make_grid(b->params, b->style, {4, 4}, {}))) EXPECT_TRUE(c[0] <= 4 && c[2] <= 4);
}

TEST(ConformGrid, ExtraCasesOutsideTheDomainOrAlreadyThereAreDropped) {
  const std::vector<ParamSpec> params = {{"r", ParamKind::Rank, {"L"}}, {"L", ParamKind::Size, {}},
                                         {"R", ParamKind::Size, {}}};
  const BigInt big = BigInt(1) << 70;
  const Grid g = make_grid(params, GridStyle::ValidOnly, {4, 4},
                           {args({0, 2, 2}), args({5, 4, 2}), CaseArgs{1, big, 2}, CaseArgs{1, big, 2}, args({0, 0, 2})});
  ASSERT_EQ(g.blocks.size(), 2u);
  EXPECT_EQ(g.blocks[1].cases, (std::vector<CaseArgs>{CaseArgs{1, big, 2}}));
}

TEST(ConformGrid, DescriptionNamesEveryListTheChildReads) {
  const std::vector<ParamSpec> params = {{"P", ParamKind::Size, {}}, {"p", ParamKind::Rank, {"P"}}};
  const std::string json = grid_json(make_grid(params, GridStyle::ValidOnly, {2, 2}, {}));
  EXPECT_EQ(json,
            "{\"arity\":2,\"blocks\":[{\"only_outer\":false,\"params\":["
            "{\"name\":\"P\",\"pos\":0,\"flag\":false,\"deps\":[],\"values\":[1,2]},"
            "{\"name\":\"p\",\"pos\":1,\"flag\":false,\"deps\":[0],\"table\":[[[1],[0]],[[2],[0,1]]]}]}]}");
}

// The count tpcheck checks the child's answers against is worked out
// without the walk; it must be the walk's.
TEST(ConformGrid, CountIsTheNumberOfCasesTheWalkMakes) {
  std::vector<Binding> all = adapter_bindings();
  for (const auto& profile : profile_names()) {
    for (const bool hybrid : {false, true}) {
      const auto bindings = profile_bindings(profile, {hybrid});
      ASSERT_TRUE(bindings);
      all.insert(all.end(), bindings->begin(), bindings->end());
    }
  }
  const std::vector<CaseArgs> extra = {args({3, 5, 7}), args({-5, 2, 9, 1}), args({1, 2, 3, 0, 1})};
  std::uint64_t grids_with_far_out = 0;
  for (const Binding& b : all) {
    for (const int bound : {1, 3, 6}) {
      const Grid g = make_grid(b.params, b.style, {bound, bound + 1}, extra, b.probes);
      grids_with_far_out += g.blocks.size() > 1 && g.blocks[1].only_outer;
      EXPECT_EQ(case_count(g), walked(g)) << b.name << " at bound " << bound;
    }
  }
  EXPECT_GT(grids_with_far_out, 0u);
}

}  // namespace
}  // namespace tpcheck::conform
