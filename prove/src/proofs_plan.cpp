// Proofs of the read-plan invariants (SPEC §9.5-9.7 on §6), for a symbolic
// decode rank d and a symbolic copy index j: plans of any length.
#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {
namespace {

// The model computes the plan by segments: the prefill ranks split the heads
// (P <= H) or replicate them (P > H); goals are stated for each.
enum class PrefillSide { Splits, Replicates };
constexpr PrefillSide kPrefillSides[] = {PrefillSide::Splits, PrefillSide::Replicates};
std::string where(PrefillSide side) { return side == PrefillSide::Splits ? ", P <= H" : ", P > H"; }

// A decode rank of a loadable sizing and its plan (of any length: the model's
// listing limit is not part of these invariants).
struct PlanSetting {
  z3::expr d, P, D, H, mla;
  z3::expr heads_total;  // H, or 1 with MLA
  z3::expr loadable;     // both sides shard the heads, 0 <= d < D
  OperationTerm copies;
  z3::expr count;
  std::vector<z3::expr> own;  // heads(d, D, heads_total)
  // The plan's own subterms (the same terms the encoding builds), which
  // goals abstract: how many heads each prefill rank holds when they split,
  // how many replicas each head has when they replicate, and the anchor.
  z3::expr per_rank, replicas, anchor;

  explicit PlanSetting(Goals& g)
      : d(g.integer("d")), P(g.integer("P")), D(g.integer("D")), H(g.integer("H")), mla(g.flag("mla")),
        heads_total(z3::ite(mla, g.enc().num(1), H)),
        loadable(heads_shard(P, heads_total) && heads_shard(D, heads_total) && 0 <= d && d < D),
        copies(g.enc().plan_copies(d, P, D, H, mla)), count(copies.outcome.value[0]),
        own(g.enc().heads(d, D, heads_total).value), per_rank(floor_div(heads_total, P)),
        replicas(floor_div(P, heads_total)), anchor(floor_div(d * P, D)) {}

  std::vector<z3::expr> copy(const z3::expr& j) const { return copies.element(j); }
  ShownCall plan_call() const { return {"plan", {d, P, D, H, mla}}; }
  z3::expr on(PrefillSide side) const { return side == PrefillSide::Splits ? P <= heads_total : P > heads_total; }

  // The shape of the plan's subterms on one side, proved once as a goal of
  // its own: the decode rank's heads are a non-empty part of [0, H), and the
  // prefill side splits H into P parts or replicates it P/H times exactly.
  z3::expr shape_fact(Goals& g, PrefillSide side) const {
    const bool splits = side == PrefillSide::Splits;
    return g.fact("the decode rank's heads are a non-empty part of [0, H); the prefill ranks " +
                      std::string(splits ? "split the heads into P equal parts" : "replicate each head P/H times") +
                      where(side),
                  loadable && on(side),
                  0 <= own[0] && own[0] < own[1] && own[1] <= heads_total &&
                      (splits ? per_rank >= 1 && per_rank * P == heads_total
                              : replicas >= 1 && replicas * heads_total == P),
                  {plan_call()});
  }

  z3::expr g_bool(bool v) const { return P.ctx().bool_val(v); }

  // A goal on one side given its shape fact, the other side's case of the
  // plan dropped, and those subterms abstracted;
  // `lemmas` are the goal's own.
  void simplify(Goal& goal, PrefillSide side, const z3::expr& shape, const std::vector<z3::expr>& lemmas = {}) const {
    goal.given = {shape};
    goal.lemmas = lemmas;
    goal.rewrites = {{P <= heads_total, g_bool(side == PrefillSide::Splits)}};
    goal.abstracted = {own[0], own[1], per_rank, replicas, anchor};
  }
};

}  // namespace

std::vector<Goal> plan_partitions_the_decode_ranks_heads(const Encoding& e) {
  Goals g(e);
  const PlanSetting s(g);
  const z3::expr j = g.integer("j");
  const auto a = s.copy(j), next = s.copy(j + 1), first = s.copy(e.num(0)), last = s.copy(s.count - 1);
  const OutcomeTerm page = e.heads(a[0], s.P, s.heads_total);
  const OutcomeTerm own = e.heads(s.d, s.D, s.heads_total);
  for (const PrefillSide side : kPrefillSides) {
    const z3::expr domain = s.loadable && s.on(side);
    const bool splits = side == PrefillSide::Splits;
    const z3::expr shape = s.shape_fact(g, side);
    g.add("the plan of every decode rank succeeds with at least one copy" + where(side), domain,
          s.copies.outcome.ok && own.ok && s.count >= 1, {s.plan_call()});
    s.simplify(g.add("the first copy starts at the decode rank's first head" + where(side), domain,
                     first[1] == s.own[0], {s.plan_call()}), side, shape);
    s.simplify(g.add("each copy ends where the next begins: no gap, no overlap" + where(side),
                     domain && 0 <= j && j + 1 < s.count, a[2] == next[1], {s.plan_call()}), side, shape);
    s.simplify(g.add("the last copy ends at the decode rank's end head" + where(side), domain, last[2] == s.own[1],
                     {s.plan_call()}), side, shape);
    const z3::expr copy_j = domain && 0 <= j && j < s.count;
    s.simplify(g.add("every copy is non-empty" + where(side), copy_j, a[1] < a[2], {s.plan_call()}), side, shape);
    s.simplify(g.add("every copy's source is a prefill rank in [0, P)" + where(side), copy_j, 0 <= a[0] && a[0] < s.P,
                     {s.plan_call()}), side, shape);
    // The source's page, [p * H/P, + H/P) when the heads split and [p // (P/H), + 1) when they are replicated.
    const z3::expr page_first = splits ? a[0] * s.per_rank : floor_div(a[0], s.replicas);
    const z3::expr page_size = splits ? s.per_rank : e.num(1);
    s.simplify(g.add("every copy's source holds the heads it is asked for" + where(side), copy_j,
                     page.ok && page.value[0] <= a[1] && a[2] <= page.value[1],
                     {s.plan_call(), {"heads", {a[0], s.P, s.heads_total}}}),
               side, shape, {page.value[0] == page_first, page.value[1] == page_first + page_size});
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
  for (const PrefillSide side : kPrefillSides) {
    const z3::expr domain = s.loadable && s.on(side);
    g.add("every head h of a copy comes from its holder nearest to floor(d * P / D)" + where(side),
          domain && 0 <= j && j < s.count && a[1] <= h && h < a[2],
          holding.ok && a[0] == clamp(anchor, holding.value[0], holding.value[1] - 1),
          {s.plan_call(), {"holders", {h, s.P, s.heads_total}}});
    g.add("neighbouring copies have different sources (equal neighbours are merged)" + where(side),
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
  for (const PrefillSide side : kPrefillSides) {
    const z3::expr domain = s.loadable && s.on(side);
    g.add("MoRIIO's single whole-page copy is the general plan exactly when the guard accepts and the pair is divisible" + where(side),
          domain, agrees == (guard_accepts && divisible), calls);
  }
  const OutcomeTerm source_heads = e.heads(one[0], s.P, s.heads_total);
  g.add("where it is, the single source holds exactly the decode rank's heads", s.loadable && agrees,
        source_heads.ok && source_heads.value[0] == s.own[0] && source_heads.value[1] == s.own[1],
        {s.plan_call(), {"heads", {one[0], s.P, s.heads_total}}});
  return g.take();
}

}  // namespace tpcheck::prove
