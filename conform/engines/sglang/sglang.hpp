// What the sglang profile's files share: its bindings and kinds
// (profile_sglang.cpp), the relations of SPEC §14 (relations_sglang.cpp) and
// §14B (relations_transfers.cpp) it states, each judging a whole
// configuration and reporting findings, and the engine's entry in conform's
// table of profiles (sglang.cpp).
#pragma once

#include "tpcheck/conform/profile.hpp"

namespace tpcheck::conform {

std::vector<Profile> sglang_profiles();  // sglang

std::vector<Binding> sglang_bindings();
const std::vector<KindInfo>& sglang_kinds();

extern const Relation kRankMapping;          // (P, D, MLA): _resolve_rank_mapping for every d (§14.1)
extern const Relation kHeadSliceDocumented;  // (P, D, H): compute_head_slice_params(P, D, p, d, H) for every pair (§14.2)
extern const Relation kHeadSliceAsRun;       // (P, D, H): the prefill call's start with the decode call's count and offset (§14.2)
extern const Relation kStagingLayout;        // (P, D, H): compute_staging_layout for every d (§14.3)
extern const Relation kSliceConfig;          // (P, D, H, page_size): MORI's TPSliceConfig for every pair (§14.4)
// §14B, on the byte judge (byte_judge.hpp): the bytes a configuration's transfers move.
extern const Relation kMooncakeTransfers;  // (P, D, H, page_size, probe): send_kvcache_slice's batches
extern const Relation kNixlTransfers;      // (P, D, H, page_size, probe): the prepared lists and the transfers selected from them
extern const Relation kIndexFunction;      // (pairs, slots, page_size, groups): a descriptor index function, exactly (§14B.8)

}  // namespace tpcheck::conform
