// `tpcheck check`: before any request is routed, does each connector accept
// this sizing, and do the deployment's ports and hosts work out? Where a
// connector rejects, the nearest sizings it accepts.
#include <algorithm>
#include <iostream>

#include "commands.hpp"
#include "head_source.hpp"
#include "options.hpp"
#include "stage_source.hpp"
#include "tpcheck/json.hpp"
#include "tpcheck/preflight/matrix.hpp"
#include "state_source.hpp"
#include "tpcheck/preflight/serving.hpp"
#include "tpcheck/preflight/state_rules.hpp"
#include "tpcheck/preflight/suggestions.hpp"
#include "tpcheck/render.hpp"

namespace tpcheck::cli {
namespace {

constexpr const char* kCheckUsage =
    "usage: tpcheck check --prefill-tp P --decode-tp D (--kv-heads H | --mla | --model-config FILE)\n"
    "                     [--connector NAME]... [--max-gpus N] [--dp-size N --base-port B]\n"
    "                     [--prefill-hosts N] [--decode-hosts N] [STAGES] [STATE] [--json]\n"
    "  STAGES: [--prefill-pp-layers a,b,... | --prefill-pp S] [--decode-pp-layers a,b,... | --decode-pp S]\n"
    "          [--prefill-adp] [--decode-adp]\n"
    "  STATE:  [--mamba2 H,PH,G,N | --gdn HK,DK,HV,DV | --kda H,DH | --mamba1 I,N] [--conv-kernel K]\n"
    "          [--conv-window L | --num-spec S] [--conv-state-bytes B] [--ssm-state-bytes B]\n"
    "          [--conv-layout ds|sd]   (each of the last five also as --prefill-... and --decode-...)\n"
    "  Says for each connector (moriio, nixl, mooncake, sglang, trtllm, trtllm-v2, general; default all)\n"
    "  whether it accepts the sizing, or the exact error it would raise, or, for a sizing it runs but\n"
    "  cannot serve, what goes wrong in which ranks; where it rejects or misserves, the nearest sizings\n"
    "  it serves within --max-gpus GPUs (default twice P + D); with --dp-size/--base-port, whether\n"
    "  every worker's port fits under 65535; with --*-hosts, whether the ranks spread over the hosts.\n"
    "  STAGES describe a TensorRT-LLM deployment (trtllm, trtllm-v2; the default connectors then):\n"
    "  the layers of each pipeline stage (--*-pp S splits the config's num_hidden_layers evenly) and\n"
    "  attention DP (each rank a DP group holding every head).\n"
    "  --model-config reads the KV heads, MLA and num_hidden_layers from a Hugging Face config.json, and\n"
    "  a hybrid model's recurrent state and layers; STATE gives the state without one (a family flag\n"
    "  alone: a model without attention) and each side's conv window, element sizes and vLLM layout.\n"
    "  For a recurrent state, each connector's state line says whether it serves it at P -> D.\n"
    "  Exit 0 when every check accepts and serves, 1 when one rejects or misserves, 2 on a usage error.\n";

// How many head counts the general rule's line lists.
constexpr std::size_t kHeadCountsShown = 4;

struct Check {
  std::string name;
  Outcome<None> outcome;
  std::optional<Connector> connector;  // a connector's sizing check (not ports or hosts)
  std::optional<Rejection> reason;
  std::optional<Misservice> misserved;
  std::vector<preflight::Suggestion> suggestions;
  std::optional<preflight::StateVerdict> state;  // a connector's, for a recurrent state
  bool fails() const { return !outcome.ok() || misserved || (state && !preflight::state_served(*state)); }
};

// The connectors checked: those named, or all; with stage flags (a TRT-LLM
// deployment) those that model them. A named connector that does not model
// the stage flags given is a usage error.
std::variant<std::vector<Connector>, std::string> connectors_checked(const SizingOptions& o) {
  if (!o.stages.any()) {
    return o.connectors.empty() ? std::vector<Connector>(kConnectors.begin(), kConnectors.end()) : o.connectors;
  }
  if (o.connectors.empty()) return std::vector<Connector>{Connector::Trtllm, Connector::TrtllmV2};
  for (const Connector c : o.connectors) {
    if (!models_attention_dp(c)) {
      return "pipeline stages and attention DP are modelled for trtllm and trtllm-v2 only, not for " +
             std::string(connector_name(c));
    }
  }
  return o.connectors;
}

std::vector<Check> run_checks(const SizingOptions& o, const std::vector<Connector>& connectors, AttentionDp adp,
                              const preflight::ModelShape& shape) {
  std::vector<Check> checks;
  // The options bound every size to kMaxOperatorSize: they fit int64.
  const std::int64_t P = static_cast<std::int64_t>(o.prefill_tp), D = static_cast<std::int64_t>(o.decode_tp);
  for (const Connector c : connectors) {
    SizingVerdict v = preflight::kv_verdict(c, P, D, shape.attention, adp);
    checks.push_back({std::string(connector_name(c)), std::move(v.outcome), c, v.reason, v.misserved, {}, {}});
    if (shape.state) checks.back().state = preflight::state_verdict(c, P, D, *shape.state, shape.attention);
  }
  if (o.dp_size) {
    checks.push_back({"prefill ports", port_range(*o.base_port, *o.dp_size, o.prefill_tp), {}, {}, {}, {}, {}});
    checks.push_back({"decode ports", port_range(*o.base_port, *o.dp_size, o.decode_tp), {}, {}, {}, {}, {}});
  }
  // host_index fails the same way for every rank of an engine: ask for the last.
  const auto hosts_check = [](const BigInt& tp, const BigInt& hosts) -> Outcome<None> {
    const Outcome<BigInt> last = host_index(BigInt(tp - 1), tp, hosts);
    if (!last.ok()) return last.failure();
    return None{};
  };
  if (o.prefill_hosts) checks.push_back({"prefill hosts", hosts_check(o.prefill_tp, *o.prefill_hosts), {}, {}, {}, {}, {}});
  if (o.decode_hosts) checks.push_back({"decode hosts", hosts_check(o.decode_tp, *o.decode_hosts), {}, {}, {}, {}, {}});
  return checks;
}

std::string count_range(const preflight::CountRange& r, const char* one, const char* many) {
  const std::string n = r.lo == r.hi ? std::to_string(r.lo) : std::to_string(r.lo) + "-" + std::to_string(r.hi);
  return n + " " + (r.hi == 1 ? one : many);
}

std::string suggestion_text(const preflight::Suggestion& s, std::int64_t P, std::int64_t D) {
  const std::string keeps = s.keeps == preflight::Keeps::Prefill ? "keeps prefill TP " + std::to_string(P)
                            : s.keeps == preflight::Keeps::Decode ? "keeps decode TP " + std::to_string(D)
                                                                  : "keeps " + std::to_string(P + D) + " GPUs";
  return "    " + std::to_string(s.prefill_tp) + " -> " + std::to_string(s.decode_tp) + ": " + keeps + ", " +
         count_range(s.fan_in.readers_per_prefill_rank, "reader", "readers") + " per prefill rank, " +
         count_range(s.fan_in.copies_per_decode_rank, "copy", "copies") + " per decode rank\n";
}

std::string suggestion_json(const preflight::Suggestion& s) {
  const auto range = [](const preflight::CountRange& r) {
    return "[" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "]";
  };
  return "{\"prefill_tp\": " + std::to_string(s.prefill_tp) + ", \"decode_tp\": " + std::to_string(s.decode_tp) +
         ", \"keeps\": " + json_string(std::string(preflight::keeps_name(s.keeps))) +
         ", \"change\": " + std::to_string(s.change) +
         ", \"readers_per_prefill_rank\": " + range(s.fan_in.readers_per_prefill_rank) +
         ", \"copies_per_decode_rank\": " + range(s.fan_in.copies_per_decode_rank) + "}";
}

// Why NIXL's bare AssertionError fires, since the exception does not say.
std::string replica_rule_text(const SizingOptions& o) {
  return " at handshake: prefill TP " + render(o.prefill_tp) + " is larger than decode TP " + render(o.decode_tp) +
         " and than the " + render(o.kv_heads) +
         " KV heads, so prefill ranks hold replicas NIXL neither reads nor notifies; they would wait for a "
         "completion that never comes";
}

std::string head_counts_text(const std::vector<std::int64_t>& counts) {
  std::string out;
  for (const std::int64_t h : counts) out += std::to_string(h) + ", ";
  return out + "...";
}

// Which prefill stages each decode stage reads (at most kStagesShown lines).
constexpr std::size_t kStagesShown = 16;

std::string stage_lines(const Stages& s) {
  std::string out;
  for (std::size_t k = 0; k < s.decode.size() && k < kStagesShown; ++k) {
    const BigInt stage = static_cast<std::int64_t>(k);
    const LayerRange<BigInt> layers = stage_layer_range<BigInt>(PpSide::Decode, stage, s.decode).value();
    const Span<BigInt> sources = overlapping_stages<BigInt>(PpSide::Decode, stage, s.prefill, s.decode).value();
    out += "  decode stage " + render(stage) + " (layers [" + render(layers.first) + ", " + render(layers.end) +
           ")) reads prefill stage" + (sources.end - sources.first == 1 ? " " : "s ") + render(sources.first) +
           (sources.end - sources.first == 1 ? "" : " to " + render(BigInt(sources.end - 1))) + "\n";
  }
  if (s.decode.size() > kStagesShown) out += "  ...\n";
  return out;
}

// What a connector does with the state, after "state: ".
std::string state_text(const preflight::StateVerdict& v, std::int64_t P, std::int64_t D) {
  using preflight::StateServing;
  switch (v.serving) {
    case StateServing::Serves: return "serves";
    case StateServing::DoesNotLoad:
      return "the model does not load at " + v.side + " TP " + std::to_string(v.side == "prefill" ? P : D);
    case StateServing::Refuses: return "rejects: " + v.error;
    case StateServing::Invalid: return "invalid: " + v.error + " (it moves the state all the same)";
    case StateServing::Outside: return "outside the model: " + v.why;
    case StateServing::Misserves:
      return "misserves: " + (v.why.empty() ? std::string() : v.why + "; ") + "decode rank " +
             std::to_string(v.decode_rank) + ", segment " + v.finding.segment + ": " +
             std::string(preflight::state_fault_name(v.finding.fault)) + " (" +
             std::string(preflight::state_fault_meaning(v.finding.fault)) + ")";
  }
  return "";
}

std::string_view serving_name(preflight::StateServing s) {
  using preflight::StateServing;
  switch (s) {
    case StateServing::Serves: return "serves";
    case StateServing::DoesNotLoad: return "does_not_load";
    case StateServing::Refuses: return "rejects";
    case StateServing::Invalid: return "invalid";
    case StateServing::Outside: return "outside_the_model";
    case StateServing::Misserves: return "misserves";
  }
  return "unknown";
}

std::string state_verdict_json(const preflight::StateVerdict& v) {
  using preflight::StateServing;
  std::string out = "{\"verdict\": " + json_string(std::string(serving_name(v.serving))) + ", \"error\": " +
                    (v.error.empty() ? std::string("null") : json_string(v.error)) + ", \"why\": " +
                    (v.why.empty() ? std::string("null") : json_string(v.why)) + ", \"first\": ";
  if (v.serving != StateServing::Misserves) return out + "null}";
  return out + "{\"decode_rank\": " + std::to_string(v.decode_rank) + ", \"segment\": " + json_string(v.finding.segment) +
         ", \"kind\": " + json_string(std::string(preflight::state_fault_name(v.finding.fault))) + "}}";
}

// Where the state loads: the TP sizes in 1..max(16, P, D), and a side outside them with its error.
std::string loading_lines(const preflight::HybridState& s, std::int64_t P, std::int64_t D) {
  const std::int64_t up_to = std::max<std::int64_t>({16, P, D});
  std::string out = "state loads at TP " + loading_sizes(s, up_to) + " (of 1.." + std::to_string(up_to) + ")\n";
  for (const auto& [T, side] : {std::pair<std::int64_t, const char*>{P, "prefill"}, std::pair<std::int64_t, const char*>{D, "decode"}}) {
    const Outcome<StateShape<std::int64_t>> shape = state_shape<std::int64_t>(T, s.dims);
    if (!shape.ok()) {
      out += "state does not load at " + std::string(side) + " TP " + std::to_string(T) + ": " +
             failure_text(shape.failure()) + "\n";
    }
  }
  return out;
}

}  // namespace

int check_command(const std::vector<std::string>& args) {
  auto parsed = parse_sizing_options(SizingCommand::Check, views_of(args));
  std::optional<preflight::ModelConfig> model;
  std::optional<ResolvedState> state;
  if (const auto done = start_command("check", parsed, kCheckUsage, model, state)) return *done;
  SizingOptions& o = std::get<SizingOptions>(parsed);
  const auto connectors = connectors_checked(o);
  if (const auto* error = std::get_if<std::string>(&connectors)) {
    std::cerr << "tpcheck check: " << *error << "\n";
    return 2;
  }
  std::optional<Stages> stages;
  if (o.stages.any() && state) {
    std::cerr << "tpcheck check: pipeline stages and attention DP are not modelled for a recurrent state "
                 "(leave them out to check one stage pair)\n";
    return 2;
  }
  if (o.stages.any()) {
    auto resolved = resolve_stages(o.stages, o, model);
    if (const auto* error = std::get_if<std::string>(&resolved)) {
      std::cerr << "tpcheck check: " << *error << "\n";
      return 2;
    }
    stages = std::get<Stages>(std::move(resolved));
  }
  const AttentionDp adp = stages ? stages->adp : AttentionDp{};
  // The options bound every size to kMaxOperatorSize: they fit int64.
  const std::int64_t P = static_cast<std::int64_t>(o.prefill_tp), D = static_cast<std::int64_t>(o.decode_tp),
                     H = static_cast<std::int64_t>(o.kv_heads);
  const std::int64_t max_gpus = o.max_gpus.value_or(2 * (P + D));
  const preflight::ModelShape shape{attention_shape(o), state ? std::optional(state->state) : std::nullopt};
  std::vector<Check> checks = run_checks(o, std::get<std::vector<Connector>>(connectors), adp, shape);
  std::size_t rejected = 0, misserved = 0, state_not_served = 0;
  for (Check& c : checks) {
    rejected += c.outcome.ok() ? 0 : 1;
    misserved += c.misserved ? 1 : 0;
    state_not_served += c.state && !preflight::state_served(*c.state) ? 1 : 0;
    if (c.connector && c.fails()) c.suggestions = preflight::suggest(*c.connector, P, D, shape, max_gpus, adp);
  }
  const auto misservice = [&](const Check& c) {
    return preflight::misservice_text(*c.connector, *c.misserved, P, D, adp);
  };
  // The general rule serves any P -> D for head counts both sides shard.
  const bool general_heads_fail = o.attention && sizing_verdict<std::int64_t>(Connector::General, P, D, H, o.mla).reason ==
                                                     Rejection::HeadsDoNotShard;
  const std::vector<std::int64_t> general_heads =
      general_heads_fail && !stages ? preflight::head_counts_both_shard(P, D, kHeadCountsShown)
                                    : std::vector<std::int64_t>{};
  const int status = rejected + misserved + state_not_served == 0 ? 0 : 1;
  if (o.json) {
    std::cout << "{\"prefill_tp\": " << P << ", \"decode_tp\": " << D << ", " << heads_json_fields(o, model) << ", "
              << stages_json_fields(stages) << ", \"state\": "
              << (state ? state_json(*state, std::max<std::int64_t>({16, P, D})) : std::string("null"))
              << ", \"max_gpus\": " << max_gpus << ", \"checks\": [";
    for (std::size_t i = 0; i < checks.size(); ++i) {
      const Check& c = checks[i];
      std::cout << (i ? ", " : "") << "{\"name\": " << json_string(c.name)
                << ", \"accepts\": " << (c.outcome.ok() ? "true" : "false") << ", \"error\": "
                << (c.outcome.ok() ? "null" : json_string(failure_text(c.outcome.failure())));
      if (c.connector) {
        std::cout << ", \"reason\": "
                  << (c.reason ? json_string(std::string(preflight::reason_name(*c.reason))) : std::string("null"))
                  << ", \"misserved\": "
                  << (c.misserved ? json_string(std::string(preflight::misservice_name(*c.misserved)))
                                  : std::string("null"))
                  << ", \"misservice\": " << (c.misserved ? json_string(misservice(c)) : std::string("null"))
                  << ", \"suggestions\": [";
        for (std::size_t k = 0; k < c.suggestions.size(); ++k) {
          std::cout << (k ? ", " : "") << suggestion_json(c.suggestions[k]);
        }
        std::cout << "]";
        if (state) std::cout << ", \"state\": " << state_verdict_json(*c.state);
      }
      std::cout << "}";
    }
    std::cout << "], \"general_head_counts\": ";
    if (general_heads.empty()) {
      std::cout << "null";
    } else {
      std::cout << "[";
      for (std::size_t i = 0; i < general_heads.size(); ++i) std::cout << (i ? ", " : "") << general_heads[i];
      std::cout << "]";
    }
    std::cout << ", \"rejected\": " << rejected << ", \"misserved\": " << misserved
              << ", \"state_not_served\": " << state_not_served << "}\n";
    return status;
  }
  if (model) std::cout << model_config_line(o, *model) << "\n";
  if (state) {
    std::cout << state->model_line << "\n" << (state->layers_line ? *state->layers_line + "\n" : "")
              << state->sides_line << "\n" << loading_lines(state->state, P, D);
  }
  std::cout << "sizing: prefill TP " << P << ", decode TP " << D << ", " << heads_text(o) << "\n";
  if (stages && stages->pipeline) std::cout << "pipeline: " << pipeline_line(*stages) << "\n" << stage_lines(*stages);
  if (stages) std::cout << "attention DP: " << attention_dp_text(*stages, o.prefill_tp, o.decode_tp) << "\n";
  bool any_suggested = false;
  for (const Check& c : checks) {
    std::cout << "  " << c.name << ": ";
    if (!c.outcome.ok()) {
      std::cout << "rejects: " << failure_text(c.outcome.failure())
                << (c.reason == Rejection::NixlReplicaRule ? replica_rule_text(o) : "");
    } else if (c.misserved) {
      std::cout << "runs it, but cannot serve it: " << misservice(c);
    } else {
      std::cout << "accepts";
    }
    std::cout << "\n";
    if (c.state) std::cout << "    state: " << state_text(*c.state, P, D) << "\n";
    any_suggested = any_suggested || (c.connector && c.fails());
  }
  if (any_suggested) {
    std::cout << "nearest sizings each rejecting or misserving connector serves (at most " << max_gpus
              << " GPUs; readers per prefill rank are the completions it waits for):\n";
    // Connectors with the same suggestions share one list.
    std::vector<bool> shown(checks.size(), false);
    for (std::size_t i = 0; i < checks.size(); ++i) {
      const Check& c = checks[i];
      if (!c.connector || !c.fails() || shown[i]) continue;
      const bool guard_note = *c.connector == Connector::MoRIIO && !o.mla && H > 1;
      std::string names = c.name;
      for (std::size_t k = i + 1; k < checks.size() && !guard_note; ++k) {
        const Check& other = checks[k];
        if (other.connector && other.fails() && *other.connector != Connector::MoRIIO &&
            other.suggestions == c.suggestions) {
          names += ", " + other.name;
          shown[k] = true;
        }
      }
      std::cout << "  " << names;
      if (guard_note) std::cout << " (its head guard needs P == D or min(P, D) >= " << H << ")";
      std::cout << ":\n";
      if (c.suggestions.empty()) std::cout << "    none within " << max_gpus << " GPUs\n";
      for (const preflight::Suggestion& s : c.suggestions) std::cout << suggestion_text(s, P, D);
    }
  }
  if (!general_heads.empty()) {
    std::cout << "general would serve " << P << " -> " << D << " for head counts both sides shard ("
              << head_counts_text(general_heads) << ") or MLA\n";
  }
  std::cout << "check: " << checks.size() << " checks, " << rejected << " rejected"
            << (misserved > 0 ? ", " + std::to_string(misserved) + " served wrongly" : "")
            << (state ? ", " + std::to_string(state_not_served) + " not serving the state" : "") << "\n";
  return status;
}

}  // namespace tpcheck::cli
