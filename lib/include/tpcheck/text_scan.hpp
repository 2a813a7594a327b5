// The character-level scans of tpcheck's text parsers (eval's line, decimal
// integers, conform's escapes), in one translation unit of their own.
//
// Why apart: a fuzz build instruments every comparison of our code with a
// call into libFuzzer (-fsanitize-coverage=trace-cmp), and a loop over the
// characters of a line made one such call per character and per test,
// the largest share of fuzz_eval_line's time. The branches of these loops
// say which byte comes next, not which way a parser decided, so
// fuzz/coverage_ignorelist.txt leaves this file uninstrumented; the parsers'
// own decisions, in their own files, stay instrumented.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tpcheck::text_scan {

// The separators of `std::istream >> word` in the C locale: " \t\n\v\f\r".
// The first position at or after `from` that is not one (text.size() if none).
std::size_t skip_separators(std::string_view text, std::size_t from);
// The first position at or after `from` that is one (text.size() if none).
std::size_t skip_word(std::string_view text, std::size_t from);

// Whether every character is a decimal digit (true for "").
bool all_digits(std::string_view text);

// The value of at most 18 decimal digits (precondition: all_digits, size <= 18).
std::int64_t digits_value(std::string_view digits);

// A set of bytes, tested with one table look-up per character.
class ByteSet {
 public:
  constexpr explicit ByteSet(std::string_view bytes) {
    for (const char c : bytes) in_[static_cast<unsigned char>(c)] = true;
  }
  constexpr bool contains(char c) const { return in_[static_cast<unsigned char>(c)]; }

 private:
  std::array<bool, 256> in_{};
};

// The first position at or after `from` holding a byte of `set` (npos if
// none), as std::string_view::find_first_of, which asks memchr once per
// character (and a fuzz build intercepts every memchr).
std::size_t find_first_of(std::string_view text, const ByteSet& set, std::size_t from = 0);

}  // namespace tpcheck::text_scan
