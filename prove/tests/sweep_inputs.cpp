#include "sweep_inputs.hpp"

#include "tpcheck/operation_domains.hpp"
#include "tpcheck/operations.hpp"

namespace tpcheck::prove::test {
namespace {

BigInt pow2(unsigned n) { return BigInt(1) << n; }

Args args(std::initializer_list<BigInt> values) { return Args(values); }

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The same for the recurrent state's operations (§16.1-16.2): dims and sizes
// beyond 64 bits, Mamba2 in both cases, and plans and fan-ins just past the
// listing limit (a plan at the limit would list 2^20 copies term by term).
std::vector<Args> state_far_values(std::string_view op) {
  if (op == "state_pairing") {
    return {args({pow2(70), pow2(70), pow2(66), pow2(66), 3, 3}), args({pow2(70), pow2(70) + 1, 2, 2, 4, 4}),
            args({3, 3, pow2(66), pow2(66) + 2, 4, 4}), args({3, 3, 2, 2, pow2(70), -pow2(70)})};
  }
  const std::size_t cut = op.find('_');
  if (cut == std::string_view::npos) return {};
  const std::string_view family = op.substr(0, cut);
  // Dims beyond 64 bits that load on 2^66 ranks and on 2^70 (Mamba2: case B
  // with G = 1, case A with G = 2^70), and dims whose plan over P -> 1 has
  // 2 * P copies (Mamba1: x and the SSM heads).
  std::vector<Args> dims;
  if (family == "mamba2") {
    dims = {args({pow2(70), 3, 1, 5}), args({pow2(70), pow2(65), pow2(70), 7})};
  } else if (family == "gdn") {
    dims = {args({pow2(70), pow2(65), pow2(71), 3})};
  } else if (family == "kda") {
    dims = {args({pow2(70), pow2(65)})};
  } else if (family == "mamba1") {
    dims = {args({pow2(70), pow2(65)})};
  } else {
    return {};
  }
  const auto with = [](Args first, const Args& more) {
    first.insert(first.end(), more.begin(), more.end());
    return first;
  };
  std::vector<Args> out;
  for (const Args& d : dims) {
    if (ends_with(op, "_state_shape")) {
      out.push_back(with({pow2(66)}, d));
      out.push_back(with({pow2(70) + 1}, d));
    } else if (ends_with(op, "_segments")) {
      out.push_back(with({pow2(66) - 1, pow2(66)}, d));
      out.push_back(with({pow2(66), pow2(66)}, d));
    } else if (ends_with(op, "_state_plan")) {
      out.push_back(with({pow2(66) - 1, pow2(66), pow2(70)}, d));  // one copy a segment
      out.push_back(with({3, pow2(70), pow2(66)}, d));             // 16 copies a sharded segment
    } else if (ends_with(op, "_state_served")) {
      out.push_back(with({pow2(66) - 1, pow2(66), pow2(70)}, d));
      out.push_back(with({pow2(70) - 1, pow2(70), pow2(66)}, d));
    }
  }
  // Past the listing limit: Mamba1 over 2^20 -> 1 has 2^21 copies; a prefill
  // rank of 1 -> 2^21 serves 2^21 decode ranks.
  if (family == "mamba1" && ends_with(op, "_state_plan")) out.push_back(args({0, pow2(20), 1, pow2(20), 1}));
  if (family == "mamba1" && ends_with(op, "_state_served")) out.push_back(args({0, 1, pow2(21), pow2(21), 1}));
  return out;
}

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
  return state_far_values(op);
}

}  // namespace

std::string model_operation_name(std::string_view encoded) {
  constexpr std::string_view kSizing = "sizing_accepted_";
  if (encoded.substr(0, kSizing.size()) == kSizing) return std::string(encoded.substr(kSizing.size())) + "_accepts";
  return std::string(encoded);
}

SweepInputs sweep_inputs(std::string_view op, const dom::Bound& bound) {
  const auto index = operation_index(model_operation_name(op));
  if (!index) return {};
  const dom::OperationDomain& domain = dom::operation_domains()[*index];
  SweepInputs out;
  dom::for_each_case(domain.domain, bound, [&](const std::int64_t* values) {
    Args a;
    for (const int at : domain.position) a.emplace_back(values[at]);
    out.domain.push_back(std::move(a));
  });
  out.far = far_values(op);
  return out;
}

}  // namespace tpcheck::prove::test
