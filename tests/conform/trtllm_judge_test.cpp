// The judge of TensorRT-LLM's C++ transceiver (conform/cxx/trtllm_judge.hpp):
// its views read back what they write, each relation of SPEC §15.2 names
// its kind on a view that breaks it and none on one that keeps it, and the
// heads the --fuzz target judges with are the model's.
#include <gtest/gtest.h>

#include "tpcheck/model.hpp"
#include "trtllm_judge.hpp"

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

}  // namespace
