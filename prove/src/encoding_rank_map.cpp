// §1-3 as terms: lib/src/rank_map.cpp, check for check.
#include "tpcheck/prove/encoding.hpp"
#include "tpcheck/model.hpp"

namespace tpcheck::prove {

OutcomeTerm Encoding::remote_rank(const z3::expr& r, const z3::expr& L, const z3::expr& R) const {
  Checks checks(c_);
  checks.fail_if(L <= 0 || R <= 0, Message::TpSizesMustBePositive);
  checks.fail_if(r < 0 || r >= L, Message::LocalRankOutOfRange, {r, L});
  checks.fail_if(R > L && floor_mod(R, L) != 0, Message::RemoteNotMultiple, {R, L});
  checks.fail_if(R < L && floor_mod(L, R) != 0, Message::LocalNotMultiple, {L, R});
  return checks.returning({z3::ite(L == R, r, z3::ite(R > L, r * floor_div(R, L), floor_div(r, floor_div(L, R))))});
}

OutcomeTerm Encoding::general_rank(const z3::expr& r, const z3::expr& L, const z3::expr& R) const {
  Checks checks(c_);
  checks.fail_if(L <= 0 || R <= 0, Message::TpSizesMustBePositive);
  checks.fail_if(r < 0 || r >= L, Message::LocalRankOutOfRange, {r, L});
  return checks.returning({floor_div(r * R, L)});
}

OutcomeTerm Encoding::tp_ratio(const z3::expr& L, const z3::expr& R) const {
  Checks checks(c_);
  checks.fail_if(L <= 0, Message::LocalSizeNotPositive, {L});
  checks.fail_if(R <= 0, Message::RemoteSizeNotPositive, {R});
  checks.fail_if(L >= R && floor_mod(L, R) != 0, Message::LocalNotDivisible, {L, R});
  checks.fail_if(L < R && floor_mod(R, L) != 0, Message::RemoteNotDivisible, {R, L});
  return checks.returning({z3::ite(L >= R, floor_div(L, R), -floor_div(R, L))});
}

OutcomeTerm Encoding::window_span(const z3::expr& r, const z3::expr& L, const z3::expr& R) const {
  Checks checks(c_);
  checks.fail_if(L <= 0, Message::LocalSizeNotPositive, {L});
  checks.fail_if(R <= 0, Message::RemoteSizeNotPositive, {R});
  checks.fail_if(r < 0 || r >= L, Message::LocalRankOutOfRange, {r, L});
  const OutcomeTerm ratio = tp_ratio(L, R);
  checks.fail_as(ratio);
  const z3::expr& t = ratio.value[0];
  const z3::expr k = -t;
  const z3::expr wide_end = fault_ == Fault::WindowOneRankTooLong ? r * k + k + 1 : r * k + k;
  return checks.returning({z3::ite(t > 0, floor_div(r, t), r * k), z3::ite(t > 0, floor_div(r, t) + 1, wide_end)});
}

z3::expr Encoding::list_limit() const { return num(kMaxListed); }

OperationTerm Encoding::window(const z3::expr& r, const z3::expr& L, const z3::expr& R) const {
  const OutcomeTerm span = window_span(r, L, R);
  const z3::expr first = span.value[0];
  const z3::expr size = span.value[1] - first;
  Checks checks(c_);
  checks.fail_as(span);
  checks.fail_if(size > list_limit(), Message::WindowTooLong, {r, size});
  return {checks.returning({size}), [first](const z3::expr& i) { return std::vector<z3::expr>{first + i}; }};
}

}  // namespace tpcheck::prove
