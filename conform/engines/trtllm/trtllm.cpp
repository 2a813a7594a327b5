// TensorRT-LLM's profile in conform's table of profiles (profile.hpp's
// profiles()): its C++ transceiver, then its Python one.
#include "tpcheck/conform/written.hpp"
#include "trtllm.hpp"

namespace tpcheck::conform {
namespace {

// How TensorRT-LLM writes the tests of its Python transceiver (--write-tests): pytest.
const TestConventions kTrtllmTests{
    .modules = {{"PeerRegistrar", "tensorrt_llm._torch.disaggregation.native.peer"},
                {"HeadMismatchMapper", "tensorrt_llm._torch.disaggregation.native.region.block"}},
};

}  // namespace

std::vector<Profile> trtllm_profiles() {
  return {
      {.name = "trtllm",
       .usage = {"TensorRT-LLM's C++ transceiver: targetIRanks and CacheFormatter's rank",
                 "selection (cacheSplitConcat.cpp or .cu, cacheFormatter.cpp), cut out with",
                 "libclang, compiled with the system's C++ compiler and run"},
       .bindings = trtllm_bindings,
       .kinds = trtllm_kinds,
       .cxx = &kTrtllmCxxChild,
       .tests = &kTrtllmTests},
  };
}

}  // namespace tpcheck::conform
