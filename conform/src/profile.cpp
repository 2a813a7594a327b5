// What every profile shares: the kinds of deviation and what each means for a
// deployment, the adapter profile, and the lookups in the table of profiles
// (each engine's are data in its folder of conform/engines/; the table is the
// engines.cpp conform/CMakeLists.txt generates).
#include "tpcheck/conform/profile.hpp"

#include <algorithm>

#include "tpcheck/json.hpp"
#include "tpcheck/operations.hpp"

namespace tpcheck::conform {
namespace {

std::vector<ParamSpec> model_params(const std::vector<std::string>& names) {
  std::vector<ParamSpec> out;
  for (const auto& n : names) out.push_back(param_from_model_name(n));
  return out;
}

}  // namespace

// A MoRIIO function or an adapter's operation: called positionally in the
// connector's argument order, on the edge grid with far-out values.
Binding positional_binding(std::string name, const std::vector<std::string>& params, std::string op,
                           std::vector<std::size_t> model_from_case, const Relation& relation) {
  Binding b;
  b.name = name;
  b.params = model_params(params);
  b.model_op = std::move(op);
  b.model_from_case = std::move(model_from_case);
  b.relation = &relation;
  b.call.functions = {std::move(name)};
  b.call.positional = true;
  return b;
}

std::string json_list(const std::vector<std::string>& items) {
  std::string s = "[";
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
  return s + "]";
}

std::string args_json(const std::vector<CallArg>& args) {
  std::vector<std::string> items;
  for (const CallArg& a : args) {
    items.push_back("{\"name\": " + json_string(a.name) + ", \"value\": " + json_string(a.value) +
                    ", \"optional\": " + (a.optional ? "true" : "false") + ", \"when\": " + json_string(a.when) + "}");
  }
  return json_list(items);
}

std::string each_driver(const std::string& over, const std::vector<std::string>& coords,
                        const std::vector<std::pair<std::string, std::string>>& let,
                        const std::vector<std::vector<CallArg>>& calls, const std::string& render) {
  std::vector<std::string> names, lets, call_items;
  for (const auto& c : coords) names.push_back(json_string(c));
  for (const auto& [name, value] : let) lets.push_back("[" + json_string(name) + ", " + json_string(value) + "]");
  for (const auto& c : calls) call_items.push_back(args_json(c));
  return "{\"kind\": \"each\", \"over\": " + json_string(over) + ", \"coords\": " + json_list(names) +
         ", \"let\": " + json_list(lets) + ", \"calls\": " + json_list(call_items) + ", \"render\": " +
         json_string(render) + "}";
}

Binding configuration_binding(std::string name, std::vector<ParamSpec> params, const Relation& relation) {
  Binding b = shaped_binding(std::move(name), std::move(params), relation);
  b.coordinates = {"p", "d"};
  b.configuration_order = true;
  b.call.render = "text";
  return b;
}

Binding shaped_binding(std::string name, std::vector<ParamSpec> params, const Relation& relation) {
  Binding b;
  b.name = std::move(name);
  b.params = std::move(params);
  b.style = GridStyle::ValidOnly;
  b.named_args = true;
  b.relation = &relation;
  return b;
}

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
  if (relation == &kCountForEveryProducerRank) {
    if (args.size() != 3) return std::nullopt;
    return CaseArgs{args[1], args[2]};  // single_readers(p, P, D) speaks about (P, D)
  }
  if (relation != &kExact || args.size() != model_from_case.size()) return std::nullopt;
  CaseArgs c(params.size());
  for (std::size_t k = 0; k < model_from_case.size(); ++k) c[model_from_case[k]] = args[k];
  return c;
}

const Profile* find_profile(const std::string& name) {
  for (const Profile& p : profiles()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<std::string> profile_names() {
  std::vector<std::string> out;
  for (const Profile& p : profiles()) out.push_back(p.name);
  return out;
}

std::optional<std::vector<Binding>> profile_bindings(const std::string& profile, const ProfileOptions& options) {
  const Profile* p = find_profile(profile);
  if (p == nullptr) return std::nullopt;
  return p->bindings(options);
}

const std::vector<KindInfo>& profile_kinds(const std::string& profile) {
  static const std::vector<KindInfo> kNone;
  const Profile* p = find_profile(profile);
  return p && p->kinds ? p->kinds() : kNone;
}

namespace {

std::string profiles_where(const std::function<bool(const Profile&)>& takes) {
  std::string out;
  for (const Profile& p : profiles()) {
    if (takes(p)) out += (out.empty() ? "--profile " : " or --profile ") + p.name;
  }
  return out;
}

}  // namespace

std::string profiles_taking_hybrid() {
  return profiles_where([](const Profile& p) { return !p.hybrid.empty(); });
}

std::string profiles_taking_fuzz() {
  return profiles_where([](const Profile& p) { return p.cxx != nullptr; });
}

std::string profiles_taking_family() {
  return profiles_where([](const Profile& p) {
    const auto bindings = p.bindings({});
    return std::any_of(bindings.begin(), bindings.end(), [](const Binding& b) { return b.state; });
  });
}

KindInfo failure_kind(std::string id, std::string title, std::string meaning) {
  return {std::move(id), std::move(title), std::move(meaning), true};
}

KindInfo note_kind(std::string id, std::string title, std::string meaning) {
  return {std::move(id), std::move(title), std::move(meaning), false};
}

KindInfo nondiv_twin(const KindInfo& k, const std::string& runner) {
  return {"nondiv:" + k.id, k.title + ", on a pair that is not divisible",
          "on a sizing " + runner + " runs but the model refuses: " + k.meaning, true};
}

const KindInfo* find_kind(const std::vector<KindInfo>& table, const std::string& kind) {
  for (const auto& k : table) {
    if (k.id == kind) return &k;
  }
  for (const auto& k : table) {
    if (!k.id.empty() && k.id.back() == ':' && kind.compare(0, k.id.size(), k.id) == 0) return &k;
  }
  return nullptr;
}

std::vector<Binding> adapter_bindings() {
  std::vector<Binding> out;
  for (const auto& info : operation_infos()) {
    // An adapter's functions take integers: an operation over stage splits
    // (a list per side) or stages and DP groups of them is not one of them.
    // Nor is the recurrent state's: a family's dims on the edge grid with
    // far-out values are millions of cases per operation (the profiles'
    // state functions check the state on SPEC §16.8's grid).
    if (std::any_of(info.params.begin(), info.params.end(), [](const Param& p) {
          return p.role == Role::StageSplit || p.role == Role::Stage || p.role == Role::DpGroup ||
                 p.role == Role::StateDim || p.role == Role::ConvWindow || p.role == Role::ElementSize;
        })) {
      continue;
    }
    std::vector<std::string> params;
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < info.params.size(); ++k) {
      params.emplace_back(info.params[k]);
      order.push_back(k);
    }
    out.push_back(positional_binding(std::string(info.name), params, std::string(info.name), order));
  }
  return out;
}

bool counts_completions(const Binding& b) {
  return b.model_op == "single_readers" || b.model_op == "readers" || b.relation->counts_completions;
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
