// SPEC §11 tied to §6-7: a sizing a connector accepts must read the right
// heads and wait for the right number of completions under that connector.
#include "support.hpp"
#include "tpcheck/deployment.hpp"
#include "tpcheck/instantiate.hpp"

namespace tpcheck::inv {

template <ModelInt Int>
Violation accepted_sizing_is_served_correctly(const Int& P, const Int& D, const Int& H, bool mla) {
  const auto accepts = [&](Connector c) { return sizing_accepted(c, P, D, H, mla).ok(); };
  const std::string sizing = "sizing (P, D, H, mla) = (" + render(P) + ", " + render(D) + ", " + render(H) + ", " + render(mla) + ")";
  const Int heads_total = mla ? Int(1) : H;
  const bool loadable = heads_shard(P, heads_total) && heads_shard(D, heads_total);
  if (accepts(Connector::General) != loadable) {
    return sizing + (loadable ? " is head-compatible but the general connector rejects it"
                              : " is not loadable but the general connector accepts it");
  }
  // MoRIIO needs divisibility both ways, which is Mooncake's condition.
  if (accepts(Connector::MoRIIO) && !accepts(Connector::Mooncake)) {
    return sizing + " is accepted by moriio but not by mooncake";
  }
  // NIXL accepts what Mooncake accepts except a larger prefill side that
  // replicates heads (§11: `not mla and P > D and P > H`, refused at handshake).
  const bool unread_replicas = !mla && P > D && P > H;
  if (accepts(Connector::Nixl) != (accepts(Connector::Mooncake) && !unread_replicas)) {
    return sizing + (unread_replicas ? " leaves prefill replicas unread but nixl accepts it"
                                     : " is accepted by exactly one of nixl and mooncake");
  }
  if ((accepts(Connector::Nixl) || accepts(Connector::Mooncake)) && !loadable) {
    return sizing + " is accepted by nixl or mooncake but is not loadable";
  }
  if (!accepts(Connector::MoRIIO)) return std::nullopt;
  for (Int d = 0; d < D; ++d) {
    const Outcome<Plan<Int>> single = single_source_plan(d, P, D, H, mla);
    const Outcome<Plan<Int>> general = plan(d, P, D, H, mla);
    if (!single.ok() || !general.ok() || !(single.value() == general.value())) {
      return sizing + " is accepted by moriio, but decode rank " + render(d) + " copies " + render(single) +
             " where the heads it holds come from " + render(general);
    }
  }
  for (Int p = 0; p < P; ++p) {
    const Outcome<Int> expected = readers(p, P, D, H, mla);
    if (auto v = expect_rendered([&] { return call("single_readers", p, P, D) + " (" + sizing + " accepted by moriio)"; },
                                 single_readers(p, P, D), render(expected))) {
      return v;
    }
  }
  return std::nullopt;
}

#define TPCHECK_DEPLOYMENT_INVARIANTS(Int) \
  template Violation accepted_sizing_is_served_correctly<Int>(const Int&, const Int&, const Int&, bool);
TPCHECK_INSTANTIATE(TPCHECK_DEPLOYMENT_INVARIANTS)

}  // namespace tpcheck::inv
