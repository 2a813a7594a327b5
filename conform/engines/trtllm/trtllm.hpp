// What the trtllm profile's files share: its bindings, kinds and deployments
// (profile_trtllm.cpp, profile_trtllm_python.cpp), the relations they state
// of its C++ half (SPEC §15.2, trtllm_transceiver.cpp) and of its Python half
// (§15.1, relations_peers.cpp), its C++ child (trtllm_cxx_child.cpp), and the
// engine's entry in conform's table of profiles (trtllm.cpp).
#pragma once

#include "cxx_build.hpp"
#include "tpcheck/conform/profile.hpp"
#include "tpcheck/conform/state_memory.hpp"

namespace tpcheck::conform {

std::vector<Profile> trtllm_profiles();  // trtllm

// Both halves: the C++ transceiver, then the Python one (with its mappers of
// hybrid models' recurrent state, on the state grid of `options`' families).
std::vector<Binding> trtllm_bindings(const ProfileOptions& options);
std::vector<Binding> trtllm_python_bindings(const ProfileOptions& options);
const std::vector<KindInfo>& trtllm_kinds();
// The deployments trtllm's cases are made of (profile_trtllm.cpp): P, D, H,
// MLA (with `mla`), ctx_layers, gen_layers, ctx_adp, gen_adp, c, g.
std::vector<CaseArgs> trtllm_deployments(const GridBounds& bounds, bool mla);

// The C++ child: the functions under test between the stub and the driver
// of cxx/.
extern const CxxChild kTrtllmCxxChild;

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

// The mappers of hybrid models' recurrent state (SPEC §16.6,
// relations_state_mappers.cpp), on (P, D, model) of the state grid.
extern const Relation kConvSections;  // ConvStateMismatchMapper._compute_section_plans for every (p, d) of a window
extern const Relation kSsmHeads;      // MambaHeadMismatchMapper's head offsets for every (p, d) of a window
// SPEC §16.7's kinds with redundant a failure (each byte written exactly
// once, §15.1), and the sizings the cache manager refuses or the model does
// not cover, as notes.
const std::vector<KindInfo>& trtllm_state_kinds();
// TensorRT-LLM's state: a conv and a temporal tensor per layer, the conv (C, K-1).
state::SideSpec trtllm_state_side(StateFamily family);

}  // namespace tpcheck::conform
