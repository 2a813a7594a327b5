// Parsers of the child's lines: strict, allocation-bounded, never throwing.
#include "tpcheck/conform/protocol.hpp"

#include <charconv>

namespace tpcheck::conform {
namespace {

// Splits off the first space-separated word; the rest stays in `line`.
std::string_view take_word(std::string_view& line) {
  const auto space = line.find(' ');
  const std::string_view word = line.substr(0, space);
  line = space == std::string_view::npos ? std::string_view{} : line.substr(space + 1);
  return word;
}

bool is_identifier(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
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

std::optional<HandshakeLine> parse_handshake_line(std::string_view line) {
  if (line.size() > kMaxReplyLine) return std::nullopt;
  const std::string_view tag = take_word(line);
  if (tag == "READY" && line.empty()) return HandshakeLine{HandshakeLine::Tag::Ready, {}, {}};
  if (tag == "LOADERROR") {
    auto text = unescape(line);
    if (!text) return std::nullopt;
    return HandshakeLine{HandshakeLine::Tag::LoadError, {}, std::move(*text)};
  }
  const std::string_view name = take_word(line);
  if (!is_identifier(name)) return std::nullopt;
  if (tag == "MISSING" && line.empty()) return HandshakeLine{HandshakeLine::Tag::Missing, std::string(name), {}};
  if (tag == "BOUND") {
    auto where = unescape(line);
    if (!where) return std::nullopt;
    return HandshakeLine{HandshakeLine::Tag::Bound, std::string(name), std::move(*where)};
  }
  return std::nullopt;
}

std::optional<Reply> parse_reply(std::string_view line) {
  if (line.size() > kMaxReplyLine) return std::nullopt;
  const std::string_view seq_text = take_word(line);
  Reply reply{};
  const auto [end, error] = std::from_chars(seq_text.data(), seq_text.data() + seq_text.size(), reply.seq);
  if (seq_text.empty() || error != std::errc{} || end != seq_text.data() + seq_text.size()) return std::nullopt;
  const std::string_view tag = take_word(line);
  if (tag == "V") {
    reply.raised = false;
  } else if (tag == "E") {
    reply.raised = true;
    const std::string_view cls = take_word(line);
    if (!is_identifier(cls)) return std::nullopt;
    reply.exception_class = std::string(cls);
  } else {
    return std::nullopt;
  }
  auto text = unescape(line);
  if (!text) return std::nullopt;
  reply.text = std::move(*text);
  return reply;
}

std::string request_line(std::uint64_t seq, std::size_t function_index, const std::vector<std::string>& args) {
  std::string line = std::to_string(seq) + " " + std::to_string(function_index);
  for (const auto& a : args) {
    line += ' ';
    line += a;
  }
  line += '\n';
  return line;
}

}  // namespace tpcheck::conform
