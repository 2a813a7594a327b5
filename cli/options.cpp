#include "options.hpp"

#include <charconv>

namespace tpcheck::cli {

std::variant<std::int64_t, std::string> parse_bounded(const std::string& flag, const std::string& text, std::int64_t lo,
                                                      std::int64_t hi) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end || value < lo || value > hi) {
    return flag + " takes a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got '" + text + "'";
  }
  return value;
}

std::variant<VerifyOptions, std::string> parse_verify_options(const std::vector<std::string>& args) {
  VerifyOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--json") {
      options.json = true;
      continue;
    }
    if (flag == "--help" || flag == "-h") {
      options.help = true;
      continue;
    }
    // The bounds keep a run finite: the sweep is O(max_tp^3 * heads).
    struct Numeric {
      const char* name;
      std::int64_t lo, hi;
    };
    static constexpr Numeric kNumeric[] = {{"--max-tp", 1, 4096}, {"--max-heads", 1, 4096}, {"--threads", 1, 256}};
    const Numeric* numeric = nullptr;
    for (const Numeric& n : kNumeric) {
      if (flag == n.name) numeric = &n;
    }
    if (numeric == nullptr) return "unknown option '" + flag + "'";
    if (i + 1 == args.size()) return flag + " needs a value";
    const auto value = parse_bounded(flag, args[++i], numeric->lo, numeric->hi);
    if (const auto* error = std::get_if<std::string>(&value)) return *error;
    const std::int64_t v = std::get<std::int64_t>(value);
    if (flag == "--max-tp") options.max_tp = v;
    if (flag == "--max-heads") options.max_heads = v;
    if (flag == "--threads") options.threads = static_cast<int>(v);
  }
  return options;
}

}  // namespace tpcheck::cli
