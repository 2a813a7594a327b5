// The parsers' character scans (text_scan.hpp) and concat: what
// std::istream's C-locale separators, std::isdigit and
// std::string_view::find_first_of say, on every byte; and text pieces
// written out as std::to_string and `+` would write them.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include "tpcheck/concat.hpp"
#include "tpcheck/text_scan.hpp"

namespace tpcheck::test {
namespace {

using namespace text_scan;

// Every byte value, as a one-character text.
std::string byte(int c) { return std::string(1, static_cast<char>(c)); }

TEST(TextScan, SeparatorsAreTheCLocaleSpaces) {
  for (int c = 0; c < 256; ++c) {
    const bool space = std::isspace(c) != 0;
    EXPECT_EQ(skip_separators(byte(c), 0), space ? 1u : 0u) << c;
    EXPECT_EQ(skip_word(byte(c), 0), space ? 0u : 1u) << c;
  }
}

TEST(TextScan, WordsOfALine) {
  const std::string_view line = " \t plan  4\v2\r";
  std::size_t at = skip_separators(line, 0);
  EXPECT_EQ(at, 3u);
  EXPECT_EQ(line.substr(at, skip_word(line, at) - at), "plan");
  at = skip_separators(line, skip_word(line, at));
  EXPECT_EQ(line.substr(at, skip_word(line, at) - at), "4");
  at = skip_separators(line, skip_word(line, at));
  EXPECT_EQ(line.substr(at, skip_word(line, at) - at), "2");
  EXPECT_EQ(skip_separators(line, skip_word(line, at)), line.size());
  EXPECT_EQ(skip_separators("", 0), 0u);
  EXPECT_EQ(skip_word("", 0), 0u);
}

TEST(TextScan, DigitsAndTheirValue) {
  for (int c = 0; c < 256; ++c) EXPECT_EQ(all_digits(byte(c)), c >= '0' && c <= '9') << c;
  EXPECT_TRUE(all_digits(""));
  EXPECT_FALSE(all_digits("12a4"));
  EXPECT_EQ(digits_value("0"), 0);
  EXPECT_EQ(digits_value("007"), 7);
  EXPECT_EQ(digits_value("999999999999999999"), 999'999'999'999'999'999);
}

TEST(TextScan, FindFirstOfAsStringView) {
  static constexpr ByteSet kSet("\\\n\r");
  const std::string_view texts[] = {"", "plain", "a\\b", "\n", "xx\ryy\\", std::string_view("a\0\\", 3)};
  for (const std::string_view text : texts) {
    for (std::size_t from = 0; from <= text.size(); ++from) {
      EXPECT_EQ(find_first_of(text, kSet, from), text.find_first_of("\\\n\r", from)) << text << " from " << from;
    }
  }
  for (int c = 0; c < 256; ++c) EXPECT_EQ(kSet.contains(static_cast<char>(c)), c == '\\' || c == '\n' || c == '\r');
}

TEST(Concat, JoinsEveryPiece) {
  EXPECT_EQ(concat({}), "");
  EXPECT_EQ(concat({"a"}), "a");
  EXPECT_EQ(concat({"unknown option '", "--x", "'"}), "unknown option '--x'");
  const std::string long_piece(1000, 'z');
  EXPECT_EQ(concat({long_piece, "", long_piece}), long_piece + long_piece);
}

TEST(Concat, WritesIntegersAsToStringDoes) {
  for (const std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{42}, std::int64_t{1} << 20,
                               std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
    EXPECT_EQ(concat({"[", v, "]"}), "[" + std::to_string(v) + "]");
  }
}

TEST(TextPieces, WriteTheTextConcatWrites) {
  const std::string flag = "--max-tp", text = "12x";
  const TextPieces kept(flag, " takes a whole number from ", std::int64_t{1}, " to ", std::int64_t{4096}, ", got '",
                        text, "'");
  const std::string whole = "--max-tp takes a whole number from 1 to 4096, got '12x'";
  EXPECT_EQ(kept.str(), whole);
  std::ostringstream printed;
  printed << kept;
  EXPECT_EQ(printed.str(), whole);
  // Appended after what the buffer holds, as a fuzz target's kept buffer reads it.
  std::string buffer = "error: ";
  kept.append_to(buffer);
  EXPECT_EQ(buffer, "error: " + whole);
  EXPECT_EQ(TextPieces().str(), "");
  EXPECT_EQ(TextPieces("one literal").str(), "one literal");
}

}  // namespace
}  // namespace tpcheck::test
