// fork/exec with pipes, and a poll() loop that interleaves writing requests
// with reading replies, so neither side can fill a pipe and wait on the other.
#include "tpcheck/conform/child_process.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <algorithm>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <utility>

#include "tpcheck/conform/protocol.hpp"

namespace tpcheck::conform {
namespace {

constexpr std::size_t kStderrTail = 4096;
// A connector function has no business allocating more; a runaway one hits
// MemoryError instead of swapping a shared machine.
constexpr rlim_t kChildAddressSpace = rlim_t{4} << 30;

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

}  // namespace

ChildProcess ChildProcess::start(const std::vector<std::string>& argv) {
  ChildProcess child;
  // A write to a child that died must come back as EPIPE, not kill tpcheck.
  std::signal(SIGPIPE, SIG_IGN);
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    child.error_ = std::string("cannot create pipes: ") + std::strerror(errno);
    return child;
  }
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  int exec_error[2];
  if (pipe2(exec_error, O_CLOEXEC) != 0) {
    child.error_ = std::string("cannot create pipes: ") + std::strerror(errno);
    return child;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    child.error_ = std::string("cannot fork: ") + std::strerror(errno);
    return child;
  }
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    const rlimit limit{kChildAddressSpace, kChildAddressSpace};
    setrlimit(RLIMIT_AS, &limit);
    execvp(cargv[0], cargv.data());
    const int e = errno;  // tell the parent why exec failed, then leave
    (void)!write(exec_error[1], &e, sizeof e);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  close(exec_error[1]);
  int e = 0;
  const ssize_t n = read(exec_error[0], &e, sizeof e);  // EOF (0) when exec succeeded
  close(exec_error[0]);
  child.pid_ = pid;
  child.in_ = in[1];
  child.out_ = out[0];
  child.err_ = err[0];
  if (n == static_cast<ssize_t>(sizeof e)) {
    child.error_ = "cannot run '" + argv[0] + "': " + std::strerror(e);
    child.reap(true);
    child.close_fds();
    return child;
  }
  set_nonblocking(child.in_);
  set_nonblocking(child.out_);
  set_nonblocking(child.err_);
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& o) noexcept { *this = std::move(o); }

ChildProcess& ChildProcess::operator=(ChildProcess&& o) noexcept {
  if (this != &o) {
    kill();
    close_fds();
    pid_ = std::exchange(o.pid_, -1);
    in_ = std::exchange(o.in_, -1);
    out_ = std::exchange(o.out_, -1);
    err_ = std::exchange(o.err_, -1);
    out_buffer_ = std::move(o.out_buffer_);
    scanned_ = o.scanned_;
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
  for (int* fd : {&in_, &out_, &err_}) {
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
    reap(true);
    close_fds();
  }
}

void ChildProcess::drain_stderr() {
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

ChildProcess::Status ChildProcess::exchange(const std::string& input, std::size_t want, std::vector<std::string>& lines,
                                            std::chrono::milliseconds quiet_limit) {
  using Clock = std::chrono::steady_clock;
  std::size_t written = 0;
  auto deadline = Clock::now() + quiet_limit;
  // scanned_: the buffer's prefix known to hold no newline, so a long line
  // arriving in many reads is scanned once, not once per read.
  auto take_lines = [&] {
    std::size_t start = 0;
    for (std::size_t nl; lines.size() < want && (nl = out_buffer_.find('\n', std::max(start, scanned_))) != std::string::npos;
         start = nl + 1) {
      lines.emplace_back(out_buffer_, start, nl - start);
    }
    out_buffer_.erase(0, start);
    scanned_ = lines.size() < want ? out_buffer_.size() : 0;
  };
  take_lines();
  while (lines.size() < want) {
    if (out_buffer_.size() > kMaxReplyLine) {
      kill();
      return Status::LineTooLong;
    }
    pollfd fds[3] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}, {written < input.size() ? in_ : -1, POLLOUT, 0}};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      drain_stderr();
      kill();
      return Status::TimedOut;
    }
    const int ready = poll(fds, 3, static_cast<int>(left));
    if (ready < 0 && errno != EINTR) {
      kill();
      return Status::Died;
    }
    if (fds[1].revents != 0) drain_stderr();
    if (fds[2].revents & (POLLERR | POLLHUP)) written = input.size();  // child closed stdin: replies tell the rest
    if (fds[2].revents & POLLOUT) {
      const ssize_t n = write(in_, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EINTR) written = input.size();
    }
    if (fds[0].revents != 0) {
      char buf[65536];
      bool eof = false;
      for (;;) {
        const ssize_t n = read(out_, buf, sizeof buf);
        if (n > 0) {
          out_buffer_.append(buf, static_cast<std::size_t>(n));
          deadline = Clock::now() + quiet_limit;
          if (out_buffer_.size() > kMaxReplyLine) break;
          continue;
        }
        eof = n == 0 || (errno != EAGAIN && errno != EINTR);
        break;
      }
      take_lines();
      if (eof && lines.size() < want) {
        drain_stderr();
        // Killing first bounds the wait (a child may close stdout and go on);
        // one that already ended keeps its own exit status.
        reap(true);
        close_fds();
        return Status::Died;
      }
    }
  }
  return Status::Done;
}

}  // namespace tpcheck::conform
