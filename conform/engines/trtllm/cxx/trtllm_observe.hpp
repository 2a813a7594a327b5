// Runs the functions cut out of the files under test on one deployment, as
// TensorRT-LLM's transceiver calls them (SPEC §15.2), and writes what they
// did as the views of trtllm_judge.hpp. Compiled into the C++ child and the
// --fuzz target after the stub header and the extracted functions; each
// TPCHECK_HAS_<FUNCTION> says whether the files define that function (a
// version without needSendCache sends on every connection; one without
// pickRecvConnections receives from every connection).
#pragma once

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <typeinfo>
#include <vector>

#include "trtllm_judge.hpp"
#include "trtllm_stub.hpp"

namespace tpcheck_trtllm {

namespace kv = ::tensorrt_llm::executor::kv_cache;

// Per-head geometry of the states: any positive values do (SPEC §15.2).
inline constexpr int kSizePerHead = 128;
inline constexpr int kTokensPerBlock = 32;

// The CacheState of a side as one of its ranks (or the instance as a DP
// group) presents it: per-rank heads ceil(H / T'), mDPrank the TP rank (or
// the group), mDPsize T (SPEC §15.0).
inline kv::CacheState make_state(const Side& side, int heads, int dp_rank) {
  const int per_rank = side.adp ? heads : (heads + side.tp - 1) / side.tp;
  kv::CacheState::ModelConfig model{std::vector<std::int32_t>(static_cast<std::size_t>(side.layers()), per_rank),
                                    kSizePerHead, kTokensPerBlock};
  kv::CacheState::ParallelConfig parallel;
  parallel.mTensorParallelism = side.tp;
  parallel.mPipelineParallelism = side.pp();
  parallel.mContextParallelism = 1;
  parallel.mEnableAttentionDP = side.adp;
  parallel.mEnableAttenionDP = side.adp;
  parallel.mDPrank = dp_rank;
  parallel.mDPsize = side.tp;
  parallel.mAttentionLayerNumPerPP.assign(side.stage_layers.begin(), side.stage_layers.end());
  kv::CacheState::AttentionConfig attention{kv::CacheState::AttentionType::kDEFAULT, 2};
  return kv::CacheState(std::move(model), std::move(parallel), attention, nvinfer1::DataType::kHALF);
}

// An exception a call let out.
struct Raised {
  std::string cls;   // "TLLM_CHECK" for TLLM_CHECK's exception, else the C++ type
  std::string what;  // its message, prefixed with the call that threw
};

inline std::string demangled(const char* name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
  return status == 0 && text ? std::string(text.get()) : std::string(name);
}

template <class T>
struct Result {
  std::optional<T> value;
  Raised raised;
};

template <class T, class F>
Result<T> guarded(const std::string& call, F&& f) {
  Result<T> r;
  try {
    r.value = f();
  } catch (const ::tensorrt_llm::common::TllmException& e) {
    r.raised = {"TLLM_CHECK", call + ": " + e.what()};
  } catch (const std::exception& e) {
    r.raised = {demangled(typeid(e).name()), call + ": " + e.what()};
  } catch (...) {
    r.raised = {"unknown exception", call + ": an exception that is not a std::exception"};
  }
  return r;
}

// What tpcheck found for each binding (the generated translation unit lists it).
struct Extracted {
  const char* binding;  // the profile's name
  const char* found;    // the definition's qualified name; empty when the files have none
  const char* where;    // file:line
  const char* missing;  // why it is skipped, when not found
};
extern const Extracted kExtracted[];

// One outcome of a case: a view's text, or the first exception met.
struct Outcome {
  bool raised = false;
  std::string cls;
  std::string text;
};

inline Outcome raised_outcome(const Raised& r) { return {true, r.cls, r.what}; }

class Observer {
 public:
  explicit Observer(Deployment dep)
      : dep_(std::move(dep)),
        ctx_instance_(make_state(dep_.ctx, dep_.heads, dep_.serving_group)),
        connects_(static_cast<std::size_t>(dep_.gen.ranks())),
        picks_(static_cast<std::size_t>(dep_.gen.ranks())) {}

  const Deployment& deployment() const { return dep_; }

  kv::CacheState gen_state(int d) const { return make_state(dep_.gen, dep_.heads, d % dep_.gen.tp); }
  kv::CacheState ctx_state(int p) const { return make_state(dep_.ctx, dep_.heads, p % dep_.ctx.tp); }

  // Gen rank d's targetIRanks: the ctx ranks it connects to, in connection order.
  const Result<std::vector<int>>& connects(int d) {
    auto& slot = connects_[static_cast<std::size_t>(d)];
    if (!slot) {
      slot = guarded<std::vector<int>>("targetIRanks for gen rank " + std::to_string(d), [&] {
        return std::vector<int>(kv::targetIRanks(ctx_instance_, gen_state(d), d).mIRanks);
      });
    }
    return *slot;
  }

  // Ctx rank p's targetIRanks for gen rank d's request: the gen ranks it waits for.
  Result<std::vector<int>> waits_for(int p, int d) {
    return guarded<std::vector<int>>(
        "targetIRanks for ctx rank " + std::to_string(p) + " asked by gen rank " + std::to_string(d),
        [&] { return std::vector<int>(kv::targetIRanks(gen_state(d), ctx_state(p), p).mIRanks); });
  }

  // Whether ctx rank p sends its cache to gen rank d.
  Result<bool> sends(int p, int d) {
    return guarded<bool>("needSendCache of ctx rank " + std::to_string(p) + " for gen rank " + std::to_string(d),
                         [&] {
#if TPCHECK_HAS_NEED_SEND
                           TpcheckCacheFormatter formatter;
                           return static_cast<bool>(formatter.needSendCache(ctx_state(p), gen_state(d), p));
#else
                           return true;
#endif
                         });
  }

  // The indices of d's connections that d receives from.
  const Result<std::vector<long long>>& picks(int d) {
    auto& slot = picks_[static_cast<std::size_t>(d)];
    if (slot) return *slot;
    const auto& c = connects(d);
    if (!c.value) {
      slot = Result<std::vector<long long>>{std::nullopt, c.raised};
      return *slot;
    }
    const std::size_t n = c.value->size();
    slot = guarded<std::vector<long long>>("pickRecvConnections of gen rank " + std::to_string(d), [&] {
      std::vector<long long> out;
#if TPCHECK_HAS_PICK
      TpcheckCacheFormatter formatter;
      const auto self = gen_state(d);
      // Newer versions take the connection count and return indices, older
      // ones take and return the connections themselves.
      [&](auto& f) {
        if constexpr (requires { f.pickRecvConnections(n, self, d, ctx_instance_); }) {
          for (const auto i : f.pickRecvConnections(n, self, d, ctx_instance_)) out.push_back(static_cast<long long>(i));
        } else {
          std::vector<kv::Connection> storage;
          std::vector<kv::Connection const*> connections;
          for (std::size_t i = 0; i < n; ++i) storage.emplace_back(i);
          for (const auto& c : storage) connections.push_back(&c);
          for (const auto* picked : f.pickRecvConnections(connections, self, d, ctx_instance_)) {
            out.push_back(picked ? static_cast<long long>(picked->index()) : -1);
          }
        }
      }(formatter);
#else
      for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<long long>(i));
#endif
      return out;
    });
    return *slot;
  }

  Result<bool> inquire() {
    return guarded<bool>("inquireSupport of gen rank 0", [&] {
#if TPCHECK_HAS_INQUIRE
      TpcheckCacheFormatter formatter;
      return static_cast<bool>(formatter.inquireSupport(gen_state(0), ctx_instance_));
#else
      return true;
#endif
    });
  }

  // The gen ranks whose connections hold ctx rank p; a failure of any gen
  // rank's targetIRanks is the outcome.
  std::optional<Raised> asked_by(int p, std::vector<int>& out) {
    out.clear();
    for (int d = 0; d < dep_.gen.ranks(); ++d) {
      if (!asks(dep_, d)) continue;
      const auto& c = connects(d);
      if (!c.value) return c.raised;
      if (contains(*c.value, p)) out.push_back(d);
    }
    return std::nullopt;
  }

  // A deployment the version cannot be asked about: attention DP where it
  // never reads it, stages of different layer counts where it never reads them.
  std::optional<Outcome> unsupported() const {
    if (!TPCHECK_READS_ADP && (dep_.ctx.adp || dep_.gen.adp)) {
      return Outcome{true, "TPCHECK_UNSUPPORTED", "this version has no attention DP (it never reads mEnableAttentionDP)"};
    }
    auto even = [](const Side& s) {
      return std::all_of(s.stage_layers.begin(), s.stage_layers.end(), [&](int c) { return c == s.stage_layers[0]; });
    };
    if (!TPCHECK_READS_LAYER_SPLIT && (!even(dep_.ctx) || !even(dep_.gen))) {
      return Outcome{true, "TPCHECK_UNSUPPORTED",
                     "this version splits layers evenly over PP stages (it never reads mAttentionLayerNumPerPP)"};
    }
    return std::nullopt;
  }

  // --- the views of the bindings ---
  Outcome target_view(int d) {
    if (auto u = unsupported()) return *u;
    const auto& c = connects(d);
    if (!c.value) return raised_outcome(c.raised);
    TargetView v;
    v.connects = *c.value;
    for (const int p : v.connects) {
      if (p < 0 || p >= dep_.ctx.ranks()) continue;
      TargetView::Peer peer;
      peer.rank = p;
      auto waits = waits_for(p, d);
      if (!waits.value) return raised_outcome(waits.raised);
      peer.waits_for = *waits.value;
      if (auto r = asked_by(p, peer.asked_by)) return raised_outcome(*r);
      v.peers.push_back(std::move(peer));
    }
    return {false, "", render(v)};
  }

  Outcome send_view(int p) {
    if (auto u = unsupported()) return *u;
    SendView v;
    if (auto r = asked_by(p, v.asked_by)) return raised_outcome(*r);
    for (const int d : v.asked_by) {
      auto s = sends(p, d);
      if (!s.value) return raised_outcome(s.raised);
      if (*s.value) v.sends_to.push_back(d);
      const auto& k = picks(d);
      if (!k.value) return raised_outcome(k.raised);
      const auto& connections = *connects(d).value;
      for (const long long i : *k.value) {
        if (i >= 0 && i < static_cast<long long>(connections.size()) &&
            connections[static_cast<std::size_t>(i)] == p && !contains(v.picked_by, d)) {
          v.picked_by.push_back(d);
        }
      }
    }
    return {false, "", render(v)};
  }

  Outcome pick_view(int d) {
    if (auto u = unsupported()) return *u;
    const auto& c = connects(d);
    if (!c.value) return raised_outcome(c.raised);
    PickView v;
    v.connects = *c.value;
    for (const int p : v.connects) {
      if (p < 0 || p >= dep_.ctx.ranks()) continue;
      auto s = sends(p, d);
      if (!s.value) return raised_outcome(s.raised);
      if (*s.value && !contains(v.senders, p)) v.senders.push_back(p);
    }
    const auto& k = picks(d);
    if (!k.value) return raised_outcome(k.raised);
    v.picks = *k.value;
    return {false, "", render(v)};
  }

  Outcome inquire_view() {
    if (auto u = unsupported()) return *u;
    auto r = inquire();
    if (!r.value) return raised_outcome(r.raised);
    return {false, "", *r.value ? "true" : "false"};
  }

 private:
  Deployment dep_;
  kv::CacheState ctx_instance_;
  std::vector<std::optional<Result<std::vector<int>>>> connects_;
  std::vector<std::optional<Result<std::vector<long long>>>> picks_;
};

}  // namespace tpcheck_trtllm
