// What the predicates share: naming a call, and comparing a model outcome with
// the one the SPEC expects without building a report's text unless they differ.
#pragma once

#include <string>

#include "tpcheck/invariants.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/render.hpp"

namespace tpcheck::inv {

// "name(a, b, c)" in Python's notation.
template <class... Args>
std::string call(const char* name, const Args&... args) {
  std::string out = std::string(name) + "(";
  bool first = true;
  ((out += (first ? "" : ", ") + render(args), first = false), ...);
  return out + ")";
}

namespace detail {

// A piece of an expected message, into a FailureText: a literal by pointer
// (the parts are string literals), an integer as the model keeps one, a
// cpp_int as its digits (equal to the model's int64 piece as text).
inline void add(FailureText& m, const char* part) { m.add_literal(part); }
inline void add(FailureText& m, std::int64_t v) { m.add_integer(v); }
inline void add(FailureText& m, const BigInt& v) { m.add_digits(decimal(v)); }

}  // namespace detail

// A failure the SPEC expects: its exception class and its message's pieces
// (string literals and integers), as the model builds its own. It compares
// with the model's failure by FailureText's equality: piece by piece where
// the SPEC's pieces are the model's, as text where they are split otherwise,
// so the expected text is spelled out only for a report.
template <class... Parts>
Failure expected_failure(ErrorKind kind, const Parts&... parts) {
  static_assert(sizeof...(Parts) <= FailureText::kMaxPieces, "more pieces than a FailureText holds");
  Failure f{kind, FailureText()};
  (detail::add(f.message, parts), ...);
  return f;
}

template <class... Parts>
Failure expected_value_error(const Parts&... parts) {
  return expected_failure(ErrorKind::ValueError, parts...);
}

template <class... Parts>
Failure expected_assertion_error(const Parts&... parts) {
  return expected_failure(ErrorKind::AssertionError, parts...);
}

template <class... Parts>
Failure expected_not_implemented(const Parts&... parts) {
  return expected_failure(ErrorKind::NotImplementedError, parts...);
}

// Holds when `got` is the expected failure. `what` names the call; it is a
// callable so the name is only built for a report.
template <class V, class Describe>
Verdict expect_failure(Describe&& what, const Outcome<V>& got, const Failure& expected) {
  if (!got.ok() && got.failure() == expected) return holds();
  return violated(what() + " gave " + render(got) + ", expected " + render(expected));
}

// Holds when `got` is the expected value.
template <class V, class Describe>
Verdict expect_value(Describe&& what, const Outcome<V>& got, const V& expected) {
  if (got.ok() && got.value() == expected) return holds();
  return violated(what() + " gave " + render(got) + ", expected " + render(expected));
}

// Holds when `got` is a value (any); the SPEC expects no failure here.
template <class V, class Describe>
Verdict expect_success(Describe&& what, const Outcome<V>& got, const char* because) {
  if (got.ok()) return holds();
  return violated(what() + " failed " + because + ": " + render(got.failure()));
}

// A model call (named by `call_text`) that failed on a configuration the SPEC
// accepts: a fault of the model.
inline Verdict failed_on_valid(const std::string& call_text, const Failure& failure) {
  return violated(call_text + " failed on a valid configuration: " + render(failure));
}

// The first r in [0, L) with map(r) >= x (L when none), for a monotone map.
// `guess` is where it should be (the closed form of the correct map): when
// the map confirms it (map(guess - 1) < x <= map(guess)), monotonicity makes
// it the answer in two calls; otherwise a binary search finds the true one.
// Either way the answer is the map's own, not the guess: a wrong map is
// caught as before, and a case with sizes near 2^320 stays cheap.
template <ModelInt Int, class Map>
Int first_reaching(const Int& x, const Int& L, Map map, const Int& guess) {
  if (guess >= 0 && guess <= L && (guess == L || map(guess) >= x) && (guess == 0 || map(Int(guess - 1)) < x)) {
    return guess;
  }
  Int lo = 0;
  Int hi = L;
  while (lo < hi) {
    const Int mid = lo + floor_div<Int>(Int(hi - lo), Int(2));
    if (map(mid) >= x) {
      hi = mid;
    } else {
      lo = Int(mid + 1);
    }
  }
  return lo;
}

}  // namespace tpcheck::inv
