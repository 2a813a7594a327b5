// The name -> model function table: every model operation, declared once.
#include "tpcheck/operations.hpp"

#include <algorithm>
#include <array>
#include <functional>

#include "tpcheck/deployment.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/render.hpp"

namespace tpcheck {
namespace {

// A model value in a narrow type as the cpp_int model's value of the same operation.
BigInt lift(std::int16_t v) { return widen(v); }
BigInt lift(std::int32_t v) { return widen(v); }
BigInt lift(std::int64_t v) { return widen(v); }
BigInt lift(__int128 v) { return widen(v); }
bool lift(bool v) { return v; }
None lift(None v) { return v; }
template <class I>
Span<BigInt> lift(const Span<I>& s) {
  return {widen(s.first), widen(s.end)};
}
template <class I>
Copy<BigInt> lift(const Copy<I>& c) {
  return {widen(c.p), widen(c.lo), widen(c.hi)};
}
template <class V>
auto lift(const std::vector<V>& items) {
  std::vector<decltype(lift(items.front()))> out;
  out.reserve(items.size());
  for (const V& item : items) out.push_back(lift(item));
  return out;
}

// A plain value (head_compatible's bool) as an outcome, so every body returns one.
template <class V>
Outcome<V> as_outcome(Outcome<V> o) {
  return o;
}
inline Outcome<bool> as_outcome(bool v) { return v; }

template <class Int>
using Args = std::span<const Int>;

struct Operation {
  OperationInfo info;
  std::function<std::string(Args<std::int16_t>)> render16;
  std::function<std::string(Args<std::int64_t>)> render64;
  std::function<std::string(Args<BigInt>)> render_big;
  std::function<bool(Args<std::int16_t>)> agree16;
  std::function<bool(Args<std::int64_t>)> agree64;
};

// The cpp_int copy of narrow arguments (no operation has more than five).
template <class Narrow>
std::array<BigInt, 5> widened(Args<Narrow> a) {
  std::array<BigInt, 5> big;
  for (std::size_t i = 0; i < a.size(); ++i) big[i] = widen(a[i]);
  return big;
}

template <class Narrow, class Body>
bool agrees(const Body& body, Args<Narrow> a) {
  const auto narrow_outcome = as_outcome(body(a));
  const std::array<BigInt, 5> big = widened(a);
  const auto wide_outcome = as_outcome(body(Args<BigInt>(big.data(), a.size())));
  if (narrow_outcome.ok() != wide_outcome.ok()) return false;
  return narrow_outcome.ok() ? lift(narrow_outcome.value()) == wide_outcome.value()
                             : narrow_outcome.failure() == wide_outcome.failure();
}

// One generic body over the model's Int serves every integer type: the
// rendered outcome `tpcheck eval` prints, and the typed comparison of a narrow
// model with cpp_int (no text is built unless they disagree).
template <class Body>
Operation op(std::string_view name, std::vector<Param> params, Body body) {
  return {{name, std::move(params)},
          [body](Args<std::int16_t> a) { return render(as_outcome(body(a))); },
          [body](Args<std::int64_t> a) { return render(as_outcome(body(a))); },
          [body](Args<BigInt> a) { return render(as_outcome(body(a))); },
          [body](Args<std::int16_t> a) { return agrees<std::int16_t>(body, a); },
          [body](Args<std::int64_t> a) { return agrees<std::int64_t>(body, a); }};
}

// Parameter shorthands.
Param size(std::string_view name) { return {name, Role::Size}; }
Param rank_of(std::string_view name, int of) { return {name, Role::Rank, of}; }
Param heads_param() { return {"H", Role::HeadCount}; }
Param mla() { return {"MLA", Role::Flag}; }

// (P, D, H, MLA): a deployment's sizing.
std::vector<Param> sizing_params() { return {size("P"), size("D"), heads_param(), mla()}; }

const std::vector<Operation>& table() {
  static const std::vector<Operation> ops = [] {
    const std::vector<Param> local_rank_pair = {rank_of("r", 1), size("L"), size("R")};
    const std::vector<Param> decode_rank_sizing = {rank_of("d", 2), size("P"), size("D"), heads_param(), mla()};
    std::vector<Operation> t;
    // §1-3
    t.push_back(op("remote_rank", local_rank_pair, [](const auto& a) { return remote_rank(a[0], a[1], a[2]); }));
    t.push_back(op("general_rank", local_rank_pair, [](const auto& a) { return general_rank(a[0], a[1], a[2]); }));
    t.push_back(op("tp_ratio", {size("L"), size("R")}, [](const auto& a) { return tp_ratio(a[0], a[1]); }));
    t.push_back(op("window", local_rank_pair, [](const auto& a) { return window(a[0], a[1], a[2]); }));
    t.push_back(op("window_span", local_rank_pair, [](const auto& a) { return window_span(a[0], a[1], a[2]); }));
    // §4-5
    t.push_back(op("heads", {rank_of("r", 1), size("T"), heads_param()},
                   [](const auto& a) { return heads(a[0], a[1], a[2]); }));
    t.push_back(op("holders", {{"h", Role::HeadIndex, 2}, size("T"), heads_param()},
                   [](const auto& a) { return holders(a[0], a[1], a[2]); }));
    t.push_back(op("head_compatible", {size("T"), heads_param()},
                   [](const auto& a) { return head_compatible(a[0], a[1]); }));
    t.push_back(op("kv_heads_guard", {size("L"), size("R"), heads_param(), mla()},
                   [](const auto& a) { return kv_heads_guard(a[0], a[1], a[2], a[3] != 0); }));
    t.push_back(op("kv_heads_guard_strict", {size("L"), size("R"), heads_param(), mla()},
                   [](const auto& a) { return kv_heads_guard_strict(a[0], a[1], a[2], a[3] != 0); }));
    // §6-7
    t.push_back(op("plan", decode_rank_sizing, [](const auto& a) { return plan(a[0], a[1], a[2], a[3], a[4] != 0); }));
    t.push_back(op("plan_copy_count", decode_rank_sizing,
                   [](const auto& a) { return plan_copy_count(a[0], a[1], a[2], a[3], a[4] != 0); }));
    t.push_back(op("single_source_plan", decode_rank_sizing,
                   [](const auto& a) { return single_source_plan(a[0], a[1], a[2], a[3], a[4] != 0); }));
    t.push_back(op("readers", {rank_of("p", 1), size("P"), size("D"), heads_param(), mla()},
                   [](const auto& a) { return readers(a[0], a[1], a[2], a[3], a[4] != 0); }));
    t.push_back(op("single_readers", {rank_of("p", 1), size("P"), size("D")},
                   [](const auto& a) { return single_readers(a[0], a[1], a[2]); }));
    // §8
    t.push_back(op("port_offset", {{"DP_RANK", Role::DpRank}, rank_of("TP_RANK", 2), size("TP_SIZE")},
                   [](const auto& a) { return port_offset(a[0], a[1], a[2]); }));
    t.push_back(op("host_index", {rank_of("q", 1), size("T"), {"HOSTS", Role::HostCount, 1}},
                   [](const auto& a) { return host_index(a[0], a[1], a[2]); }));
    t.push_back(op("port_range", {{"BASE", Role::BasePort}, {"DP_SIZE", Role::DpSize}, size("TP_SIZE")},
                   [](const auto& a) { return port_range(a[0], a[1], a[2]); }));
    // §11: one operation per connector, "<connector>_accepts P D H MLA".
    static const std::array<std::string, kConnectors.size()> names = [] {
      std::array<std::string, kConnectors.size()> n;
      for (std::size_t i = 0; i < kConnectors.size(); ++i) n[i] = std::string(connector_name(kConnectors[i])) + "_accepts";
      return n;
    }();
    for (std::size_t i = 0; i < kConnectors.size(); ++i) {
      const Connector c = kConnectors[i];
      t.push_back(op(names[i], sizing_params(),
                     [c](const auto& a) { return sizing_accepted(c, a[0], a[1], a[2], a[3] != 0); }));
    }
    return t;
  }();
  return ops;
}

std::string usage_of(const OperationInfo& info) {
  std::string u = std::string(info.name);
  for (auto p : info.params) u += " " + std::string(p);
  return u;
}

}  // namespace

const std::vector<OperationInfo>& operation_infos() {
  static const std::vector<OperationInfo> infos = [] {
    std::vector<OperationInfo> v;
    for (const auto& o : table()) v.push_back(o.info);
    return v;
  }();
  return infos;
}

std::optional<std::size_t> operation_index(std::string_view name) {
  for (std::size_t i = 0; i < table().size(); ++i) {
    if (table()[i].info.name == name) return i;
  }
  return std::nullopt;
}

template <ModelInt Int>
std::string evaluate_in(std::size_t op, std::span<const Int> args) {
  const Operation& o = table().at(op);
  if constexpr (std::same_as<Int, std::int16_t>) {
    return o.render16(args);
  } else if constexpr (std::same_as<Int, std::int64_t>) {
    return o.render64(args);
  } else {
    return o.render_big(args);
  }
}
template std::string evaluate_in<std::int16_t>(std::size_t, std::span<const std::int16_t>);
template std::string evaluate_in<std::int64_t>(std::size_t, std::span<const std::int64_t>);
template std::string evaluate_in<BigInt>(std::size_t, std::span<const BigInt>);

template <class Narrow>
bool narrow_agrees_with_cpp_int(std::size_t op, std::span<const Narrow> args) {
  const Operation& o = table().at(op);
  if constexpr (std::same_as<Narrow, std::int16_t>) {
    return o.agree16(args);
  } else {
    return o.agree64(args);
  }
}
template bool narrow_agrees_with_cpp_int<std::int16_t>(std::size_t, std::span<const std::int16_t>);
template bool narrow_agrees_with_cpp_int<std::int64_t>(std::size_t, std::span<const std::int64_t>);

template <ModelInt Int>
std::string_view model_type_name() {
  if constexpr (std::same_as<Int, std::int16_t>) {
    return "int16";
  } else if constexpr (std::same_as<Int, std::int64_t>) {
    return "int64";
  } else {
    return "cpp_int";
  }
}
template std::string_view model_type_name<std::int16_t>();
template std::string_view model_type_name<std::int64_t>();
template std::string_view model_type_name<BigInt>();

template <class Narrow>
std::string narrow_disagreement(std::size_t op, std::span<const Narrow> args) {
  if (narrow_agrees_with_cpp_int<Narrow>(op, args)) return "";
  std::vector<BigInt> big;
  for (const Narrow& a : args) big.push_back(widen(a));
  std::string what = std::string(table().at(op).info.name) + "(";
  for (std::size_t i = 0; i < args.size(); ++i) what += (i ? ", " : "") + decimal(args[i]);
  return what + ") gives " + evaluate_in<Narrow>(op, args) + " in " + std::string(model_type_name<Narrow>()) +
         " but " + evaluate_in<BigInt>(op, big) + " in cpp_int";
}
template std::string narrow_disagreement<std::int16_t>(std::size_t, std::span<const std::int16_t>);
template std::string narrow_disagreement<std::int64_t>(std::size_t, std::span<const std::int64_t>);

std::optional<ModelType> model_type_named(std::string_view name) {
  if (name == "int16") return ModelType::Int16;
  if (name == "int64") return ModelType::Int64;
  if (name == "cpp_int") return ModelType::CppInt;
  return std::nullopt;
}

std::variant<Call, std::string> parse_call(std::string_view name, const std::vector<std::string>& args) {
  const auto index = operation_index(name);
  if (!index) return "unknown operation '" + std::string(name) + "'";
  const OperationInfo& info = table()[*index].info;
  const auto& params = info.params;
  if (args.size() != params.size()) {
    return "usage: " + usage_of(info) + " (" + std::to_string(params.size()) + " arguments, got " +
           std::to_string(args.size()) + ")";
  }
  Call call{*index, {}};
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto value = parse_decimal(args[i]);
    if (!value) {
      return "argument " + std::string(params[i]) + " of " + std::string(name) + " is not a decimal integer" +
             " of at most " + std::to_string(kMaxDecimalDigits) + " digits: '" + args[i] + "'";
    }
    if (params[i].role == Role::Flag && *value != 0 && *value != 1) {
      return "argument " + std::string(params[i].name) + " of " + std::string(name) + " must be 0 or 1, got '" + args[i] + "'";
    }
    call.args.push_back(std::move(*value));
  }
  return call;
}

namespace {

// The separators of `std::istream >> word` in the C locale, which --batch
// lines were first read with. The line is cut with find_first_(not_)of, not
// a stream: building a stream and its locale for every line cost more than
// evaluating most calls.
constexpr std::string_view kSeparators = " \t\n\v\f\r";

}  // namespace

std::variant<Call, std::string> parse_call_line(std::string_view line) {
  std::vector<std::string> words;
  for (std::size_t from = line.find_first_not_of(kSeparators); from != std::string_view::npos;
       from = line.find_first_not_of(kSeparators, from)) {
    const std::size_t end = std::min(line.find_first_of(kSeparators, from), line.size());
    words.emplace_back(line.substr(from, end - from));
    from = end;
  }
  if (words.empty()) return std::string("empty line: expected OP ARGS...");
  const std::string name = std::move(words.front());
  words.erase(words.begin());
  return parse_call(name, words);
}

namespace {

// The arguments in Int, or which one does not fit.
template <ModelInt Int>
std::variant<std::vector<Int>, std::string> arguments_in(const Call& call) {
  std::vector<Int> out;
  for (std::size_t i = 0; i < call.args.size(); ++i) {
    const std::optional<Int> v = narrow_to<Int>(call.args[i]);
    if (!v) {
      return "argument " + std::string(table()[call.op].info.params[i].name) + " = " + decimal(call.args[i]) +
             " does not fit in " + std::string(model_type_name<Int>());
    }
    out.push_back(*v);
  }
  return out;
}

template <ModelInt Int>
Evaluation run_in(const Call& call) {
  const auto args = arguments_in<Int>(call);
  if (const auto* error = std::get_if<std::string>(&args)) return {false, *error};
  return {true, evaluate_in<Int>(call.op, std::get<std::vector<Int>>(args))};
}

// Runs a parsed call in the model type asked for; Auto: int64 when every
// argument fits, cpp_int otherwise.
Evaluation run(const std::variant<Call, std::string>& parsed, ModelType type) {
  if (const auto* error = std::get_if<std::string>(&parsed)) return {false, *error};
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

Evaluation evaluate(std::string_view name, const std::vector<std::string>& args, ModelType type) {
  return run(parse_call(name, args), type);
}

Evaluation evaluate_line(std::string_view line, ModelType type) { return run(parse_call_line(line), type); }

}  // namespace tpcheck
