// The name -> model function table behind `tpcheck eval`.
#include "tpcheck/operations.hpp"

#include <functional>
#include <sstream>

#include "tpcheck/model.hpp"
#include "tpcheck/render.hpp"

namespace tpcheck {
namespace {

struct Operation {
  OperationInfo info;
  std::function<std::string(const std::vector<std::int64_t>&)> run_int64;
  std::function<std::string(const std::vector<BigInt>&)> run_big;
  std::function<bool(const std::vector<std::int64_t>&)> models_agree;
};

// An int64 model value as the cpp_int model's value of the same operation.
BigInt lift(std::int64_t v) { return widen(v); }
BigInt lift(__int128 v) { return widen(v); }
None lift(None v) { return v; }
Span<BigInt> lift(const Span<std::int64_t>& s) { return {widen(s.first), widen(s.end)}; }
Copy<BigInt> lift(const Copy<std::int64_t>& c) { return {widen(c.p), widen(c.lo), widen(c.hi)}; }
template <class V>
auto lift(const std::vector<V>& items) {
  std::vector<decltype(lift(items.front()))> out;
  out.reserve(items.size());
  for (const V& item : items) out.push_back(lift(item));
  return out;
}

// One generic body (returning the model's Outcome) serves both integer types,
// the rendered outcome `tpcheck eval` prints, and the typed comparison of the
// two models (no text is built unless they disagree).
template <class Body>
Operation op(std::string_view name, std::vector<std::string_view> params, Body body) {
  return {{name, std::move(params)},
          [body](const std::vector<std::int64_t>& a) { return render(body(a)); },
          [body](const std::vector<BigInt>& a) { return render(body(a)); },
          [body](const std::vector<std::int64_t>& a) {
            const auto narrow_outcome = body(a);
            const auto wide_outcome = body(std::vector<BigInt>(a.begin(), a.end()));
            if (narrow_outcome.ok() != wide_outcome.ok()) return false;
            return narrow_outcome.ok() ? lift(narrow_outcome.value()) == wide_outcome.value()
                                       : narrow_outcome.failure() == wide_outcome.failure();
          }};
}

const std::vector<Operation>& table() {
  static const std::vector<Operation> ops = [] {
    std::vector<Operation> t;
    t.push_back(op("remote_rank", {"r", "L", "R"},
                   [](const auto& a) { return remote_rank(a[0], a[1], a[2]); }));
    t.push_back(op("general_rank", {"r", "L", "R"},
                   [](const auto& a) { return general_rank(a[0], a[1], a[2]); }));
    t.push_back(op("tp_ratio", {"L", "R"},
                   [](const auto& a) { return tp_ratio(a[0], a[1]); }));
    t.push_back(op("window", {"r", "L", "R"},
                   [](const auto& a) { return window(a[0], a[1], a[2]); }));
    t.push_back(op("heads", {"r", "T", "H"},
                   [](const auto& a) { return heads(a[0], a[1], a[2]); }));
    t.push_back(op("kv_heads_guard", {"L", "R", "H", "MLA"}, [](const auto& a) {
      return kv_heads_guard(a[0], a[1], a[2], a[3] != 0);
    }));
    t.push_back(op("kv_heads_guard_strict", {"L", "R", "H", "MLA"}, [](const auto& a) {
      return kv_heads_guard_strict(a[0], a[1], a[2], a[3] != 0);
    }));
    t.push_back(op("plan", {"d", "P", "D", "H", "MLA"}, [](const auto& a) {
      return plan(a[0], a[1], a[2], a[3], a[4] != 0);
    }));
    t.push_back(op("readers", {"p", "P", "D", "H", "MLA"}, [](const auto& a) {
      return readers(a[0], a[1], a[2], a[3], a[4] != 0);
    }));
    t.push_back(op("single_readers", {"p", "P", "D"},
                   [](const auto& a) { return single_readers(a[0], a[1], a[2]); }));
    t.push_back(op("port_offset", {"DP_RANK", "TP_RANK", "TP_SIZE"},
                   [](const auto& a) { return port_offset(a[0], a[1], a[2]); }));
    t.push_back(op("host_index", {"q", "T", "HOSTS"},
                   [](const auto& a) { return host_index(a[0], a[1], a[2]); }));
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

std::string evaluate_int64(std::size_t op, const std::vector<std::int64_t>& args) { return table().at(op).run_int64(args); }

std::string evaluate_big(std::size_t op, const std::vector<BigInt>& args) { return table().at(op).run_big(args); }

bool int64_and_cpp_int_agree(std::size_t op, const std::vector<std::int64_t>& args) {
  return table().at(op).models_agree(args);
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
    if (params[i] == "MLA" && *value != 0 && *value != 1) {
      return "argument MLA of " + std::string(name) + " must be 0 or 1, got '" + args[i] + "'";
    }
    call.args.push_back(std::move(*value));
  }
  return call;
}

std::variant<Call, std::string> parse_call_line(std::string_view line) {
  std::istringstream in{std::string(line)};
  std::string name;
  std::vector<std::string> args;
  if (!(in >> name)) return std::string("empty line: expected OP ARGS...");
  for (std::string word; in >> word;) args.push_back(word);
  return parse_call(name, args);
}

namespace {

// Runs a parsed call in int64 when every argument fits, in cpp_int otherwise.
Evaluation run(const std::variant<Call, std::string>& parsed) {
  if (const auto* error = std::get_if<std::string>(&parsed)) return {false, *error};
  const Call& call = std::get<Call>(parsed);
  std::vector<std::int64_t> small;
  for (const BigInt& v : call.args) {
    const auto narrowed = narrow(v);
    if (!narrowed) return {true, evaluate_big(call.op, call.args)};
    small.push_back(*narrowed);
  }
  return {true, evaluate_int64(call.op, small)};
}

}  // namespace

Evaluation evaluate(std::string_view name, const std::vector<std::string>& args) { return run(parse_call(name, args)); }

Evaluation evaluate_line(std::string_view line) { return run(parse_call_line(line)); }

}  // namespace tpcheck
