// The vLLM profiles as data: vllm-moriio (SPEC §10), vllm-nixl (§12) and
// vllm-mooncake (§13).
#include "tpcheck/conform/profile.hpp"
#include "vllm.hpp"

namespace tpcheck::conform {
namespace {

std::vector<Binding> moriio() {
  // Argument orders as SPEC §10 lists them; the model's are in operations.cpp.
  return {
      positional_binding("get_moriio_remote_tp_rank", {"r", "L", "R"}, "remote_rank", {0, 1, 2}),
      positional_binding("validate_moriio_heterogeneous_tp_kv_heads", {"L", "R", "H", "MLA"}, "kv_heads_guard",
                         {0, 1, 2, 3}),
      positional_binding("get_moriio_expected_ack_count", {"P", "D"}, "single_readers", {},
                         kCountForEveryProducerRank),
      positional_binding("_read_completion_quorum", {"D", "P", "p"}, "single_readers", {2, 1, 0}),
      positional_binding("get_port_offset", {"DP_RANK", "TP_RANK", "TP_SIZE"}, "port_offset", {0, 1, 2}),
  };
}

// --- vllm-nixl and vllm-mooncake: grids of SPEC §12, calls shaped by name ---

const ParamSpec kP{"P", ParamKind::Size, {}};
const ParamSpec kD{"D", ParamKind::Size, {}};
const ParamSpec kL{"L", ParamKind::Size, {}};
const ParamSpec kR{"R", ParamKind::Size, {}};
const ParamSpec kHeadsOfBoth{"H", ParamKind::HeadCount, {"P", "D"}};
const ParamSpec kMla{"MLA", ParamKind::Flag, {}};

// The TransferTopology instance of SPEC §12: only the attributes the methods
// read. TpKVTopology has no tp_size field; its tp_size property reads
// remote_tp_size[engine_id].
std::vector<Attribute> topology(const std::string& rank, const std::string& size, const std::string& heads,
                                const std::string& mla) {
  return {{"tp_rank", rank, false, {}},
          {"tp_size", size, false, {{"engine_id", "'local'"}, {"remote_tp_size", "{'local': " + size + "}"}}},
          {"total_num_kv_heads", heads, false, {}},
          {"is_mla", mla, false, {}},
          {"dcp_size", "1", false, {}},
          {"dcp_rank", "0", true, {}}};
}
const std::vector<std::string> kTopologyClasses = {"TransferTopology", "TpKVTopology"};

Binding topology_tp_ratio() {
  Binding b = shaped_binding("TransferTopology.tp_ratio", {kL, kR}, kExact);
  b.model_op = "tp_ratio";
  b.model_from_case = {0, 1};
  b.call.classes = kTopologyClasses;
  b.call.methods = {"tp_ratio"};
  b.call.attributes = topology("0", "L", "1", "False");
  b.call.args = {{"remote_tp_size", "R", false, ""}};
  return b;
}

Binding topology_window() {
  Binding b = shaped_binding("TransferTopology.handshake_target_ranks", {{"r", ParamKind::Rank, {"L"}}, kL, kR}, kExact);
  b.model_op = "window";
  b.model_from_case = {0, 1, 2};
  b.call.classes = kTopologyClasses;
  b.call.methods = {"handshake_target_ranks", "get_target_remote_ranks"};
  b.call.attributes = topology("r", "L", "1", "False");
  b.call.args = {{"remote_tp_size", "R", false, ""}, {"remote_dcp_size", "1", true, ""}};
  b.call.render = "int_list";
  return b;
}

Binding topology_consumer_count() {
  // Called on the decode side: tp_size = D, arguments (P, 1).
  Binding b = shaped_binding("TransferTopology.dcp_consumer_count", {kP, kD}, kWindowCompletionCount);
  b.model_op = "window";
  b.call.classes = kTopologyClasses;
  b.call.methods = {"dcp_consumer_count"};
  b.call.attributes = topology("0", "D", "1", "False");
  b.call.args = {{"remote_tp_size", "P", false, ""}, {"remote_dcp_size", "1", false, ""}};
  return b;
}

Binding nixl_tp_mapping() {
  Binding b = shaped_binding("compute_tp_mapping", {kP, kD, kHeadsOfBoth, kMla, {"d", ParamKind::Rank, {"D"}}},
                     kNixlMapping);
  b.model_op = "plan";
  b.call.functions = {"compute_tp_mapping"};
  b.call.classes = kTopologyClasses;
  b.call.instance_argument = "transfer_topology";
  b.call.attributes = topology("d", "D", "H", "MLA");
  // One full-attention group (an MLA cache is MLA attention).
  b.call.args = {{"remote_tp_size", "P", false, ""},
                 {"group_spec_types", "(MLAAttentionSpec,) if MLA else (FullAttentionSpec,)", false, ""},
                 {"remote_dcp_size", "1", true, ""}};
  b.call.render = "tp_mapping";
  b.call.observe = "_tp_mapping(result, slots=P > D)";
  return b;
}

std::vector<Binding> nixl() {
  return {topology_tp_ratio(), topology_window(), topology_consumer_count(), nixl_tp_mapping()};
}

// n(T) * B: the bytes of one rank's heads (MLA: one latent vector).
std::string block_len(const std::string& size) {
  return "(1 if MLA else max(1, H // " + size + ")) * " + std::to_string(kBytesPerHead);
}
const std::string kProducerReplicated = "bool(MLA or P > H)";

// total_num_kv_heads: left out for MLA, and in --hybrid mode (SPEC §13).
void add_head_count(Binding& b, const ProfileOptions& o) {
  if (!o.hybrid) b.call.args.push_back({"total_num_kv_heads", "H", true, "not MLA"});
}

std::vector<Binding> mooncake(const ProfileOptions& o) {
  Binding ratio = shaped_binding("_get_tp_ratio", {kL, kR}, kExact);
  ratio.model_op = "tp_ratio";
  ratio.model_from_case = {0, 1};
  ratio.call.functions = {"_get_tp_ratio"};
  ratio.call.args = {{"local_tp_size", "L", false, ""}, {"remote_tp_size", "R", false, ""}};

  // Only divisible pairs have windows: D is a partner of P.
  Binding plan = shaped_binding("_compute_sender_transfer_plan",
                        {kP, {"D", ParamKind::Partner, {"P"}}, kHeadsOfBoth, kMla, {"p", ParamKind::Rank, {"P"}},
                         {"d", ParamKind::WindowMember, {"p", "P", "D"}}},
                        kSenderPlan);
  plan.model_op = "plan";
  plan.call.functions = {"_compute_sender_transfer_plan"};
  plan.call.args = {{"local_tp_rank", "p", false, ""},
                    {"local_tp_size", "P", false, ""},
                    {"remote_tp_rank", "d", false, ""},
                    {"remote_tp_size", "D", false, ""},
                    {"local_kv_block_len", block_len("P"), false, ""},
                    {"remote_kv_block_len", block_len("D"), false, ""},
                    {"producer_cache_replicated", kProducerReplicated, false, ""}};
  add_head_count(plan, o);
  plan.call.render = "sender_plan";
  plan.call.observe = "_sender_plan(result)";

  Binding regions = shaped_binding("_validate_asymmetric_region_lengths",
                           {kP, {"D", ParamKind::Partner, {"P"}}, kHeadsOfBoth, kMla}, kAcceptsSizing);
  regions.model_op = "plan";
  regions.call.functions = {"_validate_asymmetric_region_lengths"};
  regions.call.args = {{"local_regions", "[_region(" + block_len("P") + ")]", false, ""},
                       {"remote_regions", "[_region(" + block_len("D") + ")]", false, ""},
                       {"local_tp_size", "P", false, ""},
                       {"remote_tp_size", "D", false, ""},
                       {"producer_cache_replicated", kProducerReplicated, false, ""}};
  add_head_count(regions, o);

  // The windows come from the same TransferTopology as NIXL's (utils.py).
  return {ratio, plan, regions, topology_tp_ratio(), topology_window()};
}

}  // namespace

std::vector<Binding> vllm_moriio_bindings() { return moriio(); }
std::vector<Binding> vllm_nixl_bindings(const ProfileOptions& options) {
  std::vector<Binding> out = nixl();
  for (Binding& b : vllm_nixl_state_bindings(options)) out.push_back(std::move(b));
  return out;
}
std::vector<Binding> vllm_mooncake_bindings(const ProfileOptions& options) { return mooncake(options); }

}  // namespace tpcheck::conform
