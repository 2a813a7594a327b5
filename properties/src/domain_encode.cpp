// The inverse of decode(): choices that give a case's values, for seeds
// written from the sweep's cases (tpcheck_fuzz_seeds). encode() checks its
// answer by decoding it.
#include <boost/multiprecision/integer.hpp>

#include "choices.hpp"
#include "tpcheck/sharding.hpp"

namespace tpcheck::dom {

using namespace choices;

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
  const BigInt& top = size_limit(limits);
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

bool encode_rank_below(const Block& b, const BigInt& r, const BigInt& S, std::vector<Choice>& out) {
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

bool encode_rank(const Block& b, const BigInt& r, const BigInt* values, std::vector<Choice>& out) {
  BigInt S = values[b.of[0]];
  if (b.of[1] >= 0) S = std::max(S, values[b.of[1]]);
  return encode_rank_below(b, r, S, out);
}

// A split's choices: the total from its layers, the cuts from its stages, then
// the first shape and small choice that decode back to it (stage_split_value
// is the judge; a handful of candidates each).
bool encode_stage_split(const Block& b, const BigInt& code, const BigInt* values, const Limits& limits,
                        std::vector<Choice>& out) {
  StageSplitChoices c;
  const std::vector<BigInt> counts = split_of_code(code);
  BigInt total = 0;
  for (const BigInt& count : counts) total += count;
  if (b.of[0] < 0) {
    // An invalid split keeps the plain total (it reads no total but the one-stage ones).
    const BigInt layers = total >= 1 ? total : BigInt(1);
    if (layers <= 16) {
      c.total_class = 0, c.total_small = static_cast<Choice>(layers - 1);
    } else {
      c.total_class = 1, c.total_wide = static_cast<Choice>(layers - 1);
    }
  }
  // The cuts, as the bits of wide (a split of at most 65 layers).
  Choice cuts = 0;
  BigInt layer = 0;
  for (std::size_t s = 0; s + 1 < counts.size() && counts[s] >= 0; ++s) {
    layer += counts[s];
    if (layer >= 1 && layer <= 64) cuts |= Choice{1} << static_cast<unsigned>(layer - 1);
  }
  for (Choice shape = 0; shape < shape_count(b); ++shape) {
    for (Choice small = 0; small < kSmall; ++small) {
      for (const Choice wide : {Choice{0}, cuts}) {
        c.shape = shape, c.small = small, c.wide = wide;
        if (stage_split_value(b, c, values, limits) != code) continue;
        out.insert(out.end(), {c.shape, c.small, c.wide, c.total_class, c.total_small, c.total_wide});
        return true;
      }
    }
  }
  return false;
}

bool encode_heads(const Block& b, const BigInt& H, const BigInt* values, const Limits& limits, std::vector<Choice>& out) {
  const bool any = static_cast<HeadCounts>(b.option) != HeadCounts::Compatible;
  std::vector<Choice> m;
  Writer mw(m);
  const BigInt& s1 = sharding_size(b, 0, values);
  const BigInt& s2 = b.of[1] >= 0 ? sharding_size(b, 1, values) : s1;
  const BigInt small = std::min(s1, s2), large = std::max(s1, s2);
  Choice shape = 6, f = 0;
  bool ok = true;
  // A count both sizes shard, by its factor against their gcd or lcm; one
  // whose factor is too large for a choice (an int16 edge such as 16384
  // heads) only as a magnitude, which a Compatible block has not.
  const bool shards = inv::heads_shard(s1, H) && inv::heads_shard(s2, H);
  const BigInt g = shards ? BigInt(boost::multiprecision::gcd(s1, s2)) : BigInt(0);
  const BigInt l = shards ? BigInt(s1 / g * s2) : BigInt(0);
  if (shards && g % H == 0 && g / H - 1 < 256) {
    shape = 0, f = static_cast<Choice>(g / H - 1), ok = put_magnitude(mw, 1, 1);
  } else if (shards && H % l == 0 && H / l - 1 < 256) {
    shape = 1, f = static_cast<Choice>(H / l - 1), ok = put_magnitude(mw, 1, 1);
  } else if (shards && large % small == 0 && H % small == 0 && large % H == 0 && H / small - 1 < 256) {
    shape = 2, f = static_cast<Choice>(H / small - 1), ok = put_magnitude(mw, 1, 1);
  } else if (shards && !any) {
    ok = false;
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
  const bool non_positive = static_cast<Sizes>(b.option) == Sizes::WithNonPositive;
  if (n == 1) {
    cls = 0;
  } else if (non_positive && n <= 0 && -n - 1 < 256) {
    cls = n == 0 ? 5 : 6, f = n == 0 ? 0 : static_cast<Choice>(-n - 1);
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

// A state dim's or a length's choices: candidates for its shape, factor and
// small choice (and a magnitude when the value needs one), the first that
// decodes back to the value (their decoders are the judges).
template <class Choices, class Value>
bool encode_by_candidates(const std::vector<Choices>& candidates, const BigInt& v, Value value_of,
                          std::vector<Choice>& out, void (*put)(const Choices&, std::vector<Choice>&)) {
  for (const Choices& c : candidates) {
    if (value_of(c) == v) {
      put(c, out);
      return true;
    }
  }
  return false;
}

// The magnitude choices that give m, or nothing.
std::optional<MagnitudeChoices> magnitude_of(const BigInt& m, const BigInt& limit) {
  std::vector<Choice> c;
  Writer w(c);
  if (!put_magnitude(w, m, limit)) return std::nullopt;
  return MagnitudeChoices{c[0], c[1], c[2]};
}

bool encode_state_dim(const Block& b, const BigInt& v, const BigInt* values, const Limits& limits,
                      std::vector<Choice>& out) {
  std::vector<StateDimChoices> candidates;
  const BigInt& top = size_limit(limits);
  const auto add = [&](Choice shape, Choice factor, Choice small, const std::optional<MagnitudeChoices>& m) {
    if (shape >= shape_count(b)) return;
    candidates.push_back({shape, factor, small, m.value_or(MagnitudeChoices{0, 0, 0})});
  };
  const bool negative_small = v < 0 && v >= -16;
  for (Choice shape = 0; shape < shape_count(b); ++shape) {
    add(shape, 0, negative_small ? static_cast<Choice>(-v - 1) : 0, std::nullopt);
    if (v >= 1 && v <= 16) add(shape, 0, static_cast<Choice>(v - 1), std::nullopt);
    if (v >= 1) add(shape, 0, 0, magnitude_of(v, top));
    if (v <= -1) add(shape, 0, 0, magnitude_of(-v, -limits.lowest));
  }
  // A count l * m (shapes 0, 1) and Mamba2's groups l * d (shape 2): their factor or magnitude.
  if (v >= 1) {
    std::vector<BigInt> constraints;
    for (const int side : b.sides) {
      if (side >= 0 && values[side] >= 1) constraints.push_back(values[side]);
    }
    if (b.of[0] >= 0 && values[b.of[0]] >= 1) constraints.push_back(values[b.of[0]]);
    BigInt l = 1;
    for (const BigInt& c : constraints) l = l / boost::multiprecision::gcd(l, c) * c;
    BigInt sides_lcm = 1;
    for (const int side : b.sides) {
      if (side >= 0 && values[side] >= 1) sides_lcm = sides_lcm / boost::multiprecision::gcd(sides_lcm, values[side]) * values[side];
    }
    for (const BigInt& unit : {l, sides_lcm}) {
      if (v % unit != 0) continue;
      const BigInt m = v / unit;
      if (m - 1 < 256) {
        add(0, static_cast<Choice>(m - 1), 0, std::nullopt);
        add(2, static_cast<Choice>(m - 1), 0, std::nullopt);
      }
      if (unit <= top) add(1, 0, 0, magnitude_of(m, top / unit));
    }
    for (Choice factor = 0; factor < 4; ++factor) add(3, factor, 0, std::nullopt);
  }
  const auto value_of = [&](const StateDimChoices& c) { return state_dim_value(b, c, values, limits); };
  return encode_by_candidates<StateDimChoices>(candidates, v, value_of, out, [](const StateDimChoices& c, std::vector<Choice>& o) {
    o.insert(o.end(), {c.shape, c.factor, c.small, c.m.cls, c.m.small, c.m.wide});
  });
}

bool encode_length(const Block& b, const BigInt& v, const BigInt* values, const Limits& limits, std::vector<Choice>& out) {
  std::vector<LengthChoices> candidates;
  const MagnitudeChoices none{0, 0, 0};
  for (Choice shape = 0; shape < shape_count(b); ++shape) {
    candidates.push_back({shape, 0, none});
    if (v >= 1 && v <= 16) candidates.push_back({shape, static_cast<Choice>(v - 1), none});
    if (v < 0 && v >= -16) candidates.push_back({shape, static_cast<Choice>(-v - 1), none});
    if (v >= 1) candidates.push_back({shape, 0, magnitude_of(v, size_limit(limits)).value_or(none)});
    if (v <= -1) candidates.push_back({shape, 0, magnitude_of(-v, -limits.lowest).value_or(none)});
  }
  const auto value_of = [&](const LengthChoices& c) { return length_value(b, c, values, limits); };
  return encode_by_candidates<LengthChoices>(candidates, v, value_of, out, [](const LengthChoices& c, std::vector<Choice>& o) {
    o.insert(o.end(), {c.shape, c.small, c.m.cls, c.m.small, c.m.wide});
  });
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
      case BlockKind::StageSplit: ok = encode_stage_split(b, v, values, limits, out); break;
      case BlockKind::Stage: ok = encode_rank_below(b, v, stage_count(values[b.of[0]]), out); break;
      case BlockKind::DpGroup:
        ok = encode_rank_below(b, v, values[b.flag] != 0 ? values[b.of[0]] : BigInt(1), out);
        break;
      case BlockKind::StateDim: ok = encode_state_dim(b, v, values, limits, out); break;
      case BlockKind::Length: ok = encode_length(b, v, values, limits, out); break;
      case BlockKind::Choice: ok = v >= 0 && v < b.choices && (out.push_back(static_cast<Choice>(v)), true); break;
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

}  // namespace tpcheck::dom
