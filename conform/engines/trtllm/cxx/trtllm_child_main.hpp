// The C++ child's main: the same protocol as the Python child
// (conform/include/tpcheck/conform/protocol.hpp), on the two descriptors
// tpcheck passes, for the functions compiled in with it. Included last by
// the translation unit tpcheck generates, which defines kExtracted (what was
// found where) before it. Grids come as explicit cases.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "trtllm_observe.hpp"

namespace tpcheck_trtllm {

// A JSON value of the requests tpcheck writes: this child is built on the
// user's machine with the standard library alone, so it reads the few shapes
// it needs itself (objects, arrays, strings, integers, true/false/null).
struct Json {
  std::variant<std::nullptr_t, bool, long long, std::string, std::vector<Json>, std::map<std::string, Json>> value;
  const Json* get(const std::string& key) const {
    const auto* object = std::get_if<std::map<std::string, Json>>(&value);
    if (!object) return nullptr;
    const auto it = object->find(key);
    return it == object->end() ? nullptr : &it->second;
  }
  const std::vector<Json>* array() const { return std::get_if<std::vector<Json>>(&value); }
  const std::string* string() const { return std::get_if<std::string>(&value); }
  const long long* integer() const { return std::get_if<long long>(&value); }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& text) : s_(text) {}
  bool read(Json& out) {
    if (!value(out, 0)) return false;
    space();
    return at_ == s_.size();
  }

 private:
  void space() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t' || s_[at_] == '\n' || s_[at_] == '\r')) ++at_;
  }
  bool word(const char* w) {
    const std::size_t n = std::strlen(w);
    if (s_.compare(at_, n, w) != 0) return false;
    at_ += n;
    return true;
  }
  bool string(std::string& out) {
    if (at_ >= s_.size() || s_[at_] != '"') return false;
    ++at_;
    while (at_ < s_.size() && s_[at_] != '"') {
      char c = s_[at_++];
      if (c == '\\') {
        if (at_ >= s_.size()) return false;
        const char e = s_[at_++];
        if (e == 'u') {
          if (s_.size() - at_ < 4) return false;
          const unsigned code = static_cast<unsigned>(std::stoul(s_.substr(at_, 4), nullptr, 16));
          at_ += 4;
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xc0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3f));
          } else {
            out += static_cast<char>(0xe0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (code & 0x3f));
          }
          continue;
        }
        c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
      }
      out += c;
    }
    if (at_ >= s_.size()) return false;
    ++at_;
    return true;
  }
  bool value(Json& out, int depth) {
    if (depth > 64) return false;
    space();
    if (at_ >= s_.size()) return false;
    const char c = s_[at_];
    if (c == '{') {
      ++at_;
      std::map<std::string, Json> object;
      space();
      if (at_ < s_.size() && s_[at_] == '}') {
        ++at_;
      } else {
        for (;;) {
          space();
          std::string key;
          if (!string(key)) return false;
          space();
          if (!word(":")) return false;
          if (!value(object[key], depth + 1)) return false;
          space();
          if (word("}")) break;
          if (!word(",")) return false;
        }
      }
      out.value = std::move(object);
      return true;
    }
    if (c == '[') {
      ++at_;
      std::vector<Json> array;
      space();
      if (at_ < s_.size() && s_[at_] == ']') {
        ++at_;
      } else {
        for (;;) {
          array.emplace_back();
          if (!value(array.back(), depth + 1)) return false;
          space();
          if (word("]")) break;
          if (!word(",")) return false;
        }
      }
      out.value = std::move(array);
      return true;
    }
    if (c == '"') {
      std::string text;
      if (!string(text)) return false;
      out.value = std::move(text);
      return true;
    }
    if (word("true")) return out.value = true, true;
    if (word("false")) return out.value = false, true;
    if (word("null")) return out.value = nullptr, true;
    const std::size_t start = at_;
    if (s_[at_] == '-') ++at_;
    while (at_ < s_.size() && s_[at_] >= '0' && s_[at_] <= '9') ++at_;
    if (at_ == start || at_ - start > 18) return false;
    out.value = std::stoll(s_.substr(start, at_ - start));
    return true;
  }

  const std::string& s_;
  std::size_t at_ = 0;
};

// Replies, as protocol.hpp frames them.
class Replies {
 public:
  explicit Replies(int fd) : fd_(fd) {}
  void line(const std::string& text) {
    out_ += text;
    out_ += '\n';
  }
  // The id of an outcome, defining it (in the next TEXTS frame) when new.
  std::uint32_t id(const Outcome& o) {
    std::string key = (o.raised ? "R" : "V") + o.cls + '\0' + o.text;
    const auto it = ids_.find(key);
    if (it != ids_.end()) return it->second;
    const auto id = static_cast<std::uint32_t>(ids_.size());
    ids_.emplace(std::move(key), id);
    pending_.push_back(o);
    return id;
  }
  void answer(std::uint32_t id) { answered_.push_back(id); }
  void flush() {
    if (!pending_.empty()) {
      std::string body = "[";
      u32(body, pending_.size());
      for (const auto& o : pending_) {
        if (o.raised) {
          body += ")\x02";
          str(body, o.cls.empty() ? std::string("exception") : o.cls);
        }
        str(body, o.text);
      }
      out_ += "TEXTS " + std::to_string(sent_) + " " + std::to_string(pending_.size()) + " " +
              std::to_string(body.size()) + "\n" + body;
      sent_ += pending_.size();
      pending_.clear();
    }
    if (!answered_.empty()) {
      out_ += "OUTCOMES " + std::to_string(answered_.size()) + "\n";
      for (const auto id : answered_) u32(out_, id);
      answered_.clear();
    }
    write_all();
  }
  void write_all() {
    std::size_t done = 0;
    while (done < out_.size()) {
      const ssize_t n = ::write(fd_, out_.data() + done, out_.size() - done);
      if (n <= 0) std::_Exit(4);  // tpcheck is gone
      done += static_cast<std::size_t>(n);
    }
    out_.clear();
  }

 private:
  static void u32(std::string& s, std::size_t v) {
    for (int shift = 0; shift < 32; shift += 8) s += static_cast<char>((v >> shift) & 0xff);
  }
  static void str(std::string& s, const std::string& text) {
    const std::string t = text.size() > (1u << 19) ? text.substr(0, 1u << 19) : text;
    s += 'u';
    u32(s, t.size());
    s += t;
  }
  int fd_;
  std::string out_;
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<Outcome> pending_;
  std::vector<std::uint32_t> answered_;
  std::size_t sent_ = 0;
};

inline std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) out += c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : std::string(1, c);
  return out;
}

// What a binding calls, from its name.
enum class View { Target, Send, Pick, Inquire, Unknown };
inline View view_of(const std::string& binding) {
  if (binding == "targetIRanks") return View::Target;
  if (binding == "CacheFormatter::needSendCache") return View::Send;
  if (binding == "CacheFormatter::pickRecvConnections") return View::Pick;
  if (binding == "CacheFormatter::inquireSupport") return View::Inquire;
  return View::Unknown;
}

struct BindingSpec {
  std::string name;
  std::vector<std::string> params;
  View view = View::Unknown;
};

inline Outcome run_case(Observer& o, View view, int rank) {
  switch (view) {
    case View::Target: return o.target_view(rank);
    case View::Send: return o.send_view(rank);
    case View::Pick: return o.pick_view(rank);
    case View::Inquire: return o.inquire_view();
    case View::Unknown: break;
  }
  return {true, "tpcheck", "no view for this binding"};
}

inline bool same_deployment(const Deployment& a, const Deployment& b) {
  return a.ctx.tp == b.ctx.tp && a.gen.tp == b.gen.tp && a.heads == b.heads && a.ctx.adp == b.ctx.adp &&
         a.gen.adp == b.gen.adp && a.ctx.stage_layers == b.ctx.stage_layers &&
         a.gen.stage_layers == b.gen.stage_layers && a.serving_group == b.serving_group &&
         a.asking_group == b.asking_group;
}

inline int protocol_fd(int fd) {
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 200);
  ::close(fd);
  return moved;
}

inline int child_main(int argc, char** argv) {
  if (argc != 4 || std::strcmp(argv[1], "--fds") != 0) {
    std::fprintf(stderr, "usage: %s --fds REQUESTS REPLIES\n", argv[0]);
    return 2;
  }
  const int requests = protocol_fd(std::atoi(argv[2]));
  Replies replies(protocol_fd(std::atoi(argv[3])));
  std::vector<BindingSpec> bindings;
  std::string buffer;
  char chunk[1 << 16];
  std::unique_ptr<Observer> observer;
  for (;;) {
    const auto newline = buffer.find('\n');
    if (newline == std::string::npos) {
      const ssize_t n = ::read(requests, chunk, sizeof chunk);
      if (n <= 0) return 0;
      buffer.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    const std::string line = buffer.substr(0, newline);
    buffer.erase(0, newline + 1);
    Json request;
    if (!JsonReader(line).read(request) || !request.get("op") || !request.get("op")->string()) {
      replies.line("FAILED " + escaped("the C++ child could not read a request"));
      replies.write_all();
      continue;
    }
    if (*request.get("op")->string() == "load") {
      const Json* list = request.get("bindings");
      if (!list || !list->array()) {
        replies.line("LOADERROR " + escaped("a load request without bindings"));
        replies.write_all();
        return 3;
      }
      for (std::size_t i = 0; i < list->array()->size(); ++i) {
        const Json& b = (*list->array())[i];
        BindingSpec spec;
        if (b.get("name") && b.get("name")->string()) spec.name = *b.get("name")->string();
        if (b.get("params") && b.get("params")->array()) {
          for (const Json& p : *b.get("params")->array()) spec.params.push_back(p.string() ? *p.string() : "");
        }
        spec.view = view_of(spec.name);
        const Extracted* found = nullptr;
        for (const auto& e : kExtracted) {
          if (spec.name == e.binding) found = &e;
        }
        if (found && found->found[0] != '\0' && spec.view != View::Unknown) {
          replies.line("BOUND " + std::to_string(i) + " " + found->found + " " + escaped(found->where));
        } else {
          replies.line("SKIPPED " + std::to_string(i) + " " +
                       escaped(found ? found->missing : "not a function of this child"));
        }
        bindings.push_back(std::move(spec));
      }
      replies.line("READY");
      replies.write_all();
      continue;
    }
    const Json* index = request.get("binding");
    const Json* grid = request.get("grid");
    const Json* blocks = grid ? grid->get("blocks") : nullptr;
    if (!index || !index->integer() || *index->integer() < 0 ||
        *index->integer() >= static_cast<long long>(bindings.size()) || !blocks || !blocks->array()) {
      replies.line("FAILED " + escaped("a run request the C++ child cannot read"));
      replies.write_all();
      continue;
    }
    const BindingSpec& b = bindings[static_cast<std::size_t>(*index->integer())];
    const long long from = request.get("from") && request.get("from")->integer() ? *request.get("from")->integer() : 0;
    long long total = 0;
    bool explicit_only = true;
    for (const Json& block : *blocks->array()) {
      const Json* cases = block.get("cases");
      if (!cases || !cases->array()) explicit_only = false;
      else total += static_cast<long long>(cases->array()->size());
    }
    if (!explicit_only) {
      replies.line("FAILED " + escaped("the C++ child takes grids of explicit cases only"));
      replies.write_all();
      continue;
    }
    replies.line("OUTCOMES 0");
    replies.write_all();
    long long at = 0;
    std::vector<long long> args;
    for (const Json& block : *blocks->array()) {
      for (const Json& c : *block.get("cases")->array()) {
        if (at++ < from) continue;
        args.clear();
        if (c.array()) {
          for (const Json& v : *c.array()) args.push_back(v.integer() ? *v.integer() : 0);
        }
        int rank = 0;
        Deployment dep = deployment_of(b.params, args, rank);
        if (!observer || !same_deployment(observer->deployment(), dep)) observer = std::make_unique<Observer>(dep);
        // Each answer goes out at once: a call that then hangs is the next
        // case, and tpcheck's budget for it starts at this answer.
        replies.answer(replies.id(run_case(*observer, b.view, rank)));
        replies.flush();
      }
    }
    replies.flush();
    replies.line("DONE " + std::to_string(total));
    replies.write_all();
  }
}

}  // namespace tpcheck_trtllm

int main(int argc, char** argv) { return tpcheck_trtllm::child_main(argc, argv); }
