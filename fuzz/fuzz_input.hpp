// Decodes a fuzzer's bytes into integers (fuzz_cli_options), and the trace
// of what every target decoded.
//
// Every integer is one fixed-width field of 9 bytes: a mode byte, then a
// little-endian 64-bit payload x. Because fields never change width, a
// mutation in one field leaves the others in place and fields copied between
// inputs keep their meaning. Bytes past the end read as zero, so any input,
// even an empty one, decodes. The mode byte's low nibble picks how x becomes a
// value, biased toward what makes the model branch (small sizes, sizes that
// divide each other, ranks near their bounds) while still reaching every
// width and sign:
//
//   0-5  tiny        x % 9                     (0..8: sizes that divide often)
//   6-7  small       x % 1025                  (0..1024)
//   8    multiple    prev * (1 + x % 16)       (prev: the previous integer)
//   9    divisor     prev / gcd(prev, 1 + x % 16), a divisor of prev
//   10   int64       x as a signed 64-bit value
//   11   neighbour   prev + (x % 5) - 2
//   12   beyond 64   (int64)x * 2^(64 + 4 * high nibble)
//   13   negative    -1 - x % 9
//   14   power       +-(2^(x % 200) + (x >> 8) % 3 - 1), minus when the high bit is set
//   15   any small   x % 2^16, minus when the high bit is set
//
// With describe() on (or TPCHECK_FUZZ_DESCRIBE set), every decoded field is
// appended to a text trace ("lo=8 hi=4"), which the replay driver prints as
// the readable form of an input; other decoders add theirs with append_trace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpcheck/pyint.hpp"

namespace tpcheck::fuzz {

class FuzzInput {
 public:
  static constexpr std::size_t kFieldBytes = 9;

  FuzzInput(const std::uint8_t* data, std::size_t size);

  // An integer of any width, but wrapped to its low 64 bits (two's complement).
  std::int64_t int64(std::string_view name);

  // Turns the trace on for every FuzzInput (the replay driver's --describe)
  // and hands out the trace of the current input.
  static void describe(bool on);
  static bool describing();
  static std::string take_trace();
  // Adds a decoded input's readable form to the trace (when it is on).
  static void append_trace(const std::string& text);

 private:
  std::uint8_t byte();
  std::uint64_t payload();
  void note(std::string_view name, const std::string& value);

  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
  BigInt previous_ = 0;
};

// The bytes of a corpus file, or nothing when it cannot be read (the replay
// driver, the seed writer and the naming of committed inputs read them so).
std::optional<std::vector<std::uint8_t>> read_input_file(const std::filesystem::path& p);

}  // namespace tpcheck::fuzz
