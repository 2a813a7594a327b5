// The cpp_int model's outcome of each encoded operation, rendered as
// `tpcheck eval` prints it: the other side of the differential.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpcheck/pyint.hpp"

namespace tpcheck::prove::test {

// nullopt when the model has no function of that name.
std::optional<std::string> model_outcome(std::string_view op, const std::vector<BigInt>& args);

}  // namespace tpcheck::prove::test
