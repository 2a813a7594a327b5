// §9.4 and §9.8: who waits for how many completions.
#include <map>

#include "support.hpp"
#include "tpcheck/instantiate.hpp"

namespace tpcheck::inv {

template <ModelInt Int>
Violation count_errors_exactly_where_due(const Int& p, const Int& P, const Int& D) {
  std::optional<std::string> expected_error;
  if (P <= 0 || D <= 0) {
    expected_error = "TP sizes must be positive";
  } else if (p < 0 || p >= P) {
    expected_error = "producer_tp_rank " + render(p) + " must be in [0, " + render(P) + ")";
  } else if (D >= P && floor_mod<Int>(D, P) != 0) {
    expected_error = "consumer tp_size " + render(D) + " must be a multiple of producer tp_size " + render(P) +
                     " for heterogeneous-TP P/D";
  } else if (D < P && floor_mod<Int>(P, D) != 0) {
    expected_error = "producer tp_size " + render(P) + " must be a multiple of consumer tp_size " + render(D) +
                     " for heterogeneous-TP P/D";
  }
  const Outcome<Int> got = single_readers(p, P, D);
  if (expected_error) return expect_rendered([&] { return call("single_readers", p, P, D); }, got, value_error_text(*expected_error));
  if (!got.ok()) return call("single_readers", p, P, D) + " failed on a valid divisible input: " + render(got.failure());
  return std::nullopt;
}

template <ModelInt Int>
Violation readers_count_plan_copies(const Int& P, const Int& D, const Int& H, bool mla) {
  const Int heads_total = mla ? Int(1) : H;
  if (!heads_shard(P, heads_total) || !heads_shard(D, heads_total)) return std::nullopt;
  std::map<Int, Int> tally;
  for (Int d = 0; d < D; ++d) {
    const Outcome<Plan<Int>> copies = plan(d, P, D, H, mla);
    if (!copies.ok()) return call("plan", d, P, D, H, mla) + " failed on a valid configuration: " + render(copies.failure());
    for (const Copy<Int>& c : copies.value()) tally[c.p] += 1;
  }
  for (Int p = 0; p < P; ++p) {
    const auto it = tally.find(p);
    const Int copied = it == tally.end() ? Int(0) : it->second;
    if (auto v = expect_rendered([&] { return call("readers", p, P, D, H, mla) + " (decode plans that copy from it)"; },
                                 readers(p, P, D, H, mla), render(copied))) {
      return v;
    }
  }
  return std::nullopt;
}

template <ModelInt Int>
Violation single_readers_count_map_preimages(const Int& P, const Int& D) {
  if (!divisible_pair(P, D)) return std::nullopt;
  std::map<Int, Int> tally;
  for (Int d = 0; d < D; ++d) {
    const Outcome<Int> source = remote_rank(d, D, P);
    if (!source.ok()) return call("remote_rank", d, D, P) + " failed on a divisible pair: " + render(source.failure());
    tally[source.value()] += 1;
  }
  for (Int p = 0; p < P; ++p) {
    const auto it = tally.find(p);
    const Int mapped = it == tally.end() ? Int(0) : it->second;
    if (auto v = expect_rendered([&] { return call("single_readers", p, P, D) + " (decode ranks whose remote_rank is it)"; },
                                 single_readers(p, P, D), render(mapped))) {
      return v;
    }
  }
  return std::nullopt;
}

#define TPCHECK_COUNT_INVARIANTS(Int)                                                             \
  template Violation count_errors_exactly_where_due<Int>(const Int&, const Int&, const Int&);     \
  template Violation readers_count_plan_copies<Int>(const Int&, const Int&, const Int&, bool);    \
  template Violation single_readers_count_map_preimages<Int>(const Int&, const Int&);
TPCHECK_INSTANTIATE(TPCHECK_COUNT_INVARIANTS)

}  // namespace tpcheck::inv
