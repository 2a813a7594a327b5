// Python integer semantics for the two integer types the model runs in.
//
// The model is written once over `Int`: std::int64_t (what deployments use),
// boost::multiprecision::cpp_int (the mathematical truth), and std::int16_t, a
// narrow type whose overflow boundaries the exhaustive sweep crosses at small
// sizes (products of sizes below 256 pass 2^15), the way LLVM tests KnownBits
// at narrow widths. Division and modulo follow Python (floor), never C++
// truncation, and products that can leave Int's range are formed in a wider
// type, so every instantiation agrees on every input that fits in it.
#pragma once

#include <boost/multiprecision/cpp_int.hpp>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace tpcheck {

// cpp_int's arithmetic with 384 bits stored inline instead of its default 128:
// MaxBits 0 keeps it unbounded (std::allocator past the inline limbs), so it
// is still arbitrary precision with cpp_int's semantics. Why: the fuzzers and
// RapidCheck draw cpp_int values up to 2^320, and with 128 inline bits every
// such value and temporary was a heap allocation; in the sanitizer builds
// ASan's allocator (stack depot, quarantine) was about 30% of fuzz_invariants'
// time. 384 bits hold every drawn value; a product of two (up to 640 bits, in
// mul_floor_div) still allocates. Measured (libFuzzer build, exec/s per CPU
// second, fixed seeds 1-3, median, load 2-3): fuzz_invariants 49,128 with
// cpp_int, 71,649 with this; 640 inline bits read 77,351 in the same sitting
// as 71,213 for 384 (within the noise; seeds alone move it 69-79k) for a
// BigInt of 96 bytes instead of 64 (cpp_int's is 32); fuzz_differential
// 63,787 and 67,000 (its values fit int64; within the noise). What it costs
// the normal build (GCC 12 RelWithDebInfo, CPU time, old and new alternating,
// three runs): tpcheck_bench Sweep/24 107-109 ms -> 113-115 ms,
// Entry/NarrowModelsAgreeWithCppIntModel (int16 against cpp_int) 83-88 ->
// 90-92 ms; `tpcheck verify --max-tp 48 --max-heads 96` 0.61-0.62 s ->
// 0.64 s of CPU (with the plan ranges of model.hpp); the largest listing in
// cpp_int, `tpcheck eval --model cpp_int plan 0 1048576 1 1048576 0` (2^20
// copies), peak RSS 183 MB -> 281 MB, a window of 2^20 ranks 62 MB -> 95 MB.
using BigInt = boost::multiprecision::number<boost::multiprecision::cpp_int_backend<
    384, 0, boost::multiprecision::signed_magnitude, boost::multiprecision::unchecked>>;

template <class T>
concept ModelInt = std::same_as<T, std::int64_t> || std::same_as<T, BigInt> || std::same_as<T, std::int16_t>;

// A type that holds any product of two Ints (and a sum of such products):
// __int128 for int64, int32 for int16.
template <ModelInt Int>
struct Widened {
  using type = BigInt;
};
template <>
struct Widened<std::int64_t> {
  using type = __int128;
};
template <>
struct Widened<std::int16_t> {
  using type = std::int32_t;
};
template <ModelInt Int>
using wide_t = typename Widened<Int>::type;

// Python's a // b. Precondition: b != 0, and not (INT64_MIN, -1) in int64.
template <class Int>
Int floor_div(const Int& a, const Int& b) {
  Int q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}

// Python's a % b: the sign of b. Precondition as floor_div.
template <class Int>
Int floor_mod(const Int& a, const Int& b) {
  Int m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

// cpp_int: with non-negative a and positive b (the model's usual case) the
// truncated quotient is the floor, so one division and no remainder; past
// 128 bits every cpp_int temporary is a heap allocation.
template <>
inline BigInt floor_div<BigInt>(const BigInt& a, const BigInt& b) {
  if (a.sign() >= 0 && b.sign() > 0) return a / b;
  BigInt q;
  BigInt r;
  boost::multiprecision::divide_qr(a, b, q, r);
  if (r.sign() != 0 && ((r.sign() < 0) != (b.sign() < 0))) q -= 1;
  return q;
}

// floor(a * b / c) for c > 0 without intermediate overflow. Precondition: the
// result fits in Int (the model only asks for values below one of its sizes).
template <ModelInt Int>
Int mul_floor_div(const Int& a, const Int& b, const Int& c) {
  using W = wide_t<Int>;
  return static_cast<Int>(floor_div<W>(W(a) * W(b), W(c)));
}

// ceil(a * b / c) for c > 0, same precondition.
template <ModelInt Int>
Int mul_ceil_div(const Int& a, const Int& b, const Int& c) {
  using W = wide_t<Int>;
  return static_cast<Int>(-floor_div<W>(-(W(a) * W(b)), W(c)));
}

// Python's str(int).
inline std::string decimal(std::int16_t v) { return std::to_string(v); }
inline std::string decimal(std::int32_t v) { return std::to_string(v); }
std::string decimal(std::int64_t v);
std::string decimal(__int128 v);
std::string decimal(unsigned __int128 v);
std::string decimal(const BigInt& v);

// Python's int(text) restricted to optional sign and decimal digits, with at
// most as many digits as Python converts by default (sys.get_int_max_str_digits).
inline constexpr std::size_t kMaxDecimalDigits = 4300;
// A view, not a string: parsers hand it words of a line without copying them.
std::optional<BigInt> parse_decimal(std::string_view text);

// The int64 value of v, if it fits.
std::optional<std::int64_t> narrow(const BigInt& v);

// The value of v in a model integer type, if it fits.
template <ModelInt Int>
std::optional<Int> narrow_to(const BigInt& v) {
  if constexpr (std::same_as<Int, BigInt>) {
    return v;
  } else {
    if (v < std::numeric_limits<Int>::min() || v > std::numeric_limits<Int>::max()) return std::nullopt;
    return v.template convert_to<Int>();
  }
}

inline BigInt widen(std::int16_t v) { return BigInt(v); }
inline BigInt widen(std::int32_t v) { return BigInt(v); }
inline BigInt widen(std::int64_t v) { return BigInt(v); }
inline BigInt widen(__int128 v) {
  // cpp_int has no __int128 constructor on every Boost: build it from halves.
  const bool negative = v < 0;
  unsigned __int128 mag = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  BigInt out = BigInt(static_cast<std::uint64_t>(mag >> 64));
  out <<= 64;
  out += BigInt(static_cast<std::uint64_t>(mag));
  return negative ? BigInt(-out) : out;
}
inline BigInt widen(unsigned __int128 v) {
  BigInt out = BigInt(static_cast<std::uint64_t>(v >> 64));
  out <<= 64;
  return out + BigInt(static_cast<std::uint64_t>(v));
}
inline const BigInt& widen(const BigInt& v) { return v; }

}  // namespace tpcheck
