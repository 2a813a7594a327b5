// §9.4-9.7 on KV head ownership, the head guards and the read plans.
#include <algorithm>

#include "support.hpp"
#include "tpcheck/instantiate.hpp"

namespace tpcheck::inv {
namespace {

// Positive sizes and both sides able to shard the heads (MLA: one head).
template <ModelInt Int>
bool valid_configuration(const Int& P, const Int& D, const Int& heads_total) {
  return heads_shard(P, heads_total) && heads_shard(D, heads_total);
}

template <ModelInt Int>
Int effective_heads(const Int& H, bool mla) {
  return mla ? Int(1) : H;
}

// The plan of a valid decode rank, or why it is missing. A plan too long to
// list is no violation (the caller gets nothing to check).
template <ModelInt Int>
std::optional<Plan<Int>> listed_plan(const Int& d, const Int& P, const Int& D, const Int& H, bool mla,
                                     Violation& violation) {
  const Int heads_total = effective_heads(H, mla);
  if (!valid_configuration(P, D, heads_total) || d < 0 || d >= D) return std::nullopt;
  const Outcome<Plan<Int>> got = plan(d, P, D, H, mla);
  if (got.ok()) return got.value();
  const Outcome<Int> count = plan_copy_count(d, P, D, H, mla);
  if (!count.ok() || count.value() <= kMaxListed) {
    violation = call("plan", d, P, D, H, mla) + " failed on a valid configuration: " + render(got.failure());
  }
  return std::nullopt;
}

}  // namespace

template <ModelInt Int>
Violation holders_hold_the_head(const Int& h, const Int& T, const Int& H) {
  if (h < 0 || h >= H || !heads_shard(T, H)) return std::nullopt;
  const Outcome<Span<Int>> got = holders(h, T, H);
  const auto what = [&] { return call("holders", h, T, H); };  // built only for a report
  if (!got.ok()) return what() + " failed on valid input: " + render(got.failure());
  const Span<Int>& s = got.value();
  const Int expected_count = std::max(Int(1), floor_div<Int>(T, H));
  if (s.first < 0 || s.end > T || s.end - s.first != expected_count) {
    return what() + " = " + render(s) + ", expected " + render(expected_count) + " ranks inside [0, " + render(T) + ")";
  }
  const auto holds = [&](const Int& r) {
    const Span<Int> own = heads(r, T, H).value();
    return own.first <= h && h < own.end;
  };
  if (!holds(s.first) || !holds(Int(s.end - 1))) return what() + " = " + render(s) + " names a rank without head " + render(h);
  if ((s.first > 0 && holds(Int(s.first - 1))) || (s.end < T && holds(s.end))) {
    return what() + " = " + render(s) + " leaves out a neighbouring rank that holds head " + render(h);
  }
  return std::nullopt;
}

template <ModelInt Int>
Violation ownership_errors_exactly_where_due(const Int& r, const Int& T, const Int& H) {
  const bool shard = heads_shard(T, H);
  if (T >= 1 && H >= 1 && head_compatible(T, H) != shard) {
    return call("head_compatible", T, H) + " = " + render(!shard) + ", but SPEC §4 says " + render(shard);
  }
  const auto judge = [&](const char* name, const Outcome<Span<Int>>& got, const Int& bound) -> Violation {
    const bool valid = shard && r >= 0 && r < bound;
    if (got.ok() == valid && (valid || got.failure().kind == ErrorKind::ValueError)) return std::nullopt;
    return call(name, r, T, H) + " gave " + render(got) + ", expected " +
           (valid ? "a value" : "a ValueError (" + std::string(shard ? "index out of range" : "no valid sharding") + ")");
  };
  if (auto v = judge("heads", heads(r, T, H), T)) return v;
  return judge("holders", holders(r, T, H), H);
}

template <ModelInt Int>
Violation guards_decide_as_specified(const Int& L, const Int& R, const Int& H, bool mla) {
  const std::string not_positive = "ValueError: TP sizes and total_num_kv_heads must be positive";
  std::string upstream;
  if (mla || L == R) {
    upstream = "None";
  } else if (L <= 0 || R <= 0 || H <= 0) {
    upstream = not_positive;
  } else if (std::min(L, R) >= H) {
    upstream = "None";
  } else {
    upstream = "NotImplementedError: MoRIIO heterogeneous TP requires replicated KV heads on both prefill and decode. "
               "Got total_num_kv_heads=" + render(H) + ", local_tp_size=" + render(L) + ", remote_tp_size=" + render(R) + ".";
  }
  if (auto v = expect_rendered([&] { return call("kv_heads_guard", L, R, H, mla); }, kv_heads_guard(L, R, H, mla), upstream)) return v;
  const std::string strict = (L <= 0 || R <= 0 || H <= 0) ? not_positive : upstream;
  return expect_rendered([&] { return call("kv_heads_guard_strict", L, R, H, mla); }, kv_heads_guard_strict(L, R, H, mla), strict);
}

template <ModelInt Int>
Violation plan_partitions_own_heads(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  Violation missing;
  const auto copies = listed_plan(d, P, D, H, mla, missing);
  if (!copies) return missing;
  const Int heads_total = effective_heads(H, mla);
  const auto what = [&] { return call("plan", d, P, D, H, mla) + " = " + render(*copies); };  // built only for a report
  const Span<Int> own = heads(d, D, heads_total).value();
  Int cursor = own.first;
  for (const Copy<Int>& c : *copies) {
    if (c.lo != cursor) return what() + (c.lo > cursor ? " leaves a gap" : " overlaps") + " at head " + render(cursor);
    if (c.lo >= c.hi) return what() + " has an empty copy " + render(c);
    if (c.p < 0 || c.p >= P) return what() + " reads from prefill rank " + render(c.p) + " outside [0, " + render(P) + ")";
    const Span<Int> page = heads(c.p, P, heads_total).value();
    if (c.lo < page.first || c.hi > page.end) {
      return what() + " asks prefill rank " + render(c.p) + " (heads " + render(page) + ") for heads it does not hold";
    }
    cursor = c.hi;
  }
  if (cursor != own.end) return what() + " does not cover heads " + render(own) + " of the decode rank";
  return expect_rendered([&] { return call("plan_copy_count", d, P, D, H, mla); }, plan_copy_count(d, P, D, H, mla),
                         render(Int(static_cast<std::int64_t>(copies->size()))));
}

template <ModelInt Int>
Violation plan_matches_head_by_head_rule(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  constexpr std::int64_t kMaxHeadsWalked = 4096;  // the rule is O(heads of d)
  Violation missing;
  const auto copies = listed_plan(d, P, D, H, mla, missing);
  if (!copies) return missing;
  const Int heads_total = effective_heads(H, mla);
  const Span<Int> own = heads(d, D, heads_total).value();
  if (own.end - own.first > kMaxHeadsWalked) return std::nullopt;
  const Int anchor = mul_floor_div<Int>(d, P, D);
  Plan<Int> expected;
  for (Int h = own.first; h < own.end; ++h) {
    const Span<Int> holding = holders(h, P, heads_total).value();
    const Int source = std::clamp(anchor, holding.first, Int(holding.end - 1));
    if (!expected.empty() && expected.back().p == source) {
      expected.back().hi = Int(h + 1);
    } else {
      expected.push_back({source, h, Int(h + 1)});
    }
  }
  if (*copies == expected) return std::nullopt;
  return call("plan", d, P, D, H, mla) + " = " + render(*copies) + ", the head-by-head rule gives " + render(expected);
}

template <ModelInt Int>
Violation plan_sources_match_nixl(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  Violation missing;
  const auto copies = listed_plan(d, P, D, H, mla, missing);
  if (!copies) return missing;
  const Outcome<Window<Int>> w = window(d, D, P);
  if (!w.ok()) return std::nullopt;  // not a divisible pair, or too long to list
  const Int heads_total = effective_heads(H, mla);
  std::vector<Int> nixl;
  std::vector<Span<Int>> seen_ranges;
  for (const Int& q : w.value()) {
    const Span<Int> range = heads(q, P, heads_total).value();
    if (std::find(seen_ranges.begin(), seen_ranges.end(), range) == seen_ranges.end()) {
      seen_ranges.push_back(range);
      nixl.push_back(q);
    }
  }
  std::vector<Int> sources;
  for (const Copy<Int>& c : *copies) {
    if (std::find(sources.begin(), sources.end(), c.p) == sources.end()) sources.push_back(c.p);
  }
  const auto what = [&] { return call("plan", d, P, D, H, mla) + " = " + render(*copies); };  // built only for a report
  if (sources != nixl) return what() + " reads from " + render(sources) + ", NIXL's window rule gives " + render(nixl);
  if (D < P) return std::nullopt;
  const Int per_source = floor_div<Int>(D, P);
  if (copies->size() != 1 || copies->front().p != floor_div<Int>(d, per_source)) {
    return what() + ", expected the one source d // (D/P) = " + render(floor_div<Int>(d, per_source));
  }
  const Span<Int> own = heads(d, D, heads_total).value();
  const Span<Int> page = heads(copies->front().p, P, heads_total).value();
  if (copies->front().lo - page.first != own.first - page.first) {
    return what() + " starts at offset " + render(Int(copies->front().lo - page.first)) + " of its source, expected " +
           render(Int(own.first - page.first));
  }
  if (D <= heads_total) {
    const Int pages = floor_mod<Int>(d, per_source);
    if (own.first - page.first != pages * (own.end - own.first)) {
      return what() + " starts " + render(Int(own.first - page.first)) + " heads into its source, expected d % (D/P) = " +
             render(pages) + " pages of d";
    }
  }
  return std::nullopt;
}

template <ModelInt Int>
Violation single_source_holds_own_heads(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  Violation missing;
  const auto copies = listed_plan(d, P, D, H, mla, missing);
  if (!copies) return missing;
  const bool guard_accepts = kv_heads_guard(D, P, H, mla).ok();  // decode is the local side
  const bool divisible = remote_rank(d, D, P).ok();
  const Outcome<Plan<Int>> single = single_source_plan(d, P, D, H, mla);
  const bool agrees = single.ok() && single.value() == *copies;
  if (agrees != (guard_accepts && divisible)) {
    return call("single_source_plan", d, P, D, H, mla) + " = " + render(single) + (agrees ? " equals" : " differs from") +
           " the general plan " + render(*copies) + " although the guard " + (guard_accepts ? "accepts" : "rejects") +
           " and the pair is " + (divisible ? "divisible" : "not divisible");
  }
  if (!agrees) return std::nullopt;
  const Int heads_total = effective_heads(H, mla);
  const Span<Int> own = heads(d, D, heads_total).value();
  const Span<Int> source = heads(single.value().front().p, P, heads_total).value();
  if (own == source) return std::nullopt;
  return "single source " + render(single.value().front().p) + " of decode rank " + render(d) + " holds heads " +
         render(source) + ", the decode rank holds " + render(own);
}

#define TPCHECK_PLAN_INVARIANTS(Int)                                                                          \
  template Violation holders_hold_the_head<Int>(const Int&, const Int&, const Int&);                          \
  template Violation guards_decide_as_specified<Int>(const Int&, const Int&, const Int&, bool);               \
  template Violation ownership_errors_exactly_where_due<Int>(const Int&, const Int&, const Int&);             \
  template Violation plan_partitions_own_heads<Int>(const Int&, const Int&, const Int&, const Int&, bool);     \
  template Violation plan_matches_head_by_head_rule<Int>(const Int&, const Int&, const Int&, const Int&, bool); \
  template Violation plan_sources_match_nixl<Int>(const Int&, const Int&, const Int&, const Int&, bool);       \
  template Violation single_source_holds_own_heads<Int>(const Int&, const Int&, const Int&, const Int&, bool);
TPCHECK_INSTANTIATE(TPCHECK_PLAN_INVARIANTS)

}  // namespace tpcheck::inv
