// Fuzz target: the parsers of `tpcheck conform`'s child protocol
// (conform/include/tpcheck/conform/protocol.hpp), which read whatever a Python
// child prints, so any bytes must be handled.
//
// Property, for any bytes:
//   1. parse_reply, parse_handshake_line and unescape return (never crash,
//      hang or allocate without bound);
//   2. unescape(escape(bytes)) == bytes;
//   3. a reply that parses, written back out with escape(), parses to the same
//      reply (so nothing the child says is misread in another way);
//   4. a handshake line that parses is one of its four shapes, with a name
//      where one is due.
#include <string>

#include "fuzz_check.hpp"
#include "tpcheck/conform/protocol.hpp"

namespace {

void check(bool holds, const std::string& what) {
  tpcheck::fuzz::require(holds ? tpcheck::fuzz::Violation{} : tpcheck::fuzz::Violation{what}, "conform protocol");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpcheck::conform;
  const std::string bytes(reinterpret_cast<const char*>(data), size);

  const auto round = unescape(escape(bytes));
  check(round && *round == bytes, "unescape(escape(x)) != x for '" + bytes + "'");

  if (const auto reply = parse_reply(bytes)) {
    const std::string again = std::to_string(reply->seq) + (reply->raised ? " E " + reply->exception_class : " V") +
                              " " + escape(reply->text);
    const auto reparsed = parse_reply(again);
    check(reparsed && reparsed->seq == reply->seq && reparsed->raised == reply->raised &&
              reparsed->exception_class == reply->exception_class && reparsed->text == reply->text,
          "reply '" + bytes + "' does not survive being written back as '" + again + "'");
    check(!reply->raised || !reply->exception_class.empty(), "an exception without a class in '" + bytes + "'");
  }

  if (const auto line = parse_handshake_line(bytes)) {
    const bool named = line->tag == HandshakeLine::Tag::Bound || line->tag == HandshakeLine::Tag::Missing;
    check(named != line->name.empty(), "handshake line '" + bytes + "' has a name where none is due, or none");
  }
  return 0;
}
