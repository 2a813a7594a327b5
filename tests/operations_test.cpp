// The operations table behind `tpcheck eval`: names and argument orders, one
// known value per operation, usage errors (arity, unknown name, bad integers,
// MLA not 0/1), and dispatch to int64 or cpp_int by argument size.
#include <string>
#include <vector>

#include "model_test_support.hpp"
#include "tpcheck/operations.hpp"

namespace tpcheck::test {
namespace {

// The rendered outcome, or "usage: <message>" when the call itself is wrong.
std::string run(std::string_view op, const std::vector<std::string>& args) {
  const Evaluation e = evaluate(op, args);
  return e.ok ? e.text : "usage: " + e.text;
}

std::string run_line(std::string_view line) {
  const Evaluation e = evaluate_line(line);
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
                        "heads r T H",
                        "kv_heads_guard L R H MLA",
                        "kv_heads_guard_strict L R H MLA",
                        "plan d P D H MLA",
                        "readers p P D H MLA",
                        "single_readers p P D",
                        "port_offset DP_RANK TP_RANK TP_SIZE",
                        "host_index q T HOSTS",
                    }));
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
    const std::vector<std::string> too_many(info.params.size() + 1, "1");
    EXPECT_FALSE(evaluate(info.name, too_many).ok) << info.name;
    const std::vector<std::string> too_few(info.params.size() - 1, "1");
    EXPECT_FALSE(evaluate(info.name, too_few).ok) << info.name;
    const std::vector<std::string> exact(info.params.size(), "1");
    EXPECT_TRUE(evaluate(info.name, exact).ok) << info.name;  // all ones: every operation has an outcome
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
  EXPECT_EQ(run_line("tp_ratio 4 6"), "AssertionError: Remote tensor parallel size 6 is not divisible by local tensor parallel size 4.");
}

TEST(Operations, EvaluateLineUsageErrorsProjectText) {
  EXPECT_EQ(run_line(""), "usage: empty line: expected OP ARGS...");
  EXPECT_EQ(run_line("   \t "), "usage: empty line: expected OP ARGS...");
  EXPECT_EQ(run_line("remote_rank 5 8"), "usage: usage: remote_rank r L R (3 arguments, got 2)");
  EXPECT_EQ(run_line("nope 1 2"), "usage: unknown operation 'nope'");
}

}  // namespace
}  // namespace tpcheck::test
