// Proofs of the completion-count and port invariants (SPEC §9.8, §9.9).
#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {

std::vector<Goal> port_offsets_never_collide(const Encoding& e) {
  Goals g(e);
  const z3::expr dp_size = g.integer("dp_size"), T = g.integer("T");
  const z3::expr dp1 = g.integer("dp1"), t1 = g.integer("t1"), dp2 = g.integer("dp2"), t2 = g.integer("t2");
  const OutcomeTerm one = e.port_offset(dp1, t1, T), two = e.port_offset(dp2, t2, T);
  const z3::expr workers = T >= 1 && 0 <= dp1 && dp1 < dp_size && 0 <= dp2 && dp2 < dp_size && 0 <= t1 && t1 < T &&
                           0 <= t2 && t2 < T;
  g.add("two different workers (dp, t) of one deployment get different port offsets",
        workers && (dp1 != dp2 || t1 != t2), one.ok && two.ok && one.value[0] != two.value[0],
        {{"port_offset", {dp1, t1, T}}, {"port_offset", {dp2, t2, T}}});
  return g.take();
}

std::vector<Goal> decode_rank_dials_its_mapped_peer(const Encoding& e) {
  Goals g(e);
  const z3::expr dp = g.integer("dp"), d = g.integer("d"), P = g.integer("P"), D = g.integer("D");
  const z3::expr hosts = g.integer("hosts");
  const OutcomeTerm mapped = e.remote_rank(d, D, P);
  const z3::expr& q = mapped.value[0];
  const OutcomeTerm dialed = e.port_offset(dp, q, P), group_start = e.port_offset(dp, e.num(0), P);
  g.add("a decode rank dials the offset its mapped prefill rank listens on, inside its own DP group",
        mapped.ok && dp >= 0, dialed.ok && group_start.ok && dialed.value[0] - group_start.value[0] == q,
        {{"remote_rank", {d, D, P}}, {"port_offset", {dp, q, P}}, {"port_offset", {dp, e.num(0), P}}});
  const OutcomeTerm host = e.host_index(q, P, hosts);
  const z3::expr per_host = max(e.num(1), floor_div(P, hosts));
  const z3::expr& h = host.value[0];
  g.add("the host a decode rank dials is in [0, hosts) and holds its mapped prefill rank", mapped.ok && host.ok,
        0 <= h && h < hosts && h * per_host <= q && q < (h + 1) * per_host,
        {{"remote_rank", {d, D, P}}, {"host_index", {q, P, hosts}}});
  return g.take();
}

std::vector<Goal> port_range_rejects_exactly_the_overflowing_deployments(const Encoding& e) {
  Goals g(e);
  const z3::expr base = g.integer("base"), dp_size = g.integer("dp_size"), T = g.integer("T");
  const OutcomeTerm range = e.port_range(base, dp_size, T);
  const OutcomeTerm highest = e.port_offset(dp_size - 1, T - 1, T);  // the last worker's offset is the largest
  const std::vector<ShownCall> calls = {{"port_range", {base, dp_size, T}}, {"port_offset", {dp_size - 1, T - 1, T}}};
  g.add("port_range rejects a non-positive base, DP size or TP size", base < 1 || dp_size < 1 || T < 1, !range.ok, calls);
  g.add("port_range accepts exactly when base + the highest worker offset <= 65535",
        base >= 1 && dp_size >= 1 && T >= 1, highest.ok && range.ok == (base + highest.value[0] <= 65535), calls);
  return g.take();
}

}  // namespace tpcheck::prove
