// Domain blocks: their builders, how a domain resolves names, and each block's
// values at a bound (the exhaustive enumeration).
#include "tpcheck/domain.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "tpcheck/sharding.hpp"
#include "tpcheck/stages.hpp"

namespace tpcheck::dom {

bool Block::gives_sizes() const {
  switch (kind) {
    case BlockKind::Size:
    case BlockKind::Pair:
    case BlockKind::Heads:
    case BlockKind::DpSize:
    case BlockKind::StateDim:
      return true;
    default:
      return false;
  }
}

namespace {

Block make(BlockKind kind, std::uint8_t option, const char* name, const char* of_a = nullptr,
           const char* of_b = nullptr) {
  Block b{kind};
  b.option = option;
  b.names = {name, nullptr};
  b.of_names = {of_a, of_b};
  return b;
}

}  // namespace

Block size(const char* name, Sizes option) { return make(BlockKind::Size, static_cast<std::uint8_t>(option), name); }

Block pair(const char* a, const char* b, Pairs option) {
  Block block = make(BlockKind::Pair, static_cast<std::uint8_t>(option), a);
  block.names[1] = b;
  return block;
}

Block rank(const char* name, const char* of, Ranks option) {
  return make(BlockKind::Rank, static_cast<std::uint8_t>(option), name, of);
}

Block rank_of_larger(const char* name, const char* of_a, const char* of_b, Ranks option) {
  return make(BlockKind::Rank, static_cast<std::uint8_t>(option), name, of_a, of_b);
}

Block rank_given_heads(const char* name, const char* of, const char* heads_name) {
  Block block = make(BlockKind::Rank, static_cast<std::uint8_t>(Ranks::WithInvalid), name, of);
  block.given_name = heads_name;
  return block;
}

Block heads(const char* name, const char* of_a, const char* of_b, HeadCounts option, const char* mla_flag) {
  Block block = make(BlockKind::Heads, static_cast<std::uint8_t>(option), name, of_a, of_b);
  block.flag_name = mla_flag;
  return block;
}

Block flag(const char* name) { return make(BlockKind::Flag, 0, name); }

Block with_narrow_edges(Block b, std::int64_t from, std::int64_t below) {
  b.narrow_edges = true;
  b.narrow_edges_from = from;
  b.narrow_edges_below = below;
  return b;
}

Block with_listing_edge(Block b) {
  b.listing_edge = true;
  return b;
}

Block dp_rank(const char* name, DpRanks option) {
  return make(BlockKind::DpRank, static_cast<std::uint8_t>(option), name);
}

Block dp_size(const char* name, Sizes option) {
  return make(BlockKind::DpSize, static_cast<std::uint8_t>(option), name);
}

Block hosts(const char* name, const char* of, Sizes option) {
  return make(BlockKind::Hosts, static_cast<std::uint8_t>(option), name, of);
}

Block base_port(const char* name, const char* dp_size, const char* tp_size) {
  return make(BlockKind::BasePort, 0, name, dp_size, tp_size);
}

Block heads_per_group(const char* name, const char* of_a, const char* adp_a, const char* of_b, const char* adp_b,
                      HeadCounts option, const char* mla_flag) {
  Block block = heads(name, of_a, of_b, option, mla_flag);
  block.exempt_names = {adp_a, adp_b};
  return block;
}

Block stage_split(const char* name, std::uint8_t max_layers, Splits option, const char* same_total_as) {
  Block block = make(BlockKind::StageSplit, static_cast<std::uint8_t>(option), name, same_total_as);
  block.max_layers = max_layers;
  return block;
}

Block stage(const char* name, const char* of_split, Ranks option) {
  return make(BlockKind::Stage, static_cast<std::uint8_t>(option), name, of_split);
}

Block dp_group(const char* name, const char* of_size, const char* adp_flag, Ranks option) {
  Block block = make(BlockKind::DpGroup, static_cast<std::uint8_t>(option), name, of_size);
  block.flag_name = adp_flag;
  return block;
}

Block state_dim(const char* name, StateFamily family, std::uint8_t dim, const char* count, const char* side_a,
                const char* side_b, Dims option) {
  Block block = make(BlockKind::StateDim, static_cast<std::uint8_t>(option), name, count);
  block.state_family = static_cast<std::int8_t>(family);
  block.dim = dim;
  block.side_names = {side_a, side_b};
  return block;
}

Block state_dim_of(const char* name, const char* family_name, std::uint8_t dim, const char* count, const char* side_a,
                   const char* side_b, Dims option) {
  Block block = make(BlockKind::StateDim, static_cast<std::uint8_t>(option), name, count);
  block.family_name = family_name;
  block.dim = dim;
  block.side_names = {side_a, side_b};
  return block;
}

Block length(const char* name, const char* same_as, Sizes option) {
  return make(BlockKind::Length, static_cast<std::uint8_t>(option), name, same_as);
}

Block choice(const char* name, std::uint8_t count) {
  Block block = make(BlockKind::Choice, 0, name);
  block.choices = count;
  return block;
}

DimRule dim_rule(StateFamily family, std::uint8_t dim) {
  if (dim >= state_dim_count(family)) return DimRule::Unused;
  if (dim == 0) return DimRule::Count;
  if (dim == 2) return family == StateFamily::Mamba2 ? DimRule::Groups : DimRule::Count;
  return DimRule::Free;
}

namespace {

template <class V>
StateFamily family_in(const Block& b, const V* values) {
  if (b.state_family >= 0) return static_cast<StateFamily>(b.state_family);
  const V& v = values[b.family_at];
  const V last = static_cast<std::int64_t>(kStateFamilies.size() - 1);
  return static_cast<StateFamily>(static_cast<int>(std::max(V(0), std::min(v, last))));
}

}  // namespace

StateFamily block_family(const Block& b, const std::int64_t* values) { return family_in(b, values); }
StateFamily block_family(const Block& b, const BigInt* values) { return family_in(b, values); }

Domain& Domain::sweep_cap(std::int64_t max_tp, std::int64_t max_heads) {
  cap_tp_ = max_tp;
  cap_heads_ = max_heads;
  return *this;
}

Domain Domain::with_blocks(std::vector<Block> blocks) const {
  Domain d(std::move(blocks));
  d.cap_tp_ = cap_tp_;
  d.cap_heads_ = cap_heads_;
  return d;
}

Bound Domain::capped(const Bound& bound) const {
  Bound b = bound;
  if (cap_tp_ > 0) b.max_tp = std::min(b.max_tp, cap_tp_);
  if (cap_heads_ > 0) b.max_heads = std::min(b.max_heads, cap_heads_);
  return b;
}

Domain::Domain(std::vector<Block> blocks) : blocks_(std::move(blocks)) {
  const auto position_of = [&](const char* wanted, const char* user) {
    for (std::size_t i = 0; i < names_.size(); ++i) {
      if (std::strcmp(names_[i], wanted) == 0) return static_cast<int>(i);
    }
    throw std::invalid_argument(std::string("domain: '") + user + "' depends on '" + wanted +
                                "', which no earlier block gives");
  };
  for (Block& b : blocks_) {
    for (int k = 0; k < 2; ++k) {
      if (b.of_names[static_cast<std::size_t>(k)]) b.of[static_cast<std::size_t>(k)] = position_of(b.of_names[static_cast<std::size_t>(k)], b.names[0]);
    }
    if (b.flag_name) b.flag = position_of(b.flag_name, b.names[0]);
    if (b.family_name) b.family_at = position_of(b.family_name, b.names[0]);
    for (std::size_t k = 0; k < 2; ++k) {
      if (b.side_names[k]) b.sides[k] = position_of(b.side_names[k], b.names[0]);
    }
    for (std::size_t k = 0; k < 2; ++k) {
      if (b.exempt_names[k]) b.exempt[k] = position_of(b.exempt_names[k], b.names[0]);
    }
    if (b.given_name) {
      b.given = position_of(b.given_name, b.names[0]);
      for (const Block& earlier : blocks_) {
        if (earlier.kind == BlockKind::Heads && earlier.first == b.given) {
          b.given_sizes = earlier.of;
          b.given_flag = earlier.flag;
          b.given_exempt = earlier.exempt;
        }
      }
      if (b.given_sizes[0] < 0) throw std::invalid_argument(std::string("domain: '") + b.given_name + "' is not a head count");
    }
    b.first = width();
    for (int k = 0; k < b.width(); ++k) {
      const char* name = b.names[static_cast<std::size_t>(k)];
      if (!name) throw std::invalid_argument("domain: a block gives a value without a name");
      for (const char* seen : names_) {
        if (std::strcmp(seen, name) == 0) throw std::invalid_argument(std::string("domain: two values named '") + name + "'");
      }
      names_.push_back(name);
      sizes_.push_back(b.gives_sizes());
      flags_.push_back(b.kind == BlockKind::Flag);
    }
  }
  if (width() > kMaxValues) throw std::invalid_argument("domain: more than kMaxValues values");
}

namespace {

using I = std::int64_t;

void range(I from, I to, std::vector<I>& out) {  // [from, to]
  for (I v = from; v <= to; ++v) out.push_back(v);
}

// The size a rank block ranges below: its size, or the larger of its two.
I rank_bound(const Block& b, const I* values) {
  I bound = values[b.of[0]];
  if (b.of[1] >= 0) bound = std::max(bound, values[b.of[1]]);
  return bound;
}

// kNarrowEdges and kListingEdge past `max`, when the block asks for them.
void narrow_edges_past(const Block& b, I max, std::vector<I>& out) {
  if (b.narrow_edges) {
    for (const I edge : kNarrowEdges) {
      if (edge > max && edge >= b.narrow_edges_from && (b.narrow_edges_below == 0 || edge < b.narrow_edges_below)) {
        out.push_back(edge);
      }
    }
  }
  if (b.listing_edge && kListingEdge > max) out.push_back(kListingEdge);
}

void sizes(const Block& b, I max, std::vector<I>& out) {
  if (static_cast<Sizes>(b.option) == Sizes::WithNonPositive) range(-1, 0, out);
  range(1, max, out);
  narrow_edges_past(b, max, out);
}

void pairs(Pairs option, I max, std::vector<I>& out) {
  const I low = option == Pairs::WithNonPositive ? -1 : 1;
  for (I a = low; a <= max; ++a) {
    for (I b = low; b <= max; ++b) {
      if (option == Pairs::Divisible && !inv::divisible_pair(a, b)) continue;
      out.push_back(a);
      out.push_back(b);
    }
  }
}

// A size past the bound (a narrow edge): only its edge ranks, so one such
// size does not multiply the cases by itself.
void edge_ranks(Ranks option, I size, std::vector<I>& out) {
  const I last = option == Ranks::NotLast ? size - 2 : size - 1;
  std::vector<I> edges;
  if (option == Ranks::WithInvalid) edges.push_back(-1);
  for (const I r : {I(0), I(1), size / 2, last - 1, last}) {
    if (r >= 0 && r <= last && (edges.empty() || r > edges.back())) edges.push_back(r);
  }
  if (option == Ranks::WithInvalid) edges.push_back(size);
  out.insert(out.end(), edges.begin(), edges.end());
}

void ranks(Ranks option, I size, const Bound& bound, std::vector<I>& out) {
  if (size > std::max(bound.max_tp, bound.max_heads)) {
    edge_ranks(option, size, out);
    return;
  }
  switch (option) {
    case Ranks::Valid: range(0, size - 1, out); break;
    case Ranks::NotLast: range(0, size - 2, out); break;
    case Ranks::WithInvalid: range(-1, std::max<I>(size, 0), out); break;
  }
}

// The codes of every split of `total` layers into stages of at least one
// layer, ascending (2^(total - 1) of them): the cuts between layers.
void splits_of(I total, std::vector<I>& out) {
  for (I cuts = 0; cuts < (I(1) << (total - 1)); ++cuts) {
    std::vector<BigInt> counts = {BigInt(1)};
    for (I layer = 1; layer < total; ++layer) {
      if ((cuts >> (total - 1 - layer)) & 1) {
        counts.push_back(1);
      } else {
        ++counts.back();
      }
    }
    out.push_back(static_cast<I>(code_of_split(counts)));
  }
}

I layer_total(I code) {
  I total = 0;
  for (const I c : split_of_code<I>(code)) total += c;
  return total;
}

bool valid_split(I code) {
  const std::vector<I> counts = split_of_code<I>(code);
  return !counts.empty() && std::all_of(counts.begin(), counts.end(), [](I c) { return c >= 1; });
}

void stage_splits(const Block& b, const I* values, std::vector<I>& out) {
  const bool invalid = static_cast<Splits>(b.option) == Splits::WithInvalid;
  const std::size_t from = out.size();
  if (b.of[0] < 0) {
    for (I total = 1; total <= b.max_layers; ++total) splits_of(total, out);
    if (invalid) {
      const std::vector<BigInt> last_empty = {1, 0};
      out.insert(out.end(), {0, 1, static_cast<I>(code_of_split(last_empty))});  // [], [0], [1, 0]
    }
  } else {
    const I other = values[b.of[0]];
    const I total = valid_split(other) ? layer_total(other) : 1;
    splits_of(total, out);
    if (invalid) {
      const std::vector<BigInt> another = {total + 1}, last_empty = {total, 0};
      out.insert(out.end(), {0, static_cast<I>(code_of_split(another)), static_cast<I>(code_of_split(last_empty))});
    }
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(from), out.end());
}

// A DP group's count of groups: T under its ADP flag, else 1.
I group_count(const Block& b, const I* values) { return values[b.flag] != 0 ? values[b.of[0]] : 1; }

// rank_given_heads: whether the head count it is given is valid.
bool given_heads_valid(const Block& b, const I* values) {
  const I H = values[b.given];
  if (b.given_flag >= 0 && values[b.given_flag] != 0) return H == 1;
  for (std::size_t k = 0; k < 2; ++k) {
    const int size = b.given_sizes[k], exempt = b.given_exempt[k];
    if (size >= 0 && !(exempt >= 0 && values[exempt] != 0) && !inv::heads_shard(values[size], H)) return false;
  }
  return H >= 1;
}

void head_counts(const Block& b, const Bound& bound, const I* values, std::vector<I>& out) {
  const auto option = static_cast<HeadCounts>(b.option);
  if (option == HeadCounts::Any) {
    range(-1, bound.max_heads, out);
    return;
  }
  if (option == HeadCounts::Edges) range(-1, 0, out);
  if (b.flag >= 0 && values[b.flag] != 0) {  // MLA ignores H: one representative
    out.push_back(1);
    return;
  }
  // A side under its exempting flag (attention DP) holds every head: it shards any count.
  const auto side_shards = [&](int k, I H) {
    const int size = b.of[static_cast<std::size_t>(k)];
    if (size < 0) return true;
    const int exempt = b.exempt[static_cast<std::size_t>(k)];
    return (exempt >= 0 && values[exempt] != 0) || inv::heads_shard(values[size], H);
  };
  const auto shards = [&](I H) { return side_shards(0, H) && side_shards(1, H); };
  bool incompatible_seen = option != HeadCounts::Edges;
  for (I H = 1; H <= bound.max_heads; ++H) {
    if (shards(H)) {
      out.push_back(H);
    } else if (!incompatible_seen) {
      out.push_back(H);
      incompatible_seen = true;
    }
  }
  std::vector<I> edges;
  narrow_edges_past(b, bound.max_heads, edges);
  for (const I H : edges) {
    if (shards(H)) out.push_back(H);
  }
}

void host_counts(Sizes option, I T, std::vector<I>& out) {
  if (option == Sizes::WithNonPositive) range(-1, 0, out);
  range(1, std::min(kSweepHosts, std::max<I>(T + 1, 2)), out);
  for (const I n : {T, T + 1}) {
    if (n > out.back()) out.push_back(n);
  }
}

// -1, 0, 1, 65535 and the bases whose last port is 65534, 65535 and 65536.
void base_ports(I dp_size, I T, std::vector<I>& out) {
  std::vector<I> bases = {-1, 0, 1, 65535};
  if (dp_size >= 1 && T >= 1 && dp_size <= (I(1) << 31) && T <= (I(1) << 31)) {
    const I edge = 65536 - dp_size * T;  // the highest base whose last port is 65535
    bases.insert(bases.end(), {edge - 1, edge, edge + 1});
  }
  std::sort(bases.begin(), bases.end());
  bases.erase(std::unique(bases.begin(), bases.end()), bases.end());
  out.insert(out.end(), bases.begin(), bases.end());
}

// ---- state dims ----

I gcd_of(I a, I b) {
  while (b != 0) a = std::exchange(b, a % b);
  return a;
}

// The lcm of the positive values among `constraints` (1 for none), or 0 when
// it passes 2^40 (no multiple of it is walked then).
I lcm_of(const std::vector<I>& constraints) {
  I l = 1;
  for (const I c : constraints) {
    if (c < 1) continue;
    l = l / gcd_of(l, c) * c;
    if (l > (I(1) << 40)) return 0;
  }
  return l;
}

// A state dim's constraints: the sizes that shard it, and (a count of dim 2)
// the count it multiplies.
std::vector<I> count_constraints(const Block& b, const I* values) {
  std::vector<I> c;
  for (const int side : b.sides) {
    if (side >= 0) c.push_back(values[side]);
  }
  if (b.of[0] >= 0) c.push_back(values[b.of[0]]);
  return c;
}

// A count: the multiples of every constraint up to the bound (and past it at
// int16's edges and the listing limit); with edges, -1, 0, and for each
// constraint the first value that is a multiple of all the others but not of it.
void state_counts(const Block& b, const Bound& bound, const I* values, std::vector<I>& out) {
  const std::vector<I> constraints = count_constraints(b, values);
  const I l = lcm_of(constraints);
  const std::size_t from = out.size();
  if (l > 0) {
    for (I m = l; m <= bound.max_heads; m += l) out.push_back(m);
    std::vector<I> edges;
    narrow_edges_past(b, bound.max_heads, edges);
    for (const I e : edges) {
      if (e % l == 0) out.push_back(e);
    }
  }
  if (static_cast<Dims>(b.option) == Dims::Edges) {
    out.insert(out.end(), {-1, 0});
    for (std::size_t k = 0; k < constraints.size(); ++k) {
      if (constraints[k] < 2) continue;
      out.push_back(1);
      std::vector<I> others = constraints;
      others.erase(others.begin() + static_cast<std::ptrdiff_t>(k));
      const I o = lcm_of(others);
      if (o > 0 && o % constraints[k] != 0) out.push_back(o);
    }
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(from), out.end());
  out.erase(std::unique(out.begin() + static_cast<std::ptrdiff_t>(from), out.end()), out.end());
}

// Mamba2's groups of H heads: the divisors of H that are 1 or a multiple of
// every side, up to the bound, and H itself; with edges, -1, 0, the smallest
// non-divisor of H, and per side the smallest divisor above 1 that is a
// multiple of the other side but not of it.
void state_groups(const Block& b, const Bound& bound, const I* values, std::vector<I>& out) {
  const I H = values[b.of[0]];
  const bool edges = static_cast<Dims>(b.option) == Dims::Edges;
  const std::size_t from = out.size();
  if (edges) out.insert(out.end(), {-1, 0});
  std::vector<I> sides;
  for (const int side : b.sides) {
    if (side >= 0 && values[side] >= 1) sides.push_back(values[side]);
  }
  const I l = lcm_of(sides);
  if (H < 1) {
    out.push_back(1);
  } else {
    std::vector<I> divisors;
    for (I g = 1; g * g <= H; ++g) {
      if (H % g == 0) divisors.insert(divisors.end(), {g, H / g});
    }
    std::sort(divisors.begin(), divisors.end());
    divisors.erase(std::unique(divisors.begin(), divisors.end()), divisors.end());
    for (const I g : divisors) {
      if ((g == 1 || (l > 0 && g % l == 0)) && (g <= bound.max_heads || g == H)) out.push_back(g);
    }
    if (edges) {
      I k = 2;
      while (H % k == 0) ++k;
      out.push_back(k);
      for (std::size_t s = 0; s < sides.size(); ++s) {
        const I other = sides.size() == 2 ? sides[1 - s] : 1;
        for (const I g : divisors) {
          if (g > 1 && g % other == 0 && g % sides[s] != 0) {
            out.push_back(g);
            break;
          }
        }
      }
    }
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(from), out.end());
  out.erase(std::unique(out.begin() + static_cast<std::ptrdiff_t>(from), out.end()), out.end());
}

void state_dims(const Block& b, const Bound& bound, const I* values, std::vector<I>& out) {
  switch (dim_rule(block_family(b, values), b.dim)) {
    case DimRule::Count: state_counts(b, bound, values, out); break;
    case DimRule::Groups: state_groups(b, bound, values, out); break;
    case DimRule::Free:
      if (static_cast<Dims>(b.option) == Dims::Edges) range(-1, 0, out);
      range(1, kSweepFreeDims, out);
      narrow_edges_past(b, kSweepFreeDims, out);
      break;
    case DimRule::Unused: out.push_back(1); break;
  }
}

}  // namespace

void block_values(const Block& b, const Bound& bound, const std::int64_t* values, std::vector<std::int64_t>& out) {
  switch (b.kind) {
    case BlockKind::Size: sizes(b, bound.max_tp, out); break;
    case BlockKind::Pair: pairs(static_cast<Pairs>(b.option), bound.max_tp, out); break;
    case BlockKind::Rank:
      if (b.given >= 0 && !given_heads_valid(b, values)) {
        const I size = rank_bound(b, values);
        out.insert(out.end(), {-1, 0});
        if (size > 0) out.push_back(size);
      } else {
        ranks(static_cast<Ranks>(b.option), rank_bound(b, values), bound, out);
      }
      break;
    case BlockKind::Heads: head_counts(b, bound, values, out); break;
    case BlockKind::Flag: range(0, 1, out); break;
    case BlockKind::DpRank: range(static_cast<DpRanks>(b.option) == DpRanks::Any ? -1 : 0, kSweepDpSizes - 1, out); break;
    case BlockKind::DpSize: sizes(b, kSweepDpSizes, out); break;
    case BlockKind::Hosts: host_counts(static_cast<Sizes>(b.option), values[b.of[0]], out); break;
    case BlockKind::BasePort: base_ports(values[b.of[0]], values[b.of[1]], out); break;
    case BlockKind::StageSplit: stage_splits(b, values, out); break;
    case BlockKind::Stage: {
      const I code = values[b.of[0]];
      const I stages = code > 0 ? static_cast<I>(split_of_code<I>(code).size()) : code == 0 ? 0 : 1;
      ranks(static_cast<Ranks>(b.option), stages, bound, out);
      break;
    }
    case BlockKind::DpGroup: ranks(static_cast<Ranks>(b.option), group_count(b, values), bound, out); break;
    case BlockKind::StateDim: state_dims(b, bound, values, out); break;
    case BlockKind::Length:
      if (static_cast<Sizes>(b.option) == Sizes::WithNonPositive) range(-1, 0, out);
      range(1, kSweepFreeDims, out);
      break;
    case BlockKind::Choice: range(0, b.choices - 1, out); break;
  }
}

namespace {

std::string option_text(const Block& b) {
  switch (b.kind) {
    case BlockKind::Size:
    case BlockKind::DpSize:
    case BlockKind::Hosts: return static_cast<Sizes>(b.option) == Sizes::Positive ? "" : ": with non-positive";
    case BlockKind::Pair:
      switch (static_cast<Pairs>(b.option)) {
        case Pairs::Divisible: return ": divisible";
        case Pairs::Positive: return "";
        case Pairs::WithNonPositive: return ": with non-positive";
      }
      return "";
    case BlockKind::Rank:
      switch (static_cast<Ranks>(b.option)) {
        case Ranks::Valid: return "";
        case Ranks::NotLast: return ", not the last";
        case Ranks::WithInvalid: return ", with invalid";
      }
      return "";
    case BlockKind::Heads:
      switch (static_cast<HeadCounts>(b.option)) {
        case HeadCounts::Compatible: return ", compatible";
        case HeadCounts::Any: return ", any";
        case HeadCounts::Edges: return ", compatible and edges";
      }
      return "";
    case BlockKind::DpRank: return static_cast<DpRanks>(b.option) == DpRanks::Any ? ": with negative" : "";
    case BlockKind::StageSplit:
      return ": up to " + std::to_string(b.max_layers) +
             " layers in the sweep" + (static_cast<Splits>(b.option) == Splits::WithInvalid ? ", with invalid" : "");
    case BlockKind::Stage:
    case BlockKind::DpGroup: return static_cast<Ranks>(b.option) == Ranks::WithInvalid ? ", with invalid" : "";
    case BlockKind::StateDim: {
      std::string out = b.state_family >= 0
                            ? std::string(": ") + std::string(state_family_name(static_cast<StateFamily>(b.state_family)))
                            : std::string(": of the family ") + b.family_name;
      out += " dim " + std::to_string(b.dim);
      const bool free = b.state_family >= 0 && dom::dim_rule(static_cast<StateFamily>(b.state_family), b.dim) == DimRule::Free;
      for (const char* side : b.side_names) {
        if (side && !free) out += std::string(", sharded by ") + side;
      }
      return out + (static_cast<Dims>(b.option) == Dims::Edges ? ", and the edges of its checks" : "");
    }
    case BlockKind::Length: return static_cast<Sizes>(b.option) == Sizes::Positive ? "" : ": with non-positive";
    case BlockKind::Choice: return ": 0.." + std::to_string(b.choices - 1);
    default: return "";
  }
}

const char* kind_text(BlockKind kind) {
  switch (kind) {
    case BlockKind::Size: return "size";
    case BlockKind::Pair: return "pair";
    case BlockKind::Rank: return "rank";
    case BlockKind::Heads: return "heads";
    case BlockKind::Flag: return "flag";
    case BlockKind::DpRank: return "dp_rank";
    case BlockKind::DpSize: return "dp_size";
    case BlockKind::Hosts: return "hosts";
    case BlockKind::BasePort: return "base_port";
    case BlockKind::StageSplit: return "stage_split";
    case BlockKind::Stage: return "stage";
    case BlockKind::DpGroup: return "dp_group";
    case BlockKind::StateDim: return "state_dim";
    case BlockKind::Length: return "length";
    case BlockKind::Choice: return "choice";
  }
  return "block";
}

}  // namespace

std::string domain_text(const Domain& d) {
  std::string out;
  for (const Block& b : d.blocks()) {
    if (!out.empty()) out += ", ";
    out += std::string(kind_text(b.kind)) + "(" + b.names[0];
    if (b.names[1]) out += std::string(", ") + b.names[1];
    if (b.of_names[0]) out += std::string(" of ") + b.of_names[0];
    if (b.of_names[1]) out += std::string(b.kind == BlockKind::Rank ? " or " : ", ") + b.of_names[1];
    out += option_text(b);
    if (b.exempt_names[0] || b.exempt_names[1]) {
      out += ", any on a side under";
      for (const char* flag : b.exempt_names) {
        if (flag) out += std::string(" ") + flag;
      }
    }
    if (b.kind == BlockKind::DpGroup) {
      out += std::string(", 0 unless ") + b.flag_name;
    } else if (b.flag_name) {
      out += std::string(", 1 under ") + b.flag_name;
    }
    if (b.given_name) out += std::string(", all only for a valid ") + b.given_name;
    if (b.narrow_edges) {
      out += b.narrow_edges_from > 0 ? ", and int16's edges from " + std::to_string(b.narrow_edges_from) : ", and int16's edges";
      if (b.narrow_edges_below > 0) out += " below " + std::to_string(b.narrow_edges_below);
    }
    if (b.listing_edge) out += ", and past the listing limit";
    out += ")";
  }
  if (d.cap_tp_ > 0) {
    out += "; swept up to sizes " + std::to_string(d.cap_tp_) + ", head counts " + std::to_string(d.cap_heads_);
  }
  return out;
}

}  // namespace tpcheck::dom
