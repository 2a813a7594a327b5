// The goals of each invariant, by the registry's name, and the check that
// the registry's proof statuses agree with them.
#include <stdexcept>
#include <string>

#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {

const std::vector<InvariantGoals>& invariant_goals() {
  static const std::vector<InvariantGoals> table = [] {
    std::vector<InvariantGoals> t = {
        {"MappedRankStaysInBounds", mapped_rank_stays_in_bounds},
        {"RankMapsAreMonotone", rank_maps_are_monotone},
        {"EveryRemoteRankHasBalancedFanIn", every_remote_rank_has_balanced_fan_in},
        {"RoundTripReturnsHome", round_trip_returns_home},
        {"WindowsAreDual", windows_are_dual},
        {"RatioIsTheQuotientOfDivisibleSizes", ratio_is_the_quotient_of_divisible_sizes},
        {"GeneralMapAgreesWithStrictMap", general_map_agrees_with_strict_map},
        {"HeadsShardExactlyWhereOneDividesTheOther", heads_shard_exactly_where_one_divides_the_other},
        {"HoldersHoldExactlyTheirHead", holders_hold_exactly_their_head},
        {"SingleSourceHoldsExactlyTheDecodeRanksHeads", single_source_holds_exactly_the_decode_ranks_heads},
        {"PlanPartitionsTheDecodeRanksHeads", plan_partitions_the_decode_ranks_heads},
        {"PlanFollowsTheHeadByHeadRule", plan_follows_the_head_by_head_rule},
        {"PlanSourcesMatchNixlOnDivisiblePairs", plan_sources_match_nixl_on_divisible_pairs},
        {"SingleReadersEqualTheMapsPreimages", single_readers_equal_the_maps_preimages},
        {"PortOffsetsNeverCollide", port_offsets_never_collide},
        {"DecodeRankDialsItsMappedPeer", decode_rank_dials_its_mapped_peer},
        {"PortRangeRejectsExactlyTheOverflowingDeployments", port_range_rejects_exactly_the_overflowing_deployments},
        {"AcceptedSizingIsServedCorrectly", accepted_sizing_is_served_correctly},
        {"WholeBlockCopyOnlyBetweenEqualHeadsPerRank", whole_block_copy_only_between_equal_heads_per_rank},
        {"StateShardsPartitionEachSegment", state_shards_partition_each_segment},
        {"ReplicatedSegmentsAreHeldWhole", replicated_segments_are_held_whole},
        {"LocalSegmentsTileTheConvState", local_segments_tile_the_conv_state},
        {"HeadsFindTheirGroupOnTheirRank", heads_find_their_group_on_their_rank},
        {"StatePlanCoversEachDecodeRanksStateExactlyOnce", state_plan_covers_each_decode_ranks_state_exactly_once},
        {"StatePlanReadsOnlyWhatTheSourceHolds", state_plan_reads_only_what_the_source_holds},
        {"ReplicatedSegmentsComeFromOneHolder", replicated_segments_come_from_one_holder},
        {"StatePlanIsTheIdentityAtEqualSizes", state_plan_is_the_identity_at_equal_sizes},
        {"StateServedIsTheWindow", state_served_is_the_window},
        {"StateRunsStayInsideTheSlot", state_runs_stay_inside_the_slot},
        {"SdAndDsLayoutsMoveTheSameElements", sd_and_ds_layouts_move_the_same_elements},
    };
    // Every error oracle, from its own preconditions, where the encoding has
    // its operation and its texts.
    for (const oracle::Oracle* o : oracle::oracles()) {
      try {
        z3::context c;
        oracle_goals(Encoding(c), *o);
        t.push_back({o->entry, [o](const Encoding& e) { return oracle_goals(e, *o); }});
      } catch (const std::invalid_argument& e) {
        t.push_back({o->entry, nullptr, e.what()});
      }
    }
    return t;
  }();
  return table;
}

const InvariantGoals* goals_of(std::string_view invariant) {
  for (const InvariantGoals& g : invariant_goals()) {
    if (g.invariant == invariant && g.goals) return &g;
  }
  return nullptr;
}

std::vector<std::string> proof_status_disagreements(const std::vector<inv::Entry>& registry,
                                                    const std::vector<InvariantGoals>& goals) {
  using Status = inv::Proof::Status;
  std::vector<std::string> out;
  const auto goals_named = [&](std::string_view name) {
    std::size_t n = 0;
    for (const InvariantGoals& g : goals) n += g.invariant == name && g.goals != nullptr;
    return n;
  };
  for (const inv::Entry& e : registry) {
    const std::string name = e.name;
    const std::size_t n = goals_named(name);
    const bool has_text = e.proof.text != nullptr && *e.proof.text != '\0';
    if (e.proof.status == Status::Undeclared) {
      out.push_back(name + ": the registry declares no proof status (Proof::by_z3, stated or not_provable)");
      continue;
    }
    if (!has_text) out.push_back(name + ": its proof status has no text (for which inputs, or why not)");
    if (e.proof.has_goals() && n == 0) {
      std::string why;
      for (const InvariantGoals& g : goals) {
        if (g.invariant == name && !g.cannot_state.empty()) why = " (" + g.cannot_state + ")";
      }
      out.push_back(name + ": the registry says it is proved or stated, prove/ has no goals for it" + why);
    }
    if (e.proof.status == Status::NotProvable && n > 0) out.push_back(name + ": the registry says it is not provable, prove/ has goals for it");
    if (n > 1) out.push_back(name + ": prove/ has " + std::to_string(n) + " sets of goals for it");
  }
  for (const InvariantGoals& g : goals) {
    bool known = false;
    for (const inv::Entry& e : registry) known = known || g.invariant == e.name;
    if (!known) out.push_back(std::string(g.invariant) + ": prove/ has goals for it, the registry has no such invariant");
  }
  return out;
}

}  // namespace tpcheck::prove
