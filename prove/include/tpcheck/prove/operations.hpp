// Every encoded operation by name: what the differential test runs against the
// model, and what a counterexample shows, in `tpcheck eval` notation.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <z3++.h>

#include "tpcheck/prove/encoding.hpp"

namespace tpcheck::prove {

// How a value is printed (Python's repr of the model's value): a tuple of
// integers (a span, a state's shape), a list of ranks or of copies, or of the
// state's segments and copies, whose first value is a segment index printed
// as its name (EncodedOperation::segment_names).
enum class Shape { Int, Bool, None, Tuple, Ranks, Copies, Segments, StateCopies };

// A parameter that is a Bool: MLA and the attention-DP flags.
inline bool is_flag(std::string_view param) { return param == "MLA" || param.ends_with("_ADP"); }

struct EncodedOperation {
  std::string_view name;                 // the model function's name (`tpcheck eval`'s, where it has one)
  std::vector<std::string_view> params;  // a flag (is_flag) is a Bool
  Shape shape;
  bool eval_knows;                       // `tpcheck eval NAME ARGS...` runs it
  std::function<OperationTerm(const Encoding&, const std::vector<z3::expr>&)> build;
  std::vector<std::string_view> segment_names = {};  // Shape::Segments and StateCopies: by index
};

const std::vector<EncodedOperation>& encoded_operations();
const EncodedOperation* encoded_operation(std::string_view name);
// The encoded operation `tpcheck eval` knows by this name (CONNECTOR_accepts
// is sizing_accepted_CONNECTOR), or nullptr.
const EncodedOperation* encoded_operation_of(std::string_view eval_name);

// Fresh constants for an operation's parameters (Int, or Bool for MLA).
std::vector<z3::expr> parameter_constants(z3::context& c, const EncodedOperation& op);

// Evaluates a term to a constant: a Z3 model's eval, or substitution and simplification.
using Evaluator = std::function<z3::expr(const z3::expr&)>;

// The outcome an operation term has under `eval`, in Python's notation as
// `tpcheck eval` prints it ("[0, 1]", "ValueError: ..."); nullopt when some
// part does not reduce to a constant. Lists longer than max_listed are cut
// with "...".
std::optional<std::string> render_outcome(const EncodedOperation& op, const OperationTerm& term, const Evaluator& eval,
                                          std::size_t max_listed);

// A constant's value: an integer numeral, or true/false as 1/0.
std::optional<BigInt> constant_value(const z3::expr& e);

}  // namespace tpcheck::prove
