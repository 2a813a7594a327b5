// One Python child process behind pipes, driven by poll() with a deadline:
// tpcheck never blocks on it, never dies of SIGPIPE from it, and kills it
// (SIGKILL) when it stops making progress.
//
// The child's standard input is /dev/null and its standard output and error
// go to one diagnostics pipe, so code under test that reads stdin or prints
// cannot touch the protocol, which uses two pipes of its own (passed as file
// descriptors 3 and 4; the child moves them out of the way at start).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace tpcheck::conform {

struct ChildOptions {
  std::uint64_t address_space_bytes = 0;  // RLIMIT_AS of the child; 0: none
  std::vector<std::string> environment;   // NAME=VALUE entries set over tpcheck's own
};

class ChildProcess {
 public:
  // Starts argv[0] (looked up in PATH) with the other arguments. On failure
  // returns a child that is not running, with error() saying why.
  static ChildProcess start(const std::vector<std::string>& argv, const ChildOptions& options);

  ChildProcess() = default;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();  // kills and reaps a child still running

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  const std::string& error() const { return error_; }

  using Clock = std::chrono::steady_clock;
  enum class Pump { Progress, Deadline, Closed };

  // Waits until `deadline` for the child: writes what it can of `output` to
  // the request pipe (erasing what was written), appends what it wrote on the
  // reply pipe to `input`, and keeps the tail of its diagnostics. Progress:
  // some bytes moved; Deadline: none before the deadline; Closed: the reply
  // pipe closed (the child is killed if still running, and reaped).
  Pump pump(std::string& output, std::string& input, Clock::time_point deadline);

  // Kills (SIGKILL) and reaps the child, if running.
  void kill();

  // How the child ended ("exited with status 3", "was killed by signal 9").
  const std::string& end_description() const { return ended_; }

  // The last few kilobytes of the child's stdout and stderr (tracebacks).
  std::string stderr_tail() const;

 private:
  void close_fds();
  void reap(bool force);
  void drain_stderr();

  pid_t pid_ = -1;
  int requests_ = -1, replies_ = -1, err_ = -1;
  std::string err_tail_;
  std::string error_;
  std::string ended_;
};

}  // namespace tpcheck::conform
