// What the unit tests share: the two integer types every model test runs in,
// the int64 extremes, and big values beyond 64 bits.
//
// Tests compare outcomes in Python's notation (render, itself checked against
// literals in render_test.cpp) with texts written out literally from the SPEC,
// never built by the model's own message code.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "tpcheck/model.hpp"
#include "tpcheck/render.hpp"

namespace tpcheck::test {

inline constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();  // 9223372036854775807
inline constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();  // -9223372036854775808

// A failure whose message is one literal (a FailureText keeps it by pointer).
inline Failure failure(ErrorKind kind, const char* message) {
  Failure f{kind, FailureText()};
  f.message.add_literal(message);
  return f;
}

// A failure's message spelled out.
inline std::string text_of(const FailureText& message) {
  std::string out;
  message.append_to(out);
  return out;
}

// 2^n as a cpp_int, for inputs beyond int64.
inline BigInt pow2(unsigned n) { return BigInt(1) << n; }

using ModelInts = ::testing::Types<std::int64_t, BigInt>;

// Test names say which instantiation failed: ".../int64", ".../cpp_int".
struct IntName {
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, std::int64_t> ? "int64" : "cpp_int";
  }
};

}  // namespace tpcheck::test
