// What the vLLM profiles' files share: their bindings (profile_vllm.cpp),
// the relations of SPEC §12 and §13 they state (relations_vllm.cpp), and the
// engine's entry in conform's table of profiles (vllm.cpp).
#pragma once

#include "tpcheck/conform/profile.hpp"

namespace tpcheck::conform {

std::vector<Profile> vllm_profiles();  // vllm-moriio, vllm-nixl, vllm-mooncake

std::vector<Binding> vllm_moriio_bindings();
std::vector<Binding> vllm_nixl_bindings(const ProfileOptions& options);
// Its functions for hybrid models' recurrent state (profile_vllm_state.cpp, nixl_state.hpp).
std::vector<Binding> vllm_nixl_state_bindings(const ProfileOptions& options);
std::vector<Binding> vllm_mooncake_bindings(const ProfileOptions& options);

// (P, D): the completions each prefill rank waits for, |window(p, P, D)|
// for every p; a pair that is not divisible fails as tp_ratio(D, P) (SPEC §12).
extern const Relation kWindowCompletionCount;
// (P, D, H, MLA, d): NIXL's TPMapping against plan(d) (SPEC §12).
extern const Relation kNixlMapping;
// (P, D, H, MLA, p, d): Mooncake's copy from p to d against plan(d), in bytes (SPEC §13).
extern const Relation kSenderPlan;
// (P, D, H, MLA): None on a sizing the connector accepts (SPEC §13).
extern const Relation kAcceptsSizing;

}  // namespace tpcheck::conform
