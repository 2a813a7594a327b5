// `tpcheck plan`'s recurrent state (SPEC §16.2, §16.3): each decode rank's
// state copies beside its KV heads (segment, logical range, replicated or
// not, source rank, local units on both sides), with --state-bytes the byte
// runs under a layout, and the decode ranks each prefill rank's state serves.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "tpcheck/preflight/state_rules.hpp"

namespace tpcheck::cli {

// The sides' bytes under --state-bytes ds|sd|sglang: vLLM pages in that conv
// layout, or SGLang's pool (DS; KDA's conv state-first); the sides' windows
// and element sizes (SSM: the engine's default where not given). A one-line
// error when the sides do not pair (state_pairing).
struct StateByteSides {
  std::string layout;  // "ds", "sd", "sglang"
  preflight::StateSideBytes prefill, decode;
};
std::variant<StateByteSides, std::string> state_byte_sides(const preflight::HybridState& s, const std::string& layout,
                                                           std::int64_t P, std::int64_t D);

// Decode rank d's state lines: what it holds, then one line per copy (and its
// byte runs). Precondition: the state plan exists at (P, D).
std::string state_plan_text(const preflight::HybridState& s, std::int64_t P, std::int64_t D, std::int64_t d,
                            const std::optional<StateByteSides>& bytes);

// The same as a --json object: {"rank", "segments", "copies"}.
std::string state_plan_json(const preflight::HybridState& s, std::int64_t P, std::int64_t D, std::int64_t d,
                            const std::optional<StateByteSides>& bytes);

// "its state serves decode ranks 0 and 1": the decode ranks with a copy from p.
std::string state_served_text(const preflight::HybridState& s, std::int64_t P, std::int64_t D, std::int64_t p);
// The same ranks as a JSON list.
std::string state_served_json(const preflight::HybridState& s, std::int64_t P, std::int64_t D, std::int64_t p);

}  // namespace tpcheck::cli
