// Proof of AcceptedSizingIsServedCorrectly (SPEC §9.6 with §11): the
// predicate's loops over every decode and prefill rank become a symbolic d and p.
#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {

std::vector<Goal> accepted_sizing_is_served_correctly(const Encoding& e) {
  Goals g(e);
  const z3::expr P = g.integer("P"), D = g.integer("D"), H = g.integer("H"), mla = g.flag("mla");
  const z3::expr d = g.integer("d"), p = g.integer("p");
  const auto accepts = [&](ConnectorTerm c) { return e.sizing_accepted(c, P, D, H, mla).ok; };
  const z3::expr heads_total = z3::ite(mla, e.num(1), H);
  const z3::expr loadable = heads_shard(P, heads_total) && heads_shard(D, heads_total);
  const z3::expr any = e.ctx().bool_val(true);
  const auto sizing_call = [&](const char* connector) {
    return ShownCall{std::string("sizing_accepted_") + connector, {P, D, H, mla}};
  };
  g.add("the general connector accepts exactly the loadable sizings", any, accepts(ConnectorTerm::General) == loadable,
        {sizing_call("general")});
  g.add("what moriio accepts, mooncake accepts", accepts(ConnectorTerm::MoRIIO), accepts(ConnectorTerm::Mooncake),
        {sizing_call("moriio"), sizing_call("mooncake")});
  // §11: NIXL refuses a larger prefill side that replicates heads, and
  // otherwise accepts exactly what Mooncake accepts.
  const z3::expr unread_replicas = !mla && P > D && P > H;
  g.add("nixl accepts exactly what mooncake accepts, except not mla and P > D and P > H", any,
        accepts(ConnectorTerm::Nixl) == (accepts(ConnectorTerm::Mooncake) && !unread_replicas),
        {sizing_call("nixl"), sizing_call("mooncake")});
  g.add("what nixl or mooncake accepts is loadable", accepts(ConnectorTerm::Nixl) || accepts(ConnectorTerm::Mooncake),
        loadable, {sizing_call("nixl"), sizing_call("mooncake")});
  const OperationTerm single = e.single_source_plan(d, P, D, H, mla);
  const OperationTerm general = e.plan(d, P, D, H, mla);
  const auto one = single.element(e.num(0)), first = general.element(e.num(0));
  // SingleSourceHoldsExactlyTheDecodeRanksHeads's proved statement, cited
  // (its inputs d, P, D, H, mla are these): the single copy is the general
  // plan exactly where the guard accepts a divisible pair.
  Goal& plan_goal = g.add("where moriio accepts, every decode rank's single whole-page copy is its general plan",
        accepts(ConnectorTerm::MoRIIO) && 0 <= d && d < D,
        single.outcome.ok && general.outcome.ok && general.outcome.value[0] == 1 && one[0] == first[0] &&
            one[1] == first[1] && one[2] == first[2],
        {sizing_call("moriio"), {"single_source_plan", {d, P, D, H, mla}}, {"plan", {d, P, D, H, mla}}});
  plan_goal.cite(g.cite("SingleSourceHoldsExactlyTheDecodeRanksHeads"));
  // Readers, case by case: what moriio accepts is a loadable divisible pair
  // whose sides are equal or both at least the heads (a fact of its own);
  // then equal sides, a larger decode side, a larger prefill side: the three
  // orderings of P and D, so the cases cover every sizing.
  const OutcomeTerm single_count = e.single_readers(p, P, D), count = e.readers(p, P, D, H, mla);
  const z3::expr moriio_rank = accepts(ConnectorTerm::MoRIIO) && 0 <= p && p < P;
  const z3::expr accepted_shape =
      g.fact("what moriio accepts is loadable, a divisible pair, with equal sides or both at least the heads",
             accepts(ConnectorTerm::MoRIIO),
             loadable && divisible_pair(P, D) && (P == D || (P >= heads_total && D >= heads_total)),
             {sizing_call("moriio")});
  const z3::expr readers_agree = single_count.ok && count.ok && single_count.value[0] == count.value[0];
  const std::vector<ShownCall> readers_calls = {
      sizing_call("moriio"), {"single_readers", {p, P, D}}, {"readers", {p, P, D, H, mla}}};
  const std::string readers_claim = "where moriio accepts, every prefill rank's single_readers equals its readers, ";
  const auto readers_goal = [&](const std::string& name, const z3::expr& where) -> Goal& {
    Goal& goal = g.add(readers_claim + name, moriio_rank && where, readers_agree, readers_calls);
    goal.given.push_back(accepted_shape);
    return goal;
  };
  const Law quotient = quotient_law(e.ctx());
  // Equal sides: every prefill rank has one reader, the decode rank of the same heads.
  for (const bool splits : {true, false}) {
    Goal& goal = readers_goal(splits ? "P == D <= H" : "P == D > H", P == D && (splits ? P <= heads_total : P > heads_total));
    goal.rewrites.emplace_back(D, P);
    goal.use(quotient, {P, P, e.num(1)});
    if (splits) {
      // p's heads are [p * m, + m) with m = H/P, which m divides.
      const z3::expr m = floor_div(heads_total, P), own = floor_div(p * heads_total, P);
      goal.lemmas.push_back(floor_mod(heads_total, P) == 0);
      goal.use(divides_law(e.ctx()), {heads_total, P});
      abstract_quotient(goal, heads_total, P);
      goal.lemmas.push_back(m * P == heads_total);
      goal.lemmas.push_back(own == p * m);
      goal.use(quotient, {p * m + m - 1, m, p});
      goal.use(quotient, {p * m, m, p});
    } else {
      goal.use(quotient, {-((p + 1) * P), P, -(p + 1)});
      goal.use(quotient, {-(p * P), P, -p});
    }
  }
  readers_goal("D > P", D > P);
  // A larger prefill side: P == w * D, and p == w * q + m; the readers are the
  // preimage of p, one rank when m == 0, else none.
  for (const bool decode_splits : {true, false}) {
    Goal& goal = readers_goal(decode_splits ? "D < P, D <= H" : "D < P, D > H",
                              D < P && (decode_splits ? D <= heads_total : D > heads_total));
    const z3::expr w = floor_div(P, D);
    goal.lemmas.push_back(floor_mod(P, D) == 0);
    goal.use(divides_law(e.ctx()), {P, D});
    abstract_quotient(goal, P, D);
    goal.lemmas.push_back(w * D == P);
    if (!decode_splits) {
      const z3::expr q = floor_div(p, w), m = floor_mod(p, w);
      abstract_remainder(goal, p, w);
      goal.use(quotient, {-((p + 1) * D), P, -(q + 1)});
      goal.use(quotient, {-(p * D), P, z3::ite(m == 0, -q, -q - 1)});
    }
  }
  return g.take();
}

}  // namespace tpcheck::prove
