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
#include "tpcheck/stages.hpp"
#include "tpcheck/text_scan.hpp"

namespace tpcheck {
namespace {

// No operation takes more arguments (checked when the table is first read).
constexpr std::size_t kMaxArity = 12;

std::size_t checked_max_arity() {
  static const std::size_t arity = [] {
    std::size_t most = 0;
    for (const OperationInfo& info : operation_infos()) most = std::max(most, info.params.size());
    if (most > kMaxArity) throw std::logic_error("an operation takes more arguments than calls.cpp's kMaxArity");
    return most;
  }();
  return arity;
}

// The eval option that gives a parameter (from_eval_options), by its name.
std::string_view option_of(const Param& p) {
  if (p.name == "PREFILL_PP_LAYERS") return "--prefill-pp-layers";
  if (p.name == "DECODE_PP_LAYERS") return "--decode-pp-layers";
  if (p.name == "PREFILL_ADP") return "--prefill-adp";
  if (p.name == "DECODE_ADP") return "--decode-adp";
  throw std::logic_error("an eval option parameter without an option: " + std::string(p.name));
}

// How many of each operation's parameters are the call's words (the others
// come from the eval options).
std::size_t positional_count(std::size_t op) {
  static const std::vector<std::size_t> counts = [] {
    std::vector<std::size_t> c;
    for (const OperationInfo& info : operation_infos()) {
      c.push_back(static_cast<std::size_t>(
          std::count_if(info.params.begin(), info.params.end(), [](const Param& p) { return !from_eval_options(p); })));
    }
    return c;
  }();
  return counts[op];
}

}  // namespace

// Written once per operation: an arity error views it.
const std::string& usage_line(std::size_t op) {
  static const std::vector<std::string> usages = [] {
    std::vector<std::string> u;
    for (const OperationInfo& info : operation_infos()) {
      std::string line(info.name);
      for (const Param& p : info.params) {
        if (!from_eval_options(p)) line.append(" ").append(p.name);
      }
      for (const Param& p : info.params) {
        if (!from_eval_options(p)) continue;
        line.append(" [").append(option_of(p));
        if (p.role == Role::StageSplit) line.append(" C,C,...");
        line.append("]");
      }
      u.push_back(std::move(line));
    }
    return u;
  }();
  return usages[op];
}

namespace {

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

// The value of an eval option parameter: a stage split's code (a side
// without one is one stage of the other side's layers, or of one layer), or
// an ADP flag.
BigInt option_value(const Param& p, const StageOptions& stages) {
  const auto one_stage_of = [](const std::optional<std::vector<BigInt>>& other) {
    BigInt total = other ? BigInt(0) : BigInt(1);
    if (other) {
      for (const BigInt& c : *other) total += c;
    }
    return std::vector<BigInt>{total};
  };
  if (p.name == "PREFILL_PP_LAYERS") return code_of_split(stages.prefill_layers.value_or(one_stage_of(stages.decode_layers)));
  if (p.name == "DECODE_PP_LAYERS") return code_of_split(stages.decode_layers.value_or(one_stage_of(stages.prefill_layers)));
  if (p.name == "PREFILL_ADP") return stages.prefill_adp ? 1 : 0;
  return stages.decode_adp ? 1 : 0;
}

// The eval options given that operation `op` does not read: the first, or nothing.
std::optional<std::string_view> unread_option(std::size_t op, const StageOptions& stages) {
  const auto& params = operation_infos()[op].params;
  const auto reads = [&](std::string_view name) {
    return std::any_of(params.begin(), params.end(), [&](const Param& p) { return p.name == name; });
  };
  if (stages.prefill_layers && !reads("PREFILL_PP_LAYERS")) return "--prefill-pp-layers";
  if (stages.decode_layers && !reads("DECODE_PP_LAYERS")) return "--decode-pp-layers";
  if (stages.prefill_adp && !reads("PREFILL_ADP")) return "--prefill-adp";
  if (stages.decode_adp && !reads("DECODE_ADP")) return "--decode-adp";
  return std::nullopt;
}

// Parses the call of `name` with `count` words, of which `args` holds the
// first ones (all of them whenever `count` is the operation's number of
// positional parameters: an arity error names only the count), into `call`;
// the other parameters come from `stages`. The first argument that is no
// number is named. The error views `name`, `args` and static text.
std::optional<TextPieces> parse_words(std::string_view name, std::span<const std::string_view> args,
                                      std::size_t count, ParsedCall& call, const StageOptions& stages) {
  checked_max_arity();  // call.args holds every operation's arguments
  const auto index = operation_index(name);
  if (!index) return TextPieces("unknown operation '", name, "'");
  const auto& params = operation_infos()[*index].params;
  const std::size_t positional = positional_count(*index);
  if (count != positional) {
    return TextPieces("usage: ", usage_line(*index), " (", static_cast<std::int64_t>(positional), " arguments, got ",
                      static_cast<std::int64_t>(count), ")");
  }
  if (stages.any()) {
    if (const auto unread = unread_option(*index, stages)) return TextPieces(name, " reads no ", *unread);
  }
  call.op = *index;
  call.count = params.size();
  std::size_t word = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (from_eval_options(params[i])) {
      call.args[i] = option_value(params[i], stages);
      continue;
    }
    const std::string_view text = args[word++];
    auto value = parse_decimal(text);
    if (!value) return TextPieces("argument ", params[i].name, " of ", name, not_a_decimal(), text, "'");
    if (params[i].role == Role::Flag && *value != 0 && *value != 1) {
      return TextPieces("argument ", params[i].name, " of ", name, " must be 0 or 1, got '", text, "'");
    }
    call.args[i] = std::move(*value);
  }
  return std::nullopt;
}

// Splits a line "OP ARG..." into its words and parses them into `call`.
std::optional<TextPieces> parse_line(std::string_view line, ParsedCall& call, const StageOptions& stages) {
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
                     call, stages);
}

// A stage split's code as eval's options write it: "2,1".
std::string split_text(const BigInt& code) {
  std::string out;
  for (const BigInt& count : split_of_code(code)) out += (out.empty() ? "" : ",") + decimal(count);
  return out;
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
        const Param& param = operation_infos()[call.op].params[i];
        const bool split = param.role == Role::StageSplit;
        const std::string value = split ? split_text(call.args[i]) : decimal(call.args[i]);
        text.clear();
        TextPieces("argument ", param.name, " = ", value, " does not fit in ", model_type_name<Int>(),
                   split ? ": a stage split takes a bit per layer and stage (--model cpp_int holds any)" : "")
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
  if (const auto parse_error = parse_line(line, call, StageOptions{})) return parse_error->str();
  const std::span<const BigInt> args = call.arguments();
  return Call{call.op, {args.begin(), args.end()}};
}

bool evaluate(std::string_view name, std::span<const std::string_view> args, ModelType type, std::string& text,
              const StageOptions& stages) {
  ParsedCall call;
  const auto parse_error = parse_words(name, args, args.size(), call, stages);
  return run(parse_error, call, type, text);
}

bool evaluate_line(std::string_view line, ModelType type, std::string& text, const StageOptions& stages) {
  ParsedCall call;
  const auto parse_error = parse_line(line, call, stages);
  return run(parse_error, call, type, text);
}

}  // namespace tpcheck
