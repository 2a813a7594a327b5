// Each block's values from independent small choices: the random engines'
// view of a domain. Every class, shape or position 0 is the plain case, so
// RapidCheck shrinks towards small sizes, first ranks and no error. The
// magnitude every size is made from is in choices.hpp; each block's layout is
// in choice_ranges().
#include <algorithm>
#include <stdexcept>

#include <boost/multiprecision/integer.hpp>

#include "choices.hpp"
#include "tpcheck/sharding.hpp"

namespace tpcheck::dom {

using namespace choices;

namespace {

// A block's choice ranges; `classes`, when given, gets the position of each
// magnitude's class choice among them.
std::vector<Choice> block_ranges(const Block& b, std::vector<std::size_t>* classes) {
  std::vector<Choice> out;
  const Choice shapes = shape_count(b);
  switch (b.kind) {
    case BlockKind::Size:
    case BlockKind::DpSize:
      if (shapes > 1) out.push_back(shapes);
      magnitude_ranges(out, classes);
      break;
    case BlockKind::Pair:
      out.push_back(shapes);
      magnitude_ranges(out, classes);
      out.insert(out.end(), {kFactor, kFactor, kFactor});
      magnitude_ranges(out, classes);
      out.insert(out.end(), {kExtensionClasses, kWide});
      break;
    case BlockKind::Rank:
    case BlockKind::BasePort:
      out.insert(out.end(), {shapes, kSmall, kWide});
      break;
    case BlockKind::Heads:
    case BlockKind::Hosts:
      out.insert(out.end(), {shapes, kFactor});
      magnitude_ranges(out, classes);
      break;
    case BlockKind::DpRank:
      out.insert(out.end(), {shapes, kSmall});
      magnitude_ranges(out, classes);
      break;
    case BlockKind::Flag:
      out.push_back(2);
      break;
    case BlockKind::StageSplit:
      out.insert(out.end(), {shapes, kSmall, kWide, 2, kSmall, kWide});
      break;
    case BlockKind::Stage:
    case BlockKind::DpGroup:
      out.insert(out.end(), {shapes, kSmall, kWide});
      break;
    case BlockKind::StateDim:
      out.insert(out.end(), {shapes, kFactor, kSmall});
      magnitude_ranges(out, classes);
      break;
    case BlockKind::Length:
      out.insert(out.end(), {shapes, kSmall});
      magnitude_ranges(out, classes);
      break;
    case BlockKind::Choice:
      out.push_back(shapes);
      break;
  }
  return out;
}

}  // namespace

std::vector<Choice> choice_ranges(const Block& b) { return block_ranges(b, nullptr); }

std::vector<std::size_t> magnitude_class_positions(const Domain& d) {
  std::vector<std::size_t> out;
  std::size_t offset = 0;
  for (const Block& b : d.blocks()) {
    std::vector<std::size_t> classes;
    const std::size_t n = block_ranges(b, &classes).size();
    for (const std::size_t at : classes) out.push_back(offset + at);
    offset += n;
  }
  return out;
}

std::vector<Choice> choice_ranges(const Domain& d) {
  std::vector<Choice> out;
  for (const Block& b : d.blocks()) {
    const std::vector<Choice> more = choice_ranges(b);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

namespace {

// A positive or non-positive size: [sign?] + magnitude. Signs 0-4 give a
// positive size, 5 zero, 6 a small negative, 7 a negative magnitude.
BigInt decode_size(const Block& b, Reader& in, const Limits& limits) {
  const Choice sign = shape_count(b) > 1 ? in.next(shape_count(b)) : 0;
  const MagnitudeChoices m = read_magnitude(in);
  if (sign < 5) return magnitude(m, size_limit(limits));
  if (sign == 5) return 0;
  if (sign == 6) return -BigInt(1 + m.small);
  return -magnitude(m, -limits.lowest);
}

// A pair's factor: a choice below 256, plus 256 times a wide extension
// chosen for two of eight extension classes: small mostly, any size sometimes.
BigInt extended(Choice factor, Choice extension_class, Choice extension) {
  return BigInt(factor) + (extension_class < 6 ? BigInt(0) : BigInt(256) * extension);
}

struct NonDivisible {
  BigInt small_factor;  // a
  BigInt large_factor;  // b = a * q + c, 0 < c < a
};

NonDivisible non_divisible_factors(Choice f, Choice h, const BigInt& extended_g, const BigInt& limit) {
  const BigInt a = 2 + f;
  const BigInt b = a * (1 + extended_g) + 1 + h % (2 + f - 1);
  if (b <= limit) return {a, b};
  return {2, 3};  // the smallest non-divisible pair
}

void decode_pair(const Block& b, Reader& in, BigInt* out, const Limits& limits) {
  const BigInt& top = size_limit(limits);
  Choice shape = in.next(shape_count(b));
  const MagnitudeChoices u = read_magnitude(in);
  const Choice f = in.next(kFactor), g = in.next(kFactor), h = in.next(kFactor);
  const MagnitudeChoices v = read_magnitude(in);
  const Choice extension_class = in.next(kExtensionClasses), extension = in.next(kWide);
  if ((shape == 1 || shape == 2) && top < 2) shape = 0;
  if ((shape == 3 || shape == 4) && top < 3) shape = 0;
  BigInt& first = out[0];
  BigInt& second = out[1];
  switch (shape) {
    case 0:
      first = second = magnitude(u, top);
      break;
    case 1:
    case 2: {
      const BigInt k = std::min(BigInt(2 + extended(f, extension_class, extension)), top);
      const BigInt base = magnitude(u, top / k);
      first = shape == 1 ? BigInt(base * k) : base;
      second = shape == 1 ? base : BigInt(base * k);
      break;
    }
    case 3:
    case 4: {
      const NonDivisible n = non_divisible_factors(f, h, extended(g, extension_class, extension), top);
      const BigInt base = magnitude(u, top / n.large_factor);
      first = base * (shape == 3 ? n.large_factor : n.small_factor);
      second = base * (shape == 3 ? n.small_factor : n.large_factor);
      break;
    }
    case 5:
      first = magnitude(u, top);
      second = magnitude(v, top);
      break;
    case 6:
      first = non_positive(f, g, v, limits);
      second = magnitude(u, top);
      break;
    case 7:
      first = magnitude(u, top);
      second = non_positive(f, g, v, limits);
      break;
    default:
      first = non_positive(f, g, v, limits);
      second = non_positive(f / 3, h, u, limits);
      break;
  }
}

// Ranks in [0, n): the first ones, the last ones, or a fraction of n.
BigInt rank_inside(Choice position, Choice small, Choice wide, const BigInt& n) {
  if (n <= 0) return 0;
  switch (position) {
    case 0: return std::min(BigInt(small), BigInt(n - 1));
    case 1: return n - 1 - std::min(BigInt(small), BigInt(n - 1));
    default: return (BigInt(wide) * n) >> 64;
  }
}

// A rank below S (a size, a stage count, a group count): its three choices.
BigInt decode_rank_below(const Block& b, Reader& in, const BigInt& S, const Limits& limits) {
  const Choice position = in.next(shape_count(b));
  const Choice small = in.next(kSmall);
  const Choice wide = in.next(kWide);
  const auto option = static_cast<Ranks>(b.option);
  if (position < 3) return rank_inside(position, small, wide, option == Ranks::NotLast ? BigInt(S - 1) : S);
  BigInt r;
  switch (position) {
    case 3: r = -BigInt(1 + small); break;
    case 4: r = std::max(S, BigInt(0)) + small; break;
    case 5: r = -(BigInt(1) + wide); break;
    default: r = std::max(S, BigInt(0)) + 1 + wide; break;
  }
  return clamp(r, limits.lowest, limits.highest);
}

BigInt decode_rank(const Block& b, Reader& in, const BigInt* values, const Limits& limits) {
  BigInt S = values[b.of[0]];
  if (b.of[1] >= 0) S = std::max(S, values[b.of[1]]);
  return decode_rank_below(b, in, S, limits);
}

// Head counts both sizes shard: a divisor of their gcd (both replicate), a
// multiple of their lcm (both split), or one in between when one size divides
// the other; otherwise (Any) one the larger size does not shard (between it
// and its double), 0, a negative count, or any magnitude.
BigInt decode_heads(const Block& b, Reader& in, const BigInt* values, const Limits& limits) {
  const Choice shape = in.next(shape_count(b));
  const Choice f = in.next(kFactor);
  const BigInt& top = size_limit(limits);
  const BigInt any = magnitude(in, top);
  const BigInt& s1 = sharding_size(b, 0, values);
  const BigInt& s2 = b.of[1] >= 0 ? sharding_size(b, 1, values) : s1;
  const BigInt large = std::max(s1, s2);
  if (shape == 3 && large >= 2) return clamp(BigInt(large + 1 + f % (large - 1)), 1, top);
  if (shape == 4) return 0;
  if (shape == 5) return -BigInt(1 + f % 16);
  if (shape >= 3 || s1 < 1 || s2 < 1) return any;
  using boost::multiprecision::gcd;
  const BigInt g = gcd(s1, s2);
  const BigInt l = s1 / g * s2;
  const BigInt k = 1 + f;
  if (shape == 1 && l * k <= top) return l * k;
  if (shape == 1 && l <= top) return l;
  const BigInt small = std::min(s1, s2);
  if (shape == 2 && large % small == 0) return small * gcd(BigInt(large / small), k);
  return g / gcd(g, k);
}

// DP ranks: classes 0-1 a small one, 2-3 any magnitude, 4 a small negative,
// 5 a negative magnitude.
BigInt decode_dp_rank(const Block& b, Reader& in, const Limits& limits) {
  const Choice cls = in.next(shape_count(b));
  const Choice small = in.next(kSmall);
  const BigInt m = magnitude(in, cls < 4 ? limits.highest : BigInt(-limits.lowest));
  if (cls < 2) return small;
  if (cls < 4) return m - 1;
  if (cls == 4) return -BigInt(1 + small);
  return -m;
}

BigInt decode_hosts(Reader& in, const BigInt* values, const Block& b, const Limits& limits) {
  const Choice cls = in.next(shape_count(b));
  const Choice f = in.next(kFactor);
  const BigInt m = magnitude(in, size_limit(limits));
  const BigInt& T = values[b.of[0]];
  switch (cls) {
    case 0: return 1;
    case 1: return T >= 1 ? boost::multiprecision::gcd(T, BigInt(1 + f)) : BigInt(1);
    case 2: return 2 + f;
    case 3: return T >= 1 ? clamp(BigInt(T + 1 + f % 16), 1, limits.highest) : BigInt(2 + f);
    case 5: return 0;  // 5 and 6 only WithNonPositive
    case 6: return -BigInt(1 + f);
    default: return m;
  }
}

// Base ports around the one whose deployment ends exactly at port 65535.
BigInt decode_base_port(Reader& in, const BigInt* values, const Block& b, const Limits& limits) {
  const Choice cls = in.next(shape_count(b));
  const Choice small = in.next(kSmall);
  const Choice wide = in.next(kWide);
  const BigInt edge = 65536 - values[b.of[0]] * values[b.of[1]];
  BigInt v;
  switch (cls) {
    case 0: v = edge; break;
    case 1: v = edge + 1 + small; break;
    case 2: v = edge - 1 - small; break;
    case 3: v = 1 + wide % 65535; break;
    case 4: v = -BigInt(small); break;
    default: v = 65536 + BigInt(wide); break;
  }
  return clamp(v, limits.lowest, limits.highest);
}

}  // namespace

StageSplitChoices choices::read_stage_split(const Block& b, Reader& in) {
  StageSplitChoices c;
  c.shape = in.next(shape_count(b));
  c.small = in.next(kSmall);
  c.wide = in.next(kWide);
  c.total_class = in.next(2);
  c.total_small = in.next(kSmall);
  c.total_wide = in.next(kWide);
  return c;
}

BigInt choices::stage_split_value(const Block& b, const StageSplitChoices& c, const BigInt* values, const Limits& limits) {
  // The largest layer total whose one-stage code (2^total) fits the limits.
  const BigInt most = std::max(BigInt(1), BigInt(bit_length(limits.highest) - 1));
  BigInt total;
  if (b.of[0] < 0) {
    total = c.total_class == 0 ? BigInt(1 + c.total_small) : BigInt(1 + BigInt(c.total_wide) % most);
    total = std::min(total, most);
  } else {
    BigInt other = 0;
    for (const BigInt& count : split_of_code(values[b.of[0]])) other += count;
    total = clamp(other, 1, most);
  }
  const auto even = [&](const BigInt& stages) {
    std::vector<BigInt> counts;
    for (BigInt s = 0; s < stages; ++s) counts.push_back(total / stages + (s < total % stages ? 1 : 0));
    return counts;
  };
  std::vector<BigInt> counts;
  switch (c.shape) {
    case 0: counts = {total}; break;
    case 1: counts = even(std::min(total, BigInt(1 + c.small))); break;
    case 2: {
      // A cut after layer i (1 <= i < total) where bit (i - 1) mod 64 of `wide` is set.
      counts = {BigInt(1)};
      for (BigInt i = 1; i < total; ++i) {
        if ((c.wide >> static_cast<unsigned>((i - 1) % 64)) & 1) {
          counts.push_back(1);
        } else {
          ++counts.back();
        }
      }
      break;
    }
    case 3: break;  // no stage at all
    case 4:        // a stage without layers among an even split
      counts = even(std::min(total, BigInt(1 + c.small / 2)));
      counts.insert(counts.begin() + static_cast<std::ptrdiff_t>(c.small % (counts.size() + 1)), BigInt(0));
      break;
    default:  // one stage of no layer, or (sharing a total) of another total
      counts = {b.of[0] < 0 ? BigInt(0) : BigInt(total + 1)};
      break;
  }
  BigInt code = code_of_split(counts);
  if (code > limits.highest) code = code_of_split(std::vector<BigInt>{total});
  return code;
}

StateDimChoices choices::read_state_dim(const Block& b, Reader& in) {
  StateDimChoices c;
  c.shape = in.next(shape_count(b));
  c.factor = in.next(kFactor);
  c.small = in.next(kSmall);
  c.m = read_magnitude(in);
  return c;
}

namespace {

// The lcm of the positive values among `constraints` (1 for none).
BigInt lcm_of(const std::vector<BigInt>& constraints) {
  BigInt l = 1;
  for (const BigInt& c : constraints) {
    if (c >= 1) l = l / boost::multiprecision::gcd(l, c) * c;
  }
  return l;
}

std::vector<BigInt> side_values(const Block& b, const BigInt* values) {
  std::vector<BigInt> sides;
  for (const int side : b.sides) {
    if (side >= 0) sides.push_back(values[side]);
  }
  return sides;
}

BigInt state_count(const Block& b, const StateDimChoices& c, const BigInt* values, const Limits& limits) {
  const BigInt& top = size_limit(limits);
  std::vector<BigInt> constraints = side_values(b, values);
  if (b.of[0] >= 0) constraints.push_back(values[b.of[0]]);
  const BigInt l = lcm_of(constraints);
  const Choice shape = c.shape;
  if (shape <= 2 && l > top) return magnitude(c.m, top);  // no multiple fits the limits
  switch (shape) {
    case 0: return l * (1 + c.factor % 8) <= top ? BigInt(l * (1 + c.factor % 8)) : l;
    case 1: return l * magnitude(c.m, top / l);
    case 2: return l;
    case 3: {
      // A multiple of every constraint but one: the lcm of the others, when it is not a multiple of that one.
      if (constraints.empty()) return 1;
      const std::size_t k = c.factor % constraints.size();
      std::vector<BigInt> others = constraints;
      others.erase(others.begin() + static_cast<std::ptrdiff_t>(k));
      const BigInt o = lcm_of(others);
      if (constraints[k] >= 2 && o % constraints[k] != 0 && o <= top) return o;
      return 1;
    }
    case 4: return 0;
    case 5: return -BigInt(1 + c.small);
    case 6: return magnitude(c.m, top);
    default: return -magnitude(c.m, -limits.lowest);
  }
}

BigInt state_groups(const Block& b, const StateDimChoices& c, const BigInt* values, const Limits& limits) {
  using boost::multiprecision::gcd;
  const BigInt& top = size_limit(limits);
  const BigInt& H = values[b.of[0]];
  const std::vector<BigInt> sides = side_values(b, values);
  const BigInt l = lcm_of(sides);
  switch (c.shape) {
    case 0: return 1;
    case 1: return H >= 1 ? H : BigInt(1);
    case 2: return H >= 1 && H % l == 0 ? BigInt(l * gcd(BigInt(H / l), BigInt(1 + c.factor))) : BigInt(1);
    case 4: return H >= 1 && H < top ? BigInt(H + 1) : BigInt(2);
    case 5: return 0;
    case 6: return -BigInt(1 + c.small);
    case 7: return magnitude(c.m, top);
    default: {
      // A divisor of H above 1 that the chosen side does not divide (and the
      // other side does, where one can): the other side; it with the chosen
      // side over its smallest prime factor; H without the chosen side's primes.
      if (H < 1 || sides.empty()) return 2;
      const std::size_t k = c.factor % sides.size();
      const BigInt& s = sides[k];
      if (s < 1) return 2;
      const BigInt other = sides.size() == 2 && sides[1 - k] >= 1 ? sides[1 - k] : BigInt(1);
      BigInt q = 2;
      while (q < 1024 && q * q <= s && s % q != 0) ++q;
      const BigInt part = q * q <= s && s % q == 0 ? BigInt(s / q) : BigInt(1);
      BigInt stripped = H;
      for (BigInt g = gcd(stripped, s); g > 1; g = gcd(stripped, s)) stripped /= g;
      for (const BigInt& g : {other, BigInt(other / gcd(other, part) * part), BigInt(other * stripped)}) {
        if (g > 1 && H % g == 0 && g % s != 0) return g;
      }
      return H < top ? BigInt(H + 1) : BigInt(2);
    }
  }
}

}  // namespace

BigInt choices::state_dim_value(const Block& b, const StateDimChoices& c, const BigInt* values, const Limits& limits) {
  const bool edges = static_cast<Dims>(b.option) == Dims::Edges;
  switch (dim_rule(block_family(b, values), b.dim)) {
    case DimRule::Count: return state_count(b, c, values, limits);
    case DimRule::Groups: return state_groups(b, c, values, limits);
    case DimRule::Free:
      switch (c.shape % (edges ? 4 : 2)) {
        case 0: return 1 + c.small;
        case 1: return magnitude(c.m, size_limit(limits));
        case 2: return 0;
        default: return -BigInt(1 + c.small);
      }
    case DimRule::Unused: return 1;
  }
  return 1;
}

LengthChoices choices::read_length(const Block& b, Reader& in) {
  LengthChoices c;
  c.shape = in.next(shape_count(b));
  c.small = in.next(kSmall);
  c.m = read_magnitude(in);
  return c;
}

BigInt choices::length_value(const Block& b, const LengthChoices& c, const BigInt* values, const Limits& limits) {
  switch (c.shape) {
    case 0: return b.of[0] >= 0 ? values[b.of[0]] : BigInt(1 + c.small);
    case 1: return 1 + c.small;
    case 2: return magnitude(c.m, size_limit(limits));
    case 3: return 0;
    case 4: return -BigInt(1 + c.small);
    default: return -magnitude(c.m, -limits.lowest);
  }
}

void decode(const Domain& d, const Choice* choices, BigInt* values, const Limits& limits) {
  for (const Block& b : d.blocks()) {
    Reader in(choices);
    BigInt* out = values + b.first;
    switch (b.kind) {
      case BlockKind::Size:
      case BlockKind::DpSize: *out = decode_size(b, in, limits); break;
      case BlockKind::Pair: decode_pair(b, in, out, limits); break;
      case BlockKind::Rank: *out = decode_rank(b, in, values, limits); break;
      case BlockKind::Heads: *out = decode_heads(b, in, values, limits); break;
      case BlockKind::Flag: *out = in.next(2); break;
      case BlockKind::DpRank: *out = decode_dp_rank(b, in, limits); break;
      case BlockKind::Hosts: *out = decode_hosts(in, values, b, limits); break;
      case BlockKind::BasePort: *out = decode_base_port(in, values, b, limits); break;
      case BlockKind::StageSplit: *out = stage_split_value(b, read_stage_split(b, in), values, limits); break;
      case BlockKind::Stage: *out = decode_rank_below(b, in, stage_count(values[b.of[0]]), limits); break;
      case BlockKind::DpGroup:
        *out = decode_rank_below(b, in, values[b.flag] != 0 ? values[b.of[0]] : BigInt(1), limits);
        break;
      case BlockKind::StateDim: *out = state_dim_value(b, read_state_dim(b, in), values, limits); break;
      case BlockKind::Length: *out = length_value(b, read_length(b, in), values, limits); break;
      case BlockKind::Choice: *out = in.next(shape_count(b)); break;
    }
    // Every block's decoder reads its whole layout (choice_ranges(b)), on
    // every path: the next block starts where this one stopped, and no
    // layout is built per case (the fuzzers decode once per input).
    choices += in.read();
  }
}

std::string value_text(const Domain& d, int position, const BigInt& value) {
  for (const Block& b : d.blocks()) {
    if (b.first != position || b.kind != BlockKind::StageSplit) continue;
    std::string out = "[";
    for (const BigInt& count : split_of_code(value)) out += (out.size() > 1 ? ", " : "") + decimal(count);
    return out + "]";
  }
  return decimal(value);
}

std::string describe(const Domain& d, const BigInt* values) {
  std::string out;
  for (int i = 0; i < d.width(); ++i) out += (i ? " " : "") + std::string(d.name(i)) + "=" + value_text(d, i, values[i]);
  return out;
}

Limits int64_limits(std::int64_t size_cap) {
  const BigInt highest = std::numeric_limits<std::int64_t>::max();
  return {BigInt(std::numeric_limits<std::int64_t>::min()), highest, size_cap > 0 ? BigInt(size_cap) : highest};
}

Limits big_limits(std::int64_t size_cap) {
  const BigInt highest = pow2(320) - 1;
  return {BigInt(-highest), highest, size_cap > 0 ? BigInt(size_cap) : highest};
}

}  // namespace tpcheck::dom
