// §11: which connector accepts which sizing.
#include "tpcheck/deployment.hpp"

#include <utility>

#include "messages.hpp"
#include "tpcheck/instantiate.hpp"

namespace tpcheck {

std::string_view connector_name(Connector c) {
  switch (c) {
    case Connector::MoRIIO: return "moriio";
    case Connector::Nixl: return "nixl";
    case Connector::Mooncake: return "mooncake";
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

namespace {

SizingVerdict rejected(Failure failure, Rejection reason) { return {std::move(failure), reason}; }

}  // namespace

template <ModelInt Int>
SizingVerdict sizing_verdict(Connector c, const Int& P, const Int& D, const Int& H, bool mla) {
  if (P <= 0) return rejected(msg::size_not_positive("prefill tp_size", P), Rejection::NotPositive);
  if (D <= 0) return rejected(msg::size_not_positive("decode tp_size", D), Rejection::NotPositive);
  if (!mla && H <= 0) return rejected(msg::size_not_positive("total_num_kv_heads", H), Rejection::NotPositive);
  const Int heads_total = mla ? Int(1) : H;
  if (!head_compatible(P, heads_total)) {
    return rejected(msg::heads_not_shardable(heads_total, "prefill tp_size", P), Rejection::HeadsDoNotShard);
  }
  if (!head_compatible(D, heads_total)) {
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
      return {None{}, std::nullopt};
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
      return {None{}, std::nullopt};
    }
    case Connector::General:
      return {None{}, std::nullopt};
  }
  return {None{}, std::nullopt};
}

template <ModelInt Int>
Outcome<None> sizing_accepted(Connector c, const Int& P, const Int& D, const Int& H, bool mla) {
  return sizing_verdict(c, P, D, H, mla).outcome;
}

#define TPCHECK_DEPLOYMENT(Int)                                                                  \
  template Outcome<None> sizing_accepted<Int>(Connector, const Int&, const Int&, const Int&, bool); \
  template SizingVerdict sizing_verdict<Int>(Connector, const Int&, const Int&, const Int&, bool);
TPCHECK_INSTANTIATE_MODEL(TPCHECK_DEPLOYMENT)

}  // namespace tpcheck
