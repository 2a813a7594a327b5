// The registered memory of a byte-level check (memory_layout.hpp).
#include "tpcheck/conform/memory_layout.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "tpcheck/model.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::conform::bytes {

ByteCoord at(const Run& run, std::uint64_t i, std::int64_t bytes_per_head) {
  ByteCoord c = run.first;
  const auto B = static_cast<std::uint64_t>(bytes_per_head);
  const std::uint64_t outer = static_cast<std::uint64_t>(run.heads_inner ? c.head : c.token);
  const std::uint64_t inner = outer * B + static_cast<std::uint64_t>(c.byte) + i;
  (run.heads_inner ? c.head : c.token) = static_cast<std::int64_t>(inner / B);
  c.byte = static_cast<std::int64_t>(inner % B);
  return c;
}

BlockPages::BlockPages(Order order, std::int64_t tokens, std::int64_t first_head, std::int64_t heads,
                       std::int64_t bytes_per_head)
    : order_(order), tokens_(tokens), first_head_(first_head), heads_(heads), bytes_per_head_(bytes_per_head) {}

std::uint64_t BlockPages::item_length() const {
  return static_cast<std::uint64_t>(tokens_ * heads_ * bytes_per_head_);
}

// The outer axis (a token, or a head) spans `inner` times B bytes; within it
// the inner axis and the byte advance together.
Run BlockPages::run_at(std::uint64_t offset) const {
  const bool tokens_outer = order_ == Order::TokensOuter;
  const auto B = static_cast<std::uint64_t>(bytes_per_head_);
  const std::uint64_t outer_bytes = static_cast<std::uint64_t>(tokens_outer ? heads_ : tokens_) * B;
  const std::uint64_t rest = offset % outer_bytes;
  const auto outer = static_cast<std::int64_t>(offset / outer_bytes);
  const auto inner = static_cast<std::int64_t>(rest / B);
  Run r;
  r.heads_inner = tokens_outer;
  r.first.token = tokens_outer ? outer : inner;
  r.first.head = first_head_ + (tokens_outer ? inner : outer);
  r.first.byte = static_cast<std::int64_t>(rest % B);
  r.length = outer_bytes - rest;
  return r;
}

std::string RankMemory::region_name(std::int64_t key) const {
  const auto named = layers ? layers : static_cast<std::int64_t>(region_bases.size() / 2);
  if (named == 0) return "region " + decimal(key);
  return (key < named ? "K layer " : "V layer ") + decimal(key % named);
}

std::string RankMemory::name() const { return (side == Side::Prefill ? "p" : "d") + decimal(rank); }

void MemoryMap::add(RankMemory rank) {
  const std::size_t index = ranks_.size();
  for (std::size_t r = 0; r < rank.region_bases.size(); ++r) {
    regions_[rank.region_bases[r]] = {index, static_cast<std::int64_t>(r)};
  }
  ranks_.push_back(std::move(rank));
}

std::optional<MemoryMap::Place> MemoryMap::locate(std::uint64_t address) const {
  auto it = regions_.upper_bound(address);
  if (it == regions_.begin()) return std::nullopt;
  --it;
  const RankMemory& rank = ranks_[it->second.first];
  const std::uint64_t offset = address - it->first;
  const std::uint64_t length = rank.region_length(it->second.second);
  if (offset >= length) return std::nullopt;
  return Place{&rank, it->second.second, offset, length - offset};
}

std::uint64_t MemoryMap::gap(std::uint64_t address) const {
  const auto it = regions_.upper_bound(address);
  if (it != regions_.end()) return it->first - address;
  // To 2^64, which unsigned arithmetic writes as 0 - address (all of it from 0).
  return address == 0 ? std::numeric_limits<std::uint64_t>::max() : std::uint64_t{0} - address;
}

const RankMemory* MemoryMap::rank(Side side, std::int64_t rank) const {
  for (const auto& r : ranks_) {
    if (r.side == side && r.rank == rank) return &r;
  }
  return nullptr;
}

std::string SyntheticLayout::json() const {
  auto list = [](const std::vector<std::int64_t>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + decimal(v[i]);
    return s + "]";
  };
  auto u = [](std::uint64_t v) { return std::to_string(v); };
  std::string probes_json = "{";
  for (const auto& [id, probe] : probes) {
    probes_json += std::string(probes_json.size() > 1 ? ", " : "") + "\"" + decimal(id) + "\": {\"base_add\": " +
                   u(probe.base_add) + ", \"pages_past_bytes\": " + u(probe.pages_past_bytes) + "}";
  }
  probes_json += "}";
  return "{\"layers\": " + std::to_string(layers) + ", \"bytes_per_head\": " + decimal(bytes_per_head) +
         ", \"slots\": {\"P\": " + decimal(prefill_slots) + ", \"D\": " + decimal(decode_slots) +
         "}, \"base\": {\"P\": " + u(prefill_base) + ", \"D\": " + u(decode_base) + "}, \"rank_stride\": " +
         u(rank_stride) + ", \"region_stride\": " + u(region_stride) + ", \"pages\": {\"P\": " + list(prefill_pages) +
         ", \"D\": " + list(decode_pages) + "}, \"probes\": " + probes_json + "}";
}

MemoryMap SyntheticLayout::build(std::int64_t P, std::int64_t D, std::int64_t H, std::int64_t page_size,
                                 std::int64_t probe) const {
  const auto found = probes.find(probe);
  const Probe moved = found == probes.end() ? Probe{} : found->second;
  MemoryMap map;
  for (const Side side : {Side::Prefill, Side::Decode}) {
    const bool prefill = side == Side::Prefill;
    const std::int64_t T = prefill ? P : D;
    for (std::int64_t r = 0; r < T; ++r) {
      const auto own = tpcheck::heads<std::int64_t>(r, T, H);
      if (!own.ok()) throw std::invalid_argument("synthetic memory: H is not head-compatible with the sizes");
      RankMemory m;
      m.side = side;
      m.rank = r;
      m.pages = std::make_shared<TokenMajorPages>(page_size, own.value().first, own.value().end - own.value().first,
                                                  bytes_per_head);
      const std::uint64_t item = m.pages->item_length();
      const std::uint64_t shift = moved.pages_past_bytes ? moved.pages_past_bytes / item + 1 : 0;
      m.slots = static_cast<std::uint64_t>(prefill ? prefill_slots : decode_slots) + shift;
      const std::uint64_t base = moved.base_add + (prefill ? prefill_base : decode_base) +
                                 static_cast<std::uint64_t>(r) * rank_stride;
      for (int region = 0; region < 2 * layers; ++region) {
        m.region_bases.push_back(base + static_cast<std::uint64_t>(region) * region_stride);
      }
      for (const std::int64_t page : prefill ? prefill_pages : decode_pages) {
        m.request.push_back(static_cast<std::int64_t>(shift) + page);
      }
      map.add(std::move(m));
    }
  }
  return map;
}

}  // namespace tpcheck::conform::bytes
