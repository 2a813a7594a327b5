// Fuzz target: read-plan exactness for arbitrary (P, D, H, MLA) (SPEC §6, §7).
//
// Property, for any integers P, D, a head count H and an MLA flag:
//   1. decode P, D, H (biased toward counts that shard over both sides), mla,
//      and one decode rank d;
//   2. pick the decode ranks to check: every rank of D when both sides are
//      small enough to enumerate (kMaxEnumerated), else d, 0 and D - 1;
//   3. for each, in cpp_int and in int64 when all fit: the plan partitions d's
//      heads inside the sources' pages, equals the head-by-head rule, has
//      NIXL's sources on divisible pairs, and MoRIIO's single copy agrees with
//      it exactly where the guard accepts;
//   4. when every rank was checked, readers(p) equals the number of plans
//      copying from p, for every p;
//   5. when P + D <= kMaxConnectorRanks, each connector (§11) accepts what it
//      should, and where MoRIIO accepts, its single copy and counts are the
//      general plan's;
//   6. any violation aborts with its text.
// Cost bounds (each input must stay fast): a plan of kMaxCopies to 2^20
// copies (the model lists those), or a NIXL window of more than kMaxCopies
// ranks, is not checked.
#include <vector>

#include "fuzz_check.hpp"
#include "tpcheck/model.hpp"

namespace {

constexpr std::int64_t kMaxEnumerated = 64;  // ranks per side for a full sweep
constexpr std::int64_t kMaxCopies = 4096;     // copies per listed plan
constexpr std::int64_t kMaxConnectorRanks = 1024;  // P + D for the O(P + D) connector check

template <class Int>
void check_decode_rank(const Int& d, const Int& P, const Int& D, const Int& H, const Int& mla_flag) {
  using namespace tpcheck::inv;
  using tpcheck::fuzz::require;
  const bool mla = mla_flag != 0;
  const tpcheck::Outcome<Int> copies = tpcheck::plan_copy_count(d, P, D, H, mla);
  // Slow to list: more than kMaxCopies copies that the model would still list
  // (past kMaxListed it refuses at once, and the predicates check that).
  if (copies.ok() && copies.value() > kMaxCopies && copies.value() <= tpcheck::kMaxListed) return;
  require(plan_partitions_own_heads(d, P, D, H, mla), "plan exactness");
  require(plan_matches_head_by_head_rule(d, P, D, H, mla), "plan exactness (head-by-head rule)");
  // NIXL's rule lists window(d, D, P): P/D ranks, up to 2^20 of them.
  const tpcheck::Outcome<tpcheck::Span<Int>> w = tpcheck::window_span(d, D, P);
  if (!w.ok() || w.value().end - w.value().first <= kMaxCopies) {
    require(plan_sources_match_nixl(d, P, D, H, mla), "agreement (plan sources == NIXL)");
  }
  require(single_source_holds_own_heads(d, P, D, H, mla), "head alignment (single source)");
}

template <class Int>
void check_configuration(const Int& P, const Int& D, const Int& H, const Int& mla_flag) {
  tpcheck::fuzz::require(tpcheck::inv::readers_count_plan_copies(P, D, H, mla_flag != 0), "completion counts (readers)");
}

template <class Int>
void check_connectors(const Int& P, const Int& D, const Int& H, const Int& mla_flag) {
  tpcheck::fuzz::require(tpcheck::inv::accepted_sizing_is_served_correctly(P, D, H, mla_flag != 0),
                         "head alignment (accepted sizings served correctly)");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using tpcheck::BigInt;
  tpcheck::fuzz::FuzzInput in(data, size);
  const BigInt P = in.integer("P");
  const BigInt D = in.integer("D");
  const BigInt H = in.heads_for("H", P, D);
  const BigInt mla = in.flag("mla") ? 1 : 0;
  const BigInt d = in.rank_below("d", D);
  const bool sweep = tpcheck::fuzz::affordable(P, kMaxEnumerated) && tpcheck::fuzz::affordable(D, kMaxEnumerated);
  std::vector<BigInt> ranks;
  if (sweep) {
    for (BigInt r = 0; r < D; ++r) ranks.push_back(r);
  } else {
    ranks = {d, BigInt(0), BigInt(D - 1)};
  }
  for (const BigInt& r : ranks) {
    tpcheck::fuzz::in_every_int_type<5>({r, P, D, H, mla}, [](const auto&... v) { check_decode_rank(v...); });
  }
  if (sweep) {
    tpcheck::fuzz::in_every_int_type<4>({P, D, H, mla}, [](const auto&... v) { check_configuration(v...); });
  }
  if (tpcheck::fuzz::affordable(P + D, kMaxConnectorRanks)) {
    tpcheck::fuzz::in_every_int_type<4>({P, D, H, mla}, [](const auto&... v) { check_connectors(v...); });
  }
  return 0;
}
