// What a conformance run binds and compares: each connector function, the
// model operation it is compared with, and how (SPEC §10).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tpcheck/pyint.hpp"

namespace tpcheck::conform {

enum class Kind { WrongValue, WrongError, AcceptsInvalid, RejectsValid, Crashed, TimedOut };
inline constexpr int kKindCount = 6;
const char* kind_id(Kind kind);  // the --json spelling: "wrong_value", ...

enum class Relation {
  // the function's outcome equals the model operation's, value or exact error
  Exact,
  // the function takes (P, D) and its one count must equal
  // single_readers(p, P, D) for every prefill rank p, failing where it fails
  CountForEveryProducerRank,
};

struct Binding {
  std::string name;                 // as the connector spells it
  std::vector<std::string> params;  // model parameter names, in the connector's argument order
  std::string model_op;             // operation of lib/include/tpcheck/operations.hpp
  std::vector<std::size_t> model_from_case;  // Exact: model argument k is case argument [k]
  Relation relation = Relation::Exact;

  // The case (connector argument order) a model call "OP ARGS..." of the
  // regression corpus stands for, if it speaks about this binding.
  std::optional<std::vector<BigInt>> case_from_model_call(const std::string& op, const std::vector<BigInt>& args) const;
};

// "vllm-moriio": the functions of SPEC §10. nullopt for an unknown profile.
std::optional<std::vector<Binding>> profile_bindings(const std::string& profile);
std::vector<std::string> profile_names();

// An adapter module exposes every model operation under its own name.
std::vector<Binding> adapter_bindings();

// Whether the binding's value is a completion count (a wrong one either
// stalls or frees blocks early, by its direction).
bool counts_completions(const Binding& binding);

// One line saying what a deviation of this kind means for a deployment.
// `too_many` says, for a count, whether the smallest case waits for more
// completions than arrive (a stall) rather than fewer (blocks freed early).
std::string deployment_meaning(const Binding& binding, Kind kind, bool too_many);

}  // namespace tpcheck::conform
