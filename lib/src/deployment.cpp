// §11: which connector accepts which sizing.
#include "tpcheck/deployment.hpp"

#include <algorithm>
#include <utility>

#include "messages.hpp"
#include "tpcheck/instantiate.hpp"

namespace tpcheck {

std::string_view connector_name(Connector c) {
  switch (c) {
    case Connector::MoRIIO: return "moriio";
    case Connector::Nixl: return "nixl";
    case Connector::Mooncake: return "mooncake";
    case Connector::SGLang: return "sglang";
    case Connector::Trtllm: return "trtllm";
    case Connector::TrtllmV2: return "trtllm-v2";
    case Connector::General: return "general";
  }
  return "unknown";
}

std::optional<Connector> connector_named(std::string_view name) {
  for (const Connector c : kConnectors) {
    if (connector_name(c) == name) return c;
  }
  return std::nullopt;
}

bool models_attention_dp(Connector c) { return c == Connector::Trtllm || c == Connector::TrtllmV2; }

namespace {

SizingVerdict rejected(Failure failure, Rejection reason) { return {std::move(failure), reason, std::nullopt}; }
SizingVerdict accepted() { return {None{}, std::nullopt, std::nullopt}; }
SizingVerdict misserved(Misservice how) { return {None{}, std::nullopt, how}; }

// Both sizes positive and the larger a multiple of the smaller (§3's tp_ratio succeeds).
template <ModelInt Int>
bool divides_one_another(const Int& a, const Int& b) {
  return floor_mod<Int>(std::max(a, b), std::min(a, b)) == 0;
}

template <ModelInt Int>
bool power_of_two(const Int& n) {
  Int v = n;
  while (v > 1 && floor_mod<Int>(v, Int(2)) == 0) v = floor_div<Int>(v, Int(2));
  return v == 1;
}

}  // namespace

template <ModelInt Int>
SizingVerdict sizing_verdict(Connector c, const Int& P, const Int& D, const Int& H, bool mla, AttentionDp adp) {
  if (P <= 0) return rejected(msg::size_not_positive("prefill tp_size", P), Rejection::NotPositive);
  if (D <= 0) return rejected(msg::size_not_positive("decode tp_size", D), Rejection::NotPositive);
  if (!mla && H <= 0) return rejected(msg::size_not_positive("total_num_kv_heads", H), Rejection::NotPositive);
  // TRT-LLM shards over the TP size per attention-DP group (§15.0): an ADP
  // rank holds every head.
  if (!models_attention_dp(c)) adp = {};
  const Int P1 = adp.prefill ? Int(1) : P, D1 = adp.decode ? Int(1) : D;
  const Int heads_total = mla ? Int(1) : H;
  if (!head_compatible(P1, heads_total)) {
    return rejected(msg::heads_not_shardable(heads_total, "prefill tp_size", P), Rejection::HeadsDoNotShard);
  }
  if (!head_compatible(D1, heads_total)) {
    return rejected(msg::heads_not_shardable(heads_total, "decode tp_size", D), Rejection::HeadsDoNotShard);
  }
  switch (c) {
    case Connector::MoRIIO: {
      // Each side maps its own rank 0 (the divisibility checks do not depend
      // on the rank) and the decode side runs the guard with itself as local.
      if (const auto decode_side = remote_rank(Int(0), D, P); !decode_side.ok()) {
        return rejected(decode_side.failure(), Rejection::NotDivisible);
      }
      if (const auto prefill_side = remote_rank(Int(0), P, D); !prefill_side.ok()) {
        return rejected(prefill_side.failure(), Rejection::NotDivisible);
      }
      if (auto guard = kv_heads_guard(D, P, H, mla); !guard.ok()) return rejected(guard.failure(), Rejection::HeadGuard);
      return accepted();
    }
    case Connector::Nixl:
    case Connector::Mooncake: {
      const Outcome<Int> ratio = tp_ratio(D, P);
      if (!ratio.ok()) return rejected(ratio.failure(), Rejection::NotDivisible);
      // SPEC §11: NIXL refuses `not mla and P > D and P > H`. In that case the
      // prefill side replicates heads and is larger, NIXL reads only one
      // replica of each head, and it sends the other ranks of the window no
      // notification. Those ranks would wait for a completion that never
      // comes, so NIXL refuses the sizing at handshake with an AssertionError
      // that has no message. (Mooncake pushes from every rank of the window.)
      if (c == Connector::Nixl && !mla && P > D && P > H) {
        return rejected(msg::nixl_refuses_unread_replicas(), Rejection::NixlReplicaRule);
      }
      return accepted();
    }
    case Connector::SGLang:
      // §11, §14.1: SGLang refuses nothing, and serves correctly what mooncake
      // serves. On a pair that is not divisible its resolver sends the last
      // decode ranks to prefill ranks past the last (D > P) or leaves the last
      // prefill ranks untargeted (D < P).
      if (divides_one_another(P, D)) return accepted();
      return misserved(D > P ? Misservice::TargetsMissingPrefillRanks : Misservice::PrefillRanksStall);
    case Connector::TrtllmV2:
      // §15.3: the Python transceiver checks no TP divisibility.
      return divides_one_another(P1, D1) ? accepted() : misserved(Misservice::NotDivisible);
    case Connector::Trtllm:
      // §15.3: CacheFormatter is not MLA's, and TargetRanksInfoForDPImpl checks
      // that the TP size per DP group is a power of two on both sides (powers
      // of two divide one another: what it accepts is divisible).
      if (mla) return rejected(msg::trtllm_mla_not_covered(), Rejection::MlaNotCovered);
      if (!power_of_two(P1)) return rejected(msg::tp_per_group_not_power_of_two("prefill", P1), Rejection::NotPowerOfTwo);
      if (!power_of_two(D1)) return rejected(msg::tp_per_group_not_power_of_two("decode", D1), Rejection::NotPowerOfTwo);
      return accepted();
    case Connector::General:
      return accepted();
  }
  return accepted();
}

template <ModelInt Int>
Outcome<None> sizing_accepted(Connector c, const Int& P, const Int& D, const Int& H, bool mla, AttentionDp adp) {
  return sizing_verdict(c, P, D, H, mla, adp).outcome;
}

#define TPCHECK_DEPLOYMENT(Int)                                                                               \
  template Outcome<None> sizing_accepted<Int>(Connector, const Int&, const Int&, const Int&, bool, AttentionDp); \
  template SizingVerdict sizing_verdict<Int>(Connector, const Int&, const Int&, const Int&, bool, AttentionDp);
TPCHECK_INSTANTIATE_MODEL(TPCHECK_DEPLOYMENT)

}  // namespace tpcheck
