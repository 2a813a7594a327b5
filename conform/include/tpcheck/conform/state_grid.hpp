// SPEC §16.8's grid of hybrid models' recurrent state, for every profile
// whose functions move it: the six state configurations, which sizings of
// P and D each gives (valid, not divisible, equal, not loading), the cases
// (P, D, model) a state function runs on, and --family, which keeps the
// configurations of the families a user serves.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tpcheck/conform/grid.hpp"
#include "tpcheck/state.hpp"

namespace tpcheck::conform::state {

// Every configuration keeps K = 3 (a window of K - 1 = 2 rows), 2-byte conv
// elements and 4-byte SSM elements.
inline constexpr std::int64_t kConvKernel = 3;
inline constexpr std::int64_t kConvElement = 2;
inline constexpr std::int64_t kSsmElement = 4;
// P and D take every value in 1..8, unless --max-tp says otherwise.
inline constexpr int kStateSizes = 8;

struct StateConfig {
  StateDims<std::int64_t> dims;
  std::string label;  // as reports show it: "mamba2(24, 1, 1, 3)"
};

// SPEC §16.8's configurations, families in the order mamba2, gdn, kda,
// mamba1 (a case's config index orders its smallest case by family, then dims).
const std::vector<StateConfig>& state_configs();

// A side of T ranks holds the configuration's state: its checks pass (SPEC §16.1).
bool loads(const StateConfig& config, std::int64_t T);

enum class Sizing {
  Valid,         // both sides load, P and D divide one another, P != D
  Equal,         // P == D: whole slots or pages, no slicing
  NotDivisible,  // both sides load, but P and D do not divide (SPEC §16.2: invalid)
  NotLoading,    // a side cannot hold the state
};
Sizing sizing(const StateConfig& config, std::int64_t P, std::int64_t D);

// The largest P and D of the state grid: kStateSizes, or --max-tp when given.
int state_sizes(const GridBounds& bounds);

// The configurations of these families (every one when `families` is empty), by index.
std::vector<std::size_t> configs_of(const std::vector<StateFamily>& families);

// A state function's case parameters: P, D, and the configuration
// ("model", its index into state_configs(), shown by its label).
std::vector<ParamSpec> state_params(const std::vector<StateFamily>& families);

// The cases (P, D, model) of every valid sizing of these families' configs,
// P + D smallest first; with `not_divisible`, also those that load on both
// sides but do not divide (judged under nondiv: kinds).
std::vector<CaseArgs> state_cases(const GridBounds& bounds, const std::vector<StateFamily>& families,
                                  bool not_divisible);

// A case's (P, D, model), when it is one of the grid's; nullopt otherwise.
struct StateCase {
  std::int64_t P = 0, D = 0;
  std::size_t config = 0;
  Sizing sizing = Sizing::Valid;
};
std::optional<StateCase> state_case(const CaseArgs& args);

}  // namespace tpcheck::conform::state
