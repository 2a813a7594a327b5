// A hybrid deployment's recurrent state as `tpcheck check`, `plan` and
// `matrix` take it (SPEC §16.5), and what each connector's code does with
// it: the sizings it refuses, those it runs outside the model, and, for
// those it runs, whether the bytes its rule moves are the model's plan
// (state_judge.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tpcheck/deployment.hpp"
#include "tpcheck/preflight/state_judge.hpp"

namespace tpcheck::preflight {

// One side's state as deployed.
struct StateSide {
  std::int64_t window = 3;                // L: rows of conv window (K - 1 + num_spec)
  std::int64_t conv_bytes = 2;            // e_conv
  std::optional<std::int64_t> ssm_bytes;  // e_ssm; nothing: the engine's default (ssm_element_bytes)
  ConvOrder layout = ConvOrder::StateFirst;  // vLLM's VLLM_SSM_CONV_STATE_LAYOUT (SGLang and TensorRT-LLM keep their own)
};

struct HybridState {
  StateDims<std::int64_t> dims;
  std::int64_t kernel = 4;  // K
  StateSide prefill, decode;
};

// The attention layers beside the state: Mooncake pads state pages to an
// attention page and slices them by its replica rule.
struct AttentionShape {
  bool present = true;
  std::int64_t kv_heads = 1;
  bool mla = false;
};

// What a sizing is judged on: the attention layers and, for a hybrid model,
// its recurrent state.
struct ModelShape {
  AttentionShape attention;
  std::optional<HybridState> state;
};

// A side's SSM element size under connector c's engine: given, else SGLang's
// float32 (4) and vLLM's float32 KDA recurrent state (4), else 2.
std::int64_t ssm_element_bytes(const StateSide& side, Connector c, StateFamily family);

// A T-rank side's state bytes in `order` and `container` (the model's
// side_bytes on its ownership); a vLLM page of `page_bytes` (0: no padding).
// Fails as state_ownership and side_bytes do.
Outcome<StateSideBytes> side_state_bytes(std::int64_t T, const StateDims<std::int64_t>& dims, ConvOrder order,
                                         StateContainer container, std::int64_t rows, std::int64_t e_conv,
                                         std::int64_t e_ssm, StateUnits page_bytes = StateUnits(0));

// What a connector does with the state of a sizing, first that applies:
enum class StateServing : std::uint8_t {
  DoesNotLoad,  // the model does not load at P or D (SPEC §16.1's checks)
  Refuses,      // the connector raises (its own checks, or the model's for a sizing it refuses)
  Outside,      // it runs a layout the model does not describe (TensorRT-LLM's B and C with one group)
  Invalid,      // it moves bytes for a pair the model calls invalid (SPEC §16.2: accepts_invalid)
  Misserves,    // its rule moves other bytes than the plan
  Serves,       // its bytes are the plan's
};

struct StateVerdict {
  StateServing serving = StateServing::Serves;
  std::string error;  // DoesNotLoad, Refuses, Invalid: "Kind: message", the model's or the connector's
  std::string side;   // DoesNotLoad: "prefill" or "decode"
  std::string why;    // Outside: why; Misserves: the rule it moves the state by, where it has no state plan
  std::int64_t decode_rank = 0;  // Misserves: the first decode rank misserved,
  StateFinding finding;          // ... its first segment and fault
};

// Connector c's handling of the state at prefill TP P, decode TP D (SPEC
// §16.5's list): O(D) decode ranks, each judged by its runs.
StateVerdict state_verdict(Connector c, std::int64_t P, std::int64_t D, const HybridState& s,
                           const AttentionShape& attention);

// Serves (the state line of `check` says "serves").
inline bool state_served(const StateVerdict& v) { return v.serving == StateServing::Serves; }

// "Kind: message", or only the kind when the exception has no message.
std::string failure_line(const Failure& f);

}  // namespace tpcheck::preflight
