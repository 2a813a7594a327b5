// Fuzz target: the parser of `tpcheck conform`'s child protocol
// (conform/include/tpcheck/conform/protocol.hpp), which reads whatever a
// Python child writes, so any bytes must be handled.
//
// Property, for any bytes:
//   1. parse_frame and unescape return (never crash, hang or allocate
//      without bound), and a parsed frame consumes at most the bytes given;
//   2. unescape(escape(bytes)) == bytes;
//   3. a frame that parses, written back out with encode_frame(), parses to
//      the same frame and consumes exactly what was written (nothing the child
//      says is misread in another way);
//   4. a frame that parses from the whole input is incomplete, not garbage or
//      another frame, when its last byte has not arrived yet (a frame split
//      across reads is read the same).
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "tpcheck/conform/protocol.hpp"

namespace {

// `what` says what went wrong; it is only called then, so no text is built
// for an input that passes.
template <class What>
void check(bool holds, const What& what) {
  if (!holds) tpcheck::fuzz::require(tpcheck::fuzz::Violation{what()}, "conform protocol");
}

bool same(const tpcheck::conform::Frame& a, const tpcheck::conform::Frame& b) {
  return a.tag == b.tag && a.number == b.number && a.name == b.name && a.detail == b.detail && a.texts == b.texts &&
         a.ids == b.ids;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpcheck::conform;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);

  // The buffer forms, kept across inputs (no allocation per input once they
  // have grown); the returning forms wrap them, and encode_frame below uses one.
  static std::string escaped, round;
  escape(bytes, escaped);
  check(unescape(escaped, round) && round == bytes,
        [&] { return "unescape(escape(x)) != x for '" + std::string(bytes) + "'"; });

  const FrameParse parsed = parse_frame(bytes);
  if (parsed.status != FrameParse::Status::Parsed) return 0;
  check(parsed.consumed > 0 && parsed.consumed <= bytes.size(), [&] {
    return "a frame consumed " + std::to_string(parsed.consumed) + " of " + std::to_string(bytes.size()) + " bytes";
  });
  const auto frame = [&] { return std::string(bytes.substr(0, parsed.consumed)); };
  const std::string again = encode_frame(parsed.frame);
  const FrameParse reparsed = parse_frame(again);
  check(reparsed.status == FrameParse::Status::Parsed && reparsed.consumed == again.size() &&
            same(reparsed.frame, parsed.frame),
        [&] { return "frame '" + frame() + "' does not survive being written back as '" + again + "'"; });
  const FrameParse cut = parse_frame(bytes.substr(0, parsed.consumed - 1));
  check(cut.status == FrameParse::Status::Incomplete,
        [&] { return "frame '" + frame() + "' without its last byte is not incomplete"; });
  return 0;
}
