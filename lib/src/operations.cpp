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
};

// One generic body serves both integer types.
template <class Body>
Operation op(std::string_view name, std::vector<std::string_view> params, Body body) {
  return {{name, std::move(params)}, body, body};
}

const std::vector<Operation>& table() {
  static const std::vector<Operation> ops = [] {
    std::vector<Operation> t;
    t.push_back(op("remote_rank", {"r", "L", "R"},
                   [](const auto& a) { return render(remote_rank(a[0], a[1], a[2])); }));
    t.push_back(op("general_rank", {"r", "L", "R"},
                   [](const auto& a) { return render(general_rank(a[0], a[1], a[2])); }));
    t.push_back(op("tp_ratio", {"L", "R"},
                   [](const auto& a) { return render(tp_ratio(a[0], a[1])); }));
    t.push_back(op("window", {"r", "L", "R"},
                   [](const auto& a) { return render(window(a[0], a[1], a[2])); }));
    t.push_back(op("heads", {"r", "T", "H"},
                   [](const auto& a) { return render(heads(a[0], a[1], a[2])); }));
    t.push_back(op("kv_heads_guard", {"L", "R", "H", "MLA"}, [](const auto& a) {
      return render(kv_heads_guard(a[0], a[1], a[2], a[3] != 0));
    }));
    t.push_back(op("kv_heads_guard_strict", {"L", "R", "H", "MLA"}, [](const auto& a) {
      return render(kv_heads_guard_strict(a[0], a[1], a[2], a[3] != 0));
    }));
    t.push_back(op("plan", {"d", "P", "D", "H", "MLA"}, [](const auto& a) {
      return render(plan(a[0], a[1], a[2], a[3], a[4] != 0));
    }));
    t.push_back(op("readers", {"p", "P", "D", "H", "MLA"}, [](const auto& a) {
      return render(readers(a[0], a[1], a[2], a[3], a[4] != 0));
    }));
    t.push_back(op("single_readers", {"p", "P", "D"},
                   [](const auto& a) { return render(single_readers(a[0], a[1], a[2])); }));
    t.push_back(op("port_offset", {"DP_RANK", "TP_RANK", "TP_SIZE"},
                   [](const auto& a) { return render(port_offset(a[0], a[1], a[2])); }));
    t.push_back(op("host_index", {"q", "T", "HOSTS"},
                   [](const auto& a) { return render(host_index(a[0], a[1], a[2])); }));
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

Evaluation evaluate(std::string_view name, const std::vector<std::string>& args) {
  const auto index = operation_index(name);
  if (!index) return {false, "unknown operation '" + std::string(name) + "'"};
  const Operation* found = &table()[*index];
  const auto& params = found->info.params;
  if (args.size() != params.size()) {
    return {false, "usage: " + usage_of(found->info) + " (" + std::to_string(params.size()) + " arguments, got " +
                       std::to_string(args.size()) + ")"};
  }
  std::vector<BigInt> big;
  std::vector<std::int64_t> small;
  bool fits = true;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto value = parse_decimal(args[i]);
    if (!value) {
      return {false, "argument " + std::string(params[i]) + " of " + std::string(name) + " is not a decimal integer" +
                         " of at most " + std::to_string(kMaxDecimalDigits) + " digits: '" + args[i] + "'"};
    }
    if (params[i] == "MLA" && *value != 0 && *value != 1) {
      return {false, "argument MLA of " + std::string(name) + " must be 0 or 1, got '" + args[i] + "'"};
    }
    const auto narrowed = narrow(*value);
    fits = fits && narrowed.has_value();
    if (narrowed) small.push_back(*narrowed);
    big.push_back(*value);
  }
  return {true, fits ? found->run_int64(small) : found->run_big(big)};
}

Evaluation evaluate_line(std::string_view line) {
  std::istringstream in{std::string(line)};
  std::string name;
  std::vector<std::string> args;
  if (!(in >> name)) return {false, "empty line: expected OP ARGS..."};
  for (std::string word; in >> word;) args.push_back(word);
  return evaluate(name, args);
}

}  // namespace tpcheck
