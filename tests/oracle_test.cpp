// The error oracle (tpcheck/oracle.hpp): every model operation has one, it
// states the SPEC's examples as the SPEC does, and it is not vacuous: an
// oracle that disagrees with the model (a text with the other size, a check
// moved) is a violation naming the call, what it gave and what was due.
#include <gtest/gtest.h>

#include <array>
#include <set>
#include <string>
#include <vector>

#include "tpcheck/operations.hpp"
#include "tpcheck/oracle.hpp"
#include "tpcheck/registry.hpp"
#include "tpcheck/render.hpp"
#include "tpcheck/stages.hpp"

namespace tpcheck::test {
namespace {

using namespace oracle;

// Every operation `tpcheck eval` knows, each once: one added to lib/ without
// an oracle fails here until its preconditions are declared
// (properties/src/preconditions_*.cpp).
TEST(Oracle, EveryOperationHasExactlyOne) {
  std::set<std::string> operations;
  for (const Oracle* o : oracles()) {
    EXPECT_TRUE(operations.insert(o->operation).second) << "two oracles for " << o->operation;
    const inv::Entry* e = inv::find_entry(o->entry);
    ASSERT_NE(e, nullptr) << o->entry << " is not on the registry";
    EXPECT_EQ(e->family, inv::Family::Errors) << o->entry;
    EXPECT_EQ(e->kinds.size(), o->kinds.size()) << o->entry;
  }
  for (const OperationInfo& op : operation_infos()) {
    EXPECT_TRUE(operations.count(std::string(op.name))) << op.name << " has no error oracle";
  }
  EXPECT_EQ(operations.size(), operation_infos().size());
}

template <class... Args>
std::array<std::int64_t, sizeof...(Args)> args(Args... a) {
  return {static_cast<std::int64_t>(a)...};
}

// SPEC §1: (5, 4, 6) fails on the rank (checked before divisibility),
// (-1, 0, 6) on the sizes, (0, 4, 6) and (0, 6, 4) on divisibility.
TEST(Oracle, StatesTheSpecsPrecedenceForTheStrictMap) {
  const Oracle& o = *oracle_of_operation("remote_rank");
  const auto first = [&](auto a) { return o.preconditions[first_failing(o, a.data())].label; };
  EXPECT_EQ(first(args(5, 4, 6)), "rank out of range");
  EXPECT_EQ(first(args(-1, 0, 6)), "sizes not positive");
  EXPECT_EQ(first(args(0, 4, 6)), "remote larger, not a multiple");
  EXPECT_EQ(first(args(0, 6, 4)), "local larger, not a multiple");
  EXPECT_EQ(first_failing(o, args(3, 4, 8).data()), o.preconditions.size());
  const auto a = args(5, 4, 6);
  EXPECT_EQ(render(expected_failure(o, 1, a.data())), "ValueError: local_tp_rank 5 must be in [0, 4)");
}

TEST(Oracle, StatesTheWindowsPrecedenceAndItsListingLimit) {
  const Oracle& o = *oracle_of_operation("window");
  const auto due = [&](auto a) { return render(expected_failure(o, first_failing(o, a.data()), a.data())); };
  EXPECT_EQ(due(args(5, 4, 6)), "ValueError: local_tp_rank 5 must be in [0, 4)");
  EXPECT_EQ(due(args(1, 4, 6)), "AssertionError: Remote tensor parallel size 6 is not divisible by local tensor "
                                "parallel size 4.");
  EXPECT_EQ(due(args(0, 1, 1048577)),
            "ValueError: window of local_tp_rank 0 has 1048577 elements, more than the model lists (1048576)");
  EXPECT_EQ(first_failing(o, args(0, 1, 1048576).data()), o.preconditions.size());
}

// The cpp_int model's values beyond 64 bits, in the texts too.
TEST(Oracle, SpellsValuesBeyond64Bits) {
  const Oracle& o = *oracle_of_operation("remote_rank");
  const BigInt L = BigInt(1) << 70;
  const std::array<BigInt, 3> a = {L, L, BigInt(3) * L};
  EXPECT_EQ(render(expected_failure(o, first_failing(o, a.data()), a.data())),
            "ValueError: local_tp_rank 1180591620717411303424 must be in [0, 1180591620717411303424)");
  EXPECT_TRUE(judge_call(o, a.data()).held());
}

// The oracle judges: a wrong text or a wrong order is a violation that names
// the call, what the model gave and the precondition that was due.
TEST(Oracle, AWrongTextIsAViolation) {
  const Oracle wrong_size = make_oracle("WindowWithTheRemoteSize", "§3", "window(r, L, R)", [](auto r, auto L, auto) {
    return preconditions(
        fails_if("rank out of range", r < 0 || r >= L, value_error("local_tp_rank {r} must be in [0, {R})")));
  });
  const auto a = args(5, 4, 6);
  const inv::Verdict v = judge_call(wrong_size, a.data());
  ASSERT_TRUE(v.is_violated());
  EXPECT_EQ(v.message(), "window(5, 4, 6) gave ValueError: local_tp_rank 5 must be in [0, 4), expected ValueError: "
                         "local_tp_rank 5 must be in [0, 6) (the first precondition that fails: rank out of range)");
}

TEST(Oracle, AMovedCheckIsAViolation) {
  const Oracle moved = make_oracle("Moved", "§1", "remote_rank(r, L, R)", [](auto r, auto L, auto R) {
    return preconditions(fails_if("remote larger, not a multiple", R > L && R % L != 0,
                                  value_error("remote tp_size {R} must be a multiple of local tp_size {L} for "
                                              "heterogeneous-TP P/D")),
                         fails_if("rank out of range", r < 0 || r >= L, value_error("local_tp_rank {r} must be in [0, {L})")));
  });
  const auto a = args(5, 4, 6);
  const inv::Verdict v = judge_call(moved, a.data());
  ASSERT_TRUE(v.is_violated());
  EXPECT_NE(v.message().find("expected ValueError: remote tp_size 6 must be a multiple"), std::string::npos)
      << v.message();
  const auto valid = args(1, 4, 8);
  EXPECT_TRUE(judge_call(moved, valid.data()).held());
  // Where no precondition fails the model must succeed.
  const Oracle never = make_oracle("Never", "§1", "remote_rank(r, L, R)", [](auto, auto, auto) { return preconditions(); });
  const inv::Verdict failed = judge_call(never, a.data());
  ASSERT_TRUE(failed.is_violated());
  EXPECT_EQ(failed.message(), "remote_rank(5, 4, 6) gave ValueError: local_tp_rank 5 must be in [0, 4), but every "
                              "precondition of the SPEC holds: it must succeed");
}

// A condition that divides by a value no earlier precondition kept from zero
// is the oracle's mistake, reported as such, never undefined behaviour.
TEST(Oracle, ADivisionByZeroIsReported) {
  const Oracle careless = make_oracle("Careless", "§3", "tp_ratio(L, R)", [](auto L, auto R) {
    return preconditions(fails_if("not divisible", L % R != 0, assertion_error("x")));
  });
  const auto a = args(4, 0);
  const inv::Verdict v = judge_call(careless, a.data());
  ASSERT_TRUE(v.is_violated());
  EXPECT_NE(v.message().find("divides by zero"), std::string::npos) << v.message();
}

// Terms are Python's integers at any size: int64 where every step fits, 128
// bits or cpp_int where one does not.
TEST(Oracle, TermsAreEvaluatedWithoutOverflow) {
  const Oracle products = make_oracle("Products", "§8", "port_range(base, dp_size, tp_size)", [](auto base, auto dp, auto tp) {
    return preconditions(fails_if("last port past 65535", base + dp * tp - 1 > 65535,
                                  value_error("ports {base}..{last} exceed 65535").where("last", base + dp * tp - 1)));
  });
  const std::int64_t big = std::int64_t{1} << 62;
  const auto a = args(1, big, big);
  EXPECT_EQ(first_failing(products, a.data()), 0U);
  EXPECT_EQ(render(expected_failure(products, 0, a.data())), "ValueError: ports 1..21267647932558653966460912964485513216 exceed 65535");
  const std::array<BigInt, 3> huge = {BigInt(1), BigInt(1) << 200, BigInt(1) << 200};
  EXPECT_EQ(first_failing(products, huge.data()), 0U);
  const auto fits = args(1, 2, 8);
  EXPECT_EQ(first_failing(products, fits.data()), 1U);
}

// A stage split's code (stages.hpp) decoded by the oracle's own terms: [2, 1]
// is 18, [1, 1] is 10, [0, 2] is 12, [1, 0] is 5, [0] is 1, 0 the empty list
// and a negative code the one stage of that count.
TEST(Oracle, DecodesStageSplitsFromTheirCodes) {
  const terms::Parameter<0> code;
  const terms::Parameter<1> index;
  const auto at = [](const auto& term, std::int64_t c, std::int64_t i = 0) {
    const std::array<std::int64_t, 2> v = {c, i};
    return terms::Arguments<std::int64_t>(v.data(), v.size()).value(term);
  };
  for (const auto& [c, stages, short_stage] : std::vector<std::array<std::int64_t, 3>>{
           {0, 0, -1}, {-3, 1, 0}, {1, 1, 0}, {2, 1, -1}, {18, 2, -1}, {10, 2, -1}, {12, 2, 0}, {5, 2, 1}}) {
    EXPECT_EQ(at(stage_count(code), c), stages) << c;
    EXPECT_EQ(at(first_short_stage(code), c), short_stage) << c;
  }
  EXPECT_EQ(at(stage_layers(code, index), 18, 0), 2);
  EXPECT_EQ(at(stage_layers(code, index), 18, 1), 1);
  EXPECT_EQ(at(stage_layers(code, index), 18, 2), 0);
  EXPECT_EQ(at(stage_layers(code, index), 12, 1), 2);
  EXPECT_EQ(at(stage_layers(code, index), -3, 0), -3);
  EXPECT_EQ(at(stage_start(code, index), 18, 0), 0);
  EXPECT_EQ(at(stage_start(code, index), 18, 1), 2);
  EXPECT_EQ(at(stage_start(code, index), 18, 2), 3);
  EXPECT_EQ(at(stage_start(code, index), -3, 1), -3);
  EXPECT_EQ(at(stage_of_layer(code, index), 18, 1), 0);
  EXPECT_EQ(at(stage_of_layer(code, index), 18, 2), 1);
  EXPECT_EQ(at(stage_of_layer(code, index), 10, 1), 1);
  // 150 stages of one layer: a code of 300 bits, in cpp_int.
  const std::vector<BigInt> ones(150, BigInt(1));
  const std::array<BigInt, 2> v = {code_of_split(ones), BigInt(149)};
  const terms::Arguments<BigInt> big(v.data(), v.size());
  EXPECT_EQ(big.value(stage_count(code)), 150);
  EXPECT_EQ(big.value(stage_start(code, stage_count(code))), 150);
  EXPECT_EQ(big.value(stage_of_layer(code, index)), 149);
  EXPECT_EQ(big.value(first_short_stage(code)), -1);
  for (const std::int64_t n : {1, 2, 64, 1 << 20}) EXPECT_EQ(at(is_power_of_two(code), n), 1) << n;
  for (const std::int64_t n : {0, 3, 6, -4, 96}) EXPECT_EQ(at(is_power_of_two(code), n), 0) << n;
}

TEST(Oracle, RejectsADeclarationThatDoesNotFitItsOperation) {
  const auto none = [](auto, auto, auto) { return preconditions(); };
  EXPECT_THROW(make_oracle("X", "§1", "no_such_operation(a, b, c)", none), std::invalid_argument);
  EXPECT_THROW(make_oracle("X", "§1", "remote_rank(r, L)", none), std::invalid_argument);
  EXPECT_THROW(make_oracle("X", "§1", "remote_rank(r, R, L)", none), std::invalid_argument);
  EXPECT_THROW(make_oracle("X", "§1", "tp_ratio(L, R)", none), std::invalid_argument);  // three terms, two parameters
  EXPECT_THROW(make_oracle("X", "§1", "remote_rank(r, L, R)",
                           [](auto r, auto, auto) {
                             return preconditions(fails_if("x", r < 0, value_error("names {nobody}")));
                           }),
               std::invalid_argument);
}

// What `tpcheck verify --list` and the documentation show: the SPEC's order,
// in Python's notation.
TEST(Oracle, DescribesItselfAsTheSpecReads) {
  EXPECT_EQ(describe(*oracle_of_operation("remote_rank")),
            "remote_rank(r, L, R)  §1, first failure wins:\n"
            "  1. L <= 0 or R <= 0  ->  ValueError(\"TP sizes must be positive\")\n"
            "  2. r < 0 or r >= L  ->  ValueError(\"local_tp_rank {r} must be in [0, {L})\")\n"
            "  3. R > L and R % L != 0  ->  ValueError(\"remote tp_size {R} must be a multiple of local tp_size {L} "
            "for heterogeneous-TP P/D\")\n"
            "  4. L > R and L % R != 0  ->  ValueError(\"local tp_size {L} must be a multiple of remote tp_size {R} "
            "for heterogeneous-TP P/D\")\n"
            "  otherwise it succeeds\n");
}

}  // namespace
}  // namespace tpcheck::test
