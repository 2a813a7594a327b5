// SPEC §16.7's synthetic state memory: where each rank of both sides keeps
// the recurrent state of one request, as registered regions a byte judge
// (state_judge.hpp) decodes through lib's layouts (tpcheck/state_bytes.hpp).
//
// A region per state entry: SGLang's pool registers one per (tensor, layer),
// every layer's conv then every layer's temporal state; vLLM one page per
// layer. Two recurrent layers, global ids 1 and 3. Prefill regions hold 6
// slots (vLLM: blocks), decode regions 9; the request moves prefill slot 4 to
// decode slot 7. Bases as SPEC §14B.1. The child builds the addresses it
// hands code under test from the same description (json(), sides_json();
// conform/child/15_recording.py).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tpcheck/conform/memory_layout.hpp"
#include "tpcheck/conform/state_grid.hpp"
#include "tpcheck/state_bytes.hpp"

namespace tpcheck::conform::state {

// How one side keeps its state (SPEC §16.3).
struct SideSpec {
  StateContainer container = StateContainer::SglangPool;
  ConvOrder order = ConvOrder::DimFirst;
  std::int64_t rows = kConvKernel - 1;  // L
  std::int64_t e_conv = kConvElement;
  std::int64_t e_ssm = kSsmElement;
  // Findings name units (channels, heads), not bytes: the memory of an
  // answer in slice-axis units (one byte per channel, one per head's element).
  bool units = false;
};

// SGLang's pool: conv (C_loc, K-1) dim-first, KDA's (K-1, C_loc) state-first.
SideSpec sglang_pool(StateFamily family);
// Units: a conv channel is one byte, an SSM head E bytes (SPEC §16.6's unit maps).
SideSpec slice_units();

// A vLLM page's stride: the state's bytes padded to the next multiple of 64, plus 64.
std::uint64_t vllm_page_stride(std::uint64_t state_bytes);

// A side of T ranks of a configuration, kept as `spec` says; fails where it
// does not load (or its bytes do not fit).
Outcome<SideBytes<std::int64_t>> state_side(const StateConfig& config, std::int64_t T, const SideSpec& spec);

// What a state entry is: its layer's global id and its tensor (SGLang's Conv
// or Ssm; a vLLM page holds both, and says Conv).
struct StateEntry {
  std::int64_t layer = 0;
  StatePart tensor = StatePart::Conv;
};

struct StateLayout {
  std::vector<std::int64_t> layers = {1, 3};
  std::int64_t prefill_slots = 6, decode_slots = 9;
  std::int64_t prefill_slot = 4, decode_slot = 7;
  std::uint64_t prefill_base = std::uint64_t{1} << 50, decode_base = std::uint64_t{1} << 51;
  std::uint64_t rank_stride = std::uint64_t{1} << 44, region_stride = std::uint64_t{1} << 37;

  // The entries of a side: SGLang's pool tensor-major, a page per layer in vLLM.
  std::vector<StateEntry> entries(StateContainer container) const;
  // For the child: the slots, the request, the layers, the bases.
  std::string json() const;
};

// For the child: what a side of T ranks of each configuration of `configs`
// holds, for every T in 1..1024 where it loads, keyed "CONFIG,T": C_loc, its
// SSM heads and their elements, the conv rows, the entry bytes (conv, SSM, and
// a vLLM page's stride), the order ("ds", "sd", "sd per segment") and the
// segments' full and local widths in family order.
std::string sides_json(const std::vector<std::size_t>& configs, const std::function<SideSpec(StateFamily)>& spec);

// The memory of one sizing: both sides' ranks, their regions, and what they hold.
class StateMemory {
 public:
  // Throws std::invalid_argument when a side cannot hold the state.
  StateMemory(const StateLayout& layout, const StateConfig& config, std::int64_t P, std::int64_t D,
              const SideSpec& prefill, const SideSpec& decode);

  const bytes::MemoryMap& map() const { return map_; }
  const StateConfig& config() const { return config_; }
  const SideSpec& spec(bytes::Side side) const { return side == bytes::Side::Prefill ? prefill_spec_ : decode_spec_; }
  const SideBytes<std::int64_t>& side(bytes::Side side) const { return side == bytes::Side::Prefill ? prefill_ : decode_; }
  const StateEntry& entry(std::int64_t region) const { return entries_.at(static_cast<std::size_t>(region)); }
  std::size_t entry_count() const { return entries_.size(); }
  std::int64_t request_slot(bytes::Side side) const;
  // The bytes of one unit of an entry's slice axis in a units memory: 1 for a conv channel, E for a head.
  std::uint64_t unit_bytes(std::int64_t region) const;

  // The address of byte `offset` (which may lie outside the slot, even
  // before it) of the request's slot of `rank`'s entry `region`.
  std::uint64_t request_address(bytes::Side side, std::int64_t rank, std::int64_t region, std::int64_t offset) const;

  // "conv layer 1 slot 7 x channel 4 row 1 byte 0", "layer 3 block 4 ssm head
  // 2 element 5 byte 3", "layer 1 block 7 padding byte 12"; a units memory
  // names the channel or head only.
  std::string describe(const bytes::RankMemory& rank, std::int64_t region, std::uint64_t offset) const;
  // "conv layer 1", "temporal layer 3", "layer 1".
  std::string entry_name(std::int64_t region) const;
  // "x channel 4 row 1 byte 0", "ssm head 2 element 5 byte 3", "padding byte 12".
  std::string what(const StateByte<std::int64_t>& b) const;
  // "12 bytes", or in a units memory "3 channels", "2 heads".
  std::string amount(std::int64_t region, std::uint64_t bytes) const;

 private:
  StateConfig config_;
  SideSpec prefill_spec_, decode_spec_;
  SideBytes<std::int64_t> prefill_, decode_;
  StateLayout layout_;
  std::vector<StateEntry> entries_;
  bytes::MemoryMap map_;
};

}  // namespace tpcheck::conform::state
