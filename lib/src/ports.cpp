// §8: port offsets, hosts, and a deployment's port range.
#include "tpcheck/instantiate.hpp"
#include "messages.hpp"
#include "tpcheck/model.hpp"

namespace tpcheck {

template <ModelInt Int>
Outcome<wide_t<Int>> port_offset(const Int& dp_rank, const Int& tp_rank, const Int& tp_size) {
  // tp_size 0 is vLLM's "unknown peer TP" sentinel: it must never reach a port.
  if (tp_size <= 0) return msg::port_tp_size_not_positive();
  if (tp_rank < 0 || tp_rank >= tp_size) return msg::tp_rank_out_of_range(tp_rank, tp_size);
  if (dp_rank < 0) return msg::dp_rank_negative(dp_rank);
  using W = wide_t<Int>;  // dp_rank * tp_size leaves int64 for large inputs
  return W(W(dp_rank) * W(tp_size) + W(tp_rank));
}

template <ModelInt Int>
Outcome<Int> host_index(const Int& q, const Int& T, const Int& n) {
  if (T <= 0) return msg::size_not_positive("tp_size", T);
  if (n <= 0) return msg::size_not_positive("num_hosts", n);
  if (q < 0 || q >= T) return msg::rank_out_of_range("rank", q, T);
  // With T > n and n not dividing T, q // (T // n) passes the last host.
  if (T > n && floor_mod<Int>(T, n) != 0) return msg::ranks_not_spread_over_hosts(T, n);
  return floor_div<Int>(q, std::max(Int(1), floor_div<Int>(T, n)));
}

template <ModelInt Int>
Outcome<None> port_range(const Int& base, const Int& dp_size, const Int& tp_size) {
  if (tp_size <= 0) return msg::port_tp_size_not_positive();
  if (dp_size <= 0) return msg::size_not_positive("dp_size", dp_size);
  if (base <= 0) return msg::size_not_positive("base port", base);
  using W = wide_t<Int>;
  const W last = W(base) + W(dp_size) * W(tp_size) - 1;  // the highest offset is dp_size * tp_size - 1
  if (last > 65535) return msg::ports_exceed_range(base, last);
  return None{};
}

#define TPCHECK_PORTS(Int)                                                                 \
  template Outcome<wide_t<Int>> port_offset<Int>(const Int&, const Int&, const Int&);      \
  template Outcome<Int> host_index<Int>(const Int&, const Int&, const Int&);               \
  template Outcome<None> port_range<Int>(const Int&, const Int&, const Int&);
TPCHECK_INSTANTIATE_MODEL(TPCHECK_PORTS)

}  // namespace tpcheck
