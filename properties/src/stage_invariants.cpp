// SPEC §15.4 on a TRT-LLM deployment: pipeline stages that split the layers
// differently on each side, attention DP, and the whole-block copy guard; and
// §11 for the connectors that run sizings they cannot serve. Each check, and
// its declaration in the registry right after it.
//
// A stage split is carried as one value, its code (tpcheck/stages.hpp); the
// checks read it back with split_of_code and state the SPEC with their own
// arithmetic: the boundaries a_s, the overlaps, the heads of a rank.
#include <algorithm>
#include <vector>

#include "declare.hpp"
#include "support.hpp"
#include "tpcheck/deployment.hpp"
#include "tpcheck/instantiate.hpp"
#include "tpcheck/stages.hpp"

TPCHECK_DECLARATIONS(stage_invariants)

namespace tpcheck::inv {
using namespace declare;
namespace {

template <ModelInt Int>
using Wide = wide_t<Int>;

// A side's layer counts and boundaries a_0 = 0 ... a_S, as the SPEC writes them.
template <ModelInt Int>
struct SideLayers {
  std::vector<Int> counts;
  std::vector<Wide<Int>> a;
  std::int64_t stages() const { return static_cast<std::int64_t>(counts.size()); }
};

template <ModelInt Int>
SideLayers<Int> side_layers(const Int& code) {
  SideLayers<Int> s{split_of_code(code), {Wide<Int>(0)}};
  for (const Int& c : s.counts) s.a.push_back(Wide<Int>(s.a.back() + Wide<Int>(c)));
  return s;
}

template <ModelInt Int>
bool valid_split(const SideLayers<Int>& s) {
  return !s.counts.empty() && s.stages() <= kMaxStages &&
         std::all_of(s.counts.begin(), s.counts.end(), [](const Int& c) { return c >= 1; });
}

// Two valid splits holding the same layers, or the reason they are not.
template <ModelInt Int>
const char* not_a_pair(const SideLayers<Int>& prefill, const SideLayers<Int>& decode) {
  if (!valid_split(prefill) || !valid_split(decode)) return "not a valid stage split";
  if (prefill.a.back() != decode.a.back()) return "the sides hold different layers";
  return nullptr;
}

template <ModelInt Int>
std::string split_text(const SideLayers<Int>& s) {
  return render(s.counts);
}

template <ModelInt Int>
std::string range_text(const Wide<Int>& first, const Wide<Int>& end) {
  return "[" + render(first) + ", " + render(end) + ")";
}

// How many stages of the other side stage s of `side` overlaps (0 when the splits are no pair).
template <class Int>
std::int64_t overlapped(PpSide side, const Int& s, const Int& prefill_code, const Int& decode_code) {
  const std::vector<Int> prefill = split_of_code(prefill_code), decode = split_of_code(decode_code);
  const Outcome<Span<Int>> range = overlapping_stages<Int>(side, s, prefill, decode);
  return range.ok() ? static_cast<std::int64_t>(range.value().end - range.value().first) : 0;
}

// The kinds of a pair of splits.
template <class Int>
std::int64_t stage_count(const Int& code) {
  return static_cast<std::int64_t>(split_of_code(code).size());
}
template <class Int>
bool uneven(const Int& code) {
  const std::vector<Int> counts = split_of_code(code);
  return std::adjacent_find(counts.begin(), counts.end(), [](const Int& a, const Int& b) { return a != b; }) !=
         counts.end();
}
// Some stage of either side overlaps `at_least` stages of the other or more
// (false when the splits are no pair). Stage s overlaps one stage of the
// other side and one more for each of the other side's boundaries strictly
// inside (a_s, a_s+1). Both splits are read once: a split of a code past
// int64 has hundreds of stages.
template <ModelInt Int>
bool spans(const Int& prefill_code, const Int& decode_code, std::int64_t at_least) {
  const SideLayers<Int> prefill = side_layers(prefill_code), decode = side_layers(decode_code);
  if (not_a_pair(prefill, decode)) return false;
  for (const bool from_prefill : {true, false}) {
    const std::vector<Wide<Int>>& self = from_prefill ? prefill.a : decode.a;
    const std::vector<Wide<Int>>& other = from_prefill ? decode.a : prefill.a;
    for (std::size_t s = 0; s + 1 < self.size(); ++s) {
      const auto inside = std::lower_bound(other.begin(), other.end(), self[s + 1]) -
                          std::upper_bound(other.begin(), other.end(), self[s]);
      if (1 + inside >= at_least) return true;
    }
  }
  return false;
}

}  // namespace

// §15.4.1: for every stage s of either side, stages(s, other side) is a
// contiguous range of the other side's stages whose layers, restricted to
// [a_s, b_s), partition it: pieces in order, none empty, the first starting
// at a_s, each where the last ended, the last ending at b_s (so their counts
// sum to c_s); the stages just outside the range do not overlap s; and
// stage_layer_range gives [a_s, b_s).
template <ModelInt Int>
Verdict stage_overlaps_partition_the_stages_layers(const Int& prefill_code, const Int& decode_code) {
  const SideLayers<Int> prefill = side_layers(prefill_code), decode = side_layers(decode_code);
  if (const char* why = not_a_pair(prefill, decode)) return vacuous(why);
  const auto what = [&] { return "prefill " + split_text(prefill) + ", decode " + split_text(decode); };
  for (const PpSide side : {PpSide::Prefill, PpSide::Decode}) {
    const bool is_prefill = side == PpSide::Prefill;
    const SideLayers<Int>& self = is_prefill ? prefill : decode;
    const SideLayers<Int>& other = is_prefill ? decode : prefill;
    const PpSide other_side = is_prefill ? PpSide::Decode : PpSide::Prefill;
    const char* name = is_prefill ? "prefill" : "decode";
    const Verdict v = walk_range(Int(0), Int(self.stages()), [&](const Int& s) {
      const auto at = static_cast<std::size_t>(s);
      const Outcome<LayerRange<Int>> layers = stage_layer_range(side, s, std::span<const Int>(self.counts));
      if (!layers.ok()) {
        return failed_on_valid("stage_layer_range(" + std::string(name) + ", " + render(s) + ")", layers.failure());
      }
      if (layers.value() != LayerRange<Int>{self.a[at], self.a[at + 1]}) {
        return violated(what() + ": " + name + " stage " + render(s) + " holds layers " +
                        range_text<Int>(layers.value().first, layers.value().end) + ", its counts say " +
                        range_text<Int>(self.a[at], self.a[at + 1]));
      }
      const Outcome<Span<Int>> range =
          overlapping_stages(side, s, std::span<const Int>(prefill.counts), std::span<const Int>(decode.counts));
      if (!range.ok()) {
        return failed_on_valid("overlapping_stages(" + std::string(name) + ", " + render(s) + ")", range.failure());
      }
      const Span<Int>& u = range.value();
      const auto said = [&] { return what() + ": " + name + " stage " + render(s) + " overlaps " + render(u); };
      if (u.first < 0 || u.end > Int(other.stages()) || u.first >= u.end) return violated(said() + ", not a range of stages");
      // The pieces are a list too (a stage may overlap hundreds): walked, the
      // first starting at a_s, each walked one after its predecessor starting
      // where that one ended, the last ending at b_s.
      Wide<Int> cursor = self.a[at];
      Int next = u.first;  // the piece that starts at the cursor
      const Verdict pieces = walk_range(u.first, u.end, [&](const Int& k) {
        const auto j = static_cast<std::size_t>(k);
        const Outcome<LayerRange<Int>> theirs = stage_layer_range(other_side, k, std::span<const Int>(other.counts));
        if (!theirs.ok() || theirs.value() != LayerRange<Int>{other.a[j], other.a[j + 1]}) {
          return violated(said() + ": stage " + render(k) + "'s layers are not its counts'");
        }
        const Wide<Int> first = std::max(self.a[at], other.a[j]), end = std::min(self.a[at + 1], other.a[j + 1]);
        if (first >= end) return violated(said() + ", but its stage " + render(k) + " shares no layer with it");
        if (k == next && first != cursor) {
          return violated(said() + (first > cursor ? ": a gap" : ": an overlap") + " at layer " + render(cursor));
        }
        cursor = end;
        next = k + 1;
        return holds();
      });
      if (!pieces.held()) return pieces;
      if (cursor != self.a[at + 1]) return violated(said() + ": its layers end at " + render(cursor) + ", not " + render(self.a[at + 1]));
      // The neighbours outside the range share no layer.
      if (u.first > 0 && other.a[static_cast<std::size_t>(u.first)] > self.a[at]) {
        return violated(said() + ", but stage " + render(Int(u.first - 1)) + " also overlaps it");
      }
      if (u.end < Int(other.stages()) && other.a[static_cast<std::size_t>(u.end)] < self.a[at + 1]) {
        return violated(said() + ", but stage " + render(u.end) + " also overlaps it");
      }
      return holds();
    });
    if (!v.held()) return v;
  }
  return holds();
}

TPCHECK_INVARIANT(StageOverlapsPartitionTheStagesLayers, "§15.4", PlanExactness,
    domain(stage_split("prefill_layers", 6), stage_split("decode_layers", 6, Splits::Valid, "prefill_layers")),
    kinds(kind("one stage a side", [](const auto& p, const auto& d) { return stage_count(p) == 1 && stage_count(d) == 1; }),
          kind("more prefill stages", [](const auto& p, const auto& d) { return stage_count(p) > stage_count(d); }),
          kind("more decode stages", [](const auto& p, const auto& d) { return stage_count(p) < stage_count(d); }),
          kind("as many stages, split otherwise", [](const auto& p, const auto& d) {
            return stage_count(p) == stage_count(d) && p != d;
          }),
          kind("a stage spans three of the other side's", [](const auto& p, const auto& d) { return spans(p, d, 3); }),
          kind("an uneven split", [](const auto& p, const auto& d) { return uneven(p) || uneven(d); })),
    min_non_vacuous(1.0).size_cap(kWalkedSizeCap).proof(Proof::not_provable(
        "a statement over two lists of stage layer counts of any length, not over a fixed set of integers")),
    [](const auto& prefill, const auto& decode) { return stage_overlaps_partition_the_stages_layers(prefill, decode); });

namespace {

// A request's view of a topology: the TP size per DP group of each side.
template <ModelInt Int>
struct Groups {
  Int P1, D1;
};

template <ModelInt Int>
Groups<Int> groups_of(const Int& P, const Int& D, bool prefill_adp, bool decode_adp) {
  return {prefill_adp ? Int(1) : P, decode_adp ? Int(1) : D};
}

template <ModelInt Int>
Topology<Int> topology_of(const Int& P, const Int& D, const Int& H, bool mla, const SideLayers<Int>& prefill,
                          const SideLayers<Int>& decode, bool prefill_adp, bool decode_adp) {
  return {P, D, H, mla, prefill.counts, decode.counts, {prefill_adp, decode_adp}};
}

// "stage_window(s, d, c) of (P, D, [..], [..], adp)" for a report.
template <ModelInt Int>
std::string request_text(const char* op, const Int& s, const Int& r, const Int& group, const Topology<Int>& t) {
  return std::string(op) + "(" + render(s) + ", " + render(r) + ", " + render(group) + ") with P=" + render(t.P) +
         " D=" + render(t.D) + " prefill " + render(t.prefill_layers) + " decode " + render(t.decode_layers) +
         " adp=(" + render(t.adp.prefill) + ", " + render(t.adp.decode) + ")";
}

template <ModelInt Int>
bool contains(const std::vector<Wide<Int>>& ranks, const Wide<Int>& r) {
  return std::find(ranks.begin(), ranks.end(), r) != ranks.end();
}

template <ModelInt Int>
bool distinct(std::vector<Wide<Int>> ranks) {
  std::sort(ranks.begin(), ranks.end());
  return std::adjacent_find(ranks.begin(), ranks.end()) == ranks.end();
}

}  // namespace

// §15.4.1-2 duality across stages, for the request of prefill DP group c and
// decode DP group g: every prefill rank a decode rank of group g asks
// (stage_window) exists, lies in group c, is asked once, and serves that
// decode rank back (stage_served); every decode rank a prefill rank of group c
// serves exists, lies in group g, is served once, and asks it. So each
// prefill rank waits for exactly the requests that come.
template <ModelInt Int>
Verdict stage_windows_are_dual(const Int& P, const Int& D, bool prefill_adp, bool decode_adp, const Int& prefill_code,
                               const Int& decode_code, const Int& c, const Int& g) {
  const SideLayers<Int> prefill = side_layers(prefill_code), decode = side_layers(decode_code);
  if (const char* why = not_a_pair(prefill, decode)) return vacuous(why);
  const Groups<Int> k = groups_of(P, D, prefill_adp, decode_adp);
  if (!divisible_pair(k.P1, k.D1)) return vacuous("the TP sizes per DP group do not divide each other: no window");
  const Topology<Int> t = topology_of(P, D, Int(1), false, prefill, decode, prefill_adp, decode_adp);
  // One side of the request: its stages, TP size, its group's first TP rank
  // and size, and what each of its ranks lists (the ranks it asks or serves).
  struct RequestSide {
    const char* name;  // "prefill", "decode"
    const char* lists;  // the operation that lists the other side's ranks
    std::int64_t stages;
    Int T;
    Wide<Int> first;  // group * T'
    Int per_group;
    Int group;
    Outcome<std::vector<Wide<Int>>> (*list)(const Int&, const Int&, const Int&, const Topology<Int>&);
  };
  const RequestSide prefill_side{"prefill", "stage_served", prefill.stages(), P, Wide<Int>(c) * Wide<Int>(k.P1), k.P1,
                                 c, &stage_served<Int>};
  const RequestSide decode_side{"decode", "stage_window", decode.stages(), D, Wide<Int>(g) * Wide<Int>(k.D1), k.D1,
                                g, &stage_window<Int>};
  // Every rank of `self`'s group lists ranks of the other side's group, each
  // once, and each lists it back. The (stage, rank) pairs are walked as one
  // list, so a budgeted walk visits a few pairs, not a few ranks of each of a
  // few stages (their count, at most kMaxStages times a group of at most 16
  // ranks in this entry's domain, fits any Int).
  const auto lists_back = [&](const RequestSide& self, const RequestSide& other) {
    return walk_range(Int(0), Int(Int(self.stages) * self.per_group), [&](const Int& pair) {
      const Int stage = Int(pair / self.per_group), q = Int(pair % self.per_group);
      const Int rank = static_cast<Int>(self.first + Wide<Int>(q));
      const Outcome<std::vector<Wide<Int>>> listed = self.list(stage, rank, other.group, t);
      if (!listed.ok()) return failed_on_valid(request_text(self.lists, stage, rank, other.group, t), listed.failure());
      const auto said = [&] { return request_text(self.lists, stage, rank, other.group, t) + " = " + render(listed.value()); };
      if (listed.value().empty() || !distinct<Int>(listed.value())) return violated(said() + ": empty, or a rank twice");
      const Wide<Int> own = Wide<Int>(stage) * Wide<Int>(self.T) + Wide<Int>(rank);
      // The ranks listed are a list too: walked, each listing `own` back.
      const std::vector<Wide<Int>>& ranks = listed.value();
      return walk_range(std::int64_t{0}, static_cast<std::int64_t>(ranks.size()), [&](const std::int64_t& i) {
        const Wide<Int>& r = ranks[static_cast<std::size_t>(i)];
        const Wide<Int> their_stage = r / Wide<Int>(other.T), their_rank = r % Wide<Int>(other.T);
        if (r < 0 || their_stage >= Wide<Int>(other.stages) || their_rank < other.first ||
            their_rank >= other.first + Wide<Int>(other.per_group)) {
          return violated(said() + ": " + other.name + " rank " + render(r) + " is not a rank of " + other.name +
                          " DP group " + render(other.group));
        }
        const Int u = static_cast<Int>(their_stage), p = static_cast<Int>(their_rank);
        const Outcome<std::vector<Wide<Int>>> back = other.list(u, p, self.group, t);
        if (!back.ok() || !contains<Int>(back.value(), own)) {
          return violated(said() + ", but " + request_text(other.lists, u, p, self.group, t) + " = " + render(back) +
                          " does not list " + self.name + " rank " + render(own));
        }
        return holds();
      });
    });
  };
  const Verdict asking = lists_back(decode_side, prefill_side);
  if (!asking.held()) return asking;
  return lists_back(prefill_side, decode_side);
}

TPCHECK_INVARIANT(StageWindowsAreDualAcrossStages, "§15.4", RoundTrip,
    domain(pair("P", "D"), flag("prefill_adp"), flag("decode_adp"), stage_split("prefill_layers", 3),
           stage_split("decode_layers", 3, Splits::Valid, "prefill_layers"), dp_group("c", "P", "prefill_adp"),
           dp_group("g", "D", "decode_adp")),
    kinds(kind("prefill ADP", [](const auto&, const auto&, const auto& pa, const auto&...) { return pa != 0; }),
          kind("decode ADP", [](const auto&, const auto&, const auto&, const auto& da, const auto&...) { return da != 0; }),
          kind("P' > D'", [](const auto& P, const auto& D, const auto& pa, const auto& da, const auto&...) {
            return (pa != 0 ? 1 : P) > (da != 0 ? 1 : D);
          }),
          kind("P' < D'", [](const auto& P, const auto& D, const auto& pa, const auto& da, const auto&...) {
            return (pa != 0 ? 1 : P) < (da != 0 ? 1 : D);
          }),
          kind("a stage spans two of the other side's", [](const auto&, const auto&, const auto&, const auto&,
                                                           const auto& p, const auto& d, const auto&...) {
            return spans(p, d, 2);
          }),
          kind("a group past the first", [](const auto&, const auto&, const auto&, const auto&, const auto&, const auto&,
                                            const auto& c, const auto& g) { return c > 0 || g > 0; })),
    min_non_vacuous(0.5).size_cap(16).sweep_bound(6, 6).proof(Proof::not_provable(
        "a statement over two lists of stage layer counts of any length, not over a fixed set of integers")),
    [](const auto& P, const auto& D, const auto& pa, const auto& da, const auto& prefill, const auto& decode,
       const auto& c, const auto& g) { return stage_windows_are_dual(P, D, pa != 0, da != 0, prefill, decode, c, g); });

namespace {

// The heads a rank of a side holds: heads(t mod T', T', H), or all H under ADP.
template <ModelInt Int>
Span<Int> rank_heads(const Int& rank, const Int& per_group, const Int& heads_total) {
  return heads(floor_mod<Int>(rank, per_group), per_group, heads_total).value();
}

}  // namespace

// §15.4.1-2 plan exactness with layers, for decode rank (s, d) and the request
// of prefill DP group c: the copies of stage_plan cover d's heads on each
// layer of stage s exactly once (grouped by layer range: the ranges tile
// [a_s, b_s) in order, and within each the heads partition d's in order), and
// every source is a prefill rank of group c whose stage holds the copy's
// layers and whose heads contain the copy's heads.
template <ModelInt Int>
Verdict stage_plan_covers_layers_and_heads(const Int& P, const Int& D, bool mla, bool prefill_adp, bool decode_adp,
                                           const Int& H, const Int& prefill_code, const Int& decode_code,
                                           const Int& c, const Int& s, const Int& d) {
  const SideLayers<Int> prefill = side_layers(prefill_code), decode = side_layers(decode_code);
  if (const char* why = not_a_pair(prefill, decode)) return vacuous(why);
  const Groups<Int> k = groups_of(P, D, prefill_adp, decode_adp);
  const Int heads_total = mla ? Int(1) : H;
  if (!heads_shard(k.P1, heads_total) || !heads_shard(k.D1, heads_total)) {
    return vacuous("the heads do not shard over a side's TP size per DP group");
  }
  const Topology<Int> t = topology_of(P, D, H, mla, prefill, decode, prefill_adp, decode_adp);
  const Outcome<std::vector<StageCopy<Int>>> plan = stage_plan(s, d, c, t);
  if (!plan.ok()) return failed_on_valid(request_text("stage_plan", s, d, c, t), plan.failure());
  const std::vector<StageCopy<Int>>& copies = plan.value();
  const auto said = [&] { return request_text("stage_plan", s, d, c, t) + " = " + render(copies); };
  const Span<Int> own = rank_heads(d, k.D1, heads_total);
  const auto at = static_cast<std::size_t>(s);
  Wide<Int> layer_cursor = decode.a[at];
  Int head_cursor = own.first;
  for (std::size_t i = 0; i < copies.size(); ++i) {
    const StageCopy<Int>& copy = copies[i];
    const bool new_range = i == 0 || copy.layers != copies[i - 1].layers;
    if (new_range) {
      if (i > 0 && head_cursor != own.end) return violated(said() + ": layers " + render(copies[i - 1].layers) + " miss heads from " + render(head_cursor));
      if (copy.layers.first != layer_cursor || copy.layers.first >= copy.layers.end) {
        return violated(said() + ": copy " + render(copy) + " does not continue the layers at " + render(layer_cursor));
      }
      layer_cursor = copy.layers.end;
      head_cursor = own.first;
    }
    if (copy.lo != head_cursor || copy.lo >= copy.hi) {
      return violated(said() + ": copy " + render(copy) + " does not continue the heads at " + render(head_cursor));
    }
    head_cursor = copy.hi;
    // The source: a rank of prefill group c, of a stage holding the layers, holding the heads.
    const Wide<Int> u = copy.source / Wide<Int>(P), p = copy.source % Wide<Int>(P);
    const Wide<Int> group_first = Wide<Int>(c) * Wide<Int>(k.P1);
    if (copy.source < 0 || u >= Wide<Int>(prefill.stages()) || p < group_first || p >= group_first + Wide<Int>(k.P1)) {
      return violated(said() + ": copy " + render(copy) + " reads prefill rank " + render(copy.source) +
                      ", not a rank of prefill DP group " + render(c));
    }
    const auto stage = static_cast<std::size_t>(u);
    if (copy.layers.first < prefill.a[stage] || copy.layers.end > prefill.a[stage + 1]) {
      return violated(said() + ": copy " + render(copy) + " asks prefill stage " + render(u) + " (layers " +
                      range_text<Int>(prefill.a[stage], prefill.a[stage + 1]) + ") for layers it does not hold");
    }
    const Span<Int> page = rank_heads(static_cast<Int>(p), k.P1, heads_total);
    if (copy.lo < page.first || copy.hi > page.end) {
      return violated(said() + ": copy " + render(copy) + " asks prefill rank " + render(copy.source) + " (heads " +
                      render(page) + ") for heads it does not hold");
    }
  }
  if (copies.empty() || head_cursor != own.end || layer_cursor != decode.a[at + 1]) {
    return violated(said() + ": does not cover heads " + render(own) + " of layers " +
                    range_text<Int>(decode.a[at], decode.a[at + 1]));
  }
  return holds();
}

TPCHECK_INVARIANT(StagePlanCoversTheRanksLayersAndHeadsExactly, "§15.4", PlanExactness,
    domain(pair("P", "D"), flag("mla"), flag("prefill_adp"), flag("decode_adp"),
           heads_per_group("H", "P", "prefill_adp", "D", "decode_adp", HeadCounts::Compatible, "mla"),
           stage_split("prefill_layers", 3), stage_split("decode_layers", 3, Splits::Valid, "prefill_layers"),
           dp_group("c", "P", "prefill_adp"), stage("s", "decode_layers"), rank("d", "D")),
    kinds(kind("prefill ADP", [](const auto&, const auto&, const auto&, const auto& pa, const auto&...) { return pa != 0; }),
          kind("decode ADP", [](const auto&, const auto&, const auto&, const auto&, const auto& da, const auto&...) {
            return da != 0;
          }),
          kind("MLA", [](const auto&, const auto&, const auto& mla, const auto&...) { return mla != 0; }),
          kind("P' and D' do not divide each other", [](const auto& P, const auto& D, const auto&, const auto& pa,
                                                       const auto& da, const auto&...) {
            using Int = std::remove_cvref_t<decltype(P)>;
            return !divisible_pair(pa != 0 ? Int(1) : P, da != 0 ? Int(1) : D);
          }),
          kind("the stage reads two prefill stages", [](const auto&, const auto&, const auto&, const auto&, const auto&,
                                                        const auto&, const auto& p, const auto& d, const auto&,
                                                        const auto& s, const auto&) {
            return overlapped(PpSide::Decode, s, p, d) >= 2;
          }),
          kind("heads split on a side", [](const auto& P, const auto& D, const auto& mla, const auto& pa, const auto& da,
                                          const auto& H, const auto&...) {
            return mla == 0 && ((pa == 0 && P < H && P > 1) || (da == 0 && D < H && D > 1));
          })),
    min_non_vacuous(1.0).size_cap(64).sweep_bound(4, 8).proof(Proof::not_provable(
        "a statement over two lists of stage layer counts of any length, not over a fixed set of integers")),
    [](const auto& P, const auto& D, const auto& mla, const auto& pa, const auto& da, const auto& H, const auto& prefill,
       const auto& decode, const auto& c, const auto& s, const auto& d) {
      return stage_plan_covers_layers_and_heads(P, D, mla != 0, pa != 0, da != 0, H, prefill, decode, c, s, d);
    });

// §15.4.4: a connector may copy a peer's whole block only when both sides hold
// the same number of heads per rank. whole_block_copy_allowed is true exactly
// when every copy of decode rank d's plan (one stage, attention DP as given)
// is one whole block on both sides: its heads are all the source's and all d's.
template <ModelInt Int>
Verdict whole_block_copy_only_between_equal_heads_per_rank(const Int& P, const Int& D, bool mla, bool prefill_adp,
                                                           bool decode_adp, const Int& H, const Int& d) {
  const Groups<Int> k = groups_of(P, D, prefill_adp, decode_adp);
  const Int heads_total = mla ? Int(1) : H;
  if (!heads_shard(k.P1, heads_total) || !heads_shard(k.D1, heads_total) || d < 0 || d >= D) {
    return vacuous("the heads do not shard over a side's TP size per DP group");
  }
  const AttentionDp adp{prefill_adp, decode_adp};
  const Outcome<bool> allowed = whole_block_copy_allowed(P, D, H, mla, adp);
  if (!allowed.ok()) return failed_on_valid(call("whole_block_copy_allowed", P, D, H, mla), allowed.failure());
  const Topology<Int> t{P, D, H, mla, {Int(1)}, {Int(1)}, adp};
  const Outcome<std::vector<StageCopy<Int>>> plan = stage_plan(Int(0), d, Int(0), t);
  if (!plan.ok()) return failed_on_valid(request_text("stage_plan", Int(0), d, Int(0), t), plan.failure());
  const Span<Int> own = rank_heads(d, k.D1, heads_total);
  bool whole = true;
  for (const StageCopy<Int>& copy : plan.value()) {
    const Span<Int> page = rank_heads(static_cast<Int>(copy.source % Wide<Int>(P)), k.P1, heads_total);
    whole = whole && copy.lo == own.first && copy.hi == own.end && page == own;
  }
  if (whole == allowed.value()) return holds();
  return violated(call("whole_block_copy_allowed", P, D, H, mla) + " with adp=(" + render(prefill_adp) + ", " +
                  render(decode_adp) + ") = " + render(allowed.value()) + " but the plan of decode rank " + render(d) +
                  " " + render(plan.value()) + (whole ? " copies whole blocks" : " does not copy whole blocks") +
                  " (decode rank heads " + render(own) + ")");
}

TPCHECK_INVARIANT(WholeBlockCopyOnlyBetweenEqualHeadsPerRank, "§15.4", HeadAlignment,
    domain(pair("P", "D"), flag("mla"), flag("prefill_adp"), flag("decode_adp"),
           heads_per_group("H", "P", "prefill_adp", "D", "decode_adp", HeadCounts::Compatible, "mla"), rank("d", "D")),
    kinds(kind("equal heads per rank, P' != D'", [](const auto& P, const auto& D, const auto& mla, const auto& pa,
                                                    const auto& da, const auto& H, const auto&) {
            using Int = std::remove_cvref_t<decltype(P)>;
            const Int P1 = pa != 0 ? Int(1) : P, D1 = da != 0 ? Int(1) : D;
            return P1 != D1 && (mla != 0 || std::max(Int(1), floor_div<Int>(H, P1)) == std::max(Int(1), floor_div<Int>(H, D1)));
          }),
          kind("heads per rank differ", [](const auto& P, const auto& D, const auto& mla, const auto& pa, const auto& da,
                                           const auto& H, const auto&) {
            using Int = std::remove_cvref_t<decltype(P)>;
            const Int P1 = pa != 0 ? Int(1) : P, D1 = da != 0 ? Int(1) : D;
            return mla == 0 && std::max(Int(1), floor_div<Int>(H, P1)) != std::max(Int(1), floor_div<Int>(H, D1));
          }),
          kind("prefill ADP", [](const auto&, const auto&, const auto&, const auto& pa, const auto&...) { return pa != 0; }),
          kind("decode ADP", [](const auto&, const auto&, const auto&, const auto&, const auto& da, const auto&...) {
            return da != 0;
          }),
          kind("MLA", [](const auto&, const auto&, const auto& mla, const auto&...) { return mla != 0; })),
    min_non_vacuous(1.0).size_cap(kWalkedSizeCap).sweep_bound(16, 32).proof(Proof::by_z3(
        "sizings P, D, H, mla loadable per DP group, either side under attention DP or not (T' = 1 or T), 0 <= d < "
        "D: a first copy whole on both sides means n(P') == n(D'); n(P') == n(D') means one copy, whole, case by "
        "case (the flags; one head a rank on both sides, or several; never several on one side and one on the "
        "other)")),
    [](const auto& P, const auto& D, const auto& mla, const auto& pa, const auto& da, const auto& H, const auto& d) {
      return whole_block_copy_only_between_equal_heads_per_rank(P, D, mla != 0, pa != 0, da != 0, H, d);
    });

namespace {

template <ModelInt Int>
bool power_of_two(const Int& n) {
  if (n < 1) return false;
  Int v = n;
  while (floor_mod<Int>(v, Int(2)) == 0) v = floor_div<Int>(v, Int(2));
  return v == 1;
}

template <ModelInt Int>
bool loadable_over(const Int& P1, const Int& D1, const Int& H, bool mla) {
  const Int heads_total = mla ? Int(1) : H;
  return heads_shard(P1, heads_total) && heads_shard(D1, heads_total);
}

}  // namespace

// §11, §14.1, §15.3: the connectors that refuse no TP sizes, and TRT-LLM's C++
// transceiver. SGLang runs exactly the loadable sizings and serves exactly
// the divisible ones; on the others its resolver (sglang_target_ranks) sends
// some decode rank past the last prefill rank (D > P) or leaves some prefill
// rank untargeted (D < P), as the verdict says; on divisible pairs its
// targets are the windows. TRT-LLM's Python transceiver runs the sizings
// loadable per DP group and serves exactly those whose sizes per group divide
// each other. The C++ one accepts exactly the non-MLA ones loadable per DP
// group whose sizes per group are powers of two, and serves all it accepts.
template <ModelInt Int>
Verdict unrefused_sizings_are_served_exactly_when_divisible(const Int& P, const Int& D, bool mla, bool prefill_adp,
                                                             bool decode_adp, const Int& H) {
  const auto sizing = [&] {
    return "sizing (P, D, H, mla, adp) = (" + render(P) + ", " + render(D) + ", " + render(H) + ", " + render(mla) +
           ", (" + render(prefill_adp) + ", " + render(decode_adp) + "))";
  };
  const AttentionDp adp{prefill_adp, decode_adp};
  const Groups<Int> k = groups_of(P, D, prefill_adp, decode_adp);
  // SGLang (no attention DP here).
  const SizingVerdict sglang = sizing_verdict(Connector::SGLang, P, D, H, mla);
  const bool loadable = loadable_over(P, D, H, mla), divisible = divisible_pair(P, D);
  if (sglang.outcome.ok() != loadable) return violated(sizing() + (loadable ? ": sglang refuses it" : ": sglang runs it, but it does not load"));
  if (loadable && sglang.misserved.has_value() == divisible) {
    return violated(sizing() + (divisible ? ": sglang misserves a divisible pair" : ": sglang serves a pair that is not divisible"));
  }
  if (loadable) {
    bool past_last = false;
    Int targeted_end = 0;  // the resolver's targets ascend: [0, targeted_end) is every rank targeted
    const Verdict each = walk_range(Int(0), D, [&](const Int& d) {
      const Outcome<Span<Int>> t = sglang_target_ranks(d, P, D);
      if (!t.ok()) return failed_on_valid(call("sglang_target_ranks", d, P, D), t.failure());
      if (divisible && t.value() != window_span(d, D, P).value()) {
        return violated(call("sglang_target_ranks", d, P, D) + " = " + render(t.value()) + ", not the window " +
                        render(window_span(d, D, P).value()));
      }
      if (walks_every_element() && t.value().first > targeted_end) {
        return violated(call("sglang_target_ranks", d, P, D) + " = " + render(t.value()) + " skips prefill rank " +
                        render(targeted_end));
      }
      past_last = past_last || t.value().end > P;
      targeted_end = std::max(targeted_end, t.value().end);
      return holds();
    });
    if (!each.held()) return each;
    if (!divisible) {  // the walk visits the last decode rank, whose targets are the last
      const bool stall = targeted_end < P;
      const Misservice expected = past_last ? Misservice::TargetsMissingPrefillRanks : Misservice::PrefillRanksStall;
      if (past_last == stall || sglang.misserved != expected) {
        return violated(sizing() + ": sglang's targets " + (past_last ? "pass the last prefill rank" : "") +
                        (stall ? "leave the last prefill ranks untargeted" : "") + " but its verdict says otherwise");
      }
    }
  }
  // TRT-LLM's Python transceiver.
  const SizingVerdict python = sizing_verdict(Connector::TrtllmV2, P, D, H, mla, adp);
  const bool group_loadable = loadable_over(k.P1, k.D1, H, mla), group_divisible = divisible_pair(k.P1, k.D1);
  if (python.outcome.ok() != group_loadable) return violated(sizing() + ": trtllm-v2 runs what does not load, or refuses what does");
  if (group_loadable && python.misserved.has_value() == group_divisible) {
    return violated(sizing() + ": trtllm-v2 " + (group_divisible ? "misserves sizes per group that divide" : "serves sizes per group that do not divide"));
  }
  // TRT-LLM's C++ transceiver.
  const SizingVerdict cpp = sizing_verdict(Connector::Trtllm, P, D, H, mla, adp);
  const bool accepts = group_loadable && !mla && power_of_two(k.P1) && power_of_two(k.D1);
  if (cpp.outcome.ok() != accepts) {
    return violated(sizing() + (accepts ? ": trtllm rejects it: " + render(cpp.outcome) : ": trtllm accepts it"));
  }
  if (cpp.misserved || (accepts && !group_divisible)) return violated(sizing() + ": trtllm accepts a sizing it cannot serve");
  if (group_loadable && !accepts && cpp.reason != (mla ? Rejection::MlaNotCovered : Rejection::NotPowerOfTwo)) {
    return violated(sizing() + ": trtllm rejects it for another reason than " + (mla ? "MLA" : "a power of two"));
  }
  return holds();
}

TPCHECK_INVARIANT(SglangAndTrtllmServeExactlyTheDivisibleSizings, "§11", HeadAlignment,
    domain(pair("P", "D"), flag("mla"), flag("prefill_adp"), flag("decode_adp"),
           heads_per_group("H", "P", "prefill_adp", "D", "decode_adp", HeadCounts::Edges, "mla")),
    kinds(kind("sglang: decode ranks target missing prefill ranks", [](const auto& P, const auto& D, const auto&...) {
            return !divisible_pair(P, D) && D > P;
          }),
          kind("sglang: prefill ranks stall", [](const auto& P, const auto& D, const auto&...) {
            return !divisible_pair(P, D) && D < P;
          }),
          kind("trtllm: not a power of two", [](const auto& P, const auto& D, const auto& mla, const auto& pa,
                                                const auto& da, const auto&) {
            return mla == 0 && !((pa != 0 || power_of_two(P)) && (da != 0 || power_of_two(D)));
          }),
          kind("trtllm accepts under ADP", [](const auto& P, const auto& D, const auto& mla, const auto& pa,
                                             const auto& da, const auto& H) {
            using Int = std::remove_cvref_t<decltype(P)>;
            const Int P1 = pa != 0 ? Int(1) : P, D1 = da != 0 ? Int(1) : D;
            return (pa != 0 || da != 0) && mla == 0 && power_of_two(P1) && power_of_two(D1) &&
                   loadable_over(P1, D1, H, false);
          }),
          kind("trtllm-v2: sizes per group do not divide", [](const auto& P, const auto& D, const auto&, const auto& pa,
                                                             const auto& da, const auto&) {
            using Int = std::remove_cvref_t<decltype(P)>;
            return !divisible_pair(pa != 0 ? Int(1) : P, da != 0 ? Int(1) : D);
          }),
          kind("MLA", [](const auto&, const auto&, const auto& mla, const auto&...) { return mla != 0; }),
          kind("not loadable", [](const auto& P, const auto& D, const auto& mla, const auto&, const auto&, const auto& H) {
            return !loadable_over(P, D, H, mla != 0);
          })),
    min_non_vacuous(1.0).size_cap(kWalkedSizeCap).sweep_bound(32, 32).proof(Proof::not_provable(
        "whether a TP size is a power of two is an exponential, outside the linear integer arithmetic with floor "
        "division that the encodings state")),
    [](const auto& P, const auto& D, const auto& mla, const auto& pa, const auto& da, const auto& H) {
      return unrefused_sizings_are_served_exactly_when_divisible(P, D, mla != 0, pa != 0, da != 0, H);
    });

#define TPCHECK_STAGE_INVARIANTS(Int)                                                                                \
  template Verdict stage_overlaps_partition_the_stages_layers<Int>(const Int&, const Int&);                           \
  template Verdict stage_windows_are_dual<Int>(const Int&, const Int&, bool, bool, const Int&, const Int&, const Int&, \
                                               const Int&);                                                          \
  template Verdict stage_plan_covers_layers_and_heads<Int>(const Int&, const Int&, bool, bool, bool, const Int&,      \
                                                           const Int&, const Int&, const Int&, const Int&, const Int&); \
  template Verdict whole_block_copy_only_between_equal_heads_per_rank<Int>(const Int&, const Int&, bool, bool, bool,  \
                                                                           const Int&, const Int&);                  \
  template Verdict unrefused_sizings_are_served_exactly_when_divisible<Int>(const Int&, const Int&, bool, bool, bool, \
                                                                            const Int&);
TPCHECK_INSTANTIATE(TPCHECK_STAGE_INVARIANTS)

}  // namespace tpcheck::inv
