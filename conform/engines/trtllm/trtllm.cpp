// TensorRT-LLM's profile in conform's table of profiles (profile.hpp's
// profiles()): its C++ transceiver, then its Python one.
#include "trtllm.hpp"

namespace tpcheck::conform {

std::vector<Profile> trtllm_profiles() {
  return {
      {.name = "trtllm",
       .usage = {"TensorRT-LLM's C++ transceiver: targetIRanks and CacheFormatter's rank",
                 "selection (cacheSplitConcat.cpp or .cu, cacheFormatter.cpp), cut out with",
                 "libclang, compiled with the system's C++ compiler and run"},
       .bindings = trtllm_bindings,
       .kinds = trtllm_kinds,
       .cxx = &kTrtllmCxxChild},
  };
}

}  // namespace tpcheck::conform
