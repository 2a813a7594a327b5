// Fuzz target: the `tpcheck eval --batch` line parser (tpcheck::evaluate_line).
//
// Property, for any bytes taken as one line:
//   1. evaluate_line must return (never crash, hang or overflow), with a
//      non-empty one-line text;
//   2. independently, split the line on whitespace and decide whether it is a
//      valid call: a known operation, its number of arguments, every argument
//      a decimal integer tpcheck::parse_decimal accepts, MLA arguments 0 or 1;
//   3. a valid call must be accepted and its text must be the cpp_int model's
//      outcome on the parsed integers (the int64 path, taken when they fit,
//      must agree); an invalid one must be rejected with a usage error;
//   4. the model type is picked by the line's length (mod 4): Auto (int64
//      when every argument fits, cpp_int beyond), int16, int64 or cpp_int
//      (`tpcheck eval --model NAME`, NAME read by model_type_named). A valid call in a type that does not hold
//      every argument must be rejected with a one-line "does not fit in
//      <type>"; in int64 and cpp_int it must give the cpp_int model's outcome
//      (in int64 also through evaluate_int64, conform's entry point); in
//      int16 any one-line outcome (int16 against cpp_int is the
//      differential's);
//   5. an invalid line with an operation word is rejected by the single-call
//      form `tpcheck eval OP ARGS...` (evaluate) with the same text;
//   6. the model names each type as `--model` does (model_type_name);
//   7. parse_call_line reads the same call, or gives the same usage error
//      (one input in 64, by its size);
//   8. any disagreement aborts with the line and both texts.
// A window or plan of more than kMaxListedHere (and at most kMaxListed)
// elements is skipped: cost only, since listing runs the same code for every
// element, and a list of thousands took milliseconds per input (rendered in
// int64 and again in cpp_int). Past kMaxListed the model refuses at once,
// which stays checked.
#include <algorithm>
#include <array>
#include <cctype>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "fuzz_check.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/operations.hpp"

namespace {

constexpr std::int64_t kMaxListedHere = 64;

template <class Int>
bool slow_to_list(const Int& count) {
  return count > kMaxListedHere && count <= tpcheck::kMaxListed;
}

// The oracle's reading of a line. Its buffers live across inputs (cleared,
// not freed): an allocation per input costs a stack trace under ASan.
struct Oracle {
  std::vector<std::string_view> words;
  std::size_t op = 0;
  std::vector<tpcheck::BigInt> args;
  std::vector<std::int64_t> narrow;  // args in int64, when each fits
};

// std::isspace (C locale) for every byte, asked once: a call into the C
// library per character was a visible share of each input.
const std::array<bool, 256>& spaces() {
  static const std::array<bool, 256> table = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c) t[static_cast<std::size_t>(c)] = std::isspace(c) != 0;
    return t;
  }();
  return table;
}

// The whitespace-separated words of a line, as std::isspace (C locale) splits them.
void split_words(std::string_view line, std::vector<std::string_view>& words) {
  const auto& space = spaces();
  words.clear();
  for (std::size_t at = 0; at < line.size();) {
    if (space[static_cast<unsigned char>(line[at])]) {
      ++at;
      continue;
    }
    const std::size_t from = at;
    while (at < line.size() && !space[static_cast<unsigned char>(line[at])]) ++at;
    words.push_back(line.substr(from, at - from));
  }
}

// The operation a word names, looked up here rather than by the parser's
// tpcheck::operation_index.
std::optional<std::size_t> named_operation(std::string_view word) {
  const auto& infos = tpcheck::operation_infos();
  for (std::size_t i = 0; i < infos.size(); ++i) {
    if (infos[i].name == word) return i;
  }
  return std::nullopt;
}

// Whether the line (split into o.words) is a valid call; if so, o holds it.
bool valid_call(Oracle& o) {
  if (o.words.empty()) return false;
  const auto op = named_operation(o.words.front());
  if (!op) return false;
  const auto& params = tpcheck::operation_infos()[*op].params;
  if (o.words.size() - 1 != params.size()) return false;
  o.op = *op;
  o.args.resize(params.size());
  for (std::size_t i = 1; i < o.words.size(); ++i) {
    auto value = tpcheck::parse_decimal(o.words[i]);
    if (!value) return false;
    if (params[i - 1] == "MLA" && *value != 0 && *value != 1) return false;
    o.args[i - 1] = std::move(*value);
  }
  return true;
}

// Whether every argument is a value of Int.
template <class Int>
bool all_fit(const Oracle& o) {
  return std::all_of(o.args.begin(), o.args.end(),
                     [](const tpcheck::BigInt& a) { return tpcheck::narrow_to<Int>(a).has_value(); });
}

// Whether the call lists a window or plan too long to list here (in int64
// when the arguments fit: the same model, without cpp_int's arithmetic).
template <class Int>
bool too_long_in(const Oracle& o, const Int* a) {
  const auto name = tpcheck::operation_infos()[o.op].name;
  if (name == "window") {
    const auto span = tpcheck::window_span<Int>(a[0], a[1], a[2]);
    return span.ok() && slow_to_list(span.value().end - span.value().first);
  }
  if (name == "plan") {
    const auto count = tpcheck::plan_copy_count<Int>(a[0], a[1], a[2], a[3], a[4] != 0);
    return count.ok() && slow_to_list(count.value());
  }
  return false;
}

// The arguments in int64 (precondition: all_fit<std::int64_t>).
const std::vector<std::int64_t>& narrowed(Oracle& o) {
  o.narrow.clear();
  for (const tpcheck::BigInt& a : o.args) o.narrow.push_back(a.convert_to<std::int64_t>());
  return o.narrow;
}

bool too_long(Oracle& o) {
  return all_fit<std::int64_t>(o) ? too_long_in(o, narrowed(o).data()) : too_long_in(o, o.args.data());
}

void fail(std::string_view line, const std::string& what) {
  tpcheck::fuzz::require("line '" + std::string(line) + "': " + what, "eval line parser");
}

// What the parser gave: ok, and the outcome or the usage error. The texts
// live across inputs (cleared, not freed), so that a usage error costs no
// allocation here either.
struct Got {
  bool ok = false;
  std::string text;
};

// What a valid call gave in the model type Int (named `name`).
template <class Int>
void check_in_type(std::string_view line, Oracle& o, const Got& got, std::string_view name) {
  // The name the model gives its type is the one `--model` reads (the "does not fit" text says it).
  if (tpcheck::model_type_name<Int>() != name) {
    fail(line, "model_type_name is " + std::string(tpcheck::model_type_name<Int>()) + ", not " + std::string(name));
  }
  if (!all_fit<Int>(o)) {
    const std::string_view text = got.text;
    const bool says_so = text.ends_with(name) && text.substr(0, text.size() - name.size()).ends_with("does not fit in ");
    if (got.ok || !says_so) fail(line, "arguments beyond " + std::string(name) + " gave " + got.text);
    return;
  }
  if (!got.ok) fail(line, "a valid call in " + std::string(name) + " was rejected: " + got.text);
  if constexpr (!std::is_same_v<Int, std::int16_t>) {
    const std::string truth = tpcheck::evaluate_big(o.op, o.args);
    if (got.text != truth) {
      fail(line, "gives " + got.text + " in " + std::string(name) + " but the cpp_int model gives " + truth);
    }
  }
  if constexpr (std::is_same_v<Int, std::int64_t>) {
    const std::string direct = tpcheck::evaluate_int64(o.op, narrowed(o));
    if (direct != got.text) fail(line, "evaluate_int64 gives " + direct + " but the line gives " + got.text);
  }
}

// parse_call_line (conform reads its regression calls with it) is the same
// parser as evaluate_line, returning the call instead of running it: a Call
// exactly when the oracle finds one, with the oracle's operation and
// arguments, and otherwise evaluate_line's usage error. It allocates the Call
// or the error, so it is checked on one input in 64, chosen by the input
// itself (its size: a find reproduces from its input alone); the libFuzzer
// build leaves it out of its coverage (coverage_ignorelist.txt says why).
void check_parse_call_line(std::string_view line, const Oracle& o, bool valid, const Got& got) {
  const auto parsed = tpcheck::parse_call_line(line);
  if (const auto* error = std::get_if<std::string>(&parsed)) {
    if (valid) fail(line, "parse_call_line rejects a valid call: " + *error);
    if (*error != got.text) fail(line, "parse_call_line's error is " + *error + " but evaluate_line's is " + got.text);
    return;
  }
  const tpcheck::Call& call = std::get<tpcheck::Call>(parsed);
  if (!valid) fail(line, "parse_call_line accepts a line evaluate_line rejects with " + got.text);
  if (call.op != o.op || call.args != o.args) fail(line, "parse_call_line reads another call than the oracle");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using tpcheck::ModelType;
  std::string_view line(reinterpret_cast<const char*>(data), size);
  // `--batch` reads a line as std::getline does: its newline is not part of
  // it. So "\n", the one input libFuzzer starts from when the corpus is
  // empty, is the empty line, which reaches the parser (this harness is not
  // instrumented for coverage: an input it turns away gives libFuzzer no
  // feature, and with only that input it stops at once). Input with a newline
  // before its end is several lines, which --batch splits before parsing.
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (line.find('\n') != std::string_view::npos) return 0;
  size = line.size();
  static Oracle oracle;
  split_words(line, oracle.words);
  const bool valid = valid_call(oracle);
  if (valid && too_long(oracle)) return 0;
  // As `tpcheck eval --model NAME` reads NAME; no --model is Auto, which has no name.
  static constexpr const char* kNames[] = {"auto", "int16", "int64", "cpp_int"};
  static constexpr ModelType kTypes[] = {ModelType::Auto, ModelType::Int16, ModelType::Int64, ModelType::CppInt};
  const std::optional<ModelType> named = tpcheck::model_type_named(kNames[size % 4]);
  if (named != (size % 4 == 0 ? std::nullopt : std::optional<ModelType>(kTypes[size % 4]))) {
    fail(line, std::string("model_type_named misreads '") + kNames[size % 4] + "'");
  }
  const ModelType type = named.value_or(ModelType::Auto);
  static Got got, single;
  got.ok = tpcheck::evaluate_line(line, type, got.text);
  if (got.text.empty() || got.text.find('\n') != std::string::npos) fail(line, "text is not one line: '" + got.text + "'");
  if (size % 64 == 63) check_parse_call_line(line, oracle, valid, got);
  if (!valid) {
    if (got.ok) fail(line, "an invalid call was accepted, giving " + got.text);
    const auto& words = oracle.words;
    if (!words.empty()) {
      single.ok = tpcheck::evaluate(words.front(), std::span<const std::string_view>(words).subspan(1), type, single.text);
      if (single.ok || single.text != got.text) fail(line, "evaluate(OP, ARGS) gives " + single.text);
    }
    return 0;
  }
  switch (type) {
    case ModelType::Int16: check_in_type<std::int16_t>(line, oracle, got, "int16"); break;
    case ModelType::Int64: check_in_type<std::int64_t>(line, oracle, got, "int64"); break;
    // Auto and cpp_int hold every argument.
    case ModelType::Auto:
    case ModelType::CppInt: check_in_type<tpcheck::BigInt>(line, oracle, got, "cpp_int"); break;
  }
  return 0;
}
