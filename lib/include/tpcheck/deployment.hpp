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

// None when the connector accepts prefill TP P, decode TP D, H KV heads;
// otherwise the first error the deployment would raise. A sizing that is not
// head-compatible fails before any connector runs (the model does not load).
template <ModelInt Int>
Outcome<None> sizing_accepted(Connector c, const Int& P, const Int& D, const Int& H, bool mla);

}  // namespace tpcheck
