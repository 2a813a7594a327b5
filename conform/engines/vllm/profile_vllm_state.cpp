// vllm-nixl's functions for hybrid models' recurrent state (SPEC §16.6,
// §16.7), as data: the split of the conv state NIXL derives from the state
// shapes, the offsets it reads, the worker's descriptors, and its helpers.
// The state's functions run on SPEC §16.8's grid (state_grid.hpp); the
// driver of kind nixl_state (child/28_nixl_state.py) makes their calls from
// the sides' shapes and bytes lib gives (state_memory.hpp's sides_json), and
// the relations of relations_nixl_state.cpp judge what it answers.
#include "nixl_state.hpp"
#include "tpcheck/conform/profile.hpp"
#include "tpcheck/conform/state_grid.hpp"
#include "tpcheck/conform/state_judge.hpp"
#include "tpcheck/conform/state_memory.hpp"
#include "tpcheck/conform/state_offsets.hpp"
#include "tpcheck/json.hpp"
#include "vllm.hpp"

namespace tpcheck::conform {
namespace {

using state::SideSpec;
using state::state_configs;

// torch's dtype of an element size, as the spec's dtypes name it.
std::string dtype_of(std::int64_t bytes) { return bytes == 4 ? "float32" : "float16"; }

// Every configuration's family and DIMS, by index: the shapes of a spec
// (SPEC §16.6) arrange them.
std::string configs_json() {
  std::vector<std::string> items;
  for (const auto& c : state_configs()) {
    std::string dims = "[";
    for (std::size_t i = 0; i < state_dim_count(c.dims.family); ++i) {
      dims += (i ? ", " : "") + std::to_string(c.dims.v[i]);
    }
    items.push_back("[" + json_string(std::string(state_family_name(c.dims.family))) + ", " + dims + "]]");
  }
  return json_list(items);
}

std::string driver(const std::string& part, const ProfileOptions& o) {
  return "{\"kind\": \"nixl_state\", \"part\": \"" + part + "\", \"configs\": " + configs_json() +
         ", \"sides\": " + state::sides_json(state::configs_of(o.families), nixl::vllm_ds) +
         ", \"memory\": " + state::StateLayout{}.json() + ", \"dtypes\": {\"conv\": \"" +
         dtype_of(state::kConvElement) + "\", \"ssm\": \"" + dtype_of(state::kSsmElement) + "\"}}";
}

const std::vector<std::string> kSplits = {"derive_mamba_conv_split", "derive_conv_decomp"};

// The model parameter of the state grid, for the families of `o`.
ParamSpec model_param(const ProfileOptions& o) { return state::state_params(o.families).back(); }

// (T, model), and with `layouts` each of DS and SD: every size of the state
// grid where the configuration loads.
std::vector<CaseArgs> side_cases(const GridBounds& bounds, const std::vector<StateFamily>& families, bool layouts) {
  std::vector<CaseArgs> out;
  for (std::int64_t T = 1; T <= state::state_sizes(bounds); ++T) {
    for (const std::size_t c : state::configs_of(families)) {
      if (!state::loads(state_configs()[c], T)) continue;
      const CaseArgs a = {T, static_cast<std::int64_t>(c)};
      if (!layouts) {
        out.push_back(a);
        continue;
      }
      for (const std::int64_t layout : {0, 1}) {
        out.push_back(a);
        out.back().push_back(layout);
      }
    }
  }
  return out;
}

// A state function of one side (T ranks): no pair, no ranks to name.
Binding side_binding(std::string name, const ProfileOptions& o, bool layouts, const Relation& relation) {
  std::vector<ParamSpec> params = {{"T", ParamKind::Size, {}}, model_param(o)};
  if (layouts) params.push_back({"layout", ParamKind::Choice, {}, {0, 1}, 0, false, {"ds", "sd"}});
  Binding b = configuration_binding(std::move(name), std::move(params), relation);
  b.coordinates = {};
  const std::vector<StateFamily> families = o.families;
  b.cases = [families, layouts](const GridBounds& bounds) { return side_cases(bounds, families, layouts); };
  b.kinds = nixl::state_kinds;
  b.state = true;
  b.call.functions = kSplits;
  return b;
}

Binding split(const ProfileOptions& o) {
  Binding b = side_binding("derive_mamba_conv_split", o, true, nixl::kSplit);
  b.call.driver = driver("split", o);
  return b;
}

// Where a method of the split's record is looked for, for the manual.
std::string record_method(const std::string& method) {
  return "`" + method + "` of the record `derive_mamba_conv_split` (or `derive_conv_decomp`) returns, a "
         "`MambaConvSplitInfo` or `ConvDecomp`";
}

Binding offsets(const ProfileOptions& o) {
  Binding b = side_binding("MambaConvSplitInfo.local_conv_offsets", o, false, nixl::kOffsets);
  b.call.driver = driver("offsets", o);
  b.call.looked_for = record_method("local_conv_offsets") + " (and `proj_bytes`, or `x_bytes()` and `b_bytes()`)";
  return b;
}

// (P, D, model): the valid sizings of SPEC §16.8 and those of equal sizes.
Binding pair_binding(std::string name, const ProfileOptions& o, const Relation& relation) {
  Binding b = state::state_binding(std::move(name), o, false, relation);
  const std::vector<StateFamily> families = o.families;
  b.cases = [families](const GridBounds& bounds) { return state::served_cases(bounds, families); };
  b.kinds = nixl::state_kinds;
  b.call.functions = kSplits;
  return b;
}

Binding remote(const ProfileOptions& o) {
  Binding b = pair_binding("MambaConvSplitInfo.remote_conv_offsets", o, nixl::kRemoteOffsets);
  b.call.driver = driver("remote", o);
  b.call.looked_for = record_method("remote_conv_offsets");
  return b;
}

Binding worker(const ProfileOptions& o) {
  Binding b = pair_binding("NixlConnectorWorker._build_mamba_remote", o, nixl::kWorker);
  b.call.driver = driver("worker", o);
  b.call.looked_for = "methods `_build_mamba_local` and `_build_mamba_remote` of `NixlConnectorWorker`, with "
                      "`derive_mamba_conv_split` (or `derive_conv_decomp`) for its split; without them, rows "
                      "composed from the split's offsets";
  return b;
}

// (conv, ssm, block_len): block lengths that divide the state's bytes and
// that do not, small and past 2^53, where a float quotient loses the bytes
// that decide the rounding.
std::vector<CaseArgs> blocks_per_logical_cases(const GridBounds&) {
  const BigInt two53 = BigInt(1) << 53;
  const BigInt two61 = BigInt(1) << 61;
  return {{96, 32, 64},       {96, 32, 128},          {96, 40, 64},          {1, 0, 1},
          {7, 5, 4},          {two53, 1, 2},          {two53, two53 + 1, 4}, {two61, two61 + 1, two61},
          {two61 - 1, 2, 64}, {3 * two53 + 1, 0, 3}};
}

Binding blocks_per_logical() {
  Binding b = shaped_binding("compute_physical_blocks_per_logical",
                             {{"conv", ParamKind::Size, {}}, {"ssm", ParamKind::Size, {}}, {"block_len", ParamKind::Size, {}}},
                             nixl::kBlocksPerLogical);
  b.cases = blocks_per_logical_cases;
  b.kinds = nixl::state_kinds;
  b.call.functions = {"compute_physical_blocks_per_logical", "compute_mamba_phys_ratio"};
  b.call.args = {{"ssm_sizes", "(conv, ssm)", false, ""}, {"block_len", "block_len", false, ""}};
  return b;
}

// (T, H, r): every TP size, head count and rank of the grid.
std::vector<CaseArgs> head_range_cases(const GridBounds& bounds) {
  std::vector<CaseArgs> out;
  for (int T = 1; T <= bounds.max_tp; ++T) {
    for (int H = 1; H <= bounds.max_heads; ++H) {
      for (int r = 0; r < T; ++r) out.push_back({T, H, r});
    }
  }
  return out;
}

Binding physical_head_range() {
  Binding b = shaped_binding("_physical_head_range",
                             {{"T", ParamKind::Size, {}}, {"H", ParamKind::Size, {}}, {"r", ParamKind::Rank, {"T"}}},
                             nixl::kPhysicalHeadRange);
  b.cases = head_range_cases;
  b.call.functions = {"_physical_head_range"};
  b.call.classes = {"TransferTopology"};
  b.call.methods = {"_physical_head_range"};
  b.call.args = {{"tp_size", "T", false, ""}, {"num_heads", "H", false, ""}, {"rank", "r", false, ""}};
  b.call.render = "int_list";
  return b;
}

// Two ranges within [0, 4]: disjoint, touching, nested, overlapping, equal.
std::vector<CaseArgs> range_cases(const GridBounds&) {
  std::vector<CaseArgs> out;
  for (int a0 = 0; a0 < 4; ++a0) {
    for (int a1 = a0 + 1; a1 <= 4; ++a1) {
      for (int b0 = 0; b0 < 4; ++b0) {
        for (int b1 = b0 + 1; b1 <= 4; ++b1) out.push_back({a0, a1, b0, b1});
      }
    }
  }
  return out;
}

Binding range_overlap() {
  Binding b = shaped_binding("_range_overlap",
                             {{"a0", ParamKind::Size, {}}, {"a1", ParamKind::Size, {}}, {"b0", ParamKind::Size, {}},
                              {"b1", ParamKind::Size, {}}},
                             nixl::kRangeOverlap);
  b.cases = range_cases;
  b.call.functions = {"_range_overlap"};
  b.call.classes = {"TransferTopology"};
  b.call.methods = {"_range_overlap"};
  b.call.args = {{"a", "range(a0, a1)", false, ""}, {"b", "range(b0, b1)", false, ""}};
  b.call.render = "int_list";
  return b;
}

}  // namespace

std::vector<Binding> vllm_nixl_state_bindings(const ProfileOptions& options) {
  return {split(options),          offsets(options),      remote(options), worker(options), blocks_per_logical(),
          physical_head_range(), range_overlap()};
}

}  // namespace tpcheck::conform
