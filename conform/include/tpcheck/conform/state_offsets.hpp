// What the relations of SPEC §16.6's offset-level state functions share
// (vLLM NIXL's conv offsets, TensorRT-LLM's mappers): the sizings such a
// function serves, and the part of a decode rank's state it does not move,
// written as the model's plan writes it, so that the judge asks of the
// function only what it moves.
#pragma once

#include <cstdint>
#include <vector>

#include "tpcheck/conform/state_grid.hpp"
#include "tpcheck/conform/state_judge.hpp"
#include "tpcheck/conform/state_memory.hpp"

namespace tpcheck::conform::state {

// SPEC §16.8's valid sizings and those of equal sizes, (P, D, model), P + D
// smallest first, then P, D and the configuration.
std::vector<CaseArgs> served_cases(const GridBounds& bounds, const std::vector<StateFamily>& families);

// The copies of plan(d) of P -> D of one part of the state (StatePart::Conv:
// every conv segment; StatePart::Ssm: the SSM state), handed to `judge` in
// the memory's layouts.
void judge_plan_part(const StateMemory& memory, StateJudge& judge, std::int64_t d, std::int64_t P, std::int64_t D,
                     StatePart part);

}  // namespace tpcheck::conform::state
