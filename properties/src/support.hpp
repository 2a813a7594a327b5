// What the predicates share: naming a call, and comparing a model outcome with
// the one the SPEC expects without building any text unless they differ.
#pragma once

#include <charconv>
#include <cstring>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

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

// Consumes `part` from the front of `rest`; false when `rest` does not start with it.
inline bool consume(std::string_view& rest, std::string_view part) {
  if (rest.substr(0, part.size()) != part) return false;
  rest.remove_prefix(part.size());
  return true;
}
inline bool consume(std::string_view& rest, const char* part) { return consume(rest, std::string_view(part)); }
inline bool consume(std::string_view& rest, std::int64_t v) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
  return consume(rest, std::string_view(digits, static_cast<std::size_t>(end - digits)));
}
inline bool consume(std::string_view& rest, const BigInt& v) { return consume(rest, std::string_view(decimal(v))); }

inline std::string piece(const char* part) { return part; }
inline std::string piece(std::int64_t v) { return decimal(v); }
inline std::string piece(const BigInt& v) { return decimal(v); }

}  // namespace detail

// How a piece of an expected message is kept: a literal as a pointer, an integer by value.
template <class P>
using Piece = std::conditional_t<std::is_array_v<P>, const std::remove_extent_t<P>*, P>;

// A failure the SPEC expects: its exception class and its message as pieces
// (literal text and integers), matched against the model's failure piece by
// piece, so the expected text is spelled out only for a report.
template <class... Parts>
class ExpectedFailure {
 public:
  explicit ExpectedFailure(ErrorKind kind, const Parts&... parts) : kind_(kind), parts_(parts...) {}

  bool matches(const Failure& f) const {
    if (f.kind != kind_) return false;
    // The model keeps its message unrendered; it is spelled out into a
    // buffer kept per thread, so a match allocates only while that grows.
    thread_local std::string text;
    text.clear();
    f.message.append_to(text);
    std::string_view rest = text;
    const bool prefix = std::apply([&](const auto&... p) { return (detail::consume(rest, p) && ...); }, parts_);
    return prefix && rest.empty();
  }

  // "Kind: message", as render() prints a failure.
  std::string text() const {
    std::string out = std::string(kind_name(kind_)) + ": ";
    std::apply([&](const auto&... p) { ((out += detail::piece(p)), ...); }, parts_);
    return out;
  }

 private:
  ErrorKind kind_;
  std::tuple<Parts...> parts_;
};

template <class... Parts>
ExpectedFailure<Piece<Parts>...> expected_value_error(const Parts&... parts) {
  return ExpectedFailure<Piece<Parts>...>(ErrorKind::ValueError, parts...);
}

template <class... Parts>
ExpectedFailure<Piece<Parts>...> expected_assertion_error(const Parts&... parts) {
  return ExpectedFailure<Piece<Parts>...>(ErrorKind::AssertionError, parts...);
}

template <class... Parts>
ExpectedFailure<Piece<Parts>...> expected_not_implemented(const Parts&... parts) {
  return ExpectedFailure<Piece<Parts>...>(ErrorKind::NotImplementedError, parts...);
}

// Holds when `got` is the expected failure. `what` names the call; it is a
// callable so the name is only built for a report.
template <class V, class Describe, class... Parts>
Verdict expect_failure(Describe&& what, const Outcome<V>& got, const ExpectedFailure<Parts...>& expected) {
  if (!got.ok() && expected.matches(got.failure())) return holds();
  return violated(what() + " gave " + render(got) + ", expected " + expected.text());
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
