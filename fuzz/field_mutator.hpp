// A structure-aware mutator for inputs made of fixed-width 8-byte fields
// (registry_driver.hpp's layout), behind the registry targets'
// LLVMFuzzerCustomMutator and LLVMFuzzerCustomCrossOver.
//
// libFuzzer's own mutations insert, erase and copy bytes anywhere, which
// shifts every later field and changes its meaning. These work on whole
// fields: every field stays at its position, so it keeps its meaning (the
// same choice of the same block) under every mutation and crossover. Each
// field has a range (the choice's, from the layout); a mutation picks a field
// and gives it a value the model branches on:
//   small range (a class, shape, factor): a neighbour, 0, the last value,
//     a multiple or divisor, or any value of the range;
//   wide payload: a neighbour (+-1..4), a multiple or divisor (2..16), a
//     power of two (and its neighbours), an int64 or 64-bit edge, a small
//     value, another field's value, or libFuzzer's own byte mutation of the
//     8 bytes (which also brings its comparison table's operands);
//   now and then, a case moved past int64 (FieldLayout above).
// Inputs are kept whole: as many fields as the layout reads, no partial field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace tpcheck::fuzz {

// The fields an input's layout reads: the range of each, in order (0: any
// 64-bit value), the first `header` of them choosing what the others mean
// (the entry, the integer type, the operation). It depends on the header's
// values, so it is asked again after every change.
// The ranges are the layout owner's (kept for the run), so asking for a
// layout allocates nothing.
struct FieldLayout {
  std::span<const std::uint64_t> ranges;
  std::size_t header = 0;
  // Where the case may be moved past int64 in one step (empty: it may not):
  // the integer type's field, set to `wide_type`, and one of the magnitudes'
  // class fields, set to `beyond_class` with the magnitude's wide payload
  // (two fields after its class) shifted past 2^64. One field at a time
  // never gets there: a case whose values fit int64 runs in int64, whatever
  // its type field says, so a mutation of either field alone changes nothing
  // the fuzzer keeps.
  std::size_t type_field = 0;
  std::uint64_t wide_type = 0;
  std::span<const std::size_t> magnitude_classes;
  std::uint64_t beyond_class = 0;
};
using FieldRanges = FieldLayout (*)(const std::uint8_t* data, std::size_t size);

// libFuzzer's custom mutator: mutates data[0 .. size) in place, up to max_size
// bytes, returns the new size.
std::size_t mutate_fields(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned seed,
                          FieldRanges ranges);

// The move past int64 of FieldLayout, with its choices given (mutate_fields
// draws them): the type field set to wide_type, the magnitude at
// magnitude_classes[which] set to beyond_class with the payload (m << 8) | e,
// m the payload's own (its top 56 bits) or `fallback_m` when that is 0.
// False, changing nothing, when the input is too short to hold those fields.
bool move_past_int64(std::uint8_t* data, std::size_t size, const FieldLayout& layout, std::size_t which,
                     std::uint64_t e, std::uint64_t fallback_m);

// libFuzzer's custom crossover: the first parent's header, then each field
// from one parent or the other, at the same position (a one-point or a
// uniform crossover).
std::size_t cross_fields(const std::uint8_t* data1, std::size_t size1, const std::uint8_t* data2,
                         std::size_t size2, std::uint8_t* out, std::size_t max_out_size, unsigned seed,
                         FieldRanges ranges);

}  // namespace tpcheck::fuzz
