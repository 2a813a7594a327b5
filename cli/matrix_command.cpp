// `tpcheck matrix`: for one head count, which (P, D) each connector accepts,
// every size from 1 to --max-tp, as a text grid and an SVG heat map.
#include <iostream>

#include "commands.hpp"
#include "head_source.hpp"
#include "options.hpp"
#include "tpcheck/preflight/matrix.hpp"
#include "tpcheck/preflight/output_file.hpp"
#include "tpcheck/preflight/pictures.hpp"

namespace tpcheck::cli {
namespace {

constexpr const char* kMatrixUsage =
    "usage: tpcheck matrix (--kv-heads H | --mla | --model-config FILE) [--max-tp N] [--connector NAME]...\n"
    "                      [--prefill-adp] [--decode-adp] [STATE] [--svg FILE] [--json]\n"
    "  STATE:  [--mamba2 H,PH,G,N | --gdn HK,DK,HV,DV | --kda H,DH | --mamba1 I,N] [--conv-kernel K]\n"
    "          [--conv-window L | --num-spec S] [--conv-state-bytes B] [--ssm-state-bytes B]\n"
    "          [--conv-layout ds|sd]   (each of the last five also as --prefill-... and --decode-...)\n"
    "  For every prefill TP P and decode TP D from 1 to N (default 16, at most 128), whether each\n"
    "  connector accepts the sizing, or which rule rejects it, or, for a sizing it runs but cannot\n"
    "  serve, what goes wrong: one character per cell, a legend; --svg draws the same as a heat map,\n"
    "  one panel per connector. --prefill-adp/--decode-adp judge the TensorRT-LLM connectors (the\n"
    "  default ones then) with attention DP on that side. For a recurrent state (--model-config with\n"
    "  recurrent layers, or STATE), a cell also shows the state: l, h, o, z.\n"
    "  Exit 0 with a matrix, 2 on a usage error.\n";

}  // namespace

int matrix_command(const std::vector<std::string>& args) {
  auto parsed = parse_matrix_options(views_of(args));
  std::optional<preflight::ModelConfig> model;
  std::optional<ResolvedState> state;
  if (const auto done = start_command("matrix", parsed, kMatrixUsage, model, state)) return *done;
  MatrixOptions& o = std::get<MatrixOptions>(parsed);
  const bool adp = o.adp.prefill || o.adp.decode;
  std::vector<Connector> connectors =
      o.connectors.empty() ? std::vector<Connector>(kConnectors.begin(), kConnectors.end()) : o.connectors;
  if (adp && o.connectors.empty()) connectors = {Connector::Trtllm, Connector::TrtllmV2};
  if (adp && state) {
    std::cerr << "tpcheck matrix: attention DP is not modelled for a recurrent state\n";
    return 2;
  }
  for (const Connector c : connectors) {
    if (adp && !models_attention_dp(c)) {
      std::cerr << "tpcheck matrix: attention DP is modelled for trtllm and trtllm-v2 only, not for "
                << connector_name(c) << "\n";
      return 2;
    }
  }
  const preflight::ModelShape shape{attention_shape(o), state ? std::optional(state->state) : std::nullopt};
  const preflight::Matrix m = preflight::build_matrix(connectors, o.max_tp, shape, o.adp);
  const std::string with_adp = o.adp.prefill && o.adp.decode ? ", attention DP on both sides"
                               : o.adp.prefill             ? ", attention DP on prefill"
                               : o.adp.decode              ? ", attention DP on decode"
                                                           : "";
  const std::string with_state =
      state ? std::string(o.attention ? " and a " : ", a ") + std::string(state_family_name(state->state.dims.family)) + " state" : "";
  const std::string heads = heads_text(o) +
                            (model && o.attention ? " (" + model->key + " in " + *o.model_config + ")" : "") +
                            with_state + with_adp;
  if (o.svg) {
    if (const auto error = preflight::write_file(*o.svg, preflight::matrix_svg(m, heads))) {
      std::cerr << "tpcheck matrix: --svg " << *error << "\n";
      return 2;
    }
  }
  if (o.json) {
    std::cout << "{" << heads_json_fields(o, model) << ", \"state\": " << (state ? state_json(*state) : std::string("null"))
              << ", " << preflight::matrix_json_fields(m) << "}\n";
    return 0;
  }
  if (model) std::cout << model_config_line(o, *model) << "\n";
  if (state) {
    std::cout << state->model_line << "\n" << (state->layers_line ? *state->layers_line + "\n" : "")
              << state->sides_line << "\n";
  }
  std::cout << preflight::matrix_text(m, heads_text(o) + with_state + with_adp);
  if (o.svg) std::cout << "svg: wrote " << *o.svg << "\n";
  return 0;
}

}  // namespace tpcheck::cli
