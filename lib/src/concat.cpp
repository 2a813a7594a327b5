// Text from pieces (concat.hpp).
#include "tpcheck/concat.hpp"

#include <charconv>
#include <ostream>

namespace tpcheck {
namespace {

// The most characters of an int64 in decimal, with its sign.
constexpr std::size_t kInt64Chars = 20;

// Writes `value` in decimal into `digits`; returns what it wrote.
std::string_view decimal_into(std::array<char, kInt64Chars>& digits, std::int64_t value) {
  const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), value).ptr;
  return {digits.data(), static_cast<std::size_t>(end - digits.data())};
}

}  // namespace

void append_pieces(std::string& out, std::span<const TextPiece> pieces) {
  std::size_t size = out.size();
  for (const TextPiece& p : pieces) size += p.is_integer() ? kInt64Chars : p.chars().size();
  out.reserve(size);
  std::array<char, kInt64Chars> digits;
  for (const TextPiece& p : pieces) out.append(p.is_integer() ? decimal_into(digits, p.integer()) : p.chars());
}

std::string concat(std::initializer_list<TextPiece> pieces) {
  std::string out;
  append_pieces(out, pieces);
  return out;
}

std::string TextPieces::str() const {
  std::string out;
  append_to(out);
  return out;
}

// Printed once per run of a command: its one allocation does not matter.
std::ostream& operator<<(std::ostream& out, const TextPieces& text) { return out << text.str(); }

}  // namespace tpcheck
