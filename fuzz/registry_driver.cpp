// The byte layout of registry_driver.hpp, and running a case.
#include "registry_driver.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
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

// Chooses one of a list of names from a selector field (registry_driver.hpp):
// the name whose key the field holds, else the field modulo their number. A
// hashed look-up, so a field costs the same however many names there are.
class Selector {
 public:
  Selector() = default;
  explicit Selector(const std::vector<std::string_view>& names) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::uint64_t key = name_key(names[i]);
      // A key must read as no index, and name one entry: a name that breaks
      // either must be changed (the message says which).
      if (key < (std::uint64_t{1} << 32) || !by_key_.emplace(key, i).second) {
        std::fprintf(stderr, "tpcheck fuzz: the key of '%.*s' is small or another name's: rename it\n",
                     static_cast<int>(names[i].size()), names[i].data());
        std::abort();
      }
      keys_.push_back(key);
    }
  }
  std::size_t pick(std::uint64_t field) const {
    if (field < keys_.size()) return static_cast<std::size_t>(field);  // the mutator's indices
    const auto found = by_key_.find(field);
    return found != by_key_.end() ? found->second : static_cast<std::size_t>(field % keys_.size());
  }
  std::uint64_t key(std::size_t i) const { return keys_[i]; }

 private:
  std::vector<std::uint64_t> keys_;
  std::unordered_map<std::uint64_t, std::size_t> by_key_;
};

// Everything a case of a fuzzed entry needs beyond the input, made once for
// every entry at the first input, and looked up by the entry's index.
struct Fuzzed {
  const inv::Entry* entry;
  // limits_of in both integer types (cpp_int's bounds are 2^320: building
  // them allocated on every input).
  std::array<dom::Limits, 2> limits;
  std::vector<std::vector<dom::Choice>> ranges;  // dom::choice_ranges of each domain
  Selector domains;                              // when it has several
  inv::Tally tally;                              // what the replayed inputs reached
  // field_layout's ranges and magnitude class fields, made on first use and
  // kept: [with the entry field][domain].
  std::array<std::vector<std::vector<std::uint64_t>>, 2> layouts;
  std::array<std::vector<std::vector<std::size_t>>, 2> magnitude_fields;
};

struct Fuzzing {
  std::vector<Fuzzed> entries;  // in the order of fuzzed_entries()
  Selector selector;            // the entry field's
};

Fuzzing& fuzzing() {
  static Fuzzing f = [] {
    Fuzzing out;
    std::vector<std::string_view> names;
    for (const inv::Entry* e : fuzzed_entries()) {
      Fuzzed& x = out.entries.emplace_back();
      x.entry = e;
      x.limits = {limits_of(e, IntType::Int64), limits_of(e, IntType::CppInt)};
      for (const dom::Domain& d : e->domains) x.ranges.push_back(dom::choice_ranges(d));
      if (e->domains.size() > 1) x.domains = Selector({e->domain_names.begin(), e->domain_names.end()});
      for (auto& layouts : x.layouts) layouts.resize(e->domains.size());
      for (auto& fields : x.magnitude_fields) fields.resize(e->domains.size());
      names.emplace_back(e->name);
    }
    out.selector = Selector(names);
    return out;
  }();
  return f;
}

// The index of a fuzzed entry: a single-entry target asks for the same one
// every time (the last answer is kept); a case decoded here carries its own.
std::size_t index_of(const inv::Entry* e) {
  const auto& entries = fuzzed_entries();
  thread_local std::size_t last = 0;
  if (last < entries.size() && entries[last] == e) return last;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i] == e) return last = i;
  }
  return entries.size();
}

// The header of an input: the entry (its index), the integer type and the
// domain, the number of fields they take, and where the selector fields are.
struct Header {
  std::size_t index;
  IntType type;
  std::size_t domain;
  std::size_t fields;
  bool keyed;                        // every selector field holds its key
  std::optional<std::size_t> domain_field;  // the domain's field, when the entry has several
};

Header read_header(Fields& in, const inv::Entry* fixed) {
  const Fuzzing& f = fuzzing();
  Header h{0, IntType::Int64, 0, 0, true, std::nullopt};
  if (fixed) {
    h.index = index_of(fixed);
  } else {
    const std::uint64_t field = in.next();
    h.index = f.selector.pick(field);
    h.keyed = field == f.selector.key(h.index);
    ++h.fields;
  }
  const Fuzzed& e = f.entries[h.index];
  // An entry RapidCheck does not run in cpp_int (the differential) is fuzzed in int64 alone.
  const std::uint64_t type = in.next() % 2;
  ++h.fields;
  h.type = e.entry->exclusion(inv::Engine::RapidCheckCppInt) ? IntType::Int64 : static_cast<IntType>(type);
  if (e.entry->domains.size() > 1) {
    const std::uint64_t field = in.next();
    h.domain = e.domains.pick(field);
    h.keyed = h.keyed && field == e.domains.key(h.domain);
    h.domain_field = h.fields++;
  }
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

std::uint64_t name_key(std::string_view name) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a, 64 bits
  for (const char ch : name) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3ULL;
  }
  return h;
}

void decode_into(RegistryCase& c, const std::uint8_t* data, std::size_t size, const inv::Entry* fixed) {
  Fields in(data, size);
  const Header h = read_header(in, fixed);
  const Fuzzed& e = fuzzing().entries[h.index];
  c.entry = e.entry;
  c.fuzzed_index = h.index;
  c.type = h.type;
  c.domain = h.domain;
  const dom::Domain& d = c.entry->domains[c.domain];
  thread_local std::vector<dom::Choice> choices;
  choices.clear();
  for (std::size_t i = 0, n = e.ranges[c.domain].size(); i < n; ++i) choices.push_back(in.next());
  c.values.resize(static_cast<std::size_t>(d.width()));
  dom::decode(d, choices.data(), c.values.data(), e.limits[static_cast<std::size_t>(c.type)]);
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
  Fuzzed& e = fuzzing().entries[h.index];
  std::vector<std::uint64_t>& ranges = e.layouts[fixed ? 0 : 1][h.domain];
  std::vector<std::size_t>& magnitudes = e.magnitude_fields[fixed ? 0 : 1][h.domain];
  if (ranges.empty()) {
    if (!fixed) ranges.push_back(fuzzed_entries().size());
    ranges.push_back(2);
    if (e.entry->domains.size() > 1) ranges.push_back(e.entry->domains.size());
    const std::size_t first_choice = ranges.size();
    const std::vector<dom::Choice>& choices = e.ranges[h.domain];
    ranges.insert(ranges.end(), choices.begin(), choices.end());
    ranges.push_back(0);  // the walk field: any 64-bit value
    // An entry fuzzed in int64 alone (the differential) is never moved past it.
    if (!e.entry->exclusion(inv::Engine::RapidCheckCppInt)) {
      for (const std::size_t at : dom::magnitude_class_positions(e.entry->domains[h.domain])) {
        magnitudes.push_back(first_choice + at);
      }
    }
  }
  FieldLayout layout;
  layout.ranges = ranges;
  layout.header = h.fields;
  layout.type_field = fixed ? 0 : 1;  // after the entry field, when there is one
  layout.wide_type = static_cast<std::uint64_t>(IntType::CppInt);
  layout.magnitude_classes = magnitudes;
  layout.beyond_class = dom::kMagnitudeBeyondClass;
  return layout;
}

std::optional<std::vector<std::uint8_t>> encode_case(const RegistryCase& c, bool with_entry_field) {
  const auto choices = dom::encode(c.entry->domains[c.domain], c.values.data(), limits_of(c.entry, c.type));
  if (!choices) return std::nullopt;
  std::vector<std::uint8_t> out;
  if (with_entry_field) put_field(out, name_key(c.entry->name));
  put_field(out, static_cast<std::uint64_t>(c.type));
  if (c.entry->domains.size() > 1) put_field(out, name_key(c.entry->domain_names[c.domain]));
  for (const dom::Choice x : *choices) put_field(out, x);
  return out;
}

InputName input_name(const std::uint8_t* data, std::size_t size, const inv::Entry* fixed) {
  Fields in(data, size);
  const Header h = read_header(in, fixed);
  const inv::Entry* e = fuzzing().entries[h.index].entry;
  InputName out{fixed ? "" : e->name, h.keyed};
  if (h.domain_field) out.label += (out.label.empty() ? "" : ".") + std::string(e->domain_names[h.domain]);
  return out;
}

std::vector<std::uint8_t> keyed_input(const std::uint8_t* data, std::size_t size, const inv::Entry* fixed) {
  Fields in(data, size);
  const Header h = read_header(in, fixed);
  const Fuzzed& e = fuzzing().entries[h.index];
  std::vector<std::uint8_t> out(data, data + size);
  const auto put_key = [&out](std::size_t field, std::uint64_t key) {
    const std::size_t at = field * kFieldBytes;
    if (out.size() < at + kFieldBytes) out.resize(at + kFieldBytes, 0);  // how the missing bytes read anyway
    for (std::size_t i = 0; i < kFieldBytes; ++i) out[at + i] = static_cast<std::uint8_t>(key >> (8 * i));
  };
  if (!fixed) put_key(0, fuzzing().selector.key(h.index));
  if (h.domain_field) put_key(*h.domain_field, e.domains.key(h.domain));
  return out;
}

bool runs_in_int64(const RegistryCase& c) { return int64_values(c).has_value(); }

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
  Fuzzing& f = fuzzing();
  const std::size_t index = f.entries[c.fuzzed_index].entry == c.entry ? c.fuzzed_index : index_of(c.entry);
  f.entries[index].tally.add(verdict, kinds);
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
    const inv::Tally& t = fuzzing().entries[index_of(e)].tally;
    const std::vector<std::string> gaps = inv::coverage_gaps(*e, t);
    std::printf("  %-50s %8llu inputs, %8llu non-vacuous%s\n", e->name, static_cast<unsigned long long>(t.cases()),
                static_cast<unsigned long long>(t.non_vacuous()), gaps.empty() ? "" : "  NOT COVERED:");
    for (const std::string& gap : gaps) std::printf("      %s\n", gap.c_str());
    if (!gaps.empty()) status = 1;
  }
  return status;
}

}  // namespace tpcheck::fuzz
