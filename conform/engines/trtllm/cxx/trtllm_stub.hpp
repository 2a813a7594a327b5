// tpcheck's stand-ins for the TensorRT-LLM declarations that targetIRanks and
// CacheFormatter's rank selection touch (SPEC §15.2), written from the SPEC's
// interface facts: nothing here comes from TensorRT-LLM. The functions cut
// out of the files under test are compiled against this header (C++20, for
// designated initializers), so it declares exactly what they read, in the
// namespaces they name it from.
//
// TPCHECK_TARGET_RANKS_LAYOUT picks the TargetRanksInfo of the version under
// test (read from the code: conform/engines/trtllm/trtllm_cxx_child.cpp):
//   1  {mDomainPPSize, mDomainTPSize, mIRanks}                      (the oldest)
//   2  ... mIRanks, mDupHeadFactor, mPeerDupHeadFactor}
//   3  {mDomainPPSize, mDomainTPSize, mDomainCPSize, mIRanks, mDupHeadFactor,
//       mPeerDupHeadFactor, mPeerAttentionLayerNumInDomainPP}
//   4  the same with mPeerLayerNumInDomainPP                        (the newest)
#pragma once

#include <algorithm>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#ifndef TPCHECK_TARGET_RANKS_LAYOUT
#define TPCHECK_TARGET_RANKS_LAYOUT 4
#endif

namespace nvinfer1 {
enum class DataType : std::int32_t { kFLOAT, kHALF, kINT8, kINT32, kBOOL, kUINT8, kFP8, kBF16, kINT64, kFP4 };
}

namespace tensorrt_llm {

namespace runtime {
using SizeType32 = std::int32_t;
}

namespace common {

// What TLLM_CHECK throws: the driver reports it as a refusal (class TLLM_CHECK).
class TllmException : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void throwCheckFailure(const char* file, int line, const char* what, const std::string& info) {
  throw TllmException(std::string("[TensorRT-LLM][ERROR] Assertion failed: ") + (info.empty() ? what : info) + " (" +
                      file + ":" + std::to_string(line) + ")");
}

// The info of TLLM_CHECK_WITH_INFO: its format string, arguments type-checked
// by the compiler's printf checking and printed as printf would.
[[gnu::format(printf, 1, 2)]] inline std::string fmtstr(const char* format, ...) {
  va_list args;
  va_start(args, format);
  char buffer[512];
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}
inline std::string fmtstr(const std::string& text) { return text; }

// Logging prints nothing; the arguments are still evaluated and type-checked.
template <class... Args>
inline void logNothing(const Args&...) {}

}  // namespace common

namespace mpi {
class MpiComm {
 public:
  static MpiComm& world() {
    static MpiComm comm;
    return comm;
  }
  int getRank() const { return 0; }
  int getSize() const { return 1; }
};
}  // namespace mpi

namespace executor {

using SizeType32 = runtime::SizeType32;

namespace kv_cache {

class CacheState {
 public:
  enum class AttentionType : std::int32_t { kDEFAULT = 0, kMLA = 1 };

  struct ModelConfig {
    std::vector<SizeType32> mNbKvHeadsPerLayer;  // per-rank heads, one entry per layer of the whole model
    SizeType32 mSizePerHead = 0;
    SizeType32 mTokensPerBlock = 0;
    bool operator==(const ModelConfig&) const = default;
  };

  struct ParallelConfig {
    SizeType32 mTensorParallelism = 1;
    SizeType32 mPipelineParallelism = 1;
    SizeType32 mContextParallelism = 1;
    bool mEnableAttentionDP = false;
    SizeType32 mDPrank = 0;
    SizeType32 mDPsize = 1;
    std::vector<SizeType32> mAttentionLayerNumPerPP;
    bool mEnableAttenionDP = false;  // the spelling of older versions, kept equal to mEnableAttentionDP
    bool operator==(const ParallelConfig&) const = default;
  };

  struct AttentionConfig {
    AttentionType mAttentionType = AttentionType::kDEFAULT;
    int mKvFactor = 2;
    bool operator==(const AttentionConfig&) const = default;
  };

  CacheState(ModelConfig model, ParallelConfig parallel, AttentionConfig attention, nvinfer1::DataType type)
      : mModelConfig(std::move(model)), mParallelConfig(std::move(parallel)), mAttentionConfig(attention),
        mDataType(type) {}

  const ModelConfig& getModelConfig() const { return mModelConfig; }
  const ParallelConfig& getParallelConfig() const { return mParallelConfig; }
  const AttentionConfig& getAttentionConfig() const { return mAttentionConfig; }
  nvinfer1::DataType getDataType() const { return mDataType; }
  bool operator==(const CacheState&) const = default;

 private:
  ModelConfig mModelConfig;
  ParallelConfig mParallelConfig;
  AttentionConfig mAttentionConfig;
  nvinfer1::DataType mDataType;
};

#if TPCHECK_TARGET_RANKS_LAYOUT == 1
struct TargetRanksInfo {
  int mDomainPPSize;
  int mDomainTPSize;
  std::vector<int> mIRanks;
};
#elif TPCHECK_TARGET_RANKS_LAYOUT == 2
struct TargetRanksInfo {
  int mDomainPPSize;
  int mDomainTPSize;
  std::vector<int> mIRanks;
  int mDupHeadFactor;
  int mPeerDupHeadFactor;
};
#else
struct TargetRanksInfo {
  int mDomainPPSize;
  int mDomainTPSize;
  int mDomainCPSize;
  std::vector<int> mIRanks;
  int mDupHeadFactor;
  int mPeerDupHeadFactor;
#if TPCHECK_TARGET_RANKS_LAYOUT == 3
  std::vector<int> mPeerAttentionLayerNumInDomainPP;
  int getPeerPPDomainLayerNum(int targetRankIdx) const {
    return mPeerAttentionLayerNumInDomainPP.at(targetRankIdx % mDomainPPSize);
  }
#else
  std::vector<int> mPeerLayerNumInDomainPP;
  int getPeerPPDomainLayerNum(int targetRankIdx) const { return mPeerLayerNumInDomainPP.at(targetRankIdx % mDomainPPSize); }
#endif
};
#endif

TargetRanksInfo targetIRanks(CacheState const& peerCacheState, CacheState const& selfCacheState, int selfRank);

// Older pickRecvConnections take and return connections: only their identity matters.
class Connection {
 public:
  explicit Connection(std::size_t index) : mIndex(index) {}
  std::size_t index() const { return mIndex; }

 private:
  std::size_t mIndex;
};

}  // namespace kv_cache
}  // namespace executor

namespace batch_manager {
namespace kv_cache_manager {
using SizeType32 = runtime::SizeType32;
using CacheState = executor::kv_cache::CacheState;
}  // namespace kv_cache_manager
using kv_cache_manager::CacheState;
}  // namespace batch_manager

}  // namespace tensorrt_llm

#define TLLM_CHECK(cond)                                                                      \
  do {                                                                                        \
    if (!(cond)) ::tensorrt_llm::common::throwCheckFailure(__FILE__, __LINE__, #cond, "");    \
  } while (0)
#define TLLM_CHECK_WITH_INFO(cond, ...)                                                       \
  do {                                                                                        \
    if (!(cond))                                                                              \
      ::tensorrt_llm::common::throwCheckFailure(__FILE__, __LINE__, #cond,                    \
                                                ::tensorrt_llm::common::fmtstr(__VA_ARGS__)); \
  } while (0)
#define TLLM_THROW(...) \
  ::tensorrt_llm::common::throwCheckFailure(__FILE__, __LINE__, "", ::tensorrt_llm::common::fmtstr(__VA_ARGS__))
#define TLLM_LOG_TRACE(...) ::tensorrt_llm::common::logNothing(__VA_ARGS__)
#define TLLM_LOG_DEBUG(...) ::tensorrt_llm::common::logNothing(__VA_ARGS__)
#define TLLM_LOG_INFO(...) ::tensorrt_llm::common::logNothing(__VA_ARGS__)
#define TLLM_LOG_WARNING(...) ::tensorrt_llm::common::logNothing(__VA_ARGS__)
#define TLLM_LOG_ERROR(...) ::tensorrt_llm::common::logNothing(__VA_ARGS__)
#define NVTX3_SCOPED_RANGE(name)
