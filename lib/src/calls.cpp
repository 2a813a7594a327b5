// `tpcheck eval`'s parser: "OP ARG..." (a line, or a word and its arguments)
// to a call of the operation table, and the call run in a model type.
//
// It runs once per line of `tpcheck eval --batch`, per regression call of
// conform, and per input of fuzz_eval_line, and most lines it meets are
// calls or short usage errors. So it works on views of the words, with no
// copy of a word, no stream and no container of words or arguments; an error
// is kept as pieces (views of the words, static text, counts) and written
// into the caller's text, which fuzz_eval_line keeps across inputs.
#include <algorithm>
#include <array>
#include <stdexcept>

#include "tpcheck/concat.hpp"
#include "tpcheck/operations.hpp"
#include "tpcheck/text_scan.hpp"

namespace tpcheck {
namespace {

// No operation takes more arguments (checked when the table is first read).
constexpr std::size_t kMaxArity = 8;

std::size_t checked_max_arity() {
  static const std::size_t arity = [] {
    std::size_t most = 0;
    for (const OperationInfo& info : operation_infos()) most = std::max(most, info.params.size());
    if (most > kMaxArity) throw std::logic_error("an operation takes more arguments than calls.cpp's kMaxArity");
    return most;
  }();
  return arity;
}

// "OP PARAM...", for each operation, written once: an arity error views it.
const std::string& usage_of(std::size_t op) {
  static const std::vector<std::string> usages = [] {
    std::vector<std::string> u;
    for (const OperationInfo& info : operation_infos()) {
      std::string line(info.name);
      for (const Param& p : info.params) line.append(" ").append(p.name);
      u.push_back(std::move(line));
    }
    return u;
  }();
  return usages[op];
}

// " is not a decimal integer of at most 4300 digits: '", written once.
const std::string& not_a_decimal() {
  static const std::string text =
      concat({" is not a decimal integer of at most ", static_cast<std::int64_t>(kMaxDecimalDigits), " digits: '"});
  return text;
}

// A call as parsed, before it is kept: its arguments in a fixed array, so
// that parsing a line allocates nothing for its words or their number
// (an argument past 128 bits is cpp_int's own allocation).
struct ParsedCall {
  std::size_t op = 0;
  std::array<BigInt, kMaxArity> args;
  std::size_t count = 0;
  std::span<const BigInt> arguments() const { return {args.data(), count}; }
};

// Parses the call of `name` with `count` arguments, of which `args` holds
// the first ones (all of them whenever `count` is the operation's arity: an
// arity error names only the count), into `call`. The first argument that is
// no number is named. The error views `name`, `args` and static text.
std::optional<TextPieces> parse_words(std::string_view name, std::span<const std::string_view> args,
                                      std::size_t count, ParsedCall& call) {
  checked_max_arity();  // call.args holds every operation's arguments
  const auto index = operation_index(name);
  if (!index) return TextPieces("unknown operation '", name, "'");
  const auto& params = operation_infos()[*index].params;
  if (count != params.size()) {
    return TextPieces("usage: ", usage_of(*index), " (", static_cast<std::int64_t>(params.size()),
                       " arguments, got ", static_cast<std::int64_t>(count), ")");
  }
  call.op = *index;
  call.count = params.size();
  for (std::size_t i = 0; i < params.size(); ++i) {
    auto value = parse_decimal(args[i]);
    if (!value) return TextPieces("argument ", params[i].name, " of ", name, not_a_decimal(), args[i], "'");
    if (params[i].role == Role::Flag && *value != 0 && *value != 1) {
      return TextPieces("argument ", params[i].name, " of ", name, " must be 0 or 1, got '", args[i], "'");
    }
    call.args[i] = std::move(*value);
  }
  return std::nullopt;
}

// Splits a line "OP ARG..." into its words and parses them into `call`.
std::optional<TextPieces> parse_line(std::string_view line, ParsedCall& call) {
  // The operation and as many arguments as any operation takes, plus one: a
  // longer line is an arity error, which needs only the number of words.
  std::string_view name;
  std::array<std::string_view, kMaxArity + 1> kept;
  const std::size_t keep = checked_max_arity() + 1;
  std::size_t words = 0;
  // Words as `std::istream >> word` reads them in the C locale, which --batch
  // lines were first read with.
  for (std::size_t at = text_scan::skip_separators(line, 0); at < line.size();
       at = text_scan::skip_separators(line, at)) {
    const std::size_t from = at;
    at = text_scan::skip_word(line, from);
    const std::string_view word = line.substr(from, at - from);
    if (words == 0) {
      name = word;
    } else if (words - 1 < keep) {
      kept[words - 1] = word;
    }
    ++words;
  }
  if (words == 0) return TextPieces("empty line: expected OP ARGS...");
  return parse_words(name, std::span<const std::string_view>(kept.data(), std::min(words - 1, keep)), words - 1,
                     call);
}

// Runs the call in Int into `text`: its outcome, or which argument does not
// fit in Int. Returns whether it ran.
template <ModelInt Int>
bool run_in(const ParsedCall& call, std::string& text) {
  if constexpr (std::same_as<Int, BigInt>) {
    text = evaluate_in<BigInt>(call.op, call.arguments());
  } else {
    std::array<Int, kMaxArity> args{};
    for (std::size_t i = 0; i < call.count; ++i) {
      const std::optional<Int> v = narrow_to<Int>(call.args[i]);
      if (!v) {
        const std::string value = decimal(call.args[i]);
        text.clear();
        TextPieces("argument ", operation_infos()[call.op].params[i].name, " = ", value, " does not fit in ",
                    model_type_name<Int>())
            .append_to(text);
        return false;
      }
      args[i] = *v;
    }
    text = evaluate_in<Int>(call.op, std::span<const Int>(args.data(), call.count));
  }
  return true;
}

// Runs a parsed call (or writes its error) into `text`, in the model type
// asked for; Auto: int64 when every argument fits, cpp_int otherwise.
bool run(const std::optional<TextPieces>& error, const ParsedCall& call, ModelType type, std::string& text) {
  if (error) {
    text.clear();
    error->append_to(text);
    return false;
  }
  switch (type) {
    case ModelType::Int16: return run_in<std::int16_t>(call, text);
    case ModelType::Int64: return run_in<std::int64_t>(call, text);
    case ModelType::CppInt: return run_in<BigInt>(call, text);
    case ModelType::Auto: break;
  }
  // Decide by value, not by trying int64 first: the "does not fit" text that
  // attempt would build renders a number of up to kMaxDecimalDigits digits,
  // only to be thrown away.
  const std::span<const BigInt> args = call.arguments();
  const bool fits = std::all_of(args.begin(), args.end(),
                                [](const BigInt& a) { return narrow_to<std::int64_t>(a).has_value(); });
  return fits ? run_in<std::int64_t>(call, text) : run_in<BigInt>(call, text);
}

}  // namespace

std::optional<ModelType> model_type_named(std::string_view name) {
  if (name == "int16") return ModelType::Int16;
  if (name == "int64") return ModelType::Int64;
  if (name == "cpp_int") return ModelType::CppInt;
  return std::nullopt;
}

std::variant<Call, std::string> parse_call_line(std::string_view line) {
  ParsedCall call;
  if (const auto parse_error = parse_line(line, call)) return parse_error->str();
  const std::span<const BigInt> args = call.arguments();
  return Call{call.op, {args.begin(), args.end()}};
}

bool evaluate(std::string_view name, std::span<const std::string_view> args, ModelType type, std::string& text) {
  ParsedCall call;
  const auto parse_error = parse_words(name, args, args.size(), call);
  return run(parse_error, call, type, text);
}

bool evaluate_line(std::string_view line, ModelType type, std::string& text) {
  ParsedCall call;
  const auto parse_error = parse_line(line, call);
  return run(parse_error, call, type, text);
}

}  // namespace tpcheck
