// A fault planted in the encoding (the window of R > L one rank too long; a
// state segment replicated on the prefill side sliced as if sharded) must
// give a counterexample that is a real violation: the same fault planted in
// the C++ model's window breaks the invariant on exactly those inputs (the
// faulty plan is not the model's), while the unmodified model satisfies the
// invariant's predicate there.
//
// The model's own faults are not switched on here (they are built as patched
// copies of the tree, scripts/mutants): the fault is planted on the model's
// output instead, by the same rule as in the encoding (Fault in encoding.hpp).
#include <gtest/gtest.h>

#include <iostream>
#include <map>

#include "tpcheck/invariants.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/operations.hpp"
#include "tpcheck/prove/runner.hpp"
#include "tpcheck/registry.hpp"
#include "tpcheck/render.hpp"

namespace tpcheck::prove::test {
namespace {

// The planted fault, on the model's side: window_span of R > L ends one rank late.
Span<BigInt> window_one_rank_too_long(const Span<BigInt>& s, const BigInt& L, const BigInt& R) {
  return R > L ? Span<BigInt>{s.first, s.end + 1} : s;
}

// The first goal of `invariant` whose claim contains `claim`, proved with the
// fault planted in the encoding.
GoalResult prove_with_fault(std::string_view invariant, std::string_view claim,
                            Fault fault = Fault::WindowOneRankTooLong) {
  z3::context c;
  const Encoding faulty(c, fault);
  if (const InvariantGoals* proof = goals_of(invariant)) {
    for (const Goal& goal : proof->goals(faulty)) {
      if (goal.claim.find(claim) != std::string::npos) return prove_goal(faulty, goal, 60);
    }
  }
  ADD_FAILURE() << "no goal of " << invariant << " claims " << claim;
  return {};
}

// The inputs of the goal's counterexample, printed as `tpcheck prove` prints them.
std::map<std::string, BigInt> inputs_of(const GoalResult& g) {
  std::cout << "  counterexample to \"" << g.claim << "\":";
  for (const auto& [name, value] : g.counterexample->inputs) std::cout << " " << name << "=" << value;
  std::cout << "\n";
  for (const std::string& call : g.counterexample->calls) std::cout << "    " << call << "\n";
  std::map<std::string, BigInt> out;
  for (const auto& [name, value] : g.counterexample->inputs) out[name] = *parse_decimal(value);
  return out;
}

std::string eval_line(const char* op, const std::vector<BigInt>& args) {
  std::vector<std::string> words;
  for (const BigInt& a : args) words.push_back(decimal(a));
  const std::vector<std::string_view> views(words.begin(), words.end());
  std::string text;
  evaluate(op, views, ModelType::Auto, text);
  return text;
}

TEST(PlantedFault, WindowTooLongBreaksMappedRankStaysInBoundsInTheModelToo) {
  const GoalResult g = prove_with_fault("MappedRankStaysInBounds", "window(r, L, R) is a non-empty part");
  ASSERT_EQ(g.verdict, Verdict::Refuted) << g.claim << ": " << g.reason;
  ASSERT_TRUE(g.counterexample);
  auto in = inputs_of(g);
  const BigInt r = in["r"], L = in["L"], R = in["R"];
  ASSERT_GT(R, L) << "the fault only bites where the remote side is larger";

  // The unmodified model satisfies the invariant on these inputs...
  EXPECT_TRUE(inv::mapped_rank_in_bounds(r, L, R).held());
  // ...and the model with the fault breaks it: max(1, R // L) ranks inside [0, R).
  const Outcome<Span<BigInt>> span = window_span(r, L, R);
  ASSERT_TRUE(span.ok());
  const Span<BigInt> faulted = window_one_rank_too_long(span.value(), L, R);
  const BigInt expected_size = std::max(BigInt(1), tpcheck::floor_div<BigInt>(R, L));
  EXPECT_NE(faulted.end - faulted.first, expected_size);
  // The counterexample prints the faulty encoding's window in `tpcheck eval`
  // notation: exactly the faulted model's, one rank longer than eval's.
  std::string faulted_list = "[";
  for (BigInt q = faulted.first; q < faulted.end; ++q) faulted_list += (q == faulted.first ? "" : ", ") + decimal(q);
  faulted_list += "]";
  const std::string line = "tpcheck eval window " + decimal(r) + " " + decimal(L) + " " + decimal(R);
  ASSERT_EQ(g.counterexample->calls.size(), 1u);
  EXPECT_EQ(g.counterexample->calls[0], line + "  ->  " + faulted_list + "  (encoding)");
  EXPECT_NE(eval_line("window", {r, L, R}), faulted_list);
}

TEST(PlantedFault, WindowTooLongBreaksWindowsAreDualInTheModelToo) {
  const GoalResult g = prove_with_fault("WindowsAreDual", "R > L");
  ASSERT_EQ(g.verdict, Verdict::Refuted) << g.claim << ": " << g.reason;
  auto in = inputs_of(g);
  const BigInt r = in["r"], L = in["L"], R = in["R"], q = in["q"];

  EXPECT_TRUE(inv::windows_are_dual(r, L, R).held());  // the unmodified model holds
  const Outcome<Span<BigInt>> span = window_span(r, L, R);
  ASSERT_TRUE(span.ok());
  const Span<BigInt> faulted = window_one_rank_too_long(span.value(), L, R);
  // q is in the faulted window of r (and only there: it is the extra rank)...
  EXPECT_TRUE(faulted.first <= q && q < faulted.end);
  EXPECT_FALSE(span.value().first <= q && q < span.value().end);
  // ...but the model's window of q, back on the other side, does not hold r.
  const Outcome<Span<BigInt>> back = window_span(q, R, L);
  EXPECT_FALSE(back.ok() && back.value().first <= r && r < back.value().end) << "window " << q << " " << R << " " << L
                                                                             << " = " << render(back);
}

// The state plan's fault: B and C, replicated on the prefill side, sliced as
// if sharded there (what a connector that moves the state as one block does).
constexpr const char* kSlicedGoal =
    "reads the logical units it writes (mamba2, D >= P, B and C replicated on the prefill side)";

TEST(PlantedFault, SlicedReplicatedSegmentBreaksStatePlanReadsOnlyWhatTheSourceHoldsInTheModelToo) {
  const GoalResult g =
      prove_with_fault("StatePlanReadsOnlyWhatTheSourceHolds", kSlicedGoal, Fault::ReplicatedSegmentSliced);
  ASSERT_EQ(g.verdict, Verdict::Refuted) << g.claim << ": " << g.reason;
  ASSERT_TRUE(g.counterexample);
  auto in = inputs_of(g);
  const BigInt d = in["d"], P = in["P"], D = in["D"], H = in["H"], PH = in["PH"], G = in["G"], N = in["N"];
  ASSERT_EQ(G, 1) << "the fault only bites where B and C are replicated";
  ASSERT_GT(P, 1);
  // The unmodified model satisfies the invariant on these inputs (the
  // registry's check, its domain's values in order: family, P, D, dims, d)...
  const inv::Entry* entry = inv::find_entry("StatePlanReadsOnlyWhatTheSourceHolds");
  ASSERT_NE(entry, nullptr);
  const std::vector<BigInt> values = {BigInt(static_cast<int>(StateFamily::Mamba2)), P, D, H, PH, G, N, d};
  inv::KindMask kinds = 0;
  EXPECT_TRUE(entry->check(0, values.data(), &kinds).held());
  // ...and the counterexample shows the faulty encoding's plan, which is not `tpcheck eval`'s.
  const std::string line = "tpcheck eval mamba2_state_plan " + decimal(d) + " " + decimal(P) + " " + decimal(D) + " " +
                           decimal(H) + " " + decimal(PH) + " " + decimal(G) + " " + decimal(N);
  ASSERT_EQ(g.counterexample->calls.size(), 1u);
  const std::string& shown = g.counterexample->calls[0];
  ASSERT_EQ(shown.rfind(line + "  ->  ", 0), 0u) << shown;
  const std::string faulted = shown.substr(line.size() + 6, shown.size() - line.size() - 6 - std::string("  (encoding)").size());
  EXPECT_NE(eval_line("mamba2_state_plan", {d, P, D, H, PH, G, N}), faulted);
}

TEST(PlantedFault, WithoutTheFaultBothGoalsAreProved) {
  z3::context c;
  const Encoding sound(c);
  for (const char* invariant : {"MappedRankStaysInBounds", "WindowsAreDual"}) {
    const InvariantGoals* proof = goals_of(invariant);
    ASSERT_NE(proof, nullptr) << invariant;
    for (const Goal& goal : proof->goals(sound)) {
      if (goal.claim.find("window") == std::string::npos) continue;
      EXPECT_EQ(prove_goal(sound, goal, 60).verdict, Verdict::Proved) << goal.claim;
    }
  }
  std::size_t sliced = 0;
  for (const Goal& goal : goals_of("StatePlanReadsOnlyWhatTheSourceHolds")->goals(sound)) {
    if (goal.claim.find(kSlicedGoal) == std::string::npos) continue;
    ++sliced;
    EXPECT_EQ(prove_goal(sound, goal, 120).verdict, Verdict::Proved) << goal.claim;
  }
  EXPECT_EQ(sliced, 1u);
}

}  // namespace
}  // namespace tpcheck::prove::test
