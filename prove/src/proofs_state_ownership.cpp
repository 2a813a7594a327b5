// Proofs of SPEC §16.4's ownership invariants (§16.1) for every family, for
// unbounded dims, sizes and ranks: each goal is given the side's shape (a
// fact proved first from the laws of state_goals.hpp) with the widths'
// quotients abstracted, so what is left for Z3 is sums and products of them.
#include "state_goals.hpp"
#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {
namespace {

using state::dim_inputs;

std::string family(StateFamily f) { return " (" + std::string(state_family_name(f)) + ")"; }

// One family's side: T ranks that load the dims, and rank r of them.
struct SideSetting {
  StateFamily f;
  z3::expr T, r;
  std::vector<z3::expr> dims;
  StateSideTerms side;
  z3::expr loaded;  // the side loads the dims and 0 <= r < T
  OperationTerm held;
  std::size_t count;  // segments, the SSM heads included

  SideSetting(Goals& g, StateFamily family)
      : f(family), T(g.integer("T")), r(g.integer("r")), dims(dim_inputs(g, f)), side(g.enc().state_side(f, T, dims)),
        loaded(state::loads(f, T, dims) && 0 <= r && r < T), held(g.enc().segments(f, r, T, dims)),
        count(side.segments.size()) {}

  std::vector<z3::expr> args(const z3::expr& rank) const {
    std::vector<z3::expr> a = {rank, T};
    a.insert(a.end(), dims.begin(), dims.end());
    return a;
  }
  ShownCall segments_call(const z3::expr& rank) const {
    return {state_operation_names(f)[1], args(rank)};
  }
  std::vector<z3::expr> range(std::size_t s) const { return held.element(T.ctx().int_val(static_cast<int>(s))); }
  z3::expr fact(Goals& g) const { return state::side_shape_fact(g, "the T-rank side", loaded, side, dims, {segments_call(r)}); }
  // A goal given the shape, the widths abstracted.
  void simplify(Goal& goal, const z3::expr& shape) const {
    goal.given.push_back(shape);
    state::abstract_widths(goal, side);
  }
};

// The engines' shape formula for C_loc (SPEC §16.1, §16.4) is this over T:
// Mamba2's I + 2 * G_ext * N with G_ext = T in case B (the groups extended
// to T ranks), else G; 2 * Hk * dk + Hv * dv; 3 * H * Dh; I.
z3::expr engines_conv_channels(StateFamily f, const z3::expr& T, const std::vector<z3::expr>& v) {
  switch (f) {
    case StateFamily::Mamba2: return v[0] * v[1] + 2 * z3::ite(state::case_b(f, T, v), T, v[2]) * v[3];
    case StateFamily::Gdn: return 2 * v[0] * v[1] + v[2] * v[3];
    case StateFamily::Kda: return 3 * v[0] * v[1];
    case StateFamily::Mamba1: break;
  }
  return v[0];
}

// E, as SPEC §16.0's table gives it: P_h * N, dv * dk, Dh^2, N.
z3::expr elements_per_head(StateFamily f, const std::vector<z3::expr>& v) {
  switch (f) {
    case StateFamily::Mamba2: return v[1] * v[3];
    case StateFamily::Gdn: return v[3] * v[1];
    case StateFamily::Kda: return v[1] * v[1];
    case StateFamily::Mamba1: break;
  }
  return v[1];
}

}  // namespace

std::vector<Goal> state_shards_partition_each_segment(const Encoding& e) {
  std::vector<Goal> out;
  for (const StateFamily f : kStateFamilies) {
    Goals g(e);
    const SideSetting s(g, f);
    const OperationTerm next = e.segments(f, s.r + 1, s.T, s.dims);
    const z3::expr shape = s.fact(g);
    z3::expr own = s.held.outcome.ok && s.held.outcome.value[0] == static_cast<int>(s.count);
    z3::expr first = e.ctx().bool_val(true), abut = next.outcome.ok, last = e.ctx().bool_val(true);
    for (std::size_t i = 0; i < s.count; ++i) {
      const StateSegmentTerms& seg = s.side.segments[i];
      const std::vector<z3::expr> x = s.range(i), y = next.element(e.num(static_cast<long long>(i)));
      // Replicated segments are ReplicatedSegmentsAreHeldWhole's; the SSM heads never are.
      const z3::expr sharded = !seg.replicated;
      own = own && z3::implies(sharded, x[4] == 0 && x[1] == s.r * seg.width && x[2] - x[1] == seg.width &&
                                            s.T * seg.width == seg.full);
      first = first && z3::implies(sharded, x[1] == 0);
      abut = abut && z3::implies(sharded, x[2] == y[1]);
      last = last && z3::implies(sharded, x[2] == seg.full);
    }
    const std::vector<ShownCall> calls = {s.segments_call(s.r)};
    s.simplify(g.add("rank r holds [r * W_s / T, + W_s / T) of each sharded segment and of the SSM heads, T shares "
                     "making W_s" + family(f), s.loaded, own, calls), shape);
    s.simplify(g.add("rank 0's share of each starts at 0" + family(f), s.loaded && s.r == 0, first, calls), shape);
    s.simplify(g.add("rank r's share of each ends where rank r + 1's starts" + family(f), s.loaded && s.r + 1 < s.T,
                     abut, {s.segments_call(s.r), s.segments_call(s.r + 1)}),
               shape);
    s.simplify(g.add("rank T - 1's share of each ends at W_s" + family(f), s.loaded && s.r == s.T - 1, last, calls),
               shape);
    for (Goal& goal : g.take()) out.push_back(std::move(goal));
  }
  return out;
}

std::vector<Goal> replicated_segments_are_held_whole(const Encoding& e) {
  std::vector<Goal> out;
  for (const StateFamily f : kStateFamilies) {
    Goals g(e);
    const SideSetting s(g, f);
    const z3::expr shape = s.fact(g);
    z3::expr holds = s.held.outcome.ok;
    for (std::size_t i = 0; i < s.side.conv_count(); ++i) {
      const std::vector<z3::expr> x = s.range(i);
      const z3::expr spec = state::replicated_by_spec(f, i, s.T, s.dims);
      // Case B: B and C are [0, N) on every rank, N = W_s; nothing else is replicated.
      holds = holds && x[4] == z3::ite(spec, e.num(1), e.num(0)) && s.side.segments[i].replicated == spec;
      if (f == StateFamily::Mamba2 && i > 0) {
        holds = holds && z3::implies(spec, x[1] == 0 && x[2] == s.dims[3] && s.side.segments[i].full == s.dims[3]);
      }
    }
    s.simplify(g.add("in case B (Mamba2, G == 1 < T) every rank holds B and C whole, [0, N); no other segment is "
                     "replicated" + family(f), s.loaded, holds, {s.segments_call(s.r)}),
               shape);
    for (Goal& goal : g.take()) out.push_back(std::move(goal));
  }
  return out;
}

std::vector<Goal> local_segments_tile_the_conv_state(const Encoding& e) {
  std::vector<Goal> out;
  for (const StateFamily f : kStateFamilies) {
    Goals g(e);
    const SideSetting s(g, f);
    const z3::expr L = g.integer("L"), e_conv = g.integer("e_conv"), e_ssm = g.integer("e_ssm");
    const z3::expr domain = s.loaded && L >= 1 && e_conv >= 1 && e_ssm >= 1;
    const OutcomeTerm shape = e.state_shape(f, s.T, s.dims);
    std::vector<z3::expr> shape_args = {s.T};
    shape_args.insert(shape_args.end(), s.dims.begin(), s.dims.end());
    const std::vector<ShownCall> calls = {s.segments_call(s.r), {state_operation_names(f)[0], shape_args}};
    const z3::expr fact = s.fact(g);
    // The conv segments abut from local unit 0 and end at C_loc.
    z3::expr tiles = s.held.outcome.ok && shape.ok && s.range(0)[3] == 0;
    z3::expr end = e.num(0);
    for (std::size_t i = 0; i < s.side.conv_count(); ++i) {
      const std::vector<z3::expr> x = s.range(i);
      tiles = tiles && x[3] == end;
      end = x[3] + x[2] - x[1];
    }
    const StateSegmentTerms& ssm = s.side.ssm();
    tiles = tiles && shape.value[0] == end && shape.value[1] == ssm.width && s.T * shape.value[1] == ssm.full &&
            shape.value[2] == elements_per_head(f, s.dims);
    s.simplify(g.add("the local conv segments abut from local unit 0 and end at C_loc; the SSM state is H_s / T heads "
                     "of E" + family(f), domain, tiles, calls),
               fact);
    // C_loc is the engines' formula: T * C_loc is its numerator.
    const z3::expr channels = engines_conv_channels(f, s.T, s.dims);
    Goal& engines = g.add("C_loc is the engines' shape formula" + family(f), domain,
                          shape.ok && shape.value[0] == floor_div(channels, s.T), calls);
    s.simplify(engines, fact);
    engines.use(quotient_law(e.ctx()), {channels, s.T, s.side.c_loc});
    // The state's bytes, as vLLM's ssm_sizes and SGLang's item lengths count
    // them: every conv layout puts the first byte at 0 and the last at
    // C_loc * L * e_conv - 1, the SSM state's last at H_loc * E * e_ssm - 1.
    const std::size_t last = s.side.conv_count() - 1;
    z3::expr spans = e.ctx().bool_val(true);
    for (const ConvOrder order : kConvOrders) {
      for (const StateContainer container : {StateContainer::VllmPage, StateContainer::SglangPool}) {
        const StateBytesTerms bytes{&s.side, order, container, L, e_conv, e_ssm};
        spans = spans && bytes.conv_byte_at(0, e.num(0), e.num(0), e.num(0)) == 0 &&
                bytes.conv_byte_at(last, s.side.segments[last].width - 1, L - 1, e_conv - 1) == bytes.conv_bytes() - 1 &&
                bytes.conv_bytes() == shape.value[0] * L * e_conv &&
                bytes.ssm_byte_at(e.num(0), e.num(0), e.num(0)) == 0 &&
                bytes.ssm_byte_at(ssm.width - 1, s.side.head_elements - 1, e_ssm - 1) == bytes.ssm_bytes() - 1 &&
                bytes.ssm_bytes() == shape.value[1] * shape.value[2] * e_ssm &&
                bytes.ssm_offset() == (container == StateContainer::VllmPage ? bytes.conv_bytes() : e.num(0));
      }
    }
    s.simplify(g.add("every conv layout spans C_loc * L * e_conv bytes from 0, the SSM state H_loc * E * e_ssm, after "
                     "the conv state in a vLLM page" + family(f), domain, spans, calls),
               fact);
    for (Goal& goal : g.take()) out.push_back(std::move(goal));
  }
  return out;
}

std::vector<Goal> heads_find_their_group_on_their_rank(const Encoding& e) {
  std::vector<Goal> out;
  for (const StateFamily f : {StateFamily::Mamba2, StateFamily::Gdn}) {
    Goals g(e);
    const SideSetting s(g, f);
    const z3::expr j = g.integer("j");  // a local head
    const bool mamba2 = f == StateFamily::Mamba2;
    // Mamba2: head h uses group h // (H / G) of B, N channels a group; GDN:
    // value head m uses key head m // (Hv / Hk) of k, dk channels a key head.
    const z3::expr groups = mamba2 ? s.dims[2] : s.dims[0], heads = mamba2 ? s.dims[0] : s.dims[2];
    const z3::expr group_width = mamba2 ? s.dims[3] : s.dims[1];
    const z3::expr per_group = floor_div(heads, groups);
    const std::vector<z3::expr> held_heads = s.range(s.count - 1), group_range = s.range(1);
    const z3::expr h = held_heads[1] + j;
    const z3::expr channel = floor_div(h, per_group) * group_width;  // the group's first channel
    const z3::expr replicated = state::case_b(f, s.T, s.dims);
    // The kernels' local group: j // (H_loc / G_loc), that is j // (H / G), and 0 in case B.
    const z3::expr kernel = z3::ite(replicated, e.num(0), floor_div(j, per_group));
    const z3::expr holds = s.held.outcome.ok && group_range[1] <= channel && channel + group_width <= group_range[2] &&
                           floor_div(channel - group_range[1], group_width) == kernel;
    const z3::expr fact = s.fact(g);
    const z3::expr held = s.loaded && 0 <= j && j < s.side.ssm().width;
    const StateSegmentTerms& ssm = s.side.ssm();
    const StateSegmentTerms& group_segment = s.side.segments[1];
    const std::string claim = "local head j's " + std::string(mamba2 ? "B/C group" : "key head") +
                              " is on its rank, at local group j // (" + (mamba2 ? "H / G" : "Hv / Hk") + ")";
    // Several groups on the rank: G_loc = G / T of them, H_loc = G_loc * (H / G) heads.
    {
      Goal& goal = g.add(claim + family(f) + (mamba2 ? ", case A" : ""), held && !replicated, holds,
                         {s.segments_call(s.r)});
      s.simplify(goal, fact);
      const z3::expr g_loc = floor_div(groups, s.T);
      const z3::expr q = floor_div(j, per_group);
      goal.use(divides_law(e.ctx()), {groups, s.T});
      goal.use(divides_law(e.ctx()), {heads, groups});
      // H_loc == (H / G) * G_loc and the group segment's width == N * G_loc.
      goal.use(cancellation_law(e.ctx()), {floor_div(ssm.full, s.T), per_group, g_loc, s.T, groups, heads});
      goal.use(cancellation_law(e.ctx()),
               {floor_div(group_segment.full, s.T), group_width, g_loc, s.T, groups, group_segment.full});
      abstract_quotient(goal, j, per_group);
      goal.use(quotient_law(e.ctx()), {h, per_group, s.r * g_loc + q});
      goal.use(quotient_law(e.ctx()), {q * group_width, group_width, q});
      goal.lemmas.push_back(q + 1 <= g_loc);
      goal.abstracted.insert(goal.abstracted.end(), {g_loc, per_group});
    }
    if (mamba2) {  // case B: one group, replicated; every head's is group 0
      Goal& goal = g.add(claim + family(f) + ", case B", held && replicated, holds, {s.segments_call(s.r)});
      s.simplify(goal, fact);
      goal.lemmas.push_back(h < heads);
      goal.use(quotient_law(e.ctx()), {h, per_group, e.num(0)});
    }
    for (Goal& goal : g.take()) out.push_back(std::move(goal));
  }
  return out;
}

}  // namespace tpcheck::prove
