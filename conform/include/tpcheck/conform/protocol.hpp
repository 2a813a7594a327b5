// The protocol between tpcheck and its Python child (conform/child/).
//
// tpcheck -> child, one JSON object per line on the request pipe:
//   {"op": "load", "mode": "source"|"adapter", "files": [...], "bindings": [...]}
//   {"op": "run", "binding": i, "grid": {...}, "from": k, "careful_until": c[, "mutant": m]}
//   {"op": "mutants", "binding": i}       {"op": "describe", "binding": i}
// child -> tpcheck, frames on the reply pipe: a header line, then for TEXTS
// and OUTCOMES a binary payload of the length the header gives:
//   BOUND <i> <Qualified.name> <where>    READY
//   SKIPPED <i> <reason>                  LOADERROR <text>
//   TEXTS <first id> <count> <n>\n<n bytes: marshal.dumps(outcomes, 2): a list
//         of count outcomes, each an int or None (a value), a str (a value's
//         repr), or (exception class name, str() of the exception); the
//         reader also takes the references of marshal versions 3 and 4>
//   ERRORS <count> <n>\n<n bytes: 2 * count little-endian uint32 byte
//         lengths of class name, message, class name, ..., then those
//         UTF-8 strings back to back>
//   OUTCOMES <count>\n<count little-endian uint32 outcome ids>
//   DONE <count>                          FAILED <text>
//   INFO <n>\n<n bytes of text>: the answer to mutants (a line per mutant
//         of the binding, in the order run requests number them) or to
//         describe (how a written test calls the binding: tab-separated
//         lines, conform/child/28_written.py)
// A run starts with an empty OUTCOMES frame once the child is ready to call
// (the budget of the first call starts there), then answers every case of
// the grid from case `from` on, in grid order, with the id of its outcome; an
// id is defined by a TEXTS frame before its first use, ids counting up from 0
// over the child's life. A case that raised has the id kInlineOutcome: its
// exception is the next of the ERRORS frames, which come before the
// OUTCOMES frame that uses it (messages are mostly distinct: they are sent,
// not kept). <where>, <reason> and <text> escape backslash, newline and
// carriage return (\\, \n, \r).
//
// The parser takes any bytes and never throws: whatever it rejects is
// reported as a child that wrote garbage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpcheck/conform/profile.hpp"

namespace tpcheck::conform {

// Longest header line, outcome text and frame the child may send; past them
// the child is treated as broken rather than buffered without bound.
inline constexpr std::size_t kMaxHeaderLine = std::size_t{1} << 16;
inline constexpr std::size_t kMaxOutcomeBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxOutcomesPerFrame = std::size_t{1} << 24;
inline constexpr std::size_t kMaxTextsBytes = std::size_t{1} << 26;
inline constexpr std::size_t kMaxTextsPerFrame = std::size_t{1} << 16;
inline constexpr std::uint32_t kInlineOutcome = UINT32_MAX;

// The child's escaping (backslash, newline, carriage return).
std::string escape(std::string_view text);
// Undo it; nullopt on any other escape or a raw newline.
std::optional<std::string> unescape(std::string_view text);
// The same into `out` (replacing what it held), so that a caller that escapes
// text after text reuses one buffer; unescape's false is nullopt above.
void escape(std::string_view text, std::string& out);
bool unescape(std::string_view text, std::string& out);

// One outcome's text: a value's repr, or an exception's class and message.
struct OutcomeText {
  bool raised = false;
  std::string exception_class;
  std::string text;
  bool operator==(const OutcomeText&) const = default;
};

struct Frame {
  enum class Tag { Bound, Skipped, Ready, LoadError, Text, Errors, Outcomes, Done, Failed, Info };
  Tag tag = Tag::Ready;
  std::uint64_t number = 0;  // Bound, Skipped: binding index; Text: the first id; Done: case count
  std::string name;          // Bound: the qualified name found
  std::string detail;        // Bound: where; Skipped: reason; LoadError, Failed: text; Info: the payload
  std::vector<OutcomeText> texts;  // Text: the outcomes of ids number, number + 1, ...; Errors: exceptions
  std::vector<std::uint32_t> ids;  // Outcomes
};

struct FrameParse {
  enum class Status { Incomplete, Parsed, Garbage };
  Status status = Status::Incomplete;
  std::size_t consumed = 0;  // Parsed: bytes of the frame
  Frame frame;
  std::string problem;  // Garbage: what was wrong
};

// The first frame of `buffer`.
FrameParse parse_frame(std::string_view buffer);

// A frame as the child writes it (tests, the fuzz target's round trip).
std::string encode_frame(const Frame& frame);

// The requests.
std::string load_request(const std::string& mode, const std::vector<std::string>& files,
                         const std::vector<Binding>& bindings);
// careful_until: the child reports each case before this one as soon as it has run.
// mutant: run the binding's mutant of that number instead (-1: the code as it is).
std::string run_request(std::size_t binding, const std::string& grid_json, std::uint64_t from,
                        std::uint64_t careful_until, std::int64_t mutant = -1);
// A request the child answers with one INFO frame: "mutants" or "describe".
std::string info_request(const std::string& op, std::size_t binding);

}  // namespace tpcheck::conform
