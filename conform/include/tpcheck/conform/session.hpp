// Calls into the Python child, in batches over one pipe, surviving it: a
// child that dies, hangs or answers garbage is killed and restarted, the
// unanswered calls of that batch are re-run one at a time to find the one to
// blame, and a function that hangs (or crashed three times) is not called again.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "tpcheck/conform/child_process.hpp"

namespace tpcheck::conform {

// What one call did.
struct Actual {
  enum class Status { Value, Raised, Crashed, TimedOut, NotRun };
  Status status;
  std::string exception_class;  // Raised
  std::string text;             // repr, str(exception), or what happened to the child

  // tpcheck eval's notation: the repr, "Class: message", or "<...>" for the rest.
  std::string rendered() const;
};

struct ChildCommand {
  std::string python = "python3";
  std::string mode;  // "--source" or "--adapter"
  std::vector<std::string> files;
  std::vector<std::string> names;  // functions to bind, in index order
  std::chrono::milliseconds call_timeout{5000};
  std::chrono::milliseconds load_timeout{60000};
};

class Session {
 public:
  // Starts the child and binds the names. nullopt and `error` on a load
  // error (missing file, syntax error, import failure, no python).
  static std::optional<Session> open(ChildCommand command, std::string& error);

  // Where each name was found ("file:line"), or nullopt when no file defines it.
  const std::vector<std::optional<std::string>>& bound() const { return bound_; }

  // Calls function `index` on each argument list (protocol notation).
  std::vector<Actual> run(std::size_t index, const std::vector<std::vector<std::string>>& calls);

  // Child incidents so far (restarts and why), for the report.
  const std::vector<std::string>& incidents() const { return incidents_; }

  // Calls per batch; replies are expected within call_timeout of each other.
  static constexpr std::size_t kBatch = 512;
  // A function is not called again after this many crashes of the child.
  static constexpr int kMaxCrashes = 3;

 private:
  explicit Session(ChildCommand command) : command_(std::move(command)) {}
  bool start(std::string& error);
  // Calls [from, from + count) in batches of kBatch; returns how many got an
  // answer before a failure (all on success).
  std::size_t run_batch(std::size_t index, const std::vector<std::vector<std::string>>& calls, std::size_t from,
                        std::size_t count, std::vector<Actual>& out, std::optional<Actual>& failure);

  ChildCommand command_;
  ChildProcess child_;
  std::vector<std::optional<std::string>> bound_;
  std::vector<int> crashes_;
  std::vector<bool> abandoned_;
  std::vector<std::string> incidents_;
  std::uint64_t seq_ = 0;
};

}  // namespace tpcheck::conform
