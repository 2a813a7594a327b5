// Command-line option parsing, kept apart from running the commands so that
// it can be tested and fuzzed on its own (fuzz/). A parser returns either the
// options or a one-line error. It reads views of the arguments and copies
// only what it keeps (a file name, an invariant's name): the fuzz target
// hands it the words of its input without building a string for each. Its
// error is kept as pieces (literals, views of the arguments, bounds) and
// written out by whoever reads it: most inputs of the fuzz target are errors
// for every parser, and none of them needs the text.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tpcheck/concat.hpp"
#include "tpcheck/deployment.hpp"
#include "tpcheck/pyint.hpp"
#include "tpcheck/state_bytes.hpp"

namespace tpcheck::cli {

// The arguments as a parser reads them (views of `args`, which must outlive them).
using Args = std::span<const std::string_view>;
std::vector<std::string_view> views_of(const std::vector<std::string>& args);

// A parser's one-line error, viewing the arguments: it must not outlive them.
using OptionError = TextPieces;

// The defaults make a run take about a minute on 2 cores.
struct VerifyOptions {
  std::int64_t max_tp = 256;
  std::int64_t max_heads = 256;
  int threads = 0;  // 0: one per core
  std::vector<std::string> invariants;  // --invariant NAME...: only these (empty: all)
  bool list = false;                    // --list: print the registry instead
  bool json = false;
  bool help = false;
};

// `verify [--max-tp N] [--max-heads N] [--threads N] [--invariant NAME]... [--list] [--json]`
std::variant<VerifyOptions, OptionError> parse_verify_options(Args args);

// The largest TP size or head count the operator commands take: far beyond any
// deployment, small enough that suggestions and pictures stay finite.
inline constexpr std::int64_t kMaxOperatorSize = std::int64_t{1} << 20;

// A hybrid model's recurrent state given without --model-config, and each
// side's deployment of it (SPEC §16.5): the family and its dims, the conv
// kernel; per side the conv window (or the speculative tokens that lengthen
// it), the element sizes and vLLM's conv layout. A side's flag
// (--prefill-conv-window) wins over the shared one (--conv-window).
struct StateSideFlags {
  std::optional<std::int64_t> window, num_spec, conv_bytes, ssm_bytes;
  std::optional<ConvOrder> layout;
  bool any() const { return window || num_spec || conv_bytes || ssm_bytes || layout; }
};

struct StateFlags {
  std::optional<StateDims<std::int64_t>> dims;  // --mamba2 H,PH,G,N | --gdn HK,DK,HV,DV | --kda H,DH | --mamba1 I,N
  std::optional<std::int64_t> kernel;           // --conv-kernel K
  StateSideFlags both, prefill, decode;         // --conv-window, --prefill-conv-window, --decode-conv-window, ...
  bool any_side() const { return both.any() || prefill.any() || decode.any(); }
};

// The largest dim or window the state flags take.
inline constexpr std::int64_t kMaxStateFlag = std::int64_t{1} << 20;

// "--mamba2", "--gdn", "--kda", "--mamba1": the flag that gives a family's dims.
const char* family_flag(StateFamily family);

// Where the KV head count comes from: exactly one of --kv-heads H, --mla and
// --model-config FILE (read by the command, model_config.hpp); or none, for
// a recurrent model given by its family flag that has no attention layers.
struct HeadSource {
  BigInt kv_heads = 1;
  bool mla = false;
  std::optional<std::string> model_config;
  bool attention = true;  // false: no attention layers, no KV
  StateFlags state;
};

// The largest layer count of one PP stage the operator commands and eval take.
inline constexpr std::int64_t kMaxStageLayers = std::int64_t{1} << 16;

// A TRT-LLM deployment's pipeline and attention-DP shape (SPEC §15.0, §15.4),
// as check, plan and eval take it. The model validates the splits.
struct StageFlags {
  std::optional<std::vector<std::int64_t>> prefill_layers, decode_layers;  // --prefill-pp-layers a,b,...
  std::optional<std::int64_t> prefill_pp, decode_pp;  // --prefill-pp S: the model's layers split evenly (check, plan)
  bool prefill_adp = false, decode_adp = false;        // --prefill-adp, --decode-adp
  bool any() const { return prefill_layers || decode_layers || prefill_pp || decode_pp || prefill_adp || decode_adp; }
};

// "a,b,...": layer counts, each a whole number in [0, kMaxStageLayers]
// (a stage without layers is the model's to refuse), or why not.
std::variant<std::vector<std::int64_t>, OptionError> parse_layer_list(std::string_view flag, std::string_view text);

// A deployment's sizing, as `tpcheck check` and `tpcheck plan` take it.
// Sizes are in [1, kMaxOperatorSize]; the model validates everything else.
struct SizingOptions : HeadSource {
  StageFlags stages;
  BigInt prefill_tp, decode_tp;
  std::vector<Connector> connectors;        // check: empty means all
  std::optional<BigInt> dp_size, base_port;  // check: ports
  std::optional<BigInt> prefill_hosts, decode_hosts;
  std::optional<std::int64_t> max_gpus;  // check: budget of the suggestions
  std::optional<BigInt> decode_rank;     // plan: one decode rank only
  std::optional<BigInt> bytes_per_head;  // plan: byte offsets too
  std::optional<std::string> svg;        // plan: the picture's file
  std::optional<std::string> state_bytes;  // plan: the state's byte runs under "ds", "sd" or "sglang"
  bool json = false;
  bool help = false;
};

enum class SizingCommand { Check, Plan };

// check: --prefill-tp P --decode-tp D (--kv-heads H | --mla | --model-config FILE)
//        [--connector NAME]... [--max-gpus N] [--dp-size N --base-port B]
//        [--prefill-hosts N] [--decode-hosts N] [STAGES] [--json]
// plan:  --prefill-tp P --decode-tp D (--kv-heads H | --mla | --model-config FILE)
//        [--decode-rank d] [--bytes-per-head B] [--svg FILE] [STAGES] [--json]
// STAGES: [--prefill-pp-layers a,b,... | --prefill-pp S] [--decode-pp-layers a,b,... | --decode-pp S]
//         [--prefill-adp] [--decode-adp]; --*-pp S needs --model-config (its num_hidden_layers).
// STATE (check, plan, matrix): [--mamba2 H,PH,G,N | --gdn HK,DK,HV,DV | --kda H,DH | --mamba1 I,N]
//         [--conv-kernel K] [--[prefill-|decode-]conv-window L] [--[prefill-|decode-]num-spec S]
//         [--[prefill-|decode-]conv-state-bytes B] [--[prefill-|decode-]ssm-state-bytes B]
//         [--[prefill-|decode-]conv-layout ds|sd]; plan: [--state-bytes ds|sd|sglang].
// A family flag without a head source describes a model without attention.
std::variant<SizingOptions, OptionError> parse_sizing_options(SizingCommand command, Args args);

// The largest --max-tp of `tpcheck matrix` (a grid of max_tp^2 cells per connector).
inline constexpr std::int64_t kMaxMatrixTp = 128;

struct MatrixOptions : HeadSource {
  std::int64_t max_tp = 16;
  AttentionDp adp;  // --prefill-adp, --decode-adp: the TRT-LLM panels per DP group
  std::vector<Connector> connectors;  // empty means all
  std::optional<std::string> svg;
  bool json = false;
  bool help = false;
};

// matrix: (--kv-heads H | --mla | --model-config FILE) [--max-tp N] [--connector NAME]...
//         [--prefill-adp] [--decode-adp] [--svg FILE] [--json]
std::variant<MatrixOptions, OptionError> parse_matrix_options(Args args);

// A whole decimal number in [lo, hi], or why not (viewing `flag` and `text`).
std::variant<std::int64_t, OptionError> parse_bounded(std::string_view flag, std::string_view text, std::int64_t lo,
                                                      std::int64_t hi);

}  // namespace tpcheck::cli
