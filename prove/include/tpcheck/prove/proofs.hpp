// Which invariant of SPEC §9 is proved, by which goals, and over which
// domain; or why it is not proved. One table (prove/src/proof_table.cpp),
// keyed by the invariant registry's names.
#pragma once

#include <string_view>
#include <vector>

#include "tpcheck/prove/goal.hpp"

namespace tpcheck::prove {

struct InvariantProof {
  std::string_view invariant;  // the registry's sentence name
  // Proved: the goals, and for which inputs they hold (a sentence).
  std::vector<Goal> (*goals)(const Encoding&);
  std::string_view domain;
  // Not proved: why not. With goals, the proof is stated but Z3 does not
  // settle it within the budget yet; `tpcheck prove --pending` still runs it.
  std::string_view not_proved_because;
};

const std::vector<InvariantProof>& invariant_proofs();

// The goals of each proved invariant (prove/src/proofs_*.cpp).
std::vector<Goal> mapped_rank_stays_in_bounds(const Encoding& e);
std::vector<Goal> rank_maps_are_monotone(const Encoding& e);
std::vector<Goal> every_remote_rank_has_balanced_fan_in(const Encoding& e);
std::vector<Goal> round_trip_returns_home(const Encoding& e);
std::vector<Goal> windows_are_dual(const Encoding& e);
std::vector<Goal> errors_fire_exactly_on_non_divisible_pairs(const Encoding& e);
std::vector<Goal> ratio_fails_exactly_on_non_divisible_pairs(const Encoding& e);
std::vector<Goal> general_map_agrees_with_strict_map(const Encoding& e);
std::vector<Goal> head_guards_decide_as_specified(const Encoding& e);
std::vector<Goal> head_ownership_fails_exactly_on_invalid_input(const Encoding& e);
std::vector<Goal> holders_hold_exactly_their_head(const Encoding& e);
std::vector<Goal> single_source_holds_exactly_the_decode_ranks_heads(const Encoding& e);
std::vector<Goal> plan_partitions_the_decode_ranks_heads(const Encoding& e);
std::vector<Goal> plan_follows_the_head_by_head_rule(const Encoding& e);
std::vector<Goal> plan_sources_match_nixl_on_divisible_pairs(const Encoding& e);
std::vector<Goal> count_errors_fire_exactly_where_due(const Encoding& e);
std::vector<Goal> single_readers_equal_the_maps_preimages(const Encoding& e);
std::vector<Goal> port_errors_fire_exactly_where_due(const Encoding& e);
std::vector<Goal> port_offsets_never_collide(const Encoding& e);
std::vector<Goal> decode_rank_dials_its_mapped_peer(const Encoding& e);
std::vector<Goal> port_range_rejects_exactly_the_overflowing_deployments(const Encoding& e);
std::vector<Goal> accepted_sizing_is_served_correctly(const Encoding& e);

}  // namespace tpcheck::prove
