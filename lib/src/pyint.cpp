// Decimal text of the model's integers, and the exception class names.
#include "tpcheck/pyint.hpp"

#include <algorithm>
#include <limits>

#include "tpcheck/outcome.hpp"

namespace tpcheck {

std::string_view kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::ValueError: return "ValueError";
    case ErrorKind::NotImplementedError: return "NotImplementedError";
    case ErrorKind::AssertionError: return "AssertionError";
  }
  return "UnknownError";
}

std::string decimal(std::int64_t v) { return std::to_string(v); }

std::string decimal(__int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  // Work on the magnitude as unsigned: -INT128_MIN does not fit.
  unsigned __int128 mag = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  while (mag != 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(mag % 10)));
    mag /= 10;
  }
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::string decimal(const BigInt& v) { return v.str(); }

std::optional<BigInt> parse_decimal(const std::string& text) {
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  if (i == text.size()) return std::nullopt;
  if (!std::all_of(text.begin() + static_cast<std::ptrdiff_t>(i), text.end(),
                   [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  // Python counts leading zeros towards its digit limit.
  if (text.size() - i > kMaxDecimalDigits) return std::nullopt;
  // Boost reads a leading 0 as octal; Python reads decimal.
  while (i + 1 < text.size() && text[i] == '0') ++i;
  BigInt value(text.substr(i));
  return text[0] == '-' ? BigInt(-value) : value;
}

std::optional<std::int64_t> narrow(const BigInt& v) {
  if (v < std::numeric_limits<std::int64_t>::min() || v > std::numeric_limits<std::int64_t>::max()) {
    return std::nullopt;
  }
  return v.convert_to<std::int64_t>();
}

}  // namespace tpcheck
