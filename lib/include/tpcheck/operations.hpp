// The model's operations by name, as `tpcheck eval` and the conformance
// checker call them: parse the arguments (decimal integers of any size; MLA is
// 0 or 1), run the model in int64 when every argument fits and in cpp_int
// otherwise, and render the outcome in Python's notation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tpcheck/pyint.hpp"

namespace tpcheck {

struct OperationInfo {
  std::string_view name;
  std::vector<std::string_view> params;  // a param named "MLA" is a 0/1 flag
};

// Every operation, in the order `tpcheck eval --help` lists them.
const std::vector<OperationInfo>& operation_infos();

// Either the rendered outcome of the model (ok; a modelled error is an
// outcome too), or a one-line usage error (not ok).
struct Evaluation {
  bool ok;
  std::string text;
};

Evaluation evaluate(std::string_view op, const std::vector<std::string>& args);

// A call as the one parser of "OP ARG..." reads it: the operation's index in
// operation_infos() and its arguments, checked for arity, decimal syntax
// (at most kMaxDecimalDigits digits) and MLA flags.
struct Call {
  std::size_t op;
  std::vector<BigInt> args;
};

// The call, or a one-line usage error (the text `tpcheck eval` prints).
std::variant<Call, std::string> parse_call(std::string_view op, const std::vector<std::string>& args);

// The same from one whitespace-separated line "OP ARG...".
std::variant<Call, std::string> parse_call_line(std::string_view line);

// Typed entry points for engines that already hold integers: the index of an
// operation in operation_infos(), and its rendered outcome in one integer
// type. Precondition: args has the operation's arity and MLA args are 0 or 1.
std::optional<std::size_t> operation_index(std::string_view op);
std::string evaluate_int64(std::size_t op, const std::vector<std::int64_t>& args);
std::string evaluate_big(std::size_t op, const std::vector<BigInt>& args);

// Whether the int64 and the cpp_int model give the same outcome (compared as
// values, not text). Same precondition.
bool int64_and_cpp_int_agree(std::size_t op, const std::vector<std::int64_t>& args);

// One whitespace-separated line "OP ARG...".
Evaluation evaluate_line(std::string_view line);

}  // namespace tpcheck
