// The parsers' character scans (text_scan.hpp) and concat: what
// std::istream's C-locale separators, std::isdigit and
// std::string_view::find_first_of say, on every byte.
#include <gtest/gtest.h>

#include <cctype>
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

}  // namespace
}  // namespace tpcheck::test
