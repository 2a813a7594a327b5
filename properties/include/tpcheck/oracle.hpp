// The error oracle: for every model operation, the SPEC's preconditions in
// the SPEC's order, each with the exception it raises and its exact text,
// stated here again from the SPEC (never taken from lib/), so that a fault in
// the model cannot move the oracle with it.
//
// A precondition is a condition under which the operation fails, written as
// a term over the operation's parameters (tpcheck/oracle_terms.hpp: Python's
// integers, `/` is floor division, `%` its remainder), and the failure it
// raises, whose text names values in braces as the SPEC writes them:
//
//   fails_if("rank out of range", r < 0 || r >= L, value_error("local_tp_rank {r} must be in [0, {L})"))
//
// The first precondition whose condition holds is the one the operation must
// raise; where none holds it must succeed. A later condition may assume the
// earlier ones do not hold (a divisor is positive once its positivity was a
// precondition before). Every engine evaluates the declaration's terms as
// compiled code; prove/ turns them into Z3 terms and proves that the
// operation's encoding fails exactly so, for all integers.
//
// Declarations (properties/src/preconditions_*.cpp, TPCHECK_ORACLE in
// src/declare.hpp) each make one registry entry, "<Operation>ErrorsFireExactlyWhereDue",
// whose kinds are the preconditions (each met as the first to fail) and the
// ways to succeed.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "tpcheck/oracle_terms.hpp"
#include "tpcheck/outcome.hpp"
#include "tpcheck/pyint.hpp"
#include "tpcheck/registry.hpp"

namespace tpcheck::oracle {

using terms::if_else;
using terms::max;
using terms::min;
using terms::named;
using terms::first_short_stage;
using terms::is_power_of_two;
using terms::stage_count;
using terms::stage_layers;
using terms::stage_of_layer;
using terms::stage_start;

// ---- declaring ------------------------------------------------------------------

// The exception and text a precondition raises. The text is the SPEC's, with
// "{name}" for a parameter's value in decimal, or for a value the message
// binds with where() (a count the text reports, a size under another name).
template <class... Bound>
struct Raises {
  ErrorKind kind;
  std::string text;
  std::vector<std::string> names;  // of the bound values, in order
  std::tuple<Bound...> bound;

  template <terms::Operand T>
  Raises<Bound..., terms::Lifted<T>> where(std::string name, const T& value) const {
    std::vector<std::string> more = names;
    more.push_back(std::move(name));
    return {kind, text, std::move(more), std::tuple_cat(bound, std::tuple{terms::lift(value)})};
  }
};

inline Raises<> value_error(std::string text) { return {ErrorKind::ValueError, std::move(text), {}, {}}; }
inline Raises<> assertion_error(std::string text) { return {ErrorKind::AssertionError, std::move(text), {}, {}}; }
inline Raises<> not_implemented_error(std::string text) {
  return {ErrorKind::NotImplementedError, std::move(text), {}, {}};
}

template <class C, class R>
struct Precondition {
  std::string label;  // what fails, in words: the kind the registry asserts is reached
  C when;
  R raises;
};

template <terms::Term C, class R>
Precondition<C, R> fails_if(std::string label, const C& when, R raises) {
  return {std::move(label), when, std::move(raises)};
}

// A way the operation succeeds, for coverage alone: the registry asserts each
// is met by a case where every precondition holds (the guard accepts under
// MLA, for equal sizes, for replicated heads). An operation that declares
// none has one such kind: that it succeeds at all.
template <class C>
struct Success {
  std::string label;
  C when;
};

template <terms::Term C>
Success<C> succeeds_if(std::string label, const C& when) {
  return {std::move(label), when};
}

// What a declaration returns: its preconditions in order, and its ways to succeed.
template <class Failures, class Successes>
struct Declaration {
  Failures failures;    // a tuple of Precondition
  Successes successes;  // a tuple of Success
};

namespace detail {
template <class C, class R>
auto failures_of(const Precondition<C, R>& p) { return std::tuple{p}; }
template <class C>
auto failures_of(const Success<C>&) { return std::tuple{}; }
template <class... P>
auto failures_of(const std::tuple<P...>& ps) { return ps; }
template <class F, class S>
auto failures_of(const Declaration<F, S>& d) { return d.failures; }
template <class C, class R>
auto successes_of(const Precondition<C, R>&) { return std::tuple{}; }
template <class C>
auto successes_of(const Success<C>& s) { return std::tuple{s}; }
template <class... P>
auto successes_of(const std::tuple<P...>&) { return std::tuple{}; }
template <class F, class S>
auto successes_of(const Declaration<F, S>& d) { return d.successes; }
}  // namespace detail

// A declaration from preconditions, tuples of them (checks several
// operations share, written once as a function), ways to succeed and other
// declarations, in order.
template <class... Parts>
auto preconditions(const Parts&... parts) {
  auto failures = std::tuple_cat(detail::failures_of(parts)...);
  auto successes = std::tuple_cat(detail::successes_of(parts)...);
  return Declaration<decltype(failures), decltype(successes)>{std::move(failures), std::move(successes)};
}

// Shorthands the declarations share (SPEC §1 and §4).
template <terms::Operand D, terms::Operand M>
auto divides(const D& divisor, const M& multiple) {  // multiple % divisor == 0
  return terms::lift(multiple) % divisor == 0;
}
template <terms::Operand T, terms::Operand H>
auto shards(const T& ranks, const H& heads) {  // §4: both positive and one divides the other
  return terms::lift(ranks) >= 1 && terms::lift(heads) >= 1 && (divides(heads, ranks) || divides(ranks, heads));
}

// ---- a declared oracle ---------------------------------------------------------------

// How the engines evaluate an oracle's declaration in one integer type
// (compiled from its terms: make_oracle below).
template <class Int>
struct Evaluator {
  // The first precondition whose condition holds, or their number.
  std::size_t (*first_failing)(const void* typed, const Int* args, std::size_t count) = nullptr;
  // Appends bound value `bound` of precondition `precondition`'s message to `text`.
  void (*add_bound_value)(const void* typed, std::size_t precondition, std::size_t bound, const Int* args,
                          std::size_t count, FailureText& text) = nullptr;
  // Bit i: the i-th way to succeed holds (one that divides by zero does not).
  inv::KindMask (*successes)(const void* typed, const Int* args, std::size_t count) = nullptr;
  // Bit i: precondition i's condition holds, each evaluated on its own.
  inv::KindMask (*failing)(const void* typed, const Int* args, std::size_t count) = nullptr;
};

// One operation's preconditions, with what the registry and prove/ need to run them.
struct Oracle {
  // A piece of a message: literal text, or a parameter's value, or a bound value's.
  struct Piece {
    std::string literal;
    int parameter = -1;
    int bound = -1;
    NodePtr value;  // the value's term (a parameter's or a bound one's)
  };
  struct Message {
    ErrorKind kind;
    std::string text;
    std::vector<std::pair<std::string, NodePtr>> bound;  // the values the text binds by name (Raises::where)
    std::vector<Piece> pieces;                           // the text's pieces, its names resolved
  };
  struct Precondition {
    std::string label;
    NodePtr when;
    Message raises;
  };
  struct Success {
    std::string label;
    NodePtr when;
  };

  std::string entry;      // the registry entry's name: "WindowErrorsFireExactlyWhereDue"
  std::string section;    // the SPEC section of the operation: "§3"
  std::string operation;  // the name `tpcheck eval` and lib/'s operation table know it by
  std::vector<std::string> parameters;  // in the operation's order
  std::vector<bool> flags;              // which parameters are flags (0 or 1: MLA)
  std::vector<Precondition> preconditions;
  std::vector<Success> successes;
  std::vector<std::string> kinds;  // the registry entry's kinds: each precondition, then each way to succeed
  std::string proved_for;          // "all integers r, L, R": what Z3 proves
  std::size_t operation_index = 0;  // in operation_infos()
  std::vector<int> position;        // parameter i is value position[i] of the entry's domain

  std::shared_ptr<const void> typed;  // the declaration, as its terms' types
  Evaluator<std::int16_t> int16;
  Evaluator<std::int64_t> int64;
  Evaluator<BigInt> big;

  template <ModelInt Int>
  const Evaluator<Int>& evaluator() const {
    if constexpr (std::is_same_v<Int, std::int16_t>) {
      return int16;
    } else if constexpr (std::is_same_v<Int, std::int64_t>) {
      return int64;
    } else {
      return big;
    }
  }
};

namespace detail {

struct Signature {
  std::string operation;
  std::vector<std::string> parameters;
};
// "remote_rank(r, L, R)" -> {"remote_rank", {"r", "L", "R"}}; throws std::invalid_argument otherwise.
Signature parse_signature(const char* signature);

// The oracle of the signature from the texts of its declaration: throws
// std::invalid_argument when lib/ has no such operation, its parameters
// differ in number or name (case aside), the declaration takes another
// number of parameters, or a text names a value it does not know.
Oracle describe_oracle(std::string entry, std::string section, const Signature& signature, std::size_t arity,
                       std::vector<Oracle::Precondition> preconditions, std::vector<Oracle::Success> successes);

template <class Declare, std::size_t... I>
constexpr bool takes_parameters(std::index_sequence<I...>) {
  return std::is_invocable_v<Declare, terms::Parameter<I>...>;
}
// How many parameter terms a declaration takes (0: none up to 12).
template <class Declare, std::size_t N = 1>
constexpr std::size_t arity() {
  if constexpr (N > 12) {
    return 0;
  } else if constexpr (takes_parameters<Declare>(std::make_index_sequence<N>{})) {
    return N;
  } else {
    return arity<Declare, N + 1>();
  }
}
template <class Declare, std::size_t... I>
auto declaration_of(const Declare& declare, std::index_sequence<I...>) {
  return declare(terms::Parameter<I>{}...);
}

template <class... Bound>
Oracle::Message message_of(const Raises<Bound...>& r) {
  Oracle::Message m{r.kind, r.text, {}, {}};
  std::size_t i = 0;
  std::apply([&](const auto&... b) { (m.bound.emplace_back(r.names[i++], terms::node_of(b)), ...); }, r.bound);
  return m;  // describe_oracle resolves the text into pieces
}

// Calls f with element `index` of a tuple.
template <class Tuple, class F>
void visit_at(const Tuple& t, std::size_t index, F&& f) {
  std::apply([&](const auto&... e) {
    std::size_t i = 0;
    ((i++ == index ? (f(e), 0) : 0), ...);
  }, t);
}

template <class Decl, class Int>
std::size_t first_failing(const void* typed, const Int* args, std::size_t count) {
  const Decl& d = *static_cast<const Decl*>(typed);
  const terms::Arguments<Int> a(args, count);
  return std::apply([&](const auto&... p) {
    constexpr std::size_t n = sizeof...(p);
    std::size_t i = 0, found = n;
    ((found == n && a.holds(p.when) ? (found = i, ++i) : ++i), ...);
    return found;
  }, d.failures);
}

template <class Decl, class Int>
void add_bound_value(const void* typed, std::size_t precondition, std::size_t bound, const Int* args,
                     std::size_t count, FailureText& text) {
  const Decl& d = *static_cast<const Decl*>(typed);
  const terms::Arguments<Int> a(args, count);
  visit_at(d.failures, precondition,
           [&](const auto& p) { visit_at(p.raises.bound, bound, [&](const auto& t) { a.add_value(t, text); }); });
}

template <class Decl, class Int>
inv::KindMask successes(const void* typed, const Int* args, std::size_t count) {
  const Decl& d = *static_cast<const Decl*>(typed);
  const terms::Arguments<Int> a(args, count);
  const auto holds = [&](const auto& condition) {
    try {
      return a.holds(condition);
    } catch (const std::domain_error&) {  // asked where a precondition fails (a divisor it rules out)
      return false;
    }
  };
  return std::apply([&](const auto&... s) {
    inv::KindMask mask = 0, bit = 1;
    ((mask |= holds(s.when) ? bit : 0, bit <<= 1), ...);
    return mask;
  }, d.successes);
}

template <class Decl, class Int>
inv::KindMask failing(const void* typed, const Int* args, std::size_t count) {
  const Decl& d = *static_cast<const Decl*>(typed);
  const terms::Arguments<Int> a(args, count);
  const auto holds = [&](const auto& condition) {
    try {
      return a.holds(condition);
    } catch (const std::domain_error&) {  // it divides by what an earlier precondition rules out
      return false;
    }
  };
  return std::apply([&](const auto&... p) {
    inv::KindMask mask = 0, bit = 1;
    ((mask |= holds(p.when) ? bit : 0, bit <<= 1), ...);
    return mask;
  }, d.failures);
}

template <class Decl, class Int>
Evaluator<Int> evaluator() {
  return {&first_failing<Decl, Int>, &add_bound_value<Decl, Int>, &successes<Decl, Int>, &failing<Decl, Int>};
}

}  // namespace detail

// The oracle of a signature ("remote_rank(r, L, R)") from its declaration,
// a lambda taking one term per parameter (`[](auto r, auto L, auto R)`) and
// returning preconditions(...); not put on the registry (TPCHECK_ORACLE in
// properties/src/declare.hpp does that). Throws std::invalid_argument as
// detail::describe_oracle says.
template <class Declare>
Oracle make_oracle(std::string entry, std::string section, const char* signature, const Declare& declare) {
  constexpr std::size_t n = detail::arity<Declare>();
  static_assert(n > 0, "an oracle declaration takes one term per parameter of its operation");
  using Decl = decltype(detail::declaration_of(declare, std::make_index_sequence<n>{}));
  auto typed = std::make_shared<const Decl>(detail::declaration_of(declare, std::make_index_sequence<n>{}));
  std::vector<Oracle::Precondition> preconditions;
  std::apply([&](const auto&... p) {
    ((preconditions.push_back({p.label, terms::node_of(p.when), detail::message_of(p.raises)})), ...);
  }, typed->failures);
  std::vector<Oracle::Success> successes;
  std::apply([&](const auto&... s) { ((successes.push_back({s.label, terms::node_of(s.when)})), ...); },
             typed->successes);
  Oracle o = detail::describe_oracle(std::move(entry), std::move(section), detail::parse_signature(signature), n,
                                     std::move(preconditions), std::move(successes));
  o.typed = typed;
  o.int16 = detail::evaluator<Decl, std::int16_t>();
  o.int64 = detail::evaluator<Decl, std::int64_t>();
  o.big = detail::evaluator<Decl, BigInt>();
  return o;
}

// Every declared oracle, by entry name.
const std::vector<const Oracle*>& oracles();
const Oracle* oracle_named(std::string_view entry);
// The oracle of an operation, or nullptr when none is declared for it.
const Oracle* oracle_of_operation(std::string_view operation);

// The first precondition that fails on these arguments (in the operation's
// order), or preconditions.size() when every one holds. Throws
// std::domain_error when a condition divides by zero (an earlier
// precondition is missing).
template <ModelInt Int>
std::size_t first_failing(const Oracle& o, const Int* args);

// Bit i: precondition i's condition holds on these arguments, each evaluated
// on its own (one that divides by zero there does not hold). Where several
// hold, the first is due and a model that checks them in another order shows:
// the seeds of the fuzz targets are chosen so.
template <ModelInt Int>
inv::KindMask failing_preconditions(const Oracle& o, const Int* args);

// The failure precondition `i` raises on these arguments.
template <ModelInt Int>
Failure expected_failure(const Oracle& o, std::size_t i, const Int* args);

// The oracle's verdict on one call, `args` in the operation's order: holds
// when the model fails with the first failing precondition's exception and
// text, or succeeds where none fails; violated otherwise, naming the call,
// what it gave and what the SPEC expects. `kinds`, when given, gets the bit
// of that precondition, or those of the ways to succeed it meets.
template <ModelInt Int>
inv::Verdict judge_call(const Oracle& o, const Int* args, inv::KindMask* kinds = nullptr);

// The same on one case of the oracle's registry entry (values in its domain's order).
template <ModelInt Int>
inv::Verdict judge(const Oracle& o, const Int* values, inv::KindMask* kinds);

// The oracle as lines of text: "remote_rank(r, L, R)  §1, first failure
// wins:", then one line per precondition ("1. L <= 0 or R <= 0  ->
// ValueError(\"TP sizes must be positive\")"), in Python's notation, for
// `tpcheck verify --list` and the documentation.
std::string describe(const Oracle& o);
// A term of the oracle's in Python's notation.
std::string describe(const Oracle& o, const Node& term);

}  // namespace tpcheck::oracle
