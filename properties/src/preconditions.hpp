// Preconditions that several operations share, each SPEC text written once:
// an operation that calls another (window calls tp_ratio, the read plan and
// the connectors validate a sizing) fails as the SPEC says the callee does.
// Their texts bind the names they use (Raises::where) to the terms given, so
// they read the same whichever parameters an operation passes.
#pragma once

#include <tuple>

#include "declare.hpp"
#include "tpcheck/oracle.hpp"

namespace tpcheck::oracle::shared {

// §1: the local rank inside [0, L).
auto local_rank(const auto& r, const auto& L) {
  return fails_if("rank out of range", r < 0 || r >= L,
                  value_error("local_tp_rank {r} must be in [0, {L})").where("r", r).where("L", L));
}

// §1: both sizes positive, then the local rank.
auto sizes_then_local_rank(const auto& r, const auto& L, const auto& R) {
  return std::tuple{fails_if("sizes not positive", L <= 0 || R <= 0, value_error("TP sizes must be positive")),
                    local_rank(r, L)};
}

// §1 on positive sizes: the larger a multiple of the smaller, each way with
// its own text (MoRIIO's remote_rank with local size L, remote size R).
auto strict_map_divisibility(const auto& L, const auto& R) {
  return std::tuple{
      fails_if("remote larger, not a multiple", R > L && !divides(L, R),
               value_error("remote tp_size {R} must be a multiple of local tp_size {L} for heterogeneous-TP P/D")
                   .where("R", R)
                   .where("L", L)),
      fails_if("local larger, not a multiple", L > R && !divides(R, L),
               value_error("local tp_size {L} must be a multiple of remote tp_size {R} for heterogeneous-TP P/D")
                   .where("L", L)
                   .where("R", R))};
}

// §3 tp_ratio(L, R): each size positive (the project's texts: the SPEC has none).
auto ratio_sizes(const auto& L, const auto& R) {
  return std::tuple{
      fails_if("local size not positive", L <= 0, value_error("local tp_size {L} must be positive").where("L", L)),
      fails_if("remote size not positive", R <= 0, value_error("remote tp_size {R} must be positive").where("R", R))};
}

// §3 tp_ratio(L, R) on positive sizes: divisible, each way with its text.
auto ratio_divisibility(const auto& L, const auto& R) {
  return std::tuple{
      fails_if("local larger or equal, not divisible", L >= R && !divides(R, L),
               assertion_error("Local tensor parallel size {L} is not divisible by remote tensor parallel size {R}.")
                   .where("L", L)
                   .where("R", R)),
      fails_if("remote larger, not divisible", L < R && !divides(L, R),
               assertion_error("Remote tensor parallel size {R} is not divisible by local tensor parallel size {L}.")
                   .where("R", R)
                   .where("L", L))};
}

// §5 MoRIIO's head guard with local size L and remote size R, on positive
// sizes: the heads replicated on both sides, unless MLA or equal sizes.
auto guard_needs_replicated_heads(const auto& L, const auto& R, const auto& H, const auto& mla) {
  return fails_if("heads not replicated on both sides", mla == 0 && L != R && min(L, R) < H,
                  not_implemented_error("MoRIIO heterogeneous TP requires replicated KV heads on both prefill and "
                                        "decode. Got total_num_kv_heads={H}, local_tp_size={L}, remote_tp_size={R}.")
                      .where("H", H)
                      .where("L", L)
                      .where("R", R));
}

// The prefill and decode sides' TP sizes positive (the project's texts).
auto sides_positive(const auto& P, const auto& D) {
  return std::tuple{
      fails_if("prefill size not positive", P <= 0, value_error("prefill tp_size {P} must be positive").where("P", P)),
      fails_if("decode size not positive", D <= 0, value_error("decode tp_size {D} must be positive").where("D", D))};
}

// §4, §6 and §11: a sizing's prefill and decode sizes positive, then its head
// count (ignored under MLA).
auto sizing_positive(const auto& P, const auto& D, const auto& H, const auto& mla) {
  return std::tuple_cat(sides_positive(P, D),
                        std::tuple{fails_if("head count not positive", mla == 0 && H <= 0,
                                            value_error("total_num_kv_heads {H} must be positive").where("H", H))});
}

// §4: both sides able to shard the heads (the model does not load otherwise;
// under MLA every rank holds the one latent head).
auto heads_shard_on_both_sides(const auto& P, const auto& D, const auto& H, const auto& mla) {
  return std::tuple{
      fails_if("heads do not shard over the prefill side", mla == 0 && !shards(P, H),
               value_error("total_num_kv_heads {H} cannot be sharded over prefill tp_size {P}: one must divide the other")
                   .where("H", H)
                   .where("P", P)),
      fails_if("heads do not shard over the decode side", mla == 0 && !shards(D, H),
               value_error("total_num_kv_heads {H} cannot be sharded over decode tp_size {D}: one must divide the other")
                   .where("H", H)
                   .where("D", D))};
}

// §15.0: a side's TP size per attention-DP group, T' (1 under ADP, else T).
auto per_group(const char* name, const auto& T, const auto& adp) { return named(name, if_else(adp != 0, 1, T)); }

// §15.0: a sizing loads with each side sharding the heads over its TP size
// per attention-DP group (an ADP rank holds every head).
auto loads_per_group(const auto& P, const auto& D, const auto& H, const auto& mla, const auto& PA, const auto& DA) {
  return std::tuple_cat(sizing_positive(P, D, H, mla),
                        heads_shard_on_both_sides(per_group("prefill_per_group", P, PA),
                                                  per_group("decode_per_group", D, DA), H, mla));
}

// §6: how many copies the plan of d has. d holds n = max(1, H // D) heads
// from first = floor(d * H / D) (MLA: H = 1). With P <= H each prefill rank
// holds H // P of them, and d copies from every one its heads touch; with P > H
// every head of d is a copy of its own.
auto copy_count(const auto& d, const auto& P, const auto& D, const auto& H, const auto& mla) {
  const auto heads = named("heads", if_else(mla == 0, H, 1));
  const auto first = named("first", d * heads / D);
  const auto n = named("n", max(1, heads / D));
  const auto per_prefill_rank = named("per_prefill_rank", heads / P);
  return named("copies", if_else(P <= heads, (first + n - 1) / per_prefill_rank - first / per_prefill_rank + 1, n));
}

// §6: the decode rank inside [0, D).
auto decode_rank(const auto& d, const auto& D) {
  return fails_if("decode rank out of range", d < 0 || d >= D,
                  value_error("decode_tp_rank {d} must be in [0, {D})").where("d", d).where("D", D));
}

}  // namespace tpcheck::oracle::shared
