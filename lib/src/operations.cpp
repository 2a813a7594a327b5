// The name -> model function table: every model operation, declared once.
#include "tpcheck/operations.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <tuple>
#include <unordered_map>

#include "tpcheck/deployment.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/render.hpp"
#include "tpcheck/stages.hpp"
#include "tpcheck/state.hpp"

namespace tpcheck {
namespace {

// A model value in a narrow type as the cpp_int model's value of the same operation.
BigInt lift(std::int16_t v) { return widen(v); }
BigInt lift(std::int32_t v) { return widen(v); }
BigInt lift(std::int64_t v) { return widen(v); }
BigInt lift(__int128 v) { return widen(v); }
BigInt lift(unsigned __int128 v) { return widen(v); }
bool lift(bool v) { return v; }
None lift(None v) { return v; }
template <class I>
Span<BigInt> lift(const Span<I>& s) {
  return {widen(s.first), widen(s.end)};
}
template <class I>
Copy<BigInt> lift(const Copy<I>& c) {
  return {widen(c.p), widen(c.lo), widen(c.hi)};
}
template <class I>
WideSpan<BigInt> lift(const WideSpan<I>& r) {
  return {widen(r.first), widen(r.end)};
}
template <class I>
StageCopy<BigInt> lift(const StageCopy<I>& c) {
  return {widen(c.source), widen(c.lo), widen(c.hi), lift(c.layers)};
}
template <class I>
DuplicateHeadFactors<BigInt> lift(const DuplicateHeadFactors<I>& f) {
  return {widen(f.prefill), widen(f.decode)};
}
template <class I>
StateShape<BigInt> lift(const StateShape<I>& s) {
  return {lift(s.c_loc), widen(s.ssm_heads), lift(s.elements_per_head)};
}
template <class I>
SegmentRange<BigInt> lift(const SegmentRange<I>& r) {
  return {r.name, lift(r.lo), lift(r.hi), lift(r.local_lo), r.replicated};
}
template <class I>
StateCopy<BigInt> lift(const StateCopy<I>& c) {
  return {c.segment, c.name, widen(c.p), lift(c.src), lift(c.dst), lift(c.n)};
}
template <class V>
auto lift(const std::vector<V>& items) {
  std::vector<decltype(lift(items.front()))> out;
  out.reserve(items.size());
  for (const V& item : items) out.push_back(lift(item));
  return out;
}

// A plain value (head_compatible's bool) as an outcome, so every body returns one.
template <class V>
Outcome<V> as_outcome(Outcome<V> o) {
  return o;
}
inline Outcome<bool> as_outcome(bool v) { return v; }

template <class Int>
using Args = std::span<const Int>;

// What an operation gives in one integer type: its rendered outcome, and its
// failure alone.
template <class Int>
struct InType {
  std::function<std::string(Args<Int>)> render;
  std::function<std::optional<Failure>(Args<Int>)> failure;
};

struct Operation {
  OperationInfo info;
  std::tuple<InType<std::int16_t>, InType<std::int64_t>, InType<BigInt>> in_types;
  std::function<bool(Args<std::int16_t>)> agree16;
  std::function<bool(Args<std::int64_t>)> agree64;

  template <class Int>
  const InType<Int>& in() const {
    return std::get<InType<Int>>(in_types);
  }
};

// The cpp_int copy of narrow arguments (no operation has more than twelve).
template <class Narrow>
std::array<BigInt, 12> widened(Args<Narrow> a) {
  std::array<BigInt, 12> big;
  for (std::size_t i = 0; i < a.size(); ++i) big[i] = widen(a[i]);
  return big;
}

template <class Narrow, class Body>
bool agrees(const Body& body, Args<Narrow> a) {
  const auto narrow_outcome = as_outcome(body(a));
  const std::array<BigInt, 12> big = widened(a);
  const auto wide_outcome = as_outcome(body(Args<BigInt>(big.data(), a.size())));
  if (narrow_outcome.ok() != wide_outcome.ok()) return false;
  return narrow_outcome.ok() ? lift(narrow_outcome.value()) == wide_outcome.value()
                             : narrow_outcome.failure() == wide_outcome.failure();
}

// `fails` fails exactly as `body` does (body itself, or a cheaper call with
// the same checks): the failure alone is asked of it (the oracles' judge, per
// fuzz input), so a long list is not built only to be dropped.
template <class Int, class Body, class Fails>
InType<Int> in_type(const Body& body, const Fails& fails) {
  return {[body](Args<Int> a) { return render(as_outcome(body(a))); },
          [fails](Args<Int> a) -> std::optional<Failure> {
            auto outcome = as_outcome(fails(a));
            if (outcome.ok()) return std::nullopt;
            return outcome.failure();
          }};
}

// One generic body over the model's Int serves every integer type: the
// rendered outcome `tpcheck eval` prints, the failure alone, and the typed
// comparison of a narrow model with cpp_int (no text is built unless they
// disagree).
template <class Body, class Fails>
Operation op(std::string_view name, std::vector<Param> params, Body body, Fails fails) {
  return {{name, std::move(params)},
          {in_type<std::int16_t>(body, fails), in_type<std::int64_t>(body, fails), in_type<BigInt>(body, fails)},
          [body](Args<std::int16_t> a) { return agrees<std::int16_t>(body, a); },
          [body](Args<std::int64_t> a) { return agrees<std::int64_t>(body, a); }};
}
template <class Body>
Operation op(std::string_view name, std::vector<Param> params, Body body) {
  return op(name, std::move(params), body, body);
}

// Parameter shorthands.
Param size(std::string_view name) { return {name, Role::Size}; }
Param rank_of(std::string_view name, int of) { return {name, Role::Rank, of}; }
Param heads_param() { return {"H", Role::HeadCount}; }
Param mla() { return {"MLA", Role::Flag}; }

// (P, D, H, MLA): a deployment's sizing.
std::vector<Param> sizing_params() { return {size("P"), size("D"), heads_param(), mla()}; }

// A TRT-LLM deployment's stage splits and attention-DP flags (eval's options):
// the parameters after the `first` positional ones.
std::vector<Param> with_splits(std::vector<Param> params) {
  const int at = static_cast<int>(params.size());
  params.push_back({"PREFILL_PP_LAYERS", Role::StageSplit});
  params.push_back({"DECODE_PP_LAYERS", Role::StageSplit, at});
  return params;
}
std::vector<Param> with_adp(std::vector<Param> params) {
  params.push_back({"PREFILL_ADP", Role::AttentionDp});
  params.push_back({"DECODE_ADP", Role::AttentionDp});
  return params;
}
std::vector<Param> with_stages(std::vector<Param> params) { return with_adp(with_splits(std::move(params))); }

// A stage split's layer counts from its code, in the call's integer type.
template <class Int>
std::vector<Int> split(const Int& code) {
  return split_of_code<Int>(code);
}

// overlapping_stages(side, a[0], splits a[1] and a[2]).
template <class A>
auto stages_of(PpSide side, const A& a) {
  using Int = std::remove_cvref_t<decltype(a[0])>;
  const std::vector<Int> prefill = split(a[1]), decode = split(a[2]);
  return overlapping_stages<Int>(side, a[0], prefill, decode);
}

// The topology of a call with_stages: P, D, H and MLA at these positions,
// the splits and flags after `first` (H 1 and no MLA when the call has none).
template <class A>
auto topology(const A& a, int P, int D, int H, int mla, std::size_t first) {
  using Int = std::remove_cvref_t<decltype(a[0])>;
  return Topology<Int>{a[P], a[D], H < 0 ? Int(1) : a[H], mla >= 0 && a[mla] != 0, split(a[first]),
                       split(a[first + 1]), AttentionDp{a[first + 2] != 0, a[first + 3] != 0}};
}

template <class A>
AttentionDp adp_of(const A& a, std::size_t first) {
  return {a[first] != 0, a[first + 1] != 0};
}

// A family's DIMS from the call's arguments from `first` on (the unused ones 1).
template <class A>
auto dims_of(StateFamily family, const A& a, std::size_t first) {
  using Int = std::remove_cvref_t<decltype(a[0])>;
  StateDims<Int> dims{family, {Int(1), Int(1), Int(1), Int(1)}};
  for (std::size_t i = 0; i < state_dim_count(family); ++i) dims.v[i] = a[first + i];
  return dims;
}

// `params` followed by family F's DIMS, each sharded by the operation's sizes.
std::vector<Param> with_dims(std::vector<Param> params, StateFamily family) {
  const std::span<const std::string_view> names = state_dim_names(family);
  for (std::size_t i = 0; i < names.size(); ++i) {
    Param p{names[i], Role::StateDim};
    p.family = static_cast<int>(family);
    p.dim = static_cast<int>(i);
    params.push_back(p);
  }
  return params;
}

// §16.1-16.2: F_state_shape, F_segments, F_state_plan, F_state_served per
// family, then state_pairing.
void add_state_operations(std::vector<Operation>& t) {
  for (const StateFamily f : kStateFamilies) {
    const std::span<const std::string, 4> names = state_operation_names(f);
    t.push_back(op(names[0], with_dims({size("T")}, f),
                   [f](const auto& a) { return state_shape(a[0], dims_of(f, a, 1)); }));
    t.push_back(op(names[1], with_dims({rank_of("r", 1), size("T")}, f),
                   [f](const auto& a) { return segments(a[0], a[1], dims_of(f, a, 2)); }));
    t.push_back(op(names[2], with_dims({rank_of("d", 2), size("P"), size("D")}, f),
                   [f](const auto& a) { return state_plan(a[0], a[1], a[2], dims_of(f, a, 3)); },
                   // Its count fails as it does, without listing up to 2^20 copies.
                   [f](const auto& a) { return state_plan_copy_count(a[0], a[1], a[2], dims_of(f, a, 3)); }));
    t.push_back(op(names[3], with_dims({rank_of("p", 1), size("P"), size("D")}, f),
                   [f](const auto& a) { return state_served(a[0], a[1], a[2], dims_of(f, a, 3)); },
                   // Its span fails as it does, without listing up to 2^20 ranks.
                   [f](const auto& a) { return state_served_span(a[0], a[1], a[2], dims_of(f, a, 3)); }));
  }
  const std::vector<Param> pairing = {{"LP", Role::ConvWindow},  {"LD", Role::ConvWindow, 0},
                                      {"ECP", Role::ElementSize}, {"ECD", Role::ElementSize, 2},
                                      {"ESP", Role::ElementSize}, {"ESD", Role::ElementSize, 4}};
  t.push_back(op("state_pairing", pairing,
                 [](const auto& a) { return state_pairing(a[0], a[1], a[2], a[3], a[4], a[5]); }));
}

const std::vector<Operation>& table() {
  static const std::vector<Operation> ops = [] {
    const std::vector<Param> local_rank_pair = {rank_of("r", 1), size("L"), size("R")};
    const std::vector<Param> decode_rank_sizing = {rank_of("d", 2), size("P"), size("D"), heads_param(), mla()};
    std::vector<Operation> t;
    // §1-3
    t.push_back(op("remote_rank", local_rank_pair, [](const auto& a) { return remote_rank(a[0], a[1], a[2]); }));
    t.push_back(op("general_rank", local_rank_pair, [](const auto& a) { return general_rank(a[0], a[1], a[2]); }));
    t.push_back(op("tp_ratio", {size("L"), size("R")}, [](const auto& a) { return tp_ratio(a[0], a[1]); }));
    t.push_back(op("window", local_rank_pair, [](const auto& a) { return window(a[0], a[1], a[2]); }));
    t.push_back(op("window_span", local_rank_pair, [](const auto& a) { return window_span(a[0], a[1], a[2]); }));
    // §4-5
    t.push_back(op("heads", {rank_of("r", 1), size("T"), heads_param()},
                   [](const auto& a) { return heads(a[0], a[1], a[2]); }));
    t.push_back(op("holders", {{"h", Role::HeadIndex, 2}, size("T"), heads_param()},
                   [](const auto& a) { return holders(a[0], a[1], a[2]); }));
    t.push_back(op("head_compatible", {size("T"), heads_param()},
                   [](const auto& a) { return head_compatible(a[0], a[1]); }));
    t.push_back(op("kv_heads_guard", {size("L"), size("R"), heads_param(), mla()},
                   [](const auto& a) { return kv_heads_guard(a[0], a[1], a[2], a[3] != 0); }));
    t.push_back(op("kv_heads_guard_strict", {size("L"), size("R"), heads_param(), mla()},
                   [](const auto& a) { return kv_heads_guard_strict(a[0], a[1], a[2], a[3] != 0); }));
    // §6-7
    t.push_back(op("plan", decode_rank_sizing, [](const auto& a) { return plan(a[0], a[1], a[2], a[3], a[4] != 0); }));
    t.push_back(op("plan_copy_count", decode_rank_sizing,
                   [](const auto& a) { return plan_copy_count(a[0], a[1], a[2], a[3], a[4] != 0); }));
    t.push_back(op("single_source_plan", decode_rank_sizing,
                   [](const auto& a) { return single_source_plan(a[0], a[1], a[2], a[3], a[4] != 0); }));
    t.push_back(op("readers", {rank_of("p", 1), size("P"), size("D"), heads_param(), mla()},
                   [](const auto& a) { return readers(a[0], a[1], a[2], a[3], a[4] != 0); }));
    t.push_back(op("single_readers", {rank_of("p", 1), size("P"), size("D")},
                   [](const auto& a) { return single_readers(a[0], a[1], a[2]); }));
    // §14.1
    t.push_back(op("sglang_target_ranks", {rank_of("d", 2), size("P"), size("D")},
                   [](const auto& a) { return sglang_target_ranks(a[0], a[1], a[2]); }));
    // §15.0, §15.4: the stage operations read PREFILL_PP_LAYERS, DECODE_PP_LAYERS,
    // PREFILL_ADP, DECODE_ADP after their positional parameters.
    // stages(s, prefill) of a decode stage s, and stages(u, decode) of a prefill stage u.
    t.push_back(op("prefill_stages", with_splits({{"s", Role::Stage, 2}}),
                   [](const auto& a) { return stages_of(PpSide::Decode, a); }));
    t.push_back(op("decode_stages", with_splits({{"u", Role::Stage, 1}}),
                   [](const auto& a) { return stages_of(PpSide::Prefill, a); }));
    const auto request_params = [](const char* stage, int stage_of, const char* rank, int rank_of_index,
                                   const char* group, int group_of, int group_given) {
      return std::vector<Param>{{stage, Role::Stage, stage_of}, {rank, Role::Rank, rank_of_index},
                                {group, Role::DpGroup, group_of, group_given}};
    };
    // (s, d, c, P, D, PREFILL_PP_LAYERS = 5, DECODE_PP_LAYERS = 6, PREFILL_ADP = 7, DECODE_ADP = 8)
    {
      std::vector<Param> p = request_params("s", 6, "d", 4, "c", 3, 7);
      p.insert(p.end(), {size("P"), size("D")});
      t.push_back(op("stage_window", with_stages(p),
                     [](const auto& a) { return stage_window(a[0], a[1], a[2], topology(a, 3, 4, -1, -1, 5)); }));
      t.push_back(op("stage_window_spans", with_stages(p), [](const auto& a) {
        return stage_window_spans(a[0], a[1], a[2], topology(a, 3, 4, -1, -1, 5));
      }));
    }
    // (u, p, g, P, D, ... PREFILL_PP_LAYERS = 5, DECODE_ADP = 8)
    {
      std::vector<Param> p = request_params("u", 5, "p", 3, "g", 4, 8);
      p.insert(p.end(), {size("P"), size("D")});
      t.push_back(op("stage_served", with_stages(p),
                     [](const auto& a) { return stage_served(a[0], a[1], a[2], topology(a, 3, 4, -1, -1, 5)); }));
      t.push_back(op("stage_served_spans", with_stages(p), [](const auto& a) {
        return stage_served_spans(a[0], a[1], a[2], topology(a, 3, 4, -1, -1, 5));
      }));
    }
    // (s, d, c, P, D, H, MLA, PREFILL_PP_LAYERS = 7, DECODE_PP_LAYERS = 8, PREFILL_ADP = 9, DECODE_ADP = 10)
    {
      std::vector<Param> p = request_params("s", 8, "d", 4, "c", 3, 9);
      p.insert(p.end(), {size("P"), size("D"), heads_param(), mla()});
      t.push_back(op("stage_plan", with_stages(p),
                     [](const auto& a) { return stage_plan(a[0], a[1], a[2], topology(a, 3, 4, 5, 6, 7)); },
                     // Its count fails as it does, without listing up to 2^20 copies.
                     [](const auto& a) { return stage_plan_copy_count(a[0], a[1], a[2], topology(a, 3, 4, 5, 6, 7)); }));
    }
    t.push_back(op("duplicate_head_factors", with_adp(sizing_params()), [](const auto& a) {
      return duplicate_head_factors(a[0], a[1], a[2], a[3] != 0, adp_of(a, 4));
    }));
    t.push_back(op("whole_block_copy_allowed", with_adp(sizing_params()), [](const auto& a) {
      return whole_block_copy_allowed(a[0], a[1], a[2], a[3] != 0, adp_of(a, 4));
    }));
    // §8
    t.push_back(op("port_offset", {{"DP_RANK", Role::DpRank}, rank_of("TP_RANK", 2), size("TP_SIZE")},
                   [](const auto& a) { return port_offset(a[0], a[1], a[2]); }));
    t.push_back(op("host_index", {rank_of("q", 1), size("T"), {"HOSTS", Role::HostCount, 1}},
                   [](const auto& a) { return host_index(a[0], a[1], a[2]); }));
    t.push_back(op("port_range", {{"BASE", Role::BasePort}, {"DP_SIZE", Role::DpSize}, size("TP_SIZE")},
                   [](const auto& a) { return port_range(a[0], a[1], a[2]); }));
    // §11: one operation per connector, "<connector>_accepts P D H MLA".
    static const std::array<std::string, kConnectors.size()> names = [] {
      std::array<std::string, kConnectors.size()> n;
      for (std::size_t i = 0; i < kConnectors.size(); ++i) n[i] = std::string(connector_name(kConnectors[i])) + "_accepts";
      return n;
    }();
    // TRT-LLM's transceivers read attention DP too (PREFILL_ADP, DECODE_ADP).
    for (std::size_t i = 0; i < kConnectors.size(); ++i) {
      const Connector c = kConnectors[i];
      if (models_attention_dp(c)) {
        t.push_back(op(names[i], with_adp(sizing_params()), [c](const auto& a) {
          return sizing_accepted(c, a[0], a[1], a[2], a[3] != 0, adp_of(a, 4));
        }));
      } else {
        t.push_back(op(names[i], sizing_params(),
                       [c](const auto& a) { return sizing_accepted(c, a[0], a[1], a[2], a[3] != 0); }));
      }
    }
    add_state_operations(t);
    return t;
  }();
  return ops;
}


}  // namespace

const std::vector<OperationInfo>& operation_infos() {
  static const std::vector<OperationInfo> infos = [] {
    std::vector<OperationInfo> v;
    for (const auto& o : table()) v.push_back(o.info);
    return v;
  }();
  return infos;
}

std::optional<std::size_t> operation_index(std::string_view name) {
  // Hashed, not a scan of every name: eval's parser asks for each line, and
  // in a fuzz build each comparison of a scan is a traced call.
  static const std::unordered_map<std::string_view, std::size_t> by_name = [] {
    std::unordered_map<std::string_view, std::size_t> m;
    for (std::size_t i = 0; i < table().size(); ++i) m.emplace(table()[i].info.name, i);
    return m;
  }();
  const auto found = by_name.find(name);
  if (found == by_name.end()) return std::nullopt;
  return found->second;
}

template <ModelInt Int>
std::string evaluate_in(std::size_t op, std::span<const Int> args) {
  return table().at(op).in<Int>().render(args);
}
template std::string evaluate_in<std::int16_t>(std::size_t, std::span<const std::int16_t>);
template std::string evaluate_in<std::int64_t>(std::size_t, std::span<const std::int64_t>);
template std::string evaluate_in<BigInt>(std::size_t, std::span<const BigInt>);

template <ModelInt Int>
std::optional<Failure> failure_in(std::size_t op, std::span<const Int> args) {
  return table().at(op).in<Int>().failure(args);
}
template std::optional<Failure> failure_in<std::int16_t>(std::size_t, std::span<const std::int16_t>);
template std::optional<Failure> failure_in<std::int64_t>(std::size_t, std::span<const std::int64_t>);
template std::optional<Failure> failure_in<BigInt>(std::size_t, std::span<const BigInt>);

template <class Narrow>
bool narrow_agrees_with_cpp_int(std::size_t op, std::span<const Narrow> args) {
  const Operation& o = table().at(op);
  if constexpr (std::same_as<Narrow, std::int16_t>) {
    return o.agree16(args);
  } else {
    return o.agree64(args);
  }
}
template bool narrow_agrees_with_cpp_int<std::int16_t>(std::size_t, std::span<const std::int16_t>);
template bool narrow_agrees_with_cpp_int<std::int64_t>(std::size_t, std::span<const std::int64_t>);

template <ModelInt Int>
std::string_view model_type_name() {
  if constexpr (std::same_as<Int, std::int16_t>) {
    return "int16";
  } else if constexpr (std::same_as<Int, std::int64_t>) {
    return "int64";
  } else {
    return "cpp_int";
  }
}
template std::string_view model_type_name<std::int16_t>();
template std::string_view model_type_name<std::int64_t>();
template std::string_view model_type_name<BigInt>();

template <class Narrow>
std::string narrow_disagreement(std::size_t op, std::span<const Narrow> args) {
  if (narrow_agrees_with_cpp_int<Narrow>(op, args)) return "";
  std::vector<BigInt> big;
  for (const Narrow& a : args) big.push_back(widen(a));
  std::string what = std::string(table().at(op).info.name) + "(";
  for (std::size_t i = 0; i < args.size(); ++i) what += (i ? ", " : "") + decimal(args[i]);
  return what + ") gives " + evaluate_in<Narrow>(op, args) + " in " + std::string(model_type_name<Narrow>()) +
         " but " + evaluate_in<BigInt>(op, big) + " in cpp_int";
}
template std::string narrow_disagreement<std::int16_t>(std::size_t, std::span<const std::int16_t>);
template std::string narrow_disagreement<std::int64_t>(std::size_t, std::span<const std::int64_t>);

}  // namespace tpcheck
