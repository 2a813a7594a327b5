// One RapidCheck property per registry entry, generated from the registry:
// `Int64/Invariant.Holds/<Name>` and `CppInt/Invariant.Holds/<Name>` (cpp_int
// values reach 2^320). Each draws its domain's choices (choices_gen.hpp),
// computes the values from them (dom::decode) and runs the entry's check; a
// violation fails the case with the check's message.
//
// After a property passes, its coverage is asserted (QuickCheck's
// checkCoverage): every declared kind met by a non-vacuous case, at least the
// declared non-vacuous share, and, for an entry whose sizes are not capped,
// values at the int64 edge (Int64) or beyond 64 bits (CppInt). The
// distribution is one short table per property. A property that fails prints
// its shrunk counterexample as one machine-readable line:
//   TPCHECK_COUNTEREXAMPLE {"invariant": ..., "int": ..., "values": {...}, "sizes": [...], "violation": ...}
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <array>
#include <iostream>
#include <sstream>
#include <string>

#include "choices_gen.hpp"
#include "tpcheck/json.hpp"
#include "tpcheck/registry.hpp"

namespace tpcheck::rcprop {
namespace {

enum class IntType { Int64, CppInt };

struct Param {
  std::size_t entry;
  IntType type;
};

// How GoogleTest shows a parameter: "RoundTripReturnsHome in int64".
void PrintTo(const Param& p, std::ostream* os) {
  *os << inv::registry()[p.entry].name << (p.type == IntType::Int64 ? " in int64" : " in cpp_int");
}

std::vector<Param> params(IntType type) {
  const inv::Engine engine = type == IntType::Int64 ? inv::Engine::RapidCheckInt64 : inv::Engine::RapidCheckCppInt;
  std::vector<Param> out;
  for (std::size_t i = 0; i < inv::registry().size(); ++i) {
    if (!inv::registry()[i].exclusion(engine)) out.push_back({i, type});
  }
  return out;
}

// The size class of the largest value of a case, for the distribution and
// the magnitude coverage.
enum Magnitude { UpTo64, Below2To32, Below2To62, Int64Edge, Beyond64, kMagnitudes };
constexpr const char* kMagnitudeNames[] = {"<= 64", "< 2^32", "2^32..2^62", "2^62..2^64", ">= 2^64"};

Magnitude magnitude_of(const BigInt* values, int width) {
  BigInt largest = 0;
  for (int i = 0; i < width; ++i) largest = std::max(largest, BigInt(boost::multiprecision::abs(values[i])));
  if (largest <= 64) return UpTo64;
  if (largest < (BigInt(1) << 32)) return Below2To32;
  if (largest < (BigInt(1) << 62)) return Below2To62;
  if (largest < (BigInt(1) << 64)) return Int64Edge;
  return Beyond64;
}

// What a property run saw, and the last failing case (after shrinking: the smallest).
struct Observed {
  inv::Tally tally;
  std::array<std::uint64_t, kMagnitudes> magnitudes{};
  std::string failure;  // the counterexample line, when a case failed
};

std::string counterexample_line(const inv::Entry& e, std::size_t d, IntType type, const BigInt* values,
                                const std::string& violation) {
  const dom::Domain& domain = e.domains[d];
  std::ostringstream out;
  out << "TPCHECK_COUNTEREXAMPLE {\"invariant\": " << json_string(e.name) << ", \"int\": \""
      << (type == IntType::Int64 ? "int64" : "cpp_int") << "\", \"domain\": " << json_string(e.domain_names[d])
      << ", \"values\": {";
  std::string sizes;
  for (int i = 0; i < domain.width(); ++i) {
    out << (i ? ", " : "") << json_string(domain.name(i)) << ": " << json_string(decimal(values[i]));
    if (domain.is_size(i)) sizes += (sizes.empty() ? "" : ", ") + json_string(decimal(values[i]));
  }
  out << "}, \"sizes\": [" << sizes << "], \"violation\": " << json_string(violation) << "}";
  return out.str();
}

template <class Int>
Int as_int(const BigInt& v) {
  if constexpr (std::is_same_v<Int, BigInt>) {
    return v;
  } else {
    return *narrow(v);  // decode keeps every value inside the limits of Int
  }
}

template <class Int>
rc::detail::TestResult check_entry(const inv::Entry& e, IntType type, Observed& seen) {
  const dom::Limits limits = type == IntType::Int64 ? dom::int64_limits(e.size_cap) : dom::big_limits(e.size_cap);
  std::vector<std::vector<dom::Choice>> ranges;
  for (const dom::Domain& d : e.domains) ranges.push_back(dom::choice_ranges(d));
  const auto property = [&e, &seen, &ranges, limits, type] {
    // Which domain (the differential's operation) is a structural choice, not a
    // magnitude: drawn uniformly whatever the size, and shrunk towards the first.
    const std::size_t d =
        e.domains.size() == 1 ? 0 : *rc::gen::resize(100, rc::gen::inRange<std::size_t>(0, e.domains.size())).as("domain");
    const std::vector<dom::Choice> picked = *choices(ranges[d]).as("choices");
    const dom::Domain& domain = e.domains[d];
    std::array<BigInt, dom::kMaxValues> big;
    dom::decode(domain, picked.data(), big.data(), limits);
    std::array<Int, dom::kMaxValues> values{};
    for (int i = 0; i < domain.width(); ++i) values[static_cast<std::size_t>(i)] = as_int<Int>(big[static_cast<std::size_t>(i)]);
    inv::KindMask kinds = 0;
    const inv::Verdict verdict = e.check(d, values.data(), &kinds);
    seen.tally.add(verdict, kinds);
    ++seen.magnitudes[magnitude_of(big.data(), domain.width())];
    if (verdict.is_violated()) {
      seen.failure = counterexample_line(e, d, type, big.data(), verdict.message());
      RC_FAIL(verdict.message());
    }
  };
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  rc::detail::TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
  metadata.description = info->name();
  return rc::detail::checkTestable(property, metadata);
}

void print_distribution(const inv::Entry& e, IntType type, const Observed& seen) {
  const inv::Tally& t = seen.tally;
  std::cout << e.name << " [" << (type == IntType::Int64 ? "int64" : "cpp_int") << "]: " << t.cases() << " cases, "
            << t.non_vacuous() << " non-vacuous (share " << t.non_vacuous_share() << ", declared at least "
            << e.min_non_vacuous << ")\n  kinds:";
  for (std::size_t k = 0; k < e.kinds.size(); ++k) std::cout << (k ? "," : "") << " " << e.kinds[k] << " " << t.kinds[k];
  std::cout << "\n  largest value:";
  for (int m = 0; m < kMagnitudes; ++m) std::cout << (m ? "," : "") << " " << kMagnitudeNames[m] << " " << seen.magnitudes[static_cast<std::size_t>(m)];
  std::cout << "\n";
  if (!t.reasons.empty()) {
    std::cout << "  vacuous:";
    for (std::size_t i = 0; i < t.reasons.size(); ++i) std::cout << (i ? ";" : "") << " " << t.reasons[i].first << " " << t.reasons[i].second;
    std::cout << "\n";
  }
}

class Invariant : public ::testing::TestWithParam<Param> {};

TEST_P(Invariant, Holds) {
  const inv::Entry& e = inv::registry()[GetParam().entry];
  const IntType type = GetParam().type;
  Observed seen;
  const rc::detail::TestResult result =
      type == IntType::Int64 ? check_entry<std::int64_t>(e, type, seen) : check_entry<BigInt>(e, type, seen);
  if (!result.template is<rc::detail::SuccessResult>()) {
    if (!seen.failure.empty()) std::cout << seen.failure << "\n";
    std::ostringstream message;
    rc::detail::printResultMessage(result, message);
    FAIL() << message.str();
  }
  print_distribution(e, type, seen);
  for (const std::string& gap : inv::coverage_gaps(e, seen.tally)) ADD_FAILURE() << e.name << ": " << gap;
  if (e.size_cap == 0) {
    const Magnitude far = type == IntType::Int64 ? Int64Edge : Beyond64;
    EXPECT_GT(seen.magnitudes[far], 0U) << e.name << ": no case reached values " << kMagnitudeNames[far];
  }
}

std::string test_name(const ::testing::TestParamInfo<Param>& info) { return inv::registry()[info.param.entry].name; }

INSTANTIATE_TEST_SUITE_P(Int64, Invariant, ::testing::ValuesIn(params(IntType::Int64)), test_name);
INSTANTIATE_TEST_SUITE_P(CppInt, Invariant, ::testing::ValuesIn(params(IntType::CppInt)), test_name);

}  // namespace
}  // namespace tpcheck::rcprop
