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
    "                      [--prefill-adp] [--decode-adp] [--svg FILE] [--json]\n"
    "  For every prefill TP P and decode TP D from 1 to N (default 16, at most 128), whether each\n"
    "  connector accepts the sizing, or which rule rejects it, or, for a sizing it runs but cannot\n"
    "  serve, what goes wrong: one character per cell, a legend; --svg draws the same as a heat map,\n"
    "  one panel per connector. --prefill-adp/--decode-adp judge the TensorRT-LLM connectors (the\n"
    "  default ones then) with attention DP on that side.\n"
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
  for (const Connector c : connectors) {
    if (adp && !models_attention_dp(c)) {
      std::cerr << "tpcheck matrix: attention DP is modelled for trtllm and trtllm-v2 only, not for "
                << connector_name(c) << "\n";
      return 2;
    }
  }
  // The options bound the head count to kMaxOperatorSize: it fits int64.
  const preflight::Matrix m =
      preflight::build_matrix(connectors, o.max_tp, static_cast<std::int64_t>(o.kv_heads), o.mla, o.adp);
  const std::string with_adp = o.adp.prefill && o.adp.decode ? ", attention DP on both sides"
                               : o.adp.prefill             ? ", attention DP on prefill"
                               : o.adp.decode              ? ", attention DP on decode"
                                                           : "";
  const std::string heads =
      heads_text(o) + (model ? " (" + model->key + " in " + *o.model_config + ")" : "") + with_adp;
  if (o.svg) {
    if (const auto error = preflight::write_file(*o.svg, preflight::matrix_svg(m, heads))) {
      std::cerr << "tpcheck matrix: --svg " << *error << "\n";
      return 2;
    }
  }
  if (o.json) {
    std::cout << "{" << heads_json_fields(o, model) << ", " << preflight::matrix_json_fields(m) << "}\n";
    return 0;
  }
  if (model) std::cout << model_config_line(o, *model) << "\n";
  std::cout << preflight::matrix_text(m, heads_text(o) + with_adp);
  if (o.svg) std::cout << "svg: wrote " << *o.svg << "\n";
  return 0;
}

}  // namespace tpcheck::cli
