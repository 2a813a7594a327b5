// What every rendering of a RunReport shares (text and JSON in report.cpp,
// SARIF in report_sarif.cpp, Markdown in report_markdown.cpp), so that they
// say the same things in the same words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tpcheck/conform/run.hpp"

namespace tpcheck::conform::report_support {

// Outcomes are shown in full up to this many bytes (a function may return a
// huge list); the record file keeps them whole.
inline constexpr std::size_t kShownOutcome = 400;

// `outcome` cut to `limit` bytes, saying how long it was.
std::string shown(const std::string& outcome, std::size_t limit = kShownOutcome);

// The definition found, with the row of the profile it stands for when the
// profile checks it more than once: "NixlKVManager.send_kvcache_slice
// (without total_kv_head_num)".
std::string found_row(const FunctionReport& f);

// "moriio_connector.py:103": where the function is defined.
std::string where(const FunctionReport& f);

// The expected outcome and, for a relation, the model call it comes from:
// "0  (for producer rank 1: single_readers(1, 2, 1))".
std::string expected_with_note(const Counterexample& c, std::size_t limit = kShownOutcome);

std::size_t functions_with_deviations(const RunReport& r);

// "profile vllm-mooncake --hybrid" or "adapter my_adapter.py".
std::string run_title(const RunReport& r);
// ", hybrid state up to 8 (gdn, kda)" when a state function was checked; else empty.
std::string state_grid_text(const RunReport& r);

}  // namespace tpcheck::conform::report_support
