// Text from pieces: written out at once (`concat`, one allocation), or kept
// as its pieces and written out when read (`TextPieces`, none).
//
// The parsers' error texts are their output, made for every bad input a
// fuzzer gives them: `"a" + std::string(x) + "b" + ...` allocates once per
// `+`, and under ASan each allocation records a stack trace. Most of them are
// never read (four option parsers reject each input of fuzz_cli_options), so
// a parser returns its error as pieces, and whoever reads it writes them out:
// the CLI to stderr, a fuzz target into a buffer it keeps across inputs.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace tpcheck {

// A piece of a text: characters, by view (what it views must outlive the
// text: a literal, or the arguments being parsed), or an integer, in decimal.
// Two words, trivially copied: a parser's error is made, moved and dropped
// on most fuzz inputs (a std::variant per piece cost an ASan-checked copy each).
class TextPiece {
 public:
  TextPiece() = default;
  TextPiece(std::string_view chars)  // NOLINT: implicit on purpose, as the pieces are written
      : chars_(chars.data() != nullptr ? chars.data() : ""), size_or_value_(static_cast<std::int64_t>(chars.size())) {}
  TextPiece(const char* literal) : TextPiece(std::string_view(literal)) {}         // NOLINT
  TextPiece(const std::string& chars) : TextPiece(std::string_view(chars)) {}      // NOLINT
  TextPiece(std::string&&) = delete;  // would view a temporary: give an integer as an integer
  template <std::signed_integral Int>
    requires(!std::same_as<Int, char>)
  TextPiece(Int value) : size_or_value_(value) {}  // NOLINT

  bool is_integer() const { return chars_ == nullptr; }
  std::string_view chars() const { return {chars_, static_cast<std::size_t>(size_or_value_)}; }  // !is_integer()
  std::int64_t integer() const { return size_or_value_; }                                      // is_integer()

 private:
  const char* chars_ = nullptr;  // null for an integer
  std::int64_t size_or_value_ = 0;
};

// Appends the pieces to `out`: the one writer of both forms below.
void append_pieces(std::string& out, std::span<const TextPiece> pieces);

// The pieces as one string (out of line, lib/src/concat.cpp, so that fuzz
// builds leave its loops uninstrumented, as they leave std::string's own:
// fuzz/coverage_ignorelist.txt).
std::string concat(std::initializer_list<TextPiece> pieces);

// A text kept as its pieces (at most kMaxPieces; more does not compile),
// which views what its pieces view: it must not outlive them.
//   TextPieces(flag, " takes a whole number from ", lo, " to ", hi, ", got '", text, "'")
class TextPieces {
 public:
  // The most pieces a text has: parse_bounded's "FLAG takes a whole number
  // from LO to HI, got 'TEXT'" has 8.
  static constexpr std::size_t kMaxPieces = 8;

  TextPieces() = default;
  // Built in place from its pieces: the parsers make one on most fuzz inputs.
  // (A temporary std::string is no piece: it would be gone before the text is read.)
  template <class... Pieces>
    requires(sizeof...(Pieces) <= kMaxPieces && (std::constructible_from<TextPiece, Pieces &&> && ...))
  explicit TextPieces(Pieces&&... pieces)
      : pieces_{TextPiece(std::forward<Pieces>(pieces))...}, count_(sizeof...(Pieces)) {}

  void append_to(std::string& out) const { append_pieces(out, std::span(pieces_.data(), count_)); }
  std::string str() const;

 private:
  std::array<TextPiece, kMaxPieces> pieces_{};
  std::size_t count_ = 0;
};

std::ostream& operator<<(std::ostream& out, const TextPieces& text);

}  // namespace tpcheck
