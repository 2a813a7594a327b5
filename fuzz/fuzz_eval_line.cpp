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
//   6. any disagreement aborts with the line and both texts.
// A window or plan of more than kMaxListedHere (and at most kMaxListed)
// elements is skipped: cost only, since listing runs the same code for every
// element, and a list of thousands took milliseconds per input (rendered in
// int64 and again in cpp_int). Past kMaxListed the model refuses at once,
// which stays checked.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <type_traits>
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

struct Call {
  std::size_t op = 0;
  std::vector<tpcheck::BigInt> args;
};

// The whitespace-separated words of a line, as std::isspace (C locale) splits them.
std::vector<std::string> words_of(std::string_view line) {
  std::vector<std::string> words;
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  for (auto at = line.begin(); at != line.end();) {
    const auto from = std::find_if_not(at, line.end(), space);
    at = std::find_if(from, line.end(), space);
    if (from != at) words.emplace_back(from, at);
  }
  return words;
}

// The call a line makes, if it is a valid one.
std::optional<Call> valid_call(std::string_view line) {
  const std::vector<std::string> words = words_of(line);
  if (words.empty()) return std::nullopt;
  const auto op = tpcheck::operation_index(words.front());
  if (!op) return std::nullopt;
  const auto& params = tpcheck::operation_infos()[*op].params;
  if (words.size() - 1 != params.size()) return std::nullopt;
  Call call{*op, {}};
  for (std::size_t i = 1; i < words.size(); ++i) {
    const auto value = tpcheck::parse_decimal(words[i]);
    if (!value) return std::nullopt;
    if (params[i - 1] == "MLA" && *value != 0 && *value != 1) return std::nullopt;
    call.args.push_back(*value);
  }
  return call;
}

bool too_long(const Call& c) {
  using tpcheck::BigInt;
  const auto name = tpcheck::operation_infos()[c.op].name;
  const auto& a = c.args;
  if (name == "window") {
    const auto span = tpcheck::window_span<BigInt>(a[0], a[1], a[2]);
    return span.ok() && slow_to_list(span.value().end - span.value().first);
  }
  if (name == "plan") {
    const auto count = tpcheck::plan_copy_count<BigInt>(a[0], a[1], a[2], a[3], a[4] != 0);
    return count.ok() && slow_to_list(count.value());
  }
  return false;
}

void fail(std::string_view line, const std::string& what) {
  tpcheck::fuzz::require("line '" + std::string(line) + "': " + what, "eval line parser");
}

// Whether every argument is a value of Int.
template <class Int>
bool all_fit(const Call& c) {
  return std::all_of(c.args.begin(), c.args.end(),
                     [](const tpcheck::BigInt& a) { return tpcheck::narrow_to<Int>(a).has_value(); });
}

// What a valid call gave in the model type Int (named `name`).
template <class Int>
void check_in_type(std::string_view line, const Call& call, const tpcheck::Evaluation& got, const char* name) {
  if (!all_fit<Int>(call)) {
    if (got.ok || got.text.find(std::string("does not fit in ") + name) == std::string::npos) {
      fail(line, std::string("arguments beyond ") + name + " gave " + got.text);
    }
    return;
  }
  if (!got.ok) fail(line, std::string("a valid call in ") + name + " was rejected: " + got.text);
  if constexpr (!std::is_same_v<Int, std::int16_t>) {
    const std::string truth = tpcheck::evaluate_big(call.op, call.args);
    if (got.text != truth) fail(line, "gives " + got.text + " in " + name + " but the cpp_int model gives " + truth);
  }
  if constexpr (std::is_same_v<Int, std::int64_t>) {
    std::vector<std::int64_t> narrow;
    for (const tpcheck::BigInt& a : call.args) narrow.push_back(a.convert_to<std::int64_t>());
    const std::string direct = tpcheck::evaluate_int64(call.op, narrow);
    if (direct != got.text) fail(line, "evaluate_int64 gives " + direct + " but the line gives " + got.text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using tpcheck::ModelType;
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  if (line.find('\n') != std::string_view::npos) return 0;  // --batch splits lines first
  const std::optional<Call> call = valid_call(line);
  if (call && too_long(*call)) return 0;
  // As `tpcheck eval --model NAME` reads NAME; no --model is Auto, which has no name.
  static constexpr const char* kNames[] = {"auto", "int16", "int64", "cpp_int"};
  static constexpr ModelType kTypes[] = {ModelType::Auto, ModelType::Int16, ModelType::Int64, ModelType::CppInt};
  const std::optional<ModelType> named = tpcheck::model_type_named(kNames[size % 4]);
  if (named != (size % 4 == 0 ? std::nullopt : std::optional<ModelType>(kTypes[size % 4]))) {
    fail(line, std::string("model_type_named misreads '") + kNames[size % 4] + "'");
  }
  const ModelType type = named.value_or(ModelType::Auto);
  const tpcheck::Evaluation got = tpcheck::evaluate_line(line, type);
  if (got.text.empty() || got.text.find('\n') != std::string::npos) fail(line, "text is not one line: '" + got.text + "'");
  if (!call) {
    if (got.ok) fail(line, "an invalid call was accepted, giving " + got.text);
    const std::vector<std::string> words = words_of(line);
    if (!words.empty()) {
      const tpcheck::Evaluation single =
          tpcheck::evaluate(words.front(), std::vector<std::string>(words.begin() + 1, words.end()), type);
      if (single.ok || single.text != got.text) fail(line, "evaluate(OP, ARGS) gives " + single.text);
    }
    return 0;
  }
  switch (type) {
    case ModelType::Int16: check_in_type<std::int16_t>(line, *call, got, "int16"); break;
    case ModelType::Int64: check_in_type<std::int64_t>(line, *call, got, "int64"); break;
    // Auto and cpp_int hold every argument.
    case ModelType::Auto:
    case ModelType::CppInt: check_in_type<tpcheck::BigInt>(line, *call, got, "cpp_int"); break;
  }
  return 0;
}
