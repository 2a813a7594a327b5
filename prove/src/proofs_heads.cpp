// Proofs of the head-ownership invariants (SPEC §4; where ownership and the
// head guards fail is the error oracle's, proofs_oracles.cpp).
#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {

std::vector<Goal> heads_shard_exactly_where_one_divides_the_other(const Encoding& e) {
  Goals g(e);
  const z3::expr T = g.integer("T"), H = g.integer("H");
  g.add("head_compatible(T, H) holds exactly when H heads shard over T ranks", e.ctx().bool_val(true),
        e.head_compatible(T, H).value[0] == heads_shard(T, H), {{"head_compatible", {T, H}}});
  return g.take();
}

std::vector<Goal> holders_hold_exactly_their_head(const Encoding& e) {
  Goals g(e);
  const z3::expr h = g.integer("h"), T = g.integer("T"), H = g.integer("H"), x = g.integer("x");
  const OutcomeTerm holders = e.holders(h, T, H);
  const OutcomeTerm own = e.heads(x, T, H);
  for (const bool replicated : {false, true}) {
    const std::string side = replicated ? ", T > H" : ", T <= H";
    const z3::expr domain = 0 <= h && h < H && heads_shard(T, H) && (replicated ? T > H : T <= H);
    g.add("holders(h, T, H) is max(1, T // H) ranks inside [0, T)" + side, domain,
          holders.ok && 0 <= holders.value[0] && holders.value[1] <= T &&
              holders.value[1] - holders.value[0] == max(e.num(1), floor_div(T, H)),
          {{"holders", {h, T, H}}});
    g.add("rank x is among holders(h, T, H) exactly when heads(x, T, H) contains h" + side, domain && 0 <= x && x < T,
          holders.ok && own.ok && (within(x, holders.value) == within(h, own.value)), {{"holders", {h, T, H}}, {"heads", {x, T, H}}});
  }
  return g.take();
}

}  // namespace tpcheck::prove
