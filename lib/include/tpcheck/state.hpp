// Hybrid models' recurrent state (SPEC §16.0-16.2): the state families, what
// each rank of a T-rank side holds of each conv segment and of the SSM heads,
// the state plan of a decode rank, the decode ranks a prefill rank serves,
// and the check that both sides keep the same window and element sizes.
//
// Words (SPEC §16.0). A family has ordered conv segments and one SSM state.
// Segment s is G_s groups of w_s channels, W_s = G_s * w_s channels in all;
// the SSM state is H_s heads of E elements. In this file `L` is a conv window
// length (rows per channel), never a TP size; `T` is a side's TP size.
//
// Every operation is generic over the model's integer type and validates its
// inputs, first failure wins, in SPEC §16.1's order with its exact texts.
// Channel counts and indices are products and sums of up to three products
// of the inputs (a rank holds I/T + 2*G*N channels of Mamba2): they are
// returned in units_t<Int>, which holds them for any input; a head count or
// a TP rank fits Int.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tpcheck/model.hpp"
#include "tpcheck/outcome.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck {

// SPEC §16.0's families, in its table's order.
enum class StateFamily : std::uint8_t { Mamba2, Gdn, Kda, Mamba1 };
inline constexpr std::array<StateFamily, 4> kStateFamilies = {StateFamily::Mamba2, StateFamily::Gdn, StateFamily::Kda,
                                                               StateFamily::Mamba1};

// The most DIMS a family has, and the most conv segments.
inline constexpr std::size_t kMaxStateDims = 4;
inline constexpr std::size_t kMaxConvSegments = 3;

// "mamba2", "gdn", "kda", "mamba1": the prefix of its operations in `tpcheck eval`.
std::string_view state_family_name(StateFamily family);
// The family of that name, if any.
std::optional<StateFamily> state_family_named(std::string_view name);
// Its operations' names in `tpcheck eval`, F_state_shape, F_segments,
// F_state_plan and F_state_served (in that order), alive as long as the program.
std::span<const std::string, 4> state_operation_names(StateFamily family);
// How many DIMS it takes: 4, 4, 2, 2.
std::size_t state_dim_count(StateFamily family);
// Its DIMS as `tpcheck eval` names them, in SPEC §16.0's order: mamba2 H PH G
// N, gdn HK DK HV DV, kda H DH, mamba1 I N.
std::span<const std::string_view> state_dim_names(StateFamily family);
// The same as the model's configs name them (the texts of the dims check):
// num_heads, head_dim, n_groups, d_state; linear_num_key_heads, ...
std::span<const std::string_view> state_dim_config_names(StateFamily family);

// A count or index of state channels, heads' elements or bytes: it holds a
// sum of three products of two Ints exactly (a wider type than wide_t).
// int16: int64; int64: unsigned __int128 (every such value is non-negative
// once the inputs are checked); cpp_int: itself.
template <ModelInt Int>
struct StateUnits {
  using type = BigInt;
};
template <>
struct StateUnits<std::int16_t> {
  using type = std::int64_t;
};
template <>
struct StateUnits<std::int64_t> {
  using type = unsigned __int128;
};
template <ModelInt Int>
using units_t = typename StateUnits<Int>::type;

// A family and its DIMS in SPEC §16.0's order; past state_dim_count(family)
// the values are ignored.
template <ModelInt Int>
struct StateDims {
  StateFamily family = StateFamily::Mamba2;
  std::array<Int, kMaxStateDims> v{};
};

// ---- ownership on checked input (SPEC §16.1) -------------------------------------

// What each rank of a T-rank side holds of one conv segment.
template <ModelInt Int>
struct ConvSegment {
  const char* name = "";     // "x", "B", "C"; "q", "k", "v"
  Int groups{};              // G_s
  Int group_width{};         // w_s
  units_t<Int> full{};       // W_s = G_s * w_s
  bool replicated = false;   // G_s == 1 < T: every rank holds [0, W_s)
  units_t<Int> width{};      // width(T, s): W_s / T, or W_s when replicated
  units_t<Int> loc{};        // loc(T, s): the widths of the segments before it
};

// A side's ownership of the state: its conv segments in family order, C_loc,
// and the SSM heads (always sharded). Made by state_ownership(), which checks
// the side; the functions below assume a checked side and a rank in [0, T).
template <ModelInt Int>
struct RankState {
  StateFamily family = StateFamily::Mamba2;
  Int T{};
  std::array<ConvSegment<Int>, kMaxConvSegments> conv{};
  std::size_t segment_count = 0;
  units_t<Int> c_loc{};          // C_loc(T): the sum of the widths
  Int ssm_heads{};               // H_s
  Int h_loc{};                   // H_s / T
  units_t<Int> head_elements{};  // E

  std::span<const ConvSegment<Int>> segments() const { return {conv.data(), segment_count}; }
  // start(r, T, s): the first logical channel of segment s rank r holds (0 when replicated).
  units_t<Int> start(const Int& r, std::size_t s) const;
  // The first logical SSM head rank r holds: r * H_s / T.
  Int first_head(const Int& r) const;
};

// §16.1 a T-rank side's ownership of family dims. Fails as state_shape.
template <ModelInt Int>
Outcome<RankState<Int>> state_ownership(const Int& T, const StateDims<Int>& dims);

// ---- the operations (SPEC §16.1-16.2; `tpcheck eval F_state_shape ...`) -----------

// (C_loc, ssm_heads, elements_per_head)
template <ModelInt Int>
struct StateShape {
  units_t<Int> c_loc{};
  Int ssm_heads{};
  units_t<Int> elements_per_head{};
  bool operator==(const StateShape&) const = default;
};

// (name, lo, hi, local_lo, replicated): logical channels [lo, hi) of a conv
// segment (heads of the SSM state, "ssm") a rank holds, from local unit local_lo.
template <ModelInt Int>
struct SegmentRange {
  const char* name = "";
  units_t<Int> lo{};
  units_t<Int> hi{};
  units_t<Int> local_lo{};
  bool replicated = false;
  bool operator==(const SegmentRange& o) const {
    return std::string_view(name) == o.name && lo == o.lo && hi == o.hi && local_lo == o.local_lo &&
           replicated == o.replicated;
  }
};

// The SSM state's name in segments() and in a plan (its index: the family's segment count).
inline constexpr const char* kSsmSegment = "ssm";

// (segment, p, src, dst, n): n units (channels; heads for "ssm") from local
// unit src of prefill rank p to local unit dst of the decode rank.
// `segment` is the index in family order (the segment count for the SSM
// state), `name` its name.
template <ModelInt Int>
struct StateCopy {
  std::uint8_t segment = 0;
  const char* name = "";
  Int p{};
  units_t<Int> src{};
  units_t<Int> dst{};
  units_t<Int> n{};
  bool operator==(const StateCopy& o) const {
    return segment == o.segment && std::string_view(name) == o.name && p == o.p && src == o.src && dst == o.dst &&
           n == o.n;
  }
};

// The most copies or decode ranks a state plan or fan-in lists (kMaxListed).
inline constexpr std::int64_t kMaxStateListed = kMaxListed;

// §16.1 state_shape(F, T, DIMS). Fails, first failure wins: "tp_size {T}
// must be positive"; the family's dims; its config; its TP checks (§16.1's table).
template <ModelInt Int>
Outcome<StateShape<Int>> state_shape(const Int& T, const StateDims<Int>& dims);

// §16.1 segments(F, r, T, DIMS): one range per conv segment in local order,
// then "ssm". Fails as state_shape, with "tp_rank {r} must be in [0, {T})"
// before the TP checks.
template <ModelInt Int>
Outcome<std::vector<SegmentRange<Int>>> segments(const Int& r, const Int& T, const StateDims<Int>& dims);

// §16.2 state_plan(F, d, P, D, DIMS): decode rank d's copies, by segment then
// by dst. Fails: "prefill tp_size {P} must be positive", the same for decode;
// dims; config; "decode_tp_rank {d} must be in [0, {D})"; the TP checks with
// T = P, then T = D; tp_ratio(D, P)'s failures (§3); more than 2^20 copies,
// counted before any is listed: "state plan of decode_tp_rank {d} has
// {copies} elements, more than the model lists (1048576)".
template <ModelInt Int>
Outcome<std::vector<StateCopy<Int>>> state_plan(const Int& d, const Int& P, const Int& D, const StateDims<Int>& dims);

// The same plan written to `copies` (cleared first, its storage reused):
// nothing on success, the failure state_plan() gives otherwise.
template <ModelInt Int>
std::optional<Failure> state_plan_into(std::vector<StateCopy<Int>>& copies, const Int& d, const Int& P, const Int& D,
                                       const StateDims<Int>& dims);

// §16.2 copies [first, first + count) of the same plan (fewer where the plan
// ends first) written to `copies` as state_plan_into does, the ones before
// `first` skipped without being computed, so a caller that looks at a few
// copies of a long plan (the fuzzers' walks) does not list all of them.
// state_plan_into is this range over the whole plan. Fails as state_plan().
template <ModelInt Int>
std::optional<Failure> state_plan_range_into(std::vector<StateCopy<Int>>& copies, const Int& d, const Int& P,
                                             const Int& D, const StateDims<Int>& dims, const units_t<Int>& first,
                                             const units_t<Int>& count);

// §16.2 how many copies state_plan(F, d, ...) has, without listing them; fails as state_plan().
template <ModelInt Int>
Outcome<wide_t<Int>> state_plan_copy_count(const Int& d, const Int& P, const Int& D, const StateDims<Int>& dims);

// §16.2 state_served(F, p, P, D, DIMS): the decode ranks with a copy from
// prefill rank p, ascending (window(p, P, D)). Fails as state_plan with
// "prefill_tp_rank {p} must be in [0, {P})", tp_ratio(P, D) and "state served
// by prefill_tp_rank {p} has {n} elements, more than the model lists (1048576)".
template <ModelInt Int>
Outcome<Window<Int>> state_served(const Int& p, const Int& P, const Int& D, const StateDims<Int>& dims);

// The ranks state_served(F, p, P, D, DIMS) lists, as one span: its checks and
// failures, without the list (a window of up to 2^20 ranks).
template <ModelInt Int>
Outcome<Span<Int>> state_served_span(const Int& p, const Int& P, const Int& D, const StateDims<Int>& dims);

// §16.1 state_pairing(LP, LD, ECP, ECD, ESP, ESD): None, or the first of: a
// value <= 0 ("{what} {v} must be positive", in order); LP != LD; ECP != ECD;
// ESP != ESD (SPEC §16.1's texts).
template <ModelInt Int>
Outcome<None> state_pairing(const Int& LP, const Int& LD, const Int& ECP, const Int& ECD, const Int& ESP,
                            const Int& ESD);

}  // namespace tpcheck
