// §1-3: where the rank maps, tp_ratio and windows fail, in the SPEC's order.
#include "preconditions.hpp"

TPCHECK_DECLARATIONS(preconditions_rank_map)

namespace tpcheck::oracle {
using namespace shared;
namespace {

// §3 window(r, L, R) is built on tp_ratio(L, R); the local rank is checked
// before the ratio's divisibility, as §1 checks it before its own.
auto window_checks(const auto& r, const auto& L, const auto& R) {
  return preconditions(ratio_sizes(L, R), local_rank(r, L), ratio_divisibility(L, R));
}

}  // namespace

TPCHECK_ORACLE(RemoteRankErrorsFireExactlyWhereDue, "§1", "remote_rank(r, L, R)",
    [](const auto& r, const auto& L, const auto& R) {
      return preconditions(sizes_then_local_rank(r, L, R), strict_map_divisibility(L, R));
    });

// §2: the same positivity and rank errors as §1, no divisibility requirement.
TPCHECK_ORACLE(GeneralRankErrorsFireExactlyWhereDue, "§2", "general_rank(r, L, R)",
    [](const auto& r, const auto& L, const auto& R) { return preconditions(sizes_then_local_rank(r, L, R)); });

TPCHECK_ORACLE(TpRatioErrorsFireExactlyWhereDue, "§3", "tp_ratio(L, R)",
    [](const auto& L, const auto& R) { return preconditions(ratio_sizes(L, R), ratio_divisibility(L, R)); });

TPCHECK_ORACLE(WindowSpanErrorsFireExactlyWhereDue, "§3", "window_span(r, L, R)",
    [](const auto& r, const auto& L, const auto& R) { return window_checks(r, L, R); });

// The listed window: the same, and no more ranks than the model lists (2^20).
TPCHECK_ORACLE(WindowErrorsFireExactlyWhereDue, "§3", "window(r, L, R)",
    [](const auto& r, const auto& L, const auto& R) {
      return preconditions(
          window_checks(r, L, R),
          fails_if("more ranks than the model lists", R / L > 1048576,
                   value_error("window of local_tp_rank {r} has {ranks} elements, more than the model lists (1048576)")
                       .where("ranks", R / L)));
    });

}  // namespace tpcheck::oracle
