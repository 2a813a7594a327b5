// Comparing one connector outcome with the model: exactly, or by the relation
// a binding states, naming the kind of any deviation and what it does.
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
  std::optional<Kind> kind;  // nullopt: conforms (or was not compared)
  std::string expected;      // tpcheck eval's notation, or the relation's canonical form
  std::string note;          // which model call the expectation comes from, for relations
  Effect effect = Effect::Unspecified;
  bool too_many = false;      // a count above the expected one
  bool not_compared = false;  // outside what the relation speaks about (a sizing refused by handshake)
};

// `op` is the binding's model operation (operation_index of model_op).
Judgement judge(const Binding& binding, std::size_t op, const CaseArgs& args, const Actual& actual);

// Why the cases judge() does not compare are left out (for the report).
std::string not_compared_reason(const Binding& binding);

// The Python exception classes the model raises.
bool is_modelled_exception(const std::string& cls);

}  // namespace tpcheck::conform
