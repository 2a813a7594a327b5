// The encoding is the model: every encoded operation, evaluated by Z3 on the
// registry's inputs for it (sweep_inputs.hpp; the term with the values
// substituted, then simplified), gives the cpp_int model's outcome: the same value, or the same error kind
// and message. A proof about terms that differ from the model would prove
// nothing; this is what ties them.
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <set>
#include <sstream>

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
  std::set<std::string> failures_seen;  // "Kind: message" as text_form gives it: which texts were reached
};

// A failure's text with every integer in it as "#": the same for every
// arguments of one message, and different for two messages (mamba1's and
// mamba2's dims differ after their names' digits).
std::string text_form(const std::string& failure) {
  std::string out;
  for (std::size_t i = 0; i < failure.size();) {
    const bool minus = failure[i] == '-' && i + 1 < failure.size() && std::isdigit(static_cast<unsigned char>(failure[i + 1]));
    if (!minus && !std::isdigit(static_cast<unsigned char>(failure[i]))) {
      out += failure[i++];
      continue;
    }
    out += '#';
    for (i += minus ? 2 : 1; i < failure.size() && std::isdigit(static_cast<unsigned char>(failure[i]));) ++i;
  }
  return out;
}

bool is_failure(const std::optional<std::string>& outcome) {
  return outcome && outcome->find("Error: ") != std::string::npos;
}

// A domain of more than kThinnedAbove cases (the recurrent state's plans have
// 400 000 at this bound, 2% of them valid: 15 minutes of Z3 substitutions) is
// thinned: an even stride through the cases where the model succeeds and
// another through those where it fails, kKeptPerOutcome of each, and the
// first case of every failure text. The far values are always run.
constexpr std::size_t kThinnedAbove = 20000;
constexpr std::size_t kKeptPerOutcome = 3000;

std::vector<Args> differential_inputs(std::string_view op) {
  SweepInputs in = sweep_inputs(op, kBounds);
  std::vector<Args> out;
  if (in.domain.size() <= kThinnedAbove) {
    out = std::move(in.domain);
  } else {
    std::vector<std::size_t> values, failures;
    std::set<std::string> texts;
    for (std::size_t i = 0; i < in.domain.size(); ++i) {
      const std::optional<std::string> model = model_outcome(op, in.domain[i]);
      if (is_failure(model) && texts.insert(text_form(*model)).second) {
        out.push_back(in.domain[i]);
        continue;
      }
      (is_failure(model) ? failures : values).push_back(i);
    }
    for (const std::vector<std::size_t>* cases : {&values, &failures}) {
      const std::size_t stride = std::max<std::size_t>(1, (cases->size() + kKeptPerOutcome - 1) / kKeptPerOutcome);
      for (std::size_t k = 0; k < cases->size(); k += stride) out.push_back(std::move(in.domain[(*cases)[k]]));
    }
  }
  for (Args& a : in.far) out.push_back(std::move(a));
  return out;
}

// Runs one encoded operation on its differential inputs against the model
// (up to the first mismatch, when asked).
Tally run_differential(const EncodedOperation& op, Fault fault = Fault::None, bool first_mismatch = false) {
  z3::context c;
  const Encoding enc(c, fault);
  const std::vector<z3::expr> params = parameter_constants(c, op);
  const OperationTerm term = op.build(enc, params);
  Tally t;
  for (const Args& args : differential_inputs(op.name)) {
    z3::expr_vector from(c), to(c);
    for (std::size_t i = 0; i < params.size(); ++i) {
      from.push_back(params[i]);
      to.push_back(params[i].is_bool() ? c.bool_val(args[i] != 0) : c.int_val(decimal(args[i]).c_str()));
    }
    const Evaluator substituted = [&](const z3::expr& e) { return z3::expr(e).substitute(from, to).simplify(); };
    const std::optional<std::string> encoded = render_outcome(op, term, substituted, std::size_t(1) << 21);
    const std::optional<std::string> model = model_outcome(op.name, args);
    ++t.cases;
    if (model && !is_failure(model)) ++t.values;
    if (is_failure(model)) t.failures_seen.insert(text_form(*model));
    if (encoded && model && *encoded == *model) continue;
    std::string call = std::string(op.name);
    for (const BigInt& a : args) call += " " + decimal(a);
    t.mismatches.push_back(call + ": encoding " + encoded.value_or("(not a constant)") + ", model " +
                           model.value_or("(no such function)"));
    if (first_mismatch) break;
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
    for (const Args& args : differential_inputs(op.name)) {
      const std::optional<std::string> model = model_outcome(op.name, args);
      if (is_failure(model)) failures_seen.insert(text_form(*model));
    }
  }
  for (const MessageInfo& info : message_infos()) {
    const std::string text = text_form(render_failure(info, std::vector<BigInt>(kMessageArgs, BigInt(7))));
    EXPECT_TRUE(failures_seen.count(text)) << "no input reached " << text;
  }
}

TEST(Differential, EveryEncodedOperationHasAModelCounterpartAndInputs) {
  for (const EncodedOperation& op : encoded_operations()) {
    EXPECT_FALSE(sweep_inputs(op.name, kBounds).domain.empty()) << op.name;
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

// The same for the recurrent state: B and C, replicated on the prefill side,
// sliced as if sharded (the first mismatch is enough: the state plan's
// inputs are the slowest to evaluate).
TEST(Differential, CatchesAFaultPlantedInTheStatePlan) {
  const Tally t = run_differential(*encoded_operation("mamba2_state_plan"), Fault::ReplicatedSegmentSliced, true);
  ASSERT_EQ(t.mismatches.size(), 1u);
  const std::string& m = t.mismatches.front();
  std::cout << "  " << m << "\n";
  // mamba2_state_plan d P D H PH G N: the mismatch is where B and C are replicated on the prefill side.
  std::istringstream call(m.substr(0, m.find(':')));
  std::string op;
  long long d = 0, P = 0, D = 0, H = 0, PH = 0, G = 0;
  call >> op >> d >> P >> D >> H >> PH >> G;
  EXPECT_EQ(op, "mamba2_state_plan");
  EXPECT_EQ(G, 1) << m;
  EXPECT_GT(P, 1) << m;
  EXPECT_NE(m.find("model [('x'"), std::string::npos) << m;
}

}  // namespace
}  // namespace tpcheck::prove::test
