// The line protocol between tpcheck and its Python child
// (conform/child/tpcheck_conform_child.py describes it). Everything the child
// says goes through these parsers, which take any bytes and never throw: a
// line they reject is reported as a child that printed garbage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpcheck::conform {

// Longest line the child may send; past it the child is treated as broken
// rather than buffered without bound (a function returning a huge list).
inline constexpr std::size_t kMaxReplyLine = std::size_t{1} << 20;

// The child's escaping (backslash, newline, carriage return), for tests.
std::string escape(std::string_view text);

// Undo the child's escaping (\\, \n, \r); nullopt on any other escape.
std::optional<std::string> unescape(std::string_view text);

// One line of the child's start-up: "BOUND name where", "MISSING name",
// "READY" or "LOADERROR text".
struct HandshakeLine {
  enum class Tag { Bound, Missing, Ready, LoadError };
  Tag tag;
  std::string name;    // Bound, Missing
  std::string detail;  // Bound: where it was found; LoadError: the error
};
std::optional<HandshakeLine> parse_handshake_line(std::string_view line);

// One answer: "<seq> V <repr>" or "<seq> E <ExceptionClass> <message>".
struct Reply {
  std::uint64_t seq;
  bool raised;
  std::string exception_class;  // raised only
  std::string text;             // repr of the value, or str() of the exception
};
std::optional<Reply> parse_reply(std::string_view line);

// One call: "<seq> <index> <arg>..." with each argument already in the
// protocol's notation (see argument_text).
std::string request_line(std::uint64_t seq, std::size_t function_index, const std::vector<std::string>& args);

}  // namespace tpcheck::conform
