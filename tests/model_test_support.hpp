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
#include <vector>

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

// A listing read by range (the fuzzers' walks) against the whole list: where
// `whole` fails, `count` and a range fail with its text; otherwise `count` is
// its length and every range (each start, lengths 0, 1, 3 and all) is that
// slice. `range(buffer, first, n)` lists into buffer. Tallies listed/failed.
template <class V, class Count, class Range>
void expect_ranges_are_slices(const Outcome<std::vector<V>>& whole, const Count& count, const Range& range,
                              int& listed, int& failed) {
  std::vector<V> buffer;
  if (!whole.ok()) {
    ++failed;
    const std::optional<Failure> range_failed = range(buffer, 0, 1);
    ASSERT_TRUE(range_failed.has_value());
    EXPECT_EQ(render(*range_failed), render(whole.failure()));
    ASSERT_FALSE(count.ok());
    EXPECT_EQ(render(count.failure()), render(whole.failure()));
    return;
  }
  ++listed;
  const std::vector<V>& list = whole.value();
  ASSERT_TRUE(count.ok());
  ASSERT_EQ(render(count.value()), std::to_string(list.size()));
  for (std::size_t first = 0; first <= list.size(); ++first) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, list.size()}) {
      ASSERT_FALSE(range(buffer, first, n).has_value());
      const std::size_t end = std::min(list.size(), first + n);
      EXPECT_EQ(buffer, std::vector<V>(list.begin() + first, list.begin() + end)) << "first=" << first << " n=" << n;
    }
  }
}

}  // namespace tpcheck::test
