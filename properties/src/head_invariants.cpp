// §4, §5 and §9.4 on KV head ownership and MoRIIO's head guard: each check,
// and its declaration in the registry right after it.
#include "declare.hpp"
#include "support.hpp"
#include "tpcheck/instantiate.hpp"

TPCHECK_DECLARATIONS(head_invariants)

namespace tpcheck::inv {
using namespace declare;
namespace {

// What §5 says a guard does with (L, R, H, mla).
enum class GuardSays { Accept, NotPositive, NotImplemented };

template <ModelInt Int>
GuardSays upstream_guard(const Int& L, const Int& R, const Int& H, bool mla) {
  if (mla || L == R) return GuardSays::Accept;  // upstream checks nothing else here
  if (L <= 0 || R <= 0 || H <= 0) return GuardSays::NotPositive;
  return std::min(L, R) >= H ? GuardSays::Accept : GuardSays::NotImplemented;
}

template <ModelInt Int, class Describe>
Verdict guard_decides(Describe&& what, const Outcome<None>& got, GuardSays says, const Int& L, const Int& R,
                      const Int& H) {
  switch (says) {
    case GuardSays::Accept:
      if (got.ok()) return holds();
      return violated(what() + " gave " + render(got) + ", expected None");
    case GuardSays::NotPositive:
      return expect_failure(what, got, expected_value_error("TP sizes and total_num_kv_heads must be positive"));
    case GuardSays::NotImplemented:
      return expect_failure(what, got,
                            expected_not_implemented("MoRIIO heterogeneous TP requires replicated KV heads on both "
                                                     "prefill and decode. Got total_num_kv_heads=",
                                                     H, ", local_tp_size=", L, ", remote_tp_size=", R, "."));
  }
  return holds();
}

bool positive(const auto&... v) { return ((v >= 1) && ...); }

}  // namespace

template <ModelInt Int>
Verdict guards_decide_as_specified(const Int& L, const Int& R, const Int& H, bool mla) {
  const GuardSays upstream = upstream_guard(L, R, H, mla);
  if (Verdict v = guard_decides([&] { return call("kv_heads_guard", L, R, H, mla); }, kv_heads_guard(L, R, H, mla),
                                upstream, L, R, H);
      v.is_violated()) {
    return v;
  }
  const GuardSays strict = positive(L, R, H) ? upstream : GuardSays::NotPositive;
  return guard_decides([&] { return call("kv_heads_guard_strict", L, R, H, mla); },
                       kv_heads_guard_strict(L, R, H, mla), strict, L, R, H);
}

TPCHECK_INVARIANT(HeadGuardsDecideAsSpecified, "§9.4", Errors,
    domain(pair("L", "R", Pairs::WithNonPositive), heads("H", "L", "R", HeadCounts::Any), flag("mla")),
    kinds(kind("MLA accepts", [](const auto&, const auto&, const auto&, const auto& mla) { return mla != 0; }),
          kind("equal sizes accept", [](const auto& L, const auto& R, const auto&, const auto& mla) {
            return mla == 0 && L == R;
          }),
          kind("a size or H not positive", [](const auto& L, const auto& R, const auto& H, const auto& mla) {
            return mla == 0 && L != R && !positive(L, R, H);
          }),
          kind("heads replicated on both sides: accepts", [](const auto& L, const auto& R, const auto& H, const auto& mla) {
            return mla == 0 && L != R && positive(L, R, H) && std::min(L, R) >= H;
          }),
          kind("NotImplementedError", [](const auto& L, const auto& R, const auto& H, const auto& mla) {
            return mla == 0 && L != R && positive(L, R, H) && std::min(L, R) < H;
          })),
    min_non_vacuous(1.0).proof(Proof::by_z3("all integers L, R, H and both values of mla")),
    [](const auto& L, const auto& R, const auto& H, const auto& mla) { return guards_decide_as_specified(L, R, H, mla != 0); });

template <ModelInt Int>
Verdict ownership_errors_exactly_where_due(const Int& r, const Int& T, const Int& H) {
  const bool shard = heads_shard(T, H);
  if (T >= 1 && H >= 1 && head_compatible(T, H) != shard) {
    return violated(call("head_compatible", T, H) + " = " + render(!shard) + ", but SPEC §4 says " + render(shard));
  }
  const auto judge = [&](const char* name, const Outcome<Span<Int>>& got, const Int& bound) {
    const bool valid = shard && r >= 0 && r < bound;
    if (got.ok() == valid && (valid || got.failure().kind == ErrorKind::ValueError)) return holds();
    return violated(call(name, r, T, H) + " gave " + render(got) + ", expected " +
                    (valid ? "a value" : "a ValueError (" + std::string(shard ? "index out of range" : "no valid sharding") + ")"));
  };
  if (Verdict v = judge("heads", heads(r, T, H), T); v.is_violated()) return v;
  return judge("holders", holders(r, T, H), H);
}

TPCHECK_INVARIANT(HeadOwnershipFailsExactlyOnInvalidInput, "§9.4", Errors,
    domain(size("T", Sizes::WithNonPositive), heads("H", "T", nullptr, HeadCounts::Any),
           rank_of_larger("r", "T", "H", Ranks::WithInvalid)),
    kinds(kind("T or H not positive", [](const auto& T, const auto& H, const auto&) { return !positive(T, H); }),
          kind("heads do not shard", [](const auto& T, const auto& H, const auto&) {
            return positive(T, H) && !heads_shard(T, H);
          }),
          kind("index of a rank, not of a head", [](const auto& T, const auto& H, const auto& r) {
            return heads_shard(T, H) && r >= 0 && r < T && r >= H;
          }),
          kind("index of a head, not of a rank", [](const auto& T, const auto& H, const auto& r) {
            return heads_shard(T, H) && r >= 0 && r < H && r >= T;
          }),
          kind("index of both", [](const auto& T, const auto& H, const auto& r) {
            return heads_shard(T, H) && r >= 0 && r < T && r < H;
          }),
          kind("index out of both ranges", [](const auto& T, const auto& H, const auto& r) {
            return heads_shard(T, H) && (r < 0 || (r >= T && r >= H));
          })),
    min_non_vacuous(1.0).proof(Proof::by_z3("all integers r, T, H")),
    [](const auto& T, const auto& H, const auto& r) { return ownership_errors_exactly_where_due(r, T, H); });

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
  template Verdict guards_decide_as_specified<Int>(const Int&, const Int&, const Int&, bool);   \
  template Verdict ownership_errors_exactly_where_due<Int>(const Int&, const Int&, const Int&); \
  template Verdict holders_hold_the_head<Int>(const Int&, const Int&, const Int&);
TPCHECK_INSTANTIATE(TPCHECK_HEAD_INVARIANTS)

}  // namespace tpcheck::inv
