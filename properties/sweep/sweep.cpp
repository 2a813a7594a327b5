// The exhaustive sweep: which predicate runs on which inputs. Work is split
// by TP pair over threads; each thread keeps its own tallies and they are
// merged at the end, so the hot loop shares nothing.
#include "sweep.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <initializer_list>
#include <thread>

#include "tpcheck/model.hpp"

namespace tpcheck::sweep {
namespace {

using I = std::int64_t;
using inv::Invariant;

class Recorder {
 public:
  void set_pair(I L, I R) { pair_key_ = {std::max(L, R), L, R}; }

  // Runs one predicate on one input and tallies it under `which`.
  template <class Predicate>
  void check(Invariant which, const char* name, std::initializer_list<I> args, Predicate&& predicate) {
    InvariantTally& t = result_.by_invariant[static_cast<int>(which) - 1];
    ++t.cases;
    inv::Violation v;
    try {
      v = predicate();
    } catch (const std::exception& e) {  // a broken model may throw from Outcome::value()
      v = std::string("the check threw: ") + e.what();
    }
    if (!v) return;
    ++t.violations;
    std::vector<I> key = pair_key_;
    key.insert(key.end(), args.begin(), args.end());
    if (t.smallest && t.smallest->key <= key) return;
    std::string input = std::string(name) + "(";
    for (auto it = args.begin(); it != args.end(); ++it) input += (it == args.begin() ? "" : ", ") + std::to_string(*it);
    t.smallest = Counterexample{std::move(key), input + ")", *v};
  }

  // The int64 and cpp_int models agree on operation `op`.
  void differential(const char* op, std::initializer_list<I> args) {
    check(Invariant::Agreement, op, args, [&] { return inv::int64_agrees_with_cpp_int(op, std::vector<I>(args)); });
  }

  void reached(const std::string& kind) { ++result_.reached[kind]; }

  Result& result() { return result_; }

 private:
  std::vector<I> pair_key_;
  Result result_;
};

std::string pair_kind(I L, I R) {
  if (L == R) return "pair: L == R";
  return std::string("pair: ") + (L < R ? "L < R" : "L > R") + (inv::divisible_pair(L, R) ? ", divisible" : ", not divisible");
}

std::string plan_kind(I P, I D, I H, bool mla) {
  if (mla) return std::string("plan: MLA, ") + (inv::divisible_pair(P, D) ? "divisible" : "not divisible");
  return std::string("plan: prefill ") + (P <= H ? "splits" : "replicates") + " heads, decode " +
         (D <= H ? "splits" : "replicates") + (inv::divisible_pair(P, D) ? ", divisible" : ", not divisible");
}

// Invariants about one pair of TP sizes and each rank of the local side.
void sweep_ranks(I L, I R, Recorder& rec) {
  rec.reached(pair_kind(L, R));
  rec.check(Invariant::Errors, "ratio_errors_exactly_where_due", {L, R}, [&] { return inv::ratio_errors_exactly_where_due<I>(L, R); });
  rec.differential("tp_ratio", {L, R});
  for (I r = -1; r <= L; ++r) {  // -1 and L are the first invalid ranks
    rec.check(Invariant::Errors, "rank_map_errors_exactly_where_due", {r, L, R},
              [&] { return inv::rank_map_errors_exactly_where_due<I>(r, L, R); });
    rec.check(Invariant::Errors, "count_errors_exactly_where_due", {r, L, R},
              [&] { return inv::count_errors_exactly_where_due<I>(r, L, R); });
    rec.check(Invariant::Errors, "port_errors_exactly_where_due", {R - 2, r, L},
              [&] { return inv::port_errors_exactly_where_due<I>(R - 2, r, L); });
    rec.check(Invariant::Bounds, "mapped_rank_in_bounds", {r, L, R}, [&] { return inv::mapped_rank_in_bounds<I>(r, L, R); });
    rec.check(Invariant::FanIn, "maps_monotone_at", {r, L, R}, [&] { return inv::maps_monotone_at<I>(r, L, R); });
    rec.check(Invariant::RoundTrip, "round_trip_returns_home", {r, L, R}, [&] { return inv::round_trip_returns_home<I>(r, L, R); });
    rec.check(Invariant::RoundTrip, "windows_are_dual", {r, L, R}, [&] { return inv::windows_are_dual<I>(r, L, R); });
    rec.check(Invariant::Agreement, "general_agrees_with_strict", {r, L, R},
              [&] { return inv::general_agrees_with_strict<I>(r, L, R); });
    for (const char* op : {"remote_rank", "general_rank", "window", "single_readers"}) rec.differential(op, {r, L, R});
  }
  for (I q = 0; q < R; ++q) {
    rec.check(Invariant::FanIn, "fan_in_balanced", {q, L, R}, [&] { return inv::fan_in_balanced<I>(q, L, R); });
  }
  // Non-positive sizes, on each side, must fail first and alone.
  for (const I bad : {I(0), I(-L)}) {
    for (const auto& sizes : {std::pair{bad, R}, std::pair{L, bad}}) {
      const I l = sizes.first, r = sizes.second;  // plain locals: clang < 16 cannot capture bindings
      rec.check(Invariant::Errors, "rank_map_errors_exactly_where_due", {0, l, r},
                [&] { return inv::rank_map_errors_exactly_where_due<I>(0, l, r); });
      rec.check(Invariant::Errors, "count_errors_exactly_where_due", {0, l, r},
                [&] { return inv::count_errors_exactly_where_due<I>(0, l, r); });
      rec.check(Invariant::Errors, "ratio_errors_exactly_where_due", {l, r}, [&] { return inv::ratio_errors_exactly_where_due<I>(l, r); });
    }
    rec.check(Invariant::Errors, "port_errors_exactly_where_due", {0, 0, bad}, [&] { return inv::port_errors_exactly_where_due<I>(0, 0, bad); });
  }
  rec.check(Invariant::CompletionCounts, "single_readers_count_map_preimages", {L, R},
            [&] { return inv::single_readers_count_map_preimages<I>(L, R); });
}

// Invariants about the read plans of a prefill engine of P = L ranks and a
// decode engine of D = R ranks, for each head count both can shard, and MLA.
void sweep_plans(I P, I D, I max_heads, Recorder& rec) {
  for (I H = 0; H <= max_heads; ++H) {
    for (const bool mla : {false, true}) {
      rec.check(Invariant::Errors, "guards_decide_as_specified", {P, D, H, mla},
                [&] { return inv::guards_decide_as_specified<I>(P, D, H, mla); });
    }
  }
  for (I H = 0; H <= std::min<I>(max_heads, 16); ++H) {  // loadable or not: acceptance must match
    rec.check(Invariant::HeadAlignment, "accepted_sizing_is_served_correctly", {P, D, H, 0},
              [&] { return inv::accepted_sizing_is_served_correctly<I>(P, D, H, false); });
  }
  std::vector<std::pair<I, bool>> configurations = {{1, true}};  // MLA ignores H: one representative
  for (I H = 1; H <= max_heads; ++H) {
    if (inv::heads_shard(P, H) && inv::heads_shard(D, H)) configurations.emplace_back(H, false);
  }
  for (const auto& configuration : configurations) {
    const I H = configuration.first;  // plain locals: clang < 16 cannot capture bindings
    const bool mla = configuration.second;
    rec.reached(plan_kind(P, D, H, mla));
    for (I d = 0; d < D; ++d) {
      rec.check(Invariant::PlanExactness, "plan_partitions_own_heads", {d, P, D, H, mla},
                [&] { return inv::plan_partitions_own_heads<I>(d, P, D, H, mla); });
      rec.check(Invariant::PlanExactness, "plan_matches_head_by_head_rule", {d, P, D, H, mla},
                [&] { return inv::plan_matches_head_by_head_rule<I>(d, P, D, H, mla); });
      rec.check(Invariant::Agreement, "plan_sources_match_nixl", {d, P, D, H, mla},
                [&] { return inv::plan_sources_match_nixl<I>(d, P, D, H, mla); });
      rec.check(Invariant::HeadAlignment, "single_source_holds_own_heads", {d, P, D, H, mla},
                [&] { return inv::single_source_holds_own_heads<I>(d, P, D, H, mla); });
      rec.differential("plan", {d, P, D, H, mla});
    }
    rec.check(Invariant::CompletionCounts, "readers_count_plan_copies", {P, D, H, mla},
              [&] { return inv::readers_count_plan_copies<I>(P, D, H, mla); });
    rec.check(Invariant::HeadAlignment, "accepted_sizing_is_served_correctly", {P, D, H, mla},
              [&] { return inv::accepted_sizing_is_served_correctly<I>(P, D, H, mla); });
    for (I p = 0; p < P; ++p) rec.differential("readers", {p, P, D, H, mla});
  }
}

// Invariants about one engine of T ranks alone: head ownership and ports.
void sweep_engine(I T, I max_heads, Recorder& rec) {
  for (I H = 0; H <= std::min<I>(max_heads, 24); ++H) {  // a few head counts suffice for the errors
    for (I r = -1; r <= std::max(T, H); ++r) {
      rec.check(Invariant::Errors, "ownership_errors_exactly_where_due", {r, T, H},
                [&] { return inv::ownership_errors_exactly_where_due<I>(r, T, H); });
    }
  }
  for (I H = 1; H <= max_heads; ++H) {
    if (!inv::heads_shard(T, H)) continue;
    for (I h = 0; h < H; ++h) {
      rec.check(Invariant::PlanExactness, "holders_hold_the_head", {h, T, H}, [&] { return inv::holders_hold_the_head<I>(h, T, H); });
    }
    for (I r = 0; r < T; ++r) rec.differential("heads", {r, T, H});
  }
  for (I dp_size = 1; dp_size <= 4; ++dp_size) {
    rec.check(Invariant::PortsAndHosts, "port_offsets_distinct", {dp_size, T}, [&] { return inv::port_offsets_distinct<I>(dp_size, T); });
    const I edge = 65536 - dp_size * T;  // the highest base whose last port is 65535
    for (const I base : {I(1), edge - 1, edge, edge + 1, I(65535)}) {
      rec.check(Invariant::PortsAndHosts, "port_range_rejects_exactly_overflow", {base, dp_size, T},
                [&] { return inv::port_range_rejects_exactly_overflow<I>(base, dp_size, T); });
    }
  }
  for (I q = 0; q < T; ++q) {
    for (const I hosts : {I(1), I(2), I(3), T}) rec.differential("host_index", {q, T, hosts});
  }
}

// A decode engine of D ranks dialing a prefill engine of P ranks.
void sweep_dialing(I P, I D, Recorder& rec) {
  for (I d = 0; d < D; ++d) {
    for (const I dp : {I(0), I(3)}) {
      for (const I hosts : {I(1), I(2), P}) {
        rec.check(Invariant::PortsAndHosts, "dialed_peer_is_the_mapped_rank", {dp, d, P, D, hosts},
                  [&] { return inv::dialed_peer_is_the_mapped_rank<I>(dp, d, P, D, hosts); });
      }
      rec.differential("port_offset", {dp, d, D});
    }
  }
}

void merge(Result& into, const Result& from) {
  for (std::size_t i = 0; i < into.by_invariant.size(); ++i) {
    InvariantTally& a = into.by_invariant[i];
    const InvariantTally& b = from.by_invariant[i];
    a.cases += b.cases;
    a.violations += b.violations;
    if (b.smallest && (!a.smallest || b.smallest->key < a.smallest->key)) a.smallest = b.smallest;
  }
  for (const auto& [kind, count] : from.reached) into.reached[kind] += count;
}

}  // namespace

std::uint64_t Result::cases() const {
  std::uint64_t n = 0;
  for (const auto& t : by_invariant) n += t.cases;
  return n;
}

std::uint64_t Result::violations() const {
  std::uint64_t n = 0;
  for (const auto& t : by_invariant) n += t.violations;
  return n;
}

Result run(const Bounds& bounds) {
  const I n = bounds.max_tp;
  std::atomic<I> next{0};  // pairs numbered row by row; larger L comes later and costs more
  std::vector<Recorder> recorders(static_cast<std::size_t>(std::max(1, bounds.threads)));
  std::vector<std::thread> workers;
  for (Recorder& rec : recorders) {
    workers.emplace_back([&] {
      for (I index = next++; index < n * n; index = next++) {
        const I L = n - index / n;  // largest first: the slow pairs do not trail at the end
        const I R = index % n + 1;
        rec.set_pair(L, R);
        sweep_ranks(L, R, rec);
        sweep_plans(L, R, bounds.max_heads, rec);
        sweep_dialing(L, R, rec);
        if (R == 1) sweep_engine(L, bounds.max_heads, rec);
      }
    });
  }
  for (std::thread& w : workers) w.join();
  Result total;
  for (Recorder& rec : recorders) merge(total, rec.result());
  return total;
}

}  // namespace tpcheck::sweep
