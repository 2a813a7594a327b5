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
    if (flag == "--list") {
      options.list = true;
      continue;
    }
    if (flag == "--invariant") {
      if (i + 1 == args.size()) return flag + " needs a value";
      options.invariants.push_back(args[++i]);
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

std::variant<SizingOptions, std::string> parse_sizing_options(SizingCommand command,
                                                             const std::vector<std::string>& args) {
  const bool check = command == SizingCommand::Check;
  SizingOptions o;
  std::optional<BigInt> prefill, decode, heads;
  // Each valued flag, the command it belongs to, and where its value goes.
  struct Valued {
    const char* name;
    bool for_check, for_plan;
    std::optional<BigInt>* target;
  };
  const Valued valued[] = {
      {"--prefill-tp", true, true, &prefill},        {"--decode-tp", true, true, &decode},
      {"--kv-heads", true, true, &heads},            {"--dp-size", true, false, &o.dp_size},
      {"--base-port", true, false, &o.base_port},    {"--prefill-hosts", true, false, &o.prefill_hosts},
      {"--decode-hosts", true, false, &o.decode_hosts}, {"--decode-rank", false, true, &o.decode_rank},
      {"--bytes-per-head", false, true, &o.bytes_per_head},
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--help" || flag == "-h") {
      o.help = true;
      continue;
    }
    if (flag == "--json") {
      o.json = true;
      continue;
    }
    if (flag == "--mla") {
      o.mla = true;
      continue;
    }
    if (flag == "--connector" && check) {
      if (i + 1 == args.size()) return flag + " needs a value";
      const auto c = connector_named(args[++i]);
      if (!c) return "unknown connector '" + args[i] + "' (expected moriio, nixl, mooncake or general)";
      o.connectors.push_back(*c);
      continue;
    }
    const Valued* v = nullptr;
    for (const Valued& candidate : valued) {
      if (flag == candidate.name && (check ? candidate.for_check : candidate.for_plan)) v = &candidate;
    }
    if (v == nullptr) return "unknown option '" + flag + "'";
    if (i + 1 == args.size()) return flag + " needs a value";
    if (v->target->has_value()) return flag + " given twice";
    const auto value = parse_decimal(args[++i]);
    if (!value) return flag + " takes a decimal integer, got '" + args[i] + "'";
    *v->target = *value;
  }
  if (o.help) return o;
  if (!prefill || !decode) return "--prefill-tp and --decode-tp are required";
  if (heads.has_value() == o.mla) return "give exactly one of --kv-heads H and --mla";
  if (o.dp_size.has_value() != o.base_port.has_value()) return "--dp-size and --base-port go together";
  o.prefill_tp = *prefill;
  o.decode_tp = *decode;
  o.kv_heads = heads.value_or(BigInt(1));
  return o;
}

}  // namespace tpcheck::cli
