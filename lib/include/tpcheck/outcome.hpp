// An outcome of a model operation: a value, or the failure the Python
// reference raises ({exception class, exact message}).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace tpcheck {

// The Python exception classes the reference raises.
enum class ErrorKind { ValueError, NotImplementedError, AssertionError };

std::string_view kind_name(ErrorKind kind);

// A failure's message, kept as the pieces it is made of and spelled out only
// when read. The model fails on every invalid input an engine draws, and most
// checks only ask whether a call failed, or compare two failures; so making a
// failure must not allocate: literal text is kept by pointer (it must be
// static: a string literal), an integer that fits int64 by value. Only a
// larger integer's digits (the cpp_int model's) are stored as text.
class FailureText {
 public:
  // The most pieces a message has (the longest, "{role} tp_size {a} must be a
  // multiple of {role} tp_size {b} for heterogeneous-TP P/D", has 8).
  static constexpr std::size_t kMaxPieces = 8;

  FailureText() = default;

  // Appends a piece. Precondition: fewer than kMaxPieces so far (messages.hpp
  // checks its shapes at compile time).
  void add_literal(const char* text);  // static storage only
  void add_integer(std::int64_t value);
  void add_digits(std::string_view digits);  // an integer past int64, in decimal

  void append_to(std::string& out) const;
  bool empty() const;

  // The same text; pieces that differ (an integer against its digits, a text
  // split otherwise) are compared as text.
  friend bool operator==(const FailureText& a, const FailureText& b);

 private:
  enum class Kind : std::uint8_t { Literal, Integer, Text };
  struct Piece {
    Kind kind = Kind::Literal;
    union {
      const char* literal;
      std::int64_t integer;
      std::uint32_t text[2];  // offset and length in text_
    } as{nullptr};
  };
  static bool same_pieces(const FailureText& a, const FailureText& b);
  // The same characters, however the pieces split them: compared piece by
  // piece, an integer written into a buffer on the stack, nothing allocated.
  static bool same_text(const FailureText& a, const FailureText& b);
  using Digits = std::array<std::array<char, 24>, kMaxPieces>;
  void views(std::array<std::string_view, kMaxPieces>& out, Digits& digits) const;
  void add_piece(Piece p);

  std::array<Piece, kMaxPieces> pieces_{};
  std::uint8_t count_ = 0;
  std::string text_;  // the Text pieces, one after the other
};

struct Failure {
  ErrorKind kind;
  FailureText message;
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

}  // namespace tpcheck
