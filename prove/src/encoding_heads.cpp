// §4-5 as terms: lib/src/heads.cpp and lib/src/ownership.hpp.
#include "tpcheck/prove/encoding.hpp"

namespace tpcheck::prove {

OutcomeTerm Encoding::head_compatible(const z3::expr& T, const z3::expr& H) const {
  // No head shards over a non-positive number of ranks, nor do non-positive heads.
  return Checks(c_).returning({T >= 1 && H >= 1 && (floor_mod(T, H) == 0 || floor_mod(H, T) == 0)});
}

std::vector<z3::expr> Encoding::heads_of(const z3::expr& r, const z3::expr& T, const z3::expr& H) const {
  const z3::expr first = floor_div(r * H, T);
  return {first, first + max(num(1), floor_div(H, T))};
}

z3::expr Encoding::effective_heads(const z3::expr& H, const z3::expr& mla) const { return z3::ite(mla, num(1), H); }

namespace {

// The checks heads() and holders() share (check_ownership_args in the model).
Checks ownership_checks(const Encoding& e, Message out_of_range, const z3::expr& index, const z3::expr& bound,
                        const z3::expr& T, const z3::expr& H) {
  Checks checks(e.ctx());
  checks.fail_if(T <= 0, Message::TpSizeNotPositive, {T});
  checks.fail_if(H <= 0, Message::HeadsNotPositive, {H});
  checks.fail_if(index < 0 || index >= bound, out_of_range, {index, bound});
  checks.fail_if(!e.head_compatible(T, H).value[0], Message::HeadsNotShardable, {H, T});
  return checks;
}

}  // namespace

OutcomeTerm Encoding::heads(const z3::expr& r, const z3::expr& T, const z3::expr& H) const {
  return ownership_checks(*this, Message::TpRankOutOfRange, r, T, T, H).returning(heads_of(r, T, H));
}

OutcomeTerm Encoding::holders(const z3::expr& h, const z3::expr& T, const z3::expr& H) const {
  const z3::expr q = floor_div(h, floor_div(H, T));
  const z3::expr k = floor_div(T, H);
  return ownership_checks(*this, Message::HeadOutOfRange, h, H, T, H)
      .returning({z3::ite(T <= H, q, h * k), z3::ite(T <= H, q + 1, h * k + k)});
}

OutcomeTerm Encoding::kv_heads_guard(const z3::expr& L, const z3::expr& R, const z3::expr& H,
                                     const z3::expr& mla) const {
  const z3::expr checked = !(mla || L == R);  // upstream accepts these at once
  Checks checks(c_);
  checks.fail_if(checked && (L <= 0 || R <= 0 || H <= 0), Message::GuardNotPositive);
  checks.fail_if(checked && min(L, R) < H, Message::GuardNeedsReplicatedHeads, {H, L, R});
  return checks.returning({});
}

OutcomeTerm Encoding::kv_heads_guard_strict(const z3::expr& L, const z3::expr& R, const z3::expr& H,
                                            const z3::expr& mla) const {
  Checks checks(c_);
  checks.fail_if(L <= 0 || R <= 0 || H <= 0, Message::GuardNotPositive);
  checks.fail_as(kv_heads_guard(L, R, H, mla));
  return checks.returning({});
}

}  // namespace tpcheck::prove
