// Reading a driver's answer (capture.hpp).
#include "capture.hpp"

#include <charconv>

#include "tpcheck/conform/protocol.hpp"

namespace tpcheck::conform::capture {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const auto at = text.find(separator, start);
    out.push_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

namespace {

std::optional<std::int64_t> read_int64(std::string_view word) {
  std::int64_t v = 0;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), v);
  if (word.empty() || error != std::errc{} || end != word.data() + word.size()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> read_u64(std::string_view word) {
  std::uint64_t v = 0;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), v);
  if (word.empty() || error != std::errc{} || end != word.data() + word.size()) return std::nullopt;
  return v;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// "Class|escaped message" as the child writes an exception: "Class: message".
std::string exception_of(std::string_view text) {
  const auto bar = text.find('|');
  if (bar == std::string_view::npos) return std::string(text);
  std::string message;
  if (!unescape(text.substr(bar + 1), message)) message = std::string(text.substr(bar + 1));
  return std::string(text.substr(0, bar)) + ": " + message;
}

class TreeReader {
 public:
  explicit TreeReader(std::string_view text) : s_(text) {}
  std::optional<IntTree> tree(int depth = 0) {
    if (depth > 16 || i_ >= s_.size()) return std::nullopt;
    const std::size_t start = i_;
    IntTree t;
    const char open = s_[i_];
    if (open == '[' || open == '(') {
      const char close = open == '[' ? ']' : ')';
      t.is_list = true;
      ++i_;
      if (i_ < s_.size() && s_[i_] == close) {
        ++i_;
      } else {
        for (;;) {
          auto item = tree(depth + 1);
          if (!item) return std::nullopt;
          t.items.push_back(std::move(*item));
          if (i_ < s_.size() && s_[i_] == ',') {
            ++i_;
            continue;
          }
          if (i_ < s_.size() && s_[i_] == close) {
            ++i_;
            break;
          }
          return std::nullopt;
        }
      }
    } else {
      while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != ']' && s_[i_] != ')') ++i_;
      if (i_ == start) return std::nullopt;
      t.value = read_int64(s_.substr(start, i_ - start));
    }
    t.text = std::string(s_.substr(start, i_ - start));
    return t;
  }
  bool at_end() const { return i_ == s_.size(); }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

bool Value::inexact_float() const {
  if (form != Form::NotInteger || text.rfind("?float:", 0) != 0) return false;
  double v = 0;
  const std::string_view number = std::string_view(text).substr(7);
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), v);
  return error == std::errc{} && (v >= 9007199254740992.0 || v <= -9007199254740992.0);
}

Value read_value(std::string_view word) {
  Value v;
  const bool negative = !word.empty() && word[0] == '-';
  const std::string_view digits = negative ? word.substr(1) : word;
  const bool integer = all_digits(digits);
  std::uint64_t magnitude = 0;
  const bool fits = integer && std::from_chars(digits.data(), digits.data() + digits.size(), magnitude).ec == std::errc{};
  if (fits && (!negative || magnitude == 0)) {  // "-0" is 0
    v.form = Value::Form::U64;
    v.u64 = magnitude;
    return v;
  }
  v.text = std::string(word);
  if (!integer) return v;
  v.form = negative ? Value::Form::Negative : Value::Form::TooLarge;
  v.u64 = fits ? magnitude : 0;
  return v;
}

std::vector<Value> read_values(std::string_view text) {
  std::vector<Value> out;
  if (text == "-" || text.empty()) return out;
  for (const auto word : split(text, ',')) out.push_back(read_value(word));
  return out;
}

std::optional<IntTree> read_int_tree(std::string_view text) {
  TreeReader r(text);
  auto t = r.tree();
  if (!t || !r.at_end()) return std::nullopt;
  return t;
}

std::optional<std::vector<std::int64_t>> flat_ints(const IntTree& tree) {
  if (!tree.is_list) return std::nullopt;
  std::vector<std::int64_t> out;
  for (const auto& item : tree.items) {
    if (item.is_list || !item.value) return std::nullopt;
    out.push_back(*item.value);
  }
  return out;
}

std::vector<Item> read_items(std::string_view text, std::size_t& malformed) {
  std::vector<Item> out;
  malformed = 0;
  if (text.empty()) return out;
  for (const auto line : split(text, '\n')) {
    const auto bar = line.find('|');
    if (bar == std::string_view::npos || bar + 1 >= line.size()) {
      ++malformed;
      continue;
    }
    Item item;
    bool ok = true;
    for (const auto word : split(line.substr(0, bar), ' ')) {
      const auto v = read_int64(word);
      ok = ok && v.has_value();
      if (v) item.coords.push_back(*v);
    }
    const std::string_view payload = line.substr(bar + 1);
    if (payload[0] == '=') {
      item.value = std::string(payload.substr(1));
    } else if (payload[0] == '!') {
      item.raised = true;
      const std::string e = exception_of(payload.substr(1));
      const auto colon = e.find(": ");
      item.exception_class = e.substr(0, colon);
      item.message = colon == std::string::npos ? "" : e.substr(colon + 2);
    } else {
      ok = false;
    }
    if (!ok) {
      ++malformed;
      continue;
    }
    out.push_back(std::move(item));
  }
  return out;
}

namespace {

// A descriptor list: its handle, and its rows, ; between rows ("-": none);
// nothing when the handle is not one.
std::optional<DescriptorList> read_list(std::string_view handle, std::string_view rows) {
  const auto h = read_u64(handle);
  if (!h) return std::nullopt;
  DescriptorList list;
  list.handle = *h;
  if (rows != "-") {
    for (const auto row : split(rows, ';')) list.rows.push_back(read_values(row));
  }
  return list;
}

// A transfer prepared between two lists: its handle and the lists; nothing
// when the handle is not one.
std::optional<PreparedTransfer> read_transfer(std::string_view handle, std::string_view src_list,
                                              std::string_view dst_list) {
  const auto h = read_u64(handle);
  if (!h) return std::nullopt;
  PreparedTransfer x;
  x.handle = *h;
  x.src_list = read_value(src_list);
  x.dst_list = read_value(dst_list);
  return x;
}

}  // namespace

TransferLog read_transfer_log(std::string_view text) {
  TransferLog log;
  if (text.empty()) return log;
  Send* send = nullptr;
  for (const auto line : split(text, '\n')) {
    const auto words = split(line, ' ');
    const std::string_view tag = words[0];
    auto bad = [&] { ++log.malformed; };
    if (tag == "pairs" && words.size() >= 3) {
      Pairing p;
      const auto d = read_int64(words[1]);
      if (!d) {
        bad();
        continue;
      }
      p.d = *d;
      const std::string_view rest = line.substr(words[0].size() + words[1].size() + 2);
      if (!rest.empty() && rest[0] == '!') {
        p.raised = true;
        p.exception = exception_of(rest.substr(1));
      } else {
        bool ok = true;
        for (const auto& v : read_values(rest)) {
          const auto s = read_int64(v.shown());
          ok = ok && s.has_value();
          if (s) p.senders.push_back(*s);
        }
        if (!ok) {
          bad();
          continue;
        }
      }
      log.pairings.push_back(std::move(p));
    } else if (tag == "send" && words.size() == 3) {
      const auto p = read_int64(words[1]), d = read_int64(words[2]);
      if (!p || !d) {
        bad();
        send = nullptr;
        continue;
      }
      log.sends.push_back({});
      send = &log.sends.back();
      send->p = *p;
      send->d = *d;
    } else if (send == nullptr) {
      bad();
    } else if (tag == "B" && words.size() == 4) {
      send->batches.push_back({read_values(words[1]), read_values(words[2]), read_values(words[3])});
    } else if (tag == "L" && words.size() == 5 && !words[2].empty() && words[2][0] == '=') {
      auto list = read_list(words[1], words[4]);
      if (!list) {
        bad();
        continue;
      }
      list->agent = std::string(words[2].substr(1));
      send->lists.push_back(std::move(*list));
    } else if (tag == "X" && words.size() == 7) {
      auto x = read_transfer(words[1], words[3], words[5]);
      if (!x) {
        bad();
        continue;
      }
      x->src_indices = read_values(words[4]);
      x->dst_indices = read_values(words[6]);
      send->transfers.push_back(std::move(*x));
    } else if (tag == "G" && words.size() == 4) {
      // get_xfer_descs: a handle, the memory kind, the rows.
      auto list = read_list(words[1], words[3]);
      if (!list) {
        bad();
        continue;
      }
      list->descs_only = true;
      send->lists.push_back(std::move(*list));
    } else if (tag == "I" && words.size() == 5) {
      // initialize_xfer: a handle, the operation, the source and destination descriptors.
      auto x = read_transfer(words[1], words[3], words[4]);
      if (!x) {
        bad();
        continue;
      }
      x->whole_lists = true;
      send->transfers.push_back(std::move(*x));
    } else if (tag == "W" && words.size() == 2) {
      send->watched.emplace_back(words[1]);
    } else if (tag == "T" && words.size() == 2) {
      const auto handle = read_u64(words[1]);
      for (auto& x : send->transfers) {
        if (handle && x.handle == *handle) x.posted = true;
      }
    } else if (tag == "R" && words.size() == 2) {
      send->returned = true;
      if (words[1] != "None") send->result = read_value(words[1]);
    } else if (tag == "!" && words.size() >= 2) {
      send->exception = exception_of(line.substr(2));
    } else {
      bad();
    }
  }
  return log;
}

std::string LogLine::joined(std::size_t first) const {
  std::string s;
  for (std::size_t i = first; i < words.size(); ++i) s += (i > first ? " " : "") + std::string(words[i]);
  return s;
}

std::vector<LogLine> read_log_lines(std::string_view text) {
  std::vector<LogLine> out;
  for (std::string_view line : split(text, '\n')) {
    LogLine l;
    while (!line.empty()) {
      const auto space = line.find(' ');
      const auto word = line.substr(0, space);
      if (!word.empty() && word.front() == '!') {
        const auto rest = line.substr(1);
        const auto bar = rest.find('|');
        l.raised = true;
        l.exception_class = std::string(rest.substr(0, bar));
        if (bar != std::string_view::npos && !unescape(rest.substr(bar + 1), l.message)) {
          l.message = std::string(rest.substr(bar + 1));
        }
        break;
      }
      if (!word.empty()) l.words.push_back(word);
      if (space == std::string_view::npos) break;
      line.remove_prefix(space + 1);
    }
    if (!l.words.empty()) out.push_back(std::move(l));
  }
  return out;
}

}  // namespace tpcheck::conform::capture
