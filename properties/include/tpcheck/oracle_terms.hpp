// The error oracle's terms: conditions and values over an operation's
// parameters, written as the SPEC writes them (`r < 0 || r >= L`, `R % L != 0`),
// with Python's integers (`/` is floor division, `%` its remainder).
//
// A term's type is its shape (expression templates), so every engine
// evaluates a declaration as compiled code, as fast as a hand-written
// predicate; the same term becomes a tree (Node) for Z3 and for text. It is
// evaluated in int64 with every step checked for overflow and, where one
// overflows, again in 128 bits, then in cpp_int: Python's arithmetic at any
// size, chosen here and never taken from lib/.
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include <boost/multiprecision/integer.hpp>

#include "tpcheck/outcome.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::oracle {

// A term as a tree, for Z3 (prove/) and for text.
struct Node {
  enum class Op : std::uint8_t {
    Parameter, Constant, Add, Subtract, Multiply, FloorDivide, Modulo, Negate, Min, Max, IfElse,
    Less, LessEqual, Greater, GreaterEqual, Equal, NotEqual, And, Or, Not,
    // A stage split's code (below: StageCount and FirstShortStage of a code;
    // StageLayers, StageStart and StageOfLayer of a code and an index).
    StageCount, FirstShortStage, StageLayers, StageStart, StageOfLayer,
    PowerOfTwo,  // 1 when the operand is 1, 2, 4, 8, ...
  };
  Op op = Op::Constant;
  int parameter = -1;         // Parameter: its position in the operation's signature
  std::int64_t constant = 0;  // Constant
  std::shared_ptr<const Node> a, b, c;  // operands (IfElse: c ? a : b)
  const char* name = nullptr;           // a term named in the declaration (named()): shown by its name
};
using NodePtr = std::shared_ptr<const Node>;

namespace terms {

using Op = Node::Op;

// The operation's parameter at position I, a constant, and what they make.
template <std::size_t I>
struct Parameter {};
struct Constant {
  std::int64_t value;
};
template <Op O, class A, class B>
struct Binary {
  A a;
  B b;
};
template <Op O, class A>
struct Unary {
  A a;
};
template <class C, class A, class B>
struct IfElse {
  C when;
  A then;
  B otherwise;
};

// A term with a name, for text: shown by its name, defined once below the
// condition that uses it (a count a text reports, a step of a formula).
template <class T>
struct Named {
  const char* name;
  T term;
};

template <class T>
struct IsTerm : std::false_type {};
template <class T>
struct IsTerm<Named<T>> : std::true_type {};
template <std::size_t I>
struct IsTerm<Parameter<I>> : std::true_type {};
template <>
struct IsTerm<Constant> : std::true_type {};
template <Op O, class A, class B>
struct IsTerm<Binary<O, A, B>> : std::true_type {};
template <Op O, class A>
struct IsTerm<Unary<O, A>> : std::true_type {};
template <class C, class A, class B>
struct IsTerm<IfElse<C, A, B>> : std::true_type {};

template <class T>
concept Term = IsTerm<std::remove_cvref_t<T>>::value;
// A term, or an integer that stands for a constant (`L <= 0`).
template <class T>
concept Operand = Term<T> || (std::integral<std::remove_cvref_t<T>> && !std::same_as<std::remove_cvref_t<T>, bool>);

template <Operand T>
auto lift(const T& t) {
  if constexpr (Term<T>) {
    return t;
  } else {
    return Constant{static_cast<std::int64_t>(t)};
  }
}
template <class T>
using Lifted = decltype(lift(std::declval<T>()));

template <Op O, Operand A, Operand B>
auto binary(const A& a, const B& b) {
  return Binary<O, Lifted<A>, Lifted<B>>{lift(a), lift(b)};
}

#define TPCHECK_ORACLE_OPERATOR(symbol, op)                 \
  template <Operand A, Operand B>                           \
    requires(Term<A> || Term<B>)                            \
  auto operator symbol(const A& a, const B& b) {            \
    return binary<Op::op>(a, b);                            \
  }
TPCHECK_ORACLE_OPERATOR(+, Add)
TPCHECK_ORACLE_OPERATOR(-, Subtract)
TPCHECK_ORACLE_OPERATOR(*, Multiply)
TPCHECK_ORACLE_OPERATOR(/, FloorDivide)  // Python's a // b
TPCHECK_ORACLE_OPERATOR(%, Modulo)       // Python's a % b
TPCHECK_ORACLE_OPERATOR(<, Less)
TPCHECK_ORACLE_OPERATOR(<=, LessEqual)
TPCHECK_ORACLE_OPERATOR(>, Greater)
TPCHECK_ORACLE_OPERATOR(>=, GreaterEqual)
TPCHECK_ORACLE_OPERATOR(==, Equal)
TPCHECK_ORACLE_OPERATOR(!=, NotEqual)
TPCHECK_ORACLE_OPERATOR(&&, And)  // Python's `and`: the right side is evaluated only when it decides
TPCHECK_ORACLE_OPERATOR(||, Or)
#undef TPCHECK_ORACLE_OPERATOR

template <Term A>
auto operator-(const A& a) {
  return Unary<Op::Negate, A>{a};
}
template <Term A>
auto operator!(const A& a) {
  return Unary<Op::Not, A>{a};
}
template <Operand A, Operand B>
  requires(Term<A> || Term<B>)
auto min(const A& a, const B& b) {
  return binary<Op::Min>(a, b);
}
template <Operand A, Operand B>
  requires(Term<A> || Term<B>)
auto max(const A& a, const B& b) {
  return binary<Op::Max>(a, b);
}
// Python's `then if when else otherwise`.
template <Term C, Operand A, Operand B>
auto if_else(const C& when, const A& then, const B& otherwise) {
  return IfElse<C, Lifted<A>, Lifted<B>>{when, lift(then), lift(otherwise)};
}

// A stage split given as its code (stages.hpp's encoding, decoded here again):
// its number of stages S; the first stage with fewer than one layer (-1: none);
// the layer count c_s of stage s; a_s, the layers of the stages before s (a_S
// is the total); the stage that holds layer x (of a split whose stages all
// have layers). An index out of range gives 0 (S for a layer past the last).
template <Operand C>
auto stage_count(const C& code) {
  return Unary<Op::StageCount, Lifted<C>>{lift(code)};
}
template <Operand C>
auto first_short_stage(const C& code) {
  return Unary<Op::FirstShortStage, Lifted<C>>{lift(code)};
}
template <Operand C, Operand S>
auto stage_layers(const C& code, const S& s) {
  return binary<Op::StageLayers>(code, s);
}
template <Operand C, Operand S>
auto stage_start(const C& code, const S& s) {
  return binary<Op::StageStart>(code, s);
}
template <Operand C, Operand X>
auto stage_of_layer(const C& code, const X& layer) {
  return binary<Op::StageOfLayer>(code, layer);
}

// Whether n is a power of two (1, 2, 4, ...): a condition.
template <Term N>
auto is_power_of_two(const N& n) {
  return Unary<Op::PowerOfTwo, N>{n};
}

template <Term T>
Named<T> named(const char* name, const T& term) {
  return {name, term};
}

// ---- as a tree ------------------------------------------------------------------

template <class T>
NodePtr node_of(const Named<T>& e);

template <std::size_t I>
NodePtr node_of(const Parameter<I>&) {
  auto n = std::make_shared<Node>();
  n->op = Op::Parameter;
  n->parameter = static_cast<int>(I);
  return n;
}
inline NodePtr node_of(const Constant& c) {
  auto n = std::make_shared<Node>();
  n->op = Op::Constant;
  n->constant = c.value;
  return n;
}
template <Op O, class A, class B>
NodePtr node_of(const Binary<O, A, B>& e) {
  auto n = std::make_shared<Node>();
  n->op = O;
  n->a = node_of(e.a);
  n->b = node_of(e.b);
  return n;
}
template <Op O, class A>
NodePtr node_of(const Unary<O, A>& e) {
  auto n = std::make_shared<Node>();
  n->op = O;
  n->a = node_of(e.a);
  return n;
}
template <class T>
NodePtr node_of(const Named<T>& e) {
  auto n = std::make_shared<Node>(*node_of(e.term));
  n->name = e.name;
  return n;
}
template <class C, class A, class B>
NodePtr node_of(const IfElse<C, A, B>& e) {
  auto n = std::make_shared<Node>();
  n->op = Op::IfElse;
  n->a = node_of(e.then);
  n->b = node_of(e.otherwise);
  n->c = node_of(e.when);
  return n;
}

// ---- evaluation -------------------------------------------------------------------

// Whether W's arithmetic is checked (int64, 128 bits): a step that leaves W
// makes the evaluation return false, and the caller runs it again wider.
template <class W>
inline constexpr bool kChecked = !std::is_same_v<W, BigInt>;

[[noreturn]] inline void divided_by_zero() {
  throw std::domain_error("the oracle divides by zero: a precondition before it is missing");
}

// ---- stage splits, from their codes ----------------------------------------------

// The bits of a positive code below its leading 1, most significant first.
template <class W>
class CodeBits {
 public:
  explicit CodeBits(const W& code) : code_(code) {
    if constexpr (std::is_same_v<W, BigInt>) {
      next_ = static_cast<int>(boost::multiprecision::msb(code));
    } else {
      while ((static_cast<unsigned __int128>(code) >> (next_ + 1)) != 0) ++next_;
    }
  }
  bool done() const { return next_ <= 0; }
  // The next bit: true for the end of a stage, false for a layer.
  bool take() {
    --next_;
    if constexpr (std::is_same_v<W, BigInt>) {
      return boost::multiprecision::bit_test(code_, static_cast<unsigned>(next_));
    } else {
      return ((static_cast<unsigned __int128>(code_) >> next_) & 1) != 0;
    }
  }

 private:
  const W& code_;
  int next_ = 0;
};

template <class W>
W stage_count_of(const W& code) {
  if (code <= 0) return code == 0 ? W(0) : W(1);
  W stages = 1;
  for (CodeBits<W> bits(code); !bits.done();) stages += bits.take() ? 1 : 0;
  return stages;
}

template <class W>
W first_short_stage_of(const W& code) {
  if (code <= 0) return code == 0 ? W(-1) : W(0);
  W stage = 0, layers = 0;
  for (CodeBits<W> bits(code); !bits.done();) {
    if (!bits.take()) {
      layers += 1;
    } else if (layers == 0) {
      return stage;
    } else {
      stage += 1, layers = 0;
    }
  }
  return layers == 0 ? stage : W(-1);
}

template <class W>
W stage_layers_of(const W& code, const W& s) {
  if (code <= 0) return code < 0 && s == 0 ? code : W(0);
  W stage = 0, layers = 0;
  for (CodeBits<W> bits(code); !bits.done();) {
    if (!bits.take()) {
      layers += 1;
    } else if (stage == s) {
      return layers;
    } else {
      stage += 1, layers = 0;
    }
  }
  return stage == s ? layers : W(0);
}

template <class W>
W stage_start_of(const W& code, const W& s) {
  if (s <= 0) return 0;
  if (code <= 0) return code;
  W stage = 0, before = 0;
  for (CodeBits<W> bits(code); !bits.done();) {
    if (!bits.take()) {
      before += 1;
    } else if ((stage += 1) == s) {
      return before;
    }
  }
  return before;
}

template <class W>
W stage_of_layer_of(const W& code, const W& x) {
  if (code <= 0) return 0;
  W stage = 0, layer = 0;
  for (CodeBits<W> bits(code); !bits.done();) {
    if (bits.take()) {
      stage += 1;
    } else if (layer == x) {
      return stage;
    } else {
      layer += 1;
    }
  }
  return stage + 1;
}

template <Op O, class W>
bool apply(const W& x, const W& y, W& out) {
  if constexpr (O == Op::StageLayers || O == Op::StageStart || O == Op::StageOfLayer) {
    // A count of bits of a code: it fits every width the code does.
    out = O == Op::StageLayers ? stage_layers_of(x, y) : O == Op::StageStart ? stage_start_of(x, y) : stage_of_layer_of(x, y);
    return true;
  } else if constexpr (O == Op::Add || O == Op::Subtract || O == Op::Multiply) {
    if constexpr (kChecked<W>) {
      if constexpr (O == Op::Add) return !__builtin_add_overflow(x, y, &out);
      if constexpr (O == Op::Subtract) return !__builtin_sub_overflow(x, y, &out);
      if constexpr (O == Op::Multiply) return !__builtin_mul_overflow(x, y, &out);
    } else {
      out = O == Op::Add ? W(x + y) : O == Op::Subtract ? W(x - y) : W(x * y);
      return true;
    }
  } else if constexpr (O == Op::FloorDivide || O == Op::Modulo) {
    if (y == 0) divided_by_zero();
    if constexpr (kChecked<W>) {
      if (y == -1) {  // x // -1 is -x (it may overflow); x % -1 is 0
        if constexpr (O == Op::Modulo) {
          out = 0;
          return true;
        } else {
          return !__builtin_sub_overflow(W(0), x, &out);
        }
      }
    }
    const W q = x / y, m = x % y;
    const bool below = m != 0 && ((m < 0) != (y < 0));  // C++ truncates; Python floors
    out = O == Op::FloorDivide ? W(below ? W(q - 1) : q) : W(below ? W(m + y) : m);
    return true;
  } else if constexpr (O == Op::Min) {
    out = y < x ? y : x;
    return true;
  } else if constexpr (O == Op::Max) {
    out = y > x ? y : x;
    return true;
  } else {
    bool truth = false;
    if constexpr (O == Op::Less) truth = x < y;
    if constexpr (O == Op::LessEqual) truth = x <= y;
    if constexpr (O == Op::Greater) truth = x > y;
    if constexpr (O == Op::GreaterEqual) truth = x >= y;
    if constexpr (O == Op::Equal) truth = x == y;
    if constexpr (O == Op::NotEqual) truth = x != y;
    out = truth ? W(1) : W(0);
    return true;
  }
}

// The term's value on `args` (in the signature's order), into `out`; false
// when a checked W overflows. A condition's value is 1 or 0.
template <std::size_t I, class W>
bool evaluate(const Parameter<I>&, const W* args, W& out) {
  out = args[I];
  return true;
}
template <class W>
bool evaluate(const Constant& c, const W*, W& out) {
  out = W(c.value);
  return true;
}
template <Op O, class A, class B, class W>
bool evaluate(const Binary<O, A, B>& e, const W* args, W& out) {
  W x{};
  if (!evaluate(e.a, args, x)) return false;
  if constexpr (O == Op::And || O == Op::Or) {
    if ((x == 0) == (O == Op::And)) {
      out = O == Op::And ? W(0) : W(1);
      return true;
    }
    W y{};
    if (!evaluate(e.b, args, y)) return false;
    out = y != 0 ? W(1) : W(0);
    return true;
  } else {
    W y{};
    if (!evaluate(e.b, args, y)) return false;
    return apply<O>(x, y, out);
  }
}
template <Op O, class A, class W>
bool evaluate(const Unary<O, A>& e, const W* args, W& out) {
  W x{};
  if (!evaluate(e.a, args, x)) return false;
  if constexpr (O == Op::Not) {
    out = x == 0 ? W(1) : W(0);
    return true;
  } else if constexpr (O == Op::StageCount || O == Op::FirstShortStage) {
    out = O == Op::StageCount ? stage_count_of(x) : first_short_stage_of(x);
    return true;
  } else if constexpr (O == Op::PowerOfTwo) {
    W v = x;
    while (v > 1 && v % 2 == 0) v /= 2;
    out = v == 1 ? W(1) : W(0);
    return true;
  } else if constexpr (kChecked<W>) {
    return !__builtin_sub_overflow(W(0), x, &out);
  } else {
    out = -x;
    return true;
  }
}
template <class T, class W>
bool evaluate(const Named<T>& e, const W* args, W& out) {
  return evaluate(e.term, args, out);
}
template <class C, class A, class B, class W>
bool evaluate(const IfElse<C, A, B>& e, const W* args, W& out) {
  W when{};
  if (!evaluate(e.when, args, when)) return false;
  return when != 0 ? evaluate(e.then, args, out) : evaluate(e.otherwise, args, out);
}

// One call's arguments, in each width a term may need.
template <class Int>
class Arguments {
 public:
  Arguments(const Int* args, std::size_t count) : args_(args), count_(count) {
    for (std::size_t i = 0; i < count; ++i) {
      if constexpr (std::is_same_v<Int, BigInt>) {
        const std::optional<std::int64_t> v = narrow(args[i]);
        fits_int64_ = fits_int64_ && v.has_value();
        narrow_[i] = v.value_or(0);
      } else {
        narrow_[i] = args[i];
      }
    }
  }

  // The term's value, in the narrowest width that holds every step.
  template <Term T>
  BigInt value(const T& t) const {
    std::int64_t small = 0;
    if (fits_int64_ && evaluate(t, narrow_.data(), small)) return BigInt(small);
    if (fits_int64_) {
      std::array<__int128, kMaxArguments> w{};
      for (std::size_t i = 0; i < count_; ++i) w[i] = narrow_[i];
      __int128 wide = 0;
      if (evaluate(t, w.data(), wide)) return widen(wide);
    }
    std::array<BigInt, kMaxArguments> big;
    for (std::size_t i = 0; i < count_; ++i) big[i] = fits_int64_ ? BigInt(narrow_[i]) : BigInt(args_[i]);
    BigInt out;
    evaluate(t, big.data(), out);
    return out;
  }

  // Appends the term's value to a failure's text (as an integer where it
  // fits int64, as its digits otherwise).
  template <Term T>
  void add_value(const T& t, FailureText& text) const {
    std::int64_t small = 0;
    if (fits_int64_ && evaluate(t, narrow_.data(), small)) return text.add_integer(small);
    const BigInt v = value(t);
    if (const std::optional<std::int64_t> fits = narrow(v)) return text.add_integer(*fits);
    text.add_digits(decimal(v));
  }

  // A condition's truth; in int64 alone wherever int64 holds every step.
  template <Term T>
  bool holds(const T& t) const {
    std::int64_t small = 0;
    if (fits_int64_ && evaluate(t, narrow_.data(), small)) return small != 0;
    return value(t) != 0;
  }

 private:
  static constexpr std::size_t kMaxArguments = 12;
  const Int* args_;
  std::size_t count_;
  bool fits_int64_ = true;
  std::array<std::int64_t, kMaxArguments> narrow_{};
};

}  // namespace terms
}  // namespace tpcheck::oracle
