// SPEC §11: which connector accepts a sizing (P, D, H, mla), and the checks an
// operator runs on a whole deployment before any request is routed.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "tpcheck/model.hpp"

namespace tpcheck {

enum class Connector { MoRIIO, Nixl, Mooncake, General };
inline constexpr std::array<Connector, 4> kConnectors = {Connector::MoRIIO, Connector::Nixl, Connector::Mooncake,
                                                         Connector::General};
std::string_view connector_name(Connector c);
std::optional<Connector> connector_named(std::string_view name);

// Why a connector rejects a sizing, for operators (tpcheck matrix marks its
// cells by it): a size or head count that is not positive; heads that do not
// shard over one side (the model does not load); sizes that do not divide
// each other; MoRIIO's head guard (§5); NIXL's replica rule (§11).
enum class Rejection { NotPositive, HeadsDoNotShard, NotDivisible, HeadGuard, NixlReplicaRule };

// The outcome of sizing_accepted with the rule that produced it (no reason
// when the connector accepts).
struct SizingVerdict {
  Outcome<None> outcome;
  std::optional<Rejection> reason;
};

// None when the connector accepts prefill TP P, decode TP D, H KV heads;
// otherwise the first error the deployment would raise. A sizing that is not
// head-compatible fails before any connector runs (the model does not load).
template <ModelInt Int>
Outcome<None> sizing_accepted(Connector c, const Int& P, const Int& D, const Int& H, bool mla);

// The same decision with its reason.
template <ModelInt Int>
SizingVerdict sizing_verdict(Connector c, const Int& P, const Int& D, const Int& H, bool mla);

}  // namespace tpcheck
