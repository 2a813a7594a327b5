// Z3 terms for Python integer arithmetic and for the outcome of a model
// operation (a value, or a failure with its message and arguments).
#pragma once

#include <functional>
#include <vector>

#include <z3++.h>

#include "tpcheck/prove/messages.hpp"

namespace tpcheck::prove {

// Python's a // b and a % b, for b != 0. SMT-LIB's div and mod are Euclidean
// (0 <= a mod b < |b|), which is Python's floor only for b > 0: for b < 0 the
// Euclidean quotient is one more than the floor whenever b does not divide a.
z3::expr floor_div(const z3::expr& a, const z3::expr& b);
z3::expr floor_mod(const z3::expr& a, const z3::expr& b);

// (max and min are Z3's own, z3::max and z3::min.)
// std::clamp(v, lo, hi): lo when v < lo, hi when hi < v, else v.
z3::expr clamp(const z3::expr& v, const z3::expr& lo, const z3::expr& hi);

// The outcome of one operation on symbolic arguments. `message` and
// `message_args` mean something only when `ok` is false, `value` only when it
// is true. A value is a tuple of terms: one Int (a rank, a count), two (a
// span [first, end)), one Bool (head_compatible) or none (None).
struct OutcomeTerm {
  z3::expr ok;
  z3::expr message;                      // a Message number
  std::vector<z3::expr> message_args;    // kMessageArgs of them
  std::vector<z3::expr> value;

  z3::expr fails_with(Message m, const std::vector<z3::expr>& args = {}) const;
  // The same outcome as `other`: both succeed with equal values, or both fail
  // with the same message and arguments.
  z3::expr same_as(const OutcomeTerm& other) const;
  // Succeeds exactly when `expected` does, and otherwise fails with the same
  // message and arguments (values are not compared).
  z3::expr fails_like(const OutcomeTerm& expected) const;
  // Fails with a message of this kind.
  z3::expr fails_with_kind(ErrorKind kind) const;
};

// An operation whose value is a list (window, plan): the outcome's value is
// the length, and element(i) the i-th element for 0 <= i < length. Operations
// with a plain value have no element function.
struct OperationTerm {
  OutcomeTerm outcome;
  std::function<std::vector<z3::expr>(const z3::expr& index)> element;
};

// The checks of one operation, first failure wins: each check fails when its
// condition holds and no earlier one did.
class Checks {
 public:
  explicit Checks(z3::context& c) : c_(c) {}
  void fail_if(const z3::expr& when, Message m, const std::vector<z3::expr>& args = {});
  // Fails as `inner` does, when it does (a model function calling another).
  void fail_as(const OutcomeTerm& inner);
  OutcomeTerm returning(std::vector<z3::expr> value) const;

 private:
  struct Check {
    z3::expr when;
    z3::expr message;
    std::vector<z3::expr> args;
  };
  z3::context& c_;
  std::vector<Check> checks_;
};

}  // namespace tpcheck::prove
