#include "sweep_inputs.hpp"

#include "tpcheck/operation_domains.hpp"
#include "tpcheck/operations.hpp"

namespace tpcheck::prove::test {
namespace {

BigInt pow2(unsigned n) { return BigInt(1) << n; }

Args args(std::initializer_list<BigInt> values) { return Args(values); }

// Far values no bound reaches, in the operation's parameter order: pairs and
// ranks beyond 64 bits (divisible and not, both ways, ranks at their ends),
// and inputs just past the model's listing limit (2^20 elements).
std::vector<Args> far_values(std::string_view op) {
  const BigInt a = pow2(70), b = pow2(71), c = pow2(64) * 3, d = pow2(64) + 1;
  const std::vector<Args> rank_triples = {args({a - 1, a, b}), args({0, a, b}), args({b - 1, b, a}),
                                          args({c - 1, c, pow2(64)}), args({5, pow2(64), c}), args({d, c, d}),
                                          args({-1, a, b}), args({a, a, b}), args({1, -a, b})};
  if (op == "remote_rank" || op == "general_rank" || op == "window_span" || op == "single_readers") return rank_triples;
  // window lists its ranks: not a window of 2^71 ranks, but one rank too many.
  if (op == "window") {
    std::vector<Args> listed(rank_triples.begin(), rank_triples.end() - 1);
    listed.push_back(args({0, 1, pow2(20) + 1}));
    return listed;
  }
  if (op == "tp_ratio") return {args({a, b}), args({b, a}), args({c, pow2(64)}), args({c, d}), args({-a, b})};
  if (op == "head_compatible") return {args({pow2(70), pow2(66)}), args({pow2(66) + 2, pow2(66)})};
  if (op == "heads" || op == "holders") {
    return {args({pow2(70) - 1, pow2(70), pow2(66)}), args({pow2(66) - 1, pow2(66), pow2(70)}),
            args({3, pow2(66), pow2(66) + 2})};
  }
  if (op == "kv_heads_guard" || op == "kv_heads_guard_strict" || op.substr(0, 16) == "sizing_accepted_") {
    return {args({pow2(70), pow2(71), pow2(70), 0}), args({pow2(70), pow2(71), pow2(70) + 1, 0})};
  }
  if (op == "plan" || op == "plan_copy_count" || op == "single_source_plan" || op == "readers") {
    // Beyond 64 bits both ways; and a plan of 2^21 copies (past the listing limit).
    return {args({pow2(66) - 1, pow2(66), pow2(70), pow2(66), 0}), args({pow2(70) - 1, pow2(66), pow2(70), pow2(66), 0}),
            args({3, pow2(70), pow2(66), pow2(66), 1}), args({0, pow2(22), 1, pow2(21), 0})};
  }
  if (op == "port_offset") return {args({pow2(70), 5, pow2(66)})};
  // The hosts block gives positive host counts only.
  if (op == "host_index") return {args({pow2(70) - 1, pow2(70), 3}), args({0, 2, 0}), args({0, 2, -1})};
  if (op == "port_range") return {args({1, pow2(70), pow2(70)})};
  return {};
}

}  // namespace

std::string model_operation_name(std::string_view encoded) {
  constexpr std::string_view kSizing = "sizing_accepted_";
  if (encoded.substr(0, kSizing.size()) == kSizing) return std::string(encoded.substr(kSizing.size())) + "_accepts";
  return std::string(encoded);
}

std::vector<Args> sweep_inputs(std::string_view op, const dom::Bound& bound) {
  const auto index = operation_index(model_operation_name(op));
  if (!index) return {};
  const dom::OperationDomain& domain = dom::operation_domains()[*index];
  std::vector<Args> out;
  dom::for_each_case(domain.domain, bound, [&](const std::int64_t* values) {
    Args a;
    for (const int at : domain.position) a.emplace_back(values[at]);
    out.push_back(std::move(a));
  });
  for (Args& a : far_values(op)) out.push_back(std::move(a));
  return out;
}

}  // namespace tpcheck::prove::test
