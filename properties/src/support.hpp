// Small helpers the predicates share: naming a call, comparing an outcome
// with an expected one.
#pragma once

#include <initializer_list>
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

// A violation when `got` is not the expected outcome (rendered), else nothing.
template <class V>
Violation expect_rendered(const std::string& what, const Outcome<V>& got, const std::string& expected) {
  const std::string seen = render(got);
  if (seen == expected) return std::nullopt;
  return what + " gave " + seen + ", expected " + expected;
}

inline std::string value_error_text(const std::string& message) { return "ValueError: " + message; }

// SPEC §4: H heads shard over T >= 1 ranks when one divides the other. Stated
// here again rather than taken from the model's head_compatible, so a wrong
// head_compatible cannot make the plan predicates hold vacuously.
template <ModelInt Int>
bool heads_shard(const Int& T, const Int& H) {
  return T >= 1 && H >= 1 && (floor_mod<Int>(T, H) == 0 || floor_mod<Int>(H, T) == 0);
}

}  // namespace tpcheck::inv
