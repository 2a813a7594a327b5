// What the parser fuzz targets (eval_line, cli_options, conform_protocol) do
// with a failed expectation: abort with it on stderr, so libFuzzer and the
// replay driver report the input. (The registry targets report through
// registry_driver.hpp.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "fuzz_input.hpp"

namespace tpcheck::fuzz {

// What a parser target saw wrong, if anything.
using Violation = std::optional<std::string>;

// Aborts when `violation` is set; `what` names the property.
inline void require(const Violation& violation, const char* what) {
  if (!violation) return;
  const std::string trace = FuzzInput::take_trace();
  if (!trace.empty()) std::fprintf(stderr, "tpcheck fuzz input: %s\n", trace.c_str());
  std::fprintf(stderr, "tpcheck fuzz: %s violated: %s\n", what, violation->c_str());
  std::abort();
}

}  // namespace tpcheck::fuzz

// The libFuzzer entry point every target defines.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
