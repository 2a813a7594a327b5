// Every model operation by name, with typed parameters: what `tpcheck eval`
// evaluates, what conformance compares a connector with, and what the
// differential runs in a narrow integer type against cpp_int.
//
// An operation is declared once (lib/src/operations.cpp) by a generic body
// over the model's integer type; from it come the rendered outcome in each
// type (Python's notation) and the comparison of a narrow model with cpp_int
// as values, where text is built only for a disagreement.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tpcheck/outcome.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck {

// What a parameter means, so an engine knows which values to give it.
enum class Role {
  Size,       // a TP size (L, R, P, D, T)
  Rank,       // a rank of the Size at `of`
  HeadCount,  // a total number of KV heads (H)
  HeadIndex,  // a head of the HeadCount at `of`
  Flag,       // MLA: 0 or 1
  DpRank,     // a data-parallel rank
  DpSize,     // a data-parallel size
  HostCount,  // the number of hosts the Size at `of` spans
  BasePort,   // the first port of a deployment
  // A side's PP stage layer counts, carried as one integer (tpcheck/stages.hpp's
  // code); `of`: the split whose layer total it shares, or -1.
  StageSplit,
  Stage,        // a stage of the StageSplit at `of`
  AttentionDp,  // a side's attention-DP flag: 0 or 1
  DpGroup,      // a DP group of the Size at `of`: [0, T) under the AttentionDp at `given`, else 0
  // A recurrent state family's dimension (SPEC §16.0): dim `dim` of family
  // `family` (StateFamily's value), which the operation's Sizes shard.
  StateDim,
  // A side's conv window length L (rows per conv channel); `of`: the other
  // side's, which it must equal, or -1.
  ConvWindow,
  // A side's element size in bytes (conv or SSM state); `of` as ConvWindow.
  ElementSize,
};

struct Param {
  std::string_view name;  // as `tpcheck eval` lists it: "r", "L", "MLA", "DP_RANK", ...
  Role role;
  int of = -1;     // Rank, HeadIndex, HostCount, StageSplit, Stage, DpGroup: index of the parameter that bounds it
  int given = -1;  // DpGroup: index of the AttentionDp flag that makes its side's ranks groups
  int family = -1;  // StateDim: the family (a StateFamily's value)
  int dim = -1;     // StateDim: its index in the family's DIMS
  // A parameter reads as its name.
  operator std::string_view() const { return name; }  // NOLINT: implicit on purpose
  friend bool operator==(const Param& p, std::string_view name) { return p.name == name; }
};

struct OperationInfo {
  std::string_view name;
  std::vector<Param> params;
};

// The parameters `tpcheck eval` takes from its options rather than from the
// call's words: a TRT-LLM deployment's stage splits (PREFILL_PP_LAYERS,
// DECODE_PP_LAYERS: --prefill-pp-layers, --decode-pp-layers) and attention-DP
// flags (PREFILL_ADP, DECODE_ADP: --prefill-adp, --decode-adp).
inline bool from_eval_options(const Param& p) { return p.role == Role::StageSplit || p.role == Role::AttentionDp; }

// Those options as given. A side without a split is one stage holding every
// layer of the other side's split (one layer when neither is given).
struct StageOptions {
  std::optional<std::vector<BigInt>> prefill_layers, decode_layers;  // layer counts, each >= 0
  bool prefill_adp = false, decode_adp = false;
  bool any() const { return prefill_layers || decode_layers || prefill_adp || decode_adp; }
};

// Every operation, in the order `tpcheck eval --help` lists them.
const std::vector<OperationInfo>& operation_infos();

// "OP PARAM... [--OPTION ...]...": how `tpcheck eval` calls operation `op`.
const std::string& usage_line(std::size_t op);
std::optional<std::size_t> operation_index(std::string_view op);

// Which instantiation of the model runs a call: the narrowest of int64 and
// cpp_int that holds every argument (Auto), or the one named.
enum class ModelType { Auto, Int16, Int64, CppInt };
std::optional<ModelType> model_type_named(std::string_view name);  // "int16", "int64", "cpp_int"

// `tpcheck eval OP ARGS...` (lib/src/calls.cpp, with the parser below): into
// `text`, replacing what it held, the rendered outcome of the model (a
// modelled error is an outcome too; returns true), or a one-line usage error
// (returns false). A caller that evaluates call after call (`eval --batch`,
// fuzz_eval_line) reuses one buffer: a usage error costs no allocation then.
// `stages` gives the parameters the call's words do not (from_eval_options);
// an option the operation does not read is a usage error.
bool evaluate(std::string_view op, std::span<const std::string_view> args, ModelType type, std::string& text,
              const StageOptions& stages = {});

// The same from one whitespace-separated line "OP ARG..." (`tpcheck eval --batch`).
bool evaluate_line(std::string_view line, ModelType type, std::string& text, const StageOptions& stages = {});

// A call as the one parser of "OP ARG..." reads it: the operation's index in
// operation_infos() and its arguments, checked for arity, decimal syntax
// (at most kMaxDecimalDigits digits) and MLA flags.
struct Call {
  std::size_t op;
  std::vector<BigInt> args;
};

// The call a line "OP ARG..." holds, or the one-line usage error
// evaluate_line writes for it (conform's regression calls are read so).
std::variant<Call, std::string> parse_call_line(std::string_view line);

// Typed entry points for engines that already hold integers. Precondition:
// args has the operation's arity and Flag arguments are 0 or 1.
template <ModelInt Int>
std::string evaluate_in(std::size_t op, std::span<const Int> args);
inline std::string evaluate_int64(std::size_t op, const std::vector<std::int64_t>& args) {
  return evaluate_in<std::int64_t>(op, args);
}
inline std::string evaluate_big(std::size_t op, const std::vector<BigInt>& args) { return evaluate_in<BigInt>(op, args); }

// The failure the model of type Int gives for operation `op` on args, or
// nothing when it succeeds (its value is computed, never rendered): what the
// error oracle (properties/) compares with the SPEC's preconditions, as
// FailureText compares, without building text. Precondition as evaluate_in.
template <ModelInt Int>
std::optional<Failure> failure_in(std::size_t op, std::span<const Int> args);

// Whether the model in a narrow type (int16 or int64) gives the same outcome
// as the cpp_int model on the same arguments, compared as values (no text).
template <class Narrow>
bool narrow_agrees_with_cpp_int(std::size_t op, std::span<const Narrow> args);

// The disagreement in words: "op(a, b) gives X in int16 but Y in cpp_int"
// (empty when they agree). Only for reports: it renders both outcomes.
template <class Narrow>
std::string narrow_disagreement(std::size_t op, std::span<const Narrow> args);

// "int16", "int64" or "cpp_int".
template <ModelInt Int>
std::string_view model_type_name();

}  // namespace tpcheck
