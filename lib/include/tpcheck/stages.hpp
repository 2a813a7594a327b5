// The model's extension for TensorRT-LLM (SPEC §15.0, §15.4): pipeline-parallel
// (PP) stages that split the layers differently on each side, attention data
// parallelism (ADP), the duplicate-head factors and the whole-block copy guard.
//
// Words (SPEC §15.0, §15.4). Prefill is TRT-LLM's ctx side (TP size P), decode
// its gen side (TP size D). A side with PP size S and stage layer counts
// c_0 ... c_{S-1} puts stage s on the layers [a_s, b_s), a_s = c_0 + ... +
// c_{s-1}, b_s = a_s + c_s; both sides hold the same layers (their counts sum
// to the same total). A rank is (stage s, TP rank t), global rank s * T + t.
// Under ADP a side's TP size per DP group is T' = 1 and each of its T ranks is
// a DP group of its own holding all H heads; without ADP T' = T, one group.
// A request is served by one prefill group c and asked by one decode group g;
// inside a request, TP rank t is rank t mod T' of group t // T'.
//
// Every operation is generic over the model's integer type and validates its
// inputs, first failure wins, in the order its comment gives. Layer indices
// and global ranks are sums and products of the inputs: they are returned in
// wide_t<Int>, which holds them for any input (as port_offset's offset).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tpcheck/model.hpp"
#include "tpcheck/outcome.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck {

// The most stages a side's split may have (a ValueError past it): far beyond
// any deployment, small enough that a stage index fits every model type and
// a sum of layer counts fits wide_t of every model type.
inline constexpr std::int64_t kMaxStages = 4096;

// Which side a stage split belongs to (the sides' names in failure texts).
enum class PpSide { Prefill, Decode };

// Attention DP per side (SPEC §15.0): off means T' = T and one DP group.
struct AttentionDp {
  bool prefill = false;
  bool decode = false;
  bool operator==(const AttentionDp&) const = default;
};

// A deployment as TRT-LLM runs it (SPEC §15.4).
template <ModelInt Int>
struct Topology {
  Int P;     // prefill (ctx) TP size
  Int D;     // decode (gen) TP size
  Int H;     // the model's KV heads (ignored under MLA)
  bool mla = false;
  std::vector<Int> prefill_layers;  // c_0 ... c_{S-1} of the prefill side; one stage: {total}
  std::vector<Int> decode_layers;
  AttentionDp adp;
};

// A half-open range [first, end) of global layers or global ranks.
template <ModelInt Int>
struct WideSpan {
  wide_t<Int> first;
  wide_t<Int> end;
  bool operator==(const WideSpan&) const = default;
};
template <ModelInt Int>
using LayerRange = WideSpan<Int>;

// One copy of a stage plan (SPEC §15.4.1): heads [lo, hi) of layers `layers`
// of the decode rank come from prefill global rank `source` (u * P + p).
template <ModelInt Int>
struct StageCopy {
  wide_t<Int> source;
  Int lo;
  Int hi;
  LayerRange<Int> layers;
  bool operator==(const StageCopy&) const = default;
};

// SPEC §15.0's duplicate-head factors, per side: how many replicas of each
// head the side holds relative to the other. From the prefill side's point of
// view dup = prefill and peer_dup = decode; from the decode side's the reverse.
template <ModelInt Int>
struct DuplicateHeadFactors {
  Int prefill;
  Int decode;
  bool operator==(const DuplicateHeadFactors&) const = default;
};

// Validation shared by the operations below, in this order (the texts are the
// project's; lib/src/messages.hpp):
//   split(side)   "{side} pp_layers must list at least one stage";
//                 "{side} pp_layers lists {n} stages, more than the model takes (4096)";
//                 "{side} pp stage {s} has {c} layers, must have at least one" (the first such stage);
//   totals        "prefill pp stages hold {x} layers but decode pp stages hold {y}: both sides must
//                 hold the same layers";
//   topology      "prefill tp_size {P} must be positive", "decode tp_size {D} must be positive",
//                 "total_num_kv_heads {H} must be positive" (not under MLA), split(prefill),
//                 split(decode), totals.
// All are ValueErrors.

// §15.4.1 [a_s, b_s): the layers of stage s of a side with these stage layer
// counts. Fails: split(side); "{side} pp_stage {s} must be in [0, {S})".
template <ModelInt Int>
Outcome<LayerRange<Int>> stage_layer_range(PpSide side, const Int& s, std::span<const Int> layers);

// §15.4.1 stages(s, other side): the stages [first, end) of the other side
// whose layers overlap those of stage s of `side` (a contiguous range, never
// empty). Fails: split(prefill); split(decode); totals; "{side} pp_stage {s}
// must be in [0, {S})".
template <ModelInt Int>
Outcome<Span<Int>> overlapping_stages(PpSide side, const Int& s, std::span<const Int> prefill_layers,
                                      std::span<const Int> decode_layers);

// §15.4.1-2 the prefill global ranks decode rank (stage s, TP rank d) asks
// when prefill DP group c serves the request: u * P + c * P' + q for every u
// in stages(s, prefill) (ascending) and q in window(d mod D', D', P'), in that
// order. TRT-LLM's gen-side `.ranks` / `mIRanks`. Fails: topology; "decode
// pp_stage {s} must be in [0, {S})"; "decode_tp_rank {d} must be in [0, {D})";
// "prefill dp_group {c} must be in [0, {G})" (G = P under prefill ADP, else 1);
// window(d mod D', D', P')'s failures (§3: P' and D' not divisible); more than
// 2^20 ranks: "stage window of decode_tp_rank {d} has {n} elements, more than
// the model lists (1048576)".
template <ModelInt Int>
Outcome<std::vector<wide_t<Int>>> stage_window(const Int& s, const Int& d, const Int& c, const Topology<Int>& t);

// The same ranks as one span per prefill stage u, in order: [u * P + c * P' +
// w.first, u * P + c * P' + w.end) with w = window(d mod D', D', P') as a span.
// It fails as stage_window but lists no rank (so no length limit).
template <ModelInt Int>
Outcome<std::vector<WideSpan<Int>>> stage_window_spans(const Int& s, const Int& d, const Int& c,
                                                       const Topology<Int>& t);

// §15.4.1-2 the decode global ranks prefill rank (stage u, TP rank p) serves
// for a request of decode DP group g: s * D + g * D' + e for every s in
// stages(u, decode) and e in window(p mod P', P', D'). Its length is the number
// of requests the rank waits for (TRT-LLM's ctx-side `len(.ranks)`). Fails:
// topology; "prefill pp_stage {u} must be in [0, {S})"; "prefill_tp_rank {p}
// must be in [0, {P})"; "decode dp_group {g} must be in [0, {G})"; window(p mod
// P', P', D')'s failures; more than 2^20 ranks: "stage fan-in of
// prefill_tp_rank {p} has {n} elements, more than the model lists (1048576)".
template <ModelInt Int>
Outcome<std::vector<wide_t<Int>>> stage_served(const Int& u, const Int& p, const Int& g, const Topology<Int>& t);

// The same ranks as one span per decode stage, as stage_window_spans.
template <ModelInt Int>
Outcome<std::vector<WideSpan<Int>>> stage_served_spans(const Int& u, const Int& p, const Int& g,
                                                       const Topology<Int>& t);

// §15.4.1-2 plan((s, d)) for a request served by prefill DP group c: for every
// u in stages(s, prefill) (ascending), each copy (q, lo, hi) of the §6 plan
// plan(d mod D', P', D', H, mla) restricted to the layers [max(a_s, a_u),
// min(b_s, b_u)), from prefill global rank u * P + c * P' + q. An ADP side's
// rank holds all H heads. Fails: topology; the three rank checks of
// stage_window; "total_num_kv_heads {H} cannot be sharded over prefill tp_size
// {P}: one must divide the other" (without prefill ADP), the same for decode;
// more than 2^20 copies: "stage plan of decode_tp_rank {d} has {n} elements,
// more than the model lists (1048576)".
template <ModelInt Int>
Outcome<std::vector<StageCopy<Int>>> stage_plan(const Int& s, const Int& d, const Int& c, const Topology<Int>& t);

// The same plan's copies [first, first + count) (fewer where it ends first),
// written to `copies` (cleared first): each stage's run read from the §6 plan
// by plan_range_into, so a caller that looks at a few copies of a long plan
// (the fuzzers' walks) does not list all of them. stage_plan is this range
// over the whole plan. Fails as stage_plan().
template <ModelInt Int>
std::optional<Failure> stage_plan_range_into(std::vector<StageCopy<Int>>& copies, const Int& s, const Int& d,
                                             const Int& c, const Topology<Int>& t, const wide_t<Int>& first,
                                             const wide_t<Int>& count);

// How many copies stage_plan has, without listing them; fails as stage_plan().
template <ModelInt Int>
Outcome<wide_t<Int>> stage_plan_copy_count(const Int& s, const Int& d, const Int& c, const Topology<Int>& t);

// §15.0 dup and peer_dup: F(side) = kv_heads_per_rank * T' (T' under ADP),
// prefill = max(1, F(prefill) // F(decode)), decode = max(1, F(decode) //
// F(prefill)). Fails: "prefill tp_size {P} must be positive", the same for
// decode, "total_num_kv_heads {H} must be positive" (not under MLA), the
// sharding failure of stage_plan for each side.
template <ModelInt Int>
Outcome<DuplicateHeadFactors<Int>> duplicate_head_factors(const Int& P, const Int& D, const Int& H, bool mla,
                                                          AttentionDp adp);

// §15.4.4: whether a connector may copy a peer's whole block (or layer
// fragment): both sides hold the same number of heads per rank, n(P') ==
// n(D') with n = max(1, H // T') (H under ADP, 1 under MLA). Fails as
// duplicate_head_factors.
template <ModelInt Int>
Outcome<bool> whole_block_copy_allowed(const Int& P, const Int& D, const Int& H, bool mla, AttentionDp adp);

// §14.1 the prefill ranks SGLang's rank resolver has decode rank d target,
// divisible or not: [d // (D // P)] when D >= P, [d * k, d * k + k) with k =
// P // D when D < P. On a divisible pair it is window(d, D, P); on one that is
// not, a decode rank may target a prefill rank >= P (D > P) or a prefill rank
// may be targeted by none (D < P). Fails: "prefill tp_size {P} must be
// positive", the same for decode, "decode_tp_rank {d} must be in [0, {D})".
template <ModelInt Int>
Outcome<Span<Int>> sglang_target_ranks(const Int& d, const Int& P, const Int& D);

// ---- a stage split as one integer -------------------------------------------
//
// The operation table and the engines carry a list of layer counts as one
// integer, its code: 0 is the empty list; a positive code's binary digits after
// its leading 1, most significant first, are a 0 per layer and a 1 between two
// stages; a negative code is the one stage [code]. Every list of non-negative
// counts has exactly one code: [1] is 2, [2] is 4, [1, 1] is 10, [2, 1] is 18.
// A code is as many bits long as the split has layers and stages, so it fits
// int64 up to 62 (cpp_int: any).

// The layer counts a code stands for.
template <ModelInt Int>
std::vector<Int> split_of_code(const Int& code);

// The code of a list of counts. Precondition: every count >= 0, or a single
// negative count.
BigInt code_of_split(std::span<const BigInt> layers);

}  // namespace tpcheck
