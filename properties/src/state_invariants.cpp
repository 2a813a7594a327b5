// SPEC §16.4 on the recurrent state of hybrid models: ownership by segments,
// the state plan, its duality with the fan-in, and its byte layouts. Each
// check, and its declaration in the registry right after it. The expected
// values come from state_support.hpp's own statement of §16.1; lib/ is only
// what is checked.
#include <algorithm>
#include <vector>

#include "state_support.hpp"
#include "tpcheck/state_bytes.hpp"

TPCHECK_DECLARATIONS(state_invariants)

namespace tpcheck::inv {
using namespace declare;
using namespace state;
namespace {

template <ModelInt Int>
std::string dims_text(const StateDims<Int>& d) {
  std::string out = std::string(state_family_name(d.family)) + " ";
  for (std::size_t i = 0; i < state_dim_count(d.family); ++i) out += (i ? "," : "") + render(d.v[i]);
  return out;
}

template <ModelInt Int>
std::string side_call(const char* op, const Int& r, const Int& T, const StateDims<Int>& d) {
  return std::string(op) + "(" + render(r) + ", " + render(T) + ", " + dims_text(d) + ")";
}

template <ModelInt Int>
std::string plan_call(const Int& d, const Int& P, const Int& D, const StateDims<Int>& dims) {
  return "state_plan(" + render(d) + ", " + render(P) + ", " + render(D) + ", " + dims_text(dims) + ")";
}

// The segments a rank holds (lib's), or the verdict standing in for them.
template <ModelInt Int>
struct HeldSegments {
  std::vector<SegmentRange<Int>> ranges;
  Verdict otherwise = holds();
};

template <ModelInt Int>
HeldSegments<Int> held(const Int& r, const Int& T, const StateDims<Int>& d) {
  Outcome<std::vector<SegmentRange<Int>>> got = segments(r, T, d);
  if (!got.ok()) return {{}, failed_on_valid(side_call("segments", r, T, d), got.failure())};
  return {std::move(got).value(), holds()};
}

// Decode rank d's plan (lib's), listed into a buffer kept per thread and type.
template <ModelInt Int>
const std::vector<StateCopy<Int>>* listed_plan(const Int& d, const Int& P, const Int& D, const StateDims<Int>& dims,
                                               Verdict& otherwise) {
  thread_local std::vector<StateCopy<Int>> copies;
  if (std::optional<Failure> failed = state_plan_into(copies, d, P, D, dims)) {
    otherwise = failed_on_valid(plan_call(d, P, D, dims), *failed);
    return nullptr;
  }
  return &copies;
}

// Both sides load the dims (the domains give only such sizings).
template <ModelInt Int>
bool sizing_loads(const StateDims<Int>& dims, const Int& P, const Int& D) {
  return loads(dims, P) && loads(dims, D);
}

constexpr const char* kNotLoadable = "a side does not load these dims";

// A count of units as an Int, where it fits.
template <ModelInt Int>
std::optional<Int> as_int(const U<Int>& v) {
  if constexpr (std::is_same_v<Int, BigInt>) {
    return v;
  } else {
    if (v > U<Int>(std::numeric_limits<Int>::max())) return std::nullopt;
    return static_cast<Int>(v);
  }
}

// The proof texts.
constexpr const char* kSideInputs = "each family's dims that load on T ranks, 0 <= r < T";
constexpr const char* kPlanInputs = "each family's dims that load on both sides of a divisible pair P, D, 0 <= d < D";

}  // namespace

// ---- §16.1 ownership ------------------------------------------------------------------------

template <ModelInt Int>
Verdict state_shards_partition(const StateDims<Int>& dims, const Int& T, const Int& r) {
  if (!loads(dims, T)) return vacuous(kNotLoadable);
  const Ownership<Int> own = ownership(dims, T);
  HeldSegments<Int> mine = held(r, T, dims);
  if (!mine.otherwise.held()) return mine.otherwise;
  HeldSegments<Int> next;
  if (r + 1 < T) {
    next = held(Int(r + 1), T, dims);
    if (!next.otherwise.held()) return next.otherwise;
  }
  const auto wrong = [&](std::size_t s, const char* what) {
    return violated(side_call("segments", r, T, dims) + " = " + render(mine.ranges) + ": segment " +
                    mine.ranges[s].name + " " + what);
  };
  if (mine.ranges.size() != own.count + 1) return wrong(0, "list has another number of segments");
  for (std::size_t s = 0; s <= own.count; ++s) {
    const bool ssm = s == own.count;
    if (!ssm && own.segments[s].replicated) continue;  // ReplicatedSegmentsAreHeldWhole's
    const U<Int> width = ssm ? U<Int>(own.h_loc) : own.segments[s].width;
    const U<Int> full = ssm ? U<Int>(own.heads) : own.segments[s].full;
    const SegmentRange<Int>& x = mine.ranges[s];
    if (x.replicated) return wrong(s, "is called replicated");
    if (x.lo != U<Int>(r) * width) return wrong(s, "does not start at r * W_s / T");
    if (x.hi - x.lo != width) return wrong(s, "is not W_s / T wide");
    if (r == 0 && x.lo != 0) return wrong(s, "of rank 0 does not start at 0");
    if (r + 1 < T && x.hi != next.ranges[s].lo) return wrong(s, "does not end where rank r + 1's starts");
    if (r + 1 == T && x.hi != full) return wrong(s, "of the last rank does not end at W_s");
  }
  return holds();
}

TPCHECK_INVARIANT(StateShardsPartitionEachSegment, "§16.4", RecurrentState, state_side_ranks(),
    kinds(kind("mamba2", is_family<StateFamily::Mamba2>), kind("gdn", is_family<StateFamily::Gdn>),
          kind("kda", is_family<StateFamily::Kda>), kind("mamba1", is_family<StateFamily::Mamba1>),
          kind("one rank", [](const auto&, const auto& T, const auto&...) { return T == 1; }),
          kind("several ranks", [](const auto&, const auto& T, const auto&...) { return T > 1; }),
          kind("case B (B and C replicated)", side_case_b), kind("key dims unlike value dims", side_key_unlike_value)),
    min_non_vacuous(1.0).sweep_bound(8, 16).proof(Proof::by_z3(kSideInputs)),
    [](const auto& f, const auto& T, const auto& a, const auto& b, const auto& c, const auto& e, const auto& r) {
      return state_shards_partition(dims_of(f, a, b, c, e), T, r);
    });

template <ModelInt Int>
Verdict replicated_segments_held_whole(const StateDims<Int>& dims, const Int& T, const Int& r) {
  if (!loads(dims, T)) return vacuous(kNotLoadable);
  const Ownership<Int> own = ownership(dims, T);
  HeldSegments<Int> mine = held(r, T, dims);
  if (!mine.otherwise.held()) return mine.otherwise;
  for (std::size_t s = 0; s < own.count && s < mine.ranges.size(); ++s) {
    const SegmentRange<Int>& x = mine.ranges[s];
    // Case B: Mamba2's B and C (one group) on several ranks; nothing else.
    const bool expected = dims.family == StateFamily::Mamba2 && s > 0 && dims.v[2] == 1 && T > 1;
    if (x.replicated != expected || own.segments[s].replicated != expected) {
      return violated(side_call("segments", r, T, dims) + " = " + render(mine.ranges) + ": segment " + x.name +
                      (expected ? " is not replicated in case B" : " is replicated outside case B"));
    }
    if (expected && (x.lo != 0 || x.hi != U<Int>(dims.v[3]) || x.hi != own.segments[s].full)) {
      return violated(side_call("segments", r, T, dims) + " = " + render(mine.ranges) + ": replicated segment " +
                      x.name + " is not [0, N)");
    }
  }
  return holds();
}

TPCHECK_INVARIANT(ReplicatedSegmentsAreHeldWhole, "§16.4", RecurrentState, state_side_ranks(),
    kinds(kind("case B (B and C replicated)", side_case_b),
          kind("case A (several groups)", [](const auto& f, const auto&, const auto&, const auto&, const auto& G,
                                             const auto&...) { return family_of(f) == StateFamily::Mamba2 && G > 1; }),
          kind("one group on one rank", [](const auto& f, const auto& T, const auto&, const auto&, const auto& G,
                                           const auto&...) {
            return family_of(f) == StateFamily::Mamba2 && G == 1 && T == 1;
          }),
          kind("another family", [](const auto& f, const auto&...) { return family_of(f) != StateFamily::Mamba2; })),
    min_non_vacuous(1.0).sweep_bound(8, 16).proof(Proof::by_z3(kSideInputs)),
    [](const auto& f, const auto& T, const auto& a, const auto& b, const auto& c, const auto& e, const auto& r) {
      return replicated_segments_held_whole(dims_of(f, a, b, c, e), T, r);
    });

// C_loc as the engines' shape formulas give it: Mamba2 (I + 2 * G_ext * N) / T
// with G_ext = T in case B (the groups extended to T), else G.
template <ModelInt Int>
U<Int> engines_c_loc(const StateDims<Int>& d, const Int& T) {
  const auto& v = d.v;
  const U<Int> t = U<Int>(T);
  switch (d.family) {
    case StateFamily::Mamba2: {
      const Int g_ext = v[2] == 1 && T > 1 ? T : v[2];
      return (U<Int>(v[0]) * U<Int>(v[1]) + U<Int>(2) * U<Int>(g_ext) * U<Int>(v[3])) / t;
    }
    case StateFamily::Gdn: return (U<Int>(2) * U<Int>(v[0]) * U<Int>(v[1]) + U<Int>(v[2]) * U<Int>(v[3])) / t;
    case StateFamily::Kda: return U<Int>(3) * (U<Int>(v[0]) * U<Int>(v[1]) / t);
    case StateFamily::Mamba1: return U<Int>(v[0]) / t;
  }
  return 0;
}

template <ModelInt Int>
Verdict local_segments_tile(const StateDims<Int>& dims, const Int& T, const Int& r, const Int& L, const Int& ec,
                            const Int& es) {
  if (!loads(dims, T)) return vacuous(kNotLoadable);
  const Ownership<Int> own = ownership(dims, T);
  HeldSegments<Int> mine = held(r, T, dims);
  if (!mine.otherwise.held()) return mine.otherwise;
  const auto wrong = [&](const std::string& what) {
    return violated(side_call("segments", r, T, dims) + " = " + render(mine.ranges) + ": " + what);
  };
  U<Int> at = 0;
  for (std::size_t s = 0; s < own.count; ++s) {
    const SegmentRange<Int>& x = mine.ranges[s];
    if (x.local_lo != at) return wrong(std::string("segment ") + x.name + " does not start where the one before ends");
    at += x.hi - x.lo;
  }
  const U<Int> formula = engines_c_loc(dims, T);
  const Outcome<StateShape<Int>> shape = state_shape(T, dims);
  if (!shape.ok()) return failed_on_valid(side_call("state_shape", Int(0), T, dims), shape.failure());
  if (at != shape.value().c_loc || at != formula) {
    return wrong("the segments end at " + render(at) + ", C_loc is " + render(shape.value().c_loc) +
                 ", the engines' shape formula gives " + render(formula));
  }
  if (shape.value().ssm_heads != own.h_loc || shape.value().elements_per_head != own.elements) {
    return wrong("state_shape gives " + render(shape.value()) + ", the SSM state is " + render(own.h_loc) + " x " +
                 render(own.elements));
  }
  const Outcome<RankState<Int>> side = state_ownership(T, dims);
  const Outcome<SideBytes<Int>> bytes =
      side.ok() ? side_bytes(side.value(), ConvOrder::DimFirst, StateContainer::VllmPage, L, ec, es)
                : Outcome<SideBytes<Int>>(side.failure());
  if (!bytes.ok()) {
    if constexpr (!std::is_same_v<Int, BigInt>) return vacuous("the state's bytes do not fit the integer type");
    return failed_on_valid("side_bytes of " + side_call("state_ownership", Int(0), T, dims), bytes.failure());
  }
  // vLLM's ssm_sizes and SGLang's item lengths.
  const U<Int> conv = at * U<Int>(L) * U<Int>(ec);
  const U<Int> ssm = U<Int>(own.h_loc) * own.elements * U<Int>(es);
  if (bytes.value().conv_bytes != conv || bytes.value().ssm_bytes != ssm) {
    return wrong("the state is " + render(bytes.value().conv_bytes) + " + " + render(bytes.value().ssm_bytes) +
                 " bytes, expected C_loc * L * e_conv = " + render(conv) + " and H_loc * E * e_ssm = " + render(ssm));
  }
  return holds();
}

TPCHECK_INVARIANT(LocalSegmentsTileTheConvState, "§16.4", RecurrentState,
    domain(choice("family", 4), size("T"), with_narrow_edges(state_dim_of("dim0", "family", 0, nullptr, "T", nullptr)),
           with_narrow_edges(state_dim_of("dim1", "family", 1, nullptr, "T", nullptr)),
           state_dim_of("dim2", "family", 2, "dim0", "T", nullptr), state_dim_of("dim3", "family", 3, nullptr, "T", nullptr),
           rank("r", "T"), length("L"), length("e_conv"), length("e_ssm")),
    kinds(kind("mamba2", is_family<StateFamily::Mamba2>), kind("gdn", is_family<StateFamily::Gdn>),
          kind("kda", is_family<StateFamily::Kda>), kind("mamba1", is_family<StateFamily::Mamba1>),
          kind("case B: G_ext = T", side_case_b), kind("key dims unlike value dims", side_key_unlike_value),
          kind("L > 1", [](const auto&, const auto&, const auto&, const auto&, const auto&, const auto&, const auto&,
                           const auto& L, const auto&...) { return L > 1; })),
    min_non_vacuous(0.9).sweep_bound(4, 8).proof(Proof::by_z3(kSideInputs)),
    [](const auto& f, const auto& T, const auto& a, const auto& b, const auto& c, const auto& e, const auto& r,
       const auto& L, const auto& ec, const auto& es) { return local_segments_tile(dims_of(f, a, b, c, e), T, r, L, ec, es); });

// Past this many heads a rank holds, its first, middle and last are walked.
constexpr std::int64_t kMaxHeadsWalked = 64;

template <ModelInt Int>
Verdict heads_find_their_group(const StateDims<Int>& dims, const Int& T, const Int& r) {
  if (!loads(dims, T)) return vacuous(kNotLoadable);
  const Ownership<Int> own = ownership(dims, T);
  HeldSegments<Int> mine = held(r, T, dims);
  if (!mine.otherwise.held()) return mine.otherwise;
  const auto& v = dims.v;
  const bool mamba2 = dims.family == StateFamily::Mamba2;
  // Mamba2: head h uses group h // (H / G) of B (segment 1, N channels a group);
  // GDN: value head m uses key head m // (Hv / Hk) of k (segment 1, dk channels).
  const Int per_group = mamba2 ? floor_div<Int>(v[0], v[2]) : floor_div<Int>(v[2], v[0]);
  const U<Int> group_width = U<Int>(mamba2 ? v[3] : v[1]);
  const bool case_b = mamba2 && v[2] == 1 && T > 1;
  const SegmentRange<Int>& groups = mine.ranges[1];
  const SegmentRange<Int>& heads_held = mine.ranges[own.count];
  return walk_range(Int(0), own.h_loc, [&](const Int& j) {
    const Int h = Int(Int(heads_held.lo) + j);  // held heads fit Int
    const U<Int> first_channel = U<Int>(floor_div<Int>(h, per_group)) * group_width;
    // The kernels' local group: j // (H_loc / G_loc), that is j // (H / G) (case A, GDN), 0 in case B.
    const U<Int> kernel = case_b ? U<Int>(0) : U<Int>(floor_div<Int>(j, per_group));
    const bool on_rank = first_channel >= groups.lo && first_channel + group_width <= groups.hi;
    if (on_rank && (first_channel - groups.lo) / group_width == kernel) return holds();
    return violated(side_call("segments", r, T, dims) + " = " + render(mine.ranges) + ": local head " + render(j) +
                    " (head " + render(h) + ") uses the group at channel " + render(first_channel) +
                    (on_rank ? ", not at the kernels' local index " + render(kernel) : ", which the rank does not hold"));
  }, kMaxHeadsWalked);
}

TPCHECK_INVARIANT(HeadsFindTheirGroupOnTheirRank, "§16.4", RecurrentState, state_side_ranks(2),
    kinds(kind("case A (several groups)", [](const auto& f, const auto&, const auto&, const auto&, const auto& G,
                                             const auto&...) { return family_of(f) == StateFamily::Mamba2 && G > 1; }),
          kind("case B (B and C replicated)", side_case_b),
          kind("several value heads per key head", [](const auto& f, const auto&, const auto& HK, const auto&,
                                                      const auto& HV, const auto&...) {
            return family_of(f) == StateFamily::Gdn && HV > HK;
          }),
          kind("one value head per key head", [](const auto& f, const auto&, const auto& HK, const auto&, const auto& HV,
                                                 const auto&...) { return family_of(f) == StateFamily::Gdn && HV == HK; }),
          kind("several ranks", [](const auto&, const auto& T, const auto&...) { return T > 1; })),
    min_non_vacuous(1.0).sweep_bound(8, 16).proof(Proof::by_z3("Mamba2 and GDN dims that load on T ranks, 0 <= r < T, "
                                                                 "each held head h")),
    [](const auto& f, const auto& T, const auto& a, const auto& b, const auto& c, const auto& e, const auto& r) {
      return heads_find_their_group(dims_of(f, a, b, c, e), T, r);
    });

// ---- §16.2 the state plan ---------------------------------------------------------------------

namespace {

// Decode rank d's copies, checked per segment by `each` (the copies of one
// segment, in order, with the two sides' ownership), after the common checks:
// every segment present, in family order, nothing else.
template <ModelInt Int, class Each>
Verdict per_segment(const StateDims<Int>& dims, const Int& P, const Int& D, const Int& d, Each&& each) {
  if (!sizing_loads(dims, P, D)) return vacuous(kNotLoadable);
  Verdict otherwise = holds();
  const std::vector<StateCopy<Int>>* copies = listed_plan(d, P, D, dims, otherwise);
  if (!copies) return otherwise;
  const Ownership<Int> prefill = ownership(dims, P), decode = ownership(dims, D);
  std::size_t at = 0;
  for (std::size_t s = 0; s <= prefill.count; ++s) {
    const std::size_t from = at;
    while (at < copies->size() && (*copies)[at].segment == s) ++at;
    const std::span<const StateCopy<Int>> mine(copies->data() + from, at - from);
    if (Verdict v = each(s, mine, prefill, decode); !v.held()) {
      return v.is_violated() ? violated(plan_call(d, P, D, dims) + " = " + render(*copies) + ": " + v.message()) : v;
    }
  }
  if (at != copies->size()) return violated(plan_call(d, P, D, dims) + " = " + render(*copies) + ": copies out of order");
  return holds();
}

// The segment's width and first local unit on a side (the SSM heads: h_loc from 0).
template <ModelInt Int>
U<Int> width_of(const Ownership<Int>& o, std::size_t s) {
  return s == o.count ? U<Int>(o.h_loc) : o.segments[s].width;
}
template <ModelInt Int>
U<Int> loc_of(const Ownership<Int>& o, std::size_t s) {
  return s == o.count ? U<Int>(0) : o.segments[s].loc;
}
// The first logical unit rank r holds of the segment.
template <ModelInt Int>
U<Int> start_of(const Ownership<Int>& o, std::size_t s, const Int& r) {
  return s == o.count ? U<Int>(U<Int>(r) * U<Int>(o.h_loc)) : o.start(r, s);
}
template <ModelInt Int>
bool replicated_on(const Ownership<Int>& o, std::size_t s) {
  return s < o.count && o.segments[s].replicated;
}

const char* segment_name(std::size_t s, std::size_t count, StateFamily f) {
  static constexpr std::array<std::array<const char*, 3>, 4> names = {
      {{"x", "B", "C"}, {"q", "k", "v"}, {"q", "k", "v"}, {"x", "", ""}}};
  return s == count ? "ssm" : names[static_cast<std::size_t>(f)][s];
}

auto plan_kinds() {
  return kinds(kind("mamba2", is_family<StateFamily::Mamba2>), kind("gdn", is_family<StateFamily::Gdn>),
               kind("kda", is_family<StateFamily::Kda>), kind("mamba1", is_family<StateFamily::Mamba1>),
               kind("P > D", prefill_larger), kind("P < D", decode_larger), kind("P == D", same_size),
               kind("G_s < max(P, D): B and C replicated", case_b), kind("several groups", several_groups),
               kind("key dims unlike value dims", key_unlike_value));
}

}  // namespace

template <ModelInt Int>
Verdict state_plan_covers(const StateDims<Int>& dims, const Int& P, const Int& D, const Int& d) {
  return per_segment(dims, P, D, d, [&](std::size_t s, std::span<const StateCopy<Int>> copies, const Ownership<Int>&,
                                        const Ownership<Int>& decode) {
    const char* name = segment_name(s, decode.count, dims.family);
    if (copies.empty()) return violated(std::string("no copy of segment ") + name);
    U<Int> at = loc_of(decode, s);
    for (const StateCopy<Int>& c : copies) {
      if (std::string_view(c.name) != name) return violated(std::string("a copy of segment ") + name + " is named " + c.name);
      if (c.dst != at || c.n == 0) {
        return violated(std::string("a copy of ") + name + " starts at " + render(c.dst) + ", the one before ends at " +
                        render(at));
      }
      at = c.dst + c.n;
    }
    if (at != loc_of(decode, s) + width_of(decode, s)) {
      return violated(std::string("the copies of ") + name + " end at " + render(at) + ", not at loc(D, s) + width(D, s)");
    }
    return holds();
  });
}

TPCHECK_INVARIANT(StatePlanCoversEachDecodeRanksStateExactlyOnce, "§16.4", RecurrentState, state_decode_ranks(),
    plan_kinds(), min_non_vacuous(1.0).size_cap(kWalkedSizeCap).sweep_bound(8, 16).proof(Proof::by_z3(kPlanInputs)),
    [](const auto& f, const auto& P, const auto& D, const auto& a, const auto& b, const auto& c, const auto& e,
       const auto& d) { return state_plan_covers(dims_of(f, a, b, c, e), P, D, d); });

template <ModelInt Int>
Verdict state_plan_reads_held(const StateDims<Int>& dims, const Int& P, const Int& D, const Int& d) {
  return per_segment(dims, P, D, d, [&](std::size_t s, std::span<const StateCopy<Int>> copies,
                                        const Ownership<Int>& prefill, const Ownership<Int>& decode) {
    for (const StateCopy<Int>& c : copies) {
      const auto what = [&] { return "the copy " + render(c) + " "; };
      if (c.p < 0 || c.p >= P) return violated(what() + "reads a prefill rank outside [0, P)");
      const U<Int> lo = loc_of(prefill, s), width = width_of(prefill, s);
      if (c.src < lo || c.src + c.n > lo + width) return violated(what() + "reads outside the source's segment");
      const U<Int> read = start_of(prefill, s, c.p) + (c.src - lo);
      const U<Int> written = start_of(decode, s, d) + (c.dst - loc_of(decode, s));
      if (read != written) {
        return violated(what() + "moves logical unit " + render(read) + " into logical unit " + render(written));
      }
    }
    return holds();
  });
}

TPCHECK_INVARIANT(StatePlanReadsOnlyWhatTheSourceHolds, "§16.4", RecurrentState, state_decode_ranks(), plan_kinds(),
    min_non_vacuous(1.0).size_cap(kWalkedSizeCap).sweep_bound(8, 16).proof(Proof::by_z3(kPlanInputs)),
    [](const auto& f, const auto& P, const auto& D, const auto& a, const auto& b, const auto& c, const auto& e,
       const auto& d) { return state_plan_reads_held(dims_of(f, a, b, c, e), P, D, d); });

template <ModelInt Int>
Verdict replicated_from_one_holder(const StateDims<Int>& dims, const Int& P, const Int& D, const Int& d) {
  bool any = false;
  Verdict v = per_segment(dims, P, D, d, [&](std::size_t s, std::span<const StateCopy<Int>> copies,
                                             const Ownership<Int>& prefill, const Ownership<Int>& decode) {
    if (!replicated_on(prefill, s) && !replicated_on(decode, s)) return holds();
    any = true;
    // Replicated on the prefill side: from floor(d * P / D), the first rank of d's window;
    // on the decode side only (P = 1): from the one prefill rank.
    const Int from = Int(mul_floor_div<Int>(d, P, D));
    const Segment<Int>& seg = prefill.segments[s];
    const StateCopy<Int> expected{static_cast<std::uint8_t>(s), segment_name(s, prefill.count, dims.family), from,
                                  seg.loc, decode.segments[s].loc, seg.full};
    if (copies.size() == 1 && copies.front() == expected) return holds();
    return violated(std::string("replicated segment ") + expected.name + " is not the one whole copy " + render(expected));
  });
  if (v.held() && !any) return vacuous("no segment is replicated");
  return v;
}

TPCHECK_INVARIANT(ReplicatedSegmentsComeFromOneHolder, "§16.4", RecurrentState,
    [] {
      std::vector<Block> blocks = state_decode_ranks();
      blocks.front() = choice("family", 1);  // Mamba2 alone replicates (case B)
      return blocks;
    }(),
    kinds(kind("replicated on both sides", [](const auto&, const auto& P, const auto& D, const auto&...) { return P > 1 && D > 1; }),
          kind("replicated on the prefill side only (D = 1)", [](const auto&, const auto& P, const auto& D,
                                                                 const auto&...) { return P > 1 && D == 1; }),
          kind("replicated on the decode side only (P = 1)", [](const auto&, const auto& P, const auto& D,
                                                                const auto&...) { return P == 1 && D > 1; }),
          kind("P > D", prefill_larger), kind("P < D", decode_larger), kind("P == D", same_size)),
    min_non_vacuous(0.2).size_cap(kWalkedSizeCap).sweep_bound(8, 16).proof(Proof::by_z3(kPlanInputs)),
    [](const auto& f, const auto& P, const auto& D, const auto& a, const auto& b, const auto& c, const auto& e,
       const auto& d) { return replicated_from_one_holder(dims_of(f, a, b, c, e), P, D, d); });

template <ModelInt Int>
Verdict identity_at_equal_sizes(const StateDims<Int>& dims, const Int& T, const Int& d) {
  return per_segment(dims, T, T, d, [&](std::size_t s, std::span<const StateCopy<Int>> copies, const Ownership<Int>& side,
                                        const Ownership<Int>&) {
    const StateCopy<Int> expected{static_cast<std::uint8_t>(s), segment_name(s, side.count, dims.family), d,
                                  loc_of(side, s), loc_of(side, s), width_of(side, s)};
    if (copies.size() == 1 && copies.front() == expected) return holds();
    return violated(std::string("segment ") + expected.name + " is not the one copy " + render(expected));
  });
}

TPCHECK_INVARIANT(StatePlanIsTheIdentityAtEqualSizes, "§16.4", RecurrentState, state_side_ranks(),
    kinds(kind("mamba2", is_family<StateFamily::Mamba2>), kind("gdn", is_family<StateFamily::Gdn>),
          kind("kda", is_family<StateFamily::Kda>), kind("mamba1", is_family<StateFamily::Mamba1>),
          kind("case B", side_case_b), kind("several ranks", [](const auto&, const auto& T, const auto&...) { return T > 1; })),
    min_non_vacuous(1.0).sweep_bound(8, 16).proof(Proof::by_z3(kSideInputs)),
    [](const auto& f, const auto& T, const auto& a, const auto& b, const auto& c, const auto& e, const auto& d) {
      return identity_at_equal_sizes(dims_of(f, a, b, c, e), T, d);
    });

// ---- §16.2 the duality --------------------------------------------------------------------------

template <ModelInt Int>
Verdict served_is_the_window(const StateDims<Int>& dims, const Int& P, const Int& D, const Int& d, const Int& p) {
  if (!sizing_loads(dims, P, D)) return vacuous(kNotLoadable);
  Verdict otherwise = holds();
  const std::vector<StateCopy<Int>>* copies = listed_plan(d, P, D, dims, otherwise);
  if (!copies) return otherwise;
  const bool source = std::any_of(copies->begin(), copies->end(), [&](const StateCopy<Int>& c) { return c.p == p; });
  const Outcome<Window<Int>> served = state_served(p, P, D, dims);
  if (!served.ok()) return failed_on_valid("state_served of p = " + render(p), served.failure());
  const bool serves = std::binary_search(served.value().begin(), served.value().end(), d);
  // §3: window(d, D, P) is [d // (D/P)] when D >= P, [d * k, d * k + k) with k = P/D otherwise.
  const bool in_window = D >= P ? p == floor_div<Int>(d, floor_div<Int>(D, P))
                                : p >= d * floor_div<Int>(P, D) && p < (d + 1) * floor_div<Int>(P, D);
  if (source == serves && serves == in_window) return holds();
  return violated("prefill rank " + render(p) + (source ? " is" : " is not") + " a source of " + plan_call(d, P, D, dims) +
                  ", state_served(" + render(p) + ") = " + render(served.value()) + (in_window ? ", and p is" : ", and p is not") +
                  " in d's window");
}

TPCHECK_INVARIANT(StateServedIsTheWindow, "§16.4", RecurrentState,
    [] {
      std::vector<Block> blocks = state_decode_ranks();
      blocks.push_back(rank("p", "P"));
      return blocks;
    }(),
    kinds(kind("p serves d", [](const auto&, const auto& P, const auto& D, const auto&, const auto&, const auto&,
                                const auto&, const auto& d, const auto& p) {
            return D >= P ? p == d / (D / P) : p >= d * (P / D) && p < (d + 1) * (P / D);
          }),
          kind("p does not serve d", [](const auto&, const auto& P, const auto& D, const auto&, const auto&, const auto&,
                                        const auto&, const auto& d, const auto& p) {
            return !(D >= P ? p == d / (D / P) : p >= d * (P / D) && p < (d + 1) * (P / D));
          }),
          kind("P > D", prefill_larger), kind("P < D", decode_larger), kind("P == D", same_size),
          kind("G_s < max(P, D): B and C replicated", case_b)),
    min_non_vacuous(1.0).size_cap(kWalkedSizeCap).sweep_bound(6, 12).proof(Proof::by_z3(
        "each family's dims that load on both sides of a divisible pair P, D, 0 <= d < D, 0 <= p < P")),
    [](const auto& f, const auto& P, const auto& D, const auto& a, const auto& b, const auto& c, const auto& e,
       const auto& d, const auto& p) { return served_is_the_window(dims_of(f, a, b, c, e), P, D, d, p); });

// The distinct prefill ranks a decode rank's plan copies from, sorted.
template <ModelInt Int>
void sources_of(const std::vector<StateCopy<Int>>& copies, std::vector<Int>& sources) {
  sources.clear();
  for (const StateCopy<Int>& c : copies) sources.push_back(c.p);
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
}

template <ModelInt Int>
Verdict fan_in_matches_copies(const StateDims<Int>& dims, const Int& P, const Int& D) {
  if (!sizing_loads(dims, P, D)) return vacuous(kNotLoadable);
  const Int expected = std::max(Int(1), floor_div<Int>(D, P));
  thread_local std::vector<Int> sources;  // reused: a case allocates nothing once it has grown
  if (walks_every_element()) {
    // Every rank of both sides: the completions the prefill ranks wait for
    // against the sources the decode ranks copy from, summed.
    U<Int> served_total = 0, sources_total = 0;
    for (Int p = 0; p < P; ++p) {
      const Outcome<Window<Int>> served = state_served(p, P, D, dims);
      if (!served.ok()) return failed_on_valid("state_served of p = " + render(p), served.failure());
      if (Int(static_cast<std::int64_t>(served.value().size())) != expected) {
        return violated("state_served(" + render(p) + ", " + render(P) + ", " + render(D) + ", " + dims_text(dims) +
                        ") = " + render(served.value()) + " has not max(1, D / P) = " + render(expected) + " ranks");
      }
      served_total += U<Int>(expected);
    }
    for (Int d = 0; d < D; ++d) {
      Verdict otherwise = holds();
      const std::vector<StateCopy<Int>>* copies = listed_plan(d, P, D, dims, otherwise);
      if (!copies) return otherwise;
      sources_of(*copies, sources);
      sources_total += U<Int>(static_cast<std::int64_t>(sources.size()));
    }
    if (served_total == sources_total) return holds();
    return violated("the prefill ranks wait for " + render(served_total) + " completions, the decode ranks copy from " +
                    render(sources_total) + " sources (" + render(P) + " -> " + render(D) + ", " + dims_text(dims) + ")");
  }
  // A budgeted walk counts at the ranks it visits: each prefill rank waits for
  // max(1, D / P) completions, each decode rank copies from max(1, P / D)
  // prefill ranks and each of them waits for it. On a divisible pair
  // P * max(1, D / P) = D * max(1, P / D), so the sums meet. The waits are
  // state_served's span (its ranks are the span's, as StateServedIsTheWindow
  // checks listed), so a walked rank costs one listed plan.
  const auto served_span_of = [&](const Int& p, Verdict& otherwise) -> std::optional<Span<Int>> {
    const Outcome<Span<Int>> span = state_served_span(p, P, D, dims);
    if (!span.ok()) {
      otherwise = failed_on_valid("state_served_span of p = " + render(p), span.failure());
      return std::nullopt;
    }
    return span.value();
  };
  const Verdict per_prefill_rank = walk_range(Int(0), P, [&](const Int& p) {
    Verdict otherwise = holds();
    const std::optional<Span<Int>> served = served_span_of(p, otherwise);
    if (!served) return otherwise;
    if (Int(served->end - served->first) == expected) return holds();
    return violated("state_served(" + render(p) + ", " + render(P) + ", " + render(D) + ", " + dims_text(dims) +
                    ") spans " + render(*served) + ", not max(1, D / P) = " + render(expected) + " ranks");
  });
  if (!per_prefill_rank.held()) return per_prefill_rank;
  const Int sources_expected = std::max(Int(1), floor_div<Int>(P, D));
  return walk_range(Int(0), D, [&](const Int& d) {
    Verdict otherwise = holds();
    const std::vector<StateCopy<Int>>* copies = listed_plan(d, P, D, dims, otherwise);
    if (!copies) return otherwise;
    sources_of(*copies, sources);
    if (Int(static_cast<std::int64_t>(sources.size())) != sources_expected) {
      return violated(plan_call(d, P, D, dims) + " = " + render(*copies) + " copies from " + render(sources) +
                      ", not max(1, P / D) = " + render(sources_expected) + " prefill ranks");
    }
    return walk_range(std::int64_t{0}, static_cast<std::int64_t>(sources.size()), [&](const std::int64_t& i) {
      const Int& p = sources[static_cast<std::size_t>(i)];
      Verdict failed = holds();
      const std::optional<Span<Int>> served = served_span_of(p, failed);
      if (!served) return failed;
      if (d >= served->first && d < served->end) return holds();
      return violated("decode rank " + render(d) + " copies from prefill rank " + render(p) + ", but state_served(" +
                      render(p) + ", " + render(P) + ", " + render(D) + ", " + dims_text(dims) + ") spans " +
                      render(*served) + ", without it");
    });
  });
}

TPCHECK_INVARIANT(StateFanInMatchesTheCopies, "§16.4", RecurrentState,
    [] {
      std::vector<Block> blocks = state_decode_ranks();
      blocks.pop_back();  // every rank of both sides
      return blocks;
    }(),
    kinds(kind("mamba2", is_family<StateFamily::Mamba2>), kind("gdn", is_family<StateFamily::Gdn>),
          kind("kda", is_family<StateFamily::Kda>), kind("mamba1", is_family<StateFamily::Mamba1>),
          kind("P > D", prefill_larger), kind("P < D", decode_larger), kind("P == D", same_size),
          kind("G_s < max(P, D): B and C replicated", case_b)),
    min_non_vacuous(1.0).size_cap(kWalkedSizeCap).sweep_bound(8, 16).proof(Proof::not_provable(
        "sums over the ranks of both sides: not a statement over a fixed number of integers")),
    [](const auto& f, const auto& P, const auto& D, const auto& a, const auto& b, const auto& c, const auto& e) {
      return fan_in_matches_copies(dims_of(f, a, b, c, e), P, D);
    });

// ---- §16.3 bytes ------------------------------------------------------------------------------------

namespace {

// A byte invariant's domain: state_decode_ranks and `more` after it.
std::vector<Block> state_byte_cases(std::initializer_list<Block> more) {
  std::vector<Block> blocks = state_decode_ranks();
  blocks.insert(blocks.end(), more);
  return blocks;
}

// The byte layouts a sizing is checked in, both sides alike: vLLM's page under
// DS, under SD, older KDA's tensor per segment (SD), and SGLang's pool (its
// conv DS, KDA's SD; the SSM state its own tensor).
enum class Layout : std::uint8_t { VllmDs, VllmSd, VllmSegmentsSd, Sglang };
constexpr std::uint8_t kLayouts = 4;

template <ModelInt Int>
Outcome<SideBytes<Int>> layout_bytes(Layout layout, const StateDims<Int>& dims, const Int& T, const Int& L,
                                     const Int& e) {
  const Outcome<RankState<Int>> side = state_ownership(T, dims);
  if (!side.ok()) return side.failure();
  const Int e_ssm = Int(e + 2);  // unlike e_conv, so a run sized by the other element size shows
  switch (layout) {
    case Layout::VllmDs: return side_bytes(side.value(), ConvOrder::DimFirst, StateContainer::VllmPage, L, e, e_ssm);
    case Layout::VllmSd: return side_bytes(side.value(), ConvOrder::StateFirst, StateContainer::VllmPage, L, e, e_ssm);
    case Layout::VllmSegmentsSd:
      return side_bytes(side.value(), ConvOrder::SegmentsStateFirst, StateContainer::VllmPage, L, e, e_ssm);
    case Layout::Sglang:
      return side_bytes(side.value(), dims.family == StateFamily::Kda ? ConvOrder::StateFirst : ConvOrder::DimFirst,
                        StateContainer::SglangPool, L, e, e_ssm);
  }
  return side.failure();
}

// Both sides' bytes of a layout, or the verdict standing in for them.
template <ModelInt Int>
struct SidesBytes {
  std::optional<SideBytes<Int>> prefill, decode;
  Verdict otherwise = holds();
};

template <ModelInt Int>
SidesBytes<Int> sides_bytes(Layout layout, const StateDims<Int>& dims, const Int& P, const Int& D, const Int& L,
                            const Int& e) {
  const Outcome<SideBytes<Int>> prefill = layout_bytes(layout, dims, P, L, e);
  const Outcome<SideBytes<Int>> decode = layout_bytes(layout, dims, D, L, e);
  if (prefill.ok() && decode.ok()) return {prefill.value(), decode.value(), holds()};
  if constexpr (!std::is_same_v<Int, BigInt>) return {std::nullopt, std::nullopt, vacuous("the state's bytes do not fit the integer type")};
  return {std::nullopt, std::nullopt,
          failed_on_valid("side_bytes", prefill.ok() ? decode.failure() : prefill.failure())};
}

template <class Int>
Layout layout_of(const Int& v) {
  return static_cast<Layout>(static_cast<int>(v));
}

}  // namespace

template <ModelInt Int>
Verdict runs_stay_inside(const StateDims<Int>& dims, const Int& P, const Int& D, const Int& d, Layout layout,
                         const Int& L, const Int& e) {
  if (!sizing_loads(dims, P, D)) return vacuous(kNotLoadable);
  const SidesBytes<Int> bytes = sides_bytes(layout, dims, P, D, L, e);
  if (!bytes.prefill) return bytes.otherwise;
  Verdict otherwise = holds();
  const std::vector<StateCopy<Int>>* copies = listed_plan(d, P, D, dims, otherwise);
  if (!copies) return otherwise;
  const SideBytes<Int>& sender = *bytes.prefill;
  const SideBytes<Int>& receiver = *bytes.decode;
  // A part's bytes in a side's entry: the conv state from 0, the SSM state from its offset.
  const auto inside = [](const SideBytes<Int>& side, StatePart part, const U<Int>& at, const U<Int>& length) {
    const U<Int> first = part == StatePart::Conv ? U<Int>(0) : side.ssm_offset();
    const U<Int> size = part == StatePart::Conv ? side.conv_bytes : side.ssm_bytes;
    return at >= first && at + length <= first + size && length > 0;
  };
  Verdict v = holds();
  U<Int> moved = 0;
  for (const StateCopy<Int>& c : *copies) {
    for_each_copy_run(c, sender, receiver, [&](const ByteRun<Int>& run) {
      moved += run.length;
      if (inside(sender, run.part, run.src, run.length) && inside(receiver, run.part, run.dst, run.length)) return true;
      v = violated(plan_call(d, P, D, dims) + " under layout " + render(Int(static_cast<int>(layout))) + ": the copy " +
                   render(c) + " has the run (" + render(run.src) + ", " + render(run.dst) + ", " + render(run.length) +
                   ") outside a side's state (conv " + render(sender.conv_bytes) + " and " + render(receiver.conv_bytes) +
                   " bytes, SSM " + render(sender.ssm_bytes) + " and " + render(receiver.ssm_bytes) + ")");
      return false;
    });
    if (!v.held()) return v;
  }
  // Together the runs fill the decode rank's state: each byte once (the plan covers it exactly once).
  if (moved != receiver.conv_bytes + receiver.ssm_bytes) {
    return violated(plan_call(d, P, D, dims) + ": its runs move " + render(moved) + " bytes, the decode rank's state has " +
                    render(receiver.conv_bytes + receiver.ssm_bytes));
  }
  return holds();
}

namespace {

// Kinds of a byte case: (family, P, D, dim0..3, d, layout, L, e).
template <Layout Which>
constexpr auto in_layout = [](const auto&, const auto&, const auto&, const auto&, const auto&, const auto&, const auto&,
                              const auto&, const auto& layout, const auto&...) { return layout_of(layout) == Which; };

}  // namespace

TPCHECK_INVARIANT(StateRunsStayInsideTheSlot, "§16.4", RecurrentState,
    state_byte_cases({choice("layout", kLayouts), length("L"), length("e_conv")}),
    kinds(kind("vLLM DS", in_layout<Layout::VllmDs>), kind("vLLM SD", in_layout<Layout::VllmSd>),
          kind("vLLM SD per segment (older KDA)", in_layout<Layout::VllmSegmentsSd>),
          kind("SGLang's pool", in_layout<Layout::Sglang>), kind("mamba2", is_family<StateFamily::Mamba2>),
          kind("gdn", is_family<StateFamily::Gdn>), kind("kda", is_family<StateFamily::Kda>),
          kind("mamba1", is_family<StateFamily::Mamba1>), kind("P > D", prefill_larger), kind("P < D", decode_larger),
          kind("P == D", same_size), kind("G_s < max(P, D): B and C replicated", case_b)),
    min_non_vacuous(0.9).size_cap(kWalkedSizeCap).sweep_bound(4, 8).proof(Proof::by_z3(
        "each run of a copy of the plan, each layout: its bytes in both sides' state")),
    [](const auto& f, const auto& P, const auto& D, const auto& a, const auto& b, const auto& c, const auto& e,
       const auto& d, const auto& layout, const auto& L, const auto& ec) {
      return runs_stay_inside(dims_of(f, a, b, c, e), P, D, d, layout_of(layout), L, ec);
    });

// Under DS and under SD (either form) a copy moves the same elements: each
// element (channel k of the copy, row t, byte b) lies in the copy's runs of
// each layout, and those runs take it to the same logical coordinates on
// the decode rank, the ones it has on the prefill rank; and the runs of each
// layout move the copy's bytes and no more.
// Past these many copies of a segment, channels of a copy, rows and bytes of an element, the first,
// middle and last are walked (the elements between are laid out alike).
constexpr std::int64_t kCopiesWalked = 4;
constexpr std::int64_t kChannelsWalked = 16;
constexpr std::int64_t kRowsWalked = 4;
constexpr std::int64_t kBytesWalked = 2;

template <ModelInt Int>
Verdict sd_and_ds_move_the_same(const StateDims<Int>& dims, const Int& P, const Int& D, const Int& d, const Int& L,
                                const Int& e) {
  if (!sizing_loads(dims, P, D)) return vacuous(kNotLoadable);
  std::array<SidesBytes<Int>, 3> layouts = {sides_bytes(Layout::VllmDs, dims, P, D, L, e),
                                            sides_bytes(Layout::VllmSd, dims, P, D, L, e),
                                            sides_bytes(Layout::VllmSegmentsSd, dims, P, D, L, e)};
  for (const SidesBytes<Int>& l : layouts) {
    if (!l.prefill) return l.otherwise;
  }
  Verdict otherwise = holds();
  const std::vector<StateCopy<Int>>* copies = listed_plan(d, P, D, dims, otherwise);
  if (!copies) return otherwise;
  thread_local std::vector<ByteRun<Int>> runs;
  const auto check_copy = [&](const StateCopy<Int>& c) -> Verdict {
    for (std::size_t l = 0; l < layouts.size(); ++l) {
      const SideBytes<Int>& sender = *layouts[l].prefill;
      const SideBytes<Int>& receiver = *layouts[l].decode;
      runs.clear();
      U<Int> moved = 0;
      for_each_copy_run(c, sender, receiver, [&](const ByteRun<Int>& r) {
        runs.push_back(r);
        moved += r.length;
        return true;
      });
      const auto where = [&] {
        return plan_call(d, P, D, dims) + ": the copy " + render(c) + " under " +
               std::string(conv_order_name(sender.order)) + " ";
      };
      if (moved != c.n * U<Int>(L) * U<Int>(e)) return violated(where() + "moves " + render(moved) + " bytes");
      const U<Int> j_src = c.src - sender.state.conv[c.segment].loc;
      const std::optional<Int> n = as_int<Int>(c.n);
      if (!n) return vacuous("a copy too wide to walk in the integer type");
      const Verdict v = walk_range(Int(0), *n, [&](const Int& k_int) {
        const U<Int> k = U<Int>(k_int);
        return walk_range(Int(0), L, [&](const Int& t) {
          return walk_range(Int(0), e, [&](const Int& b) {
            const U<Int> at = conv_byte_at(sender, c.segment, U<Int>(j_src + k), t, b);
            const auto run = std::find_if(runs.begin(), runs.end(), [&](const ByteRun<Int>& r) {
              return at >= r.src && at < r.src + r.length;
            });
            if (run == runs.end()) return violated(where() + "has no run with its element " + render(k) + ", row " + render(t));
            const StateByte<Int> read = decode_conv_byte(sender, c.p, at);
            const StateByte<Int> written = decode_conv_byte(receiver, d, U<Int>(run->dst + (at - run->src)));
            if (read == written && read.segment == c.segment) return holds();
            return violated(where() + "takes its element " + render(k) + ", row " + render(t) + ", byte " + render(b) +
                            " (logical channel " + render(read.unit) + ") to logical channel " + render(written.unit) +
                            ", row " + render(written.position) + ", byte " + render(written.byte));
          }, kBytesWalked);
        }, kRowsWalked);
      }, kChannelsWalked);
      if (!v.held()) return v;
    }
    return holds();
  };
  // Each segment's copies: its first, middle and last past kCopiesWalked.
  const std::size_t conv_segments = layouts[0].prefill->state.segment_count;
  std::size_t at = 0;
  for (std::size_t s = 0; s < conv_segments; ++s) {  // the SSM state: one run in every layout
    const std::size_t from = at;
    while (at < copies->size() && (*copies)[at].segment == s) ++at;
    const Verdict v = walk_range(std::int64_t(from), std::int64_t(at), [&](const std::int64_t& i) {
      return check_copy((*copies)[static_cast<std::size_t>(i)]);
    }, kCopiesWalked);
    if (!v.held()) return v;
  }
  return holds();
}

TPCHECK_INVARIANT(SdAndDsLayoutsMoveTheSameElements, "§16.4", RecurrentState,
    state_byte_cases({length("L"), length("e_conv")}),
    kinds(kind("mamba2", is_family<StateFamily::Mamba2>), kind("gdn", is_family<StateFamily::Gdn>),
          kind("kda", is_family<StateFamily::Kda>), kind("mamba1", is_family<StateFamily::Mamba1>),
          kind("P > D", prefill_larger), kind("P < D", decode_larger), kind("P == D", same_size),
          kind("G_s < max(P, D): B and C replicated", case_b),
          kind("several rows", [](const auto&, const auto&, const auto&, const auto&, const auto&, const auto&,
                                  const auto&, const auto&, const auto& L, const auto&) { return L > 1; }),
          kind("several bytes per element", [](const auto&, const auto&, const auto&, const auto&, const auto&,
                                               const auto&, const auto&, const auto&, const auto&, const auto& e) {
            return e > 1;
          })),
    min_non_vacuous(0.9).size_cap(kWalkedSizeCap).sweep_bound(4, 8).proof(Proof::by_z3(
        "each element of a copy of the plan: in its DS runs iff in its SD runs, to the same coordinates")),
    [](const auto& f, const auto& P, const auto& D, const auto& a, const auto& b, const auto& c, const auto& e,
       const auto& d, const auto& L, const auto& ec) {
      return sd_and_ds_move_the_same(dims_of(f, a, b, c, e), P, D, d, L, ec);
    });

}  // namespace tpcheck::inv
