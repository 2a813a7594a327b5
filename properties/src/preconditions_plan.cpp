// §6-7: where the read plan and the completion counts fail, in the SPEC's order.
#include "preconditions.hpp"

TPCHECK_DECLARATIONS(preconditions_plan)

namespace tpcheck::oracle {
using namespace shared;
namespace {

// §6's checks of a decode rank's plan: the sizing, the rank, both sides able to shard.
auto decode_rank_sizing(const auto& d, const auto& P, const auto& D, const auto& H, const auto& mla) {
  return preconditions(sizing_positive(P, D, H, mla), decode_rank(d, D), heads_shard_on_both_sides(P, D, H, mla));
}

}  // namespace

TPCHECK_ORACLE(PlanCopyCountErrorsFireExactlyWhereDue, "§6", "plan_copy_count(d, P, D, H, MLA)",
    [](const auto& d, const auto& P, const auto& D, const auto& H, const auto& mla) {
      return decode_rank_sizing(d, P, D, H, mla);
    });

// The listed plan: the same, and no more copies than the model lists (2^20).
TPCHECK_ORACLE(PlanErrorsFireExactlyWhereDue, "§6", "plan(d, P, D, H, MLA)",
    [](const auto& d, const auto& P, const auto& D, const auto& H, const auto& mla) {
      const auto copies = copy_count(d, P, D, H, mla);
      return preconditions(
          decode_rank_sizing(d, P, D, H, mla),
          fails_if("more copies than the model lists", copies > 1048576,
                   value_error("plan of decode_tp_rank {d} has {copies} elements, more than the model lists (1048576)")
                       .where("copies", copies)));
    });

// MoRIIO's single copy comes from remote_rank(d, D, P): decode is the local side.
TPCHECK_ORACLE(SingleSourcePlanErrorsFireExactlyWhereDue, "§6", "single_source_plan(d, P, D, H, MLA)",
    [](const auto& d, const auto& P, const auto& D, const auto& H, const auto& mla) {
      return preconditions(decode_rank_sizing(d, P, D, H, mla), strict_map_divisibility(D, P));
    });

// §7: the general plan's fan-in of a prefill rank, checked as the plan is.
TPCHECK_ORACLE(ReadersErrorsFireExactlyWhereDue, "§7", "readers(p, P, D, H, MLA)",
    [](const auto& p, const auto& P, const auto& D, const auto& H, const auto& mla) {
      return preconditions(sizing_positive(P, D, H, mla),
                           fails_if("prefill rank out of range", p < 0 || p >= P,
                                    value_error("prefill_tp_rank {p} must be in [0, {P})")),
                           heads_shard_on_both_sides(P, D, H, mla));
    });

// §7: the model's count under MoRIIO's map, with the ack count's texts.
TPCHECK_ORACLE(SingleReadersErrorsFireExactlyWhereDue, "§7", "single_readers(p, P, D)",
    [](const auto& p, const auto& P, const auto& D) {
      return preconditions(
          fails_if("sizes not positive", P <= 0 || D <= 0, value_error("TP sizes must be positive")),
          fails_if("producer rank out of range", p < 0 || p >= P, value_error("producer_tp_rank {p} must be in [0, {P})")),
          fails_if("consumer larger, not a multiple", D >= P && !divides(P, D),
                   value_error("consumer tp_size {D} must be a multiple of producer tp_size {P} for heterogeneous-TP P/D")),
          fails_if("producer larger, not a multiple", D < P && !divides(D, P),
                   value_error("producer tp_size {P} must be a multiple of consumer tp_size {D} for heterogeneous-TP P/D")));
    });

}  // namespace tpcheck::oracle
