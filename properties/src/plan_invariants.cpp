// §6 and §9.5-9.7 on the read plans: each check, and its declaration in the
// registry right after it. Every plan invariant ranges over deployments both
// sides can load (P, D and H head-compatible, or MLA) and a valid decode rank.
#include <algorithm>

#include "declare.hpp"
#include "support.hpp"
#include "tpcheck/instantiate.hpp"

TPCHECK_DECLARATIONS(plan_invariants)

namespace tpcheck::inv {
using namespace declare;
namespace {

template <ModelInt Int>
Int effective_heads(const Int& H, bool mla) {
  return mla ? Int(1) : H;
}

// The plan of a valid decode rank, or the verdict that stands in for it: vacuous
// for an invalid configuration or a plan too long to walk, violated when the
// model fails on a valid one.
template <ModelInt Int>
struct ListedPlan {
  std::optional<Plan<Int>> copies;
  Verdict otherwise = holds();
};

template <ModelInt Int>
ListedPlan<Int> listed_plan(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  const Int heads_total = effective_heads(H, mla);
  if (!heads_shard(P, heads_total) || !heads_shard(D, heads_total) || d < 0 || d >= D) {
    return {std::nullopt, vacuous("not a loadable deployment and decode rank")};
  }
  const Outcome<Int> count = plan_copy_count(d, P, D, H, mla);
  if (!count.ok()) {
    return {std::nullopt, violated(call("plan_copy_count", d, P, D, H, mla) + " failed on a valid configuration: " +
                                   render(count.failure()))};
  }
  if (count.value() > kMaxWalked) return {std::nullopt, vacuous("the plan has too many copies to walk")};
  const Outcome<Plan<Int>> got = plan(d, P, D, H, mla);
  if (!got.ok()) {
    return {std::nullopt, violated(call("plan", d, P, D, H, mla) + " failed on a valid configuration: " +
                                   render(got.failure()))};
  }
  return {got.value(), holds()};
}

// The domain every per-decode-rank plan invariant ranges over.
std::vector<Block> loadable_decode_ranks(Pairs pairs) {
  return domain(pair("P", "D", pairs), flag("mla"), heads("H", "P", "D", HeadCounts::Compatible, "mla"), rank("d", "D"));
}

// Kinds of deployment: which side is larger, and MLA.
constexpr auto prefill_larger = [](const auto& P, const auto& D, const auto&...) { return P > D; };
constexpr auto decode_larger = [](const auto& P, const auto& D, const auto&...) { return P < D; };
constexpr auto same_size = [](const auto& P, const auto& D, const auto&...) { return P == D; };
constexpr auto with_mla = [](const auto&, const auto&, const auto& mla, const auto&...) { return mla != 0; };
constexpr auto not_divisible = [](const auto& P, const auto& D, const auto&...) { return !divisible_pair(P, D); };
// Heads split over (some rank holds several) or replicated on (several ranks hold one) a side.
constexpr auto prefill_replicates = [](const auto& P, const auto&, const auto& mla, const auto& H, const auto&...) {
  return mla == 0 && P > H;
};
constexpr auto decode_splits = [](const auto&, const auto& D, const auto& mla, const auto& H, const auto&...) {
  return mla == 0 && D < H;
};

}  // namespace

template <ModelInt Int>
Verdict single_source_holds_own_heads(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  const ListedPlan<Int> general = listed_plan(d, P, D, H, mla);
  if (!general.copies) return general.otherwise;
  const bool guard_accepts = kv_heads_guard(D, P, H, mla).ok();  // decode is the local side
  const bool divisible = remote_rank(d, D, P).ok();
  const Outcome<Plan<Int>> single = single_source_plan(d, P, D, H, mla);
  const bool agrees = single.ok() && single.value() == *general.copies;
  if (agrees != (guard_accepts && divisible)) {
    return violated(call("single_source_plan", d, P, D, H, mla) + " = " + render(single) +
                    (agrees ? " equals" : " differs from") + " the general plan " + render(*general.copies) +
                    " although the guard " + (guard_accepts ? "accepts" : "rejects") + " and the pair is " +
                    (divisible ? "divisible" : "not divisible"));
  }
  if (!agrees) return holds();
  const Int heads_total = effective_heads(H, mla);
  const Span<Int> own = heads(d, D, heads_total).value();
  const Outcome<Span<Int>> source = heads(single.value().front().p, P, heads_total);
  if (source.ok() && own == source.value()) return holds();
  return violated("single source " + render(single.value().front().p) + " of decode rank " + render(d) + " holds heads " +
                  render(source) + ", the decode rank holds " + render(own));
}

TPCHECK_INVARIANT(SingleSourceHoldsExactlyTheDecodeRanksHeads, "§9.6", HeadAlignment,
    loadable_decode_ranks(Pairs::Positive),
    kinds(kind("guard accepts a divisible pair: one whole page", [](const auto& P, const auto& D, const auto& mla, const auto& H, const auto&) {
            return divisible_pair(P, D) && (mla != 0 || P == D || std::min(P, D) >= H);
          }),
          kind("guard rejects (heads split on a side)", [](const auto& P, const auto& D, const auto& mla, const auto& H, const auto&) {
            return mla == 0 && P != D && std::min(P, D) < H;
          }),
          kind("not divisible", not_divisible), kind("MLA", with_mla)),
    min_non_vacuous(0.9).proof(Proof::by_z3("loadable sizings P, D, H (both sides "
        "shard H, or MLA), 0 <= d < D; P > H case by case (the decode side split or replicated, either side "
        "larger, whether P divides D)")),
    [](const auto& P, const auto& D, const auto& mla, const auto& H, const auto& d) {
      return single_source_holds_own_heads(d, P, D, H, mla != 0);
    });

template <ModelInt Int>
Verdict plan_partitions_own_heads(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  const ListedPlan<Int> listed = listed_plan(d, P, D, H, mla);
  if (!listed.copies) return listed.otherwise;
  const Plan<Int>& copies = *listed.copies;
  const Int heads_total = effective_heads(H, mla);
  const auto what = [&] { return call("plan", d, P, D, H, mla) + " = " + render(copies); };  // built only for a report
  const Span<Int> own = heads(d, D, heads_total).value();
  Int cursor = own.first;
  for (const Copy<Int>& c : copies) {
    if (c.lo != cursor) return violated(what() + (c.lo > cursor ? " leaves a gap" : " overlaps") + " at head " + render(cursor));
    if (c.lo >= c.hi) return violated(what() + " has an empty copy " + render(c));
    if (c.p < 0 || c.p >= P) {
      return violated(what() + " reads from prefill rank " + render(c.p) + " outside [0, " + render(P) + ")");
    }
    const Span<Int> page = heads(c.p, P, heads_total).value();
    if (c.lo < page.first || c.hi > page.end) {
      return violated(what() + " asks prefill rank " + render(c.p) + " (heads " + render(page) + ") for heads it does not hold");
    }
    cursor = c.hi;
  }
  if (cursor != own.end) return violated(what() + " does not cover heads " + render(own) + " of the decode rank");
  return holds();
}

TPCHECK_INVARIANT(PlanPartitionsTheDecodeRanksHeads, "§9.7", PlanExactness,
    loadable_decode_ranks(Pairs::Positive),
    kinds(kind("P > D", prefill_larger), kind("P < D", decode_larger), kind("P == D", same_size),
          kind("not divisible", not_divisible), kind("MLA", with_mla),
          kind("prefill replicates heads", prefill_replicates), kind("decode splits heads", decode_splits)),
    min_non_vacuous(0.9).proof(Proof::by_z3("loadable sizings P, D, H (both sides shard H, or MLA), 0 <= d < D, every "
        "copy index j; plans of any length")),
    [](const auto& P, const auto& D, const auto& mla, const auto& H, const auto& d) {
      return plan_partitions_own_heads(d, P, D, H, mla != 0);
    });

template <ModelInt Int>
Verdict plan_matches_head_by_head_rule(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  const ListedPlan<Int> listed = listed_plan(d, P, D, H, mla);
  if (!listed.copies) return listed.otherwise;
  const Int heads_total = effective_heads(H, mla);
  const Span<Int> own = heads(d, D, heads_total).value();
  if (own.end - own.first > kMaxWalked) return vacuous("the decode rank holds too many heads to walk");
  const Int anchor = mul_floor_div<Int>(d, P, D);
  Plan<Int> expected;
  for (Int h = own.first; h < own.end; ++h) {
    const Outcome<Span<Int>> holding = holders(h, P, heads_total);
    if (!holding.ok()) return violated(call("holders", h, P, heads_total) + " failed on valid input: " + render(holding));
    const Int source = std::clamp(anchor, holding.value().first, Int(holding.value().end - 1));
    if (!expected.empty() && expected.back().p == source) {
      expected.back().hi = Int(h + 1);
    } else {
      expected.push_back({source, h, Int(h + 1)});
    }
  }
  if (*listed.copies == expected) return holds();
  return violated(call("plan", d, P, D, H, mla) + " = " + render(*listed.copies) + ", the head-by-head rule gives " +
                  render(expected));
}

TPCHECK_INVARIANT(PlanFollowsTheHeadByHeadRule, "§6", PlanExactness,
    loadable_decode_ranks(Pairs::Positive),
    kinds(kind("P > D", prefill_larger), kind("P < D", decode_larger), kind("not divisible", not_divisible),
          kind("MLA", with_mla), kind("prefill replicates heads", prefill_replicates),
          kind("decode splits heads", decode_splits)),
    min_non_vacuous(0.9).proof(Proof::by_z3("loadable sizings, 0 <= d < D, every copy j and every head h of it; decode "
        "ranks with any number of heads")),
    [](const auto& P, const auto& D, const auto& mla, const auto& H, const auto& d) {
      return plan_matches_head_by_head_rule(d, P, D, H, mla != 0);
    });

template <ModelInt Int>
Verdict plan_sources_match_nixl(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  const ListedPlan<Int> listed = listed_plan(d, P, D, H, mla);
  if (!listed.copies) return listed.otherwise;
  const Plan<Int>& copies = *listed.copies;
  const Outcome<Span<Int>> span = window_span(d, D, P);
  if (!span.ok()) return vacuous("the pair is not divisible: NIXL has no window");
  if (span.value().end - span.value().first > kMaxWalked) return vacuous("the window is too long to walk");
  const Outcome<Window<Int>> w = window(d, D, P);
  if (!w.ok()) return violated(call("window", d, D, P) + " failed although its span is " + render(span.value()));
  const Int heads_total = effective_heads(H, mla);
  // NIXL reads the first rank of each distinct head range; ranges come in
  // order, so a new one differs from the last one seen.
  std::vector<Int> nixl;
  std::optional<Span<Int>> last_range;
  for (const Int& q : w.value()) {
    const Span<Int> range = heads(q, P, heads_total).value();
    if (last_range != range) nixl.push_back(q);
    last_range = range;
  }
  std::vector<Int> sources;
  for (const Copy<Int>& c : copies) {
    if (sources.empty() || sources.back() != c.p) sources.push_back(c.p);
  }
  const auto what = [&] { return call("plan", d, P, D, H, mla) + " = " + render(copies); };  // built only for a report
  if (sources != nixl) return violated(what() + " reads from " + render(sources) + ", NIXL's window rule gives " + render(nixl));
  if (D < P) return holds();
  const Int per_source = floor_div<Int>(D, P);
  if (copies.size() != 1 || copies.front().p != floor_div<Int>(d, per_source)) {
    return violated(what() + ", expected the one source d // (D/P) = " + render(floor_div<Int>(d, per_source)));
  }
  const Span<Int> own = heads(d, D, heads_total).value();
  const Span<Int> page = heads(copies.front().p, P, heads_total).value();
  if (copies.front().lo - page.first != own.first - page.first) {
    return violated(what() + " starts at offset " + render(Int(copies.front().lo - page.first)) + " of its source, expected " +
                    render(Int(own.first - page.first)));
  }
  if (D <= heads_total) {
    const Int pages = floor_mod<Int>(d, per_source);
    if (own.first - page.first != pages * (own.end - own.first)) {
      return violated(what() + " starts " + render(Int(own.first - page.first)) +
                      " heads into its source, expected d % (D/P) = " + render(pages) + " pages of d");
    }
  }
  return holds();
}

TPCHECK_INVARIANT(PlanSourcesMatchNixlOnDivisiblePairs, "§9.5", Agreement,
    loadable_decode_ranks(Pairs::Divisible),
    kinds(kind("P > D: a window of sources", prefill_larger), kind("P < D: one source", decode_larger),
          kind("P == D", same_size), kind("MLA", with_mla),
          kind("P < D <= H: offset in pages of d", [](const auto& P, const auto& D, const auto& mla, const auto& H, const auto&) {
            return mla == 0 && P < D && D <= H;
          })),
    min_non_vacuous(0.8).proof(Proof::by_z3("loadable sizings with tp_ratio(D, P) defined (divisible pairs), 0 <= d < "
        "D, every copy j and window rank q; windows and plans of any length")),
    [](const auto& P, const auto& D, const auto& mla, const auto& H, const auto& d) {
      return plan_sources_match_nixl(d, P, D, H, mla != 0);
    });

#define TPCHECK_PLAN_INVARIANTS(Int)                                                                              \
  template Verdict plan_partitions_own_heads<Int>(const Int&, const Int&, const Int&, const Int&, bool);          \
  template Verdict plan_matches_head_by_head_rule<Int>(const Int&, const Int&, const Int&, const Int&, bool);     \
  template Verdict plan_sources_match_nixl<Int>(const Int&, const Int&, const Int&, const Int&, bool);            \
  template Verdict single_source_holds_own_heads<Int>(const Int&, const Int&, const Int&, const Int&, bool);
TPCHECK_INSTANTIATE(TPCHECK_PLAN_INVARIANTS)

}  // namespace tpcheck::inv
