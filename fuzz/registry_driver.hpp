// The fuzz targets' view of the registry: bytes to a registry case, and back.
//
// An input is a sequence of fields, each 8 bytes little-endian (bytes past
// the end read as zero, so any input, even an empty one, decodes):
//
//   [entry]     which registry entry: value % number of entries (fuzz_invariants
//               only; fuzz_differential has its entry fixed)
//   type        the integer type: value % 2, 0 int64 (values up to 2^63), 1 cpp_int (up to 2^320);
//               int64 always for an entry RapidCheck does not run in cpp_int (the differential)
//   [domain]    which of the entry's domains: value % domains (only when it has several:
//               the differential's operation)
//   choice...   one field per choice of the domain (dom::choice_ranges), each
//               reduced modulo its range; dom::decode turns them into values
//
// The choices and their decoding are the ones RapidCheck draws
// (properties/rapidcheck): one piece of code maps choices to values for both.
// Because every field has a fixed width and meaning, a mutation of one field
// leaves the others' meaning in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tpcheck/registry.hpp"

namespace tpcheck::fuzz {

inline constexpr std::size_t kFieldBytes = 8;

enum class IntType : std::uint8_t { Int64 = 0, CppInt = 1 };

// A decoded (or to be encoded) case of one entry.
struct RegistryCase {
  const inv::Entry* entry = nullptr;
  IntType type = IntType::Int64;
  std::size_t domain = 0;
  std::vector<BigInt> values;
};

// The entries fuzz_invariants chooses from: all but those excluded from fuzzing.
const std::vector<const inv::Entry*>& fuzzed_entries();

// Decodes bytes; `fixed` is the entry of a single-entry target (no entry field).
RegistryCase decode_case(const std::uint8_t* data, std::size_t size, const inv::Entry* fixed);

// The bytes decode_case reads back as `c`, or nothing when the domain has no
// choices for its values.
std::optional<std::vector<std::uint8_t>> encode_case(const RegistryCase& c, bool with_entry_field);

// "RoundTripReturnsHome int64 L=4 R=2 r=3": the readable form of a case.
std::string describe_case(const RegistryCase& c);

// Runs the entry's check on the case (in its integer type) and tallies the
// verdict under the entry; a violation aborts with the case and the message
// on stderr, as libFuzzer and the replay driver expect.
void check_case(const RegistryCase& c);

// For the replay driver's --assert-coverage: the tally of every entry the
// replayed inputs reached, and whether each covers what it declares.
// Prints one line per entry; returns the exit status (0: all covered).
int report_coverage(const std::vector<const inv::Entry*>& entries);

}  // namespace tpcheck::fuzz
