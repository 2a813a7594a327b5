// SPEC §15.0 and §15.4: stage layer ranges and overlaps, stage windows, fan-in
// and plans, attention DP, the duplicate-head factors, the whole-block copy
// guard, SGLang's targets (§14.1), the new connectors' verdicts (§11, §15.3),
// and the stage split codes: known values worked out by hand from the SPEC,
// every failure text and its precedence, int16 and int64 edges, cpp_int beyond.
#include <string>
#include <vector>

#include "model_test_support.hpp"
#include "tpcheck/deployment.hpp"
#include "tpcheck/operations.hpp"
#include "tpcheck/stages.hpp"

namespace tpcheck::test {
namespace {

template <class Int>
struct Stages : ::testing::Test {
  using Layers = std::vector<Int>;
  static Topology<Int> topology(const Int& P, const Int& D, const Int& H, Layers prefill, Layers decode,
                                AttentionDp adp = {}, bool mla = false) {
    return {P, D, H, mla, std::move(prefill), std::move(decode), adp};
  }
  static std::string layers(PpSide side, const Int& s, const Layers& counts) {
    return render(stage_layer_range<Int>(side, s, counts));
  }
  static std::string overlap(PpSide side, const Int& s, const Layers& prefill, const Layers& decode) {
    return render(overlapping_stages<Int>(side, s, prefill, decode));
  }
  static std::string window(const Int& s, const Int& d, const Int& c, const Topology<Int>& t) {
    return render(stage_window<Int>(s, d, c, t));
  }
  static std::string served(const Int& u, const Int& p, const Int& g, const Topology<Int>& t) {
    return render(stage_served<Int>(u, p, g, t));
  }
  static std::string plan(const Int& s, const Int& d, const Int& c, const Topology<Int>& t) {
    return render(stage_plan<Int>(s, d, c, t));
  }
  static std::string factors(const Int& P, const Int& D, const Int& H, bool mla = false, AttentionDp adp = {}) {
    return render(duplicate_head_factors<Int>(P, D, H, mla, adp));
  }
  static std::string whole(const Int& P, const Int& D, const Int& H, bool mla = false, AttentionDp adp = {}) {
    return render(whole_block_copy_allowed<Int>(P, D, H, mla, adp));
  }
  static std::string targets(const Int& d, const Int& P, const Int& D) { return render(sglang_target_ranks<Int>(d, P, D)); }
};
TYPED_TEST_SUITE(Stages, ModelInts, IntName);

constexpr AttentionDp kPrefillAdp{true, false};
constexpr AttentionDp kDecodeAdp{false, true};
constexpr AttentionDp kBothAdp{true, true};

// A range of a stage plan (stage_plan_range_into, the fuzzers' walks) is that
// slice of the whole plan, and stage_plan_copy_count its length: on uneven
// and even splits, sizes up to 6, head counts that shard each way, every
// decode stage and rank and every range start; a failing plan's range fails
// with its text.
TYPED_TEST(Stages, PlanRangesAreSlicesOfThePlan) {
  using Int = TypeParam;
  using Layers = typename TestFixture::Layers;
  const std::pair<Layers, Layers> splits[] = {{{2, 3, 1}, {3, 3}}, {{6}, {1, 1, 1, 1, 1, 1}}, {{3, 3}, {2, 4}}};
  int listed = 0, failed = 0;
  for (const auto& [prefill, decode] : splits) {
    for (int P = 1; P <= 6; ++P) {
      for (int D = 1; D <= 6; ++D) {
        for (const int H : {1, 2, 4, 6, 12}) {
          const Topology<Int> t = TestFixture::topology(Int(P), Int(D), Int(H), prefill, decode);
          for (std::size_t s = 0; s < decode.size(); ++s) {
            for (int d = 0; d < D; ++d) {
              const Int si(static_cast<int>(s)), di(d), c(0);
              SCOPED_TRACE("P=" + std::to_string(P) + " D=" + std::to_string(D) + " H=" + std::to_string(H) +
                           " s=" + std::to_string(s) + " d=" + std::to_string(d));
              expect_ranges_are_slices(
                  stage_plan<Int>(si, di, c, t), stage_plan_copy_count<Int>(si, di, c, t),
                  [&](std::vector<StageCopy<Int>>& buffer, std::size_t first, std::size_t n) {
                    return stage_plan_range_into<Int>(buffer, si, di, c, t, wide_t<Int>(first), wide_t<Int>(n));
                  },
                  listed, failed);
            }
          }
        }
      }
    }
  }
  EXPECT_GT(listed, 100);
  EXPECT_GT(failed, 10);
}

// --- §15.4.1 layer ranges and overlaps ----------------------------------------

TYPED_TEST(Stages, StageLayersAreTheRunningSums) {
  EXPECT_EQ(this->layers(PpSide::Prefill, 0, {2, 3, 1}), "(0, 2)");
  EXPECT_EQ(this->layers(PpSide::Prefill, 1, {2, 3, 1}), "(2, 5)");
  EXPECT_EQ(this->layers(PpSide::Decode, 2, {2, 3, 1}), "(5, 6)");
}

TYPED_TEST(Stages, OverlapsFollowTheLayersOfBothSplits) {
  // Even splits: decode stage 2 holds [16, 24), inside prefill stage 1.
  EXPECT_EQ(this->overlap(PpSide::Decode, 2, {16, 16}, {8, 8, 8, 8}), "(1, 2)");
  EXPECT_EQ(this->overlap(PpSide::Prefill, 0, {16, 16}, {8, 8, 8, 8}), "(0, 2)");
  // Uneven: prefill [0, 2) [2, 3), decode [0, 1) [1, 3).
  EXPECT_EQ(this->overlap(PpSide::Decode, 0, {2, 1}, {1, 2}), "(0, 1)");
  EXPECT_EQ(this->overlap(PpSide::Decode, 1, {2, 1}, {1, 2}), "(0, 2)");
  EXPECT_EQ(this->overlap(PpSide::Prefill, 0, {2, 1}, {1, 2}), "(0, 2)");
  EXPECT_EQ(this->overlap(PpSide::Prefill, 1, {2, 1}, {1, 2}), "(1, 2)");
  // One stage against many.
  EXPECT_EQ(this->overlap(PpSide::Prefill, 0, {5}, {1, 1, 1, 1, 1}), "(0, 5)");
}

TYPED_TEST(Stages, SplitFailuresInOrderProjectTexts) {
  EXPECT_EQ(this->layers(PpSide::Prefill, 0, {}), "ValueError: prefill pp_layers must list at least one stage");
  EXPECT_EQ(this->layers(PpSide::Decode, 0, {2, 0, 1}), "ValueError: decode pp stage 1 has 0 layers, must have at least one");
  EXPECT_EQ(this->layers(PpSide::Prefill, 0, {-3}), "ValueError: prefill pp stage 0 has -3 layers, must have at least one");
  EXPECT_EQ(this->layers(PpSide::Prefill, 3, {2, 3, 1}), "ValueError: prefill pp_stage 3 must be in [0, 3)");
  EXPECT_EQ(this->layers(PpSide::Decode, -1, {2, 3, 1}), "ValueError: decode pp_stage -1 must be in [0, 3)");
  // The split is checked before the stage.
  EXPECT_EQ(this->layers(PpSide::Prefill, 5, {0}), "ValueError: prefill pp stage 0 has 0 layers, must have at least one");
  const typename TestFixture::Layers many(4097, 1);
  EXPECT_EQ(this->layers(PpSide::Prefill, 0, many),
            "ValueError: prefill pp_layers lists 4097 stages, more than the model takes (4096)");
  const typename TestFixture::Layers most(4096, 1);
  EXPECT_EQ(this->layers(PpSide::Prefill, 4095, most), "(4095, 4096)");
}

TYPED_TEST(Stages, OverlapFailuresInOrderProjectTexts) {
  EXPECT_EQ(this->overlap(PpSide::Decode, 0, {2, 2}, {3}),
            "ValueError: prefill pp stages hold 4 layers but decode pp stages hold 3: both sides must hold the same layers");
  // Prefill's split, then decode's, then the totals, then the stage.
  EXPECT_EQ(this->overlap(PpSide::Decode, 9, {0}, {}), "ValueError: prefill pp stage 0 has 0 layers, must have at least one");
  EXPECT_EQ(this->overlap(PpSide::Decode, 9, {1}, {}), "ValueError: decode pp_layers must list at least one stage");
  EXPECT_EQ(this->overlap(PpSide::Decode, 9, {1}, {2}),
            "ValueError: prefill pp stages hold 1 layers but decode pp stages hold 2: both sides must hold the same layers");
  EXPECT_EQ(this->overlap(PpSide::Decode, 9, {2}, {1, 1}), "ValueError: decode pp_stage 9 must be in [0, 2)");
}

// --- §15.4.1-2 windows and fan-in ------------------------------------------------

TYPED_TEST(Stages, WindowsOverStagesAreGlobalRanks) {
  const auto t = this->topology(2, 4, 8, {16, 16}, {8, 8, 8, 8});
  // Decode rank (2, 3): window(3, 4, 2) = [1] in prefill stage 1: 1 * 2 + 1.
  EXPECT_EQ(this->window(2, 3, 0, t), "[3]");
  EXPECT_EQ(this->window(1, 0, 0, t), "[0]");
  // A decode stage spanning two prefill stages asks both: window(1, 2, 4) = [2, 3].
  const auto wide = this->topology(4, 2, 4, {1, 1}, {2});
  EXPECT_EQ(this->window(0, 1, 0, wide), "[2, 3, 6, 7]");
  EXPECT_EQ(render(stage_window_spans<TypeParam>(0, 1, 0, wide)), "[(2, 4), (6, 8)]");
}

TYPED_TEST(Stages, FanInOverStagesIsTheWindowsDual) {
  const auto t = this->topology(2, 4, 8, {16, 16}, {8, 8, 8, 8});
  // Prefill (1, 1) serves window(1, 2, 4) = [2, 3] in decode stages 2 and 3.
  EXPECT_EQ(this->served(1, 1, 0, t), "[10, 11, 14, 15]");
  EXPECT_EQ(render(stage_served_spans<TypeParam>(1, 1, 0, t)), "[(10, 12), (14, 16)]");
  // ... and decode rank 11 = (2, 3) asks prefill 3 = (1, 1).
  EXPECT_EQ(this->window(2, 3, 0, t), "[3]");
}

TYPED_TEST(Stages, AttentionDpServesOneGroupPerRequest) {
  // Prefill ADP: P' = 1; group c = 3 holds prefill TP rank 3 of each stage.
  const auto prefill = this->topology(4, 2, 4, {1, 1}, {2}, kPrefillAdp);
  EXPECT_EQ(this->window(0, 1, 3, prefill), "[3, 7]");
  // Decode ADP: D' = 1; every decode rank is a group of its own and asks the whole prefill side.
  const auto decode = this->topology(2, 4, 4, {1}, {1}, kDecodeAdp);
  EXPECT_EQ(this->window(0, 3, 0, decode), "[0, 1]");
  EXPECT_EQ(this->served(0, 1, 2, decode), "[2]");
  // A prefill group past the last, and one without ADP.
  EXPECT_EQ(this->window(0, 1, 4, prefill), "ValueError: prefill dp_group 4 must be in [0, 4)");
  EXPECT_EQ(this->window(0, 1, 1, this->topology(4, 2, 4, {2}, {2})), "ValueError: prefill dp_group 1 must be in [0, 1)");
  EXPECT_EQ(this->served(0, 1, 1, this->topology(4, 2, 4, {2}, {2})), "ValueError: decode dp_group 1 must be in [0, 1)");
}

TYPED_TEST(Stages, WindowFailuresInOrder) {
  const auto t = this->topology(4, 6, 2, {2}, {1, 1});
  // §3 on sizes per group that do not divide.
  EXPECT_EQ(this->window(0, 0, 0, t),
            "AssertionError: Local tensor parallel size 6 is not divisible by remote tensor parallel size 4.");
  EXPECT_EQ(this->served(0, 0, 0, t),
            "AssertionError: Remote tensor parallel size 6 is not divisible by local tensor parallel size 4.");
  // Sizes, heads, splits, totals, then stage, rank and group.
  EXPECT_EQ(this->window(9, 9, 9, this->topology(0, 6, 2, {}, {})), "ValueError: prefill tp_size 0 must be positive");
  EXPECT_EQ(this->window(9, 9, 9, this->topology(4, -1, 2, {}, {})), "ValueError: decode tp_size -1 must be positive");
  EXPECT_EQ(this->window(9, 9, 9, this->topology(4, 6, 0, {}, {})), "ValueError: total_num_kv_heads 0 must be positive");
  EXPECT_EQ(this->window(9, 9, 9, this->topology(4, 6, 0, {1}, {1}, {}, true)), "ValueError: decode pp_stage 9 must be in [0, 1)");
  EXPECT_EQ(this->window(9, 9, 9, this->topology(4, 6, 2, {}, {})), "ValueError: prefill pp_layers must list at least one stage");
  EXPECT_EQ(this->window(9, 9, 9, this->topology(4, 6, 2, {1}, {2})),
            "ValueError: prefill pp stages hold 1 layers but decode pp stages hold 2: both sides must hold the same layers");
  EXPECT_EQ(this->window(0, 6, 9, this->topology(4, 6, 2, {1}, {1})), "ValueError: decode_tp_rank 6 must be in [0, 6)");
  EXPECT_EQ(this->window(0, 5, 9, this->topology(4, 6, 2, {1}, {1})), "ValueError: prefill dp_group 9 must be in [0, 1)");
  EXPECT_EQ(this->served(1, 9, 9, this->topology(4, 6, 2, {1}, {1})), "ValueError: prefill pp_stage 1 must be in [0, 1)");
  EXPECT_EQ(this->served(0, 4, 9, this->topology(4, 6, 2, {1}, {1})), "ValueError: prefill_tp_rank 4 must be in [0, 4)");
}

TYPED_TEST(Stages, LongListsAreRefusedBeyondTwoToTheTwenty) {
  const TypeParam big = TypeParam(1) << 21;
  const auto t = this->topology(big, 1, 1, {1, 1}, {2});
  EXPECT_EQ(this->window(0, 0, 0, t),
            "ValueError: stage window of decode_tp_rank 0 has 4194304 elements, more than the model lists (1048576)");
  EXPECT_EQ(render(stage_window_spans<TypeParam>(0, 0, 0, t)), "[(0, 2097152), (2097152, 4194304)]");
  EXPECT_EQ(this->served(0, 0, 0, this->topology(1, big, 1, {2}, {1, 1})),
            "ValueError: stage fan-in of prefill_tp_rank 0 has 4194304 elements, more than the model lists (1048576)");
}

// --- §15.4.1-2 plans --------------------------------------------------------------

TYPED_TEST(Stages, PlanCopiesCarryLayersAndGlobalSources) {
  // Decode (2, 3) holds heads [6, 8) of layers [16, 24): plan(3, 2, 4, 8) =
  // [(1, 6, 8)], from prefill stage 1, rank 1 * 2 + 1.
  EXPECT_EQ(this->plan(2, 3, 0, this->topology(2, 4, 8, {16, 16}, {8, 8, 8, 8})), "[(3, 6, 8, 16, 24)]");
  // Decode stage 1 holds [1, 3), prefill stages [0, 2) and [2, 3): each stage
  // pair restricted to its shared layers; plan(0, 4, 2, 4) = [(0, 0, 1), (1, 1, 2)].
  EXPECT_EQ(this->plan(1, 0, 0, this->topology(4, 2, 4, {2, 1}, {1, 2})),
            "[(0, 0, 1, 1, 2), (1, 1, 2, 1, 2), (4, 0, 1, 2, 3), (5, 1, 2, 2, 3)]");
}

TYPED_TEST(Stages, PlanUnderAttentionDpHoldsEveryHead) {
  // Both sides ADP: one copy of all H heads from group c's rank.
  EXPECT_EQ(this->plan(0, 1, 2, this->topology(4, 2, 8, {1}, {1}, kBothAdp)), "[(2, 0, 8, 0, 1)]");
  // Prefill ADP over heads that do not shard over P: each decode rank reads its heads from group c.
  EXPECT_EQ(this->plan(0, 1, 1, this->topology(3, 2, 2, {1}, {1}, kPrefillAdp)), "[(1, 1, 2, 0, 1)]");
  // Decode ADP: decode rank 3 holds every head, read from both prefill ranks.
  EXPECT_EQ(this->plan(0, 3, 0, this->topology(2, 4, 4, {1}, {1}, kDecodeAdp)), "[(0, 0, 2, 0, 1), (1, 2, 4, 0, 1)]");
  // MLA: the one latent head.
  EXPECT_EQ(this->plan(0, 3, 0, this->topology(2, 4, 0, {1}, {1}, {}, true)), "[(1, 0, 1, 0, 1)]");
}

TYPED_TEST(Stages, PlanFailuresInOrderProjectTexts) {
  EXPECT_EQ(this->plan(0, 1, 0, this->topology(3, 2, 2, {1}, {1})),
            "ValueError: total_num_kv_heads 2 cannot be sharded over prefill tp_size 3: one must divide the other");
  EXPECT_EQ(this->plan(0, 1, 0, this->topology(2, 3, 2, {1}, {1})),
            "ValueError: total_num_kv_heads 2 cannot be sharded over decode tp_size 3: one must divide the other");
  // The ranks come before the sharding.
  EXPECT_EQ(this->plan(1, 1, 0, this->topology(3, 2, 2, {1}, {1})), "ValueError: decode pp_stage 1 must be in [0, 1)");
  EXPECT_EQ(this->plan(0, 2, 0, this->topology(3, 2, 2, {1}, {1})), "ValueError: decode_tp_rank 2 must be in [0, 2)");
  EXPECT_EQ(this->plan(0, 1, 1, this->topology(3, 2, 2, {1}, {1})), "ValueError: prefill dp_group 1 must be in [0, 1)");
  const TypeParam big = TypeParam(1) << 20;
  EXPECT_EQ(this->plan(0, 0, 0, this->topology(big, 1, big, {1, 1}, {2})),
            "ValueError: stage plan of decode_tp_rank 0 has 2097152 elements, more than the model lists (1048576)");
}

// --- §15.0 duplicate-head factors and §15.4.4 the whole-block guard -------------

TYPED_TEST(Stages, DuplicateHeadFactorsAreReplicaRatios) {
  EXPECT_EQ(this->factors(2, 4, 8), "(1, 1)");  // heads split on both sides: no replica
  EXPECT_EQ(this->factors(8, 2, 4), "(2, 1)");  // prefill holds each head twice
  EXPECT_EQ(this->factors(2, 8, 2), "(1, 4)");
  EXPECT_EQ(this->factors(8, 2, 4, false, kPrefillAdp), "(1, 1)");  // F(prefill) = 4 * 1
  EXPECT_EQ(this->factors(4, 2, 0, true), "(2, 1)");               // MLA: F = T'
  EXPECT_EQ(this->factors(0, 2, 4), "ValueError: prefill tp_size 0 must be positive");
  EXPECT_EQ(this->factors(2, 0, 4), "ValueError: decode tp_size 0 must be positive");
  EXPECT_EQ(this->factors(2, 2, 0), "ValueError: total_num_kv_heads 0 must be positive");
  EXPECT_EQ(this->factors(3, 2, 2),
            "ValueError: total_num_kv_heads 2 cannot be sharded over prefill tp_size 3: one must divide the other");
  EXPECT_EQ(this->factors(3, 2, 2, false, kPrefillAdp), "(1, 1)");
}

TYPED_TEST(Stages, WholeBlockCopyOnlyWithEqualHeadsPerRank) {
  EXPECT_EQ(this->whole(4, 8, 2), "True");    // one head per rank on both sides
  EXPECT_EQ(this->whole(4, 4, 8), "True");
  EXPECT_EQ(this->whole(4, 2, 4), "False");   // 1 head against 2
  EXPECT_EQ(this->whole(1, 4, 2), "False");   // the SPEC's smallest cases, both ways
  EXPECT_EQ(this->whole(4, 1, 2), "False");
  EXPECT_EQ(this->whole(4, 4, 4, false, kPrefillAdp), "False");  // n = 4 against 1
  EXPECT_EQ(this->whole(4, 2, 4, false, kBothAdp), "True");
  EXPECT_EQ(this->whole(4, 2, 0, true), "True");
  EXPECT_EQ(this->whole(2, 3, 2), "ValueError: total_num_kv_heads 2 cannot be sharded over decode tp_size 3: one must divide the other");
}

// --- §14.1 SGLang's targets ----------------------------------------------------------

TYPED_TEST(Stages, SglangTargetsDivisibleOrNot) {
  EXPECT_EQ(this->targets(3, 2, 4), "(1, 2)");
  EXPECT_EQ(this->targets(1, 4, 2), "(2, 4)");
  // P = 4, D = 6: decode ranks 4 and 5 target prefill ranks 4 and 5.
  EXPECT_EQ(this->targets(4, 4, 6), "(4, 5)");
  EXPECT_EQ(this->targets(5, 4, 6), "(5, 6)");
  // P = 6, D = 4: the last decode rank targets prefill rank 3; 4 and 5 are targeted by none.
  EXPECT_EQ(this->targets(3, 6, 4), "(3, 4)");
  EXPECT_EQ(this->targets(6, 4, 6), "ValueError: decode_tp_rank 6 must be in [0, 6)");
  EXPECT_EQ(this->targets(0, 0, 6), "ValueError: prefill tp_size 0 must be positive");
  EXPECT_EQ(this->targets(0, 4, 0), "ValueError: decode tp_size 0 must be positive");
}

// --- §11, §15.3 the new connectors ---------------------------------------------------

template <class Int>
SizingVerdict verdict(Connector c, const Int& P, const Int& D, const Int& H, bool mla = false, AttentionDp adp = {}) {
  return sizing_verdict<Int>(c, P, D, H, mla, adp);
}

TYPED_TEST(Stages, SglangRunsEverythingLoadableAndServesTheDivisible) {
  EXPECT_EQ(verdict<TypeParam>(Connector::SGLang, 4, 6, 2).misserved, Misservice::TargetsMissingPrefillRanks);
  EXPECT_EQ(verdict<TypeParam>(Connector::SGLang, 6, 4, 2).misserved, Misservice::PrefillRanksStall);
  EXPECT_TRUE(verdict<TypeParam>(Connector::SGLang, 6, 4, 2).outcome.ok());
  EXPECT_EQ(verdict<TypeParam>(Connector::SGLang, 4, 8, 2).misserved, std::nullopt);
  EXPECT_EQ(verdict<TypeParam>(Connector::SGLang, 4, 6, 8).reason, Rejection::HeadsDoNotShard);
}

TYPED_TEST(Stages, TrtllmNeedsPowersOfTwoPerGroupAndNoMla) {
  EXPECT_EQ(render(verdict<TypeParam>(Connector::Trtllm, 3, 2, 1).outcome),
            "ValueError: prefill tp_size per attention-DP group 3 must be a power of two for TensorRT-LLM's C++ "
            "transceiver");
  EXPECT_EQ(render(verdict<TypeParam>(Connector::Trtllm, 2, 6, 2).outcome),
            "ValueError: decode tp_size per attention-DP group 6 must be a power of two for TensorRT-LLM's C++ "
            "transceiver");
  EXPECT_EQ(verdict<TypeParam>(Connector::Trtllm, 3, 2, 1).reason, Rejection::NotPowerOfTwo);
  EXPECT_TRUE(verdict<TypeParam>(Connector::Trtllm, 3, 2, 1, false, kPrefillAdp).outcome.ok());
  EXPECT_TRUE(verdict<TypeParam>(Connector::Trtllm, 3, 2, 2, false, kPrefillAdp).outcome.ok());  // heads per group
  EXPECT_EQ(verdict<TypeParam>(Connector::Trtllm, 3, 2, 2).reason, Rejection::HeadsDoNotShard);
  EXPECT_EQ(render(verdict<TypeParam>(Connector::Trtllm, 2, 4, 0, true).outcome),
            "ValueError: TensorRT-LLM's C++ CacheFormatter does not serve MLA (MLACacheFormatter does, which this "
            "model does not cover)");
  EXPECT_EQ(verdict<TypeParam>(Connector::Trtllm, 2, 4, 0, true).reason, Rejection::MlaNotCovered);
  EXPECT_TRUE(verdict<TypeParam>(Connector::Trtllm, 16, 4, 8).outcome.ok());
}

TYPED_TEST(Stages, TrtllmPythonRunsAnySizesAndServesTheDivisible) {
  EXPECT_EQ(verdict<TypeParam>(Connector::TrtllmV2, 3, 2, 1).misserved, Misservice::NotDivisible);
  EXPECT_TRUE(verdict<TypeParam>(Connector::TrtllmV2, 3, 2, 1).outcome.ok());
  EXPECT_EQ(verdict<TypeParam>(Connector::TrtllmV2, 3, 2, 1, false, kBothAdp).misserved, std::nullopt);
  EXPECT_EQ(verdict<TypeParam>(Connector::TrtllmV2, 3, 6, 3, true).misserved, std::nullopt);
  // Attention DP is TRT-LLM's: the other connectors do not read it.
  EXPECT_EQ(verdict<TypeParam>(Connector::Nixl, 3, 2, 1, false, kBothAdp).reason, Rejection::NotDivisible);
}

// --- codes ---------------------------------------------------------------------------

TEST(StageCodes, EveryListOfNonNegativeCountsHasItsCode) {
  const auto code = [](std::vector<BigInt> layers) { return code_of_split(layers); };
  EXPECT_EQ(code({}), 0);
  EXPECT_EQ(code({0}), 1);
  EXPECT_EQ(code({1}), 2);
  EXPECT_EQ(code({2}), 4);
  EXPECT_EQ(code({1, 1}), 10);
  EXPECT_EQ(code({2, 1}), 18);
  EXPECT_EQ(code({-3}), -3);
  EXPECT_EQ(render(split_of_code<std::int16_t>(18)), "[2, 1]");
  EXPECT_EQ(render(split_of_code<std::int64_t>(-3)), "[-3]");
  EXPECT_EQ(render(split_of_code<BigInt>(pow2(200))), "[200]");
  // Every list of up to four counts up to three reads back from its code.
  std::size_t lists = 0;
  for (int n = 0; n <= 4; ++n) {
    std::vector<BigInt> counts(static_cast<std::size_t>(n), 0);
    while (true) {
      const BigInt c = code_of_split(counts);
      EXPECT_EQ(split_of_code<BigInt>(c), counts);
      if (c < (BigInt(1) << 62)) {
        EXPECT_EQ(render(split_of_code<std::int64_t>(c.convert_to<std::int64_t>())), render(counts));
      }
      ++lists;
      std::size_t i = 0;
      while (i < counts.size() && counts[i] == 3) counts[i++] = 0;
      if (i == counts.size()) break;
      ++counts[i];
    }
  }
  EXPECT_EQ(lists, 1u + 4 + 16 + 64 + 256);
}

// --- wide results: no intermediate overflow -----------------------------------------

TEST(StageWidth, Int16GlobalRanksAndLayersPassInt16) {
  using I = std::int16_t;
  const Topology<I> t{32767, 32767, 1, false, {1, 1}, {2}, {}};
  // Decode (0, 32766) asks prefill rank 32766 of both stages: 32767 + 32766 is past int16.
  EXPECT_EQ(render(stage_window<I>(0, 32766, 0, t)), "[32766, 65533]");
  EXPECT_EQ(render(stage_window<BigInt>(0, 32766, 0, {32767, 32767, 1, false, {1, 1}, {2}, {}})), "[32766, 65533]");
  const std::vector<I> halves = {32767, 32767};
  EXPECT_EQ(render(stage_layer_range<I>(PpSide::Prefill, 1, halves)), "(32767, 65534)");
  const Topology<I> group{32767, 1, 1, false, {1, 1}, {2}, {true, false}};
  EXPECT_EQ(render(stage_window<I>(0, 0, 32766, group)), "[32766, 65533]");
}

TEST(StageWidth, Int64GlobalRanksPassInt64) {
  using I = std::int64_t;
  const Topology<I> t{kMax, kMax, 1, false, {1, 1}, {2}, {}};
  EXPECT_EQ(render(stage_window<I>(0, kMax - 1, 0, t)), "[9223372036854775806, 18446744073709551613]");
  const std::vector<I> halves = {kMax, kMax};
  EXPECT_EQ(render(stage_layer_range<I>(PpSide::Decode, 1, halves)), "(9223372036854775807, 18446744073709551614)");
}

TEST(StageWidth, CppIntBeyondInt64) {
  const BigInt P = pow2(70);
  const Topology<BigInt> t{P, 1, 1, false, {1, 1, 1}, {3}, {true, false}};
  EXPECT_EQ(render(stage_window<BigInt>(0, 0, P - 1, t)),
            "[1180591620717411303423, 2361183241434822606847, 3541774862152233910271]");
}

// --- eval's options -------------------------------------------------------------------

std::string eval(std::string_view op, std::vector<std::string_view> args, const StageOptions& stages) {
  std::string text;
  const bool ok = evaluate(op, args, ModelType::Auto, text, stages);
  return ok ? text : "usage: " + text;
}

TEST(StageEval, OptionsGiveTheSplitsAndFlags) {
  StageOptions s;
  s.prefill_layers = std::vector<BigInt>{16, 16};
  s.decode_layers = std::vector<BigInt>{8, 8, 8, 8};
  EXPECT_EQ(eval("stage_plan", {"2", "3", "0", "2", "4", "8", "0"}, s), "[(3, 6, 8, 16, 24)]");
  EXPECT_EQ(eval("prefill_stages", {"2"}, s), "(1, 2)");
  EXPECT_EQ(eval("decode_stages", {"0"}, s), "(0, 2)");
  // A side without a split is one stage of the other's layers; neither: one layer.
  StageOptions one_side;
  one_side.prefill_layers = std::vector<BigInt>{2, 2};
  EXPECT_EQ(eval("decode_stages", {"1"}, one_side), "(0, 1)");
  EXPECT_EQ(eval("stage_window", {"0", "0", "0", "4", "2"}, {}), "[0, 1]");
  StageOptions adp;
  adp.prefill_adp = true;
  EXPECT_EQ(eval("trtllm_accepts", {"3", "2", "2", "0"}, adp), "None");
  EXPECT_EQ(eval("trtllm_accepts", {"3", "2", "2", "0"}, {}),
            "ValueError: total_num_kv_heads 2 cannot be sharded over prefill tp_size 3: one must divide the other");
}

TEST(StageEval, AnOptionTheOperationDoesNotReadIsAUsageErrorProjectText) {
  StageOptions adp;
  adp.decode_adp = true;
  EXPECT_EQ(eval("window", {"0", "2", "4"}, adp), "usage: window reads no --decode-adp");
  StageOptions layers;
  layers.prefill_layers = std::vector<BigInt>{1};
  EXPECT_EQ(eval("whole_block_copy_allowed", {"1", "1", "1", "0"}, layers),
            "usage: whole_block_copy_allowed reads no --prefill-pp-layers");
  EXPECT_EQ(eval("stage_plan", {"0"}, {}),
            "usage: usage: stage_plan s d c P D H MLA [--prefill-pp-layers C,C,...] [--decode-pp-layers C,C,...] "
            "[--prefill-adp] [--decode-adp] (7 arguments, got 1)");
}

TEST(StageEval, ASplitPastInt64IsNamedAsALayerList) {
  StageOptions s;
  s.prefill_layers = std::vector<BigInt>{40, 40};
  std::string text;
  EXPECT_FALSE(evaluate("prefill_stages", std::vector<std::string_view>{"0"}, ModelType::Int64, text, s));
  EXPECT_EQ(text,
            "argument PREFILL_PP_LAYERS = 40,40 does not fit in int64: a stage split takes a bit per layer and stage "
            "(--model cpp_int holds any)");
  EXPECT_TRUE(evaluate("prefill_stages", std::vector<std::string_view>{"0"}, ModelType::Auto, text, s));
  EXPECT_EQ(text, "(0, 2)");  // decode: one stage of the 80 layers
}

}  // namespace
}  // namespace tpcheck::test
