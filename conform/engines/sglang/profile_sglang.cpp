// The profile sglang as data (SPEC §14, §14B): SGLang's decode-side rank
// resolver, its head-slice helpers, MORI's slice config, and the transfers
// Mooncake and NIXL build, each bound by the classes and functions a file
// defines. Every binding judges a whole configuration: a driver of the child
// (conform/child/25_drivers.py, child/26_transfers.py) makes its calls from
// the Python expressions below, and the relations of relations_sglang.cpp,
// relations_transfers.cpp and byte_judge.cpp judge what it answers.
#include <algorithm>
#include <memory>

#include "sglang.hpp"
#include "sglang_terms.hpp"
#include "tpcheck/conform/profile.hpp"
#include "tpcheck/json.hpp"

namespace tpcheck::conform {
namespace {

// Sizes up to --max-tp, heads up to --max-heads; the byte-level grid is
// SPEC §14B.2's (sizes 1..8, heads 1..16) within those bounds.
constexpr int kByteSizes = 8;
constexpr int kByteHeads = 16;
const std::string kB = std::to_string(kBytesPerHead);

const ParamSpec kP{"P", ParamKind::Size, {}};
const ParamSpec kD{"D", ParamKind::Size, {}};
const ParamSpec kH{"H", ParamKind::HeadCount, {"P", "D"}};
const ParamSpec kMla{"MLA", ParamKind::Flag, {}};

// The probes of SPEC §14B.8 (the probe parameter's values; 0 is the grid).
constexpr std::int64_t kPagesPast2To31 = 1;
constexpr std::int64_t kBit63 = 2;
const std::vector<std::vector<std::int64_t>> kProbeSizings = {{1, 2, 2}, {2, 1, 2}, {1, 4, 2}, {4, 1, 8}};

std::string attributes_json(const std::vector<Attribute>& attributes) {
  std::vector<std::string> items;
  for (const Attribute& a : attributes) {
    items.push_back("{\"name\": " + json_string(a.name) + ", \"value\": " + json_string(a.value) +
                    ", \"if_plain\": false, \"fallback\": []}");
  }
  return json_list(items);
}

}  // namespace

const std::string sglang::kPairs =
    "((p, d) for d in range(D) for p in (range(d * (P // D), (d + 1) * (P // D)) if P > D else (d // (D // P),)) "
    "if p < P)";

namespace {

using sglang::kPairs;
const std::string kDecodeRanks = "((d,) for d in range(D))";

// --- §14.1: the rank resolver, on the decode side ------------------------------

std::vector<Attribute> resolver_attributes(const std::string& mla) {
  return {{"attn_tp_size", "D", false, {}},
          {"kv_args", "_record('KVArgs', engine_rank=d)", false, {}},
          {"is_mla_backend", mla, false, {}},
          {"is_hybrid_mla_backend", "False", false, {}},
          {"attn_cp_size", "1", false, {}},
          {"attn_cp_rank", "0", false, {}},
          {"enable_all_cp_ranks_for_transfer", "False", false, {}},
          {"pp_size", "1", false, {}},
          {"pp_rank", "0", false, {}}};
}
const std::string kPrefillServerInfo =
    "_record('PrefillServerInfo', attn_tp_size=P, attn_cp_size=1, pp_size=1, enable_dsa_cache_layer_split=False)";
const std::vector<std::string> kResolverClasses = {"CommonKVManager"};
const std::vector<std::string> kResolverMethods = {"_resolve_rank_mapping"};
// The fields it writes on info (or, in versions that return them, on its result).
const std::string kMappingFields =
    "_fields(_info if _r0 is None else _r0, 'target_tp_ranks', 'target_tp_rank', 'required_dst_info_num', "
    "'required_prefill_response_num')";

Binding rank_mapping() {
  Binding b = configuration_binding("CommonKVManager._resolve_rank_mapping", {kP, kD, kMla}, kRankMapping);
  b.call.classes = kResolverClasses;
  b.call.methods = kResolverMethods;
  b.call.attributes = resolver_attributes("MLA");
  b.call.driver = each_driver(kDecodeRanks, {"d"}, {{"_info", kPrefillServerInfo}}, {{{"info", "_info", false, ""}}},
                              kMappingFields);
  b.call.observe =
      "_fields(info if result is None else result, 'target_tp_ranks', 'target_tp_rank', 'required_dst_info_num', "
      "'required_prefill_response_num')";
  return b;
}

// --- §14.2, §14.3: the staging helpers ------------------------------------------

std::vector<CallArg> slice_call(const std::string& src_rank) {
  return {{"src_attn_tp_size", "P", false, ""},
          {"dst_attn_tp_size", "D", false, ""},
          {"src_tp_rank", src_rank, false, ""},
          {"dst_tp_rank", "d", false, ""},
          {"total_kv_heads", "H", false, ""}};
}

Binding head_slice_documented() {
  Binding b = configuration_binding("compute_head_slice_params", {kP, kD, kH}, kHeadSliceDocumented);
  b.call.functions = {"compute_head_slice_params"};
  b.call.driver = each_driver(kPairs, {"p", "d"}, {}, {slice_call("p")}, "_ints(_r0)");
  b.call.observe = "_ints(result)";
  return b;
}

// The prefill gathers with its own rank; the decode scatters writer slot
// p mod (P/D) (slot 0 when P <= D).
Binding head_slice_as_run() {
  Binding b = configuration_binding("compute_head_slice_params (as run)", {kP, kD, kH}, kHeadSliceAsRun);
  b.call.functions = {"compute_head_slice_params"};
  b.call.driver = each_driver(kPairs, {"p", "d"}, {}, {slice_call("p"), slice_call("p % (P // D) if P > D else 0")},
                              "_ints(_r0) + ';' + _ints(_r1)");
  // The gathered start and count, then the scattered offset and count: the copy of p to d when both agree.
  b.call.observe = "_ints((r0[0], r0[1], r1[2], r1[1]))";
  return b;
}

Binding staging_layout() {
  Binding b = configuration_binding("compute_staging_layout", {kP, kD, kH}, kStagingLayout);
  b.call.functions = {"compute_staging_layout"};
  b.call.driver = each_driver(kDecodeRanks, {"d"}, {},
                              {{{"src_attn_tp_size", "P", false, ""},
                                {"dst_attn_tp_size", "D", false, ""},
                                {"dst_tp_rank", "d", false, ""},
                                {"total_kv_heads", "H", false, ""},
                                {"num_tokens", std::to_string(sglang::kStagingTokens), false, ""},
                                {"bytes_per_head_token", kB, false, ""},
                                {"num_layers", std::to_string(sglang::kStagingLayers), false, ""}}},
                              "_ints(_r0)");
  b.call.observe = "_ints(result)";
  b.call.skip_note =
      "the older compute_staging_layout(num_tokens, num_heads, head_dim, dtype_size, num_layers) takes no TP "
      "input: not applicable, and not a failure";
  return b;
}

// --- §14.4: MORI's slice config, on the prefill side ------------------------------

// n(T) * B * page_size: one page of one layer's K on a side of T ranks.
std::string page_bytes(const std::string& size) { return "page_size * max(1, H // " + size + ") * " + kB; }

Binding slice_config(bool with_total_heads) {
  Binding b = configuration_binding(
      with_total_heads ? "MoriKVManager._build_tp_slice_config"
                       : "MoriKVManager._build_tp_slice_config (without total_kv_head_num)",
      {kP, kD, kH, {"page_size", ParamKind::Choice, {}, {1, 16}}}, kSliceConfig);
  b.informational = !with_total_heads;
  b.call.classes = {"MoriKVManager"};
  b.call.methods = {"_build_tp_slice_config"};
  const std::string heads = with_total_heads ? "total_kv_head_num=H, " : "";
  b.call.attributes = {{"attn_tp_size", "P", false, {}},
                       {"kv_args",
                        "_record('KVArgs', page_size=page_size, kv_item_lens=[" + page_bytes("P") + "] * 4, " + heads +
                            "kv_head_num=max(1, H // P), engine_rank=p)",
                        false,
                        {}}};
  b.call.driver = each_driver(
      kPairs, {"p", "d"},
      {{"_peer", "_record('KVArgsRegisterInfo', decode_tp_size=D, decode_tp_rank=d, dst_kv_item_len=" + page_bytes("D") +
                     ")"}},
      {{{"peer_info", "_peer", false, ""},
        {"src_item_len", page_bytes("P"), true, ""},
        {"dst_item_len", page_bytes("D"), true, ""}}},
      "_fields(_r0, 'page_size', 'src_item_len', 'dst_item_len', 'bytes_per_token_src', 'bytes_per_token_dst', "
      "'src_head_slice_offset', 'dst_head_slice_offset', 'heads_bytes_per_token_to_send')");
  b.call.observe =
      "_fields(result, 'page_size', 'src_item_len', 'dst_item_len', 'bytes_per_token_src', 'bytes_per_token_dst', "
      "'src_head_slice_offset', 'dst_head_slice_offset', 'heads_bytes_per_token_to_send')";
  return b;
}

// --- §14B: the transfers Mooncake and NIXL build -----------------------------------

std::shared_ptr<const bytes::SyntheticLayout> synthetic_memory() {
  auto layout = std::make_shared<bytes::SyntheticLayout>();
  layout->probes[kPagesPast2To31] = {0, std::uint64_t{1} << 31};
  layout->probes[kBit63] = {std::uint64_t{1} << 63, 0};
  return layout;
}

}  // namespace

// A driver of kind transfers: SGLang's pairing from the common resolver, one
// manager per prefill rank, the steps for each of its decode ranks.
std::string sglang::transfer_driver(const std::string& memory_json,
                                    const std::vector<std::pair<std::string, std::vector<CallArg>>>& steps,
                                    const std::string& extra) {
  std::vector<std::string> step_items;
  for (const auto& [method, args] : steps) step_items.push_back("[" + json_string(method) + ", " + args_json(args) + "]");
  return "{\"kind\": \"transfers\", \"memory\": " + memory_json + ", \"steps\": " + json_list(step_items) +
         ", \"pairing\": {\"classes\": [\"CommonKVManager\"], \"methods\": [\"_resolve_rank_mapping\"], "
         "\"attributes\": " +
         attributes_json(resolver_attributes("False")) + ", \"let\": [[\"_info\", " + json_string(kPrefillServerInfo) +
         "]], \"args\": " + args_json({{"info", "_info", false, ""}}) +
         ", \"targets\": \"(_info if _r is None else _r).target_tp_ranks\"}" + extra + "}";
}

namespace {

std::string kv_memory(const bytes::SyntheticLayout& layout) {
  return "{\"kind\": \"kv\", \"layout\": " + layout.json() + "}";
}

// The KVArgs of prefill rank p: its regions, their item length and size, its heads.
std::string prefill_kv_args(bool with_total_heads, const std::string& extra) {
  return "_record('KVArgs', engine_rank=p, page_size=page_size, kv_item_lens=[_mem.item_len('P')] * _mem.regions, "
         "kv_data_ptrs=_mem.ptrs('P', p), " +
         std::string(with_total_heads ? "total_kv_head_num=H, " : "") +
         "kv_head_num=_mem.heads_per_rank('P'), prefill_start_layer=0" + extra + ")";
}

Binding transfers(const Relation& relation, std::string name, bool with_total_heads) {
  Binding b = configuration_binding(
      std::move(name),
      {{"P", ParamKind::Size, {}, {}, kByteSizes},
       {"D", ParamKind::Partner, {"P"}, {}, kByteSizes, true},
       {"H", ParamKind::HeadCount, {"P", "D"}, {}, kByteHeads},
       {"page_size", ParamKind::Choice, {}, {1, 4}},
       {"probe", ParamKind::Choice, {}, {0}}},
      relation);
  b.informational = !with_total_heads;
  b.memory = synthetic_memory();
  b.call.requires_methods = {"get_mha_kv_ptrs_with_pp"};
  const bool mooncake = &relation == &kMooncakeTransfers;
  for (const auto& s : kProbeSizings) {
    if (mooncake) b.probes.push_back({s[0], s[1], s[2], 1, kPagesPast2To31});
    b.probes.push_back({s[0], s[1], s[2], 1, kBit63});
  }
  b.call.methods = {"send_kvcache_slice"};
  if (mooncake) {
    b.call.classes = {"MooncakeKVManager"};
    b.call.attributes = {{"attn_tp_size", "P", false, {}},
                         {"kv_args", prefill_kv_args(with_total_heads, ", kv_layer_ids=[]"), false, {}},
                         {"engine", "_engine", false, {}},
                         {"enable_deferred_decode_kv_release", "False", false, {}},
                         {"pp_size", "1", false, {}}};
    b.call.driver = sglang::transfer_driver(kv_memory(*b.memory), {{"send_kvcache_slice",
                                                 {{"mooncake_session_id", "'decode_%d' % d", false, ""},
                                                  {"prefill_kv_indices", "_mem.page_array('P', _np)", false, ""},
                                                  {"dst_kv_ptrs", "_mem.ptrs('D', d)", false, ""},
                                                  {"dst_kv_indices", "_mem.page_array('D', _np)", false, ""},
                                                  {"dst_tp_rank", "d", false, ""},
                                                  {"dst_attn_tp_size", "D", false, ""},
                                                  {"dst_kv_item_len", "_mem.item_len('D')", false, ""},
                                                  {"executor", "_executor", false, ""}}}});
    return b;
  }
  b.call.classes = {"NixlKVManager"};
  b.call.attributes = {
      {"attn_tp_size", "P", false, {}},
      {"kv_args", prefill_kv_args(with_total_heads, ", kv_data_lens=[_mem.data_len('P')] * _mem.regions, gpu_id=p"),
       false, {}},
      {"agent", "_agent", false, {}},
      {"prep_handle_slice_src", "None", false, {}},
      {"prep_handles_slice_dst", "{}", false, {}}};
  const std::string peer = "'decode_%d' % d";
  b.call.driver = sglang::transfer_driver(
      kv_memory(*b.memory),
      {{"_init_hetero_tp_prep_handle",
        {{"peer_name", peer, false, ""},
         {"decode_kv_args",
          "_record('KVArgsRegisterInfo', decode_tp_size=D, decode_tp_rank=d, dst_kv_item_len=_mem.item_len('D'), "
          "dst_kv_ptrs=_mem.ptrs('D', d), dst_num_slots=_mem.slots('D'), gpu_id=d)",
          false, ""}}},
       {"send_kvcache_slice",
        {{"peer_name", peer, false, ""},
         {"prefill_kv_indices", "_mem.page_array('P', _np)", false, ""},
         {"dst_kv_indices", "_mem.page_array('D', _np)", false, ""},
         {"notif", "'%d_%d' % (p, d)", false, ""}}}});
  return b;
}

// §14B.8: the descriptor index function alone, where a list would be too
// large to build: the last slot of every pair of regions, at the first and
// last head group.
Binding index_function() {
  Binding b = shaped_binding("expand_page_indices_for_slice",
                             {{"pairs", ParamKind::Choice, {}, {4}},
                              {"slots", ParamKind::Choice, {}, {10}},
                              {"page_size", ParamKind::Choice, {}, {1, 4}},
                              {"groups", ParamKind::Choice, {}, {1, 2, 8}}},
                             kIndexFunction);
  b.configuration_order = true;
  // Lists of more than 2^31 rows, whose last rows an int32 index cannot name.
  b.probes = {{2, (std::int64_t{1} << 30) + 1, 1, 1}, {4, std::int64_t{1} << 27, 4, 2},
              {128, (std::int64_t{1} << 24) + 1, 1, 1}};
  b.call.functions = {"expand_page_indices_for_slice"};
  b.call.render = "text";
  b.call.driver = each_driver("((g,) for g in sorted({0, groups - 1}))", {"g"}, {},
                              {{{"page_indices", "_np.array([slots - 1], dtype=_np.int32)", false, ""},
                                {"num_ptr_pairs", "pairs", false, ""},
                                {"num_slots", "slots", false, ""},
                                {"page_size", "page_size", false, ""},
                                {"num_groups", "groups", false, ""},
                                {"head_group_idx", "g", false, ""}}},
                              "_ints(_r0)");
  b.call.observe = "_ints(result)";
  return b;
}

const auto failure = failure_kind;
const auto info = note_kind;

std::vector<KindInfo> nondiv_twins(const std::vector<KindInfo>& kinds) {
  std::vector<KindInfo> out;
  for (const auto& k : kinds) out.push_back(nondiv_twin(k, "SGLang"));
  return out;
}

}  // namespace

std::vector<Binding> sglang_bindings(const ProfileOptions& options) {
  std::vector<Binding> out = {rank_mapping(),
          head_slice_documented(),
          head_slice_as_run(),
          staging_layout(),
          slice_config(true),
          slice_config(false),
          transfers(kMooncakeTransfers, "MooncakeKVManager.send_kvcache_slice", true),
          transfers(kMooncakeTransfers, "MooncakeKVManager.send_kvcache_slice (without total_kv_head_num)",
                    false),
          transfers(kNixlTransfers, "NixlKVManager.send_kvcache_slice", true),
          transfers(kNixlTransfers, "NixlKVManager.send_kvcache_slice (without total_kv_head_num)", false),
          index_function()};
  for (Binding& b : sglang_state_bindings(options)) out.push_back(std::move(b));
  return out;
}

const std::vector<KindInfo>& sglang_kinds() {
  static const std::vector<KindInfo> kinds = [] {
    std::vector<KindInfo> k = {
        // §14.1
        failure("wrong_target_tp_ranks", "Registers with the wrong prefill ranks",
                "the decode rank registers with, and receives KV from, the wrong prefill ranks"),
        failure("wrong_target_tp_rank", "The first target is not the window's first rank",
                "under MLA the real writer is not the first rank of the window: the decode rank takes its KV from a "
                "dummy"),
        failure("wrong_required_dst_info_num", "Wrong registration count announced to the prefill ranks",
                "a prefill rank waits for more decode registrations than arrive (a stall until the timeout) or fewer "
                "(it transfers before every destination is known)"),
        failure("wrong_required_prefill_response_num", "Wrong completion count",
                "the decode rank is released before all its writers finished (corrupt KV) or waits for a completion "
                "that never comes"),
        failure("rejects_valid", "Raises on a divisible sizing", "a sizing the model serves fails at registration"),
        failure("accepts_invalid", "Maps a pair that is not divisible",
                "an unsupported sizing goes ahead instead of being refused: see the nondiv: kinds for what it does"),
        failure("nondiv:targets_missing_prefill_rank", "A decode rank targets a prefill rank that does not exist",
                "the request fails at the bootstrap lookup of a prefill rank that does not exist"),
        failure("nondiv:untargeted_prefill_ranks", "A prefill rank no decode rank targets",
                "that prefill rank never receives a registration: its requests stall until the timeout"),
        failure("nondiv:registration_count_mismatch", "Registrations announced and received differ",
                "a prefill rank waits for a number of registrations other than it receives: a stall, or a transfer "
                "before every destination is known"),
        info("mla_count_vs_notifying_dummies", "MLA completion count of 1",
             "right where dummy prefill ranks stay silent (Mooncake, NIXL); under MORI, where they notify too, the "
             "first completion, usually a dummy's, releases the decode rank before the real writer's KV lands"),
        // §14B.5, in its order
        failure("src_outside_region", "Reads outside the sender's registered memory",
                "reads another buffer's bytes, or NIXL fails with NIXL_ERR_NOT_FOUND"),
        failure("dst_outside_region", "Writes outside the receiver's registered memory",
                "writes memory the decode rank never offered (another rank's or another buffer's)"),
        failure("write_outside_request", "Writes outside the request's pages", "corrupts another request's KV"),
        failure("wrong_layer_or_kv", "Layers or K and V crossed", "K and V, or layers, are crossed"),
        failure("wrong_page_or_token", "Wrong page or token", "bytes land at the wrong position of the sequence"),
        failure("wrong_heads", "Another head's data",
                "the decode rank gets another head's data and is told its KV is ready (silent corruption)"),
        failure("misaligned_in_head", "Shifted inside a head", "head data shifted inside the head"),
        failure("unwritten", "Bytes never written",
                "bytes of the decode rank are written by no sender, yet it is told its KV is ready (silent "
                "corruption, unless a loud kind on the same decode rank fails the request)"),
        info("redundant", "Written more than once",
             "replicated prefill ranks send the same bytes; not a failure (SGLang waits for every writer)"),
        failure("src_dlist_outside_region", "A source descriptor row outside the sender's memory",
                "NIXL's prepare call fails with NIXL_ERR_NOT_FOUND, or the row silently covers a neighbouring buffer"),
        failure("dst_dlist_outside_region", "A destination descriptor row outside the receiver's memory",
                "NIXL's prepare call fails with NIXL_ERR_NOT_FOUND, or the row silently covers a neighbouring buffer "
                "of the decode rank"),
        failure("empty_src_dlist", "An empty source descriptor list", "no transfer can be built: every request fails"),
        failure("desc_index_out_of_range", "A descriptor index outside its list",
                "NIXL rejects the transfer: the request fails"),
        failure("desc_count_mismatch", "Source and destination counts differ",
                "NIXL rejects the transfer: the request fails"),
        failure("length_mismatch", "Paired rows of different lengths", "NIXL rejects the pair: the request fails"),
        failure("refused", "The send returned a failure", "a loud failure: the session is marked failed"),
        failure("raises:", "The method raised", "a loud failure: the decode rank gets nothing from this prefill rank"),
        failure("non_integer_address", "An address that is not an integer",
                "addresses were computed in floating point: the engine gets rounded addresses, or refuses them"),
        failure("address_not_u64", "An address outside [0, 2^64)", "an address overflowed"),
        failure("nonpositive_length", "A transfer of length zero or less", "the engine refuses it, or moves nothing"),
        info("pairing_differs_from_window", "Senders other than the window",
             "the prefill ranks that send to the decode rank are not window(d, D, P)"),
    };
    // §14.5's kinds that §14B has not named, then every slice kind's nondiv twin.
    const std::vector<KindInfo> slices = {
        failure("out_of_bounds", "A copy past a token's heads",
                "the copy reads past the prefill rank's heads or writes past the decode rank's: it corrupts the next "
                "token's heads or the next page"),
        failure("partial", "A copy shorter than the heads both hold",
                "heads both ranks hold are not copied: the decode rank misses them (silent corruption)"),
        failure("size_mismatch", "Gather and scatter sizes differ",
                "the prefill gathers a different number of heads than the decode scatters"),
        failure("inconsistent_counts", "The two head counts differ",
                "the helper's two head counts disagree: its callers size the copy differently"),
        failure("wrong_layout", "Wrong slice or staging layout",
                "a staging region or slot boundary (or a slice's page and token sizes) does not match what the writers "
                "send: a slot overlaps its neighbour or is scattered from the wrong offset"),
        failure("raises", "Raises on a valid pair", "a valid pair fails: the transfer is not built"),
        failure("nondiv:copies_unheld_heads", "Copies heads the sender does not hold",
                "on a sizing the model refuses, a prefill rank that holds none of the decode rank's heads copies into "
                "it"),
    };
    k.insert(k.end(), slices.begin(), slices.end());
    auto kind = [&](const std::string& id) { return *find_kind(k, id); };
    const auto twins = nondiv_twins({kind("wrong_heads"), kind("out_of_bounds"), kind("partial"), kind("unwritten"),
                                     kind("size_mismatch"), kind("inconsistent_counts"), kind("wrong_layout")});
    k.insert(k.end(), twins.begin(), twins.end());
    k.push_back(failure("crashed", "The configuration could not be run",
                        "the child died or answered nothing readable for this configuration"));
    k.push_back(failure("timed_out", "The configuration did not finish in time",
                        "the calls of this configuration did not return within the budget: the worker would hang"));
    // The hybrid state functions' own kinds (their order and meanings are
    // sglang_state_kinds(), which their bindings carry).
    for (const KindInfo& s : sglang_state_kinds()) {
      if (std::none_of(k.begin(), k.end(), [&](const KindInfo& x) { return x.id == s.id; })) k.push_back(s);
    }
    return k;
  }();
  return kinds;
}

}  // namespace tpcheck::conform
