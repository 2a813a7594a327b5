// §7, §9.4 and §9.8: who waits for how many completions. Each check, and its
// declaration in the registry right after it.
#include <map>

#include "declare.hpp"
#include "support.hpp"
#include "tpcheck/instantiate.hpp"

TPCHECK_DECLARATIONS(count_invariants)

namespace tpcheck::inv {
using namespace declare;
namespace {

// The per-configuration checks below visit every rank of both sides; the
// random engines draw sizes up to this.
constexpr std::int64_t kEnumerableSize = kWalkedSizeCap;

constexpr auto decode_larger = [](const auto& P, const auto& D, const auto&...) { return P >= 1 && P < D; };
constexpr auto prefill_larger = [](const auto& P, const auto& D, const auto&...) { return D >= 1 && P > D; };
constexpr auto same_size = [](const auto& P, const auto& D, const auto&...) { return P >= 1 && P == D; };

}  // namespace

template <ModelInt Int>
Verdict count_errors_exactly_where_due(const Int& p, const Int& P, const Int& D) {
  const Outcome<Int> got = single_readers(p, P, D);
  const auto name = [&] { return call("single_readers", p, P, D); };
  if (P <= 0 || D <= 0) return expect_failure(name, got, expected_value_error("TP sizes must be positive"));
  if (p < 0 || p >= P) return expect_failure(name, got, expected_value_error("producer_tp_rank ", p, " must be in [0, ", P, ")"));
  if (D >= P && floor_mod<Int>(D, P) != 0) {
    return expect_failure(name, got, expected_value_error("consumer tp_size ", D, " must be a multiple of producer tp_size ", P,
                                                          " for heterogeneous-TP P/D"));
  }
  if (D < P && floor_mod<Int>(P, D) != 0) {
    return expect_failure(name, got, expected_value_error("producer tp_size ", P, " must be a multiple of consumer tp_size ", D,
                                                          " for heterogeneous-TP P/D"));
  }
  return expect_success(name, got, "on a valid divisible input");
}

TPCHECK_INVARIANT(CountErrorsFireExactlyWhereDue, "§9.4", Errors,
    domain(pair("P", "D", Pairs::WithNonPositive), rank("p", "P", Ranks::WithInvalid)),
    kinds(kind("sizes not positive", [](const auto& P, const auto& D, const auto&) { return P <= 0 || D <= 0; }),
          kind("producer rank out of range", [](const auto& P, const auto& D, const auto& p) {
            return P >= 1 && D >= 1 && (p < 0 || p >= P);
          }),
          kind("consumer larger, not a multiple", [](const auto& P, const auto& D, const auto& p) {
            return p >= 0 && p < P && decode_larger(P, D) && !divisible_pair(P, D);
          }),
          kind("producer larger, not a multiple", [](const auto& P, const auto& D, const auto& p) {
            return p >= 0 && p < P && prefill_larger(P, D) && !divisible_pair(P, D);
          }),
          kind("valid, divisible", [](const auto& P, const auto& D, const auto& p) {
            return p >= 0 && p < P && divisible_pair(P, D);
          })),
    min_non_vacuous(1.0).proof(Proof::by_z3("all integers p, P, D")),
    [](const auto& P, const auto& D, const auto& p) { return count_errors_exactly_where_due(p, P, D); });

template <ModelInt Int>
Verdict readers_count_plan_copies(const Int& P, const Int& D, const Int& H, bool mla) {
  const Int heads_total = mla ? Int(1) : H;
  if (!heads_shard(P, heads_total) || !heads_shard(D, heads_total)) return vacuous("not a loadable deployment");
  std::map<Int, Int> tally;
  for (Int d = 0; d < D; ++d) {
    const Outcome<Plan<Int>> copies = plan(d, P, D, H, mla);
    if (!copies.ok()) {
      return violated(call("plan", d, P, D, H, mla) + " failed on a valid configuration: " + render(copies.failure()));
    }
    for (const Copy<Int>& c : copies.value()) tally[c.p] += 1;
  }
  for (Int p = 0; p < P; ++p) {
    const auto it = tally.find(p);
    const Int copied = it == tally.end() ? Int(0) : it->second;
    if (Verdict v = expect_value([&] { return call("readers", p, P, D, H, mla) + " (decode plans that copy from it)"; },
                                 readers(p, P, D, H, mla), copied);
        v.is_violated()) {
      return v;
    }
  }
  return holds();
}

TPCHECK_INVARIANT(ReadersEqualTheDecodeRanksThatCopy, "§9.8", CompletionCounts,
    domain(pair("P", "D"), flag("mla"), heads("H", "P", "D", HeadCounts::Compatible, "mla")),
    kinds(kind("D > P", decode_larger), kind("D < P", prefill_larger), kind("D == P", same_size),
          kind("not divisible", [](const auto& P, const auto& D, const auto&, const auto&) { return !divisible_pair(P, D); }),
          kind("MLA", [](const auto&, const auto&, const auto& mla, const auto&) { return mla != 0; })),
    min_non_vacuous(1.0).size_cap(kEnumerableSize).proof(Proof::not_provable("readers(p) must equal the number of "
        "decode ranks whose plan has a copy from p: a count over all D decode ranks of a property that itself "
        "ranges over each rank's copies. That is not a statement over a fixed number of integers (the "
        "preimage-boundary argument that proves the fan-in needs the readers of p to be one interval of decode "
        "ranks, a quantifier alternation Z3 does not decide); the sweep and the properties test it")),
    [](const auto& P, const auto& D, const auto& mla, const auto& H) { return readers_count_plan_copies(P, D, H, mla != 0); });

template <ModelInt Int>
Verdict single_readers_count_map_preimages(const Int& P, const Int& D) {
  if (!divisible_pair(P, D)) return vacuous("the pair is not divisible: single_readers fails");
  std::map<Int, Int> tally;
  for (Int d = 0; d < D; ++d) {
    const Outcome<Int> source = remote_rank(d, D, P);
    if (!source.ok()) return violated(call("remote_rank", d, D, P) + " failed on a divisible pair: " + render(source.failure()));
    tally[source.value()] += 1;
  }
  for (Int p = 0; p < P; ++p) {
    const auto it = tally.find(p);
    const Int mapped = it == tally.end() ? Int(0) : it->second;
    if (Verdict v = expect_value([&] { return call("single_readers", p, P, D) + " (decode ranks whose remote_rank is it)"; },
                                 single_readers(p, P, D), mapped);
        v.is_violated()) {
      return v;
    }
  }
  return holds();
}

TPCHECK_INVARIANT(SingleReadersEqualTheMapsPreimages, "§9.8", CompletionCounts,
    domain(pair("P", "D", Pairs::Divisible)),
    kinds(kind("D > P", decode_larger), kind("D < P: some producers wait for nobody", prefill_larger),
          kind("D == P", same_size)),
    min_non_vacuous(1.0).size_cap(kEnumerableSize).proof(Proof::by_z3("divisible pairs P, D and 0 <= p < P; the "
        "preimage of p is [a, b) with a, b its boundaries, which relies on remote_rank being monotone "
        "(RankMapsAreMonotone)")),
    [](const auto& P, const auto& D) { return single_readers_count_map_preimages(P, D); });

#define TPCHECK_COUNT_INVARIANTS(Int)                                                          \
  template Verdict count_errors_exactly_where_due<Int>(const Int&, const Int&, const Int&);    \
  template Verdict readers_count_plan_copies<Int>(const Int&, const Int&, const Int&, bool);   \
  template Verdict single_readers_count_map_preimages<Int>(const Int&, const Int&);
TPCHECK_INSTANTIATE(TPCHECK_COUNT_INVARIANTS)

}  // namespace tpcheck::inv
