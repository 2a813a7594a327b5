// Cases per second of the engines' hot paths (Google Benchmark): the whole
// exhaustive sweep on a small bound, and each family of predicates it calls,
// so a slow-down or a speed-up is measured, not guessed. items_per_second is
// predicate calls (cases) per second on one thread.
//
//   build/bench/tpcheck_bench                      # all
//   build/bench/tpcheck_bench --benchmark_filter=Differential
#include <benchmark/benchmark.h>

#include <cstdint>

#include "sweep.hpp"
#include "tpcheck/invariants.hpp"

namespace {

using I = std::int64_t;
using tpcheck::inv::Violation;

// Runs `per_pair` on every pair (L, R) in [1, n]^2; counts the cases it made.
template <class PerPair>
void over_pairs(benchmark::State& state, PerPair per_pair) {
  const I n = state.range(0);
  std::int64_t cases = 0;
  for (auto _ : state) {
    for (I L = 1; L <= n; ++L) {
      for (I R = 1; R <= n; ++R) cases += per_pair(L, R);
    }
  }
  state.SetItemsProcessed(cases);
}

void Sweep(benchmark::State& state) {
  std::uint64_t cases = 0;
  for (auto _ : state) cases += tpcheck::sweep::run({state.range(0), state.range(0), 1}).cases();
  state.SetItemsProcessed(static_cast<std::int64_t>(cases));
}
BENCHMARK(Sweep)->Arg(24)->Unit(benchmark::kMillisecond)->UseRealTime();  // the sweep runs on its own thread

void RankMapPredicates(benchmark::State& state) {
  over_pairs(state, [](I L, I R) {
    for (I r = 0; r < L; ++r) {
      benchmark::DoNotOptimize(tpcheck::inv::rank_map_errors_exactly_where_due(r, L, R));
      benchmark::DoNotOptimize(tpcheck::inv::mapped_rank_in_bounds(r, L, R));
      benchmark::DoNotOptimize(tpcheck::inv::round_trip_returns_home(r, L, R));
      benchmark::DoNotOptimize(tpcheck::inv::windows_are_dual(r, L, R));
    }
    return 4 * L;
  });
}
BENCHMARK(RankMapPredicates)->Arg(48);

void FanIn(benchmark::State& state) {
  over_pairs(state, [](I L, I R) {
    for (I q = 0; q < R; ++q) benchmark::DoNotOptimize(tpcheck::inv::fan_in_balanced(q, L, R));
    return R;
  });
}
BENCHMARK(FanIn)->Arg(48);

void Differential(benchmark::State& state) {
  over_pairs(state, [](I L, I R) {
    for (I r = 0; r < L; ++r) {
      benchmark::DoNotOptimize(tpcheck::inv::int64_agrees_with_cpp_int("remote_rank", {r, L, R}));
    }
    return L;
  });
}
BENCHMARK(Differential)->Arg(48);

void HeadGuards(benchmark::State& state) {
  over_pairs(state, [](I L, I R) {
    for (I H = 0; H <= 64; ++H) benchmark::DoNotOptimize(tpcheck::inv::guards_decide_as_specified(L, R, H, false));
    return 65;
  });
}
BENCHMARK(HeadGuards)->Arg(32);

void PlanPredicates(benchmark::State& state) {
  over_pairs(state, [](I P, I D) {
    std::int64_t cases = 0;
    for (const I H : {I(1), I(2), I(8), I(64)}) {
      if (!tpcheck::inv::heads_shard(P, H) || !tpcheck::inv::heads_shard(D, H)) continue;
      for (I d = 0; d < D; ++d) {
        benchmark::DoNotOptimize(tpcheck::inv::plan_partitions_own_heads(d, P, D, H, false));
        benchmark::DoNotOptimize(tpcheck::inv::plan_matches_head_by_head_rule(d, P, D, H, false));
        cases += 2;
      }
    }
    return cases;
  });
}
BENCHMARK(PlanPredicates)->Arg(32);

}  // namespace

BENCHMARK_MAIN();
