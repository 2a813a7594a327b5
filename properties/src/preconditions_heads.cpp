// §4-5: where KV head ownership and MoRIIO's head guard fail, in the SPEC's order.
#include "preconditions.hpp"

TPCHECK_DECLARATIONS(preconditions_heads)

namespace tpcheck::oracle {
using namespace shared;
namespace {

// §4: T ranks and H heads positive (the project's texts), the index (a rank
// or a head) inside [0, bound), then the heads able to shard over the ranks.
auto ownership(const auto& index, const auto& bound, const char* out_of_range, const auto& T, const auto& H) {
  return preconditions(
      fails_if("tp_size not positive", T <= 0, value_error("tp_size {T} must be positive")),
      fails_if("head count not positive", H <= 0, value_error("total_num_kv_heads {H} must be positive")),
      fails_if("index out of range", index < 0 || index >= bound, value_error(out_of_range)),
      fails_if("heads do not shard", !shards(T, H),
               value_error("total_num_kv_heads {H} cannot be sharded over tp_size {T}: one must divide the other")));
}

// §5: the guard with its positivity check (`not_positive`), then replicated
// heads; it accepts under MLA, for equal sizes and for replicated heads.
auto guard(const auto& not_positive, const auto& L, const auto& R, const auto& H, const auto& mla) {
  return preconditions(
      fails_if("a size or H not positive", not_positive, value_error("TP sizes and total_num_kv_heads must be positive")),
      guard_needs_replicated_heads(L, R, H, mla), succeeds_if("MLA", mla != 0),
      succeeds_if("equal sizes", mla == 0 && L == R),
      succeeds_if("heads replicated on both sides", mla == 0 && L != R && min(L, R) >= H));
}

}  // namespace

TPCHECK_ORACLE(HeadsErrorsFireExactlyWhereDue, "§4", "heads(r, T, H)",
    [](const auto& r, const auto& T, const auto& H) { return ownership(r, T, "tp_rank {r} must be in [0, {T})", T, H); });

TPCHECK_ORACLE(HoldersErrorsFireExactlyWhereDue, "§4", "holders(h, T, H)",
    [](const auto& h, const auto& T, const auto& H) { return ownership(h, H, "head {h} must be in [0, {H})", T, H); });

// §4 asks, of any integers, whether H heads shard over T ranks: it answers, never fails.
TPCHECK_ORACLE(HeadCompatibleErrorsFireExactlyWhereDue, "§4", "head_compatible(T, H)",
    [](const auto& T, const auto& H) {
      return preconditions(succeeds_if("the heads shard", shards(T, H)), succeeds_if("they do not", !shards(T, H)));
    });

// §5 as upstream has it: MLA or equal sizes accept before anything is checked.
TPCHECK_ORACLE(KvHeadsGuardErrorsFireExactlyWhereDue, "§5", "kv_heads_guard(L, R, H, MLA)",
    options().with_every_head_count(),
    [](const auto& L, const auto& R, const auto& H, const auto& mla) {
      return guard(mla == 0 && L != R && (L <= 0 || R <= 0 || H <= 0), L, R, H, mla);
    });

// §5's strict variant: positivity first, whatever MLA and the sizes.
TPCHECK_ORACLE(KvHeadsGuardStrictErrorsFireExactlyWhereDue, "§5", "kv_heads_guard_strict(L, R, H, MLA)",
    options().with_every_head_count(),
    [](const auto& L, const auto& R, const auto& H, const auto& mla) {
      return guard(L <= 0 || R <= 0 || H <= 0, L, R, H, mla);
    });

}  // namespace tpcheck::oracle
