// §6-7 as terms: lib/src/plan.cpp, segment by segment as the model computes
// the plan (P <= H: one copy per prefill rank whose heads d's heads touch;
// P > H: one copy per head of d, from the anchor clamped into its holders).
#include "tpcheck/prove/encoding.hpp"

namespace tpcheck::prove {

Checks Encoding::validate_sizing(const z3::expr& rank, bool rank_is_decode, const z3::expr& P, const z3::expr& D,
                                 const z3::expr& H, const z3::expr& mla) const {
  Checks checks(c_);
  checks.fail_if(P <= 0, Message::PrefillSizeNotPositive, {P});
  checks.fail_if(D <= 0, Message::DecodeSizeNotPositive, {D});
  checks.fail_if(!mla && H <= 0, Message::HeadsNotPositive, {H});
  const z3::expr& bound = rank_is_decode ? D : P;
  checks.fail_if(rank < 0 || rank >= bound,
                 rank_is_decode ? Message::DecodeRankOutOfRange : Message::PrefillRankOutOfRange, {rank, bound});
  const z3::expr heads_total = effective_heads(H, mla);
  checks.fail_if(!head_compatible(P, heads_total).value[0], Message::HeadsNotShardableOverPrefill, {heads_total, P});
  checks.fail_if(!head_compatible(D, heads_total).value[0], Message::HeadsNotShardableOverDecode, {heads_total, D});
  return checks;
}

z3::expr Encoding::copy_count(const z3::expr& d, const z3::expr& P, const z3::expr& D, const z3::expr& Heff) const {
  const auto own = heads_of(d, D, Heff);
  const z3::expr per_rank = floor_div(Heff, P);
  return z3::ite(P <= Heff, floor_div(own[1] - 1, per_rank) - floor_div(own[0], per_rank) + 1, own[1] - own[0]);
}

OutcomeTerm Encoding::plan_copy_count(const z3::expr& d, const z3::expr& P, const z3::expr& D, const z3::expr& H,
                                      const z3::expr& mla) const {
  return validate_sizing(d, true, P, D, H, mla).returning({copy_count(d, P, D, effective_heads(H, mla))});
}

OperationTerm Encoding::plan_copies(const z3::expr& d, const z3::expr& P, const z3::expr& D, const z3::expr& H,
                                    const z3::expr& mla) const {
  const z3::expr Heff = effective_heads(H, mla);
  const auto own = heads_of(d, D, Heff);
  const z3::expr per_rank = floor_div(Heff, P);
  const z3::expr k = floor_div(P, Heff);
  const z3::expr anchor = floor_div(d * P, D);
  const z3::expr prefill_splits = P <= Heff;
  auto element = [own, per_rank, k, anchor, prefill_splits](const z3::expr& j) {
    const z3::expr p = floor_div(own[0], per_rank) + j;  // P <= H: the j-th prefill rank d's heads touch
    const z3::expr h = own[0] + j;                       // P > H: the j-th head of d
    const z3::expr lo = h * k;
    return std::vector<z3::expr>{
        z3::ite(prefill_splits, p, clamp(anchor, lo, lo + k - 1)),
        z3::ite(prefill_splits, max(own[0], p * per_rank), h),
        z3::ite(prefill_splits, min(own[1], (p + 1) * per_rank), h + 1),
    };
  };
  return {plan_copy_count(d, P, D, H, mla), element};
}

OperationTerm Encoding::plan(const z3::expr& d, const z3::expr& P, const z3::expr& D, const z3::expr& H,
                             const z3::expr& mla) const {
  OperationTerm copies = plan_copies(d, P, D, H, mla);
  Checks checks(c_);
  checks.fail_as(copies.outcome);
  checks.fail_if(copies.outcome.value[0] > list_limit(), Message::PlanTooLong, {d, copies.outcome.value[0]});
  return {checks.returning(copies.outcome.value), copies.element};
}

OperationTerm Encoding::single_source_plan(const z3::expr& d, const z3::expr& P, const z3::expr& D,
                                           const z3::expr& H, const z3::expr& mla) const {
  Checks checks = validate_sizing(d, true, P, D, H, mla);
  const OutcomeTerm source = remote_rank(d, D, P);  // decode is the local side
  checks.fail_as(source);
  const z3::expr q = source.value[0];
  const auto page = heads_of(q, P, effective_heads(H, mla));  // the source's whole page
  return {checks.returning({num(1)}), [q, page](const z3::expr&) { return std::vector<z3::expr>{q, page[0], page[1]}; }};
}

OutcomeTerm Encoding::readers(const z3::expr& p, const z3::expr& P, const z3::expr& D, const z3::expr& H,
                              const z3::expr& mla) const {
  const Checks checks = validate_sizing(p, false, P, D, H, mla);
  const z3::expr Heff = effective_heads(H, mla);
  const auto own = heads_of(p, P, Heff);
  const z3::expr per_decode = floor_div(Heff, D);
  // P <= H: p is the only holder of its heads; every decode rank holding one reads it.
  const z3::expr sole_holder = z3::ite(D <= Heff, floor_div(own[1] - 1, per_decode) - floor_div(own[0], per_decode) + 1,
                                       (own[1] - own[0]) * floor_div(D, Heff));
  const z3::expr k = floor_div(P, Heff);
  // P > H, D <= H: the one decode holder of p's head anchors at its first replica.
  const z3::expr first_replica = z3::ite(floor_mod(p, k) == 0, num(1), num(0));
  // P > H, D > H: p's readers are the preimage of p under floor(d * P / D).
  const z3::expr preimage = -floor_div(-((p + 1) * D), P) + floor_div(-(p * D), P);
  return checks.returning({z3::ite(P <= Heff, sole_holder, z3::ite(D <= Heff, first_replica, preimage))});
}

OutcomeTerm Encoding::whole_block_copy_allowed(const z3::expr& P, const z3::expr& D, const z3::expr& H,
                                               const z3::expr& mla, const z3::expr& prefill_adp,
                                               const z3::expr& decode_adp) const {
  Checks checks(c_);
  checks.fail_if(P <= 0, Message::PrefillSizeNotPositive, {P});
  checks.fail_if(D <= 0, Message::DecodeSizeNotPositive, {D});
  checks.fail_if(!mla && H <= 0, Message::HeadsNotPositive, {H});
  const z3::expr P1 = z3::ite(prefill_adp, num(1), P), D1 = z3::ite(decode_adp, num(1), D);
  const z3::expr heads_total = effective_heads(H, mla);
  checks.fail_if(!head_compatible(P1, heads_total).value[0], Message::HeadsNotShardableOverPrefill, {heads_total, P1});
  checks.fail_if(!head_compatible(D1, heads_total).value[0], Message::HeadsNotShardableOverDecode, {heads_total, D1});
  // n = max(1, H // T') heads a rank, 1 under MLA (H folded to 1 gives it).
  const auto per_rank = [&](const z3::expr& T) { return max(num(1), floor_div(heads_total, T)); };
  return checks.returning({per_rank(P1) == per_rank(D1)});
}

OutcomeTerm Encoding::single_readers(const z3::expr& p, const z3::expr& P, const z3::expr& D) const {
  Checks checks(c_);
  checks.fail_if(P <= 0 || D <= 0, Message::TpSizesMustBePositive);
  checks.fail_if(p < 0 || p >= P, Message::ProducerRankOutOfRange, {p, P});
  checks.fail_if(D >= P && floor_mod(D, P) != 0, Message::ConsumerNotMultiple, {D, P});
  checks.fail_if(D < P && floor_mod(P, D) != 0, Message::ProducerNotMultiple, {P, D});
  return checks.returning(
      {z3::ite(D >= P, floor_div(D, P), z3::ite(floor_mod(p, floor_div(P, D)) == 0, num(1), num(0)))});
}

}  // namespace tpcheck::prove
