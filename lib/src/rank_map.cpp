// §1-3: the strict and general rank maps, tp_ratio and windows.
#include "tpcheck/instantiate.hpp"
#include "messages.hpp"
#include "tpcheck/model.hpp"

namespace tpcheck {

template <ModelInt Int>
Outcome<Int> remote_rank(const Int& r, const Int& L, const Int& R) {
  if (L <= 0 || R <= 0) return msg::tp_sizes_must_be_positive();
  if (r < 0 || r >= L) return msg::local_rank_out_of_range(r, L);
  if (L == R) return r;
  if (R > L) {
    if (floor_mod<Int>(R, L) != 0) return msg::remote_not_multiple(R, L);
    // r < L, so r * (R // L) < R: no overflow.
    return Int(r * floor_div<Int>(R, L));
  }
  if (floor_mod<Int>(L, R) != 0) return msg::local_not_multiple(L, R);
  return floor_div<Int>(r, floor_div<Int>(L, R));
}

template <ModelInt Int>
Outcome<Int> general_rank(const Int& r, const Int& L, const Int& R) {
  if (L <= 0 || R <= 0) return msg::tp_sizes_must_be_positive();
  if (r < 0 || r >= L) return msg::local_rank_out_of_range(r, L);
  // r * R overflows int64 for large sizes; the quotient is below R.
  return mul_floor_div<Int>(r, R, L);
}

template <ModelInt Int>
Outcome<Int> tp_ratio(const Int& L, const Int& R) {
  if (L <= 0) return msg::size_not_positive("local tp_size", L);
  if (R <= 0) return msg::size_not_positive("remote tp_size", R);
  if (L >= R) {
    if (floor_mod<Int>(L, R) != 0) return msg::local_not_divisible(L, R);
    return floor_div<Int>(L, R);
  }
  if (floor_mod<Int>(R, L) != 0) return msg::remote_not_divisible(R, L);
  return Int(-floor_div<Int>(R, L));
}

template <ModelInt Int>
Outcome<Span<Int>> window_span(const Int& r, const Int& L, const Int& R) {
  if (L <= 0) return msg::size_not_positive("local tp_size", L);
  if (R <= 0) return msg::size_not_positive("remote tp_size", R);
  if (r < 0 || r >= L) return msg::local_rank_out_of_range(r, L);
  const Outcome<Int> ratio = tp_ratio(L, R);
  if (!ratio.ok()) return ratio.failure();
  const Int& t = ratio.value();
  if (t > 0) {
    const Int q = floor_div<Int>(r, t);
    return Span<Int>{q, Int(q + 1)};
  }
  const Int k = -t;  // r < L and k = R // L, so r * k + k <= R: no overflow
  const Int first = r * k;
  return Span<Int>{first, Int(first + k)};
}

template <ModelInt Int>
Outcome<Window<Int>> window(const Int& r, const Int& L, const Int& R) {
  const Outcome<Span<Int>> span = window_span(r, L, R);
  if (!span.ok()) return span.failure();
  const Int size = span.value().end - span.value().first;
  if (size > kMaxListed) return msg::too_long_to_list("window of local_tp_rank ", r, size, kMaxListed);
  Window<Int> ranks;
  ranks.reserve(static_cast<std::size_t>(size));
  for (Int q = span.value().first; q < span.value().end; ++q) ranks.push_back(q);
  return ranks;
}

#define TPCHECK_RANK_MAP(Int)                                                     \
  template Outcome<Int> remote_rank<Int>(const Int&, const Int&, const Int&);     \
  template Outcome<Int> general_rank<Int>(const Int&, const Int&, const Int&);    \
  template Outcome<Int> tp_ratio<Int>(const Int&, const Int&);                    \
  template Outcome<Span<Int>> window_span<Int>(const Int&, const Int&, const Int&); \
  template Outcome<Window<Int>> window<Int>(const Int&, const Int&, const Int&);
TPCHECK_INSTANTIATE_MODEL(TPCHECK_RANK_MAP)

}  // namespace tpcheck
