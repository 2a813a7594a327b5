// A failure's message, spelled out on demand (outcome.hpp says why).
#include <array>
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

bool operator==(const FailureText& a, const FailureText& b) {
  if (FailureText::same_pieces(a, b)) return true;
  // Pieces that differ may still spell the same text; compared in buffers
  // kept per thread, so a comparison allocates only while they grow.
  thread_local std::string x, y;
  x.clear();
  y.clear();
  a.append_to(x);
  b.append_to(y);
  return x == y;
}

}  // namespace tpcheck
