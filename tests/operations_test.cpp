// The operations table behind `tpcheck eval`: names and argument orders, one
// known value per operation, usage errors (arity, unknown name, bad integers,
// MLA not 0/1), and dispatch to int64 or cpp_int by argument size.
#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model_test_support.hpp"
#include "tpcheck/domain.hpp"
#include "tpcheck/operation_domains.hpp"
#include "tpcheck/operations.hpp"
#include "tpcheck/render.hpp"
#include "tpcheck/state.hpp"

namespace tpcheck::test {
namespace {

// What `tpcheck eval` prints for a call: ok and the outcome, or the usage error.
struct Evaluated {
  bool ok;
  std::string text;
};

Evaluated eval_words(std::string_view op, const std::vector<std::string>& args, ModelType type = ModelType::Auto) {
  const std::vector<std::string_view> views(args.begin(), args.end());
  Evaluated e{};
  e.ok = evaluate(op, views, type, e.text);
  return e;
}

// The rendered outcome, or "usage: <message>" when the call itself is wrong.
std::string run(std::string_view op, const std::vector<std::string>& args) {
  const Evaluated e = eval_words(op, args);
  return e.ok ? e.text : "usage: " + e.text;
}

std::string run_line(std::string_view line) {
  Evaluated e{};
  e.ok = evaluate_line(line, ModelType::Auto, e.text);
  return e.ok ? e.text : "usage: " + e.text;
}

TEST(Operations, NamesAndArgumentOrdersAsTheIssueLists) {
  std::vector<std::string> listed;
  for (const OperationInfo& info : operation_infos()) {
    std::string line(info.name);
    for (auto p : info.params) line += " " + std::string(p);
    listed.push_back(line);
  }
  EXPECT_EQ(listed, (std::vector<std::string>{
                        "remote_rank r L R",
                        "general_rank r L R",
                        "tp_ratio L R",
                        "window r L R",
                        "window_span r L R",
                        "heads r T H",
                        "holders h T H",
                        "head_compatible T H",
                        "kv_heads_guard L R H MLA",
                        "kv_heads_guard_strict L R H MLA",
                        "plan d P D H MLA",
                        "plan_copy_count d P D H MLA",
                        "single_source_plan d P D H MLA",
                        "readers p P D H MLA",
                        "single_readers p P D",
                        "sglang_target_ranks d P D",
                        "prefill_stages s PREFILL_PP_LAYERS DECODE_PP_LAYERS",
                        "decode_stages u PREFILL_PP_LAYERS DECODE_PP_LAYERS",
                        "stage_window s d c P D PREFILL_PP_LAYERS DECODE_PP_LAYERS PREFILL_ADP DECODE_ADP",
                        "stage_window_spans s d c P D PREFILL_PP_LAYERS DECODE_PP_LAYERS PREFILL_ADP DECODE_ADP",
                        "stage_served u p g P D PREFILL_PP_LAYERS DECODE_PP_LAYERS PREFILL_ADP DECODE_ADP",
                        "stage_served_spans u p g P D PREFILL_PP_LAYERS DECODE_PP_LAYERS PREFILL_ADP DECODE_ADP",
                        "stage_plan s d c P D H MLA PREFILL_PP_LAYERS DECODE_PP_LAYERS PREFILL_ADP DECODE_ADP",
                        "duplicate_head_factors P D H MLA PREFILL_ADP DECODE_ADP",
                        "whole_block_copy_allowed P D H MLA PREFILL_ADP DECODE_ADP",
                        "port_offset DP_RANK TP_RANK TP_SIZE",
                        "host_index q T HOSTS",
                        "port_range BASE DP_SIZE TP_SIZE",
                        "moriio_accepts P D H MLA",
                        "nixl_accepts P D H MLA",
                        "mooncake_accepts P D H MLA",
                        "sglang_accepts P D H MLA",
                        "trtllm_accepts P D H MLA PREFILL_ADP DECODE_ADP",
                        "trtllm-v2_accepts P D H MLA PREFILL_ADP DECODE_ADP",
                        "general_accepts P D H MLA",
                        "mamba2_state_shape T H PH G N",
                        "mamba2_segments r T H PH G N",
                        "mamba2_state_plan d P D H PH G N",
                        "mamba2_state_served p P D H PH G N",
                        "gdn_state_shape T HK DK HV DV",
                        "gdn_segments r T HK DK HV DV",
                        "gdn_state_plan d P D HK DK HV DV",
                        "gdn_state_served p P D HK DK HV DV",
                        "kda_state_shape T H DH",
                        "kda_segments r T H DH",
                        "kda_state_plan d P D H DH",
                        "kda_state_served p P D H DH",
                        "mamba1_state_shape T I N",
                        "mamba1_segments r T I N",
                        "mamba1_state_plan d P D I N",
                        "mamba1_state_served p P D I N",
                        "state_pairing LP LD ECP ECD ESP ESD",
                    }));
}

// The parameters eval's options give: a TRT-LLM deployment's stage splits and
// attention-DP flags, by name.
TEST(Operations, StageSplitsAndAttentionDpComeFromEvalOptions) {
  for (const OperationInfo& info : operation_infos()) {
    for (const Param& p : info.params) {
      const bool option = p.name.ends_with("_PP_LAYERS") || p.name.ends_with("_ADP");
      EXPECT_EQ(from_eval_options(p), option) << info.name << " " << p.name;
    }
  }
}

// Every bounded parameter names a parameter of the right role, so an engine
// can give a rank the values of its size.
TEST(Operations, EveryBoundedParameterNamesItsBound) {
  std::size_t splits_sharing_a_total = 0;
  for (const OperationInfo& info : operation_infos()) {
    for (const Param& p : info.params) {
      const bool bounded = p.role == Role::Rank || p.role == Role::HeadIndex || p.role == Role::HostCount ||
                           p.role == Role::Stage || p.role == Role::DpGroup;
      // A split may share the total of the split it names (the decode side's),
      // a decode window length or element size is paired with the prefill one.
      const bool paired = p.role == Role::StageSplit || p.role == Role::ConvWindow || p.role == Role::ElementSize;
      if (paired && p.of >= 0) {
        splits_sharing_a_total += p.role == Role::StageSplit;
        EXPECT_EQ(info.params[static_cast<std::size_t>(p.of)].role, p.role) << info.name;
        EXPECT_LT(p.of, &p - info.params.data()) << info.name;
        continue;
      }
      // A state dim names its family and its place in the family's DIMS.
      EXPECT_EQ(p.role == Role::StateDim, p.family >= 0 && p.dim >= 0) << info.name << " " << p.name;
      if (p.role == Role::StateDim) {
        const auto family = static_cast<StateFamily>(p.family);
        EXPECT_TRUE(info.name.starts_with(state_family_name(family))) << info.name;
        EXPECT_EQ(state_dim_names(family)[static_cast<std::size_t>(p.dim)], p.name) << info.name;
      }
      EXPECT_EQ(bounded, p.of >= 0) << info.name << " " << p.name;
      EXPECT_EQ(p.role == Role::DpGroup, p.given >= 0) << info.name << " " << p.name;
      if (!bounded) continue;
      ASSERT_LT(static_cast<std::size_t>(p.of), info.params.size()) << info.name << " " << p.name;
      const Role bound = info.params[static_cast<std::size_t>(p.of)].role;
      const Role expected = p.role == Role::HeadIndex ? Role::HeadCount : p.role == Role::Stage ? Role::StageSplit : Role::Size;
      EXPECT_EQ(bound, expected) << info.name << " " << p.name;
      if (p.role == Role::DpGroup) {
        EXPECT_EQ(info.params[static_cast<std::size_t>(p.given)].role, Role::AttentionDp) << info.name << " " << p.name;
      }
    }
  }
  EXPECT_GT(splits_sharing_a_total, 0u);
}

TEST(Operations, OperationIndexFindsEveryNameAndNothingElse) {
  const auto& infos = operation_infos();
  for (std::size_t i = 0; i < infos.size(); ++i) EXPECT_EQ(operation_index(infos[i].name), std::optional(i));
  EXPECT_EQ(operation_index("remote_ranks"), std::nullopt);
  EXPECT_EQ(operation_index(""), std::nullopt);
  EXPECT_EQ(operation_index("REMOTE_RANK"), std::nullopt);
}

TEST(Operations, EveryOperationGivesTheSpecValue) {
  EXPECT_EQ(run("remote_rank", {"5", "8", "4"}), "2");
  EXPECT_EQ(run("general_rank", {"2", "4", "6"}), "3");
  EXPECT_EQ(run("tp_ratio", {"4", "8"}), "-2");
  EXPECT_EQ(run("window", {"0", "2", "4"}), "[0, 1]");
  EXPECT_EQ(run("heads", {"1", "4", "8"}), "(2, 4)");
  EXPECT_EQ(run("kv_heads_guard", {"2", "4", "4", "1"}), "None");
  EXPECT_EQ(run("kv_heads_guard_strict", {"0", "0", "5", "0"}), "ValueError: TP sizes and total_num_kv_heads must be positive");
  EXPECT_EQ(run("plan", {"1", "4", "6", "12", "0"}), "[(0, 2, 3), (1, 3, 4)]");
  EXPECT_EQ(run("readers", {"1", "4", "2", "2", "0"}), "0");
  EXPECT_EQ(run("single_readers", {"3", "4", "2"}), "0");
  EXPECT_EQ(run("port_offset", {"3", "5", "16"}), "53");
  EXPECT_EQ(run("host_index", {"5", "8", "2"}), "1");
  EXPECT_EQ(run("window_span", {"0", "2", "4"}), "(0, 2)");
  EXPECT_EQ(run("holders", {"1", "8", "4"}), "(2, 4)");
  EXPECT_EQ(run("head_compatible", {"6", "4"}), "False");
  EXPECT_EQ(run("plan_copy_count", {"1", "4", "6", "12", "0"}), "2");
  EXPECT_EQ(run("single_source_plan", {"1", "4", "2", "2", "0"}), "[(2, 1, 2)]");
  EXPECT_EQ(run("port_range", {"65535", "1", "1"}), "None");
  EXPECT_EQ(run("moriio_accepts", {"4", "8", "4", "0"}), "None");
  EXPECT_EQ(run("general_accepts", {"4", "6", "2", "0"}), "None");
}

// head_compatible is total: a non-positive size or head count shards nothing
// (it used to divide by zero on H = 0).
// failure_in asks an operation for its failure alone, which a listing
// operation answers without its list (state_plan by its copy count,
// state_served by its span, stage_plan by its copy count): on every case of
// every operation's domain at a small bound, it fails exactly where the
// operation does, with the same failure.
TEST(Operations, TheFailureAloneIsTheFailureOfTheOutcome) {
  const auto is_failure_text = [](const std::string& text) {
    for (const ErrorKind k : {ErrorKind::ValueError, ErrorKind::NotImplementedError, ErrorKind::AssertionError}) {
      if (text.starts_with(std::string(kind_name(k)) + ": ")) return true;
    }
    return false;
  };
  const std::vector<dom::OperationDomain>& domains = dom::operation_domains();
  ASSERT_EQ(domains.size(), operation_infos().size());
  for (std::size_t op = 0; op < domains.size(); ++op) {
    std::int64_t failing = 0, succeeding = 0;
    dom::for_each_case(domains[op].domain, dom::Bound{6, 8}, [&](const std::int64_t* values) {
      std::vector<std::int64_t> args;
      for (const int at : domains[op].position) args.push_back(values[at]);
      const std::optional<Failure> failed = failure_in<std::int64_t>(op, args);
      const std::string outcome = evaluate_in<std::int64_t>(op, args);
      if (failed) {
        ++failing;
        EXPECT_EQ(outcome, render(*failed)) << operation_infos()[op].name;
      } else {
        ++succeeding;
        EXPECT_FALSE(is_failure_text(outcome)) << operation_infos()[op].name << ": " << outcome;
      }
    });
    EXPECT_GT(failing + succeeding, 0) << operation_infos()[op].name;
    EXPECT_GT(succeeding, 0) << operation_infos()[op].name;
  }
}

TEST(Operations, HeadCompatibleIsFalseOnNonPositiveInputProject) {
  EXPECT_EQ(run("head_compatible", {"4", "0"}), "False");
  EXPECT_EQ(run("head_compatible", {"0", "4"}), "False");
  EXPECT_EQ(run("head_compatible", {"-4", "-2"}), "False");
  EXPECT_EQ(run("head_compatible", {"4", "1"}), "True");
}

// --model picks the instantiation; an argument that does not fit is a usage error.
TEST(Operations, ModelTypeIsChosenOrAutoProject) {
  EXPECT_EQ(eval_words("port_offset", {"200", "5", "256"}, ModelType::Int16).text, "51205");
  EXPECT_EQ(eval_words("general_rank", {"200", "256", "256"}, ModelType::Int16).text, "200");
  const Evaluated too_wide = eval_words("tp_ratio", {"32768", "1"}, ModelType::Int16);
  EXPECT_FALSE(too_wide.ok);
  EXPECT_EQ(too_wide.text, "argument L = 32768 does not fit in int16");
  EXPECT_FALSE(eval_words("tp_ratio", {"9223372036854775808", "1"}, ModelType::Int64).ok);
  EXPECT_EQ(eval_words("tp_ratio", {"1", "9223372036854775808"}, ModelType::CppInt).text, "-9223372036854775808");
  EXPECT_EQ(model_type_named("int16"), ModelType::Int16);
  EXPECT_EQ(model_type_named("int32"), std::nullopt);
}

// The narrow models agree with cpp_int as values; a report says how they differ.
TEST(Operations, NarrowModelsAgreeWithCppIntAndSayNothingElse) {
  const std::size_t offset = *operation_index("port_offset");
  const std::int16_t near_edge[] = {200, 5, 256};  // 200 * 256 + 5 passes 2^15
  EXPECT_TRUE(narrow_agrees_with_cpp_int<std::int16_t>(offset, near_edge));
  EXPECT_EQ(narrow_disagreement<std::int16_t>(offset, near_edge), "");
  const std::int64_t far[] = {kMax, kMax - 1, kMax};
  EXPECT_TRUE(narrow_agrees_with_cpp_int<std::int64_t>(offset, far));
  const std::size_t accepts = *operation_index("nixl_accepts");
  const std::int16_t sizing[] = {4, 6, 2, 0};
  EXPECT_TRUE(narrow_agrees_with_cpp_int<std::int16_t>(accepts, sizing));
}

TEST(Operations, EveryOperationGivesTheSpecErrorText) {
  EXPECT_EQ(run("remote_rank", {"0", "4", "6"}),
            "ValueError: remote tp_size 6 must be a multiple of local tp_size 4 for heterogeneous-TP P/D");
  EXPECT_EQ(run("general_rank", {"-1", "0", "6"}), "ValueError: TP sizes must be positive");
  EXPECT_EQ(run("tp_ratio", {"6", "4"}),
            "AssertionError: Local tensor parallel size 6 is not divisible by remote tensor parallel size 4.");
  EXPECT_EQ(run("window", {"0", "4", "6"}),
            "AssertionError: Remote tensor parallel size 6 is not divisible by local tensor parallel size 4.");
  EXPECT_EQ(run("kv_heads_guard", {"4", "2", "4", "0"}),
            "NotImplementedError: MoRIIO heterogeneous TP requires replicated KV heads on both prefill and decode. "
            "Got total_num_kv_heads=4, local_tp_size=4, remote_tp_size=2.");
  EXPECT_EQ(run("single_readers", {"0", "4", "6"}),
            "ValueError: consumer tp_size 6 must be a multiple of producer tp_size 4 for heterogeneous-TP P/D");
  EXPECT_EQ(run("port_offset", {"0", "0", "0"}), "ValueError: tp_size must be positive");
}

TEST(Operations, MlaFlagAcceptsZeroAndOne) {
  EXPECT_EQ(run("kv_heads_guard", {"2", "4", "4", "0"}),
            "NotImplementedError: MoRIIO heterogeneous TP requires replicated KV heads on both prefill and decode. "
            "Got total_num_kv_heads=4, local_tp_size=2, remote_tp_size=4.");
  EXPECT_EQ(run("kv_heads_guard", {"2", "4", "4", "1"}), "None");
  EXPECT_EQ(run("plan", {"5", "4", "6", "7", "1"}), "[(3, 0, 1)]");
  EXPECT_EQ(run("readers", {"0", "4", "6", "2", "1"}), "2");
}

// Usage errors are the project's texts (the SPEC only asks for one line).
TEST(Operations, MlaOtherThanZeroOrOneIsAUsageErrorProjectText) {
  EXPECT_EQ(run("plan", {"0", "4", "4", "4", "2"}), "usage: argument MLA of plan must be 0 or 1, got '2'");
  EXPECT_EQ(run("kv_heads_guard", {"4", "4", "4", "-1"}), "usage: argument MLA of kv_heads_guard must be 0 or 1, got '-1'");
  EXPECT_EQ(run("kv_heads_guard_strict", {"4", "4", "4", "18446744073709551617"}),
            "usage: argument MLA of kv_heads_guard_strict must be 0 or 1, got '18446744073709551617'");
  EXPECT_EQ(run("readers", {"0", "4", "4", "4", "true"}),
            "usage: argument MLA of readers is not a decimal integer of at most 4300 digits: 'true'");
}

TEST(Operations, WrongArityIsAUsageErrorProjectText) {
  EXPECT_EQ(run("remote_rank", {"5", "8"}), "usage: usage: remote_rank r L R (3 arguments, got 2)");
  EXPECT_EQ(run("tp_ratio", {}), "usage: usage: tp_ratio L R (2 arguments, got 0)");
  EXPECT_EQ(run("plan", {"0", "4", "4", "4", "0", "0"}), "usage: usage: plan d P D H MLA (5 arguments, got 6)");
  EXPECT_EQ(run("port_offset", {"0", "7"}), "usage: usage: port_offset DP_RANK TP_RANK TP_SIZE (3 arguments, got 2)");
}

TEST(Operations, ArityOfEveryOperation) {
  for (const OperationInfo& info : operation_infos()) {
    // The call's words are the parameters eval's options do not give.
    const auto words = static_cast<std::size_t>(
        std::count_if(info.params.begin(), info.params.end(), [](const Param& p) { return !from_eval_options(p); }));
    const std::vector<std::string> too_many(words + 1, "1");
    EXPECT_FALSE(eval_words(info.name, too_many).ok) << info.name;
    const std::vector<std::string> too_few(words - 1, "1");
    EXPECT_FALSE(eval_words(info.name, too_few).ok) << info.name;
    const std::vector<std::string> exact(words, "1");
    EXPECT_TRUE(eval_words(info.name, exact).ok) << info.name;  // all ones: every operation has an outcome
  }
}

TEST(Operations, UnknownOperationAndBadIntegersAreUsageErrorsProjectText) {
  EXPECT_EQ(run("remote", {"1"}), "usage: unknown operation 'remote'");
  EXPECT_EQ(run("remote_rank", {"5", "8", "four"}),
            "usage: argument R of remote_rank is not a decimal integer of at most 4300 digits: 'four'");
  EXPECT_EQ(run("heads", {"0x1", "4", "4"}),
            "usage: argument r of heads is not a decimal integer of at most 4300 digits: '0x1'");
  EXPECT_EQ(run("tp_ratio", {"4", ""}), "usage: argument R of tp_ratio is not a decimal integer of at most 4300 digits: ''");
  EXPECT_EQ(run("tp_ratio", {"1.5", "x"}),  // the first bad argument is named
            "usage: argument L of tp_ratio is not a decimal integer of at most 4300 digits: '1.5'");
  EXPECT_EQ(run("tp_ratio", {std::string(4301, '1'), "1"}),
            "usage: argument L of tp_ratio is not a decimal integer of at most 4300 digits: '" + std::string(4301, '1') + "'");
}

TEST(Operations, ArgumentsInPythonSpelling) {
  EXPECT_EQ(run("remote_rank", {"+5", "008", "04"}), "2");
  EXPECT_EQ(run("remote_rank", {"-0", "4", "4"}), "0");
  EXPECT_EQ(run("tp_ratio", {std::string(4300, '9'), "1"}), std::string(4300, '9'));
}

TEST(Operations, Int64ExtremesStayExact) {
  EXPECT_EQ(run("general_rank", {"9223372036854775806", "9223372036854775807", "9223372036854775806"}), "9223372036854775805");
  EXPECT_EQ(run("port_offset", {"9223372036854775807", "9223372036854775806", "9223372036854775807"}),
            "85070591730234615856620279821087277055");
  EXPECT_EQ(run("remote_rank", {"-9223372036854775808", "4", "4"}),
            "ValueError: local_tp_rank -9223372036854775808 must be in [0, 4)");
  EXPECT_EQ(run("tp_ratio", {"1", "9223372036854775807"}), "-9223372036854775807");
}

TEST(Operations, BeyondInt64GoesThroughCppInt) {
  EXPECT_EQ(run("tp_ratio", {"1", "9223372036854775808"}), "-9223372036854775808");
  EXPECT_EQ(run("remote_rank", {"-9223372036854775809", "4", "4"}),
            "ValueError: local_tp_rank -9223372036854775809 must be in [0, 4)");
  EXPECT_EQ(run("remote_rank", {"18446744073709551615", "18446744073709551616", "36893488147419103232"}),
            "36893488147419103230");
  EXPECT_EQ(run("window", {"18446744073709551615", "18446744073709551616", "73786976294838206464"}),
            "[73786976294838206460, 73786976294838206461, 73786976294838206462, 73786976294838206463]");
  EXPECT_EQ(run("heads", {"0", "1", "1267650600228229401496703205376"}), "(0, 1267650600228229401496703205376)");
  EXPECT_EQ(run("plan", {"0", "1", "1", "1267650600228229401496703205376", "0"}),
            "[(0, 0, 1267650600228229401496703205376)]");
  EXPECT_EQ(run("single_readers", {"0", "18446744073709551616", "1180591620717411303424"}), "64");
  EXPECT_EQ(run("port_offset", {"18446744073709551616", "1", "18446744073709551616"}),
            "340282366920938463463374607431768211457");
  // One big argument moves the whole call to cpp_int; small ones keep their values.
  EXPECT_EQ(run("host_index", {"5", "8", "18446744073709551616"}), "5");
  EXPECT_EQ(run("kv_heads_guard", {"18446744073709551616", "18446744073709551616", "-5", "0"}), "None");
}

TEST(Operations, Int64AndCppIntEntryPointsAgree) {
  const auto op = operation_index("plan");
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(evaluate_int64(*op, {1, 4, 6, 12, 0}), "[(0, 2, 3), (1, 3, 4)]");
  EXPECT_EQ(evaluate_big(*op, {1, 4, 6, 12, 0}), "[(0, 2, 3), (1, 3, 4)]");
  const auto ratio = operation_index("tp_ratio");
  ASSERT_TRUE(ratio.has_value());
  EXPECT_EQ(evaluate_int64(*ratio, {kMin, 1}), "ValueError: local tp_size -9223372036854775808 must be positive");
  EXPECT_EQ(evaluate_big(*ratio, {pow2(64), 1}), "18446744073709551616");
}

TEST(Operations, EvaluateLineSplitsOnWhitespace) {
  EXPECT_EQ(run_line("remote_rank 5 8 4"), "2");
  EXPECT_EQ(run_line("  remote_rank\t5   8 4  "), "2");
  EXPECT_EQ(run_line("remote_rank 5 8 4\r"), "2");  // a CRLF line
  // Every separator of `istream >> word` in the C locale, and nothing else:
  // a non-breaking space (0xA0) is part of a word.
  EXPECT_EQ(run_line("\vremote_rank\f5\n8\r\t4 "), "2");
  EXPECT_EQ(run_line("remote_rank 5 8\xa0" "4"), "usage: usage: remote_rank r L R (3 arguments, got 2)");
  EXPECT_EQ(run_line("tp_ratio 4 6"), "AssertionError: Remote tensor parallel size 6 is not divisible by local tensor parallel size 4.");
}

TEST(Operations, EvaluateLineUsageErrorsProjectText) {
  EXPECT_EQ(run_line(""), "usage: empty line: expected OP ARGS...");
  EXPECT_EQ(run_line("   \t "), "usage: empty line: expected OP ARGS...");
  EXPECT_EQ(run_line("remote_rank 5 8"), "usage: usage: remote_rank r L R (3 arguments, got 2)");
  EXPECT_EQ(run_line("nope 1 2"), "usage: unknown operation 'nope'");
  // The line keeps only as many words as an operation takes, plus one, but
  // counts them all.
  EXPECT_EQ(run_line("remote_rank 1 2 3 4 5 6 7 8 9 10 11 12"), "usage: usage: remote_rank r L R (3 arguments, got 12)");
  EXPECT_EQ(run_line("plan 0 4 4 4 0 x y z w v u t s"), "usage: usage: plan d P D H MLA (5 arguments, got 13)");
}

// A line and its words are one parser, and the buffer a caller reuses
// (`eval --batch`, fuzz_eval_line) holds exactly the latest call's text, call
// after call: outcomes, usage errors, and "does not fit" errors, long and short.
TEST(Operations, LineAndWordsAreOneParserIntoAReusedBuffer) {
  const std::vector<std::string> lines = {
      "remote_rank 5 8 4", "tp_ratio 4 6", "nope 1 2", "", "remote_rank 5", "plan 0 4 4 4 2",
      "tp_ratio 1 " + std::string(30, '9'), "heads 0x1 4 4", "window 0 4 2", "remote_rank 1 2 3 4 5 6 7 8 9 10"};
  std::string text = "what the buffer held before";
  for (const ModelType type : {ModelType::Auto, ModelType::Int16, ModelType::Int64, ModelType::CppInt}) {
    for (const std::string& line : lines) {
      std::string fresh;
      const bool ok = evaluate_line(line, type, fresh);
      EXPECT_FALSE(fresh.empty()) << line;
      EXPECT_EQ(evaluate_line(line, type, text), ok) << line;
      EXPECT_EQ(text, fresh) << line;
      std::vector<std::string_view> words;
      for (std::size_t at = 0; at < line.size();) {
        const std::size_t end = std::min(line.find(' ', at), line.size());
        if (end > at) words.emplace_back(line.data() + at, end - at);
        at = end + 1;
      }
      if (words.empty()) continue;
      const auto args = std::span<const std::string_view>(words).subspan(1);
      EXPECT_EQ(evaluate(words.front(), args, type, text), ok) << line;
      EXPECT_EQ(text, fresh) << line;
    }
  }
  // Every kind of text was met: an outcome, a usage error, an int16 misfit.
  EXPECT_TRUE(evaluate_line("remote_rank 5 8 4", ModelType::Int16, text));
  EXPECT_FALSE(evaluate_line("nope 1 2", ModelType::Auto, text));
  EXPECT_EQ(text, "unknown operation 'nope'");
  EXPECT_FALSE(evaluate_line("tp_ratio 40000 1", ModelType::Int16, text));
  EXPECT_EQ(text, "argument L = 40000 does not fit in int16");
}

}  // namespace
}  // namespace tpcheck::test
