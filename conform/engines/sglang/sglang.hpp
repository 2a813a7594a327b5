// What the sglang profile's files share: its bindings and kinds
// (profile_sglang.cpp, profile_state.cpp), the relations of SPEC §14
// (relations_sglang.cpp), §14B (relations_transfers.cpp) and §16.6-16.7
// (relations_state.cpp) it states, each judging a whole configuration and
// reporting findings, and the engine's entry in conform's table of profiles
// (sglang.cpp).
#pragma once

#include "tpcheck/conform/profile.hpp"

namespace tpcheck::conform {

std::vector<Profile> sglang_profiles();  // sglang

std::vector<Binding> sglang_bindings(const ProfileOptions& options);
const std::vector<KindInfo>& sglang_kinds();
// SPEC §16.6, §16.7: the state slices of SGLang's hybrid models (profile_state.cpp).
std::vector<Binding> sglang_state_bindings(const ProfileOptions& options);
const std::vector<KindInfo>& sglang_state_kinds();

namespace sglang {
// SGLang's pairing, as the child loops over it: every decode rank d and each
// prefill rank it registers with that exists (window(d, D, P) on divisible
// pairs, the floor arithmetic of §14.1 otherwise), as pairs (p, d).
extern const std::string kPairs;
// A driver of kind transfers (conform/engines/sglang/child/26_transfers.py):
// SGLang's pairing from the common resolver, one manager per prefill rank,
// `steps` for each of its decode ranks, the case's memory `memory_json`
// ({"kind": ..., ...}: the child's MEMORIES); `extra` adds members
// (", \"watch\": [...]").
std::string transfer_driver(const std::string& memory_json,
                            const std::vector<std::pair<std::string, std::vector<CallArg>>>& steps,
                            const std::string& extra = "");
}  // namespace sglang

extern const Relation kRankMapping;          // (P, D, MLA): _resolve_rank_mapping for every d (§14.1)
extern const Relation kHeadSliceDocumented;  // (P, D, H): compute_head_slice_params(P, D, p, d, H) for every pair (§14.2)
extern const Relation kHeadSliceAsRun;       // (P, D, H): the prefill call's start with the decode call's count and offset (§14.2)
extern const Relation kStagingLayout;        // (P, D, H): compute_staging_layout for every d (§14.3)
extern const Relation kSliceConfig;          // (P, D, H, page_size): MORI's TPSliceConfig for every pair (§14.4)
// §14B, on the byte judge (byte_judge.hpp): the bytes a configuration's transfers move.
extern const Relation kMooncakeTransfers;  // (P, D, H, page_size, probe): send_kvcache_slice's batches
extern const Relation kNixlTransfers;      // (P, D, H, page_size, probe): the prepared lists and the transfers selected from them
extern const Relation kIndexFunction;      // (pairs, slots, page_size, groups): a descriptor index function, exactly (§14B.8)
// §16.6, §16.7, on the state judge (state_judge.hpp), over (P, D, model).
extern const Relation kStateSliceBlocks;      // blocks of slice-axis units, per pair and entry
extern const Relation kStateSliceByteBlocks;  // blocks of a slot's bytes, per pair and entry
extern const Relation kMooncakeState;         // _send_mamba_state_slice's batches
extern const Relation kNixlState;             // _send_mamba_state_slice's descriptors and transfers

}  // namespace tpcheck::conform
