#include "options.hpp"

#include <charconv>
#include <unordered_map>
#include <utility>


namespace tpcheck::cli {

std::vector<std::string_view> views_of(const std::vector<std::string>& args) { return {args.begin(), args.end()}; }

std::variant<std::int64_t, OptionError> parse_bounded(std::string_view flag, std::string_view text, std::int64_t lo,
                                                      std::int64_t hi) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end || value < lo || value > hi) {
    return OptionError(flag, " takes a whole number from ", lo, " to ", hi, ", got '", text, "'");
  }
  return value;
}

namespace {

OptionError needs_a_value(std::string_view flag) { return OptionError(flag, " needs a value"); }
OptionError given_twice(std::string_view flag) { return OptionError(flag, " given twice"); }
OptionError unknown_option(std::string_view flag) { return OptionError("unknown option '", flag, "'"); }

// Every flag of the commands parsed here. An argument is named once, by a
// hashed look-up, and each parser switches on the name: comparing it with
// every flag in turn cost one traced comparison per flag and argument in a
// fuzz build (fuzz_cli_options runs four parsers per input).
enum class Flag {
  Other,  // no flag of these commands
  Help, Json, List, Invariant, MaxTp, MaxHeads, Threads,     // verify (and matrix's --max-tp)
  Mla, KvHeads, ModelConfig, Connector, Svg,                 // the shared ones
  PrefillTp, DecodeTp, MaxGpus,                              // sizing, bounded
  DpSize, BasePort, PrefillHosts, DecodeHosts, DecodeRank, BytesPerHead,  // sizing, for the model
  PrefillPpLayers, DecodePpLayers, PrefillPp, DecodePp, PrefillAdp, DecodeAdp,  // stages (check, plan, matrix's ADP)
};

Flag flag_named(std::string_view arg) {
  static const std::unordered_map<std::string_view, Flag> kFlags = {
      {"--help", Flag::Help},          {"-h", Flag::Help},
      {"--json", Flag::Json},          {"--list", Flag::List},
      {"--invariant", Flag::Invariant}, {"--max-tp", Flag::MaxTp},
      {"--max-heads", Flag::MaxHeads}, {"--threads", Flag::Threads},
      {"--mla", Flag::Mla},            {"--kv-heads", Flag::KvHeads},
      {"--model-config", Flag::ModelConfig}, {"--connector", Flag::Connector},
      {"--svg", Flag::Svg},            {"--prefill-tp", Flag::PrefillTp},
      {"--decode-tp", Flag::DecodeTp}, {"--max-gpus", Flag::MaxGpus},
      {"--dp-size", Flag::DpSize},     {"--base-port", Flag::BasePort},
      {"--prefill-hosts", Flag::PrefillHosts}, {"--decode-hosts", Flag::DecodeHosts},
      {"--decode-rank", Flag::DecodeRank},     {"--bytes-per-head", Flag::BytesPerHead},
      {"--prefill-pp-layers", Flag::PrefillPpLayers}, {"--decode-pp-layers", Flag::DecodePpLayers},
      {"--prefill-pp", Flag::PrefillPp},       {"--decode-pp", Flag::DecodePp},
      {"--prefill-adp", Flag::PrefillAdp},     {"--decode-adp", Flag::DecodeAdp},
  };
  const auto found = kFlags.find(arg);
  return found == kFlags.end() ? Flag::Other : found->second;
}

}  // namespace

std::variant<std::vector<std::int64_t>, OptionError> parse_layer_list(std::string_view flag, std::string_view text) {
  std::vector<std::int64_t> counts;
  std::size_t from = 0;
  while (true) {
    const std::size_t comma = text.find(',', from);
    const std::string_view item = text.substr(from, comma == std::string_view::npos ? text.npos : comma - from);
    std::int64_t value = 0;
    const char* end = item.data() + item.size();
    const auto [stop, error] = std::from_chars(item.data(), end, value);
    if (item.empty() || error != std::errc() || stop != end || value < 0 || value > kMaxStageLayers) {
      return OptionError(flag, " takes layer counts separated by commas, each a whole number from 0 to ",
                         kMaxStageLayers, ", got '", text, "'");
    }
    counts.push_back(value);
    if (comma == std::string_view::npos) return counts;
    from = comma + 1;
  }
}

std::variant<VerifyOptions, OptionError> parse_verify_options(Args args) {
  VerifyOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view flag = args[i];
    const Flag name = flag_named(flag);
    // The bounds keep a run finite: the sweep is O(max_tp^3 * heads).
    std::int64_t lo = 1, hi = 4096;
    switch (name) {
      case Flag::Json: options.json = true; continue;
      case Flag::Help: options.help = true; continue;
      case Flag::List: options.list = true; continue;
      case Flag::Invariant:
        // No invariant is named like an option: `--invariant --list` or
        // `--invariant -h` is a missing name, not an invariant called "--list"
        // (the fuzzer's finds, corpus/cli_options/regression/).
        if (i + 1 == args.size() || args[i + 1].starts_with('-')) return needs_a_value(flag);
        options.invariants.emplace_back(args[++i]);
        continue;
      case Flag::MaxTp:
      case Flag::MaxHeads: break;
      case Flag::Threads: hi = 256; break;
      default: return unknown_option(flag);
    }
    if (i + 1 == args.size()) return needs_a_value(flag);
    auto value = parse_bounded(flag, args[++i], lo, hi);
    if (auto* error = std::get_if<OptionError>(&value)) return std::move(*error);
    const std::int64_t v = std::get<std::int64_t>(value);
    switch (name) {
      case Flag::MaxTp: options.max_tp = v; break;
      case Flag::MaxHeads: options.max_heads = v; break;
      default: options.threads = static_cast<int>(v); break;
    }
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
// command allows; an error text when it is malformed. `name` is args[i]'s.
std::variant<Taken, OptionError> take_shared_flag(Args args, std::size_t& i, Flag name, bool allow_connector,
                                                  bool allow_svg, SharedFlags& f) {
  const std::string_view flag = args[i];
  switch (name) {
    case Flag::Help: f.help = true; return Taken::Yes;
    case Flag::Json: f.json = true; return Taken::Yes;
    case Flag::Mla: f.mla = true; return Taken::Yes;
    case Flag::KvHeads:
    case Flag::ModelConfig: break;
    case Flag::Connector:
      if (!allow_connector) return Taken::No;
      break;
    case Flag::Svg:
      if (!allow_svg) return Taken::No;
      break;
    default: return Taken::No;
  }
  if (i + 1 == args.size()) return needs_a_value(flag);
  const std::string_view value = args[++i];
  if (name == Flag::Connector) {
    const auto c = connector_named(value);
    if (!c) {
      return OptionError("unknown connector '", value,
                         "' (expected moriio, nixl, mooncake, sglang, trtllm, trtllm-v2 or general)");
    }
    f.connectors.push_back(*c);
    return Taken::Yes;
  }
  const bool twice = name == Flag::KvHeads ? f.kv_heads.has_value()
                     : name == Flag::Svg   ? f.svg.has_value()
                                           : f.model_config.has_value();
  if (twice) return given_twice(flag);
  // A file named like an option is a missing file: `--svg --mla` wrote the
  // picture to a file called "--mla" and lost --mla (fuzz_cli_options'
  // find, corpus/cli_options/regression/svg_swallows_mla), as
  // `--invariant --list` did.
  if (value.empty() || (name != Flag::KvHeads && value.starts_with('-'))) return needs_a_value(flag);
  if (name == Flag::Svg) f.svg = std::string(value);
  if (name == Flag::ModelConfig) f.model_config = std::string(value);
  if (name == Flag::KvHeads) {
    auto heads = parse_bounded(flag, value, 1, kMaxOperatorSize);
    if (auto* error = std::get_if<OptionError>(&heads)) return std::move(*error);
    f.kv_heads = std::get<std::int64_t>(heads);
  }
  return Taken::Yes;
}

// Takes args[i] (and its value, advancing i) when it is a stage flag (StageFlags).
std::variant<Taken, OptionError> take_stage_flag(Args args, std::size_t& i, Flag name, StageFlags& f) {
  const std::string_view flag = args[i];
  switch (name) {
    case Flag::PrefillAdp: f.prefill_adp = true; return Taken::Yes;
    case Flag::DecodeAdp: f.decode_adp = true; return Taken::Yes;
    case Flag::PrefillPpLayers:
    case Flag::DecodePpLayers:
    case Flag::PrefillPp:
    case Flag::DecodePp: break;
    default: return Taken::No;
  }
  if (i + 1 == args.size()) return needs_a_value(flag);
  const bool prefill = name == Flag::PrefillPpLayers || name == Flag::PrefillPp;
  auto& layers = prefill ? f.prefill_layers : f.decode_layers;
  auto& pp = prefill ? f.prefill_pp : f.decode_pp;
  if (layers || pp) {
    if ((name == Flag::PrefillPpLayers || name == Flag::DecodePpLayers) == layers.has_value()) return given_twice(flag);
    return OptionError("give at most one of ", prefill ? "--prefill-pp and --prefill-pp-layers" : "--decode-pp and --decode-pp-layers");
  }
  const std::string_view value = args[++i];
  if (name == Flag::PrefillPpLayers || name == Flag::DecodePpLayers) {
    auto parsed = parse_layer_list(flag, value);
    if (auto* error = std::get_if<OptionError>(&parsed)) return std::move(*error);
    layers = std::move(std::get<std::vector<std::int64_t>>(parsed));
    return Taken::Yes;
  }
  auto stages = parse_bounded(flag, value, 1, kMaxStages);
  if (auto* error = std::get_if<OptionError>(&stages)) return std::move(*error);
  pp = std::get<std::int64_t>(stages);
  return Taken::Yes;
}

// Where the heads come from: exactly one of the three flags.
std::optional<OptionError> finish_head_source(const SharedFlags& f, HeadSource& out) {
  const int given = (f.kv_heads ? 1 : 0) + (f.mla ? 1 : 0) + (f.model_config ? 1 : 0);
  if (given != 1) return OptionError("give exactly one of --kv-heads H, --mla and --model-config FILE");
  out.kv_heads = BigInt(f.kv_heads.value_or(1));
  out.mla = f.mla;
  out.model_config = f.model_config;
  return std::nullopt;
}

}  // namespace

std::variant<SizingOptions, OptionError> parse_sizing_options(SizingCommand command, Args args) {
  const bool check = command == SizingCommand::Check;
  SizingOptions o;
  SharedFlags shared;
  std::optional<std::int64_t> prefill, decode, max_gpus;
  // The bounded flags, a size of the deployment or the suggestions' budget,
  // and the flags the model validates, with where their value goes.
  struct Bounded {
    std::int64_t lo, hi;
    std::optional<std::int64_t>* target;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Flag name = flag_named(args[i]);
    auto taken = take_shared_flag(args, i, name, check, !check, shared);
    if (auto* error = std::get_if<OptionError>(&taken)) return std::move(*error);
    if (std::get<Taken>(taken) == Taken::Yes) continue;
    auto staged = take_stage_flag(args, i, name, o.stages);
    if (auto* error = std::get_if<OptionError>(&staged)) return std::move(*error);
    if (std::get<Taken>(staged) == Taken::Yes) continue;
    const std::string_view flag = args[i];
    std::optional<Bounded> b;
    std::optional<BigInt>* v = nullptr;
    switch (name) {
      case Flag::PrefillTp: b = Bounded{1, kMaxOperatorSize, &prefill}; break;
      case Flag::DecodeTp: b = Bounded{1, kMaxOperatorSize, &decode}; break;
      case Flag::MaxGpus: b = check ? std::optional(Bounded{2, 2 * kMaxOperatorSize, &max_gpus}) : std::nullopt; break;
      case Flag::DpSize: v = check ? &o.dp_size : nullptr; break;
      case Flag::BasePort: v = check ? &o.base_port : nullptr; break;
      case Flag::PrefillHosts: v = check ? &o.prefill_hosts : nullptr; break;
      case Flag::DecodeHosts: v = check ? &o.decode_hosts : nullptr; break;
      case Flag::DecodeRank: v = check ? nullptr : &o.decode_rank; break;
      case Flag::BytesPerHead: v = check ? nullptr : &o.bytes_per_head; break;
      default: break;
    }
    if (!b && v == nullptr) return unknown_option(flag);
    if (i + 1 == args.size()) return needs_a_value(flag);
    if (b ? b->target->has_value() : v->has_value()) return given_twice(flag);
    const std::string_view text = args[++i];
    if (b) {
      auto value = parse_bounded(flag, text, b->lo, b->hi);
      if (auto* error = std::get_if<OptionError>(&value)) return std::move(*error);
      *b->target = std::get<std::int64_t>(value);
      continue;
    }
    const auto value = parse_decimal(text);
    if (!value) return OptionError(flag, " takes a decimal integer, got '", text, "'");
    *v = *value;
  }
  o.help = shared.help;
  o.json = shared.json;
  o.connectors = std::move(shared.connectors);
  o.svg = std::move(shared.svg);
  if (o.help) return o;
  if (!prefill || !decode) return OptionError("--prefill-tp and --decode-tp are required");
  if (auto error = finish_head_source(shared, o)) return std::move(*error);
  if (o.dp_size.has_value() != o.base_port.has_value()) return OptionError("--dp-size and --base-port go together");
  if ((o.stages.prefill_pp || o.stages.decode_pp) && !o.model_config) {
    return OptionError(o.stages.prefill_pp ? "--prefill-pp" : "--decode-pp",
                       " splits the model's num_hidden_layers evenly: it needs --model-config (or give the layers with ",
                       o.stages.prefill_pp ? "--prefill-pp-layers" : "--decode-pp-layers", ")");
  }
  o.prefill_tp = *prefill;
  o.decode_tp = *decode;
  o.max_gpus = max_gpus;
  return o;
}

std::variant<MatrixOptions, OptionError> parse_matrix_options(Args args) {
  MatrixOptions o;
  SharedFlags shared;
  bool max_tp_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Flag name = flag_named(args[i]);
    auto taken = take_shared_flag(args, i, name, true, true, shared);
    if (auto* error = std::get_if<OptionError>(&taken)) return std::move(*error);
    if (std::get<Taken>(taken) == Taken::Yes) continue;
    const std::string_view flag = args[i];
    if (name == Flag::PrefillAdp || name == Flag::DecodeAdp) {
      (name == Flag::PrefillAdp ? o.adp.prefill : o.adp.decode) = true;
      continue;
    }
    if (name != Flag::MaxTp) return unknown_option(flag);
    if (i + 1 == args.size()) return needs_a_value(flag);
    if (max_tp_given) return given_twice(flag);
    auto value = parse_bounded(flag, args[++i], 1, kMaxMatrixTp);
    if (auto* error = std::get_if<OptionError>(&value)) return std::move(*error);
    o.max_tp = std::get<std::int64_t>(value);
    max_tp_given = true;
  }
  o.help = shared.help;
  o.json = shared.json;
  o.connectors = std::move(shared.connectors);
  o.svg = std::move(shared.svg);
  if (o.help) return o;
  if (auto error = finish_head_source(shared, o)) return std::move(*error);
  return o;
}

}  // namespace tpcheck::cli
