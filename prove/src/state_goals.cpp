#include "state_goals.hpp"

namespace tpcheck::prove::state {

std::vector<z3::expr> dim_inputs(Goals& g, StateFamily f) {
  std::vector<z3::expr> out;
  for (const std::string_view name : state_dim_names(f)) out.push_back(g.integer(std::string(name).c_str()));
  return out;
}

z3::expr loads(StateFamily f, const z3::expr& T, const std::vector<z3::expr>& v) {
  const auto divides = [](const z3::expr& a, const z3::expr& b) { return floor_mod(b, a) == 0; };
  z3::expr all = T >= 1;
  for (const z3::expr& x : v) all = all && x >= 1;
  switch (f) {
    case StateFamily::Mamba2: return all && divides(v[2], v[0]) && divides(T, v[0]) && (divides(T, v[2]) || v[2] == 1);
    case StateFamily::Gdn: return all && divides(v[0], v[2]) && divides(T, v[0]);
    case StateFamily::Kda:
    case StateFamily::Mamba1: return all && divides(T, v[0]);
  }
  return all;
}

z3::expr case_b(StateFamily f, const z3::expr& T, const std::vector<z3::expr>& v) {
  return f == StateFamily::Mamba2 ? v[2] == 1 && T > 1 : T.ctx().bool_val(false);
}

z3::expr replicated_by_spec(StateFamily f, std::size_t s, const z3::expr& T, const std::vector<z3::expr>& v) {
  return f == StateFamily::Mamba2 && s > 0 ? case_b(f, T, v) : T.ctx().bool_val(false);
}

z3::expr side_shape(const StateSideTerms& side, const std::vector<z3::expr>& dims) {
  const z3::expr& T = side.T;
  z3::expr all = side.head_elements >= 1;
  for (std::size_t s = 0; s < side.conv_count(); ++s) {
    const StateSegmentTerms& seg = side.segments[s];
    all = all && (seg.replicated == replicated_by_spec(side.family, s, T, dims)) && seg.full >= 1 && seg.width >= 1 &&
          z3::ite(seg.replicated, seg.width == seg.full, T * seg.width == seg.full);
  }
  return all && T * side.ssm().width == side.ssm().full && side.ssm().width >= 1;
}

void use_side_laws(Goal& goal, const StateSideTerms& side, const std::vector<z3::expr>& dims) {
  z3::context& c = side.T.ctx();
  const z3::expr& T = side.T;
  // Each group count a side shards is T times its quotient: T * (G_s // T) ==
  // G_s. GDN's value heads through its key heads: Hv == Hk * (Hv // Hk) and
  // Hk == T * (Hk // T), so Hv // T is their product.
  const auto sharded = [&](const z3::expr& groups) {
    if (side.family == StateFamily::Gdn && z3::eq(groups, dims[2])) {
      goal.use(divides_law(c), {dims[2], dims[0]});
      goal.use(divides_law(c), {dims[0], T});
      goal.use(quotient_law(c), {dims[2], T, floor_div(dims[0], T) * floor_div(dims[2], dims[0])});
    } else {
      goal.use(divides_law(c), {groups, T});
    }
  };
  // A segment's share is G_s // T groups of w_s: (G_s * w_s) // T == (G_s // T) * w_s.
  for (std::size_t s = 0; s < side.conv_count(); ++s) {
    const StateSegmentTerms& seg = side.segments[s];
    sharded(seg.groups);
    goal.use(quotient_law(c), {seg.full, T, floor_div(seg.groups, T) * seg.group_width});
  }
  sharded(side.ssm().full);
}

z3::expr side_shape_fact(Goals& g, const std::string& where, const z3::expr& domain, const StateSideTerms& side,
                         const std::vector<z3::expr>& dims, std::vector<ShownCall> calls) {
  Goal& goal = g.add("each segment of " + where + " is replicated where §16.1 says, else W_s // T wide with T * (W_s // T) == W_s; T * H_loc == H_s",
                     domain, side_shape(side, dims), std::move(calls));
  use_side_laws(goal, side, dims);
  return z3::implies(goal.domain, goal.holds);
}

void abstract_widths(Goal& goal, const StateSideTerms& side) {
  for (const StateSegmentTerms& seg : side.segments) goal.abstracted.push_back(floor_div(seg.full, side.T));
}

Law one_overlap_law(z3::context& c) {
  const z3::expr a = c.int_const("law.a"), w = c.int_const("law.w"), p = c.int_const("law.p"),
                 lp = c.int_const("law.lp"), ld = c.int_const("law.ld"), q = c.int_const("law.q");
  const SegmentCopiesTerm o = overlap_copies(a, w, p, lp, ld);
  const std::vector<z3::expr> copy = o.copy(c.int_val(0));
  return {"the overlaps of [a, a + w) with ranks of p units, a // p == q, q * p <= a < a + w <= q * p + p: one, "
          "from q, at a - q * p",
          {a, w, p, lp, ld, q},
          w >= 1 && p >= 1 && floor_div(a, p) == q && q * p <= a && a + w <= q * p + p &&
              floor_div(a + w + p - 1, p) == q + 1,
          o.count == 1 && copy[0] == q && copy[1] == lp + a - q * p && copy[2] == ld && copy[3] == w};
}

Law several_overlaps_law(z3::context& c) {
  const z3::expr a = c.int_const("law.a"), w = c.int_const("law.w"), p = c.int_const("law.p"),
                 lp = c.int_const("law.lp"), ld = c.int_const("law.ld"), q = c.int_const("law.q"),
                 k = c.int_const("law.k"), j = c.int_const("law.j");
  const SegmentCopiesTerm o = overlap_copies(a, w, p, lp, ld);
  const std::vector<z3::expr> copy = o.copy(j);
  return {"the overlaps of [a, a + w) with ranks of p units, a == q * p, w == k * p: k, copy j from q + j, whole, at "
          "j * p",
          {a, w, p, lp, ld, q, k, j},
          p >= 1 && k >= 1 && 0 <= j && j < k && floor_div(a, p) == q && q * p == a && w == k * p &&
              floor_div(a + w + p - 1, p) == q + k,
          o.count == k && copy[0] == q + j && copy[1] == lp && copy[2] == ld + j * p && copy[3] == p};
}

Law monotone_product_law(z3::context& c) {
  const z3::expr a = c.int_const("law.a"), b = c.int_const("law.b"), w = c.int_const("law.w");
  return {"a * w <= b * w where a <= b, w >= 0", {a, b, w}, a <= b && w >= 0, a * w <= b * w};
}

}  // namespace tpcheck::prove::state
