// Terms of SPEC §14 that the sglang profile (profile_sglang.cpp) and its
// relations (relations_sglang.cpp, byte_judge.cpp) share.
#pragma once

#include <cstdint>
#include <vector>

namespace tpcheck::conform::sglang {

// compute_staging_layout is called for 48 tokens of 3 layers (SPEC §14.3).
inline constexpr std::int64_t kStagingTokens = 48;
inline constexpr std::int64_t kStagingLayers = 3;

// SGLang's pairing: the prefill ranks decode rank d registers with (the
// rank mapping of §14.1). On a divisible pair, window(d, D, P); otherwise
// what its floor arithmetic gives, which may name ranks >= P.
inline std::vector<std::int64_t> senders(std::int64_t d, std::int64_t P, std::int64_t D) {
  if (D >= P) return {d / (D / P)};
  const std::int64_t span = P / D;
  std::vector<std::int64_t> out;
  for (std::int64_t p = d * span; p < (d + 1) * span; ++p) out.push_back(p);
  return out;
}

}  // namespace tpcheck::conform::sglang
