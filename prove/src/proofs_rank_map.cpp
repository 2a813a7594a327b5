// Proofs of the rank-map invariants (SPEC §9.1-9.5 on §1-3), each stated as
// the predicate of properties/include/tpcheck/invariants.hpp states it.
#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {
namespace {

// The first rank x in [0, L] whose image under a monotone map reaches t (L
// when none does): x == L or f(x) >= t, and x == 0 or f(x - 1) < t. For a
// monotone map exactly one x qualifies, so the preimage of q is [a, b) with
// a the boundary of q and b that of q + 1 (RankMapsAreMonotone proves the
// maps monotone).
template <class Map>
z3::expr boundary(const z3::expr& x, const z3::expr& t, const z3::expr& L, Map map) {
  const OutcomeTerm here = map(x);
  const OutcomeTerm before = map(x - 1);
  return 0 <= x && x <= L && (x == L || (here.ok && here.value[0] >= t)) &&
         (x == 0 || (before.ok && before.value[0] < t));
}

// The three cases of remote_rank(x, L, R) on a divisible pair: L == R maps x
// to x, L > R to x // (L/R), L < R to x * (R/L).
enum class StrictCase { Equal, LocalLarger, RemoteLarger };
constexpr StrictCase kStrictCases[] = {StrictCase::Equal, StrictCase::LocalLarger, StrictCase::RemoteLarger};

z3::expr strict_case(StrictCase c, const z3::expr& L, const z3::expr& R) {
  return c == StrictCase::Equal ? L == R : c == StrictCase::LocalLarger ? L > R : L < R;
}

// Focuses a goal on one case of remote_rank(x, L, R) for the ranks x it looks
// at: the other cases' branches are dropped, the ratio of the sizes and the
// quotients x // (L/R) become constants bound by their definitions.
void focus_strict_case(Goal& goal, StrictCase c, const z3::expr& L, const z3::expr& R,
                       const std::vector<z3::expr>& ranks) {
  z3::context& ctx = L.ctx();
  goal.rewrites.emplace_back(L == R, ctx.bool_val(c == StrictCase::Equal));
  goal.rewrites.emplace_back(R > L, ctx.bool_val(c == StrictCase::RemoteLarger));
  if (c == StrictCase::Equal) return;
  const bool remote_larger = c == StrictCase::RemoteLarger;
  const z3::expr larger = remote_larger ? R : L, smaller = remote_larger ? L : R;
  goal.lemmas.push_back(floor_div(larger, smaller) * smaller == larger);
  abstract_quotient(goal, larger, smaller);
  if (!remote_larger) {
    for (const z3::expr& x : ranks) abstract_quotient(goal, x, floor_div(L, R));
  }
}

// The three orderings of two TP sizes, by name: goals are split by them.
std::vector<std::pair<std::string, z3::expr>> orderings(const z3::expr& L, const z3::expr& R) {
  return {{"R > L", R > L}, {"R == L", R == L}, {"R < L", R < L}};
}

}  // namespace

std::vector<Goal> mapped_rank_stays_in_bounds(const Encoding& e) {
  Goals g(e);
  const z3::expr r = g.integer("r"), L = g.integer("L"), R = g.integer("R");
  for (const char* name : {"remote_rank", "general_rank"}) {
    const OutcomeTerm o = std::string(name) == "remote_rank" ? e.remote_rank(r, L, R) : e.general_rank(r, L, R);
    for (const auto& [side, which] : orderings(L, R)) {
      g.add(std::string(name) + "(r, L, R) lies in [0, R) wherever it succeeds, " + side, o.ok && which,
            0 <= o.value[0] && o.value[0] < R, {{name, {r, L, R}}});
    }
  }
  const OutcomeTerm w = e.window_span(r, L, R);
  const z3::expr size = w.value[1] - w.value[0];
  for (const bool wide : {true, false}) {
    g.add(std::string("window(r, L, R) is a non-empty part of [0, R) of max(1, R // L) ranks wherever it succeeds, ") +
              (wide ? "R > L" : "R <= L"),
          w.ok && (wide ? R > L : R <= L),
          0 <= w.value[0] && w.value[0] < w.value[1] && w.value[1] <= R && size == max(e.num(1), floor_div(R, L)),
          {{"window", {r, L, R}}});
  }
  return g.take();
}

std::vector<Goal> rank_maps_are_monotone(const Encoding& e) {
  Goals g(e);
  const z3::expr r = g.integer("r"), L = g.integer("L"), R = g.integer("R");
  const z3::expr domain = L >= 1 && R >= 1 && r >= 0 && r + 1 < L;
  for (const char* name : {"general_rank", "remote_rank"}) {
    const bool strict = std::string(name) == "remote_rank";
    const OutcomeTerm here = strict ? e.remote_rank(r, L, R) : e.general_rank(r, L, R);
    const OutcomeTerm next = strict ? e.remote_rank(r + 1, L, R) : e.general_rank(r + 1, L, R);
    g.add(std::string(name) + "(r, L, R) <= " + name + "(r + 1, L, R) where both succeed",
          domain && here.ok && next.ok, here.value[0] <= next.value[0], {{name, {r, L, R}}, {name, {r + 1, L, R}}});
  }
  return g.take();
}

std::vector<Goal> every_remote_rank_has_balanced_fan_in(const Encoding& e) {
  Goals g(e);
  const z3::expr q = g.integer("q"), L = g.integer("L"), R = g.integer("R");
  const z3::expr r = g.integer("r");
  g.add("general_rank succeeds on every valid rank (the fan-in search needs it)", valid_rank(r, L, R),
        e.general_rank(r, L, R).ok, {{"general_rank", {r, L, R}}});
  g.add("remote_rank succeeds on every valid rank of a divisible pair", valid_rank(r, L, R) && divisible_pair(L, R),
        e.remote_rank(r, L, R).ok, {{"remote_rank", {r, L, R}}});
  const z3::expr a = g.integer("a"), b = g.integer("b");
  const z3::expr remote = L >= 1 && R >= 1 && 0 <= q && q < R;
  const z3::expr count = b - a;
  const std::vector<z3::expr> ends = {a - 1, a, b - 1, b};  // the ranks the boundaries look at

  // The general map, floor(x * R / L): its quotients at the boundaries, and
  // floor(L/R), ceil(L/R) = floor((L-1)/R) + 1, become constants bound by
  // their definitions.
  const auto general = [&](const z3::expr& x) { return e.general_rank(x, L, R); };
  const z3::expr preimage = remote && boundary(a, q, L, general) && boundary(b, q + 1, L, general);
  std::vector<ShownCall> around;
  for (const z3::expr& x : ends) around.push_back({"general_rank", {x, L, R}});
  std::vector<std::pair<z3::expr, z3::expr>> divisions = {{L, R}, {L - 1, R}};
  for (const z3::expr& x : ends) divisions.emplace_back(x * R, L);
  const Quotients general_quotients = quotients(e.ctx(), divisions);
  const z3::expr defined = g.fact("the general map's quotients at the boundaries, floor(L/R) and floor((L-1)/R) are bound by their definitions",
                                  L >= 1 && R >= 1, general_quotients.definitions, around);
  // Each goal returns its claim as a fact for the later ones.
  const auto general_goal = [&](std::string claim, const z3::expr& domain, const z3::expr& holds,
                                 std::vector<z3::expr> given) {
    Goal& goal = g.add(std::move(claim), domain, holds, around);
    goal.given = std::move(given);
    goal.abstracted = general_quotients.terms;
    return z3::implies(domain, holds);
  };
  const z3::expr lower = general_goal("under the general map every remote rank has at least floor(L/R) preimages",
                                      preimage, count >= floor_div(L, R), {defined});
  const z3::expr upper = general_goal("under the general map every remote rank has at most ceil(L/R) preimages",
                                      preimage, count <= floor_div(L - 1, R) + 1, {defined});
  general_goal("the general map is onto when L >= R", preimage && L >= R, count >= 1, {defined, lower});
  general_goal("the general map is one-to-one when L <= R", preimage && L <= R, count <= 1, {defined, upper});

  // The strict map on divisible pairs, one case of remote_rank at a time:
  // L == R maps r to r, L > R to r // (L/R), L < R to r * (R/L).
  const auto strict = [&](const z3::expr& x) { return e.remote_rank(x, L, R); };
  const z3::expr strict_preimage =
      remote && divisible_pair(L, R) && boundary(a, q, L, strict) && boundary(b, q + 1, L, strict);
  std::vector<ShownCall> strict_around;
  for (const z3::expr& x : ends) strict_around.push_back({"remote_rank", {x, L, R}});
  const auto strict_goal = [&](std::string claim, StrictCase c, const z3::expr& holds) {
    focus_strict_case(g.add(std::move(claim), strict_preimage && strict_case(c, L, R), holds, strict_around), c, L, R,
                      ends);
  };
  strict_goal("under the strict map every remote rank has exactly one preimage when L == R", StrictCase::Equal,
              count == 1);
  strict_goal("under the strict map every remote rank has exactly L/R preimages when L > R", StrictCase::LocalLarger,
              count == floor_div(L, R));
  strict_goal("the strict map is one-to-one when L < R", StrictCase::RemoteLarger, count <= 1);
  return g.take();
}

std::vector<Goal> round_trip_returns_home(const Encoding& e) {
  Goals g(e);
  const z3::expr r = g.integer("r"), L = g.integer("L"), R = g.integer("R");
  const OutcomeTerm there = e.remote_rank(r, L, R);
  const OutcomeTerm back = e.remote_rank(there.value[0], R, L);
  const z3::expr domain = valid_rank(r, L, R) && divisible_pair(L, R);
  const std::vector<ShownCall> calls = {{"remote_rank", {r, L, R}}, {"remote_rank", {there.value[0], R, L}}};
  g.add("remote_rank(remote_rank(r, L, R), R, L) == r on divisible pairs with L <= R", domain && L <= R,
        there.ok && back.ok && back.value[0] == r, calls);
  g.add("remote_rank(remote_rank(r, L, R), R, L) == r - r % (L/R) on divisible pairs with L > R", domain && L > R,
        there.ok && back.ok && back.value[0] == r - floor_mod(r, floor_div(L, R)), calls);
  return g.take();
}

std::vector<Goal> windows_are_dual(const Encoding& e) {
  Goals g(e);
  const z3::expr r = g.integer("r"), L = g.integer("L"), R = g.integer("R"), q = g.integer("q");
  const OutcomeTerm w = e.window_span(r, L, R);
  const OutcomeTerm back = e.window_span(q, R, L);
  for (const auto& [side, which] : {std::pair<std::string, z3::expr>{"R > L", R > L}, {"R <= L", R <= L}}) {
    g.add("every q in window(r, L, R) has r in window(q, R, L), " + side, w.ok && within(q, w.value) && which,
          back.ok && within(r, back.value), {{"window", {r, L, R}}, {"window", {q, R, L}}});
  }
  return g.take();
}

std::vector<Goal> ratio_is_the_quotient_of_divisible_sizes(const Encoding& e) {
  Goals g(e);
  const z3::expr L = g.integer("L"), R = g.integer("R");
  const OutcomeTerm ratio = e.tp_ratio(L, R);
  g.add("on divisible pairs tp_ratio(L, R) is L // R when L >= R, -(R // L) otherwise", divisible_pair(L, R),
        ratio.ok && ratio.value[0] == z3::ite(L >= R, floor_div(L, R), -floor_div(R, L)), {{"tp_ratio", {L, R}}});
  return g.take();
}

std::vector<Goal> general_map_agrees_with_strict_map(const Encoding& e) {
  Goals g(e);
  const z3::expr r = g.integer("r"), L = g.integer("L"), R = g.integer("R");
  const OutcomeTerm strict = e.remote_rank(r, L, R);
  const OutcomeTerm general = e.general_rank(r, L, R);
  for (const auto& [side, which] : orderings(L, R)) {
    g.add("general_rank(r, L, R) == remote_rank(r, L, R) wherever remote_rank succeeds, " + side,
          strict.ok && which, general.ok && general.value[0] == strict.value[0],
          {{"remote_rank", {r, L, R}}, {"general_rank", {r, L, R}}});
  }
  return g.take();
}

std::vector<Goal> single_readers_equal_the_maps_preimages(const Encoding& e) {
  Goals g(e);
  const z3::expr p = g.integer("p"), P = g.integer("P"), D = g.integer("D");
  const z3::expr a = g.integer("a"), b = g.integer("b");
  // The decode ranks mapped to p by the monotone map d -> remote_rank(d, D, P)
  // (RankMapsAreMonotone) are [a, b): a the first d mapped to >= p, b the
  // first mapped to >= p + 1 (D when none is).
  const auto strict = [&](const z3::expr& x) { return e.remote_rank(x, D, P); };
  const z3::expr preimage =
      divisible_pair(P, D) && 0 <= p && p < P && boundary(a, p, D, strict) && boundary(b, p + 1, D, strict);
  const OutcomeTerm count = e.single_readers(p, P, D);
  for (const StrictCase c : kStrictCases) {
    Goal& goal = g.add("single_readers(p, P, D) is the number of decode ranks d with remote_rank(d, D, P) == p, " +
                           std::string(c == StrictCase::Equal         ? "D == P"
                                       : c == StrictCase::LocalLarger ? "D > P"
                                                                      : "D < P"),
                       preimage && strict_case(c, D, P), count.ok && count.value[0] == b - a,
                       {{"single_readers", {p, P, D}}, {"remote_rank", {a, D, P}}, {"remote_rank", {b - 1, D, P}}});
    focus_strict_case(goal, c, D, P, {a - 1, a, b - 1, b});
    goal.rewrites.emplace_back(D >= P, e.ctx().bool_val(c != StrictCase::RemoteLarger));
    if (c == StrictCase::RemoteLarger) {
      // d -> d * k with k = P/D: the ranks mapped to p and past it start at
      // ceil(p / k) and p // k + 1.
      const z3::expr k = floor_div(P, D);
      abstract_remainder(goal, p, k);
      goal.lemmas.push_back(a == floor_div(p, k) + z3::ite(floor_mod(p, k) == 0, e.num(0), e.num(1)));
      goal.lemmas.push_back(b == floor_div(p, k) + 1);
    }
  }
  return g.take();
}

}  // namespace tpcheck::prove
