// Runs a binding's cases in a child (the Python child, or a C++ child built
// for the functions under test; both speak protocol.hpp) and survives it: the child
// generates the cases from the grid's description and answers with outcome
// ids; a child that dies or writes garbage is restarted and the cases in
// flight re-run one at a time to find the one to blame; a call over its
// budget is cut off, and the function gets no further calls.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tpcheck/conform/child_process.hpp"
#include "tpcheck/conform/profile.hpp"

namespace tpcheck::conform {

// What one call did.
struct Actual {
  enum class Status { Value, Raised, Crashed, TimedOut, NotRun };
  Status status = Status::NotRun;
  std::string exception_class;  // Raised
  std::string text;             // repr, str(exception), or what happened to the child

  // tpcheck eval's notation: the repr, "Class: message", or "<...>" for the rest.
  std::string rendered() const;
};

struct ChildCommand {
  std::string python = "python3";
  std::string executable;  // a C++ child to run instead of the Python one
  std::string mode;  // "source" or "adapter"
  std::vector<std::string> files;
  std::vector<Binding> bindings;
  // The budget of one call; and a function's calls may fall behind a pace of
  // kPacePerCall by at most this much in total.
  std::chrono::milliseconds call_timeout{5000};
  std::chrono::milliseconds load_timeout{60000};
  std::uint64_t memory_bytes = 0;  // the child's address space; 0: no limit
};

// How the child bound each binding.
struct BindResult {
  bool bound = false;
  std::string qualified_name;  // the definition found: "compute_tp_mapping", "TpKVTopology.get_target_remote_ranks"
  std::string file;
  int line = 0;
  std::string skip_reason;  // not bound: what was looked for, or why it cannot be called
};

// Outcomes in case order. Ids are the session's own; an id's outcome comes
// (in `definitions`) with the first batch that uses it. The id
// kInlineOutcome (protocol.hpp) stands for the next of `inline_outcomes`.
struct OutcomeBatch {
  std::vector<std::pair<std::uint32_t, Actual>> definitions;
  std::vector<std::uint32_t> ids;
  std::vector<Actual> inline_outcomes;
};
using OutcomeSink = std::function<void(OutcomeBatch&&)>;

// An outcome as a run keeps it: its rendering is made once, and only when
// something shows it (a record, a baseline, a deviation).
struct KnownOutcome {
  Actual actual;
  mutable std::optional<std::string> rendering;
  const std::string& shown() const {
    if (!rendering) rendering = actual.rendered();
    return *rendering;
  }
};
// A session's outcomes by id: an id defined in one run may answer the cases
// of another (a deque: it grows without moving what it holds).
using KnownOutcomes = std::deque<KnownOutcome>;
// Takes a batch's definitions into `known`.
void learn(KnownOutcomes& known, OutcomeBatch& batch);

class Session {
 public:
  // Starts the child and binds the bindings. nullopt and `error` on a load
  // error (missing file, syntax error, import failure, no python).
  static std::optional<Session> open(ChildCommand command, std::string& error);

  const std::vector<BindResult>& bound() const { return bound_; }
  // "the Python child" or "the C++ child", for messages.
  std::string child_name() const;

  // Runs binding `index` on every case of the grid (`total` cases), handing
  // every case exactly one outcome, in order, to `sink`. With `mutant` >= 0,
  // the binding's mutant of that number (protocol.hpp's mutants request)
  // instead of the code as it is. When `stop` says so (it is asked after
  // each batch), the child is stopped and the cases left are not run.
  void run(std::size_t index, const std::string& grid_json, std::uint64_t total, const OutcomeSink& sink,
           std::int64_t mutant = -1, const std::function<bool()>& stop = {});

  // A question the child answers with one INFO frame (protocol.hpp's
  // info_request): its text, or nullopt and `error`.
  std::optional<std::string> ask(const std::string& op, std::size_t index, std::string& error);

  // Child incidents so far (restarts and why), for the report.
  const std::vector<std::string>& incidents() const { return incidents_; }
  // Child deaths that re-running the cases one at a time did not reproduce.
  std::uint64_t unexplained_deaths() const { return unexplained_deaths_; }
  // Forgets the incidents after the first `count` and the deaths after the
  // first `deaths`: those of runs that were not the code's own (mutants).
  void forget_incidents(std::size_t count, std::uint64_t deaths) {
    if (incidents_.size() > count) incidents_.resize(count);
    unexplained_deaths_ = std::min(unexplained_deaths_, deaths);
  }

  // A function is not called again after this many crashes of the child.
  static constexpr int kMaxCrashes = 3;
  // The pace a function must keep: connector rank arithmetic takes
  // microseconds per call, so a function that falls behind 10 ms per call by
  // more than the call budget in total (a grid of hours) is stopped.
  static constexpr std::chrono::milliseconds kPacePerCall{10};
  // A case that is a whole configuration (a driver makes its calls, up to
  // thousands, and stand-ins record them) keeps this pace instead.
  static constexpr std::chrono::milliseconds kPacePerConfiguration{100};

 private:
  explicit Session(ChildCommand command) : command_(std::move(command)) {}
  bool start(std::string& error);

  enum class End { Done, Crashed, TimedOut, Failed, Stopped };
  struct RunState;
  End run_once(std::size_t index, const std::string& grid_json, RunState& state, const OutcomeSink& sink);
  std::uint32_t define(OutcomeBatch& batch, Actual actual);

  ChildCommand command_;
  ChildProcess child_;
  std::vector<BindResult> bound_;
  std::vector<std::uint32_t> child_ids_;  // the current child's outcome ids -> the session's
  std::uint32_t next_id_ = 0;
  std::deque<Actual> inline_;  // the current child's exceptions not yet in a batch
  std::string input_;       // bytes from the child; those before parsed_ are parsed
  std::size_t parsed_ = 0;
  void compact_input();
  std::vector<std::string> incidents_;
  std::uint64_t unexplained_deaths_ = 0;
};

}  // namespace tpcheck::conform
