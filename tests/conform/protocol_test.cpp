// Unit tests of the conform child protocol's parsers: what the child may say,
// and the garbage it must not be mistaken for.
#include <gtest/gtest.h>

#include "tpcheck/conform/protocol.hpp"

namespace tpcheck::conform {
namespace {

TEST(ConformProtocol, ParsesValuesAndExceptions) {
  const auto v = parse_reply("17 V [0, 1]");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->seq, 17u);
  EXPECT_FALSE(v->raised);
  EXPECT_EQ(v->text, "[0, 1]");
  const auto e = parse_reply("3 E ValueError TP sizes must be positive");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->raised);
  EXPECT_EQ(e->exception_class, "ValueError");
  EXPECT_EQ(e->text, "TP sizes must be positive");
  const auto empty = parse_reply("4 E AssertionError ");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->text, "");
}

TEST(ConformProtocol, UnescapesExactlyTheChildsEscapes) {
  const auto r = parse_reply("0 V 'a\\nb\\\\c\\r'");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->text, "'a\nb\\c\r'");
  EXPECT_FALSE(unescape("\\t"));
  EXPECT_FALSE(unescape("ends with \\"));
  EXPECT_EQ(unescape(escape("x\\\n\r\ty")), "x\\\n\r\ty");
}

TEST(ConformProtocol, RejectsGarbage) {
  for (const char* line : {"", "V 1", "-1 V 1", "1x V 1", "18446744073709551616 V 1", "1 X 1", "1 E", "1 E  msg",
                           "1 E Value-Error msg", "debug output", "1 V bad \\q escape"}) {
    EXPECT_FALSE(parse_reply(line)) << line;
  }
  EXPECT_FALSE(parse_reply(std::string(kMaxReplyLine + 1, '1')));
}

TEST(ConformProtocol, ParsesTheHandshake) {
  const auto b = parse_handshake_line("BOUND get_port_offset /x/moriio common.py:12");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->tag, HandshakeLine::Tag::Bound);
  EXPECT_EQ(b->name, "get_port_offset");
  EXPECT_EQ(b->detail, "/x/moriio common.py:12");
  ASSERT_TRUE(parse_handshake_line("MISSING _read_completion_quorum"));
  ASSERT_TRUE(parse_handshake_line("READY"));
  const auto l = parse_handshake_line("LOADERROR a.py:7: SyntaxError: expected ':'");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->detail, "a.py:7: SyntaxError: expected ':'");
  for (const char* line : {"READY now", "MISSING", "MISSING a b", "BOUND", "BOUND bad-name x", "HELLO x", ""}) {
    EXPECT_FALSE(parse_handshake_line(line)) << line;
  }
}

TEST(ConformProtocol, WritesRequests) {
  EXPECT_EQ(request_line(5, 2, {"0", "-3", "T"}), "5 2 0 -3 T\n");
}

}  // namespace
}  // namespace tpcheck::conform
