// Cases per second of the sweep, measured with Google Benchmark and driven by
// the registry: the whole sweep on a small bound, each family of SPEC §9 and
// §16.4, the KV invariants together, and each entry alone, one thread. items_per_second counts non-vacuous cases
// (what `tpcheck verify` counts); the counter `vacuous` the others. Rates are
// per second of the process's CPU time (the sweep runs on a worker thread),
// so a machine shared with other jobs does not change them much.
//
//   build/bench/tpcheck_bench                                   # all
//   build/bench/tpcheck_bench --benchmark_filter=Family/      # one line per family
//   build/bench/tpcheck_bench --benchmark_filter='KvInvariants|Family/16'   # the recurrent state against the KV invariants
//   build/bench/tpcheck_bench --benchmark_filter=Entry/PlanFollowsTheHeadByHeadRule
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sweep.hpp"

namespace {

using tpcheck::inv::Entry;

// Runs the sweep over `entries` at the bound and reports its cases.
void sweep(benchmark::State& state, const std::vector<const Entry*>& entries, std::int64_t max_tp, std::int64_t max_heads) {
  std::uint64_t non_vacuous = 0;
  std::uint64_t vacuous = 0;
  for (auto _ : state) {
    const tpcheck::sweep::Result r = tpcheck::sweep::run({{max_tp, max_heads}, 1, entries});
    non_vacuous += r.non_vacuous();
    for (const auto& e : r.entries) vacuous += e.tally.vacuous;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(non_vacuous));
  state.counters["vacuous"] = benchmark::Counter(static_cast<double>(vacuous), benchmark::Counter::kIsRate);
}

// One benchmark for the whole sweep, one per family, one per entry.
void register_all() {
  const std::vector<const Entry*> all = tpcheck::sweep::swept_entries();
  benchmark::RegisterBenchmark("Sweep/24", [all](benchmark::State& s) { sweep(s, all, 24, 24); })
      ->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
  for (int f = 0; f <= static_cast<int>(tpcheck::inv::kLastFamily); ++f) {
    const auto family = static_cast<tpcheck::inv::Family>(f);
    std::vector<const Entry*> members;
    for (const Entry* e : all) {
      if (e->family == family) members.push_back(e);
    }
    if (members.empty()) continue;
    // "§9.2 fan-in" becomes "Family/9.2_fan-in".
    std::string name = "Family/";
    for (const char c : std::string(tpcheck::inv::family_name(family)).substr(std::string("§").size())) {
      name += c == ' ' ? '_' : c;
    }
    benchmark::RegisterBenchmark(name.c_str(), [members](benchmark::State& s) { sweep(s, members, 24, 24); })
        ->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
  }
  // The KV invariants of SPEC §9 together (every family but the error oracles
  // and the differential, which span every operation, and the recurrent
  // state): what the recurrent state's family is compared with, case for case.
  std::vector<const Entry*> kv;
  for (const Entry* e : all) {
    using tpcheck::inv::Family;
    if (e->family != Family::Errors && e->family != Family::Agreement && e->family != Family::RecurrentState) {
      kv.push_back(e);
    }
  }
  benchmark::RegisterBenchmark("KvInvariants/24", [kv](benchmark::State& s) { sweep(s, kv, 24, 24); })
      ->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
  for (const Entry* e : all) {
    benchmark::RegisterBenchmark((std::string("Entry/") + e->name).c_str(),
                                 [e](benchmark::State& s) { sweep(s, {e}, 24, 24); })
        ->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
