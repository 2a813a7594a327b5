// SPEC §16.8's state configurations and the sizings they give (state_grid.hpp).
#include "tpcheck/conform/state_grid.hpp"

#include <algorithm>

#include "tpcheck/model.hpp"

namespace tpcheck::conform::state {
namespace {

StateConfig config(StateFamily family, std::vector<std::int64_t> v) {
  StateConfig c;
  c.dims.family = family;
  std::string label = std::string(state_family_name(family)) + "(";
  for (std::size_t i = 0; i < v.size(); ++i) {
    c.dims.v[i] = v[i];
    label += (i ? ", " : "") + std::to_string(v[i]);
  }
  c.label = label + ")";
  return c;
}

}  // namespace

const std::vector<StateConfig>& state_configs() {
  static const std::vector<StateConfig> configs = {
      config(StateFamily::Mamba2, {24, 1, 1, 3}),   // G = 1: case B at every T > 1; N odd
      config(StateFamily::Mamba2, {24, 1, 6, 2}),   // G = 6: case A at 1, 2, 3, 6; case C at 4, 8
      config(StateFamily::Mamba2, {24, 2, 24, 1}),  // G = 24: always sharded, x wider than B and C
      config(StateFamily::Gdn, {24, 1, 48, 2}),     // key width 24, value width 96
      config(StateFamily::Kda, {24, 2}),            // three equal segments
      config(StateFamily::Mamba1, {24, 2}),         // one segment
  };
  return configs;
}

bool loads(const StateConfig& c, std::int64_t T) { return T > 0 && state_shape<std::int64_t>(T, c.dims).ok(); }

Sizing sizing(const StateConfig& c, std::int64_t P, std::int64_t D) {
  if (!loads(c, P) || !loads(c, D)) return Sizing::NotLoading;
  if (P == D) return Sizing::Equal;
  return tp_ratio<std::int64_t>(D, P).ok() ? Sizing::Valid : Sizing::NotDivisible;
}

int state_sizes(const GridBounds& bounds) { return bounds.max_tp_given ? bounds.max_tp : kStateSizes; }

std::vector<std::size_t> configs_of(const std::vector<StateFamily>& families) {
  std::vector<std::size_t> out;
  const auto& configs = state_configs();
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (families.empty() || std::find(families.begin(), families.end(), configs[i].dims.family) != families.end()) {
      out.push_back(i);
    }
  }
  return out;
}

std::vector<ParamSpec> state_params(const std::vector<StateFamily>& families) {
  ParamSpec model{"model", ParamKind::Choice, {}};
  for (const std::size_t i : configs_of(families)) {
    model.choices.push_back(static_cast<std::int64_t>(i));
    model.labels.push_back(state_configs()[i].label);
  }
  return {{"P", ParamKind::Size, {}}, {"D", ParamKind::Size, {}}, model};
}

std::vector<CaseArgs> state_cases(const GridBounds& bounds, const std::vector<StateFamily>& families,
                                  bool not_divisible) {
  const std::int64_t n = state_sizes(bounds);
  const auto chosen = configs_of(families);
  std::vector<CaseArgs> out;
  for (std::int64_t sum = 2; sum <= 2 * n; ++sum) {
    for (std::int64_t P = std::max<std::int64_t>(1, sum - n); P <= std::min(n, sum - 1); ++P) {
      const std::int64_t D = sum - P;
      for (const std::size_t c : chosen) {
        const Sizing s = sizing(state_configs()[c], P, D);
        if (s == Sizing::Valid || (not_divisible && s == Sizing::NotDivisible)) {
          out.push_back({P, D, static_cast<std::int64_t>(c)});
        }
      }
    }
  }
  return out;
}

std::optional<StateCase> state_case(const CaseArgs& args) {
  if (args.size() < 3) return std::nullopt;
  const auto P = narrow(args[0]), D = narrow(args[1]), c = narrow(args[2]);
  if (!P || !D || !c || *c < 0 || *c >= static_cast<std::int64_t>(state_configs().size()) || *P < 1 || *D < 1 ||
      *P > 1024 || *D > 1024) {
    return std::nullopt;
  }
  StateCase out{*P, *D, static_cast<std::size_t>(*c), Sizing::Valid};
  out.sizing = sizing(state_configs()[out.config], *P, *D);
  return out;
}

}  // namespace tpcheck::conform::state
