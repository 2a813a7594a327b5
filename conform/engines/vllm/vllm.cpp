// vLLM's profiles in conform's table of profiles (profile.hpp's profiles()).
#include "vllm.hpp"

namespace tpcheck::conform {

std::vector<Profile> vllm_profiles() {
  return {
      {.name = "vllm-moriio",
       .usage = {"MoRIIO's functions (moriio_connector.py moriio_common.py)"},
       .bindings = [](const ProfileOptions&) { return vllm_moriio_bindings(); }},
      {.name = "vllm-nixl",
       .usage = {"NIXL's TransferTopology and compute_tp_mapping (utils.py tp_mapping.py);",
                 "hybrid state: the conv split, its offsets and the worker's descriptors",
                 "(ssm_conv_transfer_utils.py or its predecessors, worker.py)"},
       .bindings = vllm_nixl_bindings},
      {.name = "vllm-mooncake",
       .usage = {"Mooncake's planner and region check (mooncake_connector.py utils.py)"},
       .bindings = vllm_mooncake_bindings,
       .hybrid = "call without total_num_kv_heads, as for Mamba models"},
  };
}

}  // namespace tpcheck::conform
