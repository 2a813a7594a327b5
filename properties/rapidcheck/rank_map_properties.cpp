// SPEC §9.1-9.5 on the strict and general rank maps, tp_ratio and windows.
#include "property.hpp"

namespace tpcheck::rcprop {
namespace {

using rcgen::draw_rank_case;

// §9.1
TPCHECK_PROPERTY(MappedRankStaysInBounds) {
  const auto c = draw_rank_case<Int>();
  RC_TAG(c.shape, magnitude(c.L, c.R), "remote_rank: " + outcome_kind(remote_rank(c.r, c.L, c.R)));
  hold(inv::mapped_rank_in_bounds(c.r, c.L, c.R));
}

// §9.2 (the fan-in search relies on it)
TPCHECK_PROPERTY(RankMapsAreMonotone) {
  const auto c = draw_rank_case<Int>();
  RC_TAG(c.shape, magnitude(c.L, c.R));
  RC_CLASSIFY(c.r >= 0 && c.r < c.L && c.L - c.r > 1, "has a next rank");
  hold(inv::maps_monotone_at(c.r, c.L, c.R));
}

// §9.2: q is a remote rank, so it is drawn against R.
TPCHECK_PROPERTY(EveryRemoteRankHasBalancedFanIn) {
  const rcgen::SizePair pair = rcgen::draw_size_pair<Int>();
  const Int L = rcgen::to_model<Int>(pair.L);
  const Int R = rcgen::to_model<Int>(pair.R);
  const Int q = rcgen::to_model<Int>(rcgen::draw_rank<Int>(pair.R));
  RC_TAG(pair.shape, magnitude(L, R));
  RC_CLASSIFY(L >= 1 && R >= 1 && L >= R, "L >= R (onto)");
  RC_CLASSIFY(L >= 1 && R >= 1 && L <= R, "L <= R (one-to-one)");
  hold(inv::fan_in_balanced(q, L, R));
}

// §9.3
TPCHECK_PROPERTY(RoundTripReturnsHome) {
  const auto c = draw_rank_case<Int>();
  RC_TAG(c.shape, magnitude(c.L, c.R), "remote_rank: " + outcome_kind(remote_rank(c.r, c.L, c.R)));
  hold(inv::round_trip_returns_home(c.r, c.L, c.R));
}

// §9.3 (§3 duality)
TPCHECK_PROPERTY(WindowsAreDual) {
  const auto c = draw_rank_case<Int>();
  RC_TAG(c.shape, magnitude(c.L, c.R), "window: " + outcome_kind(window_span(c.r, c.L, c.R)));
  hold(inv::windows_are_dual(c.r, c.L, c.R));
}

// §9.4: both "multiple" messages, the rank message and the size message.
TPCHECK_PROPERTY(ErrorsFireExactlyOnNonDivisiblePairs) {
  const auto c = draw_rank_case<Int>();
  RC_TAG(c.shape, magnitude(c.L, c.R), "remote_rank: " + outcome_kind(remote_rank(c.r, c.L, c.R)));
  hold(inv::rank_map_errors_exactly_where_due(c.r, c.L, c.R));
}

// §9.4 on tp_ratio's AssertionErrors.
TPCHECK_PROPERTY(RatioFailsExactlyOnNonDivisiblePairs) {
  const auto c = draw_rank_case<Int>();
  RC_TAG(c.shape, magnitude(c.L, c.R), "tp_ratio: " + outcome_kind(tp_ratio(c.L, c.R)));
  hold(inv::ratio_errors_exactly_where_due(c.L, c.R));
}

// §9.5
TPCHECK_PROPERTY(GeneralMapAgreesWithStrictMap) {
  const auto c = draw_rank_case<Int>();
  RC_TAG(c.shape, magnitude(c.L, c.R), "remote_rank: " + outcome_kind(remote_rank(c.r, c.L, c.R)));
  hold(inv::general_agrees_with_strict(c.r, c.L, c.R));
}

}  // namespace
}  // namespace tpcheck::rcprop
