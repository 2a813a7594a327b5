// §8 and §11 as terms: lib/src/ports.cpp and lib/src/deployment.cpp.
#include "tpcheck/prove/encoding.hpp"

namespace tpcheck::prove {

OutcomeTerm Encoding::port_offset(const z3::expr& dp_rank, const z3::expr& tp_rank, const z3::expr& tp_size) const {
  Checks checks(c_);
  checks.fail_if(tp_size <= 0, Message::PortTpSizeNotPositive);
  checks.fail_if(tp_rank < 0 || tp_rank >= tp_size, Message::TpRankOutOfRange, {tp_rank, tp_size});
  checks.fail_if(dp_rank < 0, Message::DpRankNegative, {dp_rank});
  return checks.returning({dp_rank * tp_size + tp_rank});
}

OutcomeTerm Encoding::host_index(const z3::expr& q, const z3::expr& T, const z3::expr& n) const {
  Checks checks(c_);
  checks.fail_if(T <= 0, Message::TpSizeNotPositive, {T});
  checks.fail_if(n <= 0, Message::NumHostsNotPositive, {n});
  checks.fail_if(q < 0 || q >= T, Message::HostRankOutOfRange, {q, T});
  checks.fail_if(T > n && floor_mod(T, n) != 0, Message::RanksNotSpreadOverHosts, {T, n});
  return checks.returning({floor_div(q, max(num(1), floor_div(T, n)))});
}

OutcomeTerm Encoding::port_range(const z3::expr& base, const z3::expr& dp_size, const z3::expr& tp_size) const {
  Checks checks(c_);
  checks.fail_if(tp_size <= 0, Message::PortTpSizeNotPositive);
  checks.fail_if(dp_size <= 0, Message::DpSizeNotPositive, {dp_size});
  checks.fail_if(base <= 0, Message::BasePortNotPositive, {base});
  const z3::expr last = base + dp_size * tp_size - 1;
  checks.fail_if(last > 65535, Message::PortsExceedRange, {base, last});
  return checks.returning({});
}

OutcomeTerm Encoding::sizing_accepted(ConnectorTerm connector, const z3::expr& P, const z3::expr& D,
                                      const z3::expr& H, const z3::expr& mla) const {
  Checks checks(c_);
  checks.fail_if(P <= 0, Message::PrefillSizeNotPositive, {P});
  checks.fail_if(D <= 0, Message::DecodeSizeNotPositive, {D});
  checks.fail_if(!mla && H <= 0, Message::HeadsNotPositive, {H});
  const z3::expr heads_total = effective_heads(H, mla);
  checks.fail_if(!head_compatible(P, heads_total).value[0], Message::HeadsNotShardableOverPrefill, {heads_total, P});
  checks.fail_if(!head_compatible(D, heads_total).value[0], Message::HeadsNotShardableOverDecode, {heads_total, D});
  switch (connector) {
    case ConnectorTerm::MoRIIO:
      // Each side maps its own rank 0; the decode side runs the guard as local.
      checks.fail_as(remote_rank(num(0), D, P));
      checks.fail_as(remote_rank(num(0), P, D));
      checks.fail_as(kv_heads_guard(D, P, H, mla));
      break;
    case ConnectorTerm::Nixl:
    case ConnectorTerm::Mooncake:
      checks.fail_as(tp_ratio(D, P));
      // §11: NIXL refuses a larger prefill side that replicates heads (it
      // would read one replica of each head and leave the other ranks of the
      // window waiting); Mooncake pushes from every rank of the window.
      if (connector == ConnectorTerm::Nixl) {
        checks.fail_if(!mla && P > D && P > H, Message::AssertionWithoutText);
      }
      break;
    case ConnectorTerm::General:
      break;
  }
  return checks.returning({});
}

}  // namespace tpcheck::prove
