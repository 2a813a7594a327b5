// The byte layout of registry_driver.hpp, and running a case.
#include "registry_driver.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>

#include "fuzz_input.hpp"

namespace tpcheck::fuzz {
namespace {

// Reads the fields of an input in order.
class Fields {
 public:
  Fields(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint64_t next() {
    std::uint64_t x = 0;
    for (std::size_t i = 0; i < kFieldBytes; ++i) {
      const std::size_t at = pos_ + i;
      x |= std::uint64_t{at < size_ ? data_[at] : std::uint8_t{0}} << (8 * i);
    }
    pos_ += kFieldBytes;
    return x;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

void put_field(std::vector<std::uint8_t>& out, std::uint64_t x) {
  for (std::size_t i = 0; i < kFieldBytes; ++i) out.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
}

dom::Limits limits_of(const RegistryCase& c) {
  return c.type == IntType::Int64 ? dom::int64_limits(c.entry->size_cap) : dom::big_limits(c.entry->size_cap);
}

std::size_t index_of(const inv::Entry* e) {
  const auto& entries = fuzzed_entries();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i] == e) return i;
  }
  return entries.size();
}

// What the replayed inputs reached, per entry (the fuzzers run one input at a time).
std::map<const inv::Entry*, inv::Tally>& tallies() {
  static std::map<const inv::Entry*, inv::Tally> t;
  return t;
}

}  // namespace

const std::vector<const inv::Entry*>& fuzzed_entries() {
  static const std::vector<const inv::Entry*> entries = [] {
    std::vector<const inv::Entry*> out;
    for (const inv::Entry& e : inv::registry()) {
      if (!e.exclusion(inv::Engine::Fuzz)) out.push_back(&e);
    }
    return out;
  }();
  return entries;
}

RegistryCase decode_case(const std::uint8_t* data, std::size_t size, const inv::Entry* fixed) {
  Fields in(data, size);
  RegistryCase c;
  c.entry = fixed ? fixed : fuzzed_entries()[in.next() % fuzzed_entries().size()];
  // An entry RapidCheck does not run in cpp_int (the differential) is fuzzed in int64 alone.
  const std::uint64_t type = in.next() % 2;
  c.type = c.entry->exclusion(inv::Engine::RapidCheckCppInt) ? IntType::Int64 : static_cast<IntType>(type);
  if (c.entry->domains.size() > 1) c.domain = in.next() % c.entry->domains.size();
  const dom::Domain& d = c.entry->domains[c.domain];
  std::vector<dom::Choice> choices;
  for (std::size_t i = 0, n = dom::choice_ranges(d).size(); i < n; ++i) choices.push_back(in.next());
  c.values.resize(static_cast<std::size_t>(d.width()));
  dom::decode(d, choices.data(), c.values.data(), limits_of(c));
  return c;
}

std::optional<std::vector<std::uint8_t>> encode_case(const RegistryCase& c, bool with_entry_field) {
  const auto choices = dom::encode(c.entry->domains[c.domain], c.values.data(), limits_of(c));
  if (!choices) return std::nullopt;
  std::vector<std::uint8_t> out;
  if (with_entry_field) put_field(out, index_of(c.entry));
  put_field(out, static_cast<std::uint64_t>(c.type));
  if (c.entry->domains.size() > 1) put_field(out, c.domain);
  for (const dom::Choice x : *choices) put_field(out, x);
  return out;
}

std::string describe_case(const RegistryCase& c) {
  std::string out = std::string(c.entry->name) + (c.type == IntType::Int64 ? " int64 " : " cpp_int ");
  if (c.entry->domains.size() > 1) out += std::string(c.entry->domain_names[c.domain]) + " ";
  return out + dom::describe(c.entry->domains[c.domain], c.values.data());
}

void check_case(const RegistryCase& c) {
  inv::KindMask kinds = 0;
  inv::Verdict verdict = inv::holds();
  if (c.type == IntType::Int64) {
    std::vector<std::int64_t> narrowed;
    for (const BigInt& v : c.values) narrowed.push_back(*narrow(v));  // decode keeps them inside int64
    verdict = c.entry->check(c.domain, narrowed.data(), &kinds);
  } else {
    verdict = c.entry->check(c.domain, c.values.data(), &kinds);
  }
  tallies()[c.entry].add(verdict, kinds);
  FuzzInput::append_trace(describe_case(c));
  if (!verdict.is_violated()) return;
  std::fprintf(stderr, "tpcheck fuzz input: %s\n", describe_case(c).c_str());
  std::fprintf(stderr, "tpcheck fuzz: %s violated: %s\n", c.entry->name, verdict.message().c_str());
  std::abort();
}

int report_coverage(const std::vector<const inv::Entry*>& entries) {
  int status = 0;
  for (const inv::Entry* e : entries) {
    const inv::Tally& t = tallies()[e];
    const std::vector<std::string> gaps = inv::coverage_gaps(*e, t);
    std::printf("  %-50s %8llu inputs, %8llu non-vacuous%s\n", e->name, static_cast<unsigned long long>(t.cases()),
                static_cast<unsigned long long>(t.non_vacuous()), gaps.empty() ? "" : "  NOT COVERED:");
    for (const std::string& gap : gaps) std::printf("      %s\n", gap.c_str());
    if (!gaps.empty()) status = 1;
  }
  return status;
}

}  // namespace tpcheck::fuzz
