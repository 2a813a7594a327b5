// Each block's values from independent small choices (the random engines'
// view of a domain), and back. Every class, shape or position 0 is the plain
// case, so RapidCheck shrinks towards small sizes, first ranks and no error.
//
// A magnitude (a positive value up to a limit) is three choices:
//   class  0 small 1..16             1 a power of two, or a neighbour
//          2 17..4096                3 just above 2^32 (r * R leaves int64)
//          4 around 2^63 or 2^64     5 the limit itself, or just below
//          6 anything below 2^64     7 beyond: m * 2^e (m < 2^56, e < 256)
//   small  0..15, wide  0..2^64 - 1  (their use depends on the class)
// The other blocks build on it; their layouts are in choice_ranges().
#include <algorithm>
#include <stdexcept>

#include <boost/multiprecision/integer.hpp>

#include "tpcheck/domain.hpp"
#include "tpcheck/sharding.hpp"

namespace tpcheck::dom {
namespace {

constexpr Choice kWide = 0;  // [0, 2^64)
constexpr Choice kSmall = 16;
constexpr Choice kFactor = 256;
constexpr Choice kMagnitudeClasses = 8;
constexpr Choice kExtensionClasses = 8;

BigInt pow2(unsigned e) { return BigInt(1) << e; }
const BigInt& two_to_64() {
  static const BigInt v = pow2(64);
  return v;
}

unsigned bit_length(const BigInt& v) { return v <= 0 ? 0 : static_cast<unsigned>(boost::multiprecision::msb(v)) + 1; }

BigInt clamp(const BigInt& v, const BigInt& lo, const BigInt& hi) { return std::max(lo, std::min(v, hi)); }

// A choice reduced into its range (fuzz bytes may give anything).
Choice in_range(Choice c, Choice range) { return range == kWide ? c : c % range; }

// Reads the choices of one block in order.
class Reader {
 public:
  explicit Reader(const Choice* c) : c_(c) {}
  Choice next(Choice range) { return in_range(c_[i_++], range); }

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

void magnitude_ranges(std::vector<Choice>& out) { out.insert(out.end(), {kMagnitudeClasses, kSmall, kWide}); }

// The three choices of a magnitude, read before its limit is known (a pair
// bounds its base by the factor drawn after it).
struct MagnitudeChoices {
  Choice cls, small, wide;
};

MagnitudeChoices read_magnitude(Reader& in) {
  const Choice cls = in.next(kMagnitudeClasses);
  const Choice small = in.next(kSmall);
  return {cls, small, in.next(kWide)};
}

BigInt magnitude(const MagnitudeChoices& c, const BigInt& limit) {
  const BigInt top = std::max(BigInt(1), limit);
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

BigInt magnitude(Reader& in, const BigInt& limit) { return magnitude(read_magnitude(in), limit); }

bool put_magnitude(Writer& out, const BigInt& v, const BigInt& limit) {
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
BigInt non_positive(Choice cls, Choice small, const MagnitudeChoices& m, const Limits& limits) {
  if (cls % 3 == 0) return 0;
  if (cls % 3 == 1) return -BigInt(1 + small);
  return -magnitude(m, -limits.lowest);
}

// ---- per block ------------------------------------------------------------------------

Choice shape_count(const Block& b) {
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
    case BlockKind::Hosts: return 5;
    case BlockKind::BasePort: return 6;
    case BlockKind::Flag: return 2;
  }
  return 1;
}

BigInt size_limit(const Limits& limits) { return std::min(limits.highest, limits.size_cap); }

}  // namespace

std::vector<Choice> choice_ranges(const Block& b) {
  std::vector<Choice> out;
  const Choice shapes = shape_count(b);
  switch (b.kind) {
    case BlockKind::Size:
    case BlockKind::DpSize:
      if (shapes > 1) out.push_back(shapes);
      magnitude_ranges(out);
      break;
    case BlockKind::Pair:
      out.push_back(shapes);
      magnitude_ranges(out);
      out.insert(out.end(), {kFactor, kFactor, kFactor});
      magnitude_ranges(out);
      out.insert(out.end(), {kExtensionClasses, kWide});
      break;
    case BlockKind::Rank:
    case BlockKind::BasePort:
      out.insert(out.end(), {shapes, kSmall, kWide});
      break;
    case BlockKind::Heads:
    case BlockKind::Hosts:
      out.insert(out.end(), {shapes, kFactor});
      magnitude_ranges(out);
      break;
    case BlockKind::DpRank:
      out.insert(out.end(), {shapes, kSmall});
      magnitude_ranges(out);
      break;
    case BlockKind::Flag:
      out.push_back(2);
      break;
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
  const BigInt top = size_limit(limits);
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

BigInt decode_rank(const Block& b, Reader& in, const BigInt* values, const Limits& limits) {
  const Choice position = in.next(shape_count(b));
  const Choice small = in.next(kSmall);
  const Choice wide = in.next(kWide);
  BigInt S = values[b.of[0]];
  if (b.of[1] >= 0) S = std::max(S, values[b.of[1]]);
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

// Head counts both sizes shard: a divisor of their gcd (both replicate), a
// multiple of their lcm (both split), or one in between when one size divides
// the other; otherwise (Any) one the larger size does not shard (between it
// and its double), 0, a negative count, or any magnitude.
BigInt decode_heads(const Block& b, Reader& in, const BigInt* values, const Limits& limits) {
  const Choice shape = in.next(shape_count(b));
  const Choice f = in.next(kFactor);
  const BigInt top = size_limit(limits);
  const BigInt any = magnitude(in, top);
  const BigInt& s1 = values[b.of[0]];
  const BigInt& s2 = b.of[1] >= 0 ? values[b.of[1]] : s1;
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
    }
    choices += choice_ranges(b).size();
  }
}

namespace {

// Candidate choices for one block's values; encode() keeps the first that
// decodes back to them.
bool encode_size(const Block& b, const BigInt& v, const Limits& limits, std::vector<Choice>& out) {
  Writer w(out);
  const bool signed_block = shape_count(b) > 1;
  if (v >= 1) {
    if (signed_block) w.put(0);
    return put_magnitude(w, v, size_limit(limits));
  }
  if (!signed_block) return false;
  if (v == 0) return w.put(5), put_magnitude(w, 1, 1);
  if (v >= -16) return w.put(6), w.put(0), w.put(static_cast<Choice>(-v - 1)), w.put(0), true;
  return w.put(7), put_magnitude(w, -v, -limits.lowest);
}

bool encode_non_positive(const BigInt& v, Choice& cls, Choice& small, std::vector<Choice>& magnitude_out, const Limits& limits) {
  Writer w(magnitude_out);
  if (v == 0) return cls = 0, small = 0, put_magnitude(w, 1, 1);
  if (v < 0 && v >= -256) return cls = 1, small = static_cast<Choice>(-v - 1), put_magnitude(w, 1, 1);
  return cls = 2, small = 0, put_magnitude(w, -v, -limits.lowest);
}

bool encode_pair(const Block& b, const BigInt& first, const BigInt& second, const Limits& limits, std::vector<Choice>& out) {
  const BigInt top = size_limit(limits);
  std::vector<Choice> u, v;
  Choice shape = 0, f = 0, g = 0, h = 0;
  BigInt extension = 0;
  bool ok = true;
  if (first >= 1 && second >= 1) {
    const BigInt small = std::min(first, second), large = std::max(first, second);
    const BigInt common = boost::multiprecision::gcd(small, large);
    const BigInt a = small / common, bb = large / common;
    Writer uw(u), vw(v);
    if (first == second) {
      shape = 0, ok = put_magnitude(uw, first, top) && put_magnitude(vw, 1, 1);
    } else if (a == 1) {  // k = 2 + f + 256 * extension
      shape = first > second ? 1 : 2, f = static_cast<Choice>((bb - 2) % 256), extension = (bb - 2) / 256;
      ok = put_magnitude(uw, small, top / bb) && put_magnitude(vw, 1, 1);
    } else if (a - 2 < 256) {  // b = a * (1 + g + 256 * extension) + c
      shape = first > second ? 3 : 4, f = static_cast<Choice>(a - 2), g = static_cast<Choice>((bb / a - 1) % 256),
      h = static_cast<Choice>(bb % a - 1), extension = (bb / a - 1) / 256;
      ok = put_magnitude(uw, common, top / bb) && put_magnitude(vw, 1, 1);
    } else {
      shape = 5, ok = put_magnitude(uw, first, top) && put_magnitude(vw, second, top);
    }
  } else {
    Writer uw(u);
    if (first < 1 && second < 1) {
      Choice cls_a = 0, cls_b = 0;
      shape = 8;
      ok = encode_non_positive(first, cls_a, g, v, limits) && encode_non_positive(second, cls_b, h, u, limits);
      f = cls_a + 3 * cls_b;
    } else {
      shape = first < 1 ? 6 : 7;
      ok = encode_non_positive(first < 1 ? first : second, f, g, v, limits) &&
           put_magnitude(uw, first < 1 ? second : first, top);
    }
  }
  if (!ok || shape >= shape_count(b)) return false;
  out.push_back(shape);
  out.insert(out.end(), u.begin(), u.end());
  out.insert(out.end(), {f, g, h});
  out.insert(out.end(), v.begin(), v.end());
  if (extension >= two_to_64()) return false;
  out.insert(out.end(), {extension == 0 ? Choice{0} : Choice{6}, static_cast<Choice>(extension)});
  return true;
}

bool encode_rank(const Block& b, const BigInt& r, const BigInt* values, std::vector<Choice>& out) {
  BigInt S = values[b.of[0]];
  if (b.of[1] >= 0) S = std::max(S, values[b.of[1]]);
  const auto option = static_cast<Ranks>(b.option);
  const BigInt n = option == Ranks::NotLast ? BigInt(S - 1) : S;
  const auto put = [&](Choice position, const BigInt& small, const BigInt& wide) {
    out.insert(out.end(), {position, static_cast<Choice>(small), static_cast<Choice>(wide)});
    return true;
  };
  if ((r >= 0 && r < n) || (n <= 0 && r == 0)) {
    if (r < 16) return put(0, r, 0);
    if (n - 1 - r < 16) return put(1, n - 1 - r, 0);
    const BigInt wide = ((r << 64) + n - 1) / n;  // ceil(r * 2^64 / n)
    if (wide < two_to_64() && ((wide * n) >> 64) == r) return put(2, 0, wide);
    return false;
  }
  if (option != Ranks::WithInvalid) return false;
  const BigInt floor0 = std::max(S, BigInt(0));
  if (r < 0 && r >= -16) return put(3, -1 - r, 0);
  if (r < 0 && -1 - r < two_to_64()) return put(5, 0, -1 - r);
  if (r >= floor0 && r - floor0 < 16) return put(4, r - floor0, 0);
  if (r > floor0 && r - floor0 - 1 < two_to_64()) return put(6, 0, r - floor0 - 1);
  return false;
}

bool encode_heads(const Block& b, const BigInt& H, const BigInt* values, const Limits& limits, std::vector<Choice>& out) {
  const bool any = static_cast<HeadCounts>(b.option) != HeadCounts::Compatible;
  std::vector<Choice> m;
  Writer mw(m);
  const BigInt& s1 = values[b.of[0]];
  const BigInt& s2 = b.of[1] >= 0 ? values[b.of[1]] : s1;
  const BigInt small = std::min(s1, s2), large = std::max(s1, s2);
  Choice shape = 6, f = 0;
  bool ok = true;
  const bool shards = inv::heads_shard(s1, H) && inv::heads_shard(s2, H);
  if (shards) {
    const BigInt g = boost::multiprecision::gcd(s1, s2);
    const BigInt l = s1 / g * s2;
    if (g % H == 0 && g / H - 1 < 256) {
      shape = 0, f = static_cast<Choice>(g / H - 1);
    } else if (H % l == 0 && H / l - 1 < 256) {
      shape = 1, f = static_cast<Choice>(H / l - 1);
    } else if (large % small == 0 && H % small == 0 && large % H == 0 && H / small - 1 < 256) {
      shape = 2, f = static_cast<Choice>(H / small - 1);
    } else {
      ok = false;
    }
    ok = ok && put_magnitude(mw, 1, 1);
  } else if (large >= 2 && H > large && H < 2 * large && H - large - 1 < 256) {
    shape = 3, f = static_cast<Choice>(H - large - 1), ok = put_magnitude(mw, 1, 1);
  } else if (H == 0) {
    shape = 4, ok = put_magnitude(mw, 1, 1);
  } else if (H < 0 && H >= -16) {
    shape = 5, f = static_cast<Choice>(-H - 1), ok = put_magnitude(mw, 1, 1);
  } else {
    ok = put_magnitude(mw, H, size_limit(limits));
  }
  if (!ok || (!any && shape > 2)) return false;
  out.insert(out.end(), {shape, f});
  out.insert(out.end(), m.begin(), m.end());
  return true;
}

bool encode_dp_rank(const Block& b, const BigInt& v, const Limits& limits, std::vector<Choice>& out) {
  std::vector<Choice> m;
  Writer mw(m);
  Choice cls, small = 0;
  bool ok;
  if (v >= 0 && v < 16) {
    cls = 0, small = static_cast<Choice>(v), ok = put_magnitude(mw, 1, 1);
  } else if (v >= 0) {
    cls = 2, ok = put_magnitude(mw, v + 1, limits.highest);
  } else if (v >= -16) {
    cls = 4, small = static_cast<Choice>(-v - 1), ok = put_magnitude(mw, 1, 1);
  } else {
    cls = 5, ok = put_magnitude(mw, -v, -limits.lowest);
  }
  if (!ok || cls >= shape_count(b)) return false;
  out.insert(out.end(), {cls, small});
  out.insert(out.end(), m.begin(), m.end());
  return true;
}

bool encode_hosts(const BigInt& n, const BigInt* values, const Block& b, const Limits& limits, std::vector<Choice>& out) {
  const BigInt& T = values[b.of[0]];
  std::vector<Choice> m;
  Writer mw(m);
  Choice cls = 4, f = 0;
  bool ok = put_magnitude(mw, 1, 1);
  if (n == 1) {
    cls = 0;
  } else if (T >= 1 && n >= 1 && T % n == 0 && n - 1 < 256) {
    cls = 1, f = static_cast<Choice>(n - 1);
  } else if (n >= 2 && n - 2 < 256) {
    cls = 2, f = static_cast<Choice>(n - 2);
  } else if (T >= 1 && n > T && n - T - 1 < 16) {
    cls = 3, f = static_cast<Choice>(n - T - 1);
  } else {
    m.clear();
    ok = put_magnitude(mw, n, size_limit(limits));
  }
  if (!ok) return false;
  out.insert(out.end(), {cls, f});
  out.insert(out.end(), m.begin(), m.end());
  return true;
}

bool encode_base_port(const BigInt& v, const BigInt* values, const Block& b, std::vector<Choice>& out) {
  const BigInt edge = 65536 - values[b.of[0]] * values[b.of[1]];
  const auto put = [&](Choice cls, const BigInt& small, const BigInt& wide) {
    out.insert(out.end(), {cls, static_cast<Choice>(small), static_cast<Choice>(wide)});
    return true;
  };
  if (v == edge) return put(0, 0, 0);
  if (v > edge && v - edge - 1 < 16) return put(1, v - edge - 1, 0);
  if (v < edge && edge - 1 - v < 16) return put(2, edge - 1 - v, 0);
  if (v >= 1 && v <= 65535) return put(3, 0, v - 1);
  if (v <= 0 && v > -16) return put(4, -v, 0);
  if (v >= 65536 && v - 65536 < two_to_64()) return put(5, 0, v - 65536);
  return false;
}

}  // namespace

std::optional<std::vector<Choice>> encode(const Domain& d, const BigInt* values, const Limits& limits) {
  std::vector<Choice> out;
  for (const Block& b : d.blocks()) {
    const BigInt& v = values[b.first];
    bool ok = false;
    switch (b.kind) {
      case BlockKind::Size:
      case BlockKind::DpSize: ok = encode_size(b, v, limits, out); break;
      case BlockKind::Pair: ok = encode_pair(b, v, values[b.first + 1], limits, out); break;
      case BlockKind::Rank: ok = encode_rank(b, v, values, out); break;
      case BlockKind::Heads: ok = encode_heads(b, v, values, limits, out); break;
      case BlockKind::Flag: ok = (v == 0 || v == 1) && (out.push_back(static_cast<Choice>(v)), true); break;
      case BlockKind::DpRank: ok = encode_dp_rank(b, v, limits, out); break;
      case BlockKind::Hosts: ok = encode_hosts(v, values, b, limits, out); break;
      case BlockKind::BasePort: ok = encode_base_port(v, values, b, out); break;
    }
    if (!ok) return std::nullopt;
  }
  // The inverse is checked, not trusted: the choices must decode to the values.
  std::vector<BigInt> back(static_cast<std::size_t>(d.width()));
  decode(d, out.data(), back.data(), limits);
  for (int i = 0; i < d.width(); ++i) {
    if (back[static_cast<std::size_t>(i)] != values[i]) return std::nullopt;
  }
  return out;
}

std::string describe(const Domain& d, const BigInt* values) {
  std::string out;
  for (int i = 0; i < d.width(); ++i) out += (i ? " " : "") + std::string(d.name(i)) + "=" + decimal(values[i]);
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
