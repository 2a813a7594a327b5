// The inputs an invariant ranges over: a product of typed blocks, each giving
// one value (a pair gives two) and possibly depending on values before it (a
// rank of a size, a head count both sizes can shard).
//
// One definition of each block serves every engine:
//   - block_values(): its values at a bound, for the exhaustive sweep, the
//     seeds and conform's grid;
//   - choice_ranges() / decode(): its values from a few independent small
//     choices, for RapidCheck (which draws the choices and shrinks each on its
//     own) and libFuzzer (which reads them from fixed-width fields);
//   - encode(): the inverse of decode(), for seeds written from sweep cases.
// Every choice is an integer in [0, range) whose 0 is the plain case (the
// smallest size, the first rank, no error), so shrinking a choice towards 0
// shrinks the value, and a dependent value (a rank of L) follows its size.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "tpcheck/pyint.hpp"
#include "tpcheck/state.hpp"

namespace tpcheck::dom {

enum class BlockKind : std::uint8_t {
  Size, Pair, Rank, Heads, Flag, DpRank, DpSize, Hosts, BasePort,
  StageSplit,  // a side's PP stage layer counts, as one integer (tpcheck/stages.hpp's code)
  Stage,       // a stage of a StageSplit
  DpGroup,     // an attention-DP group of a side
  StateDim,    // a dimension of a recurrent state family (SPEC §16.0), fixed or given by a Choice
  Length,      // a conv window length or an element size of one side (SPEC §16.0)
  Choice,      // one of a few cases: 0 .. choices - 1 (a state family, a byte layout)
};

// Options of the blocks: which part of the block's values an invariant speaks about.
enum class Sizes : std::uint8_t { Positive, WithNonPositive };
enum class Pairs : std::uint8_t { Divisible, Positive, WithNonPositive };
enum class Ranks : std::uint8_t { Valid, NotLast, WithInvalid };
// Compatible: counts every size shards (1 under the MLA flag); Any: every
// count from -1 up; Edges: -1, 0, the compatible counts and the smallest one
// that is not (-1, 0 and 1 under the MLA flag). Drawn at random, Edges is Any.
enum class HeadCounts : std::uint8_t { Compatible, Any, Edges };
enum class DpRanks : std::uint8_t { NonNegative, Any };
// Valid: every stage has at least one layer (and a split that shares another's
// total has that total); WithInvalid: also the empty list, a stage without
// layers, and (sharing a total) another total.
enum class Splits : std::uint8_t { Valid, WithInvalid };
// Valid: only state dims both sides load (positive, consistent, every TP
// check of SPEC §16.1 passes); Edges: also -1, 0 and, for each check, a value
// it is the first to refuse.
enum class Dims : std::uint8_t { Valid, Edges };

struct Block {
  BlockKind kind;
  std::uint8_t option = 0;
  std::array<const char*, 2> names{};     // the values it gives (only a pair gives two)
  std::array<const char*, 2> of_names{};  // the values it depends on, by name
  const char* flag_name = nullptr;        // heads: the MLA flag under which H is ignored; dp_group: the ADP flag
  const char* given_name = nullptr;       // rank: walk every rank only when this head count is valid
  // heads: per size (of_names), a flag under which that size's ranks hold
  // every head (attention DP), so that size need not shard them.
  std::array<const char*, 2> exempt_names{};
  std::uint8_t max_layers = 0;            // stage split: the sweep's largest layer total
  // Size and heads blocks: the sweep also walks kNarrowEdges past its bound
  // (and a rank of such a size only at its edges), so a narrow model's
  // overflow boundaries are crossed whatever the bound. Random engines draw
  // every magnitude anyway.
  bool narrow_edges = false;
  std::int64_t narrow_edges_from = 0;  // ... only the edges at or past this one
  std::int64_t narrow_edges_below = 0; // ... and (when > 0) below this one
  // Size and heads blocks: the sweep also walks kListingEdge, so that a
  // window or plan too long for the model to list is met whatever the bound.
  bool listing_edge = false;
  // State dims: the family, fixed (a StateFamily's value) or, when -1, the
  // value of the Choice named family_name; the dim's index in its DIMS; the
  // TP sizes that must shard it (side_names). of_names[0] names the count
  // the dim divides or multiplies (Mamba2's G and GDN's HV: dim 0).
  std::int8_t state_family = -1;
  std::uint8_t dim = 0;
  const char* family_name = nullptr;
  std::array<const char*, 2> side_names{};
  // Choice: how many values it takes.
  std::uint8_t choices = 0;
  // Filled in by Domain from the names: positions in the values array.
  std::array<int, 2> of{-1, -1};
  int flag = -1;
  int given = -1;                             // rank: the head count's position
  std::array<int, 2> given_sizes{-1, -1};     // ... the sizes it must shard over
  int given_flag = -1;                        // ... and its MLA flag
  std::array<int, 2> given_exempt{-1, -1};    // ... and the flags exempting its sizes
  std::array<int, 2> exempt{-1, -1};          // heads: the positions of exempt_names
  int family_at = -1;                         // state dims: the family's position
  std::array<int, 2> sides{-1, -1};           // state dims: the positions of side_names
  int first = 0;

  int width() const { return kind == BlockKind::Pair ? 2 : 1; }
  // Whether its values are sizes, which order counterexamples ("smallest sizes first").
  bool gives_sizes() const;
};

// Values past any sweep bound where int16 arithmetic overflows: 181 * 181 <
// 2^15 < 182 * 182, a power of two whose products with small sizes pass 2^15,
// and int16's largest value.
inline constexpr std::array<std::int64_t, 4> kNarrowEdges = {181, 182, 16384, 32767};

// A block that also walks kNarrowEdges (see Block::narrow_edges), those at or
// past `from` only when given (16384: the sizes whose multiples pass int16, where
// a stage's global ranks do, without the ones whose squares do).
Block with_narrow_edges(Block b, std::int64_t from = 0, std::int64_t below = 0);

// The smallest prime past 2^20, the most elements the model lists
// (kMaxListed): a size or head count this large makes a window or plan too
// long to list, and being prime, it divides no other size the sweep walks,
// so it never makes a long list the model does compute.
inline constexpr std::int64_t kListingEdge = 1048583;

// A block that also walks kListingEdge (see Block::listing_edge).
Block with_listing_edge(Block b);

// Builders for declarations (properties/src/*_invariants.cpp).
Block size(const char* name, Sizes option = Sizes::Positive);
Block pair(const char* a, const char* b, Pairs option = Pairs::Positive);
Block rank(const char* name, const char* of, Ranks option = Ranks::Valid);
// A rank below the larger of two values (an index valid for either).
Block rank_of_larger(const char* name, const char* of_a, const char* of_b, Ranks option);
// A rank with the invalid ones (-1 and S) whose every value is walked only
// when head count `heads_name` is valid (it shards over its sizes, or is 1
// under its MLA flag); otherwise only -1, 0 and S. An operation fails on an
// invalid head count whatever the rank, so its cases need not multiply.
Block rank_given_heads(const char* name, const char* of, const char* heads_name);
// A head count for one or two sizes; with `mla_flag`, H is ignored when that flag is set.
Block heads(const char* name, const char* of_a, const char* of_b, HeadCounts option, const char* mla_flag = nullptr);
Block flag(const char* name);
Block dp_rank(const char* name, DpRanks option = DpRanks::NonNegative);
Block dp_size(const char* name, Sizes option = Sizes::Positive);
// Host counts for a T-rank engine; with Sizes::WithNonPositive also -1 and 0.
Block hosts(const char* name, const char* of, Sizes option = Sizes::Positive);
Block base_port(const char* name, const char* dp_size, const char* tp_size);
// A head count for two sizes where a side under its attention-DP flag holds
// every head (only a side without it must shard H); `mla_flag` as heads().
Block heads_per_group(const char* name, const char* of_a, const char* adp_a, const char* of_b, const char* adp_b,
                      HeadCounts option, const char* mla_flag = nullptr);
// A side's stage split (its code): the sweep walks every split of 1 to
// `max_layers` layers; with `same_total_as`, the splits of that split's layer
// total instead (a pair of sides that hold the same layers).
Block stage_split(const char* name, std::uint8_t max_layers, Splits option = Splits::Valid,
                  const char* same_total_as = nullptr);
// A stage of a split: [0, S) (with invalid: -1 and S too).
Block stage(const char* name, const char* of_split, Ranks option = Ranks::Valid);
// A DP group of a side of TP size `of_size`: [0, T) under `adp_flag`, else 0
// (with invalid: -1 and the group count too).
Block dp_group(const char* name, const char* of_size, const char* adp_flag, Ranks option = Ranks::Valid);

// A state dim's rule (SPEC §16.1), by family and index: dim 0 is a count the
// sides shard (Mamba2's H, GDN's HK, KDA's H, Mamba1's I); dim 2 of Mamba2 its
// groups (1, or a multiple of the sizes, dividing H) and of GDN its value heads
// (a multiple of HK); the others free (a head dim, d_state); past a family's
// DIMS, unused (always 1).
enum class DimRule : std::uint8_t { Count, Groups, Free, Unused };
DimRule dim_rule(StateFamily family, std::uint8_t dim);
// The family of a state dim block in a case (its fixed one, or its Choice's value).
StateFamily block_family(const Block& b, const std::int64_t* values);
StateFamily block_family(const Block& b, const BigInt* values);

// The sweep walks free state dims from 1 to this, window lengths and element sizes too.
inline constexpr std::int64_t kSweepFreeDims = 3;

// Dimension `dim` of a state family, fixed (operation domains) or read from
// the Choice `family_name` (an invariant over every family); sharded by the
// sizes side_a and side_b (either may be null); `count` the dim 0 it depends on.
Block state_dim(const char* name, StateFamily family, std::uint8_t dim, const char* count, const char* side_a,
                const char* side_b, Dims option = Dims::Valid);
Block state_dim_of(const char* name, const char* family_name, std::uint8_t dim, const char* count, const char* side_a,
                   const char* side_b, Dims option = Dims::Valid);
// A conv window length or an element size: small positive values; with
// `same_as`, often equal to that one; with Sizes::WithNonPositive, also 0 and below.
Block length(const char* name, const char* same_as = nullptr, Sizes option = Sizes::Positive);
// One of `count` cases, 0 .. count - 1.
Block choice(const char* name, std::uint8_t count);

struct Bound;

class Domain {
 public:
  Domain() = default;
  // Resolves every name to a position; throws std::invalid_argument naming a
  // value that is unknown or not defined before the block that uses it.
  explicit Domain(std::vector<Block> blocks);

  // The sweep walks sizes and head counts up to at most these, whatever its
  // bound: for a domain whose cases multiply (stage splits, DP groups and
  // ranks on top of a sizing) where small sizes already meet every kind.
  Domain& sweep_cap(std::int64_t max_tp, std::int64_t max_heads);
  // The bound a walk of this domain uses: `bound` under the domain's cap.
  Bound capped(const Bound& bound) const;
  // A domain of other blocks (an operation's, widened) under this one's cap.
  Domain with_blocks(std::vector<Block> blocks) const;

  const std::vector<Block>& blocks() const { return blocks_; }
  int width() const { return static_cast<int>(names_.size()); }
  const char* name(int position) const { return names_[static_cast<std::size_t>(position)]; }
  bool is_size(int position) const { return sizes_[static_cast<std::size_t>(position)]; }
  bool is_flag(int position) const { return flags_[static_cast<std::size_t>(position)]; }

 private:
  std::vector<Block> blocks_;
  std::vector<const char*> names_;
  std::vector<bool> sizes_;
  std::vector<bool> flags_;
  std::int64_t cap_tp_ = 0, cap_heads_ = 0;  // 0: no cap

  friend std::string domain_text(const Domain& d);
};

// At most this many values in one case (the widest operation, stage_plan, has eleven).
inline constexpr int kMaxValues = 12;

// ---- the exhaustive enumeration at a bound ----------------------------------

struct Bound {
  std::int64_t max_tp = 256;     // sizes 1..max_tp (and -1, 0 where non-positive ones are asked for)
  std::int64_t max_heads = 256;  // head counts 1..max_heads
};
// The deployment blocks walk small fixed sets: DP sizes 1..4 (and -1, 0),
// DP ranks 0..3 (and -1), host counts 1..8 and T, T + 1 (and -1, 0), and per deployment
// the base ports -1, 0, 1, 65535 and those whose last port is 65534..65536.
inline constexpr std::int64_t kSweepDpSizes = 4;
inline constexpr std::int64_t kSweepHosts = 8;

// The values block `b` takes at the bound, given the values of the blocks
// before it (`values`, indexed by position), appended to `out` in ascending
// order (a pair appends two integers per case). Public for conform's grid.
void block_values(const Block& b, const Bound& bound, const std::int64_t* values, std::vector<std::int64_t>& out);

// Calls visit(values) for every case of the domain at the bound, in order,
// starting at block `from` with values[0 .. blocks[from].first) already set.
template <class Visit>
class Walker {
 public:
  Walker(const Domain& domain, const Bound& bound)
      : domain_(domain), bound_(domain.capped(bound)), buffers_(domain.blocks().size()) {}

  void walk(std::int64_t* values, std::size_t from, Visit& visit) {
    if (from == domain_.blocks().size()) {
      visit(static_cast<const std::int64_t*>(values));
      return;
    }
    const Block& b = domain_.blocks()[from];
    std::vector<std::int64_t>& buffer = buffers_[from];
    buffer.clear();
    block_values(b, bound_, values, buffer);
    const std::size_t step = static_cast<std::size_t>(b.width());
    for (std::size_t i = 0; i + step <= buffer.size(); i += step) {
      for (std::size_t k = 0; k < step; ++k) values[b.first + static_cast<int>(k)] = buffer[i + k];
      walk(values, from + 1, visit);
    }
  }

 private:
  const Domain& domain_;
  Bound bound_;
  std::vector<std::vector<std::int64_t>> buffers_;
};

template <class Visit>
void for_each_case(const Domain& domain, const Bound& bound, Visit&& visit) {
  std::array<std::int64_t, kMaxValues> values{};
  Walker<std::remove_reference_t<Visit>> walker(domain, bound);
  walker.walk(values.data(), 0, visit);
}

// ---- choices: the random engines' view ----------------------------------------

// A choice is an integer in [0, range); range 0 stands for [0, 2^64).
using Choice = std::uint64_t;

// The integers the engine's type holds, and the largest size to draw (a
// per-configuration invariant caps its sizes so that a case stays cheap).
struct Limits {
  BigInt lowest;
  BigInt highest;
  BigInt size_cap;
};
Limits int64_limits(std::int64_t size_cap = 0);  // size_cap 0: no cap below the type's own
Limits big_limits(std::int64_t size_cap = 0);    // cpp_int: values up to 2^320 in magnitude

std::vector<Choice> choice_ranges(const Block& b);
std::vector<Choice> choice_ranges(const Domain& d);

// A magnitude (every size is made from one) is three choices: class, small,
// wide. The last class draws (wide >> 8) << (wide & 255), any size past 2^64
// that the limits allow: the class a case needs to leave int64.
inline constexpr Choice kMagnitudeBeyondClass = 7;
// The position in choice_ranges(d) of each magnitude's class choice (its
// small and wide choices follow it).
std::vector<std::size_t> magnitude_class_positions(const Domain& d);

// The values of every block from the choices (laid out as choice_ranges(d)),
// written to values[0 .. d.width()). Any choices give valid values inside the
// limits: a choice at or past its range is reduced modulo the range.
void decode(const Domain& d, const Choice* choices, BigInt* values, const Limits& limits);

// Choices that decode() turns into exactly these values, or nothing when the
// block has no choices for one of them (say a size of 2^300 + 1).
std::optional<std::vector<Choice>> encode(const Domain& d, const BigInt* values, const Limits& limits);

// "name=value" for every value of a case, space separated; a stage split as
// its layer counts ("prefill_layers=[2, 1]").
std::string describe(const Domain& d, const BigInt* values);

// Value `position` of a case as describe() shows it.
std::string value_text(const Domain& d, int position, const BigInt& value);

// The domain's blocks as text: "pair(L, R: divisible), rank(r of L)", and
// the sweep's cap when it has one ("; swept up to sizes 6, head counts 6").
std::string domain_text(const Domain& d);

}  // namespace tpcheck::dom
