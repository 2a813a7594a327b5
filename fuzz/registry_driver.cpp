// The byte layout of registry_driver.hpp, and running a case.
#include "registry_driver.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "tpcheck/invariants.hpp"

namespace tpcheck::fuzz {
namespace {

// Reads the fields of an input in order.
class Fields {
 public:
  Fields(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint64_t next() {
    std::uint64_t x = 0;
    if (pos_ + kFieldBytes <= size_) {
      // A whole field: one load (every field but a short input's last; the
      // fuzzers read about a dozen per input).
      std::uint8_t bytes[kFieldBytes];
      std::memcpy(bytes, data_ + pos_, kFieldBytes);
      for (std::size_t i = 0; i < kFieldBytes; ++i) x |= std::uint64_t{bytes[i]} << (8 * i);
      pos_ += kFieldBytes;
      return x;
    }
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

dom::Limits limits_of(const inv::Entry* e, IntType type) {
  return type == IntType::Int64 ? dom::int64_limits(e->size_cap) : dom::big_limits(e->size_cap);
}

// The index of a fuzzed entry in fuzzed_entries() (a single-entry target asks
// for the same one every time: the last answer is kept).
std::size_t index_of(const inv::Entry* e) {
  const auto& entries = fuzzed_entries();
  thread_local std::size_t last = 0;
  if (last < entries.size() && entries[last] == e) return last;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i] == e) return last = i;
  }
  return entries.size();
}

// What the replayed inputs reached, per fuzzed entry, by its index (the
// fuzzers run one input at a time).
inv::Tally& tally_of(const inv::Entry* e) {
  static std::vector<inv::Tally> t(fuzzed_entries().size());
  return t[index_of(e)];
}

// limits_of every fuzzed entry in both integer types, made once (cpp_int's
// bounds are 2^320: building them allocated on every input), by entry index.
const dom::Limits& fuzzed_limits(const inv::Entry* e, IntType type) {
  static const std::vector<std::array<dom::Limits, 2>> cache = [] {
    std::vector<std::array<dom::Limits, 2>> out;
    for (const inv::Entry* entry : fuzzed_entries()) {
      out.push_back({limits_of(entry, IntType::Int64), limits_of(entry, IntType::CppInt)});
    }
    return out;
  }();
  return cache[index_of(e)][static_cast<std::size_t>(type)];
}

// dom::choice_ranges of every domain of every fuzzed entry, computed once (the
// decoder and the mutator ask for them on every input), by entry index.
const std::vector<dom::Choice>& ranges_of(const inv::Entry* e, std::size_t domain) {
  static const std::vector<std::vector<std::vector<dom::Choice>>> cache = [] {
    std::vector<std::vector<std::vector<dom::Choice>>> out;
    for (const inv::Entry* entry : fuzzed_entries()) {
      out.emplace_back();
      for (const dom::Domain& d : entry->domains) out.back().push_back(dom::choice_ranges(d));
    }
    return out;
  }();
  return cache[index_of(e)][domain];
}

// The header of an input: the entry, the integer type and the domain, with
// the number of fields they take.
struct Header {
  const inv::Entry* entry;
  IntType type;
  std::size_t domain;
  std::size_t fields;
};

Header read_header(Fields& in, const inv::Entry* fixed) {
  Header h{fixed, IntType::Int64, 0, 0};
  if (!fixed) h.entry = fuzzed_entries()[in.next() % fuzzed_entries().size()], ++h.fields;
  // An entry RapidCheck does not run in cpp_int (the differential) is fuzzed in int64 alone.
  const std::uint64_t type = in.next() % 2;
  ++h.fields;
  h.type = h.entry->exclusion(inv::Engine::RapidCheckCppInt) ? IntType::Int64 : static_cast<IntType>(type);
  if (h.entry->domains.size() > 1) h.domain = in.next() % h.entry->domains.size(), ++h.fields;
  return h;
}

// One integer type per input: int64 whenever every value fits it (a case
// drawn in cpp_int's range whose values are small is an int64 case; the
// comparison of the two models is the differential's), cpp_int beyond.
std::optional<std::array<std::int64_t, dom::kMaxValues>> int64_values(const RegistryCase& c) {
  std::array<std::int64_t, dom::kMaxValues> out{};
  for (std::size_t i = 0; i < c.values.size(); ++i) {
    const std::optional<std::int64_t> v = narrow(c.values[i]);
    if (!v) return std::nullopt;
    out[i] = *v;
  }
  return out;
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

void decode_into(RegistryCase& c, const std::uint8_t* data, std::size_t size, const inv::Entry* fixed) {
  Fields in(data, size);
  const Header h = read_header(in, fixed);
  c.entry = h.entry;
  c.type = h.type;
  c.domain = h.domain;
  const dom::Domain& d = c.entry->domains[c.domain];
  thread_local std::vector<dom::Choice> choices;
  choices.clear();
  for (std::size_t i = 0, n = ranges_of(c.entry, c.domain).size(); i < n; ++i) choices.push_back(in.next());
  c.values.resize(static_cast<std::size_t>(d.width()));
  dom::decode(d, choices.data(), c.values.data(), fuzzed_limits(c.entry, c.type));
  c.walk_from = in.next();
}

RegistryCase decode_case(const std::uint8_t* data, std::size_t size, const inv::Entry* fixed) {
  RegistryCase c;
  decode_into(c, data, size, fixed);
  return c;
}

void run_input(const std::uint8_t* data, std::size_t size, const inv::Entry* fixed) {
  thread_local RegistryCase c;
  decode_into(c, data, size, fixed);
  check_case(c);
}

FieldLayout field_layout(const std::uint8_t* data, std::size_t size, const inv::Entry* fixed) {
  Fields in(data, size);
  const Header h = read_header(in, fixed);
  // Every (entry, domain) has one layout, made on first use and kept: [with
  // the entry field][entry index][domain].
  static std::array<std::vector<std::vector<std::vector<std::uint64_t>>>, 2> layouts;
  auto& of_entry = layouts[fixed ? 0 : 1];
  if (of_entry.empty()) of_entry.resize(fuzzed_entries().size());
  auto& of_domain = of_entry[index_of(h.entry)];
  if (of_domain.empty()) of_domain.resize(h.entry->domains.size());
  std::vector<std::uint64_t>& ranges = of_domain[h.domain];
  if (ranges.empty()) {
    if (!fixed) ranges.push_back(fuzzed_entries().size());
    ranges.push_back(2);
    if (h.entry->domains.size() > 1) ranges.push_back(h.entry->domains.size());
    const std::vector<dom::Choice>& choices = ranges_of(h.entry, h.domain);
    ranges.insert(ranges.end(), choices.begin(), choices.end());
    ranges.push_back(0);  // the walk field: any 64-bit value
  }
  return FieldLayout{ranges, h.fields};
}

std::optional<std::vector<std::uint8_t>> encode_case(const RegistryCase& c, bool with_entry_field) {
  const auto choices = dom::encode(c.entry->domains[c.domain], c.values.data(), limits_of(c.entry, c.type));
  if (!choices) return std::nullopt;
  std::vector<std::uint8_t> out;
  if (with_entry_field) put_field(out, index_of(c.entry));
  put_field(out, static_cast<std::uint64_t>(c.type));
  if (c.entry->domains.size() > 1) put_field(out, c.domain);
  for (const dom::Choice x : *choices) put_field(out, x);
  return out;
}

std::string describe_case(const RegistryCase& c) {
  std::string out = std::string(c.entry->name) + (int64_values(c) ? " int64 " : " cpp_int ");
  if (c.entry->domains.size() > 1) out += std::string(c.entry->domain_names[c.domain]) + " ";
  out += dom::describe(c.entry->domains[c.domain], c.values.data());
  return c.walk_from == 0 ? out : out + " walk=" + std::to_string(c.walk_from);
}

void check_case(const RegistryCase& c) {
  const inv::ScopedWalk walk({kWalkBudget, c.walk_from});
  inv::KindMask kinds = 0;
  inv::Verdict verdict = inv::holds();
  if (const auto narrowed = int64_values(c)) {
    verdict = c.entry->check(c.domain, narrowed->data(), &kinds);
  } else {
    verdict = c.entry->check(c.domain, c.values.data(), &kinds);
  }
  tally_of(c.entry).add(verdict, kinds);
  // The readable form costs more than many checks: only when asked for.
  if (FuzzInput::describing()) FuzzInput::append_trace(describe_case(c));
  if (!verdict.is_violated()) return;
  std::fprintf(stderr, "tpcheck fuzz input: %s\n", describe_case(c).c_str());
  std::fprintf(stderr, "tpcheck fuzz: %s violated: %s\n", c.entry->name, verdict.message().c_str());
  std::abort();
}

int report_coverage(const std::vector<const inv::Entry*>& entries) {
  int status = 0;
  for (const inv::Entry* e : entries) {
    const inv::Tally& t = tally_of(e);
    const std::vector<std::string> gaps = inv::coverage_gaps(*e, t);
    std::printf("  %-50s %8llu inputs, %8llu non-vacuous%s\n", e->name, static_cast<unsigned long long>(t.cases()),
                static_cast<unsigned long long>(t.non_vacuous()), gaps.empty() ? "" : "  NOT COVERED:");
    for (const std::string& gap : gaps) std::printf("      %s\n", gap.c_str());
    if (!gaps.empty()) status = 1;
  }
  return status;
}

}  // namespace tpcheck::fuzz
