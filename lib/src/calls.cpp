// `tpcheck eval`'s parser: "OP ARG..." (a line, or a word and its arguments)
// to a call of the operation table, and the call run in a model type.
//
// It runs once per line of `tpcheck eval --batch`, per regression call of
// conform, and per input of fuzz_eval_line, and most lines it meets are
// calls or short usage errors. So it works on views of the words, with no
// copy of a word, no stream and no container of words; an error text is
// built only for a line that is an error.
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

std::string usage_of(const OperationInfo& info) {
  std::string u(info.name);
  for (const Param& p : info.params) {
    u += ' ';
    u += p.name;
  }
  return u;
}

// The call of `name` with `count` arguments, of which `args` holds the first
// ones (all of them whenever `count` is the operation's arity: an arity error
// names only the count). The first argument that is no number is named.
std::variant<Call, std::string> parse_words(std::string_view name, std::span<const std::string_view> args,
                                            std::size_t count) {
  const auto index = operation_index(name);
  if (!index) return concat({"unknown operation '", name, "'"});
  const OperationInfo& info = operation_infos()[*index];
  const auto& params = info.params;
  if (count != params.size()) {
    const std::string usage = usage_of(info);
    return concat({"usage: ", usage, " (", static_cast<std::int64_t>(params.size()), " arguments, got ",
                   static_cast<std::int64_t>(count), ")"});
  }
  Call call{*index, {}};
  call.args.reserve(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    auto value = parse_decimal(args[i]);
    if (!value) {
      return concat({"argument ", params[i].name, " of ", name, " is not a decimal integer of at most ",
                     static_cast<std::int64_t>(kMaxDecimalDigits), " digits: '", args[i], "'"});
    }
    if (params[i].role == Role::Flag && *value != 0 && *value != 1) {
      return concat({"argument ", params[i].name, " of ", name, " must be 0 or 1, got '", args[i], "'"});
    }
    call.args.push_back(std::move(*value));
  }
  return call;
}

// The arguments in Int, or which one does not fit.
template <ModelInt Int>
std::optional<std::string> arguments_in(const Call& call, std::array<Int, kMaxArity>& out) {
  for (std::size_t i = 0; i < call.args.size(); ++i) {
    const std::optional<Int> v = narrow_to<Int>(call.args[i]);
    if (!v) {
      const std::string value = decimal(call.args[i]);
      return concat({"argument ", operation_infos()[call.op].params[i].name, " = ", value, " does not fit in ",
                     model_type_name<Int>()});
    }
    out[i] = *v;
  }
  return std::nullopt;
}

template <ModelInt Int>
Evaluation run_in(const Call& call) {
  if constexpr (std::same_as<Int, BigInt>) {
    return {true, evaluate_in<BigInt>(call.op, call.args)};
  } else {
    std::array<Int, kMaxArity> args{};
    if (auto error = arguments_in<Int>(call, args)) return {false, std::move(*error)};
    return {true, evaluate_in<Int>(call.op, std::span<const Int>(args.data(), call.args.size()))};
  }
}

// Runs a parsed call in the model type asked for; Auto: int64 when every
// argument fits, cpp_int otherwise.
Evaluation run(std::variant<Call, std::string>&& parsed, ModelType type) {
  if (auto* error = std::get_if<std::string>(&parsed)) return {false, std::move(*error)};
  const Call& call = std::get<Call>(parsed);
  switch (type) {
    case ModelType::Int16: return run_in<std::int16_t>(call);
    case ModelType::Int64: return run_in<std::int64_t>(call);
    case ModelType::CppInt: return run_in<BigInt>(call);
    case ModelType::Auto: break;
  }
  // Decide by value, not by trying int64 first: the "does not fit" text that
  // attempt would build renders a number of up to kMaxDecimalDigits digits,
  // only to be thrown away.
  const bool fits = std::all_of(call.args.begin(), call.args.end(),
                                [](const BigInt& a) { return narrow_to<std::int64_t>(a).has_value(); });
  return fits ? run_in<std::int64_t>(call) : run_in<BigInt>(call);
}

}  // namespace

std::optional<ModelType> model_type_named(std::string_view name) {
  if (name == "int16") return ModelType::Int16;
  if (name == "int64") return ModelType::Int64;
  if (name == "cpp_int") return ModelType::CppInt;
  return std::nullopt;
}

std::variant<Call, std::string> parse_call(std::string_view name, std::span<const std::string_view> args) {
  return parse_words(name, args, args.size());
}

std::variant<Call, std::string> parse_call(std::string_view name, const std::vector<std::string>& args) {
  const std::vector<std::string_view> views(args.begin(), args.end());
  return parse_call(name, views);
}

std::variant<Call, std::string> parse_call_line(std::string_view line) {
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
  if (words == 0) return std::string("empty line: expected OP ARGS...");
  return parse_words(name, std::span<const std::string_view>(kept.data(), std::min(words - 1, keep)), words - 1);
}

Evaluation evaluate(std::string_view name, std::span<const std::string_view> args, ModelType type) {
  return run(parse_call(name, args), type);
}

Evaluation evaluate(std::string_view name, const std::vector<std::string>& args, ModelType type) {
  return run(parse_call(name, args), type);
}

Evaluation evaluate_line(std::string_view line, ModelType type) { return run(parse_call_line(line), type); }

}  // namespace tpcheck
