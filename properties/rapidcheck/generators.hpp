// RapidCheck generators that reach the interesting corners of SPEC §9 on
// purpose rather than by luck.
//
// Every draw_* function draws with `*gen::...`, so it only runs inside a
// property: RapidCheck records each choice and shrinks each one on its own.
// Values are built in cpp_int from small, separately shrinkable parts (a shape
// index, small factors, a magnitude class, an offset) and converted to the
// model's Int at the end. Every class index shrinks towards 0, and class 0 is
// always the small, plain case, so a counterexample found on huge sizes
// shrinks to small ones whenever the failure also shows there: a failure on
// (L, R) = (4, 6) is drawn as u * (2, 3) and shrinks u to 2.
//
// The int64 domain stops at INT64_MAX (values near it are one class); the
// cpp_int domain stops at 2^320, far beyond 64 bits but cheap to compute with.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "tpcheck/pyint.hpp"

namespace tpcheck::rcgen {

inline constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
inline constexpr unsigned kBigDomainBits = 320;

// The largest magnitude a generated value of this Int takes.
// A value in [min, max), uniform whatever RapidCheck's current size (plain
// gen::inRange narrows its range for small sizes, which would starve the rare
// classes below), shrinking towards min.
template <class T>
T pick(T min, T max) {
  return *rc::gen::resize(100, rc::gen::inRange<T>(min, max));
}
inline int pick(int min, int max) { return pick<int>(min, max); }

// The same, shown under `name` in a counterexample.
template <class T>
T pick_named(const std::string& name, T min, T max) {
  return *rc::gen::resize(100, rc::gen::inRange<T>(min, max)).as(name);
}

template <ModelInt Int>
BigInt domain_max() {
  if constexpr (std::is_same_v<Int, std::int64_t>) {
    return BigInt(kInt64Max);
  } else {
    return (BigInt(1) << kBigDomainBits) - 1;
  }
}

// The most negative value drawn (INT64_MIN for int64).
template <ModelInt Int>
BigInt domain_min() {
  return -domain_max<Int>() - 1;
}

template <ModelInt Int>
Int to_model(const BigInt& v) {
  if constexpr (std::is_same_v<Int, std::int64_t>) {
    return *narrow(v);  // every draw stays inside [domain_min, domain_max]
  } else {
    return v;
  }
}

inline BigInt clamp_big(const BigInt& v, const BigInt& lo, const BigInt& hi) { return std::max(lo, std::min(v, hi)); }

inline unsigned bit_length(const BigInt& v) { return v <= 0 ? 0 : static_cast<unsigned>(boost::multiprecision::msb(v)) + 1; }

// A class index in [0, 100): it shrinks towards 0, the plain case.
inline int draw_class(const char* what) { return pick_named(std::string(what) + " class", 0, 100); }

// Uniform in [0, 2^bits), built from 32-bit chunks that shrink to 0.
inline BigInt draw_bits(unsigned bits) {
  BigInt v = 0;
  for (unsigned done = 0; done < bits; done += 32) {
    const unsigned width = std::min(32u, bits - done);
    const std::uint64_t top = std::uint64_t{1} << width;
    v = (v << width) + BigInt(pick<std::uint64_t>(0, top));
  }
  return v;
}

// Roughly uniform in [0, limit) (0 when limit <= 0): a bit length, then bits.
inline BigInt draw_below(const BigInt& limit) {
  if (limit <= 1) return 0;
  const unsigned bits = pick(0u, bit_length(limit) + 1);
  return std::min(draw_bits(bits), BigInt(limit - 1));
}

// A positive value in [1, limit] (limit >= 1) from one of the classes that
// matter: small, powers of two and their neighbours, just above 2^32 (where
// r * R leaves int64), the int64 edge, near the limit, anything.
inline BigInt draw_magnitude(const BigInt& limit) {
  const BigInt top = std::max(BigInt(1), limit);
  const int c = draw_class("magnitude");
  BigInt v;
  if (c < 40) {
    v = pick<std::int64_t>(1, 17);
  } else if (c < 55) {
    v = BigInt(1) << pick(0u, bit_length(top));
  } else if (c < 65) {
    const unsigned k = pick(2u, std::max(3u, bit_length(top)));
    v = (BigInt(1) << k) + (pick(0, 2) == 0 ? -1 : 1);
  } else if (c < 77) {
    v = (BigInt(1) << 32) + draw_bits(pick(0u, 34u));
  } else if (c < 85) {
    // The int64 edge: 2^63 - 1 and around it, and 2^64 in cpp_int.
    const BigInt edge = (BigInt(1) << (pick(0, 3) == 2 ? 64 : 63)) - 1;
    v = edge + pick<std::int64_t>(-8, 9);
  } else if (c < 93) {
    v = top - pick<std::int64_t>(0, 16);
  } else {
    v = 1 + draw_below(top);
  }
  return clamp_big(v, 1, top);
}

// A factor >= 2 (<= limit when limit >= 2): small mostly, sometimes huge.
inline BigInt draw_factor(const BigInt& limit) {
  if (limit < 2) return 2;
  const int c = draw_class("factor");
  if (c < 70) return std::min(BigInt(pick<std::int64_t>(2, 9)), limit);
  return std::max(BigInt(2), draw_magnitude(limit));
}

// A non-positive value: 0, a small negative, or a huge negative.
template <ModelInt Int>
BigInt draw_non_positive() {
  const int c = draw_class("non-positive");
  if (c < 45) return 0;
  if (c < 85) return -BigInt(pick<std::int64_t>(1, 9));
  return std::max(domain_min<Int>(), BigInt(-draw_magnitude(domain_max<Int>() + 1)));
}

// A rank for a side of `size` ranks: 0 and size-1 often, anything inside,
// and sometimes out of range (negative, size itself, beyond it).
template <ModelInt Int>
BigInt draw_rank(const BigInt& size, int out_of_range_percent = 15) {
  const int c = draw_class("rank");
  BigInt r;
  if (c >= 100 - out_of_range_percent) {
    const int o = pick(0, 4);
    if (o == 0) r = -1;
    if (o == 1) r = size + pick<std::int64_t>(0, 3);
    if (o == 2) r = -BigInt(draw_magnitude(domain_max<Int>()));
    if (o == 3) r = size + draw_magnitude(domain_max<Int>());
  } else if (c < 30) {
    r = 0;
  } else if (c < 55) {
    r = size - 1;
  } else {
    r = draw_below(size);
  }
  return clamp_big(r, domain_min<Int>(), domain_max<Int>());
}

// A pair of TP sizes (L, R) and how it was built.
struct SizePair {
  BigInt L;
  BigInt R;
  const char* shape;
};

// Divisible and non-divisible pairs in both directions, equal sizes, sizes
// of 1, unrelated sizes and non-positive ones, each at any magnitude.
template <ModelInt Int>
SizePair draw_size_pair() {
  const BigInt max = domain_max<Int>();
  switch (pick(0, 8)) {
    case 0: {
      const BigInt u = draw_magnitude(max);
      return {u, u, "equal"};
    }
    case 1:
    case 2: {
      const bool remote_larger = pick(0, 2) == 0;
      const BigInt k = draw_factor(max);
      const BigInt u = draw_magnitude(max / k);
      return remote_larger ? SizePair{u, u * k, "divisible, remote larger"}
                           : SizePair{u * k, u, "divisible, local larger"};
    }
    case 3:
    case 4: {
      // (u*a, u*b) with b = a*q + c, 0 < c < a: b is no multiple of a.
      const bool remote_larger = pick(0, 2) == 0;
      const std::int64_t a = pick<std::int64_t>(2, 9);
      const std::int64_t q = pick<std::int64_t>(1, 5);
      const std::int64_t c = pick<std::int64_t>(1, a);
      const std::int64_t b = a * q + c;
      const BigInt u = draw_magnitude(max / b);
      return remote_larger ? SizePair{u * a, u * b, "not divisible, remote larger"}
                           : SizePair{u * b, u * a, "not divisible, local larger"};
    }
    case 5: {
      const BigInt x = draw_magnitude(max);
      return pick(0, 2) == 0 ? SizePair{1, x, "local size 1"} : SizePair{x, 1, "remote size 1"};
    }
    case 6:
      return {draw_magnitude(max), draw_magnitude(max), "unrelated"};
    default: {
      const int which = pick(0, 3);
      const BigInt bad = draw_non_positive<Int>();
      const BigInt other = pick(0, 2) == 0 ? draw_magnitude(max) : draw_non_positive<Int>();
      if (which == 0) return {bad, other, "local size not positive"};
      if (which == 1) return {other, bad, "remote size not positive"};
      return {bad, bad, "both sizes not positive"};
    }
  }
}

// A local rank and a pair of sizes.
template <ModelInt Int>
struct RankCase {
  Int r;
  Int L;
  Int R;
  const char* shape;
};

template <ModelInt Int>
RankCase<Int> draw_rank_case() {
  const SizePair pair = draw_size_pair<Int>();
  const BigInt r = draw_rank<Int>(pair.L);
  return {to_model<Int>(r), to_model<Int>(pair.L), to_model<Int>(pair.R), pair.shape};
}

// A deployment (P, D, H, mla).
template <ModelInt Int>
struct HeadCase {
  Int P;
  Int D;
  Int H;
  bool mla;
  const char* shape;
};

// One side's TP size for H = u * c heads: equal to H, a multiple of H (heads
// replicated), or H / b for a divisor b of c (heads split).
inline BigInt draw_head_compatible_size(const BigInt& H, std::int64_t c) {
  switch (pick(0, 3)) {
    case 0: return H;
    case 1: return H * pick<std::int64_t>(2, 5);
    default: {
      std::int64_t b = pick<std::int64_t>(1, c + 1);
      while (c % b != 0) --b;  // the largest divisor of c not above the draw
      return H / b;
    }
  }
}

// Head-compatible deployments (75%: the plan and counts only speak about
// those; a fifth of all draws on purpose not divisible), deployments of
// unrelated sizes (mostly not head-compatible), and non-positive sizes; MLA a
// quarter of the time. Ratios between P, D and H stay below 50, so a plan has few copies
// and a window few ranks, whatever the magnitude. `cap` > 0 bounds every size
// (for the per-configuration predicates, which loop over every rank).
template <ModelInt Int>
HeadCase<Int> draw_head_case(std::int64_t cap = 0) {
  const bool mla = pick(0, 4) == 3;
  const BigInt max = cap > 0 ? BigInt(cap) : domain_max<Int>();
  const int shape = draw_class("deployment");
  if (shape < 55) {
    static constexpr std::int64_t kHeadFactors[] = {1, 2, 3, 4, 6, 8, 12};
    const std::int64_t c = kHeadFactors[pick(0, 7)];
    const BigInt u = draw_magnitude(max / (c * 4));
    const BigInt H = u * c;
    const BigInt P = draw_head_compatible_size(H, c);
    const BigInt D = draw_head_compatible_size(H, c);
    return {to_model<Int>(P), to_model<Int>(D), to_model<Int>(H), mla, "head-compatible"};
  }
  if (shape < 75) {
    // Sizes that are not multiples of each other but both shard H = 12u heads
    // (SPEC §6: P = 4, D = 6, H = 12 has two sources for some d).
    static constexpr std::int64_t kNonDivisible[][2] = {{2, 3}, {3, 4}, {4, 6}, {24, 36}, {36, 48}};
    const auto& sizes = kNonDivisible[pick(0, 5)];
    const bool prefill_smaller = pick(0, 2) == 0;
    const BigInt u = draw_magnitude(max / 48);
    const BigInt small = u * sizes[0];
    const BigInt large = u * sizes[1];
    return {to_model<Int>(prefill_smaller ? small : large), to_model<Int>(prefill_smaller ? large : small),
            to_model<Int>(BigInt(u * 12)), mla, "head-compatible, not divisible"};
  }
  const BigInt small_max = std::min(max, BigInt(64));
  if (shape < 90) {
    const BigInt P = draw_magnitude(small_max);
    const BigInt D = draw_magnitude(small_max);
    const BigInt H = draw_magnitude(small_max);
    return {to_model<Int>(P), to_model<Int>(D), to_model<Int>(H), mla, "unrelated sizes"};
  }
  BigInt sizes[3] = {draw_magnitude(small_max), draw_magnitude(small_max), draw_magnitude(small_max)};
  sizes[pick(0, 3)] = draw_non_positive<Int>();
  return {to_model<Int>(sizes[0]), to_model<Int>(sizes[1]), to_model<Int>(sizes[2]), mla, "a size not positive"};
}

// A port deployment (dp rank, tp rank, tp size) for port_offset.
template <ModelInt Int>
struct PortCase {
  Int dp;
  Int t;
  Int T;
};

template <ModelInt Int>
PortCase<Int> draw_port_case() {
  const BigInt max = domain_max<Int>();
  const BigInt T = draw_class("tp_size") < 85 ? draw_magnitude(max) : draw_non_positive<Int>();
  const BigInt t = draw_rank<Int>(T);
  const int c = draw_class("dp_rank");
  const BigInt dp = c < 45 ? BigInt(pick<std::int64_t>(0, 9)) : c < 85 ? draw_magnitude(max)
                                                                                 : draw_non_positive<Int>();
  return {to_model<Int>(dp), to_model<Int>(t), to_model<Int>(T)};
}

// A number of hosts for a T-rank engine: a divisor of T, a count that does not
// divide it, more hosts than ranks, or none.
template <ModelInt Int>
BigInt draw_host_count(const BigInt& T) {
  const int c = draw_class("hosts");
  if (c < 10 || T < 1) return 1;
  if (c < 60) {
    BigInt n = pick<std::int64_t>(1, 9);
    while (n > 1 && (T % n != 0)) --n;
    return n;
  }
  if (c < 80) return pick<std::int64_t>(2, 9);
  if (c < 93) return std::min(domain_max<Int>(), BigInt(T + pick<std::int64_t>(0, 4)));
  return draw_non_positive<Int>();
}

}  // namespace tpcheck::rcgen
