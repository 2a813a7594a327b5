// §14.1, §15.0 and §15.4: where SGLang's rank resolver, the PP stage
// operations, the duplicate-head factors and the whole-block copy guard fail,
// in the order the model states: the topology (sizes, head count, each side's
// stage split, equal layer totals), then the rank of the request (its stage,
// its TP rank, the other side's DP group), then what the window or the plan
// needs, then the listing limit. The texts are the project's (the SPEC has
// none): each names the bad argument and its side.
#include "preconditions.hpp"

TPCHECK_DECLARATIONS(preconditions_stages)

namespace tpcheck::oracle {
using namespace shared;
namespace {

// prove/ encodes no stage split and none of these operations but the guard.
constexpr const char* kSplitsNotEncoded = "prove/ encodes no stage split (a list of layer counts)";

// One side's stage split, given as its code: at least one stage, and every
// stage with at least one layer (the first that has none is reported). The
// model's other limit, 4096 stages, needs a code wider than any integer type
// of the model holds (cpp_int: 384 bits): no input of the operations reaches it.
auto split(const std::string& side, const auto& code) {
  const auto short_stage = named("short_stage", first_short_stage(code));
  return std::tuple{
      fails_if(side + " split lists no stage", code == 0, value_error(side + " pp_layers must list at least one stage")),
      fails_if(side + " stage without layers", short_stage >= 0,
               value_error(side + " pp stage {stage} has {count} layers, must have at least one")
                   .where("stage", short_stage)
                   .where("count", stage_layers(code, short_stage)))};
}

// §15.4.1: both sides hold the same layers.
auto equal_totals(const auto& prefill_layers, const auto& decode_layers) {
  const auto prefill_total = named("prefill_total", stage_start(prefill_layers, stage_count(prefill_layers)));
  const auto decode_total = named("decode_total", stage_start(decode_layers, stage_count(decode_layers)));
  return fails_if("layer totals differ", prefill_total != decode_total,
                  value_error("prefill pp stages hold {x} layers but decode pp stages hold {y}: both sides must hold "
                              "the same layers")
                      .where("x", prefill_total)
                      .where("y", decode_total));
}

auto splits(const auto& prefill_layers, const auto& decode_layers) {
  return std::tuple_cat(split("prefill", prefill_layers), split("decode", decode_layers),
                        std::tuple{equal_totals(prefill_layers, decode_layers)});
}

// A stage of a side inside [0, S).
auto stage_in_range(const std::string& side, const auto& s, const auto& layers) {
  return fails_if(side + " stage out of range", s < 0 || s >= stage_count(layers),
                  value_error(side + " pp_stage {s} must be in [0, {S})").where("s", s).where("S", stage_count(layers)));
}

// The number of stages of the other side that stage s of this side overlaps:
// from the one holding its first layer to the one holding its last.
auto overlapped_stages(const auto& self_layers, const auto& s, const auto& other_layers) {
  const auto first = stage_of_layer(other_layers, stage_start(self_layers, s));
  const auto last = stage_of_layer(other_layers, stage_start(self_layers, s + 1) - 1);
  return named("stages", last - first + 1);
}

// A DP group of the side of size T, G = T under that side's ADP, else 1.
auto group_in_range(const std::string& side, const auto& group, const auto& T, const auto& adp) {
  const auto groups = named(side == "prefill" ? "prefill_groups" : "decode_groups", if_else(adp != 0, T, 1));
  return fails_if(side + " dp_group out of range", group < 0 || group >= groups,
                  value_error(side + " dp_group {group} must be in [0, {groups})").where("group", group).where("groups", groups));
}

auto listing_limit(const char* what, const auto& rank, const auto& count) {
  return fails_if("more elements than the model lists", count > 1048576,
                  value_error(std::string(what) + " {rank} has {n} elements, more than the model lists (1048576)")
                      .where("rank", rank)
                      .where("n", count));
}

// The ranks decode rank (s, d) asks of prefill group c: the topology without
// heads, the request's rank, then window(d mod D', D', P')'s divisibility.
auto decode_request(const auto& s, const auto& d, const auto& c, const auto& P, const auto& D, const auto& PL,
                    const auto& DL, const auto& PA, const auto& DA) {
  const auto P1 = per_group("prefill_per_group", P, PA);
  const auto D1 = per_group("decode_per_group", D, DA);
  return preconditions(sides_positive(P, D), splits(PL, DL), stage_in_range("decode", s, DL), decode_rank(d, D),
                       group_in_range("prefill", c, P, PA), ratio_divisibility(D1, P1));
}

// The ranks prefill rank (u, p) serves for decode group g, the same way round.
auto prefill_request(const auto& u, const auto& p, const auto& g, const auto& P, const auto& D, const auto& PL,
                     const auto& DL, const auto& PA, const auto& DA) {
  const auto P1 = per_group("prefill_per_group", P, PA);
  const auto D1 = per_group("decode_per_group", D, DA);
  return preconditions(sides_positive(P, D), splits(PL, DL), stage_in_range("prefill", u, PL),
                       fails_if("prefill rank out of range", p < 0 || p >= P,
                                value_error("prefill_tp_rank {p} must be in [0, {P})")),
                       group_in_range("decode", g, D, DA), ratio_divisibility(P1, D1));
}

// n = max(1, H // T') heads a rank holds (1 under MLA).
auto heads_per_rank(const char* name, const auto& T1, const auto& H, const auto& mla) {
  return named(name, if_else(mla == 0, max(1, H / T1), 1));
}

// kv_heads_per_rank * T': the replicas of the heads a side holds (T' under MLA).
auto replicas(const char* name, const auto& T1, const auto& H, const auto& mla) {
  return named(name, if_else(mla == 0, max(H, T1), T1));
}

}  // namespace

// §14.1: SGLang's resolver checks only the sizes and the decode rank; a pair
// that is not divisible is served wrong (matrix), not refused.
TPCHECK_ORACLE(SglangTargetRanksErrorsFireExactlyWhereDue, "§14.1", "sglang_target_ranks(d, P, D)",
    options().proved(inv::Proof::not_provable("prove/ does not encode sglang_target_ranks")),
    [](const auto& d, const auto& P, const auto& D) {
      return preconditions(sides_positive(P, D), decode_rank(d, D), succeeds_if("divisible", divides(min(P, D), max(P, D))),
                           succeeds_if("not divisible", !divides(min(P, D), max(P, D))));
    });

// §15.4.1 stages(s, prefill) of decode stage s, and stages(u, decode) of prefill stage u.
TPCHECK_ORACLE(PrefillStagesErrorsFireExactlyWhereDue, "§15.4", "prefill_stages(s, PREFILL_PP_LAYERS, DECODE_PP_LAYERS)",
    options().proved(inv::Proof::not_provable(kSplitsNotEncoded)),
    [](const auto& s, const auto& PL, const auto& DL) {
      return preconditions(splits(PL, DL), stage_in_range("decode", s, DL));
    });

TPCHECK_ORACLE(DecodeStagesErrorsFireExactlyWhereDue, "§15.4", "decode_stages(u, PREFILL_PP_LAYERS, DECODE_PP_LAYERS)",
    options().proved(inv::Proof::not_provable(kSplitsNotEncoded)),
    [](const auto& u, const auto& PL, const auto& DL) {
      return preconditions(splits(PL, DL), stage_in_range("prefill", u, PL));
    });

// §15.4.1-2: the prefill ranks decode rank (s, d) asks; listed, at most 2^20.
TPCHECK_ORACLE(StageWindowSpansErrorsFireExactlyWhereDue, "§15.4",
    "stage_window_spans(s, d, c, P, D, PREFILL_PP_LAYERS, DECODE_PP_LAYERS, PREFILL_ADP, DECODE_ADP)",
    options().proved(inv::Proof::not_provable(kSplitsNotEncoded)),
    [](const auto& s, const auto& d, const auto& c, const auto& P, const auto& D, const auto& PL, const auto& DL,
       const auto& PA, const auto& DA) { return decode_request(s, d, c, P, D, PL, DL, PA, DA); });

TPCHECK_ORACLE(StageWindowErrorsFireExactlyWhereDue, "§15.4",
    "stage_window(s, d, c, P, D, PREFILL_PP_LAYERS, DECODE_PP_LAYERS, PREFILL_ADP, DECODE_ADP)",
    options().proved(inv::Proof::not_provable(kSplitsNotEncoded)),
    [](const auto& s, const auto& d, const auto& c, const auto& P, const auto& D, const auto& PL, const auto& DL,
       const auto& PA, const auto& DA) {
      const auto ranks = named("ranks", max(1, per_group("prefill_per_group", P, PA) / per_group("decode_per_group", D, DA)));
      return preconditions(decode_request(s, d, c, P, D, PL, DL, PA, DA),
                           listing_limit("stage window of decode_tp_rank", d, overlapped_stages(DL, s, PL) * ranks));
    });

// §15.4.1-2: the decode ranks prefill rank (u, p) serves; listed, at most 2^20.
TPCHECK_ORACLE(StageServedSpansErrorsFireExactlyWhereDue, "§15.4",
    "stage_served_spans(u, p, g, P, D, PREFILL_PP_LAYERS, DECODE_PP_LAYERS, PREFILL_ADP, DECODE_ADP)",
    options().proved(inv::Proof::not_provable(kSplitsNotEncoded)),
    [](const auto& u, const auto& p, const auto& g, const auto& P, const auto& D, const auto& PL, const auto& DL,
       const auto& PA, const auto& DA) { return prefill_request(u, p, g, P, D, PL, DL, PA, DA); });

TPCHECK_ORACLE(StageServedErrorsFireExactlyWhereDue, "§15.4",
    "stage_served(u, p, g, P, D, PREFILL_PP_LAYERS, DECODE_PP_LAYERS, PREFILL_ADP, DECODE_ADP)",
    options().proved(inv::Proof::not_provable(kSplitsNotEncoded)),
    [](const auto& u, const auto& p, const auto& g, const auto& P, const auto& D, const auto& PL, const auto& DL,
       const auto& PA, const auto& DA) {
      const auto ranks = named("ranks", max(1, per_group("decode_per_group", D, DA) / per_group("prefill_per_group", P, PA)));
      return preconditions(prefill_request(u, p, g, P, D, PL, DL, PA, DA),
                           listing_limit("stage fan-in of prefill_tp_rank", p, overlapped_stages(PL, u, DL) * ranks));
    });

// §15.4.1-2: the plan of decode rank (s, d): the topology with its heads, the
// request's rank, each side sharding the heads over its TP size per group
// (§6's plan needs no divisibility), then at most 2^20 copies.
TPCHECK_ORACLE(StagePlanErrorsFireExactlyWhereDue, "§15.4",
    "stage_plan(s, d, c, P, D, H, MLA, PREFILL_PP_LAYERS, DECODE_PP_LAYERS, PREFILL_ADP, DECODE_ADP)",
    options().proved(inv::Proof::not_provable(kSplitsNotEncoded)),
    [](const auto& s, const auto& d, const auto& c, const auto& P, const auto& D, const auto& H, const auto& mla,
       const auto& PL, const auto& DL, const auto& PA, const auto& DA) {
      const auto P1 = per_group("prefill_per_group", P, PA);
      const auto D1 = per_group("decode_per_group", D, DA);
      return preconditions(sizing_positive(P, D, H, mla), splits(PL, DL), stage_in_range("decode", s, DL),
                           decode_rank(d, D), group_in_range("prefill", c, P, PA),
                           heads_shard_on_both_sides(P1, D1, H, mla),
                           listing_limit("stage plan of decode_tp_rank", d,
                                         overlapped_stages(DL, s, PL) * copy_count(d % D1, P1, D1, H, mla)));
    });

// §15.0 dup and peer_dup: they fail only where a side does not load.
TPCHECK_ORACLE(DuplicateHeadFactorsErrorsFireExactlyWhereDue, "§15.0",
    "duplicate_head_factors(P, D, H, MLA, PREFILL_ADP, DECODE_ADP)",
    options().proved(inv::Proof::not_provable("prove/ does not encode duplicate_head_factors")),
    [](const auto& P, const auto& D, const auto& H, const auto& mla, const auto& PA, const auto& DA) {
      const auto prefill = replicas("prefill_replicas", per_group("prefill_per_group", P, PA), H, mla);
      const auto decode = replicas("decode_replicas", per_group("decode_per_group", D, DA), H, mla);
      return preconditions(loads_per_group(P, D, H, mla, PA, DA), succeeds_if("prefill holds more replicas", prefill > decode),
                           succeeds_if("decode holds more replicas", prefill < decode),
                           succeeds_if("as many replicas", prefill == decode));
    });

// §15.4.4: the guard fails as the factors do; it allows and refuses.
TPCHECK_ORACLE(WholeBlockCopyAllowedErrorsFireExactlyWhereDue, "§15.4",
    "whole_block_copy_allowed(P, D, H, MLA, PREFILL_ADP, DECODE_ADP)",
    [](const auto& P, const auto& D, const auto& H, const auto& mla, const auto& PA, const auto& DA) {
      const auto prefill = heads_per_rank("prefill_heads", per_group("prefill_per_group", P, PA), H, mla);
      const auto decode = heads_per_rank("decode_heads", per_group("decode_per_group", D, DA), H, mla);
      return preconditions(loads_per_group(P, D, H, mla, PA, DA), succeeds_if("allowed", prefill == decode),
                           succeeds_if("refused", prefill != decode));
    });

}  // namespace tpcheck::oracle
