// What decoding and encoding a domain's choices share (domain_choices.cpp,
// domain_encode.cpp): the ranges of the common choices, the magnitude every
// size is made from, and reading and writing one block's choices in order.
//
// A magnitude (a positive value up to a limit) is three choices:
//   class  0 small 1..16             1 a power of two, or a neighbour
//          2 17..4096                3 just above 2^32 (r * R leaves int64)
//          4 near 2^63 or 2^64       5 the limit itself, or just below
//          6 anything below 2^64     7 beyond: m * 2^e (m < 2^56, e < 256)
//   small  0..15, wide  0..2^64 - 1  (their use depends on the class)
#pragma once

#include <algorithm>
#include <vector>

#include <boost/multiprecision/integer.hpp>

#include "tpcheck/domain.hpp"
#include "tpcheck/stages.hpp"

namespace tpcheck::dom::choices {

inline constexpr Choice kWide = 0;  // [0, 2^64)
inline constexpr Choice kSmall = 16;
inline constexpr Choice kFactor = 256;
inline constexpr Choice kMagnitudeClasses = 8;
inline constexpr Choice kExtensionClasses = 8;

inline BigInt pow2(unsigned e) { return BigInt(1) << e; }
inline const BigInt& two_to_64() {
  static const BigInt v = pow2(64);
  return v;
}

inline unsigned bit_length(const BigInt& v) { return v <= 0 ? 0 : static_cast<unsigned>(boost::multiprecision::msb(v)) + 1; }

inline BigInt clamp(const BigInt& v, const BigInt& lo, const BigInt& hi) { return std::max(lo, std::min(v, hi)); }

// A choice reduced into its range (fuzz bytes may give anything).
inline Choice in_range(Choice c, Choice range) { return range == kWide ? c : c % range; }

// Reads the choices of one block in order.
class Reader {
 public:
  explicit Reader(const Choice* c) : c_(c) {}
  Choice next(Choice range) { return in_range(c_[i_++], range); }
  std::size_t read() const { return i_; }  // how many choices next() took

 private:
  const Choice* c_;
  std::size_t i_ = 0;
};

// Writes the choices of one block in order.
class Writer {
 public:
  explicit Writer(std::vector<Choice>& out) : out_(out) {}
  void put(Choice c) { out_.push_back(c); }

 private:
  std::vector<Choice>& out_;
};

// ---- magnitudes: [class, small, wide] ---------------------------------------------

// `classes`, when given, gets the position of the class choice.
inline void magnitude_ranges(std::vector<Choice>& out, std::vector<std::size_t>* classes = nullptr) {
  if (classes) classes->push_back(out.size());
  out.insert(out.end(), {kMagnitudeClasses, kSmall, kWide});
}
static_assert(kMagnitudeBeyondClass == kMagnitudeClasses - 1, "the last class draws m * 2^e");

// The three choices of a magnitude, read before its limit is known (a pair
// bounds its base by the factor drawn after it).
struct MagnitudeChoices {
  Choice cls, small, wide;
};

inline MagnitudeChoices read_magnitude(Reader& in) {
  const Choice cls = in.next(kMagnitudeClasses);
  const Choice small = in.next(kSmall);
  return {cls, small, in.next(kWide)};
}

inline BigInt magnitude(const MagnitudeChoices& c, const BigInt& limit) {
  static const BigInt one = 1;
  const BigInt& top = std::max(one, limit);  // by reference: no copy of a limit near 2^320
  BigInt v;
  switch (c.cls) {
    case 0: v = 1 + c.small; break;
    case 1: v = pow2(static_cast<unsigned>(c.wide % bit_length(top))) + BigInt(c.small % 3) - 1; break;
    case 2: v = 17 + c.wide % 4080; break;
    case 3: v = pow2(32) + c.wide % (std::uint64_t{1} << 34); break;
    case 4: v = pow2(63 + static_cast<unsigned>(c.small & 1)) + BigInt(c.small >> 1) - 4; break;
    case 5: v = top - c.small; break;
    case 6: v = BigInt(1) + BigInt(c.wide) % std::min(top, two_to_64()); break;
    default: v = BigInt(c.wide >> 8) << static_cast<unsigned>(c.wide & 255); break;
  }
  return clamp(v, 1, top);
}

inline BigInt magnitude(Reader& in, const BigInt& limit) { return magnitude(read_magnitude(in), limit); }

inline bool put_magnitude(Writer& out, const BigInt& v, const BigInt& limit) {
  if (v < 1 || v > limit) return false;
  if (v <= 16) {
    out.put(0), out.put(static_cast<Choice>(v - 1)), out.put(0);
  } else if (v <= 4096) {
    out.put(2), out.put(0), out.put(static_cast<Choice>(v - 17));
  } else if (v - 1 < std::min(limit, two_to_64())) {
    out.put(6), out.put(0), out.put(static_cast<Choice>(v - 1));
  } else if (limit - v < 16) {
    out.put(5), out.put(static_cast<Choice>(limit - v)), out.put(0);
  } else {
    const unsigned e = static_cast<unsigned>(boost::multiprecision::lsb(v));
    const BigInt m = v >> e;
    if (e > 255 || m >= pow2(56)) return false;
    out.put(7), out.put(0), out.put((static_cast<Choice>(m) << 8) | e);
  }
  return true;
}

// A non-positive value: its class (mod 3) chooses 0, -(1 + small) or -magnitude.
inline BigInt non_positive(Choice cls, Choice small, const MagnitudeChoices& m, const Limits& limits) {
  if (cls % 3 == 0) return 0;
  if (cls % 3 == 1) return -BigInt(1 + small);
  return -magnitude(m, -limits.lowest);
}

// ---- per block ------------------------------------------------------------------------

inline Choice shape_count(const Block& b) {
  switch (b.kind) {
    case BlockKind::Pair:
      switch (static_cast<Pairs>(b.option)) {
        case Pairs::Divisible: return 3;
        case Pairs::Positive: return 6;
        case Pairs::WithNonPositive: return 9;
      }
      return 1;
    case BlockKind::Rank: return static_cast<Ranks>(b.option) == Ranks::WithInvalid ? 7 : 3;
    case BlockKind::Heads: return static_cast<HeadCounts>(b.option) == HeadCounts::Compatible ? 3 : 7;
    case BlockKind::DpRank: return static_cast<DpRanks>(b.option) == DpRanks::Any ? 6 : 4;
    case BlockKind::Size:
    case BlockKind::DpSize: return static_cast<Sizes>(b.option) == Sizes::WithNonPositive ? 8 : 1;
    case BlockKind::Hosts: return static_cast<Sizes>(b.option) == Sizes::WithNonPositive ? 7 : 5;
    case BlockKind::BasePort: return 6;
    case BlockKind::Flag: return 2;
    case BlockKind::StageSplit: return static_cast<Splits>(b.option) == Splits::WithInvalid ? 6 : 3;
    case BlockKind::Stage:
    case BlockKind::DpGroup: return static_cast<Ranks>(b.option) == Ranks::WithInvalid ? 7 : 3;
    case BlockKind::StateDim: return static_cast<Dims>(b.option) == Dims::Edges ? 8 : 3;
    case BlockKind::Length: return static_cast<Sizes>(b.option) == Sizes::WithNonPositive ? 6 : 3;
    case BlockKind::Choice: return b.choices;
  }
  return 1;
}

// A state dim's choices (domain_choices.cpp): shape, factor, small, then a
// magnitude. The shapes by rule (DimRule), the first ones the valid values:
//   count   0 l * (1 + factor % 8), 1 l * magnitude, 2 l (l: the lcm of the
//           sizes and the count it multiplies); edges: 3 a multiple of every
//           constraint but the one factor chooses, 4 zero, 5 -(1 + small),
//           6 any magnitude, 7 a negative magnitude
//   groups  0 one, 1 H, 2 l * gcd(H / l, 1 + factor); edges: 3 a divisor of H
//           above 1 that the side factor chooses does not divide, 4 H + 1,
//           5 zero, 6 -(1 + small), 7 any magnitude
//   free    0 1 + small, 1 magnitude; edges: 2 zero, 3 -(1 + small)
//   unused  1
struct StateDimChoices {
  Choice shape = 0, factor = 0, small = 0;
  MagnitudeChoices m{};
};
StateDimChoices read_state_dim(const Block& b, Reader& in);
BigInt state_dim_value(const Block& b, const StateDimChoices& c, const BigInt* values, const Limits& limits);

// A window length or an element size: 0 the value it shares (1 + small
// without one), 1 1 + small, 2 a magnitude; with non-positive: 3 zero,
// 4 -(1 + small), 5 a negative magnitude.
struct LengthChoices {
  Choice shape = 0, small = 0;
  MagnitudeChoices m{};
};
LengthChoices read_length(const Block& b, Reader& in);
BigInt length_value(const Block& b, const LengthChoices& c, const BigInt* values, const Limits& limits);

// A size of a side as a head count sees it: 1 (which shards any count) when
// the block exempts the side under a flag that is set.
inline const BigInt& sharding_size(const Block& b, int k, const BigInt* values) {
  static const BigInt one = 1;
  const int exempt = b.exempt[static_cast<std::size_t>(k)];
  if (exempt >= 0 && values[exempt] != 0) return one;
  return values[b.of[static_cast<std::size_t>(k)]];
}

// How many stages a split's code has (a negative code is one stage).
inline BigInt stage_count(const BigInt& code) {
  if (code < 0) return 1;
  return static_cast<std::int64_t>(split_of_code(code).size());
}

// A stage split's choices, and its value from them (domain_choices.cpp):
//   shape  0 one stage, 1 an even split into 1 + small stages, 2 a cut after
//          layer i where bit (i - 1) mod 64 of wide is set; with invalid also
//          3 no stage, 4 an even split with a stage of no layer inserted,
//          5 one stage of no layer (sharing a total: of the total + 1)
//   total  (not sharing a total) class 0: 1 + total_small; 1: 1 + total_wide
//          modulo the largest total the limits hold
struct StageSplitChoices {
  Choice shape = 0, small = 0, wide = 0, total_class = 0, total_small = 0, total_wide = 0;
};
StageSplitChoices read_stage_split(const Block& b, Reader& in);
BigInt stage_split_value(const Block& b, const StageSplitChoices& c, const BigInt* values, const Limits& limits);

// By reference: a limit of cpp_int's range (2^320) is a heap copy, made per decoded block.
inline const BigInt& size_limit(const Limits& limits) { return std::min(limits.highest, limits.size_cap); }

}  // namespace tpcheck::dom::choices
