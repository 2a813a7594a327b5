// What the trtllm profile's files share: the relations of its C++ half
// (SPEC §15.2, trtllm_transceiver.cpp) and of its Python half (§15.1,
// relations_peers.cpp) that the profile (profile_trtllm.cpp,
// profile_trtllm_python.cpp) states.
#pragma once

#include "tpcheck/conform/profile.hpp"

namespace tpcheck::conform {

// (P, D, H, and a rank): what the C++ transceiver does for the deployment,
// judged by SPEC §15.2's relations (cxx/trtllm_judge.hpp).
extern const Relation kTrtllmTransceiver;
// The Python transceiver, each on a whole configuration whose calls a driver
// of the child makes (child/27_peers.py), reporting findings.
extern const Relation kPeerFindOverlap;  // (L, R): _find_overlap(L, R, r) for every r
extern const Relation kPeerHeadOffsets;  // (P, D, H): _compute_head_offsets for every pair that shares heads
extern const Relation kPeerCompatible;   // (deployment): register, and so _check_peer_compatible, on both sides
extern const Relation kPeerOverlap;      // (deployment): get_peer_overlap on both sides
extern const Relation kPeerKvMap;        // (deployment): the bytes get_kv_map's mappers copy

}  // namespace tpcheck::conform
