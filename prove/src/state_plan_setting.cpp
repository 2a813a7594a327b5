#include "state_plan_setting.hpp"

namespace tpcheck::prove::state {

std::vector<PlanCase> plan_cases(StateFamily f) {
  if (f != StateFamily::Mamba2) return {{Ratio::DecodeLarger, Groups::Sharded}, {Ratio::PrefillLarger, Groups::Sharded}};
  return {{Ratio::DecodeLarger, Groups::Sharded},
          {Ratio::DecodeLarger, Groups::ReplicatedOnPrefill},
          {Ratio::DecodeLarger, Groups::ReplicatedOnDecodeOnly},
          {Ratio::PrefillLarger, Groups::Sharded},
          {Ratio::PrefillLarger, Groups::ReplicatedOnPrefill}};
}

PlanSetting::PlanSetting(Goals& g, StateFamily family)
    : f(family), d(g.integer("d")), P(g.integer("P")), D(g.integer("D")), dims(dim_inputs(g, f)),
      prefill(g.enc().state_side(f, P, dims)), decode(g.enc().state_side(f, D, dims)),
      loaded(loads(f, P, dims) && loads(f, D, dims) && divisible_pair(P, D) && 0 <= d && d < D),
      m(floor_div(D, P)), k(floor_div(P, D)), anchor(floor_div(d * P, D)), shapes(g.enc().ctx().bool_val(true)) {
  for (std::size_t s = 0; s < prefill.segments.size(); ++s) copies.push_back(g.enc().segment_copies(prefill, decode, s, d));
}

z3::expr PlanSetting::on(const PlanCase& c) const {
  z3::expr out = loaded && (c.ratio == Ratio::DecodeLarger ? D >= P : P > D);
  if (f != StateFamily::Mamba2) return out;
  const z3::expr& G = dims[2];
  switch (c.groups) {
    case Groups::Sharded: return out && !case_b(f, P, dims) && !case_b(f, D, dims);
    case Groups::ReplicatedOnPrefill: return out && case_b(f, P, dims);
    case Groups::ReplicatedOnDecodeOnly: return out && G == 1 && P == 1 && D > 1;
  }
  return out;
}

bool PlanSetting::replicated_on_prefill(std::size_t s, const PlanCase& c) const {
  return f == StateFamily::Mamba2 && (s == 1 || s == 2) && c.groups == Groups::ReplicatedOnPrefill;
}

bool PlanSetting::several(std::size_t s, const PlanCase& c) const {
  return c.ratio == Ratio::PrefillLarger && !replicated_on_prefill(s, c);
}

z3::expr PlanSetting::every_copy(const PlanCase& c, std::size_t s, const z3::expr& j,
                                 const std::function<z3::expr(const std::vector<z3::expr>&)>& claim) const {
  const SegmentCopiesTerm& copies = this->copies[s];
  if (several(s, c)) return z3::implies(0 <= j && j < copies.count, claim(copies.copy(j)));
  return copies.count == 1 && claim(copies.copy(P.ctx().int_val(0)));
}

std::string PlanSetting::where(const PlanCase& c) const {
  std::string out = " (" + std::string(state_family_name(f)) + (c.ratio == Ratio::DecodeLarger ? ", D >= P" : ", P > D");
  if (f == StateFamily::Mamba2) {
    switch (c.groups) {
      case Groups::Sharded: out += ", B and C sharded"; break;
      case Groups::ReplicatedOnPrefill: out += ", B and C replicated on the prefill side"; break;
      case Groups::ReplicatedOnDecodeOnly: out += ", B and C replicated on the decode side only"; break;
    }
  }
  return out + ")";
}

ShownCall PlanSetting::plan_call() const {
  std::vector<z3::expr> args = {d, P, D};
  args.insert(args.end(), dims.begin(), dims.end());
  return {state_operation_names(f)[2], args};
}

void PlanSetting::facts(Goals& g) {
  shapes = side_shape_fact(g, "the prefill side", loaded, prefill, dims, {plan_call()}) &&
           side_shape_fact(g, "the decode side", loaded, decode, dims, {plan_call()});
}

z3::expr PlanSetting::ratio_fact(Goals& g, const PlanCase& c) const {
  z3::context& ctx = P.ctx();
  const bool decode_larger = c.ratio == Ratio::DecodeLarger;
  z3::expr holds = decode_larger ? P * m == D && m >= 1 && anchor == floor_div(d, m) : D * k == P && k >= 1 && anchor == d * k;
  std::vector<std::pair<Law, std::vector<z3::expr>>> laws;
  if (decode_larger) {
    laws.emplace_back(divides_law(ctx), std::vector<z3::expr>{D, P});
    laws.emplace_back(quotient_definition_law(ctx), std::vector<z3::expr>{d, m});
    laws.emplace_back(fraction_law(ctx), std::vector<z3::expr>{d, P, m, D, floor_div(d, m)});
  } else {
    laws.emplace_back(divides_law(ctx), std::vector<z3::expr>{P, D});
    laws.emplace_back(multiple_law(ctx), std::vector<z3::expr>{d, D, k, P});
  }
  for (std::size_t s = 0; s < segment_count(); ++s) {
    if (replicated_on_prefill(s, c)) continue;
    const StateSegmentTerms &from = prefill.segments[s], &to = decode.segments[s];
    if (c.groups == Groups::ReplicatedOnDecodeOnly && s > 0 && s < 3) {
      holds = holds && from.width == to.width;  // P == 1: the one prefill rank holds it whole, as every decode rank
    } else if (decode_larger) {
      holds = holds && from.width == m * to.width;
      laws.emplace_back(cancellation_law(ctx), std::vector<z3::expr>{from.width, to.width, m, P, D, from.full});
    } else {
      holds = holds && to.width == k * from.width;
      laws.emplace_back(cancellation_law(ctx), std::vector<z3::expr>{to.width, from.width, k, D, P, from.full});
    }
  }
  Goal& goal = g.add(std::string(decode_larger ? "D == m * P, each segment sharded on both sides m times wider on the prefill side"
                                               : "P == k * D, each segment sharded on the prefill side k times wider on the decode side") +
                         ", the anchor " + (decode_larger ? "d // m" : "d * k") + where(c),
                     on(c), holds, {plan_call()});
  goal.given.push_back(shapes);
  abstract_widths(goal, prefill);
  abstract_widths(goal, decode);
  for (auto& [law, terms] : laws) goal.use(law, terms);
  return z3::implies(goal.domain, goal.holds);
}

void PlanSetting::prepare(Goal& goal, const PlanCase& c, const z3::expr& ratio) const {
  z3::context& ctx = P.ctx();
  goal.given.push_back(shapes);
  goal.given.push_back(ratio);
  for (std::size_t s = 0; s + 1 < segment_count(); ++s) {
    goal.rewrites.emplace_back(prefill.segments[s].replicated, ctx.bool_val(replicated_on_prefill(s, c)));
    // The decode side: replicated with the prefill side (D >= P > 1) or alone
    // (P == 1 < D); where P > D its flag depends on whether D > 1, which the
    // widths' shape settles.
    const bool groups = f == StateFamily::Mamba2 && s > 0;
    if (!groups || c.groups == Groups::Sharded) {
      goal.rewrites.emplace_back(decode.segments[s].replicated, ctx.bool_val(false));
    } else if (c.ratio == Ratio::DecodeLarger) {
      goal.rewrites.emplace_back(decode.segments[s].replicated, ctx.bool_val(true));
    }
  }
  abstract_widths(goal, prefill);
  abstract_widths(goal, decode);
  goal.abstracted.insert(goal.abstracted.end(), {m, k, anchor});
}

void PlanSetting::use_copy_law(Goal& goal, const PlanCase& c, std::size_t s, const z3::expr& j) const {
  z3::context& ctx = P.ctx();
  const StateSegmentTerms &from = prefill.segments[s], &to = decode.segments[s];
  const z3::expr a = decode.start(d, s), w = to.width, p = from.width;
  if (c.ratio == Ratio::PrefillLarger) {
    // d's units start at d * width(D, s) == (d * k) * width(P, s): k whole prefill ranks from d * k.
    const z3::expr q = d * k;
    goal.use(quotient_law(ctx), {a, p, q});
    goal.use(quotient_law(ctx), {a + w + p - 1, p, q + k});
    goal.use(several_overlaps_law(ctx), {a, w, p, from.loc, to.loc, q, k, j});
    return;
  }
  // d's units lie in prefill rank q == u // m: m * q <= u < m * q + m, so
  // (times width(D, s)) q * p <= a and a + w <= q * p + p. Where the decode
  // side alone replicates (P == 1) u, m and q are 0, 1 and 0.
  const bool alone = c.groups == Groups::ReplicatedOnDecodeOnly && s > 0 && s < 3;
  const z3::expr u = alone ? ctx.int_val(0) : d, ratio = alone ? ctx.int_val(1) : m;
  const z3::expr q = alone ? ctx.int_val(0) : floor_div(d, m);
  if (!alone) goal.use(quotient_definition_law(ctx), {d, m});
  goal.use(monotone_product_law(ctx), {ratio * q, u, w});
  goal.use(monotone_product_law(ctx), {u + 1, ratio * q + ratio, w});
  goal.use(quotient_law(ctx), {a, p, q});
  goal.use(quotient_law(ctx), {a + w + p - 1, p, q + 1});
  goal.use(one_overlap_law(ctx), {a, w, p, from.loc, to.loc, q});
}

std::vector<z3::expr> PlanSetting::expected(const PlanCase& c, std::size_t s, const z3::expr& j) const {
  const StateSegmentTerms &from = prefill.segments[s], &to = decode.segments[s];
  const bool decode_larger = c.ratio == Ratio::DecodeLarger;
  if (replicated_on_prefill(s, c)) return {decode_larger ? floor_div(d, m) : d * k, from.loc, to.loc, from.full};
  if (!decode_larger) return {d * k + j, from.loc, to.loc + j * from.width, from.width};
  if (c.groups == Groups::ReplicatedOnDecodeOnly && s > 0 && s < 3) return {P.ctx().int_val(0), from.loc, to.loc, to.width};
  const z3::expr q = floor_div(d, m);
  return {q, from.loc + (d - m * q) * to.width, to.loc, to.width};
}

z3::expr PlanSetting::expected_count(const PlanCase& c, std::size_t s) const {
  return c.ratio == Ratio::PrefillLarger && !replicated_on_prefill(s, c) ? k : P.ctx().int_val(1);
}

}  // namespace tpcheck::prove::state
