// Fuzz target: the command-line option parsers of `tpcheck` (cli/options.hpp).
//
// Property, for any bytes taken as arguments separated by newlines:
//   1. every parser (verify, and the sizing options of check and plan) must
//      return (never crash), either options or an error that, written out,
//      is one non-empty line;
//   2. verify: a value other than the default stays inside the bounds the
//      parser promises (--max-tp and --max-heads in [1, 4096], --threads in
//      [1, 256]) and is one of the arguments, read as decimal;
//   3. check/plan/matrix: unless --help was given, the options take their
//      heads from exactly one of --kv-heads / --mla / --model-config (the file
//      being one of the arguments), or from none with a family flag (--mamba2,
//      --gdn, --kda, --mamba1: a model without attention), whose dims are then
//      taken, each in [1, kMaxStateFlag]; check/plan name both sizes; every size
//      taken is one of the arguments (tpcheck::parse_decimal), in
//      [1, kMaxOperatorSize] for the sizes and heads, and so is every optional
//      one; matrix's --max-tp is in [1, kMaxMatrixTp];
//   4. parse_bounded on the first argument, for bounds decoded from the input
//      tail, accepts exactly the plain decimal numbers ([-]digits) inside the
//      bounds (tpcheck::parse_decimal is the independent reading), and
//      returns that number; parse_layer_list on it accepts exactly the
//      comma-separated plain decimals in [0, kMaxStageLayers], read so;
//   5. check/plan's stage flags: an attention-DP flag exactly when given, a
//      side's layer list (one of the arguments, each count in bounds) or its
//      stage count (in [1, 4096], an argument, only with --model-config),
//      never both; matrix's attention-DP flags exactly when given;
//   6. any disagreement aborts with the arguments and the result.
#include <algorithm>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fuzz_check.hpp"
#include "options.hpp"

namespace {

using Args = std::vector<std::string_view>;

void fail(const Args& args, const std::string& what) {
  std::string shown;
  for (const auto a : args) shown += (shown.empty() ? "'" : " '") + std::string(a) + "'";
  tpcheck::fuzz::require("arguments [" + shown + "]: " + what, "command-line option parser");
}

bool one_line(const std::string& text) { return !text.empty() && text.find('\n') == std::string::npos; }

// A parser's error written out, into a buffer kept across inputs (cleared,
// not freed): the parsers keep their errors as pieces, so that an error
// costs no allocation, and nor does reading it here.
const std::string& text_of(const tpcheck::cli::OptionError& error) {
  static std::string text;
  text.clear();
  error.append_to(text);
  return text;
}

// Whether the parser failed; fails the input unless its error is one line.
template <class Parsed>
bool rejected(const Args& args, const Parsed& parsed) {
  const auto* error = std::get_if<tpcheck::cli::OptionError>(&parsed);
  if (error && !one_line(text_of(*error))) fail(args, "error is not one line: '" + text_of(*error) + "'");
  return error != nullptr;
}

bool plain_decimal(std::string_view text) {
  const std::size_t digits_from = (!text.empty() && text[0] == '-') ? 1 : 0;
  return text.size() > digits_from &&
         std::all_of(text.begin() + static_cast<std::ptrdiff_t>(digits_from), text.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

// The input's arguments (views of its bytes), and each as tpcheck::parse_decimal
// reads it, read once per input and only when a check asks (most inputs are
// rejected by every parser, and no check asks). Kept across inputs: cleared,
// not freed (an allocation per input costs a stack trace under ASan).
Args g_args;
std::vector<std::optional<tpcheck::BigInt>> g_numbers;
bool g_numbers_read = false;

const std::vector<std::optional<tpcheck::BigInt>>& numbers() {
  if (!g_numbers_read) {
    g_numbers.resize(g_args.size());
    for (std::size_t i = 0; i < g_args.size(); ++i) g_numbers[i] = tpcheck::parse_decimal(g_args[i]);
    g_numbers_read = true;
  }
  return g_numbers;
}

bool is_argument(const tpcheck::BigInt& value) {
  return std::any_of(numbers().begin(), numbers().end(), [&](const auto& v) { return v && *v == value; });
}

bool has(const Args& args, std::string_view flag) {
  return std::find(args.begin(), args.end(), flag) != args.end();
}

void check_verify_options(const Args& args) {
  const auto parsed = tpcheck::cli::parse_verify_options(args);
  if (rejected(args, parsed)) return;
  const auto& o = std::get<tpcheck::cli::VerifyOptions>(parsed);
  const tpcheck::cli::VerifyOptions defaults;
  const auto check = [&](const char* name, std::int64_t value, std::int64_t fallback, std::int64_t lo, std::int64_t hi) {
    if (value == fallback) return;
    if (value < lo || value > hi) fail(args, std::string(name) + " = " + std::to_string(value) + " is out of bounds");
    if (!is_argument(value)) {
      fail(args, std::string(name) + " = " + std::to_string(value) + " is not one of the arguments");
    }
  };
  check("--max-tp", o.max_tp, defaults.max_tp, 1, 4096);
  check("--max-heads", o.max_heads, defaults.max_heads, 1, 4096);
  check("--threads", o.threads, defaults.threads, 1, 256);
  // --list is a flag; each --invariant name is the argument after one.
  if (o.list != has(args, "--list")) fail(args, "--list read as " + std::string(o.list ? "given" : "absent"));
  for (const std::string& name : o.invariants) {
    const auto at = std::find(args.begin(), args.end(), name);
    if (at == args.begin() || at == args.end()) fail(args, "--invariant '" + name + "' is not an argument after a flag");
  }
}

// Exactly one head source, or none beside a family flag; the one given was
// an argument and is in bounds; a family flag's dims are taken in bounds.
void check_head_source(const Args& args, const tpcheck::cli::HeadSource& h) {
  const bool heads = has(args, "--kv-heads"), mla = has(args, "--mla"), config = has(args, "--model-config");
  const bool family = has(args, "--mamba2") || has(args, "--gdn") || has(args, "--kda") || has(args, "--mamba1");
  const int given = (heads ? 1 : 0) + (mla ? 1 : 0) + (config ? 1 : 0);
  if (h.mla != mla || given > 1 || (given == 0 && !family)) {
    fail(args, "accepted without exactly one of --kv-heads, --mla and --model-config (or a family flag alone)");
  }
  if (h.attention != (given == 1)) fail(args, "attention read otherwise than its head source says");
  if (h.state.dims.has_value() != family) fail(args, "a family's dims taken without its flag, or its flag not taken");
  if (h.state.dims) {
    for (std::size_t i = 0; i < tpcheck::state_dim_count(h.state.dims->family); ++i) {
      if (h.state.dims->v[i] < 1 || h.state.dims->v[i] > tpcheck::cli::kMaxStateFlag) fail(args, "a dim out of bounds");
    }
  }
  if (h.model_config.has_value() != config) fail(args, "--model-config given but not taken, or taken but not given");
  if (h.model_config && std::find(args.begin(), args.end(), *h.model_config) == args.end()) {
    fail(args, "took --model-config '" + *h.model_config + "', which is not one of the arguments");
  }
  if (heads && (!is_argument(h.kv_heads) || h.kv_heads < 1 || h.kv_heads > tpcheck::cli::kMaxOperatorSize)) {
    fail(args, "took " + h.kv_heads.str() + " heads, not an argument in bounds");
  }
}

void check_matrix_options(const Args& args) {
  const auto parsed = tpcheck::cli::parse_matrix_options(args);
  if (rejected(args, parsed)) return;
  const auto& o = std::get<tpcheck::cli::MatrixOptions>(parsed);
  if (o.help) return;
  check_head_source(args, o);
  if (o.max_tp < 1 || o.max_tp > tpcheck::cli::kMaxMatrixTp) fail(args, "--max-tp out of bounds");
  if (o.max_tp != tpcheck::cli::MatrixOptions().max_tp && !is_argument(o.max_tp)) {
    fail(args, "took --max-tp " + std::to_string(o.max_tp) + ", which is not one of the arguments");
  }
  if (o.adp.prefill != has(args, "--prefill-adp") || o.adp.decode != has(args, "--decode-adp")) {
    fail(args, "matrix read an attention-DP flag otherwise than given");
  }
}

// A layer list as an independent reading sees it: comma-separated plain
// decimals (tpcheck::parse_decimal), or nothing when an item is not one.
std::optional<std::vector<tpcheck::BigInt>> comma_decimals(std::string_view text) {
  std::vector<tpcheck::BigInt> items;
  std::size_t from = 0;
  while (true) {
    const std::size_t comma = text.find(',', from);
    const std::string_view item = text.substr(from, comma == std::string_view::npos ? text.npos : comma - from);
    const auto value = tpcheck::parse_decimal(item);
    if (!plain_decimal(item) || !value) return std::nullopt;
    items.push_back(*value);
    if (comma == std::string_view::npos) return items;
    from = comma + 1;
  }
}

// The stage flags of check and plan: an ADP flag exactly when given; a side's
// layers, or its stage count, not both; a stage count in [1, 4096] among the
// arguments, and only with --model-config; a layer list one of the arguments,
// read as comma-separated decimals, each in [0, kMaxStageLayers].
void check_stage_flags(const Args& args, const tpcheck::cli::SizingOptions& o) {
  const tpcheck::cli::StageFlags& f = o.stages;
  if (f.prefill_adp != has(args, "--prefill-adp") || f.decode_adp != has(args, "--decode-adp")) {
    fail(args, "an attention-DP flag read otherwise than given");
  }
  const auto side = [&](const auto& layers, const auto& pp, const char* name) {
    if (layers && pp) fail(args, std::string(name) + ": both a layer list and a stage count");
    if (pp && (*pp < 1 || *pp > tpcheck::kMaxStages || !is_argument(*pp) || !o.model_config)) {
      fail(args, std::string(name) + ": took stage count " + std::to_string(*pp) + " out of bounds or without --model-config");
    }
    if (!layers) return;
    for (const std::int64_t c : *layers) {
      if (c < 0 || c > tpcheck::cli::kMaxStageLayers) fail(args, std::string(name) + ": a layer count out of bounds");
    }
    const std::vector<tpcheck::BigInt> taken(layers->begin(), layers->end());
    if (std::none_of(args.begin(), args.end(), [&](std::string_view a) { return comma_decimals(a) == taken; })) {
      fail(args, std::string(name) + ": took layers that are no argument");
    }
  };
  side(f.prefill_layers, f.prefill_pp, "prefill");
  side(f.decode_layers, f.decode_pp, "decode");
}

void check_sizing_options(const Args& args, tpcheck::cli::SizingCommand command) {
  const auto parsed = tpcheck::cli::parse_sizing_options(command, args);
  if (rejected(args, parsed)) return;
  const auto& o = std::get<tpcheck::cli::SizingOptions>(parsed);
  if (o.help) return;
  if (!has(args, "--prefill-tp") || !has(args, "--decode-tp")) fail(args, "accepted without both sizes");
  check_head_source(args, o);
  for (const tpcheck::BigInt* size : {&o.prefill_tp, &o.decode_tp}) {
    if (!is_argument(*size)) fail(args, "took size " + size->str() + ", which is not one of the arguments");
    if (*size < 1 || *size > tpcheck::cli::kMaxOperatorSize) fail(args, "took size " + size->str() + " out of bounds");
  }
  for (const auto* optional : {&o.dp_size, &o.base_port, &o.prefill_hosts, &o.decode_hosts, &o.decode_rank,
                               &o.bytes_per_head}) {
    if (*optional && !is_argument(**optional)) {
      fail(args, "took " + (*optional)->str() + ", which is not one of the arguments");
    }
  }
  if (o.max_gpus &&
      (!is_argument(*o.max_gpus) || *o.max_gpus < 2 || *o.max_gpus > 2 * tpcheck::cli::kMaxOperatorSize)) {
    fail(args, "took --max-gpus " + std::to_string(*o.max_gpus) + ", not an argument in bounds");
  }
  check_stage_flags(args, o);
}

// parse_layer_list on an argument accepts exactly the comma-separated plain
// decimals in [0, kMaxStageLayers] (tpcheck::parse_decimal is the independent
// reading), and returns them.
void check_layer_list(const Args& args) {
  const std::string_view text = args.front();
  const auto parsed = tpcheck::cli::parse_layer_list("--flag", text);
  const auto items = comma_decimals(text);
  const bool should_accept =
      items && std::all_of(items->begin(), items->end(),
                           [](const tpcheck::BigInt& v) { return v >= 0 && v <= tpcheck::cli::kMaxStageLayers; });
  if (rejected(args, parsed)) {
    if (should_accept) fail(args, "parse_layer_list rejected a layer list: " + text_of(std::get<tpcheck::cli::OptionError>(parsed)));
    return;
  }
  if (!should_accept) fail(args, "parse_layer_list accepted '" + std::string(text) + "'");
  const auto& got = std::get<std::vector<std::int64_t>>(parsed);
  if (std::vector<tpcheck::BigInt>(got.begin(), got.end()) != *items) fail(args, "parse_layer_list misread '" + std::string(text) + "'");
}

void check_parse_bounded(const Args& args, std::int64_t lo, std::int64_t hi) {
  const std::string_view text = args.front();
  const auto parsed = tpcheck::cli::parse_bounded("--flag", text, lo, hi);
  const auto value = tpcheck::parse_decimal(text);
  const bool should_accept = plain_decimal(text) && value && *value >= lo && *value <= hi;
  const auto bounds = [&] { return " in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]"; };
  if (rejected(args, parsed)) {
    if (should_accept) {
      fail(args, "parse_bounded rejected a number" + bounds() + ": " +
                     text_of(std::get<tpcheck::cli::OptionError>(parsed)));
    }
    return;
  }
  const std::int64_t got = std::get<std::int64_t>(parsed);
  if (!should_accept) {
    fail(args, "parse_bounded accepted '" + std::string(text) + "'" + bounds() + " as " + std::to_string(got));
  }
  if (*value != got) fail(args, "parse_bounded read '" + std::string(text) + "' as " + std::to_string(got));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The first 18 bytes decode the bounds for parse_bounded; the rest is text.
  tpcheck::fuzz::FuzzInput in(data, size);
  const std::int64_t a = in.int64("lo");
  const std::int64_t b = in.int64("hi");
  const std::size_t skip = std::min(size, 2 * tpcheck::fuzz::FuzzInput::kFieldBytes);
  const std::string_view text(reinterpret_cast<const char*>(data) + skip, size - skip);
  Args& args = g_args;
  args.clear();
  g_numbers_read = false;
  std::size_t from = 0;
  for (std::size_t nl; (nl = text.find('\n', from)) != std::string_view::npos; from = nl + 1) {
    args.push_back(text.substr(from, nl - from));
  }
  if (from < text.size() || args.empty()) args.push_back(text.substr(from));
  check_verify_options(args);
  check_sizing_options(args, tpcheck::cli::SizingCommand::Check);
  check_sizing_options(args, tpcheck::cli::SizingCommand::Plan);
  check_matrix_options(args);
  check_parse_bounded(args, std::min(a, b), std::max(a, b));
  check_layer_list(args);
  return 0;
}
