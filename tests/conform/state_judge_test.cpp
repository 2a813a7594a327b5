// Unit tests of the state judge (SPEC §16.7) on transfers made here from the
// model's plans (no connector): every plan of the grid, in SGLang's pool and
// in vLLM's pages, is correct and complete; each kind of §16.7 is found
// where it is due, in its order; offset-level blocks; the grid's counts
// (SPEC §16.8) and --family.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "tpcheck/conform/state_grid.hpp"
#include "tpcheck/conform/state_judge.hpp"
#include "tpcheck/conform/state_memory.hpp"
#include "tpcheck/state_bytes.hpp"

namespace tpcheck::conform::state {
namespace {

using bytes::Side;
using bytes::Transfer;
using I = std::int64_t;
using U = units_t<I>;

std::set<std::string> kinds(const std::vector<Finding>& findings) {
  std::set<std::string> out;
  for (const auto& f : findings) out.insert(f.kind);
  return out;
}

const Finding* find(const std::vector<Finding>& findings, const std::string& kind) {
  for (const auto& f : findings) {
    if (f.kind == kind) return &f;
  }
  return nullptr;
}

// The regions of an entry kind: SGLang's pool's conv entries then temporal
// ones; a vLLM page per layer.
std::vector<std::int64_t> regions_for(const StateMemory& m, bool ssm) {
  std::vector<std::int64_t> out;
  for (std::size_t r = 0; r < m.entry_count(); ++r) {
    const StatePart t = m.entry(static_cast<std::int64_t>(r)).tensor;
    if (m.side(Side::Prefill).container == StateContainer::VllmPage || (t == StatePart::Ssm) == ssm) {
      out.push_back(static_cast<std::int64_t>(r));
    }
  }
  return out;
}

// The plan of every decode rank of (P, D) sent as its byte runs into every
// entry of the memory, each run first given to `change` (which may alter it
// or drop it by returning false).
template <class Change>
std::uint64_t send_plans(const StateMemory& m, I P, I D, StateJudge& judge, Change change) {
  std::uint64_t runs = 0;
  const auto& sender = m.side(Side::Prefill);
  const auto& receiver = m.side(Side::Decode);
  for (I d = 0; d < D; ++d) {
    const auto plan = state_plan<I>(d, P, D, m.config().dims);
    EXPECT_TRUE(plan.ok());
    for (const auto& copy : plan.value()) {
      for_each_copy_run(copy, sender, receiver, [&](const ByteRun<I>& r) {
        for (const std::int64_t region : regions_for(m, r.part == StatePart::Ssm)) {
          I p = copy.p;
          std::int64_t src_region = region;
          U src = r.src, dst = r.dst, length = r.length;
          if (!change(d, copy, region, p, src_region, src, dst, length)) continue;
          ++runs;
          judge.transfer(p, d,
                         {m.request_address(Side::Prefill, p, src_region, static_cast<I>(src)),
                          m.request_address(Side::Decode, d, region, static_cast<I>(dst)), static_cast<std::uint64_t>(length)});
        }
        return true;
      });
    }
  }
  return runs;
}

const auto kAsPlanned = [](I, const StateCopy<I>&, std::int64_t, I&, std::int64_t&, U&, U&, U&) { return true; };

std::vector<Finding> judged(const StateMemory& m, I P, I D, std::uint64_t* runs = nullptr) {
  FindingSet findings;
  StateJudge judge(m, findings);
  const auto n = send_plans(m, P, D, judge, kAsPlanned);
  if (runs) *runs = n;
  judge.finish();
  return findings.take();
}

TEST(StateGrid, TheSpecsCounts) {
  // 110 valid sizings: 20 per configuration, 10 for G = 6.
  const auto cases = state_cases({}, {}, false);
  EXPECT_EQ(cases.size(), 110u);
  std::map<std::int64_t, int> per_config;
  for (const auto& c : cases) ++per_config[static_cast<std::int64_t>(c[2])];
  EXPECT_EQ(per_config, (std::map<std::int64_t, int>{{0, 20}, {1, 10}, {2, 20}, {3, 20}, {4, 20}, {5, 20}}));
  // 52 that load on both sides but do not divide, and the order P + D, then P.
  EXPECT_EQ(state_cases({}, {}, true).size(), 110u + 52u);
  EXPECT_EQ(cases.front(), (CaseArgs{1, 2, 0}));
  // --family narrows it; --max-tp widens it.
  EXPECT_EQ(state_cases({}, {StateFamily::Gdn, StateFamily::Kda}, false).size(), 40u);
  GridBounds wide;
  wide.max_tp = 12;
  wide.max_tp_given = true;
  EXPECT_GT(state_cases(wide, {}, false).size(), 110u);
  EXPECT_EQ(state_params({StateFamily::Mamba1})[2].shown(5), "mamba1(24, 2)");
  // Sizings: case C never loads, 4 and 6 do not divide.
  EXPECT_EQ(sizing(state_configs()[1], 4, 2), Sizing::NotLoading);
  EXPECT_EQ(sizing(state_configs()[0], 4, 6), Sizing::NotDivisible);
  EXPECT_EQ(sizing(state_configs()[0], 2, 2), Sizing::Equal);
}

// Every valid sizing of the grid, in SGLang's pool and in vLLM's pages (DS
// and SD): the model's plans write every byte of every decode rank's state,
// once, from what a prefill rank holds.
TEST(StateJudge, TheModelsPlansOverTheWholeGridAreCorrect) {
  const StateLayout layout;
  std::uint64_t runs = 0, sizings = 0;
  for (const auto& c : state_cases({}, {}, false)) {
    const I P = static_cast<I>(c[0]), D = static_cast<I>(c[1]);
    const StateConfig& config = state_configs()[static_cast<std::size_t>(c[2])];
    std::vector<SideSpec> specs = {sglang_pool(config.dims.family)};
    for (const ConvOrder order : {ConvOrder::DimFirst, ConvOrder::StateFirst}) {
      SideSpec v;
      v.container = StateContainer::VllmPage;
      v.order = order;
      specs.push_back(v);
    }
    for (const SideSpec& spec : specs) {
      const StateMemory m(layout, config, P, D, spec, spec);
      std::uint64_t n = 0;
      const auto found = judged(m, P, D, &n);
      ASSERT_TRUE(found.empty()) << config.label << " P=" << P << " D=" << D << ": " << found.front().kind << " "
                                 << found.front().actual;
      runs += n;
      ++sizings;
    }
  }
  EXPECT_EQ(sizings, 330u);
  EXPECT_GT(runs, 10000u);
}

// A replicated segment (case B) is sent once per decode rank; a second copy
// of it is redundant, and a copy left out leaves the state unwritten.
TEST(StateJudge, ACopyTwiceIsRedundantAndOneLeftOutIsUnwritten) {
  const StateLayout layout;
  const StateConfig& g1 = state_configs()[0];  // mamba2 G = 1
  const StateMemory m(layout, g1, 2, 1, sglang_pool(StateFamily::Mamba2), sglang_pool(StateFamily::Mamba2));
  FindingSet twice;
  StateJudge judge(m, twice);
  send_plans(m, 2, 1, judge, kAsPlanned);
  // p1 also sends B whole, as SGLang's every writer does.
  const auto& b = m.side(Side::Prefill).state.conv[1];
  judge.transfer(1, 0, {m.request_address(Side::Prefill, 1, 0, static_cast<I>(b.loc * 4)),
                        m.request_address(Side::Decode, 0, 0, static_cast<I>(m.side(Side::Decode).state.conv[1].loc * 4)),
                        static_cast<std::uint64_t>(b.width * 4)});
  judge.finish();
  const auto found = twice.take();
  EXPECT_EQ(kinds(found), std::set<std::string>{"redundant"});
  EXPECT_EQ(find(found, "redundant")->actual,
            "12 bytes written correctly more than once, the first at conv layer 1 slot 7 B channel 0 row 0 byte 0");

  FindingSet missing;
  StateJudge judge2(m, missing);
  send_plans(m, 2, 1, judge2, [](I, const StateCopy<I>& copy, std::int64_t region, I&, std::int64_t&, U&, U&, U&) {
    return !(std::string(copy.name) == "ssm" && region == 3 && copy.p == 1);  // p1's heads of layer 3's temporal state
  });
  judge2.finish();
  const auto left = missing.take();
  EXPECT_EQ(kinds(left), std::set<std::string>{"unwritten"});
  EXPECT_EQ(find(left, "unwritten")->expected,
            "every byte of d0's state (slot 7 of its 4 entries, 816 bytes) written from a prefill rank that holds it");
  EXPECT_EQ(find(left, "unwritten")->actual,
            "144 bytes never written correctly, the first at temporal layer 3 slot 7 ssm head 12 element 0 byte 0");
}

// Each rule of §16.7 is its own kind, the first that applies.
TEST(StateJudge, EachRuleOfSpec16_7IsItsOwnKind) {
  const StateLayout layout;
  const StateConfig& g24 = state_configs()[2];  // mamba2 G = 24: x 48 wide, B and C 24
  const StateMemory m(layout, g24, 1, 2, sglang_pool(StateFamily::Mamba2), sglang_pool(StateFamily::Mamba2));
  const auto first_kind = [&](auto change) {
    FindingSet findings;
    StateJudge judge(m, findings);
    send_plans(m, 1, 2, judge, change);
    judge.finish();
    std::set<std::string> out;
    for (const auto& f : findings.take()) {
      if (f.kind != "unwritten") out.insert(f.kind);
    }
    return out;
  };
  using C = const StateCopy<I>&;
  // Into decode slot 6, or from prefill slot 3.
  EXPECT_EQ(first_kind([&](I, C, std::int64_t region, I&, std::int64_t&, U&, U& dst, U&) {
              dst = dst - U(m.map().rank(Side::Decode, 0)->item_length(region));
              return true;
            }),
            std::set<std::string>{"write_outside_request"});
  EXPECT_EQ(first_kind([&](I, C, std::int64_t region, I&, std::int64_t&, U& src, U&, U&) {
              src = src + U(m.map().rank(Side::Prefill, 0)->item_length(region));
              return true;
            }),
            std::set<std::string>{"wrong_slot"});
  // Layer 3's entry read for layer 1's; the temporal state read into the conv window.
  EXPECT_EQ(first_kind([](I, C, std::int64_t region, I&, std::int64_t& from, U&, U&, U&) {
              if (region == 0) from = 1;
              return true;
            }),
            std::set<std::string>{"wrong_layer"});
  EXPECT_EQ(first_kind([](I, C copy, std::int64_t region, I&, std::int64_t& from, U& src, U&, U& length) {
              if (region == 0 && std::string(copy.name) == "x") {
                from = 2;
                src = 0;
                length = 8;
              }
              return true;
            }),
            std::set<std::string>{"wrong_state_tensor"});
  // B's bytes in C's place.
  EXPECT_EQ(first_kind([&](I, C copy, std::int64_t, I&, std::int64_t&, U& src, U&, U&) {
              if (std::string(copy.name) == "C") src = src - U(24 * 4);
              return true;
            }),
            std::set<std::string>{"wrong_segment"});
  // Other channels: the other decode rank's half of x.
  EXPECT_EQ(first_kind([](I d, C copy, std::int64_t, I&, std::int64_t&, U& src, U&, U&) {
              if (std::string(copy.name) == "x") src = d == 0 ? src + U(24 * 4) : src - U(24 * 4);
              return true;
            }),
            std::set<std::string>{"wrong_channels"});
  // A row shifted (one element), then one byte.
  EXPECT_EQ(first_kind([](I, C copy, std::int64_t, I&, std::int64_t&, U& src, U&, U& length) {
              if (std::string(copy.name) == "x") {
                src = src + 2;
                length = length - 2;
              }
              return true;
            }),
            (std::set<std::string>{"wrong_channels", "wrong_position"}));
  EXPECT_EQ(first_kind([](I, C copy, std::int64_t, I&, std::int64_t&, U& src, U&, U& length) {
              if (std::string(copy.name) == "B") {
                src = src + 1;
                length = length - 1;
              }
              return true;
            }),
            (std::set<std::string>{"wrong_channels", "wrong_position", "misaligned_in_element"}));
  // Outside every region.
  EXPECT_EQ(first_kind([](I, C copy, std::int64_t, I&, std::int64_t&, U& src, U&, U&) {
              if (std::string(copy.name) == "ssm") src = src + (U(1) << 40);
              return true;
            }),
            std::set<std::string>{"src_outside_region"});
}

TEST(StateJudge, FindingsNameWhatTheBytesHold) {
  const StateLayout layout;
  const StateConfig& g1 = state_configs()[0];
  const StateMemory m(layout, g1, 1, 2, sglang_pool(StateFamily::Mamba2), sglang_pool(StateFamily::Mamba2));
  FindingSet findings;
  StateJudge judge(m, findings);
  // d1's x (logical channels 12..24) taken from p0's first channels.
  judge.transfer(0, 1, {m.request_address(Side::Prefill, 0, 0, 0), m.request_address(Side::Decode, 1, 0, 0), 48});
  const auto found = findings.take();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "wrong_channels");
  EXPECT_EQ(found[0].expected,
            "d1 conv layer 1 slot 7 x channel 12 row 0 byte 0 holds the prefill side's conv layer 1 slot 4 x channel 12 "
            "row 0 byte 0");
  EXPECT_EQ(found[0].actual,
            "48 bytes from p0 conv layer 1 slot 4 x channel 0 row 0 byte 0 to d1 conv layer 1 slot 7 x channel 12 row 0 "
            "byte 0");
}

// A vLLM page's padding is neither required nor to be moved; the SSM state
// read as the conv's is another segment of the same page.
TEST(StateJudge, VllmPagesPaddingAndTheSsmInTheConvsPlace) {
  const StateLayout layout;
  const StateConfig& kda = state_configs()[4];
  SideSpec ds;
  ds.container = StateContainer::VllmPage;
  const StateMemory m(layout, kda, 2, 1, ds, ds);
  EXPECT_EQ(judged(m, 2, 1).size(), 0u);
  const auto& side = m.side(Side::Prefill);
  EXPECT_GT(side.page_bytes, side.conv_bytes + side.ssm_bytes);
  FindingSet findings;
  StateJudge judge(m, findings);
  // The padding of p0's page, and p0's SSM state into d0's conv state.
  const I state = static_cast<I>(side.conv_bytes + side.ssm_bytes);
  judge.transfer(0, 0, {m.request_address(Side::Prefill, 0, 0, state), m.request_address(Side::Decode, 0, 0, 0), 16});
  judge.transfer(0, 0, {m.request_address(Side::Prefill, 0, 0, static_cast<I>(side.conv_bytes)),
                        m.request_address(Side::Decode, 0, 0, 0), 16});
  EXPECT_EQ(kinds(findings.take()), (std::set<std::string>{"padding", "wrong_segment"}));
}

// Unequal windows (vLLM's num_spec on one side): the same channels, rows
// that do not line up; every element is judged, the ones that match are written.
TEST(StateJudge, UnequalWindowsAreJudgedElementByElement) {
  const StateLayout layout;
  const StateConfig& m1 = state_configs()[5];
  SideSpec a, b;
  b.rows = 3;
  const StateMemory m(layout, m1, 1, 2, a, b);
  FindingSet findings;
  StateJudge judge(m, findings);
  // p0's first 12 channels (2 rows each) into d0's as if they were contiguous.
  judge.transfer(0, 0, {m.request_address(Side::Prefill, 0, 0, 0), m.request_address(Side::Decode, 0, 0, 0), 48});
  judge.finish();
  const auto found = findings.take();
  EXPECT_EQ(kinds(found), (std::set<std::string>{"wrong_channels", "wrong_position", "unwritten"}));
  // Channel 0's rows 0 and 1 landed right.
  EXPECT_NE(find(found, "unwritten")->actual.find("the first at conv layer 1 slot 7 x channel 0 row 2 byte 0"),
            std::string::npos);
}

// A sizing the model refuses: every kind under nondiv:.
TEST(StateJudge, NonDivisibleSizingsReportNondivKinds) {
  const StateLayout layout;
  const StateConfig& g1 = state_configs()[0];
  const StateMemory m(layout, g1, 4, 6, sglang_pool(StateFamily::Mamba2), sglang_pool(StateFamily::Mamba2));
  FindingSet findings;
  StateJudge judge(m, findings, "nondiv:");
  judge.transfer(0, 0, {m.request_address(Side::Prefill, 0, 0, 0), m.request_address(Side::Decode, 0, 0, 0), 8});
  judge.finish();
  const auto found = kinds(findings.take());
  EXPECT_TRUE(found.count("nondiv:unwritten"));
  EXPECT_FALSE(found.count("unwritten"));
}

// SPEC §16.6's offset level: a plan's copies as blocks of slice-axis units
// are correct; a block past the slot is the slot's neighbour, not memory.
TEST(StateJudge, UnitBlocksOfThePlanAreCorrect) {
  const StateLayout layout;
  for (const auto& c : state_cases({}, {}, false)) {
    const I P = static_cast<I>(c[0]), D = static_cast<I>(c[1]);
    const StateConfig& config = state_configs()[static_cast<std::size_t>(c[2])];
    const StateMemory m(layout, config, P, D, slice_units(), slice_units());
    FindingSet findings;
    StateJudge judge(m, findings, "", true);
    for (I d = 0; d < D; ++d) {
      const auto plan = state_plan<I>(d, P, D, config.dims);
      for (const auto& copy : plan.value()) {
        const bool ssm = std::string(copy.name) == "ssm";
        for (const std::int64_t region : regions_for(m, ssm)) {
          judge.blocks(copy.p, d, region,
                       {{static_cast<I>(copy.src), static_cast<I>(copy.dst), static_cast<I>(copy.n)}}, false);
        }
      }
    }
    judge.finish();
    const auto found = findings.take();
    ASSERT_TRUE(found.empty()) << config.label << " P=" << P << " D=" << D << ": " << found.front().kind;
  }
  const StateMemory m(layout, state_configs()[5], 1, 2, slice_units(), slice_units());
  FindingSet findings;
  StateJudge judge(m, findings, "", true);
  judge.blocks(0, 1, 0, {{12, 0, 12}, {0, 12, 1}}, false);
  judge.blocks(0, 1, 0, {{-100000000, 0, 1}, {0, 0, 0}}, false);
  const auto found = kinds(findings.take());
  EXPECT_EQ(found, (std::set<std::string>{"write_outside_request", "wrong_slot", "nonpositive_length"}));
}

TEST(StateJudge, KindsFollowTheSpecsOrder) {
  std::vector<std::string> ids;
  for (const auto& k : state_kinds()) ids.push_back(k.id);
  const std::vector<std::string> order = {"write_outside_request", "wrong_slot", "padding", "wrong_layer",
                                          "wrong_state_tensor", "wrong_segment", "wrong_channels", "wrong_position",
                                          "misaligned_in_element", "unwritten", "wrong_split", "inexact_ceil",
                                          "redundant", "whole_slot_fallback", "accepts_invalid"};
  std::size_t at = 0;
  for (const auto& id : ids) {
    if (at < order.size() && id == order[at]) ++at;
  }
  EXPECT_EQ(at, order.size());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "nondiv:wrong_channels"), ids.end());
  EXPECT_FALSE(find_kind(state_kinds(), "redundant")->failure);
}

}  // namespace
}  // namespace tpcheck::conform::state
