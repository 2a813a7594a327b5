// SPEC §16.0-16.2: the recurrent state's families, its ownership by segments,
// the state plan of a decode rank and the fan-in of a prefill rank.
#include "tpcheck/state.hpp"

#include <algorithm>

#include "messages.hpp"
#include "tpcheck/instantiate.hpp"

namespace tpcheck {
namespace {

template <ModelInt Int>
using U = units_t<Int>;
template <ModelInt Int>
using Wide = wide_t<Int>;

// An Int as a count of units, and back (a checked count that fits Int: a rank).
template <ModelInt Int>
U<Int> units(const Int& v) {
  return static_cast<U<Int>>(v);
}
template <ModelInt Int>
Int int_of(const U<Int>& v) {
  return static_cast<Int>(v);
}

struct FamilyNames {
  std::string_view name;
  std::array<std::string_view, kMaxStateDims> dims;
  std::array<std::string_view, kMaxStateDims> config;
  std::size_t count;
};

constexpr std::array<FamilyNames, 4> kFamilyNames = {{
    {"mamba2", {"H", "PH", "G", "N"}, {"num_heads", "head_dim", "n_groups", "d_state"}, 4},
    {"gdn",
     {"HK", "DK", "HV", "DV"},
     {"linear_num_key_heads", "linear_key_head_dim", "linear_num_value_heads", "linear_value_head_dim"},
     4},
    {"kda", {"H", "DH", "", ""}, {"num_heads", "head_dim", "", ""}, 2},
    {"mamba1", {"I", "N", "", ""}, {"intermediate_size", "d_state", "", ""}, 2},
}};

const FamilyNames& names_of(StateFamily family) { return kFamilyNames[static_cast<std::size_t>(family)]; }

// §16.1's table, column by column: the dims positive, the config consistent,
// and the side's TP checks in order.
template <ModelInt Int>
std::optional<Failure> check_dims(const StateDims<Int>& d) {
  const auto& v = d.v;
  const std::size_t n = state_dim_count(d.family);
  if (std::all_of(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n), [](const Int& x) { return x > 0; })) {
    return std::nullopt;
  }
  switch (d.family) {
    case StateFamily::Mamba2: return msg::mamba2_dims_not_positive(v[0], v[1], v[2], v[3]);
    case StateFamily::Gdn: return msg::gdn_dims_not_positive(v[0], v[1], v[2], v[3]);
    case StateFamily::Kda: return msg::kda_dims_not_positive(v[0], v[1]);
    case StateFamily::Mamba1: return msg::mamba1_dims_not_positive(v[0], v[1]);
  }
  return std::nullopt;
}

template <ModelInt Int>
std::optional<Failure> check_config(const StateDims<Int>& d) {
  const auto& v = d.v;
  if (d.family == StateFamily::Mamba2 && floor_mod<Int>(v[0], v[2]) != 0) {
    return msg::heads_not_multiple_of_groups(v[0], v[2]);
  }
  if (d.family == StateFamily::Gdn && floor_mod<Int>(v[2], v[0]) != 0) {
    return msg::value_heads_not_multiple_of_key_heads(v[2], v[0]);
  }
  return std::nullopt;
}

// A positive T against checked dims.
template <ModelInt Int>
std::optional<Failure> check_tp(const Int& T, const StateDims<Int>& d) {
  const auto& v = d.v;
  switch (d.family) {
    case StateFamily::Mamba2:
      if (floor_mod<Int>(v[0], T) != 0) return msg::tp_does_not_divide_mamba_heads();
      if (floor_mod<Int>(v[2], T) != 0 && v[2] != 1) return msg::tp_does_not_divide_mamba_groups();
      return std::nullopt;
    case StateFamily::Gdn:
      if (floor_mod<Int>(v[0], T) != 0) return msg::gdn_key_heads_not_sharded(v[0], T);
      return std::nullopt;
    case StateFamily::Kda:
      if (floor_mod<Int>(v[0], T) != 0) return msg::kda_heads_not_divisible();
      return std::nullopt;
    case StateFamily::Mamba1:
      if (floor_mod<Int>(v[0], T) != 0) return msg::mamba1_not_divisible(v[0], T);
      return std::nullopt;
  }
  return std::nullopt;
}

template <ModelInt Int>
std::optional<Failure> check_dims_and_config(const StateDims<Int>& d) {
  if (auto bad = check_dims(d)) return bad;
  return check_config(d);
}

// §16.1 on a checked side: the family's segments in order, each sharded or
// (Mamba2's B and C in case B) replicated, and the SSM heads.
template <ModelInt Int>
RankState<Int> owned(const Int& T, const StateDims<Int>& d) {
  RankState<Int> s;
  s.family = d.family;
  s.T = T;
  const auto add = [&](const char* name, const Int& groups, const Int& group_width) {
    ConvSegment<Int>& c = s.conv[s.segment_count++];
    c.name = name;
    c.groups = groups;
    c.group_width = group_width;
    c.full = units(groups) * units(group_width);
    // Only B and C of Mamba2 get here with one group and T > 1 (case B): the
    // TP checks refuse a single head, key head or channel over several ranks.
    c.replicated = groups == 1 && T > 1;
    c.width = c.replicated ? c.full : U<Int>(c.full / units(T));
    c.loc = s.c_loc;
    s.c_loc += c.width;
  };
  const auto& v = d.v;
  switch (d.family) {
    case StateFamily::Mamba2:  // x: H x P_h, B and C: G x N; SSM H x P_h * N
      add("x", v[0], v[1]);
      add("B", v[2], v[3]);
      add("C", v[2], v[3]);
      s.ssm_heads = v[0];
      s.head_elements = units(v[1]) * units(v[3]);
      break;
    case StateFamily::Gdn:  // q, k: Hk x dk, v: Hv x dv; SSM Hv x dv * dk
      add("q", v[0], v[1]);
      add("k", v[0], v[1]);
      add("v", v[2], v[3]);
      s.ssm_heads = v[2];
      s.head_elements = units(v[3]) * units(v[1]);
      break;
    case StateFamily::Kda:  // q, k, v: H x Dh each; SSM H x Dh^2
      add("q", v[0], v[1]);
      add("k", v[0], v[1]);
      add("v", v[0], v[1]);
      s.ssm_heads = v[0];
      s.head_elements = units(v[1]) * units(v[1]);
      break;
    case StateFamily::Mamba1:  // x: I x 1; SSM I x N, a head per channel
      add("x", v[0], Int(1));
      s.ssm_heads = v[0];
      s.head_elements = units(v[1]);
      break;
  }
  s.h_loc = floor_div<Int>(s.ssm_heads, T);
  return s;
}

// The count the listing limit compares (§16.2): per segment and the SSM
// state, 1 for a segment replicated on the prefill side, max(1, P/D)
// otherwise. In the wide type: up to four times P/D.
template <ModelInt Int>
Wide<Int> plan_copy_count(const RankState<Int>& prefill, const Int& P, const Int& D) {
  const Wide<Int> per_segment = std::max(Wide<Int>(1), floor_div<Wide<Int>>(Wide<Int>(P), Wide<Int>(D)));
  Wide<Int> copies = per_segment;  // the SSM heads: always sharded
  for (const ConvSegment<Int>& c : prefill.segments()) copies += c.replicated ? Wide<Int>(1) : per_segment;
  return copies;
}

// §16.2's overlap rule: the copies to decode units [a_d, a_d + width_d) (at
// local unit dst_loc) from the prefill ranks each holding `width_p` units
// (rank p from p * width_p, at local unit src_loc), in ascending order. `at`
// is the plan index of the first of them, advanced past the last; only those
// with an index in [first, end) are appended, the ones before `first` skipped
// in one step, so a range costs its own length.
template <ModelInt Int>
void append_overlaps(std::vector<StateCopy<Int>>& out, std::uint8_t segment, const char* name, const U<Int>& a_d,
                     const U<Int>& width_d, const U<Int>& dst_loc, const U<Int>& width_p, const U<Int>& src_loc,
                     U<Int>& at, const U<Int>& first, const U<Int>& end) {
  const U<Int> b_d = a_d + width_d;
  const U<Int> lowest = a_d / width_p;
  const U<Int> after = at + ((b_d + width_p - 1) / width_p - lowest);  // one copy per prefill rank met
  const U<Int> skipped = at < first ? std::min(U<Int>(first - at), U<Int>(after - at)) : U<Int>(0);
  at += skipped;
  for (U<Int> a_p = (lowest + skipped) * width_p; a_p < b_d && at < end; a_p += width_p, ++at) {
    const U<Int> x = std::max(a_d, a_p);
    const U<Int> y = std::min(b_d, U<Int>(a_p + width_p));
    out.push_back({segment, name, int_of<Int>(U<Int>(a_p / width_p)), U<Int>(src_loc + (x - a_p)),
                   U<Int>(dst_loc + (x - a_d)), U<Int>(y - x)});
  }
  at = after;
}

// What state_plan and state_served check before the rank: positive sizes, dims, config.
template <ModelInt Int>
std::optional<Failure> check_sizes_and_dims(const Int& P, const Int& D, const StateDims<Int>& dims) {
  if (P <= 0) return msg::size_not_positive("prefill tp_size", P);
  if (D <= 0) return msg::size_not_positive("decode tp_size", D);
  return check_dims_and_config(dims);
}

// Both sides' TP checks, prefill first.
template <ModelInt Int>
std::optional<Failure> check_both_sides(const Int& P, const Int& D, const StateDims<Int>& dims) {
  if (auto bad = check_tp(P, dims)) return bad;
  return check_tp(D, dims);
}

}  // namespace

std::string_view state_family_name(StateFamily family) { return names_of(family).name; }

std::optional<StateFamily> state_family_named(std::string_view name) {
  for (const StateFamily f : kStateFamilies) {
    if (names_of(f).name == name) return f;
  }
  return std::nullopt;
}

std::span<const std::string, 4> state_operation_names(StateFamily family) {
  static const std::array<std::array<std::string, 4>, kStateFamilies.size()> names = [] {
    std::array<std::array<std::string, 4>, kStateFamilies.size()> out;
    for (std::size_t f = 0; f < kStateFamilies.size(); ++f) {
      const std::string prefix(state_family_name(kStateFamilies[f]));
      out[f] = {prefix + "_state_shape", prefix + "_segments", prefix + "_state_plan", prefix + "_state_served"};
    }
    return out;
  }();
  return names[static_cast<std::size_t>(family)];
}

std::size_t state_dim_count(StateFamily family) { return names_of(family).count; }

std::span<const std::string_view> state_dim_names(StateFamily family) {
  return {names_of(family).dims.data(), names_of(family).count};
}

std::span<const std::string_view> state_dim_config_names(StateFamily family) {
  return {names_of(family).config.data(), names_of(family).count};
}

template <ModelInt Int>
units_t<Int> RankState<Int>::start(const Int& r, std::size_t s) const {
  const ConvSegment<Int>& c = conv[s];
  return c.replicated ? U<Int>(0) : U<Int>(units(r) * c.width);
}

template <ModelInt Int>
Int RankState<Int>::first_head(const Int& r) const {
  return Int(r * h_loc);  // r < T, so r * H_s / T < H_s
}

template <ModelInt Int>
Outcome<RankState<Int>> state_ownership(const Int& T, const StateDims<Int>& dims) {
  if (T <= 0) return msg::size_not_positive("tp_size", T);
  if (auto bad = check_dims_and_config(dims)) return *bad;
  if (auto bad = check_tp(T, dims)) return *bad;
  return owned(T, dims);
}

template <ModelInt Int>
Outcome<StateShape<Int>> state_shape(const Int& T, const StateDims<Int>& dims) {
  const Outcome<RankState<Int>> s = state_ownership(T, dims);
  if (!s.ok()) return s.failure();
  return StateShape<Int>{s.value().c_loc, s.value().h_loc, s.value().head_elements};
}

template <ModelInt Int>
Outcome<std::vector<SegmentRange<Int>>> segments(const Int& r, const Int& T, const StateDims<Int>& dims) {
  if (T <= 0) return msg::size_not_positive("tp_size", T);
  if (auto bad = check_dims_and_config(dims)) return *bad;
  if (r < 0 || r >= T) return msg::rank_out_of_range("tp_rank", r, T);
  if (auto bad = check_tp(T, dims)) return *bad;
  const RankState<Int> s = owned(T, dims);
  std::vector<SegmentRange<Int>> out;
  out.reserve(s.segment_count + 1);
  for (std::size_t i = 0; i < s.segment_count; ++i) {
    const ConvSegment<Int>& c = s.conv[i];
    const U<Int> lo = s.start(r, i);
    out.push_back({c.name, lo, U<Int>(lo + c.width), c.loc, c.replicated});
  }
  const Int head = s.first_head(r);
  out.push_back({kSsmSegment, units(head), units(Int(head + s.h_loc)), U<Int>(0), false});
  return out;
}

// The checks of state_plan, in its order, and its copy count: the failure, or nothing.
template <ModelInt Int>
std::optional<Failure> check_state_plan(const Int& d, const Int& P, const Int& D, const StateDims<Int>& dims) {
  if (auto bad = check_sizes_and_dims(P, D, dims)) return bad;
  if (d < 0 || d >= D) return msg::rank_out_of_range("decode_tp_rank", d, D);
  if (auto bad = check_both_sides(P, D, dims)) return bad;
  if (const Outcome<Int> ratio = tp_ratio(D, P); !ratio.ok()) return ratio.failure();  // decode is the local side
  const Wide<Int> count = plan_copy_count(owned(P, dims), P, D);
  if (count > kMaxStateListed) return msg::too_long_to_list("state plan of decode_tp_rank ", d, count, kMaxStateListed);
  return std::nullopt;
}

template <ModelInt Int>
Outcome<wide_t<Int>> state_plan_copy_count(const Int& d, const Int& P, const Int& D, const StateDims<Int>& dims) {
  if (std::optional<Failure> bad = check_state_plan(d, P, D, dims)) return *std::move(bad);
  return plan_copy_count(owned(P, dims), P, D);
}

template <ModelInt Int>
std::optional<Failure> state_plan_range_into(std::vector<StateCopy<Int>>& copies, const Int& d, const Int& P,
                                             const Int& D, const StateDims<Int>& dims, const units_t<Int>& first,
                                             const units_t<Int>& count) {
  copies.clear();
  if (std::optional<Failure> bad = check_state_plan(d, P, D, dims)) return bad;
  const RankState<Int> prefill = owned(P, dims);
  const RankState<Int> decode = owned(D, dims);
  const U<Int> end = first + count;
  const Wide<Int> total = plan_copy_count(prefill, P, D);  // at most kMaxStateListed: checked
  copies.reserve(std::min(static_cast<std::size_t>(total),
                          static_cast<std::size_t>(std::min(count, U<Int>(kMaxStateListed)))));
  U<Int> at{0};  // the plan index of the next copy
  for (std::size_t s = 0; s < prefill.segment_count; ++s) {
    const ConvSegment<Int>& from = prefill.conv[s];
    const ConvSegment<Int>& to = decode.conv[s];
    const auto index = static_cast<std::uint8_t>(s);
    if (from.replicated) {
      // d takes the whole segment once, from the first rank of its window (§6's anchor).
      if (at >= first && at < end) {
        copies.push_back({index, from.name, mul_floor_div<Int>(d, P, D), from.loc, to.loc, from.full});
      }
      ++at;
    } else {
      append_overlaps<Int>(copies, index, from.name, decode.start(d, s), to.width, to.loc, from.width, from.loc, at,
                           first, end);
    }
  }
  append_overlaps<Int>(copies, static_cast<std::uint8_t>(prefill.segment_count), kSsmSegment,
                       units(decode.first_head(d)), units(decode.h_loc), U<Int>(0), units(prefill.h_loc), U<Int>(0), at,
                       first, end);
  return std::nullopt;
}

template <ModelInt Int>
std::optional<Failure> state_plan_into(std::vector<StateCopy<Int>>& copies, const Int& d, const Int& P, const Int& D,
                                       const StateDims<Int>& dims) {
  return state_plan_range_into(copies, d, P, D, dims, U<Int>(0), U<Int>(kMaxStateListed));
}

template <ModelInt Int>
Outcome<std::vector<StateCopy<Int>>> state_plan(const Int& d, const Int& P, const Int& D, const StateDims<Int>& dims) {
  std::vector<StateCopy<Int>> copies;
  if (std::optional<Failure> failed = state_plan_into(copies, d, P, D, dims)) return *std::move(failed);
  return copies;
}

template <ModelInt Int>
Outcome<Span<Int>> state_served_span(const Int& p, const Int& P, const Int& D, const StateDims<Int>& dims) {
  if (auto bad = check_sizes_and_dims(P, D, dims)) return *bad;
  if (p < 0 || p >= P) return msg::rank_out_of_range("prefill_tp_rank", p, P);
  if (auto bad = check_both_sides(P, D, dims)) return *bad;
  // Every rank of p's window takes a share from p (§16.2's duality): prefill is the local side.
  const Outcome<Span<Int>> span = window_span(p, P, D);
  if (!span.ok()) return span.failure();
  const Int n = span.value().end - span.value().first;
  if (n > kMaxStateListed) return msg::too_long_to_list("state served by prefill_tp_rank ", p, n, kMaxStateListed);
  return span;
}

template <ModelInt Int>
Outcome<Window<Int>> state_served(const Int& p, const Int& P, const Int& D, const StateDims<Int>& dims) {
  const Outcome<Span<Int>> span = state_served_span(p, P, D, dims);
  if (!span.ok()) return span.failure();
  return window(p, P, D);  // the same checks passed, and a list it does not refuse
}

template <ModelInt Int>
Outcome<None> state_pairing(const Int& LP, const Int& LD, const Int& ECP, const Int& ECD, const Int& ESP,
                            const Int& ESD) {
  if (LP <= 0) return msg::size_not_positive("prefill conv window length", LP);
  if (LD <= 0) return msg::size_not_positive("decode conv window length", LD);
  if (ECP <= 0) return msg::size_not_positive("prefill conv element size", ECP);
  if (ECD <= 0) return msg::size_not_positive("decode conv element size", ECD);
  if (ESP <= 0) return msg::size_not_positive("prefill SSM element size", ESP);
  if (ESD <= 0) return msg::size_not_positive("decode SSM element size", ESD);
  if (LP != LD) return msg::conv_window_lengths_differ(LP, LD);
  if (ECP != ECD) return msg::conv_element_sizes_differ(ECP, ECD);
  if (ESP != ESD) return msg::ssm_element_sizes_differ(ESP, ESD);
  return None{};
}

#define TPCHECK_STATE(Int)                                                                                          \
  template struct RankState<Int>;                                                                                   \
  template Outcome<RankState<Int>> state_ownership<Int>(const Int&, const StateDims<Int>&);                         \
  template Outcome<StateShape<Int>> state_shape<Int>(const Int&, const StateDims<Int>&);                            \
  template Outcome<std::vector<SegmentRange<Int>>> segments<Int>(const Int&, const Int&, const StateDims<Int>&);    \
  template std::optional<Failure> state_plan_into<Int>(std::vector<StateCopy<Int>>&, const Int&, const Int&,        \
                                                       const Int&, const StateDims<Int>&);                          \
  template std::optional<Failure> state_plan_range_into<Int>(std::vector<StateCopy<Int>>&, const Int&, const Int&,  \
                                                             const Int&, const StateDims<Int>&, const units_t<Int>&, \
                                                             const units_t<Int>&);                                      \
  template Outcome<wide_t<Int>> state_plan_copy_count<Int>(const Int&, const Int&, const Int&, const StateDims<Int>&); \
  template Outcome<std::vector<StateCopy<Int>>> state_plan<Int>(const Int&, const Int&, const Int&,                 \
                                                                const StateDims<Int>&);                             \
  template Outcome<Window<Int>> state_served<Int>(const Int&, const Int&, const Int&, const StateDims<Int>&);       \
  template Outcome<Span<Int>> state_served_span<Int>(const Int&, const Int&, const Int&, const StateDims<Int>&);     \
  template Outcome<None> state_pairing<Int>(const Int&, const Int&, const Int&, const Int&, const Int&, const Int&);
TPCHECK_INSTANTIATE_MODEL(TPCHECK_STATE)

}  // namespace tpcheck
