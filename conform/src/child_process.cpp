// fork/exec with pipes, and a poll() loop that interleaves writing requests
// with reading replies, so neither side can fill a pipe and wait on the other.
#include "tpcheck/conform/child_process.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

#include <utility>

namespace tpcheck::conform {
namespace {

constexpr std::size_t kStderrTail = 4096;

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = strsignal(sig);
    return "was killed by signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : "");
  }
  return "ended with wait status " + std::to_string(status);
}

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// In the forked child, before exec: only async-signal-safe calls. Places
// `from` at descriptor `to` (without close-on-exec).
void place(int from, int to) {
  if (from == to) {
    fcntl(to, F_SETFD, 0);
  } else {
    dup2(from, to);
  }
}

}  // namespace

ChildProcess ChildProcess::start(const std::vector<std::string>& argv, const ChildOptions& options) {
  ChildProcess child;
  // A write to a child that died must come back as EPIPE, not kill tpcheck.
  std::signal(SIGPIPE, SIG_IGN);
  int requests[2], replies[2], err[2], exec_error[2];
  for (int* p : {requests, replies, err, exec_error}) {
    if (pipe2(p, O_CLOEXEC) != 0) {
      child.error_ = std::string("cannot create pipes: ") + std::strerror(errno);
      return child;
    }
  }
  const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  // The environment is built before fork: the forked child may only make
  // async-signal-safe calls.
  std::vector<std::string> env_storage = options.environment;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const auto name = entry.substr(0, entry.find('=') + 1);
    const bool overridden = std::any_of(options.environment.begin(), options.environment.end(),
                                        [&](const std::string& o) { return o.compare(0, name.size(), name) == 0; });
    if (!overridden) env_storage.push_back(entry);
  }
  std::vector<char*> cenv;
  for (auto& e : env_storage) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    child.error_ = std::string("cannot fork: ") + std::strerror(errno);
    return child;
  }
  if (pid == 0) {
    // Descriptors 0-4 are the child's: move the pipe ends out of that range
    // first, so that no dup2 below overwrites one still to be placed.
    int fds[] = {null, err[1], requests[0], replies[1]};
    for (int& fd : fds) {
      if (fd >= 0 && fd <= 4) fd = fcntl(fd, F_DUPFD_CLOEXEC, 5);
    }
    if (fds[0] < 0) close(0);
    place(fds[0], 0);
    place(fds[1], 1);
    place(fds[1], 2);
    place(fds[2], 3);
    place(fds[3], 4);
    if (options.address_space_bytes != 0) {
      const rlimit limit{options.address_space_bytes, options.address_space_bytes};
      setrlimit(RLIMIT_AS, &limit);
    }
    execvpe(cargv[0], cargv.data(), cenv.data());
    const int e = errno;  // tell the parent why exec failed, then leave
    (void)!write(exec_error[1], &e, sizeof e);
    _exit(127);
  }
  if (null >= 0) close(null);
  close(requests[0]);
  close(replies[1]);
  close(err[1]);
  close(exec_error[1]);
  int e = 0;
  const ssize_t n = read(exec_error[0], &e, sizeof e);  // EOF (0) when exec succeeded
  close(exec_error[0]);
  child.pid_ = pid;
  child.requests_ = requests[1];
  child.replies_ = replies[0];
  child.err_ = err[0];
  if (n == static_cast<ssize_t>(sizeof e)) {
    child.error_ = "cannot run '" + argv[0] + "': " + std::strerror(e);
    child.reap(true);
    child.close_fds();
    return child;
  }
  // A roomy reply pipe: the child reports a burst of outcomes at a time, and
  // should not wait while tpcheck is not scheduled. Above
  // /proc/sys/fs/pipe-max-size (1 MiB by default) only root may go.
  if (fcntl(child.replies_, F_SETPIPE_SZ, 1 << 24) < 0) fcntl(child.replies_, F_SETPIPE_SZ, 1 << 20);
  set_nonblocking(child.requests_);
  set_nonblocking(child.replies_);
  set_nonblocking(child.err_);
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& o) noexcept { *this = std::move(o); }

ChildProcess& ChildProcess::operator=(ChildProcess&& o) noexcept {
  if (this != &o) {
    kill();
    close_fds();
    pid_ = std::exchange(o.pid_, -1);
    requests_ = std::exchange(o.requests_, -1);
    replies_ = std::exchange(o.replies_, -1);
    err_ = std::exchange(o.err_, -1);
    err_tail_ = std::move(o.err_tail_);
    error_ = std::move(o.error_);
    ended_ = std::move(o.ended_);
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  kill();
  close_fds();
}

void ChildProcess::close_fds() {
  for (int* fd : {&requests_, &replies_, &err_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

void ChildProcess::reap(bool force) {
  if (pid_ <= 0) return;
  if (force) ::kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  ended_ = describe_wait_status(status);
  pid_ = -1;
}

void ChildProcess::kill() {
  if (pid_ > 0) {
    drain_stderr();
    reap(true);
    close_fds();
  }
}

void ChildProcess::drain_stderr() {
  if (err_ < 0) return;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(err_, buf, sizeof buf);
    if (n <= 0) return;
    err_tail_.append(buf, static_cast<std::size_t>(n));
    if (err_tail_.size() > 2 * kStderrTail) err_tail_.erase(0, err_tail_.size() - kStderrTail);
  }
}

std::string ChildProcess::stderr_tail() const {
  return err_tail_.size() > kStderrTail ? err_tail_.substr(err_tail_.size() - kStderrTail) : err_tail_;
}

ChildProcess::Pump ChildProcess::pump(std::string& output, std::string& input, Clock::time_point deadline) {
  for (;;) {
    pollfd fds[3] = {{replies_, POLLIN, 0}, {err_, POLLIN, 0}, {output.empty() ? -1 : requests_, POLLOUT, 0}};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    const int ready = poll(fds, 3, static_cast<int>(std::clamp<long long>(left, 0, 60000)));
    if (ready < 0 && errno != EINTR) {
      kill();
      return Pump::Closed;
    }
    if (ready <= 0) {
      if (Clock::now() >= deadline) return Pump::Deadline;
      continue;
    }
    bool moved = false;
    if (fds[1].revents != 0) drain_stderr();
    if (fds[2].revents & (POLLERR | POLLHUP)) {
      output.clear();  // the child closed its requests: its replies tell the rest
      moved = true;
    } else if (fds[2].revents & POLLOUT) {
      const ssize_t n = write(requests_, output.data(), output.size());
      if (n > 0) {
        output.erase(0, static_cast<std::size_t>(n));
        moved = true;
      } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        output.clear();
      }
    }
    if (fds[0].revents != 0) {
      char buf[1 << 16];
      for (;;) {
        const ssize_t n = read(replies_, buf, sizeof buf);
        if (n > 0) {
          input.append(buf, static_cast<std::size_t>(n));
          moved = true;
          if (input.size() > (std::size_t{1} << 20)) return Pump::Progress;  // let the caller parse
          continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
          // Killing first bounds the wait (a child may close its replies and
          // go on); one that already ended keeps its own exit status.
          drain_stderr();
          reap(true);
          close_fds();
          return Pump::Closed;
        }
        break;
      }
    }
    if (moved) return Pump::Progress;
  }
}

}  // namespace tpcheck::conform
