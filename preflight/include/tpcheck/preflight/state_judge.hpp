// Judging the bytes a connector's rule writes into one decode rank's
// recurrent state against what that rank must hold (SPEC §16.2's requirement,
// §16.7's kinds): every state byte written once, from the same segment,
// logical channel or head, row or element and byte of a prefill rank that
// holds it; nothing else written. The judge works on runs: a side's entry is
// cut into pieces over which its content advances linearly (one per segment
// under DS, per segment and row otherwise, the SSM heads, the padding), so a
// copy is judged piece by piece, not byte by byte.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tpcheck/state_bytes.hpp"

namespace tpcheck::preflight {

using StateUnits = units_t<std::int64_t>;
using StateSideBytes = SideBytes<std::int64_t>;

// §16.7's kinds of an incorrect byte of a decode rank's state, in the order
// the first that applies wins (those of one layer and one request: the
// memory kinds and wrong_layer need the conformance harness).
enum class StateFault : std::uint8_t {
  WriteOutsideRequest,  // past the decode rank's slot or page
  WrongSlot,            // read past the prefill rank's slot or page
  Padding,              // from or into a vLLM page's padding
  WrongSegment,         // another segment (B in C's place, SSM read as C)
  WrongChannels,        // the right segment, other channels or heads
  WrongPosition,        // the right channel or head, another row or element
  MisalignedInElement,  // the right element, another byte
  Unwritten,            // a byte of the state never written correctly
  Redundant,            // a byte written correctly twice, where the connector does not document it
};

std::string_view state_fault_name(StateFault f);     // "wrong_segment"
std::string_view state_fault_meaning(StateFault f);  // §16.7's meaning for a deployment

// Which entry of a side a write is in: a vLLM page (conv, SSM, padding), or
// SGLang's and TensorRT-LLM's separate conv and SSM ("temporal") slots.
enum class StateEntry : std::uint8_t { Page, Conv, Ssm };

// `n` bytes from byte `src` of prefill rank p's entry to byte `dst` of the
// decode rank's entry.
struct StateWrite {
  StateEntry entry = StateEntry::Page;
  std::int64_t p = 0;
  StateUnits src{}, dst{}, n{};
};

// The first fault of a decode rank: the first segment in family order (then
// "ssm", then "padding", then "past its slot") with one, and the first kind
// of it in StateFault's order, a wrong run counting as its first byte's kind.
struct StateFinding {
  std::string segment;
  StateFault fault = StateFault::Unwritten;
  bool operator==(const StateFinding&) const = default;
};

// Judges decode rank d's writes. `prefill` and `decode` are the sides'
// bytes (the prefill side's for every prefill rank; ranks differ only in
// the logical channels and heads they hold). Nothing when d's state is
// written exactly. Precondition: the sides pair (state_pairing accepts).
// `redundant_allowed`: a second correct copy is information (SGLang's
// replicas), not a fault.
std::optional<StateFinding> judge_state_writes(const StateSideBytes& prefill, const StateSideBytes& decode,
                                               std::int64_t d, std::span<const StateWrite> writes,
                                               bool redundant_allowed);

// The writes of the model's own state plan for decode rank d (SPEC §16.2,
// the byte runs of §16.3), for sides whose entries are `entry` (vLLM pages,
// or separate slots). Precondition: the plan exists.
std::vector<StateWrite> plan_writes(const StateSideBytes& prefill, const StateSideBytes& decode,
                                    const StateDims<std::int64_t>& dims, std::int64_t P, std::int64_t D, std::int64_t d);

}  // namespace tpcheck::preflight
