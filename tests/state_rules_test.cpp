// Each connector's handling of the recurrent state (preflight/state_rules.hpp)
// and the judge of a decode rank's state writes (state_judge.hpp): the
// model's own plan is judged exact under every layout, each planted fault is
// its §16.7 kind, and on SPEC §16.8's grid every connector serves, refuses
// or misserves exactly where SPEC §16.5 says its code does.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tpcheck/preflight/state_rules.hpp"

namespace tpcheck::preflight {
namespace {

using I = std::int64_t;
using U = StateUnits;

StateDims<I> dims(StateFamily f, std::initializer_list<I> v) {
  StateDims<I> d;
  d.family = f;
  std::copy(v.begin(), v.end(), d.v.begin());
  return d;
}

// SPEC §16.8's grid of configs.
std::vector<StateDims<I>> grid_configs() {
  return {dims(StateFamily::Mamba2, {24, 1, 1, 3}), dims(StateFamily::Mamba2, {24, 1, 6, 2}),
          dims(StateFamily::Mamba2, {24, 2, 24, 1}), dims(StateFamily::Gdn, {24, 1, 48, 2}),
          dims(StateFamily::Kda, {24, 2}),          dims(StateFamily::Mamba1, {24, 2})};
}

bool loads(I T, const StateDims<I>& d) { return state_shape<I>(T, d).ok(); }
bool divisible(I P, I D) { return std::max(P, D) % std::min(P, D) == 0; }
bool case_b(I P, I D, const StateDims<I>& d) { return d.family == StateFamily::Mamba2 && d.v[2] == 1 && std::max(P, D) > 1; }

StateSideBytes side(I T, const StateDims<I>& d, ConvOrder order, StateContainer container, U page = U(0)) {
  return side_state_bytes(T, d, order, container, 3, 2, 4, page).value();
}

std::string finding_text(const std::optional<StateFinding>& f) {
  return f ? f->segment + ": " + std::string(state_fault_name(f->fault)) : "exact";
}

// The model's plan, written under any layout on either side, is exact.
TEST(StateJudge, ThePlanIsExactUnderEveryLayout) {
  struct Layout {
    ConvOrder prefill, decode;
    StateContainer container;
  };
  const std::vector<Layout> layouts = {
      {ConvOrder::DimFirst, ConvOrder::DimFirst, StateContainer::VllmPage},
      {ConvOrder::StateFirst, ConvOrder::StateFirst, StateContainer::VllmPage},
      {ConvOrder::SegmentsStateFirst, ConvOrder::SegmentsStateFirst, StateContainer::VllmPage},
      {ConvOrder::DimFirst, ConvOrder::StateFirst, StateContainer::VllmPage},
      {ConvOrder::StateFirst, ConvOrder::DimFirst, StateContainer::VllmPage},
      {ConvOrder::DimFirst, ConvOrder::DimFirst, StateContainer::SglangPool},
      {ConvOrder::StateFirst, ConvOrder::StateFirst, StateContainer::SglangPool},
  };
  std::map<std::string, int> reached;
  for (const StateDims<I>& d : grid_configs()) {
    for (I P = 1; P <= 8; ++P) {
      for (I D = 1; D <= 8; ++D) {
        if (!loads(P, d) || !loads(D, d) || !divisible(P, D)) continue;
        for (const Layout& l : layouts) {
          const StateSideBytes p = side(P, d, l.prefill, l.container), q = side(D, d, l.decode, l.container);
          for (I r = 0; r < D; ++r) {
            const auto writes = plan_writes(p, q, d, P, D, r);
            EXPECT_EQ(finding_text(judge_state_writes(p, q, r, writes, false)), "exact")
                << state_family_name(d.family) << " " << P << " -> " << D << " decode rank " << r;
          }
          ++reached[P < D ? "P < D" : P > D ? "P > D" : "P = D"];
          if (case_b(P, D, d)) ++reached["replicated"];
          if (l.prefill != l.decode) ++reached["layouts differ"];
        }
      }
    }
  }
  for (const char* kind : {"P < D", "P > D", "P = D", "replicated", "layouts differ"}) {
    EXPECT_GT(reached[kind], 0) << kind << " never reached";
  }
}

// Each planted fault in the plan's writes is judged its own §16.7 kind, in
// the segment it lands in.
TEST(StateJudge, EachPlantedFaultIsItsKind) {
  // Mamba2 with one group (B and C replicated), 2 -> 4, DS pages padded by 64 bytes.
  const StateDims<I> d = dims(StateFamily::Mamba2, {8, 2, 1, 3});
  const StateSideBytes p0 = side(2, d, ConvOrder::DimFirst, StateContainer::VllmPage);
  const StateSideBytes q0 = side(4, d, ConvOrder::DimFirst, StateContainer::VllmPage);
  const StateSideBytes p = side(2, d, ConvOrder::DimFirst, StateContainer::VllmPage, U(p0.page_bytes + 64));
  const StateSideBytes q = side(4, d, ConvOrder::DimFirst, StateContainer::VllmPage, U(q0.page_bytes + 64));
  const I r = 0;
  const std::vector<StateWrite> plan = plan_writes(p, q, d, 2, 4, r);
  ASSERT_EQ(plan.size(), 4u);  // x, B, C, ssm: one source each
  const U row = U(3 * 2);      // a channel's rows, in bytes
  const auto judged = [&](auto change, bool redundant_allowed = false) {
    std::vector<StateWrite> w = plan;
    change(w);
    return finding_text(judge_state_writes(p, q, r, w, redundant_allowed));
  };
  EXPECT_EQ(judged([](auto&) {}), "exact");
  EXPECT_EQ(judged([](auto& w) { w.pop_back(); }), "ssm: unwritten");
  EXPECT_EQ(judged([](auto& w) { w.push_back(w[1]); }), "B: redundant");
  EXPECT_EQ(judged([](auto& w) { w.push_back(w[1]); }, true), "exact");
  EXPECT_EQ(judged([&](auto& w) { w[0].src += row; }), "x: wrong_channels");
  EXPECT_EQ(judged([](auto& w) { w[0].src += 2; }), "x: wrong_position");
  EXPECT_EQ(judged([](auto& w) { w[0].src += 1; }), "x: misaligned_in_element");
  EXPECT_EQ(judged([](auto& w) { w[2].src = w[1].src; }), "C: wrong_segment");
  EXPECT_EQ(judged([&](auto& w) { w[3].dst = q.page_bytes - 1; }), "ssm: unwritten");  // and past the slot
  EXPECT_EQ(judged([&](auto& w) { w.push_back({StateEntry::Page, 0, U(0), q.page_bytes, U(4)}); }),
            "past its slot: write_outside_request");
  EXPECT_EQ(judged([&](auto& w) { w[3].src = p.page_bytes; }), "ssm: wrong_slot");
  EXPECT_EQ(judged([&](auto& w) {
              w[3].src = U(p.conv_bytes + p.ssm_bytes);
              w[3].n = U(2);
            }),
            "ssm: padding");
  EXPECT_EQ(judged([&](auto& w) { w.push_back({StateEntry::Page, 0, U(0), U(q.conv_bytes + q.ssm_bytes), U(2)}); }),
            "padding: padding");
}

// What SPEC §16.5 says each connector's code does, on SPEC §16.8's grid.
StateServing expected(Connector c, I P, I D, const StateDims<I>& d, const HybridState& s) {
  const bool ds = s.prefill.layout == ConvOrder::DimFirst && s.decode.layout == ConvOrder::DimFirst;
  const StateFamily f = d.family;
  if (!loads(P, d) || !loads(D, d)) return StateServing::DoesNotLoad;
  switch (c) {
    case Connector::Nixl:
      if (!ds || f == StateFamily::Mamba1) return StateServing::Refuses;
      if (!divisible(P, D)) return StateServing::Refuses;
      // Its remote offsets scale the decode side's widths by the ratio: right for sharded segments only.
      return P == D || !case_b(P, D, d) ? StateServing::Serves : StateServing::Misserves;
    case Connector::Mooncake:
      if (!divisible(P, D)) return StateServing::Refuses;
      return P == D ? StateServing::Serves : StateServing::Misserves;
    case Connector::MoRIIO:
      if (P != D || (f == StateFamily::Kda && !ds)) return StateServing::Refuses;
      return StateServing::Serves;
    case Connector::SGLang:
      if (!divisible(P, D)) return StateServing::Invalid;
      // Mamba2 registers no segment widths: one block across x, B and C.
      return P == D || f != StateFamily::Mamba2 ? StateServing::Serves : StateServing::Misserves;
    case Connector::Trtllm:
    case Connector::TrtllmV2:
      if (case_b(P, D, d)) {
        // B and C of 3 channels: the cache manager's conv_dim check first, then v2's section check.
        for (const I T : {P, D}) {
          if ((24 + 2 * 3) % T != 0 || (c == Connector::TrtllmV2 && 3 % T != 0)) return StateServing::Refuses;
        }
        return StateServing::Outside;
      }
      if (!divisible(P, D)) return c == Connector::TrtllmV2 ? StateServing::Invalid : StateServing::Refuses;
      // The C++ slot mode cuts the whole conv axis: right for one segment only.
      if (c == Connector::Trtllm && P != D && f != StateFamily::Mamba1) return StateServing::Misserves;
      return StateServing::Serves;
    case Connector::General: return divisible(P, D) ? StateServing::Serves : StateServing::Refuses;
  }
  return StateServing::Serves;
}

TEST(StateRules, EveryConnectorOnTheGrid) {
  std::map<std::pair<Connector, StateServing>, int> reached;
  for (const ConvOrder layout : {ConvOrder::DimFirst, ConvOrder::StateFirst}) {
    for (const StateDims<I>& d : grid_configs()) {
      HybridState s{d, 3, {2, 2, std::nullopt, layout}, {2, 2, std::nullopt, layout}};
      for (I P = 1; P <= 8; ++P) {
        for (I D = 1; D <= 8; ++D) {
          for (const Connector c : kConnectors) {
            const StateVerdict v = state_verdict(c, P, D, s, AttentionShape{true, 8, false});
            EXPECT_EQ(v.serving, expected(c, P, D, d, s))
                << connector_name(c) << " " << state_family_name(d.family) << " " << d.v[2] << " " << P << " -> " << D
                << " " << conv_order_name(layout) << ": " << v.error << v.why << " "
                << (v.serving == StateServing::Misserves ? v.finding.segment : "");
            ++reached[{c, v.serving}];
          }
        }
      }
    }
  }
  // Every connector reaches each of its outcomes SPEC §16.5 names.
  const std::map<Connector, std::vector<StateServing>> outcomes = {
      {Connector::Nixl, {StateServing::Serves, StateServing::Refuses, StateServing::Misserves}},
      {Connector::Mooncake, {StateServing::Serves, StateServing::Refuses, StateServing::Misserves}},
      {Connector::MoRIIO, {StateServing::Serves, StateServing::Refuses}},
      {Connector::SGLang, {StateServing::Serves, StateServing::Invalid, StateServing::Misserves}},
      {Connector::Trtllm, {StateServing::Serves, StateServing::Refuses, StateServing::Outside, StateServing::Misserves}},
      {Connector::TrtllmV2, {StateServing::Serves, StateServing::Refuses, StateServing::Outside, StateServing::Invalid}},
      {Connector::General, {StateServing::Serves, StateServing::Refuses, StateServing::DoesNotLoad}},
  };
  for (const auto& [c, kinds] : outcomes) {
    for (const StateServing k : kinds) {
      EXPECT_GT((reached[{c, k}]), 0) << connector_name(c) << " never reached outcome " << static_cast<int>(k);
    }
  }
}

TEST(StateRules, TheConnectorsWords) {
  const StateDims<I> mamba1 = dims(StateFamily::Mamba1, {24, 2});
  const StateDims<I> kda = dims(StateFamily::Kda, {24, 2});
  const StateSide sd{3, 2, std::nullopt, ConvOrder::StateFirst}, ds{3, 2, std::nullopt, ConvOrder::DimFirst};
  const AttentionShape kv{true, 8, false};
  EXPECT_EQ(state_verdict(Connector::Nixl, 2, 2, {kda, 4, sd, sd}, kv).error,
            "AssertionError: 3-read Mamba conv transfer requires DS conv state layout. Set "
            "VLLM_SSM_CONV_STATE_LAYOUT=DS");
  EXPECT_EQ(state_verdict(Connector::Nixl, 2, 2, {mamba1, 4, ds, ds}, kv).error,
            "NotImplementedError: 3-read conv transfer supports ('mamba2', 'gdn_attention'), got mamba_type='mamba1'.");
  EXPECT_EQ(state_verdict(Connector::MoRIIO, 2, 4, {kda, 4, ds, ds}, kv).error,
            "NotImplementedError: heterogeneous-TP mamba/KDA transfer is not supported yet (local_tp=4, remote_tp=2); "
            "use equal prefill/decode TP for hybrid models");
  EXPECT_EQ(state_verdict(Connector::MoRIIO, 2, 2, {kda, 4, sd, sd}, kv).error,
            "MoRIIOError: MoRIIO KDA conv transfer requires the DS (dim-first) state layout");
  // Windows that differ: SGLang's whole slots refuse at P = D, the others move
  // the bytes (invalid), the general rule refuses what the model calls invalid.
  const StateSide longer{4, 2, std::nullopt, ConvOrder::DimFirst};
  EXPECT_EQ(state_verdict(Connector::SGLang, 2, 2, {mamba1, 4, ds, longer}, kv).error,
            "RuntimeError: Prefill/Decode Mamba slot size mismatch (src=72, dst=96). Configure matching persistent "
            "state layouts on both peers.");
  const StateVerdict nixl = state_verdict(Connector::Nixl, 2, 4, {kda, 4, ds, longer}, kv);
  EXPECT_EQ(nixl.serving, StateServing::Invalid);
  EXPECT_EQ(nixl.error,
            "ValueError: prefill conv window length 3 differs from decode's 4: K-1+num_speculative_tokens must match on "
            "both sides");
  EXPECT_EQ(state_verdict(Connector::General, 2, 4, {kda, 4, ds, longer}, kv).serving, StateServing::Refuses);
  // The model's own refusals come first, with its texts.
  const StateVerdict unloaded = state_verdict(Connector::General, 2, 5, {kda, 4, ds, ds}, kv);
  EXPECT_EQ(unloaded.serving, StateServing::DoesNotLoad);
  EXPECT_EQ(unloaded.side, "decode");
  EXPECT_EQ(unloaded.error, "AssertionError");  // KDA's bare assert
}

// Mooncake moves the state as KV: it has no state plan at P != D.
TEST(StateRules, MooncakeSlicesStatePagesAsKv) {
  const StateDims<I> gdn = dims(StateFamily::Gdn, {24, 1, 48, 2});
  const StateSide ds{3, 2, std::nullopt, ConvOrder::DimFirst};
  for (const AttentionShape kv : {AttentionShape{true, 8, false}, AttentionShape{true, 1, false},
                                  AttentionShape{true, 1, true}, AttentionShape{false, 1, false}}) {
    const StateVerdict v = state_verdict(Connector::Mooncake, 2, 4, {gdn, 4, ds, ds}, kv);
    EXPECT_EQ(v.serving, StateServing::Misserves);
    EXPECT_EQ(v.why, "no state plan at P != D: its KV planner slices the state pages as KV");
    EXPECT_EQ(v.decode_rank, 0);
    EXPECT_EQ(state_verdict(Connector::Mooncake, 4, 4, {gdn, 4, ds, ds}, kv).serving, StateServing::Serves);
  }
}

}  // namespace
}  // namespace tpcheck::preflight
