// The profile trtllm's Python half as data (SPEC §15.1): TensorRT-LLM's
// transceiver v2, its peer registry (peer.py) and block mappers (block.py),
// loaded from source. Every binding judges a whole configuration: a driver of
// the child (conform/child/25_drivers.py, child/27_peers.py) makes its calls,
// and the relations of relations_peers.cpp judge what it answers. The mappers
// of hybrid models' recurrent state (SPEC §16.6) run on the state grid (§16.8)
// under a driver of their own (relations_state_mappers.cpp judges them). The
// kinds of the whole profile (both halves) are here too.
#include <numeric>

#include "peer_terms.hpp"
#include "tpcheck/conform/profile.hpp"
#include "tpcheck/conform/state_grid.hpp"
#include "tpcheck/conform/state_judge.hpp"
#include "tpcheck/conform/state_offsets.hpp"
#include "tpcheck/model.hpp"
#include "trtllm.hpp"

namespace tpcheck::conform {
namespace {

const std::vector<std::string> kRegistrar = {"PeerRegistrar"};

// §3's window from either side: every rank r of L against R, divisible or not.
Binding find_overlap() {
  Binding b = configuration_binding("PeerRegistrar._find_overlap",
                                    {{"L", ParamKind::Size, {}}, {"R", ParamKind::Size, {}}}, kPeerFindOverlap);
  b.coordinates = {"r"};
  b.call.classes = kRegistrar;
  b.call.methods = {"_find_overlap"};
  b.call.driver = each_driver("((r,) for r in range(L))", {"r"}, {},
                              {{{"self_val", "L", false, ""}, {"peer_val", "R", false, ""}, {"self_rank", "r", false, ""}}},
                              "_ints(_r0)");
  b.call.observe = "_ints(result)";
  return b;
}

// §6's copy offsets from the ctx side: divisible P != D, H a multiple of both.
std::vector<CaseArgs> head_offset_cases(const GridBounds& bounds) {
  std::vector<CaseArgs> out;
  for (int P = 1; P <= bounds.max_tp; ++P) {
    for (int D = 1; D <= bounds.max_tp; ++D) {
      if (P == D || (P % D != 0 && D % P != 0)) continue;
      const int both = std::lcm(P, D);
      for (int H = both; H <= bounds.max_heads; H += both) out.push_back({P, D, H});
    }
  }
  return out;
}

Binding head_offsets() {
  Binding b = configuration_binding("HeadMismatchMapper._compute_head_offsets",
                                    {{"P", ParamKind::Size, {}}, {"D", ParamKind::Size, {}}, {"H", ParamKind::Size, {}}},
                                    kPeerHeadOffsets);
  b.cases = head_offset_cases;
  b.call.classes = {"HeadMismatchMapper"};
  b.call.methods = {"_compute_head_offsets"};
  const std::string B = std::to_string(peers::kBlocks.head_bytes());
  b.call.driver = each_driver(
      "((p, d) for p in range(P) for d in range(D) if max(p * (H // P), d * (H // D)) < "
      "min((p + 1) * (H // P), (d + 1) * (H // D)))",
      {"p", "d"}, {},
      {{{"self_tp_per_dp", "P", false, ""},
        {"peer_tp_per_dp", "D", false, ""},
        {"self_tp_rank", "p", false, ""},
        {"peer_tp_rank", "d", false, ""},
        {"bytes_cont_heads", "min(H // P, H // D) * " + B, false, ""}}},
      "_ints(_r0)");
  b.call.observe = "_ints(result)";
  return b;
}

// A whole deployment, run by the child's PeerDriver up to `part`.
Binding deployment(std::string method, const std::string& part, const std::vector<std::string>& needs,
                   const Relation& relation) {
  std::vector<ParamSpec> params = {{"P", ParamKind::Size, {}}, {"D", ParamKind::Size, {}}, {"H", ParamKind::Size, {}},
                                   {"MLA", ParamKind::Flag, {}}};
  for (const char* n : {"ctx_layers", "gen_layers"}) params.push_back({n, ParamKind::Size, {}});
  for (const char* n : {"ctx_adp", "gen_adp"}) params.push_back({n, ParamKind::Flag, {}});
  for (const char* n : {"c", "g"}) params.push_back({n, ParamKind::Size, {}});
  Binding b = configuration_binding("PeerRegistrar." + method, std::move(params), relation);
  b.cases = [](const GridBounds& bounds) { return trtllm_deployments(bounds, true); };
  b.call.classes = kRegistrar;
  b.call.methods = {std::move(method)};
  std::vector<std::string> quoted;
  for (const auto& n : needs) quoted.push_back("\"" + n + "\"");
  b.call.driver = "{\"kind\": \"peers\", \"part\": \"" + part + "\", \"needs\": " + json_list(quoted) +
                  ", \"layout\": " + peers::kBlocks.json() + "}";
  return b;
}

// A mapper of the recurrent state: self is ctx rank p, peer each gen rank d
// of its window (SPEC §16.6), on the state grid's valid sizings and those of
// equal sizes; those the mappers do not serve are notes (trtllm_state_kinds).
Binding state_mapper(std::string name, const std::string& cls, const std::string& method, const std::string& part,
                     const ProfileOptions& o, const Relation& relation) {
  Binding b = state::state_binding(std::move(name), o, false, relation);
  const std::vector<StateFamily> families = o.families;
  b.cases = [families](const GridBounds& bounds) { return state::served_cases(bounds, families); };
  b.kinds = trtllm_state_kinds;
  b.call.classes = {cls};
  b.call.methods = {method};
  b.call.driver = "{\"kind\": \"trtllm_state\", \"part\": \"" + part + "\", \"sides\": " +
                  state::sides_json(state::configs_of(o.families), trtllm_state_side) + ", \"bytes\": {\"conv\": " +
                  std::to_string(state::kConvElement) + ", \"ssm\": " + std::to_string(state::kSsmElement) + "}}";
  return b;
}

const auto failure = failure_kind;

}  // namespace

std::vector<Binding> trtllm_python_bindings(const ProfileOptions& options) {
  return {find_overlap(),
          head_offsets(),
          deployment("_check_peer_compatible", "compatible", {"register"}, kPeerCompatible),
          deployment("get_peer_overlap", "overlap", {"register"}, kPeerOverlap),
          deployment("get_kv_map", "kv_map", {"register", "get_peer_overlap"}, kPeerKvMap),
          state_mapper("ConvStateMismatchMapper._compute_section_plans", "ConvStateMismatchMapper",
                       "_compute_section_plans", "sections", options, kConvSections),
          state_mapper("MambaHeadMismatchMapper", "MambaHeadMismatchMapper", "__init__", "heads", options, kSsmHeads)};
}

// SPEC §15.1's kinds in its order, then those of the C++ half (Kind) it has not named.
const std::vector<KindInfo>& trtllm_kinds() {
  static const std::vector<KindInfo> kinds = [] {
    std::vector<KindInfo> k = {
        failure("accepts_invalid", "A window for a pair that is not divisible",
                "a pair that is not divisible gets a window instead of a refusal: ranks pair by a rule that does not "
                "hold"),
        failure("out_of_range", "A rank that does not exist",
                "a rank asked for does not exist: the request cannot be sent, and the session hangs"),
        failure("rank_out_of_range", "A rank outside the serving DP group",
                "a rank asked for lies outside the serving DP group: the request cannot be sent, and the session "
                "hangs"),
        failure("wrong_ranks", "Other ranks than the window",
                "the ranks asked (or the window) differ from those that hold the rank's heads and layers: it asks the "
                "wrong senders"),
        failure("count_mismatch", "Waits for another number of requests",
                "a ctx rank waits for a different number of requests than the gen ranks that ask it: it never becomes "
                "ready, or raises \"has more than N transfers\""),
        failure("rejects_valid", "Refuses a compatible sizing", "a sizing the model serves is refused at registration"),
        failure("misplaced", "Another (layer, K/V, head)'s data",
                "a byte of the gen rank receives another (layer, K/V, head)'s data: silent KV corruption"),
        failure("missing", "Bytes never written",
                "a byte of the gen rank is never written while it is told its KV is ready"),
        failure("duplicate_write", "Bytes written twice",
                "two copies write the same bytes of the gen rank (two senders for one head group, or overlapping "
                "whole-block copies)"),
        failure("write_outside", "A copy past the gen rank's block",
                "a copy runs past a block of the gen rank: it overwrites the next block, which may belong to another "
                "request"),
        failure("read_outside", "A copy past the ctx rank's block",
                "a copy reads past a block of the ctx rank: it sends another block's bytes"),
        failure("mapper_error", "get_kv_map or map raises", "the transfer is never built: the request fails"),
        {"duplicate_head_factor", "Duplicate-head factors other than the model's",
         "dup or peer_dup differ from SPEC §15.0's: the selection rule picks its senders from them", false},
        failure("crashed", "The configuration could not be run",
                "the child died or answered nothing readable for this configuration"),
        failure("timed_out", "The configuration did not finish in time",
                "the calls of this configuration did not return within the budget: the worker would hang"),
    };
    for (int i = 0; i < kKindCount; ++i) {
      const auto kind = static_cast<Kind>(i);
      if (find_kind(k, kind_id(kind)) == nullptr) k.push_back(failure(kind_id(kind), kind_id(kind), kind_meaning(kind)));
    }
    return k;
  }();
  return kinds;
}

}  // namespace tpcheck::conform
