// SPEC §15.4: PP stage layer ranges, attention DP, and the windows, fan-in and
// plans of a TRT-LLM deployment built on them (stages.hpp).
#include "tpcheck/stages.hpp"

#include <algorithm>

#include <boost/multiprecision/integer.hpp>

#include "messages.hpp"
#include "tpcheck/instantiate.hpp"

namespace tpcheck {
namespace {

template <ModelInt Int>
using Wide = wide_t<Int>;

const char* side_name(PpSide side) { return side == PpSide::Prefill ? "prefill" : "decode"; }

// split(side) of stages.hpp: at least one stage, at most kMaxStages, every
// stage with at least one layer.
template <ModelInt Int>
std::optional<Failure> check_split(PpSide side, std::span<const Int> layers) {
  if (layers.empty()) return msg::pp_layers_empty(side_name(side));
  const auto stages = static_cast<std::int64_t>(layers.size());
  if (stages > kMaxStages) return msg::too_many_stages(side_name(side), stages, kMaxStages);
  for (std::int64_t s = 0; s < stages; ++s) {
    const Int& count = layers[static_cast<std::size_t>(s)];
    if (count < 1) return msg::stage_without_layers(side_name(side), s, count);
  }
  return std::nullopt;
}

// The stage boundaries a_0 = 0, a_1, ..., a_S = the side's layer total, of a
// checked split: stage s holds [a_s, a_{s+1}). A sum of at most kMaxStages
// counts fits the wide type.
template <ModelInt Int>
std::vector<Wide<Int>> boundaries(std::span<const Int> layers) {
  std::vector<Wide<Int>> a;
  a.reserve(layers.size() + 1);
  a.push_back(Wide<Int>(0));
  for (const Int& count : layers) a.push_back(Wide<Int>(a.back() + Wide<Int>(count)));
  return a;
}

// Both splits checked (prefill first), with their totals equal.
template <ModelInt Int>
std::optional<Failure> check_splits(std::span<const Int> prefill_layers, std::span<const Int> decode_layers) {
  if (auto bad = check_split(PpSide::Prefill, prefill_layers)) return bad;
  if (auto bad = check_split(PpSide::Decode, decode_layers)) return bad;
  Wide<Int> prefill_total = 0, decode_total = 0;
  for (const Int& c : prefill_layers) prefill_total += Wide<Int>(c);
  for (const Int& c : decode_layers) decode_total += Wide<Int>(c);
  if (prefill_total != decode_total) return msg::layer_totals_differ(prefill_total, decode_total);
  return std::nullopt;
}

// "{side} pp_stage {s} must be in [0, {S})".
template <ModelInt Int>
std::optional<Failure> check_stage(PpSide side, const Int& s, std::size_t stages) {
  if (s < 0 || s >= Int(static_cast<std::int64_t>(stages))) {
    return msg::rank_out_of_range(side == PpSide::Prefill ? "prefill pp_stage" : "decode pp_stage", s,
                                  Int(static_cast<std::int64_t>(stages)));
  }
  return std::nullopt;
}

// stages(s, other side) on boundaries: every stage u of the other side with
// a_u < b_s and b_u > a_s. Counts are positive, so the boundaries ascend: the
// first is the last u with a_u <= a_s, the end the first u with a_u >= b_s.
template <ModelInt Int>
Span<Int> overlap(const std::vector<Wide<Int>>& self, const Int& s, const std::vector<Wide<Int>>& other) {
  const auto at = static_cast<std::size_t>(s);
  const auto first = std::upper_bound(other.begin(), other.end(), self[at]) - other.begin() - 1;
  const auto end = std::lower_bound(other.begin(), other.end(), self[at + 1]) - other.begin();
  return {Int(static_cast<std::int64_t>(first)), Int(static_cast<std::int64_t>(end))};
}

// [max(a_s, a_u), min(b_s, b_u)).
template <ModelInt Int>
LayerRange<Int> shared_layers(const std::vector<Wide<Int>>& self, const Int& s, const std::vector<Wide<Int>>& other,
                              const Int& u) {
  const auto i = static_cast<std::size_t>(s), j = static_cast<std::size_t>(u);
  return {std::max(self[i], other[j]), std::min(self[i + 1], other[j + 1])};
}

// A topology with its checks passed, and what the operations derive from it.
template <ModelInt Int>
struct Checked {
  const Topology<Int>& t;
  std::vector<Wide<Int>> prefill_bounds, decode_bounds;
  Int P1, D1;  // P' and D': the TP size per DP group
  Int prefill_groups, decode_groups;
};

// topology of stages.hpp: positive sizes, heads, both splits, equal totals.
template <ModelInt Int>
Outcome<Checked<Int>> check_topology(const Topology<Int>& t) {
  if (t.P <= 0) return msg::size_not_positive("prefill tp_size", t.P);
  if (t.D <= 0) return msg::size_not_positive("decode tp_size", t.D);
  if (!t.mla && t.H <= 0) return msg::size_not_positive("total_num_kv_heads", t.H);
  if (auto bad = check_splits<Int>(t.prefill_layers, t.decode_layers)) return *bad;
  const Int one = 1;
  return Checked<Int>{t,
                      boundaries<Int>(t.prefill_layers),
                      boundaries<Int>(t.decode_layers),
                      t.adp.prefill ? one : t.P,
                      t.adp.decode ? one : t.D,
                      t.adp.prefill ? t.P : one,
                      t.adp.decode ? t.D : one};
}

// Each side can shard the heads over its TP size per DP group (an ADP rank
// holds them all, so only a side without ADP can fail).
template <ModelInt Int>
std::optional<Failure> check_sharding(const Int& P1, const Int& D1, const Int& H, bool mla) {
  const Int heads_total = mla ? Int(1) : H;
  if (!head_compatible(P1, heads_total)) return msg::heads_not_shardable(heads_total, "prefill tp_size", P1);
  if (!head_compatible(D1, heads_total)) return msg::heads_not_shardable(heads_total, "decode tp_size", D1);
  return std::nullopt;
}

// A rank of `side` (stage, TP rank) and the other side's group of a request.
template <ModelInt Int>
std::optional<Failure> check_request_rank(const Checked<Int>& k, PpSide side, const Int& stage, const Int& rank,
                                          const Int& group) {
  const bool decode = side == PpSide::Decode;
  if (auto bad = check_stage(side, stage, (decode ? k.t.decode_layers : k.t.prefill_layers).size())) return bad;
  const Int& T = decode ? k.t.D : k.t.P;
  if (rank < 0 || rank >= T) return msg::rank_out_of_range(decode ? "decode_tp_rank" : "prefill_tp_rank", rank, T);
  const Int& groups = decode ? k.prefill_groups : k.decode_groups;
  if (group < 0 || group >= groups) return msg::rank_out_of_range(decode ? "prefill dp_group" : "decode dp_group", group, groups);
  return std::nullopt;
}

// stage * T + group * T' + rank, each stage's ranks [stage * T, stage * T + T).
template <ModelInt Int>
Wide<Int> global_rank(const Int& stage, const Int& T, const Int& group, const Int& per_group, const Int& rank) {
  return Wide<Int>(Wide<Int>(stage) * Wide<Int>(T) + Wide<Int>(group) * Wide<Int>(per_group) + Wide<Int>(rank));
}

// The global ranks of a window of TP ranks inside one group, one span per
// stage of a range: what stage_window_spans and stage_served_spans give.
template <ModelInt Int>
std::vector<WideSpan<Int>> spans_over_stages(const Span<Int>& stages, const Span<Int>& window, const Int& T,
                                             const Int& group, const Int& per_group) {
  std::vector<WideSpan<Int>> spans;
  spans.reserve(static_cast<std::size_t>(stages.end - stages.first));
  for (Int u = stages.first; u < stages.end; ++u) {
    spans.push_back({global_rank(u, T, group, per_group, window.first), global_rank(u, T, group, per_group, window.end)});
  }
  return spans;
}

// The ranks of such spans, listed: what stage_window and stage_served give.
template <ModelInt Int>
Outcome<std::vector<Wide<Int>>> listed(const Outcome<std::vector<WideSpan<Int>>>& spans, const char* what,
                                       const Int& rank) {
  if (!spans.ok()) return spans.failure();
  Wide<Int> count = 0;
  for (const WideSpan<Int>& span : spans.value()) count += span.end - span.first;
  if (count > Wide<Int>(kMaxListed)) return msg::too_long_to_list(what, rank, count, kMaxListed);
  std::vector<Wide<Int>> ranks;
  ranks.reserve(static_cast<std::size_t>(count));
  for (const WideSpan<Int>& span : spans.value()) {
    for (Wide<Int> r = span.first; r < span.end; ++r) ranks.push_back(r);
  }
  return ranks;
}

}  // namespace

template <ModelInt Int>
Outcome<LayerRange<Int>> stage_layer_range(PpSide side, const Int& s, std::span<const Int> layers) {
  if (auto bad = check_split(side, layers)) return *bad;
  if (auto bad = check_stage(side, s, layers.size())) return *bad;
  const std::vector<Wide<Int>> a = boundaries(layers);
  const auto at = static_cast<std::size_t>(s);
  return LayerRange<Int>{a[at], a[at + 1]};
}

template <ModelInt Int>
Outcome<Span<Int>> overlapping_stages(PpSide side, const Int& s, std::span<const Int> prefill_layers,
                                      std::span<const Int> decode_layers) {
  if (auto bad = check_splits(prefill_layers, decode_layers)) return *bad;
  const bool prefill = side == PpSide::Prefill;
  if (auto bad = check_stage(side, s, (prefill ? prefill_layers : decode_layers).size())) return *bad;
  const std::vector<Wide<Int>> a = boundaries(prefill_layers), b = boundaries(decode_layers);
  return prefill ? overlap<Int>(a, s, b) : overlap<Int>(b, s, a);
}

namespace {

// The other side's global ranks that rank (stage, rank) of `side` lists for
// the request of the other side's group: its window over the sizes per group,
// on every stage of the other side its stage overlaps. Decode ranks list the
// prefill ranks they ask, prefill ranks the decode ranks they serve.
template <ModelInt Int>
Outcome<std::vector<WideSpan<Int>>> request_spans(PpSide side, const Int& stage, const Int& rank, const Int& group,
                                                  const Topology<Int>& t) {
  const Outcome<Checked<Int>> checked = check_topology(t);
  if (!checked.ok()) return checked.failure();
  const Checked<Int>& k = checked.value();
  if (auto bad = check_request_rank(k, side, stage, rank, group)) return *bad;
  const bool decode = side == PpSide::Decode;
  const Int &self_per_group = decode ? k.D1 : k.P1, &other_per_group = decode ? k.P1 : k.D1;
  const Outcome<Span<Int>> window = window_span(floor_mod<Int>(rank, self_per_group), self_per_group, other_per_group);
  if (!window.ok()) return window.failure();
  const Span<Int> stages =
      decode ? overlap<Int>(k.decode_bounds, stage, k.prefill_bounds) : overlap<Int>(k.prefill_bounds, stage, k.decode_bounds);
  return spans_over_stages(stages, window.value(), decode ? t.P : t.D, group, other_per_group);
}

}  // namespace

template <ModelInt Int>
Outcome<std::vector<WideSpan<Int>>> stage_window_spans(const Int& s, const Int& d, const Int& c,
                                                       const Topology<Int>& t) {
  return request_spans(PpSide::Decode, s, d, c, t);
}

template <ModelInt Int>
Outcome<std::vector<wide_t<Int>>> stage_window(const Int& s, const Int& d, const Int& c, const Topology<Int>& t) {
  return listed(stage_window_spans(s, d, c, t), "stage window of decode_tp_rank ", d);
}

template <ModelInt Int>
Outcome<std::vector<WideSpan<Int>>> stage_served_spans(const Int& u, const Int& p, const Int& g,
                                                       const Topology<Int>& t) {
  return request_spans(PpSide::Prefill, u, p, g, t);
}

template <ModelInt Int>
Outcome<std::vector<wide_t<Int>>> stage_served(const Int& u, const Int& p, const Int& g, const Topology<Int>& t) {
  return listed(stage_served_spans(u, p, g, t), "stage fan-in of prefill_tp_rank ", p);
}

namespace {

// stage_plan's checks, in its order, and what listing it reads: the checked
// topology, the prefill stages it spans and the copies per stage.
template <ModelInt Int>
struct StagePlanShape {
  Checked<Int> k;
  Span<Int> stages;
  Int per_stage;
  wide_t<Int> count;
};

template <ModelInt Int>
Outcome<StagePlanShape<Int>> stage_plan_shape(const Int& s, const Int& d, const Int& c, const Topology<Int>& t) {
  const Outcome<Checked<Int>> checked = check_topology(t);
  if (!checked.ok()) return checked.failure();
  const Checked<Int>& k = checked.value();
  if (auto bad = check_request_rank(k, PpSide::Decode, s, d, c)) return *bad;
  if (auto bad = check_sharding(k.P1, k.D1, t.H, t.mla)) return *bad;
  const Span<Int> stages = overlap<Int>(k.decode_bounds, s, k.prefill_bounds);
  const Outcome<Int> per_stage = plan_copy_count(floor_mod<Int>(d, k.D1), k.P1, k.D1, t.H, t.mla);
  if (!per_stage.ok()) return per_stage.failure();
  const wide_t<Int> count = wide_t<Int>(stages.end - stages.first) * wide_t<Int>(per_stage.value());
  if (count > wide_t<Int>(kMaxListed)) return msg::too_long_to_list("stage plan of decode_tp_rank ", d, count, kMaxListed);
  return StagePlanShape<Int>{k, stages, per_stage.value(), count};
}

}  // namespace

template <ModelInt Int>
Outcome<wide_t<Int>> stage_plan_copy_count(const Int& s, const Int& d, const Int& c, const Topology<Int>& t) {
  const Outcome<StagePlanShape<Int>> shape = stage_plan_shape(s, d, c, t);
  if (!shape.ok()) return shape.failure();
  return shape.value().count;
}

template <ModelInt Int>
std::optional<Failure> stage_plan_range_into(std::vector<StageCopy<Int>>& copies, const Int& s, const Int& d,
                                             const Int& c, const Topology<Int>& t, const wide_t<Int>& first,
                                             const wide_t<Int>& count) {
  copies.clear();
  const Outcome<StagePlanShape<Int>> shaped = stage_plan_shape(s, d, c, t);
  if (!shaped.ok()) return shaped.failure();
  const StagePlanShape<Int>& shape = shaped.value();
  const wide_t<Int> end = std::min(shape.count, wide_t<Int>(first + count));
  if (first >= end) return std::nullopt;
  copies.reserve(static_cast<std::size_t>(end - first));
  const wide_t<Int> n = shape.per_stage;  // positive: the plan lists something
  thread_local Plan<Int> tp;
  // Copy i is copy i mod n of the TP plan in stage stages.first + i / n: the
  // stages the range meets, each from its own first copy in the range.
  for (wide_t<Int> at = first; at < end;) {
    const Int u = Int(shape.stages.first + Int(at / n));
    const Int from = Int(at % n);
    const Int take = Int(std::min(wide_t<Int>(n - from), wide_t<Int>(end - at)));
    if (auto bad = plan_range_into(tp, floor_mod<Int>(d, shape.k.D1), shape.k.P1, shape.k.D1, t.H, t.mla, from, take)) {
      return *bad;
    }
    const LayerRange<Int> layers = shared_layers<Int>(shape.k.decode_bounds, s, shape.k.prefill_bounds, u);
    for (const Copy<Int>& copy : tp) copies.push_back({global_rank(u, t.P, c, shape.k.P1, copy.p), copy.lo, copy.hi, layers});
    at += wide_t<Int>(take);
  }
  return std::nullopt;
}

template <ModelInt Int>
Outcome<std::vector<StageCopy<Int>>> stage_plan(const Int& s, const Int& d, const Int& c, const Topology<Int>& t) {
  std::vector<StageCopy<Int>> copies;
  if (auto bad = stage_plan_range_into(copies, s, d, c, t, wide_t<Int>(0), wide_t<Int>(kMaxListed))) return *bad;
  return copies;
}

namespace {

// The checks duplicate_head_factors and whole_block_copy_allowed share, and
// the TP sizes per DP group they give.
template <ModelInt Int>
Outcome<std::pair<Int, Int>> groups_that_load(const Int& P, const Int& D, const Int& H, bool mla, AttentionDp adp) {
  if (P <= 0) return msg::size_not_positive("prefill tp_size", P);
  if (D <= 0) return msg::size_not_positive("decode tp_size", D);
  if (!mla && H <= 0) return msg::size_not_positive("total_num_kv_heads", H);
  const Int P1 = adp.prefill ? Int(1) : P, D1 = adp.decode ? Int(1) : D;
  if (auto bad = check_sharding(P1, D1, H, mla)) return *bad;
  return std::pair<Int, Int>{P1, D1};
}

// kv_heads_per_rank * T' of a side that shards the heads over T' ranks:
// ceil(H / T') * T', which is max(H, T') when T' and H divide one another
// (MLA: one latent head per rank, so T').
template <ModelInt Int>
Int replicated_heads(const Int& per_group, const Int& H, bool mla) {
  return mla ? per_group : std::max(H, per_group);
}

// n = max(1, H // T'): the heads a rank holds (1 under MLA).
template <ModelInt Int>
Int heads_per_rank(const Int& per_group, const Int& H, bool mla) {
  return mla ? Int(1) : std::max(Int(1), floor_div<Int>(H, per_group));
}

}  // namespace

template <ModelInt Int>
Outcome<DuplicateHeadFactors<Int>> duplicate_head_factors(const Int& P, const Int& D, const Int& H, bool mla,
                                                          AttentionDp adp) {
  const Outcome<std::pair<Int, Int>> groups = groups_that_load(P, D, H, mla, adp);
  if (!groups.ok()) return groups.failure();
  const Int prefill = replicated_heads(groups.value().first, H, mla);
  const Int decode = replicated_heads(groups.value().second, H, mla);
  return DuplicateHeadFactors<Int>{std::max(Int(1), floor_div<Int>(prefill, decode)),
                                   std::max(Int(1), floor_div<Int>(decode, prefill))};
}

template <ModelInt Int>
Outcome<bool> whole_block_copy_allowed(const Int& P, const Int& D, const Int& H, bool mla, AttentionDp adp) {
  const Outcome<std::pair<Int, Int>> groups = groups_that_load(P, D, H, mla, adp);
  if (!groups.ok()) return groups.failure();
  return heads_per_rank(groups.value().first, H, mla) == heads_per_rank(groups.value().second, H, mla);
}

template <ModelInt Int>
Outcome<Span<Int>> sglang_target_ranks(const Int& d, const Int& P, const Int& D) {
  if (P <= 0) return msg::size_not_positive("prefill tp_size", P);
  if (D <= 0) return msg::size_not_positive("decode tp_size", D);
  if (d < 0 || d >= D) return msg::rank_out_of_range("decode_tp_rank", d, D);
  if (D >= P) {
    const Int target = floor_div<Int>(d, floor_div<Int>(D, P));
    return Span<Int>{target, Int(target + 1)};
  }
  const Int k = floor_div<Int>(P, D);  // d < D, so d * k + k <= D * k <= P: no overflow
  const Int first = d * k;
  return Span<Int>{first, Int(first + k)};
}

// ---- codes ------------------------------------------------------------------------

template <ModelInt Int>
std::vector<Int> split_of_code(const Int& code) {
  if (code < 0) return {code};
  if (code == 0) return {};
  // The bits below the leading one, most significant first: 0 a layer, 1 the
  // end of a stage.
  const auto bit = [&](unsigned i) {
    if constexpr (std::same_as<Int, BigInt>) {
      return boost::multiprecision::bit_test(code, i);
    } else {
      return ((static_cast<std::uint64_t>(code) >> i) & 1u) != 0;
    }
  };
  unsigned top = 0;
  if constexpr (std::same_as<Int, BigInt>) {
    top = static_cast<unsigned>(boost::multiprecision::msb(code));
  } else {
    while ((static_cast<std::uint64_t>(code) >> top) > 1) ++top;
  }
  std::vector<Int> counts = {Int(0)};
  for (unsigned i = top; i-- > 0;) {
    if (bit(i)) {
      counts.push_back(Int(0));
    } else {
      ++counts.back();
    }
  }
  return counts;
}

BigInt code_of_split(std::span<const BigInt> layers) {
  if (layers.empty()) return 0;
  if (layers.size() == 1 && layers.front() < 0) return layers.front();
  BigInt code = 1;
  for (std::size_t s = 0; s < layers.size(); ++s) {
    if (s != 0) code = (code << 1) + 1;
    code <<= static_cast<unsigned>(layers[s]);
  }
  return code;
}

#define TPCHECK_STAGES(Int)                                                                                          \
  template Outcome<LayerRange<Int>> stage_layer_range<Int>(PpSide, const Int&, std::span<const Int>);                \
  template Outcome<Span<Int>> overlapping_stages<Int>(PpSide, const Int&, std::span<const Int>, std::span<const Int>); \
  template Outcome<std::vector<wide_t<Int>>> stage_window<Int>(const Int&, const Int&, const Int&, const Topology<Int>&); \
  template Outcome<std::vector<WideSpan<Int>>> stage_window_spans<Int>(const Int&, const Int&, const Int&,             \
                                                                       const Topology<Int>&);                         \
  template Outcome<std::vector<wide_t<Int>>> stage_served<Int>(const Int&, const Int&, const Int&, const Topology<Int>&); \
  template Outcome<std::vector<WideSpan<Int>>> stage_served_spans<Int>(const Int&, const Int&, const Int&,             \
                                                                       const Topology<Int>&);                         \
  template Outcome<std::vector<StageCopy<Int>>> stage_plan<Int>(const Int&, const Int&, const Int&,                  \
                                                                const Topology<Int>&);                               \
  template Outcome<wide_t<Int>> stage_plan_copy_count<Int>(const Int&, const Int&, const Int&, const Topology<Int>&); \
  template std::optional<Failure> stage_plan_range_into<Int>(std::vector<StageCopy<Int>>&, const Int&, const Int&,    \
                                                             const Int&, const Topology<Int>&, const wide_t<Int>&,     \
                                                             const wide_t<Int>&);                                     \
  template Outcome<DuplicateHeadFactors<Int>> duplicate_head_factors<Int>(const Int&, const Int&, const Int&, bool,   \
                                                                          AttentionDp);                              \
  template Outcome<bool> whole_block_copy_allowed<Int>(const Int&, const Int&, const Int&, bool, AttentionDp);       \
  template Outcome<Span<Int>> sglang_target_ranks<Int>(const Int&, const Int&, const Int&);                          \
  template std::vector<Int> split_of_code<Int>(const Int&);
TPCHECK_INSTANTIATE_MODEL(TPCHECK_STAGES)

}  // namespace tpcheck
