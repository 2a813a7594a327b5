// The byte decoding described in fuzz_input.hpp.
#include "fuzz_input.hpp"

#include <cstdlib>

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
      BigInt v = power_of_two(static_cast<unsigned>(x % 200)) + static_cast<int>((x >> 8) % 3) - 1;
      return minus ? BigInt(-v) : v;
    }
    default: {
      const BigInt v = BigInt(x % 65536);
      return minus ? BigInt(-v) : v;
    }
  }
}

std::uint64_t low_64_bits(const BigInt& v) {
  // Two's complement of the magnitude's low word when v is negative.
  const BigInt magnitude = boost::multiprecision::abs(v);
  const std::uint64_t low = static_cast<std::uint64_t>(magnitude & BigInt(~std::uint64_t{0}));
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

BigInt FuzzInput::integer(std::string_view name) {
  const std::uint8_t mode = byte();
  const std::uint64_t x = payload();
  previous_ = from_mode(mode, x, previous_);
  note(name, previous_.str());
  return previous_;
}

std::int64_t FuzzInput::int64(std::string_view name) {
  const std::uint8_t mode = byte();
  const std::uint64_t x = payload();
  previous_ = from_mode(mode, x, previous_);
  const auto wrapped = static_cast<std::int64_t>(low_64_bits(previous_));
  previous_ = wrapped;
  note(name, std::to_string(wrapped));
  return wrapped;
}

BigInt FuzzInput::rank_below(std::string_view name, const BigInt& bound) {
  const std::uint8_t mode = byte();
  const std::uint64_t x = payload();
  BigInt r;
  const unsigned rule = mode & 0x0F;
  if (bound <= 0 || rule >= 14) {
    r = from_mode(static_cast<std::uint8_t>(mode >> 4), x, previous_);
  } else if (rule <= 9) {
    r = (bound * x) >> 64;  // spread over the whole of [0, bound)
  } else if (rule == 10) {
    r = BigInt(x % 4);  // the first ranks
  } else if (rule == 11) {
    r = bound - 1 - BigInt(x % 4);  // the last ranks
  } else if (rule == 12) {
    r = bound;  // just past the end
  } else {
    r = BigInt(-1 - static_cast<std::int64_t>(x % 3));
  }
  previous_ = r;
  note(name, r.str());
  return r;
}

BigInt FuzzInput::heads_for(std::string_view name, const BigInt& P, const BigInt& D) {
  const std::uint8_t mode = byte();
  const std::uint64_t x = payload();
  const unsigned rule = mode & 0x0F;
  BigInt h;
  if (P <= 0 || D <= 0 || rule >= 12) {
    h = from_mode(static_cast<std::uint8_t>(mode >> 4), x, previous_);
  } else if (rule <= 3) {
    // A divisor of both sides: every rank of both holds whole replicated heads.
    const BigInt g = boost::multiprecision::gcd(P, D);
    h = g / boost::multiprecision::gcd(g, BigInt(1 + x % 16));
  } else if (rule <= 7) {
    // A multiple of both sides: both split the heads.
    h = BigInt(P / boost::multiprecision::gcd(P, D) * D * (1 + x % 8));
  } else if (rule <= 9) {
    h = (x & 1) ? D : P;
  } else {
    h = BigInt((rule == 10 ? P : D) * (1 + x % 4));
  }
  previous_ = h;
  note(name, h.str());
  return h;
}

bool FuzzInput::flag(std::string_view name) {
  const bool on = (byte() & 1) != 0;
  note(name, on ? "1" : "0");
  return on;
}

std::size_t FuzzInput::choice(std::string_view name, const std::vector<std::string_view>& labels) {
  const std::size_t picked = byte() % labels.size();
  note(name, std::string(labels[picked]));
  return picked;
}

void FuzzInput::describe(bool on) { g_describe = on; }

std::string FuzzInput::take_trace() {
  std::string out;
  out.swap(g_trace);
  return out;
}

}  // namespace tpcheck::fuzz
