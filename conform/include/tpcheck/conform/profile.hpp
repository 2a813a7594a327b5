// What a conformance run binds and compares: each connector function, how the
// child finds and calls it, its case grid, and the relation its outcome must
// have with the model (SPEC §10, §12, §13, §15.2).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tpcheck/conform/grid.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::conform {

enum class Kind {
  WrongValue,
  WrongError,
  AcceptsInvalid,
  RejectsValid,
  Crashed,
  TimedOut,
  // TensorRT-LLM's C++ transceiver (SPEC §15.2): which ranks connect, send and receive.
  RankOutOfRange,
  Duality,
  RecvFromNonsender,
  SendUnpicked,
  MissingHeads,
  DuplicateSource,
  WrongSource,
};
inline constexpr int kKindCount = 13;
const char* kind_id(Kind kind);  // the --json spelling: "wrong_value", ...
// What a deviation of the kind is, in general (a SARIF rule's help); each
// group's own meaning (deployment_meaning) says what it does.
const char* kind_meaning(Kind kind);
std::optional<Kind> kind_from_id(const std::string& id);

enum class Relation {
  // the function's outcome equals the model operation's, value or exact error
  Exact,
  // (P, D): its one count must equal single_readers(p, P, D) for every
  // prefill rank p, failing where it fails (SPEC §10)
  CountForEveryProducerRank,
  // (P, D): the completions each prefill rank waits for, |window(p, P, D)|
  // for every p; a pair that is not divisible fails as tp_ratio(D, P) (SPEC §12)
  WindowCompletionCount,
  // (P, D, H, MLA, d): NIXL's TPMapping against plan(d) (SPEC §12)
  NixlMapping,
  // (P, D, H, MLA, p, d): Mooncake's copy from p to d against plan(d), in bytes (SPEC §13)
  SenderPlan,
  // (P, D, H, MLA): None on a sizing the connector accepts (SPEC §13)
  AcceptsSizing,
  // (P, D, H, and a rank): what TensorRT-LLM's C++ transceiver does for the
  // deployment, judged by SPEC §15.2's relations (conform/cxx/trtllm_judge.hpp)
  TrtllmTransceiver,
};

// Which child runs a binding's function: the Python child loads Python
// source; the C++ child is compiled from C++ source with the function.
enum class ChildKind { Python, Cxx };

// Bytes per KV head in the block lengths the Mooncake profile passes (SPEC
// §13: any positive value).
inline constexpr int kBytesPerHead = 128;

// One argument of a shaped call: the definition's parameter `name` gets the
// Python expression `value` over the grid parameters. An optional one is
// passed only if the definition has it, and then only where `when` holds.
struct CallArg {
  std::string name;
  std::string value;
  bool optional = false;
  std::string when;
};

// An attribute the child sets on the instance before each call. `if_plain`:
// only where the class does not define it as a property. A read-only property
// of that name is set through `fallback` instead (TpKVTopology's tp_size).
struct Attribute {
  std::string name;
  std::string value;
  bool if_plain = false;
  std::vector<std::pair<std::string, std::string>> fallback;
};

// How the child finds the definition and shapes each call from its signature.
struct CallShape {
  std::vector<std::string> functions;  // top-level functions, by preference
  std::vector<std::string> classes;    // the class of a method, or of an instance argument
  std::vector<std::string> methods;    // methods of that class, by preference
  std::string instance_argument;       // the parameter that receives the instance
  std::vector<Attribute> attributes;   // of the instance
  std::vector<CallArg> args;
  bool positional = false;  // call with the grid parameters in display order, names unchecked
  std::string render = "repr";  // how the child writes a value: repr, int_list, tp_mapping, sender_plan
};

struct Binding {
  std::string name;               // as reported: a function, or Class.method (Class::method in C++)
  ChildKind child = ChildKind::Python;
  std::vector<ParamSpec> params;  // the grid parameters, in display order
  GridStyle style = GridStyle::EdgesAndFarOut;
  bool named_args = false;        // reports show "P=4, D=1" rather than "4, 1"
  std::string model_op;           // operation of lib/include/tpcheck/operations.hpp
  std::vector<std::size_t> model_from_case;  // model argument k is case argument [k]
  Relation relation = Relation::Exact;
  CallShape call;
  // The cases, when the parameters' kinds cannot say them (PP stage splits,
  // attention-DP groups): every case within the bounds, in order.
  std::function<std::vector<CaseArgs>(const GridBounds&)> cases;

  std::vector<std::string> param_names() const;
  // The case a model call "OP ARGS..." of the regression corpus stands for,
  // if it speaks about this binding.
  std::optional<CaseArgs> case_from_model_call(const std::string& op, const std::vector<BigInt>& args) const;
};

// A profile's files by the child that reads them: C++ source (.cpp .cu .h
// ...) for the C++ child, anything else for the Python child.
bool is_cxx_source(const std::string& path);

struct ProfileOptions {
  bool hybrid = false;  // vllm-mooncake: call the planner and region check without total_num_kv_heads
};

// The bindings of a profile; nullopt for an unknown profile.
std::optional<std::vector<Binding>> profile_bindings(const std::string& profile, const ProfileOptions& options = {});
std::vector<std::string> profile_names();

// An adapter module exposes every model operation under its own name.
std::vector<Binding> adapter_bindings();

// Whether the binding's value is a completion count (a wrong one either
// stalls or frees blocks early, by its direction).
bool counts_completions(const Binding& binding);

// What a deviation does to a deployment, when the relation can tell.
enum class Effect {
  Unspecified,  // the kind and the operation say it (deployment_meaning)
  WrongHeads,   // heads read from a rank that does not hold them
  Unwritten,    // heads of a decode rank never written, yet it is told its KV is ready
  OffWindow,    // a replica read outside the window: the window's rank is never told
  Stranded,     // a prefill rank waits for completions that never come
  EarlyFree,    // a prefill rank frees blocks while a reader still copies
  Overwrites,   // a copy to heads another copy writes, or past a page
  Refused,      // a valid sizing refused
};

// One line saying what a deviation means for a deployment. `too_many` says,
// for a count, whether the case waits for more completions than arrive.
std::string deployment_meaning(const Binding& binding, Kind kind, Effect effect, bool too_many);

}  // namespace tpcheck::conform
