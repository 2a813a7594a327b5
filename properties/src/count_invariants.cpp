// §7 and §9.8: who waits for how many completions (where the counts fail is
// the error oracle's, preconditions_plan.cpp). Each check, and its
// declaration in the registry right after it.
#include <algorithm>
#include <vector>

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
Verdict readers_count_plan_copies(const Int& P, const Int& D, const Int& H, bool mla) {
  const Int heads_total = mla ? Int(1) : H;
  if (!heads_shard(P, heads_total) || !heads_shard(D, heads_total)) return vacuous("not a loadable deployment");
  const auto plan_failed = [&](const Int& d, const Failure& failure) {
    return failed_on_valid(call("plan", d, P, D, H, mla), failure);
  };
  thread_local Plan<Int> copies;  // reused (plan_into): a case allocates no plan once it has grown
  // The decode ranks that hold one of p's heads: the only ones that may copy
  // from p (a copy lies inside its source's page and the decode rank's:
  // PlanPartitionsTheDecodeRanksHeads).
  const auto sharing_heads = [&](const Int& p) {
    const Span<Int> page = heads(p, P, heads_total).value();
    return Span<Int>{holders(page.first, D, heads_total).value().first,
                     holders(Int(page.end - 1), D, heads_total).value().end};
  };
  // Walking every p, or when a budgeted walk would read as many plans: one
  // tally over every decode plan. Otherwise, for each p the walk visits, the
  // copies from p in the plans of the decode ranks sharing its heads.
  const bool tally_every_plan = walks_every_element() || [&] {
    const Span<Int> first_sharing = sharing_heads(Int(0));
    return std::min(P, Int(current_walk().budget)) * (first_sharing.end - first_sharing.first) >= D;
  }();
  thread_local std::vector<Int> tally;  // reused: a case allocates nothing once it has grown
  if (tally_every_plan) {
    tally.assign(static_cast<std::size_t>(P), Int(0));
    for (Int d = 0; d < D; ++d) {
      if (const std::optional<Failure> failed = plan_into(copies, d, P, D, H, mla)) return plan_failed(d, *failed);
      for (const Copy<Int>& c : copies) {
        if (c.p >= 0 && c.p < P) tally[static_cast<std::size_t>(c.p)] += 1;
      }
    }
  }
  return walk_range(Int(0), P, [&](const Int& p) {
    Int copied = 0;
    if (tally_every_plan) {
      copied = tally[static_cast<std::size_t>(p)];
    } else {
      const Span<Int> sharing = sharing_heads(p);
      for (Int d = sharing.first; d < sharing.end; ++d) {
        if (const std::optional<Failure> failed = plan_into(copies, d, P, D, H, mla)) return plan_failed(d, *failed);
        for (const Copy<Int>& c : copies) copied += c.p == p ? 1 : 0;
      }
    }
    return expect_value([&] { return call("readers", p, P, D, H, mla) + " (decode plans that copy from it)"; },
                        readers(p, P, D, H, mla), copied);
  });
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
  // Walking every p: one tally over every decode rank. A budgeted walk counts
  // the preimage of each p it visits by its boundaries (remote_rank is
  // monotone: RankMapsAreMonotone), a few calls at any size.
  bool failed = false;
  Int failed_at = 0;
  const auto source = [&](const Int& d) {
    const Outcome<Int> o = remote_rank(d, D, P);
    if (!o.ok() && !failed) failed = true, failed_at = d;
    return o.ok() ? o.value() : Int(0);
  };
  thread_local std::vector<Int> tally;  // reused: a case allocates nothing once it has grown
  if (walks_every_element()) {
    tally.assign(static_cast<std::size_t>(P), Int(0));
    for (Int d = 0; d < D; ++d) {
      const Int p = source(d);
      if (p >= 0 && p < P) tally[static_cast<std::size_t>(p)] += 1;
    }
  }
  // remote_rank(d, D, P) = floor(d * P / D) when correct: the first d reaching p is ceil(p * D / P).
  const auto first_reaching_p = [&](const Int& p) { return first_reaching(p, D, source, std::min(mul_ceil_div<Int>(p, D, P), D)); };
  return walk_range(Int(0), P, [&](const Int& p) {
    const Int mapped = walks_every_element() ? tally[static_cast<std::size_t>(p)]
                                             : Int(first_reaching_p(Int(p + 1)) - first_reaching_p(p));
    if (failed) {
      return violated(call("remote_rank", failed_at, D, P) + " failed on a divisible pair: " +
                      render(remote_rank(failed_at, D, P).failure()));
    }
    return expect_value([&] { return call("single_readers", p, P, D) + " (decode ranks whose remote_rank is it)"; },
                        single_readers(p, P, D), mapped);
  });
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
  template Verdict readers_count_plan_copies<Int>(const Int&, const Int&, const Int&, bool);   \
  template Verdict single_readers_count_map_preimages<Int>(const Int&, const Int&);
TPCHECK_INSTANTIATE(TPCHECK_COUNT_INVARIANTS)

}  // namespace tpcheck::inv
