// §6 and §9.5-9.7 on the read plans: each check, and its declaration in the
// registry right after it. Every plan invariant ranges over deployments both
// sides can load (P, D and H head-compatible, or MLA) and a valid decode rank.
#include <algorithm>
#include <iterator>
#include <vector>

#include "declare.hpp"
#include "support.hpp"
#include "tpcheck/instantiate.hpp"

TPCHECK_DECLARATIONS(plan_invariants)

namespace tpcheck::inv {
using namespace declare;
namespace {

template <ModelInt Int>
Int effective_heads(const Int& H, bool mla) {
  return mla ? Int(1) : H;
}

// The copies of a valid decode rank's plan that a check reads. Without a walk
// budget, or when the plan fits it: the whole plan, listed once (plan_into).
// With a budget and a longer plan: only the copies the check asks for, a
// budget's worth from the one before the copy asked for (plan_range_into: the
// same copies, computed from there), so a case costs a few model calls at any
// plan length a walk accepts instead of listing up to kMaxWalked copies to look
// at eight. The copies live in a buffer kept per thread and type, valid until
// the next PlanCopies: a case allocates no plan once the buffer has grown. A
// copy is handed out by value, since a later request may list others over it.
template <ModelInt Int>
class PlanCopies {
 public:
  PlanCopies(const Int& d, const Int& P, const Int& D, const Int& H, bool mla, std::int64_t count)
      : d_(d), P_(P), D_(D), H_(H), mla_(mla), count_(count) {
    if (walks_every_element() || count <= current_walk().budget) {
      list(0, count);
    } else {
      held_.clear();  // an earlier case's copies
    }
  }
  std::int64_t size() const { return count_; }

  // Copy j, 0 <= j < size().
  Copy<Int> operator[](std::int64_t j) {
    if (!holds_copy(j)) list(std::max(std::int64_t{0}, j - 1), current_walk().budget);
    if (!holds_copy(j)) return Copy<Int>{Int(0), Int(0), Int(0)};  // the listing failed: failed() says how
    return held_[static_cast<std::size_t>(j - from_)];
  }

  // The first j in [0, size()) whose copy fails `before` (true for a prefix of
  // the copies, as std::partition_point asks): within the copies held when
  // it lies there, otherwise by a search that gallops out from `guess()` (the
  // caller's estimate: a head's or a source's share of d's heads or of the
  // window, asked for only then) and then bisects. The guess only orders the
  // probes; a wrong one costs probes, never the answer.
  template <class Before, class Guess>
  std::int64_t partition_point(Before&& before, Guess&& guess) {
    std::int64_t lo = 0;
    std::int64_t hi = count_;
    const Plan<Int>& held = held_;
    if (!held.empty()) {
      const auto held_end = from_ + static_cast<std::int64_t>(held.size());
      if (!before(held.front())) {
        hi = from_;
      } else if (before(held.back())) {
        lo = held_end;
      } else {
        return from_ + (std::partition_point(held.begin(), held.end(), before) - held.begin());
      }
    }
    if (lo < hi) {
      const std::int64_t g = std::clamp(std::int64_t{guess()}, lo, hi - 1);
      if (before((*this)[g])) {
        lo = g + 1;
        for (std::int64_t step = 1; lo < hi; step *= 2) {
          const std::int64_t probe = std::min(hi - 1, g + step);
          if (!before((*this)[probe])) {
            hi = probe;
            break;
          }
          lo = probe + 1;
        }
      } else {
        hi = g;
        for (std::int64_t step = 1; lo < hi; step *= 2) {
          const std::int64_t probe = std::max(lo, g - step);
          if (before((*this)[probe])) {
            lo = probe + 1;
            break;
          }
          hi = probe;
        }
      }
    }
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (before((*this)[mid])) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  // Where x of [first, end) would sit among the copies if they split that
  // range evenly: partition_point's guess.
  std::int64_t share(const Int& x, const Int& first, const Int& end) const {
    if (count_ == 0 || end <= first) return 0;
    return static_cast<std::int64_t>(mul_floor_div<Int>(Int(x - first), Int(count_), Int(end - first)));
  }

  // A listing that failed on a valid configuration (a fault of the model).
  Verdict failed() const {
    return failed_on_valid(call("plan", d_, P_, D_, H_, mla_), *failure_);
  }
  bool has_failed() const { return failure_.has_value(); }

 private:
  static Plan<Int>& buffer() {
    thread_local Plan<Int> copies;
    return copies;
  }
  bool holds_copy(std::int64_t j) const {
    return j >= from_ && j - from_ < static_cast<std::int64_t>(held_.size());
  }
  void list(std::int64_t first, std::int64_t count) {
    from_ = first;
    if (std::optional<Failure> f = plan_range_into(held_, d_, P_, D_, H_, mla_, Int(first), Int(count))) {
      failure_ = std::move(f);
      held_.clear();
    }
  }

  const Int& d_;
  const Int& P_;
  const Int& D_;
  const Int& H_;
  bool mla_;
  std::int64_t count_;
  std::int64_t from_ = 0;
  Plan<Int>& held_ = buffer();  // looked up once: each look-up of a thread_local is a call
  std::optional<Failure> failure_;
};

// The plan of a valid decode rank, or the verdict that stands in for it:
// vacuous for an invalid configuration or a plan too long to walk, violated
// when the model fails on a valid one.
template <ModelInt Int>
struct ListedPlan {
  std::optional<PlanCopies<Int>> copies;
  Verdict otherwise = holds();
};

template <ModelInt Int>
ListedPlan<Int> listed_plan(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  const Int heads_total = effective_heads(H, mla);
  if (!heads_shard(P, heads_total) || !heads_shard(D, heads_total) || d < 0 || d >= D) {
    return {std::nullopt, vacuous("not a loadable deployment and decode rank")};
  }
  const Outcome<Int> count = plan_copy_count(d, P, D, H, mla);
  if (!count.ok()) {
    return {std::nullopt, failed_on_valid(call("plan_copy_count", d, P, D, H, mla), count.failure())};
  }
  if (count.value() > kMaxWalked) return {std::nullopt, vacuous("the plan has too many copies to walk")};
  ListedPlan<Int> listed;
  listed.copies.emplace(d, P, D, H, mla, static_cast<std::int64_t>(count.value()));
  if (listed.copies->has_failed()) return {std::nullopt, listed.copies->failed()};
  return listed;
}

// The verdict of a check that read `copies`: a failed listing first.
template <ModelInt Int>
Verdict read_from(const PlanCopies<Int>& copies, Verdict v) {
  return copies.has_failed() ? copies.failed() : v;
}

// "plan(d, P, D, H, mla) = [...]", for a report only: it lists the whole plan.
template <ModelInt Int>
std::string plan_text(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  return call("plan", d, P, D, H, mla) + " = " + render(plan(d, P, D, H, mla));
}

// The domain every per-decode-rank plan invariant ranges over.
std::vector<Block> loadable_decode_ranks(Pairs pairs) {
  return domain(pair("P", "D", pairs), flag("mla"), heads("H", "P", "D", HeadCounts::Compatible, "mla"), rank("d", "D"));
}

// Kinds of deployment: which side is larger, and MLA.
constexpr auto prefill_larger = [](const auto& P, const auto& D, const auto&...) { return P > D; };
constexpr auto decode_larger = [](const auto& P, const auto& D, const auto&...) { return P < D; };
constexpr auto same_size = [](const auto& P, const auto& D, const auto&...) { return P == D; };
constexpr auto with_mla = [](const auto&, const auto&, const auto& mla, const auto&...) { return mla != 0; };
constexpr auto not_divisible = [](const auto& P, const auto& D, const auto&...) { return !divisible_pair(P, D); };
// Heads split over (some rank holds several) or replicated on (several ranks hold one) a side.
constexpr auto prefill_replicates = [](const auto& P, const auto&, const auto& mla, const auto& H, const auto&...) {
  return mla == 0 && P > H;
};
constexpr auto decode_splits = [](const auto&, const auto& D, const auto& mla, const auto& H, const auto&...) {
  return mla == 0 && D < H;
};

}  // namespace

template <ModelInt Int>
Verdict single_source_holds_own_heads(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  ListedPlan<Int> listed = listed_plan(d, P, D, H, mla);
  if (!listed.copies) return listed.otherwise;
  PlanCopies<Int>& general = *listed.copies;
  const bool guard_accepts = kv_heads_guard(D, P, H, mla).ok();  // decode is the local side
  const bool divisible = remote_rank(d, D, P).ok();
  const Outcome<Plan<Int>> single = single_source_plan(d, P, D, H, mla);
  // Equal plans: the general one has the single source's one copy.
  const bool agrees = single.ok() && single.value().size() == 1 && general.size() == 1 && single.value().front() == general[0];
  if (general.has_failed()) return general.failed();
  if (agrees != (guard_accepts && divisible)) {
    return violated(call("single_source_plan", d, P, D, H, mla) + " = " + render(single) +
                    (agrees ? " equals" : " differs from") + " the general plan " + render(plan(d, P, D, H, mla)) +
                    " although the guard " + (guard_accepts ? "accepts" : "rejects") + " and the pair is " +
                    (divisible ? "divisible" : "not divisible"));
  }
  if (!agrees) return holds();
  const Int heads_total = effective_heads(H, mla);
  const Span<Int> own = heads(d, D, heads_total).value();
  const Outcome<Span<Int>> source = heads(single.value().front().p, P, heads_total);
  if (source.ok() && own == source.value()) return holds();
  return violated("single source " + render(single.value().front().p) + " of decode rank " + render(d) + " holds heads " +
                  render(source) + ", the decode rank holds " + render(own));
}

TPCHECK_INVARIANT(SingleSourceHoldsExactlyTheDecodeRanksHeads, "§9.6", HeadAlignment,
    loadable_decode_ranks(Pairs::Positive),
    kinds(kind("guard accepts a divisible pair: one whole page", [](const auto& P, const auto& D, const auto& mla, const auto& H, const auto&) {
            return divisible_pair(P, D) && (mla != 0 || P == D || std::min(P, D) >= H);
          }),
          kind("guard rejects (heads split on a side)", [](const auto& P, const auto& D, const auto& mla, const auto& H, const auto&) {
            return mla == 0 && P != D && std::min(P, D) < H;
          }),
          kind("not divisible", not_divisible), kind("MLA", with_mla)),
    min_non_vacuous(0.9).proof(Proof::by_z3("loadable sizings P, D, H (both sides "
        "shard H, or MLA), 0 <= d < D; P > H case by case (the decode side split or replicated, either side "
        "larger, whether P divides D)")),
    [](const auto& P, const auto& D, const auto& mla, const auto& H, const auto& d) {
      return single_source_holds_own_heads(d, P, D, H, mla != 0);
    });

template <ModelInt Int>
Verdict plan_partitions_own_heads(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  ListedPlan<Int> listed = listed_plan(d, P, D, H, mla);
  if (!listed.copies) return listed.otherwise;
  PlanCopies<Int>& copies = *listed.copies;
  const Int heads_total = effective_heads(H, mla);
  const auto what = [&] { return plan_text(d, P, D, H, mla); };  // built only for a report
  const Span<Int> own = heads(d, D, heads_total).value();
  // Copy j starts where copy j - 1 ends (the first at d's first head), is not
  // empty, and its source holds it; the last ends at d's last head.
  const std::int64_t n = copies.size();
  if (n == 0) return violated(what() + " does not cover heads " + render(own) + " of the decode rank");
  return read_from(copies, walk_range(std::int64_t{0}, n, [&](const std::int64_t& j) {
    const Copy<Int> c = copies[j];
    const Int cursor = j == 0 ? own.first : copies[j - 1].hi;
    if (c.lo != cursor) return violated(what() + (c.lo > cursor ? " leaves a gap" : " overlaps") + " at head " + render(cursor));
    if (c.lo >= c.hi) return violated(what() + " has an empty copy " + render(c));
    if (c.p < 0 || c.p >= P) {
      return violated(what() + " reads from prefill rank " + render(c.p) + " outside [0, " + render(P) + ")");
    }
    const Span<Int> page = heads(c.p, P, heads_total).value();
    if (c.lo < page.first || c.hi > page.end) {
      return violated(what() + " asks prefill rank " + render(c.p) + " (heads " + render(page) + ") for heads it does not hold");
    }
    if (j == n - 1 && c.hi != own.end) return violated(what() + " does not cover heads " + render(own) + " of the decode rank");
    return holds();
  }));
}

TPCHECK_INVARIANT(PlanPartitionsTheDecodeRanksHeads, "§9.7", PlanExactness,
    loadable_decode_ranks(Pairs::Positive),
    kinds(kind("P > D", prefill_larger), kind("P < D", decode_larger), kind("P == D", same_size),
          kind("not divisible", not_divisible), kind("MLA", with_mla),
          kind("prefill replicates heads", prefill_replicates), kind("decode splits heads", decode_splits)),
    min_non_vacuous(0.9).proof(Proof::by_z3("loadable sizings P, D, H (both sides shard H, or MLA), 0 <= d < D, every "
        "copy index j; plans of any length")),
    [](const auto& P, const auto& D, const auto& mla, const auto& H, const auto& d) {
      return plan_partitions_own_heads(d, P, D, H, mla != 0);
    });

template <ModelInt Int>
Verdict plan_matches_head_by_head_rule(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  ListedPlan<Int> listed = listed_plan(d, P, D, H, mla);
  if (!listed.copies) return listed.otherwise;
  const Int heads_total = effective_heads(H, mla);
  const Span<Int> own = heads(d, D, heads_total).value();
  if (walks_every_element() && own.end - own.first > kMaxWalked) {
    return vacuous("the decode rank holds too many heads to walk");
  }
  PlanCopies<Int>& copies = *listed.copies;
  const auto what = [&] { return plan_text(d, P, D, H, mla); };  // built only for a report
  // The rule's plan, stated per head and per copy so a walk may visit some of
  // them: every head h of d is copied from its holder nearest to the anchor,
  // the copies cover d's heads in order, and neighbouring copies have
  // different sources (equal ones merged). All of them visited, that is the
  // plan the rule builds head by head.
  const Int anchor = mul_floor_div<Int>(d, P, D);
  const Verdict per_head = walk_range(own.first, own.end, [&](const Int& h) {
    const Outcome<Span<Int>> holding = holders(h, P, heads_total);
    if (!holding.ok()) return violated(call("holders", h, P, heads_total) + " failed on valid input: " + render(holding));
    const Int source = std::clamp(anchor, holding.value().first, Int(holding.value().end - 1));
    // The copy holding h: the last one starting at or before it.
    const std::int64_t after = copies.partition_point([&](const Copy<Int>& c) { return c.lo <= h; },
                                                      [&] { return copies.share(h, own.first, own.end) + 1; });
    if (after == 0) return violated(what() + " copies no head " + render(h));
    const Copy<Int> holding_copy = copies[after - 1];
    if (holding_copy.hi <= h) return violated(what() + " copies no head " + render(h));
    if (holding_copy.p == source) return holds();
    return violated(what() + " copies head " + render(h) + " from prefill rank " + render(holding_copy.p) +
                    ", the head-by-head rule from " + render(source));
  });
  if (!per_head.held()) return read_from(copies, per_head);
  const std::int64_t n = copies.size();
  return read_from(copies, walk_range(std::int64_t{0}, n, [&](const std::int64_t& j) {
    const Copy<Int> c = copies[j];
    if (c.lo >= c.hi) return violated(what() + " has an empty copy " + render(c));
    if (j == 0 && c.lo != own.first) return violated(what() + " does not start at head " + render(own.first));
    if (j == n - 1 && c.hi != own.end) return violated(what() + " does not end at head " + render(own.end));
    if (j == 0) return holds();
    const Copy<Int> before = copies[j - 1];
    if (before.hi != c.lo) return violated(what() + " does not follow copy " + render(before) + " with the next head");
    if (before.p == c.p) return violated(what() + " splits the heads of prefill rank " + render(c.p) + " in two copies");
    return holds();
  }));
}

TPCHECK_INVARIANT(PlanFollowsTheHeadByHeadRule, "§6", PlanExactness,
    loadable_decode_ranks(Pairs::Positive),
    kinds(kind("P > D", prefill_larger), kind("P < D", decode_larger), kind("not divisible", not_divisible),
          kind("MLA", with_mla), kind("prefill replicates heads", prefill_replicates),
          kind("decode splits heads", decode_splits)),
    min_non_vacuous(0.9).proof(Proof::by_z3("loadable sizings, 0 <= d < D, every copy j and every head h of it; decode "
        "ranks with any number of heads")),
    [](const auto& P, const auto& D, const auto& mla, const auto& H, const auto& d) {
      return plan_matches_head_by_head_rule(d, P, D, H, mla != 0);
    });

template <ModelInt Int>
Verdict plan_sources_match_nixl(const Int& d, const Int& P, const Int& D, const Int& H, bool mla) {
  ListedPlan<Int> listed = listed_plan(d, P, D, H, mla);
  if (!listed.copies) return listed.otherwise;
  PlanCopies<Int>& copies = *listed.copies;
  const Outcome<Span<Int>> span = window_span(d, D, P);
  if (!span.ok()) return vacuous("the pair is not divisible: NIXL has no window");
  const Span<Int>& w = span.value();
  if (walks_every_element()) {
    // The listed window is the span's ranks (a budgeted walk reads the span alone: listing costs its length).
    if (w.end - w.first > kMaxWalked) return vacuous("the window is too long to walk");
    const Outcome<Window<Int>> listed_window = window(d, D, P);
    bool same = listed_window.ok() && Int(static_cast<std::int64_t>(listed_window.value().size())) == w.end - w.first;
    for (std::size_t i = 0; same && i < listed_window.value().size(); ++i) {
      same = listed_window.value()[i] == w.first + Int(static_cast<std::int64_t>(i));
    }
    if (!same) return violated(call("window", d, D, P) + " = " + render(listed_window) + " is not the ranks of its span " + render(w));
  }
  const Int heads_total = effective_heads(H, mla);
  const auto what = [&] { return plan_text(d, P, D, H, mla); };  // built only for a report
  // NIXL reads the first rank of each distinct head range of the window; the
  // ranges come in order, so q is one exactly when it is the window's first
  // or its range differs from q - 1's. The plan's sources, in the order of its
  // copies, must be those ranks: each copy's source is one, no copy's source
  // comes before its predecessor's, and each rank NIXL reads is a copy's source.
  const auto nixl_reads = [&](const Int& q) {
    return q == w.first || heads(q, P, heads_total).value() != heads(Int(q - 1), P, heads_total).value();
  };
  const auto is_source = [&](const Int& q) {
    const std::int64_t at = copies.partition_point([&](const Copy<Int>& c) { return c.p < q; },
                                                   [&] { return copies.share(q, w.first, w.end); });
    return at != copies.size() && copies[at].p == q;
  };
  const std::int64_t n = copies.size();
  const Verdict each_source = walk_range(std::int64_t{0}, n, [&](const std::int64_t& j) {
    const Int q = copies[j].p;
    if (j > 0 && q < copies[j - 1].p) {
      return violated(what() + " reads prefill rank " + render(q) + " after a later one, not in the window's order");
    }
    if (q >= w.first && q < w.end && nixl_reads(q)) return holds();
    return violated(what() + " reads from prefill rank " + render(q) + ", which NIXL's window rule does not read (window " +
                    render(w) + ")");
  });
  if (!each_source.held()) return read_from(copies, each_source);
  const Verdict each_read = walk_range(w.first, w.end, [&](const Int& q) {
    if (!nixl_reads(q) || is_source(q)) return holds();
    return violated(what() + " does not read from prefill rank " + render(q) + ", which NIXL's window rule reads");
  });
  if (!each_read.held()) return read_from(copies, each_read);
  if (copies.has_failed()) return copies.failed();
  if (D < P) return holds();
  const Int per_source = floor_div<Int>(D, P);
  if (copies.size() != 1 || copies[0].p != floor_div<Int>(d, per_source)) {
    return violated(what() + ", expected the one source d // (D/P) = " + render(floor_div<Int>(d, per_source)));
  }
  const Span<Int> own = heads(d, D, heads_total).value();
  const Copy<Int> only = copies[0];
  const Span<Int> page = heads(only.p, P, heads_total).value();
  if (only.lo - page.first != own.first - page.first) {
    return violated(what() + " starts at offset " + render(Int(only.lo - page.first)) + " of its source, expected " +
                    render(Int(own.first - page.first)));
  }
  if (D <= heads_total) {
    const Int pages = floor_mod<Int>(d, per_source);
    if (own.first - page.first != pages * (own.end - own.first)) {
      return violated(what() + " starts " + render(Int(own.first - page.first)) +
                      " heads into its source, expected d % (D/P) = " + render(pages) + " pages of d");
    }
  }
  return holds();
}

TPCHECK_INVARIANT(PlanSourcesMatchNixlOnDivisiblePairs, "§9.5", Agreement,
    loadable_decode_ranks(Pairs::Divisible),
    kinds(kind("P > D: a window of sources", prefill_larger), kind("P < D: one source", decode_larger),
          kind("P == D", same_size), kind("MLA", with_mla),
          kind("P < D <= H: offset in pages of d", [](const auto& P, const auto& D, const auto& mla, const auto& H, const auto&) {
            return mla == 0 && P < D && D <= H;
          })),
    min_non_vacuous(0.8).proof(Proof::by_z3("loadable sizings with tp_ratio(D, P) defined (divisible pairs), 0 <= d < "
        "D, every copy j and window rank q; windows and plans of any length")),
    [](const auto& P, const auto& D, const auto& mla, const auto& H, const auto& d) {
      return plan_sources_match_nixl(d, P, D, H, mla != 0);
    });

#define TPCHECK_PLAN_INVARIANTS(Int)                                                                              \
  template Verdict plan_partitions_own_heads<Int>(const Int&, const Int&, const Int&, const Int&, bool);          \
  template Verdict plan_matches_head_by_head_rule<Int>(const Int&, const Int&, const Int&, const Int&, bool);     \
  template Verdict plan_sources_match_nixl<Int>(const Int&, const Int&, const Int&, const Int&, bool);            \
  template Verdict single_source_holds_own_heads<Int>(const Int&, const Int&, const Int&, const Int&, bool);
TPCHECK_INSTANTIATE(TPCHECK_PLAN_INVARIANTS)

}  // namespace tpcheck::inv
