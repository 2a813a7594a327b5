// §8: where port offsets, hosts and port ranges fail, in the SPEC's order.
#include "preconditions.hpp"

TPCHECK_DECLARATIONS(preconditions_ports)

namespace tpcheck::oracle {

// tp_size 0 is vLLM's "unknown peer TP" sentinel: checked first, for any tp_size <= 0.
TPCHECK_ORACLE(PortOffsetErrorsFireExactlyWhereDue, "§8", "port_offset(dp_rank, tp_rank, tp_size)",
    [](const auto& dp_rank, const auto& tp_rank, const auto& tp_size) {
      return preconditions(
          fails_if("tp_size not positive", tp_size <= 0, value_error("tp_size must be positive")),
          fails_if("tp_rank out of range", tp_rank < 0 || tp_rank >= tp_size,
                   value_error("tp_rank {tp_rank} must be in [0, {tp_size})")),
          fails_if("dp_rank negative", dp_rank < 0, value_error("dp_rank {dp_rank} must be non-negative")));
    });

// A T-rank engine over n hosts puts rank q on host q // max(1, T // n); when
// T > n and n does not divide T, the last ranks land past the last host.
TPCHECK_ORACLE(HostIndexErrorsFireExactlyWhereDue, "§8", "host_index(q, T, hosts)",
    [](const auto& q, const auto& T, const auto& hosts) {
      return preconditions(
          fails_if("tp_size not positive", T <= 0, value_error("tp_size {T} must be positive")),
          fails_if("host count not positive", hosts <= 0, value_error("num_hosts {hosts} must be positive")),
          fails_if("rank out of range", q < 0 || q >= T, value_error("rank {q} must be in [0, {T})")),
          fails_if("ranks do not spread evenly", T > hosts && !divides(hosts, T),
                   value_error("tp_size {T} does not spread evenly over num_hosts {hosts}")));
    });

// Every worker's port base + dp * tp_size + t must be at most 65535.
TPCHECK_ORACLE(PortRangeErrorsFireExactlyWhereDue, "§8", "port_range(base, dp_size, tp_size)",
    [](const auto& base, const auto& dp_size, const auto& tp_size) {
      const auto last = base + dp_size * tp_size - 1;
      return preconditions(
          fails_if("tp_size not positive", tp_size <= 0, value_error("tp_size must be positive")),
          fails_if("dp_size not positive", dp_size <= 0, value_error("dp_size {dp_size} must be positive")),
          fails_if("base port not positive", base <= 0, value_error("base port {base} must be positive")),
          fails_if("last port past 65535", last > 65535, value_error("ports {base}..{last} exceed 65535").where("last", last)));
    });

}  // namespace tpcheck::oracle
