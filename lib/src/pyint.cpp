// Decimal text of the model's integers, and the exception class names.
#include "tpcheck/pyint.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "tpcheck/outcome.hpp"
#include "tpcheck/text_scan.hpp"

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

std::string decimal(unsigned __int128 v) {
  if (v == 0) return "0";
  std::string digits;
  while (v != 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::string decimal(__int128 v) {
  // The magnitude as unsigned: -INT128_MIN does not fit.
  if (v >= 0) return decimal(static_cast<unsigned __int128>(v));
  return "-" + decimal(-static_cast<unsigned __int128>(v));
}

std::string decimal(const BigInt& v) {
  if (const auto small = narrow(v)) return std::to_string(*small);
  // Boost's str() copies the number twice and runs its general division for
  // every 19 digits; a number of kMaxDecimalDigits digits took milliseconds.
  // Here the magnitude, as 32-bit words, is divided in place by 10^9 (a
  // division by a constant: a multiply), nine digits at a time.
  constexpr std::uint32_t kBlock = 1'000'000'000;
  static_assert(sizeof(boost::multiprecision::limb_type) == 8, "the words below split 64-bit limbs");
  const auto& backend = v.backend();
  std::vector<std::uint32_t> words;
  words.reserve(2 * backend.size());
  for (std::size_t i = 0; i < backend.size(); ++i) {
    const std::uint64_t limb = backend.limbs()[i];
    words.push_back(static_cast<std::uint32_t>(limb));
    words.push_back(static_cast<std::uint32_t>(limb >> 32));
  }
  std::string reversed;
  reversed.reserve(10 * words.size() + 1);
  while (!words.empty()) {
    std::uint64_t rest = 0;
    for (std::size_t i = words.size(); i-- > 0;) {
      const std::uint64_t current = rest << 32 | words[i];
      words[i] = static_cast<std::uint32_t>(current / kBlock);
      rest = current % kBlock;
    }
    while (!words.empty() && words.back() == 0) words.pop_back();
    // Nine digits, or only the significant ones of the leading block.
    for (int k = 0; k < 9 && (rest != 0 || !words.empty()); ++k) {
      reversed.push_back(static_cast<char>('0' + rest % 10));
      rest /= 10;
    }
  }
  if (v < 0) reversed.push_back('-');
  return {reversed.rbegin(), reversed.rend()};
}

std::optional<BigInt> parse_decimal(std::string_view text) {
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  if (i == text.size()) return std::nullopt;
  if (!text_scan::all_digits(text.substr(i))) return std::nullopt;
  // Python counts leading zeros towards its digit limit.
  if (text.size() - i > kMaxDecimalDigits) return std::nullopt;
  // Boost reads a leading 0 as octal; Python reads decimal.
  while (i + 1 < text.size() && text[i] == '0') ++i;
  const bool negative = text[0] == '-';
  if (text.size() - i <= 18) {
    // Fits in int64 (18 digits < 2^63): no cpp_int string parse, which costs
    // more than the call most lines make.
    const std::int64_t small = text_scan::digits_value(text.substr(i));
    return BigInt(negative ? -small : small);
  }
  BigInt value(std::string(text.substr(i)));
  return negative ? BigInt(-value) : value;
}

std::optional<std::int64_t> narrow(const BigInt& v) {
  if (v < std::numeric_limits<std::int64_t>::min() || v > std::numeric_limits<std::int64_t>::max()) {
    return std::nullopt;
  }
  return v.convert_to<std::int64_t>();
}

}  // namespace tpcheck
