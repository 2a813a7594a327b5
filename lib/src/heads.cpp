// §4-5: KV head ownership and MoRIIO's head guard.
#include <algorithm>

#include "tpcheck/instantiate.hpp"
#include "messages.hpp"
#include "ownership.hpp"
#include "tpcheck/model.hpp"

namespace tpcheck {

template <ModelInt Int>
bool head_compatible(const Int& T, const Int& H) {
  // No head shards over a non-positive number of ranks, nor do non-positive heads.
  return T >= 1 && H >= 1 && (floor_mod<Int>(T, H) == 0 || floor_mod<Int>(H, T) == 0);
}

namespace {

// The checks heads() and holders() share: positive sizes, then `index` (a
// rank or a head, named by `role`) inside [0, bound).
template <ModelInt Int>
std::optional<Failure> check_ownership_args(const char* role, const Int& index, const Int& bound, const Int& T,
                                            const Int& H) {
  if (T <= 0) return msg::size_not_positive("tp_size", T);
  if (H <= 0) return msg::size_not_positive("total_num_kv_heads", H);
  if (index < 0 || index >= bound) return msg::rank_out_of_range(role, index, bound);
  if (!head_compatible(T, H)) return msg::heads_not_shardable(H, "tp_size", T);
  return std::nullopt;
}

}  // namespace

template <ModelInt Int>
Outcome<Span<Int>> heads(const Int& r, const Int& T, const Int& H) {
  if (auto bad = check_ownership_args("tp_rank", r, T, T, H)) return *bad;
  return detail::heads_of(r, T, H);
}

template <ModelInt Int>
Outcome<Span<Int>> holders(const Int& h, const Int& T, const Int& H) {
  if (auto bad = check_ownership_args("head", h, H, T, H)) return *bad;
  if (T <= H) {
    const Int q = floor_div<Int>(h, floor_div<Int>(H, T));
    return Span<Int>{q, Int(q + 1)};
  }
  const Int k = floor_div<Int>(T, H);  // h < H, so h * k + k <= T: no overflow
  const Int first = h * k;
  return Span<Int>{first, Int(first + k)};
}

template <ModelInt Int>
Outcome<None> kv_heads_guard(const Int& L, const Int& R, const Int& H, bool mla) {
  if (mla || L == R) return None{};  // upstream checks nothing else here
  if (L <= 0 || R <= 0 || H <= 0) return msg::guard_not_positive();
  if (std::min(L, R) >= H) return None{};
  return msg::guard_needs_replicated_heads(H, L, R);
}

template <ModelInt Int>
Outcome<None> kv_heads_guard_strict(const Int& L, const Int& R, const Int& H, bool mla) {
  if (L <= 0 || R <= 0 || H <= 0) return msg::guard_not_positive();
  return kv_heads_guard(L, R, H, mla);
}

#define TPCHECK_HEADS(Int)                                                                    \
  template bool head_compatible<Int>(const Int&, const Int&);                                 \
  template Outcome<Span<Int>> heads<Int>(const Int&, const Int&, const Int&);                 \
  template Outcome<Span<Int>> holders<Int>(const Int&, const Int&, const Int&);               \
  template Outcome<None> kv_heads_guard<Int>(const Int&, const Int&, const Int&, bool);       \
  template Outcome<None> kv_heads_guard_strict<Int>(const Int&, const Int&, const Int&, bool);
TPCHECK_INSTANTIATE_MODEL(TPCHECK_HEADS)

}  // namespace tpcheck
