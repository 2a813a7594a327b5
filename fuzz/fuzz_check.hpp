// What every fuzz target does with the shared predicates: run them on the
// decoded inputs in each integer type the inputs fit, and abort with the
// violation on stderr (so libFuzzer and the replay driver report the input).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "fuzz_input.hpp"
#include "tpcheck/invariants.hpp"

namespace tpcheck::fuzz {

// Aborts when an invariant is violated; `invariant` names the predicate.
inline void require(const inv::Violation& violation, const char* invariant) {
  if (!violation) return;
  const std::string trace = FuzzInput::take_trace();
  if (!trace.empty()) std::fprintf(stderr, "tpcheck fuzz input: %s\n", trace.c_str());
  std::fprintf(stderr, "tpcheck fuzz: %s violated: %s\n", invariant, violation->c_str());
  std::abort();
}

// Runs `check(args...)` on the inputs as cpp_int and, when every input fits,
// again as int64: the model must hold in both instantiations.
template <std::size_t N, class Check>
void in_every_int_type(const std::array<BigInt, N>& values, Check check) {
  std::apply(check, values);
  std::array<std::int64_t, N> narrowed{};
  for (std::size_t i = 0; i < N; ++i) {
    const std::optional<std::int64_t> v = narrow(values[i]);
    if (!v) return;
    narrowed[i] = *v;
  }
  std::apply(check, narrowed);
}

// Whether a loop over `count` ranks (or products of counts) is cheap enough to
// run on every input: the per-configuration predicates enumerate one side.
inline bool affordable(const BigInt& count, std::int64_t limit) { return count >= 0 && count <= limit; }

}  // namespace tpcheck::fuzz

// The libFuzzer entry point every target defines.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
