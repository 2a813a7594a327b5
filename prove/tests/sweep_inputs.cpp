#include "sweep_inputs.hpp"

#include <algorithm>

namespace tpcheck::prove::test {
namespace {

using I = std::int64_t;

BigInt pow2(unsigned n) { return BigInt(1) << n; }

Args args(std::initializer_list<BigInt> values) { return Args(values); }

bool heads_shard(I T, I H) { return T >= 1 && H >= 1 && (T % H == 0 || H % T == 0); }

// Beyond int64: divisible and non-divisible pairs both ways, and ranks at
// their ends, as (r, L, R).
std::vector<Args> big_rank_triples() {
  const BigInt a = pow2(70), b = pow2(71), c = pow2(64) * 3, d = pow2(64) + 1;
  return {args({a - 1, a, b}), args({0, a, b}), args({b - 1, b, a}), args({c - 1, c, pow2(64)}),
          args({5, pow2(64), c}), args({d, c, d}), args({-1, a, b}), args({a, a, b}), args({1, -a, b})};
}

// (r, L, R): every pair in [1, N]^2, ranks -1..L, then non-positive sizes on each side.
std::vector<Args> rank_triples(const SweepBounds& b, bool listed) {
  std::vector<Args> out;
  for (I L = 1; L <= b.max_tp; ++L) {
    for (I R = 1; R <= b.max_tp; ++R) {
      for (I r = -1; r <= L; ++r) out.push_back(args({r, L, R}));
      for (const I bad : {I(0), -L}) {
        out.push_back(args({0, bad, R}));
        out.push_back(args({0, L, bad}));
      }
    }
  }
  for (Args& a : big_rank_triples()) {
    if (!listed || a[2] / std::max(BigInt(1), a[1]) < 1000) out.push_back(a);
  }
  // The listing limit of window: 2^20 + 1 ranks is one too many.
  if (listed) out.push_back(args({0, 1, pow2(20) + 1}));
  return out;
}

std::vector<Args> pairs(const SweepBounds& b) {
  std::vector<Args> out;
  for (const Args& t : rank_triples(b, false)) {
    if (t[0] == 0) out.push_back(args({t[1], t[2]}));
  }
  return out;
}

// (r, T, H) for one engine: every T, H up to the bounds (H from 0), ranks -1..max(T, H).
std::vector<Args> engine_triples(const SweepBounds& b) {
  std::vector<Args> out;
  for (I T = -1; T <= b.max_tp; ++T) {
    for (I H = -1; H <= b.max_heads; ++H) {
      for (I r = -1; r <= std::max(T, H); ++r) out.push_back(args({r, T, H}));
    }
  }
  out.push_back(args({pow2(70) - 1, pow2(70), pow2(66)}));
  out.push_back(args({pow2(66) - 1, pow2(66), pow2(70)}));
  out.push_back(args({3, pow2(66), pow2(66) + 2}));
  return out;
}

std::vector<Args> shardable_pairs(const SweepBounds& b) {
  std::vector<Args> out;
  for (I T = 1; T <= b.max_tp; ++T) {
    for (I H = 1; H <= b.max_heads; ++H) out.push_back(args({T, H}));
  }
  out.push_back(args({pow2(70), pow2(66)}));
  out.push_back(args({pow2(66) + 2, pow2(66)}));
  return out;
}

// (L, R, H, mla): every pair, H in -1..max_heads, both MLA values.
std::vector<Args> guard_quads(const SweepBounds& b) {
  std::vector<Args> out;
  for (I L = -1; L <= b.max_tp; ++L) {
    for (I R = -1; R <= b.max_tp; ++R) {
      for (I H = -1; H <= b.max_heads; ++H) {
        for (const I mla : {0, 1}) out.push_back(args({L, R, H, mla}));
      }
    }
  }
  out.push_back(args({pow2(70), pow2(71), pow2(70), 0}));
  out.push_back(args({pow2(70), pow2(71), pow2(70) + 1, 0}));
  return out;
}

// (rank, P, D, H, mla): every loadable configuration (and MLA, with H = 1 and
// with heads MLA ignores), every rank of the side and the first invalid ones,
// and configurations that are not loadable.
std::vector<Args> plan_quints(const SweepBounds& b, bool decode_rank) {
  std::vector<Args> out;
  for (I P = 1; P <= b.max_tp; ++P) {
    for (I D = 1; D <= b.max_tp; ++D) {
      std::vector<std::pair<I, I>> configurations = {{1, 1}, {0, 1}, {-3, 1}};
      for (I H = -1; H <= b.max_heads; ++H) configurations.emplace_back(H, 0);
      for (const auto& [H, mla] : configurations) {
        const bool loadable = mla == 1 || (heads_shard(P, H) && heads_shard(D, H));
        const I side = decode_rank ? D : P;
        if (!loadable) {
          out.push_back(args({0, P, D, H, mla}));
          continue;
        }
        for (I rank = -1; rank <= side; ++rank) out.push_back(args({rank, P, D, H, mla}));
      }
    }
  }
  for (const I bad : {I(0), I(-2)}) {
    out.push_back(args({0, bad, 2, 2, 0}));
    out.push_back(args({0, 2, bad, 2, 0}));
  }
  // Beyond 64 bits, both ways; and a plan of 2^21 copies (past the listing limit).
  out.push_back(args({pow2(66) - 1, pow2(66), pow2(70), pow2(66), 0}));
  out.push_back(args({pow2(70) - 1, pow2(66), pow2(70), pow2(66), 0}));
  out.push_back(args({3, pow2(70), pow2(66), pow2(66), 1}));
  out.push_back(args({0, pow2(22), 1, pow2(21), 0}));
  return out;
}

// (dp, t, T): what the sweep passes (dp = R - 2 beside each rank), and more.
std::vector<Args> port_triples(const SweepBounds& b) {
  std::vector<Args> out;
  for (const Args& t : rank_triples(b, false)) out.push_back(args({t[2] - 2, t[0], t[1]}));
  out.push_back(args({pow2(70), 5, pow2(66)}));
  return out;
}

std::vector<Args> host_triples(const SweepBounds& b) {
  std::vector<Args> out;
  for (I T = -1; T <= b.max_tp; ++T) {
    for (I q = -1; q <= std::max<I>(T, 0); ++q) {
      for (const I hosts : {I(-1), I(0), I(1), I(2), I(3), T}) out.push_back(args({q, T, hosts}));
    }
  }
  out.push_back(args({pow2(70) - 1, pow2(70), 3}));
  return out;
}

std::vector<Args> port_ranges(const SweepBounds& b) {
  std::vector<Args> out;
  for (I T = -1; T <= b.max_tp; ++T) {
    for (I dp_size = -1; dp_size <= 4; ++dp_size) {
      const I edge = 65536 - dp_size * T;
      for (const I base : {I(-1), I(0), I(1), edge - 1, edge, edge + 1, I(65535)}) out.push_back(args({base, dp_size, T}));
    }
  }
  out.push_back(args({1, pow2(70), pow2(70)}));
  return out;
}

std::vector<Args> sizings(const SweepBounds& b) {
  std::vector<Args> out;
  for (I P = -1; P <= b.max_tp; ++P) {
    for (I D = -1; D <= b.max_tp; ++D) {
      for (I H = -1; H <= std::min<I>(b.max_heads, 16); ++H) {
        for (const I mla : {0, 1}) out.push_back(args({P, D, H, mla}));
      }
    }
  }
  out.push_back(args({pow2(70), pow2(71), pow2(70), 0}));
  return out;
}

}  // namespace

std::vector<Args> sweep_inputs(std::string_view op, const SweepBounds& b) {
  if (op == "remote_rank" || op == "general_rank" || op == "window_span" || op == "single_readers") {
    return rank_triples(b, false);
  }
  if (op == "window") return rank_triples(b, true);
  if (op == "tp_ratio") return pairs(b);
  if (op == "head_compatible") return shardable_pairs(b);
  if (op == "heads" || op == "holders") return engine_triples(b);
  if (op == "kv_heads_guard" || op == "kv_heads_guard_strict") return guard_quads(b);
  if (op == "plan" || op == "plan_copy_count" || op == "single_source_plan") return plan_quints(b, true);
  if (op == "readers") return plan_quints(b, false);
  if (op == "port_offset") return port_triples(b);
  if (op == "host_index") return host_triples(b);
  if (op == "port_range") return port_ranges(b);
  if (op.substr(0, 16) == "sizing_accepted_") return sizings(b);
  return {};
}

}  // namespace tpcheck::prove::test
