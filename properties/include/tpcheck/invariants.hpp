// The checks of SPEC §9's invariants, each a predicate returning a three-way
// verdict: holds, vacuous (the input is outside what the invariant speaks
// about, with the reason) or violated (with what was seen). Each one is
// declared in the registry (tpcheck/registry.hpp) next to its body, with the
// domain the engines draw its inputs from; engines reach them through the
// registry, the unit tests also directly.
//
// The predicates state the SPEC independently of lib/: expected error texts
// are spelled here again on purpose, so a wrong text in the model is caught.
//
// Cost: "per rank" predicates make O(1) or O(log size) model calls and accept
// sizes of any magnitude (a list they would have to walk past kMaxWalked
// elements makes the case vacuous); "per configuration" ones loop over every
// rank of one side and are meant for sizes the caller can afford to enumerate.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "tpcheck/model.hpp"
#include "tpcheck/pyint.hpp"
#include "tpcheck/sharding.hpp"
#include "tpcheck/verdict.hpp"

namespace tpcheck::inv {

// The longest window, plan or head range a per-rank predicate walks.
inline constexpr std::int64_t kMaxWalked = 4096;

// How much of a long list (a window, a plan, the heads of a rank, every rank
// of a deployment) one case walks. The default, which the sweep, RapidCheck
// and the unit tests keep, is every element (up to kMaxWalked). The fuzz
// drivers set a budget: a list longer than it is walked at its first and last
// element and a run of consecutive elements from the one the input chose, so
// an input costs a few model calls at any size while the input, not a fixed
// rule, picks which element of a long list is checked (every element stays
// reachable; none is skipped by the declaration). A check must visit its
// lists through walk_range() below, never through its own loop.
struct Walk {
  std::int64_t budget = 0;   // elements per list; 0: all (3 is the least that walks a chosen one)
  std::uint64_t chosen = 0;  // the chosen element: its index modulo the list's length
};
// The calling thread's walk.
const Walk& current_walk();
// Sets the calling thread's walk for one scope (the fuzz drivers, per input).
class ScopedWalk {
 public:
  explicit ScopedWalk(Walk walk);
  ~ScopedWalk();
  ScopedWalk(const ScopedWalk&) = delete;
  ScopedWalk& operator=(const ScopedWalk&) = delete;

 private:
  Walk saved_;
};

// Whether the calling thread walks every element of a list (no budget): the
// sweep, RapidCheck and the unit tests. A check may then use a whole-list
// method (a tally over every rank) where a budgeted walk counts around the
// ranks it visits.
inline bool walks_every_element() { return current_walk().budget < 3; }

// The runs of [first, end) the calling thread's walk covers (current_walk(),
// above), in order and disjoint, at most three: the whole list without a
// budget or when it fits the budget; otherwise its first element, a run of
// budget - 2 consecutive elements from the chosen one (moved back when it
// would pass the last), and its last. walk_range visits them one by one; a
// caller that lists a long list's elements from the model (a plan's copies,
// plan_range_into) lists these runs alone.
//
// `unbudgeted_cap` > 0: a list longer than it is walked, without a budget, at
// its first, middle and last element only (a list whose length has no useful
// bound, such as a window of sizes near 2^63).
template <ModelInt Int>
struct WalkedRuns {
  std::array<Span<Int>, 3> runs;
  std::size_t count = 0;
};
template <ModelInt Int>
WalkedRuns<Int> walked_runs(const Int& first, const Int& end, std::int64_t unbudgeted_cap = 0) {
  const Walk& walk = current_walk();
  const Int length = end - first;
  const bool capped = walks_every_element() && unbudgeted_cap > 0 && length > unbudgeted_cap;
  if (!capped && (walks_every_element() || length <= walk.budget)) return {{Span<Int>{first, end}}, 1};
  const Int run = capped ? Int(1) : Int(walk.budget - 2);
  // The chosen index, as a non-negative value of Int (the top bit dropped for int64).
  const Int chosen = capped ? floor_div<Int>(length, Int(2))
                            : floor_mod<Int>(Int(static_cast<std::int64_t>(walk.chosen >> 1)), length);
  const Int run_first = std::max(Int(first + 1), std::min(Int(first + chosen), Int(end - 1 - run)));
  return {{Span<Int>{first, Int(first + 1)}, Span<Int>{run_first, Int(run_first + run)}, Span<Int>{Int(end - 1), end}},
          3};
}

// The budget of a list walked inside an element of another walked list: its
// first, its last and the chosen element. A case's cost then grows with the
// budget once, not with the budget to the power of the lists' nesting (a
// stage's ranks, and the ranks each of them lists), while every element of an
// inner list stays reachable through the chosen index.
inline constexpr std::int64_t kNestedWalkBudget = 3;

// Visits the elements of walked_runs(first, end, unbudgeted_cap), each once
// and in order, under a budgeted walk with kNestedWalkBudget for the lists
// `visit` walks. Returns the first verdict of `visit` that does not hold, or
// holds.
template <ModelInt Int, class Visit>
Verdict walk_range(const Int& first, const Int& end, Visit&& visit, std::int64_t unbudgeted_cap = 0) {
  const WalkedRuns<Int> walked = walked_runs(first, end, unbudgeted_cap);
  std::optional<ScopedWalk> nested;
  if (const Walk& outer = current_walk(); outer.budget > kNestedWalkBudget) nested.emplace(Walk{kNestedWalkBudget, outer.chosen});
  for (std::size_t i = 0; i < walked.count; ++i) {
    for (Int x = walked.runs[i].first; x < walked.runs[i].end; ++x) {
      if (Verdict v = visit(static_cast<const Int&>(x)); !v.held()) return v;
    }
  }
  return holds();
}

// The largest size the random engines (RapidCheck, the fuzzers) draw for a
// "per configuration" predicate, which visits every rank of both sides (and
// builds a plan per decode rank): it keeps one case well under a millisecond,
// so a fuzzer runs thousands a second, while sizes above 64 (the last ranks
// of large deployments) stay reachable. The sweep enumerates its own bound.
inline constexpr std::int64_t kWalkedSizeCap = 128;

// §9.1 per rank: remote_rank, general_rank and every window rank lie in
// [0, R); a window has max(1, R/L) ranks.
template <ModelInt Int>
Verdict mapped_rank_in_bounds(const Int& r, const Int& L, const Int& R);

// §9.2 per rank: both maps are monotone from r to r + 1 (the fan-in search
// below relies on it).
template <ModelInt Int>
Verdict maps_monotone_at(const Int& r, const Int& L, const Int& R);

// §9.2 per remote rank q: its preimage under the general map has floor(L/R)
// or ceil(L/R) ranks, at least one when L >= R and at most one when L <= R;
// under the strict map (divisible pairs) exactly L/R when L >= R. Found by
// binary search, so any size works.
template <ModelInt Int>
Verdict fan_in_balanced(const Int& q, const Int& L, const Int& R);

// §9.3 per rank: remote_rank(remote_rank(r, L, R), R, L) is r when L <= R,
// r - r % (L/R) when L > R.
template <ModelInt Int>
Verdict round_trip_returns_home(const Int& r, const Int& L, const Int& R);

// §9.3 per rank: every q in window(r, L, R) has r in window(q, R, L) (checked
// on all of a short window, on its ends and middle otherwise).
template <ModelInt Int>
Verdict windows_are_dual(const Int& r, const Int& L, const Int& R);

// §3 on divisible pairs: tp_ratio(L, R) is L // R when L >= R, -(R // L)
// otherwise. (Where it fails, and every other operation's errors, are the
// error oracle's: tpcheck/oracle.hpp.)
template <ModelInt Int>
Verdict ratio_is_the_quotient(const Int& L, const Int& R);

// §9.5 per rank: general_rank equals remote_rank wherever remote_rank succeeds.
template <ModelInt Int>
Verdict general_agrees_with_strict(const Int& r, const Int& L, const Int& R);

// §4: head_compatible(T, H) holds exactly when H heads shard over T ranks
// (both positive, one dividing the other), for any integers.
template <ModelInt Int>
Verdict head_compatible_as_specified(const Int& T, const Int& H);

// §4 per head: holders(h, T, H) is the exact set of ranks whose heads contain h,
// max(1, T/H) of them.
template <ModelInt Int>
Verdict holders_hold_the_head(const Int& h, const Int& T, const Int& H);

// §9.6 per decode rank: MoRIIO's single whole-page copy equals the general
// plan exactly when kv_heads_guard(D, P, H, mla) accepts and remote_rank(d, D,
// P) succeeds; then the source holds exactly d's heads.
template <ModelInt Int>
Verdict single_source_holds_own_heads(const Int& d, const Int& P, const Int& D, const Int& H, bool mla);

// §9.7 per decode rank: the copies partition heads(d, D) in order, each lies
// inside its source's page and d's page, and its source holds its heads.
template <ModelInt Int>
Verdict plan_partitions_own_heads(const Int& d, const Int& P, const Int& D, const Int& H, bool mla);

// §6 per decode rank: the plan equals the SPEC's head-by-head rule (each head
// from its holder nearest to floor(d * P / D), equal neighbours merged).
// O(heads of d).
template <ModelInt Int>
Verdict plan_matches_head_by_head_rule(const Int& d, const Int& P, const Int& D, const Int& H, bool mla);

// §9.5 per decode rank: on divisible pairs the plan's sources are NIXL's (the
// first rank of each distinct head range in window(d, D, P)); for D >= P the
// one source d // (D/P) at offset first(d) - first(p).
template <ModelInt Int>
Verdict plan_sources_match_nixl(const Int& d, const Int& P, const Int& D, const Int& H, bool mla);

// §9.8 per configuration: readers(p) equals the number of decode plans that
// copy from p, for every p. O(D · copies).
template <ModelInt Int>
Verdict readers_count_plan_copies(const Int& P, const Int& D, const Int& H, bool mla);

// §9.8 per configuration: single_readers(p, P, D) equals the number of d with
// remote_rank(d, D, P) == p, for every p (divisible pairs). O(D + P).
template <ModelInt Int>
Verdict single_readers_count_map_preimages(const Int& P, const Int& D);

// §9.9 per configuration: the offsets of all DP x T workers differ. O(DP · T).
template <ModelInt Int>
Verdict port_offsets_distinct(const Int& dp_size, const Int& T);

// §9.9 per decode rank: the offset a decode rank dials is its mapped prefill
// rank's, inside its own DP group, and the host it dials holds that rank.
template <ModelInt Int>
Verdict dialed_peer_is_the_mapped_rank(const Int& dp, const Int& d, const Int& P, const Int& D, const Int& hosts);

// §9.9: port_range accepts exactly when every worker's base + offset <= 65535.
template <ModelInt Int>
Verdict port_range_rejects_exactly_overflow(const Int& base, const Int& dp_size, const Int& T);

// §9.6 with §11 per configuration: the general connector accepts exactly the
// loadable sizings; moriio accepts only what mooncake accepts; nixl accepts
// what mooncake accepts except where its replica rule refuses (§11); and
// where moriio accepts, its single whole-page copy is the general plan for
// every decode rank and single_readers equals readers for every prefill rank
// (no wrong head read, no early free, no stall). O(P + D).
template <ModelInt Int>
Verdict accepted_sizing_is_served_correctly(const Int& P, const Int& D, const Int& H, bool mla);

}  // namespace tpcheck::inv
