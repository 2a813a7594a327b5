#include "options.hpp"

#include <algorithm>
#include <array>
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
  Mamba2, Gdn, Kda, Mamba1, ConvKernel, StateBytes,  // the recurrent state (check, plan, matrix; --state-bytes: plan)
  ConvWindow, NumSpec, ConvStateBytes, SsmStateBytes, ConvLayout,  // a side's state, both sides ...
  PrefillConvWindow, PrefillNumSpec, PrefillConvStateBytes, PrefillSsmStateBytes, PrefillConvLayout,  // ... prefill
  DecodeConvWindow, DecodeNumSpec, DecodeConvStateBytes, DecodeSsmStateBytes, DecodeConvLayout,       // ... decode
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
      {"--mamba2", Flag::Mamba2},              {"--gdn", Flag::Gdn},
      {"--kda", Flag::Kda},                    {"--mamba1", Flag::Mamba1},
      {"--conv-kernel", Flag::ConvKernel},     {"--state-bytes", Flag::StateBytes},
      {"--conv-window", Flag::ConvWindow},     {"--num-spec", Flag::NumSpec},
      {"--conv-state-bytes", Flag::ConvStateBytes}, {"--ssm-state-bytes", Flag::SsmStateBytes},
      {"--conv-layout", Flag::ConvLayout},
      {"--prefill-conv-window", Flag::PrefillConvWindow}, {"--prefill-num-spec", Flag::PrefillNumSpec},
      {"--prefill-conv-state-bytes", Flag::PrefillConvStateBytes},
      {"--prefill-ssm-state-bytes", Flag::PrefillSsmStateBytes}, {"--prefill-conv-layout", Flag::PrefillConvLayout},
      {"--decode-conv-window", Flag::DecodeConvWindow}, {"--decode-num-spec", Flag::DecodeNumSpec},
      {"--decode-conv-state-bytes", Flag::DecodeConvStateBytes},
      {"--decode-ssm-state-bytes", Flag::DecodeSsmStateBytes}, {"--decode-conv-layout", Flag::DecodeConvLayout},
  };
  const auto found = kFlags.find(arg);
  return found == kFlags.end() ? Flag::Other : found->second;
}

}  // namespace

namespace {

// "a,b,...": whole numbers in [lo, hi], or nothing when an item is not one.
std::optional<std::vector<std::int64_t>> number_list(std::string_view text, std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> numbers;
  std::size_t from = 0;
  while (true) {
    const std::size_t comma = text.find(',', from);
    const std::string_view item = text.substr(from, comma == std::string_view::npos ? text.npos : comma - from);
    std::int64_t value = 0;
    const char* end = item.data() + item.size();
    const auto [stop, error] = std::from_chars(item.data(), end, value);
    if (item.empty() || error != std::errc() || stop != end || value < lo || value > hi) return std::nullopt;
    numbers.push_back(value);
    if (comma == std::string_view::npos) return numbers;
    from = comma + 1;
  }
}

}  // namespace

std::variant<std::vector<std::int64_t>, OptionError> parse_layer_list(std::string_view flag, std::string_view text) {
  auto counts = number_list(text, 0, kMaxStageLayers);
  if (!counts) {
    return OptionError(flag, " takes layer counts separated by commas, each a whole number from 0 to ",
                       kMaxStageLayers, ", got '", text, "'");
  }
  return std::move(*counts);
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

// The family flags' dims, in SPEC §16.0's order.
struct FamilyFlag {
  Flag flag;
  StateFamily family;
  const char* dims;  // as the usage names them
};
constexpr std::array<FamilyFlag, 4> kFamilyFlags = {{
    {Flag::Mamba2, StateFamily::Mamba2, "H,PH,G,N"},
    {Flag::Gdn, StateFamily::Gdn, "HK,DK,HV,DV"},
    {Flag::Kda, StateFamily::Kda, "H,DH"},
    {Flag::Mamba1, StateFamily::Mamba1, "I,N"},
}};

// A side's flag: which side and which value.
struct SideFlag {
  Flag flag;
  int side;  // 0 both, 1 prefill, 2 decode
  int what;  // 0 window, 1 num_spec, 2 conv bytes, 3 ssm bytes, 4 layout
};
constexpr std::array<SideFlag, 15> kSideFlags = {{
    {Flag::ConvWindow, 0, 0}, {Flag::NumSpec, 0, 1}, {Flag::ConvStateBytes, 0, 2}, {Flag::SsmStateBytes, 0, 3},
    {Flag::ConvLayout, 0, 4}, {Flag::PrefillConvWindow, 1, 0}, {Flag::PrefillNumSpec, 1, 1},
    {Flag::PrefillConvStateBytes, 1, 2}, {Flag::PrefillSsmStateBytes, 1, 3}, {Flag::PrefillConvLayout, 1, 4},
    {Flag::DecodeConvWindow, 2, 0}, {Flag::DecodeNumSpec, 2, 1}, {Flag::DecodeConvStateBytes, 2, 2},
    {Flag::DecodeSsmStateBytes, 2, 3}, {Flag::DecodeConvLayout, 2, 4},
}};

// The largest element size the state flags take (bytes of one element).
constexpr std::int64_t kMaxElementBytes = 64;

}  // namespace

const char* family_flag(StateFamily family) {
  switch (family) {
    case StateFamily::Mamba2: return "--mamba2";
    case StateFamily::Gdn: return "--gdn";
    case StateFamily::Kda: return "--kda";
    case StateFamily::Mamba1: return "--mamba1";
  }
  return "";
}

namespace {

// Takes args[i] (and its value, advancing i) when it is a state flag (StateFlags).
std::variant<Taken, OptionError> take_state_flag(Args args, std::size_t& i, Flag name, StateFlags& f) {
  const std::string_view flag = args[i];
  const auto family = std::find_if(kFamilyFlags.begin(), kFamilyFlags.end(), [&](const FamilyFlag& x) { return x.flag == name; });
  const auto side = std::find_if(kSideFlags.begin(), kSideFlags.end(), [&](const SideFlag& x) { return x.flag == name; });
  if (family == kFamilyFlags.end() && side == kSideFlags.end() && name != Flag::ConvKernel) return Taken::No;
  if (i + 1 == args.size()) return needs_a_value(flag);
  const std::string_view value = args[++i];
  if (family != kFamilyFlags.end()) {
    if (f.dims) {
      return f.dims->family == family->family ? given_twice(flag)
                                              : OptionError("give one of --mamba2, --gdn, --kda and --mamba1");
    }
    const std::size_t count = state_dim_count(family->family);
    const auto dims = number_list(value, 1, kMaxStateFlag);
    if (!dims || dims->size() != count) {
      return OptionError(flag, " takes ", family->dims, ", each a whole number from 1 to ", kMaxStateFlag,
                         ", got '", value, "'");
    }
    StateDims<std::int64_t> d;
    d.family = family->family;
    std::copy(dims->begin(), dims->end(), d.v.begin());
    f.dims = d;
    return Taken::Yes;
  }
  if (name == Flag::ConvKernel) {
    if (f.kernel) return given_twice(flag);
    // K - 1 rows of conv window: a kernel of 1 keeps none.
    auto k = parse_bounded(flag, value, 2, kMaxStateFlag);
    if (auto* error = std::get_if<OptionError>(&k)) return std::move(*error);
    f.kernel = std::get<std::int64_t>(k);
    return Taken::Yes;
  }
  StateSideFlags& s = side->side == 0 ? f.both : side->side == 1 ? f.prefill : f.decode;
  if (side->what == 4) {
    if (s.layout) return given_twice(flag);
    if (value != "ds" && value != "sd") return OptionError(flag, " takes ds or sd, got '", value, "'");
    s.layout = value == "ds" ? ConvOrder::DimFirst : ConvOrder::StateFirst;
    return Taken::Yes;
  }
  std::optional<std::int64_t>& target = side->what == 0 ? s.window : side->what == 1 ? s.num_spec
                                        : side->what == 2 ? s.conv_bytes : s.ssm_bytes;
  if (target) return given_twice(flag);
  const std::int64_t lo = side->what == 1 ? 0 : 1, hi = side->what >= 2 ? kMaxElementBytes : kMaxStateFlag;
  auto v = parse_bounded(flag, value, lo, hi);
  if (auto* error = std::get_if<OptionError>(&v)) return std::move(*error);
  target = std::get<std::int64_t>(v);
  return Taken::Yes;
}

// Where the heads come from: exactly one of the three flags, or none for a
// recurrent model given by its family flag (a model without attention).
std::optional<OptionError> finish_head_source(const SharedFlags& f, HeadSource& out) {
  const int given = (f.kv_heads ? 1 : 0) + (f.mla ? 1 : 0) + (f.model_config ? 1 : 0);
  if (given > 1 || (given == 0 && !out.state.dims)) {
    return OptionError("give exactly one of --kv-heads H, --mla and --model-config FILE");
  }
  if (out.state.dims && f.model_config) {
    return OptionError(family_flag(out.state.dims->family), " describes a model without --model-config: give one or the other");
  }
  out.kv_heads = BigInt(f.kv_heads.value_or(1));
  out.mla = f.mla;
  out.model_config = f.model_config;
  out.attention = given == 1;
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
    auto state = take_state_flag(args, i, name, o.state);
    if (auto* error = std::get_if<OptionError>(&state)) return std::move(*error);
    if (std::get<Taken>(state) == Taken::Yes) continue;
    const std::string_view flag = args[i];
    if (name == Flag::StateBytes && !check) {
      if (i + 1 == args.size()) return needs_a_value(flag);
      if (o.state_bytes) return given_twice(flag);
      const std::string_view layout = args[++i];
      if (layout != "ds" && layout != "sd" && layout != "sglang") {
        return OptionError(flag, " takes ds, sd or sglang, got '", layout, "'");
      }
      o.state_bytes = std::string(layout);
      continue;
    }
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
    auto state = take_state_flag(args, i, name, o.state);
    if (auto* error = std::get_if<OptionError>(&state)) return std::move(*error);
    if (std::get<Taken>(state) == Taken::Yes) continue;
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
