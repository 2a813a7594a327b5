// Terms of SPEC §15.1 that the Python half of profile trtllm
// (profile_trtllm_python.cpp) and its relations (relations_peers.cpp) share:
// the synthetic blocks the block mappers are run on.
#pragma once

#include <cstdint>
#include <string>

namespace tpcheck::conform::peers {

// Every rank gets `blocks` request blocks, `block_stride` apart (gaps far
// wider than any block: a copy past a block's end lands in no block), ranks
// `rank_stride` apart, ctx and gen far apart. A head slot of a block holds
// B = tokens x dims x element_bytes bytes (SPEC §15.0).
struct BlockLayout {
  std::int64_t tokens = 4;
  std::int64_t dims = 2;
  std::int64_t element_bytes = 2;
  std::int64_t blocks = 3;
  std::uint64_t ctx_base = std::uint64_t{1} << 50;
  std::uint64_t gen_base = std::uint64_t{1} << 51;
  std::uint64_t rank_stride = std::uint64_t{1} << 40;
  std::uint64_t block_stride = std::uint64_t{1} << 20;

  std::int64_t head_bytes() const { return tokens * dims * element_bytes; }
  std::string json() const {
    auto u = [](std::uint64_t v) { return std::to_string(v); };
    return "{\"tokens\": " + std::to_string(tokens) + ", \"dims\": " + std::to_string(dims) +
           ", \"element_bytes\": " + std::to_string(element_bytes) + ", \"blocks\": " + std::to_string(blocks) +
           ", \"base\": {\"ctx\": " + u(ctx_base) + ", \"gen\": " + u(gen_base) + "}, \"rank_stride\": " +
           u(rank_stride) + ", \"block_stride\": " + u(block_stride) + "}";
  }
};

inline const BlockLayout kBlocks{};

}  // namespace tpcheck::conform::peers
