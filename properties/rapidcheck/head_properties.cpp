// SPEC §4-6 and §9.4-9.7 on KV head ownership, the head guards and the read
// plans.
#include "property.hpp"

namespace tpcheck::rcprop {
namespace {

using rcgen::draw_head_case;

// The decode rank a plan property looks at: mostly valid, sometimes not.
template <ModelInt Int>
Int draw_decode_rank(const Int& D) {
  return rcgen::to_model<Int>(rcgen::draw_rank<Int>(widen(D), 5));
}

// How P and D relate, for the distribution.
template <ModelInt Int>
std::string pair_kind(const Int& P, const Int& D) {
  if (P < 1 || D < 1) return "P or D not positive";
  if (P == D) return "P == D";
  return std::string(inv::divisible_pair(P, D) ? "divisible" : "not divisible") + (P < D ? ", D > P" : ", P > D");
}

template <ModelInt Int>
void tag_deployment(const rcgen::HeadCase<Int>& c) {
  RC_TAG(c.shape, pair_kind(c.P, c.D), magnitude(c.P, c.D, c.H), c.mla ? "mla" : "not mla");
}

// §9.4 on both head guards; both directions of the guard are asked.
TPCHECK_PROPERTY(HeadGuardsDecideAsSpecified) {
  const auto c = draw_head_case<Int>();
  tag_deployment(c);
  RC_TAG("kv_heads_guard: " + outcome_kind(kv_heads_guard(c.D, c.P, c.H, c.mla)));
  hold(inv::guards_decide_as_specified(c.D, c.P, c.H, c.mla));
  hold(inv::guards_decide_as_specified(c.P, c.D, c.H, c.mla));
}

// §9.4 on §4: heads and holders fail exactly on invalid input.
TPCHECK_PROPERTY(HeadOwnershipFailsExactlyOnInvalidInput) {
  const auto c = draw_head_case<Int>();
  const Int r = rcgen::to_model<Int>(rcgen::draw_rank<Int>(widen(std::max(c.D, c.H)), 5));
  tag_deployment(c);
  RC_TAG("heads: " + outcome_kind(heads(r, c.D, c.H)), "holders: " + outcome_kind(holders(r, c.D, c.H)));
  hold(inv::ownership_errors_exactly_where_due(r, c.D, c.H));
}

// §4 on the decode side of a deployment.
TPCHECK_PROPERTY(HoldersHoldExactlyTheirHead) {
  const auto c = draw_head_case<Int>();
  const Int h = rcgen::to_model<Int>(rcgen::draw_rank<Int>(widen(c.H), 5));
  tag_deployment(c);
  RC_CLASSIFY(c.D >= 1 && c.H >= 1 && c.D > c.H, "heads replicated (T > H)");
  RC_CLASSIFY(c.D >= 1 && c.H >= 1 && c.D <= c.H, "heads split (T <= H)");
  hold(inv::holders_hold_the_head(h, c.D, c.H));
}

// §9.6
TPCHECK_PROPERTY(SingleSourceHoldsExactlyTheDecodeRanksHeads) {
  const auto c = draw_head_case<Int>();
  const Int d = draw_decode_rank(c.D);
  tag_deployment(c);
  RC_TAG("guard: " + outcome_kind(kv_heads_guard(c.D, c.P, c.H, c.mla)));
  hold(inv::single_source_holds_own_heads(d, c.P, c.D, c.H, c.mla));
}

// §9.7
TPCHECK_PROPERTY(PlanPartitionsTheDecodeRanksHeads) {
  const auto c = draw_head_case<Int>();
  const Int d = draw_decode_rank(c.D);
  tag_deployment(c);
  const Outcome<Int> copies = plan_copy_count(d, c.P, c.D, c.H, c.mla);
  RC_CLASSIFY(copies.ok() && copies.value() == 1, "one copy");
  RC_CLASSIFY(copies.ok() && copies.value() > 1, "several copies");
  RC_CLASSIFY(!copies.ok(), "plan refused");
  hold(inv::plan_partitions_own_heads(d, c.P, c.D, c.H, c.mla));
}

// §6: the segment-wise plan equals the SPEC's head-by-head definition.
TPCHECK_PROPERTY(PlanFollowsTheHeadByHeadRule) {
  const auto c = draw_head_case<Int>();
  const Int d = draw_decode_rank(c.D);
  tag_deployment(c);
  hold(inv::plan_matches_head_by_head_rule(d, c.P, c.D, c.H, c.mla));
}

// §9.5: plan sources on divisible pairs are NIXL's.
TPCHECK_PROPERTY(PlanSourcesMatchNixlOnDivisiblePairs) {
  const auto c = draw_head_case<Int>();
  const Int d = draw_decode_rank(c.D);
  tag_deployment(c);
  hold(inv::plan_sources_match_nixl(d, c.P, c.D, c.H, c.mla));
}

}  // namespace
}  // namespace tpcheck::rcprop
