// What the recurrent state's invariants share (state_invariants.cpp): SPEC
// §16.1's ownership stated again with the predicates' own arithmetic, so a
// fault in lib/'s ownership cannot move the expected values with it, and
// the domain blocks of a sizing over every family.
#pragma once

#include <algorithm>
#include <array>

#include "declare.hpp"
#include "support.hpp"
#include "tpcheck/state.hpp"

namespace tpcheck::inv::state {

template <ModelInt Int>
using U = units_t<Int>;

// The family of a case: its Choice's value.
template <class Int>
StateFamily family_of(const Int& f) {
  return static_cast<StateFamily>(static_cast<int>(f));
}

// A family's DIMS from a case's four dim values (unused ones ignored).
template <ModelInt Int>
StateDims<Int> dims_of(const Int& f, const Int& a, const Int& b, const Int& c, const Int& e) {
  return {family_of(f), {a, b, c, e}};
}

// SPEC §16.1: a side of T ranks loads these dims (positive, consistent, its TP checks pass).
template <ModelInt Int>
bool loads(const StateDims<Int>& d, const Int& T) {
  const auto& v = d.v;
  const auto divides = [](const Int& a, const Int& b) { return floor_mod<Int>(b, a) == 0; };
  const std::size_t n = state_dim_count(d.family);
  if (T < 1 || std::any_of(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n), [](const Int& x) { return x < 1; })) {
    return false;
  }
  switch (d.family) {
    case StateFamily::Mamba2: return divides(v[2], v[0]) && divides(T, v[0]) && (divides(T, v[2]) || v[2] == 1);
    case StateFamily::Gdn: return divides(v[0], v[2]) && divides(T, v[0]);
    case StateFamily::Kda:
    case StateFamily::Mamba1: return divides(T, v[0]);
  }
  return false;
}

// One conv segment on a side, as SPEC §16.1 defines it.
template <ModelInt Int>
struct Segment {
  Int groups{};        // G_s
  Int group_width{};   // w_s
  U<Int> full{};       // W_s
  bool replicated = false;
  U<Int> width{};      // width(T, s)
  U<Int> loc{};        // loc(T, s)
};

// A side's ownership, stated from §16.0's table: the segments in family order,
// C_loc, and the SSM heads.
template <ModelInt Int>
struct Ownership {
  std::array<Segment<Int>, kMaxConvSegments> segments{};
  std::size_t count = 0;
  U<Int> c_loc{};
  Int heads{};    // H_s
  Int h_loc{};    // H_s / T
  U<Int> elements{};  // E
  // start(r, T, s)
  U<Int> start(const Int& r, std::size_t s) const {
    return segments[s].replicated ? U<Int>(0) : U<Int>(U<Int>(r) * segments[s].width);
  }
};

// Precondition: loads(d, T).
template <ModelInt Int>
Ownership<Int> ownership(const StateDims<Int>& d, const Int& T) {
  Ownership<Int> o;
  const auto& v = d.v;
  const auto segment = [&](const Int& groups, const Int& group_width) {
    Segment<Int>& s = o.segments[o.count++];
    s.groups = groups;
    s.group_width = group_width;
    s.full = U<Int>(groups) * U<Int>(group_width);
    s.replicated = groups == 1 && T > 1;  // only Mamba2's B and C load so (case B)
    s.width = s.replicated ? s.full : U<Int>(s.full / U<Int>(T));
    s.loc = o.c_loc;
    o.c_loc += s.width;
  };
  switch (d.family) {
    case StateFamily::Mamba2:
      segment(v[0], v[1]), segment(v[2], v[3]), segment(v[2], v[3]);
      o.heads = v[0], o.elements = U<Int>(v[1]) * U<Int>(v[3]);
      break;
    case StateFamily::Gdn:
      segment(v[0], v[1]), segment(v[0], v[1]), segment(v[2], v[3]);
      o.heads = v[2], o.elements = U<Int>(v[3]) * U<Int>(v[1]);
      break;
    case StateFamily::Kda:
      segment(v[0], v[1]), segment(v[0], v[1]), segment(v[0], v[1]);
      o.heads = v[0], o.elements = U<Int>(v[1]) * U<Int>(v[1]);
      break;
    case StateFamily::Mamba1:
      segment(v[0], Int(1));
      o.heads = v[0], o.elements = U<Int>(v[1]);
      break;
  }
  o.h_loc = floor_div<Int>(o.heads, T);
  return o;
}

// ---- domains ----------------------------------------------------------------------------

// A family's four dims sharded by sizes a and b (b may be null); with
// `narrow_edges`, the count and the first free dim at int16's edges too (a
// domain whose random engines draw sizes up to a cap cannot encode them).
inline std::vector<dom::Block> state_dims(const char* family, const char* a, const char* b, bool narrow_edges) {
  using namespace dom;
  const auto edges = [&](Block block) { return narrow_edges ? with_narrow_edges(block) : block; };
  return {edges(state_dim_of("dim0", family, 0, nullptr, a, b)), edges(state_dim_of("dim1", family, 1, nullptr, a, b)),
          state_dim_of("dim2", family, 2, "dim0", a, b), state_dim_of("dim3", family, 3, nullptr, a, b)};
}

// family, P, D (divisible), the dims both sides load, and a decode rank d: for
// the plan's invariants, whose random engines draw sizes up to kWalkedSizeCap.
inline std::vector<dom::Block> state_decode_ranks() {
  using namespace dom;
  std::vector<Block> blocks = {choice("family", static_cast<std::uint8_t>(kStateFamilies.size())),
                               pair("P", "D", Pairs::Divisible)};
  for (const Block& b : state_dims("family", "P", "D", false)) blocks.push_back(b);
  blocks.push_back(rank("d", "D"));
  return blocks;
}

// family (the first `families` of them), one side's T, the dims it loads, and a rank r.
inline std::vector<dom::Block> state_side_ranks(std::uint8_t families = static_cast<std::uint8_t>(kStateFamilies.size())) {
  using namespace dom;
  std::vector<Block> blocks = {choice("family", families), size("T")};
  for (const Block& b : state_dims("family", "T", nullptr, true)) blocks.push_back(b);
  blocks.push_back(rank("r", "T"));
  return blocks;
}

// ---- kinds ----------------------------------------------------------------------------------
// On cases of state_decode_ranks (family, P, D, dim0..dim3, d, ...) or, read
// with T for P and D, state_side_ranks.

template <StateFamily F>
constexpr auto is_family = [](const auto& f, const auto&...) { return family_of(f) == F; };
constexpr auto prefill_larger = [](const auto&, const auto& P, const auto& D, const auto&...) { return P > D; };
constexpr auto decode_larger = [](const auto&, const auto& P, const auto& D, const auto&...) { return P < D; };
constexpr auto same_size = [](const auto&, const auto& P, const auto& D, const auto&...) { return P == D; };
// Mamba2 with one group where a side has several ranks (B and C replicated: G_s < max(P, D)), and with several groups.
constexpr auto case_b = [](const auto& f, const auto& P, const auto& D, const auto&, const auto&, const auto& G,
                           const auto&...) {
  return family_of(f) == StateFamily::Mamba2 && G == 1 && std::max(P, D) > 1;
};
constexpr auto several_groups = [](const auto& f, const auto&, const auto&, const auto&, const auto&, const auto& G,
                                   const auto&...) { return family_of(f) == StateFamily::Mamba2 && G > 1; };
// GDN whose key segments are not as wide as its value segment.
constexpr auto key_unlike_value = [](const auto& f, const auto&, const auto&, const auto& HK, const auto& DK,
                                     const auto& HV, const auto& DV, const auto&...) {
  return family_of(f) == StateFamily::Gdn && !(HK == HV && DK == DV);
};
// On a side's cases (family, T, dims, r): case B and several groups.
constexpr auto side_case_b = [](const auto& f, const auto& T, const auto&, const auto&, const auto& G, const auto&...) {
  return family_of(f) == StateFamily::Mamba2 && G == 1 && T > 1;
};
constexpr auto side_key_unlike_value = [](const auto& f, const auto&, const auto& HK, const auto& DK, const auto& HV,
                                          const auto& DV, const auto&...) {
  return family_of(f) == StateFamily::Gdn && !(HK == HV && DK == DV);
};

}  // namespace tpcheck::inv::state
