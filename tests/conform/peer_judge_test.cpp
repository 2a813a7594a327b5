// Unit tests of the Python half of profile trtllm's relations (SPEC §15.1,
// relations_peers.cpp) on logs written here from the model, not by any
// connector: a correct deployment judged clean, each fault its own kind, and
// any log read without crashing.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "tpcheck/conform/judge.hpp"
#include "tpcheck/conform/profile.hpp"
#include "trtllm/peer_terms.hpp"
#include "trtllm/trtllm.hpp"

namespace tpcheck::conform {
namespace {

using I = std::int64_t;

const Binding& binding(const Relation& relation) {
  static const auto bindings = trtllm_python_bindings({});
  return *std::find_if(bindings.begin(), bindings.end(), [&](const Binding& b) { return b.relation == &relation; });
}

std::set<std::string> kinds(const Judgement& j) {
  std::set<std::string> out;
  for (const auto& f : j.findings) out.insert(f.kind);
  return out;
}

Judgement judged(const Relation& relation, const CaseArgs& args, const std::string& text) {
  return judge(binding(relation), 0, args, Actual{Actual::Status::Value, "", text});
}

// P=1, D=2, H=2, one stage of 2 layers, no attention DP: ctx rank 0 holds
// heads 0 and 1, gen rank d head d; every gen rank asks ctx rank 0, which
// sends each of them its head, K and V of both layers of every block.
const CaseArgs kDeployment = {1, 2, 2, 0, 2, 2, 0, 0, 0, 0};

std::string copies(I d, I shift_dst, bool drop_last, bool twice) {
  const peers::BlockLayout& L = peers::kBlocks;
  const I B = L.head_bytes();
  std::string src, dst;
  int n = 0;
  for (I i = 0; i < L.blocks; ++i) {
    for (I lk = 0; lk < 4; ++lk) {  // (layer, K/V) of 2 layers
      if (drop_last && i == L.blocks - 1 && lk == 3) continue;
      const std::uint64_t s = L.ctx_base + static_cast<std::uint64_t>(i) * L.block_stride +
                              static_cast<std::uint64_t>((lk * 2 + d) * B);
      const std::uint64_t t = L.gen_base + static_cast<std::uint64_t>(d) * L.rank_stride +
                              static_cast<std::uint64_t>(i) * L.block_stride + static_cast<std::uint64_t>(lk * B + shift_dst);
      for (int k = 0; k < (twice && n == 0 ? 2 : 1); ++k) {
        src += (src.empty() ? "" : ",") + std::to_string(s);
        dst += (dst.empty() ? "" : ",") + std::to_string(t);
      }
      ++n;
    }
  }
  return "M 0 " + std::to_string(d) + " " + std::to_string(B) + " " + src + " " + dst + "\n";
}

std::string deployment_log(I shift_dst = 0, bool drop_last = false, bool twice = false) {
  return "G 0 0 1 1\nG 1 0 1 1\nX 0 0 0,1 1 1\n" + copies(0, shift_dst, drop_last, twice) + "X 0 1 0,1 1 1\n" +
         copies(1, 0, false, false);
}

TEST(PeerJudge, TheModelsDeploymentIsClean) {
  const Judgement overlap = judged(kPeerOverlap, kDeployment, deployment_log());
  EXPECT_TRUE(overlap.findings.empty()) << (overlap.findings.empty() ? "" : overlap.findings[0].kind);
  const Judgement kv_map = judged(kPeerKvMap, kDeployment, deployment_log());
  EXPECT_TRUE(kv_map.findings.empty()) << (kv_map.findings.empty() ? "" : kv_map.findings[0].actual);
  const auto decoded = std::find_if(kv_map.tallies.begin(), kv_map.tallies.end(),
                                    [](const auto& t) { return t.first == "decoded bytes"; });
  ASSERT_NE(decoded, kv_map.tallies.end());
  EXPECT_EQ(decoded->second, 2u * 3u * 4u * static_cast<std::uint64_t>(peers::kBlocks.head_bytes()));
}

TEST(PeerJudge, EachFaultIsItsOwnKind) {
  EXPECT_EQ(kinds(judged(kPeerKvMap, kDeployment, deployment_log(0, true))),
            (std::set<std::string>{"missing"}));
  EXPECT_EQ(kinds(judged(kPeerKvMap, kDeployment, deployment_log(0, false, true))),
            (std::set<std::string>{"duplicate_write"}));
  // Shifted by a head slot: the next (layer, K/V) receives it, and the last one runs past the block.
  EXPECT_EQ(kinds(judged(kPeerKvMap, kDeployment, deployment_log(peers::kBlocks.head_bytes()))),
            (std::set<std::string>{"misplaced", "missing", "write_outside"}));
  // A gen rank asking a ctx rank that does not exist, and the ctx rank waiting for one request.
  EXPECT_EQ(kinds(judged(kPeerOverlap, kDeployment, "G 0 0,1 1 1\nG 1 0 1 1\nX 0 0 0 1 1\n")),
            (std::set<std::string>{"out_of_range", "wrong_ranks", "count_mismatch"}));
  EXPECT_EQ(kinds(judged(kPeerCompatible, kDeployment,
                         "R gen 0 0 valid !ValueError|incompatible\nR gen 1 0 cp ok\n")),
            (std::set<std::string>{"rejects_valid", "accepts_invalid"}));
  EXPECT_EQ(kinds(judged(kPeerFindOverlap, {2, 3}, "0|=(1,0,1)\n1|=(2,1,3)")),
            (std::set<std::string>{"accepts_invalid"}));
  EXPECT_EQ(kinds(judged(kPeerFindOverlap, {3, 2}, "2|=(1,2,3)")),
            (std::set<std::string>{"accepts_invalid", "out_of_range"}));
  EXPECT_EQ(kinds(judged(kPeerHeadOffsets, {2, 4, 4}, "1 2|=(32,0)")), (std::set<std::string>{"misplaced"}));
}

// A mapper the child could not run (it needs a module the interpreter
// lacks) leaves the deployment not compared, saying why, when its pair sends;
// a silent replica's is ignored.
TEST(PeerJudge, AMapperThatCannotRunLeavesItsDeploymentNotCompared) {
  const Judgement skipped = judged(kPeerKvMap, kDeployment,
                                   "G 0 0 1 1\nG 1 0 1 1\nX 0 0 0,1 1 1\n" + copies(0, 0, false, false) +
                                       "X 0 1 0,1 1 1\nM 0 1 skip HeadMismatchMapper numpy\n");
  EXPECT_TRUE(skipped.not_compared);
  EXPECT_TRUE(skipped.findings.empty());
  EXPECT_EQ(skipped.not_compared_reason,
            "deployments whose block mapper HeadMismatchMapper needs numpy, which this Python cannot import");
  // P=2, D=1, H=1: both ctx ranks hold the head (dup 2), only ctx rank 0 sends to gen 0.
  const CaseArgs replicated = {2, 1, 1, 0, 2, 2, 0, 0, 0, 0};
  const std::string both = "G 0 0,1 1 2\nX 0 0 0 2 1\nX 1 0 0 2 1\nM 1 0 skip HeadMismatchMapper numpy\n";
  const Judgement silent_skipped = judged(kPeerKvMap, replicated, both);
  EXPECT_FALSE(silent_skipped.not_compared);
  EXPECT_EQ(kinds(silent_skipped), (std::set<std::string>{"missing"}));  // ctx rank 0 mapped nothing
  EXPECT_TRUE(judged(kPeerKvMap, replicated, both + "M 0 0 skip HeadMismatchMapper numpy\n").not_compared);
}

TEST(PeerJudge, AnyLogIsReadWithoutCrashing) {
  const std::vector<std::string> words = {"R", "G", "X", "M", "gen", "ctx", "valid", "cp", "ok", "!", "!V|m", "0",
                                          "1", "2", "-1", "-", ",", "none", "skip", "?float:1.5", "18446744073709551615",
                                          "9223372036854775807", "1125899906842624", "2251799813685248", "16",
                                          "0,1", "|=", "(0,1,2)", "\n", " "};
  std::uint64_t state = 2024;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>(state >> 33);
  };
  const std::vector<CaseArgs> deployments = {kDeployment, {2, 1, 1, 1, 13, 22, 1, 1, 1, 0},
                                             {4, 2, 4, 0, 2, 2, 0, 1, 0, 1}, {2, 3, 1, 0, 2, 2, 0, 0, 0, 0},
                                             {1, 1, 1, 0, 10, 1, 0, 0, 0, 0}, {1, 1, 1, 0, 2, 2, 1, 0, 5, 0}};
  std::uint64_t judged_logs = 0, with_findings = 0;
  for (int round = 0; round < 400; ++round) {
    std::string text;
    for (std::size_t i = 0, n = next() % 50; i < n; ++i) text += words[next() % words.size()] + " ";
    for (const Relation* r : {&kPeerCompatible, &kPeerOverlap, &kPeerKvMap}) {
      const Judgement j = judged(*r, deployments[next() % deployments.size()], text);
      ++judged_logs;
      with_findings += !j.findings.empty();
    }
    judged(kPeerFindOverlap, {3, 2}, text);
    judged(kPeerHeadOffsets, {1, 2, 2}, text);
  }
  EXPECT_GT(with_findings, judged_logs / 4);  // garbage is found wanting, not silently passed
}

}  // namespace
}  // namespace tpcheck::conform
