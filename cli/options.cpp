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
      // No invariant is named like an option: `--invariant --list` or
      // `--invariant -h` is a missing name, not an invariant called "--list"
      // (the fuzzer's finds, corpus/cli_options/regression/).
      if (i + 1 == args.size() || args[i + 1].rfind('-', 0) == 0) return flag + " needs a value";
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

namespace {

// The flags every operator command shares, as given.
struct SharedFlags {
  std::optional<std::int64_t> kv_heads;
  bool mla = false;
  std::optional<std::string> model_config;
  std::vector<Connector> connectors;
  std::optional<std::string> svg;
  bool json = false;
  bool help = false;
};

enum class Taken { No, Yes };

// Takes args[i] (and its value, advancing i) when it is a shared flag the
// command allows; an error text when it is malformed.
std::variant<Taken, std::string> take_shared_flag(const std::vector<std::string>& args, std::size_t& i,
                                                  bool allow_connector, bool allow_svg, SharedFlags& f) {
  const std::string& flag = args[i];
  if (flag == "--help" || flag == "-h") f.help = true;
  else if (flag == "--json") f.json = true;
  else if (flag == "--mla") f.mla = true;
  else if (flag != "--kv-heads" && flag != "--model-config" && !(allow_connector && flag == "--connector") &&
           !(allow_svg && flag == "--svg")) {
    return Taken::No;
  } else {
    if (i + 1 == args.size()) return flag + " needs a value";
    const std::string& value = args[++i];
    if (flag == "--connector") {
      const auto c = connector_named(value);
      if (!c) return "unknown connector '" + value + "' (expected moriio, nixl, mooncake or general)";
      f.connectors.push_back(*c);
      return Taken::Yes;
    }
    const bool twice = flag == "--kv-heads" ? f.kv_heads.has_value()
                       : flag == "--svg"    ? f.svg.has_value()
                                            : f.model_config.has_value();
    if (twice) return flag + " given twice";
    if (value.empty()) return flag + " needs a value";
    if (flag == "--svg") f.svg = value;
    if (flag == "--model-config") f.model_config = value;
    if (flag == "--kv-heads") {
      const auto heads = parse_bounded(flag, value, 1, kMaxOperatorSize);
      if (const auto* error = std::get_if<std::string>(&heads)) return *error;
      f.kv_heads = std::get<std::int64_t>(heads);
    }
  }
  return Taken::Yes;
}

// Where the heads come from: exactly one of the three flags.
std::optional<std::string> finish_head_source(const SharedFlags& f, HeadSource& out) {
  const int given = (f.kv_heads ? 1 : 0) + (f.mla ? 1 : 0) + (f.model_config ? 1 : 0);
  if (given != 1) return "give exactly one of --kv-heads H, --mla and --model-config FILE";
  out.kv_heads = BigInt(f.kv_heads.value_or(1));
  out.mla = f.mla;
  out.model_config = f.model_config;
  return std::nullopt;
}

}  // namespace

std::variant<SizingOptions, std::string> parse_sizing_options(SizingCommand command,
                                                             const std::vector<std::string>& args) {
  const bool check = command == SizingCommand::Check;
  SizingOptions o;
  SharedFlags shared;
  std::optional<std::int64_t> prefill, decode, max_gpus;
  // The bounded flags: a size of the deployment or the suggestions' budget.
  struct Bounded {
    const char* name;
    bool for_check, for_plan;
    std::int64_t lo, hi;
    std::optional<std::int64_t>* target;
  };
  const Bounded bounded[] = {
      {"--prefill-tp", true, true, 1, kMaxOperatorSize, &prefill},
      {"--decode-tp", true, true, 1, kMaxOperatorSize, &decode},
      {"--max-gpus", true, false, 2, 2 * kMaxOperatorSize, &max_gpus},
  };
  // The flags the model validates, and where their value goes.
  struct Valued {
    const char* name;
    bool for_check, for_plan;
    std::optional<BigInt>* target;
  };
  const Valued valued[] = {
      {"--dp-size", true, false, &o.dp_size},          {"--base-port", true, false, &o.base_port},
      {"--prefill-hosts", true, false, &o.prefill_hosts}, {"--decode-hosts", true, false, &o.decode_hosts},
      {"--decode-rank", false, true, &o.decode_rank},  {"--bytes-per-head", false, true, &o.bytes_per_head},
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto taken = take_shared_flag(args, i, check, !check, shared);
    if (const auto* error = std::get_if<std::string>(&taken)) return *error;
    if (std::get<Taken>(taken) == Taken::Yes) continue;
    const std::string& flag = args[i];
    const Bounded* b = nullptr;
    for (const Bounded& candidate : bounded) {
      if (flag == candidate.name && (check ? candidate.for_check : candidate.for_plan)) b = &candidate;
    }
    const Valued* v = nullptr;
    for (const Valued& candidate : valued) {
      if (flag == candidate.name && (check ? candidate.for_check : candidate.for_plan)) v = &candidate;
    }
    if (b == nullptr && v == nullptr) return "unknown option '" + flag + "'";
    if (i + 1 == args.size()) return flag + " needs a value";
    if (b != nullptr ? b->target->has_value() : v->target->has_value()) return flag + " given twice";
    const std::string& text = args[++i];
    if (b != nullptr) {
      const auto value = parse_bounded(flag, text, b->lo, b->hi);
      if (const auto* error = std::get_if<std::string>(&value)) return *error;
      *b->target = std::get<std::int64_t>(value);
      continue;
    }
    const auto value = parse_decimal(text);
    if (!value) return flag + " takes a decimal integer, got '" + text + "'";
    *v->target = *value;
  }
  o.help = shared.help;
  o.json = shared.json;
  o.connectors = shared.connectors;
  o.svg = shared.svg;
  if (o.help) return o;
  if (!prefill || !decode) return "--prefill-tp and --decode-tp are required";
  if (auto error = finish_head_source(shared, o)) return *error;
  if (o.dp_size.has_value() != o.base_port.has_value()) return "--dp-size and --base-port go together";
  o.prefill_tp = *prefill;
  o.decode_tp = *decode;
  o.max_gpus = max_gpus;
  return o;
}

std::variant<MatrixOptions, std::string> parse_matrix_options(const std::vector<std::string>& args) {
  MatrixOptions o;
  SharedFlags shared;
  bool max_tp_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto taken = take_shared_flag(args, i, true, true, shared);
    if (const auto* error = std::get_if<std::string>(&taken)) return *error;
    if (std::get<Taken>(taken) == Taken::Yes) continue;
    const std::string& flag = args[i];
    if (flag != "--max-tp") return "unknown option '" + flag + "'";
    if (i + 1 == args.size()) return flag + " needs a value";
    if (max_tp_given) return flag + " given twice";
    const auto value = parse_bounded(flag, args[++i], 1, kMaxMatrixTp);
    if (const auto* error = std::get_if<std::string>(&value)) return *error;
    o.max_tp = std::get<std::int64_t>(value);
    max_tp_given = true;
  }
  o.help = shared.help;
  o.json = shared.json;
  o.connectors = shared.connectors;
  o.svg = shared.svg;
  if (o.help) return o;
  if (auto error = finish_head_source(shared, o)) return *error;
  return o;
}

}  // namespace tpcheck::cli
