// The --fuzz target: libFuzzer's inputs decoded into deployments of the
// registry's domains (sizes, KV heads compatible with both sides), every
// binding's relation judged for every rank with trtllm_judge.hpp, and the
// first deviation turned into a crash that libFuzzer keeps and minimises.
// Included last by the translation unit tpcheck generates for --fuzz.
//
// TPCHECK_FUZZ_MAX_TP bounds the sizes and heads (default 64). With
// TPCHECK_FUZZ_EXPLAIN set, an input prints its deployment and first
// deviation instead of crashing (tpcheck reads that line).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "trtllm_observe.hpp"

namespace tpcheck_trtllm {

inline int fuzz_bound() {
  static const int bound = [] {
    const char* v = std::getenv("TPCHECK_FUZZ_MAX_TP");
    const int n = v ? std::atoi(v) : 64;
    return n >= 1 && n <= 1024 ? n : 64;
  }();
  return bound;
}

// Bytes in order, 0 past the end: a shorter input is a smaller deployment.
struct Bytes {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t at = 0;
  unsigned next() { return at < size ? data[at++] : 0u; }
  int below(int n) {  // in [0, n)
    const unsigned v = next() | (next() << 8);
    return n <= 0 ? 0 : static_cast<int>(v % static_cast<unsigned>(n));
  }
};

inline bool head_compatible(int T, int H) { return T >= 1 && H >= 1 && (T % H == 0 || H % T == 0); }

inline int compatible_heads(Bytes& b, int P, int D, int bound) {
  std::vector<int> heads;
  for (int H = 1; H <= bound; ++H) {
    if (head_compatible(P, H) && head_compatible(D, H)) heads.push_back(H);
  }
  return heads[static_cast<std::size_t>(b.below(static_cast<int>(heads.size())))];
}

// The first byte picks the domain, as the grid has them
// (conform/engines/trtllm/profile_trtllm.cpp): one PP stage without attention
// DP, sizes up to the bound; or, on sizes 1, 2 and 4, PP stage splits of 4
// layers; or attention DP on either side or both.
inline Deployment decode(const std::uint8_t* data, std::size_t size) {
  Bytes b{data, size};
  const int bound = fuzz_bound();
  Deployment dep;
  const unsigned mode = b.next() % 3;
  if (mode == 0) {
    dep.ctx.tp = 1 + b.below(bound);
    dep.gen.tp = 1 + b.below(bound);
    dep.heads = compatible_heads(b, dep.ctx.tp, dep.gen.tp, bound);
    return dep;
  }
  const int sizes[] = {1, 2, 4};
  const int small = bound >= 4 ? 3 : bound >= 2 ? 2 : 1;
  dep.ctx.tp = sizes[b.below(small)];
  dep.gen.tp = sizes[b.below(small)];
  dep.heads = compatible_heads(b, dep.ctx.tp, dep.gen.tp, std::min(4, bound));
  if (mode == 1) {
    static const std::vector<long long> splits = layer_splits();
    dep.ctx.stage_layers = stage_layers_of(splits[static_cast<std::size_t>(b.below(static_cast<int>(splits.size())))]);
    dep.gen.stage_layers = stage_layers_of(splits[static_cast<std::size_t>(b.below(static_cast<int>(splits.size())))]);
    return dep;
  }
  const int sides = 1 + b.below(3);  // 1: ctx, 2: gen, 3: both
  dep.ctx.adp = sides & 1;
  dep.gen.adp = sides & 2;
  if (dep.ctx.adp) dep.serving_group = b.below(dep.ctx.tp);
  if (dep.gen.adp) dep.asking_group = b.below(dep.gen.tp);
  return dep;
}

struct Finding {
  std::string binding;
  std::string kind;
  int rank = 0;
};

inline std::optional<Finding> first_deviation(Observer& o) {
  const Deployment& dep = o.deployment();
  const StdHeads model;
  auto check = [&](const char* binding, const Outcome& out, int rank, auto judge) -> std::optional<Finding> {
    Verdict v;
    if (out.raised) {
      v = judge_raised(dep, out.cls);
    } else {
      v = judge(out.text);
    }
    if (v.kind.empty()) return std::nullopt;
    return Finding{binding, v.kind, rank};
  };
  for (int d = 0; d < dep.gen.ranks(); ++d) {
    if (!asks(dep, d)) continue;
    if (auto f = check("targetIRanks", o.target_view(d), d,
                       [&](const std::string& t) { return judge_target(dep, d, parse_target(t).value(), model); })) {
      return f;
    }
  }
#if TPCHECK_HAS_NEED_SEND
  for (int p = 0; p < dep.ctx.ranks(); ++p) {
    if (dep.ctx.adp && p % dep.ctx.tp != dep.serving_group) continue;
    if (auto f = check("CacheFormatter::needSendCache", o.send_view(p), p,
                       [&](const std::string& t) { return judge_send(dep, p, parse_send(t).value(), model); })) {
      return f;
    }
  }
#endif
#if TPCHECK_HAS_PICK
  for (int d = 0; d < dep.gen.ranks(); ++d) {
    if (!asks(dep, d)) continue;
    if (auto f = check("CacheFormatter::pickRecvConnections", o.pick_view(d), d,
                       [&](const std::string& t) { return judge_pick(dep, d, parse_pick(t).value(), model); })) {
      return f;
    }
  }
#endif
#if TPCHECK_HAS_INQUIRE
  if (auto f = check("CacheFormatter::inquireSupport", o.inquire_view(), 0,
                     [&](const std::string& t) { return judge_inquire(dep, t == "true"); })) {
    return f;
  }
#endif
  return std::nullopt;
}

}  // namespace tpcheck_trtllm

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpcheck_trtllm;
  static const bool explain = std::getenv("TPCHECK_FUZZ_EXPLAIN") != nullptr;
  const Deployment dep = decode(data, size);
  if (explain) {
    auto digits = [](const Side& side) {
      long long n = 0;
      for (const int c : side.stage_layers) n = n * 10 + c;
      return n;
    };
    std::fprintf(stderr, "TPCHECK-DEPLOYMENT P=%d D=%d H=%d ctx_layers=%lld gen_layers=%lld ctx_adp=%d gen_adp=%d c=%d g=%d\n",
                 dep.ctx.tp, dep.gen.tp, dep.heads, digits(dep.ctx), digits(dep.gen), dep.ctx.adp ? 1 : 0,
                 dep.gen.adp ? 1 : 0, dep.serving_group, dep.asking_group);
    std::fflush(stderr);
  }
  Observer o(dep);
  const auto f = first_deviation(o);
  if (!f) return 0;
  std::fprintf(stderr, "TPCHECK-DEVIATION %s %s P=%d D=%d H=%d rank=%d\n", f->binding.c_str(), f->kind.c_str(),
               dep.ctx.tp, dep.gen.tp, dep.heads, f->rank);
  std::fflush(stderr);
  if (!explain) std::abort();
  return 0;
}
