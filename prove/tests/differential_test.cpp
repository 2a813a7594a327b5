// The encoding is the model: every encoded operation, evaluated by Z3 on the
// registry's inputs for it (sweep_inputs.hpp; the term with the values
// substituted, then simplified), gives the cpp_int model's outcome: the same value, or the same error kind
// and message. A proof about terms that differ from the model would prove
// nothing; this is what ties them.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "model_outcomes.hpp"
#include "sweep_inputs.hpp"
#include "tpcheck/prove/operations.hpp"

namespace tpcheck::prove::test {
namespace {

// The bound of `tpcheck verify`'s CTest run is 24 ranks and 48 heads; this
// one keeps the Z3 evaluations to a few seconds.
constexpr dom::Bound kBounds{10, 20};

struct Tally {
  std::size_t cases = 0;
  std::size_t values = 0;  // cases where the model returned a value
  std::vector<std::string> mismatches;
  std::set<std::string> failures_seen;  // "Kind: message" up to the first digit: which texts were reached
};

// Runs one encoded operation on every input against the model.
Tally run_differential(const EncodedOperation& op, Fault fault = Fault::None) {
  z3::context c;
  const Encoding enc(c, fault);
  const std::vector<z3::expr> params = parameter_constants(c, op);
  const OperationTerm term = op.build(enc, params);
  Tally t;
  for (const Args& args : sweep_inputs(op.name, kBounds)) {
    z3::expr_vector from(c), to(c);
    for (std::size_t i = 0; i < params.size(); ++i) {
      from.push_back(params[i]);
      to.push_back(params[i].is_bool() ? c.bool_val(args[i] != 0) : c.int_val(decimal(args[i]).c_str()));
    }
    const Evaluator substituted = [&](const z3::expr& e) { return z3::expr(e).substitute(from, to).simplify(); };
    const std::optional<std::string> encoded = render_outcome(op, term, substituted, std::size_t(1) << 21);
    const std::optional<std::string> model = model_outcome(op.name, args);
    ++t.cases;
    if (model && model->find("Error: ") == std::string::npos) ++t.values;
    if (model && model->find("Error: ") != std::string::npos) {
      t.failures_seen.insert(model->substr(0, model->find_first_of("-0123456789")));
    }
    if (encoded && model && *encoded == *model) continue;
    std::string call = std::string(op.name);
    for (const BigInt& a : args) call += " " + decimal(a);
    t.mismatches.push_back(call + ": encoding " + encoded.value_or("(not a constant)") + ", model " +
                           model.value_or("(no such function)"));
  }
  return t;
}

// One test per operation, so that CTest runs them side by side: together they
// are the slowest tests of the tree, and one test for all kept a core idle.
std::vector<std::string> operation_names() {
  std::vector<std::string> names;
  for (const EncodedOperation& op : encoded_operations()) names.emplace_back(op.name);
  return names;
}

class EncodedOperationTest : public ::testing::TestWithParam<std::string> {};

TEST_P(EncodedOperationTest, GivesTheModelsOutcomeOnTheSweepsInputs) {
  const EncodedOperation& op = *encoded_operation(GetParam());
  const Tally t = run_differential(op);
  std::cout << "  " << op.name << ": " << t.cases << " cases, " << t.values << " values, " << t.failures_seen.size()
            << " failure texts, " << t.mismatches.size() << " mismatches\n";
  // The operation reached both outcomes it has (None-valued checks and
  // head_compatible always return a value on their domain).
  EXPECT_GT(t.values, 0u);
  if (op.name != "head_compatible") {
    EXPECT_GT(t.cases, t.values);
  }
  for (std::size_t i = 0; i < t.mismatches.size() && i < 5; ++i) ADD_FAILURE() << t.mismatches[i];
  EXPECT_EQ(t.mismatches.size(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Differential, EncodedOperationTest, ::testing::ValuesIn(operation_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// Every failure text of the catalogue is reached by some operation's inputs,
// so the comparisons above met every text (the model alone answers this: the
// per-operation tests show the encoding gives the model's outcome on them).
TEST(Differential, TheSweepsInputsReachEveryFailureText) {
  std::set<std::string> failures_seen;
  for (const EncodedOperation& op : encoded_operations()) {
    for (const Args& args : sweep_inputs(op.name, kBounds)) {
      const std::optional<std::string> model = model_outcome(op.name, args);
      if (model && model->find("Error: ") != std::string::npos) {
        failures_seen.insert(model->substr(0, model->find_first_of("-0123456789")));
      }
    }
  }
  for (const MessageInfo& info : message_infos()) {
    const std::string rendered = render_failure(info, {BigInt(7), BigInt(7), BigInt(7)});
    const std::string prefix = rendered.substr(0, rendered.find_first_of("-0123456789"));
    EXPECT_TRUE(failures_seen.count(prefix)) << "no input reached " << prefix;
  }
}

TEST(Differential, EveryEncodedOperationHasAModelCounterpartAndInputs) {
  for (const EncodedOperation& op : encoded_operations()) {
    EXPECT_FALSE(sweep_inputs(op.name, kBounds).empty()) << op.name;
    const std::vector<BigInt> ones(op.params.size(), BigInt(1));  // valid for every operation
    EXPECT_TRUE(model_outcome(op.name, ones).has_value()) << op.name;
  }
}

TEST(Differential, MessageNumbersFollowTheCatalogue) {
  for (std::size_t i = 0; i < message_infos().size(); ++i) {
    EXPECT_EQ(static_cast<int>(message_infos()[i].id), static_cast<int>(i + 1));
    EXPECT_EQ(message_info(static_cast<int>(i + 1)), &message_infos()[i]);
  }
}

// The differential is not vacuous: a fault planted in the encoding shows.
TEST(Differential, CatchesAFaultPlantedInTheEncoding) {
  const Tally t = run_differential(*encoded_operation("window"), Fault::WindowOneRankTooLong);
  ASSERT_FALSE(t.mismatches.empty());
  EXPECT_NE(t.mismatches.front().find("window 0 1 2: encoding [0, 1, 2], model [0, 1]"), std::string::npos)
      << t.mismatches.front();
}

}  // namespace
}  // namespace tpcheck::prove::test
