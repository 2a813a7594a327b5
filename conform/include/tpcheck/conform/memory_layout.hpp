// The registered memory a byte-level check gives code under test, and what
// each of its bytes holds (SPEC §14B.1, §14B.4).
//
// A rank registers regions (one per layer and K/V); a region holds slots
// (pages); a PageLayout says where in a slot each (token, head, byte) lives.
// SGLang's MHA pool is token-major (TokenMajorPages); a block whose heads
// are outermost (TensorRT-LLM's [head][token][dim] inside a layer's K or V)
// is HeadMajorPages. The judge (byte_judge.hpp) works on runs: stretches of
// a region along which the coordinates advance one byte at a time, so its
// cost grows with the number of transfers and runs, not of bytes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tpcheck::conform::bytes {

enum class Side { Prefill, Decode };

// What one byte of a rank's KV cache holds.
struct ByteCoord {
  std::int64_t region = 0;  // the rank's region: layer and K or V
  std::int64_t slot = 0;    // the page
  std::int64_t token = 0;   // within the page
  std::int64_t head = 0;    // the global KV head
  std::int64_t byte = 0;    // within the head's bytes of the token
  bool operator==(const ByteCoord&) const = default;
};

// A stretch of one slot of a region along which byte i is at `first` advanced
// by i bytes of the inner axis: (head, byte) with the token fixed
// (token-major), or (token, byte) with the head fixed (head-major).
struct Run {
  ByteCoord first;
  std::uint64_t length = 0;
  bool heads_inner = true;  // token-major: the head advances every bytes_per_head bytes
};

// Byte i of a run (i < run.length).
ByteCoord at(const Run& run, std::uint64_t i, std::int64_t bytes_per_head);

// Where one rank's slots put each byte.
class PageLayout {
 public:
  virtual ~PageLayout() = default;
  virtual std::uint64_t item_length() const = 0;  // bytes per slot
  // The run from `offset` of a slot to where its inner axis wraps (offset < item_length()).
  virtual Run run_at(std::uint64_t offset) const = 0;
  virtual std::int64_t bytes_per_head() const = 0;
  virtual std::int64_t first_head() const = 0;
  virtual std::int64_t heads() const = 0;
  virtual std::int64_t tokens() const = 0;
};

// A slot of `tokens` tokens of `heads` heads (from `first_head`) of
// bytes_per_head bytes each, with the tokens outermost or the heads outermost.
class BlockPages : public PageLayout {
 public:
  enum class Order { TokensOuter, HeadsOuter };
  BlockPages(Order order, std::int64_t tokens, std::int64_t first_head, std::int64_t heads, std::int64_t bytes_per_head);
  std::uint64_t item_length() const override;
  Run run_at(std::uint64_t offset) const override;
  std::int64_t bytes_per_head() const override { return bytes_per_head_; }
  std::int64_t first_head() const override { return first_head_; }
  std::int64_t heads() const override { return heads_; }
  std::int64_t tokens() const override { return tokens_; }

 private:
  Order order_;
  std::int64_t tokens_, first_head_, heads_, bytes_per_head_;
};

// SGLang's MHA pool (SPEC §14B.1): in a slot, the tokens one after another,
// each holding the rank's heads one after another, B bytes each.
class TokenMajorPages : public BlockPages {
 public:
  TokenMajorPages(std::int64_t tokens, std::int64_t first_head, std::int64_t heads, std::int64_t bytes_per_head)
      : BlockPages(Order::TokensOuter, tokens, first_head, heads, bytes_per_head) {}
};

// A block whose heads are outermost (TensorRT-LLM's [head][token][dim] for a
// layer's K or V): in a slot, the rank's heads one after another, each
// holding the tokens one after another, B bytes each.
class HeadMajorPages : public BlockPages {
 public:
  HeadMajorPages(std::int64_t tokens, std::int64_t first_head, std::int64_t heads, std::int64_t bytes_per_head)
      : BlockPages(Order::HeadsOuter, tokens, first_head, heads, bytes_per_head) {}
};

// One rank's registered memory and its part of the request.
struct RankMemory {
  Side side = Side::Prefill;
  std::int64_t rank = 0;
  std::vector<std::uint64_t> region_bases;  // K of layers 0..L-1, then V
  std::uint64_t slots = 0;                  // per region
  std::shared_ptr<const PageLayout> pages;
  std::vector<std::int64_t> request;        // the request's slots, position k
  // Regions that are not one layer's K or V array of slots: a TensorRT-LLM
  // block holds every layer of the rank's stage, so each (block, layer, K/V)
  // is a region of one slot. region_keys[r] is what region r holds, compared
  // across sides (empty: r itself); region_slots[r] the slot it is (empty:
  // counted from the region's start, `slots` of them); `layers` names the keys
  // (0: half the regions); slot_word names a slot in findings.
  std::vector<std::int64_t> region_keys;
  std::vector<std::int64_t> region_slots;
  std::int64_t layers = 0;
  std::string slot_word = "page";
  // Regions whose slots differ in length (SGLang's state pool registers a
  // conv and a temporal entry per layer): item_lengths[r] is region r's
  // (empty: every region's slot is `pages`' item).
  std::vector<std::uint64_t> item_lengths;
  std::uint64_t item_length(std::int64_t region) const {
    return item_lengths.empty() ? pages->item_length() : item_lengths[static_cast<std::size_t>(region)];
  }
  std::uint64_t region_length(std::int64_t region) const { return slots * item_length(region); }
  std::int64_t key(std::int64_t region) const {
    return region_keys.empty() ? region : region_keys[static_cast<std::size_t>(region)];
  }
  std::int64_t first_slot(std::int64_t region) const {
    return region_slots.empty() ? 0 : region_slots[static_cast<std::size_t>(region)];
  }
  // "K layer 0" for a key in SGLang's order of regions (K of every layer, then V).
  std::string region_name(std::int64_t key) const;
  // "p0" or "d1".
  std::string name() const;
};

// Every registered region of a configuration, by address.
class MemoryMap {
 public:
  void add(RankMemory rank);
  struct Place {
    const RankMemory* rank = nullptr;
    std::int64_t region = 0;
    std::uint64_t offset = 0;  // within the region
    std::uint64_t room = 0;    // bytes from there to the region's end
  };
  std::optional<Place> locate(std::uint64_t address) const;
  // From an address outside every region: the bytes to the next region's
  // start (to 2^64 when none follows), at least 1.
  std::uint64_t gap(std::uint64_t address) const;
  const RankMemory* rank(Side side, std::int64_t rank) const;
  const std::vector<RankMemory>& ranks() const { return ranks_; }

 private:
  std::vector<RankMemory> ranks_;
  std::map<std::uint64_t, std::pair<std::size_t, std::int64_t>> regions_;  // base -> (rank index, region)
};

// SPEC §14B.1's synthetic memory, as a description: the child builds the
// addresses it hands code under test from json() (conform/child/15_recording.py)
// and the judge builds the same memory with build().
struct SyntheticLayout {
  int layers = 2;
  std::int64_t bytes_per_head = 8;
  std::int64_t prefill_slots = 8, decode_slots = 10;
  std::uint64_t prefill_base = std::uint64_t{1} << 50, decode_base = std::uint64_t{1} << 51;
  std::uint64_t rank_stride = std::uint64_t{1} << 44, region_stride = std::uint64_t{1} << 37;
  std::vector<std::int64_t> prefill_pages = {5, 2, 3}, decode_pages = {1, 7, 8};
  // A probe (SPEC §14B.8) moves every base up by base_add, and the request's
  // pages (and the slot counts with them) past pages_past_bytes bytes.
  struct Probe {
    std::uint64_t base_add = 0;
    std::uint64_t pages_past_bytes = 0;
  };
  std::map<std::int64_t, Probe> probes;

  std::string json() const;
  // Every rank of both sides of configuration (P, D, H, page_size) under `probe`.
  MemoryMap build(std::int64_t P, std::int64_t D, std::int64_t H, std::int64_t page_size, std::int64_t probe) const;
};

}  // namespace tpcheck::conform::bytes
