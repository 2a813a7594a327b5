// Unit tests of the conform child protocol: the frames the child may write,
// the garbage they must not be mistaken for, and the requests tpcheck sends.
#include <gtest/gtest.h>

#include "tpcheck/conform/protocol.hpp"

namespace tpcheck::conform {
namespace {

Frame parsed(const std::string& bytes, std::size_t* consumed = nullptr) {
  const FrameParse p = parse_frame(bytes);
  EXPECT_EQ(p.status, FrameParse::Status::Parsed) << bytes << " " << p.problem;
  if (consumed) *consumed = p.consumed;
  return p.frame;
}

TEST(ConformProtocol, ParsesTheHandshake) {
  const Frame b = parsed("BOUND 2 TpKVTopology.tp_ratio /x/utils dir/utils.py:12\n");
  EXPECT_EQ(b.tag, Frame::Tag::Bound);
  EXPECT_EQ(b.number, 2u);
  EXPECT_EQ(b.name, "TpKVTopology.tp_ratio");
  EXPECT_EQ(b.detail, "/x/utils dir/utils.py:12");
  const Frame s = parsed("SKIPPED 0 not defined\\nanywhere\n");
  EXPECT_EQ(s.tag, Frame::Tag::Skipped);
  EXPECT_EQ(s.detail, "not defined\nanywhere");
  EXPECT_EQ(parsed("READY\n").tag, Frame::Tag::Ready);
  const Frame l = parsed("LOADERROR a.py:7: SyntaxError: expected ':'\n");
  EXPECT_EQ(l.tag, Frame::Tag::LoadError);
  EXPECT_EQ(l.detail, "a.py:7: SyntaxError: expected ':'");
}

TEST(ConformProtocol, ParsesOutcomesWithTheirPayloads) {
  std::size_t consumed = 0;
  const Frame v = parsed("TEXT 0 V 6\n[0, 1]TEXT 1 ...", &consumed);
  EXPECT_EQ(consumed, 17u);
  ASSERT_EQ(v.texts.size(), 1u);
  EXPECT_EQ(v.texts[0], (OutcomeText{false, "", "[0, 1]"}));
  const Frame e = parsed("TEXT 7 E AssertionError 0\n");
  EXPECT_EQ(e.number, 7u);
  EXPECT_EQ(e.texts[0], (OutcomeText{true, "AssertionError", ""}));
  const Frame n = parsed(std::string("TEXT 1 V 3\na\0b", 14));
  EXPECT_EQ(n.texts[0].text, std::string("a\0b", 3));  // a TEXT payload is raw bytes, NUL and all
  const Frame many = parsed(std::string("TEXTS 4 3 40\nV[0, 1]\0EValueError TP sizes\nwrong\0VNone", 53));
  EXPECT_EQ(many.number, 4u);
  EXPECT_EQ(many.texts, (std::vector<OutcomeText>{{false, "", "[0, 1]"}, {true, "ValueError", "TP sizes\nwrong"},
                                                  {false, "", "None"}}));
  const Frame o = parsed(std::string("OUTCOMES 2\n\x01\x00\x00\x00\xff\xff\xff\xff", 19));
  EXPECT_EQ(o.ids, (std::vector<std::uint32_t>{1, 0xffffffffu}));
  const Frame d = parsed("DONE 1048576\n");
  EXPECT_EQ(d.tag, Frame::Tag::Done);
  EXPECT_EQ(d.number, 1048576u);
}

TEST(ConformProtocol, WaitsForTheWholeFrame) {
  for (const std::string& partial :
       std::vector<std::string>{"", "READY", "TEXT 0 V 6\n[0, ", std::string("OUTCOMES 2\n\x01\x00\x00\x00", 15)}) {
    EXPECT_EQ(parse_frame(partial).status, FrameParse::Status::Incomplete) << partial;
  }
}

TEST(ConformProtocol, RejectsGarbage) {
  for (const char* line :
       {"\n", "V 1\n", "READY now\n", "DONE -1\n", "DONE 01\n", "DONE 1x\n", "OUTCOMES 99999999999\n",
        "TEXT 0 X 1\n", "TEXT 0 E 1\n", "TEXTS 0 1 1\nE", "TEXT 0 E A\x01B 1\n", "TEXT 4294967296 V 0\n", "TEXT 0 V 2000000\n",
        "BOUND 0 bad-name x\n", "BOUND x name where\n", "SKIPPED 0 bad \\q escape\n", "HELLO\n",
        "TEXTS 0 2 5\nV1VV2", "TEXTS 0 1 3\nX12", "TEXTS 0 1 3\nEAB", "TEXTS 0 0 0\n", "TEXTS 0 99999999 5\n",
        "Traceback (most recent call last):\n"}) {
    EXPECT_EQ(parse_frame(line).status, FrameParse::Status::Garbage) << line;
  }
  EXPECT_EQ(parse_frame(std::string(kMaxHeaderLine + 1, 'x')).status, FrameParse::Status::Garbage);
}

TEST(ConformProtocol, EncodedFramesReadBack) {
  Frame one;
  one.tag = Frame::Tag::Text;
  one.number = 3;
  one.texts = {{true, "ValueError", std::string("TP sizes\0must be positive", 25)}};
  Frame many = one;
  many.texts = {{true, "ValueError", "TP sizes\nmust be positive"}, {false, "", "(0, 2)"}};
  Frame o;
  o.tag = Frame::Tag::Outcomes;
  o.ids = {0, 3, 3, 70000};
  for (const Frame& f : {one, many, o}) {
    std::size_t consumed = 0;
    const std::string bytes = encode_frame(f);
    const Frame back = parsed(bytes, &consumed);
    EXPECT_EQ(consumed, bytes.size());
    EXPECT_EQ(back.texts, f.texts);
    EXPECT_EQ(back.ids, f.ids);
    EXPECT_EQ(back.number, f.number);
  }
  EXPECT_EQ(unescape(escape("x\\\n\r\ty")), "x\\\n\r\ty");
  EXPECT_FALSE(unescape("\\t"));
  EXPECT_FALSE(unescape("ends with \\"));
}

TEST(ConformProtocol, WritesRequests) {
  EXPECT_EQ(run_request(2, "{\"arity\":0,\"blocks\":[]}", 5, 9),
            "{\"op\": \"run\", \"binding\": 2, \"from\": 5, \"careful_until\": 9, \"grid\": "
            "{\"arity\":0,\"blocks\":[]}}\n");
  Binding b;
  b.name = "TransferTopology.tp_ratio";
  b.params = {{"L", ParamKind::Size, {}}, {"R", ParamKind::Size, {}}};
  b.call.classes = {"TransferTopology"};
  b.call.methods = {"tp_ratio"};
  b.call.attributes = {{"tp_size", "L", false, {{"engine_id", "'local'"}}}};
  b.call.args = {{"remote_tp_size", "R", false, ""}};
  const std::string load = load_request("source", {"u\"tils.py"}, {b});
  EXPECT_EQ(load.back(), '\n');
  EXPECT_NE(load.find("\"files\": [\"u\\\"tils.py\"]"), std::string::npos) << load;
  EXPECT_NE(load.find("\"fallback\": [[\"engine_id\", \"'local'\"]]"), std::string::npos) << load;
  EXPECT_NE(load.find("\"params\": [\"L\", \"R\"]"), std::string::npos) << load;
}

}  // namespace
}  // namespace tpcheck::conform
