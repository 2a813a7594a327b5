// The error oracle's statements, proved: for every operation with an oracle
// (properties/, tpcheck/oracle.hpp), its encoding fails exactly where the
// first of the oracle's preconditions holds, with that precondition's
// message and values, and succeeds where none holds, for all integers. The
// goals are made from the oracle's own terms, so an oracle declared for a
// new operation is proved without a goal written by hand.
#include <stdexcept>

#include "tpcheck/oracle.hpp"
#include "tpcheck/prove/operations.hpp"
#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {
namespace {

using oracle::Node;
using Op = Node::Op;

z3::expr as_term(const Node& n, const std::vector<z3::expr>& params) {
  z3::context& c = params.front().ctx();
  const auto a = [&] { return as_term(*n.a, params); };
  const auto b = [&] { return as_term(*n.b, params); };
  switch (n.op) {
    case Op::Parameter: return params[static_cast<std::size_t>(n.parameter)];
    case Op::Constant: return c.int_val(static_cast<int64_t>(n.constant));
    case Op::Add: return a() + b();
    case Op::Subtract: return a() - b();
    case Op::Multiply: return a() * b();
    case Op::FloorDivide: return floor_div(a(), b());
    case Op::Modulo: return floor_mod(a(), b());
    case Op::Negate: return -a();
    case Op::Min: return z3::min(a(), b());
    case Op::Max: return z3::max(a(), b());
    case Op::IfElse: return z3::ite(as_term(*n.c, params), a(), b());
    case Op::Less: return a() < b();
    case Op::LessEqual: return a() <= b();
    case Op::Greater: return a() > b();
    case Op::GreaterEqual: return a() >= b();
    case Op::Equal: return a() == b();
    case Op::NotEqual: return a() != b();
    case Op::And: return a() && b();
    case Op::Or: return a() || b();
    case Op::Not: return !a();
    case Op::StageCount: case Op::FirstShortStage: case Op::StageLayers: case Op::StageStart: case Op::StageOfLayer:
      throw std::invalid_argument("prove: the encoding has no stage splits");
    case Op::PowerOfTwo: throw std::invalid_argument("prove: the encoding has no powers of two");
  }
  throw std::logic_error("prove: an oracle node of no known kind");
}

// The encoding's number for the message a precondition raises: the one of
// the same exception whose format is the oracle's text with its values in
// order; its values as terms.
struct Raised {
  Message id;
  std::vector<z3::expr> args;
};

Raised raised(const oracle::Oracle& o, std::size_t i, const std::vector<z3::expr>& params) {
  std::string format;
  std::vector<z3::expr> args;
  for (const oracle::Oracle::Piece& piece : o.preconditions[i].raises.pieces) {
    if (piece.value) {
      format += "{" + std::to_string(args.size()) + "}";
      args.push_back(as_term(*piece.value, params));
    } else {
      format += piece.literal;
    }
  }
  const ErrorKind kind = o.preconditions[i].raises.kind;
  for (const MessageInfo& info : message_infos()) {
    if (info.kind == kind && info.format == format && args.size() <= kMessageArgs) return {info.id, args};
  }
  throw std::invalid_argument("prove: " + o.entry + ": the encoding raises no " + std::string(kind_name(kind)) + " \"" +
                              format + "\"");
}

}  // namespace

std::vector<Goal> oracle_goals(const Encoding& e, const oracle::Oracle& o) {
  Goals g(e);
  const EncodedOperation* op = encoded_operation_of(o.operation);
  if (!op) throw std::invalid_argument("prove: " + o.entry + ": no encoded operation " + o.operation);
  // Integers for every parameter, a flag as 0 or 1 (the encoding takes it as a Bool).
  std::vector<z3::expr> params, args;
  z3::expr flags = e.ctx().bool_val(true);
  for (std::size_t i = 0; i < o.parameters.size(); ++i) {
    params.push_back(g.integer(o.parameters[i].c_str()));
    if (o.flags[i]) flags = flags && params.back() >= 0 && params.back() <= 1;
    args.push_back(o.flags[i] ? params.back() == 1 : params.back());
  }
  const OutcomeTerm outcome = op->build(e, args).outcome;
  const std::vector<ShownCall> calls = {{std::string(op->name), args}};
  z3::expr none_before = flags;
  for (std::size_t i = 0; i < o.preconditions.size(); ++i) {
    const oracle::Oracle::Precondition& p = o.preconditions[i];
    const z3::expr fails_here = as_term(*p.when, params);
    const Raised r = raised(o, i, params);
    g.add(o.operation + " raises " + std::string(kind_name(p.raises.kind)) + " \"" + p.raises.text +
              "\" where precondition " + std::to_string(i + 1) + " (" + p.label + ") is the first to fail",
          none_before && fails_here, outcome.fails_with(r.id, r.args), calls);
    none_before = none_before && !fails_here;
  }
  g.add(o.operation + " succeeds where every precondition holds", none_before, outcome.ok, calls);
  return g.take();
}

}  // namespace tpcheck::prove
