// The judge of TensorRT-LLM's C++ transceiver (conform/engines/trtllm/cxx/trtllm_judge.hpp):
// its views read back what they write, each relation of SPEC §15.2 names
// its kind on a view that breaks it and none on one that keeps it, and the
// heads, stages and DP groups the --fuzz target judges with are the model's.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "tpcheck/model.hpp"
#include "tpcheck/stages.hpp"
#include "trtllm/cxx/trtllm_judge.hpp"

namespace {

using namespace tpcheck_trtllm;

struct ModelHeads {
  std::pair<int, int> heads(int t, int T, int H) const {
    const auto s = tpcheck::heads<std::int64_t>(t, T, H).value();
    return {static_cast<int>(s.first), static_cast<int>(s.end)};
  }
};

Deployment sizing(int P, int D, int H) {
  Deployment dep;
  dep.ctx.tp = P;
  dep.gen.tp = D;
  dep.heads = H;
  return dep;
}

TEST(TrtllmJudge, FuzzTargetHeadsAreTheModels) {
  int compared = 0;
  for (int T = 1; T <= 64; ++T) {
    for (int H = 1; H <= 64; ++H) {
      if (!tpcheck::head_compatible<std::int64_t>(T, H)) continue;
      for (int t = 0; t < T; ++t) {
        ASSERT_EQ(StdHeads{}.heads(t, T, H), ModelHeads{}.heads(t, T, H)) << t << " of " << T << ", H=" << H;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 10000);
}

TEST(TrtllmJudge, ViewsReadBackWhatTheyWrite) {
  TargetView t{{0, 1}, {{0, {0, 2}, {0, 2}}, {1, {0}, {0, 1}}}};
  const auto t2 = parse_target(render(t));
  ASSERT_TRUE(t2);
  EXPECT_EQ(render(*t2), render(t));
  EXPECT_EQ(render(t), "connects [0, 1]; ctx 0 waits for [0, 2], asked by [0, 2]; ctx 1 waits for [0], asked by [0, 1]");
  const SendView s{{0, 1}, {1}, {}};
  EXPECT_EQ(render(*parse_send(render(s))), render(s));
  const PickView p{{2, 3}, {2}, {-1, 7}};
  EXPECT_EQ(render(*parse_pick(render(p))), render(p));
  for (const char* bad : {"", "connects", "connects [0,1]", "connects [0, 1]; ctx x", "asked by []; sends to []",
                          "connects []; senders []; picks [99999999999999999999]", "connects [1]junk"}) {
    EXPECT_FALSE(parse_target(bad) && parse_send(bad) && parse_pick(bad)) << bad;
    EXPECT_FALSE(parse_pick(bad)) << bad;
  }
}

TEST(TrtllmJudge, TargetRanksMustExistBeDualAndCoverTheHeads) {
  const ModelHeads m;
  // P=1, D=2, H=1: gen 1 must connect to ctx 0, which both gen ranks ask.
  EXPECT_EQ(judge_target(sizing(1, 2, 1), 1, {{0}, {{0, {0, 1}, {0, 1}}}}, m).kind, "");
  EXPECT_EQ(judge_target(sizing(1, 2, 1), 1, {{1}, {}}, m).kind, "rank_out_of_range");
  EXPECT_EQ(judge_target(sizing(1, 2, 1), 1, {{0}, {{0, {0}, {0, 1}}}}, m).kind, "duality");
  // P=4, D=1, H=2: ctx 0 and 1 hold head 0 only; gen 0 needs head 1 too.
  EXPECT_EQ(judge_target(sizing(4, 1, 2), 0, {{0, 1}, {{0, {0}, {0}}, {1, {0}, {0}}}}, m).kind, "missing_heads");
  EXPECT_EQ(judge_target(sizing(4, 1, 2), 0, {{0, 2}, {{0, {0}, {0}}, {2, {0}, {0}}}}, m).kind, "");
}

TEST(TrtllmJudge, PicksMustBeTheSendersHoldingEachHeadOnce) {
  const ModelHeads m;
  const auto dep = sizing(2, 1, 1);  // ctx 0 and 1 both hold the one head of gen 0
  EXPECT_EQ(judge_pick(dep, 0, {{0, 1}, {0}, {0}}, m).kind, "");
  EXPECT_EQ(judge_pick(dep, 0, {{0, 1}, {1}, {1}}, m).kind, "");  // another replica: allowed
  EXPECT_EQ(judge_pick(dep, 0, {{0, 1}, {0}, {1}}, m).kind, "recv_from_nonsender");
  EXPECT_EQ(judge_pick(dep, 0, {{0, 1}, {0, 1}, {0, 1}}, m).kind, "duplicate_source");
  EXPECT_EQ(judge_pick(dep, 0, {{0, 1}, {0}, {}}, m).kind, "missing_heads");
  EXPECT_EQ(judge_pick(dep, 0, {{0, 1}, {0}, {2}}, m).kind, "rank_out_of_range");
  // P=2, D=2, H=2: gen 1 holds head 1, which ctx 0 does not.
  EXPECT_EQ(judge_pick(sizing(2, 2, 2), 1, {{0, 1}, {0, 1}, {0, 1}}, m).kind, "wrong_source");
  EXPECT_EQ(judge_pick(sizing(2, 2, 2), 1, {{1}, {1}, {0}}, m).kind, "");
  EXPECT_EQ(judge_pick(sizing(4, 2, 4), 1, {{0, 2, 3}, {0, 2, 3}, {0, 1, 2}}, m).kind, "wrong_source");
  // A connection out of range is targetIRanks' deviation, not the pick's.
  EXPECT_EQ(judge_pick(sizing(1, 2, 1), 1, {{1}, {}, {0}}, m).kind, "");
}

TEST(TrtllmJudge, SendsMustBePicked) {
  const ModelHeads m;
  EXPECT_EQ(judge_send(sizing(4, 2, 1), 2, {{1}, {1}, {}}, m).kind, "send_unpicked");
  EXPECT_EQ(judge_send(sizing(4, 2, 1), 3, {{1}, {}, {}}, m).kind, "");
  EXPECT_EQ(judge_send(sizing(4, 2, 1), 2, {{1}, {1}, {1}}, m).kind, "");
}

TEST(TrtllmJudge, RefusalsOfPowersOfTwoOnlyAreDeviations) {
  EXPECT_TRUE(judge_raised(sizing(3, 6, 3), "TLLM_CHECK").refused);
  EXPECT_EQ(judge_raised(sizing(3, 6, 3), "TLLM_CHECK").kind, "");
  EXPECT_EQ(judge_raised(sizing(4, 8, 2), "TLLM_CHECK").kind, "rejects_valid");
  EXPECT_EQ(judge_raised(sizing(3, 6, 3), "std::out_of_range").kind, "crashed");
  EXPECT_EQ(judge_inquire(sizing(4, 8, 2), false).kind, "rejects_valid");
  EXPECT_EQ(judge_inquire(sizing(4, 8, 2), true).kind, "");
}

// SPEC §15.2: a version whose inquireSupport checks that each side's layer
// count is divisible by its PP size refuses, where the PP sizes differ,
// stages that cannot be even: a documented refusal, with its rule. Any other
// refusal is a deviation.
TEST(TrtllmJudge, InquireMayRefuseStagesThatCannotBeEvenWhereThePpSizesDiffer) {
  auto staged = [](long long ctx, long long gen) {
    Deployment dep = sizing(2, 2, 2);
    dep.ctx.stage_layers = stage_layers_of(ctx);
    dep.gen.stage_layers = stage_layers_of(gen);
    return dep;
  };
  const Verdict documented = judge_inquire(staged(112, 4), false);
  EXPECT_TRUE(documented.refused);
  EXPECT_EQ(documented.kind, "");
  EXPECT_NE(documented.rule.find("not divisible by its PP size"), std::string::npos) << documented.rule;
  EXPECT_TRUE(judge_inquire(staged(22, 121), false).refused);  // the gen side's 4 layers over 3 stages
  // Even stages (or uneven ones the layer count allows) where the PP sizes differ.
  EXPECT_EQ(judge_inquire(staged(22, 4), false).kind, "rejects_valid");
  EXPECT_EQ(judge_inquire(staged(13, 4), false).kind, "rejects_valid");
  // The same PP size on both sides: stages that cannot be even are served.
  EXPECT_EQ(judge_inquire(staged(112, 121), false).kind, "rejects_valid");
  EXPECT_EQ(judge_inquire(staged(112, 4), true).kind, "");
  EXPECT_FALSE(judge_inquire(staged(112, 4), true).refused);
}

}  // namespace

namespace {

using tpcheck::AttentionDp;
using tpcheck::PpSide;
using tpcheck::Topology;

template <class W>
int small(const W& w) {
  return static_cast<int>(w);
}

std::vector<std::int64_t> split_of(const Side& side) {
  return {side.stage_layers.begin(), side.stage_layers.end()};
}

// The model's ranks (lib's stage_window, stage_served), as the judge's views.
std::vector<int> model_window(const Deployment& dep, const Topology<std::int64_t>& topo, int d_global) {
  const auto w = tpcheck::stage_window<std::int64_t>(d_global / dep.gen.tp, d_global % dep.gen.tp, dep.serving_group,
                                                     topo);
  EXPECT_TRUE(w.ok());
  std::vector<int> out;
  if (w.ok()) {
    for (const auto& r : w.value()) out.push_back(small(r));
  }
  return out;
}

// The judge reads stages, DP groups and heads itself (the --fuzz target is
// built without the model): on every deployment of the grid, the model's own
// windows and fan-in are a view it finds nothing wrong with, and the layers it
// gives each rank are the model's stage layer ranges.
TEST(TrtllmJudge, TheModelsStageWindowsAndFanInPassTheJudge) {
  int judged = 0, staged = 0, grouped = 0;
  const auto splits = layer_splits();
  for (const int P : {1, 2, 4}) {
    for (const int D : {1, 2, 4}) {
      for (int H = 1; H <= 4; ++H) {
        if (!tpcheck::head_compatible<std::int64_t>(P, H) || !tpcheck::head_compatible<std::int64_t>(D, H)) continue;
        for (const long long ctx_split : splits) {
          for (const long long gen_split : splits) {
            for (const int ctx_adp : {0, 1}) {
              for (const int gen_adp : {0, 1}) {
                for (int c = 0; c < (ctx_adp ? P : 1); ++c) {
                  for (int g = 0; g < (gen_adp ? D : 1); ++g) {
                    Deployment dep = sizing(P, D, H);
                    dep.ctx.stage_layers = stage_layers_of(ctx_split);
                    dep.gen.stage_layers = stage_layers_of(gen_split);
                    dep.ctx.adp = ctx_adp != 0;
                    dep.gen.adp = gen_adp != 0;
                    dep.serving_group = c;
                    dep.asking_group = g;
                    const Topology<std::int64_t> topo{P, D, H, false, split_of(dep.ctx), split_of(dep.gen),
                                                      AttentionDp{dep.ctx.adp, dep.gen.adp}};
                    const ModelHeads m;
                    const Holdings<ModelHeads> holdings{dep, m};
                    for (const auto& [side, which, layers] :
                         {std::tuple{&dep.ctx, PpSide::Prefill, split_of(dep.ctx)},
                          std::tuple{&dep.gen, PpSide::Decode, split_of(dep.gen)}}) {
                      for (int r = 0; r < side->ranks(); ++r) {
                        const auto range = tpcheck::stage_layer_range<std::int64_t>(which, r / side->tp, layers);
                        ASSERT_TRUE(range.ok());
                        const auto held = holdings.held(*side, r);
                        ASSERT_EQ(held.layer_begin, small(range.value().first));
                        ASSERT_EQ(held.layer_end, small(range.value().end));
                        ++staged;
                      }
                    }
                    // Every asking gen rank's window, and who asks each ctx rank.
                    std::map<int, std::vector<int>> asked_by;
                    std::map<int, std::vector<int>> windows;
                    for (int d = 0; d < dep.gen.ranks(); ++d) {
                      if (!asks(dep, d)) continue;
                      windows[d] = model_window(dep, topo, d);
                      for (const int p : windows[d]) asked_by[p].push_back(d);
                    }
                    for (const auto& [d, connects] : windows) {
                      TargetView v{connects, {}};
                      for (const int p : connects) {
                        const auto served =
                            tpcheck::stage_served<std::int64_t>(p / P, p % P, dep.asking_group, topo);
                        ASSERT_TRUE(served.ok());
                        std::vector<int> waits;
                        for (const auto& x : served.value()) waits.push_back(small(x));
                        v.peers.push_back({p, waits, asked_by[p]});
                      }
                      const auto verdict = judge_target(dep, d, v, m);
                      ASSERT_EQ(verdict.kind, "") << "P=" << P << " D=" << D << " H=" << H << " ctx_layers="
                                                  << ctx_split << " gen_layers=" << gen_split << " adp=" << ctx_adp
                                                  << gen_adp << " c=" << c << " g=" << g << " d=" << d << ": "
                                                  << render(v) << " (" << verdict.expected << ")";
                      ++judged;
                      grouped += ctx_adp || gen_adp;
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  // Every kind of deployment reached: stages, groups, and plain ones.
  EXPECT_GT(judged, 10000);
  EXPECT_GT(grouped, 1000);
  EXPECT_GT(staged, 10000);
}

}  // namespace
