// The invariants of SPEC §9, each written once as a plain predicate.
//
// A predicate returns std::nullopt when its invariant holds for the given
// input and otherwise one line saying what was seen. Inputs the invariant does
// not speak about (say a round trip on a non-divisible pair) hold vacuously;
// the errors predicates speak about every input. Every engine (the exhaustive
// sweep of `tpcheck verify`, the RapidCheck properties, the fuzzers) calls
// these and never restates them.
//
// The predicates state the SPEC independently of lib/: expected error texts
// are spelled here again on purpose, so a wrong text in the model is caught.
//
// Cost: "per rank" predicates make O(1) or O(log size) model calls and accept
// sizes of any magnitude; "per configuration" ones loop over every rank of one
// side and are meant for sizes the caller can afford to enumerate.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpcheck/pyint.hpp"

namespace tpcheck::inv {

using Violation = std::optional<std::string>;

// SPEC §4: H heads shard over T ranks when both are positive and one divides
// the other. Stated here again rather than taken from the model's
// head_compatible, so that a wrong head_compatible cannot make the plan
// predicates hold vacuously, nor change which configurations a sweep visits.
template <ModelInt Int>
bool heads_shard(const Int& T, const Int& H) {
  return T >= 1 && H >= 1 && (floor_mod<Int>(T, H) == 0 || floor_mod<Int>(H, T) == 0);
}

// SPEC §1/§3: a pair of TP sizes is divisible when both are positive and the
// larger is a multiple of the smaller. Stated once for every engine.
template <ModelInt Int>
bool divisible_pair(const Int& a, const Int& b) {
  return a >= 1 && b >= 1 && floor_mod<Int>(std::max(a, b), std::min(a, b)) == 0;
}

// The nine invariants of SPEC §9, in its order.
enum class Invariant {
  Bounds = 1,
  FanIn,
  RoundTrip,
  Errors,
  Agreement,
  HeadAlignment,
  PlanExactness,
  CompletionCounts,
  PortsAndHosts,
};
inline constexpr int kInvariantCount = 9;
std::string_view invariant_name(Invariant invariant);

// §9.1 per rank: remote_rank, general_rank and every window rank lie in
// [0, R); a window has max(1, R/L) ranks.
template <ModelInt Int>
Violation mapped_rank_in_bounds(const Int& r, const Int& L, const Int& R);

// §9.2 per rank: both maps are monotone from r to r + 1 (the fan-in search
// below relies on it).
template <ModelInt Int>
Violation maps_monotone_at(const Int& r, const Int& L, const Int& R);

// §9.2 per remote rank q: its preimage under the general map has floor(L/R)
// or ceil(L/R) ranks, at least one when L >= R and at most one when L <= R;
// under the strict map (divisible pairs) exactly L/R when L >= R. Found by
// binary search, so any size works.
template <ModelInt Int>
Violation fan_in_balanced(const Int& q, const Int& L, const Int& R);

// §9.3 per rank: remote_rank(remote_rank(r, L, R), R, L) is r when L <= R,
// r - r % (L/R) when L > R.
template <ModelInt Int>
Violation round_trip_returns_home(const Int& r, const Int& L, const Int& R);

// §9.3 per rank: every q in window(r, L, R) has r in window(q, R, L) (checked
// on all of a short window, on its ends and middle otherwise).
template <ModelInt Int>
Violation windows_are_dual(const Int& r, const Int& L, const Int& R);

// §9.4: both rank maps fail exactly where §1/§2 say, with the exact text, in
// the stated precedence; the general map never fails on valid input.
template <ModelInt Int>
Violation rank_map_errors_exactly_where_due(const Int& r, const Int& L, const Int& R);

// §9.4: tp_ratio fails (AssertionError, exact text) iff the pair is not divisible.
template <ModelInt Int>
Violation ratio_errors_exactly_where_due(const Int& L, const Int& R);

// §9.4: both head guards decide as §5 states, with the exact texts.
template <ModelInt Int>
Violation guards_decide_as_specified(const Int& L, const Int& R, const Int& H, bool mla);

// §9.4 on §4: heads(r, T, H) and holders(r, T, H) fail (ValueError) exactly
// when T or H is not positive, r is outside [0, T) (heads) or [0, H)
// (holders), or the heads do not shard; the other model operations that
// depend on head ownership (head_compatible) agree with heads_shard.
template <ModelInt Int>
Violation ownership_errors_exactly_where_due(const Int& r, const Int& T, const Int& H);

// §9.4: single_readers fails as §7 states, in that order, with the exact texts.
template <ModelInt Int>
Violation count_errors_exactly_where_due(const Int& p, const Int& P, const Int& D);

// §9.4: port_offset fails as §8 states, in that order, with the exact texts.
template <ModelInt Int>
Violation port_errors_exactly_where_due(const Int& dp, const Int& t, const Int& T);

// §9.5 per rank: general_rank equals remote_rank wherever remote_rank succeeds.
template <ModelInt Int>
Violation general_agrees_with_strict(const Int& r, const Int& L, const Int& R);

// §9.5: the int64 and cpp_int models give the same outcome for one operation
// (by name, as `tpcheck eval` knows it) on int64 arguments.
Violation int64_agrees_with_cpp_int(std::string_view op, const std::vector<std::int64_t>& args);

// §9.5 per decode rank: on divisible pairs the plan's sources are NIXL's (the
// first rank of each distinct head range in window(d, D, P)); for D >= P the
// one source d // (D/P) at offset first(d) - first(p).
template <ModelInt Int>
Violation plan_sources_match_nixl(const Int& d, const Int& P, const Int& D, const Int& H, bool mla);

// §9.6 per decode rank: MoRIIO's single whole-page copy equals the general
// plan exactly when kv_heads_guard(D, P, H, mla) accepts and remote_rank(d, D,
// P) succeeds; then the source holds exactly d's heads.
template <ModelInt Int>
Violation single_source_holds_own_heads(const Int& d, const Int& P, const Int& D, const Int& H, bool mla);

// §9.6 with §11 per configuration: the general connector accepts exactly the
// loadable sizings; moriio accepts only what mooncake accepts; nixl accepts
// what mooncake accepts except where its replica rule refuses (§11); and
// where moriio accepts, its single whole-page copy is the general plan for
// every decode rank and single_readers equals readers for every prefill rank
// (no wrong head read, no early free, no stall). O(P + D).
template <ModelInt Int>
Violation accepted_sizing_is_served_correctly(const Int& P, const Int& D, const Int& H, bool mla);

// §4 per head: holders(h, T, H) is the exact set of ranks whose heads contain h,
// max(1, T/H) of them.
template <ModelInt Int>
Violation holders_hold_the_head(const Int& h, const Int& T, const Int& H);

// §9.7 per decode rank: the copies partition heads(d, D) in order, each lies
// inside its source's page and d's page, and its source holds its heads.
template <ModelInt Int>
Violation plan_partitions_own_heads(const Int& d, const Int& P, const Int& D, const Int& H, bool mla);

// §6 per decode rank: the plan equals the SPEC's head-by-head rule (each head
// from its holder nearest to floor(d * P / D), equal neighbours merged).
// O(heads of d).
template <ModelInt Int>
Violation plan_matches_head_by_head_rule(const Int& d, const Int& P, const Int& D, const Int& H, bool mla);

// §9.8 per configuration: readers(p) equals the number of decode plans that
// copy from p, for every p. O(D · copies).
template <ModelInt Int>
Violation readers_count_plan_copies(const Int& P, const Int& D, const Int& H, bool mla);

// §9.8 per configuration: single_readers(p, P, D) equals the number of d with
// remote_rank(d, D, P) == p, for every p (divisible pairs). O(D + P).
template <ModelInt Int>
Violation single_readers_count_map_preimages(const Int& P, const Int& D);

// §9.9 per configuration: the offsets of all DP x T workers differ. O(DP · T).
template <ModelInt Int>
Violation port_offsets_distinct(const Int& dp_size, const Int& T);

// §9.9 per decode rank: the offset a decode rank dials is its mapped prefill
// rank's, inside its own DP group, and the host it dials holds that rank.
template <ModelInt Int>
Violation dialed_peer_is_the_mapped_rank(const Int& dp, const Int& d, const Int& P, const Int& D, const Int& hosts);

// §9.9: port_range accepts exactly when every worker's base + offset <= 65535.
template <ModelInt Int>
Violation port_range_rejects_exactly_overflow(const Int& base, const Int& dp_size, const Int& T);

}  // namespace tpcheck::inv
