// §11: where each connector rejects a sizing, in the order a deployment
// would raise: the model must load (positive sizes, heads that shard), then
// the connector's own checks.
#include "preconditions.hpp"

TPCHECK_DECLARATIONS(preconditions_deployment)

namespace tpcheck::oracle {
using namespace shared;
namespace {

auto loadable(const auto& P, const auto& D, const auto& H, const auto& mla) {
  return preconditions(sizing_positive(P, D, H, mla), heads_shard_on_both_sides(P, D, H, mla));
}

}  // namespace

// MoRIIO maps each side's rank 0 (both directions fail alike on a pair that
// is not divisible: the decode side's remote_rank(0, D, P) raises first), then
// the decode side runs the head guard with itself as the local side.
TPCHECK_ORACLE(MoriioAcceptsErrorsFireExactlyWhereDue, "§11", "moriio_accepts(P, D, H, MLA)",
    [](const auto& P, const auto& D, const auto& H, const auto& mla) {
      return preconditions(loadable(P, D, H, mla), strict_map_divisibility(D, P),
                           guard_needs_replicated_heads(D, P, H, mla));
    });

// NIXL runs tp_ratio(D, P) on the decode side, then refuses at handshake a
// larger prefill side that replicates heads, with an AssertionError without text.
TPCHECK_ORACLE(NixlAcceptsErrorsFireExactlyWhereDue, "§11", "nixl_accepts(P, D, H, MLA)",
    [](const auto& P, const auto& D, const auto& H, const auto& mla) {
      return preconditions(loadable(P, D, H, mla), ratio_divisibility(D, P),
                           fails_if("prefill larger and replicating heads", mla == 0 && P > D && P > H,
                                    assertion_error("")));
    });

TPCHECK_ORACLE(MooncakeAcceptsErrorsFireExactlyWhereDue, "§11", "mooncake_accepts(P, D, H, MLA)",
    [](const auto& P, const auto& D, const auto& H, const auto& mla) {
      return preconditions(loadable(P, D, H, mla), ratio_divisibility(D, P));
    });

// This project's general plan serves every loadable sizing.
TPCHECK_ORACLE(GeneralAcceptsErrorsFireExactlyWhereDue, "§11", "general_accepts(P, D, H, MLA)",
    [](const auto& P, const auto& D, const auto& H, const auto& mla) { return loadable(P, D, H, mla); });

}  // namespace tpcheck::oracle
