// The inputs the differential runs every encoded operation on: the cases of
// the operation's domain in the registry (dom::operation_domains(), the
// domains the narrow-model differential and conform's grid walk) at a small
// bound, plus values beyond 64 bits and at the model's listing limit.
#pragma once

#include <string_view>
#include <vector>

#include "tpcheck/domain.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::prove::test {

using Args = std::vector<BigInt>;

// The model operation (operation_infos()) an encoded operation is: the same
// name, but sizing_accepted_CONNECTOR is CONNECTOR_accepts.
std::string model_operation_name(std::string_view encoded);

// The inputs for the encoded operation `op` (a name of encoded_operations()),
// in its parameters' order: the domain's cases (none when the registry has no
// domain for it) and the far values.
struct SweepInputs {
  std::vector<Args> domain;
  std::vector<Args> far;
};
SweepInputs sweep_inputs(std::string_view op, const dom::Bound& bound);

}  // namespace tpcheck::prove::test
