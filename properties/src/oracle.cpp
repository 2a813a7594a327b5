// The error oracle (tpcheck/oracle.hpp): declared oracles made ready for the
// engines, judged against the model, and shown as text.
#include "tpcheck/oracle.hpp"

#include <algorithm>
#include <cctype>
#include <deque>
#include <span>
#include <stdexcept>

#include "oracle_entry.hpp"
#include "tpcheck/operation_domains.hpp"
#include "tpcheck/operations.hpp"
#include "tpcheck/render.hpp"

namespace tpcheck::oracle {
namespace {

using Op = Node::Op;

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

NodePtr parameter_node(int position) {
  auto n = std::make_shared<Node>();
  n->op = Op::Parameter;
  n->parameter = position;
  return n;
}

// The text's pieces: literal text, and for each "{name}" the value bound by
// that name, or else the parameter of that name.
std::vector<Oracle::Piece> pieces_of(const Oracle::Message& m, const std::vector<std::string>& parameters,
                                     const std::string& entry) {
  std::vector<Oracle::Piece> out;
  std::string literal;
  const std::string& text = m.text;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{') {
      literal += text[i];
      continue;
    }
    const std::size_t close = text.find('}', i);
    if (close == std::string::npos) throw std::invalid_argument("oracle " + entry + ": an unclosed '{' in \"" + text + "\"");
    const std::string name = text.substr(i + 1, close - i - 1);
    Oracle::Piece piece;
    for (std::size_t b = 0; b < m.bound.size() && !piece.value; ++b) {
      if (m.bound[b].first != name) continue;
      piece.value = m.bound[b].second;
      // A parameter bound under a name is read as the parameter (no term to evaluate).
      if (piece.value->op == Op::Parameter) {
        piece.parameter = piece.value->parameter;
      } else {
        piece.bound = static_cast<int>(b);
      }
    }
    for (std::size_t p = 0; p < parameters.size() && !piece.value; ++p) {
      if (parameters[p] == name) piece.parameter = static_cast<int>(p), piece.value = parameter_node(static_cast<int>(p));
    }
    if (!piece.value) {
      throw std::invalid_argument("oracle " + entry + ": \"" + text + "\" names {" + name + "}, no parameter or bound value");
    }
    if (!literal.empty()) out.push_back({std::move(literal), -1, -1, nullptr});
    literal.clear();
    out.push_back(std::move(piece));
    i = close;
  }
  if (!literal.empty()) out.push_back({std::move(literal), -1, -1, nullptr});
  if (out.size() > FailureText::kMaxPieces) throw std::invalid_argument("oracle " + entry + ": \"" + text + "\" has too many pieces");
  return out;
}

// Every oracle declared: a deque, so each stays where it is as more come (the
// entries' checks, the kinds' labels and the messages' literals point into them).
std::deque<Oracle>& declared() {
  static std::deque<Oracle> all;
  return all;
}

}  // namespace

namespace detail {

Signature parse_signature(const char* signature) {
  const std::string_view s(signature);
  const std::size_t open = s.find('('), close = s.rfind(')');
  if (open == std::string_view::npos || close != s.size() - 1) {
    throw std::invalid_argument(std::string("oracle: expected a signature like \"op(a, b)\", got \"") + signature + "\"");
  }
  Signature out{trimmed(s.substr(0, open)), {}};
  std::string_view rest = s.substr(open + 1, close - open - 1);
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    out.parameters.push_back(trimmed(rest.substr(0, comma)));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return out;
}

Oracle describe_oracle(std::string entry, std::string section, const Signature& signature, std::size_t arity,
                       std::vector<Oracle::Precondition> preconditions, std::vector<Oracle::Success> successes) {
  const std::optional<std::size_t> op = operation_index(signature.operation);
  if (!op) throw std::invalid_argument("oracle " + entry + ": no model operation " + signature.operation);
  const OperationInfo& info = operation_infos()[*op];
  if (info.params.size() != signature.parameters.size() || arity != info.params.size()) {
    throw std::invalid_argument("oracle " + entry + ": " + signature.operation + " takes " +
                                std::to_string(info.params.size()) + " parameters, its signature names " +
                                std::to_string(signature.parameters.size()) + " and its declaration takes " +
                                std::to_string(arity));
  }
  Oracle o;
  o.entry = std::move(entry);
  o.section = std::move(section);
  o.operation = signature.operation;
  o.parameters = signature.parameters;
  o.operation_index = *op;
  o.position = dom::operation_domains()[*op].position;
  std::string names;
  for (std::size_t i = 0; i < info.params.size(); ++i) {
    // The parameters in the operation's order, as the SPEC names them (case aside).
    if (lowercase(info.params[i].name) != lowercase(o.parameters[i])) {
      throw std::invalid_argument("oracle " + o.entry + ": parameter " + std::to_string(i + 1) + " of " + o.operation +
                                  " is " + std::string(info.params[i].name) + ", not " + o.parameters[i]);
    }
    o.flags.push_back(info.params[i].role == Role::Flag || info.params[i].role == Role::AttentionDp);
    if (!o.flags.back()) names += (names.empty() ? "" : ", ") + o.parameters[i];
  }
  o.proved_for = "all integers " + names;
  for (std::size_t i = 0; i < o.flags.size(); ++i) {
    if (o.flags[i]) o.proved_for += " and both values of " + o.parameters[i];
  }
  o.preconditions = std::move(preconditions);
  o.successes = std::move(successes);
  for (Oracle::Precondition& p : o.preconditions) p.raises.pieces = pieces_of(p.raises, o.parameters, o.entry);
  for (const Oracle::Precondition& p : o.preconditions) o.kinds.push_back(p.label);
  for (const Oracle::Success& s : o.successes) o.kinds.push_back("succeeds: " + s.label);
  if (o.successes.empty()) o.kinds.push_back("succeeds");
  if (o.kinds.size() > inv::kMaxKinds) throw std::invalid_argument("oracle " + o.entry + ": too many kinds");
  return o;
}

const Oracle& register_oracle(Oracle oracle) {
  declared().push_back(std::move(oracle));
  return declared().back();
}

inv::Entry entry_of(const Oracle& o, const Options& options) {
  inv::Entry e;
  e.name = o.entry.c_str();
  e.section = "§9.4";
  e.family = inv::Family::Errors;
  // The operation's own domain (sizes from -1 with int16's edges, ranks with
  // the invalid ones, head counts at their edges), past the listing limit,
  // host counts from -1, and the invalid stage splits, stages and DP groups.
  const dom::Domain& operation = dom::operation_domains()[o.operation_index].domain;
  std::vector<dom::Block> blocks = operation.blocks();
  for (dom::Block& b : blocks) {
    if (b.kind == dom::BlockKind::StageSplit) b.option = static_cast<std::uint8_t>(dom::Splits::WithInvalid);
    if (b.kind == dom::BlockKind::Stage || b.kind == dom::BlockKind::DpGroup) {
      b.option = static_cast<std::uint8_t>(dom::Ranks::WithInvalid);
    }
    if (b.kind == dom::BlockKind::Size || b.kind == dom::BlockKind::Heads) b = dom::with_listing_edge(b);
    // A state count past the listing limit: the sizes that shard it make a plan or a fan-in that long.
    if (b.kind == dom::BlockKind::StateDim && b.state_family >= 0 &&
        dom::dim_rule(static_cast<StateFamily>(b.state_family), b.dim) == dom::DimRule::Count) {
      b = dom::with_listing_edge(b);
    }
    if (b.kind == dom::BlockKind::Hosts) b.option = static_cast<std::uint8_t>(dom::Sizes::WithNonPositive);
    if (b.kind == dom::BlockKind::Heads && options.every_head_count) {
      b.option = static_cast<std::uint8_t>(dom::HeadCounts::Any);
    }
  }
  e.domains.push_back(operation.with_blocks(std::move(blocks)));
  e.domain_names = {e.name};
  for (const std::string& k : o.kinds) e.kinds.push_back(k.c_str());
  e.min_non_vacuous = 1.0;
  e.proof = options.proof.status == inv::Proof::Status::Undeclared ? inv::Proof::by_z3(o.proved_for.c_str())
                                                                    : options.proof;
  return e;
}

}  // namespace detail

const std::vector<const Oracle*>& oracles() {
  static const std::vector<const Oracle*> sorted = [] {
    std::vector<const Oracle*> out;
    for (const Oracle& o : declared()) out.push_back(&o);
    std::sort(out.begin(), out.end(), [](const Oracle* a, const Oracle* b) { return a->entry < b->entry; });
    return out;
  }();
  return sorted;
}

const Oracle* oracle_named(std::string_view entry) {
  for (const Oracle* o : oracles()) {
    if (o->entry == entry) return o;
  }
  return nullptr;
}

const Oracle* oracle_of_operation(std::string_view operation) {
  for (const Oracle* o : oracles()) {
    if (o->operation == operation) return o;
  }
  return nullptr;
}

// ---- judging -----------------------------------------------------------------

namespace {

// An argument as the model keeps one in a text: as an integer where it fits
// int64, as its digits otherwise.
template <ModelInt Int>
void add_integer(FailureText& m, const Int& v) {
  if constexpr (std::is_same_v<Int, BigInt>) {
    if (const std::optional<std::int64_t> small = narrow(v)) {
      m.add_integer(*small);
    } else {
      m.add_digits(decimal(v));
    }
  } else {
    m.add_integer(v);
  }
}

template <ModelInt Int>
std::string call_text(const Oracle& o, const Int* args) {
  std::string out = o.operation + "(";
  for (std::size_t i = 0; i < o.parameters.size(); ++i) out += (i ? ", " : "") + decimal(args[i]);
  return out + ")";
}

}  // namespace

template <ModelInt Int>
std::size_t first_failing(const Oracle& o, const Int* args) {
  return o.evaluator<Int>().first_failing(o.typed.get(), args, o.parameters.size());
}

template <ModelInt Int>
inv::KindMask failing_preconditions(const Oracle& o, const Int* args) {
  return o.evaluator<Int>().failing(o.typed.get(), args, o.parameters.size());
}

template <ModelInt Int>
Failure expected_failure(const Oracle& o, std::size_t i, const Int* args) {
  const Oracle::Message& m = o.preconditions[i].raises;
  Failure f{m.kind, FailureText()};
  for (const Oracle::Piece& piece : m.pieces) {
    if (piece.parameter >= 0) {
      add_integer(f.message, args[piece.parameter]);
    } else if (piece.bound >= 0) {
      o.evaluator<Int>().add_bound_value(o.typed.get(), i, static_cast<std::size_t>(piece.bound), args,
                                         o.parameters.size(), f.message);
    } else {
      f.message.add_literal(piece.literal.c_str());  // the oracle outlives every comparison
    }
  }
  return f;
}

template <ModelInt Int>
inv::Verdict judge_call(const Oracle& o, const Int* args, inv::KindMask* kinds) {
  const std::span<const Int> used(args, o.parameters.size());
  inv::KindMask ignored = 0;
  if (!kinds) kinds = &ignored;
  try {
    const std::size_t failing = first_failing(o, args);
    const std::size_t n = o.preconditions.size();
    if (failing < n) {
      *kinds = inv::KindMask{1} << failing;
    } else if (o.successes.empty()) {
      *kinds = inv::KindMask{1} << n;
    } else {
      *kinds = o.evaluator<Int>().successes(o.typed.get(), args, o.parameters.size()) << n;
    }
    const std::optional<Failure> got = failure_in<Int>(o.operation_index, used);
    if (failing == n) {
      if (!got) return inv::holds();
      return inv::violated(call_text(o, args) + " gave " + render(*got) +
                           ", but every precondition of the SPEC holds: it must succeed");
    }
    const Failure expected = expected_failure(o, failing, args);
    if (got && *got == expected) return inv::holds();
    return inv::violated(call_text(o, args) + " gave " + evaluate_in<Int>(o.operation_index, used) + ", expected " +
                         render(expected) + " (the first precondition that fails: " + o.preconditions[failing].label +
                         ")");
  } catch (const std::exception& e) {  // a broken model may throw; the oracle throws on a division by zero
    return inv::violated(call_text(o, args) + ": " + e.what());
  }
}

template <ModelInt Int>
inv::Verdict judge(const Oracle& o, const Int* values, inv::KindMask* kinds) {
  std::array<Int, dom::kMaxValues> args{};
  for (std::size_t i = 0; i < o.parameters.size(); ++i) args[i] = values[o.position[i]];
  return judge_call(o, args.data(), kinds);
}

#define TPCHECK_ORACLE_JUDGE(Int)                                                    \
  template std::size_t first_failing<Int>(const Oracle&, const Int*);               \
  template inv::KindMask failing_preconditions<Int>(const Oracle&, const Int*);     \
  template Failure expected_failure<Int>(const Oracle&, std::size_t, const Int*);   \
  template inv::Verdict judge_call<Int>(const Oracle&, const Int*, inv::KindMask*); \
  template inv::Verdict judge<Int>(const Oracle&, const Int*, inv::KindMask*);
TPCHECK_ORACLE_JUDGE(std::int16_t)
TPCHECK_ORACLE_JUDGE(std::int64_t)
TPCHECK_ORACLE_JUDGE(BigInt)

// ---- as text -------------------------------------------------------------------

namespace {

// Python's precedence, loosest first: x if c else y, or, and, not,
// comparisons, + -, * // %, unary -.
int precedence(Op op) {
  switch (op) {
    case Op::IfElse: return 0;
    case Op::Or: return 1;
    case Op::And: return 2;
    case Op::Not: return 3;
    case Op::Less: case Op::LessEqual: case Op::Greater: case Op::GreaterEqual: case Op::Equal: case Op::NotEqual:
      return 4;
    case Op::Add: case Op::Subtract: return 5;
    case Op::Multiply: case Op::FloorDivide: case Op::Modulo: return 6;
    case Op::Negate: return 7;
    default: return 8;
  }
}

const char* symbol(Op op) {
  switch (op) {
    case Op::Add: return "+";
    case Op::Subtract: return "-";
    case Op::Multiply: return "*";
    case Op::FloorDivide: return "//";
    case Op::Modulo: return "%";
    case Op::Less: return "<";
    case Op::LessEqual: return "<=";
    case Op::Greater: return ">";
    case Op::GreaterEqual: return ">=";
    case Op::Equal: return "==";
    case Op::NotEqual: return "!=";
    case Op::And: return "and";
    case Op::Or: return "or";
    default: return "?";
  }
}

// not (a == b) reads a != b, and so on.
Op negated(Op op) {
  switch (op) {
    case Op::Less: return Op::GreaterEqual;
    case Op::LessEqual: return Op::Greater;
    case Op::Greater: return Op::LessEqual;
    case Op::GreaterEqual: return Op::Less;
    case Op::Equal: return Op::NotEqual;
    case Op::NotEqual: return Op::Equal;
    default: return Op::Not;
  }
}

std::string text_of(const Node& n, const std::vector<std::string>& names, bool by_name);

// An operand in parentheses where Python needs them (left-associative: a
// right operand of equal precedence needs them, a - (b - c)).
std::string operand(const Node& n, int parent, const std::vector<std::string>& names, bool right = false) {
  const std::string t = text_of(n, names, true);
  const int p = n.name ? 8 : precedence(n.op);
  return p < parent || (right && p == parent && parent >= 4) ? "(" + t + ")" : t;
}

std::string binary(Op op, const Node& a, const Node& b, const std::vector<std::string>& names) {
  const int p = precedence(op);
  return operand(a, p, names) + " " + symbol(op) + " " + operand(b, p, names, true);
}

std::string text_of(const Node& n, const std::vector<std::string>& names, bool by_name = true) {
  if (n.name && by_name) return n.name;
  switch (n.op) {
    case Op::Parameter: return names[static_cast<std::size_t>(n.parameter)];
    case Op::Constant: return decimal(n.constant);
    case Op::Negate: return "-" + operand(*n.a, precedence(n.op), names);
    case Op::Min: return "min(" + text_of(*n.a, names, true) + ", " + text_of(*n.b, names, true) + ")";
    case Op::Max: return "max(" + text_of(*n.a, names, true) + ", " + text_of(*n.b, names, true) + ")";
    case Op::PowerOfTwo: return "is_power_of_two(" + text_of(*n.a, names, true) + ")";
    case Op::StageCount: return "stage_count(" + text_of(*n.a, names, true) + ")";
    case Op::FirstShortStage: return "first_short_stage(" + text_of(*n.a, names, true) + ")";
    case Op::StageLayers: return "stage_layers(" + text_of(*n.a, names, true) + ", " + text_of(*n.b, names, true) + ")";
    case Op::StageStart: return "stage_start(" + text_of(*n.a, names, true) + ", " + text_of(*n.b, names, true) + ")";
    case Op::StageOfLayer:
      return "stage_of_layer(" + text_of(*n.a, names, true) + ", " + text_of(*n.b, names, true) + ")";
    case Op::IfElse:
      return operand(*n.a, 1, names) + " if " + operand(*n.c, 1, names) + " else " + operand(*n.b, 0, names);
    case Op::Not:
      if (!n.a->name && negated(n.a->op) != Op::Not) return binary(negated(n.a->op), *n.a->a, *n.a->b, names);
      return "not " + operand(*n.a, precedence(n.op), names);
    default: return binary(n.op, *n.a, *n.b, names);
  }
}

// The named terms under `n`, each once, a term's names before it.
void named_terms(const Node& n, std::vector<const Node*>& out) {
  for (const NodePtr& operand : {n.a, n.b, n.c}) {
    if (operand) named_terms(*operand, out);
  }
  if (!n.name) return;
  for (const Node* seen : out) {
    if (std::string_view(seen->name) == n.name) return;
  }
  out.push_back(&n);
}

}  // namespace

std::string describe(const Oracle& o, const Node& term) { return text_of(term, o.parameters, true); }

namespace {

// "where name = definition" for each named term of a precondition.
std::string definitions(const Oracle& o, const Oracle::Precondition& p) {
  std::vector<const Node*> named;
  named_terms(*p.when, named);
  for (const auto& bound : p.raises.bound) named_terms(*bound.second, named);
  std::string out;
  for (const Node* n : named) out += "       where " + std::string(n->name) + " = " + text_of(*n, o.parameters, false) + "\n";
  return out;
}

}  // namespace

std::string describe(const Oracle& o) {
  std::string out = o.operation + "(";
  for (std::size_t i = 0; i < o.parameters.size(); ++i) out += (i ? ", " : "") + o.parameters[i];
  out += ")  " + o.section + ", first failure wins:\n";
  for (std::size_t i = 0; i < o.preconditions.size(); ++i) {
    const Oracle::Precondition& p = o.preconditions[i];
    out += "  " + std::to_string(i + 1) + ". " + describe(o, *p.when) + "  ->  " +
           std::string(kind_name(p.raises.kind)) + "(\"" + p.raises.text + "\")";
    for (const auto& [name, value] : p.raises.bound) {
      const std::string text = describe(o, *value);
      if (text != name) out += ", " + name + " = " + text;  // a value under another name
    }
    out += "\n" + definitions(o, p);
  }
  out += "  otherwise it succeeds";
  for (std::size_t i = 0; i < o.successes.size(); ++i) {
    out += std::string(i ? "; " : " (") + o.successes[i].label + ": " + describe(o, *o.successes[i].when);
  }
  out += o.successes.empty() ? "\n" : ")\n";
  return out;
}

}  // namespace tpcheck::oracle
