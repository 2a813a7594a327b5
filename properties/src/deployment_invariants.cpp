// SPEC §11 tied to §6-7: a sizing a connector accepts must read the right
// heads and wait for the right number of completions under that connector.
// The check, and its declaration in the registry right after it.
#include "declare.hpp"
#include "support.hpp"
#include "tpcheck/deployment.hpp"
#include "tpcheck/instantiate.hpp"

TPCHECK_DECLARATIONS(deployment_invariants)

namespace tpcheck::inv {
using namespace declare;
namespace {

template <ModelInt Int>
bool loadable(const Int& P, const Int& D, const Int& H, bool mla) {
  const Int heads_total = mla ? Int(1) : H;
  return heads_shard(P, heads_total) && heads_shard(D, heads_total);
}

// §11: NIXL refuses a larger prefill side that replicates heads: it would read
// one replica of each head and leave the other ranks of the window waiting.
template <ModelInt Int>
bool nixl_refuses_unread_replicas(const Int& P, const Int& D, const Int& H, bool mla) {
  return !mla && P > D && P > H;
}

}  // namespace

template <ModelInt Int>
Verdict accepted_sizing_is_served_correctly(const Int& P, const Int& D, const Int& H, bool mla) {
  // Each connector's verdict, asked once: the checks below compare them.
  const Outcome<None> nixl = sizing_accepted(Connector::Nixl, P, D, H, mla);
  const Outcome<None> mooncake = sizing_accepted(Connector::Mooncake, P, D, H, mla);
  const bool moriio = sizing_accepted(Connector::MoRIIO, P, D, H, mla).ok();
  const auto sizing = [&] {
    return "sizing (P, D, H, mla) = (" + render(P) + ", " + render(D) + ", " + render(H) + ", " + render(mla) + ")";
  };
  const bool can_load = loadable(P, D, H, mla);
  if (sizing_accepted(Connector::General, P, D, H, mla).ok() != can_load) {
    return violated(sizing() + (can_load ? " is head-compatible but the general connector rejects it"
                                         : " is not loadable but the general connector accepts it"));
  }
  // MoRIIO needs divisibility both ways, which is Mooncake's condition.
  if (moriio && !mooncake.ok()) return violated(sizing() + " is accepted by moriio but not by mooncake");
  // NIXL accepts what Mooncake accepts except a larger prefill side that
  // replicates heads (§11: `not mla and P > D and P > H`, refused at handshake).
  const bool unread_replicas = nixl_refuses_unread_replicas(P, D, H, mla);
  if (nixl.ok() != (mooncake.ok() && !unread_replicas)) {
    return violated(sizing() + (unread_replicas ? " leaves prefill replicas unread but nixl accepts it"
                                                : " is accepted by exactly one of nixl and mooncake"));
  }
  // §11: NIXL refuses unread replicas with an AssertionError that has no
  // message (`tpcheck check` prints the bare class name); any other sizing
  // it rejects, it rejects as Mooncake does, with Mooncake's message.
  if (!nixl.ok()) {
    const Failure& refused = nixl.failure();
    if (mooncake.ok()) {
      if (refused.kind != ErrorKind::AssertionError || !refused.message.empty()) {
        return violated(sizing() + " leaves prefill replicas unread, and nixl refuses it with " + render(refused) +
                        ", not an AssertionError without a message");
      }
    } else if (!(refused == mooncake.failure()) || refused.message.empty()) {
      return violated(sizing() + " is rejected by nixl with '" + render(refused) + "' but by mooncake with '" +
                      render(mooncake.failure()) + "'");
    }
  }
  if (!can_load && (nixl.ok() || mooncake.ok())) {
    return violated(sizing() + " is accepted by nixl or mooncake but is not loadable");
  }
  if (!moriio) return holds();
  thread_local Plan<Int> general;  // reused (plan_into): a case allocates no general plan once it has grown
  const Verdict plans = walk_range(Int(0), D, [&](const Int& d) {
    const Outcome<Plan<Int>> single = single_source_plan(d, P, D, H, mla);
    const std::optional<Failure> general_failed = plan_into(general, d, P, D, H, mla);
    if (single.ok() && !general_failed && single.value() == general) return holds();
    return violated(sizing() + " is accepted by moriio, but decode rank " + render(d) + " copies " + render(single) +
                    " where the heads it holds come from " + (general_failed ? render(*general_failed) : render(general)));
  });
  if (!plans.held()) return plans;
  return walk_range(Int(0), P, [&](const Int& p) {
    const Outcome<Int> expected = readers(p, P, D, H, mla);
    const Outcome<Int> got = single_readers(p, P, D);
    if (expected.ok() && got.ok() && expected.value() == got.value()) return holds();
    return violated(call("single_readers", p, P, D) + " = " + render(got) + " but " + call("readers", p, P, D, H, mla) +
                    " = " + render(expected) + " (" + sizing() + " accepted by moriio)");
  });
}

TPCHECK_INVARIANT(AcceptedSizingIsServedCorrectly, "§11", HeadAlignment,
    domain(pair("P", "D"), flag("mla"), heads("H", "P", "D", HeadCounts::Edges, "mla")),
    kinds(kind("moriio accepts", [](const auto& P, const auto& D, const auto& mla, const auto& H) {
            return divisible_pair(P, D) && loadable(P, D, H, mla != 0) && (mla != 0 || P == D || std::min(P, D) >= H);
          }),
          kind("loadable, moriio rejects", [](const auto& P, const auto& D, const auto& mla, const auto& H) {
            return loadable(P, D, H, mla != 0) && !(divisible_pair(P, D) && (mla != 0 || P == D || std::min(P, D) >= H));
          }),
          kind("not loadable", [](const auto& P, const auto& D, const auto& mla, const auto& H) { return !loadable(P, D, H, mla != 0); }),
          kind("nixl refuses unread replicas", [](const auto& P, const auto& D, const auto& mla, const auto& H) {
            return loadable(P, D, H, mla != 0) && divisible_pair(P, D) && nixl_refuses_unread_replicas(P, D, H, mla != 0);
          }),
          kind("MLA", [](const auto&, const auto&, const auto& mla, const auto&) { return mla != 0; })),
    min_non_vacuous(1.0).size_cap(kWalkedSizeCap).proof(Proof::by_z3("all integers P, D, H, mla for which "
        "connector accepts what (general == loadable; moriio => mooncake; nixl == mooncake minus not mla and "
        "P > D and P > H; nixl or mooncake => loadable); where moriio accepts, every decode rank 0 <= d < D (its "
        "single whole-page copy is its general plan, citing SingleSourceHoldsExactlyTheDecodeRanksHeads, "
        "whose proof this one depends on) and every prefill rank 0 <= p < P (single_readers == readers, case by case: P == D "
        "<= H, P == D > H, D > P, D < P with D <= H or D > H)")),
    [](const auto& P, const auto& D, const auto& mla, const auto& H) { return accepted_sizing_is_served_correctly(P, D, H, mla != 0); });

#define TPCHECK_DEPLOYMENT_INVARIANTS(Int) \
  template Verdict accepted_sizing_is_served_correctly<Int>(const Int&, const Int&, const Int&, bool);
TPCHECK_INSTANTIATE(TPCHECK_DEPLOYMENT_INVARIANTS)

}  // namespace tpcheck::inv
