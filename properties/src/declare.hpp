// How an invariant is declared, once, next to its check:
//
//   TPCHECK_INVARIANT(RoundTripReturnsHome, "§9.3", RoundTrip,
//       domain(pair("L", "R", Pairs::Divisible), rank("r", "L")),
//       kinds(kind("L < R", [](const auto& L, const auto& R, const auto&) { return L < R; }), ...),
//       min_non_vacuous(1.0).proof(Proof::by_z3()),
//       [](const auto& L, const auto& R, const auto& r) { return round_trip_returns_home(r, L, R); });
//
// The check and every kind's classifier take the domain's values in its order
// (a flag as 0 or 1) and are generic over the integer type; the registry
// instantiates them for int64 and cpp_int. A classifier only runs on cases
// the check did not find vacuous.
#pragma once

#include <exception>
#include <tuple>
#include <type_traits>
#include <utility>

#include "oracle_entry.hpp"
#include "tpcheck/domain.hpp"
#include "tpcheck/registry.hpp"

namespace tpcheck::inv::declare {

using namespace ::tpcheck::dom;  // the block builders read as part of a declaration

template <class F>
struct KindSpec {
  const char* label;
  F classify;
};

template <class F>
KindSpec<F> kind(const char* label, F classify) {
  return {label, classify};
}

template <class... K>
std::tuple<K...> kinds(K... k) {
  return {k...};
}

template <class... B>
std::vector<Block> domain(B... blocks) {
  return {blocks...};
}

// The rest of a declaration, chained: min_non_vacuous(0.9).size_cap(4096).proof(...).
struct Settings {
  double share = 1.0;
  std::int64_t cap = 0;
  Proof proved;
  std::array<const char*, kEngineCount> excluded{};
  std::int64_t sweep_tp = 0, sweep_heads = 0;

  Settings size_cap(std::int64_t c) const {
    Settings s = *this;
    s.cap = c;
    return s;
  }
  Settings proof(Proof p) const {
    Settings s = *this;
    s.proved = p;
    return s;
  }
  // The sweep walks sizes and head counts up to at most these (Domain::sweep_cap).
  Settings sweep_bound(std::int64_t max_tp, std::int64_t max_heads) const {
    Settings s = *this;
    s.sweep_tp = max_tp;
    s.sweep_heads = max_heads;
    return s;
  }
  Settings exclude(Engine e, const char* reason) const {
    Settings s = *this;
    s.excluded[static_cast<std::size_t>(e)] = reason;
    return s;
  }
};

inline Settings min_non_vacuous(double share) {
  Settings s;
  s.share = share;
  return s;
}

namespace detail {

// How many `const Int&` arguments F takes (a generic lambda's arity).
template <class F, class Int, std::size_t... I>
constexpr bool takes(std::index_sequence<I...>) {
  return std::is_invocable_v<F, decltype((void)I, std::declval<const Int&>())...>;
}
template <class F, class Int, std::size_t N = 0>
constexpr std::size_t arity() {
  if constexpr (N > static_cast<std::size_t>(kMaxValues)) {
    return N;  // not callable with up to kMaxValues integers: make_entry reports it
  } else if constexpr (takes<F, Int>(std::make_index_sequence<N>{})) {
    return N;
  } else {
    return arity<F, Int, N + 1>();
  }
}

template <class F, class Int, std::size_t... I>
decltype(auto) apply_values(const F& f, const Int* v, std::index_sequence<I...>) {
  return f(v[I]...);
}

template <class F, class Int>
decltype(auto) apply_values(const F& f, const Int* v) {
  return apply_values(f, v, std::make_index_sequence<arity<F, Int>()>{});
}

// The check and the classifiers are captureless lambdas: their types alone
// (default-constructed here) make the function the registry points to.
template <class Int, class CheckF, class KindsT>
Verdict evaluate(std::size_t, const Int* values, KindMask* kinds) {
  try {
    Verdict verdict = apply_values(CheckF{}, values);
    if (verdict.non_vacuous()) {
      KindMask mask = 0;
      std::size_t bit = 0;
      std::apply([&](const auto&... k) { ((mask |= apply_values(k.classify, values) ? KindMask{1} << bit : 0, ++bit), ...); },
                 KindsT{});
      *kinds = mask;
    }
    return verdict;
  } catch (const std::exception& e) {  // a broken model may throw from Outcome::value()
    return violated(std::string("the check threw: ") + e.what());
  }
}

// Puts an entry on the registry's list (run once per declaration, before main).
struct Registration {
  explicit Registration(Entry entry);
};

// Throws (at start-up, naming the entry) when the check's arity is not the domain's width.
void check_arity(const Entry& e, std::size_t arity);

template <class KindsT, class CheckF>
Entry make_entry(const char* name, const char* section, Family family, std::vector<Block> blocks,
                 const KindsT& kinds, const Settings& settings, CheckF) {
  static_assert(std::is_empty_v<CheckF>, "the check must be a captureless lambda");
  Entry e;
  e.name = name;
  e.section = section;
  e.family = family;
  e.domains.emplace_back(std::move(blocks));
  if (settings.sweep_tp > 0) e.domains.back().sweep_cap(settings.sweep_tp, settings.sweep_heads);
  e.domain_names = {name};
  std::apply([&](const auto&... k) { (e.kinds.push_back(k.label), ...); }, kinds);
  e.min_non_vacuous = settings.share;
  e.size_cap = settings.cap;
  e.proof = settings.proved;
  e.excluded = settings.excluded;
  e.check_int64 = &evaluate<std::int64_t, CheckF, KindsT>;
  e.check_big = &evaluate<BigInt, CheckF, KindsT>;
  check_arity(e, arity<CheckF, std::int64_t>());
  return e;
}

}  // namespace detail
}  // namespace tpcheck::inv::declare

// Used inside namespace tpcheck::inv after `using namespace declare;`.
#define TPCHECK_INVARIANT(Name, Section, FamilyName, Domain, Kinds, Settings, ...)                      \
  [[maybe_unused]] const ::tpcheck::inv::declare::detail::Registration registration_##Name{           \
      ::tpcheck::inv::declare::detail::make_entry(#Name, Section, ::tpcheck::inv::Family::FamilyName, \
                                                  Domain, Kinds, Settings, __VA_ARGS__)}

// An operation's preconditions (tpcheck/oracle.hpp), declared once as the
// SPEC states them: the entry Name checks that the operation fails exactly
// there, with the first failing one's exception and text, and succeeds
// elsewhere.
//
//   TPCHECK_ORACLE(RemoteRankErrorsFireExactlyWhereDue, "§1", "remote_rank(r, L, R)",
//       [](const auto& r, const auto& L, const auto& R) {
//         return preconditions(
//             fails_if("sizes not positive", L <= 0 || R <= 0, value_error("TP sizes must be positive")),
//             fails_if("rank out of range", r < 0 || r >= L, value_error("local_tp_rank {r} must be in [0, {L})")));
//       });
//
// The signature names the operation as `tpcheck eval` does and its
// parameters in its order (lib/'s names, case aside); an optional
// `options()...` before the lambda changes the domain or the proof status.
#define TPCHECK_ORACLE(Name, Section, Signature, ...)                                       \
  [[maybe_unused]] const ::tpcheck::inv::declare::detail::Registration registration_##Name{ \
      ::tpcheck::oracle::detail::make_entry(#Name, Section, Signature, __VA_ARGS__)}

// Every file of declarations names itself once, so that registry.cpp can make
// the linker keep it (a static library drops object files nobody refers to).
#define TPCHECK_DECLARATIONS(File) \
  namespace tpcheck::inv::declare::files { int File = 0; }
