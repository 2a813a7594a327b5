// A failure's message, spelled out on demand (outcome.hpp says why).
#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string_view>

#include "tpcheck/concat.hpp"
#include "tpcheck/outcome.hpp"

namespace tpcheck {

void FailureText::add_piece(Piece p) {
  // A shape past kMaxPieces is a bug of messages.hpp, which checks its shapes
  // at compile time; never write past the array.
  if (count_ == kMaxPieces) throw std::logic_error("a failure message has more than FailureText::kMaxPieces pieces");
  pieces_[count_++] = p;
}

void FailureText::add_literal(const char* text) {
  Piece p;
  p.kind = Kind::Literal;
  p.as.literal = text;
  add_piece(p);
}

void FailureText::add_integer(std::int64_t value) {
  Piece p;
  p.kind = Kind::Integer;
  p.as.integer = value;
  add_piece(p);
}

void FailureText::add_digits(std::string_view digits) {
  Piece p;
  p.kind = Kind::Text;
  p.as.text[0] = static_cast<std::uint32_t>(text_.size());
  p.as.text[1] = static_cast<std::uint32_t>(digits.size());
  text_ += digits;
  add_piece(p);
}

// Written by concat.hpp's append_pieces, the one writer of texts kept as
// pieces (the parsers' TextPieces are the other): each piece as a TextPiece.
void FailureText::append_to(std::string& out) const {
  std::array<TextPiece, kMaxPieces> pieces;
  for (std::size_t i = 0; i < count_; ++i) {
    const Piece& p = pieces_[i];
    switch (p.kind) {
      case Kind::Literal: pieces[i] = TextPiece(p.as.literal); break;
      case Kind::Integer: pieces[i] = TextPiece(p.as.integer); break;
      case Kind::Text: pieces[i] = TextPiece(std::string_view(text_).substr(p.as.text[0], p.as.text[1])); break;
    }
  }
  append_pieces(out, std::span<const TextPiece>(pieces.data(), count_));
}

bool FailureText::empty() const {
  for (std::size_t i = 0; i < count_; ++i) {
    const Piece& p = pieces_[i];
    if (p.kind == Kind::Integer) return false;
    if (p.kind == Kind::Literal && p.as.literal[0] != '\0') return false;
    if (p.kind == Kind::Text && p.as.text[1] != 0) return false;
  }
  return true;
}

bool FailureText::same_pieces(const FailureText& a, const FailureText& b) {
  if (a.count_ != b.count_) return false;
  for (std::size_t i = 0; i < a.count_; ++i) {
    const Piece& x = a.pieces_[i];
    const Piece& y = b.pieces_[i];
    if (x.kind != y.kind) return false;
    switch (x.kind) {
      case Kind::Literal:
        if (x.as.literal != y.as.literal && std::strcmp(x.as.literal, y.as.literal) != 0) return false;
        break;
      case Kind::Integer:
        if (x.as.integer != y.as.integer) return false;
        break;
      case Kind::Text:
        if (std::string_view(a.text_).substr(x.as.text[0], x.as.text[1]) !=
            std::string_view(b.text_).substr(y.as.text[0], y.as.text[1])) {
          return false;
        }
        break;
    }
  }
  return true;
}

void FailureText::views(std::array<std::string_view, kMaxPieces>& out, Digits& digits) const {
  for (std::size_t i = 0; i < count_; ++i) {
    const Piece& p = pieces_[i];
    switch (p.kind) {
      case Kind::Literal: out[i] = p.as.literal; break;
      case Kind::Integer: {
        const auto written = std::to_chars(digits[i].data(), digits[i].data() + digits[i].size(), p.as.integer);
        out[i] = std::string_view(digits[i].data(), static_cast<std::size_t>(written.ptr - digits[i].data()));
        break;
      }
      case Kind::Text: out[i] = std::string_view(text_).substr(p.as.text[0], p.as.text[1]); break;
    }
  }
}

bool FailureText::same_text(const FailureText& a, const FailureText& b) {
  std::array<std::string_view, kMaxPieces> x, y;
  Digits x_digits, y_digits;
  a.views(x, x_digits);
  b.views(y, y_digits);
  std::size_t i = 0, j = 0;    // the pieces being compared
  std::size_t at = 0, bt = 0;  // how far into each
  while (true) {
    while (i < a.count_ && at == x[i].size()) ++i, at = 0;
    while (j < b.count_ && bt == y[j].size()) ++j, bt = 0;
    if (i == a.count_ || j == b.count_) return i == a.count_ && j == b.count_;
    const std::size_t n = std::min(x[i].size() - at, y[j].size() - bt);
    if (x[i].substr(at, n) != y[j].substr(bt, n)) return false;
    at += n;
    bt += n;
  }
}

bool operator==(const FailureText& a, const FailureText& b) {
  // Pieces that differ may still spell the same text.
  return FailureText::same_pieces(a, b) || FailureText::same_text(a, b);
}

}  // namespace tpcheck
