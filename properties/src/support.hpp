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
// `what` names the call; it is a callable so the name is only built for a report.
template <class V, class Describe>
Violation expect_rendered(Describe&& what, const Outcome<V>& got, const std::string& expected) {
  std::string seen = render(got);
  if (seen == expected) return std::nullopt;
  return what() + " gave " + seen + ", expected " + expected;
}

inline std::string value_error_text(const std::string& message) { return "ValueError: " + message; }

}  // namespace tpcheck::inv
