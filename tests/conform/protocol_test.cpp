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
  // As Python's marshal.dumps([0, -5, None, '[0, 1]', ('ValueError', m), 2**70,
  // -2**40, ('KeyError', m), 'a\0b'], 4) writes it, m = 'TP sizes\nwrong': the
  // second m is a reference to the first.
  const std::string marshalled(
      "\xdb\x09\x00\x00\x00\xe9\x00\x00\x00\x00\xe9\xfb\xff\xff\xff\x4e\xfa\x06[0, 1]\x29\x02\xda\x0aValueError"
      "\xfa\x0eTP sizes\nwrong\x6c\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\xec\xfd\xff\xff\xff"
      "\x00\x00\x00\x00\x00\x04\x29\x02\xda\x08KeyError\x72\x05\x00\x00\x00\xfa\x03\x61\x00\x62",
      102);
  std::size_t consumed = 0;
  const Frame t = parsed("TEXTS 7 9 102\n" + marshalled + "OUTCOMES", &consumed);
  EXPECT_EQ(consumed, 14u + 102u);
  EXPECT_EQ(t.tag, Frame::Tag::Text);
  EXPECT_EQ(t.number, 7u);
  EXPECT_EQ(t.texts, (std::vector<OutcomeText>{{false, "", "0"},
                                               {false, "", "-5"},
                                               {false, "", "None"},
                                               {false, "", "[0, 1]"},
                                               {true, "ValueError", "TP sizes\nwrong"},
                                               {false, "", "1180591620717411303424"},
                                               {false, "", "-1099511627776"},
                                               {true, "KeyError", "TP sizes\nwrong"},
                                               {false, "", std::string("a\0b", 3)}}));
  // Exceptions inline: byte lengths 10, 14, 8, 3, then the strings.
  const Frame e = parsed(std::string("ERRORS 2 51\n\x0a\0\0\0\x0e\0\0\0\x08\0\0\0\x03\0\0\0"
                                     "ValueErrorTP sizes\nwrongKeyErrora\0b", 63));
  EXPECT_EQ(e.tag, Frame::Tag::Errors);
  EXPECT_EQ(e.texts, (std::vector<OutcomeText>{{true, "ValueError", "TP sizes\nwrong"},
                                               {true, "KeyError", std::string("a\0b", 3)}}));
  const Frame o = parsed(std::string("OUTCOMES 2\n\x01\x00\x00\x00\xff\xff\xff\xff", 19));
  EXPECT_EQ(o.ids, (std::vector<std::uint32_t>{1, 0xffffffffu}));
  const Frame d = parsed("DONE 1048576\n");
  EXPECT_EQ(d.tag, Frame::Tag::Done);
  EXPECT_EQ(d.number, 1048576u);
}

TEST(ConformProtocol, WaitsForTheWholeFrame) {
  for (const std::string& partial : std::vector<std::string>{"", "READY", std::string("TEXTS 0 1 7\n\x5b\x01\x00", 14),
                                                              std::string("ERRORS 1 10\n\x01\0\0\0\x01", 17),
                                                              std::string("OUTCOMES 2\n\x01\x00\x00\x00", 15)}) {
    EXPECT_EQ(parse_frame(partial).status, FrameParse::Status::Incomplete) << partial;
  }
}

TEST(ConformProtocol, RejectsGarbage) {
  for (const char* line :
       {"\n", "V 1\n", "READY now\n", "DONE -1\n", "DONE 01\n", "DONE 1x\n", "OUTCOMES 99999999999\n",
        "TEXT 0 V 1\nx", "TEXTS 0 0 0\n", "TEXTS 0 99999999 5\n", "TEXTS 0 1 1\nN", "TEXTS 4294967295 2 0\n",
        "BOUND 0 bad-name x\n", "BOUND x name where\n", "SKIPPED 0 bad \\q escape\n", "HELLO\n",
        "Traceback (most recent call last):\n"}) {
    EXPECT_EQ(parse_frame(line).status, FrameParse::Status::Garbage) << line;
  }
  // Marshalled lists that are not outcomes: a count that differs, a float, a
  // pair whose class is an int, a reference to nothing, bytes left over.
  for (const std::string& body : std::vector<std::string>{
           std::string("[\x02\x00\x00\x00N", 6), std::string("[\x01\x00\x00\x00g\x00\x00\x00\x00\x00\x00\xf0\x3f", 14),
           std::string("[\x01\x00\x00\x00)\x02i\x01\x00\x00\x00z\x01x", 15), std::string("[\x01\x00\x00\x00r\x00\x00\x00\x00", 10),
           std::string("[\x01\x00\x00\x00NN", 7)}) {
    EXPECT_EQ(parse_frame("TEXTS 0 1 " + std::to_string(body.size()) + "\n" + body).status,
              FrameParse::Status::Garbage);
  }
  // Exceptions whose lengths do not add up to the body, or whose class is
  // not a word: lengths past the body, bytes left over, a class with a
  // space, an empty class, a body shorter than its lengths.
  for (const std::string& body : std::vector<std::string>{
           std::string("\x01\0\0\0\x09\0\0\0Kx", 10), std::string("\x01\0\0\0\x01\0\0\0Kxy", 11),
           std::string("\x03\0\0\0\x01\0\0\0K Ex", 12), std::string("\0\0\0\0\x01\0\0\0x", 9),
           std::string("\x01\0\0\0", 4)}) {
    EXPECT_EQ(parse_frame("ERRORS 1 " + std::to_string(body.size()) + "\n" + body).status, FrameParse::Status::Garbage)
        << body;
  }
  EXPECT_EQ(parse_frame("ERRORS 0 0\n").status, FrameParse::Status::Garbage);
  EXPECT_EQ(parse_frame(std::string(kMaxHeaderLine + 1, 'x')).status, FrameParse::Status::Garbage);
}

TEST(ConformProtocol, EncodedFramesReadBack) {
  Frame many;
  many.tag = Frame::Tag::Text;
  many.number = 3;
  many.texts = {{true, "ValueError", std::string("TP sizes\0must be positive", 25)}, {false, "", "(0, 2)"}};
  Frame raised;
  raised.tag = Frame::Tag::Errors;
  raised.texts = {{true, "ValueError", std::string("TP sizes\0must be positive", 25)}, {true, "tpcheck.ReprFailed", ""}};
  Frame o;
  o.tag = Frame::Tag::Outcomes;
  o.ids = {0, 3, 3, 70000};
  for (const Frame& f : {many, raised, o}) {
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
  // The buffer forms replace what the buffer held.
  std::string buffer = "stale";
  escape("a\nb", buffer);
  EXPECT_EQ(buffer, "a\\nb");
  EXPECT_TRUE(unescape("c\\rd", buffer));
  EXPECT_EQ(buffer, "c\rd");
  EXPECT_FALSE(unescape("e\\q", buffer));
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
  // A mutant's run names it; the questions answered by an INFO frame name their binding.
  EXPECT_EQ(run_request(0, "{}", 0, 0, 12), "{\"op\": \"run\", \"binding\": 0, \"from\": 0, \"careful_until\": 0, "
                                          "\"mutant\": 12, \"grid\": {}}\n");
  EXPECT_EQ(info_request("mutants", 3), "{\"op\": \"mutants\", \"binding\": 3}\n");
}

TEST(ConformProtocol, ReadsInfoFrames) {
  std::size_t consumed = 0;
  const std::string text = "a.py:3: + -> -\nb.py:4: 1 -> 2";
  const Frame f = parsed("INFO " + std::to_string(text.size()) + "\n" + text + "READY\n", &consumed);
  EXPECT_EQ(f.tag, Frame::Tag::Info);
  EXPECT_EQ(f.detail, text);
  EXPECT_EQ(consumed, 6 + std::to_string(text.size()).size() + text.size());
  EXPECT_EQ(parse_frame("INFO 10\nshort").status, FrameParse::Status::Incomplete);
  EXPECT_EQ(parsed("INFO 0\n").detail, "");
  for (const char* line : {"INFO\n", "INFO -1\n", "INFO 1 2\n", "INFO 99999999999\n"}) {
    EXPECT_EQ(parse_frame(line).status, FrameParse::Status::Garbage) << line;
  }
  Frame info;
  info.tag = Frame::Tag::Info;
  info.detail = std::string("body\tx\n\0y", 10);
  EXPECT_EQ(parsed(encode_frame(info)).detail, info.detail);
}

}  // namespace
}  // namespace tpcheck::conform
