// vLLM's profiles in conform's table of profiles (profile.hpp's profiles()),
// and how vLLM writes its tests (--write-tests): pytest, each test marked
// cpu_test, vLLM's license header.
#include "tpcheck/conform/written.hpp"
#include "vllm.hpp"

namespace tpcheck::conform {
namespace {

const std::string kConnectors = "vllm.distributed.kv_transfer.kv_connector";

const TestConventions kVllmTests{
    .header = {"# SPDX-License-Identifier: Apache-2.0",
               "# SPDX-FileCopyrightText: Copyright contributors to the vLLM project"},
    .test_mark = "@pytest.mark.cpu_test",
    .modules = {{"get_moriio_remote_tp_rank", kConnectors + ".v1.moriio.moriio_connector"},
                {"validate_moriio_heterogeneous_tp_kv_heads", kConnectors + ".v1.moriio.moriio_connector"},
                {"get_moriio_expected_ack_count", kConnectors + ".v1.moriio.moriio_connector"},
                {"_read_completion_quorum", kConnectors + ".v1.moriio.moriio_connector"},
                {"get_port_offset", kConnectors + ".v1.moriio.moriio_common"},
                {"TransferTopology", kConnectors + ".utils"},
                {"TpKVTopology", kConnectors + ".utils"},
                {"compute_tp_mapping", kConnectors + ".v1.nixl.tp_mapping"},
                {"_get_tp_ratio", kConnectors + ".v1.mooncake.mooncake_connector"},
                {"_compute_sender_transfer_plan", kConnectors + ".v1.mooncake.mooncake_connector"},
                {"_validate_asymmetric_region_lengths", kConnectors + ".v1.mooncake.mooncake_connector"},
                {"FullAttentionSpec", "vllm.v1.kv_cache_interface"},
                {"MLAAttentionSpec", "vllm.v1.kv_cache_interface"}},
};

}  // namespace

std::vector<Profile> vllm_profiles() {
  return {
      {.name = "vllm-moriio",
       .usage = {"MoRIIO's functions (moriio_connector.py moriio_common.py)"},
       .bindings = [](const ProfileOptions&) { return vllm_moriio_bindings(); },
       .tests = &kVllmTests},
      {.name = "vllm-nixl",
       .usage = {"NIXL's TransferTopology and compute_tp_mapping (utils.py tp_mapping.py);",
                 "hybrid state: the conv split, its offsets and the worker's descriptors",
                 "(ssm_conv_transfer_utils.py or its predecessors, worker.py)"},
       .bindings = vllm_nixl_bindings,
       .tests = &kVllmTests},
      {.name = "vllm-mooncake",
       .usage = {"Mooncake's planner and region check (mooncake_connector.py utils.py)"},
       .bindings = vllm_mooncake_bindings,
       .hybrid = "call without total_num_kv_heads, as for Mamba models",
       .tests = &kVllmTests},
  };
}

}  // namespace tpcheck::conform
