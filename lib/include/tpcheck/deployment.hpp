// SPEC §11: which connector accepts a sizing (P, D, H, mla), and the checks an
// operator runs on a whole deployment before any request is routed.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "tpcheck/model.hpp"
#include "tpcheck/stages.hpp"

namespace tpcheck {

// TensorRT-LLM has two transceivers (SPEC §15.3): `trtllm` is the C++ one
// (CacheFormatter), `trtllm-v2` the Python one (transceiver v2).
enum class Connector { MoRIIO, Nixl, Mooncake, SGLang, Trtllm, TrtllmV2, General };
inline constexpr std::array<Connector, 7> kConnectors = {Connector::MoRIIO, Connector::Nixl,   Connector::Mooncake,
                                                         Connector::SGLang, Connector::Trtllm, Connector::TrtllmV2,
                                                         Connector::General};
std::string_view connector_name(Connector c);
std::optional<Connector> connector_named(std::string_view name);

// Why a connector rejects a sizing, for operators (tpcheck matrix marks its
// cells by it): a size or head count that is not positive; heads that do not
// shard over one side (the model does not load); sizes that do not divide
// each other; MoRIIO's head guard (§5); NIXL's replica rule (§11); TRT-LLM's
// C++ transceiver: a TP size per attention-DP group that is not a power of
// two, and MLA, which its CacheFormatter does not serve (§15.3).
enum class Rejection {
  NotPositive,
  HeadsDoNotShard,
  NotDivisible,
  HeadGuard,
  NixlReplicaRule,
  NotPowerOfTwo,
  MlaNotCovered
};

// How a sizing a connector runs is still served wrongly (§11): SGLang and
// TRT-LLM's Python transceiver refuse no TP sizes, but serve correctly only
// divisible pairs. On a pair that is not divisible SGLang has some decode
// ranks target a prefill rank that does not exist (D > P: their requests fail)
// or leaves some prefill ranks untargeted (D < P: they stall) (§14.1); what
// TRT-LLM's Python overlaps do there is not modelled.
enum class Misservice { TargetsMissingPrefillRanks, PrefillRanksStall, NotDivisible };

// The outcome of sizing_accepted with the rule that produced it (no reason
// when the connector accepts), and, for a sizing it accepts, how it is served
// wrongly (nothing: served correctly).
struct SizingVerdict {
  Outcome<None> outcome;
  std::optional<Rejection> reason;
  std::optional<Misservice> misserved;
};

// None when the connector accepts prefill TP P, decode TP D, H KV heads;
// otherwise the first error the deployment would raise. A sizing that is not
// head-compatible fails before any connector runs (the model does not load).
// Attention DP (SPEC §15.0) is TRT-LLM's: only trtllm and trtllm-v2 read
// `adp`, judging each side by its TP size per DP group (1 under ADP, whose
// ranks hold every head); the other connectors have no attention DP here, and
// callers must not pass it for them (tpcheck check refuses to).
template <ModelInt Int>
Outcome<None> sizing_accepted(Connector c, const Int& P, const Int& D, const Int& H, bool mla, AttentionDp adp = {});

// The same decision with its reason, and how an accepted sizing is served.
template <ModelInt Int>
SizingVerdict sizing_verdict(Connector c, const Int& P, const Int& D, const Int& H, bool mla, AttentionDp adp = {});

// Whether the connector reads attention DP (trtllm, trtllm-v2).
bool models_attention_dp(Connector c);

}  // namespace tpcheck
