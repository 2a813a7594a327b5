// SPEC §14.1-14.5: SGLang's rank mapping and head slices against the model,
// one configuration at a time: the driver of the child answers a line per
// decode rank or per pair (capture.hpp), and each relation reports what it
// finds per pair (p, d), per decode rank (-, d), per prefill rank (p, -) or
// per sizing. In int64: these configurations are small.
#include <algorithm>
#include <map>
#include <set>

#include "capture.hpp"
#include "sglang.hpp"
#include "sglang_terms.hpp"
#include "tpcheck/conform/judge.hpp"
#include "tpcheck/conform/written.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::conform {
namespace {

using I = std::int64_t;
using capture::Item;

std::string ints(const std::vector<I>& v, char open = '[', char close = ']') {
  std::string s(1, open);
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + decimal(v[i]);
  return s + close;
}

// "1 head", "3 heads"; "1 byte of a token", "64 bytes of a token".
std::string units(I n, const std::string& unit) {
  const auto space = unit.find(' ');
  std::string word = unit.substr(0, space);
  if (n == 1 && !word.empty() && word.back() == 's') word.pop_back();
  return decimal(n) + " " + word + (space == std::string::npos ? "" : unit.substr(space));
}

// A configuration's sizes and what the model says each rank holds (§4).
struct Sizing {
  I P = 0, D = 0, H = 1;
  bool divisible() const { return tp_ratio<I>(D, P).ok(); }
  Span<I> prefill(I p) const { return tpcheck::heads<I>(p, P, H).value(); }
  Span<I> decode(I d) const { return tpcheck::heads<I>(d, D, H).value(); }
  std::string kind(const std::string& base) const { return divisible() ? base : "nondiv:" + base; }
  std::string refusal() const {
    return "an error: P=" + decimal(P) + " and D=" + decimal(D) + " do not divide each other (tp_ratio(D, P) fails)";
  }
};

// The driver's items whose coordinates (named `names`: "p", "d") are ranks
// of the sizing; a line that cannot be read, or names a rank that does not
// exist, is a finding.
std::vector<Item> items_of(const Actual& actual, const Sizing& s, const std::vector<std::string>& names,
                           FindingSet& findings) {
  std::size_t malformed = 0;
  auto items = capture::read_items(actual.text, malformed);
  std::erase_if(items, [&](const Item& item) {
    bool ranks = item.coords.size() == names.size();
    for (std::size_t i = 0; ranks && i < names.size(); ++i) {
      const I size = names[i] == "p" ? s.P : s.D;
      ranks = item.coords[i] >= 0 && item.coords[i] < size;
    }
    malformed += ranks ? 0 : 1;
    return !ranks;
  });
  if (malformed) {
    findings.add("crashed", std::nullopt, std::nullopt, "an answer tpcheck can read",
                 decimal(static_cast<I>(malformed)) + " lines of the driver's answer could not be read");
  }
  return items;
}

std::string raised_text(const Item& item) { return item.exception_class + ": " + item.message; }

// §14.1, one decode rank's fields as the driver renders them.
struct Mapping {
  std::vector<I> targets;
  I first = 0, dst_info = 0, responses = 0;
};
std::optional<Mapping> read_mapping(const std::string& value) {
  const auto tree = capture::read_int_tree(value);
  if (!tree || !tree->is_list || tree->items.size() != 4) return std::nullopt;
  const auto targets = capture::flat_ints(tree->items[0]);
  const auto& t = tree->items;
  if (!targets || !t[1].value || !t[2].value || !t[3].value) return std::nullopt;
  return Mapping{*targets, *t[1].value, *t[2].value, *t[3].value};
}

// Per decode rank, the heads (or bytes) its writers covered correctly, in
// global units (head * unit + offset): changes of the count at each point.
using Coverage = std::map<I, std::map<I, I>>;

void cover(Coverage& coverage, I d, I lo, I hi) {
  coverage[d][lo] += 1;
  coverage[d][hi] -= 1;
}

// unwritten and redundant for every decode rank that has writers.
void judge_coverage(const Coverage& coverage, const Sizing& s, I unit, const std::string& unit_name,
                    const std::vector<I>& decode_ranks, FindingSet& findings) {
  for (const I d : decode_ranks) {
    const auto own = s.decode(d);
    const I lo = own.first * unit, hi = own.end * unit;
    static const std::map<I, I> kNone;
    const auto found = coverage.find(d);
    const auto& events = found == coverage.end() ? kNone : found->second;
    I count = 0, missing = 0, twice = 0, at = lo;
    auto it = events.begin();
    for (; it != events.end() && it->first <= lo; ++it) count += it->second;
    std::optional<I> first_missing;
    for (;;) {
      const I next = it != events.end() && it->first < hi ? it->first : hi;
      if (next > at && count == 0) {
        missing += next - at;
        if (!first_missing) first_missing = at;
      }
      if (next > at && count > 1) twice += next - at;
      if (next == hi) break;
      count += it->second;
      at = next;
      ++it;
    }
    const std::string range = "[" + decimal(lo) + ", " + decimal(hi) + ")";
    if (missing) {
      findings.add(s.kind("unwritten"), std::nullopt, d, "d" + decimal(d) + "'s " + unit_name + " " + range + " all written",
                   units(missing, unit_name) + " written by no writer, the first " + decimal(*first_missing));
    }
    if (twice) {
      findings.add("redundant", std::nullopt, d, "each of d" + decimal(d) + "'s " + unit_name + " written once",
                   units(twice, unit_name) + " written by more than one replica");
    }
  }
}

// One copy from p to d, in units (a head, or a byte of a token): where it
// starts in p's heads, how many units, where it starts in d's (SPEC §14.5).
struct SliceCopy {
  I src = 0, count = 0, dst = 0;
};

void judge_copy(const Sizing& s, I p, I d, const SliceCopy& c, I unit, const std::string& expected,
                const std::string& actual, Coverage& coverage, FindingSet& findings) {
  const auto own_p = s.prefill(p), own_d = s.decode(d);
  const I lo = std::max(own_p.first, own_d.first), hi = std::min(own_p.end, own_d.end);
  if (lo >= hi) {
    if (c.count > 0) findings.add("nondiv:copies_unheld_heads", p, d, expected, actual);
    return;
  }
  const I src_units = (own_p.end - own_p.first) * unit, dst_units = (own_d.end - own_d.first) * unit;
  // (Compared without adding first: the values come from code under test.)
  if (c.src < 0 || c.dst < 0 || c.count < 0 || c.src > src_units || c.dst > dst_units || c.count > src_units - c.src ||
      c.count > dst_units - c.dst) {
    findings.add(s.kind("out_of_bounds"), p, d, expected, actual);
    return;
  }
  if (c.count == 0) {
    findings.add(s.kind("partial"), p, d, expected, actual);
    return;
  }
  const I global_src = own_p.first * unit + c.src, global_dst = own_d.first * unit + c.dst;
  if (global_src != global_dst) {
    findings.add(s.kind("wrong_heads"), p, d, expected, actual);
    return;
  }
  cover(coverage, d, global_dst, global_dst + c.count);
  if (c.count < (hi - lo) * unit) findings.add(s.kind("partial"), p, d, expected, actual);
}

// The expected copy of p to d in units, and its canonical text.
SliceCopy expected_copy(const Sizing& s, I p, I d, I unit) {
  const auto own_p = s.prefill(p), own_d = s.decode(d);
  const I lo = std::max(own_p.first, own_d.first), hi = std::min(own_p.end, own_d.end);
  if (lo >= hi) return {0, 0, 0};
  return {(lo - own_p.first) * unit, (hi - lo) * unit, (lo - own_d.first) * unit};
}

// The decode ranks whose coverage is judged: all of them, unless the
// sizing is not divisible and every call refused it (then nothing was sent).
std::vector<I> decode_ranks(const Sizing& s, const std::vector<Item>& items) {
  const bool accepted =
      s.divisible() || std::any_of(items.begin(), items.end(), [](const Item& item) { return !item.raised; });
  std::vector<I> out;
  for (I d = 0; accepted && d < s.D; ++d) out.push_back(d);
  return out;
}

// A sizing that is not divisible, answered with values: accepts_invalid,
// once, with the first answer ("p=0 d=1: (0,1,0,1)"). `names`: the items' coordinates.
void accepts_invalid(const Sizing& s, const std::vector<Item>& items, const std::vector<std::string>& names,
                     FindingSet& findings) {
  for (const auto& item : items) {
    if (item.raised) continue;
    std::string where;
    for (std::size_t i = 0; i < item.coords.size() && i < names.size(); ++i) {
      where += (i ? " " : "") + names[i] + "=" + decimal(item.coords[i]);
    }
    findings.add("accepts_invalid", std::nullopt, std::nullopt, s.refusal(), where + ": " + item.value);
    return;
  }
}


// What every relation of §14 starts from: the sizing, the driver's items (a
// line it could not read is a finding), and accepts_invalid when the sizing
// is not divisible and some call answered.
struct Configuration {
  std::vector<I> args;
  Sizing s;
  FindingSet findings;
  std::vector<Item> items;
};

// nullopt, with `j` the judgement to return, when the configuration is not
// judged here: its driver did not answer, or its sizes do not fit int64.
std::optional<Configuration> open_configuration(const CaseArgs& args, const Actual& actual, std::size_t arity,
                                                bool has_heads, const std::vector<std::string>& coordinates,
                                                Judgement& j) {
  if (actual.status != Actual::Status::Value) {
    j = unreadable(actual);
    return std::nullopt;
  }
  const auto a = small_args(args);
  if (!a || a->size() != arity) {
    j.not_compared = true;
    return std::nullopt;
  }
  Configuration c;
  c.args = *a;
  c.s = {c.args[0], c.args[1], has_heads ? c.args[2] : 1};
  if (!head_compatible<I>(c.s.P, c.s.H) || !head_compatible<I>(c.s.D, c.s.H)) {
    j.not_compared = true;  // outside what the model shards (the grid has none)
    return std::nullopt;
  }
  c.items = items_of(actual, c.s, coordinates, c.findings);
  if (!c.s.divisible()) accepts_invalid(c.s, c.items, coordinates, c.findings);
  return c;
}

// What _resolve_rank_mapping must write for decode rank d of a divisible
// sizing (§14.1): its targets, the registrations each prefill rank waits
// for, the completions d waits for.
struct MappingWanted {
  std::vector<I> targets;
  I dst_info = 0;
  I responses = 0;
};
MappingWanted mapping_wanted(const Sizing& s, I d, bool mla) {
  const auto window = tpcheck::window<I>(d, s.D, s.P).value();
  return {window, std::max<I>(1, s.D / s.P), mla ? 1 : static_cast<I>(window.size())};
}

Judgement judge_rank_mapping(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  Judgement j;
  auto c = open_configuration(args, actual, 3, false, {"d"}, j);
  if (!c) return j;
  const Sizing& s = c->s;
  const bool mla = c->args[2] != 0;
  FindingSet& findings = c->findings;
  const auto& items = c->items;
  if (!s.divisible()) {
    // What the mapping then does (§14.1's nondiv kinds), from the decode ranks that answered.
    std::map<I, I> registrations;        // prefill rank -> decode ranks registering with it
    std::map<I, std::set<I>> announced;  // prefill rank -> the counts those decode ranks send it
    for (const auto& item : items) {
      if (item.raised || item.coords.size() != 1) continue;
      const I d = item.coords[0];
      const auto m = read_mapping(item.value);
      if (!m) continue;
      for (const I p : m->targets) {
        if (p < 0 || p >= s.P) {
          findings.add("nondiv:targets_missing_prefill_rank", std::nullopt, d, "targets in [0, " + decimal(s.P) + ")",
                       "d" + decimal(d) + " targets " + ints(m->targets));
          continue;
        }
        ++registrations[p];
        announced[p].insert(m->dst_info);
      }
    }
    if (registrations.empty()) {
      j.findings = findings.take();
      return j;
    }
    for (I p = 0; p < s.P; ++p) {
      if (!registrations.count(p)) {
        findings.add("nondiv:untargeted_prefill_ranks", p, std::nullopt, "every prefill rank targeted",
                     "p" + decimal(p) + " is in no decode rank's targets: it never receives a registration");
        continue;
      }
      for (const I count : announced[p]) {
        if (count == registrations[p]) continue;
        findings.add("nondiv:registration_count_mismatch", p, std::nullopt,
                     decimal(registrations[p]) + " registrations announced (as many as arrive)",
                     "p" + decimal(p) + " is told to wait for " + decimal(count) + " and receives " +
                         decimal(registrations[p]));
        break;
      }
    }
    j.findings = findings.take();
    return j;
  }
  for (const auto& item : items) {
    if (item.coords.size() != 1) continue;
    const I d = item.coords[0];
    const auto [window, dst_info, responses] = mapping_wanted(s, d, mla);
    const std::string expected = "(" + ints(window) + "," + decimal(window[0]) + "," + decimal(dst_info) + "," +
                                 decimal(responses) + ")";
    if (item.raised) {
      findings.add("rejects_valid", std::nullopt, d, expected, raised_text(item));
      continue;
    }
    const auto m = read_mapping(item.value);
    if (!m) {
      findings.add("wrong_target_tp_ranks", std::nullopt, d, expected, item.value);
      continue;
    }
    if (m->targets != window) findings.add("wrong_target_tp_ranks", std::nullopt, d, expected, item.value);
    if (m->first != window[0]) findings.add("wrong_target_tp_rank", std::nullopt, d, expected, item.value);
    if (m->dst_info != dst_info) findings.add("wrong_required_dst_info_num", std::nullopt, d, expected, item.value);
    if (m->responses != responses) {
      findings.add("wrong_required_prefill_response_num", std::nullopt, d, expected, item.value);
    } else if (mla && s.P > s.D && m->responses == 1) {
      findings.add("mla_count_vs_notifying_dummies", std::nullopt, d,
                   decimal(static_cast<I>(window.size())) + " where dummy prefill ranks notify too (MORI)",
                   "1: the first of " + decimal(static_cast<I>(window.size())) + " completions releases d" + decimal(d));
    }
  }
  j.findings = findings.take();
  return j;
}

Judgement judge_head_slice(const CaseArgs& args, const Actual& actual, bool as_run) {
  Judgement j;
  auto c = open_configuration(args, actual, 3, true, {"p", "d"}, j);
  if (!c) return j;
  const Sizing& s = c->s;
  FindingSet& findings = c->findings;
  const auto& items = c->items;
  Coverage coverage;
  for (const auto& item : items) {
    if (item.coords.size() != 2) continue;
    const I p = item.coords[0], d = item.coords[1];
    const SliceCopy want = expected_copy(s, p, d, 1);
    const std::string expected = "(" + decimal(want.src) + "," + decimal(want.count) + "," + decimal(want.dst) + "," +
                                 decimal(want.count) + ")";
    if (item.raised) {
      if (s.divisible()) findings.add("raises", p, d, expected, raised_text(item));
      continue;
    }
    // Documented: one call's tuple. As run: the prefill call's start with the decode call's count and offset.
    const auto bar = item.value.find(';');
    const auto first = capture::read_int_tree(item.value.substr(0, bar));
    const auto doc = first ? capture::flat_ints(*first) : std::nullopt;
    std::optional<std::vector<I>> dec = doc;
    if (as_run) {
      const auto second = bar == std::string::npos ? std::nullopt : capture::read_int_tree(item.value.substr(bar + 1));
      dec = second ? capture::flat_ints(*second) : std::nullopt;
    }
    if (!doc || doc->size() != 4 || !dec || dec->size() != 4) {
      findings.add(s.kind("wrong_heads"), p, d, expected, item.value);
      continue;
    }
    if (!as_run && (*doc)[1] != (*doc)[3]) findings.add(s.kind("inconsistent_counts"), p, d, expected, item.value);
    if (as_run && (*doc)[1] != (*dec)[1]) findings.add(s.kind("size_mismatch"), p, d, expected, item.value);
    const SliceCopy got{(*doc)[0], (*dec)[1], (*dec)[2]};
    const std::string shown = as_run ? "(" + decimal(got.src) + "," + decimal(got.count) + "," + decimal(got.dst) + "," +
                                           decimal(got.count) + ") from the prefill call " + ints(*doc, '(', ')') +
                                           " and the decode call " + ints(*dec, '(', ')')
                                     : item.value;
    judge_copy(s, p, d, got, 1, expected, shown, coverage, findings);
  }
  judge_coverage(coverage, s, 1, "heads", decode_ranks(s, items), findings);
  j.findings = findings.take();
  return j;
}

// d's staging region (§14.3): one slot per writer, in the order of its
// senders, each the writer's copy for every token, layer, K and V.
std::vector<I> staging_slots(const Sizing& s, I d) {
  std::vector<I> slots;
  for (const I p : sglang::senders(d, s.P, s.D)) {
    const I heads = p >= 0 && p < s.P ? expected_copy(s, p, d, 1).count : 0;
    slots.push_back(sglang::kStagingTokens * heads * kBytesPerHead * sglang::kStagingLayers * 2);
  }
  return slots;
}

Judgement judge_staging_layout(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  Judgement j;
  auto c = open_configuration(args, actual, 3, true, {"d"}, j);
  if (!c) return j;
  const Sizing& s = c->s;
  FindingSet& findings = c->findings;
  for (const auto& item : c->items) {
    if (item.coords.size() != 1) continue;
    const I d = item.coords[0];
    const std::vector<I> slots = staging_slots(s, d);
    I total = 0;
    for (const I slot : slots) total += slot;
    const std::string expected =
        "(" + decimal(static_cast<I>(slots.size())) + "," + ints(slots) + "," + decimal(total) + ")";
    if (item.raised) {
      if (s.divisible()) findings.add("raises", std::nullopt, d, expected, raised_text(item));
      continue;
    }
    if (item.value != expected) findings.add(s.kind("wrong_layout"), std::nullopt, d, expected, item.value);
  }
  j.findings = findings.take();
  return j;
}

// MORI's TPSliceConfig for the pair (§14.4), in its field order: page_size,
// src_item_len, dst_item_len, bytes_per_token_src, bytes_per_token_dst,
// src_head_slice_offset, dst_head_slice_offset, heads_bytes_per_token_to_send.
std::vector<I> slice_config_wanted(const Sizing& s, I p, I d, I page_size) {
  const I B = kBytesPerHead;
  const I np = s.prefill(p).end - s.prefill(p).first, nd = s.decode(d).end - s.decode(d).first;
  const SliceCopy want = expected_copy(s, p, d, B);
  return {page_size, page_size * np * B, page_size * nd * B, np * B, nd * B, want.src, want.dst, want.count};
}

Judgement judge_slice_config(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  Judgement j;
  auto c = open_configuration(args, actual, 4, true, {"p", "d"}, j);
  if (!c) return j;
  const Sizing& s = c->s;
  const I page_size = c->args[3];
  const I B = kBytesPerHead;
  FindingSet& findings = c->findings;
  const auto& items = c->items;
  Coverage coverage;
  for (const auto& item : items) {
    if (item.coords.size() != 2) continue;
    const I p = item.coords[0], d = item.coords[1];
    const std::vector<I> fields = slice_config_wanted(s, p, d, page_size);
    const std::string expected = ints(fields, '(', ')');
    if (item.raised) {
      if (s.divisible()) findings.add("raises", p, d, expected, raised_text(item));
      continue;
    }
    const auto tree = capture::read_int_tree(item.value);
    const auto got = tree ? capture::flat_ints(*tree) : std::nullopt;
    if (!got || got->size() != 8) {
      findings.add(s.kind("wrong_layout"), p, d, expected, item.value);
      continue;
    }
    if (!std::equal(fields.begin(), fields.begin() + 5, got->begin())) {
      findings.add(s.kind("wrong_layout"), p, d, expected, item.value);
    }
    // (src_head_slice_offset, dst_head_slice_offset, heads_bytes_per_token_to_send)
    judge_copy(s, p, d, {(*got)[5], (*got)[7], (*got)[6]}, B, expected, item.value, coverage, findings);
  }
  judge_coverage(coverage, s, B, "bytes of a token", decode_ranks(s, items), findings);
  j.findings = findings.take();
  return j;
}

// --- written tests: the calls of a configuration and the model's outcome of each ---

std::string python_ints(const std::vector<I>& v) {
  std::vector<std::string> items;
  for (const I x : v) items.push_back(decimal(x));
  return python_list(items);
}

std::string python_ints_tuple(const std::vector<I>& v) {
  std::vector<std::string> items;
  for (const I x : v) items.push_back(decimal(x));
  return python_tuple(items);
}

// The sizing of a configuration whose calls a written test makes, or nullopt.
std::optional<Sizing> written_sizing(const CaseArgs& args, bool has_heads) {
  const auto a = small_args(args);
  if (!a || a->size() < 3) return std::nullopt;
  const Sizing s{(*a)[0], (*a)[1], has_heads ? (*a)[2] : 1};
  if (s.P < 1 || s.D < 1 || !head_compatible<I>(s.P, s.H) || !head_compatible<I>(s.D, s.H)) return std::nullopt;
  return s;
}

// SGLang's pairing (the profile's driver): every d, each sender p < P.
std::vector<std::pair<I, I>> pairs_of(const Sizing& s) {
  std::vector<std::pair<I, I>> out;
  for (I d = 0; d < s.D; ++d) {
    for (const I p : sglang::senders(d, s.P, s.D)) {
      if (p < s.P) out.emplace_back(p, d);
    }
  }
  return out;
}

// A call per decode rank: the literal `wanted` gives for it, or a refusal
// where the sizing is not divisible.
template <class Wanted>
std::vector<WrittenItem> per_decode_rank(const Sizing& s, const Wanted& wanted) {
  std::vector<WrittenItem> out;
  for (I d = 0; d < s.D; ++d) out.push_back({{d}, s.divisible() ? expected_value(wanted(d)) : expected_refusal()});
  return out;
}

std::vector<WrittenItem> rank_mapping_items(const Binding&, std::size_t, const CaseArgs& args, const Actual*) {
  const auto s = written_sizing(args, false);
  if (!s) return {};
  return per_decode_rank(*s, [&](I d) {
    const auto [targets, dst_info, responses] = mapping_wanted(*s, d, args[2] != 0);
    return python_tuple({python_ints(targets), decimal(targets[0]), decimal(dst_info), decimal(responses)});
  });
}

std::vector<WrittenItem> head_slice_items(const Binding&, std::size_t, const CaseArgs& args, const Actual*) {
  const auto s = written_sizing(args, true);
  if (!s) return {};
  std::vector<WrittenItem> out;
  for (const auto& [p, d] : pairs_of(*s)) {
    const SliceCopy c = expected_copy(*s, p, d, 1);
    out.push_back({{p, d}, s->divisible() ? expected_value(python_ints_tuple({c.src, c.count, c.dst, c.count}))
                                          : expected_refusal()});
  }
  return out;
}

std::vector<WrittenItem> staging_layout_items(const Binding&, std::size_t, const CaseArgs& args, const Actual*) {
  const auto s = written_sizing(args, true);
  if (!s) return {};
  return per_decode_rank(*s, [&](I d) {
    const std::vector<I> slots = staging_slots(*s, d);
    I total = 0;
    for (const I slot : slots) total += slot;
    return python_tuple({decimal(static_cast<I>(slots.size())), python_ints(slots), decimal(total)});
  });
}

std::vector<WrittenItem> slice_config_items(const Binding&, std::size_t, const CaseArgs& args, const Actual*) {
  const auto s = written_sizing(args, true);
  const auto a = small_args(args);
  if (!s || a->size() != 4) return {};
  std::vector<WrittenItem> out;
  for (const auto& [p, d] : pairs_of(*s)) {
    out.push_back({{p, d}, s->divisible() ? expected_value(python_ints_tuple(slice_config_wanted(*s, p, d, (*a)[3])))
                                          : expected_refusal()});
  }
  return out;
}

}  // namespace

const Relation kRankMapping{
    .judge = judge_rank_mapping,
    .compared_with =
        [](const Binding&) -> std::string {
          return "for every `d`: `target_tp_ranks` is `window(d, D, P)`, `target_tp_rank` its first, "
                 "`required_dst_info_num` `max(1, D/P)`, `required_prefill_response_num` its writers (1 under MLA); a "
                 "pair that is not divisible is refused (SPEC §14.1)";
        },
    .findings = true,
    .test_items = rank_mapping_items,
    .test_coords = {"d"},
};

const Relation kHeadSliceDocumented{
    .judge = [](const Binding&, std::size_t, const CaseArgs& args,
                const Actual& actual) { return judge_head_slice(args, actual, false); },
    .compared_with =
        [](const Binding&) -> std::string {
          return "for every pair SGLang forms: the copy of `p` to `d`, the heads both hold (SPEC §14.2)";
        },
    .findings = true,
    .test_items = head_slice_items,
    .test_coords = {"p", "d"},
};

const Relation kHeadSliceAsRun{
    .judge = [](const Binding&, std::size_t, const CaseArgs& args,
                const Actual& actual) { return judge_head_slice(args, actual, true); },
    .compared_with =
        [](const Binding&) -> std::string {
          return "for every pair: the prefill call's start with the decode call's count and offset is the copy of `p` "
                 "to `d` (SPEC §14.2)";
        },
    .findings = true,
    .test_items = head_slice_items,
    .test_coords = {"p", "d"},
};

const Relation kStagingLayout{
    .judge = judge_staging_layout,
    .compared_with =
        [](const Binding&) -> std::string {
          return "for every `d`: a slot per writer, of the writer's copy for every token, layer, K and V (SPEC §14.3)";
        },
    .findings = true,
    .test_items = staging_layout_items,
    .test_coords = {"d"},
};

const Relation kSliceConfig{
    .judge = judge_slice_config,
    .compared_with =
        [](const Binding&) {
          return "for every pair: the page and token sizes, and the copy of `p` to `d` in bytes (" +
                 std::to_string(kBytesPerHead) + " per head) (SPEC §14.4)";
        },
    .findings = true,
    .test_items = slice_config_items,
    .test_coords = {"p", "d"},
};

}  // namespace tpcheck::conform
