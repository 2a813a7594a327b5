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
  if (narrow_agrees_with_cpp_int<std::int64_t>(*index, args)) return std::nullopt;
  return narrow_disagreement<std::int64_t>(*index, args);
}

}  // namespace tpcheck::inv
