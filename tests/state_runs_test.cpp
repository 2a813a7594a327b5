// SPEC §16.3: the runs of an entry (entry_run_at), against decoding each of
// its bytes: along a run, what a byte holds advances as one mixed-radix count
// (byte, then row or element, then channel or head), and the next byte after
// a run's end does not continue it. Exhaustive over small sides of every
// family, layout and container.
#include <string>
#include <vector>

#include "model_test_support.hpp"
#include "tpcheck/state.hpp"
#include "tpcheck/state_bytes.hpp"

namespace tpcheck::test {
namespace {

using Int = std::int64_t;
using U = units_t<Int>;

// What byte i of a run holds, counting on from its first byte with the run's radices.
StateByte<Int> advanced(const StateRun<Int>& run, U i) {
  StateByte<Int> b = run.first;
  const U e = U(run.element_bytes);
  if (b.part == StatePart::Padding) {
    b.unit += i;
    return b;
  }
  U inner = U(b.byte) + i;  // bytes past the start of the first byte's element...
  if (run.positions == 0) {
    b.byte = static_cast<Int>(inner % e);
    b.unit += inner / e;
    return b;
  }
  inner += b.position * e;  // ... and past the start of its unit
  b.byte = static_cast<Int>(inner % e);
  b.position = (inner / e) % run.positions;
  b.unit += inner / e / run.positions;
  return b;
}

StateByte<Int> decoded(const SideBytes<Int>& side, Int r, StatePart tensor, U q) {
  if (side.container == StateContainer::VllmPage) return decode_page_byte(side, r, q);
  return tensor == StatePart::Conv ? decode_conv_byte(side, r, q) : decode_ssm_byte(side, r, q);
}

void check_side(StateFamily family, std::vector<Int> v, Int T, ConvOrder order, StateContainer container, U pad) {
  StateDims<Int> dims{family, {1, 1, 1, 1}};
  for (std::size_t i = 0; i < v.size(); ++i) dims.v[i] = v[i];
  const auto state = state_ownership<Int>(T, dims);
  ASSERT_TRUE(state.ok());
  const auto probe = side_bytes<Int>(state.value(), order, container, 2, 2, 4);
  ASSERT_TRUE(probe.ok());
  const auto side = side_bytes<Int>(state.value(), order, container, 2, 2, 4, U(probe.value().page_bytes + pad));
  ASSERT_TRUE(side.ok());
  const SideBytes<Int>& s = side.value();
  for (const StatePart tensor : {StatePart::Conv, StatePart::Ssm}) {
    const U bytes = entry_bytes(s, tensor);
    for (Int r = 0; r < T; ++r) {
      for (U q = 0; q < bytes; ++q) {
        const StateRun<Int> run = entry_run_at(s, r, tensor, q);
        const std::string at = std::string(state_family_name(family)) + " T=" + std::to_string(T) + " r=" +
                               std::to_string(r) + " q=" + std::to_string(static_cast<std::uint64_t>(q));
        ASSERT_GE(run.length, U(1)) << at;
        ASSERT_LE(q + run.length, bytes) << at;
        for (U i = 0; i < run.length; ++i) {
          ASSERT_EQ(decoded(s, r, tensor, q + i), advanced(run, i)) << at << " +" << int(i);
        }
        // The byte after the run, if any, is not its continuation.
        if (q + run.length < bytes) {
          EXPECT_NE(decoded(s, r, tensor, q + run.length), advanced(run, run.length)) << at;
        }
      }
      if (container == StateContainer::VllmPage) break;  // a page is one entry
    }
  }
}

TEST(StateRuns, EveryByteOfSmallSidesAdvancesAlongItsRun) {
  for (const ConvOrder order : kConvOrders) {
    for (const StateContainer container : {StateContainer::VllmPage, StateContainer::SglangPool}) {
      const U pad = container == StateContainer::VllmPage ? 6 : 0;
      check_side(StateFamily::Mamba2, {4, 1, 1, 3}, 2, order, container, pad);  // case B: B and C replicated
      check_side(StateFamily::Mamba2, {4, 2, 2, 1}, 2, order, container, pad);  // case A
      check_side(StateFamily::Gdn, {2, 1, 4, 2}, 2, order, container, pad);
      check_side(StateFamily::Kda, {2, 2}, 1, order, container, pad);
      check_side(StateFamily::Mamba1, {4, 2}, 2, order, container, pad);
    }
  }
}

TEST(StateRuns, KnownRuns) {
  StateDims<Int> dims{StateFamily::Mamba2, {4, 1, 1, 3}};
  const auto state = state_ownership<Int>(2, dims);
  // DS, rows 2, e 2: x is channels [0, 2), B [2, 5), C [5, 8): a run is a segment's rest.
  const auto ds = side_bytes<Int>(state.value(), ConvOrder::DimFirst, StateContainer::SglangPool, 2, 2, 4).value();
  EXPECT_EQ(entry_run_at<Int>(ds, 1, StatePart::Conv, U(0)).length, U(8));
  EXPECT_EQ(entry_run_at<Int>(ds, 1, StatePart::Conv, U(9)).length, U(11));  // B's channel 0, row 0, byte 1 to B's end (20)
  EXPECT_EQ(entry_run_at<Int>(ds, 1, StatePart::Conv, U(9)).positions, U(2));
  // SD: a run is the rest of a segment's row.
  const auto sd = side_bytes<Int>(state.value(), ConvOrder::StateFirst, StateContainer::SglangPool, 2, 2, 4).value();
  EXPECT_EQ(entry_run_at<Int>(sd, 1, StatePart::Conv, U(16 + 5)).length, U(5));  // row 1 starts at 16: B at 20
  EXPECT_EQ(entry_run_at<Int>(sd, 1, StatePart::Conv, U(16 + 5)).positions, U(0));
  // The SSM item: one run, heads of 3 elements of 4 bytes.
  EXPECT_EQ(entry_run_at<Int>(sd, 1, StatePart::Ssm, U(13)).length, U(24 - 13));
  EXPECT_EQ(entry_run_at<Int>(sd, 1, StatePart::Ssm, U(13)).first, (StateByte<Int>{StatePart::Ssm, 3, 3, 0, 1}));
}

}  // namespace
}  // namespace tpcheck::test
