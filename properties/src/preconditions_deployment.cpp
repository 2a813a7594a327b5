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

// §11, §14.1: SGLang refuses no loadable sizing; on a pair that is not
// divisible its resolver serves it wrong (the matrix says so), it raises nothing.
TPCHECK_ORACLE(SglangAcceptsErrorsFireExactlyWhereDue, "§11", "sglang_accepts(P, D, H, MLA)",
    options().proved(inv::Proof::not_provable("prove/ does not encode sglang's acceptance")),
    [](const auto& P, const auto& D, const auto& H, const auto& mla) {
      return preconditions(loadable(P, D, H, mla), succeeds_if("divisible", divides(min(P, D), max(P, D))),
                           succeeds_if("not divisible, served wrong", !divides(min(P, D), max(P, D))));
    });

// §15.3: TRT-LLM's Python transceiver loads each side over its TP size per
// attention-DP group and checks no divisibility.
TPCHECK_ORACLE(TrtllmV2AcceptsErrorsFireExactlyWhereDue, "§15.3",
    "trtllm-v2_accepts(P, D, H, MLA, PREFILL_ADP, DECODE_ADP)",
    options().proved(inv::Proof::not_provable("prove/ does not encode TensorRT-LLM's acceptance")),
    [](const auto& P, const auto& D, const auto& H, const auto& mla, const auto& PA, const auto& DA) {
      return preconditions(loads_per_group(P, D, H, mla, PA, DA));
    });

// §15.3: the C++ transceiver's CacheFormatter is not MLA's, and it needs the
// TP size per DP group a power of two, prefill's checked first.
TPCHECK_ORACLE(TrtllmAcceptsErrorsFireExactlyWhereDue, "§15.3", "trtllm_accepts(P, D, H, MLA, PREFILL_ADP, DECODE_ADP)",
    options().proved(inv::Proof::not_provable("prove/ does not encode TensorRT-LLM's acceptance")),
    [](const auto& P, const auto& D, const auto& H, const auto& mla, const auto& PA, const auto& DA) {
      const auto P1 = per_group("prefill_per_group", P, PA);
      const auto D1 = per_group("decode_per_group", D, DA);
      const char* power_of_two = " must be a power of two for TensorRT-LLM's C++ transceiver";
      return preconditions(
          loads_per_group(P, D, H, mla, PA, DA),
          fails_if("MLA", mla != 0,
                   value_error("TensorRT-LLM's C++ CacheFormatter does not serve MLA (MLACacheFormatter does, which "
                               "this model does not cover)")),
          fails_if("prefill size per group not a power of two", !is_power_of_two(P1),
                   value_error(std::string("prefill tp_size per attention-DP group {T}") + power_of_two).where("T", P1)),
          fails_if("decode size per group not a power of two", !is_power_of_two(D1),
                   value_error(std::string("decode tp_size per attention-DP group {T}") + power_of_two).where("T", D1)));
    });

// This project's general plan serves every loadable sizing.
TPCHECK_ORACLE(GeneralAcceptsErrorsFireExactlyWhereDue, "§11", "general_accepts(P, D, H, MLA)",
    [](const auto& P, const auto& D, const auto& H, const auto& mla) { return loadable(P, D, H, mla); });

}  // namespace tpcheck::oracle
