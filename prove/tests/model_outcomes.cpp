#include "model_outcomes.hpp"

#include "sweep_inputs.hpp"
#include "tpcheck/operations.hpp"

namespace tpcheck::prove::test {

// Every encoded operation is an operation of `tpcheck eval`'s table, run here
// on cpp_int as `tpcheck eval --model cpp_int` runs it.
std::optional<std::string> model_outcome(std::string_view op, const std::vector<BigInt>& a) {
  if (const auto index = operation_index(model_operation_name(op))) return evaluate_big(*index, a);
  return std::nullopt;
}

}  // namespace tpcheck::prove::test
