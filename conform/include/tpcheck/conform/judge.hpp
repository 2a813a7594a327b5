// Comparing one connector outcome with the model: exactly, or by the relation
// a binding states, and naming the kind of any deviation.
#pragma once

#include <optional>
#include <string>

#include "tpcheck/conform/grid.hpp"
#include "tpcheck/conform/profile.hpp"
#include "tpcheck/conform/session.hpp"

namespace tpcheck::conform {

// The model's outcome of operation `op` (operation_index) on any integers:
// int64 when every argument fits, cpp_int otherwise.
std::string model_outcome(std::size_t op, const std::vector<BigInt>& args);

struct Judgement {
  std::optional<Kind> kind;  // nullopt: conforms (or was not run)
  std::string expected;      // tpcheck eval's notation
  std::string note;          // which model call the expectation comes from, for relations
  bool too_many = false;     // a count above the expected one
};

Judgement judge(const Binding& binding, std::size_t op, const CaseArgs& args, const Actual& actual);

// The Python exception classes the model raises.
bool is_modelled_exception(const std::string& cls);

// The argument as the child receives it: decimal, or T/F for a flag.
std::string argument_text(const std::string& param, const BigInt& value);

}  // namespace tpcheck::conform
