// §9.1-9.5 on the rank maps and windows.
#include <algorithm>

#include "tpcheck/instantiate.hpp"
#include "support.hpp"

namespace tpcheck::inv {
namespace {

template <ModelInt Int>
bool valid_pair(const Int& r, const Int& L, const Int& R) {
  return L >= 1 && R >= 1 && r >= 0 && r < L;
}

// The first r in [0, L) with map(r) >= x (L when none): the map is monotone.
template <ModelInt Int, class Map>
Int first_reaching(const Int& x, const Int& L, Map map) {
  Int lo = 0;
  Int hi = L;
  while (lo < hi) {
    const Int mid = lo + floor_div<Int>(Int(hi - lo), Int(2));
    if (map(mid) >= x) {
      hi = mid;
    } else {
      lo = Int(mid + 1);
    }
  }
  return lo;
}

}  // namespace

template <ModelInt Int>
Violation mapped_rank_in_bounds(const Int& r, const Int& L, const Int& R) {
  for (const auto& [name, got] : {std::pair{"remote_rank", remote_rank(r, L, R)},
                                  std::pair{"general_rank", general_rank(r, L, R)}}) {
    if (got.ok() && (got.value() < 0 || got.value() >= R)) {
      return call(name, r, L, R) + " = " + render(got.value()) + " is outside [0, " + render(R) + ")";
    }
  }
  const Outcome<Span<Int>> w = window_span(r, L, R);
  if (!w.ok()) return std::nullopt;
  const Span<Int>& s = w.value();
  if (s.first < 0 || s.end > R || s.first >= s.end) {
    return call("window", r, L, R) + " spans " + render(s) + ", not a non-empty part of [0, " + render(R) + ")";
  }
  const Int expected_size = std::max(Int(1), floor_div<Int>(R, L));
  if (s.end - s.first != expected_size) {
    return call("window", r, L, R) + " has " + render(Int(s.end - s.first)) + " ranks, expected max(1, R/L) = " +
           render(expected_size);
  }
  return std::nullopt;
}

template <ModelInt Int>
Violation maps_monotone_at(const Int& r, const Int& L, const Int& R) {
  if (!valid_pair(r, L, R) || r + 1 >= L) return std::nullopt;
  const Int next = r + 1;
  for (const auto& [name, here, there] :
       {std::tuple{"general_rank", general_rank(r, L, R), general_rank(next, L, R)},
        std::tuple{"remote_rank", remote_rank(r, L, R), remote_rank(next, L, R)}}) {
    if (here.ok() && there.ok() && here.value() > there.value()) {
      return std::string(name) + " decreases: " + call(name, r, L, R) + " = " + render(here.value()) + " > " +
             call(name, next, L, R) + " = " + render(there.value());
    }
  }
  return std::nullopt;
}

template <ModelInt Int>
Violation fan_in_balanced(const Int& q, const Int& L, const Int& R) {
  if (L < 1 || R < 1 || q < 0 || q >= R) return std::nullopt;
  const Int lower = floor_div<Int>(L, R);
  const Int upper = Int(floor_div<Int>(Int(L - 1), R) + 1);  // ceil(L/R); L + R - 1 overflows int64 near its max
  bool failed = false;  // a map that fails on valid input must not crash the search
  const auto general = [&](const Int& r) {
    const Outcome<Int> o = general_rank(r, L, R);
    failed = failed || !o.ok();
    return o.ok() ? o.value() : Int(0);
  };
  const Int count = first_reaching(Int(q + 1), L, general) - first_reaching(q, L, general);
  if (failed) return "general_rank failed on a valid rank of (L, R) = (" + render(L) + ", " + render(R) + ")";
  const auto seen_under = [&](const Int& n, const char* map) {
    return "remote rank " + render(q) + " of (L, R) = (" + render(L) + ", " + render(R) + ") has " + render(n) +
           " preimages under the " + map + " map";
  };
  if (count < lower || count > upper) {
    return seen_under(count, "general") + ", expected floor(L/R) = " + render(lower) + " to ceil(L/R) = " + render(upper);
  }
  if (L >= R && count < 1) return seen_under(count, "general") + ", but the map must be onto when L >= R";
  if (L <= R && count > 1) return seen_under(count, "general") + ", but the map must be one-to-one when L <= R";
  if (!divisible_pair(L, R)) return std::nullopt;
  const auto strict = [&](const Int& r) {
    const Outcome<Int> o = remote_rank(r, L, R);
    failed = failed || !o.ok();
    return o.ok() ? o.value() : Int(0);
  };
  const Int strict_count = first_reaching(Int(q + 1), L, strict) - first_reaching(q, L, strict);
  if (failed) return "remote_rank failed on a valid rank of the divisible pair (" + render(L) + ", " + render(R) + ")";
  if (L >= R && strict_count != lower) return seen_under(strict_count, "strict") + ", expected exactly L/R = " + render(lower);
  if (L <= R && strict_count > 1) return seen_under(strict_count, "strict") + ", but the map must be one-to-one when L <= R";
  return std::nullopt;
}

template <ModelInt Int>
Violation round_trip_returns_home(const Int& r, const Int& L, const Int& R) {
  if (!valid_pair(r, L, R) || !divisible_pair(L, R)) return std::nullopt;
  const Outcome<Int> there = remote_rank(r, L, R);
  if (!there.ok()) return call("remote_rank", r, L, R) + " failed on a divisible pair: " + render(there);
  const Outcome<Int> back = remote_rank(there.value(), R, L);
  const Int home = L <= R ? r : Int(r - floor_mod<Int>(r, floor_div<Int>(L, R)));
  return expect_rendered([&] { return call("remote_rank", there.value(), R, L) + " (the way back from " + call("remote_rank", r, L, R) + ")"; },
                         back, render(home));
}

template <ModelInt Int>
Violation windows_are_dual(const Int& r, const Int& L, const Int& R) {
  const Outcome<Span<Int>> w = window_span(r, L, R);
  if (!w.ok()) return std::nullopt;
  const Span<Int>& s = w.value();
  std::vector<Int> probes;
  if (s.end - s.first <= 64) {
    for (Int q = s.first; q < s.end; ++q) probes.push_back(q);
  } else {
    probes = {s.first, Int(s.first + floor_div<Int>(Int(s.end - s.first), Int(2))), Int(s.end - 1)};
  }
  for (const Int& q : probes) {
    const Outcome<Span<Int>> back = window_span(q, R, L);
    if (!back.ok() || r < back.value().first || r >= back.value().end) {
      return render(q) + " is in " + call("window", r, L, R) + " but " + call("window", q, R, L) + " = " +
             (back.ok() ? render(back.value()) : render(back.failure())) + " does not hold " + render(r);
    }
  }
  return std::nullopt;
}

template <ModelInt Int>
Violation rank_map_errors_exactly_where_due(const Int& r, const Int& L, const Int& R) {
  std::optional<std::string> expected_error;
  if (L <= 0 || R <= 0) {
    expected_error = "TP sizes must be positive";
  } else if (r < 0 || r >= L) {
    expected_error = "local_tp_rank " + render(r) + " must be in [0, " + render(L) + ")";
  }
  const Outcome<Int> general = general_rank(r, L, R);
  if (expected_error) {
    if (auto v = expect_rendered([&] { return call("general_rank", r, L, R); }, general, value_error_text(*expected_error))) return v;
  } else if (!general.ok()) {
    return call("general_rank", r, L, R) + " failed on valid input: " + render(general.failure());
  }
  if (!expected_error && R > L && floor_mod<Int>(R, L) != 0) {
    expected_error = "remote tp_size " + render(R) + " must be a multiple of local tp_size " + render(L) +
                     " for heterogeneous-TP P/D";
  } else if (!expected_error && L > R && floor_mod<Int>(L, R) != 0) {
    expected_error = "local tp_size " + render(L) + " must be a multiple of remote tp_size " + render(R) +
                     " for heterogeneous-TP P/D";
  }
  const Outcome<Int> strict = remote_rank(r, L, R);
  if (expected_error) return expect_rendered([&] { return call("remote_rank", r, L, R); }, strict, value_error_text(*expected_error));
  if (!strict.ok()) return call("remote_rank", r, L, R) + " failed on a valid divisible input: " + render(strict.failure());
  return std::nullopt;
}

template <ModelInt Int>
Violation ratio_errors_exactly_where_due(const Int& L, const Int& R) {
  if (L <= 0 || R <= 0) {
    const Outcome<Int> got = tp_ratio(L, R);
    if (got.ok() || got.failure().kind != ErrorKind::ValueError) {
      return call("tp_ratio", L, R) + " gave " + render(got) + ", expected a ValueError for a non-positive size";
    }
    return std::nullopt;
  }
  std::string expected;
  if (L >= R) {
    expected = floor_mod<Int>(L, R) != 0 ? "AssertionError: Local tensor parallel size " + render(L) +
                                               " is not divisible by remote tensor parallel size " + render(R) + "."
                                         : render(floor_div<Int>(L, R));
  } else {
    expected = floor_mod<Int>(R, L) != 0 ? "AssertionError: Remote tensor parallel size " + render(R) +
                                               " is not divisible by local tensor parallel size " + render(L) + "."
                                         : render(Int(-floor_div<Int>(R, L)));
  }
  return expect_rendered([&] { return call("tp_ratio", L, R); }, tp_ratio(L, R), expected);
}

template <ModelInt Int>
Violation general_agrees_with_strict(const Int& r, const Int& L, const Int& R) {
  const Outcome<Int> strict = remote_rank(r, L, R);
  if (!strict.ok()) return std::nullopt;
  return expect_rendered([&] { return call("general_rank", r, L, R) + " (where remote_rank succeeds)"; }, general_rank(r, L, R),
                         render(strict.value()));
}

#define TPCHECK_RANK_MAP_INVARIANTS(Int)                                                         \
  template Violation mapped_rank_in_bounds<Int>(const Int&, const Int&, const Int&);             \
  template Violation maps_monotone_at<Int>(const Int&, const Int&, const Int&);                  \
  template Violation fan_in_balanced<Int>(const Int&, const Int&, const Int&);                   \
  template Violation round_trip_returns_home<Int>(const Int&, const Int&, const Int&);           \
  template Violation windows_are_dual<Int>(const Int&, const Int&, const Int&);                  \
  template Violation rank_map_errors_exactly_where_due<Int>(const Int&, const Int&, const Int&); \
  template Violation ratio_errors_exactly_where_due<Int>(const Int&, const Int&);                \
  template Violation general_agrees_with_strict<Int>(const Int&, const Int&, const Int&);
TPCHECK_INSTANTIATE(TPCHECK_RANK_MAP_INVARIANTS)

}  // namespace tpcheck::inv
