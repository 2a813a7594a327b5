// §4 on KV head ownership: each check, and its declaration in the registry
// right after it. Where ownership and MoRIIO's head guard fail is the error
// oracle's (preconditions_heads.cpp).
#include "declare.hpp"
#include "support.hpp"
#include "tpcheck/instantiate.hpp"

TPCHECK_DECLARATIONS(head_invariants)

namespace tpcheck::inv {
using namespace declare;
template <ModelInt Int>
Verdict head_compatible_as_specified(const Int& T, const Int& H) {
  const bool shard = heads_shard(T, H);
  if (head_compatible(T, H) == shard) return holds();
  return violated(call("head_compatible", T, H) + " = " + render(!shard) + ", but SPEC §4 says " + render(shard));
}

TPCHECK_INVARIANT(HeadsShardExactlyWhereOneDividesTheOther, "§4", PlanExactness,
    domain(size("T", Sizes::WithNonPositive), heads("H", "T", nullptr, HeadCounts::Any)),
    kinds(kind("T or H not positive", [](const auto& T, const auto& H) { return T <= 0 || H <= 0; }),
          kind("heads split (T divides H)", [](const auto& T, const auto& H) { return heads_shard(T, H) && T <= H; }),
          kind("heads replicated (H divides T)", [](const auto& T, const auto& H) { return heads_shard(T, H) && T > H; }),
          kind("neither divides the other", [](const auto& T, const auto& H) {
            return T >= 1 && H >= 1 && !heads_shard(T, H);
          })),
    min_non_vacuous(1.0).proof(Proof::by_z3("all integers T, H")),
    [](const auto& T, const auto& H) { return head_compatible_as_specified(T, H); });

template <ModelInt Int>
Verdict holders_hold_the_head(const Int& h, const Int& T, const Int& H) {
  if (h < 0 || h >= H || !heads_shard(T, H)) return vacuous("not a head of a valid sharding");
  const Outcome<Span<Int>> got = holders(h, T, H);
  const auto what = [&] { return call("holders", h, T, H); };  // built only for a report
  if (!got.ok()) return violated(what() + " failed on valid input: " + render(got.failure()));
  const Span<Int>& s = got.value();
  const Int expected_count = std::max(Int(1), floor_div<Int>(T, H));
  if (s.first < 0 || s.end > T || s.end - s.first != expected_count) {
    return violated(what() + " = " + render(s) + ", expected " + render(expected_count) + " ranks inside [0, " +
                    render(T) + ")");
  }
  const auto holds_head = [&](const Int& r) {
    const Outcome<Span<Int>> own = heads(r, T, H);
    return own.ok() && own.value().first <= h && h < own.value().end;
  };
  if (!holds_head(s.first) || !holds_head(Int(s.end - 1))) {
    return violated(what() + " = " + render(s) + " names a rank without head " + render(h));
  }
  if ((s.first > 0 && holds_head(Int(s.first - 1))) || (s.end < T && holds_head(s.end))) {
    return violated(what() + " = " + render(s) + " leaves out a neighbouring rank that holds head " + render(h));
  }
  return holds();
}

TPCHECK_INVARIANT(HoldersHoldExactlyTheirHead, "§4", PlanExactness,
    domain(size("T"), heads("H", "T", nullptr, HeadCounts::Compatible), rank("h", "H")),
    kinds(kind("heads replicated (T > H)", [](const auto& T, const auto& H, const auto&) { return T > H; }),
          kind("heads split (T < H)", [](const auto& T, const auto& H, const auto&) { return T < H; }),
          kind("one head per rank (T == H)", [](const auto& T, const auto& H, const auto&) { return T == H; })),
    min_non_vacuous(1.0).proof(Proof::by_z3("T, H that shard (one divides the other), 0 <= h < H, every rank 0 <= x < T")),
    [](const auto& T, const auto& H, const auto& h) { return holders_hold_the_head(h, T, H); });

#define TPCHECK_HEAD_INVARIANTS(Int)                                                            \
  template Verdict head_compatible_as_specified<Int>(const Int&, const Int&);                  \
  template Verdict holders_hold_the_head<Int>(const Int&, const Int&, const Int&);
TPCHECK_INSTANTIATE(TPCHECK_HEAD_INVARIANTS)

}  // namespace tpcheck::inv
