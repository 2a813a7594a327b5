// §9.1-9.5 on the rank maps, tp_ratio and windows: each check, and its
// declaration in the registry right after it. Where they fail is the error
// oracle's (preconditions_rank_map.cpp).
#include "declare.hpp"
#include "support.hpp"
#include "tpcheck/instantiate.hpp"

TPCHECK_DECLARATIONS(rank_map_invariants)

namespace tpcheck::inv {
using namespace declare;
namespace {

template <ModelInt Int>
bool valid_pair(const Int& r, const Int& L, const Int& R) {
  return L >= 1 && R >= 1 && r >= 0 && r < L;
}

// The kinds of TP pair the rank-map invariants must meet; a classifier sees
// the pair first and ignores what follows it.
constexpr auto local_smaller = [](const auto& L, const auto& R, const auto&...) { return L < R; };
constexpr auto local_larger = [](const auto& L, const auto& R, const auto&...) { return L > R; };
constexpr auto equal_sizes = [](const auto& L, const auto& R, const auto&...) { return L == R; };
constexpr auto local_smaller_divisible = [](const auto& L, const auto& R, const auto&...) {
  return L < R && divisible_pair(L, R);
};
constexpr auto local_larger_divisible = [](const auto& L, const auto& R, const auto&...) {
  return L > R && divisible_pair(L, R);
};
constexpr auto local_smaller_not_divisible = [](const auto& L, const auto& R, const auto&...) {
  return L < R && !divisible_pair(L, R);
};
constexpr auto local_larger_not_divisible = [](const auto& L, const auto& R, const auto&...) {
  return L > R && !divisible_pair(L, R);
};

// Every kind of positive pair: both directions, divisible or not, and equal.
auto every_positive_pair() {
  return kinds(kind("L < R, divisible", local_smaller_divisible), kind("L > R, divisible", local_larger_divisible),
               kind("L == R", equal_sizes), kind("L < R, not divisible", local_smaller_not_divisible),
               kind("L > R, not divisible", local_larger_not_divisible));
}

// Both directions of a divisible pair, and equal sizes.
auto every_divisible_pair() {
  return kinds(kind("L < R", local_smaller), kind("L > R", local_larger), kind("L == R", equal_sizes));
}

}  // namespace

template <ModelInt Int>
Verdict mapped_rank_in_bounds(const Int& r, const Int& L, const Int& R) {
  if (!valid_pair(r, L, R)) return vacuous("not a valid rank of positive sizes: nothing is mapped");
  for (const auto& [name, got] : {std::pair{"remote_rank", remote_rank(r, L, R)},
                                  std::pair{"general_rank", general_rank(r, L, R)}}) {
    if (got.ok() && (got.value() < 0 || got.value() >= R)) {
      return violated(call(name, r, L, R) + " = " + render(got.value()) + " is outside [0, " + render(R) + ")");
    }
  }
  const Outcome<Span<Int>> w = window_span(r, L, R);
  if (!w.ok()) return holds();  // a pair that is not divisible has no window
  const Span<Int>& s = w.value();
  if (s.first < 0 || s.end > R || s.first >= s.end) {
    return violated(call("window", r, L, R) + " spans " + render(s) + ", not a non-empty part of [0, " + render(R) + ")");
  }
  const Int expected_size = std::max(Int(1), floor_div<Int>(R, L));
  if (s.end - s.first != expected_size) {
    return violated(call("window", r, L, R) + " has " + render(Int(s.end - s.first)) +
                    " ranks, expected max(1, R/L) = " + render(expected_size));
  }
  return holds();
}

TPCHECK_INVARIANT(MappedRankStaysInBounds, "§9.1", Bounds,
    domain(pair("L", "R"), rank("r", "L")),
    every_positive_pair(),
    min_non_vacuous(1.0).proof(Proof::by_z3("all integers r, L, R where the operation succeeds; windows of any length")),
    [](const auto& L, const auto& R, const auto& r) { return mapped_rank_in_bounds(r, L, R); });

template <ModelInt Int>
Verdict maps_monotone_at(const Int& r, const Int& L, const Int& R) {
  if (!valid_pair(r, L, R)) return vacuous("not a valid rank of positive sizes");
  if (r + 1 >= L) return vacuous("the last rank has no successor");
  const Int next = r + 1;
  for (const auto& [name, here, there] :
       {std::tuple{"general_rank", general_rank(r, L, R), general_rank(next, L, R)},
        std::tuple{"remote_rank", remote_rank(r, L, R), remote_rank(next, L, R)}}) {
    if (here.ok() && there.ok() && here.value() > there.value()) {
      return violated(std::string(name) + " decreases: " + call(name, r, L, R) + " = " + render(here.value()) + " > " +
                      call(name, next, L, R) + " = " + render(there.value()));
    }
  }
  return holds();
}

TPCHECK_INVARIANT(RankMapsAreMonotone, "§9.2", FanIn,
    domain(pair("L", "R"), rank("r", "L", Ranks::NotLast)),
    every_positive_pair(),
    min_non_vacuous(0.8).proof(Proof::by_z3("L, R >= 1 and 0 <= r < r + 1 < L, where both calls succeed")),
    [](const auto& L, const auto& R, const auto& r) { return maps_monotone_at(r, L, R); });

template <ModelInt Int>
Verdict fan_in_balanced(const Int& q, const Int& L, const Int& R) {
  if (L < 1 || R < 1 || q < 0 || q >= R) return vacuous("not a remote rank of positive sizes");
  const Int lower = floor_div<Int>(L, R);
  const Int upper = Int(floor_div<Int>(Int(L - 1), R) + 1);  // ceil(L/R); L + R - 1 overflows int64 near its max
  bool failed = false;  // a map that fails on valid input must not crash the search
  const auto general = [&](const Int& r) {
    const Outcome<Int> o = general_rank(r, L, R);
    failed = failed || !o.ok();
    return o.ok() ? o.value() : Int(0);
  };
  // Both maps send r to floor(r * R / L) when correct: the first r reaching x is ceil(x * L / R).
  const auto expected_first = [&](const Int& x) { return std::min(mul_ceil_div<Int>(x, L, R), L); };
  const Int count = first_reaching(Int(q + 1), L, general, expected_first(Int(q + 1))) -
                    first_reaching(q, L, general, expected_first(q));
  if (failed) return violated("general_rank failed on a valid rank of (L, R) = (" + render(L) + ", " + render(R) + ")");
  const auto seen_under = [&](const Int& n, const char* map) {
    return "remote rank " + render(q) + " of (L, R) = (" + render(L) + ", " + render(R) + ") has " + render(n) +
           " preimages under the " + map + " map";
  };
  if (count < lower || count > upper) {
    return violated(seen_under(count, "general") + ", expected floor(L/R) = " + render(lower) +
                    " to ceil(L/R) = " + render(upper));
  }
  if (L >= R && count < 1) return violated(seen_under(count, "general") + ", but the map must be onto when L >= R");
  if (L <= R && count > 1) return violated(seen_under(count, "general") + ", but the map must be one-to-one when L <= R");
  if (!divisible_pair(L, R)) return holds();  // the strict map fails on every rank
  const auto strict = [&](const Int& r) {
    const Outcome<Int> o = remote_rank(r, L, R);
    failed = failed || !o.ok();
    return o.ok() ? o.value() : Int(0);
  };
  const Int strict_count = first_reaching(Int(q + 1), L, strict, expected_first(Int(q + 1))) -
                           first_reaching(q, L, strict, expected_first(q));
  if (failed) {
    return violated("remote_rank failed on a valid rank of the divisible pair (" + render(L) + ", " + render(R) + ")");
  }
  if (L >= R && strict_count != lower) {
    return violated(seen_under(strict_count, "strict") + ", expected exactly L/R = " + render(lower));
  }
  if (L <= R && strict_count > 1) {
    return violated(seen_under(strict_count, "strict") + ", but the map must be one-to-one when L <= R");
  }
  return holds();
}

TPCHECK_INVARIANT(EveryRemoteRankHasBalancedFanIn, "§9.2", FanIn,
    domain(pair("L", "R"), rank("q", "R")),
    every_positive_pair(),
    min_non_vacuous(1.0).proof(Proof::by_z3("L, R >= 1 and 0 <= q < R (strict map: divisible pairs); the preimage of q "
        "is [a, b) with a, b its boundaries, which relies on the maps being monotone (RankMapsAreMonotone)")),
    [](const auto& L, const auto& R, const auto& q) { return fan_in_balanced(q, L, R); });

template <ModelInt Int>
Verdict round_trip_returns_home(const Int& r, const Int& L, const Int& R) {
  if (!valid_pair(r, L, R)) return vacuous("not a valid rank of positive sizes");
  if (!divisible_pair(L, R)) return vacuous("the pair is not divisible: remote_rank fails");
  const Outcome<Int> there = remote_rank(r, L, R);
  if (!there.ok()) return violated(call("remote_rank", r, L, R) + " failed on a divisible pair: " + render(there));
  const Outcome<Int> back = remote_rank(there.value(), R, L);
  const Int home = L <= R ? r : Int(r - floor_mod<Int>(r, floor_div<Int>(L, R)));
  return expect_value([&] { return call("remote_rank", there.value(), R, L) + " (the way back from " + call("remote_rank", r, L, R) + ")"; },
                      back, home);
}

TPCHECK_INVARIANT(RoundTripReturnsHome, "§9.3", RoundTrip,
    domain(pair("L", "R", Pairs::Divisible), rank("r", "L")),
    kinds(kind("L < R", [](const auto& L, const auto& R, const auto&) { return L < R; }),
          kind("L > R", [](const auto& L, const auto& R, const auto&) { return L > R; }),
          kind("L == R", [](const auto& L, const auto& R, const auto&) { return L == R; })),
    min_non_vacuous(1.0).proof(Proof::by_z3("divisible pairs L, R and 0 <= r < L")),
    [](const auto& L, const auto& R, const auto& r) { return round_trip_returns_home(r, L, R); });

template <ModelInt Int>
Verdict windows_are_dual(const Int& r, const Int& L, const Int& R) {
  const Outcome<Span<Int>> w = window_span(r, L, R);
  if (!w.ok()) return vacuous("no window: the pair is not divisible or the rank not valid");
  // Without a budget: all of a short window, the ends and middle of a long one.
  constexpr std::int64_t kWholeWindow = 64;
  return walk_range(w.value().first, w.value().end, [&](const Int& q) {
    const Outcome<Span<Int>> back = window_span(q, R, L);
    if (back.ok() && r >= back.value().first && r < back.value().end) return holds();
    return violated(render(q) + " is in " + call("window", r, L, R) + " but " + call("window", q, R, L) + " = " +
                    (back.ok() ? render(back.value()) : render(back.failure())) + " does not hold " + render(r));
  }, kWholeWindow);
}

TPCHECK_INVARIANT(WindowsAreDual, "§9.3", RoundTrip,
    domain(pair("L", "R", Pairs::Divisible), rank("r", "L")),
    every_divisible_pair(),
    min_non_vacuous(1.0).proof(Proof::by_z3("all integers r, L, R where window(r, L, R) succeeds, every q in it")),
    [](const auto& L, const auto& R, const auto& r) { return windows_are_dual(r, L, R); });

template <ModelInt Int>
Verdict ratio_is_the_quotient(const Int& L, const Int& R) {
  if (!divisible_pair(L, R)) return vacuous("not a divisible pair: tp_ratio fails (the error oracle checks how)");
  return expect_value([&] { return call("tp_ratio", L, R); }, tp_ratio(L, R),
                      L >= R ? floor_div<Int>(L, R) : Int(-floor_div<Int>(R, L)));
}

TPCHECK_INVARIANT(RatioIsTheQuotientOfDivisibleSizes, "§3", Agreement,
    domain(pair("L", "R", Pairs::Divisible)),
    every_divisible_pair(),
    min_non_vacuous(1.0).proof(Proof::by_z3("divisible pairs L, R")),
    [](const auto& L, const auto& R) { return ratio_is_the_quotient(L, R); });

template <ModelInt Int>
Verdict general_agrees_with_strict(const Int& r, const Int& L, const Int& R) {
  const Outcome<Int> strict = remote_rank(r, L, R);
  if (!strict.ok()) return vacuous("remote_rank fails: there is nothing to agree with");
  return expect_value([&] { return call("general_rank", r, L, R) + " (where remote_rank succeeds)"; },
                      general_rank(r, L, R), strict.value());
}

TPCHECK_INVARIANT(GeneralMapAgreesWithStrictMap, "§9.5", Agreement,
    domain(pair("L", "R", Pairs::Divisible), rank("r", "L")),
    every_divisible_pair(),
    min_non_vacuous(1.0).proof(Proof::by_z3("all integers r, L, R where remote_rank succeeds")),
    [](const auto& L, const auto& R, const auto& r) { return general_agrees_with_strict(r, L, R); });

#define TPCHECK_RANK_MAP_INVARIANTS(Int)                                                       \
  template Verdict mapped_rank_in_bounds<Int>(const Int&, const Int&, const Int&);             \
  template Verdict maps_monotone_at<Int>(const Int&, const Int&, const Int&);                  \
  template Verdict fan_in_balanced<Int>(const Int&, const Int&, const Int&);                   \
  template Verdict round_trip_returns_home<Int>(const Int&, const Int&, const Int&);           \
  template Verdict windows_are_dual<Int>(const Int&, const Int&, const Int&);                  \
  template Verdict ratio_is_the_quotient<Int>(const Int&, const Int&);                         \
  template Verdict general_agrees_with_strict<Int>(const Int&, const Int&, const Int&);
TPCHECK_INSTANTIATE(TPCHECK_RANK_MAP_INVARIANTS)

}  // namespace tpcheck::inv
