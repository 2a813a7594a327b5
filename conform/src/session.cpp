#include "tpcheck/conform/session.hpp"

#include <algorithm>

#include "tpcheck/conform/protocol.hpp"

namespace tpcheck::conform {

extern const char* const kChildSource;  // child_source.cpp, generated from child/tpcheck_conform_child.py

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

namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  const auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

std::string seconds(std::chrono::milliseconds ms) {
  const auto s = ms.count() / 1000.0;
  std::string out = std::to_string(s);
  out.erase(out.find_last_not_of('0') + 1);
  if (out.back() == '.') out.pop_back();
  return out + " s";
}

}  // namespace

std::optional<Session> Session::open(ChildCommand command, std::string& error) {
  Session s(std::move(command));
  if (!s.start(error)) return std::nullopt;
  return s;
}

bool Session::start(std::string& error) {
  std::vector<std::string> argv = {command_.python, "-c", kChildSource, command_.mode};
  argv.insert(argv.end(), command_.files.begin(), command_.files.end());
  argv.push_back("--bind");
  argv.push_back(join(command_.names, ","));
  child_ = ChildProcess::start(argv);
  if (!child_.running()) {
    error = child_.error();
    return false;
  }
  std::vector<std::optional<std::string>> bound;
  std::vector<std::string> lines;
  for (;;) {
    lines.clear();
    const auto status = child_.exchange("", 1, lines, command_.load_timeout);
    if (status == ChildProcess::Status::TimedOut) {
      error = "loading took longer than " + seconds(command_.load_timeout) + "; the child was killed";
      return false;
    }
    if (status != ChildProcess::Status::Done) {
      const std::string tail = last_line(child_.stderr_tail());
      error = "the Python child " + child_.end_description() + " while loading" + (tail.empty() ? "" : ": " + tail);
      return false;
    }
    const auto line = parse_handshake_line(lines[0]);
    if (!line) {
      child_.kill();
      error = "the Python child printed garbage while loading: '" + lines[0].substr(0, 200) + "'";
      return false;
    }
    if (line->tag == HandshakeLine::Tag::LoadError) {
      child_.kill();
      error = line->detail;
      return false;
    }
    if (line->tag == HandshakeLine::Tag::Ready) break;
    if (bound.size() >= command_.names.size() || line->name != command_.names[bound.size()]) {
      child_.kill();
      error = "the Python child answered for '" + line->name + "' out of order while loading";
      return false;
    }
    bound.push_back(line->tag == HandshakeLine::Tag::Bound ? std::optional<std::string>(line->detail) : std::nullopt);
  }
  if (bound.size() != command_.names.size()) {
    child_.kill();
    error = "the Python child bound " + std::to_string(bound.size()) + " of " +
            std::to_string(command_.names.size()) + " names";
    return false;
  }
  if (bound_.empty()) {
    bound_ = std::move(bound);
    crashes_.assign(bound_.size(), 0);
    abandoned_.assign(bound_.size(), false);
  } else if (bound != bound_) {
    child_.kill();
    error = "a restarted child bound different functions (did the files change during the run?)";
    return false;
  }
  return true;
}

std::size_t Session::run_batch(std::size_t index, const std::vector<std::vector<std::string>>& calls, std::size_t from,
                               std::size_t count, std::vector<Actual>& out, std::optional<Actual>& failure) {
  std::string input;
  const std::uint64_t first_seq = seq_;
  for (std::size_t k = 0; k < count; ++k) {
    input += request_line(seq_++, index, calls[from + k]);
    if ((k + 1) % kBatch == 0 || k + 1 == count) input += ".\n";
  }
  std::vector<std::string> lines;
  const auto status = child_.exchange(input, count, lines, command_.call_timeout);
  std::size_t answered = 0;
  for (const auto& line : lines) {
    const auto reply = parse_reply(line);
    if (!reply || reply->seq != first_seq + answered) {
      child_.kill();
      failure = Actual{Actual::Status::Crashed, "", "the child answered garbage: '" + line.substr(0, 200) + "'"};
      return answered;
    }
    out[from + answered] = reply->raised ? Actual{Actual::Status::Raised, reply->exception_class, reply->text}
                                         : Actual{Actual::Status::Value, "", reply->text};
    ++answered;
  }
  switch (status) {
    case ChildProcess::Status::Done: return answered;
    case ChildProcess::Status::TimedOut:
      failure = Actual{Actual::Status::TimedOut, "", "no answer within " + seconds(command_.call_timeout)};
      break;
    case ChildProcess::Status::LineTooLong:
      failure = Actual{Actual::Status::Crashed, "", "the child's answer exceeded 1 MiB"};
      break;
    case ChildProcess::Status::Died: {
      const std::string tail = last_line(child_.stderr_tail());
      failure = Actual{Actual::Status::Crashed, "", "the Python child " + child_.end_description() +
                                                        (tail.empty() ? "" : " (" + tail + ")")};
      break;
    }
  }
  return answered;
}

std::vector<Actual> Session::run(std::size_t index, const std::vector<std::vector<std::string>>& calls) {
  std::vector<Actual> out(calls.size(), Actual{Actual::Status::NotRun, "", ""});
  std::size_t i = 0;
  std::size_t single_until = 0;              // re-running [.., single_until) one call at a time
  std::optional<std::pair<std::size_t, Actual>> unexplained;  // a batch failure not yet pinned on a call
  while (i < calls.size()) {
    if (abandoned_[index]) {
      for (; i < calls.size(); ++i) out[i].text = "the function was abandoned after it hung or crashed";
      break;
    }
    if (!child_.running()) {
      std::string error;
      if (!start(error)) {
        incidents_.push_back("could not restart the Python child: " + error);
        abandoned_[index] = true;
        continue;
      }
    }
    // Everything left goes out at once, in batches the child answers one by
    // one, so the child never waits for tpcheck between batches.
    const bool single = i < single_until;
    const std::size_t count = single ? 1 : calls.size() - i;
    std::optional<Actual> failure;
    const std::size_t answered = run_batch(index, calls, i, count, out, failure);
    i += answered;
    if (!failure) {
      if (unexplained && i >= single_until) {
        // Every call of the failed batch ran fine alone: blame the first one
        // in flight, and say so.
        auto& [at, what] = *unexplained;
        out[at] = what;
        out[at].text += "; not reproduced when the batch's calls were re-run one at a time";
        unexplained.reset();
      }
      continue;
    }
    incidents_.push_back(command_.names[index] + ": " + failure->rendered());
    if (single) {
      out[i] = *failure;
      unexplained.reset();
      if (failure->status == Actual::Status::TimedOut || ++crashes_[index] >= kMaxCrashes) abandoned_[index] = true;
      ++i;
    } else {
      // Re-run the rest of the batch the failure happened in, alone.
      unexplained = std::make_pair(i, *failure);
      single_until = std::min(calls.size(), i + (kBatch - answered % kBatch));
    }
  }
  if (unexplained) out[unexplained->first] = unexplained->second;
  return out;
}

}  // namespace tpcheck::conform
