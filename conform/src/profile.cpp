// The profiles vllm-moriio (SPEC §10), vllm-nixl (§12), vllm-mooncake (§13)
// and trtllm (§15.2), the adapter profile, and what each kind of deviation
// means for a deployment.
#include "tpcheck/conform/profile.hpp"

#include <functional>

#include "tpcheck/model.hpp"
#include "tpcheck/operations.hpp"
#include "trtllm_judge.hpp"

namespace tpcheck::conform {
namespace {

std::vector<ParamSpec> model_params(const std::vector<std::string>& names) {
  std::vector<ParamSpec> out;
  for (const auto& n : names) out.push_back(param_from_model_name(n));
  return out;
}

// A MoRIIO function: called positionally in the connector's argument order,
// on the edge grid with far-out values.
Binding positional(std::string name, const std::vector<std::string>& params, std::string op,
                   std::vector<std::size_t> model_from_case, Relation relation = Relation::Exact) {
  Binding b;
  b.name = name;
  b.params = model_params(params);
  b.model_op = std::move(op);
  b.model_from_case = std::move(model_from_case);
  b.relation = relation;
  b.call.functions = {std::move(name)};
  b.call.positional = true;
  return b;
}

std::vector<Binding> moriio() {
  // Argument orders as SPEC §10 lists them; the model's are in operations.cpp.
  return {
      positional("get_moriio_remote_tp_rank", {"r", "L", "R"}, "remote_rank", {0, 1, 2}),
      positional("validate_moriio_heterogeneous_tp_kv_heads", {"L", "R", "H", "MLA"}, "kv_heads_guard", {0, 1, 2, 3}),
      positional("get_moriio_expected_ack_count", {"P", "D"}, "single_readers", {},
                 Relation::CountForEveryProducerRank),
      positional("_read_completion_quorum", {"D", "P", "p"}, "single_readers", {2, 1, 0}),
      positional("get_port_offset", {"DP_RANK", "TP_RANK", "TP_SIZE"}, "port_offset", {0, 1, 2}),
  };
}

// --- vllm-nixl and vllm-mooncake: grids of SPEC §12, calls shaped by name ---

const ParamSpec kP{"P", ParamKind::Size, {}};
const ParamSpec kD{"D", ParamKind::Size, {}};
const ParamSpec kL{"L", ParamKind::Size, {}};
const ParamSpec kR{"R", ParamKind::Size, {}};
const ParamSpec kHeadsOfBoth{"H", ParamKind::HeadCount, {"P", "D"}};
const ParamSpec kMla{"MLA", ParamKind::Flag, {}};

Binding shaped(std::string name, std::vector<ParamSpec> params, Relation relation) {
  Binding b;
  b.name = std::move(name);
  b.params = std::move(params);
  b.style = GridStyle::ValidOnly;
  b.named_args = true;
  b.relation = relation;
  return b;
}

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
  Binding b = shaped("TransferTopology.tp_ratio", {kL, kR}, Relation::Exact);
  b.model_op = "tp_ratio";
  b.model_from_case = {0, 1};
  b.call.classes = kTopologyClasses;
  b.call.methods = {"tp_ratio"};
  b.call.attributes = topology("0", "L", "1", "False");
  b.call.args = {{"remote_tp_size", "R", false, ""}};
  return b;
}

Binding topology_window() {
  Binding b = shaped("TransferTopology.handshake_target_ranks", {{"r", ParamKind::Rank, {"L"}}, kL, kR}, Relation::Exact);
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
  Binding b = shaped("TransferTopology.dcp_consumer_count", {kP, kD}, Relation::WindowCompletionCount);
  b.model_op = "window";
  b.call.classes = kTopologyClasses;
  b.call.methods = {"dcp_consumer_count"};
  b.call.attributes = topology("0", "D", "1", "False");
  b.call.args = {{"remote_tp_size", "P", false, ""}, {"remote_dcp_size", "1", false, ""}};
  return b;
}

Binding nixl_tp_mapping() {
  Binding b = shaped("compute_tp_mapping", {kP, kD, kHeadsOfBoth, kMla, {"d", ParamKind::Rank, {"D"}}},
                     Relation::NixlMapping);
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
  Binding ratio = shaped("_get_tp_ratio", {kL, kR}, Relation::Exact);
  ratio.model_op = "tp_ratio";
  ratio.model_from_case = {0, 1};
  ratio.call.functions = {"_get_tp_ratio"};
  ratio.call.args = {{"local_tp_size", "L", false, ""}, {"remote_tp_size", "R", false, ""}};

  // Only divisible pairs have windows: D is a partner of P.
  Binding plan = shaped("_compute_sender_transfer_plan",
                        {kP, {"D", ParamKind::Partner, {"P"}}, kHeadsOfBoth, kMla, {"p", ParamKind::Rank, {"P"}},
                         {"d", ParamKind::WindowMember, {"p", "P", "D"}}},
                        Relation::SenderPlan);
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

  Binding regions = shaped("_validate_asymmetric_region_lengths",
                           {kP, {"D", ParamKind::Partner, {"P"}}, kHeadsOfBoth, kMla}, Relation::AcceptsSizing);
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

// --- trtllm: TensorRT-LLM's C++ transceiver, compiled from source (SPEC §15.2) ---

// Which rank a binding's cases are about.
enum class TransceiverRank { Gen, Ctx, None };

// The deployments of SPEC §15.2's cases: every TP size pair and head count
// with one PP stage and no attention DP; then, on sizes 1, 2, 4, every split
// of 4 layers into up to 3 stages on either side, and attention DP on either
// side or both with every serving and asking group. Each deployment's ranks
// are cases of their own. Arguments in the order of trtllm_params().
std::vector<CaseArgs> transceiver_cases(const GridBounds& bounds, TransceiverRank rank) {
  std::vector<CaseArgs> out;
  auto add = [&](int P, int D, int H, long long ctx_layers, long long gen_layers, int ctx_adp, int gen_adp, int c,
                 int g) {
    auto stages = [](long long digits) {
      int n = 0;
      for (; digits > 0; digits /= 10) ++n;
      return n;
    };
    CaseArgs base = {P, D, H, ctx_layers, gen_layers, ctx_adp, gen_adp, c, g};
    if (rank == TransceiverRank::None) {
      out.push_back(base);
      return;
    }
    // Under attention DP only the asking gen group and the serving ctx group take part.
    const bool gen = rank == TransceiverRank::Gen;
    const int ranks = gen ? D * stages(gen_layers) : P * stages(ctx_layers);
    for (int r = 0; r < ranks; ++r) {
      if (gen ? gen_adp && r % D != g : ctx_adp && r % P != c) continue;
      out.push_back(base);
      out.back().push_back(r);
    }
  };
  const int single = tpcheck_trtllm::kDefaultLayers;  // one stage
  for (int P = 1; P <= bounds.max_tp; ++P) {
    for (int D = 1; D <= bounds.max_tp; ++D) {
      for (int H = 1; H <= bounds.max_heads; ++H) {
        if (head_compatible<std::int64_t>(P, H) && head_compatible<std::int64_t>(D, H)) {
          add(P, D, H, single, single, 0, 0, 0, 0);
        }
      }
    }
  }
  const auto splits = tpcheck_trtllm::layer_splits();
  for (const int P : {1, 2, 4}) {
    for (const int D : {1, 2, 4}) {
      if (P > bounds.max_tp || D > bounds.max_tp) continue;
      for (int H = 1; H <= std::min(4, bounds.max_heads); ++H) {
        if (!head_compatible<std::int64_t>(P, H) || !head_compatible<std::int64_t>(D, H)) continue;
        for (const auto ctx : splits) {
          for (const auto gen : splits) {
            if (ctx >= 10 || gen >= 10) add(P, D, H, ctx, gen, 0, 0, 0, 0);
          }
        }
        for (const auto& [ctx_adp, gen_adp] : {std::pair{1, 0}, std::pair{0, 1}, std::pair{1, 1}}) {
          for (int c = 0; c < (ctx_adp ? P : 1); ++c) {
            for (int g = 0; g < (gen_adp ? D : 1); ++g) add(P, D, H, single, single, ctx_adp, gen_adp, c, g);
          }
        }
      }
    }
  }
  return out;
}

Binding transceiver(std::string name, TransceiverRank rank) {
  std::vector<ParamSpec> params = {kP, kD, kHeadsOfBoth};
  for (const char* n : {"ctx_layers", "gen_layers"}) params.push_back({n, ParamKind::Size, {}});
  for (const char* n : {"ctx_adp", "gen_adp"}) params.push_back({n, ParamKind::Flag, {}});
  for (const char* n : {"c", "g"}) params.push_back({n, ParamKind::Size, {}});
  if (rank == TransceiverRank::Gen) params.push_back({"d", ParamKind::Rank, {"D"}});
  if (rank == TransceiverRank::Ctx) params.push_back({"p", ParamKind::Rank, {"P"}});
  Binding b = shaped(name, std::move(params), Relation::TrtllmTransceiver);
  b.child = ChildKind::Cxx;
  b.model_op = "plan";
  b.call.functions = {std::move(name)};
  b.cases = [rank](const GridBounds& bounds) { return transceiver_cases(bounds, rank); };
  return b;
}

std::vector<Binding> trtllm() {
  return {transceiver("targetIRanks", TransceiverRank::Gen),
          transceiver("CacheFormatter::needSendCache", TransceiverRank::Ctx),
          transceiver("CacheFormatter::pickRecvConnections", TransceiverRank::Gen),
          transceiver("CacheFormatter::inquireSupport", TransceiverRank::None)};
}

}  // namespace

bool is_cxx_source(const std::string& path) {
  const auto dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return false;
  const std::string ext = path.substr(dot);
  for (const char* e : {".cpp", ".cc", ".cxx", ".cu", ".cuh", ".h", ".hpp", ".hh"}) {
    if (ext == e) return true;
  }
  return false;
}

const char* kind_id(Kind kind) {
  switch (kind) {
    case Kind::WrongValue: return "wrong_value";
    case Kind::WrongError: return "wrong_error";
    case Kind::AcceptsInvalid: return "accepts_invalid";
    case Kind::RejectsValid: return "rejects_valid";
    case Kind::Crashed: return "crashed";
    case Kind::TimedOut: return "timed_out";
    case Kind::RankOutOfRange: return "rank_out_of_range";
    case Kind::Duality: return "duality";
    case Kind::RecvFromNonsender: return "recv_from_nonsender";
    case Kind::SendUnpicked: return "send_unpicked";
    case Kind::MissingHeads: return "missing_heads";
    case Kind::DuplicateSource: return "duplicate_source";
    case Kind::WrongSource: return "wrong_source";
  }
  return "?";
}

std::optional<Kind> kind_from_id(const std::string& id) {
  for (int k = 0; k < kKindCount; ++k) {
    if (id == kind_id(static_cast<Kind>(k))) return static_cast<Kind>(k);
  }
  return std::nullopt;
}

const char* kind_meaning(Kind kind) {
  switch (kind) {
    case Kind::WrongValue:
      return "On a configuration the model serves, the connector returns another value than the model: ranks read "
             "the wrong heads, wait for the wrong completions or use the wrong ports (the serious kind).";
    case Kind::WrongError:
      return "The connector refuses a configuration the model refuses, but with another exception class or message "
             "text: operators and tests that match on the text are misled.";
    case Kind::AcceptsInvalid:
      return "The connector accepts a configuration the model refuses: an unsupported sizing goes ahead and ranks "
             "pair by a rule that does not hold for it.";
    case Kind::RejectsValid:
      return "The connector refuses a configuration the model serves correctly.";
    case Kind::Crashed:
      return "The connector raises an exception the model never raises (or its process dies) instead of a clear "
             "error.";
    case Kind::TimedOut:
      return "A call does not return within its time budget: the worker would hang.";
    case Kind::RankOutOfRange:
      return "A rank connects to a peer rank that does not exist, or that lies outside the request's attention-DP "
             "group: the request cannot be sent.";
    case Kind::Duality:
      return "A context rank's counterparts differ from the generation ranks that connect to it: it waits for "
             "requests that never come.";
    case Kind::RecvFromNonsender:
      return "A generation rank receives from a context rank that does not send to it: it waits forever.";
    case Kind::SendUnpicked:
      return "A context rank sends to a generation rank that does not receive from it: the send never completes.";
    case Kind::MissingHeads:
      return "A (layer, head) of a generation rank is held by none of the ranks it receives from: that KV is never "
             "written.";
    case Kind::DuplicateSource:
      return "A (layer, head) of a generation rank is held by more than one rank it receives from: their "
             "concatenation overflows its buffer.";
    case Kind::WrongSource:
      return "A generation rank receives from a context rank that holds none of its (layer, head) pairs.";
  }
  return "?";
}

std::vector<std::string> Binding::param_names() const {
  std::vector<std::string> out;
  for (const auto& p : params) out.push_back(p.name);
  return out;
}

std::optional<CaseArgs> Binding::case_from_model_call(const std::string& op, const std::vector<BigInt>& args) const {
  if (op != model_op) return std::nullopt;
  if (relation == Relation::CountForEveryProducerRank) {
    if (args.size() != 3) return std::nullopt;
    return CaseArgs{args[1], args[2]};  // single_readers(p, P, D) speaks about (P, D)
  }
  if (relation != Relation::Exact || args.size() != model_from_case.size()) return std::nullopt;
  CaseArgs c(params.size());
  for (std::size_t k = 0; k < model_from_case.size(); ++k) c[model_from_case[k]] = args[k];
  return c;
}

std::vector<std::string> profile_names() { return {"vllm-moriio", "vllm-nixl", "vllm-mooncake", "trtllm"}; }

std::optional<std::vector<Binding>> profile_bindings(const std::string& profile, const ProfileOptions& options) {
  if (profile == "vllm-moriio") return moriio();
  if (profile == "vllm-nixl") return nixl();
  if (profile == "vllm-mooncake") return mooncake(options);
  if (profile == "trtllm") return trtllm();
  return std::nullopt;
}

std::vector<Binding> adapter_bindings() {
  std::vector<Binding> out;
  for (const auto& info : operation_infos()) {
    std::vector<std::string> params;
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < info.params.size(); ++k) {
      params.emplace_back(info.params[k]);
      order.push_back(k);
    }
    out.push_back(positional(std::string(info.name), params, std::string(info.name), order));
  }
  return out;
}

bool counts_completions(const Binding& b) {
  return b.model_op == "single_readers" || b.model_op == "readers" || b.relation == Relation::WindowCompletionCount;
}

std::string deployment_meaning(const Binding& b, Kind kind, Effect effect, bool too_many) {
  switch (effect) {
    case Effect::Unspecified: break;
    case Effect::WrongHeads:
      return "a decode rank copies heads from a prefill rank that does not hold them (a wrong head read)";
    case Effect::Unwritten:
      return "heads of a decode rank are never written while it is told its KV is ready (silent corruption)";
    case Effect::OffWindow:
      return "a decode rank reads a replica outside its window: the prefill rank it should read is never told, and "
             "is stranded until a timeout";
    case Effect::Stranded:
      return "a prefill rank waits for completions that never come: it is stranded, its blocks held until a timeout";
    case Effect::EarlyFree:
      return "a prefill rank frees a request's blocks while a decode rank still copies them (corrupt KV)";
    case Effect::Overwrites:
      return "a copy writes heads another copy writes, or runs past a page: other data is overwritten";
    case Effect::Refused:
      return "a valid sizing is refused: these engines cannot serve each other";
  }
  const std::string& op = b.model_op;
  const bool count = counts_completions(b);
  const bool rank_map = op == "remote_rank" || op == "general_rank" || op == "window" || op == "plan";
  const bool guard = op == "kv_heads_guard" || op == "kv_heads_guard_strict";
  const bool port = op == "port_offset" || op == "host_index";
  switch (kind) {
    case Kind::WrongValue:
      if (count) {
        return deployment_meaning(b, kind, too_many ? Effect::Stranded : Effect::EarlyFree, too_many);
      }
      if (rank_map) return "a decode rank copies its KV from the wrong prefill rank: a wrong head read";
      if (op == "tp_ratio") return "ranks are grouped by a wrong ratio: they read from and notify the wrong peers";
      if (op == "heads") return "a rank is told it holds heads it does not: a wrong head read";
      if (port) return "a worker listens on or dials the wrong port or host: a collision or a wrong peer";
      return "a valid deployment computes a wrong value";
    case Kind::WrongError:
      return "the configuration is still refused, but with a different exception or text than upstream's: "
             "operators and tests matching on it are misled";
    case Kind::AcceptsInvalid:
      if (guard) return "a sizing whose pages hold different heads is accepted: decode ranks copy whole pages of "
                        "other heads (a wrong head read)";
      if (count) return "an unsupported sizing gets a completion count instead of an error: blocks freed early or "
                        "a stall, depending on the rank";
      if (port) return "an unknown or out-of-range peer gets a port: a worker dials a port nobody listens on, or "
                       "two workers collide";
      return "an unsupported sizing is accepted instead of refused at start-up: ranks pair by a rule that does "
             "not hold (wrong or out-of-range peer)";
    case Kind::RejectsValid:
      return "a deployment the model serves correctly is refused at start-up";
    case Kind::Crashed:
      return "the connector dies with an unhandled exception (or the process dies) instead of a clear error";
    case Kind::TimedOut:
      return "the call does not return within its budget: the worker hangs (at start-up or per request)";
    case Kind::RankOutOfRange:
      return "a rank connects to a peer rank that does not exist or lies outside the request's DP group: the "
             "request cannot be sent, and the session hangs";
    case Kind::Duality:
      return "a context rank's counterparts differ from the generation ranks that connect to it: it waits for "
             "requests that never come";
    case Kind::RecvFromNonsender:
      return "a generation rank picks a context rank that does not send to it: it waits forever";
    case Kind::SendUnpicked:
      return "a context rank sends to a generation rank that does not receive from it: the send never completes";
    case Kind::MissingHeads:
      return "a (layer, head) of a generation rank is held by none of the ranks it receives from: its KV is never "
             "written";
    case Kind::DuplicateSource:
      return "a (layer, head) of a generation rank comes from more than one rank: their concatenation overflows "
             "its buffer";
    case Kind::WrongSource:
      return "a generation rank receives from a context rank that holds none of its (layer, head) pairs";
  }
  return "";
}

}  // namespace tpcheck::conform
