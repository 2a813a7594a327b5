// The byte decoding described in fuzz_input.hpp.
#include "fuzz_input.hpp"

#include <cstdlib>
#include <fstream>
#include <iterator>

#include <boost/multiprecision/integer.hpp>

namespace tpcheck::fuzz {
namespace {

// TPCHECK_FUZZ_DESCRIBE=1 turns the trace on in libFuzzer builds, so a
// violation report names the decoded fields (scripts/fuzz_promote.sh uses it).
bool g_describe = std::getenv("TPCHECK_FUZZ_DESCRIBE") != nullptr;
std::string g_trace;

BigInt power_of_two(unsigned exponent) {
  BigInt v = 1;
  v <<= exponent;
  return v;
}

// The value of one integer field: `mode`'s low nibble picks the rule, its high
// nibble parameterises some rules (fuzz_input.hpp has the table).
BigInt from_mode(std::uint8_t mode, std::uint64_t x, const BigInt& prev) {
  const unsigned high = mode >> 4;
  const bool minus = (mode & 0x80) != 0;
  switch (mode & 0x0F) {
    case 0: case 1: case 2: case 3: case 4: case 5:
      return BigInt(x % 9);
    case 6: case 7:
      return BigInt(x % 1025);
    case 8:
      return BigInt(prev * (1 + x % 16));
    case 9: {
      // gcd divides prev, so the quotient is an exact divisor (0 stays 0).
      const BigInt g = boost::multiprecision::gcd(prev, BigInt(1 + x % 16));
      return g == 0 ? BigInt(0) : BigInt(prev / g);
    }
    case 10:
      return BigInt(static_cast<std::int64_t>(x));
    case 11:
      return BigInt(prev + static_cast<int>(x % 5) - 2);
    case 12: {
      BigInt v = BigInt(static_cast<std::int64_t>(x));
      v <<= 64 + 4 * high;
      return v;
    }
    case 13:
      return BigInt(-1 - static_cast<std::int64_t>(x % 9));
    case 14: {
      // Two steps, not one expression: GCC 12 at -O3 inlines cpp_int's limb
      // copy of the expression template and warns of a memcpy it never does
      // (-Warray-bounds, -Wstringop-overread false positives).
      BigInt v = power_of_two(static_cast<unsigned>(x % 200));
      v += static_cast<int>((x >> 8) % 3) - 1;
      return minus ? BigInt(-v) : v;
    }
    default: {
      const BigInt v = BigInt(x % 65536);
      return minus ? BigInt(-v) : v;
    }
  }
}

std::uint64_t low_64_bits(const BigInt& v) {
  // Two's complement of the magnitude's low word when v is negative. cpp_int
  // keeps sign and magnitude, so the low word is its first limb (read in
  // place: `abs(v) & mask` copied a value of up to 2^264 twice per field).
  static_assert(sizeof(boost::multiprecision::limb_type) == sizeof(std::uint64_t), "one limb is the low word");
  const std::uint64_t low = v.backend().limbs()[0];
  return v < 0 ? ~low + 1 : low;
}

}  // namespace

FuzzInput::FuzzInput(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {
  g_trace.clear();  // one input, one trace
}

std::uint8_t FuzzInput::byte() { return pos_ < size_ ? data_[pos_++] : std::uint8_t{0}; }

std::uint64_t FuzzInput::payload() {
  std::uint64_t x = 0;
  for (int i = 0; i < 8; ++i) x |= std::uint64_t{byte()} << (8 * i);
  return x;
}

void FuzzInput::note(std::string_view name, const std::string& value) {
  if (!g_describe) return;
  if (!g_trace.empty()) g_trace += ' ';
  g_trace += std::string(name) + "=" + value;
}

std::int64_t FuzzInput::int64(std::string_view name) {
  const std::uint8_t mode = byte();
  const std::uint64_t x = payload();
  previous_ = from_mode(mode, x, previous_);
  const auto wrapped = static_cast<std::int64_t>(low_64_bits(previous_));
  previous_ = wrapped;
  if (g_describe) note(name, std::to_string(wrapped));  // no text per input unless asked
  return wrapped;
}

void FuzzInput::describe(bool on) { g_describe = on; }

bool FuzzInput::describing() { return g_describe; }

void FuzzInput::append_trace(const std::string& text) {
  if (!g_describe) return;
  if (!g_trace.empty()) g_trace += ' ';
  g_trace += text;
}

std::string FuzzInput::take_trace() {
  std::string out;
  out.swap(g_trace);
  return out;
}

std::optional<std::vector<std::uint8_t>> read_input_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return std::nullopt;
  return bytes;
}

}  // namespace tpcheck::fuzz
