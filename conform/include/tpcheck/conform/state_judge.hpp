// Judging the bytes of hybrid models' recurrent state (SPEC §16.7), for any
// engine: each transfer cut where a region, a slot or a run of either side's
// layout ends, each piece's first bytes decoded through lib's layouts (side,
// rank, region -> layer and tensor, slot, then segment and logical channel,
// row and byte, or SSM head, element and byte, or a vLLM page's padding),
// and two runs of the same radices compared by their first bytes alone.
// SPEC §16.6's offset-level answers (blocks of slice-axis units, or of a
// slot's bytes) are judged the same way, as transfers between the request's
// slots of a units memory or of the pool's (state_memory.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tpcheck/conform/byte_judge.hpp"
#include "tpcheck/conform/profile.hpp"
#include "tpcheck/conform/state_memory.hpp"

namespace tpcheck::conform::state {

class StateJudge : public bytes::RegionJudge {
 public:
  // `prefix`: "nondiv:" for a sizing whose P and D do not divide. With
  // `offsets` (an offset-level answer), a byte outside the registered memory
  // is a slot's neighbour: wrong_slot, write_outside_request.
  StateJudge(const StateMemory& memory, FindingSet& findings, std::string prefix = "", bool offsets = false);

  // Blocks (src, dst, n) in the units of an entry's slice axis (or, with
  // `in_bytes`, bytes of its slot) from prefill rank p's request slot of
  // entry `region` to decode rank d's: judged as the transfers they stand for.
  void blocks(std::int64_t p, std::int64_t d, std::int64_t region,
              const std::vector<std::array<std::int64_t, 3>>& blocks, bool in_bytes);

 protected:
  std::uint64_t piece(std::int64_t p, std::int64_t d, const bytes::MemoryMap::Place& src,
                      const bytes::MemoryMap::Place& dst, std::uint64_t length) override;
  std::string describe_byte(const bytes::RankMemory& rank, std::int64_t region, std::uint64_t offset) const override;
  void required(const bytes::RankMemory& rank, std::int64_t region,
                std::vector<std::pair<std::uint64_t, std::uint64_t>>& out) const override;
  std::string required_text(const bytes::RankMemory& rank, std::uint64_t bytes) const override;
  void outside(std::int64_t p, std::int64_t d, bool src_in, bool dst_in, std::uint64_t src, std::uint64_t dst,
               std::uint64_t length) override;
  std::uint64_t count(std::int64_t region, std::uint64_t bytes) const override;
  std::string count_text(std::uint64_t n) const override;

 private:
  const StateMemory& state_;
  bool offsets_;
};

// SPEC §16.7's kinds, in its order: §14B.5's memory and engine kinds, then
// the state's own (redundant and whole_slot_fallback informational), then
// every kind's nondiv: twin. A profile whose engine requires each byte
// written once (TensorRT-LLM) copies the table and makes redundant a failure.
const std::vector<KindInfo>& state_kinds();

// A state function's binding: configuration by configuration over
// state_cases() (the families of `options`), findings about (p, d), the
// smallest case by (P + D, P, D, model, p, d), its kinds state_kinds().
Binding state_binding(std::string name, const ProfileOptions& options, bool not_divisible, const Relation& relation);

}  // namespace tpcheck::conform::state
