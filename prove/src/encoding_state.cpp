// §16.1-16.2 as terms: lib/src/state.cpp, check for check. A side's
// ownership is built as the model builds it (each segment's full width a
// product of two dims, its share that width // T unless replicated), and the
// plan copies by the model's overlap rule, segment by segment: the fixed
// arity (segment, copy j) the proofs of SPEC §16.4 are stated in.
#include "tpcheck/prove/encoding.hpp"

namespace tpcheck::prove {
namespace {

// A conv segment of SPEC §16.0's table: its groups and group width as dims
// (-1: a width of 1, Mamba1's x).
struct SegmentSpec {
  int groups;
  int group_width;
};

struct FamilySpec {
  std::vector<std::string_view> names;  // the segments', then "ssm"
  std::vector<SegmentSpec> conv;
  int ssm_heads;                        // the dim that is H_s
  int element_a, element_b;             // E = dims[a] * dims[b] (-1: 1)
};

const FamilySpec& spec_of(StateFamily f) {
  static const FamilySpec specs[] = {
      {{"x", "B", "C", "ssm"}, {{0, 1}, {2, 3}, {2, 3}}, 0, 1, 3},  // mamba2 H PH G N: SSM H x P_h * N
      {{"q", "k", "v", "ssm"}, {{0, 1}, {0, 1}, {2, 3}}, 2, 3, 1},  // gdn HK DK HV DV: SSM Hv x dv * dk
      {{"q", "k", "v", "ssm"}, {{0, 1}, {0, 1}, {0, 1}}, 0, 1, 1},  // kda H DH: SSM H x Dh^2
      {{"x", "ssm"}, {{0, -1}}, 0, 1, -1},                          // mamba1 I N: x is I x 1, SSM I x N
  };
  return specs[static_cast<std::size_t>(f)];
}

}  // namespace

const std::vector<std::string_view>& state_segment_names(StateFamily family) { return spec_of(family).names; }

z3::expr StateSideTerms::start(const z3::expr& r, std::size_t s) const {
  const StateSegmentTerms& seg = segments[s];
  return z3::ite(seg.replicated, T.ctx().int_val(0), r * seg.width);
}

RunsPer runs_per(bool ssm, ConvOrder sender, ConvOrder receiver) {
  if (ssm || (sender == ConvOrder::DimFirst && receiver == ConvOrder::DimFirst)) return RunsPer::Copy;
  if (sender != ConvOrder::DimFirst && receiver != ConvOrder::DimFirst) return RunsPer::Row;
  return RunsPer::Element;
}

void Encoding::check_state_dims(Checks& checks, StateFamily f, const std::vector<z3::expr>& v) const {
  z3::expr any_not_positive = c_.bool_val(false);
  for (const z3::expr& x : v) any_not_positive = any_not_positive || x <= 0;
  switch (f) {
    case StateFamily::Mamba2:
      checks.fail_if(any_not_positive, Message::Mamba2DimsNotPositive, {v[0], v[1], v[2], v[3]});
      checks.fail_if(floor_mod(v[0], v[2]) != 0, Message::HeadsNotMultipleOfGroups, {v[0], v[2]});
      return;
    case StateFamily::Gdn:
      checks.fail_if(any_not_positive, Message::GdnDimsNotPositive, {v[0], v[1], v[2], v[3]});
      checks.fail_if(floor_mod(v[2], v[0]) != 0, Message::ValueHeadsNotMultipleOfKeyHeads, {v[2], v[0]});
      return;
    case StateFamily::Kda: checks.fail_if(any_not_positive, Message::KdaDimsNotPositive, {v[0], v[1]}); return;
    case StateFamily::Mamba1: checks.fail_if(any_not_positive, Message::Mamba1DimsNotPositive, {v[0], v[1]}); return;
  }
}

void Encoding::check_state_tp(Checks& checks, StateFamily f, const z3::expr& T, const std::vector<z3::expr>& v) const {
  switch (f) {
    case StateFamily::Mamba2:
      checks.fail_if(floor_mod(v[0], T) != 0, Message::TpDoesNotDivideMambaHeads);
      checks.fail_if(floor_mod(v[2], T) != 0 && v[2] != 1, Message::TpDoesNotDivideMambaGroups);
      return;
    case StateFamily::Gdn: checks.fail_if(floor_mod(v[0], T) != 0, Message::GdnKeyHeadsNotSharded, {v[0], T}); return;
    case StateFamily::Kda: checks.fail_if(floor_mod(v[0], T) != 0, Message::AssertionWithoutText); return;
    case StateFamily::Mamba1: checks.fail_if(floor_mod(v[0], T) != 0, Message::Mamba1NotDivisible, {v[0], T}); return;
  }
}

StateSideTerms Encoding::state_side(StateFamily f, const z3::expr& T, const std::vector<z3::expr>& v) const {
  const FamilySpec& spec = spec_of(f);
  const auto dim = [&](int i) { return i < 0 ? num(1) : v[static_cast<std::size_t>(i)]; };
  StateSideTerms side{f, T, {}, num(0), dim(spec.element_a) * dim(spec.element_b)};
  for (const SegmentSpec& s : spec.conv) {
    const z3::expr groups = dim(s.groups), group_width = dim(s.group_width);
    const z3::expr full = groups * group_width;
    // Only Mamba2's B and C load with one group over several ranks (case B);
    // the model asks every segment, and so does this.
    const z3::expr replicated = groups == 1 && T > 1;
    const z3::expr width = z3::ite(replicated, full, floor_div(full, T));
    side.segments.push_back({groups, group_width, full, replicated, width, side.c_loc});
    side.c_loc = side.c_loc + width;
  }
  const z3::expr heads = dim(spec.ssm_heads);
  side.segments.push_back({heads, num(1), heads, c_.bool_val(false), floor_div(heads, T), num(0)});
  return side;
}

OutcomeTerm Encoding::state_shape(StateFamily f, const z3::expr& T, const std::vector<z3::expr>& dims) const {
  Checks checks(c_);
  checks.fail_if(T <= 0, Message::TpSizeNotPositive, {T});
  check_state_dims(checks, f, dims);
  check_state_tp(checks, f, T, dims);
  const StateSideTerms side = state_side(f, T, dims);
  return checks.returning({side.c_loc, side.ssm().width, side.head_elements});
}

OperationTerm Encoding::segments(StateFamily f, const z3::expr& r, const z3::expr& T,
                                 const std::vector<z3::expr>& dims) const {
  Checks checks(c_);
  checks.fail_if(T <= 0, Message::TpSizeNotPositive, {T});
  check_state_dims(checks, f, dims);
  checks.fail_if(r < 0 || r >= T, Message::TpRankOutOfRange, {r, T});
  check_state_tp(checks, f, T, dims);
  const StateSideTerms side = state_side(f, T, dims);
  const std::size_t count = side.segments.size();
  auto element = [side, r, count, this](const z3::expr& i) {
    // The last segment's range, then each earlier one where i names it.
    std::vector<z3::expr> out;
    for (std::size_t s = count; s-- > 0;) {
      const StateSegmentTerms& seg = side.segments[s];
      const z3::expr lo = side.start(r, s);
      const std::vector<z3::expr> here = {num(static_cast<long long>(s)), lo, lo + seg.width, seg.loc,
                                          z3::ite(seg.replicated, num(1), num(0))};
      if (out.empty()) {
        out = here;
        continue;
      }
      for (std::size_t k = 0; k < out.size(); ++k) out[k] = z3::ite(i == static_cast<int>(s), here[k], out[k]);
    }
    return out;
  };
  return {checks.returning({num(static_cast<long long>(count))}), element};
}

SegmentCopiesTerm overlap_copies(const z3::expr& a_d, const z3::expr& wd, const z3::expr& wp, const z3::expr& loc_p,
                                 const z3::expr& loc_d) {
  // One copy per prefill rank k whose holding [k * wp, + wp) overlaps the
  // decode rank's [a_d, b_d), from k = a_d // wp while k * wp < b_d.
  const z3::expr first = floor_div(a_d, wp), b_d = a_d + wd;
  auto copy = [=](const z3::expr& j) {
    const z3::expr k = first + j, a_p = k * wp;
    const z3::expr x = max(a_d, a_p), y = min(b_d, a_p + wp);
    return std::vector<z3::expr>{k, loc_p + x - a_p, loc_d + x - a_d, y - x};
  };
  return {floor_div(b_d + wp - 1, wp) - first, copy};
}

SegmentCopiesTerm Encoding::segment_copies(const StateSideTerms& prefill, const StateSideTerms& decode, std::size_t s,
                                           const z3::expr& d) const {
  const StateSegmentTerms& from = prefill.segments[s];
  const StateSegmentTerms& to = decode.segments[s];
  const z3::expr P = prefill.T, D = decode.T;
  // The planted fault slices a segment replicated on the prefill side as if
  // it were sharded there, W_s // P channels a rank.
  const bool sliced = fault_ == Fault::ReplicatedSegmentSliced;
  const z3::expr replicated = sliced ? c_.bool_val(false) : from.replicated;
  const z3::expr wp = sliced ? z3::ite(from.replicated, floor_div(from.full, P), from.width) : from.width;
  const SegmentCopiesTerm overlaps = overlap_copies(decode.start(d, s), to.width, wp, from.loc, to.loc);
  // Replicated there: the whole segment once, from the first rank of d's
  // window (§6's anchor).
  const z3::expr anchor = floor_div(d * P, D);
  const z3::expr loc_p = from.loc, loc_d = to.loc, full = from.full;
  auto copy = [=](const z3::expr& j) {
    const std::vector<z3::expr> o = overlaps.copy(j);
    return std::vector<z3::expr>{z3::ite(replicated, anchor, o[0]), z3::ite(replicated, loc_p, o[1]),
                                 z3::ite(replicated, loc_d, o[2]), z3::ite(replicated, full, o[3])};
  };
  return {z3::ite(replicated, num(1), overlaps.count), copy};
}

z3::expr Encoding::state_plan_listed_count(const StateSideTerms& prefill, const StateSideTerms& decode) const {
  const z3::expr per_segment = max(num(1), floor_div(prefill.T, decode.T));
  z3::expr copies = num(0);
  for (const StateSegmentTerms& seg : prefill.segments) copies = copies + z3::ite(seg.replicated, num(1), per_segment);
  return copies;
}

Checks Encoding::validate_state_sizing(StateFamily f, const z3::expr& rank, bool rank_is_decode, const z3::expr& P,
                                       const z3::expr& D, const std::vector<z3::expr>& dims) const {
  Checks checks(c_);
  checks.fail_if(P <= 0, Message::PrefillSizeNotPositive, {P});
  checks.fail_if(D <= 0, Message::DecodeSizeNotPositive, {D});
  check_state_dims(checks, f, dims);
  const z3::expr& bound = rank_is_decode ? D : P;
  checks.fail_if(rank < 0 || rank >= bound,
                 rank_is_decode ? Message::DecodeRankOutOfRange : Message::PrefillRankOutOfRange, {rank, bound});
  check_state_tp(checks, f, P, dims);
  check_state_tp(checks, f, D, dims);
  return checks;
}

OperationTerm Encoding::state_plan_copies(StateFamily f, const z3::expr& d, const z3::expr& P, const z3::expr& D,
                                          const std::vector<z3::expr>& dims) const {
  Checks checks = validate_state_sizing(f, d, true, P, D, dims);
  checks.fail_as(tp_ratio(D, P));  // decode is the local side
  const StateSideTerms prefill = state_side(f, P, dims), decode = state_side(f, D, dims);
  std::vector<SegmentCopiesTerm> parts;
  std::vector<z3::expr> bases = {num(0)};  // where each segment's copies start in the list
  for (std::size_t s = 0; s < prefill.segments.size(); ++s) {
    parts.push_back(segment_copies(prefill, decode, s, d));
    bases.push_back(bases.back() + parts.back().count);
  }
  auto element = [parts, bases, this](const z3::expr& i) {
    std::vector<z3::expr> out;
    for (std::size_t s = parts.size(); s-- > 0;) {
      std::vector<z3::expr> here = parts[s].copy(i - bases[s]);
      here.insert(here.begin(), num(static_cast<long long>(s)));
      if (out.empty()) {
        out = here;
        continue;
      }
      for (std::size_t k = 0; k < out.size(); ++k) out[k] = z3::ite(i < bases[s + 1], here[k], out[k]);
    }
    return out;
  };
  return {checks.returning({bases.back()}), element};
}

OperationTerm Encoding::state_plan(StateFamily f, const z3::expr& d, const z3::expr& P, const z3::expr& D,
                                   const std::vector<z3::expr>& dims) const {
  OperationTerm copies = state_plan_copies(f, d, P, D, dims);
  const z3::expr listed = state_plan_listed_count(state_side(f, P, dims), state_side(f, D, dims));
  Checks checks(c_);
  checks.fail_as(copies.outcome);
  checks.fail_if(listed > list_limit(), Message::StatePlanTooLong, {d, listed});
  return {checks.returning(copies.outcome.value), copies.element};
}

OperationTerm Encoding::state_served(StateFamily f, const z3::expr& p, const z3::expr& P, const z3::expr& D,
                                     const std::vector<z3::expr>& dims) const {
  Checks checks = validate_state_sizing(f, p, false, P, D, dims);
  // Every rank of p's window takes a share from p (§16.2's duality): prefill is the local side.
  const OutcomeTerm span = window_span(p, P, D);
  checks.fail_as(span);
  const z3::expr first = span.value[0], n = span.value[1] - span.value[0];
  checks.fail_if(n > list_limit(), Message::StateServedTooLong, {p, n});
  return {checks.returning({n}), [first](const z3::expr& i) { return std::vector<z3::expr>{first + i}; }};
}

OutcomeTerm Encoding::state_pairing(const z3::expr& LP, const z3::expr& LD, const z3::expr& ECP, const z3::expr& ECD,
                                    const z3::expr& ESP, const z3::expr& ESD) const {
  Checks checks(c_);
  checks.fail_if(LP <= 0, Message::PrefillWindowLengthNotPositive, {LP});
  checks.fail_if(LD <= 0, Message::DecodeWindowLengthNotPositive, {LD});
  checks.fail_if(ECP <= 0, Message::PrefillConvElementNotPositive, {ECP});
  checks.fail_if(ECD <= 0, Message::DecodeConvElementNotPositive, {ECD});
  checks.fail_if(ESP <= 0, Message::PrefillSsmElementNotPositive, {ESP});
  checks.fail_if(ESD <= 0, Message::DecodeSsmElementNotPositive, {ESD});
  checks.fail_if(LP != LD, Message::WindowLengthsDiffer, {LP, LD});
  checks.fail_if(ECP != ECD, Message::ConvElementSizesDiffer, {ECP, ECD});
  checks.fail_if(ESP != ESD, Message::SsmElementSizesDiffer, {ESP, ESD});
  return checks.returning({});
}

}  // namespace tpcheck::prove
