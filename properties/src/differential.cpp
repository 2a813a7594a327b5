// §0 and §9.5: a narrow instantiation of the model (int16, int64) gives the
// same outcome as the cpp_int one, the mathematical truth, on every operation
// of the typed operation table, compared as values; text is built only when
// they differ.
//
// Its domain is one per operation, made from the roles of the operation's
// parameters (a size, a rank of a size, a head count, ...), so an operation
// added to the table is compared at once, on inputs shaped like its own. The
// sweep runs it in int16 wherever the values fit (products of its sizes pass
// 2^15, so the overflow guards are crossed exhaustively); RapidCheck and the
// fuzzers in int64 up to 2^63, and in int16 too where the values fit.
#include <algorithm>
#include <array>
#include <span>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

#include "declare.hpp"
#include "support.hpp"
#include "tpcheck/invariants.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/operation_domains.hpp"
#include "tpcheck/operations.hpp"
#include "tpcheck/render.hpp"
#include "tpcheck/stages.hpp"
#include "tpcheck/state.hpp"

TPCHECK_DECLARATIONS(differential)

namespace tpcheck::inv {
namespace {

using dom::operation_domains;

constexpr std::size_t kMaxArity = 12;

// The arguments of operation `op` in its parameters' order, in the narrow type
// Narrow, or nothing when one does not fit it.
template <class Narrow, class Int>
std::optional<std::array<Narrow, kMaxArity>> arguments(std::size_t op, const Int* values) {
  const std::vector<int>& position = operation_domains()[op].position;
  std::array<Narrow, kMaxArity> args{};
  for (std::size_t i = 0; i < position.size(); ++i) {
    const Int& v = values[position[i]];
    if constexpr (std::is_same_v<Int, BigInt>) {
      const std::optional<Narrow> n = narrow_to<Narrow>(v);
      if (!n) return std::nullopt;
      args[i] = *n;
    } else {
      if (v < std::numeric_limits<Narrow>::min() || v > std::numeric_limits<Narrow>::max()) return std::nullopt;
      args[i] = static_cast<Narrow>(v);
    }
  }
  return args;
}

template <class Narrow>
Verdict agrees(std::size_t op, const std::array<Narrow, kMaxArity>& args) {
  const std::span<const Narrow> used(args.data(), operation_domains()[op].position.size());
  if (narrow_agrees_with_cpp_int<Narrow>(op, used)) return holds();
  return violated(narrow_disagreement<Narrow>(op, used));
}

// The elements of a list of `count` as the walk visits them
// (walked_runs over its indices), each run listed by range in both models:
// `range(type, first, length)` lists in the type std::type_identity names
// and gives (its failure, its list), `lift` widens a narrow element.
template <class Narrow, class Range, class Lift>
Verdict runs_agree_where_walked(const std::string& what, std::int64_t count, const Range& range_in, const Lift& lift) {
  const std::string type(model_type_name<Narrow>());
  using NarrowList = std::remove_reference_t<decltype(*range_in(std::type_identity<Narrow>{}, 0, 0).second)>;
  using BigList = std::remove_reference_t<decltype(*range_in(std::type_identity<BigInt>{}, 0, 0).second)>;
  const WalkedRuns<std::int64_t> walked = walked_runs(std::int64_t{0}, count);
  for (std::size_t i = 0; i < walked.count; ++i) {
    const Span<std::int64_t>& run = walked.runs[i];
    const auto [narrow_failed, narrow_list] = range_in(std::type_identity<Narrow>{}, run.first, run.end - run.first);
    const auto [big_failed, big_list] = range_in(std::type_identity<BigInt>{}, run.first, run.end - run.first);
    const NarrowList& narrow_items = *narrow_list;
    const BigList& big_items = *big_list;
    bool same = narrow_failed.has_value() == big_failed.has_value() && narrow_items.size() == big_items.size();
    if (same && narrow_failed) same = *narrow_failed == *big_failed;
    for (std::size_t j = 0; same && j < narrow_items.size(); ++j) same = lift(narrow_items[j]) == big_items[j];
    if (same) continue;
    const auto listed = [](const std::optional<Failure>& failed, const auto& items) {
      return failed ? render(*failed) : render(items);
    };
    return violated(what + " elements [" + render(run.first) + ", " + render(run.end) + ") are " +
                    listed(narrow_failed, narrow_items) + " in " + type + " but " + listed(big_failed, big_items) +
                    " in cpp_int");
  }
  return holds();
}

// A listed outcome (a window, a plan) costs its length in both models, up to
// kMaxListed (2^20) elements; a list too long to list at all is compared as
// is: its error is cheap. A plan longer than the walk's budget (the fuzzers)
// is compared as the walk sees it: its copy count, and the copies the walk
// visits (walked_runs over its copy indices), each run listed by
// plan_range_into in both models. Its copies are computed one by one
// (products that may overflow near the last), so every copy is compared
// somewhere: the fuzzer moves the walk.
template <class Narrow>
Verdict plan_agrees_where_walked(const std::array<Narrow, kMaxArity>& a, std::int64_t count) {
  static const std::size_t count_op = *operation_index("plan_copy_count");
  if (Verdict v = agrees(count_op, a); !v.held()) return v;
  const bool mla = a[4] != 0;
  return runs_agree_where_walked<Narrow>(
      call("plan", a[0], a[1], a[2], a[3], mla), count,
      [&](auto type, std::int64_t first, std::int64_t length) {
        using Int = typename decltype(type)::type;
        thread_local Plan<Int> copies;
        const std::optional<Failure> failed = plan_range_into(copies, Int(widen(a[0])), Int(widen(a[1])),
                                                              Int(widen(a[2])), Int(widen(a[3])), mla, Int(first),
                                                              Int(length));
        return std::pair{failed, &copies};
      },
      [](const Copy<Narrow>& n) { return Copy<BigInt>{widen(n.p), widen(n.lo), widen(n.hi)}; });
}

// The family whose state operation `which` (state_operation_names: 2
// F_state_plan, 3 F_state_served) is operation `op`, if any.
std::optional<StateFamily> state_family_of(std::size_t op, std::size_t which) {
  static const std::array<std::array<std::size_t, kStateFamilies.size()>, 4> ops = [] {
    std::array<std::array<std::size_t, kStateFamilies.size()>, 4> out{};
    for (std::size_t w = 0; w < out.size(); ++w) {
      for (std::size_t i = 0; i < kStateFamilies.size(); ++i) {
        out[w][i] = *operation_index(state_operation_names(kStateFamilies[i])[w]);
      }
    }
    return out;
  }();
  for (std::size_t i = 0; i < kStateFamilies.size(); ++i) {
    if (ops[which][i] == op) return kStateFamilies[i];
  }
  return std::nullopt;
}
std::optional<StateFamily> state_plan_family(std::size_t op) { return state_family_of(op, 2); }
std::optional<StateFamily> state_served_family(std::size_t op) { return state_family_of(op, 3); }

// F_state_plan's and F_state_served's DIMS, after (d or p, P, D) in their arguments.
template <class Int>
StateDims<Int> state_plan_dims(StateFamily family, const std::array<Int, kMaxArity>& a) {
  StateDims<Int> dims{family, {Int(1), Int(1), Int(1), Int(1)}};
  for (std::size_t i = 0; i < state_dim_count(family); ++i) dims.v[i] = a[3 + i];
  return dims;
}


// A list longer than the walk's budget (the fuzzers), compared as
// plan_agrees_where_walked compares a §6 plan: its length in both models,
// then the elements the walk visits (runs_agree_where_walked).
// `count(type)` and `range(type, buffer, first, length)` call the model in
// the type std::type_identity names; `lift` widens a narrow element. Listed
// whole, a state plan (up to 4 * P / D copies) or a stage plan (stages times
// a §6 plan) costs one input up to a second in cpp_int.
template <class Narrow, class Count, class Range, class Lift>
Verdict list_agrees_where_walked(const std::string& what, std::int64_t count, const Count& count_in,
                                 const Range& range_in, const Lift& lift) {
  const auto narrow_count = count_in(std::type_identity<Narrow>{});
  const auto big_count = count_in(std::type_identity<BigInt>{});
  if (!narrow_count.ok() || !big_count.ok() || widen(narrow_count.value()) != big_count.value()) {
    const auto told = [](const auto& n) { return n.ok() ? render(n.value()) : render(n.failure()); };
    return violated(what + " has " + told(narrow_count) + " elements in " + std::string(model_type_name<Narrow>()) +
                    " but " + told(big_count) + " in cpp_int");
  }
  return runs_agree_where_walked<Narrow>(what, count, range_in, lift);
}

// A family's state plan, (d, P, D, DIMS...), compared where walked.
template <class Narrow>
Verdict state_plan_agrees_where_walked(StateFamily family, const std::array<Narrow, kMaxArity>& a,
                                       std::int64_t count) {
  const StateDims<Narrow> narrow_dims = state_plan_dims(family, a);
  const auto args = [&](auto type) {
    using Int = typename decltype(type)::type;
    StateDims<Int> dims{family, {}};
    for (std::size_t i = 0; i < kMaxStateDims; ++i) dims.v[i] = Int(widen(narrow_dims.v[i]));
    return std::tuple<Int, Int, Int, StateDims<Int>>{Int(widen(a[0])), Int(widen(a[1])), Int(widen(a[2])), dims};
  };
  return list_agrees_where_walked<Narrow>(
      call(state_operation_names(family)[2].c_str(), a[0], a[1], a[2]), count,
      [&](auto type) {
        const auto [d, P, D, dims] = args(type);
        return state_plan_copy_count(d, P, D, dims);
      },
      [&](auto type, std::int64_t first, std::int64_t length) {
        using Int = typename decltype(type)::type;
        thread_local std::vector<StateCopy<Int>> copies;
        const auto [d, P, D, dims] = args(type);
        return std::pair{state_plan_range_into(copies, d, P, D, dims, units_t<Int>(first), units_t<Int>(length)),
                         &copies};
      },
      [](const StateCopy<Narrow>& n) {
        return StateCopy<BigInt>{n.segment, n.name, widen(n.p), widen(n.src), widen(n.dst), widen(n.n)};
      });
}

// A family's state_served, (p, P, D, DIMS...), compared by its span
// (state_served_span): its checks and failures, and the window it lists,
// whose ranks are the span's one after the other, as `window` is compared by
// window_span (affordable below). Listing 2^20 ranks in cpp_int cost one
// input up to a second.
template <class Narrow>
Verdict state_served_span_agrees(StateFamily family, const std::array<Narrow, kMaxArity>& a) {
  const StateDims<Narrow> narrow_dims = state_plan_dims(family, a);
  StateDims<BigInt> big_dims{family, {}};
  for (std::size_t i = 0; i < kMaxStateDims; ++i) big_dims.v[i] = widen(narrow_dims.v[i]);
  const Outcome<Span<Narrow>> narrow = state_served_span(a[0], a[1], a[2], narrow_dims);
  const Outcome<Span<BigInt>> big = state_served_span(widen(a[0]), widen(a[1]), widen(a[2]), big_dims);
  const bool same = narrow.ok() == big.ok() &&
                    (narrow.ok() ? widen(narrow.value().first) == big.value().first &&
                                       widen(narrow.value().end) == big.value().end
                                 : narrow.failure() == big.failure());
  if (same) return holds();
  const auto told = [](const auto& o) { return o.ok() ? render(o.value()) : render(o.failure()); };
  return violated(call(state_operation_names(family)[3].c_str(), a[0], a[1], a[2]) + " lists the span " +
                  told(narrow) + " in " + std::string(model_type_name<Narrow>()) + " but " + told(big) + " in cpp_int");
}

// stage_plan's (s, d, c, P, D, H, MLA, PREFILL_PP_LAYERS, DECODE_PP_LAYERS,
// PREFILL_ADP, DECODE_ADP), compared where walked.
template <class Narrow>
Verdict stage_plan_agrees_where_walked(const std::array<Narrow, kMaxArity>& a, std::int64_t count) {
  const auto topology = [&](auto type) {
    using Int = typename decltype(type)::type;
    const auto in = [&](std::size_t i) { return Int(widen(a[i])); };
    return Topology<Int>{in(3), in(4), in(5), a[6] != 0, split_of_code(in(7)), split_of_code(in(8)),
                         {a[9] != 0, a[10] != 0}};
  };
  const auto in = [&](auto type, std::size_t i) { return typename decltype(type)::type(widen(a[i])); };
  return list_agrees_where_walked<Narrow>(
      call("stage_plan", a[0], a[1], a[2]), count,
      [&](auto type) { return stage_plan_copy_count(in(type, 0), in(type, 1), in(type, 2), topology(type)); },
      [&](auto type, std::int64_t first, std::int64_t length) {
        using Int = typename decltype(type)::type;
        thread_local std::vector<StageCopy<Int>> copies;
        return std::pair{stage_plan_range_into(copies, in(type, 0), in(type, 1), in(type, 2), topology(type),
                                               wide_t<Int>(first), wide_t<Int>(length)),
                         &copies};
      },
      [](const StageCopy<Narrow>& n) {
        return StageCopy<BigInt>{widen(n.source), widen(n.lo), widen(n.hi), {widen(n.layers.first), widen(n.layers.end)}};
      });
}

// How many ranks stage_window (or, `served`, stage_served) would list on these
// int64 arguments, (s, d, c, P, D, PREFILL_PP_LAYERS, DECODE_PP_LAYERS,
// PREFILL_ADP, DECODE_ADP): the sum of its spans' lengths (0 when it fails).
__int128 listed_length(bool served, const std::array<std::int64_t, kMaxArity>& a) {
  const Topology<std::int64_t> t{a[3], a[4], 1, false, split_of_code(a[5]), split_of_code(a[6]), {a[7] != 0, a[8] != 0}};
  const auto spans = served ? stage_served_spans(a[0], a[1], a[2], t) : stage_window_spans(a[0], a[1], a[2], t);
  __int128 length = 0;
  if (spans.ok()) {
    for (const WideSpan<std::int64_t>& s : spans.value()) length += s.end - s.first;
  }
  return length;
}

// The operation compared for a stage window or fan-in: the list itself when
// short, its spans (stage_*_spans, the same parameters) past kStageListed
// ranks, or the walk's budget (the fuzzers). The list is its spans' ranks one
// after the other, so the spans hold every value a listing could get wrong;
// the listing is compared on the short ones. In every model type: a stage of
// P = 32767 lists 32767 ranks (int16's edge, the sweep's).
constexpr std::int64_t kStageListed = 64;

std::size_t stage_list_affordable(std::size_t op, const std::array<std::int64_t, kMaxArity>& a) {
  static const std::size_t stage_window_op = *operation_index("stage_window");
  static const std::size_t stage_served_op = *operation_index("stage_served");
  if (op != stage_window_op && op != stage_served_op) return op;
  static const std::size_t window_spans_op = *operation_index("stage_window_spans");
  static const std::size_t served_spans_op = *operation_index("stage_served_spans");
  const std::int64_t longest = walks_every_element() ? kStageListed : current_walk().budget;
  if (listed_length(op == stage_served_op, a) <= longest) return op;
  return op == stage_window_op ? window_spans_op : served_spans_op;
}

// The operation compared for `op` on these arguments: past kMaxWalked
// elements a list's length is compared instead (window_span,
// plan_copy_count, which take the same parameters), so one case stays cheap.
// With a walk budget (the fuzzers) a window longer than the budget is
// compared by its span: its ranks are the span's, one after the other, so
// the span holds every value the listing could get wrong; a plan longer than
// the budget by plan_agrees_where_walked (narrow_agree below).
std::size_t affordable(std::size_t op, const std::array<std::int64_t, kMaxArity>& a) {
  static const std::size_t plan_op = *operation_index("plan");
  static const std::size_t window_op = *operation_index("window");
  if (const std::size_t stages = stage_list_affordable(op, a); stages != op) return stages;
  const auto longer_than = [](std::int64_t n, std::int64_t longest) { return n > longest && n <= kMaxListed; };
  if (op == plan_op && walks_every_element()) {
    const Outcome<std::int64_t> n = plan_copy_count(a[0], a[1], a[2], a[3], a[4] != 0);
    if (n.ok() && longer_than(n.value(), kMaxWalked)) return *operation_index("plan_copy_count");
  }
  if (op == window_op) {
    const std::int64_t longest = walks_every_element() ? kMaxWalked : current_walk().budget;
    const Outcome<Span<std::int64_t>> s = window_span(a[0], a[1], a[2]);
    if (s.ok() && longer_than(s.value().end - s.value().first, longest)) return *operation_index("window_span");
  }
  return op;
}

// The sweep's: int16 against cpp_int (the sweep calls it where the values fit).
Verdict int16_agrees(std::size_t op, const std::int16_t* values, KindMask* kinds) {
  *kinds = KindMask{1} << op;
  const std::array<std::int16_t, kMaxArity> args = *arguments<std::int16_t>(op, values);
  std::array<std::int64_t, kMaxArity> wide{};
  std::copy(args.begin(), args.end(), wide.begin());
  return agrees(stage_list_affordable(op, wide), args);
}

// int64 against cpp_int, and int16 too where the values fit it; drawn in
// cpp_int, a case is compared where its values fit int64.
template <class Int>
Verdict narrow_agree(std::size_t drawn_op, const Int* values, KindMask* kinds) {
  const auto args64 = arguments<std::int64_t>(drawn_op, values);
  if (!args64) return vacuous("an argument does not fit int64: only cpp_int holds it");
  *kinds = KindMask{1} << drawn_op;
  static const std::size_t plan_op = *operation_index("plan");
  if (drawn_op == plan_op && !walks_every_element()) {
    const std::array<std::int64_t, kMaxArity>& a = *args64;
    const Outcome<std::int64_t> n = plan_copy_count(a[0], a[1], a[2], a[3], a[4] != 0);
    if (n.ok() && n.value() > current_walk().budget && n.value() <= kMaxListed) {
      if (const auto args16 = arguments<std::int16_t>(drawn_op, values)) {
        if (Verdict v = plan_agrees_where_walked(*args16, n.value()); v.is_violated()) return v;
      }
      return plan_agrees_where_walked(a, n.value());
    }
  }
  if (const std::optional<StateFamily> family = state_plan_family(drawn_op); family && !walks_every_element()) {
    const std::array<std::int64_t, kMaxArity>& a = *args64;
    const auto n = state_plan_copy_count(a[0], a[1], a[2], state_plan_dims(*family, a));
    if (n.ok() && n.value() > current_walk().budget) {
      const auto count = static_cast<std::int64_t>(n.value());  // at most kMaxStateListed: state_plan lists it
      if (const auto args16 = arguments<std::int16_t>(drawn_op, values)) {
        if (Verdict v = state_plan_agrees_where_walked(*family, *args16, count); v.is_violated()) return v;
      }
      return state_plan_agrees_where_walked(*family, a, count);
    }
  }
  if (const std::optional<StateFamily> family = state_served_family(drawn_op)) {
    const std::array<std::int64_t, kMaxArity>& a = *args64;
    const std::int64_t longest = walks_every_element() ? kMaxWalked : current_walk().budget;
    const Outcome<Span<std::int64_t>> w = window_span(a[0], a[1], a[2]);
    if (w.ok() && w.value().end - w.value().first > longest) {
      if (const auto args16 = arguments<std::int16_t>(drawn_op, values)) {
        if (Verdict v = state_served_span_agrees(*family, *args16); v.is_violated()) return v;
      }
      return state_served_span_agrees(*family, a);
    }
  }
  static const std::size_t stage_plan_op = *operation_index("stage_plan");
  if (drawn_op == stage_plan_op && !walks_every_element()) {
    const std::array<std::int64_t, kMaxArity>& a = *args64;
    const Topology<std::int64_t> t{a[3], a[4], a[5], a[6] != 0, split_of_code(a[7]), split_of_code(a[8]),
                                   {a[9] != 0, a[10] != 0}};
    const auto n = stage_plan_copy_count(a[0], a[1], a[2], t);
    if (n.ok() && n.value() > current_walk().budget) {
      const auto count = static_cast<std::int64_t>(n.value());  // at most kMaxListed: stage_plan lists it
      if (const auto args16 = arguments<std::int16_t>(drawn_op, values)) {
        if (Verdict v = stage_plan_agrees_where_walked(*args16, count); v.is_violated()) return v;
      }
      return stage_plan_agrees_where_walked(a, count);
    }
  }
  const std::size_t op = affordable(drawn_op, *args64);
  if (const auto args16 = arguments<std::int16_t>(drawn_op, values)) {
    if (Verdict v = agrees(op, *args16); v.is_violated()) return v;
  }
  return agrees(op, *args64);
}

Entry narrow_models_entry() {
  Entry e;
  e.name = "NarrowModelsAgreeWithCppIntModel";
  e.section = "§9.5";
  e.family = Family::Agreement;
  for (std::size_t op = 0; op < operation_infos().size(); ++op) {
    if (operation_infos()[op].params.size() > kMaxArity) throw std::invalid_argument("an operation has too many parameters");
    e.domains.push_back(operation_domains()[op].domain);
    e.domain_names.push_back(operation_infos()[op].name.data());
    e.kinds.push_back(operation_infos()[op].name.data());
  }
  if (e.kinds.size() > kMaxKinds) throw std::invalid_argument("the differential has more operations than kinds");
  e.min_non_vacuous = 1.0;
  e.proof = Proof::not_provable(
      "a statement about the compiled int16 and int64 models (their overflow checks and wide products), not about "
      "the SPEC's arithmetic, which is all the Z3 terms state; the sweep, the properties and the fuzzer test it");
  e.excluded[static_cast<std::size_t>(Engine::RapidCheckCppInt)] =
      "compares the narrow models with cpp_int on values they hold; CppInt draws far beyond them";
  e.check_int64 = &narrow_agree<std::int64_t>;
  e.check_big = &narrow_agree<BigInt>;
  e.check_int16 = &int16_agrees;
  return e;
}

[[maybe_unused]] const declare::detail::Registration registration{narrow_models_entry()};

}  // namespace
}  // namespace tpcheck::inv
