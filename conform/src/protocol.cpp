// The child's frames (strict, allocation-bounded, never throwing). The
// requests tpcheck sends are in requests.cpp.
#include "tpcheck/conform/protocol.hpp"

#include <charconv>
#include <cstring>

#include "tpcheck/concat.hpp"
#include "tpcheck/pyint.hpp"
#include "tpcheck/text_scan.hpp"

namespace tpcheck::conform {
namespace {

// Splits off the first space-separated word; the rest stays in `line`.
std::string_view take_word(std::string_view& line) {
  const auto space = line.find(' ');
  const std::string_view word = line.substr(0, space);
  line = space == std::string_view::npos ? std::string_view{} : line.substr(space + 1);
  return word;
}

// `qualified`: a name with its class, Python's `A.b` or C++'s `A::b`.
bool is_identifier(std::string_view s, bool qualified) {
  if (s.empty()) return false;
  for (const char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    (qualified && (c == '.' || c == ':'));
    if (!ok) return false;
  }
  return true;
}

// An exception class as Python names it: any printable word.
bool is_class_name(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (static_cast<unsigned char>(c) <= ' ' || c == '\x7f') return false;
  }
  return true;
}

std::optional<std::uint64_t> number(std::string_view word) {
  std::uint64_t v = 0;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), v);
  if (word.empty() || error != std::errc{} || end != word.data() + word.size()) return std::nullopt;
  if (word.size() > 1 && word[0] == '0') return std::nullopt;  // one spelling per number
  return v;
}

FrameParse garbage(std::string problem) {
  FrameParse p;
  p.status = FrameParse::Status::Garbage;
  p.problem = std::move(problem);
  return p;
}

FrameParse line_too_long() {
  return garbage(concat({"a line longer than ", static_cast<std::int64_t>(kMaxHeaderLine), " bytes"}));
}

// The header's fields after the tag; false on anything else.
bool parse_header(std::string_view tag, std::string_view rest, Frame& f, std::uint64_t& payload,
                  std::uint64_t& text_count) {
  payload = 0;
  text_count = 0;
  auto escaped_rest = [&](std::string& into) { return unescape(rest, into); };
  if (tag == "READY") {
    f.tag = Frame::Tag::Ready;
    return rest.empty();
  }
  if (tag == "LOADERROR" || tag == "FAILED") {
    f.tag = tag == "FAILED" ? Frame::Tag::Failed : Frame::Tag::LoadError;
    return escaped_rest(f.detail);
  }
  if (tag == "DONE") {
    f.tag = Frame::Tag::Done;
    const auto n = number(rest);
    if (!n) return false;
    f.number = *n;
    return true;
  }
  if (tag == "INFO") {
    f.tag = Frame::Tag::Info;
    const auto n = number(rest);
    if (!n || *n > kMaxTextsBytes) return false;
    payload = *n;
    return true;
  }
  if (tag == "OUTCOMES") {
    f.tag = Frame::Tag::Outcomes;
    const auto n = number(rest);
    if (!n || *n > kMaxOutcomesPerFrame) return false;
    payload = *n * 4;
    return true;
  }
  const auto first = number(take_word(rest));
  if (!first) return false;
  f.number = *first;
  if (tag == "BOUND") {
    f.tag = Frame::Tag::Bound;
    const std::string_view name = take_word(rest);
    if (!is_identifier(name, true)) return false;
    f.name = std::string(name);
    return escaped_rest(f.detail);
  }
  if (tag == "SKIPPED") {
    f.tag = Frame::Tag::Skipped;
    return escaped_rest(f.detail);
  }
  return false;
}

// TEXTS <first id> <count> <bytes>: the outcomes of new ids; ERRORS <count>
// <bytes>: exceptions inline.
bool parse_texts_header(std::string_view tag, std::string_view rest, Frame& f, std::uint64_t& payload,
                        std::uint64_t& count) {
  const bool with_ids = tag == "TEXTS";
  f.tag = with_ids ? Frame::Tag::Text : Frame::Tag::Errors;
  const auto first = with_ids ? number(take_word(rest)) : std::optional<std::uint64_t>(0);
  const auto n = number(take_word(rest));
  const auto bytes = number(rest);
  if (!first || !n || !bytes || *n == 0 || *n > kMaxTextsPerFrame || *bytes > kMaxTextsBytes ||
      *first + *n > UINT32_MAX) {
    return false;
  }
  f.number = *first;
  count = *n;
  payload = *bytes;
  return true;
}

// The outcomes of a TEXTS frame: a list that Python's marshal.dumps(list, 4)
// wrote, of `texts.size()` items, each an int ('i', or 'l' in 15-bit digits),
// None ('N'), a str (a value's repr: 'u', 't', 'a', 'A' with a 4-byte length,
// 'z', 'Z' with a 1-byte one), or a pair of str (an exception's class and
// message: ')' or '('), or a reference ('r' and a 4-byte index) to an object
// read before. An object whose type byte has 0x80 set takes the next slot of
// the reference table. Anything else is garbage.
class MarshalReader {
 public:
  explicit MarshalReader(std::string_view body) : body_(body) {}

  bool outcomes(std::vector<OutcomeText>& texts) {
    std::uint32_t n = 0;
    if (start('[') == kBad || !u32(n) || n != texts.size()) return false;
    for (OutcomeText& t : texts) {
      if (!item(t)) return false;
    }
    return at_ == body_.size();
  }

 private:
  static constexpr int kBad = -2, kNoSlot = -1;

  // Reads a type byte that must be `code`; returns its reference slot, kNoSlot, or kBad.
  int start(char code) {
    if (at_ == body_.size() || (body_[at_] & 0x7f) != code) return kBad;
    if (!(body_[at_++] & 0x80)) return kNoSlot;
    refs_.emplace_back();
    return static_cast<int>(refs_.size() - 1);
  }

  bool u32(std::uint32_t& v) {
    if (body_.size() - at_ < 4) return false;
    const auto* b = reinterpret_cast<const unsigned char*>(body_.data() + at_);
    v = std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8 | std::uint32_t(b[2]) << 16 | std::uint32_t(b[3]) << 24;
    at_ += 4;
    return true;
  }

  // One object: a str, an int, None, or (if allowed) a pair of str.
  // `was_str`: whether it was a str.
  bool object(OutcomeText& t, bool pair_allowed, bool& was_str) {
    was_str = false;
    if (at_ == body_.size()) return false;
    const unsigned char type = static_cast<unsigned char>(body_[at_]);
    const char code = static_cast<char>(type & 0x7f);
    if (code == 'r') {
      std::uint32_t slot = 0;
      ++at_;
      if ((type & 0x80) || !u32(slot) || slot >= refs_.size() || !refs_[slot]) return false;
      t = refs_[slot]->first;
      was_str = refs_[slot]->second;
      return pair_allowed || !t.raised;
    }
    const int slot = start(code);
    if (code == 'N') {
      t = {false, {}, "None"};
    } else if (code == 'i') {
      std::uint32_t v = 0;
      if (!u32(v)) return false;
      t = {false, {}, std::to_string(static_cast<std::int32_t>(v))};
    } else if (code == 'l') {
      std::uint32_t size = 0;
      if (!u32(size)) return false;
      const std::int32_t digits = static_cast<std::int32_t>(size);
      const std::uint64_t count = digits < 0 ? -static_cast<std::int64_t>(digits) : digits;
      if (count == 0 || (body_.size() - at_) / 2 < count) return false;
      BigInt value = 0;
      for (std::uint64_t i = count; i-- > 0;) {
        const auto* b = reinterpret_cast<const unsigned char*>(body_.data() + at_ + 2 * i);
        const unsigned digit = b[0] | unsigned(b[1]) << 8;
        if (digit >= (1u << 15) || (i + 1 == count && digit == 0)) return false;  // one spelling per number
        value = (value << 15) + digit;
      }
      at_ += 2 * count;
      t = {false, {}, decimal(digits < 0 ? BigInt(-value) : value)};
    } else if (code == ')' || code == '(') {
      std::uint32_t n = 0;
      if (code == ')') {
        if (at_ == body_.size()) return false;
        n = static_cast<unsigned char>(body_[at_++]);
      } else if (!u32(n)) {
        return false;
      }
      OutcomeText cls, message;
      bool cls_str = false, message_str = false;
      if (!pair_allowed || n != 2 || !object(cls, false, cls_str) || !object(message, false, message_str)) return false;
      if (!cls_str || !message_str || !is_class_name(cls.text)) return false;
      t = {true, std::move(cls.text), std::move(message.text)};
    } else {
      std::uint32_t length = 0;
      if (code == 'z' || code == 'Z') {
        if (at_ == body_.size()) return false;
        length = static_cast<unsigned char>(body_[at_++]);
      } else if (code == 'u' || code == 't' || code == 'a' || code == 'A') {
        if (!u32(length)) return false;
      } else {
        return false;
      }
      if (body_.size() - at_ < length || length > kMaxOutcomeBytes) return false;
      t = {false, {}, std::string(body_.substr(at_, length))};
      at_ += length;
      was_str = true;
    }
    if (slot >= 0) refs_[static_cast<std::size_t>(slot)] = std::make_pair(t, was_str);
    return true;
  }

  bool item(OutcomeText& t) {
    bool was_str = false;
    return object(t, true, was_str);
  }

  std::string_view body_;
  std::size_t at_ = 0;
  std::vector<std::optional<std::pair<OutcomeText, bool>>> refs_;  // an object, and whether a str
};

// An ERRORS frame's exceptions: 2 * count little-endian uint32 byte lengths
// (class name, message, class name, ...), then those strings back to back.
bool read_exceptions(std::string_view body, std::vector<OutcomeText>& texts) {
  const std::size_t lengths = 2 * texts.size();
  if (body.size() / 4 < lengths) return false;
  std::size_t at = 4 * lengths;
  auto piece = [&](std::size_t i, std::string& into) {
    const auto* b = reinterpret_cast<const unsigned char*>(body.data() + 4 * i);
    const std::size_t n =
        std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8 | std::uint32_t(b[2]) << 16 | std::uint32_t(b[3]) << 24;
    if (n > kMaxOutcomeBytes || body.size() - at < n) return false;
    into.assign(body.substr(at, n));
    at += n;
    return true;
  };
  for (std::size_t i = 0; i < texts.size(); ++i) {
    OutcomeText& t = texts[i];
    t.raised = true;
    if (!piece(2 * i, t.exception_class) || !is_class_name(t.exception_class) || !piece(2 * i + 1, t.text)) return false;
  }
  return at == body.size();
}

}  // namespace

// Both copy the runs between special characters whole: a child's text is
// mostly plain, and appending a character at a time was the largest single
// cost of fuzz_conform_protocol (perf). The runs are found by text_scan, not
// string_view::find_first_of, which asks memchr once per character (and a
// fuzz build intercepts every memchr).
void escape(std::string_view text, std::string& out) {
  static constexpr text_scan::ByteSet kSpecial("\\\n\r");
  out.clear();
  out.reserve(text.size());
  std::size_t from = 0;
  for (std::size_t at = text_scan::find_first_of(text, kSpecial); at != std::string_view::npos;
       at = text_scan::find_first_of(text, kSpecial, from)) {
    out.append(text.substr(from, at - from));
    out += text[at] == '\\' ? "\\\\" : text[at] == '\n' ? "\\n" : "\\r";
    from = at + 1;
  }
  out.append(text.substr(from));
}

bool unescape(std::string_view text, std::string& out) {
  out.clear();
  if (text.find('\n') != std::string_view::npos) return false;  // raw or escaped, never in a field
  out.reserve(text.size());
  std::size_t from = 0;
  for (std::size_t at = text.find('\\'); at != std::string_view::npos; at = text.find('\\', from)) {
    out.append(text.substr(from, at - from));
    if (at + 1 == text.size()) return false;
    switch (text[at + 1]) {
      case '\\': out += '\\'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      default: return false;
    }
    from = at + 2;
  }
  out.append(text.substr(from));
  return true;
}

std::string escape(std::string_view text) {
  std::string out;
  escape(text, out);
  return out;
}

std::optional<std::string> unescape(std::string_view text) {
  std::string out;
  if (!unescape(text, out)) return std::nullopt;
  return out;
}

FrameParse parse_frame(std::string_view buffer) {
  const auto newline = buffer.find('\n');
  if (newline == std::string_view::npos) {
    if (buffer.size() > kMaxHeaderLine) return line_too_long();
    return {};
  }
  if (newline > kMaxHeaderLine) return line_too_long();
  std::string_view rest = buffer.substr(0, newline);
  const std::string_view tag = take_word(rest);
  FrameParse p;
  std::uint64_t payload = 0, text_count = 0;
  const bool texts = tag == "TEXTS" || tag == "ERRORS";
  if (!(texts ? parse_texts_header(tag, rest, p.frame, payload, text_count)
              : parse_header(tag, rest, p.frame, payload, text_count))) {
    return garbage(concat({"'", buffer.substr(0, std::min<std::size_t>(newline, 200)), "'"}));
  }
  const std::size_t start = newline + 1;
  if (buffer.size() - start < payload) return {};  // the payload is still on its way
  const std::string_view body = buffer.substr(start, payload);
  if (texts) {
    p.frame.texts.resize(text_count);
    if (!(tag == "TEXTS" ? MarshalReader(body).outcomes(p.frame.texts) : read_exceptions(body, p.frame.texts))) {
      return garbage(concat({"a ", tag, " frame whose outcomes are not its count or form"}));
    }
  } else if (p.frame.tag == Frame::Tag::Info) {
    p.frame.detail = std::string(body);
  } else if (p.frame.tag == Frame::Tag::Outcomes) {
    p.frame.ids.resize(payload / 4);
    for (std::size_t i = 0; i < p.frame.ids.size(); ++i) {
      const auto* b = reinterpret_cast<const unsigned char*>(body.data() + 4 * i);
      p.frame.ids[i] = std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8 | std::uint32_t(b[2]) << 16 |
                       std::uint32_t(b[3]) << 24;
    }
  }
  p.status = FrameParse::Status::Parsed;
  p.consumed = start + payload;
  return p;
}

std::string encode_frame(const Frame& f) {
  switch (f.tag) {
    case Frame::Tag::Ready: return "READY\n";
    case Frame::Tag::LoadError: return "LOADERROR " + escape(f.detail) + "\n";
    case Frame::Tag::Failed: return "FAILED " + escape(f.detail) + "\n";
    case Frame::Tag::Done: return "DONE " + std::to_string(f.number) + "\n";
    case Frame::Tag::Info: return "INFO " + std::to_string(f.detail.size()) + "\n" + f.detail;
    case Frame::Tag::Bound: return "BOUND " + std::to_string(f.number) + " " + f.name + " " + escape(f.detail) + "\n";
    case Frame::Tag::Skipped: return "SKIPPED " + std::to_string(f.number) + " " + escape(f.detail) + "\n";
    case Frame::Tag::Text: {
      // As marshal.dumps would write it, every object as a str (an int's
      // text is read back the same way as the int itself).
      std::string body = "[";
      auto u32 = [&](std::size_t v) {
        for (int shift = 0; shift < 32; shift += 8) body += static_cast<char>((v >> shift) & 0xff);
      };
      auto str = [&](const std::string& s) {
        body += 'u';
        u32(s.size());
        body += s;
      };
      u32(f.texts.size());
      for (const OutcomeText& t : f.texts) {
        if (t.raised) {
          body += ')';
          body += '\x02';
          str(t.exception_class);
        }
        str(t.text);
      }
      return "TEXTS " + std::to_string(f.number) + " " + std::to_string(f.texts.size()) + " " +
             std::to_string(body.size()) + "\n" + body;
    }
    case Frame::Tag::Errors: {
      std::string lengths, strings;
      auto add = [&](const std::string& s) {
        for (int shift = 0; shift < 32; shift += 8) lengths += static_cast<char>((s.size() >> shift) & 0xff);
        strings += s;
      };
      for (const OutcomeText& t : f.texts) {
        add(t.exception_class);
        add(t.text);
      }
      return "ERRORS " + std::to_string(f.texts.size()) + " " + std::to_string(lengths.size() + strings.size()) + "\n" +
             lengths + strings;
    }
    case Frame::Tag::Outcomes: {
      std::string out = "OUTCOMES " + std::to_string(f.ids.size()) + "\n";
      for (const std::uint32_t id : f.ids) {
        for (int shift = 0; shift < 32; shift += 8) out += static_cast<char>((id >> shift) & 0xff);
      }
      return out;
    }
  }
  return "";
}

}  // namespace tpcheck::conform
