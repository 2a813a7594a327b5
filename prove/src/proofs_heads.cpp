// Proofs of the head-ownership and head-guard invariants (SPEC §9.4, §9.6 on §4-5).
#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {

std::vector<Goal> head_guards_decide_as_specified(const Encoding& e) {
  Goals g(e);
  const z3::expr L = g.integer("L"), R = g.integer("R"), H = g.integer("H"), mla = g.flag("mla");
  const z3::expr accepted_at_once = mla || L == R;
  const z3::expr not_positive = L <= 0 || R <= 0 || H <= 0;
  // SPEC §5, rules 1-4 in order.
  Checks upstream(e.ctx());
  upstream.fail_if(!accepted_at_once && not_positive, Message::GuardNotPositive);
  upstream.fail_if(!accepted_at_once && min(L, R) < H, Message::GuardNeedsReplicatedHeads, {H, L, R});
  Checks strict(e.ctx());
  strict.fail_if(not_positive, Message::GuardNotPositive);
  strict.fail_if(!accepted_at_once && min(L, R) < H, Message::GuardNeedsReplicatedHeads, {H, L, R});
  g.add("kv_heads_guard accepts or fails exactly as SPEC §5's rules 1-4 say, with their texts", e.ctx().bool_val(true),
        e.kv_heads_guard(L, R, H, mla).fails_like(upstream.returning({})), {{"kv_heads_guard", {L, R, H, mla}}});
  g.add("kv_heads_guard_strict checks positivity first, then decides as kv_heads_guard", e.ctx().bool_val(true),
        e.kv_heads_guard_strict(L, R, H, mla).fails_like(strict.returning({})),
        {{"kv_heads_guard_strict", {L, R, H, mla}}});
  return g.take();
}

std::vector<Goal> head_ownership_fails_exactly_on_invalid_input(const Encoding& e) {
  Goals g(e);
  const z3::expr r = g.integer("r"), T = g.integer("T"), H = g.integer("H");
  const z3::expr shard = heads_shard(T, H);
  g.add("head_compatible(T, H) holds exactly when H heads shard over T ranks", e.ctx().bool_val(true),
        e.head_compatible(T, H).value[0] == shard, {{"head_compatible", {T, H}}});
  const OutcomeTerm heads = e.heads(r, T, H);
  g.add("heads(r, T, H) succeeds exactly when the heads shard and 0 <= r < T", e.ctx().bool_val(true),
        heads.ok == (shard && 0 <= r && r < T), {{"heads", {r, T, H}}});
  g.add("heads(r, T, H) fails only with a ValueError", !heads.ok, heads.fails_with_kind(ErrorKind::ValueError),
        {{"heads", {r, T, H}}});
  const OutcomeTerm holders = e.holders(r, T, H);
  g.add("holders(h, T, H) succeeds exactly when the heads shard and 0 <= h < H", e.ctx().bool_val(true),
        holders.ok == (shard && 0 <= r && r < H), {{"holders", {r, T, H}}});
  g.add("holders(h, T, H) fails only with a ValueError", !holders.ok, holders.fails_with_kind(ErrorKind::ValueError),
        {{"holders", {r, T, H}}});
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
