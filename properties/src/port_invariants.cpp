// §9.4 and §9.9: ports and hosts.
#include <algorithm>
#include <map>

#include "support.hpp"
#include "tpcheck/instantiate.hpp"

namespace tpcheck::inv {

template <ModelInt Int>
Violation port_errors_exactly_where_due(const Int& dp, const Int& t, const Int& T) {
  std::optional<std::string> expected_error;
  if (T <= 0) {
    expected_error = "tp_size must be positive";
  } else if (t < 0 || t >= T) {
    expected_error = "tp_rank " + render(t) + " must be in [0, " + render(T) + ")";
  } else if (dp < 0) {
    expected_error = "dp_rank " + render(dp) + " must be non-negative";
  }
  const auto got = port_offset(dp, t, T);
  if (expected_error) return expect_rendered([&] { return call("port_offset", dp, t, T); }, got, value_error_text(*expected_error));
  if (!got.ok()) return call("port_offset", dp, t, T) + " failed on valid input: " + render(got.failure());
  return std::nullopt;
}

template <ModelInt Int>
Violation port_offsets_distinct(const Int& dp_size, const Int& T) {
  if (dp_size < 1 || T < 1) return std::nullopt;
  std::map<wide_t<Int>, std::pair<Int, Int>> owner;
  for (Int dp = 0; dp < dp_size; ++dp) {
    for (Int t = 0; t < T; ++t) {
      const auto offset = port_offset(dp, t, T);
      if (!offset.ok()) return call("port_offset", dp, t, T) + " failed on valid input: " + render(offset.failure());
      const auto [it, fresh] = owner.emplace(offset.value(), std::pair{dp, t});
      if (!fresh) {
        return call("port_offset", dp, t, T) + " = " + render(offset.value()) + " is also the offset of worker (dp " +
               render(it->second.first) + ", tp " + render(it->second.second) + ")";
      }
    }
  }
  return std::nullopt;
}

template <ModelInt Int>
Violation dialed_peer_is_the_mapped_rank(const Int& dp, const Int& d, const Int& P, const Int& D, const Int& hosts) {
  const Outcome<Int> mapped = remote_rank(d, D, P);
  if (!mapped.ok() || dp < 0) return std::nullopt;
  const Int& q = mapped.value();
  const auto dialed = port_offset(dp, q, P);
  const auto group_start = port_offset(dp, Int(0), P);
  if (!dialed.ok() || !group_start.ok()) {
    return call("port_offset", dp, q, P) + " failed for the mapped prefill rank: " + render(dialed);
  }
  if (dialed.value() - group_start.value() != wide_t<Int>(q)) {
    return "decode rank " + render(d) + " dials offset " + render(dialed.value()) + ", which prefill rank " + render(q) +
           " of DP group " + render(dp) + " does not listen on (its group starts at " + render(group_start.value()) + ")";
  }
  const Outcome<Int> host = host_index(q, P, hosts);
  if (!host.ok()) return std::nullopt;  // the model rejects this spread of ranks over hosts
  const Int per_host = std::max(Int(1), floor_div<Int>(P, hosts));
  const Int& h = host.value();
  if (h < 0 || h >= hosts || q < h * per_host || q >= (h + 1) * per_host) {
    return "decode rank " + render(d) + " dials host " + render(h) + " of " + render(hosts) +
           ", which does not hold its mapped prefill rank " + render(q) + " (" + render(per_host) + " ranks per host)";
  }
  return std::nullopt;
}

template <ModelInt Int>
Violation port_range_rejects_exactly_overflow(const Int& base, const Int& dp_size, const Int& T) {
  const Outcome<None> got = port_range(base, dp_size, T);
  const auto what = [&] { return call("port_range", base, dp_size, T); };  // built only for a report
  if (base < 1 || dp_size < 1 || T < 1) {
    if (got.ok()) return what() + " accepted a non-positive argument";
    return std::nullopt;
  }
  const auto highest = port_offset(Int(dp_size - 1), Int(T - 1), T);  // the last worker's offset is the largest
  if (!highest.ok()) return call("port_offset", Int(dp_size - 1), Int(T - 1), T) + " failed: " + render(highest.failure());
  const bool fits = wide_t<Int>(base) + highest.value() <= 65535;
  if (got.ok() != fits) {
    return what() + " gave " + render(got) + " although the highest port is " +
           render(wide_t<Int>(wide_t<Int>(base) + highest.value()));
  }
  return std::nullopt;
}

#define TPCHECK_PORT_INVARIANTS(Int)                                                                          \
  template Violation port_errors_exactly_where_due<Int>(const Int&, const Int&, const Int&);                  \
  template Violation port_offsets_distinct<Int>(const Int&, const Int&);                                      \
  template Violation dialed_peer_is_the_mapped_rank<Int>(const Int&, const Int&, const Int&, const Int&, const Int&); \
  template Violation port_range_rejects_exactly_overflow<Int>(const Int&, const Int&, const Int&);
TPCHECK_INSTANTIATE(TPCHECK_PORT_INVARIANTS)

}  // namespace tpcheck::inv
