// An outcome of a model operation: a value, or the failure the Python
// reference raises ({exception class, exact message}).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace tpcheck {

// The Python exception classes the reference raises.
enum class ErrorKind { ValueError, NotImplementedError, AssertionError };

std::string_view kind_name(ErrorKind kind);

struct Failure {
  ErrorKind kind;
  std::string message;
  bool operator==(const Failure&) const = default;
};

// Python's None: the value of a check that accepts.
struct None {
  bool operator==(const None&) const = default;
};

template <class V>
class Outcome {
 public:
  using value_type = V;
  Outcome(V value) : state_(std::move(value)) {}        // NOLINT: implicit on purpose
  Outcome(Failure failure) : state_(std::move(failure)) {}  // NOLINT
  bool ok() const { return state_.index() == 0; }
  const V& value() const { return std::get<0>(state_); }
  const Failure& failure() const { return std::get<1>(state_); }
  bool operator==(const Outcome&) const = default;

 private:
  std::variant<V, Failure> state_;
};

inline Failure value_error(std::string message) {
  return {ErrorKind::ValueError, std::move(message)};
}
inline Failure not_implemented_error(std::string message) {
  return {ErrorKind::NotImplementedError, std::move(message)};
}
inline Failure assertion_error(std::string message) {
  return {ErrorKind::AssertionError, std::move(message)};
}

}  // namespace tpcheck
