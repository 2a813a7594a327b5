// Proof of AcceptedSizingIsServedCorrectly (SPEC §9.6 with §11): the
// predicate's loops over every decode and prefill rank become a symbolic d and p.
#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {

std::vector<Goal> accepted_sizing_is_served_correctly(const Encoding& e) {
  Goals g(e);
  const z3::expr P = g.integer("P"), D = g.integer("D"), H = g.integer("H"), mla = g.flag("mla");
  const z3::expr d = g.integer("d"), p = g.integer("p");
  const auto accepts = [&](ConnectorTerm c) { return e.sizing_accepted(c, P, D, H, mla).ok; };
  const z3::expr heads_total = z3::ite(mla, e.num(1), H);
  const z3::expr loadable = heads_shard(P, heads_total) && heads_shard(D, heads_total);
  const z3::expr any = e.ctx().bool_val(true);
  const auto sizing_call = [&](const char* connector) {
    return ShownCall{std::string("sizing_accepted_") + connector, {P, D, H, mla}};
  };
  g.add("the general connector accepts exactly the loadable sizings", any, accepts(ConnectorTerm::General) == loadable,
        {sizing_call("general")});
  g.add("what moriio accepts, mooncake accepts", accepts(ConnectorTerm::MoRIIO), accepts(ConnectorTerm::Mooncake),
        {sizing_call("moriio"), sizing_call("mooncake")});
  // §11: NIXL refuses a larger prefill side that replicates heads, and
  // otherwise accepts exactly what Mooncake accepts.
  const z3::expr unread_replicas = !mla && P > D && P > H;
  g.add("nixl accepts exactly what mooncake accepts, except not mla and P > D and P > H", any,
        accepts(ConnectorTerm::Nixl) == (accepts(ConnectorTerm::Mooncake) && !unread_replicas),
        {sizing_call("nixl"), sizing_call("mooncake")});
  g.add("what nixl or mooncake accepts is loadable", accepts(ConnectorTerm::Nixl) || accepts(ConnectorTerm::Mooncake),
        loadable, {sizing_call("nixl"), sizing_call("mooncake")});
  const OperationTerm single = e.single_source_plan(d, P, D, H, mla);
  const OperationTerm general = e.plan(d, P, D, H, mla);
  const auto one = single.element(e.num(0)), first = general.element(e.num(0));
  g.add("where moriio accepts, every decode rank's single whole-page copy is its general plan",
        accepts(ConnectorTerm::MoRIIO) && 0 <= d && d < D,
        single.outcome.ok && general.outcome.ok && general.outcome.value[0] == 1 && one[0] == first[0] &&
            one[1] == first[1] && one[2] == first[2],
        {sizing_call("moriio"), {"single_source_plan", {d, P, D, H, mla}}, {"plan", {d, P, D, H, mla}}});
  const OutcomeTerm single_count = e.single_readers(p, P, D), count = e.readers(p, P, D, H, mla);
  g.add("where moriio accepts, every prefill rank's single_readers equals its readers",
        accepts(ConnectorTerm::MoRIIO) && 0 <= p && p < P,
        single_count.ok && count.ok && single_count.value[0] == count.value[0],
        {sizing_call("moriio"), {"single_readers", {p, P, D}}, {"readers", {p, P, D, H, mla}}});
  return g.take();
}

}  // namespace tpcheck::prove
