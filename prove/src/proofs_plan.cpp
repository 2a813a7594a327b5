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

// The decode side too holds its heads split (D <= H) or replicated (D > H).
enum class DecodeSide { Splits, Replicates };
constexpr DecodeSide kDecodeSides[] = {DecodeSide::Splits, DecodeSide::Replicates};
std::string where(DecodeSide side) { return side == DecodeSide::Splits ? ", D <= H" : ", D > H"; }

// x // c == y when c == a * b and y is (x // a) // b, each quotient given by
// its definition: the decode rank's head when both sides replicate and D is
// a multiple of P (c == D/H, a == D/P, b == P/H).
Law nested_quotient_law(z3::context& c) {
  const z3::expr x = c.int_const("law.x"), a = c.int_const("law.a"), b = c.int_const("law.b"),
                 ab = c.int_const("law.c"), s = c.int_const("law.s"), y = c.int_const("law.y");
  return {"x // c == y where c == a * b, a * s <= x < a * s + a, b * y <= s < b * y + b, a, b >= 1",
          {x, a, b, ab, s, y},
          a >= 1 && b >= 1 && ab == a * b && a * s <= x && x < a * s + a && b * y <= s && s < b * y + b,
          floor_div(x, ab) == y};
}

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
  // The same on the decode side, and the decode rank's first head when the
  // decode side replicates, d // (D/H).
  z3::expr per_decode_rank, decode_replicas, replica_head;

  explicit PlanSetting(Goals& g)
      : d(g.integer("d")), P(g.integer("P")), D(g.integer("D")), H(g.integer("H")), mla(g.flag("mla")),
        heads_total(z3::ite(mla, g.enc().num(1), H)),
        loadable(heads_shard(P, heads_total) && heads_shard(D, heads_total) && 0 <= d && d < D),
        copies(g.enc().plan_copies(d, P, D, H, mla)), count(copies.outcome.value[0]),
        own(g.enc().heads(d, D, heads_total).value), per_rank(floor_div(heads_total, P)),
        replicas(floor_div(P, heads_total)), anchor(floor_div(d * P, D)), per_decode_rank(floor_div(heads_total, D)),
        decode_replicas(floor_div(D, heads_total)), replica_head(floor_div(d, decode_replicas)) {}

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

  // Appends lemmas that pin the first head of prefill rank x, floor(x * H / P)
  // (the encoding's heads), by the laws above, without a division Z3 must
  // reason about: x * (H/P) when the prefill side splits, y = x // (P/H) when
  // it replicates (y becomes a constant bound by its definition).
  void page_start(Goal& goal, const z3::expr& x, PrefillSide side) const {
    const z3::expr first = floor_div(x * heads_total, P);
    if (side == PrefillSide::Splits) {
      goal.use(multiple_law(P.ctx()), {x, P, per_rank, heads_total});
      goal.lemmas.push_back(first == x * per_rank);
      return;
    }
    const z3::expr y = floor_div(x, replicas);
    goal.use(quotient_definition_law(P.ctx()), {x, replicas});
    goal.use(fraction_law(P.ctx()), {x, heads_total, replicas, P, y});
    goal.lemmas.push_back(first == y);
    goal.abstracted.push_back(y);
  }
  z3::expr ctx_true() const { return g_bool(true); }
  z3::expr on(DecodeSide side) const { return side == DecodeSide::Splits ? D <= heads_total : D > heads_total; }

  // The decode rank's heads exactly, proved once as a goal of its own:
  // [d * (H/D), + H/D) when the decode side splits, [d // (D/H), + 1) when it
  // replicates.
  z3::expr decode_fact(Goals& g, DecodeSide side) const {
    const bool splits = side == DecodeSide::Splits;
    return g.fact(std::string("the decode rank holds heads ") +
                      (splits ? "[d * (H/D), + H/D)" : "[d // (D/H), + 1)") + where(side),
                  loadable && on(side),
                  splits ? per_decode_rank >= 1 && per_decode_rank * D == heads_total &&
                               own[0] == d * per_decode_rank && own[1] == own[0] + per_decode_rank
                         : decode_replicas >= 1 && decode_replicas * heads_total == D &&
                               decode_replicas * replica_head <= d && d < decode_replicas * replica_head + decode_replicas &&
                               own[0] == replica_head && own[1] == own[0] + 1,
                  {plan_call()});
  }

  // A goal on one pair of sides given both shape facts, with the decode
  // side's subterms abstracted as well.
  void simplify(Goal& goal, PrefillSide side, DecodeSide decode_side, const z3::expr& shape,
                const z3::expr& decode_shape, const std::vector<z3::expr>& lemmas = {}) const {
    simplify(goal, side, shape, lemmas);
    goal.given.push_back(decode_shape);
    goal.rewrites.emplace_back(D <= heads_total, g_bool(decode_side == DecodeSide::Splits));
    goal.abstracted.insert(goal.abstracted.end(), {per_decode_rank, decode_replicas, replica_head});
  }

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

// MoRIIO's single whole-page copy succeeds and is the general plan, one copy.
z3::expr single_source_agrees(const Encoding& e, const PlanSetting& s) {
  const OperationTerm single = e.single_source_plan(s.d, s.P, s.D, s.H, s.mla);
  const auto one = single.element(e.num(0)), first = s.copy(e.num(0));
  return single.outcome.ok && s.count == 1 && one[0] == first[0] && one[1] == first[1] && one[2] == first[2];
}

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
    const z3::expr shape = s.shape_fact(g, side);
    s.simplify(g.add("the plan of every decode rank succeeds with at least one copy" + where(side), domain,
                     s.copies.outcome.ok && own.ok && s.count >= 1, {s.plan_call()}), side, shape);
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
    Goal& holds = g.add("every copy's source holds the heads it is asked for" + where(side), copy_j,
                        page.ok && page.value[0] <= a[1] && a[2] <= page.value[1],
                        {s.plan_call(), {"heads", {a[0], s.P, s.heads_total}}});
    s.simplify(holds, side, shape);
    s.page_start(holds, a[0], side);
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
    const z3::expr shape = s.shape_fact(g, side);
    Goal& rule = g.add("every head h of a copy comes from its holder nearest to floor(d * P / D)" + where(side),
                       domain && 0 <= j && j < s.count && a[1] <= h && h < a[2],
                       holding.ok && a[0] == clamp(anchor, holding.value[0], holding.value[1] - 1),
                       {s.plan_call(), {"holders", {h, s.P, s.heads_total}}});
    s.simplify(rule, side, shape);
    if (side == PrefillSide::Splits) abstract_quotient(rule, h, s.per_rank);  // h's one holder, h // (H/P)
    s.simplify(g.add("neighbouring copies have different sources (equal neighbours are merged)" + where(side),
                     domain && 0 <= j && j + 1 < s.count, a[0] != next[0], {s.plan_call()}),
               side, shape);
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
  const z3::expr shape[] = {s.shape_fact(g, PrefillSide::Splits), s.shape_fact(g, PrefillSide::Replicates)};
  const z3::expr decode_shape[] = {s.decode_fact(g, DecodeSide::Splits), s.decode_fact(g, DecodeSide::Replicates)};
  const auto on_sides = [&](Goal& goal, PrefillSide side, DecodeSide decode_side, const std::vector<z3::expr>& lemmas) {
    s.simplify(goal, side, decode_side, shape[side == PrefillSide::Replicates],
               decode_shape[decode_side == DecodeSide::Replicates], lemmas);
  };

  // D >= P: one source, d // (D/P), at offset first(d) - first(p).
  const z3::expr per_source = floor_div(s.D, s.P);
  const z3::expr source = floor_div(s.d, per_source);
  z3::expr one_source = s.ctx_true();
  for (const PrefillSide side : kPrefillSides) {
    for (const DecodeSide decode_side : kDecodeSides) {
      if (side == PrefillSide::Replicates && decode_side == DecodeSide::Splits) continue;  // D <= H < P: not D >= P
      Goal& goal = g.add("D >= P: the plan has one copy, from d // (D/P), starting at the decode rank's first head" +
                             where(side) + where(decode_side),
                         domain && s.D >= s.P && s.on(side) && s.on(decode_side),
                         s.count == 1 && first[0] == source && first[1] == s.own[0], calls);
      one_source = one_source && z3::implies(goal.domain, goal.holds);
      on_sides(goal, side, decode_side, {per_source * s.P == s.D});
      abstract_quotient(goal, s.D, s.P);
      abstract_quotient(goal, s.d, per_source);
      if (side == PrefillSide::Splits) {
        // A prefill page is D/P decode pages (or D/P decode replicas of its
        // heads): d's heads lie in the page of d // (D/P).
        // The laws: the cancellation (H/P == H/D * D/P, or D/P == D/H * H/P)
        // and the nested quotient for d's first and last head.
        const bool decode_splits = decode_side == DecodeSide::Splits;
        if (decode_splits) {
          goal.use(cancellation_law(e.ctx()), {s.per_rank, s.per_decode_rank, per_source, s.P, s.D, s.heads_total});
        } else {
          goal.use(cancellation_law(e.ctx()), {per_source, s.decode_replicas, s.per_rank, s.P, s.heads_total, s.D});
        }
        goal.lemmas.push_back(decode_splits ? s.per_rank == s.per_decode_rank * per_source
                                            : per_source == s.decode_replicas * s.per_rank);
        abstract_quotient(goal, s.own[0], s.per_rank);
        abstract_quotient(goal, s.own[1] - 1, s.per_rank);
        for (const z3::expr& x : {s.own[0], s.own[1] - 1}) {
          if (decode_splits) {  // x // (H/D) == d
            goal.use(nested_quotient_law(e.ctx()), {x, s.per_decode_rank, per_source, s.per_rank, s.d, source});
          } else {  // x == d // (D/H)
            goal.use(nested_quotient_law(e.ctx()),
                     {s.d, s.decode_replicas, s.per_rank, per_source, s.replica_head, floor_div(x, s.per_rank)});
          }
          goal.lemmas.push_back(floor_div(x, s.per_rank) == source);
        }
      } else {
        // Both replicate: the anchor is d // (D/P), inside the holders of d's head.
        goal.use(cancellation_law(e.ctx()), {s.decode_replicas, per_source, s.replicas, s.heads_total, s.P, s.D});
        goal.lemmas.push_back(s.decode_replicas == per_source * s.replicas);
        goal.use(fraction_law(e.ctx()), {s.d, s.P, per_source, s.D, source});  // the anchor
        goal.lemmas.push_back(s.anchor == source);
        abstract_quotient(goal, source, s.replicas);
        goal.use(nested_quotient_law(e.ctx()),
                 {s.d, per_source, s.replicas, s.decode_replicas, source, floor_div(source, s.replicas)});
        goal.lemmas.push_back(s.replica_head == floor_div(source, s.replicas));
      }
    }
  }
  const OutcomeTerm page = e.heads(first[0], s.P, s.heads_total);
  Goal& offset = g.add("D >= P and D <= H: the copy starts d % (D/P) pages of d into its source's page",
                       domain && s.D >= s.P && s.D <= s.heads_total,
                       page.ok && s.own[0] - page.value[0] == floor_mod(s.d, per_source) * (s.own[1] - s.own[0]), calls);
  on_sides(offset, PrefillSide::Splits, DecodeSide::Splits,
           {per_source * s.P == s.D, s.per_rank == s.per_decode_rank * per_source});
  s.page_start(offset, first[0], PrefillSide::Splits);
  offset.given.push_back(one_source);
  offset.rewrites.emplace_back(s.P <= s.heads_total, e.ctx().bool_val(true));  // D <= H and P <= D
  abstract_quotient(offset, s.D, s.P);
  abstract_remainder(offset, s.d, per_source);

  // D < P: NIXL reads the first rank of each distinct head range inside the
  // window [d * (P/D), + P/D), in order. A rank of the window starts a range
  // when it is the window's first or holds other heads than the rank before it.
  const auto starts_range = [&](const z3::expr& p) {
    const OutcomeTerm here = e.heads(p, s.P, s.heads_total), before = e.heads(p - 1, s.P, s.heads_total);
    return p == window.value[0] || here.value[0] != before.value[0] || here.value[1] != before.value[1];
  };
  const z3::expr width = floor_div(s.P, s.D);
  for (const PrefillSide side : kPrefillSides) {
    for (const DecodeSide decode_side : kDecodeSides) {
      if (side == PrefillSide::Splits && decode_side == DecodeSide::Replicates) continue;  // P <= H < D: not D < P
      const z3::expr narrow = domain && s.D < s.P && s.on(side) && s.on(decode_side);
      const bool split = side == PrefillSide::Splits, decode_split = decode_side == DecodeSide::Splits;
      // How the sizes relate, and where the plan's sources are, on these sides.
      std::vector<z3::expr> sizes = {width * s.D == s.P, window.value[0] == s.d * width,
                                     window.value[1] == s.d * width + width};
      if (split) {
        sizes.push_back(s.per_decode_rank == s.per_rank * width);
        sizes.push_back(floor_div(s.own[0], s.per_rank) == s.d * width);
        sizes.push_back(floor_div(s.own[1] - 1, s.per_rank) == s.d * width + width - 1);
      } else if (decode_split) {
        sizes.push_back(width == s.replicas * s.per_decode_rank);
        sizes.push_back(s.anchor == s.d * width);
      } else {
        sizes.push_back(s.replicas == width * s.decode_replicas);
        sizes.push_back(s.anchor == s.d * width);
        sizes.push_back(s.replica_head * s.replicas <= s.d * width);
        sizes.push_back(s.d * width + width <= s.replica_head * s.replicas + s.replicas);
      }
      // The sizes, proved once for the case, then given to its goals.
      const auto focus = [&](Goal& goal, const std::vector<z3::expr>& lemmas) {
        on_sides(goal, side, decode_side, lemmas);
        goal.rewrites.emplace_back(s.D >= s.P, e.ctx().bool_val(false));
        abstract_quotient(goal, s.P, s.D);
        goal.use(divides_law(e.ctx()), {s.P, s.D});               // P == (P/D) * D
        goal.use(multiple_law(e.ctx()), {s.d, s.D, width, s.P});  // the anchor, d * (P/D)
        if (side == PrefillSide::Splits) {
          // d's first and last head lie in the pages of d * (P/D) and d * (P/D) + P/D - 1.
          goal.use(multiple_law(e.ctx()), {s.d, s.D, s.per_decode_rank, s.heads_total});
          goal.use(quotient_law(e.ctx()), {s.own[0], s.per_rank, s.d * width});
          goal.use(quotient_law(e.ctx()), {s.own[1] - 1, s.per_rank, s.d * width + width - 1});
        }
      };
      z3::expr all_sizes = e.ctx().bool_val(true);
      for (const z3::expr& f : sizes) all_sizes = all_sizes && f;
      Goal& sizes_goal = g.add("D < P: how the sizes relate and where the sources start" + where(side) + where(decode_side),
                               narrow, all_sizes, calls);
      focus(sizes_goal, {});
      sizes_goal.lemmas.insert(sizes_goal.lemmas.begin(), sizes.begin(), sizes.end() - 1);
      const z3::expr sized = z3::implies(narrow, all_sizes);
      // `more` are the goal's own lemmas, `pages` the prefill ranks whose first head it needs.
      const auto goal = [&](std::string claim, const z3::expr& goal_domain, const z3::expr& holds,
                            const std::vector<z3::expr>& more, const std::vector<z3::expr>& pages = {}) -> Goal& {
        Goal& g_ = g.add("D < P: " + claim + where(side) + where(decode_side), goal_domain, holds, calls);
        focus(g_, {});
        if (split) abstract_quotient(g_, s.own[0], s.per_rank);  // the first source, d * (P/D)
        for (const z3::expr& x : pages) s.page_start(g_, x, side);
        g_.lemmas.insert(g_.lemmas.end(), more.begin(), more.end());
        g_.given.push_back(sized);
        return g_;
      };
      // x // (P/H) == y, for the ranks x of head y's replicas the goals look at.
      const auto head_of = [&](Goal& g_, const std::vector<std::pair<z3::expr, z3::expr>>& rank_head) {
        for (const auto& [x, y] : rank_head) g_.use(quotient_law(e.ctx()), {x, s.replicas, y});
      };
      const z3::expr copy_j = narrow && 0 <= j && j < s.count, pair_j = narrow && 0 <= j && j + 1 < s.count;
      const z3::expr after_last = narrow && last[0] < q && q < window.value[1];
      const z3::expr between = a[0] < q && q < next[0];
      const std::string every = "every source lies in window(d, D, P) and starts a head range there";
      const std::string increase = "sources increase, and no rank between two neighbouring sources starts a head range";
      const std::string none_after = "no rank of the window after the last source starts a head range";
      goal("the first source is the window's first rank", narrow, first[0] == window.value[0], {});
      if (split) {
        // Every prefill rank of the window holds heads of its own: each is a source.
        const z3::expr source_j = floor_div(s.own[0], s.per_rank) + j;
        goal(every, copy_j, within(a[0], window.value) && starts_range(a[0]), {}, {source_j, source_j - 1});
        goal(increase, pair_j, a[0] < next[0] && !between, {});
        goal("the last source is the window's last rank (so none comes after it)", narrow,
             last[0] == window.value[1] - 1, {});
      } else if (decode_split) {
        // The source of d's head h is h * (P/H), the first of its holders.
        const z3::expr h = s.own[0] + j;
        head_of(goal(every, copy_j, within(a[0], window.value) && starts_range(a[0]),
                     {a[0] == h * s.replicas, floor_div(a[0], s.replicas) == h,
                      floor_div(a[0] - 1, s.replicas) == h - 1},
                     {a[0], a[0] - 1}),
                {{a[0], h}, {a[0] - 1, h - 1}});
        goal("sources increase" , pair_j, a[0] < next[0], {a[0] == h * s.replicas, next[0] == (h + 1) * s.replicas});
        head_of(goal("no rank between two neighbouring sources starts a head range", pair_j && between,
                     !starts_range(q),
                     {a[0] == h * s.replicas, next[0] == (h + 1) * s.replicas, floor_div(q, s.replicas) == h,
                      floor_div(q - 1, s.replicas) == h},
                     {q, q - 1}),
                {{q, h}, {q - 1, h}});
        head_of(goal(none_after, after_last, !starts_range(q),
                     {last[0] == (s.own[1] - 1) * s.replicas, floor_div(q, s.replicas) == s.own[1] - 1,
                      floor_div(q - 1, s.replicas) == s.own[1] - 1},
                     {q, q - 1}),
                {{q, s.own[1] - 1}, {q - 1, s.own[1] - 1}});
      } else {
        // Both replicate: the whole window holds d's one head; the anchor is its first rank.
        goal(every, copy_j, within(a[0], window.value) && starts_range(a[0]), {});
        goal("the plan has one copy (so no two sources)", narrow, s.count == 1, {});
        head_of(goal(none_after, after_last, !starts_range(q),
                     {floor_div(q, s.replicas) == s.replica_head, floor_div(q - 1, s.replicas) == s.replica_head},
                     {q, q - 1}),
                {{q, s.replica_head}, {q - 1, s.replica_head}});
      }
    }
  }
  return g.take();
}

namespace {

// The goals that prove, case by case, that on loadable sizings (0 <= d < D)
// MoRIIO's single copy is the general plan exactly when the guard accepts
// and the pair is divisible (AcceptedSizingIsServedCorrectly cites them).
void single_source_cases(Goals& g) {
  const Encoding& e = g.enc();
  const PlanSetting s(g);
  const z3::expr agrees = single_source_agrees(e, s);
  const z3::expr guard_accepts = e.kv_heads_guard(s.D, s.P, s.H, s.mla).ok;  // decode is the local side
  const z3::expr divisible = e.remote_rank(s.d, s.D, s.P).ok;
  const std::vector<ShownCall> calls = {s.plan_call(), {"single_source_plan", {s.d, s.P, s.D, s.H, s.mla}},
                                        {"kv_heads_guard", {s.D, s.P, s.H, s.mla}}};
  const std::string claim =
      "MoRIIO's single whole-page copy is the general plan exactly when the guard accepts and the pair is divisible";
  // P <= H: case by case, the decode side split or replicated and either
  // side larger (the cases cover it: P <= H < D means D > P). Both sides
  // split and D >= P: apart when D is no multiple of P, and otherwise with the
  // sizes' relations as lemmas, as in PlanSourcesMatchNixlOnDivisiblePairs.
  const z3::expr per_source = floor_div(s.D, s.P), source = floor_div(s.d, per_source);
  const z3::expr divides = floor_mod(s.D, s.P) == 0;
  const z3::expr split_shape = s.shape_fact(g, PrefillSide::Splits);
  const z3::expr shape = s.shape_fact(g, PrefillSide::Replicates);
  const z3::expr decode_shape[] = {s.decode_fact(g, DecodeSide::Splits), s.decode_fact(g, DecodeSide::Replicates)};
  for (const DecodeSide decode_side : kDecodeSides) {
    for (const bool decode_larger : {true, false}) {
      if (decode_side == DecodeSide::Replicates && !decode_larger) continue;  // P <= H < D: not D < P
      const bool by_divisibility = decode_side == DecodeSide::Splits && decode_larger;
      for (const bool multiple : by_divisibility ? std::vector<bool>{false, true} : std::vector<bool>{true}) {
        Goal& goal = g.add(claim + where(PrefillSide::Splits) + where(decode_side) + (decode_larger ? ", D >= P" : ", D < P") +
                               (by_divisibility ? (multiple ? ", P divides D" : ", P does not divide D") : ""),
                           s.loadable && s.on(PrefillSide::Splits) && s.on(decode_side) &&
                               (decode_larger ? s.D >= s.P : s.D < s.P) &&
                               (by_divisibility ? (multiple ? divides : !divides) : e.ctx().bool_val(true)),
                           agrees == (guard_accepts && divisible), calls);
        if (decode_side == DecodeSide::Replicates) {
          // P <= H < D: d's one head is d // (D/H), its source d // (D/P)
          // == (d // (D/H)) // (H/P), whose page holds just that head exactly
          // when H/P == 1.
          s.simplify(goal, PrefillSide::Splits, DecodeSide::Replicates, split_shape, decode_shape[1],
                     {per_source * s.P == s.D});
          goal.rewrites.emplace_back(s.D >= s.P, e.ctx().bool_val(true));
          abstract_quotient(goal, s.D, s.P);
          abstract_quotient(goal, s.d, per_source);
          goal.use(cancellation_law(e.ctx()), {per_source, s.decode_replicas, s.per_rank, s.P, s.heads_total, s.D});
          goal.lemmas.push_back(per_source == s.decode_replicas * s.per_rank);
          const z3::expr head_source = floor_div(s.replica_head, s.per_rank);
          abstract_quotient(goal, s.replica_head, s.per_rank);
          goal.use(nested_quotient_law(e.ctx()),
                   {s.d, s.decode_replicas, s.per_rank, per_source, s.replica_head, head_source});
          goal.lemmas.push_back(source == head_source);
          s.page_start(goal, e.remote_rank(s.d, s.D, s.P).value[0], PrefillSide::Splits);
          continue;
        }
        if (!by_divisibility || !multiple) continue;
        // d's heads lie in the page of d // (D/P), which holds them exactly when D == P.
        s.simplify(goal, PrefillSide::Splits, DecodeSide::Splits, split_shape, decode_shape[0],
                   {per_source * s.P == s.D});
        goal.rewrites.emplace_back(s.D >= s.P, e.ctx().bool_val(true));
        abstract_quotient(goal, s.D, s.P);
        abstract_quotient(goal, s.d, per_source);
        goal.use(cancellation_law(e.ctx()), {s.per_rank, s.per_decode_rank, per_source, s.P, s.D, s.heads_total});
        goal.lemmas.push_back(s.per_rank == s.per_decode_rank * per_source);
        abstract_quotient(goal, s.own[0], s.per_rank);
        abstract_quotient(goal, s.own[1] - 1, s.per_rank);
        // d's first and last head x: x // (H/D) == d, d // (D/P) == source.
        for (const z3::expr& x : {s.own[0], s.own[1] - 1}) {
          goal.use(nested_quotient_law(e.ctx()), {x, s.per_decode_rank, per_source, s.per_rank, s.d, source});
          goal.lemmas.push_back(floor_div(x, s.per_rank) == source);
        }
        s.page_start(goal, e.remote_rank(s.d, s.D, s.P).value[0], PrefillSide::Splits);
      }
    }
  }
  // P > H: case by case, the decode side split or replicated and either side
  // larger, with the shapes of both sides given and the quotients abstracted.
  for (const DecodeSide decode_side : kDecodeSides) {
    for (const bool decode_larger : {true, false}) {
      if (decode_side == DecodeSide::Splits && decode_larger) continue;  // D <= H < P: not D >= P
      // Both sides replicate and D >= P: apart when D is no multiple of P (no single
      // source), and otherwise with the sizes' relations as lemmas, as in
      // PlanSourcesMatchNixlOnDivisiblePairs.
      const bool by_divisibility = decode_side == DecodeSide::Replicates && decode_larger;
      for (const bool multiple : by_divisibility ? std::vector<bool>{false, true} : std::vector<bool>{true}) {
        Goal& goal = g.add(claim + where(PrefillSide::Replicates) + where(decode_side) +
                               (decode_larger ? ", D >= P" : ", D < P") +
                               (by_divisibility ? (multiple ? ", P divides D" : ", P does not divide D") : ""),
                           s.loadable && s.on(PrefillSide::Replicates) && s.on(decode_side) &&
                               (decode_larger ? s.D >= s.P : s.D < s.P) &&
                               (by_divisibility ? (multiple ? divides : !divides) : e.ctx().bool_val(true)),
                           agrees == (guard_accepts && divisible), calls);
        s.simplify(goal, PrefillSide::Replicates, decode_side, shape, decode_shape[decode_side == DecodeSide::Replicates]);
        goal.rewrites.emplace_back(s.D >= s.P, e.ctx().bool_val(decode_larger));
        goal.use(quotient_law(e.ctx()), {s.heads_total, s.P, e.num(0)});  // H // P == 0: a page is one head
        if (!decode_larger) {
          abstract_quotient(goal, s.P, s.D);
          if (decode_side == DecodeSide::Replicates) {
            // Where D divides P, P == (P/D) * D and the anchor is d * (P/D). (With the
            // decode side split, the same laws leave the definition of P/D unsettled.)
            goal.use(divides_law(e.ctx()), {s.P, s.D});
            goal.use(multiple_law(e.ctx()), {s.d, s.D, floor_div(s.P, s.D), s.P});
          }
        } else if (multiple) {
          goal.lemmas.push_back(per_source * s.P == s.D);
          abstract_quotient(goal, s.D, s.P);
          abstract_quotient(goal, s.d, per_source);
          goal.use(cancellation_law(e.ctx()), {s.decode_replicas, per_source, s.replicas, s.heads_total, s.P, s.D});
          goal.lemmas.push_back(s.decode_replicas == per_source * s.replicas);
          goal.use(fraction_law(e.ctx()), {s.d, s.P, per_source, s.D, source});  // the anchor
          goal.lemmas.push_back(s.anchor == source);
          abstract_quotient(goal, source, s.replicas);
          goal.use(nested_quotient_law(e.ctx()),
                   {s.d, per_source, s.replicas, s.decode_replicas, source, floor_div(source, s.replicas)});
          goal.lemmas.push_back(s.replica_head == floor_div(source, s.replicas));
          s.page_start(goal, source, PrefillSide::Replicates);
        }
      }
    }
  }
}

}  // namespace

std::vector<Goal> single_source_holds_exactly_the_decode_ranks_heads(const Encoding& e) {
  Goals g(e);
  single_source_cases(g);
  const PlanSetting s(g);
  const auto one = e.single_source_plan(s.d, s.P, s.D, s.H, s.mla).element(e.num(0));
  const OutcomeTerm source_heads = e.heads(one[0], s.P, s.heads_total);
  const z3::expr agrees = single_source_agrees(e, s);
  for (const PrefillSide side : kPrefillSides) {
    g.add("where it is, the single source holds exactly the decode rank's heads" + where(side),
          s.loadable && s.on(side) && agrees,
          source_heads.ok && source_heads.value[0] == s.own[0] && source_heads.value[1] == s.own[1],
          {s.plan_call(), {"heads", {one[0], s.P, s.heads_total}}});
  }
  return g.take();
}

}  // namespace tpcheck::prove
