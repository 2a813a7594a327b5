// Proof of WholeBlockCopyOnlyBetweenEqualHeadsPerRank (SPEC §15.4.4): over
// each side's TP size per attention-DP group (1 under its flag, whose ranks
// hold every head), the first copy of decode rank d's plan is one whole block
// on both sides exactly when both sides hold as many heads per rank, and then
// it is the plan's only copy. (The predicate asks that every copy be whole:
// with one copy that is the first; and a first copy that is not whole is a
// copy that is not.)
#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {
namespace {

// A decode rank of a sizing loadable per DP group, and the first copy of its plan.
struct WholeBlockSetting {
  z3::expr d, P, D, H, mla, prefill_adp, decode_adp;
  z3::expr P1, D1, d1;   // the TP sizes per group and d's rank in its group
  z3::expr heads_total;  // H, or 1 with MLA
  z3::expr loadable;
  z3::expr allowed;      // whole_block_copy_allowed succeeds with True
  OperationTerm copies;
  z3::expr count;
  std::vector<z3::expr> first, own, page;  // the first copy, d's heads, its source's heads
  z3::expr whole;

  explicit WholeBlockSetting(Goals& g)
      : d(g.integer("d")), P(g.integer("P")), D(g.integer("D")), H(g.integer("H")), mla(g.flag("mla")),
        prefill_adp(g.flag("prefill_adp")), decode_adp(g.flag("decode_adp")),
        P1(z3::ite(prefill_adp, g.enc().num(1), P)), D1(z3::ite(decode_adp, g.enc().num(1), D)),
        d1(z3::ite(decode_adp, g.enc().num(0), d)), heads_total(g.enc().effective_heads(H, mla)),
        loadable(P >= 1 && D >= 1 && heads_shard(P1, heads_total) && heads_shard(D1, heads_total) && 0 <= d && d < D),
        allowed(whole_block(g.enc())), copies(g.enc().plan_copies(d1, P1, D1, H, mla)),
        count(copies.outcome.value[0]), first(copies.element(g.enc().num(0))),
        own(g.enc().heads_of(d1, D1, heads_total)), page(g.enc().heads_of(first[0], P1, heads_total)),
        whole(first[1] == own[0] && first[2] == own[1] && page[0] == own[0] && page[1] == own[1]) {}

  z3::expr whole_block(const Encoding& e) const {
    const OutcomeTerm o = e.whole_block_copy_allowed(P, D, H, mla, prefill_adp, decode_adp);
    return o.ok && o.value[0];
  }
  std::vector<ShownCall> calls() const {
    return {{"whole_block_copy_allowed", {P, D, H, mla, prefill_adp, decode_adp}}, {"plan", {d1, P1, D1, H, mla}}};
  }
};

std::string adp_text(bool prefill, bool decode) {
  if (prefill && decode) return "both sides under attention DP";
  if (prefill) return "prefill under attention DP";
  if (decode) return "decode under attention DP";
  return "no attention DP";
}

}  // namespace

std::vector<Goal> whole_block_copy_only_between_equal_heads_per_rank(const Encoding& e) {
  Goals g(e);
  const WholeBlockSetting s(g);
  z3::context& c = e.ctx();
  // One side's block is the other's: the same length, max(1, H // T') both.
  g.add("a first copy that is one whole block on both sides means as many heads per rank on both sides",
        s.loadable && s.whole, s.allowed, s.calls());
  // One side holding several heads a rank and the other one: not as many
  // (H // T' >= 2 on the side that splits the heads over fewer ranks).
  for (const bool prefill_splits : {true, false}) {
    const z3::expr splits = prefill_splits ? s.P1 : s.D1, holds_one = prefill_splits ? s.D1 : s.P1;
    Goal& goal = g.add(std::string("the ") + (prefill_splits ? "prefill" : "decode") +
                           " side holds several heads a rank and the other one: not as many heads per rank",
                       s.loadable && splits < s.heads_total && holds_one >= s.heads_total, !s.allowed, s.calls());
    goal.use(divides_law(c), {s.heads_total, splits});
  }
  // As many heads per rank: one copy, whole, case by case (attention DP on
  // either side, then each side splitting the heads or holding one).
  for (const bool prefill : {false, true}) {
    for (const bool decode : {false, true}) {
      const z3::expr flags = (prefill ? s.prefill_adp : !s.prefill_adp) && (decode ? s.decode_adp : !s.decode_adp);
      for (const bool one_head : {true, false}) {
        // One head a rank on both sides (each holds at least as many ranks
        // per group as heads), or several (each holds fewer).
        const z3::expr shape = one_head ? s.P1 >= s.heads_total && s.D1 >= s.heads_total
                                        : s.P1 < s.heads_total && s.D1 < s.heads_total;
        Goal& goal = g.add("as many heads per rank on both sides: the plan is one copy of a whole block, " +
                               adp_text(prefill, decode) + (one_head ? ", one head a rank" : ", several heads a rank"),
                           s.loadable && flags && shape && s.allowed, s.count == 1 && s.whole, s.calls());
        goal.rewrites.emplace_back(s.prefill_adp, c.bool_val(prefill));
        goal.rewrites.emplace_back(s.decode_adp, c.bool_val(decode));
        const z3::expr P1 = prefill ? e.num(1) : s.P, D1 = decode ? e.num(1) : s.D;
        const z3::expr d1 = decode ? e.num(0) : s.d;
        if (one_head) {
          // The decode rank's one head h = floor(d1 * H / D1); its source holds h exactly.
          const z3::expr replicas = floor_div(P1, s.heads_total);
          const z3::expr h = floor_div(d1 * s.heads_total, D1);
          goal.lemmas.push_back(floor_mod(P1, s.heads_total) == 0);
          goal.use(divides_law(c), {P1, s.heads_total});
          goal.lemmas.push_back(replicas * s.heads_total == P1);
          goal.use(quotient_definition_law(c), {s.first[0], replicas});
          goal.use(fraction_law(c), {s.first[0], s.heads_total, replicas, P1, floor_div(s.first[0], replicas)});
          goal.abstracted.push_back(h);
        } else {
          // Several heads a rank, as many on both sides: P' == D' (both divide
          // H into parts of the same size m), and d's heads are prefill d's.
          const z3::expr m = floor_div(s.heads_total, P1);
          goal.use(divides_law(c), {s.heads_total, P1});
          goal.use(divides_law(c), {s.heads_total, D1});
          goal.lemmas.push_back(m * P1 == s.heads_total && floor_div(s.heads_total, D1) * D1 == s.heads_total);
          goal.lemmas.push_back(P1 == D1);
          goal.use(multiple_law(c), {d1, P1, m, s.heads_total});
          goal.lemmas.push_back(s.own[0] == d1 * m);
          goal.use(quotient_law(c), {d1 * m, m, d1});
          goal.use(quotient_law(c), {d1 * m + m - 1, m, d1});
          goal.lemmas.push_back(s.first[0] == d1);
        }
      }
    }
  }
  return g.take();
}

}  // namespace tpcheck::prove
