// Readers of the canonical forms the child writes for structured values
// (conform/child/'s int_list, child/22_vllm.py's tp_mapping and sender_plan
// renderings). They take any text and return nullopt unless it is exactly
// the form.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

namespace tpcheck::conform {

// "[0, 1]"
std::optional<std::vector<std::int64_t>> read_int_list(std::string_view text);

// "TPMapping(sources=[0, 1], rank_offset_factor=0, rank_to_attention_slot={0: 0, 1: 1}[, local_consumers=2])"
struct NixlMappingFields {
  std::vector<std::int64_t> sources;
  std::int64_t rank_offset_factor = 0;
  std::map<std::int64_t, std::int64_t> slots;
  std::optional<std::int64_t> local_consumers;
};
std::optional<NixlMappingFields> read_nixl_mapping(std::string_view text);

// "(True, 0, 128, 128)"
struct SenderCopy {
  bool transfer = false;
  std::int64_t src = 0, dst = 0, length = 0;
};
std::optional<SenderCopy> read_sender_copy(std::string_view text);

// "3", "-2"
std::optional<std::int64_t> read_int(std::string_view text);

}  // namespace tpcheck::conform
