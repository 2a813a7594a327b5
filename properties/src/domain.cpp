// Domain blocks: their builders, how a domain resolves names, and each block's
// values at a bound (the exhaustive enumeration).
#include "tpcheck/domain.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "tpcheck/sharding.hpp"

namespace tpcheck::dom {

bool Block::gives_sizes() const {
  switch (kind) {
    case BlockKind::Size:
    case BlockKind::Pair:
    case BlockKind::Heads:
    case BlockKind::DpSize:
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

Block with_narrow_edges(Block b) {
  b.narrow_edges = true;
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
    if (b.given_name) {
      b.given = position_of(b.given_name, b.names[0]);
      for (const Block& earlier : blocks_) {
        if (earlier.kind == BlockKind::Heads && earlier.first == b.given) {
          b.given_sizes = earlier.of;
          b.given_flag = earlier.flag;
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
      if (edge > max) out.push_back(edge);
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

// rank_given_heads: whether the head count it is given is valid.
bool given_heads_valid(const Block& b, const I* values) {
  const I H = values[b.given];
  if (b.given_flag >= 0 && values[b.given_flag] != 0) return H == 1;
  for (const int size : b.given_sizes) {
    if (size >= 0 && !inv::heads_shard(values[size], H)) return false;
  }
  return true;
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
  const auto shards = [&](I H) {
    return inv::heads_shard(values[b.of[0]], H) && (b.of[1] < 0 || inv::heads_shard(values[b.of[1]], H));
  };
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
    if (b.flag_name) out += std::string(", 1 under ") + b.flag_name;
    if (b.given_name) out += std::string(", all only for a valid ") + b.given_name;
    if (b.narrow_edges) out += ", and int16's edges";
    if (b.listing_edge) out += ", and past the listing limit";
    out += ")";
  }
  return out;
}

}  // namespace tpcheck::dom
