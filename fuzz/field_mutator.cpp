// The whole-field mutations and crossovers of field_mutator.hpp.
#include "field_mutator.hpp"

#include <array>
#include <algorithm>

// libFuzzer's own byte mutator. Weak: the replay build links no libFuzzer
// (and never calls the custom mutator); there the field gets a random value.
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size)
    __attribute__((weak));

namespace tpcheck::fuzz {
namespace {

constexpr std::size_t kField = 8;

// SplitMix64 (Steele, Lea and Flood): a few instructions per value and one
// word of state. libFuzzer calls the mutator once per input with a fresh
// seed; std::mt19937_64 would fill its 312-word table on every call.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t operator()() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

std::uint64_t get_field(const std::uint8_t* data, std::size_t size, std::size_t i) {
  std::uint64_t x = 0;
  for (std::size_t b = 0; b < kField; ++b) {
    const std::size_t at = i * kField + b;
    x |= std::uint64_t{at < size ? data[at] : std::uint8_t{0}} << (8 * b);
  }
  return x;
}

void put_field(std::uint8_t* data, std::size_t i, std::uint64_t x) {
  for (std::size_t b = 0; b < kField; ++b) data[i * kField + b] = static_cast<std::uint8_t>(x >> (8 * b));
}

std::uint64_t below(Rng& rng, std::uint64_t n) { return rng() % n; }

// The values where sizes, products and conversions change behaviour: the
// int64 and 64-bit edges, 2^31 and 2^32 (products of two sizes), 2^16.
constexpr std::array<std::uint64_t, 10> kEdges = {
    0x7fffffffffffffffULL, 0x8000000000000000ULL, 0xffffffffffffffffULL, 0x7ffffffffffffffeULL,
    0x8000000000000001ULL, 1ULL << 32,            (1ULL << 32) - 1,      1ULL << 31,
    (1ULL << 31) - 1,      1ULL << 16};

// A class, shape or factor: stays inside its range.
std::uint64_t small_range_value(std::uint64_t x, std::uint64_t range, Rng& rng) {
  x %= range;
  const std::uint64_t k = 2 + below(rng, 3);
  switch (below(rng, 7)) {
    case 0: return (x + 1) % range;
    case 1: return (x + range - 1) % range;
    case 2: return 0;  // the plain case of every choice
    case 3: return range - 1;
    case 4: return (x * k) % range;
    case 5: return x / k;
    default: return below(rng, range);
  }
}

// A payload (any 64-bit value): one of the values the model branches on.
std::uint64_t wide_value(std::uint64_t x, std::uint64_t other, Rng& rng) {
  const std::uint64_t k = 2 + below(rng, 15);
  switch (below(rng, 10)) {
    case 0: return x + 1 + below(rng, 4);
    case 1: return x - 1 - below(rng, 4);
    case 2: return x * k;
    case 3: return x / k;
    case 4: return (std::uint64_t{1} << below(rng, 64)) + below(rng, 3) - 1;
    case 5: return kEdges[below(rng, kEdges.size())];
    case 6: return below(rng, 17);
    case 7: return other;  // equal payloads: equal sizes, ranks at the same place
    case 8:
      if (LLVMFuzzerMutate) {
        std::array<std::uint8_t, kField> bytes{};
        put_field(bytes.data(), 0, x);
        const std::size_t n = LLVMFuzzerMutate(bytes.data(), kField, kField);
        for (std::size_t b = n; b < kField; ++b) bytes[b] = 0;
        return get_field(bytes.data(), kField, 0);
      }
      return rng();
    default: return rng();
  }
}

// Makes data hold exactly the fields the layout reads (zeros past the old
// end, which is how they read anyway), within max_size; returns the size.
std::size_t whole_fields(std::uint8_t* data, std::size_t size, std::size_t max_size, FieldRanges ranges) {
  const std::size_t fields = std::min(ranges(data, size).ranges.size(), max_size / kField);
  for (std::size_t at = size; at < fields * kField; ++at) data[at] = 0;
  return fields * kField;
}

}  // namespace

bool move_past_int64(std::uint8_t* data, std::size_t size, const FieldLayout& layout, std::size_t which,
                     std::uint64_t e, std::uint64_t fallback_m) {
  const std::size_t fields = size / kField;
  if (which >= layout.magnitude_classes.size()) return false;
  const std::size_t at = layout.magnitude_classes[which];
  if (layout.type_field >= fields || at + 2 >= fields) return false;
  put_field(data, layout.type_field, layout.wide_type);
  put_field(data, at, layout.beyond_class);
  std::uint64_t m = get_field(data, size, at + 2) >> 8;
  if (m == 0) m = fallback_m;
  put_field(data, at + 2, (m << 8) | (e & 255));
  return true;
}

std::size_t mutate_fields(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned seed,
                          FieldRanges ranges) {
  Rng rng(seed);
  size = whole_fields(data, size, max_size, ranges);
  // One mutation in 16 moves the case past int64, as the only change.
  if (const FieldLayout layout = ranges(data, size); !layout.magnitude_classes.empty() && below(rng, 16) == 0) {
    const std::size_t which = below(rng, layout.magnitude_classes.size());
    const std::uint64_t e = 64 + below(rng, 64), fallback_m = 1 + below(rng, std::uint64_t{1} << 16);
    move_past_int64(data, size, layout, which, e, fallback_m);
    return whole_fields(data, size, max_size, ranges);
  }
  for (std::uint64_t step = 0, steps = 1 + below(rng, 3); step < steps && size > 0; ++step) {
    const std::span<const std::uint64_t> range = ranges(data, size).ranges;
    const std::size_t fields = std::min(range.size(), size / kField);
    const std::size_t i = below(rng, fields);
    const std::uint64_t x = get_field(data, size, i);
    if (range[i] != 0) {
      put_field(data, i, small_range_value(x, range[i], rng));
    } else {
      // Another wide field's payload, for the mutation that copies one.
      std::uint64_t other = x;
      for (std::size_t tries = 0; tries < 4; ++tries) {
        const std::size_t j = below(rng, fields);
        if (range[j] == 0 && j != i) {
          other = get_field(data, size, j);
          break;
        }
      }
      put_field(data, i, wide_value(x, other, rng));
    }
    // A header field (the entry, the type, the operation) changes what follows.
    size = whole_fields(data, size, max_size, ranges);
  }
  return size;
}

std::size_t cross_fields(const std::uint8_t* data1, std::size_t size1, const std::uint8_t* data2,
                         std::size_t size2, std::uint8_t* out, std::size_t max_out_size, unsigned seed,
                         FieldRanges ranges) {
  Rng rng(seed);
  // The first parent's layout (its header, so its entry and domain); the
  // second one's fields at the same positions.
  const FieldLayout layout = ranges(data1, size1);
  const std::size_t fields = std::min(layout.ranges.size(), max_out_size / kField);
  if (fields == 0) return 0;
  const bool uniform = below(rng, 2) == 0;
  const std::size_t point = layout.header + below(rng, fields - std::min(layout.header, fields - 1));
  for (std::size_t i = 0; i < fields; ++i) {
    const bool second = i >= layout.header && (uniform ? below(rng, 2) == 0 : i >= point);
    put_field(out, i, get_field(second ? data2 : data1, second ? size2 : size1, i));
  }
  return whole_fields(out, fields * kField, max_out_size, ranges);
}

}  // namespace tpcheck::fuzz
