// SPEC §16.0-16.3: the recurrent state's ownership, state plans, fan-in and
// pairing, and its byte layouts: every known value of the SPEC, every failure
// text and its precedence (each check first to fail), int64's edges and
// cpp_int beyond 64 bits, int16 against cpp_int.
#include <string>
#include <vector>

#include "model_test_support.hpp"
#include "tpcheck/operations.hpp"
#include "tpcheck/state.hpp"
#include "tpcheck/state_bytes.hpp"

namespace tpcheck::test {
namespace {

// `tpcheck eval`'s outcome of a line, or "usage: ..." for a usage error.
std::string eval(std::string_view line) {
  std::string text;
  return evaluate_line(line, ModelType::Auto, text) ? text : "usage: " + text;
}

// The same line in one model type.
std::string eval_in(std::string_view line, ModelType type) {
  std::string text;
  return evaluate_line(line, type, text) ? text : "usage: " + text;
}

template <class Int>
StateDims<Int> dims(StateFamily f, std::initializer_list<Int> v) {
  StateDims<Int> d{f, {Int(1), Int(1), Int(1), Int(1)}};
  std::size_t i = 0;
  for (const Int& x : v) d.v[i++] = x;
  return d;
}

// A failed outcome's text ("ok" when it succeeds): for outcomes render() has no value notation for.
template <class V>
std::string failure_text(const Outcome<V>& o) {
  return o.ok() ? "ok" : render(o.failure());
}

template <class Int>
struct State : ::testing::Test {};
TYPED_TEST_SUITE(State, ModelInts, IntName);

// ---- §16.1 ownership ---------------------------------------------------------

TEST(State, SegmentsKnownValues) {
  EXPECT_EQ(eval("mamba2_segments 1 2 8 2 1 3"),
            "[('x', 8, 16, 0, 0), ('B', 0, 3, 8, 1), ('C', 0, 3, 11, 1), ('ssm', 4, 8, 0, 0)]");
  EXPECT_EQ(eval("mamba2_state_shape 2 8 2 1 3"), "(14, 4, 6)");
  // Case A: B and C sharded, G/T groups per rank.
  EXPECT_EQ(eval("mamba2_segments 1 2 8 2 2 3"),
            "[('x', 8, 16, 0, 0), ('B', 3, 6, 8, 0), ('C', 3, 6, 11, 0), ('ssm', 4, 8, 0, 0)]");
  // GDN's key dims unlike its value dims; KDA's three equal segments; Mamba1's one.
  EXPECT_EQ(eval("gdn_segments 1 2 2 3 4 5"),
            "[('q', 3, 6, 0, 0), ('k', 3, 6, 3, 0), ('v', 10, 20, 6, 0), ('ssm', 2, 4, 0, 0)]");
  EXPECT_EQ(eval("gdn_state_shape 2 2 3 4 5"), "(16, 2, 15)");
  EXPECT_EQ(eval("kda_segments 2 4 8 3"),
            "[('q', 12, 18, 0, 0), ('k', 12, 18, 6, 0), ('v', 12, 18, 12, 0), ('ssm', 4, 6, 0, 0)]");
  EXPECT_EQ(eval("kda_state_shape 4 8 3"), "(18, 2, 9)");
  EXPECT_EQ(eval("mamba1_segments 3 4 8 16"), "[('x', 6, 8, 0, 0), ('ssm', 6, 8, 0, 0)]");
  EXPECT_EQ(eval("mamba1_state_shape 4 8 16"), "(2, 2, 16)");
}

// C_loc at T = 1, 2, 4, 8 of two published models (SPEC §16.1).
TEST(State, PublishedModelsConvWidths) {
  const std::vector<std::string> falcon = {"3584", "2048", "1280", "896"};
  const std::vector<std::string> nemotron = {"10240", "5120", "2560", "1280"};
  for (std::size_t i = 0; i < 4; ++i) {
    const std::string T = std::to_string(1 << i);
    EXPECT_EQ(eval("mamba2_state_shape " + T + " 24 128 1 256"), "(" + falcon[i] + ", " + std::to_string(24 >> i) + ", 32768)");
    EXPECT_EQ(eval("mamba2_state_shape " + T + " 128 64 8 128"), "(" + nemotron[i] + ", " + std::to_string(128 >> i) + ", 8192)");
  }
  EXPECT_EQ(eval("mamba2_state_shape 16 128 64 8 128"),
            "AssertionError: If tensor parallel world size does not divide num_groups, then num_groups must equal 1.");
}

TEST(State, ShapeAndSegmentsFailInOrder) {
  // The known failures: case C, and heads that do not divide.
  EXPECT_EQ(eval("mamba2_segments 0 4 8 2 2 3"),
            "AssertionError: If tensor parallel world size does not divide num_groups, then num_groups must equal 1.");
  EXPECT_EQ(eval("mamba2_segments 0 3 8 2 1 3"), "AssertionError: Tensor parallel world size must divide num heads.");
  // T first, then the dims, then the config, then (segments) the rank, then the TP checks.
  EXPECT_EQ(eval("mamba2_state_shape 0 0 2 3 1"), "ValueError: tp_size 0 must be positive");
  EXPECT_EQ(eval("mamba2_state_shape 4 8 0 3 1"),
            "ValueError: mamba2 dims must be positive: num_heads=8, head_dim=0, n_groups=3, d_state=1");
  EXPECT_EQ(eval("mamba2_state_shape 3 8 2 3 1"), "ValueError: num_heads 8 must be a multiple of n_groups 3");
  EXPECT_EQ(eval("mamba2_segments -1 3 8 2 3 1"), "ValueError: num_heads 8 must be a multiple of n_groups 3");
  EXPECT_EQ(eval("mamba2_segments 4 4 8 2 2 3"), "ValueError: tp_rank 4 must be in [0, 4)");
  EXPECT_EQ(eval("mamba2_segments -1 -2 8 2 2 3"), "ValueError: tp_size -2 must be positive");
  EXPECT_EQ(eval("gdn_state_shape 1 2 -1 4 5"),
            "ValueError: gdn dims must be positive: linear_num_key_heads=2, linear_key_head_dim=-1, "
            "linear_num_value_heads=4, linear_value_head_dim=5");
  EXPECT_EQ(eval("gdn_state_shape 1 4 1 6 1"),
            "ValueError: linear_num_value_heads 6 must be a multiple of linear_num_key_heads 4");
  EXPECT_EQ(eval("gdn_segments 0 4 2 1 4 1"),
            "ValueError: GDN cannot shard linear_num_key_heads 2 over tp_size 4: it never replicates key heads");
  EXPECT_EQ(eval("kda_state_shape 1 0 0"), "ValueError: kda dims must be positive: num_heads=0, head_dim=0");
  EXPECT_EQ(eval("kda_state_shape 3 4 1"), "AssertionError: ");
  EXPECT_EQ(eval("mamba1_state_shape 1 8 -3"), "ValueError: mamba1 dims must be positive: intermediate_size=8, d_state=-3");
  EXPECT_EQ(eval("mamba1_segments 0 3 8 1"), "AssertionError: 8 is not divisible by 3");
}

// ---- §16.2 the state plan ----------------------------------------------------------

TEST(State, PlanKnownValues) {
  EXPECT_EQ(eval("mamba2_state_plan 1 2 4 128 64 8 128"),
            "[('x', 0, 2048, 0, 2048), ('B', 0, 4352, 2048, 256), ('C', 0, 4864, 2304, 256), ('ssm', 0, 32, 0, 32)]");
  EXPECT_EQ(eval("mamba2_state_plan 1 1 2 24 128 1 256"),
            "[('x', 0, 1536, 0, 1536), ('B', 0, 3072, 1536, 256), ('C', 0, 3328, 1792, 256), ('ssm', 0, 12, 0, 12)]");
  EXPECT_EQ(eval("mamba2_state_plan 0 4 2 8 2 1 3"),
            "[('x', 0, 0, 0, 4), ('x', 1, 0, 4, 4), ('B', 0, 4, 8, 3), ('C', 0, 7, 11, 3), ('ssm', 0, 0, 0, 2), "
            "('ssm', 1, 0, 2, 2)]");
  EXPECT_EQ(eval("gdn_state_plan 0 4 2 16 128 32 128"),
            "[('q', 0, 0, 0, 512), ('q', 1, 0, 512, 512), ('k', 0, 512, 1024, 512), ('k', 1, 512, 1536, 512), "
            "('v', 0, 1024, 2048, 1024), ('v', 1, 1024, 3072, 1024), ('ssm', 0, 0, 0, 8), ('ssm', 1, 0, 8, 8)]");
  EXPECT_EQ(eval("mamba2_state_plan 0 4 6 24 1 1 3"),
            "AssertionError: Local tensor parallel size 6 is not divisible by remote tensor parallel size 4.");
}

// The replicated rules of §16.2's table, each way round.
TEST(State, ReplicatedSegmentsComeWholeFromTheFirstWindowRank) {
  // Replicated on both sides (P = 2 -> D = 4): the whole of B from floor(d * P / D).
  EXPECT_EQ(eval("mamba2_state_plan 3 2 4 8 1 1 2"),
            "[('x', 1, 2, 0, 2), ('B', 1, 4, 2, 2), ('C', 1, 6, 4, 2), ('ssm', 1, 2, 0, 2)]");
  // Replicated on the prefill side, sharded on the decode side (D = 1): once, from p* = 0.
  EXPECT_EQ(eval("mamba2_state_plan 0 2 1 2 1 1 2"),
            "[('x', 0, 0, 0, 1), ('x', 1, 0, 1, 1), ('B', 0, 1, 2, 2), ('C', 0, 3, 4, 2), ('ssm', 0, 0, 0, 1), "
            "('ssm', 1, 0, 1, 1)]");
  // Sharded on a prefill side of one rank, replicated on the decode side.
  EXPECT_EQ(eval("mamba2_state_plan 1 1 2 2 1 1 2"),
            "[('x', 0, 1, 0, 1), ('B', 0, 2, 1, 2), ('C', 0, 4, 3, 2), ('ssm', 0, 1, 0, 1)]");
  // Equal sizes: the identity.
  EXPECT_EQ(eval("kda_state_plan 1 2 2 4 1"),
            "[('q', 1, 0, 0, 2), ('k', 1, 2, 2, 2), ('v', 1, 4, 4, 2), ('ssm', 1, 0, 0, 2)]");
}

TEST(State, PlanFailsInOrder) {
  EXPECT_EQ(eval("mamba2_state_plan 5 0 0 0 2 1 3"), "ValueError: prefill tp_size 0 must be positive");
  EXPECT_EQ(eval("mamba2_state_plan 5 4 -1 0 2 1 3"), "ValueError: decode tp_size -1 must be positive");
  EXPECT_EQ(eval("mamba2_state_plan 9 4 2 8 2 1 0"),
            "ValueError: mamba2 dims must be positive: num_heads=8, head_dim=2, n_groups=1, d_state=0");
  EXPECT_EQ(eval("gdn_state_plan 7 4 2 3 1 5 1"),
            "ValueError: linear_num_value_heads 5 must be a multiple of linear_num_key_heads 3");
  // The rank before the TP checks.
  EXPECT_EQ(eval("kda_state_plan 2 3 2 4 1"), "ValueError: decode_tp_rank 2 must be in [0, 2)");
  EXPECT_EQ(eval("kda_state_plan -1 4 2 4 1"), "ValueError: decode_tp_rank -1 must be in [0, 2)");
  // Prefill's TP checks, then decode's, then the ratio.
  EXPECT_EQ(eval("mamba1_state_plan 0 3 5 5 1"), "AssertionError: 5 is not divisible by 3");
  EXPECT_EQ(eval("mamba1_state_plan 0 1 3 5 1"), "AssertionError: 5 is not divisible by 3");
  EXPECT_EQ(eval("mamba2_state_plan 0 2 4 8 1 2 1"),
            "AssertionError: If tensor parallel world size does not divide num_groups, then num_groups must equal 1.");
  EXPECT_EQ(eval("kda_state_plan 0 6 4 12 1"),
            "AssertionError: Remote tensor parallel size 6 is not divisible by local tensor parallel size 4.");
}

// The listing limit: counted exactly (in the wide type) before any copy is listed.
TEST(State, PlanListingLimitCountsEverySegment) {
  // 4 * P/D copies: every segment sharded.
  EXPECT_EQ(eval("mamba2_state_plan 0 1048576 1 1048576 1 1048576 1"),
            "ValueError: state plan of decode_tp_rank 0 has 4194304 elements, more than the model lists (1048576)");
  // Case B: B and C once each.
  EXPECT_EQ(eval("mamba2_state_plan 0 1048576 1 1048576 1 1 1"),
            "ValueError: state plan of decode_tp_rank 0 has 2097154 elements, more than the model lists (1048576)");
  EXPECT_EQ(eval("mamba1_state_plan 0 524289 1 524289 1"),
            "ValueError: state plan of decode_tp_rank 0 has 1048578 elements, more than the model lists (1048576)");
  // A count past int64 while every input fits: 4 * 2^62 = 2^64.
  EXPECT_EQ(eval_in("mamba2_state_plan 0 4611686018427387904 1 4611686018427387904 1 4611686018427387904 1",
                    ModelType::Int64),
            "ValueError: state plan of decode_tp_rank 0 has 18446744073709551616 elements, more than the model lists "
            "(1048576)");
  // The limit comes after every other check.
  EXPECT_EQ(eval("mamba2_state_plan 1 1048576 1 1048576 1 1048576 1"), "ValueError: decode_tp_rank 1 must be in [0, 1)");
  // A long plan the model does list.
  std::string text;
  ASSERT_TRUE(evaluate_line("mamba1_state_plan 0 1024 1 1024 1", ModelType::Int64, text));
  EXPECT_EQ(std::count(text.begin(), text.end(), '('), 2048);
}

// A range of a plan (state_plan_range_into, the fuzzers' walks) is that slice
// of the whole plan, and state_plan_copy_count its length, on every family,
// both sides' sizes up to 8 (replicated and sharded segments, each way round)
// and every range start; a failing plan's range fails with its text.
TYPED_TEST(State, PlanRangesAreSlicesOfThePlan) {
  using Int = TypeParam;
  const StateDims<Int> families[] = {dims<Int>(StateFamily::Mamba2, {8, 2, 1, 3}),
                                     dims<Int>(StateFamily::Mamba2, {8, 2, 8, 1}),
                                     dims<Int>(StateFamily::Gdn, {4, 2, 8, 1}), dims<Int>(StateFamily::Kda, {8, 1}),
                                     dims<Int>(StateFamily::Mamba1, {8, 1})};
  int listed = 0, failed = 0;
  for (const StateDims<Int>& f : families) {
    for (int P = 1; P <= 8; ++P) {
      for (int D = 1; D <= 8; ++D) {
        for (int d = 0; d < D; ++d) {
          SCOPED_TRACE("P=" + std::to_string(P) + " D=" + std::to_string(D) + " d=" + std::to_string(d));
          expect_ranges_are_slices(
              state_plan<Int>(Int(d), Int(P), Int(D), f), state_plan_copy_count<Int>(Int(d), Int(P), Int(D), f),
              [&](std::vector<StateCopy<Int>>& buffer, std::size_t first, std::size_t n) {
                return state_plan_range_into<Int>(buffer, Int(d), Int(P), Int(D), f, units_t<Int>(first),
                                                  units_t<Int>(n));
              },
              listed, failed);
        }
      }
    }
  }
  EXPECT_GT(listed, 100);
  EXPECT_GT(failed, 100);
}

// ---- §16.2 the duality ---------------------------------------------------------------

TEST(State, ServedIsTheWindow) {
  EXPECT_EQ(eval("gdn_state_served 1 2 4 16 128 32 128"), "[2, 3]");
  EXPECT_EQ(eval("gdn_state_served 3 4 2 16 128 32 128"), "[1]");
  EXPECT_EQ(eval("mamba2_state_served 0 1 2 24 128 1 256"), "[0, 1]");
  EXPECT_EQ(eval("mamba2_state_served 0 4 6 24 1 1 3"),
            "AssertionError: Remote tensor parallel size 6 is not divisible by local tensor parallel size 4.");
  EXPECT_EQ(eval("mamba2_state_served 4 4 2 24 1 1 3"), "ValueError: prefill_tp_rank 4 must be in [0, 4)");
  // The rank before the TP checks: KDA's 6 heads do not shard over 4.
  EXPECT_EQ(eval("kda_state_served 4 4 2 6 1"), "ValueError: prefill_tp_rank 4 must be in [0, 4)");
  EXPECT_EQ(eval("kda_state_served 4 4 2 24 0"), "ValueError: kda dims must be positive: num_heads=24, head_dim=0");
  EXPECT_EQ(eval("mamba1_state_served 0 1 2097152 2097152 1"),
            "ValueError: state served by prefill_tp_rank 0 has 2097152 elements, more than the model lists (1048576)");
  EXPECT_EQ(eval("mamba1_state_served 1 1 2097152 2097152 1"), "ValueError: prefill_tp_rank 1 must be in [0, 1)");
}

// ---- §16.1 state_pairing ---------------------------------------------------------------

TEST(State, PairingChecksEachValueThenEachPair) {
  EXPECT_EQ(eval("state_pairing 3 3 2 2 4 4"), "None");
  EXPECT_EQ(eval("state_pairing 0 0 0 0 0 0"), "ValueError: prefill conv window length 0 must be positive");
  EXPECT_EQ(eval("state_pairing 3 -1 0 0 0 0"), "ValueError: decode conv window length -1 must be positive");
  EXPECT_EQ(eval("state_pairing 3 4 0 0 0 0"), "ValueError: prefill conv element size 0 must be positive");
  EXPECT_EQ(eval("state_pairing 3 4 2 0 0 0"), "ValueError: decode conv element size 0 must be positive");
  EXPECT_EQ(eval("state_pairing 3 4 2 1 0 0"), "ValueError: prefill SSM element size 0 must be positive");
  EXPECT_EQ(eval("state_pairing 3 4 2 1 4 -5"), "ValueError: decode SSM element size -5 must be positive");
  EXPECT_EQ(eval("state_pairing 3 4 2 1 4 2"),
            "ValueError: prefill conv window length 3 differs from decode's 4: K-1+num_speculative_tokens must match "
            "on both sides");
  EXPECT_EQ(eval("state_pairing 3 3 2 1 4 2"), "ValueError: prefill conv element size 2 differs from decode's 1");
  EXPECT_EQ(eval("state_pairing 3 3 2 2 4 2"), "ValueError: prefill SSM element size 4 differs from decode's 2");
}

// ---- int64's edges, beyond 64 bits, int16 ------------------------------------------------

// Channel counts are sums of products: past int64, and (GDN's three products) past __int128.
TEST(State, WidthsPastInt64AreExact) {
  const std::string max = std::to_string(kMax);
  EXPECT_EQ(eval_in("mamba2_state_shape 1 " + max + " " + max + " 1 " + max, ModelType::Int64),
            "(85070591730234615865843651857942052863, 9223372036854775807, 85070591730234615847396907784232501249)");
  EXPECT_EQ(eval_in("gdn_state_shape 1 " + max + " " + max + " " + max + " " + max, ModelType::Int64),
            "(255211775190703847542190723352697503747, 9223372036854775807, 85070591730234615847396907784232501249)");
  for (const ModelType type : {ModelType::Int64, ModelType::CppInt}) {
    EXPECT_EQ(eval_in("gdn_segments 0 1 " + max + " " + max + " " + max + " " + max, type),
              "[('q', 0, 85070591730234615847396907784232501249, 0, 0), ('k', 0, "
              "85070591730234615847396907784232501249, 85070591730234615847396907784232501249, 0), ('v', 0, "
              "85070591730234615847396907784232501249, 170141183460469231694793815568465002498, 0), ('ssm', 0, "
              "9223372036854775807, 0, 0)]");
  }
  // The last rank of a side near int64's largest size, and its anchor d * P / D.
  EXPECT_EQ(eval_in("mamba2_state_plan " + std::to_string(kMax - 1) + " " + max + " " + max + " " + max + " 2 1 3",
                    ModelType::Int64),
            "[('x', 9223372036854775806, 0, 0, 2), ('B', 9223372036854775806, 2, 2, 3), ('C', 9223372036854775806, 5, "
            "5, 3), ('ssm', 9223372036854775806, 0, 0, 1)]");
}

TEST(State, CppIntBeyond64Bits) {
  const std::string two64 = pow2(64).str();
  const std::string two63 = pow2(63).str();
  EXPECT_EQ(eval("mamba1_state_plan 0 2 1 " + two64 + " " + two64),
            "[('x', 0, 0, 0, " + two63 + "), ('x', 1, 0, " + two63 + ", " + two63 + "), ('ssm', 0, 0, 0, " + two63 +
                "), ('ssm', 1, 0, " + two63 + ", " + two63 + ")]");
  EXPECT_EQ(eval("kda_state_shape " + two64 + " " + two64 + " " + two64),
            "(" + BigInt(3 * pow2(64)).str() + ", 1, " + pow2(128).str() + ")");
  EXPECT_EQ(eval("mamba1_state_served 0 1 " + two64 + " " + two64 + " 1"),
            "ValueError: state served by prefill_tp_rank 0 has " + two64 +
                " elements, more than the model lists (1048576)");
}

// int16 and int64 give cpp_int's outcome on each operation at their edges.
TEST(State, NarrowModelsAgreeWithCppIntAtTheEdges) {
  const std::vector<std::pair<std::string, std::vector<std::int64_t>>> calls = {
      {"mamba2_state_shape", {1, 182, 182, 1, 182}},
      {"mamba2_segments", {1, 2, 182, 182, 182, 182}},
      {"mamba2_state_plan", {181, 182, 182, 182, 181, 182, 181}},
      {"mamba2_state_served", {0, 182, 1, 182, 32767, 1, 32767}},
      {"gdn_state_shape", {1, 32767, 32767, 32767, 32767}},
      {"gdn_state_plan", {0, 16384, 1, 16384, 2, 16384, 2}},
      {"kda_state_plan", {32766, 32767, 32767, 32767, 32767}},
      {"kda_segments", {32766, 32767, 32767, 32767}},
      {"mamba1_state_served", {0, 1, 16384, 16384, 3}},
      {"mamba1_state_plan", {16383, 1, 16384, 16384, 32767}},
      {"state_pairing", {32767, 32767, 1, 1, 2, 2}},
  };
  for (const auto& [name, args] : calls) {
    const std::size_t op = *operation_index(name);
    std::vector<std::int16_t> narrow(args.begin(), args.end());
    EXPECT_TRUE(narrow_agrees_with_cpp_int<std::int16_t>(op, narrow)) << narrow_disagreement<std::int16_t>(op, narrow);
    std::vector<std::int64_t> wide(args.begin(), args.end());
    EXPECT_TRUE(narrow_agrees_with_cpp_int<std::int64_t>(op, wide)) << narrow_disagreement<std::int64_t>(op, wide);
  }
  EXPECT_EQ(eval_in("mamba2_state_shape 1 182 182 1 182", ModelType::Int16), "(33488, 182, 33124)");
}

// ---- the typed API: ownership helpers -------------------------------------------------

TYPED_TEST(State, OwnershipStartsAndWidths) {
  using Int = TypeParam;
  const Outcome<RankState<Int>> s = state_ownership<Int>(Int(2), dims<Int>(StateFamily::Mamba2, {8, 2, 1, 3}));
  ASSERT_TRUE(s.ok());
  const RankState<Int>& r = s.value();
  ASSERT_EQ(r.segments().size(), 3u);
  EXPECT_EQ(render(r.start(Int(1), 0)), "8");
  EXPECT_EQ(render(r.start(Int(1), 1)), "0");  // replicated
  EXPECT_EQ(render(r.conv[2].loc), "11");
  EXPECT_EQ(render(r.c_loc), "14");
  EXPECT_EQ(render(r.first_head(Int(1))), "4");
  EXPECT_EQ(failure_text(state_ownership<Int>(Int(0), dims<Int>(StateFamily::Kda, {1, 1}))),
            "ValueError: tp_size 0 must be positive");
}

// ---- §16.3 bytes ----------------------------------------------------------------------------

template <class Int>
SideBytes<Int> side(StateFamily f, std::initializer_list<Int> v, const Int& T, ConvOrder order,
                    StateContainer container, const Int& L, const Int& e_conv, const Int& e_ssm = Int(4)) {
  const Outcome<RankState<Int>> s = state_ownership<Int>(T, dims<Int>(f, v));
  EXPECT_TRUE(s.ok());
  const Outcome<SideBytes<Int>> b = side_bytes<Int>(s.value(), order, container, L, e_conv, e_ssm);
  EXPECT_TRUE(b.ok());
  return b.value();
}

template <class Int>
std::vector<std::string> segment_runs(const SideBytes<Int>& s, std::size_t segment) {
  std::vector<std::string> out;
  for_each_segment_run(s, segment, [&](const auto& first, const auto& end) {
    out.push_back("[" + render(first) + ", " + render(end) + ")");
  });
  return out;
}

// The conv runs (src, dst, len) of decode rank d's plan between two sides.
template <class Int>
std::string conv_runs(const Int& d, const Int& P, const Int& D, const StateDims<Int>& dims, const SideBytes<Int>& sender,
                      const SideBytes<Int>& receiver) {
  std::string out;
  const auto plan = state_plan<Int>(d, P, D, dims);
  for (const StateCopy<Int>& c : plan.value()) {
    for_each_copy_run(c, sender, receiver, [&](const ByteRun<Int>& r) {
      if (r.part == StatePart::Conv) {
        out += std::string(out.empty() ? "" : ", ") + "(" + render(r.src) + ", " + render(r.dst) + ", " +
               render(r.length) + ")";
      }
      return true;
    });
  }
  return out;
}

TYPED_TEST(State, DimFirstPageKnownBytes) {
  using Int = TypeParam;
  const auto prefill = side<Int>(StateFamily::Mamba2, {48, 64, 1, 128}, 1, ConvOrder::DimFirst,
                                 StateContainer::VllmPage, 3, 2);
  const auto decode = side<Int>(StateFamily::Mamba2, {48, 64, 1, 128}, 2, ConvOrder::DimFirst,
                                StateContainer::VllmPage, 3, 2);
  EXPECT_EQ(segment_runs(prefill, 0), std::vector<std::string>{"[0, 18432)"});
  EXPECT_EQ(segment_runs(prefill, 1), std::vector<std::string>{"[18432, 19200)"});
  EXPECT_EQ(segment_runs(prefill, 2), std::vector<std::string>{"[19200, 19968)"});
  EXPECT_EQ(render(prefill.ssm_offset()), "19968");
  // Decode rank 1 gets B into [9216, 9984) and C into [9984, 10752).
  const auto d = dims<Int>(StateFamily::Mamba2, {48, 64, 1, 128});
  const auto plan = state_plan<Int>(Int(1), Int(1), Int(2), d);
  for (const StateCopy<Int>& c : plan.value()) {
    for_each_copy_run(c, prefill, decode, [&](const ByteRun<Int>& r) {
      const std::string name = c.name;
      if (name == "B") {
        EXPECT_EQ(render(r.dst) + " " + render(r.length), "9216 768");
      } else if (name == "C") {
        EXPECT_EQ(render(r.dst) + " " + render(r.length), "9984 768");
      } else if (name == "ssm") {
        EXPECT_EQ(render(r.dst), render(decode.ssm_offset()));
      }
      return true;
    });
  }
}

TYPED_TEST(State, SglangConvRunsKnownValues) {
  using Int = TypeParam;
  const auto m = dims<Int>(StateFamily::Mamba2, {4, 1, 2, 1});
  const auto m1 = side<Int>(StateFamily::Mamba2, {4, 1, 2, 1}, 1, ConvOrder::DimFirst, StateContainer::SglangPool, 1, 2);
  const auto m2 = side<Int>(StateFamily::Mamba2, {4, 1, 2, 1}, 2, ConvOrder::DimFirst, StateContainer::SglangPool, 1, 2);
  EXPECT_EQ(conv_runs<Int>(0, 1, 2, m, m1, m2), "(0, 0, 4), (8, 4, 2), (12, 6, 2)");
  const auto g = dims<Int>(StateFamily::Gdn, {2, 1, 2, 1});
  const auto g1 = side<Int>(StateFamily::Gdn, {2, 1, 2, 1}, 1, ConvOrder::DimFirst, StateContainer::SglangPool, 1, 2);
  const auto g2 = side<Int>(StateFamily::Gdn, {2, 1, 2, 1}, 2, ConvOrder::DimFirst, StateContainer::SglangPool, 1, 2);
  EXPECT_EQ(conv_runs<Int>(0, 1, 2, g, g1, g2), "(0, 0, 2), (4, 2, 2), (8, 4, 2)");
  EXPECT_EQ(conv_runs<Int>(1, 1, 2, g, g1, g2), "(2, 0, 2), (6, 2, 2), (10, 4, 2)");
  // The pool: every layer's conv entry, then every layer's temporal one; an SSM copy from 0 of its item.
  EXPECT_EQ(render(sglang_entry<Int>(StatePart::Conv, 1, 3)), "1");
  EXPECT_EQ(render(sglang_entry<Int>(StatePart::Ssm, 1, 3)), "4");
  EXPECT_EQ(render(sglang_item_length(m2, StatePart::Conv)), "8");
  EXPECT_EQ(render(sglang_item_length(m2, StatePart::Ssm)), "8");  // 2 heads of 1 element of 4 bytes
  EXPECT_EQ(render(m2.ssm_offset()), "0");
}

TYPED_TEST(State, StateFirstPageKnownBytes) {
  using Int = TypeParam;
  const auto prefill = side<Int>(StateFamily::Mamba2, {48, 64, 1, 128}, 1, ConvOrder::StateFirst,
                                 StateContainer::VllmPage, 3, 2);
  const auto decode = side<Int>(StateFamily::Mamba2, {48, 64, 1, 128}, 2, ConvOrder::StateFirst,
                                StateContainer::VllmPage, 3, 2);
  EXPECT_EQ(segment_runs(prefill, 1), (std::vector<std::string>{"[6144, 6400)", "[12800, 13056)", "[19456, 19712)"}));
  EXPECT_EQ(segment_runs(decode, 1), (std::vector<std::string>{"[3072, 3328)", "[6656, 6912)", "[10240, 10496)"}));
  // The copy of B to decode rank 1: a run per row, into those bytes.
  const auto d = dims<Int>(StateFamily::Mamba2, {48, 64, 1, 128});
  std::vector<std::string> rows;
  const auto plan = state_plan<Int>(Int(1), Int(1), Int(2), d);
  for (const StateCopy<Int>& c : plan.value()) {
    if (std::string(c.name) != "B") continue;
    for_each_copy_run(c, prefill, decode, [&](const ByteRun<Int>& r) {
      rows.push_back(render(r.src) + "->" + render(r.dst) + " " + render(r.length));
      return true;
    });
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"6144->3072 256", "12800->6656 256", "19456->10240 256"}));
}

// Mixed layouts: a run per element; the element map is still the copy's.
TYPED_TEST(State, MixedLayoutsMoveElementByElement) {
  using Int = TypeParam;
  const auto ds = side<Int>(StateFamily::Kda, {2, 1}, 1, ConvOrder::DimFirst, StateContainer::VllmPage, 2, 2);
  const auto sd = side<Int>(StateFamily::Kda, {2, 1}, 1, ConvOrder::StateFirst, StateContainer::VllmPage, 2, 2);
  const StateCopy<Int> k{1, "k", 0, 2, 2, 2};
  std::vector<std::string> runs;
  for_each_copy_run(k, ds, sd, [&](const ByteRun<Int>& r) {
    runs.push_back(render(r.src) + "->" + render(r.dst) + " " + render(r.length));
    return true;
  });
  // DS channel 2 rows 0, 1 at 8, 10; channel 3 at 12, 14. SD row 0 at (0*6 + c)*2, row 1 at (6 + c)*2.
  EXPECT_EQ(runs, (std::vector<std::string>{"8->4 2", "10->16 2", "12->6 2", "14->18 2"}));
}

TYPED_TEST(State, DecodingEachByteOfAPage) {
  using Int = TypeParam;
  const Outcome<RankState<Int>> s = state_ownership<Int>(Int(2), dims<Int>(StateFamily::Mamba2, {48, 64, 1, 128}));
  const Outcome<SideBytes<Int>> page =
      side_bytes<Int>(s.value(), ConvOrder::DimFirst, StateContainer::VllmPage, Int(3), Int(2), Int(4), 10752 + 786432 + 64);
  ASSERT_TRUE(page.ok());
  using U = units_t<Int>;
  // Rank 1's B is replicated: local channel 1537 is B's logical channel 1.
  EXPECT_EQ(decode_page_byte<Int>(page.value(), 1, U(9216 + 7)), (StateByte<Int>{StatePart::Conv, 1, 1, 0, 1}));
  // x is sharded: local channel 0 of rank 1 is logical channel 1536.
  EXPECT_EQ(decode_page_byte<Int>(page.value(), 1, U(5)), (StateByte<Int>{StatePart::Conv, 0, 1536, 2, 1}));
  // The SSM state follows: rank 1's local head 1 is head 25; its element 2, byte 3.
  EXPECT_EQ(decode_page_byte<Int>(page.value(), 1, U(10752 + 8192 * 4 + 2 * 4 + 3)),
            (StateByte<Int>{StatePart::Ssm, 3, 25, 2, 3}));
  // Then padding.
  EXPECT_EQ(decode_page_byte<Int>(page.value(), 1, U(10752 + 786432 + 5)), (StateByte<Int>{StatePart::Padding, 0, 5, 0, 0}));
  EXPECT_EQ(render(page.value().page_bytes), "797248");
  // A stride shorter than the state, and bad element sizes.
  EXPECT_EQ(failure_text(side_bytes<Int>(s.value(), ConvOrder::DimFirst, StateContainer::VllmPage, Int(3), Int(2), Int(4), 100)),
            "ValueError: vLLM page of 100 bytes is smaller than its state's 797184");
  EXPECT_EQ(failure_text(side_bytes<Int>(s.value(), ConvOrder::DimFirst, StateContainer::VllmPage, Int(0), Int(2), Int(4))),
            "ValueError: conv window length 0 must be positive");
  EXPECT_EQ(failure_text(side_bytes<Int>(s.value(), ConvOrder::DimFirst, StateContainer::VllmPage, Int(3), Int(-2), Int(4))),
            "ValueError: conv element size -2 must be positive");
  EXPECT_EQ(failure_text(side_bytes<Int>(s.value(), ConvOrder::DimFirst, StateContainer::VllmPage, Int(3), Int(2), Int(0))),
            "ValueError: SSM element size 0 must be positive");
}

// Older KDA under SD: one (L, w) tensor per segment, back to back.
TYPED_TEST(State, OlderKdaFourTensorForm) {
  using Int = TypeParam;
  const auto old = side<Int>(StateFamily::Kda, {2, 2}, 1, ConvOrder::SegmentsStateFirst, StateContainer::VllmPage, 3, 2);
  using U = units_t<Int>;
  // k's local channel 1, row 2: (4 * 3 + 2 * 4 + 1) * 2.
  EXPECT_EQ(render(conv_byte_at<Int>(old, 1, U(1), 2, 0)), "42");
  EXPECT_EQ(decode_conv_byte<Int>(old, 0, U(43)), (StateByte<Int>{StatePart::Conv, 1, 1, 2, 1}));
  EXPECT_EQ(segment_runs(old, 2), (std::vector<std::string>{"[48, 56)", "[56, 64)", "[64, 72)"}));
}

// A side whose bytes do not fit the model's type is refused, naming it.
TEST(State, BytesPastInt64AreRefusedInInt64Only) {
  const Outcome<RankState<std::int64_t>> s =
      state_ownership<std::int64_t>(1, dims<std::int64_t>(StateFamily::Mamba1, {kMax, 1}));
  EXPECT_EQ(failure_text(side_bytes<std::int64_t>(s.value(), ConvOrder::DimFirst, StateContainer::VllmPage, kMax, kMax, 1)),
            "ValueError: state bytes of tp_size 1 do not fit in int64");
  const Outcome<RankState<BigInt>> big = state_ownership<BigInt>(1, dims<BigInt>(StateFamily::Mamba1, {kMax, 1}));
  const Outcome<SideBytes<BigInt>> b =
      side_bytes<BigInt>(big.value(), ConvOrder::DimFirst, StateContainer::VllmPage, kMax, kMax, 1);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(render(b.value().conv_bytes), (BigInt(kMax) * kMax * kMax).str());
}

}  // namespace
}  // namespace tpcheck::test
