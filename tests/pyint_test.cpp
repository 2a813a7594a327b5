// The Python-integer helpers every model operation stands on: floor division
// and modulo, products divided without overflow, decimal text both ways, and
// narrowing cpp_int to int64.
#include <limits>
#include <string>
#include <vector>

#include "model_test_support.hpp"
#include "tpcheck/outcome.hpp"

namespace tpcheck::test {
namespace {

constexpr __int128 kInt128Max = static_cast<__int128>((static_cast<unsigned __int128>(1) << 127) - 1);
constexpr __int128 kInt128Min = -kInt128Max - 1;

template <class Int>
struct PyInt : ::testing::Test {};
TYPED_TEST_SUITE(PyInt, ModelInts, IntName);

// --- floor division and modulo -----------------------------------------------

TYPED_TEST(PyInt, FloorDivAndModFollowPythonOnEverySignCombination) {
  using Int = TypeParam;
  // (a, b) -> (a // b, a % b) as Python gives them.
  struct Case {
    std::int64_t a, b, q, m;
  };
  for (const Case c : {Case{7, 2, 3, 1}, Case{-7, 2, -4, 1}, Case{7, -2, -4, -1}, Case{-7, -2, 3, -1},
                       Case{-8, 2, -4, 0}, Case{8, -2, -4, 0}, Case{0, -3, 0, 0}, Case{-1, 5, -1, 4},
                       Case{1, -5, -1, -4}}) {
    EXPECT_EQ(decimal(floor_div<Int>(Int(c.a), Int(c.b))), std::to_string(c.q)) << c.a << " // " << c.b;
    EXPECT_EQ(decimal(floor_mod<Int>(Int(c.a), Int(c.b))), std::to_string(c.m)) << c.a << " % " << c.b;
  }
}

TYPED_TEST(PyInt, FloorDivAndModAtInt64Extremes) {
  using Int = TypeParam;
  EXPECT_EQ(decimal(floor_div<Int>(Int(kMin), Int(3))), "-3074457345618258603");
  EXPECT_EQ(decimal(floor_mod<Int>(Int(kMin), Int(3))), "1");
  EXPECT_EQ(decimal(floor_div<Int>(Int(kMax), Int(-2))), "-4611686018427387904");
  EXPECT_EQ(decimal(floor_mod<Int>(Int(kMax), Int(-2))), "-1");
  EXPECT_EQ(decimal(floor_div<Int>(Int(kMin), Int(1))), "-9223372036854775808");
  EXPECT_EQ(decimal(floor_div<Int>(Int(kMin), Int(-2))), "4611686018427387904");
  EXPECT_EQ(decimal(floor_mod<Int>(Int(kMin), Int(kMax))), "9223372036854775806");
  EXPECT_EQ(decimal(floor_div<Int>(Int(kMin), Int(kMax))), "-2");
  EXPECT_EQ(decimal(floor_mod<Int>(Int(kMax), Int(kMin))), "-1");
  EXPECT_EQ(decimal(floor_div<Int>(Int(kMax), Int(kMin))), "-1");
}

TEST(PyIntBeyond64Bits, FloorDivAndModOnBigNegatives) {
  EXPECT_EQ(decimal(floor_div<BigInt>(-pow2(70) - 1, pow2(64))), "-65");
  EXPECT_EQ(decimal(floor_mod<BigInt>(-pow2(70) - 1, pow2(64))), "18446744073709551615");
  EXPECT_EQ(decimal(floor_mod<BigInt>(pow2(70) + 1, -pow2(64))), "-18446744073709551615");
  EXPECT_EQ(decimal(floor_div<__int128>(-(static_cast<__int128>(1) << 100) - 1, 2)), "-633825300114114700748351602689");
}

// --- floor(a * b / c) and ceil(a * b / c), c > 0 ----------------------------

TYPED_TEST(PyInt, MulDivSmallValuesRoundTheRightWay) {
  using Int = TypeParam;
  EXPECT_EQ(decimal(mul_floor_div<Int>(3, 7, 2)), "10");
  EXPECT_EQ(decimal(mul_ceil_div<Int>(3, 7, 2)), "11");
  EXPECT_EQ(decimal(mul_floor_div<Int>(-3, 7, 2)), "-11");
  EXPECT_EQ(decimal(mul_ceil_div<Int>(-3, 7, 2)), "-10");
  EXPECT_EQ(decimal(mul_floor_div<Int>(4, 6, 3)), "8");
  EXPECT_EQ(decimal(mul_ceil_div<Int>(4, 6, 3)), "8");
  EXPECT_EQ(decimal(mul_floor_div<Int>(0, 6, 3)), "0");
}

TYPED_TEST(PyInt, MulDivWithoutIntermediateOverflow) {
  using Int = TypeParam;
  const Int M = kMax;
  EXPECT_EQ(decimal(mul_floor_div<Int>(M, M, M)), "9223372036854775807");
  EXPECT_EQ(decimal(mul_floor_div<Int>(M - 1, M - 1, M)), "9223372036854775805");
  EXPECT_EQ(decimal(mul_ceil_div<Int>(M - 1, M - 1, M)), "9223372036854775806");
  EXPECT_EQ(decimal(mul_floor_div<Int>(Int(kMin), Int(3), Int(3))), "-9223372036854775808");
  EXPECT_EQ(decimal(mul_floor_div<Int>(Int(kMin), M, M)), "-9223372036854775808");
  EXPECT_EQ(decimal(mul_ceil_div<Int>(Int(kMin) + 1, M, M)), "-9223372036854775807");
  // 2^32 * 2^32 / 4 = 2^62: the product itself is 2^64
  EXPECT_EQ(decimal(mul_floor_div<Int>(Int(4294967296), Int(4294967296), Int(4))), "4611686018427387904");
}

TEST(PyIntBeyond64Bits, MulDiv) {
  EXPECT_EQ(decimal(mul_floor_div<BigInt>(pow2(100), pow2(100) + 1, pow2(101))), "633825300114114700748351602688");
  EXPECT_EQ(decimal(mul_ceil_div<BigInt>(pow2(100), pow2(100) + 1, pow2(101))), "633825300114114700748351602689");
}

// --- decimal text: Python's str(int) ---------------------------------------

TEST(Decimal, Int64) {
  EXPECT_EQ(decimal(std::int64_t{0}), "0");
  EXPECT_EQ(decimal(std::int64_t{-1}), "-1");
  EXPECT_EQ(decimal(kMax), "9223372036854775807");
  EXPECT_EQ(decimal(kMin), "-9223372036854775808");
}

TEST(Decimal, Int128IncludingItsExtremes) {
  EXPECT_EQ(decimal(static_cast<__int128>(0)), "0");
  EXPECT_EQ(decimal(static_cast<__int128>(-1)), "-1");
  EXPECT_EQ(decimal(static_cast<__int128>(10)), "10");
  EXPECT_EQ(decimal(static_cast<__int128>(kMin) * 2), "-18446744073709551616");
  EXPECT_EQ(decimal(kInt128Max), "170141183460469231731687303715884105727");
  EXPECT_EQ(decimal(kInt128Min), "-170141183460469231731687303715884105728");
}

TEST(Decimal, CppInt) {
  EXPECT_EQ(decimal(BigInt(0)), "0");
  EXPECT_EQ(decimal(BigInt(-7)), "-7");
  EXPECT_EQ(decimal(pow2(100)), "1267650600228229401496703205376");
  EXPECT_EQ(decimal(BigInt(-pow2(100))), "-1267650600228229401496703205376");
}

TEST(Widen, Int128ExtremesBecomeExactCppInts) {
  EXPECT_EQ(decimal(widen(kInt128Max)), "170141183460469231731687303715884105727");
  EXPECT_EQ(decimal(widen(kInt128Min)), "-170141183460469231731687303715884105728");
  EXPECT_EQ(decimal(widen(static_cast<__int128>(-1))), "-1");
  EXPECT_EQ(decimal(widen(static_cast<__int128>(0))), "0");
  EXPECT_EQ(decimal(widen(kMin)), "-9223372036854775808");
}

// --- parse_decimal: int(text) for sign and decimal digits --------------------

std::string parsed(const std::string& text) {
  const auto v = parse_decimal(text);
  return v ? decimal(*v) : "<rejected>";
}

TEST(ParseDecimal, SignsAndZero) {
  EXPECT_EQ(parsed("0"), "0");
  EXPECT_EQ(parsed("-0"), "0");
  EXPECT_EQ(parsed("+0"), "0");
  EXPECT_EQ(parsed("+5"), "5");
  EXPECT_EQ(parsed("-5"), "-5");
  EXPECT_EQ(parsed("9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(parsed("-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(parsed("18446744073709551616"), "18446744073709551616");
  EXPECT_EQ(parsed("-1267650600228229401496703205376"), "-1267650600228229401496703205376");
}

TEST(ParseDecimal, LeadingZerosAreDecimalNotOctal) {
  EXPECT_EQ(parsed("010"), "10");
  EXPECT_EQ(parsed("007"), "7");
  EXPECT_EQ(parsed("-010"), "-10");
  EXPECT_EQ(parsed("+00"), "0");
  EXPECT_EQ(parsed("09"), "9");
}

TEST(ParseDecimal, GarbageIsRejected) {
  for (const char* text : {"", "-", "+", "--1", "+-1", "-+1", "1a", "a1", " 1", "1 ", "0x10", "1e3", "1.0", "1_000",
                           "\xd9\xa1", "one", "1-", "\t", "- 1"}) {
    EXPECT_EQ(parsed(text), "<rejected>") << "'" << text << "'";
  }
  EXPECT_EQ(parsed(std::string("1\0" "2", 3)), "<rejected>");  // an embedded NUL
}

TEST(ParseDecimal, AtMost4300DigitsLikePython) {
  const std::string digits4300(4300, '9');
  const std::string digits4301(4301, '9');
  ASSERT_TRUE(parse_decimal(digits4300).has_value());
  EXPECT_EQ(decimal(*parse_decimal(digits4300)), digits4300);
  EXPECT_EQ(decimal(*parse_decimal("-" + digits4300)), "-" + digits4300);  // the sign is no digit
  EXPECT_EQ(parsed(digits4301), "<rejected>");
  EXPECT_EQ(parsed("-" + digits4301), "<rejected>");
}

// Python 3.11's int() counts leading zeros towards its 4300-digit limit
// (int('0' * 5000 + '7') raises "Exceeds the limit (4300 digits) ... value has
// 5001 digits"); pyint.hpp promises "at most as many digits as Python converts".
TEST(ParseDecimal, LeadingZerosCountTowardsPythonsDigitLimit) {
  EXPECT_EQ(parsed(std::string(4299, '0') + "7"), "7");
  EXPECT_EQ(parsed(std::string(5000, '0') + "7"), "<rejected>");
}

// decimal(cpp_int) has its own conversion (nine digits per pass, not Boost's
// str()); Boost's str() is the independent reading. Every block boundary:
// 10^k and its neighbours, powers of two past each limb, both signs, up to
// the 4300 digits Python prints.
TEST(DecimalOfCppInt, MatchesBoostOnEveryBlockAndLimbBoundary) {
  std::vector<BigInt> values;
  BigInt ten = 1;
  for (int k = 0; k <= 4300; ++k, ten *= 10) {
    if (k < 80 || k % 97 == 0 || k >= 4290) {
      for (int delta = -1; delta <= 1; ++delta) values.push_back(ten + delta);
    }
  }
  for (unsigned bits : {31u, 32u, 33u, 63u, 64u, 65u, 95u, 96u, 127u, 128u, 129u, 1000u, 14283u}) {
    for (int delta = -1; delta <= 1; ++delta) values.push_back(pow2(bits) + delta);
  }
  std::size_t beyond_int64 = 0;
  for (const BigInt& v : values) {
    for (const BigInt& signed_v : {v, BigInt(-v)}) {
      EXPECT_EQ(decimal(signed_v), signed_v.str());
      beyond_int64 += narrow(signed_v) ? 0 : 1;
    }
  }
  EXPECT_GT(beyond_int64, values.size());  // the conversion itself, not only int64's fast path
  EXPECT_EQ(decimal(BigInt(std::string(4300, '7'))), std::string(4300, '7'));
}

// --- narrow: cpp_int to int64 when it fits -------------------------------------

TEST(Narrow, ExactlyTheInt64Range) {
  EXPECT_EQ(narrow(BigInt(kMax)), std::optional<std::int64_t>(kMax));
  EXPECT_EQ(narrow(BigInt(kMin)), std::optional<std::int64_t>(kMin));
  EXPECT_EQ(narrow(BigInt(0)), std::optional<std::int64_t>(0));
  EXPECT_EQ(narrow(BigInt(-1)), std::optional<std::int64_t>(-1));
  EXPECT_EQ(narrow(BigInt(kMax) + 1), std::nullopt);
  EXPECT_EQ(narrow(BigInt(kMin) - 1), std::nullopt);
  EXPECT_EQ(narrow(pow2(64)), std::nullopt);
  EXPECT_EQ(narrow(BigInt(-pow2(100))), std::nullopt);
}

// --- the exception class names ------------------------------------------------

TEST(ErrorKinds, PythonClassNames) {
  EXPECT_EQ(kind_name(ErrorKind::ValueError), "ValueError");
  EXPECT_EQ(kind_name(ErrorKind::NotImplementedError), "NotImplementedError");
  EXPECT_EQ(kind_name(ErrorKind::AssertionError), "AssertionError");
}

}  // namespace
}  // namespace tpcheck::test
