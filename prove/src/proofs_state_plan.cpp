// Proofs of SPEC §16.4's state plan invariants (§16.2) for every family,
// unbounded sizes and dims, case by case (state_plan_setting.hpp): plans of
// any length (the model's listing limit is not part of these invariants).
#include "state_plan_setting.hpp"
#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {
namespace {

using state::PlanCase;
using state::PlanSetting;
using state::Ratio;

// Where a goal looks at each segment's copies (sharded on the prefill side),
// so that the overlap laws are given there: copy 0, copy j, copies j and j
// + 1, or a segment's first and last (its count known from the first).
enum class At { Zero, J, JAndNext, Last };

// Adds a goal of case c over the plan's copies.
Goal& add_case_goal(Goals& g, const PlanSetting& s, const PlanCase& c, const z3::expr& ratio, const std::string& claim,
                    const z3::expr& domain, const z3::expr& holds, At at, const z3::expr& j,
                    std::vector<ShownCall> calls = {}) {
  if (calls.empty()) calls = {s.plan_call()};
  Goal& goal = g.add(claim + s.where(c), domain, holds, std::move(calls));
  s.prepare(goal, c, ratio);
  const z3::expr zero = g.enc().num(0);
  for (std::size_t seg = 0; seg < s.segment_count(); ++seg) {
    if (s.replicated_on_prefill(seg, c)) continue;
    const std::vector<z3::expr> indices = at == At::Zero       ? std::vector<z3::expr>{zero}
                                          : at == At::J        ? std::vector<z3::expr>{j}
                                          : at == At::JAndNext ? std::vector<z3::expr>{j, j + 1}
                                                               : std::vector<z3::expr>{zero, s.copies[seg].count - 1};
    for (const z3::expr& index : indices) s.use_copy_law(goal, c, seg, index);
  }
  return goal;
}

// The goals of every family's cases, `each` adding a case's goals to g.
template <class Each>
std::vector<Goal> by_case(const Encoding& e, Each&& each) {
  std::vector<Goal> out;
  for (const StateFamily f : kStateFamilies) {
    Goals g(e);
    PlanSetting s(g, f);
    s.facts(g);
    each(g, s);
    for (Goal& goal : g.take()) out.push_back(std::move(goal));
  }
  return out;
}

}  // namespace

std::vector<Goal> state_plan_covers_each_decode_ranks_state_exactly_once(const Encoding& e) {
  return by_case(e, [&](Goals& g, PlanSetting& s) {
    const z3::expr j = g.integer("j");
    for (const PlanCase& c : state::plan_cases(s.f)) {
      const z3::expr ratio = s.ratio_fact(g, c);
      const z3::expr domain = s.on(c);
      const bool several = c.ratio == Ratio::PrefillLarger;
      // The closed form of §16.2's divisible pairs: what the other goals stand on.
      z3::expr closed = e.ctx().bool_val(true);
      for (std::size_t seg = 0; seg < s.segment_count(); ++seg) {
        const std::vector<z3::expr> got = s.copies[seg].copy(several ? j : e.num(0));
        const std::vector<z3::expr> want = s.expected(c, seg, several ? j : e.num(0));
        z3::expr same = s.copies[seg].count == s.expected_count(c, seg);
        for (std::size_t i = 0; i < 4; ++i) same = same && got[i] == want[i];
        closed = closed && (several && !s.replicated_on_prefill(seg, c) ? z3::implies(0 <= j && j < s.k, same) : same);
      }
      add_case_goal(g, s, c, ratio, "each segment's copies are §16.2's on divisible pairs", domain, closed,
                    several ? At::J : At::Zero, j);
      // Per segment: the first copy at loc(D, s), each ending where the next
      // starts, the last at loc(D, s) + width(D, s), none empty.
      z3::expr first = e.ctx().bool_val(true), abut = first, last = first, nonempty = first;
      for (std::size_t seg = 0; seg < s.segment_count(); ++seg) {
        const SegmentCopiesTerm& copies = s.copies[seg];
        const StateSegmentTerms& to = s.decode.segments[seg];
        const std::vector<z3::expr> a = copies.copy(j), next = copies.copy(j + 1), end = copies.copy(copies.count - 1);
        first = first && copies.count >= 1 && copies.copy(e.num(0))[2] == to.loc;
        abut = abut && z3::implies(j + 1 < copies.count, a[2] + a[3] == next[2]);
        last = last && end[2] + end[3] == to.loc + to.width;
        nonempty = nonempty && z3::implies(j < copies.count, a[3] >= 1);
      }
      add_case_goal(g, s, c, ratio, "each segment has a copy, and the first starts at loc(D, s)", domain, first, At::Zero, j);
      add_case_goal(g, s, c, ratio, "copy j of a segment ends where copy j + 1 starts", domain && 0 <= j, abut,
                    At::JAndNext, j);
      add_case_goal(g, s, c, ratio, "the last copy of a segment ends at loc(D, s) + width(D, s)", domain, last, At::Last, j);
      add_case_goal(g, s, c, ratio, "no copy is empty", domain && 0 <= j, nonempty, At::J, j);
    }
  });
}


std::vector<Goal> state_plan_reads_only_what_the_source_holds(const Encoding& e) {
  return by_case(e, [&](Goals& g, PlanSetting& s) {
    const z3::expr j = g.integer("j");
    for (const PlanCase& c : state::plan_cases(s.f)) {
      const z3::expr ratio = s.ratio_fact(g, c);
      const z3::expr domain = s.on(c) && 0 <= j;
      z3::expr held = e.ctx().bool_val(true), same_unit = held;
      for (std::size_t seg = 0; seg < s.segment_count(); ++seg) {
        const std::vector<z3::expr> a = s.copies[seg].copy(j);
        const StateSegmentTerms &from = s.prefill.segments[seg], &to = s.decode.segments[seg];
        const z3::expr in_list = j < s.copies[seg].count;
        held = held && z3::implies(in_list, 0 <= a[0] && a[0] < s.P && from.loc <= a[1] && a[1] + a[3] <= from.loc + from.width);
        // The logical unit read is the one written: start(p, P, s) + (src - loc(P, s)) == start(d, D, s) + (dst - loc(D, s)).
        same_unit = same_unit && z3::implies(in_list, s.prefill.start(a[0], seg) + a[1] - from.loc ==
                                                          s.decode.start(s.d, seg) + a[2] - to.loc);
      }
      add_case_goal(g, s, c, ratio, "each segment's copy j reads a prefill rank in [0, P), inside its holding of the segment",
                    domain, held, At::J, j);
      add_case_goal(g, s, c, ratio, "each segment's copy j reads the logical units it writes", domain, same_unit, At::J, j);
    }
  });
}

std::vector<Goal> replicated_segments_come_from_one_holder(const Encoding& e) {
  Goals g(e);
  PlanSetting s(g, StateFamily::Mamba2);  // Mamba2 alone replicates (case B)
  s.facts(g);
  for (const PlanCase& c : state::plan_cases(s.f)) {
    if (c.groups == state::Groups::Sharded) continue;
    const z3::expr ratio = s.ratio_fact(g, c);
    z3::expr one = e.ctx().bool_val(true);
    for (const std::size_t seg : {std::size_t{1}, std::size_t{2}}) {  // B and C
      const std::vector<z3::expr> a = s.copies[seg].copy(e.num(0));
      const StateSegmentTerms &from = s.prefill.segments[seg], &to = s.decode.segments[seg];
      one = one && s.copies[seg].count == 1 && a[0] == s.anchor && a[1] == from.loc && a[2] == to.loc &&
            a[3] == from.full;
    }
    add_case_goal(g, s, c, ratio, "B and C come whole, in one copy each, from floor(d * P / D)", s.on(c), one, At::Zero,
                  e.num(0));
  }
  return g.take();
}

std::vector<Goal> state_plan_is_the_identity_at_equal_sizes(const Encoding& e) {
  return by_case(e, [&](Goals& g, PlanSetting& s) {
    for (const PlanCase& c : state::plan_cases(s.f)) {
      // P == D: the decode side is as large; it replicates B and C where the prefill side does.
      if (c.ratio != Ratio::DecodeLarger || c.groups == state::Groups::ReplicatedOnDecodeOnly) continue;
      const z3::expr ratio = s.ratio_fact(g, c);
      z3::expr identity = e.ctx().bool_val(true);
      for (std::size_t seg = 0; seg < s.segment_count(); ++seg) {
        const std::vector<z3::expr> a = s.copies[seg].copy(e.num(0));
        const StateSegmentTerms& own = s.prefill.segments[seg];
        identity = identity && s.copies[seg].count == 1 && a[0] == s.d && a[1] == own.loc && a[2] == own.loc &&
                   a[3] == own.width;
      }
      add_case_goal(g, s, c, ratio, "P == D: one copy a segment, from d, src == dst == loc, width(T, s) units", s.on(c) && s.P == s.D,
                    identity, At::Zero, e.num(0));
    }
  });
}

std::vector<Goal> state_served_is_the_window(const Encoding& e) {
  return by_case(e, [&](Goals& g, PlanSetting& s) {
    const z3::expr p = g.integer("p"), q = g.integer("q"), j = g.integer("j");
    const OutcomeTerm window = e.window_span(s.d, s.D, s.P);  // decode is the local side
    const OperationTerm served = e.state_served(s.f, p, s.P, s.D, s.dims);
    std::vector<z3::expr> served_args = {p, s.P, s.D};
    served_args.insert(served_args.end(), s.dims.begin(), s.dims.end());
    const ShownCall served_call{std::string(state_family_name(s.f)) + "_state_served", served_args};
    const ShownCall window_call{"window", {s.d, s.D, s.P}};
    const z3::expr first = window.value[0];
    const std::size_t heads = s.segment_count() - 1;  // the SSM heads: sharded on both sides, one copy per window rank
    for (const PlanCase& c : state::plan_cases(s.f)) {
      const z3::expr ratio = s.ratio_fact(g, c);
      z3::expr sources = window.ok;
      for (std::size_t seg = 0; seg < s.segment_count(); ++seg) {
        sources = sources && z3::implies(j < s.copies[seg].count, within(s.copies[seg].copy(j)[0], window.value));
      }
      add_case_goal(g, s, c, ratio, "every copy's source is in window(d, D, P)", s.on(c) && 0 <= j, sources, At::J, j,
                    {s.plan_call(), window_call});
      // Each rank q of the window is a source: of the SSM heads' copy q - first.
      const z3::expr at = c.ratio == Ratio::PrefillLarger ? q - first : e.num(0);
      Goal& every = add_case_goal(g, s, c, ratio, "every rank q of window(d, D, P) is the source of the SSM heads' copy q - first",
                                  s.on(c) && window.ok && within(q, window.value),
                                  0 <= at && at < s.copies[heads].count && s.copies[heads].copy(at)[0] == q, At::Zero,
                                  e.num(0), {s.plan_call(), window_call});
      if (c.ratio == Ratio::PrefillLarger) s.use_copy_law(every, c, heads, at);
    }
    // d is listed by state_served(p) exactly where p is in d's window, and
    // state_served lists every valid sizing's short of its listing limit.
    const z3::expr valid = s.loaded && 0 <= p && p < s.P;
    const z3::expr listed = served.element(e.num(0))[0] <= s.d && s.d < served.element(e.num(0))[0] + served.outcome.value[0];
    for (const bool decode_larger : {true, false}) {
      const std::string side = decode_larger ? ", D >= P" : ", P > D";
      const z3::expr sizes = decode_larger ? s.D >= s.P : s.P > s.D;
      g.add("where state_served(p) succeeds, it lists d exactly when p is in window(d, D, P)" + side,
            valid && sizes && served.outcome.ok, window.ok && listed == within(p, window.value), {served_call, window_call});
      g.add("state_served(p) succeeds on every valid sizing with max(1, D // P) <= 2^20" + side,
            valid && sizes && max(e.num(1), floor_div(s.D, s.P)) <= e.num(kMaxStateListed), served.outcome.ok, {served_call});
    }
  });
}

}  // namespace tpcheck::prove
