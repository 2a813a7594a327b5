// Proofs of SPEC §16.4's byte invariants (§16.3) for every family and
// layout: a run of a copy of the plan (lib's runs before they merge: a merged
// run is their union) lies inside both sides' state, and the DS and SD
// layouts move the same elements of a copy to the same places. The copies'
// fields are abstracted here: what is proved holds for any copy inside its
// segment on both sides, which the plan's copies are (a fact of each case).
#include <array>
#include <string>

#include "state_plan_setting.hpp"
#include "tpcheck/prove/proofs.hpp"
#include "tpcheck/state_bytes.hpp"

namespace tpcheck::prove {
namespace {

using state::PlanCase;
using state::PlanSetting;

// The side's bytes in a layout: its conv order, its container.
StateBytesTerms bytes_of(const StateSideTerms& side, ConvOrder order, StateContainer container, const z3::expr& L,
                         const z3::expr& e_conv, const z3::expr& e_ssm) {
  return {&side, order, container, L, e_conv, e_ssm};
}

// Abstracts each copy's fields (src, dst, n; p is no byte's business) where the goal looks.
void abstract_copies(Goal& goal, const std::vector<std::vector<z3::expr>>& copies) {
  for (const std::vector<z3::expr>& a : copies) goal.abstracted.insert(goal.abstracted.end(), {a[1], a[2], a[3]});
}

// a * w <= b * w, given to a goal.
void monotone(Goal& goal, const z3::expr& a, const z3::expr& b, const z3::expr& w) {
  goal.use(state::monotone_product_law(a.ctx()), {a, b, w});
}

}  // namespace

std::vector<Goal> state_runs_stay_inside_the_slot(const Encoding& e) {
  std::vector<Goal> out;
  for (const StateFamily f : kStateFamilies) {
    Goals g(e);
    PlanSetting s(g, f);
    const z3::expr j = g.integer("j"), t = g.integer("t"), L = g.integer("L"), e_conv = g.integer("e_conv"),
                   e_ssm = g.integer("e_ssm");
    s.facts(g);
    const z3::expr sizes = L >= 1 && e_conv >= 1 && e_ssm >= 1 && 0 <= t && t < L;
    for (const PlanCase& c : state::plan_cases(s.f)) {
      const z3::expr ratio = s.ratio_fact(g, c);
      const z3::expr domain = s.on(c) && sizes;
      // Each segment's copy j where it has several (P > D), its one copy otherwise.
      std::vector<std::vector<z3::expr>> copies;
      std::vector<z3::expr> listed;  // where that copy is one of the plan's
      // Each copy inside its segment on both sides (StatePlanReadsOnlyWhatTheSourceHolds and
      // StatePlanCoversEachDecodeRanksStateExactlyOnce in units), and not empty.
      z3::expr inside = e.ctx().bool_val(true);
      for (std::size_t seg = 0; seg < s.segment_count(); ++seg) {
        const bool several = s.several(seg, c);
        copies.push_back(s.copies[seg].copy(several ? j : e.num(0)));
        listed.push_back(several ? 0 <= j && j < s.copies[seg].count : e.ctx().bool_val(true));
        const StateSegmentTerms &from = s.prefill.segments[seg], &to = s.decode.segments[seg];
        inside = inside && s.every_copy(c, seg, j, [&](const std::vector<z3::expr>& a) {
                   return from.loc <= a[1] && a[1] + a[3] <= from.loc + from.width && to.loc <= a[2] &&
                          a[2] + a[3] <= to.loc + to.width && a[3] >= 1;
                 });
      }
      Goal& fact = g.add("each segment's every copy lies inside the segment on both sides, and is not empty" + s.where(c),
                         domain, inside, {s.plan_call()});
      s.prepare(fact, c, ratio);
      for (std::size_t seg = 0; seg < s.segment_count(); ++seg) {
        if (!s.replicated_on_prefill(seg, c)) s.use_copy_law(fact, c, seg, s.several(seg, c) ? j : e.num(0));
      }
      const z3::expr copies_inside = z3::implies(fact.domain, fact.holds);
      // The runs, in each layout the sides share.
      const auto run_goal = [&](const std::string& claim, const z3::expr& holds) -> Goal& {
        Goal& goal = g.add(claim + s.where(c), domain, holds, {s.plan_call()});
        s.prepare(goal, c, ratio);
        goal.given.push_back(copies_inside);
        abstract_copies(goal, copies);
        return goal;
      };
      const std::size_t conv = s.segment_count() - 1;
      for (const ConvOrder order : kConvOrders) {
        const StateBytesTerms sender = bytes_of(s.prefill, order, StateContainer::VllmPage, L, e_conv, e_ssm);
        const StateBytesTerms receiver = bytes_of(s.decode, order, StateContainer::VllmPage, L, e_conv, e_ssm);
        z3::expr holds = e.ctx().bool_val(true);
        std::vector<std::array<z3::expr, 3>> products;  // (a, b, w): a * w <= b * w, given to the goal
        for (std::size_t seg = 0; seg < conv; ++seg) {
          const std::vector<z3::expr>& a = copies[seg];
          const ByteRunTerm run = e.copy_run(sender, receiver, seg, a, e.num(0), t);
          holds = holds && z3::implies(listed[seg],
                                       0 <= run.src && run.src + run.length <= sender.conv_bytes() && 0 <= run.dst &&
                                           run.dst + run.length <= receiver.conv_bytes() && run.length >= 1);
          // Local units [x, x + n) inside the segment [loc, loc + w), inside [0, C): the run's bytes inside C * L * e.
          const auto bounds = [&](const StateSideTerms& side, const z3::expr& x) {
            const StateSegmentTerms& segment = side.segments[seg];
            const z3::expr &C = side.c_loc, &n = a[3], &loc = segment.loc, &w = segment.width;
            switch (order) {
              case ConvOrder::DimFirst:  // one run, [x * L * e, (x + n) * L * e)
                products.push_back({e.num(0), x, L * e_conv});
                products.push_back({x + n, C, L * e_conv});
                products.push_back({e.num(1), n, L * e_conv});
                break;
              case ConvOrder::StateFirst:  // row t's, [(t * C + x) * e, (t * C + x + n) * e)
                products.push_back({e.num(0), t, C});
                products.push_back({t, L - 1, C});
                products.push_back({e.num(0), t * C + x, e_conv});
                products.push_back({t * C + x + n, L * C, e_conv});
                products.push_back({e.num(1), n, e_conv});
                break;
              case ConvOrder::SegmentsStateFirst:  // row t's, [(loc * L + t * w + x - loc) * e, + n * e)
                products.push_back({e.num(0), loc, L});
                products.push_back({e.num(0), t, w});
                products.push_back({t, L - 1, w});
                products.push_back({loc + w, C, L});
                products.push_back({e.num(0), loc * L + t * w + x - loc, e_conv});
                products.push_back({loc * L + t * w + x - loc + n, C * L, e_conv});
                products.push_back({e.num(1), n, e_conv});
                break;
            }
          };
          bounds(s.prefill, a[1]);
          bounds(s.decode, a[2]);
        }
        products.push_back({e.num(1), L, e_conv});
        Goal& goal = run_goal("each conv run of a copy (" + std::string(conv_order_name(order)) + ") lies in both sides' conv state, and is "
                              "not empty", holds);
        for (const auto& [a, b, w] : products) monotone(goal, a, b, w);
      }
      // The SSM heads' run: in the SSM state, after the conv state in a vLLM page, at 0 of SGLang's temporal tensor.
      z3::expr ssm = e.ctx().bool_val(true);
      for (const StateContainer container : {StateContainer::VllmPage, StateContainer::SglangPool}) {
        const StateBytesTerms sender = bytes_of(s.prefill, ConvOrder::DimFirst, container, L, e_conv, e_ssm);
        const StateBytesTerms receiver = bytes_of(s.decode, ConvOrder::DimFirst, container, L, e_conv, e_ssm);
        const ByteRunTerm run = e.copy_run(sender, receiver, conv, copies[conv], e.num(0), t);
        ssm = ssm && z3::implies(listed[conv],
                                 sender.ssm_offset() <= run.src && run.src + run.length <= sender.ssm_offset() + sender.ssm_bytes() &&
                                     receiver.ssm_offset() <= run.dst &&
                                     run.dst + run.length <= receiver.ssm_offset() + receiver.ssm_bytes() && run.length >= 1);
      }
      Goal& goal = run_goal("the SSM heads' run lies in both sides' SSM state (a vLLM page's, SGLang's temporal tensor), "
                            "and is not empty", ssm);
      const std::vector<z3::expr>& a = copies[conv];
      const z3::expr head = s.prefill.head_elements * e_ssm;
      monotone(goal, e.num(1), s.prefill.head_elements, e_ssm);
      monotone(goal, e.num(1), a[3], head);
      monotone(goal, e.num(0), a[1], head);
      monotone(goal, e.num(0), a[2], head);
      monotone(goal, a[1] + a[3], s.prefill.ssm().width, head);
      monotone(goal, a[2] + a[3], s.decode.ssm().width, head);
    }
    for (Goal& goal : g.take()) out.push_back(std::move(goal));
  }
  return out;
}

std::vector<Goal> sd_and_ds_layouts_move_the_same_elements(const Encoding& e) {
  std::vector<Goal> out;
  for (const StateFamily f : kStateFamilies) {
    Goals g(e);
    PlanSetting s(g, f);
    const z3::expr j = g.integer("j"), k = g.integer("k"), t = g.integer("t"), b = g.integer("b"), o = g.integer("o"),
                   L = g.integer("L"), e_conv = g.integer("e_conv");
    const z3::expr sizes = s.loaded && L >= 1 && e_conv >= 1 && 0 <= j;
    const std::size_t conv = s.segment_count() - 1;
    std::vector<std::vector<z3::expr>> copies;
    for (std::size_t seg = 0; seg < conv; ++seg) copies.push_back(s.copies[seg].copy(j));
    for (const ConvOrder order : kConvOrders) {
      const StateBytesTerms sender = bytes_of(s.prefill, order, StateContainer::VllmPage, L, e_conv, e_conv);
      const StateBytesTerms receiver = bytes_of(s.decode, order, StateContainer::VllmPage, L, e_conv, e_conv);
      const bool one_run = order == ConvOrder::DimFirst;  // else one run per row
      // Element (k, t, b) of each segment's copy j: in its run, at the offset
      // that takes it to element (k, t, b) of the copy's destination.
      z3::expr element_moved = e.ctx().bool_val(true);
      // Byte o of each segment's run (of row t): element (k', t', b') of the
      // copy, from (k', t', b') of its source to (k', t', b') of its destination.
      z3::expr byte_is_element = e.ctx().bool_val(true);
      const z3::expr q1 = floor_div(o, e_conv), b1 = floor_mod(o, e_conv);  // o == e * q1 + b1
      const z3::expr k1 = one_run ? floor_div(q1, L) : q1, t1 = one_run ? floor_mod(q1, L) : t;
      for (std::size_t seg = 0; seg < conv; ++seg) {
        const std::vector<z3::expr>& a = copies[seg];
        const z3::expr j_src = a[1] - s.prefill.segments[seg].loc, j_dst = a[2] - s.decode.segments[seg].loc;
        const ByteRunTerm run = e.copy_run(sender, receiver, seg, a, e.num(0), t);
        const z3::expr copy = j < s.copies[seg].count;
        const z3::expr at = sender.conv_byte_at(seg, j_src + k, t, b) - run.src;
        element_moved = element_moved &&
                        z3::implies(copy && 0 <= k && k < a[3], 0 <= at && at < run.length &&
                                                                     run.dst + at == receiver.conv_byte_at(seg, j_dst + k, t, b));
        byte_is_element = byte_is_element &&
                          z3::implies(copy && 0 <= o && o < run.length,
                                      0 <= k1 && k1 < a[3] && 0 <= t1 && t1 < L && 0 <= b1 && b1 < e_conv &&
                                          run.src + o == sender.conv_byte_at(seg, j_src + k1, t1, b1) &&
                                          run.dst + o == receiver.conv_byte_at(seg, j_dst + k1, t1, b1));
      }
      const std::string under = " (" + std::string(conv_order_name(order)) + (one_run ? ", one run a copy" : ", one run a row") + ")";
      {
        Goal& goal = g.add("each element (k, t, b) of a copy lies in its run, which writes it to element (k, t, b) of the "
                           "copy's destination" + under + " (" + std::string(state_family_name(f)) + ")",
                           sizes && 0 <= t && t < L && 0 <= b && b < e_conv, element_moved, {s.plan_call()});
        abstract_copies(goal, copies);
        for (const std::vector<z3::expr>& a : copies) {
          monotone(goal, e.num(0), k, one_run ? L : e_conv);
          monotone(goal, k, a[3] - 1, one_run ? L : e_conv);
          if (one_run) {
            monotone(goal, e.num(0), k * L + t, e_conv);
            monotone(goal, k * L + t, a[3] * L - 1, e_conv);
          }
        }
      }
      {
        Goal& goal = g.add("each byte of a copy's run is an element of the copy, from its place in the source to its "
                           "place in the destination" + under + " (" + std::string(state_family_name(f)) + ")",
                           sizes && (one_run ? e.ctx().bool_val(true) : 0 <= t && t < L), byte_is_element,
                           {s.plan_call()});
        abstract_copies(goal, copies);
        abstract_remainder(goal, o, e_conv);
        if (one_run) abstract_remainder(goal, q1, L);
        // k' out of [0, n) would put o out of the run: these cases, as products.
        for (const std::vector<z3::expr>& a : copies) {
          if (one_run) {
            monotone(goal, q1, e.num(-1), e_conv);
            monotone(goal, k1, e.num(-1), L);
            monotone(goal, a[3], k1, L);
            monotone(goal, a[3] * L, q1, e_conv);
          } else {
            monotone(goal, k1, e.num(-1), e_conv);
            monotone(goal, a[3], k1, e_conv);
          }
        }
      }
    }
    for (Goal& goal : g.take()) out.push_back(std::move(goal));
  }
  return out;
}

}  // namespace tpcheck::prove
