// One Python child process behind three pipes, driven by poll() with a
// deadline: tpcheck never blocks on it, never dies of SIGPIPE from it, and
// kills it (SIGKILL) when it stops making progress.
#pragma once

#include <chrono>
#include <string>
#include <sys/types.h>
#include <vector>

namespace tpcheck::conform {

class ChildProcess {
 public:
  // Starts argv[0] (looked up in PATH) with the other arguments. On failure
  // returns a child that is not running, with error() saying why.
  static ChildProcess start(const std::vector<std::string>& argv);

  ChildProcess() = default;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();  // kills and reaps a child still running

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  const std::string& error() const { return error_; }

  enum class Status { Done, Died, TimedOut, LineTooLong };

  // Writes `input` while reading complete lines from the child's stdout into
  // `lines` until it holds `want` lines (Done). Stops early when the child
  // closes its stdout (Died; the child is reaped) or when no byte arrives for
  // `quiet_limit` (TimedOut; the child is killed and reaped).
  Status exchange(const std::string& input, std::size_t want, std::vector<std::string>& lines,
                  std::chrono::milliseconds quiet_limit);

  // Kills (SIGKILL) and reaps the child, if running.
  void kill();

  // How the child ended ("exited with status 3", "killed by signal 9"), after Died.
  const std::string& end_description() const { return ended_; }

  // The last few kilobytes the child wrote to stderr (tracebacks).
  std::string stderr_tail() const;

 private:
  void close_fds();
  void reap(bool force);
  void drain_stderr();

  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  std::string out_buffer_;
  std::size_t scanned_ = 0;
  std::string err_tail_;
  std::string error_;
  std::string ended_;
};

}  // namespace tpcheck::conform
