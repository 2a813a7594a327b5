// §6-7: the read plan of a decode rank and the fan-in of a prefill rank.
//
// The SPEC defines the plan head by head: each head of d comes from the holder
// nearest to anchor = floor(d * P / D). Heads number up to H (beyond 2^63 in
// cpp_int), so the model computes the same plan by segments instead:
//  - P <= H: every head has one holder, p = h // (H/P); d's heads split at
//    multiples of H/P, one copy per prefill rank they touch.
//  - P > H: head h is held by the k = P/H ranks [h*k, h*k + k); these ranges
//    are disjoint, so every head of d is its own copy, from the anchor clamped
//    into its range.
// properties/ checks this against the head-by-head definition.
#include <algorithm>
#include <optional>

#include "tpcheck/instantiate.hpp"
#include "messages.hpp"
#include "ownership.hpp"
#include "tpcheck/model.hpp"

namespace tpcheck {
namespace {

using detail::heads_of;

// A validated (P, D, H) with MLA folded in as H = 1.
template <ModelInt Int>
struct Sizing {
  Int P, D, H;
};

// Checks in order: positive sizes, `rank` (named `role`) inside [0, bound),
// both sides able to shard H heads.
template <ModelInt Int>
Outcome<Sizing<Int>> validate(const char* role, const Int& rank, bool rank_is_decode, const Int& P, const Int& D,
                              const Int& H, bool mla) {
  if (P <= 0) return msg::size_not_positive("prefill tp_size", P);
  if (D <= 0) return msg::size_not_positive("decode tp_size", D);
  if (!mla && H <= 0) return msg::size_not_positive("total_num_kv_heads", H);
  const Int& bound = rank_is_decode ? D : P;
  if (rank < 0 || rank >= bound) return msg::rank_out_of_range(role, rank, bound);
  const Int heads_total = mla ? Int(1) : H;
  if (!head_compatible(P, heads_total)) return msg::heads_not_shardable(heads_total, "prefill tp_size", P);
  if (!head_compatible(D, heads_total)) return msg::heads_not_shardable(heads_total, "decode tp_size", D);
  return Sizing<Int>{P, D, heads_total};
}

template <ModelInt Int>
Outcome<Sizing<Int>> validate_decode(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  return validate("decode_tp_rank", d, true, P, D, H, mla);
}

template <ModelInt Int>
Int copy_count(const Int& d, const Sizing<Int>& s) {
  const Span<Int> own = heads_of(d, s.D, s.H);
  if (s.P <= s.H) {
    const Int per_rank = floor_div<Int>(s.H, s.P);
    return Int(floor_div<Int>(Int(own.end - 1), per_rank) - floor_div<Int>(own.first, per_rank) + 1);
  }
  return Int(own.end - own.first);
}

}  // namespace

template <ModelInt Int>
Outcome<Int> plan_copy_count(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  const Outcome<Sizing<Int>> s = validate_decode(d, P, D, H, mla);
  if (!s.ok()) return s.failure();
  return copy_count(d, s.value());
}

namespace {

// Copies [first, end) of decode rank d's plan under a validated sizing,
// appended to `copies`, computed one by one from copy `first` on; no `end`:
// to the plan's last copy. The one body of plan(), plan_into() and
// plan_range_into().
template <ModelInt Int>
void append_copies(Plan<Int>& copies, const Int& d, const Sizing<Int>& s, const Int& first,
                   const std::optional<Int>& end) {
  const Span<Int> own = heads_of(d, s.D, s.H);
  Int j = first;
  const auto wanted = [&] { return !end || j < *end; };
  if (s.P <= s.H) {
    const Int per_rank = floor_div<Int>(s.H, s.P);
    for (Int p = Int(floor_div<Int>(own.first, per_rank) + first); p * per_rank < own.end && wanted(); ++p, ++j) {
      copies.push_back({p, std::max(own.first, Int(p * per_rank)), std::min(own.end, Int((p + 1) * per_rank))});
    }
    return;
  }
  const Int k = floor_div<Int>(s.P, s.H);
  const Int anchor = mul_floor_div<Int>(d, s.P, s.D);
  for (Int h = Int(own.first + first); h < own.end && wanted(); ++h, ++j) {
    const Int lo = h * k;
    copies.push_back({std::clamp(anchor, lo, Int(lo + k - 1)), h, Int(h + 1)});
  }
}

// Copies [first, first + count) of the plan (all from `first` without a
// count) into `copies`, or the failure plan() gives; a range of more than
// kMaxListed copies fails as the whole plan would.
template <ModelInt Int>
std::optional<Failure> list_copies(Plan<Int>& copies, const Int& d, const Int& P, const Int& D, const Int& H,
                                   bool mla, const Int& first, const std::optional<Int>& count) {
  copies.clear();
  const Outcome<Sizing<Int>> checked = validate_decode(d, P, D, H, mla);
  if (!checked.ok()) return checked.failure();
  const Sizing<Int>& s = checked.value();
  const Int total = copy_count(d, s);
  const Int begin = std::min(first, total);
  // first + count may pass Int's range: compare with what is left instead.
  const std::optional<Int> end = count && *count < Int(total - begin) ? std::optional<Int>(Int(begin + *count))
                                                                        : std::nullopt;
  const Int listed = end ? Int(*end - begin) : Int(total - begin);
  if (listed > kMaxListed) return msg::too_long_to_list("plan of decode_tp_rank ", d, total, kMaxListed);
  copies.reserve(static_cast<std::size_t>(listed));
  append_copies(copies, d, s, begin, end);
  return std::nullopt;
}

}  // namespace

template <ModelInt Int>
std::optional<Failure> plan_into(Plan<Int>& copies, const Int& d, const Int& P, const Int& D, const Int& H,
                                 bool mla) {
  return list_copies<Int>(copies, d, P, D, H, mla, Int(0), std::nullopt);
}

template <ModelInt Int>
std::optional<Failure> plan_range_into(Plan<Int>& copies, const Int& d, const Int& P, const Int& D, const Int& H,
                                       bool mla, const Int& first, const Int& count) {
  return list_copies<Int>(copies, d, P, D, H, mla, first, std::optional<Int>(count));
}

template <ModelInt Int>
Outcome<Plan<Int>> plan(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  Plan<Int> copies;
  if (std::optional<Failure> failed = plan_into(copies, d, P, D, H, mla)) return *std::move(failed);
  return copies;
}

template <ModelInt Int>
Outcome<Plan<Int>> single_source_plan(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  const Outcome<Sizing<Int>> checked = validate_decode(d, P, D, H, mla);
  if (!checked.ok()) return checked.failure();
  const Outcome<Int> source = remote_rank(d, D, P);  // decode is the local side
  if (!source.ok()) return source.failure();
  // MoRIIO copies the source's whole page, whatever heads it holds.
  const Span<Int> page = heads_of(source.value(), P, checked.value().H);
  return Plan<Int>{{source.value(), page.first, page.end}};
}

template <ModelInt Int>
Outcome<Int> readers(const Int& p, const Int& P, const Int& D, const Int& H, bool mla) {
  const Outcome<Sizing<Int>> checked = validate("prefill_tp_rank", p, false, P, D, H, mla);
  if (!checked.ok()) return checked.failure();
  const Sizing<Int>& s = checked.value();
  if (s.P <= s.H) {
    // p is the only holder of its heads: every decode rank holding one reads it.
    const Span<Int> own = heads_of(p, s.P, s.H);
    if (s.D <= s.H) {
      const Int per_decode = floor_div<Int>(s.H, s.D);
      return Int(floor_div<Int>(Int(own.end - 1), per_decode) - floor_div<Int>(own.first, per_decode) + 1);
    }
    return Int((own.end - own.first) * floor_div<Int>(s.D, s.H));
  }
  const Int k = floor_div<Int>(s.P, s.H);
  if (s.D <= s.H) {
    // The one decode holder of p's head anchors at the first replica.
    return Int(floor_mod<Int>(p, k) == 0 ? 1 : 0);
  }
  // Decode replicas of p's head anchor inside its holder range: d reads from
  // floor(d * P / D), so p's readers are that map's preimage of p.
  return Int(mul_ceil_div<Int>(Int(p + 1), s.D, s.P) - mul_ceil_div<Int>(p, s.D, s.P));
}

template <ModelInt Int>
Outcome<Int> single_readers(const Int& p, const Int& P, const Int& D) {
  if (P <= 0 || D <= 0) return msg::tp_sizes_must_be_positive();
  if (p < 0 || p >= P) return msg::rank_out_of_range("producer_tp_rank", p, P);
  if (D >= P) {
    if (floor_mod<Int>(D, P) != 0) return msg::consumer_not_multiple(D, P);
    return floor_div<Int>(D, P);
  }
  if (floor_mod<Int>(P, D) != 0) return msg::producer_not_multiple(P, D);
  return Int(floor_mod<Int>(p, floor_div<Int>(P, D)) == 0 ? 1 : 0);
}

#define TPCHECK_PLAN(Int)                                                                                         \
  template Outcome<Int> plan_copy_count<Int>(const Int&, const Int&, const Int&, const Int&, bool);               \
  template Outcome<Plan<Int>> plan<Int>(const Int&, const Int&, const Int&, const Int&, bool);                    \
  template std::optional<Failure> plan_into<Int>(Plan<Int>&, const Int&, const Int&, const Int&, const Int&, bool); \
  template std::optional<Failure> plan_range_into<Int>(Plan<Int>&, const Int&, const Int&, const Int&, const Int&, \
                                                       bool, const Int&, const Int&);                            \
  template Outcome<Plan<Int>> single_source_plan<Int>(const Int&, const Int&, const Int&, const Int&, bool);      \
  template Outcome<Int> readers<Int>(const Int&, const Int&, const Int&, const Int&, bool);                       \
  template Outcome<Int> single_readers<Int>(const Int&, const Int&, const Int&);
TPCHECK_INSTANTIATE_MODEL(TPCHECK_PLAN)

}  // namespace tpcheck
