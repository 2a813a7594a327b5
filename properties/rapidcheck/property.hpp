// How a RapidCheck property is written here: a body generic over the model's
// Int, run once as `Int64.<Name>` and once as `CppInt.<Name>`, that draws its
// inputs (generators.hpp), tags them (so the distribution shows what was
// exercised) and hands them to one shared predicate of
// tpcheck/invariants.hpp, whose violation text becomes the failure.
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>  // after gtest.h, which it builds on

#include <cctype>
#include <string>

#include "generators.hpp"
#include "tpcheck/invariants.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/render.hpp"

// Defines the GoogleTest properties Int64.Name and CppInt.Name from one body
// `template <class Int> void Name##_holds()` written right after the macro.
#define TPCHECK_PROPERTY(Name)                                          \
  template <class Int>                                                  \
  void Name##_holds();                                                  \
  RC_GTEST_PROP(Int64, Name, ()) { Name##_holds<std::int64_t>(); }      \
  RC_GTEST_PROP(CppInt, Name, ()) { Name##_holds<::tpcheck::BigInt>(); } \
  template <class Int>                                                  \
  void Name##_holds()

namespace tpcheck::rcprop {

// Fails the current case with the predicate's own description.
inline void hold(const inv::Violation& violation) {
  if (violation) RC_FAIL(*violation);
}

// The size class of the largest of some values, for the distribution.
template <ModelInt Int, class... More>
std::string magnitude(const Int& first, const More&... more) {
  BigInt largest = boost::multiprecision::abs(widen(first));
  ((largest = std::max(largest, BigInt(boost::multiprecision::abs(widen(more))))), ...);
  if (largest <= 64) return "magnitude <= 64";
  if (largest < (BigInt(1) << 32)) return "magnitude < 2^32";
  if (largest < (BigInt(1) << 62)) return "magnitude 2^32..2^62";
  if (largest < (BigInt(1) << 64)) return "magnitude 2^62..2^64 (int64 edge)";
  return "magnitude beyond 2^64";
}

// An outcome as a category: "value", or its failure with numbers as N and
// cut short, so the distribution shows which error texts were reached.
template <class V>
std::string outcome_kind(const Outcome<V>& outcome) {
  if (outcome.ok()) return "value";
  std::string text = std::string(kind_name(outcome.failure().kind)) + ": ";
  bool in_number = false;
  for (char ch : outcome.failure().message) {
    const bool digit = std::isdigit(static_cast<unsigned char>(ch)) != 0;
    if (!digit) text += ch;
    if (digit && !in_number) text += 'N';
    in_number = digit;
  }
  constexpr std::size_t kShown = 72;
  return text.size() > kShown ? text.substr(0, kShown) + "..." : text;
}

}  // namespace tpcheck::rcprop
