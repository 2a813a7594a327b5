// The goals of each invariant the registry calls proved or stated
// (properties/: `.proof(Proof::by_z3(...))`, `Proof::stated(...)`), keyed by
// the registry's name. Whether an invariant is proved, for which inputs, or
// why not, is declared there only; this table holds nothing but goals.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tpcheck/oracle.hpp"
#include "tpcheck/prove/goal.hpp"
#include "tpcheck/registry.hpp"

namespace tpcheck::prove {

struct InvariantGoals {
  std::string_view invariant;  // the registry's sentence name
  std::function<std::vector<Goal>(const Encoding&)> goals;
  // No goals (goals empty) for an invariant prove/ cannot state: why (an
  // error oracle of an operation, or with a text, the encoding lacks).
  std::string cannot_state = {};
};

const std::vector<InvariantGoals>& invariant_goals();
const InvariantGoals* goals_of(std::string_view invariant);  // nullptr: none

// Where the registry's proof statuses and the goals disagree, one line each:
// an entry that declares no status, one proved or stated without goals (and
// why, where prove/ cannot state them), goals for an entry called not
// provable, goals for a name the registry lacks.
// Empty when they agree (prove/tests/proof_status_test.cpp).
std::vector<std::string> proof_status_disagreements(const std::vector<inv::Entry>& registry,
                                                    const std::vector<InvariantGoals>& goals);

// The goals of each proved invariant (prove/src/proofs_*.cpp).
std::vector<Goal> mapped_rank_stays_in_bounds(const Encoding& e);
std::vector<Goal> rank_maps_are_monotone(const Encoding& e);
std::vector<Goal> every_remote_rank_has_balanced_fan_in(const Encoding& e);
std::vector<Goal> round_trip_returns_home(const Encoding& e);
std::vector<Goal> windows_are_dual(const Encoding& e);
std::vector<Goal> ratio_is_the_quotient_of_divisible_sizes(const Encoding& e);
std::vector<Goal> general_map_agrees_with_strict_map(const Encoding& e);
std::vector<Goal> heads_shard_exactly_where_one_divides_the_other(const Encoding& e);
std::vector<Goal> holders_hold_exactly_their_head(const Encoding& e);
std::vector<Goal> single_source_holds_exactly_the_decode_ranks_heads(const Encoding& e);
std::vector<Goal> plan_partitions_the_decode_ranks_heads(const Encoding& e);
std::vector<Goal> plan_follows_the_head_by_head_rule(const Encoding& e);
std::vector<Goal> plan_sources_match_nixl_on_divisible_pairs(const Encoding& e);
std::vector<Goal> single_readers_equal_the_maps_preimages(const Encoding& e);
std::vector<Goal> port_offsets_never_collide(const Encoding& e);
std::vector<Goal> decode_rank_dials_its_mapped_peer(const Encoding& e);
std::vector<Goal> port_range_rejects_exactly_the_overflowing_deployments(const Encoding& e);
std::vector<Goal> accepted_sizing_is_served_correctly(const Encoding& e);
std::vector<Goal> whole_block_copy_only_between_equal_heads_per_rank(const Encoding& e);
// SPEC §16.4 (prove/src/proofs_state_*.cpp).
std::vector<Goal> state_shards_partition_each_segment(const Encoding& e);
std::vector<Goal> replicated_segments_are_held_whole(const Encoding& e);
std::vector<Goal> local_segments_tile_the_conv_state(const Encoding& e);
std::vector<Goal> heads_find_their_group_on_their_rank(const Encoding& e);
std::vector<Goal> state_plan_covers_each_decode_ranks_state_exactly_once(const Encoding& e);
std::vector<Goal> state_plan_reads_only_what_the_source_holds(const Encoding& e);
std::vector<Goal> replicated_segments_come_from_one_holder(const Encoding& e);
std::vector<Goal> state_plan_is_the_identity_at_equal_sizes(const Encoding& e);
std::vector<Goal> state_served_is_the_window(const Encoding& e);
std::vector<Goal> state_runs_stay_inside_the_slot(const Encoding& e);
std::vector<Goal> sd_and_ds_layouts_move_the_same_elements(const Encoding& e);

// The goals of an error oracle's entry (prove/src/proofs_oracles.cpp): one
// per precondition, that the operation raises its message where it is the
// first to fail, and one that it succeeds where none fails.
std::vector<Goal> oracle_goals(const Encoding& e, const oracle::Oracle& o);

}  // namespace tpcheck::prove
