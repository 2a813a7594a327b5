// SPEC §8 and §9.4, §9.9: ports and hosts.
#include "property.hpp"

namespace tpcheck::rcprop {
namespace {

// §9.4 on port_offset: tp_size first (0 is vLLM's "unknown" sentinel), then
// tp_rank, then dp_rank.
TPCHECK_PROPERTY(PortErrorsFireExactlyWhereDue) {
  const auto c = rcgen::draw_port_case<Int>();
  RC_TAG(magnitude(c.dp, c.t, c.T), "port_offset: " + outcome_kind(port_offset(c.dp, c.t, c.T)));
  hold(inv::port_errors_exactly_where_due(c.dp, c.t, c.T));
}

// §9.9: no two workers of a deployment share an offset (it enumerates them all).
TPCHECK_PROPERTY(PortOffsetsNeverCollide) {
  const Int dp_size = rcgen::pick<std::int64_t>(-1, 17);
  const Int T = rcgen::pick<std::int64_t>(-1, 257);
  RC_CLASSIFY(dp_size > 1 && T > 1, "several DP groups of several ranks");
  RC_CLASSIFY(dp_size < 1 || T < 1, "not a deployment (vacuous)");
  hold(inv::port_offsets_distinct(dp_size, T));
}

// §9.9: a decode rank dials the port and host of its mapped prefill rank.
TPCHECK_PROPERTY(DecodeRankDialsItsMappedPeer) {
  const auto c = rcgen::draw_rank_case<Int>();  // (d, D, P): decode is the local side
  const int dp_class = rcgen::draw_class("dp_rank");
  const Int dp = dp_class < 60 ? Int(rcgen::pick<std::int64_t>(0, 8))
                               : rcgen::to_model<Int>(rcgen::draw_magnitude(rcgen::domain_max<Int>()));
  const Int hosts = rcgen::to_model<Int>(rcgen::draw_host_count<Int>(widen(c.R)));
  RC_TAG(c.shape, magnitude(dp, c.L, c.R), "host_index: " + outcome_kind(host_index(c.r, c.R, hosts)));
  hold(inv::dialed_peer_is_the_mapped_rank(dp, c.r, c.R, c.L, hosts));
}

// §9.9: port_range rejects exactly the deployments whose last port passes
// 65535, drawn mostly right at that boundary.
TPCHECK_PROPERTY(PortRangeRejectsExactlyTheOverflowingDeployments) {
  const int shape = rcgen::draw_class("port deployment");
  Int base;
  Int dp_size;
  Int T;
  if (shape < 60) {
    dp_size = rcgen::pick<std::int64_t>(1, 9);
    T = rcgen::pick<std::int64_t>(1, 65);
    base = Int(65536 - dp_size * T + rcgen::pick<std::int64_t>(-2, 3));
    RC_TAG("at the 65535 boundary");
  } else if (shape < 85) {
    const BigInt max = rcgen::domain_max<Int>();
    dp_size = rcgen::to_model<Int>(rcgen::draw_magnitude(max));
    T = rcgen::to_model<Int>(rcgen::draw_magnitude(max));
    base = rcgen::pick<std::int64_t>(1, 65536);
    RC_TAG("large deployment", magnitude(dp_size, T));
  } else {
    dp_size = rcgen::to_model<Int>(rcgen::draw_class("dp_size sign") < 50 ? rcgen::draw_non_positive<Int>() : BigInt(2));
    T = rcgen::to_model<Int>(rcgen::draw_class("tp_size sign") < 50 ? rcgen::draw_non_positive<Int>() : BigInt(4));
    base = rcgen::pick<std::int64_t>(-2, 65536);
    RC_TAG("an argument not positive");
  }
  RC_TAG("port_range: " + outcome_kind(port_range(base, dp_size, T)));
  hold(inv::port_range_rejects_exactly_overflow(base, dp_size, T));
}

}  // namespace
}  // namespace tpcheck::rcprop
