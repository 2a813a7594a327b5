// What an invariant says about one input: it holds, it does not speak about
// the input (vacuous, with the reason), or it is violated (with what was seen).
//
// A vacuous reason is a static string, so the hot path of an engine never
// allocates for it; a violation's message is built only when there is one.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace tpcheck::inv {

class Verdict {
 public:
  enum class State : std::uint8_t { Holds, Vacuous, Violated };

  static Verdict holds() { return Verdict(State::Holds, nullptr, {}); }
  // `reason` must outlive every engine run: a string literal.
  static Verdict vacuous(const char* reason) { return Verdict(State::Vacuous, reason, {}); }
  static Verdict violated(std::string message) { return Verdict(State::Violated, nullptr, std::move(message)); }

  State state() const { return state_; }
  bool held() const { return state_ == State::Holds; }
  bool is_vacuous() const { return state_ == State::Vacuous; }
  bool is_violated() const { return state_ == State::Violated; }
  // Whether the input was one the invariant speaks about (held or violated).
  bool non_vacuous() const { return state_ != State::Vacuous; }

  const char* reason() const { return reason_; }            // vacuous only
  const std::string& message() const { return message_; }   // violated only

 private:
  Verdict(State state, const char* reason, std::string message)
      : state_(state), reason_(reason), message_(std::move(message)) {}

  State state_;
  const char* reason_;
  std::string message_;
};

inline Verdict holds() { return Verdict::holds(); }
inline Verdict vacuous(const char* reason) { return Verdict::vacuous(reason); }
inline Verdict violated(std::string message) { return Verdict::violated(std::move(message)); }

}  // namespace tpcheck::inv
