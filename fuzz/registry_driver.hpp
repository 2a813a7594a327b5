// The fuzz targets' view of the registry: bytes to a registry case, and back.
//
// An input is a sequence of fields, each 8 bytes little-endian (bytes past
// the end read as zero, so any input, even an empty one, decodes):
//
//   [entry]     which registry entry (fuzz_invariants only; fuzz_differential
//               has its entry fixed): a selector field, below
//   type        the range drawn from: value % 2, 0 int64's (values up to 2^63), 1 cpp_int's
//               (up to 2^320); int64's always for an entry RapidCheck does not run in cpp_int
//               (the differential). The check runs in one integer type: int64 whenever
//               every value fits it, cpp_int only beyond.
//   [domain]    which of the entry's domains (only when it has several: the
//               differential's operation): a selector field, below
//   choice...   one field per choice of the domain (dom::choice_ranges), each
//               reduced modulo its range; dom::decode turns them into values
//   walk        which element of a long list the check walks from (inv::Walk:
//               a window, a plan, the heads of a rank, every rank of a
//               deployment); a list longer than kWalkBudget is walked at its
//               ends and kWalkBudget - 2 elements from this one. Seeds leave it
//               out (it reads as 0: the walk starts next to the first element).
//
// A selector field names what it selects or indexes it: a value that is the
// key of an entry's (a domain's) name (name_key, FNV-1a) selects that one,
// wherever it stands in the registry; any other value selects by index,
// value % count. The mutator writes indices (cheap, uniform); every input a
// writer commits (the seeds, the coverage inputs, registry_names.cpp) holds
// keys, so that adding entries to the registry moves none of them.
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
#include <string_view>
#include <vector>

#include "field_mutator.hpp"
#include "tpcheck/registry.hpp"

namespace tpcheck::fuzz {

inline constexpr std::size_t kFieldBytes = 8;

// The elements of one list a case walks (inv::Walk::budget): the first, the
// last and a run from the input's choice. Small, so one input costs a few
// model calls at any size; the fuzzer moves the run by mutating the walk field.
inline constexpr std::int64_t kWalkBudget = 8;

enum class IntType : std::uint8_t { Int64 = 0, CppInt = 1 };

// A name's key in a selector field: the 64-bit FNV-1a hash of its bytes.
std::uint64_t name_key(std::string_view name);

// A decoded (or to be encoded) case of one entry.
struct RegistryCase {
  const inv::Entry* entry = nullptr;
  IntType type = IntType::Int64;
  std::size_t domain = 0;
  std::vector<BigInt> values;
  std::uint64_t walk_from = 0;  // the walk field
  // Its entry's index in fuzzed_entries(), which decode_into sets (the
  // per-entry tables are looked up by it, never by a scan of the entries).
  std::size_t fuzzed_index = 0;
};

// The entries fuzz_invariants chooses from: all but those excluded from fuzzing.
const std::vector<const inv::Entry*>& fuzzed_entries();

// Decodes bytes; `fixed` is the entry of a single-entry target (no entry field).
RegistryCase decode_case(const std::uint8_t* data, std::size_t size, const inv::Entry* fixed);
// The same into `c`, reusing its storage (the fuzz targets, once per input).
void decode_into(RegistryCase& c, const std::uint8_t* data, std::size_t size, const inv::Entry* fixed);

// Defined by each registry target: its one entry, or nullptr when the input
// chooses the entry (registry_mutator.cpp asks it for the layout).
const inv::Entry* target_entry();

// The fields decode_case reads from these bytes (the custom mutator's view):
// the header (entry, type, operation) and the domain's choice ranges.
FieldLayout field_layout(const std::uint8_t* data, std::size_t size, const inv::Entry* fixed);

// The bytes decode_case reads back as `c` (its selector fields holding keys),
// or nothing when the domain has no choices for its values.
std::optional<std::vector<std::uint8_t>> encode_case(const RegistryCase& c, bool with_entry_field);

// What an input's selector fields select, by name: "Entry" (fuzz_invariants),
// "Entry.operation" (fuzz_invariants on the differential), "operation"
// (fuzz_differential); and whether each of those fields holds its key.
struct InputName {
  std::string label;
  bool keyed = false;
};
InputName input_name(const std::uint8_t* data, std::size_t size, const inv::Entry* fixed);

// The input with each selector field holding the key of what it selects (the
// other bytes as they are, zeros added where the field was cut short): the
// same case, under any registry that still has those names.
std::vector<std::uint8_t> keyed_input(const std::uint8_t* data, std::size_t size, const inv::Entry* fixed);

// Whether the case runs in int64 (every value fits it), as check_case decides.
bool runs_in_int64(const RegistryCase& c);

// "RoundTripReturnsHome int64 L=4 R=2 r=3": the readable form of a case.
std::string describe_case(const RegistryCase& c);

// Runs the entry's check on the case (in its integer type) with a walk of
// kWalkBudget elements from the case's walk field, and tallies the verdict
// under the entry; a violation aborts with the case and the message on
// stderr, as libFuzzer and the replay driver expect.
void check_case(const RegistryCase& c);

// What a registry target does with one input: decode_into a case kept for the
// next input, then check_case.
void run_input(const std::uint8_t* data, std::size_t size, const inv::Entry* fixed);

// For the replay driver's --assert-coverage: the tally of every entry the
// replayed inputs reached, and whether each covers what it declares.
// Prints one line per entry; returns the exit status (0: all covered).
int report_coverage(const std::vector<const inv::Entry*>& entries);

}  // namespace tpcheck::fuzz
