// What a conformance run binds and compares: each connector function, how the
// child finds and calls it, its case grid, and the relation its outcome must
// have with the model (SPEC §10, §12, §13, §14, §15). The profiles
// themselves are data, in each engine's folder of conform/engines/.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <memory>

#include "tpcheck/conform/grid.hpp"
#include "tpcheck/conform/memory_layout.hpp"
#include "tpcheck/pyint.hpp"
#include "tpcheck/state.hpp"

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

struct Actual;     // session.hpp
struct Binding;
struct KindInfo;
struct CxxChild;   // conform/src/cxx_build.hpp
struct Judgement;  // judge.hpp
struct WrittenItem;      // written.hpp
struct TestConventions;  // written.hpp

// How a binding's outcome is compared with the model. Relations are objects,
// not a closed list: the engine-neutral ones are below (judge.cpp), each
// engine's beside its judges in its folder (conform/engines/ENGINE/).
struct Relation {
  // The judgement of one case: one call, or a whole configuration whose calls
  // a driver of the child made. `op` is the binding's model operation
  // (operation_index of model_op).
  Judgement (*judge)(const Binding& binding, std::size_t op, const CaseArgs& args, const Actual& actual) = nullptr;
  // What the outcome is compared with, as the manual says it
  // (binding_text.hpp's compared_with).
  std::string (*compared_with)(const Binding& binding) = nullptr;
  // It judges a whole configuration and reports findings (a kind, and the
  // pair or rank it is about) rather than one case's kind.
  bool findings = false;
  // Its value is a completion count (a wrong one either stalls or frees
  // blocks early, by its direction).
  bool counts_completions = false;
  // Why the cases it does not compare are left out; null: cases outside
  // int64.
  const char* not_compared = nullptr;
  // Written tests (written.hpp): the calls of one case, each named by
  // test_coords inside the case (a configuration's pairs or ranks; none for
  // a case that is one call), with the model's outcome of each; empty: the
  // case checks nothing. `code` is the code's own outcome of the case, read
  // only for the shape of its version (which optional fields it has), or
  // null. Null: its functions get no written test, for the reason
  // not_written says.
  std::vector<WrittenItem> (*test_items)(const Binding& binding, std::size_t op, const CaseArgs& args,
                                         const Actual* code) = nullptr;
  std::vector<std::string> test_coords = {};
  const char* not_written = nullptr;
};

// The function's outcome equals the model operation's, value or exact error.
extern const Relation kExact;
// (P, D): its one count must equal single_readers(p, P, D) for every prefill
// rank p, failing where it fails (SPEC §10).
extern const Relation kCountForEveryProducerRank;

// Which child runs a binding's function: the Python child loads Python
// source; the C++ child is compiled from C++ source with the function.
enum class ChildKind { Python, Cxx };

// Bytes per KV head in the block and item lengths the profiles pass
// (vllm-mooncake's, SGLang's; SPEC §13: any positive value).
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
  std::string render = "repr";  // how the child writes a value: repr, int_list, tp_mapping, sender_plan, text
  // A driver (conform/child/25_drivers.py), as JSON: the calls of a whole
  // configuration, made by the child; empty for one call per case.
  std::string driver;
  // Methods the definition reaches through self and cannot run without: the
  // binding is skipped when neither its class nor its bases define them.
  std::vector<std::string> requires_methods;
  // Said with the reason when the definition cannot be called as the profile
  // needs (a version of another shape: "not applicable").
  std::string skip_note;
  // What a written test compares with the model's outcome: a Python
  // expression over the call's `result` (a driver's: r0, r1, ... and its
  // `let` names) and the case's parameters, using the written tests' helpers
  // (conform/written/). Empty: by `render` (the result itself, or _ints()
  // of an int_list).
  std::string observe;
  // How the manual says where the definition is looked for, where a driver
  // looks for more than `functions`, `classes` and `methods` say (a method
  // of the record a function returns); empty: from those.
  std::string looked_for;
  // A parameter the definition must take, else the binding is skipped and
  // `why` says so (a row that differs from another only by what it passes
  // there is the other row for a definition without it).
  struct Parameter {
    std::string name, why;
  } requires_parameter;
};

struct Binding {
  std::string name;               // as reported: a function, or Class.method (Class::method in C++)
  ChildKind child = ChildKind::Python;
  std::vector<ParamSpec> params;  // the grid parameters, in display order
  GridStyle style = GridStyle::EdgesAndFarOut;
  bool named_args = false;        // reports show "P=4, D=1" rather than "4, 1"
  std::string model_op;           // operation of lib/include/tpcheck/operations.hpp
  std::vector<std::size_t> model_from_case;  // model argument k is case argument [k]
  const Relation* relation = &kExact;
  CallShape call;
  // What a finding is about besides its case (Relation::findings): "p", "d".
  std::vector<std::string> coordinates;
  // The smallest case is the one with the smallest P + D, then the
  // parameters and coordinates in order (SPEC §14B.5), not sizes first.
  bool configuration_order = false;
  // Every finding is a note, not a deviation: a row reported apart (inputs
  // upstream does not give in the versions seen).
  bool informational = false;
  // Cases run besides the grid (SPEC §14B.8's probes).
  std::vector<CaseArgs> probes;
  // The synthetic memory a byte-level binding's configurations get (§14B.1).
  std::shared_ptr<const bytes::SyntheticLayout> memory;
  // The cases, when the parameters' kinds cannot say them (PP stage splits,
  // attention-DP groups): every case within the bounds, in order.
  std::function<std::vector<CaseArgs>(const GridBounds&)> cases;
  // Its kinds, when they are not its profile's (a hybrid state function's,
  // state_judge.hpp): their order and meaning in its report.
  const std::vector<KindInfo>& (*kinds)() = nullptr;
  // It moves hybrid models' recurrent state: its grid is SPEC §16.8's, which
  // --family narrows.
  bool state = false;

  std::vector<std::string> param_names() const;
  // The case a model call "OP ARGS..." of the regression corpus stands for,
  // if it speaks about this binding.
  std::optional<CaseArgs> case_from_model_call(const std::string& op, const std::vector<BigInt>& args) const;
};

// A profile's files by the child that reads them: C++ source (.cpp .cu .h
// ...) for the C++ child, anything else for the Python child.
bool is_cxx_source(const std::string& path);

struct ProfileOptions {
  // Written {hybrid} or {hybrid, families}, as the options were added.
  ProfileOptions(bool hybrid_ = false, std::vector<StateFamily> families_ = {})
      : hybrid(hybrid_), families(std::move(families_)) {}
  // --hybrid: call as for a hybrid (Mamba) model, for a profile that takes it
  // (Profile::hybrid).
  bool hybrid = false;
  // --family: the state grid's families (SPEC §16.8); empty: every family.
  std::vector<StateFamily> families;
};

// A deviation kind of a profile that reports findings: its name (a prefix
// ending in ':' for a family such as raises:<Class>), whether it is a failure
// or only informational, and what it does to a deployment, in one line.
struct KindInfo {
  std::string id;
  std::string title;    // short, for a SARIF rule
  std::string meaning;  // one line: what it does to a deployment
  bool failure = true;
};

// A kind that fails a function, and one that is a note.
KindInfo failure_kind(std::string id, std::string title, std::string meaning);
KindInfo note_kind(std::string id, std::string title, std::string meaning);
// Its twin on a sizing whose P and D do not divide ("nondiv:" + id), which
// `runner` ("SGLang", "the connector") runs though the model refuses it: a failure.
KindInfo nondiv_twin(const KindInfo& kind, const std::string& runner);

// A profile, as --profile names it: an engine's bindings, and what the run,
// the manual and `tpcheck conform --help` need to know of it.
struct Profile {
  std::string name;
  // What it checks and which files to give, for --help: lines of at most
  // 76 characters, the first beside the name.
  std::vector<std::string> usage;
  std::function<std::vector<Binding>(const ProfileOptions&)> bindings;
  // The kinds of a profile whose relations report findings, in report order;
  // null for the others (their kinds are Kind's).
  const std::vector<KindInfo>& (*kinds)() = nullptr;
  // What --hybrid (ProfileOptions::hybrid) does to its calls, for --help;
  // empty: it does not take --hybrid.
  std::string hybrid = {};
  // Its C++ child, when some of its functions are C++ (ChildKind::Cxx); they
  // also take --fuzz.
  const CxxChild* cxx = nullptr;
  // How the engine writes its tests (--write-tests).
  const TestConventions* tests = nullptr;
};

// Every engine's profiles, in the order the manual lists them. Each engine
// is a folder of conform/engines/ whose ENGINE.cpp defines ENGINE_profiles();
// conform/CMakeLists.txt's TPCHECK_CONFORM_ENGINES lists the engines, and
// the engines.cpp it generates calls each of those in that order.
const std::vector<Profile>& profiles();
const Profile* find_profile(const std::string& name);
std::vector<std::string> profile_names();

// The bindings of a profile; nullopt for an unknown profile.
std::optional<std::vector<Binding>> profile_bindings(const std::string& profile, const ProfileOptions& options = {});

// The kinds of a profile that reports findings, in report order; empty for
// the others (their kinds are Kind's).
const std::vector<KindInfo>& profile_kinds(const std::string& profile);

// The entry of `kind` in `table` (exactly, or the family it belongs to), if any.
const KindInfo* find_kind(const std::vector<KindInfo>& table, const std::string& kind);

// "--profile vllm-mooncake" (or "--profile A or --profile B"): the profiles
// that take --hybrid, and those whose functions are C++, which take --fuzz.
std::string profiles_taking_hybrid();
std::string profiles_taking_fuzz();
// The same for --family: the profiles with a hybrid state function (Binding::state).
std::string profiles_taking_family();

// A binding on the configurations a connector is built for (the valid grid),
// its call shaped from the definition's signature by parameter name.
Binding shaped_binding(std::string name, std::vector<ParamSpec> params, const Relation& relation);

// A binding judged by configuration (Relation::findings), its findings about
// (p, d), its smallest case the smallest P + D first, its value the text a
// driver answers.
Binding configuration_binding(std::string name, std::vector<ParamSpec> params, const Relation& relation);

// JSON for the child: a list of items already written as JSON, and a call's arguments.
std::string json_list(const std::vector<std::string>& items);
std::string args_json(const std::vector<CallArg>& args);

// A driver of kind each (conform/child/25_drivers.py), as JSON: for every
// item of `over` (tuples named by `coords`), the `let` names, the calls (each
// shaped from the definition's signature), then `render`.
std::string each_driver(const std::string& over, const std::vector<std::string>& coords,
                        const std::vector<std::pair<std::string, std::string>>& let,
                        const std::vector<std::vector<CallArg>>& calls, const std::string& render);

// A binding whose call is positional, in the connector's argument order, on
// the edge grid with far-out values (vllm-moriio, adapters).
Binding positional_binding(std::string name, const std::vector<std::string>& params, std::string op,
                           std::vector<std::size_t> model_from_case, const Relation& relation = kExact);

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
