// Every parameter kind's value list, the grid they form, and the walk over it.
#include "tpcheck/conform/grid.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <unordered_set>
#include <stdexcept>

#include "tpcheck/domain.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/sharding.hpp"

namespace tpcheck::conform {
namespace {

std::vector<BigInt> range(std::int64_t lo, std::int64_t hi) {
  std::vector<BigInt> out;
  for (std::int64_t v = lo; v <= hi; ++v) out.emplace_back(v);
  return out;
}

// Values beyond any grid bound: where int64 ends, past it, and far past it.
std::vector<BigInt> far_out_values() {
  const BigInt two63 = BigInt(1) << 63;
  const BigInt ten30 = BigInt("1000000000000000000000000000000");
  return {two63 - 1, two63, -two63, -two63 - 1, BigInt(1) << 64, ten30, -ten30};
}

const std::vector<BigInt> kSmall = {-2, -1, 0, 1, 2, 3, 4, 6, 8};

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {  // splitmix64
  std::uint64_t x = h + v + 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::optional<std::vector<std::int64_t>> narrow_all(const std::vector<BigInt>& key) {
  std::vector<std::int64_t> out;
  out.reserve(key.size());
  for (const BigInt& v : key) {
    const auto n = narrow(v);
    if (!n) return std::nullopt;
    out.push_back(*n);
  }
  return out;
}


bool head_compatible_with_all(const BigInt& h, const std::vector<BigInt>& sizes) {
  return std::all_of(sizes.begin(), sizes.end(), [&](const BigInt& t) { return head_compatible<BigInt>(t, h); });
}

std::vector<BigInt> widen(const std::vector<std::int64_t>& values) {
  return {values.begin(), values.end()};
}

// The registry's block for a parameter of the exhaustive block (the sweep's
// and the random engines' domains, properties/include/tpcheck/domain.hpp),
// with its dependencies as sizes named "S0", "S1" before it.
dom::Block registry_block(const ParamSpec& p, GridStyle style, std::size_t size_count) {
  const bool valid = style == GridStyle::ValidOnly;
  const char* name = p.name.c_str();
  switch (p.kind) {
    case ParamKind::Size: return dom::size(name, valid ? dom::Sizes::Positive : dom::Sizes::WithNonPositive);
    case ParamKind::Flag: return dom::flag(name);
    case ParamKind::Rank: return dom::rank(name, "S0", valid ? dom::Ranks::Valid : dom::Ranks::WithInvalid);
    case ParamKind::HeadCount:
      return dom::heads(name, "S0", size_count > 1 ? "S1" : nullptr,
                        valid ? dom::HeadCounts::Compatible : dom::HeadCounts::Any);
    case ParamKind::WindowMember:
    case ParamKind::Partner:
    case ParamKind::Choice: break;
  }
  throw std::logic_error("conform grid: " + p.name + " has no registry block");
}

// Whether a rank or head count takes its values from the sizes it depends on:
// a rank always; a head count only in the exhaustive block of the valid-only
// style, where it must be compatible with them (an edge or far-out head count
// takes no account of the sizes).
bool follows_sizes(const ParamSpec& p, GridStyle style, bool far) {
  return p.kind == ParamKind::Rank || (p.kind == ParamKind::HeadCount && !far && style == GridStyle::ValidOnly);
}

// The values of a parameter of the exhaustive block, given its dependencies'
// values: the registry block's values at the grid's bounds, except for the
// two kinds only conformance has (a window's members, a divisible partner).
std::vector<BigInt> first_block_values(const ParamSpec& p, GridStyle style, const GridBounds& grid_bounds,
                                       const std::vector<BigInt>& dep) {
  GridBounds b = grid_bounds;
  if (p.bound > 0) {
    b.max_tp = std::min(b.max_tp, p.bound);
    b.max_heads = std::min(b.max_heads, p.bound);
  }
  switch (p.kind) {
    case ParamKind::Choice: return widen(p.choices);
    case ParamKind::WindowMember: {
      const auto r = narrow(dep.at(0)), L = narrow(dep.at(1)), R = narrow(dep.at(2));
      if (!r || !L || !R) return {};
      const auto w = window<std::int64_t>(*r, *L, *R);
      return w.ok() ? std::vector<BigInt>(w.value().begin(), w.value().end()) : std::vector<BigInt>{};
    }
    case ParamKind::Partner: {
      std::vector<BigInt> out;
      for (std::int64_t v = 1; v <= b.max_tp; ++v) {
        if (inv::divisible_pair<BigInt>(dep.at(0), v) && !(p.unequal && dep.at(0) == v)) out.emplace_back(v);
      }
      return out;
    }
    default: break;
  }
  // The dependencies as the sizes before the block; the exhaustive block's
  // are inside its bounds, so they fit int64.
  const bool uses_deps = follows_sizes(p, style, false);
  std::vector<dom::Block> blocks;
  std::array<std::int64_t, dom::kMaxValues> values{};
  static constexpr const char* kDepNames[] = {"S0", "S1"};
  // A head count that depends on no size is compatible with size 1: every
  // positive count.
  const std::vector<BigInt> sizes = uses_deps && dep.empty() ? std::vector<BigInt>{1} : dep;
  for (std::size_t i = 0; uses_deps && i < sizes.size(); ++i) {
    const auto v = narrow(sizes[i]);
    if (!v || i >= 2) throw std::logic_error("conform grid: " + p.name + " needs sizes the registry has no block for");
    blocks.push_back(dom::size(kDepNames[i], dom::Sizes::WithNonPositive));
    values[i] = *v;
  }
  dom::Block own = registry_block(p, style, sizes.size());
  if (!uses_deps) own.of_names = {};
  blocks.push_back(own);
  const dom::Domain domain(std::move(blocks));
  std::vector<std::int64_t> out;
  dom::block_values(domain.blocks().back(), dom::Bound{b.max_tp, b.max_heads}, values.data(), out);
  return widen(out);
}

// The values of a parameter of the far-out block: small values mixed with
// far ones (and, for a rank, S-1, S and S//2 of its size S).
std::vector<BigInt> far_block_values(const ParamSpec& p, const std::vector<BigInt>& dep) {
  if (p.kind == ParamKind::Flag) return range(0, 1);
  if (p.kind == ParamKind::WindowMember || p.kind == ParamKind::Partner || p.kind == ParamKind::Choice) {
    throw std::logic_error("conform grid: " + p.name + " has no far-out values");
  }
  std::set<BigInt> values(kSmall.begin(), kSmall.end());
  for (const BigInt& v : far_out_values()) values.insert(v);
  if (p.kind == ParamKind::Rank) {
    const BigInt& s = dep.at(0);
    values.insert({s - 1, s, floor_div<BigInt>(s, 2)});
  }
  return {values.begin(), values.end()};
}

// Whether a far-out block's value lies past the exhaustive block's bounds.
bool is_outer(const ParamSpec& p, const GridBounds& b, const BigInt& v) {
  if (p.kind == ParamKind::Flag) return false;
  return v < -1 || v > (p.kind == ParamKind::HeadCount ? b.max_heads : b.max_tp);
}

// The block's parameters in enumeration order: each after those it depends
// on; those others depend on first, then the rest (in display order within
// each), so that a dependent list is looked up once per combination of what
// it depends on rather than once per value of unrelated parameters.
std::vector<std::size_t> enumeration_order(const std::vector<ParamSpec>& params) {
  auto index_of = [&](const std::string& name) {
    for (std::size_t j = 0; j < params.size(); ++j) {
      if (params[j].name == name) return j;
    }
    throw std::logic_error("conform grid: a dependency on unknown parameter " + name);
  };
  std::vector<bool> depended_on(params.size(), false);
  for (const auto& p : params) {
    for (const auto& d : p.deps) depended_on[index_of(d)] = true;
  }
  std::vector<std::size_t> order;
  std::vector<bool> placed(params.size(), false);
  for (const bool leaves : {false, true}) {
    for (bool progress = true; progress;) {
      progress = false;
      for (std::size_t i = 0; i < params.size(); ++i) {
        if (placed[i] || depended_on[i] == leaves) continue;
        const bool ready = std::all_of(params[i].deps.begin(), params[i].deps.end(),
                                       [&](const std::string& d) { return bool(placed[index_of(d)]); });
        if (!ready) continue;
        placed[i] = true;
        order.push_back(i);
        progress = true;
        break;  // restart: display order among the ready ones
      }
    }
  }
  if (order.size() != params.size()) throw std::logic_error("conform grid: circular parameter dependencies");
  return order;
}

// Every combination of values of the levels `deps` that the block built so
// far reaches: a walk over just those levels and what they depend on.
std::vector<std::vector<BigInt>> reachable_keys(const GridBlock& block, const std::vector<std::size_t>& deps) {
  std::vector<bool> needed(block.params.size(), false);
  std::vector<std::size_t> pending(deps.begin(), deps.end());
  while (!pending.empty()) {
    const std::size_t level = pending.back();
    pending.pop_back();
    if (needed[level]) continue;
    needed[level] = true;
    pending.insert(pending.end(), block.params[level].deps.begin(), block.params[level].deps.end());
  }
  GridBlock sub;
  std::vector<std::size_t> sub_level(block.params.size(), 0);
  for (std::size_t level = 0; level < block.params.size(); ++level) {
    if (!needed[level]) continue;
    sub_level[level] = sub.params.size();
    GridParam p = block.params[level];
    for (auto& d : p.deps) d = sub_level[d];
    p.position = sub.params.size();
    sub.params.push_back(std::move(p));
  }
  const Grid walk{sub.params.size(), {std::move(sub)}};
  std::unordered_set<std::vector<std::int64_t>, ValuesHash> seen_small;
  std::unordered_set<std::vector<BigInt>, ValuesHash> seen_big;
  std::vector<std::vector<BigInt>> keys;
  GridCursor cursor(walk);
  for (const CaseArgs* c = cursor.next(); c != nullptr; c = cursor.next()) {
    std::vector<BigInt> key;
    for (const std::size_t d : deps) key.push_back((*c)[sub_level[d]]);
    const auto small = narrow_all(key);
    if (small ? seen_small.insert(*small).second : seen_big.insert(key).second) keys.push_back(std::move(key));
  }
  return keys;
}

// Builds a product block: every parameter's list (or table, keyed by every
// combination of its dependencies' values that the block can reach).
GridBlock product_block(const std::vector<ParamSpec>& params, GridStyle style, const GridBounds& b, bool far) {
  GridBlock block;
  block.only_outer = far;
  std::vector<std::size_t> level_of(params.size());
  const auto order = enumeration_order(params);
  for (std::size_t level = 0; level < order.size(); ++level) level_of[order[level]] = level;
  for (const std::size_t i : order) {
    const ParamSpec& spec = params[i];
    GridParam gp;
    gp.name = spec.name;
    gp.position = i;
    gp.flag = spec.kind == ParamKind::Flag;
    const bool uses_deps = spec.kind != ParamKind::HeadCount || follows_sizes(spec, style, far);
    if (uses_deps) {
      for (const auto& d : spec.deps) {
        const auto j = std::find_if(params.begin(), params.end(), [&](const ParamSpec& q) { return q.name == d; });
        gp.deps.push_back(level_of[static_cast<std::size_t>(j - params.begin())]);
      }
    }
    auto make = [&](const std::vector<BigInt>& key) {
      ValueList list;
      list.values = far ? far_block_values(spec, key) : first_block_values(spec, style, b, key);
      if (far) {
        for (const BigInt& v : list.values) list.outer.push_back(is_outer(spec, b, v) ? 1 : 0);
      }
      return list;
    };
    if (gp.deps.empty()) {
      gp.values = make({});
    } else {
      for (auto& key : reachable_keys(block, gp.deps)) {
        ValueList list = make(key);
        if (!list.values.empty()) gp.table.add(std::move(key), std::move(list));  // a missing key: no values
      }
    }
    block.params.push_back(std::move(gp));
  }
  return block;
}

bool block_contains(const GridBlock& block, const CaseArgs& args) {
  for (const GridParam& p : block.params) {
    std::vector<BigInt> key;
    for (const std::size_t level : p.deps) key.push_back(args[block.params[level].position]);
    const ValueList* list = p.list_for(key);
    if (list == nullptr || !std::binary_search(list->values.begin(), list->values.end(), args[p.position])) {
      return false;
    }
  }
  return true;
}

// Whether an extra case lies in the style's domain (ValidOnly: the
// configurations a connector is built for; edges: any integers, flags 0/1).
bool admits(const std::vector<ParamSpec>& params, GridStyle style, const CaseArgs& args) {
  auto value = [&](const std::string& name) -> const BigInt& {
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (params[i].name == name) return args[i];
    }
    throw std::logic_error("conform grid: unknown parameter " + name);
  };
  for (std::size_t i = 0; i < params.size(); ++i) {
    const ParamSpec& p = params[i];
    const BigInt& v = args[i];
    if (p.kind == ParamKind::Flag && v != 0 && v != 1) return false;
    if (style != GridStyle::ValidOnly) continue;
    std::vector<BigInt> dep;
    for (const auto& d : p.deps) dep.push_back(value(d));
    switch (p.kind) {
      case ParamKind::Flag: break;
      case ParamKind::Size:
        if (v < 1) return false;
        break;
      case ParamKind::Rank:
        if (v < 0 || v >= dep.at(0)) return false;
        break;
      case ParamKind::HeadCount:
        if (v < 1 || !head_compatible_with_all(v, dep)) return false;
        break;
      case ParamKind::WindowMember: {
        const auto w = window_span<BigInt>(dep.at(0), dep.at(1), dep.at(2));
        if (!w.ok() || v < w.value().first || v >= w.value().end) return false;
        break;
      }
      case ParamKind::Partner:
        if (v < 1 || dep.at(0) < 1 || (v % dep[0] != 0 && dep[0] % v != 0) || (p.unequal && v == dep[0])) return false;
        break;
      case ParamKind::Choice:
        if (std::find(p.choices.begin(), p.choices.end(), v) == p.choices.end()) return false;
        break;
    }
  }
  return true;
}

void append_decimal(std::string& out, const BigInt& v) {
  const auto small = narrow(v);  // cpp_int's own printing is far slower
  out += small ? decimal(*small) : decimal(v);
}

void append_values(std::string& out, const std::vector<BigInt>& values) {
  out += '[';
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    append_decimal(out, values[i]);
  }
  out += ']';
}

void append_outer(std::string& out, const std::vector<char>& outer) {
  out += '[';
  for (std::size_t i = 0; i < outer.size(); ++i) out += i ? (outer[i] ? ",1" : ",0") : (outer[i] ? "1" : "0");
  out += ']';
}

}  // namespace

std::string ParamSpec::shown(const BigInt& value) const {
  for (std::size_t i = 0; i < choices.size() && i < labels.size(); ++i) {
    if (value == choices[i]) return labels[i];
  }
  return decimal(value);
}


std::size_t ValuesHash::operator()(const std::vector<BigInt>& key) const {
  std::uint64_t h = key.size();
  for (const BigInt& v : key) h = mix(h, std::hash<std::string>{}(decimal(v)));
  return static_cast<std::size_t>(h);
}

std::size_t ValuesHash::operator()(const std::vector<std::int64_t>& key) const {
  std::uint64_t h = key.size();
  for (const std::int64_t v : key) h = mix(h, static_cast<std::uint64_t>(v));
  return static_cast<std::size_t>(h);
}

void ValueTable::add(std::vector<BigInt> key, ValueList list) {
  if (auto small = narrow_all(key)) {
    small_index.emplace(std::move(*small), entries.size());
  } else {
    big_index.emplace(key, entries.size());
  }
  entries.emplace_back(std::move(key), std::move(list));
}

const ValueList* ValueTable::find(const std::vector<std::int64_t>& key) const {
  const auto it = small_index.find(key);
  return it == small_index.end() ? nullptr : &entries[it->second].second;
}

const ValueList* ValueTable::find(const std::vector<BigInt>& key) const {
  if (auto small = narrow_all(key)) return find(*small);
  const auto it = big_index.find(key);
  return it == big_index.end() ? nullptr : &entries[it->second].second;
}

const ValueList* GridParam::list_for(const std::vector<BigInt>& key) const {
  return deps.empty() ? &values : table.find(key);
}

ParamSpec param_from_model_name(const std::string& name) {
  static const std::map<std::string, std::string> size_of_rank = {
      {"r", "L"}, {"p", "P"}, {"d", "D"}, {"q", "T"}, {"TP_RANK", "TP_SIZE"}};
  if (const auto it = size_of_rank.find(name); it != size_of_rank.end()) return {name, ParamKind::Rank, {it->second}};
  if (name == "H") return {name, ParamKind::HeadCount, {}};
  if (name == "MLA" || name == "PREFILL_ADP" || name == "DECODE_ADP") return {name, ParamKind::Flag, {}};
  return {name, ParamKind::Size, {}};
}

Grid make_grid(const std::vector<ParamSpec>& params, GridStyle style, const GridBounds& bounds,
               const std::vector<CaseArgs>& extra, const std::vector<CaseArgs>& probes) {
  // A rank whose size is not among the parameters (a model operation that
  // takes a rank alone) is a free value.
  std::vector<ParamSpec> own = params;
  for (auto& p : own) {
    std::erase_if(p.deps, [&](const std::string& d) {
      return std::none_of(own.begin(), own.end(), [&](const ParamSpec& q) { return q.name == d; });
    });
    if (p.kind == ParamKind::Rank && p.deps.empty()) p.kind = ParamKind::Size;
  }
  Grid grid;
  grid.arity = own.size();
  grid.blocks.push_back(product_block(own, style, bounds, false));
  if (style == GridStyle::EdgesAndFarOut) grid.blocks.push_back(product_block(own, style, bounds, true));
  GridBlock cases;
  cases.explicit_cases = true;
  std::set<CaseArgs> seen;
  for (const CaseArgs& c : extra) {
    if (c.size() != own.size() || !admits(own, style, c) || block_contains(grid.blocks[0], c)) continue;
    if (seen.insert(c).second) cases.cases.push_back(c);
  }
  if (!cases.cases.empty()) grid.blocks.push_back(std::move(cases));
  GridBlock probe_cases;
  probe_cases.explicit_cases = true;
  for (const CaseArgs& c : probes) {
    if (c.size() == own.size()) probe_cases.cases.push_back(c);
  }
  if (!probe_cases.cases.empty()) grid.blocks.push_back(std::move(probe_cases));
  return grid;
}

namespace {

// The cases of a product block from parameter `level` on, given the values
// of the earlier ones in `bound` (by parameter index). A parameter nothing
// later depends on multiplies; only depended-on ones are walked, so counting
// costs a fraction of enumerating. `inner`: count only inner values.
std::uint64_t count_from(const GridBlock& b, std::size_t level, std::vector<BigInt>& bound, bool inner) {
  if (level == b.params.size()) return 1;
  const GridParam& p = b.params[level];
  std::vector<BigInt> key;
  for (const std::size_t d : p.deps) key.push_back(bound[d]);
  const ValueList* list = p.list_for(key);
  if (list == nullptr) return 0;
  const bool depended_on = std::any_of(b.params.begin() + static_cast<std::ptrdiff_t>(level) + 1, b.params.end(),
                                       [&](const GridParam& q) {
                                         return std::find(q.deps.begin(), q.deps.end(), level) != q.deps.end();
                                       });
  std::uint64_t n = 0;
  if (!depended_on) {
    const std::uint64_t values =
        inner ? static_cast<std::uint64_t>(std::count(list->outer.begin(), list->outer.end(), 0)) : list->values.size();
    return values == 0 ? 0 : values * count_from(b, level + 1, bound, inner);
  }
  for (std::size_t i = 0; i < list->values.size(); ++i) {
    if (inner && list->outer[i]) continue;
    bound[level] = list->values[i];
    n += count_from(b, level + 1, bound, inner);
  }
  return n;
}

}  // namespace

std::uint64_t case_count(const Grid& grid) {
  std::uint64_t n = 0;
  for (const GridBlock& b : grid.blocks) {
    if (b.explicit_cases) {
      n += b.cases.size();
      continue;
    }
    std::vector<BigInt> bound(b.params.size());
    n += count_from(b, 0, bound, false);
    if (b.only_outer) n -= count_from(b, 0, bound, true);  // the cursor skips the all-inner cases
  }
  return n;
}

GridCursor::GridCursor(const Grid& grid)
    : grid_(grid), args_(grid.arity), small_(grid.arity, 0), fits_(grid.arity, 1) {}

void GridCursor::set(std::size_t position, const BigInt& value) {
  args_[position] = value;
  const auto n = narrow(value);
  fits_[position] = n.has_value();
  small_[position] = n.value_or(0);
}

const CaseArgs* GridCursor::next() {
  while (block_ < grid_.blocks.size()) {
    const bool found = started_ ? advance() : enter_block();
    started_ = true;
    if (!found) {
      ++block_;
      started_ = false;
      continue;
    }
    if (grid_.blocks[block_].only_outer && inner_only()) continue;
    return &args_;
  }
  return nullptr;
}

bool GridCursor::enter_block() {
  const GridBlock& b = grid_.blocks[block_];
  at_.assign(std::max<std::size_t>(b.params.size(), 1), 0);
  if (b.explicit_cases) {
    if (b.cases.empty()) return false;
    args_ = b.cases[0];
    return true;
  }
  lists_.assign(b.params.size(), nullptr);
  if (descend(0)) return true;
  return advance();
}

// Sets the levels from `level` on to their first values. On a level with no
// values for the current prefix, leaves `at_` past the end of every level
// below it and returns false, so that advance() moves an earlier level on.
bool GridCursor::descend(std::size_t level) {
  const auto& params = grid_.blocks[block_].params;
  for (std::size_t k = level; k < params.size(); ++k) {
    const GridParam& p = params[k];
    if (p.deps.empty()) {
      lists_[k] = &p.values;
    } else {
      bool small = true;
      small_key_.clear();
      for (const std::size_t d : p.deps) {
        small = small && fits_[params[d].position];
        small_key_.push_back(small_[params[d].position]);
      }
      if (small) {
        lists_[k] = p.table.find(small_key_);
      } else {
        key_.clear();
        for (const std::size_t d : p.deps) key_.push_back(args_[params[d].position]);
        lists_[k] = p.table.find(key_);
      }
    }
    if (lists_[k] == nullptr || lists_[k]->values.empty()) {
      static const ValueList kEmpty;
      for (std::size_t j = k; j < params.size(); ++j) {
        lists_[j] = &kEmpty;
        at_[j] = 0;
      }
      return false;
    }
    at_[k] = 0;
    set(p.position, lists_[k]->values[0]);
  }
  return true;
}

bool GridCursor::advance() {
  const GridBlock& b = grid_.blocks[block_];
  if (b.explicit_cases) {
    if (++at_[0] >= b.cases.size()) return false;
    args_ = b.cases[at_[0]];
    return true;
  }
  std::size_t k = b.params.size();
  while (k > 0) {
    const std::size_t level = k - 1;
    if (++at_[level] >= lists_[level]->values.size()) {
      k = level;
      continue;
    }
    set(b.params[level].position, lists_[level]->values[at_[level]]);
    if (descend(level + 1)) return true;
    k = b.params.size();  // a deeper level had no values: descend() left them exhausted
  }
  return false;
}

bool GridCursor::inner_only() const {
  const auto& params = grid_.blocks[block_].params;
  for (std::size_t k = 0; k < params.size(); ++k) {
    if (lists_[k]->outer[at_[k]]) return false;
  }
  return true;
}

Grid explicit_grid(const Grid& grid) {
  Grid out;
  out.arity = grid.arity;
  GridBlock block;
  block.explicit_cases = true;
  GridCursor cursor(grid);
  while (const CaseArgs* c = cursor.next()) block.cases.push_back(*c);
  out.blocks.push_back(std::move(block));
  return out;
}

std::string grid_json(const Grid& grid) {
  std::string out = "{\"arity\":" + std::to_string(grid.arity) + ",\"blocks\":[";
  for (std::size_t bi = 0; bi < grid.blocks.size(); ++bi) {
    const GridBlock& b = grid.blocks[bi];
    if (bi) out += ',';
    if (b.explicit_cases) {
      out += "{\"cases\":[";
      for (std::size_t i = 0; i < b.cases.size(); ++i) {
        if (i) out += ',';
        append_values(out, b.cases[i]);
      }
      out += "]}";
      continue;
    }
    out += "{\"only_outer\":";
    out += b.only_outer ? "true" : "false";
    out += ",\"params\":[";
    for (std::size_t pi = 0; pi < b.params.size(); ++pi) {
      const GridParam& p = b.params[pi];
      if (pi) out += ',';
      out += "{\"name\":\"" + p.name + "\",\"pos\":" + std::to_string(p.position) + ",\"flag\":" +
             (p.flag ? "true" : "false") + ",\"deps\":[";
      for (std::size_t i = 0; i < p.deps.size(); ++i) out += (i ? "," : "") + std::to_string(p.deps[i]);
      out += "]";
      if (p.deps.empty()) {
        out += ",\"values\":";
        append_values(out, p.values.values);
        if (b.only_outer) {
          out += ",\"outer\":";
          append_outer(out, p.values.outer);
        }
      } else {
        out += ",\"table\":[";
        bool first = true;
        for (const auto& entry : p.table.entries) {
          const auto& [key, list] = entry;
          out += first ? "[" : ",[";
          first = false;
          append_values(out, key);
          out += ',';
          append_values(out, list.values);
          if (b.only_outer) {
            out += ',';
            append_outer(out, list.outer);
          }
          out += ']';
        }
        out += "]";
      }
      out += '}';
    }
    out += "]}";
  }
  return out + "]}";
}

bool smaller_case(const CaseArgs& a, const CaseArgs& b) {
  auto key = [](const CaseArgs& c) {
    BigInt largest = 0, sum = 0;
    for (const auto& v : c) {
      const BigInt m = abs(v);
      largest = std::max(largest, m);
      sum += m;
    }
    return std::make_pair(largest, sum);
  };
  const auto ka = key(a), kb = key(b);
  if (ka != kb) return ka < kb;
  return a < b;
}

}  // namespace tpcheck::conform
