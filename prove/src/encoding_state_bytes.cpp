// §16.3 as terms: lib/src/state_bytes.cpp and lib's for_each_copy_run, each
// byte's offset in a side's state and the runs of a copy before they merge.
#include "tpcheck/prove/encoding.hpp"

namespace tpcheck::prove {

z3::expr StateBytesTerms::conv_bytes() const { return side->c_loc * L * e_conv; }

z3::expr StateBytesTerms::ssm_bytes() const { return side->ssm().width * side->head_elements * e_ssm; }

z3::expr StateBytesTerms::ssm_offset() const {
  return container == StateContainer::VllmPage ? conv_bytes() : L.ctx().int_val(0);
}

z3::expr StateBytesTerms::conv_byte_at(std::size_t s, const z3::expr& j, const z3::expr& t, const z3::expr& b) const {
  const StateSegmentTerms& seg = side->segments[s];
  switch (order) {
    case ConvOrder::DimFirst: return ((seg.loc + j) * L + t) * e_conv + b;           // DS (C, L)
    case ConvOrder::StateFirst: return (t * side->c_loc + seg.loc + j) * e_conv + b;  // SD (L, C)
    case ConvOrder::SegmentsStateFirst: break;  // one (L, w_s) tensor per segment, back to back
  }
  return (seg.loc * L + t * seg.width + j) * e_conv + b;
}

z3::expr StateBytesTerms::ssm_byte_at(const z3::expr& h, const z3::expr& i, const z3::expr& b) const {
  return (h * side->head_elements + i) * e_ssm + b;
}

ByteRunTerm Encoding::copy_run(const StateBytesTerms& sender, const StateBytesTerms& receiver, std::size_t s,
                               const std::vector<z3::expr>& copy, const z3::expr& k, const z3::expr& t) const {
  const z3::expr &src = copy[1], &dst = copy[2], &n = copy[3];
  const bool ssm = s == sender.side->conv_count();
  if (ssm) {
    const z3::expr head = sender.side->head_elements * sender.e_ssm;
    return {true, sender.ssm_offset() + src * head, receiver.ssm_offset() + dst * head, n * head};
  }
  const z3::expr j_src = src - sender.side->segments[s].loc, j_dst = dst - receiver.side->segments[s].loc;
  const auto at_src = [&](const z3::expr& kk, const z3::expr& tt) { return sender.conv_byte_at(s, j_src + kk, tt, num(0)); };
  const auto at_dst = [&](const z3::expr& kk, const z3::expr& tt) { return receiver.conv_byte_at(s, j_dst + kk, tt, num(0)); };
  switch (runs_per(false, sender.order, receiver.order)) {
    case RunsPer::Copy: return {false, at_src(num(0), num(0)), at_dst(num(0), num(0)), n * sender.L * sender.e_conv};
    case RunsPer::Row: return {false, at_src(num(0), t), at_dst(num(0), t), n * sender.e_conv};
    case RunsPer::Element: break;
  }
  return {false, at_src(k, t), at_dst(k, t), sender.e_conv};
}

}  // namespace tpcheck::prove
