// SPEC §16.3: where a rank keeps each byte of a request's recurrent state, and
// the byte runs of a state plan's copy. One definition for every user: the
// registry's invariants, `tpcheck plan --state-bytes`, and conform's byte
// judge (which decodes each written byte with decode_*_byte below).
//
// Offsets are within one slot (SGLang) or page (vLLM), in units_t<Int>.
// Bytes are products of four inputs (channels, rows, element size): they fit
// cpp_int always; side_bytes() refuses a side whose bytes do not fit Int's
// units (a ValueError naming the type), so the functions below never overflow.
#pragma once

#include <algorithm>
#include <cstdint>

#include "tpcheck/outcome.hpp"
#include "tpcheck/state.hpp"

namespace tpcheck {

// How a conv state's elements (channel c, row t, byte b) are laid out, with C
// the side's C_loc and L its rows:
enum class ConvOrder : std::uint8_t {
  DimFirst,    // DS (C, L): (c * L + t) * e + b. vLLM DS; SGLang and TensorRT-LLM conv of Mamba2, GDN, Mamba1
  StateFirst,  // SD (L, C): (t * C + c) * e + b. vLLM's default; SGLang's KDA conv (K-1, C)
  // Older vLLM KDA under SD: one (L, w_s) tensor per segment, back to back:
  // channel j of segment s at (loc(s) * L + t * w_s + j) * e + b.
  SegmentsStateFirst,
};
inline constexpr std::array<ConvOrder, 3> kConvOrders = {ConvOrder::DimFirst, ConvOrder::StateFirst,
                                                          ConvOrder::SegmentsStateFirst};
std::string_view conv_order_name(ConvOrder order);  // "ds", "sd", "sd per segment"

// Where the state lives: a vLLM page holds the conv state at 0, the SSM state
// after it, then padding up to the page's stride; SGLang's pool keeps the
// conv and the SSM ("temporal") state in separate tensors, one slot each.
enum class StateContainer : std::uint8_t { VllmPage, SglangPool };

// What a byte of a side's state entry is.
enum class StatePart : std::uint8_t { Conv, Ssm, Padding };

// One side's state of one request and layer, in bytes.
template <ModelInt Int>
struct SideBytes {
  RankState<Int> state;
  ConvOrder order = ConvOrder::DimFirst;
  StateContainer container = StateContainer::VllmPage;
  Int rows{};                // L
  Int e_conv{};              // bytes per conv element
  Int e_ssm{};               // bytes per SSM element
  units_t<Int> conv_bytes{}; // C_loc * L * e_conv
  units_t<Int> ssm_bytes{};  // H_loc * E * e_ssm
  units_t<Int> page_bytes{}; // a vLLM page's stride (the state, then padding); SGLang: conv_bytes + ssm_bytes

  // Where the SSM state starts in its entry: after the conv state in a vLLM
  // page, at 0 of SGLang's temporal tensor.
  units_t<Int> ssm_offset() const { return container == StateContainer::VllmPage ? conv_bytes : units_t<Int>(0); }
};

// A side's bytes. `page_bytes` (vLLM only) is the page's stride, at least the
// state's bytes (0: exactly them, no padding). Fails (ValueErrors, the
// project's texts): "conv window length {L} must be positive", "conv element
// size {e} must be positive", "SSM element size {e} must be positive", "state
// bytes of tp_size {T} do not fit in {type}", "vLLM page of {stride} bytes is
// smaller than its state's {bytes}".
template <ModelInt Int>
Outcome<SideBytes<Int>> side_bytes(const RankState<Int>& state, ConvOrder order, StateContainer container,
                                   const Int& rows, const Int& e_conv, const Int& e_ssm,
                                   const units_t<Int>& page_bytes = units_t<Int>(0));

// The offset (from the conv state's start) of byte b of row t of local
// channel j of segment s. Precondition: s < segment count, j < its width,
// 0 <= t < L, 0 <= b < e_conv.
template <ModelInt Int>
units_t<Int> conv_byte_at(const SideBytes<Int>& side, std::size_t s, const units_t<Int>& j, const Int& t, const Int& b);

// The offset (from the SSM state's start) of byte b of element i of local head h.
template <ModelInt Int>
units_t<Int> ssm_byte_at(const SideBytes<Int>& side, const Int& h, const units_t<Int>& i, const Int& b);

// What a byte holds: the layer-independent coordinates SPEC §16.7 compares.
template <ModelInt Int>
struct StateByte {
  StatePart part = StatePart::Conv;
  std::uint8_t segment = 0;  // conv: its index in family order; SSM: the segment count; padding: 0
  units_t<Int> unit{};       // conv: the logical channel within the segment; SSM: the logical head; padding: its offset
  units_t<Int> position{};   // conv: the row; SSM: the element within the head
  Int byte{};                // within the element
  bool operator==(const StateByte&) const = default;
};

// Byte q (< conv_bytes) of rank r's conv state, by the side's own layout.
template <ModelInt Int>
StateByte<Int> decode_conv_byte(const SideBytes<Int>& side, const Int& r, const units_t<Int>& q);

// Byte q (< ssm_bytes) of rank r's SSM state.
template <ModelInt Int>
StateByte<Int> decode_ssm_byte(const SideBytes<Int>& side, const Int& r, const units_t<Int>& q);

// Byte q (< page_bytes) of rank r's vLLM page: conv, SSM, then padding.
template <ModelInt Int>
StateByte<Int> decode_page_byte(const SideBytes<Int>& side, const Int& r, const units_t<Int>& q);

// A stretch of one entry (a vLLM page, or SGLang's conv or temporal item)
// along which what its bytes hold advances as one mixed-radix count: the byte
// within its element, then (where `positions` is not 0) the row or element,
// `positions` of them per unit, then the unit (logical channel or head). A
// row-major conv state keeps its row along a run (`positions` is 0). Two runs
// of the same radices whose first bytes hold the same thing hold the same
// thing all along: byte maps are compared run by run, not byte by byte.
template <ModelInt Int>
struct StateRun {
  StateByte<Int> first;
  units_t<Int> length{};     // bytes from the first to the run's end
  units_t<Int> positions{};  // rows per channel (DS conv), elements per head (SSM); 0: the position is fixed
  Int element_bytes{};       // bytes per element (padding: 1)
};

// The bytes of rank r's entry of `tensor`: a vLLM page's stride (`tensor`
// ignored), or the length of SGLang's item of `tensor` (Conv or Ssm).
template <ModelInt Int>
units_t<Int> entry_bytes(const SideBytes<Int>& side, StatePart tensor);

// The run from byte q (< entry_bytes) of rank r's entry of `tensor`: a vLLM
// page holds the conv state, the SSM state, then padding (one run to the
// page's end); SGLang's item holds what `tensor` says.
template <ModelInt Int>
StateRun<Int> entry_run_at(const SideBytes<Int>& side, const Int& r, StatePart tensor, const units_t<Int>& q);

// ---- SGLang's pool (SPEC §16.3) ----------------------------------------------------

// The pool registers one entry per (tensor, layer), tensor-major: every
// recurrent layer's conv, then every layer's temporal state. The entry of
// `tensor` (Conv or Ssm) of layer `layer` of `layers`.
template <ModelInt Int>
Int sglang_entry(StatePart tensor, const Int& layer, const Int& layers) {
  return tensor == StatePart::Conv ? layer : Int(layers + layer);
}

// An entry's item length: one slot's bytes (slot k at base + k * item length).
template <ModelInt Int>
units_t<Int> sglang_item_length(const SideBytes<Int>& side, StatePart tensor) {
  return tensor == StatePart::Conv ? side.conv_bytes : side.ssm_bytes;
}

// ---- runs ------------------------------------------------------------------------------

// A stretch of bytes a copy moves: `length` bytes from `src` of the sender's
// entry to `dst` of the receiver's (a vLLM page; SGLang's conv or temporal
// item, as `part` says).
template <ModelInt Int>
struct ByteRun {
  StatePart part = StatePart::Conv;
  units_t<Int> src{};
  units_t<Int> dst{};
  units_t<Int> length{};
  bool operator==(const ByteRun&) const = default;
};

// Visits the byte runs of one copy of a state plan: the sender's layout
// applied to its source units, the receiver's to its destination units, row
// by row and byte by byte, a run that continues the one before merged into
// it. `visit(const ByteRun<Int>&)` returns false to stop. Precondition: the
// sides pair (state_pairing: the same rows and element sizes) and the copy
// is one of a plan between them. Runs: one for the SSM state, or a conv copy
// between two DS sides; one per row between two row-major sides; one per
// element otherwise (n * L of them).
template <ModelInt Int, class Visit>
void for_each_copy_run(const StateCopy<Int>& copy, const SideBytes<Int>& sender, const SideBytes<Int>& receiver,
                       Visit&& visit) {
  using U = units_t<Int>;
  const std::size_t segments = sender.state.segment_count;
  if (copy.segment >= segments) {
    const U head = sender.state.head_elements * U(sender.e_ssm);
    visit(ByteRun<Int>{StatePart::Ssm, U(sender.ssm_offset() + copy.src * head),
                       U(receiver.ssm_offset() + copy.dst * head), U(copy.n * head)});
    return;
  }
  const std::size_t s = copy.segment;
  const U j_src = copy.src - sender.state.conv[s].loc;
  const U j_dst = copy.dst - receiver.state.conv[s].loc;
  const U e = U(sender.e_conv);
  const auto at_src = [&](const U& k, const Int& t) { return conv_byte_at(sender, s, U(j_src + k), t, Int(0)); };
  const auto at_dst = [&](const U& k, const Int& t) { return conv_byte_at(receiver, s, U(j_dst + k), t, Int(0)); };
  if (sender.order == ConvOrder::DimFirst && receiver.order == ConvOrder::DimFirst) {
    visit(ByteRun<Int>{StatePart::Conv, at_src(U(0), Int(0)), at_dst(U(0), Int(0)), U(copy.n * U(sender.rows) * e)});
    return;
  }
  ByteRun<Int> pending{StatePart::Conv, U(0), U(0), U(0)};
  const auto emit = [&](const U& src, const U& dst, const U& length) {
    if (pending.length != 0 && pending.src + pending.length == src && pending.dst + pending.length == dst) {
      pending.length += length;
      return true;
    }
    if (pending.length != 0 && !visit(static_cast<const ByteRun<Int>&>(pending))) return false;
    pending = ByteRun<Int>{StatePart::Conv, src, dst, length};
    return true;
  };
  if (sender.order != ConvOrder::DimFirst && receiver.order != ConvOrder::DimFirst) {
    for (Int t = 0; t < sender.rows; ++t) {
      if (!emit(at_src(U(0), t), at_dst(U(0), t), U(copy.n * e))) return;
    }
  } else {
    for (U k = 0; k < copy.n; ++k) {
      for (Int t = 0; t < sender.rows; ++t) {
        if (!emit(at_src(k, t), at_dst(k, t), e)) return;
      }
    }
  }
  if (pending.length != 0) visit(static_cast<const ByteRun<Int>&>(pending));
}

// Visits the byte ranges [first, end) of segment s in a side's conv state, in
// order: one under DS, one per row otherwise. `visit(first, end)`.
template <ModelInt Int, class Visit>
void for_each_segment_run(const SideBytes<Int>& side, std::size_t s, Visit&& visit) {
  using U = units_t<Int>;
  const U width = side.state.conv[s].width * U(side.e_conv);
  if (side.order == ConvOrder::DimFirst) {
    const U first = conv_byte_at(side, s, U(0), Int(0), Int(0));
    visit(first, U(first + width * U(side.rows)));
    return;
  }
  for (Int t = 0; t < side.rows; ++t) {
    const U first = conv_byte_at(side, s, U(0), t, Int(0));
    visit(first, U(first + width));
  }
}

}  // namespace tpcheck
