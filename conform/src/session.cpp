#include "tpcheck/conform/session.hpp"

#include <algorithm>

#include "tpcheck/conform/protocol.hpp"

namespace tpcheck::conform {

extern const char* const kChildSource;  // embedded.cpp, generated from the child parts (conform/CMakeLists.txt)

const char* child_program() { return kChildSource; }

namespace {

// The child's source is longer than one argument of a program may be (Linux:
// 128 KiB), so `python -I -c` runs this loader, which reads the source from
// the requests descriptor before any request (its length in bytes on a line,
// then the bytes, read unbuffered so that the requests after it stay in the
// pipe) and runs it as __main__.
constexpr const char* kChildLoader =
    "import os\n"
    "def _tpcheck_child_source(fd):\n"
    "    line = b''\n"
    "    while not line.endswith(b'\\n'):\n"
    "        byte = os.read(fd, 1)\n"
    "        if not byte:\n"
    "            raise SystemExit('tpcheck conform child: no source on descriptor %d' % fd)\n"
    "        line += byte\n"
    "    size, source = int(line), bytearray()\n"
    "    while len(source) < size:\n"
    "        chunk = os.read(fd, size - len(source))\n"
    "        if not chunk:\n"
    "            raise SystemExit('tpcheck conform child: its source ends early on descriptor %d' % fd)\n"
    "        source += chunk\n"
    "    return bytes(source)\n"
    "exec(compile(_tpcheck_child_source(3), 'tpcheck_conform_child.py', 'exec'))\n";

// What the loader reads first on the requests descriptor.
std::string child_source_message() {
  const std::string source = kChildSource;
  return std::to_string(source.size()) + "\n" + source;
}

}  // namespace

namespace {

using Clock = ChildProcess::Clock;

// The child's timer reports progress every 20 ms; a call is cut off this long
// after its budget, so that the report's lag never cuts a call short.
constexpr std::chrono::milliseconds kGrace{150};
// After an unexplained death, at least this many cases are re-run one at a
// time (the child may have run that many since its last report).
constexpr std::uint64_t kMinCarefulCases = 1 << 17;

std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  const auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

std::string seconds(Clock::duration d) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  std::string out = std::to_string(ms / 1000);
  if (ms % 1000 != 0) {
    std::string frac = std::to_string(1000 + ms % 1000).substr(1);
    while (frac.back() == '0') frac.pop_back();
    out += "." + frac;
  }
  return out + " s";
}

// The environment of the child: connector functions need no threads of their
// own, and numpy's BLAS would otherwise reserve memory per core.
std::vector<std::string> child_environment() {
  return {"OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1"};
}

Actual crashed(std::string what) { return {Actual::Status::Crashed, "", std::move(what)}; }

}  // namespace

void learn(KnownOutcomes& known, OutcomeBatch& batch) {
  for (auto& [id, actual] : batch.definitions) {
    if (id >= known.size()) known.resize(id + 1);
    known[id].rendering.reset();
    known[id].actual = std::move(actual);
  }
}

std::string Session::child_name() const {
  return command_.executable.empty() ? "the Python child" : "the C++ child";
}

std::string Actual::rendered() const {
  switch (status) {
    case Status::Value: return text;
    case Status::Raised: return exception_class + ": " + text;
    case Status::Crashed: return "<crashed: " + text + ">";
    case Status::TimedOut: return "<timed out: " + text + ">";
    case Status::NotRun: return "<not run: " + text + ">";
  }
  return "";
}

struct Session::RunState {
  std::uint64_t total = 0;
  std::uint64_t next = 0;           // cases with an outcome so far
  std::uint64_t careful_until = 0;  // cases before this run one at a time
  std::uint64_t calls = 0;          // cases the child answered (for the pace)
  std::uint64_t largest_frame = 0;
  Clock::duration busy{};           // time the child spent on this function
  int crashes = 0;
  bool unexplained = false;  // a death whose case re-running has not found yet
  std::uint64_t unexplained_from = 0;
  std::string unexplained_what;
  Actual failure;
  std::int64_t mutant = -1;
  const std::function<bool()>* stop = nullptr;
};

std::optional<Session> Session::open(ChildCommand command, std::string& error) {
  Session s(std::move(command));
  if (!s.start(error)) return std::nullopt;
  return s;
}

bool Session::start(std::string& error) {
  // -I: no user site-packages and no working directory on sys.path (an ast.py
  // there must not replace the child's own imports); PYTHON* variables ignored.
  // A C++ child is a program built for the functions under test (cxx_build.hpp).
  const std::vector<std::string> argv =
      command_.executable.empty()
          ? std::vector<std::string>{command_.python, "-I", "-c", kChildLoader, "--fds", "3", "4"}
          : std::vector<std::string>{command_.executable, "--fds", "3", "4"};
  child_ = ChildProcess::start(argv, {command_.memory_bytes, child_environment()});
  if (!child_.running()) {
    error = child_.error();
    return false;
  }
  child_ids_.clear();
  inline_.clear();
  input_.clear();
  parsed_ = 0;
  std::string output = (command_.executable.empty() ? child_source_message() : std::string()) +
                       load_request(command_.mode, command_.files, command_.bindings);
  std::vector<BindResult> bound;
  const auto deadline = Clock::now() + command_.load_timeout;
  bool closed = false;
  auto fail = [&](std::string why) {
    child_.kill();
    error = std::move(why);
    return false;
  };
  for (;;) {
    const FrameParse p = parse_frame(std::string_view(input_).substr(parsed_));
    if (p.status == FrameParse::Status::Garbage) return fail(child_name() + " printed garbage while loading: " + p.problem);
    if (p.status == FrameParse::Status::Parsed) {
      parsed_ += p.consumed;
      const Frame& f = p.frame;
      if (f.tag == Frame::Tag::LoadError) return fail(f.detail);
      if (f.tag == Frame::Tag::Ready) break;
      if ((f.tag != Frame::Tag::Bound && f.tag != Frame::Tag::Skipped) || f.number != bound.size() ||
          bound.size() >= command_.bindings.size()) {
        return fail(child_name() + " answered out of order while loading");
      }
      BindResult r;
      r.bound = f.tag == Frame::Tag::Bound;
      if (r.bound) {
        r.qualified_name = f.name;
        const auto colon = f.detail.rfind(':');
        r.file = f.detail.substr(0, colon);
        r.line = colon == std::string::npos ? 0 : std::atoi(f.detail.c_str() + colon + 1);
      } else {
        r.skip_reason = f.detail;
      }
      bound.push_back(std::move(r));
      continue;
    }
    if (closed) {
      const std::string tail = last_line(child_.stderr_tail());
      error = child_name() + " " + child_.end_description() + " while loading" + (tail.empty() ? "" : ": " + tail);
      return false;
    }
    compact_input();
    const auto pumped = child_.pump(output, input_, deadline);
    if (pumped == ChildProcess::Pump::Deadline) {
      return fail("loading took longer than " + seconds(command_.load_timeout) + "; the child was killed");
    }
    closed = pumped == ChildProcess::Pump::Closed;
  }
  if (bound.size() != command_.bindings.size()) {
    return fail(child_name() + " bound " + std::to_string(bound.size()) + " of " +
                std::to_string(command_.bindings.size()) + " functions");
  }
  auto same = [](const BindResult& a, const BindResult& b) {
    return a.bound == b.bound && a.qualified_name == b.qualified_name && a.file == b.file && a.line == b.line;
  };
  if (bound_.empty()) {
    bound_ = std::move(bound);
  } else if (!std::equal(bound.begin(), bound.end(), bound_.begin(), bound_.end(), same)) {
    return fail("a restarted child bound different functions (did the files change during the run?)");
  }
  return true;
}

void Session::compact_input() {
  input_.erase(0, parsed_);
  parsed_ = 0;
}

std::uint32_t Session::define(OutcomeBatch& batch, Actual actual) {
  const std::uint32_t id = next_id_++;
  batch.definitions.emplace_back(id, std::move(actual));
  return id;
}

Session::End Session::run_once(std::size_t index, const std::string& grid_json, RunState& st, const OutcomeSink& sink) {
  std::string output = run_request(index, grid_json, st.next, st.careful_until, st.mutant);
  inline_.clear();  // a failed run's exceptions belong to no case of this one
  const auto started = Clock::now();
  auto last_progress = started;
  bool calling = false;  // the child has read the grid and started the calls
  const Clock::duration busy_before = st.busy;
  bool closed = false;
  OutcomeBatch batch;
  auto deliver = [&] {
    if (!batch.ids.empty() || !batch.definitions.empty()) sink(std::move(batch));
    batch = {};
  };
  auto end = [&](End how, Actual failure) {
    deliver();
    st.busy = busy_before + (Clock::now() - started);
    st.failure = std::move(failure);
    if (how != End::Done && child_.running()) child_.kill();
    return how;
  };
  for (;;) {
    const FrameParse p = parse_frame(std::string_view(input_).substr(parsed_));
    if (p.status == FrameParse::Status::Garbage) return end(End::Crashed, crashed("the child answered garbage: " + p.problem));
    if (p.status == FrameParse::Status::Parsed) {
      parsed_ += p.consumed;
      const Frame& f = p.frame;
      switch (f.tag) {
        case Frame::Tag::Text:
          if (f.number != child_ids_.size()) return end(End::Crashed, crashed("the child answered garbage: an outcome id out of order"));
          for (const OutcomeText& t : f.texts) {
            child_ids_.push_back(define(batch, t.raised ? Actual{Actual::Status::Raised, t.exception_class, t.text}
                                                        : Actual{Actual::Status::Value, "", t.text}));
          }
          break;
        case Frame::Tag::Errors:
          for (const OutcomeText& t : f.texts) inline_.push_back({Actual::Status::Raised, t.exception_class, t.text});
          break;
        case Frame::Tag::Outcomes:
          if (f.ids.size() > st.total - st.next) return end(End::Crashed, crashed("the child answered more cases than the grid has"));
          for (const std::uint32_t id : f.ids) {
            if (id == kInlineOutcome) {
              if (inline_.empty()) return end(End::Crashed, crashed("the child answered garbage: an exception it did not send"));
              batch.inline_outcomes.push_back(std::move(inline_.front()));
              inline_.pop_front();
              batch.ids.push_back(kInlineOutcome);
              continue;
            }
            if (id >= child_ids_.size()) return end(End::Crashed, crashed("the child answered garbage: an undefined outcome id"));
            batch.ids.push_back(child_ids_[id]);
          }
          st.next += f.ids.size();
          st.calls += f.ids.size();
          st.largest_frame = std::max<std::uint64_t>(st.largest_frame, f.ids.size());
          deliver();
          if (st.stop && *st.stop && (*st.stop)()) return end(End::Stopped, {});
          last_progress = Clock::now();  // an empty frame: the child starts calling
          calling = true;
          if (!f.ids.empty() && st.next < st.total) {
            // Calls that each stay within the budget may still add up to hours:
            // the function may fall behind its pace by at most the budget.
            const bool configurations = !command_.bindings[index].call.driver.empty();
            const auto pace = configurations ? kPacePerConfiguration : kPacePerCall;
            const auto used = busy_before + (last_progress - started);
            if (used > command_.call_timeout + pace * static_cast<std::int64_t>(st.calls)) {
              return end(End::TimedOut, {Actual::Status::TimedOut, "",
                                         std::to_string(st.calls) + (st.calls == 1 ? " call" : " calls") + " took " +
                                             seconds(used) + ", more than " + std::to_string(pace.count()) +
                                             " ms per call by over the " + seconds(command_.call_timeout) + " budget"});
            }
          }
          break;
        case Frame::Tag::Done:
          if (!inline_.empty()) return end(End::Crashed, crashed("the child answered garbage: an exception no case used"));
          if (f.number != st.total || st.next != st.total) {
            return end(End::Failed, crashed("the child's grid has " + std::to_string(f.number) + " cases and it answered " +
                                            std::to_string(st.next) + "; tpcheck's has " + std::to_string(st.total)));
          }
          return end(End::Done, {});
        case Frame::Tag::Failed: return end(End::Failed, crashed("the child could not run it: " + f.detail));
        default: return end(End::Crashed, crashed("the child answered garbage: a loading frame during a run"));
      }
      continue;
    }
    if (closed) {
      const std::string tail = last_line(child_.stderr_tail());
      return end(End::Crashed, crashed(child_name() + " " + child_.end_description() + (tail.empty() ? "" : " (" + tail + ")")));
    }
    // The call in flight has run at least since the last progress. Before the
    // calls start, the child reads the grid: that has the load budget.
    const auto budget = command_.call_timeout;
    const auto deadline = calling ? last_progress + budget + kGrace : started + command_.load_timeout;
    if (Clock::now() >= deadline) {
      if (!calling) return end(End::Failed, crashed("the child did not start the calls within " +
                                                     seconds(command_.load_timeout)));
      return end(End::TimedOut, {Actual::Status::TimedOut, "", "no answer within " + seconds(budget)});
    }
    compact_input();
    closed = child_.pump(output, input_, deadline) == ChildProcess::Pump::Closed;
  }
}

std::optional<std::string> Session::ask(const std::string& op, std::size_t index, std::string& error) {
  if (!child_.running() && !start(error)) return std::nullopt;
  std::string output = info_request(op, index);
  const auto deadline = Clock::now() + command_.load_timeout;
  bool closed = false;
  for (;;) {
    const FrameParse p = parse_frame(std::string_view(input_).substr(parsed_));
    if (p.status == FrameParse::Status::Garbage) {
      child_.kill();
      error = child_name() + " answered garbage: " + p.problem;
      return std::nullopt;
    }
    if (p.status == FrameParse::Status::Parsed) {
      parsed_ += p.consumed;
      if (p.frame.tag == Frame::Tag::Info) return p.frame.detail;
      child_.kill();
      error = p.frame.tag == Frame::Tag::Failed ? child_name() + " could not answer: " + p.frame.detail
                                                : child_name() + " answered out of order";
      return std::nullopt;
    }
    if (closed) {
      error = child_name() + " " + child_.end_description();
      return std::nullopt;
    }
    compact_input();
    const auto pumped = child_.pump(output, input_, deadline);
    if (pumped == ChildProcess::Pump::Deadline) {
      child_.kill();
      error = child_name() + " did not answer within " + seconds(command_.load_timeout);
      return std::nullopt;
    }
    closed = pumped == ChildProcess::Pump::Closed;
  }
}

void Session::run(std::size_t index, const std::string& grid_json, std::uint64_t total, const OutcomeSink& sink,
                  std::int64_t mutant, const std::function<bool()>& stop) {
  RunState st;
  st.total = total;
  st.mutant = mutant;
  st.stop = &stop;
  const std::string& name = command_.bindings[index].name;
  std::string not_run_why;
  auto settle_unexplained = [&](bool finished) {
    if (!st.unexplained || (!finished && st.next < st.careful_until)) return;
    incidents_.push_back(name + ": " + st.unexplained_what + "; not reproduced when cases " +
                         std::to_string(st.unexplained_from) + " to " + std::to_string(st.careful_until - 1) +
                         " were re-run one at a time");
    ++unexplained_deaths_;
    st.unexplained = false;
  };
  while (st.next < total && not_run_why.empty()) {
    if (!child_.running()) {
      std::string error;
      if (!start(error)) {
        incidents_.push_back("could not restart " + child_name() + ": " + error);
        not_run_why = child_name() + " could not be restarted";
        break;
      }
    }
    const End how = run_once(index, grid_json, st, sink);
    settle_unexplained(false);
    if (how == End::Done) continue;
    if (how == End::Stopped) {
      not_run_why = "stopped: enough of its cases were run";
      break;
    }
    incidents_.push_back(name + ": " + st.failure.rendered());
    OutcomeBatch batch;
    if (how == End::Failed) {
      not_run_why = child_name() + " could not run it";
    } else if (how == End::TimedOut) {
      batch.ids.push_back(define(batch, st.failure));
      ++st.next;
      not_run_why = "the function was abandoned after a call ran past its budget";
    } else if (st.next < st.careful_until) {
      // Cases run one at a time: the one in flight is the one that crashed.
      batch.ids.push_back(define(batch, st.failure));
      ++st.next;
      st.unexplained = false;
      if (++st.crashes >= kMaxCrashes) not_run_why = "the function was abandoned after it crashed the child 3 times";
    } else {
      // Re-run what the child may have run since its last report, one case at a time.
      st.careful_until = st.next + std::max(kMinCarefulCases, 4 * st.largest_frame);
      st.unexplained = true;
      st.unexplained_from = st.next;
      st.unexplained_what = st.failure.rendered();
    }
    if (!batch.ids.empty()) sink(std::move(batch));
  }
  settle_unexplained(true);
  if (st.next < total) {
    OutcomeBatch batch;
    const std::uint32_t id = define(batch, {Actual::Status::NotRun, "", not_run_why});
    batch.ids.assign(total - st.next, id);
    sink(std::move(batch));
  }
}

}  // namespace tpcheck::conform
