// §8 and §9.9: ports and hosts (where they fail is the error oracle's,
// preconditions_ports.cpp). Each check, and its declaration in the
// registry right after it.
#include <algorithm>
#include <vector>

#include "declare.hpp"
#include "support.hpp"
#include "tpcheck/instantiate.hpp"

TPCHECK_DECLARATIONS(port_invariants)

namespace tpcheck::inv {
using namespace declare;
namespace {

// How the last port of a deployment of positive sizes compares with 65535
// (negative: below, 0: exactly, positive: past), in a type its product fits.
template <ModelInt Int>
int last_port_against_65535(const Int& base, const Int& dp_size, const Int& T) {
  using W = wide_t<Int>;
  const W last = W(base) + W(dp_size) * W(T) - 1;
  return last < 65535 ? -1 : last == 65535 ? 0 : 1;
}

template <ModelInt Int>
bool positive_deployment(const Int& base, const Int& dp_size, const Int& T) {
  return base >= 1 && dp_size >= 1 && T >= 1;
}

}  // namespace

template <ModelInt Int>
Verdict port_offsets_distinct(const Int& dp_size, const Int& T) {
  if (dp_size < 1 || T < 1) return vacuous("not a deployment");
  // The offsets of the workers walked (worker w is dp w // T, tp w % T), then
  // sorted: two equal neighbours collide. Kept per thread, so a case reuses
  // the buffer instead of allocating.
  struct Seen {
    wide_t<Int> offset;
    Int dp;
    Int t;
  };
  thread_local std::vector<Seen> seen;
  seen.clear();
  const Verdict walked = walk_range(Int(0), Int(dp_size * T), [&](const Int& w) {
    const Int dp = floor_div<Int>(w, T);
    const Int t = floor_mod<Int>(w, T);
    const auto offset = port_offset(dp, t, T);
    if (!offset.ok()) return violated(call("port_offset", dp, t, T) + " failed on valid input: " + render(offset.failure()));
    seen.push_back({offset.value(), dp, t});
    return holds();
  });
  if (!walked.held()) return walked;
  std::sort(seen.begin(), seen.end(), [](const Seen& a, const Seen& b) { return a.offset < b.offset; });
  const auto same = std::adjacent_find(seen.begin(), seen.end(), [](const Seen& a, const Seen& b) { return a.offset == b.offset; });
  if (same == seen.end()) return holds();
  return violated(call("port_offset", same[1].dp, same[1].t, T) + " = " + render(same[1].offset) +
                  " is also the offset of worker (dp " + render(same->dp) + ", tp " + render(same->t) + ")");
}

TPCHECK_INVARIANT(PortOffsetsNeverCollide, "§9.9", PortsAndHosts,
    domain(dp_size("dp_size"), size("T")),
    kinds(kind("several DP groups of several ranks", [](const auto& dp_size, const auto& T) { return dp_size > 1 && T > 1; }),
          kind("one DP group", [](const auto& dp_size, const auto&) { return dp_size == 1; }),
          kind("one rank per group", [](const auto& dp_size, const auto& T) { return dp_size > 1 && T == 1; })),
    // dp_size * T workers in one map: 32 * 32 keeps a case under a millisecond.
    min_non_vacuous(1.0).size_cap(32).proof(Proof::by_z3("T >= 1, any DP size, every two workers 0 <= dp < dp_size, 0 "
        "<= t < T")),
    [](const auto& dp_size, const auto& T) { return port_offsets_distinct(dp_size, T); });

template <ModelInt Int>
Verdict dialed_peer_is_the_mapped_rank(const Int& dp, const Int& d, const Int& P, const Int& D, const Int& hosts) {
  const Outcome<Int> mapped = remote_rank(d, D, P);
  if (!mapped.ok()) return vacuous("remote_rank fails: the decode rank dials no peer");
  if (dp < 0) return vacuous("not a DP rank");
  const Int& q = mapped.value();
  const auto dialed = port_offset(dp, q, P);
  const auto group_start = port_offset(dp, Int(0), P);
  if (!dialed.ok() || !group_start.ok()) {
    return violated(call("port_offset", dp, q, P) + " failed for the mapped prefill rank: " + render(dialed));
  }
  if (dialed.value() - group_start.value() != wide_t<Int>(q)) {
    return violated("decode rank " + render(d) + " dials offset " + render(dialed.value()) + ", which prefill rank " +
                    render(q) + " of DP group " + render(dp) + " does not listen on (its group starts at " +
                    render(group_start.value()) + ")");
  }
  const Outcome<Int> host = host_index(q, P, hosts);
  if (!host.ok()) return holds();  // the model rejects this spread of ranks over hosts
  const Int per_host = std::max(Int(1), floor_div<Int>(P, hosts));
  const Int& h = host.value();
  if (h < 0 || h >= hosts || q < h * per_host || q >= (h + 1) * per_host) {
    return violated("decode rank " + render(d) + " dials host " + render(h) + " of " + render(hosts) +
                    ", which does not hold its mapped prefill rank " + render(q) + " (" + render(per_host) +
                    " ranks per host)");
  }
  return holds();
}

TPCHECK_INVARIANT(DecodeRankDialsItsMappedPeer, "§9.9", PortsAndHosts,
    domain(pair("P", "D", Pairs::Divisible), rank("d", "D"), dp_rank("dp"), hosts("hosts", "P")),
    kinds(kind("D > P", [](const auto& P, const auto& D, const auto&...) { return D > P; }),
          kind("D < P", [](const auto& P, const auto& D, const auto&...) { return D < P; }),
          kind("D == P", [](const auto& P, const auto& D, const auto&...) { return D == P; }),
          kind("hosts spread the prefill ranks evenly", [](const auto& P, const auto&, const auto&, const auto&, const auto& n) {
            return n > 1 && (P <= n || P % n == 0);
          }),
          kind("hosts do not spread them (rejected)", [](const auto& P, const auto&, const auto&, const auto&, const auto& n) {
            return n > 1 && P > n && P % n != 0;
          })),
    min_non_vacuous(1.0).proof(Proof::by_z3("all integers dp >= 0, d, P, D where remote_rank(d, D, P) succeeds; hosts "
        "where host_index succeeds")),
    [](const auto& P, const auto& D, const auto& d, const auto& dp, const auto& hosts) {
      return dialed_peer_is_the_mapped_rank(dp, d, P, D, hosts);
    });

template <ModelInt Int>
Verdict port_range_rejects_exactly_overflow(const Int& base, const Int& dp_size, const Int& T) {
  const Outcome<None> got = port_range(base, dp_size, T);
  const auto what = [&] { return call("port_range", base, dp_size, T); };  // built only for a report
  if (base < 1 || dp_size < 1 || T < 1) {
    if (got.ok()) return violated(what() + " accepted a non-positive argument");
    return holds();
  }
  const auto highest = port_offset(Int(dp_size - 1), Int(T - 1), T);  // the last worker's offset is the largest
  if (!highest.ok()) {
    return violated(call("port_offset", Int(dp_size - 1), Int(T - 1), T) + " failed: " + render(highest.failure()));
  }
  const bool fits = wide_t<Int>(base) + highest.value() <= 65535;
  if (got.ok() != fits) {
    return violated(what() + " gave " + render(got) + " although the highest port is " +
                    render(wide_t<Int>(wide_t<Int>(base) + highest.value())));
  }
  return holds();
}

TPCHECK_INVARIANT(PortRangeRejectsExactlyTheOverflowingDeployments, "§9.9", PortsAndHosts,
    domain(dp_size("dp_size", Sizes::WithNonPositive), size("T", Sizes::WithNonPositive), base_port("base", "dp_size", "T")),
    kinds(kind("an argument not positive", [](const auto& dp_size, const auto& T, const auto& base) {
            return dp_size < 1 || T < 1 || base < 1;
          }),
          kind("last port exactly 65535", [](const auto& dp_size, const auto& T, const auto& base) {
            return positive_deployment(base, dp_size, T) && last_port_against_65535(base, dp_size, T) == 0;
          }),
          kind("last port past 65535", [](const auto& dp_size, const auto& T, const auto& base) {
            return positive_deployment(base, dp_size, T) && last_port_against_65535(base, dp_size, T) > 0;
          }),
          kind("last port below 65535", [](const auto& dp_size, const auto& T, const auto& base) {
            return positive_deployment(base, dp_size, T) && last_port_against_65535(base, dp_size, T) < 0;
          })),
    min_non_vacuous(1.0).proof(Proof::by_z3("all integers base, dp_size, T")),
    [](const auto& dp_size, const auto& T, const auto& base) { return port_range_rejects_exactly_overflow(base, dp_size, T); });

#define TPCHECK_PORT_INVARIANTS(Int)                                                                               \
  template Verdict port_offsets_distinct<Int>(const Int&, const Int&);                                             \
  template Verdict dialed_peer_is_the_mapped_rank<Int>(const Int&, const Int&, const Int&, const Int&, const Int&); \
  template Verdict port_range_rejects_exactly_overflow<Int>(const Int&, const Int&, const Int&);
TPCHECK_INSTANTIATE(TPCHECK_PORT_INVARIANTS)

}  // namespace tpcheck::inv
