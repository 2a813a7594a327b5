// Unit tests of the byte-level judge (SPEC §14B): the layouts, the synthetic
// memory, the judge on transfers made from the model here (not by any
// connector), a head-major layout plugged into the same judge, and the
// captures of the child read back through the sglang profile's relations.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "sglang/sglang.hpp"
#include "tpcheck/conform/byte_judge.hpp"
#include "tpcheck/conform/judge.hpp"
#include "tpcheck/conform/memory_layout.hpp"
#include "tpcheck/conform/profile.hpp"
#include "tpcheck/model.hpp"

namespace tpcheck::conform {
namespace {

using bytes::ByteJudge;
using bytes::MemoryMap;
using bytes::RankMemory;
using bytes::Side;
using bytes::SyntheticLayout;
using bytes::Transfer;
using I = std::int64_t;

std::map<std::string, std::vector<std::pair<std::optional<BigInt>, std::optional<BigInt>>>> by_kind(
    const std::vector<Finding>& findings) {
  std::map<std::string, std::vector<std::pair<std::optional<BigInt>, std::optional<BigInt>>>> out;
  for (const auto& f : findings) out[f.kind].push_back({f.at.at(0), f.at.at(1)});
  return out;
}

std::vector<std::string> kinds(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& [kind, at] : by_kind(findings)) out.push_back(kind);
  return out;
}

TEST(MemoryLayout, TokenMajorRunsEndWithTheirToken) {
  const bytes::TokenMajorPages pages(4, 2, 3, 8);  // 4 tokens of heads 2, 3, 4 (8 bytes each)
  EXPECT_EQ(pages.item_length(), 96u);
  const auto r = pages.run_at(24 + 8 + 5);  // token 1, its second head, byte 5
  EXPECT_EQ(r.first.token, 1);
  EXPECT_EQ(r.first.head, 3);
  EXPECT_EQ(r.first.byte, 5);
  EXPECT_EQ(r.length, 24u - 13u);
  EXPECT_EQ(bytes::at(r, 3, 8).head, 4);  // byte 5 + 3 carries into the next head
  EXPECT_EQ(bytes::at(r, 3, 8).byte, 0);
}

TEST(MemoryLayout, HeadMajorRunsEndWithTheirHead) {
  const bytes::HeadMajorPages pages(4, 2, 3, 8);  // heads 2, 3, 4 of 4 tokens each
  const auto r = pages.run_at(32 + 8 + 5);       // the second head, token 1, byte 5
  EXPECT_EQ(r.first.head, 3);
  EXPECT_EQ(r.first.token, 1);
  EXPECT_EQ(r.first.byte, 5);
  EXPECT_EQ(r.length, 32u - 13u);
  EXPECT_EQ(bytes::at(r, 3, 8).token, 2);
}

TEST(MemoryLayout, SyntheticMemoryIsTheSpecs) {
  SyntheticLayout layout;
  layout.probes[1] = {0, std::uint64_t{1} << 31};
  layout.probes[2] = {std::uint64_t{1} << 63, 0};
  const MemoryMap m = layout.build(2, 4, 2, 4, 0);
  const RankMemory* p1 = m.rank(Side::Prefill, 1);
  const RankMemory* d3 = m.rank(Side::Decode, 3);
  ASSERT_TRUE(p1 && d3);
  EXPECT_EQ(p1->region_bases.at(3), (std::uint64_t{1} << 50) + (std::uint64_t{1} << 44) + 3 * (std::uint64_t{1} << 37));
  EXPECT_EQ(p1->pages->item_length(), 1u * 8 * 4);  // n(2) = 1 head of 8 bytes, 4 tokens
  EXPECT_EQ(p1->slots, 8u);
  EXPECT_EQ(d3->slots, 10u);
  EXPECT_EQ(d3->pages->first_head(), 1);  // floor(3 * 2 / 4)
  EXPECT_EQ(d3->request, (std::vector<I>{1, 7, 8}));
  const auto place = m.locate(p1->region_bases[2] + 33);
  ASSERT_TRUE(place);
  EXPECT_EQ(place->rank, p1);
  EXPECT_EQ(place->region, 2);
  EXPECT_FALSE(m.locate(p1->region_bases[2] + 8 * 32));  // one past the region
  const MemoryMap far = layout.build(2, 4, 2, 1, 1);
  const RankMemory* q = far.rank(Side::Prefill, 0);
  EXPECT_EQ(q->request.front(), static_cast<I>((std::uint64_t{1} << 31) / 8 + 1 + 5));  // past 2^31 bytes
  EXPECT_GE(static_cast<std::uint64_t>(q->request.front()) * q->pages->item_length(), std::uint64_t{1} << 31);
  const MemoryMap high = layout.build(2, 4, 2, 1, 2);
  EXPECT_EQ(high.rank(Side::Decode, 0)->region_bases[0], (std::uint64_t{1} << 63) + (std::uint64_t{1} << 51));
}

// The transfers SGLang's pairing should make, computed from the model: for
// every decode rank and each rank of its window, the copy of p to d, token
// by token, in every region and page of the request.
struct Sent {
  I p, d;
  Transfer t;
};
std::vector<Sent> model_transfers(const MemoryMap& m, I P, I D, I H) {
  std::vector<Sent> out;
  for (I d = 0; d < D; ++d) {
    const RankMemory& dm = *m.rank(Side::Decode, d);
    const auto senders = window<I>(d, D, P).value();
    for (const I p : senders) {
      const RankMemory& sm = *m.rank(Side::Prefill, p);
      const auto hp = heads<I>(p, P, H).value(), hd = heads<I>(d, D, H).value();
      const I lo = std::max(hp.first, hd.first), hi = std::min(hp.end, hd.end);
      const I B = sm.pages->bytes_per_head();
      for (std::size_t r = 0; r < sm.region_bases.size(); ++r) {
        for (std::size_t k = 0; k < sm.request.size(); ++k) {
          for (I token = 0; token < sm.pages->tokens(); ++token) {
            const auto src = sm.region_bases[r] + static_cast<std::uint64_t>(sm.request[k]) * sm.pages->item_length() +
                             static_cast<std::uint64_t>((token * (hp.end - hp.first) + lo - hp.first) * B);
            const auto dst = dm.region_bases[r] + static_cast<std::uint64_t>(dm.request[k]) * dm.pages->item_length() +
                             static_cast<std::uint64_t>((token * (hd.end - hd.first) + lo - hd.first) * B);
            out.push_back({p, d, {src, dst, static_cast<std::uint64_t>((hi - lo) * B)}});
          }
        }
      }
    }
  }
  return out;
}

TEST(ByteJudge, TheModelsTransfersOverTheWholeGridAreCorrect) {
  const SyntheticLayout layout;
  int configurations = 0;
  for (I P = 1; P <= 8; ++P) {
    for (I D = 1; D <= 8; ++D) {
      if (P == D || (P % D != 0 && D % P != 0)) continue;
      for (I H = 1; H <= 16; ++H) {
        if (!head_compatible<I>(P, H) || !head_compatible<I>(D, H)) continue;
        for (const I page_size : {1, 4}) {
          const MemoryMap m = layout.build(P, D, H, page_size, 0);
          FindingSet findings;
          ByteJudge judge(m, findings);
          for (const auto& s : model_transfers(m, P, D, H)) judge.transfer(s.p, s.d, s.t);
          judge.finish();
          const auto found = kinds(findings.take());
          // Replicated prefill ranks of one window write the same heads of d.
          const bool replicas = P > D && P > H;
          EXPECT_EQ(found, replicas ? std::vector<std::string>{"redundant"} : std::vector<std::string>{})
              << P << " " << D << " " << H << " " << page_size;
          ++configurations;
        }
      }
    }
  }
  EXPECT_EQ(configurations, 248);
}

struct Judged {
  std::vector<Finding> findings;
  std::map<std::string, std::vector<std::pair<std::optional<BigInt>, std::optional<BigInt>>>> at;
};
// The model's transfers of (P, D, H), page size 1, with `change` applied to each.
template <typename Change>
Judged judged(I P, I D, I H, Change change) {
  const MemoryMap m = SyntheticLayout().build(P, D, H, 1, 0);
  FindingSet findings;
  ByteJudge judge(m, findings);
  for (auto s : model_transfers(m, P, D, H)) {
    change(s, m);
    judge.transfer(s.p, s.d, s.t);
  }
  judge.finish();
  Judged j;
  j.findings = findings.take();
  j.at = by_kind(j.findings);
  return j;
}

TEST(ByteJudge, AnotherHeadIsWrongHeadsAndLeavesTheRightOneUnwritten) {
  // P=1, D=4, H=2: d1 holds head 0 as d0 does; here it gets head 1.
  const auto j = judged(1, 4, 2, [](Sent& s, const MemoryMap&) {
    if (s.d == 1) s.t.src += 8;
  });
  using At = std::pair<std::optional<BigInt>, std::optional<BigInt>>;
  EXPECT_EQ(j.at.at("wrong_heads"), (std::vector<At>{{BigInt(0), BigInt(1)}}));
  EXPECT_EQ(j.at.at("unwritten"), (std::vector<At>{{std::nullopt, BigInt(1)}}));
  EXPECT_EQ(j.at.size(), 2u);
  const auto wrong = std::find_if(j.findings.begin(), j.findings.end(), [](const Finding& f) { return f.kind == "wrong_heads"; });
  EXPECT_EQ(wrong->actual, "8 bytes from p0 K layer 0 page 5 token 0 head 1 byte 0 to d1 K layer 0 page 1 token 0 head 0 byte 0");
  EXPECT_EQ(wrong->expected, "d1 K layer 0 page 1 token 0 head 0 byte 0 holds p0 K layer 0 page 5 token 0 head 0 byte 0");
}

TEST(ByteJudge, EachRuleOfSpec14B5IsItsOwnKind) {
  auto kinds_of = [](auto change) { return kinds(judged(2, 1, 2, change).findings); };
  using V = std::vector<std::string>;
  // Shifted by half a head: the head's second half lands on the first; the
  // rest of the 8 bytes comes from the next page (page size 1).
  EXPECT_EQ(kinds_of([](Sent& s, const MemoryMap&) { s.t.src += s.p == 1 ? 4 : 0; }),
            (V{"misaligned_in_head", "unwritten", "wrong_page_or_token"}));
  // K of layer 0 read from V of layer 0 (regions 0 and 2).
  EXPECT_EQ(kinds_of([](Sent& s, const MemoryMap&) {
              if (s.p == 1 && (s.t.src >> 37) % 4 == 0) s.t.src += std::uint64_t{2} << 37;
            }),
            (V{"unwritten", "wrong_layer_or_kv"}));
  // Another page of the request, then a page outside it.
  EXPECT_EQ(kinds_of([](Sent& s, const MemoryMap& m) { s.t.src += s.p == 1 ? m.rank(Side::Prefill, 1)->pages->item_length() : 0; }),
            (V{"unwritten", "wrong_page_or_token"}));
  // Pages 1, 7, 8 of d0 become 2 (outside the request), 8 and 9 (8 is the third page's: not page 7's partner).
  EXPECT_EQ(kinds_of([](Sent& s, const MemoryMap& m) { s.t.dst += s.p == 1 ? m.rank(Side::Decode, 0)->pages->item_length() : 0; }),
            (V{"unwritten", "write_outside_request", "wrong_page_or_token"}));
  // Past the sender's regions and into nobody's.
  EXPECT_EQ(kinds_of([](Sent& s, const MemoryMap&) { s.t.src += s.p == 1 ? std::uint64_t{1} << 36 : 0; }),
            (V{"src_outside_region", "unwritten"}));
  EXPECT_EQ(kinds_of([](Sent& s, const MemoryMap&) { s.t.dst -= s.p == 1 ? std::uint64_t{1} << 36 : 0; }),
            (V{"dst_outside_region", "unwritten"}));
  // Up to 2^64 and past it: nothing is registered there.
  EXPECT_EQ(kinds_of([](Sent& s, const MemoryMap&) { s.t.src = s.p == 1 ? ~std::uint64_t{0} - 3 : s.t.src; }),
            (V{"src_outside_region", "unwritten"}));
}

// A layout whose heads are outermost in a slot ([head][token][byte], as
// TensorRT-LLM's blocks keep K and V of a layer), judged by the same judge.
TEST(ByteJudge, AHeadMajorLayoutPlugsIntoTheSameJudge) {
  const I tokens = 4, B = 8;
  auto rank = [&](Side side, I r, I first, I count, std::uint64_t base) {
    RankMemory m;
    m.side = side;
    m.rank = r;
    m.region_bases = {base, base + (std::uint64_t{1} << 30)};
    m.slots = 6;
    m.pages = std::make_shared<bytes::HeadMajorPages>(tokens, first, count, B);
    m.request = {3};
    return m;
  };
  MemoryMap m;
  m.add(rank(Side::Prefill, 0, 0, 1, std::uint64_t{1} << 40));  // P=2, H=2: one head each
  m.add(rank(Side::Prefill, 1, 1, 1, std::uint64_t{2} << 40));
  m.add(rank(Side::Decode, 0, 0, 2, std::uint64_t{3} << 40));   // D=1: both heads
  auto judge_with = [&](bool swap) {
    FindingSet findings;
    ByteJudge judge(m, findings);
    for (I p = 0; p < 2; ++p) {
      const RankMemory& sm = *m.rank(Side::Prefill, p);
      const RankMemory& dm = *m.rank(Side::Decode, 0);
      for (std::size_t r = 0; r < 2; ++r) {
        // A whole head (every token) at once: its place in d's block is that head's.
        const std::uint64_t src = sm.region_bases[r] + 3 * sm.pages->item_length();
        const std::uint64_t dst = dm.region_bases[r] + 3 * dm.pages->item_length() +
                                  static_cast<std::uint64_t>((swap ? 1 - p : p) * tokens * B);
        judge.transfer(p, 0, {src, dst, static_cast<std::uint64_t>(tokens * B)});
      }
    }
    judge.finish();
    return kinds(findings.take());
  };
  EXPECT_EQ(judge_with(false), std::vector<std::string>{});
  EXPECT_EQ(judge_with(true), (std::vector<std::string>{"unwritten", "wrong_heads"}));
}

// The child's captures, read back by the sglang profile's relations.
Judgement judge_capture(const std::string& binding_name, const CaseArgs& args, const std::string& text) {
  const auto bindings = profile_bindings("sglang");
  const auto b = std::find_if(bindings->begin(), bindings->end(), [&](const Binding& x) { return x.name == binding_name; });
  EXPECT_NE(b, bindings->end());
  return judge(*b, 0, args, Actual{Actual::Status::Value, "", text});
}

TEST(ByteJudge, MooncakeCapturesAreReadBack) {
  // P=1, D=2, H=2, page size 1: p0 holds heads 0 and 1 (16-byte tokens), d0 head 0, d1 head 1 (8-byte tokens).
  const CaseArgs config = {1, 2, 2, 1, 0};
  const std::string p0k0 = std::to_string((std::uint64_t{1} << 50));
  const std::string d0k0 = std::to_string((std::uint64_t{1} << 51));
  // One token of one region, and then nothing: the rest of d0's request is unwritten.
  const std::string correct_token = "B " + std::to_string((std::uint64_t{1} << 50) + 5 * 16) + " " +
                                    std::to_string((std::uint64_t{1} << 51) + 1 * 8) + " 8";
  auto found = [&](const std::string& text) { return kinds(judge_capture("MooncakeKVManager.send_kvcache_slice", config, text).findings); };
  using V = std::vector<std::string>;
  EXPECT_EQ(found("pairs 0 0\npairs 1 0\nsend 0 0\n" + correct_token + "\nR 0"), (V{"unwritten"}));
  EXPECT_EQ(found("pairs 0 0\npairs 1 0\nsend 0 0\nB ?float:1.1258999068426e+15 " + d0k0 + " 8\nR 0"),
            (V{"non_integer_address", "unwritten"}));
  EXPECT_EQ(found("pairs 0 0\npairs 1 0\nsend 0 0\nB " + p0k0 + " -8 8\nR 0"), (V{"address_not_u64", "unwritten"}));
  EXPECT_EQ(found("pairs 0 0\npairs 1 0\nsend 0 0\nB " + p0k0 + " " + d0k0 + " 0\nR -1"),
            (V{"nonpositive_length", "refused", "unwritten"}));
  EXPECT_EQ(found("pairs 0 0\npairs 1 0\nsend 0 0\n! AttributeError|'MooncakeKVManager' object has no attribute 'x'"),
            (V{"raises:AttributeError", "unwritten"}));
  EXPECT_EQ(found("pairs 0 !ValueError|no\\npairs\npairs 1 0\nsend 0 1\nR 0"), (V{"pairing_differs_from_window", "unwritten"}));
  EXPECT_EQ(found("pairs 0 0\ngarbage\npairs 1 0"), (V{"crashed", "unwritten"}));
}

TEST(ByteJudge, NixlCapturesAreReadBack) {
  // P=2, D=1, H=2, page size 1: each p holds one head; d0 both. Region K0 of p0 only, slot 5 -> slot 1.
  const CaseArgs config = {2, 1, 2, 1, 0};
  const std::uint64_t p0 = std::uint64_t{1} << 50, d0 = std::uint64_t{1} << 51;
  auto row = [](std::uint64_t address, int length) { return std::to_string(address) + "," + std::to_string(length) + ",0"; };
  // Row 1 of each: the request's third pages (3 -> 8), whose destination row is a head too long.
  const std::string lists = "L 1 = VRAM " + row(p0 + 5 * 8, 8) + ";" + row(p0 + 3 * 8, 8) + "\nL 2 =decode_0 VRAM " +
                            row(d0 + 1 * 16, 8) + ";" + row(d0 + 8 * 16, 16) + "\n";
  auto found = [&](const std::string& sends) {
    return kinds(judge_capture("NixlKVManager.send_kvcache_slice", config, "pairs 0 0,1\nsend 0 0\n" + lists + sends).findings);
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(found("X 3 WRITE 1 0 2 0\nT 3\nR 3"), (V{"unwritten"}));
  EXPECT_EQ(found("X 3 WRITE 1 0,1 2 0\nT 3\nR 3"), (V{"desc_count_mismatch", "unwritten"}));
  EXPECT_EQ(found("X 3 WRITE 1 2 2 0\nT 3\nR 3"), (V{"desc_index_out_of_range", "unwritten"}));
  EXPECT_EQ(found("X 3 WRITE 1 1 2 1\nT 3\nR 3"), (V{"length_mismatch", "unwritten"}));
  EXPECT_EQ(found("X 3 WRITE 9 0 2 0\nT 3\nR 3"), (V{"desc_index_out_of_range", "unwritten"}));
  // A transfer prepared but never posted moves nothing.
  EXPECT_EQ(found("X 3 WRITE 1 0 2 0\nR 3"), (V{"unwritten"}));
  EXPECT_EQ(kinds(judge_capture("NixlKVManager.send_kvcache_slice", config,
                                "pairs 0 0,1\nsend 0 0\nL 1 = VRAM -\nL 2 =decode_0 VRAM " + row(d0 + 10 * 16, 8) + "\nR 3")
                      .findings),
            (V{"dst_dlist_outside_region", "empty_src_dlist", "unwritten"}));
}

}  // namespace
}  // namespace tpcheck::conform

namespace tpcheck::conform {
namespace {

// Whatever a driver answers (its text passes through code under test's
// values), the relations read it without crashing or hanging: a line they
// cannot read is a finding. Texts built from the captures' own words.
TEST(ByteJudge, AnyAnswerIsReadWithoutCrashing) {
  const std::vector<std::string> words = {"pairs", "send", "B", "L", "X", "T", "R", "!", "0", "1", "2", "7", "-1",
                                          "=", "=decode_0", "VRAM", "WRITE", "?float:1e+30", "18446744073709551616",
                                          "1125899906842704", ",", ";", "|", "|=", "|!", "(", ")", "[", "]", "None",
                                          "ValueError|x", "-", " ", "\n", "\\n", "9223372036854775807"};
  const auto bindings = profile_bindings("sglang");
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>(state >> 33);
  };
  std::uint64_t judged = 0, with_findings = 0;
  for (int round = 0; round < 300; ++round) {
    std::string text;
    const std::size_t n = next() % 60;
    for (std::size_t i = 0; i < n; ++i) text += words[next() % words.size()] + (next() % 3 == 0 ? " " : "");
    for (const Binding& b : *bindings) {
      const std::size_t arity = b.params.size();
      CaseArgs args(arity, BigInt(1));
      args[0] = 2;  // P=2, D=1 (P, D divisible), H=1, page size 1, probe 0; the index function's small list
      if (b.relation == &kIndexFunction) args = {4, 10, 1, 1};
      if (b.relation == &kMooncakeTransfers || b.relation == &kNixlTransfers) args[4] = 0;
      const Judgement j = judge(b, 0, args, Actual{Actual::Status::Value, "", text});
      ++judged;
      with_findings += !j.findings.empty();
    }
  }
  // Values at int64's ends, where arithmetic on them would overflow.
  const std::string max = "9223372036854775807", min = "-9223372036854775808";
  for (const std::string& text : {"0 0|=(" + max + "," + max + ",0," + max + ")", "0 0|=(" + min + ",1,0,1)",
                                  "0 0|=(1,16,16,8,8," + max + "," + max + "," + max + ")", "0|=([" + max + "],0,1,1)",
                                  "0 0|=(0,1,0,1);(" + max + "," + max + "," + max + "," + max + ")"}) {
    for (const Binding& b : *bindings) {
      CaseArgs args(b.params.size(), BigInt(1));
      args[0] = 2;
      if (b.relation == &kIndexFunction) args = {4, 10, 1, 1};
      if (b.relation == &kMooncakeTransfers || b.relation == &kNixlTransfers) args[4] = 0;
      judge(b, 0, args, Actual{Actual::Status::Value, "", text});
      ++judged;
    }
  }
  EXPECT_EQ(judged, 305u * bindings->size());
  EXPECT_GT(with_findings, judged / 2);  // garbage is found wanting, not silently passed
}

}  // namespace
}  // namespace tpcheck::conform
