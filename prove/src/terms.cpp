#include "tpcheck/prove/terms.hpp"

namespace tpcheck::prove {

z3::expr floor_div(const z3::expr& a, const z3::expr& b) {
  z3::context& c = a.ctx();
  return a / b - z3::ite(b < 0 && z3::mod(a, b) != 0, c.int_val(1), c.int_val(0));
}

z3::expr floor_mod(const z3::expr& a, const z3::expr& b) {
  const z3::expr m = z3::mod(a, b);
  return z3::ite(b < 0 && m != 0, m + b, m);
}

z3::expr clamp(const z3::expr& v, const z3::expr& lo, const z3::expr& hi) {
  return z3::ite(v < lo, lo, z3::ite(hi < v, hi, v));
}

z3::expr OutcomeTerm::fails_with(Message m, const std::vector<z3::expr>& args) const {
  z3::context& c = ok.ctx();
  z3::expr all = !ok && message == c.int_val(static_cast<int>(m));
  for (std::size_t i = 0; i < args.size(); ++i) all = all && message_args[i] == args[i];
  return all;
}

z3::expr OutcomeTerm::same_as(const OutcomeTerm& other) const {
  z3::context& c = ok.ctx();
  z3::expr values = c.bool_val(value.size() == other.value.size());
  for (std::size_t i = 0; i < value.size() && i < other.value.size(); ++i) values = values && value[i] == other.value[i];
  return fails_like(other) && z3::implies(ok, values);
}

z3::expr OutcomeTerm::fails_like(const OutcomeTerm& expected) const {
  z3::expr failures = message == expected.message;
  for (std::size_t i = 0; i < kMessageArgs; ++i) failures = failures && message_args[i] == expected.message_args[i];
  return ok == expected.ok && z3::implies(!ok, failures);
}

z3::expr OutcomeTerm::fails_with_kind(ErrorKind kind) const {
  z3::context& c = ok.ctx();
  z3::expr any = c.bool_val(false);
  for (const MessageInfo& info : message_infos()) {
    if (info.kind == kind) any = any || message == c.int_val(static_cast<int>(info.id));
  }
  return !ok && any;
}

void Checks::fail_if(const z3::expr& when, Message m, const std::vector<z3::expr>& args) {
  std::vector<z3::expr> padded = args;
  while (padded.size() < kMessageArgs) padded.push_back(c_.int_val(0));
  checks_.push_back({when, c_.int_val(static_cast<int>(m)), padded});
}

void Checks::fail_as(const OutcomeTerm& inner) { checks_.push_back({!inner.ok, inner.message, inner.message_args}); }

OutcomeTerm Checks::returning(std::vector<z3::expr> value) const {
  z3::expr failed = c_.bool_val(false);
  z3::expr message = c_.int_val(0);
  std::vector<z3::expr> args(kMessageArgs, c_.int_val(0));
  // Built from the last check to the first, so the first that holds wins.
  for (auto it = checks_.rbegin(); it != checks_.rend(); ++it) {
    failed = it->when || failed;
    message = z3::ite(it->when, it->message, message);
    for (std::size_t i = 0; i < kMessageArgs; ++i) args[i] = z3::ite(it->when, it->args[i], args[i]);
  }
  return {!failed, message, args, std::move(value)};
}

}  // namespace tpcheck::prove
