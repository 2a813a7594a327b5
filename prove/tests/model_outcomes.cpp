#include "model_outcomes.hpp"

#include "tpcheck/deployment.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/operations.hpp"
#include "tpcheck/render.hpp"

namespace tpcheck::prove::test {

std::optional<std::string> model_outcome(std::string_view op, const std::vector<BigInt>& a) {
  // The operations `tpcheck eval` knows run through its own table.
  if (const auto index = operation_index(op)) return evaluate_big(*index, a);
  if (op == "window_span") return render(window_span(a[0], a[1], a[2]));
  if (op == "head_compatible") return render(head_compatible(a[0], a[1]));
  if (op == "holders") return render(holders(a[0], a[1], a[2]));
  if (op == "plan_copy_count") return render(plan_copy_count(a[0], a[1], a[2], a[3], a[4] != 0));
  if (op == "single_source_plan") return render(single_source_plan(a[0], a[1], a[2], a[3], a[4] != 0));
  if (op == "port_range") return render(port_range(a[0], a[1], a[2]));
  for (const Connector c : kConnectors) {
    if (op == "sizing_accepted_" + std::string(connector_name(c))) return render(sizing_accepted(c, a[0], a[1], a[2], a[3] != 0));
  }
  return std::nullopt;
}

}  // namespace tpcheck::prove::test
