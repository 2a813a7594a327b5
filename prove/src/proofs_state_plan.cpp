// Proofs of SPEC §16.4's state plan invariants (§16.2) for every family,
// unbounded sizes and dims, case by case (state_plan_setting.hpp): plans of
// any length (the model's listing limit is not part of these invariants). A
// segment with one copy in a case is stated as that: its count is 1 and its
// copy 0 is so; one with several (P > D), of copy j.
#include "state_plan_setting.hpp"
#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {
namespace {

using state::PlanCase;
using state::PlanSetting;
using state::Ratio;

// Where a goal looks at the copies of a segment that has several, so that
// the overlap laws are given there: copy 0, copy j, copies j and j + 1, or the
// last, k - 1 (a segment with one copy: copy 0).
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
    const std::vector<z3::expr> indices = !s.several(seg, c) || at == At::Zero ? std::vector<z3::expr>{zero}
                                          : at == At::J                         ? std::vector<z3::expr>{j}
                                          : at == At::JAndNext                  ? std::vector<z3::expr>{j, j + 1}
                                                                                : std::vector<z3::expr>{s.k - 1};
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
      // Per segment: the closed form of §16.2's divisible pairs (its count and
      // copies), the first copy at loc(D, s), each ending where the next
      // starts, the last (copy count - 1) at loc(D, s) + width(D, s), none empty.
      const z3::expr yes = e.ctx().bool_val(true);
      z3::expr closed = yes, first = yes, abut = yes, last = yes, nonempty = yes;
      for (std::size_t seg = 0; seg < s.segment_count(); ++seg) {
        const SegmentCopiesTerm& copies = s.copies[seg];
        const StateSegmentTerms& to = s.decode.segments[seg];
        const bool several = s.several(seg, c);
        const z3::expr at = several ? j : e.num(0);
        const std::vector<z3::expr> want = s.expected(c, seg, at);
        closed = closed && copies.count == s.expected_count(c, seg) &&
                 s.every_copy(c, seg, j, [&](const std::vector<z3::expr>& a) {
                   return a[0] == want[0] && a[1] == want[1] && a[2] == want[2] && a[3] == want[3];
                 });
        first = first && copies.count >= 1 && copies.copy(e.num(0))[2] == to.loc;
        if (several) {
          const std::vector<z3::expr> a = copies.copy(j), next = copies.copy(j + 1);
          abut = abut && z3::implies(0 <= j && j + 1 < copies.count, a[2] + a[3] == next[2]);
        }
        const z3::expr end = several ? s.k - 1 : e.num(0);
        const std::vector<z3::expr> b = copies.copy(end);
        last = last && copies.count == end + 1 && b[2] + b[3] == to.loc + to.width;
        nonempty = nonempty && s.every_copy(c, seg, j, [](const std::vector<z3::expr>& a) { return a[3] >= 1; });
      }
      add_case_goal(g, s, c, ratio, "each segment's copies are §16.2's on divisible pairs", domain, closed, At::J, j);
      add_case_goal(g, s, c, ratio, "each segment has a copy, and the first starts at loc(D, s)", domain, first, At::Zero, j);
      if (c.ratio == Ratio::PrefillLarger) {
        add_case_goal(g, s, c, ratio, "copy j of a segment ends where copy j + 1 starts", domain, abut, At::JAndNext, j);
      }
      add_case_goal(g, s, c, ratio, "the last copy of a segment (copy count - 1) ends at loc(D, s) + width(D, s)", domain,
                    last, At::Last, j);
      add_case_goal(g, s, c, ratio, "no copy is empty", domain, nonempty, At::J, j);
    }
  });
}

std::vector<Goal> state_plan_reads_only_what_the_source_holds(const Encoding& e) {
  return by_case(e, [&](Goals& g, PlanSetting& s) {
    const z3::expr j = g.integer("j");
    for (const PlanCase& c : state::plan_cases(s.f)) {
      const z3::expr ratio = s.ratio_fact(g, c);
      z3::expr held = e.ctx().bool_val(true), same_unit = held;
      for (std::size_t seg = 0; seg < s.segment_count(); ++seg) {
        const StateSegmentTerms &from = s.prefill.segments[seg], &to = s.decode.segments[seg];
        held = held && s.every_copy(c, seg, j, [&](const std::vector<z3::expr>& a) {
                 return 0 <= a[0] && a[0] < s.P && from.loc <= a[1] && a[1] + a[3] <= from.loc + from.width;
               });
        // The logical unit read is the one written: start(p, P, s) + (src - loc(P, s)) == start(d, D, s) + (dst - loc(D, s)).
        same_unit = same_unit && s.every_copy(c, seg, j, [&](const std::vector<z3::expr>& a) {
                      return s.prefill.start(a[0], seg) + a[1] - from.loc == s.decode.start(s.d, seg) + a[2] - to.loc;
                    });
      }
      Goal& reads = add_case_goal(g, s, c, ratio,
                                  "each segment's every copy reads a prefill rank in [0, P), inside its holding of the segment",
                                  s.on(c), held, At::J, j);
      // The source is below P: (d + 1) * k <= D * k (P > D), and d // m < P (D >= P: m * P == D > d).
      if (c.ratio == Ratio::PrefillLarger) {
        reads.use(state::monotone_product_law(e.ctx()), {s.d + 1, s.D, s.k});
      } else {
        reads.use(state::monotone_product_law(e.ctx()), {s.P, floor_div(s.d, s.m), s.m});
      }
      add_case_goal(g, s, c, ratio, "each segment's every copy reads the logical units it writes", s.on(c), same_unit, At::J,
                    j);
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
    const ShownCall served_call{state_operation_names(s.f)[3], served_args};
    const ShownCall window_call{"window", {s.d, s.D, s.P}};
    const z3::expr first = window.value[0];
    const std::size_t heads = s.segment_count() - 1;  // the SSM heads: sharded on both sides, one copy per window rank
    for (const PlanCase& c : state::plan_cases(s.f)) {
      const z3::expr ratio = s.ratio_fact(g, c);
      z3::expr sources = window.ok;
      for (std::size_t seg = 0; seg < s.segment_count(); ++seg) {
        sources = sources && s.every_copy(c, seg, j, [&](const std::vector<z3::expr>& a) { return within(a[0], window.value); });
      }
      add_case_goal(g, s, c, ratio, "every copy's source is in window(d, D, P)", s.on(c), sources, At::J, j,
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
      Goal& dual = g.add("where state_served(p) succeeds, it lists d exactly when p is in window(d, D, P)" + side,
                         valid && sizes && served.outcome.ok, window.ok && listed == within(p, window.value),
                         {served_call, window_call});
      // The windows' quotients: D >= P: d's window is [d // m], p's [p * m, + m);
      // P > D: d's is [d * k, + k), p's [p // k]. One rank is in the other's
      // window exactly when the quotient is it (the products say when it is not).
      const z3::expr ratio = decode_larger ? s.m : s.k, small = decode_larger ? s.P : s.D, large = decode_larger ? s.D : s.P;
      const z3::expr x = decode_larger ? s.d : p, y = decode_larger ? p : s.d;  // x // ratio is y's peer
      const z3::expr q = floor_div(x, ratio);
      dual.use(divides_law(e.ctx()), {large, small});
      abstract_quotient(dual, x, ratio);
      dual.use(state::monotone_product_law(e.ctx()), {q + 1, y, ratio});
      dual.use(state::monotone_product_law(e.ctx()), {y + 1, q, ratio});
      dual.lemmas.insert(dual.lemmas.begin(), ratio >= 1);
      dual.abstracted.push_back(ratio);
      // The claim is about ranks, not dims: the checks on the dims hold on the
      // domain and leave the check.
      dual.rewrites.emplace_back(served.outcome.ok, e.ctx().bool_val(true));
      dual.rewrites.emplace_back(state::loads(s.f, s.P, s.dims), e.ctx().bool_val(true));
      dual.rewrites.emplace_back(state::loads(s.f, s.D, s.dims), e.ctx().bool_val(true));
      Goal& lists = g.add("state_served(p) succeeds on every valid sizing with max(1, D // P) <= 2^20" + side,
                          valid && sizes && max(e.num(1), floor_div(s.D, s.P)) <= e.num(kMaxStateListed), served.outcome.ok,
                          {served_call});
      lists.use(divides_law(e.ctx()), {large, small});
    }
  });
}

}  // namespace tpcheck::prove
