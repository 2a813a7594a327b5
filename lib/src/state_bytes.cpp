// SPEC §16.3: a side's state in bytes, each byte's offset and what it holds.
#include "tpcheck/state_bytes.hpp"

#include "messages.hpp"
#include "tpcheck/instantiate.hpp"
#include "tpcheck/operations.hpp"

namespace tpcheck {
namespace {

template <ModelInt Int>
using U = units_t<Int>;

// a * b, or nothing when it leaves U (cpp_int never does).
template <class T>
std::optional<T> checked_product(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, BigInt>) {
    return a * b;
  } else {
    T out;
    if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
    return out;
  }
}

template <class T>
std::optional<T> checked_sum(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, BigInt>) {
    return a + b;
  } else {
    T out;
    if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
    return out;
  }
}

// a / b and a % b; for unsigned __int128 in 64 bits when both fit (the usual
// case: a division of 128 bits is a library call, and a judge decodes every byte).
template <class T>
T quotient(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, unsigned __int128>) {
    if ((a >> 64) == 0 && (b >> 64) == 0) return T(static_cast<std::uint64_t>(a) / static_cast<std::uint64_t>(b));
  }
  return a / b;
}
template <class T>
T remainder(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, unsigned __int128>) {
    if ((a >> 64) == 0 && (b >> 64) == 0) return T(static_cast<std::uint64_t>(a) % static_cast<std::uint64_t>(b));
  }
  return a % b;
}

// The segment of a checked side holding local conv channel c (c < C_loc).
template <ModelInt Int>
std::size_t segment_of_channel(const RankState<Int>& s, const U<Int>& c) {
  std::size_t i = 0;
  while (i + 1 < s.segment_count && c >= s.conv[i + 1].loc) ++i;
  return i;
}

}  // namespace

std::string_view conv_order_name(ConvOrder order) {
  switch (order) {
    case ConvOrder::DimFirst: return "ds";
    case ConvOrder::StateFirst: return "sd";
    case ConvOrder::SegmentsStateFirst: return "sd per segment";
  }
  return "?";
}

template <ModelInt Int>
Outcome<SideBytes<Int>> side_bytes(const RankState<Int>& state, ConvOrder order, StateContainer container,
                                   const Int& rows, const Int& e_conv, const Int& e_ssm, const units_t<Int>& page_bytes) {
  if (rows <= 0) return msg::size_not_positive("conv window length", rows);
  if (e_conv <= 0) return msg::size_not_positive("conv element size", e_conv);
  if (e_ssm <= 0) return msg::size_not_positive("SSM element size", e_ssm);
  const auto conv_elements = checked_product<U<Int>>(state.c_loc, U<Int>(rows));
  const auto conv = conv_elements ? checked_product<U<Int>>(*conv_elements, U<Int>(e_conv)) : std::nullopt;
  const auto heads = checked_product<U<Int>>(U<Int>(state.h_loc), state.head_elements);
  const auto ssm = heads ? checked_product<U<Int>>(*heads, U<Int>(e_ssm)) : std::nullopt;
  const auto total = conv && ssm ? checked_sum<U<Int>>(*conv, *ssm) : std::nullopt;
  if (!total) return msg::state_bytes_do_not_fit(state.T, model_type_name<Int>().data());
  SideBytes<Int> side{state, order, container, rows, e_conv, e_ssm, *conv, *ssm, *total};
  if (container == StateContainer::VllmPage && page_bytes != 0) {
    if (page_bytes < *total) return msg::page_smaller_than_state(widen(page_bytes), widen(*total));
    side.page_bytes = page_bytes;
  }
  return side;
}

template <ModelInt Int>
units_t<Int> conv_byte_at(const SideBytes<Int>& side, std::size_t s, const units_t<Int>& j, const Int& t, const Int& b) {
  const ConvSegment<Int>& seg = side.state.conv[s];
  const U<Int> L = U<Int>(side.rows);
  U<Int> element = 0;
  switch (side.order) {
    case ConvOrder::DimFirst: element = (seg.loc + j) * L + U<Int>(t); break;
    case ConvOrder::StateFirst: element = U<Int>(t) * side.state.c_loc + seg.loc + j; break;
    case ConvOrder::SegmentsStateFirst: element = seg.loc * L + U<Int>(t) * seg.width + j; break;
  }
  return element * U<Int>(side.e_conv) + U<Int>(b);
}

template <ModelInt Int>
units_t<Int> ssm_byte_at(const SideBytes<Int>& side, const Int& h, const units_t<Int>& i, const Int& b) {
  return (U<Int>(h) * side.state.head_elements + i) * U<Int>(side.e_ssm) + U<Int>(b);
}

template <ModelInt Int>
StateByte<Int> decode_conv_byte(const SideBytes<Int>& side, const Int& r, const units_t<Int>& q) {
  const RankState<Int>& s = side.state;
  const U<Int> e = U<Int>(side.e_conv);
  const U<Int> L = U<Int>(side.rows);
  const U<Int> element = quotient(q, e);
  std::size_t segment = 0;
  U<Int> j = 0, t = 0;
  switch (side.order) {
    case ConvOrder::DimFirst: {
      const U<Int> c = quotient(element, L);
      segment = segment_of_channel(s, c);
      j = c - s.conv[segment].loc;
      t = remainder(element, L);
      break;
    }
    case ConvOrder::StateFirst: {
      const U<Int> c = remainder(element, s.c_loc);
      segment = segment_of_channel(s, c);
      j = c - s.conv[segment].loc;
      t = quotient(element, s.c_loc);
      break;
    }
    case ConvOrder::SegmentsStateFirst: {
      // Segment s's tensor starts at element loc(s) * L.
      segment = segment_of_channel(s, quotient(element, L));
      const U<Int> within = element - s.conv[segment].loc * L;
      j = remainder(within, s.conv[segment].width);
      t = quotient(within, s.conv[segment].width);
      break;
    }
  }
  return {StatePart::Conv, static_cast<std::uint8_t>(segment), U<Int>(s.start(r, segment) + j), t,
          static_cast<Int>(remainder(q, e))};
}

template <ModelInt Int>
StateByte<Int> decode_ssm_byte(const SideBytes<Int>& side, const Int& r, const units_t<Int>& q) {
  const RankState<Int>& s = side.state;
  const U<Int> element = quotient(q, U<Int>(side.e_ssm));
  const U<Int> local_head = quotient(element, s.head_elements);
  return {StatePart::Ssm, static_cast<std::uint8_t>(s.segment_count), U<Int>(U<Int>(s.first_head(r)) + local_head),
          remainder(element, s.head_elements), static_cast<Int>(remainder(q, U<Int>(side.e_ssm)))};
}

template <ModelInt Int>
StateByte<Int> decode_page_byte(const SideBytes<Int>& side, const Int& r, const units_t<Int>& q) {
  if (q < side.conv_bytes) return decode_conv_byte(side, r, q);
  if (q < side.conv_bytes + side.ssm_bytes) return decode_ssm_byte(side, r, U<Int>(q - side.conv_bytes));
  return {StatePart::Padding, 0, U<Int>(q - side.conv_bytes - side.ssm_bytes), U<Int>(0), Int(0)};
}

template <ModelInt Int>
U<Int> entry_bytes(const SideBytes<Int>& side, StatePart tensor) {
  if (side.container == StateContainer::VllmPage) return side.page_bytes;
  return tensor == StatePart::Conv ? side.conv_bytes : side.ssm_bytes;
}

template <ModelInt Int>
StateRun<Int> entry_run_at(const SideBytes<Int>& side, const Int& r, StatePart tensor, const U<Int>& q) {
  StatePart part = tensor;
  U<Int> at = q;  // from the start of the part's state
  if (side.container == StateContainer::VllmPage) {
    part = q < side.conv_bytes ? StatePart::Conv
           : q < side.conv_bytes + side.ssm_bytes ? StatePart::Ssm
                                                  : StatePart::Padding;
    if (part == StatePart::Ssm) at = q - side.conv_bytes;
  }
  StateRun<Int> run;
  switch (part) {
    case StatePart::Padding:
      run.first = decode_page_byte(side, r, q);
      run.length = side.page_bytes - q;
      run.element_bytes = 1;
      return run;
    case StatePart::Ssm:
      run.first = decode_ssm_byte(side, r, at);
      run.length = side.ssm_bytes - at;
      run.positions = side.state.head_elements;
      run.element_bytes = side.e_ssm;
      return run;
    case StatePart::Conv: break;
  }
  // A run ends with its segment's last channel: of the last row (DS), or of its own row.
  run.first = decode_conv_byte(side, r, at);
  const std::size_t s = run.first.segment;
  const bool dim_first = side.order == ConvOrder::DimFirst;
  const Int row = dim_first ? Int(side.rows - 1) : static_cast<Int>(run.first.position);
  const U<Int> end = conv_byte_at(side, s, U<Int>(side.state.conv[s].width - 1), row, Int(side.e_conv - 1)) + 1;
  run.length = end - at;
  run.positions = dim_first ? U<Int>(side.rows) : U<Int>(0);
  run.element_bytes = side.e_conv;
  return run;
}

#define TPCHECK_STATE_BYTES(Int)                                                                                      \
  template Outcome<SideBytes<Int>> side_bytes<Int>(const RankState<Int>&, ConvOrder, StateContainer, const Int&,      \
                                                   const Int&, const Int&, const units_t<Int>&);                      \
  template units_t<Int> conv_byte_at<Int>(const SideBytes<Int>&, std::size_t, const units_t<Int>&, const Int&,        \
                                          const Int&);                                                                \
  template units_t<Int> ssm_byte_at<Int>(const SideBytes<Int>&, const Int&, const units_t<Int>&, const Int&);         \
  template StateByte<Int> decode_conv_byte<Int>(const SideBytes<Int>&, const Int&, const units_t<Int>&);              \
  template StateByte<Int> decode_ssm_byte<Int>(const SideBytes<Int>&, const Int&, const units_t<Int>&);               \
  template StateByte<Int> decode_page_byte<Int>(const SideBytes<Int>&, const Int&, const units_t<Int>&);              \
  template units_t<Int> entry_bytes<Int>(const SideBytes<Int>&, StatePart);                                           \
  template StateRun<Int> entry_run_at<Int>(const SideBytes<Int>&, const Int&, StatePart, const units_t<Int>&);
TPCHECK_INSTANTIATE_MODEL(TPCHECK_STATE_BYTES)

}  // namespace tpcheck
