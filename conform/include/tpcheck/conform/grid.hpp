// The cases a conformance run calls, as a product of named, typed parameters.
//
// A binding declares its parameters (a size, a rank of an earlier size, a
// head count compatible with earlier sizes, the MLA flag, a member of a
// window, a size divisible with another); make_grid() computes every
// parameter's value list here, in one place, and the result is exactly what
// the Python child receives (grid_json): per-parameter value lists, and for a
// parameter that depends on earlier ones a table from their values to its
// list. Parent and child enumerate the same description in the same order
// (nested loops in parameter order), so the child can generate the cases
// itself and answer with outcomes only.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <optional>
#include <string>
#include <vector>

#include "tpcheck/pyint.hpp"

namespace tpcheck::conform {

struct GridBounds {
  int max_tp = 16;     // sizes and ranks
  int max_heads = 16;  // total KV head counts
  // --max-tp was given: grids with a smaller default bound of their own
  // (the hybrid state's, SPEC §16.8) take it instead.
  bool max_tp_given = false;
};

// The arguments of one case, in the binding's display order.
using CaseArgs = std::vector<BigInt>;

enum class ParamKind {
  Size,          // a TP size
  Rank,          // a rank of the size it depends on
  HeadCount,     // total KV heads; ValidOnly: head-compatible with every size it depends on
  Flag,          // MLA: 0 or 1 (False/True in Python)
  WindowMember,  // a member of window(r, L, R) of the rank and sizes it depends on
  Partner,       // a size in [1, max_tp] that divides, or is a multiple of, the size it depends on
  Choice,        // one of a fixed list of values (a page size, a probe)
};

// What a binding declares: a parameter, its kind, and the earlier
// parameters (by name) its values depend on.
struct ParamSpec {
  std::string name;
  ParamKind kind;
  std::vector<std::string> deps;
  std::vector<std::int64_t> choices = {};  // Choice: its values, in order
  int bound = 0;         // Size, HeadCount, Partner: at most this, below the grid's bound (0: the grid's)
  bool unequal = false;  // Partner: never the size it depends on
  // Choice: what each value stands for, shown in reports in its place
  // ("mamba2(24, 1, 1, 3)" for a state config's index); empty: the value.
  std::vector<std::string> labels = {};
  // The label of `value` (its decimal when it has none).
  std::string shown(const BigInt& value) const;
};

enum class GridStyle {
  // Valid and invalid values (SPEC §10): sizes and heads in [-1, bound],
  // ranks one past each end of their range, then far-out values (+-2^63 and
  // neighbours, 2^64, +-10^30, and S-1, S, S//2 for ranks of a size S).
  EdgesAndFarOut,
  // The configurations a connector is built for (SPEC §12 cases): sizes in
  // [1, bound], ranks in [0, S), head counts compatible with both sides.
  ValidOnly,
};

// One parameter's values: a list, or, when it depends on earlier
// parameters, a list per combination of their values (a missing key: none).
struct ValueList {
  std::vector<BigInt> values;
  std::vector<char> outer;  // per value, in a block with only_outer: past the first block's bounds
};

// A dependent parameter's lists by the values of what it depends on, in the
// order the walk first reaches them; looked up once per loop entry of the
// walk, so hashed.
struct ValuesHash {
  std::size_t operator()(const std::vector<BigInt>& key) const;
  std::size_t operator()(const std::vector<std::int64_t>& key) const;
};
struct ValueTable {
  std::vector<std::pair<std::vector<BigInt>, ValueList>> entries;
  // Keys that fit int64 (every key of a valid grid) are found without cpp_int.
  std::unordered_map<std::vector<std::int64_t>, std::size_t, ValuesHash> small_index;
  std::unordered_map<std::vector<BigInt>, std::size_t, ValuesHash> big_index;
  void add(std::vector<BigInt> key, ValueList list);
  const ValueList* find(const std::vector<BigInt>& key) const;
  const ValueList* find(const std::vector<std::int64_t>& key) const;
};

struct GridParam {
  std::string name;
  std::size_t position = 0;        // in the display order of CaseArgs
  bool flag = false;               // the child passes False/True
  std::vector<std::size_t> deps;   // indices of earlier parameters of the block
  ValueList values;                // deps empty
  ValueTable table;                // deps not empty

  const ValueList* list_for(const std::vector<BigInt>& key) const;
};

// A product of parameters (nested loops in parameter order), or an explicit
// list of cases.
struct GridBlock {
  std::vector<GridParam> params;
  bool only_outer = false;  // skip the cases whose every value is inner
  bool explicit_cases = false;
  std::vector<CaseArgs> cases;
};

struct Grid {
  std::size_t arity = 0;
  std::vector<GridBlock> blocks;
};

// The grid of a binding: its parameters in display order, the style, the
// bounds, and extra cases (regression and corpus calls mapped onto it).
// Extra cases outside the style's domain and cases the first block already
// has are dropped. `probes` are cases a binding runs besides its grid
// (values its parameters' lists leave out on purpose), kept as they are.
Grid make_grid(const std::vector<ParamSpec>& params, GridStyle style, const GridBounds& bounds,
               const std::vector<CaseArgs>& extra, const std::vector<CaseArgs>& probes = {});

std::uint64_t case_count(const Grid& grid);

// Smallest sizes first: the largest magnitude, then the sum of magnitudes,
// then the arguments (the order smallest counterexamples are chosen in).
bool smaller_case(const CaseArgs& a, const CaseArgs& b);

// The same cases in the same order, as one block of explicit cases (for a
// child that reads cases rather than grids).
Grid explicit_grid(const Grid& grid);

// Walks the grid's cases in the order parent and child share.
class GridCursor {
 public:
  explicit GridCursor(const Grid& grid);
  // The next case, or nullptr after the last one.
  const CaseArgs* next();

 private:
  bool enter_block();
  bool descend(std::size_t level);
  bool advance();
  bool inner_only() const;
  void set(std::size_t position, const BigInt& value);

  const Grid& grid_;
  std::size_t block_ = 0;
  bool started_ = false;
  CaseArgs args_;
  std::vector<std::int64_t> small_;     // args_ as int64, where they fit
  std::vector<char> fits_;
  std::vector<std::int64_t> small_key_;
  std::vector<const ValueList*> lists_;
  std::vector<std::size_t> at_;
  std::vector<BigInt> key_;
};

// The JSON description the child enumerates (see conform/child/).
std::string grid_json(const Grid& grid);

// A model parameter name's kind and dependency, for bindings declared by the
// model's own parameter names (vllm-moriio, adapters): r, p, d, q, TP_RANK
// index L, P, D, T, TP_SIZE; H is a head count; MLA a flag; the rest sizes.
ParamSpec param_from_model_name(const std::string& name);

}  // namespace tpcheck::conform
