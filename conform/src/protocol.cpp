// The child's frames (strict, allocation-bounded, never throwing) and the
// requests tpcheck sends.
#include "tpcheck/conform/protocol.hpp"

#include <charconv>
#include <cstring>

#include "tpcheck/json.hpp"

namespace tpcheck::conform {
namespace {

// Splits off the first space-separated word; the rest stays in `line`.
std::string_view take_word(std::string_view& line) {
  const auto space = line.find(' ');
  const std::string_view word = line.substr(0, space);
  line = space == std::string_view::npos ? std::string_view{} : line.substr(space + 1);
  return word;
}

bool is_identifier(std::string_view s, bool dots) {
  if (s.empty()) return false;
  for (const char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    (dots && c == '.');
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

// The header's fields after the tag; false on anything else.
bool parse_header(std::string_view tag, std::string_view rest, Frame& f, std::uint64_t& payload,
                  std::uint64_t& text_count) {
  payload = 0;
  text_count = 0;
  auto escaped_rest = [&](std::string& into) {
    auto text = unescape(rest);
    if (!text) return false;
    into = std::move(*text);
    return true;
  };
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

// The frames of outcome texts: TEXT (one) and TEXTS (several). `count`:
// texts in the payload.
bool parse_text_header(std::string_view tag, std::string_view rest, Frame& f, std::uint64_t& payload,
                       std::uint64_t& count) {
  const bool bulk = tag == "TEXTS";
  f.tag = Frame::Tag::Text;
  const auto first = number(take_word(rest));
  if (!first || *first > UINT32_MAX) return false;
  f.number = *first;
  OutcomeText single;
  if (bulk) {
    const auto n = number(take_word(rest));
    if (!n || *n == 0 || *n > kMaxTextsPerFrame || f.number + *n > UINT32_MAX) return false;
    count = *n;
  } else {
    count = 1;
    const std::string_view kind = take_word(rest);
    if (kind == "E") {
      single.raised = true;
      const std::string_view cls = take_word(rest);
      if (!is_class_name(cls)) return false;
      single.exception_class = std::string(cls);
    } else if (kind != "V") {
      return false;
    }
    f.texts.push_back(std::move(single));
  }
  const auto n = number(rest);
  if (!n || *n > (bulk ? kMaxTextsBytes : kMaxOutcomeBytes)) return false;
  payload = *n;
  return true;
}

// TEXTS: `texts.size()` texts joined by NUL, each "V<repr>" or "E<Class> <message>".
bool read_texts(std::string_view body, std::vector<OutcomeText>& texts) {
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto end = body.find('\0');
    if ((end == std::string_view::npos) != (i + 1 == texts.size())) return false;
    std::string_view t = body.substr(0, end);
    body = end == std::string_view::npos ? std::string_view{} : body.substr(end + 1);
    if (t.empty()) return false;
    const char kind = t[0];
    t.remove_prefix(1);
    if (kind == 'E') {
      const auto space = t.find(' ');
      if (space == std::string_view::npos || !is_class_name(t.substr(0, space))) return false;
      texts[i] = {true, std::string(t.substr(0, space)), std::string(t.substr(space + 1))};
    } else if (kind == 'V') {
      texts[i] = {false, {}, std::string(t)};
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<std::string> unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      if (text[i] == '\n') return std::nullopt;
      out += text[i];
      continue;
    }
    if (++i == text.size()) return std::nullopt;
    switch (text[i]) {
      case '\\': out += '\\'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      default: return std::nullopt;
    }
  }
  return out;
}

FrameParse parse_frame(std::string_view buffer) {
  const auto newline = buffer.find('\n');
  if (newline == std::string_view::npos) {
    if (buffer.size() > kMaxHeaderLine) return garbage("a line longer than " + std::to_string(kMaxHeaderLine) + " bytes");
    return {};
  }
  if (newline > kMaxHeaderLine) return garbage("a line longer than " + std::to_string(kMaxHeaderLine) + " bytes");
  std::string_view rest = buffer.substr(0, newline);
  const std::string_view tag = take_word(rest);
  FrameParse p;
  std::uint64_t payload = 0, text_count = 0;
  const bool carries_texts = tag == "TEXT" || tag == "TEXTS";
  if (!(carries_texts ? parse_text_header(tag, rest, p.frame, payload, text_count)
                      : parse_header(tag, rest, p.frame, payload, text_count))) {
    return garbage("'" + std::string(buffer.substr(0, std::min<std::size_t>(newline, 200))) + "'");
  }
  const std::size_t start = newline + 1;
  if (buffer.size() - start < payload) return {};  // the payload is still on its way
  const std::string_view body = buffer.substr(start, payload);
  if (tag == "TEXT") {
    p.frame.texts[0].text = std::string(body);
  } else if (carries_texts) {
    p.frame.texts.resize(text_count);
    if (!read_texts(body, p.frame.texts)) return garbage("a TEXTS frame whose texts are not its count or form");
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
    case Frame::Tag::Bound: return "BOUND " + std::to_string(f.number) + " " + f.name + " " + escape(f.detail) + "\n";
    case Frame::Tag::Skipped: return "SKIPPED " + std::to_string(f.number) + " " + escape(f.detail) + "\n";
    case Frame::Tag::Text: {
      if (f.texts.size() == 1) {
        const OutcomeText& t = f.texts[0];
        return "TEXT " + std::to_string(f.number) + (t.raised ? " E " + t.exception_class : std::string(" V")) + " " +
               std::to_string(t.text.size()) + "\n" + t.text;
      }
      std::string body;
      for (std::size_t i = 0; i < f.texts.size(); ++i) {
        const OutcomeText& t = f.texts[i];
        if (i) body += '\0';
        body += t.raised ? "E" + t.exception_class + " " + t.text : "V" + t.text;
      }
      return "TEXTS " + std::to_string(f.number) + " " + std::to_string(f.texts.size()) + " " +
             std::to_string(body.size()) + "\n" + body;
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

namespace {

std::string json_strings(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + json_string(items[i]);
  return out + "]";
}

std::string binding_json(const Binding& b) {
  const CallShape& c = b.call;
  std::string out = "{\"name\": " + json_string(b.name) + ", \"params\": " + json_strings(b.param_names()) +
                    ", \"functions\": " + json_strings(c.functions) + ", \"classes\": " + json_strings(c.classes) +
                    ", \"methods\": " + json_strings(c.methods) +
                    ", \"instance_argument\": " + json_string(c.instance_argument) +
                    ", \"positional\": " + (c.positional ? "true" : "false") + ", \"render\": " + json_string(c.render) +
                    ", \"attributes\": [";
  for (std::size_t i = 0; i < c.attributes.size(); ++i) {
    const Attribute& a = c.attributes[i];
    out += std::string(i ? ", " : "") + "{\"name\": " + json_string(a.name) + ", \"value\": " + json_string(a.value) +
           ", \"if_plain\": " + (a.if_plain ? "true" : "false") + ", \"fallback\": [";
    for (std::size_t k = 0; k < a.fallback.size(); ++k) {
      out += std::string(k ? ", " : "") + "[" + json_string(a.fallback[k].first) + ", " +
             json_string(a.fallback[k].second) + "]";
    }
    out += "]}";
  }
  out += "], \"args\": [";
  for (std::size_t i = 0; i < c.args.size(); ++i) {
    const CallArg& a = c.args[i];
    out += std::string(i ? ", " : "") + "{\"name\": " + json_string(a.name) + ", \"value\": " + json_string(a.value) +
           ", \"optional\": " + (a.optional ? "true" : "false") + ", \"when\": " + json_string(a.when) + "}";
  }
  return out + "]}";
}

}  // namespace

std::string load_request(const std::string& mode, const std::vector<std::string>& files,
                         const std::vector<Binding>& bindings) {
  std::string out = "{\"op\": \"load\", \"mode\": " + json_string(mode) + ", \"files\": " + json_strings(files) +
                    ", \"bindings\": [";
  for (std::size_t i = 0; i < bindings.size(); ++i) out += (i ? ", " : "") + binding_json(bindings[i]);
  return out + "]}\n";
}

std::string run_request(std::size_t binding, const std::string& grid_json, std::uint64_t from,
                        std::uint64_t careful_until) {
  return "{\"op\": \"run\", \"binding\": " + std::to_string(binding) + ", \"from\": " + std::to_string(from) +
         ", \"careful_until\": " + std::to_string(careful_until) + ", \"grid\": " + grid_json + "}\n";
}

}  // namespace tpcheck::conform
