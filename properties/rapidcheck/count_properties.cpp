// SPEC §7 and §9.4, §9.8: who waits for how many completions.
#include "property.hpp"

namespace tpcheck::rcprop {
namespace {

// The per-configuration predicates visit every rank of a side: sizes up to this.
constexpr std::int64_t kEnumerableSize = 4096;

// §9.4 on single_readers: positivity, the producer rank, then both "multiple" texts.
TPCHECK_PROPERTY(CountErrorsFireExactlyWhereDue) {
  const auto c = rcgen::draw_rank_case<Int>();  // (p, P, D)
  RC_TAG(c.shape, magnitude(c.L, c.R), "single_readers: " + outcome_kind(single_readers(c.r, c.L, c.R)));
  hold(inv::count_errors_exactly_where_due(c.r, c.L, c.R));
}

// §9.8 on the general plan: readers(p) equals the decode plans copying from p.
TPCHECK_PROPERTY(ReadersEqualTheDecodeRanksThatCopy) {
  const auto c = rcgen::draw_head_case<Int>(kEnumerableSize);
  RC_TAG(c.shape, c.mla ? "mla" : "not mla");
  RC_CLASSIFY(c.P >= 1 && c.D >= 1 && c.D > c.P, "D > P");
  RC_CLASSIFY(c.P >= 1 && c.D >= 1 && c.D < c.P, "D < P");
  RC_CLASSIFY(c.P >= 1 && c.D >= 1 && !inv::divisible_pair(c.P, c.D), "not divisible");
  hold(inv::readers_count_plan_copies(c.P, c.D, c.H, c.mla));
}

// §9.8 on MoRIIO's count: single_readers(p) equals remote_rank's preimage of p.
TPCHECK_PROPERTY(SingleReadersEqualTheMapsPreimages) {
  const auto c = rcgen::draw_head_case<Int>(kEnumerableSize);  // only its P and D
  RC_CLASSIFY(c.P >= 1 && c.D >= 1 && c.D > c.P, "D > P");
  RC_CLASSIFY(c.P >= 1 && c.D >= 1 && c.D < c.P, "D < P (some prefill ranks wait for nobody)");
  RC_CLASSIFY(c.P >= 1 && c.D >= 1 && !inv::divisible_pair(c.P, c.D),
              "not divisible (vacuous)");
  hold(inv::single_readers_count_map_preimages(c.P, c.D));
}

}  // namespace
}  // namespace tpcheck::rcprop
