// Character-level scans, uninstrumented in fuzz builds (text_scan.hpp says why).
#include "tpcheck/text_scan.hpp"

namespace tpcheck::text_scan {
namespace {

constexpr bool is_separator(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

}  // namespace

std::size_t skip_separators(std::string_view text, std::size_t from) {
  while (from < text.size() && is_separator(text[from])) ++from;
  return from;
}

std::size_t skip_word(std::string_view text, std::size_t from) {
  while (from < text.size() && !is_separator(text[from])) ++from;
  return from;
}

bool all_digits(std::string_view text) {
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::int64_t digits_value(std::string_view digits) {
  std::int64_t value = 0;
  for (const char c : digits) value = value * 10 + (c - '0');
  return value;
}

std::size_t find_first_of(std::string_view text, const ByteSet& set, std::size_t from) {
  for (; from < text.size(); ++from) {
    if (set.contains(text[from])) return from;
  }
  return std::string_view::npos;
}

}  // namespace tpcheck::text_scan
