// The sglang profile's hybrid state functions as data (SPEC §16.6, §16.7):
// SGLang's slice helpers of disaggregation/utils.py, called per pair and
// state entry, and the bytes MooncakeKVManager._send_mamba_state_slice and
// NixlKVManager._send_mamba_state_slice move, each under every signature the
// versions have (each parameter passed only where the definition has it),
// in two bindings: "as registered" passes what SGLang's pool registers,
// "with segments" the conv state's true segment widths and slice-axis dims.
// The grid is SPEC §16.8's (state_grid.hpp); the judge is the core's state
// judge (relations_state.cpp).
#include "sglang.hpp"
#include "tpcheck/conform/profile.hpp"
#include "tpcheck/conform/state_judge.hpp"
#include "tpcheck/json.hpp"

namespace tpcheck::conform {
namespace {

using state::StateLayout;

enum class Metadata { AsRegistered, WithSegments };

std::string row(const std::string& name, Metadata m) {
  return name + (m == Metadata::AsRegistered ? " (as registered)" : " (with segments)");
}

// The conv segments' full widths the binding passes per configuration:
// SGLang's pool registers them for GDN and KDA only (Mamba2 configurations
// register no widths); with segments, every family's.
std::string groups_json(const ProfileOptions& options, Metadata m) {
  std::string out = "{";
  for (const std::size_t c : state::configs_of(options.families)) {
    const auto& config = state::state_configs()[c];
    const auto side = state::state_side(config, 1, state::sglang_pool(config.dims.family));
    const bool registered = config.dims.family == StateFamily::Gdn || config.dims.family == StateFamily::Kda;
    std::string widths = "null";
    if (side.ok() && (m == Metadata::WithSegments || registered)) {
      widths = "[";
      for (const auto& seg : side.value().state.segments()) {
        widths += (widths.size() > 1 ? ", " : "") + std::to_string(static_cast<std::uint64_t>(seg.full));
      }
      widths += "]";
    }
    out += std::string(out.size() > 1 ? ", " : "") + "\"" + std::to_string(c) + "\": " + widths;
  }
  return out + "}";
}

std::string memory_json(const ProfileOptions& options, Metadata m) {
  return "{\"kind\": \"sglang_state\", \"layout\": " + StateLayout().json() +
         ", \"sides\": " + state::sides_json(state::configs_of(options.families), state::sglang_pool) +
         ", \"groups\": " + groups_json(options, m) + "}";
}

// The dims a method gets: slice-axis (C_loc for the KDA conv) for one that
// takes outer counts, and always with segments; else the first per-slot axis.
std::string dims(const std::string& side, Metadata m) {
  return "_mem.dims('" + side + "', " +
         (m == Metadata::WithSegments ? std::string("True") : "'src_state_slice_outer_counts' in _params") + ")";
}

// With segments, a definition without the groups' parameter is the row as registered.
void same_as_registered(Binding& b, const std::string& name, const std::string& parameter) {
  b.call.requires_parameter = {parameter, "it is checked once, as " + row(name, Metadata::AsRegistered)};
}

// --- SPEC §16.6: the slice helpers, per pair (SGLang's) and entry -------------------------

const std::string kPairsAndEntries = "((p, d, e) for (p, d) in " + sglang::kPairs + " for e in range(len(_mem.entries)))";

std::vector<CallArg> helper_args() {
  return {{"src_dim", "_mem.dims('P', True)[e]", false, ""},
          {"dst_dim", "_mem.dims('D', True)[e]", false, ""},
          {"src_attn_tp_size", "P", false, ""},
          {"dst_attn_tp_size", "D", false, ""},
          {"dst_tp_rank_in_group", "d", false, ""},
          {"local_tp_rank_in_group", "p", false, ""},
          {"conv_shard_groups", "_mem.groups()[e]", true, ""}};
}

std::string each_with_memory(const ProfileOptions& options, Metadata m, const std::vector<CallArg>& args) {
  std::string driver = each_driver(kPairsAndEntries, {"p", "d", "e"}, {}, {args}, "_ints(_r0)");
  driver.pop_back();  // its closing brace
  return driver + ", \"memory\": " + memory_json(options, m) + "}";
}

Binding slice_blocks(const ProfileOptions& options, Metadata m) {
  const std::string name = "compute_mamba_state_slice_blocks";
  Binding b = state::state_binding(row(name, m), options, true, kStateSliceBlocks);
  b.call.functions = {name};
  b.call.driver = each_with_memory(options, m, helper_args());
  if (m == Metadata::WithSegments) same_as_registered(b, name, "conv_shard_groups");
  return b;
}

Binding slice_byte_blocks(const ProfileOptions& options, Metadata m) {
  const std::string name = "compute_mamba_state_slice_byte_blocks";
  Binding b = state::state_binding(row(name, m), options, true, kStateSliceByteBlocks);
  b.call.functions = {name};
  std::vector<CallArg> args = {{"src_item_len", "_mem.item_lens('P')[e]", false, ""},
                               {"dst_item_len", "_mem.item_lens('D')[e]", false, ""},
                               {"outer_count", "_mem.outer('P')[e]", false, ""}};
  for (const CallArg& a : helper_args()) args.push_back(a);
  b.call.driver = each_with_memory(options, m, args);
  if (m == Metadata::WithSegments) same_as_registered(b, name, "conv_shard_groups");
  return b;
}

// --- SPEC §16.7: the bytes the two managers move ----------------------------------------------

// Every parameter any signature has, each passed only where the definition has it.
std::vector<CallArg> method_args(Metadata m, bool mooncake) {
  const auto opt = [](std::string name, std::string value) { return CallArg{std::move(name), std::move(value), true, ""}; };
  std::vector<CallArg> args;
  if (mooncake) {
    // (a) reads the decode slot from req.
    args = {opt("req", "_record('TransferInfo', mooncake_session_id='decode_%d' % d, **({} if 'dst_mamba_index' in "
                       "_params else {'dst_state_indices': _mem.slot_list('D')}))"),
            opt("prefill_mamba_index", "_mem.slot_list('P')"),
            opt("dst_mamba_index", "_mem.slot_list('D')"),
            opt("dst_tp_rank", "d"),
            opt("dst_attn_tp_size", "D")};
  } else {
    args = {opt("peer_name", "'decode_%d' % d"),
            opt("prefill_state_indices", "_mem.slot_list('P')"),
            opt("dst_state_indices", "_mem.slot_list('D')"),
            opt("dst_gpu_id", "d"),
            opt("notif", "'0_state_%d' % p"),
            opt("decode_tp_size", "D"),
            opt("decode_tp_rank", "d")};
  }
  const std::vector<CallArg> lists = {opt("src_state_data_ptrs", "_mem.ptrs('P', p)"),
                                      opt("src_state_item_lens", "_mem.item_lens('P')"),
                                      opt("src_state_dim_per_tensor", dims("P", m)),
                                      opt("dst_state_data_ptrs", "_mem.ptrs('D', d)"),
                                      opt("dst_state_item_lens", "_mem.item_lens('D')"),
                                      opt("dst_state_dim_per_tensor", dims("D", m)),
                                      opt("src_state_conv_shard_groups", "_mem.groups()"),
                                      opt("src_state_slice_outer_counts", "_mem.outer('P')"),
                                      opt("src_layer_ids", "_mem.layer_ids()"),
                                      opt("dst_layer_ids", "_mem.layer_ids()")};
  args.insert(args.end(), lists.begin(), lists.end());
  return args;
}

Binding send_slice(const ProfileOptions& options, Metadata m, bool mooncake) {
  const std::string cls = mooncake ? "MooncakeKVManager" : "NixlKVManager";
  const std::string name = cls + "._send_mamba_state_slice";
  Binding b = state::state_binding(row(name, m), options, true, mooncake ? kMooncakeState : kNixlState);
  b.call.classes = {cls};
  b.call.methods = {"_send_mamba_state_slice"};
  // (a) and its fallback read the prefill rank's own lists.
  const std::string kv_args = "_record('KVArgs', engine_rank=p, state_data_ptrs=_mem.ptrs('P', p), "
                              "state_item_lens=_mem.item_lens('P'), state_dim_per_tensor=" + dims("P", m) +
                              (mooncake ? ")" : ", gpu_id=p)");
  b.call.attributes = {{"attn_tp_size", "P", false, {}}, {"kv_args", kv_args, false, {}}, {"pp_size", "1", false, {}}};
  b.call.attributes.push_back(mooncake ? Attribute{"engine", "_engine", false, {}} : Attribute{"agent", "_agent", false, {}});
  b.call.driver = sglang::transfer_driver(
      memory_json(options, m), {{"_send_mamba_state_slice", method_args(m, mooncake)}},
      ", \"watch\": [\"_send_mamba_state\"], \"needs\": [\"build_transfer_entry_pairs\", "
      "\"compute_mamba_state_slice_blocks\", \"compute_mamba_state_slice_byte_blocks\"]");
  if (m == Metadata::WithSegments) same_as_registered(b, name, "src_state_conv_shard_groups");
  return b;
}

}  // namespace

std::vector<Binding> sglang_state_bindings(const ProfileOptions& options) {
  std::vector<Binding> out;
  for (const Metadata m : {Metadata::AsRegistered, Metadata::WithSegments}) out.push_back(slice_blocks(options, m));
  for (const Metadata m : {Metadata::AsRegistered, Metadata::WithSegments}) out.push_back(slice_byte_blocks(options, m));
  for (const bool mooncake : {true, false}) {
    for (const Metadata m : {Metadata::AsRegistered, Metadata::WithSegments}) {
      out.push_back(send_slice(options, m, mooncake));
    }
  }
  for (Binding& b : out) b.kinds = sglang_state_kinds;
  return out;
}

// The state judge's kinds, and SGLang's pairing against the window (SPEC §14B.2).
const std::vector<KindInfo>& sglang_state_kinds() {
  static const std::vector<KindInfo> kinds = [] {
    std::vector<KindInfo> k = state::state_kinds();
    k.push_back({"pairing_differs_from_window", "Senders other than the window",
                 "the prefill ranks that send to the decode rank are not window(d, D, P)", false});
    return k;
  }();
  return kinds;
}

}  // namespace tpcheck::conform
