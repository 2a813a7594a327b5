// §9.5: the int64 model agrees with the cpp_int model, and the invariants' names.
#include "support.hpp"
#include "tpcheck/operations.hpp"

namespace tpcheck::inv {

std::string_view invariant_name(Invariant invariant) {
  switch (invariant) {
    case Invariant::Bounds: return "bounds";
    case Invariant::FanIn: return "fan-in";
    case Invariant::RoundTrip: return "round trip";
    case Invariant::Errors: return "errors exactly where due";
    case Invariant::Agreement: return "agreement";
    case Invariant::HeadAlignment: return "head alignment";
    case Invariant::PlanExactness: return "plan exactness";
    case Invariant::CompletionCounts: return "completion counts";
    case Invariant::PortsAndHosts: return "ports and hosts";
  }
  return "unknown invariant";
}

Violation int64_agrees_with_cpp_int(std::string_view op, const std::vector<std::int64_t>& args) {
  const auto index = operation_index(op);
  if (!index) return "no operation named " + std::string(op);
  // Fast path: the outcomes compared as values. The rendered texts (what a
  // Python caller sees) decide when the values differ.
  if (int64_and_cpp_int_agree(*index, args)) return std::nullopt;
  const std::vector<BigInt> big(args.begin(), args.end());
  const std::string narrow_outcome = evaluate_int64(*index, args);
  const std::string wide_outcome = evaluate_big(*index, big);
  if (narrow_outcome == wide_outcome) return std::nullopt;
  std::string what = std::string(op) + "(";
  for (std::size_t i = 0; i < args.size(); ++i) what += (i ? ", " : "") + decimal(args[i]);
  return what + ") gives " + narrow_outcome + " in int64 but " + wide_outcome + " in cpp_int";
}

}  // namespace tpcheck::inv
