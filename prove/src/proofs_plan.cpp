// Proofs of the read-plan invariants (SPEC §9.5-9.7 on §6), for a symbolic
// decode rank d and a symbolic copy index j: plans of any length.
#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {
namespace {

// A decode rank of a loadable sizing and its plan (of any length: the model's
// listing limit is not part of these invariants).
struct PlanSetting {
  z3::expr d, P, D, H, mla;
  z3::expr heads_total;  // H, or 1 with MLA
  z3::expr loadable;     // both sides shard the heads, 0 <= d < D
  OperationTerm copies;
  z3::expr count;
  std::vector<z3::expr> own;  // heads(d, D, heads_total)

  explicit PlanSetting(Goals& g)
      : d(g.integer("d")), P(g.integer("P")), D(g.integer("D")), H(g.integer("H")), mla(g.flag("mla")),
        heads_total(z3::ite(mla, g.enc().num(1), H)),
        loadable(heads_shard(P, heads_total) && heads_shard(D, heads_total) && 0 <= d && d < D),
        copies(g.enc().plan_copies(d, P, D, H, mla)), count(copies.outcome.value[0]),
        own(g.enc().heads(d, D, heads_total).value) {}

  std::vector<z3::expr> copy(const z3::expr& j) const { return copies.element(j); }
  ShownCall plan_call() const { return {"plan", {d, P, D, H, mla}}; }
  // The model computes the plan by segments: prefill ranks splitting the
  // heads (P <= H) or replicating them (P > H).
  static constexpr const char* kSides[] = {"P <= H", "P > H"};
  z3::expr side(const char* name) const { return name[2] == '<' ? P <= heads_total : P > heads_total; }
};

}  // namespace

std::vector<Goal> plan_partitions_the_decode_ranks_heads(const Encoding& e) {
  Goals g(e);
  const PlanSetting s(g);
  const z3::expr j = g.integer("j");
  const auto a = s.copy(j), next = s.copy(j + 1), first = s.copy(e.num(0)), last = s.copy(s.count - 1);
  const OutcomeTerm page = e.heads(a[0], s.P, s.heads_total);
  const OutcomeTerm own = e.heads(s.d, s.D, s.heads_total);
  for (const char* side : PlanSetting::kSides) {
    const std::string where = std::string(", ") + side;
    const z3::expr domain = s.loadable && s.side(side);
    g.add("the plan of every decode rank succeeds with at least one copy" + where, domain,
          s.copies.outcome.ok && own.ok && s.count >= 1, {s.plan_call()});
    g.add("the first copy starts at the decode rank's first head" + where, domain, first[1] == s.own[0], {s.plan_call()});
    g.add("each copy ends where the next begins: no gap, no overlap" + where, domain && 0 <= j && j + 1 < s.count,
          a[2] == next[1], {s.plan_call()});
    g.add("the last copy ends at the decode rank's end head" + where, domain, last[2] == s.own[1], {s.plan_call()});
    g.add("every copy is non-empty, from a prefill rank in [0, P) that holds its heads" + where,
          domain && 0 <= j && j < s.count,
          a[1] < a[2] && 0 <= a[0] && a[0] < s.P && page.ok && page.value[0] <= a[1] && a[2] <= page.value[1],
          {s.plan_call(), {"heads", {a[0], s.P, s.heads_total}}});
  }
  return g.take();
}

std::vector<Goal> plan_follows_the_head_by_head_rule(const Encoding& e) {
  Goals g(e);
  const PlanSetting s(g);
  const z3::expr j = g.integer("j"), h = g.integer("h");
  const auto a = s.copy(j), next = s.copy(j + 1);
  const OutcomeTerm holding = e.holders(h, s.P, s.heads_total);
  const z3::expr anchor = floor_div(s.d * s.P, s.D);
  for (const char* side : PlanSetting::kSides) {
    const std::string where = std::string(", ") + side;
    const z3::expr domain = s.loadable && s.side(side);
    g.add("every head h of a copy comes from its holder nearest to floor(d * P / D)" + where,
          domain && 0 <= j && j < s.count && a[1] <= h && h < a[2],
          holding.ok && a[0] == clamp(anchor, holding.value[0], holding.value[1] - 1),
          {s.plan_call(), {"holders", {h, s.P, s.heads_total}}});
    g.add("neighbouring copies have different sources (equal neighbours are merged)" + where,
          domain && 0 <= j && j + 1 < s.count, a[0] != next[0], {s.plan_call()});
  }
  return g.take();
}

std::vector<Goal> plan_sources_match_nixl_on_divisible_pairs(const Encoding& e) {
  Goals g(e);
  const PlanSetting s(g);
  const z3::expr j = g.integer("j"), q = g.integer("q");
  const OutcomeTerm window = e.window_span(s.d, s.D, s.P);
  const z3::expr domain = s.loadable && window.ok;
  const auto a = s.copy(j), next = s.copy(j + 1), first = s.copy(e.num(0)), last = s.copy(s.count - 1);
  const std::vector<ShownCall> calls = {s.plan_call(), {"window", {s.d, s.D, s.P}}};
  // D >= P: one source, d // (D/P), at offset first(d) - first(p).
  const z3::expr per_source = floor_div(s.D, s.P);
  const OutcomeTerm page = e.heads(first[0], s.P, s.heads_total);
  g.add("D >= P: the plan has one copy, from d // (D/P), starting at the decode rank's first head",
        domain && s.D >= s.P, s.count == 1 && first[0] == floor_div(s.d, per_source) && first[1] == s.own[0], calls);
  g.add("D >= P and D <= H: the copy starts d % (D/P) pages of d into its source's page",
        domain && s.D >= s.P && s.D <= s.heads_total,
        page.ok && s.own[0] - page.value[0] == floor_mod(s.d, per_source) * (s.own[1] - s.own[0]), calls);
  // D < P: NIXL reads the first rank of each distinct head range inside the
  // window, in order. A rank of the window starts a range when it is the
  // window's first or holds other heads than the rank before it.
  const auto starts_range = [&](const z3::expr& p) {
    const OutcomeTerm here = e.heads(p, s.P, s.heads_total), before = e.heads(p - 1, s.P, s.heads_total);
    return p == window.value[0] || here.value[0] != before.value[0] || here.value[1] != before.value[1];
  };
  const z3::expr narrow = domain && s.D < s.P;
  g.add("D < P: every source lies in window(d, D, P) and starts a head range there", narrow && 0 <= j && j < s.count,
        within(a[0], window.value) && starts_range(a[0]), calls);
  g.add("D < P: the first source is the window's first rank", narrow, first[0] == window.value[0], calls);
  g.add("D < P: sources increase, and no rank between two neighbouring sources starts a head range",
        narrow && 0 <= j && j + 1 < s.count, a[0] < next[0] && z3::implies(a[0] < q && q < next[0], !starts_range(q)),
        calls);
  g.add("D < P: no rank of the window after the last source starts a head range",
        narrow && last[0] < q && q < window.value[1], !starts_range(q), calls);
  return g.take();
}

std::vector<Goal> single_source_holds_exactly_the_decode_ranks_heads(const Encoding& e) {
  Goals g(e);
  const PlanSetting s(g);
  const OperationTerm single = e.single_source_plan(s.d, s.P, s.D, s.H, s.mla);
  const auto one = single.element(e.num(0)), first = s.copy(e.num(0));
  const z3::expr agrees = single.outcome.ok && s.count == 1 && one[0] == first[0] && one[1] == first[1] && one[2] == first[2];
  const z3::expr guard_accepts = e.kv_heads_guard(s.D, s.P, s.H, s.mla).ok;  // decode is the local side
  const z3::expr divisible = e.remote_rank(s.d, s.D, s.P).ok;
  const std::vector<ShownCall> calls = {s.plan_call(), {"single_source_plan", {s.d, s.P, s.D, s.H, s.mla}},
                                        {"kv_heads_guard", {s.D, s.P, s.H, s.mla}}};
  for (const char* side : PlanSetting::kSides) {
    const z3::expr domain = s.loadable && s.side(side);
    g.add(std::string("MoRIIO's single whole-page copy is the general plan exactly when the guard accepts and the pair is divisible, ") + side,
          domain, agrees == (guard_accepts && divisible), calls);
  }
  const OutcomeTerm source_heads = e.heads(one[0], s.P, s.heads_total);
  g.add("where it is, the single source holds exactly the decode rank's heads", s.loadable && agrees,
        source_heads.ok && source_heads.value[0] == s.own[0] && source_heads.value[1] == s.own[1],
        {s.plan_call(), {"heads", {one[0], s.P, s.heads_total}}});
  return g.take();
}

}  // namespace tpcheck::prove
