// The vllm-moriio profile (SPEC §10), the adapter profile, and what each kind
// of deviation means for a deployment.
#include "tpcheck/conform/profile.hpp"

#include "tpcheck/operations.hpp"

namespace tpcheck::conform {

const char* kind_id(Kind kind) {
  switch (kind) {
    case Kind::WrongValue: return "wrong_value";
    case Kind::WrongError: return "wrong_error";
    case Kind::AcceptsInvalid: return "accepts_invalid";
    case Kind::RejectsValid: return "rejects_valid";
    case Kind::Crashed: return "crashed";
    case Kind::TimedOut: return "timed_out";
  }
  return "?";
}

std::optional<std::vector<BigInt>> Binding::case_from_model_call(const std::string& op,
                                                                 const std::vector<BigInt>& args) const {
  if (op != model_op) return std::nullopt;
  if (relation == Relation::CountForEveryProducerRank) {
    if (args.size() != 3) return std::nullopt;
    return std::vector<BigInt>{args[1], args[2]};  // single_readers(p, P, D) speaks about (P, D)
  }
  if (args.size() != model_from_case.size()) return std::nullopt;
  std::vector<BigInt> c(params.size());
  for (std::size_t k = 0; k < model_from_case.size(); ++k) c[model_from_case[k]] = args[k];
  return c;
}

std::vector<std::string> profile_names() { return {"vllm-moriio"}; }

std::optional<std::vector<Binding>> profile_bindings(const std::string& profile) {
  if (profile != "vllm-moriio") return std::nullopt;
  // Argument orders as SPEC §10 lists them; the model's are in operations.cpp.
  return std::vector<Binding>{
      {"get_moriio_remote_tp_rank", {"r", "L", "R"}, "remote_rank", {0, 1, 2}, Relation::Exact},
      {"validate_moriio_heterogeneous_tp_kv_heads", {"L", "R", "H", "MLA"}, "kv_heads_guard", {0, 1, 2, 3},
       Relation::Exact},
      {"get_moriio_expected_ack_count", {"P", "D"}, "single_readers", {}, Relation::CountForEveryProducerRank},
      {"_read_completion_quorum", {"D", "P", "p"}, "single_readers", {2, 1, 0}, Relation::Exact},
      {"get_port_offset", {"DP_RANK", "TP_RANK", "TP_SIZE"}, "port_offset", {0, 1, 2}, Relation::Exact},
  };
}

std::vector<Binding> adapter_bindings() {
  std::vector<Binding> out;
  for (const auto& info : operation_infos()) {
    Binding b;
    b.name = std::string(info.name);
    b.model_op = b.name;
    for (std::size_t k = 0; k < info.params.size(); ++k) {
      b.params.emplace_back(info.params[k]);
      b.model_from_case.push_back(k);
    }
    out.push_back(std::move(b));
  }
  return out;
}

bool counts_completions(const Binding& b) { return b.model_op == "single_readers" || b.model_op == "readers"; }

std::string deployment_meaning(const Binding& b, Kind kind, bool too_many) {
  const std::string& op = b.model_op;
  const bool count = counts_completions(b);
  const bool rank_map = op == "remote_rank" || op == "general_rank" || op == "window" || op == "plan";
  const bool guard = op == "kv_heads_guard" || op == "kv_heads_guard_strict";
  const bool port = op == "port_offset" || op == "host_index";
  switch (kind) {
    case Kind::WrongValue:
      if (count) {
        return too_many ? "a prefill rank waits for completions that never come: its blocks stay held until the "
                          "timeout (a stall)"
                        : "a prefill rank frees a request's blocks while a decode rank still copies them (corrupt KV)";
      }
      if (rank_map) return "a decode rank copies its KV from the wrong prefill rank: a wrong head read";
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
      return "the call never returns: the worker hangs (at start-up or per request)";
  }
  return "";
}

}  // namespace tpcheck::conform
