// SPEC §16.6 and §16.7: NIXL's hybrid transfer against the model. The split
// a version derives from the state shapes against §16.1's widths, rows and
// element size; its offsets against the DS page; and what a decode rank
// reads, by the worker rule, judged byte by byte by the state judge
// (state_judge.hpp) on a vLLM page under DS: remote_conv_offsets' rows paired
// with the page's own segments (the SSM state taken from the plan), and the
// worker's descriptors (child/28_nixl_state.py logs them) paired row by row.
#include <algorithm>
#include <map>
#include <string_view>

#include "capture.hpp"
#include "nixl_state.hpp"
#include "tpcheck/conform/judge.hpp"
#include "tpcheck/conform/state_grid.hpp"
#include "tpcheck/conform/state_judge.hpp"
#include "tpcheck/conform/state_offsets.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/state.hpp"
#include "tpcheck/state_bytes.hpp"

namespace tpcheck::conform::nixl {
namespace {

using I = std::int64_t;
using bytes::Side;
using capture::LogLine;
using capture::Value;
using state::state_configs;
using U = units_t<I>;

std::optional<I> int_word(std::string_view w) {
  const Value v = capture::read_value(w);
  if (!v.is_u64() || v.u64 > std::uint64_t{INT64_MAX}) return std::nullopt;
  return static_cast<I>(v.u64);
}

// A flat list or tuple of integers ("(12,3,3)").
std::optional<std::vector<I>> ints_of(std::string_view w) {
  const auto tree = capture::read_int_tree(w);
  return tree ? capture::flat_ints(*tree) : std::nullopt;
}

// A list of (offset, bytes) pairs ("[(0,48),(48,12)]").
std::optional<std::vector<std::pair<I, I>>> pairs_of(std::string_view w) {
  const auto tree = capture::read_int_tree(w);
  if (!tree || !tree->is_list) return std::nullopt;
  std::vector<std::pair<I, I>> out;
  for (const auto& item : tree->items) {
    const auto v = capture::flat_ints(item);
    if (!v || v->size() != 2) return std::nullopt;
    out.emplace_back((*v)[0], (*v)[1]);
  }
  return out;
}

std::string ints_text(const std::vector<I>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + decimal(v[i]);
  return s + ")";
}

std::string segment_names(const state::StateConfig& config) {
  const auto side = state_ownership<I>(I(1), config.dims).value();
  std::string s = "(";
  for (std::size_t i = 0; i < side.segment_count; ++i) s += std::string(i ? ", " : "") + side.conv[i].name;
  return s + ")";
}

// The modelled exceptions a version refuses with (SPEC §16.5: NIXL refuses
// at worker init and at handshake): a refusal, reported, not a deviation.
bool refusal(const LogLine& l) { return is_modelled_exception(l.exception_class); }

// What a raise of a decode rank's calls is: the family refused (its split
// raised NotImplementedError), the sizing refused (another modelled
// exception), or raises:<Class>.
std::string refusal_kind(const LogLine& l) {
  const bool split = l.words.size() > 2 && l.words.back() == "split";
  if (split && l.exception_class == "NotImplementedError") return "refuses_family";
  return refusal(l) ? "refuses_sizing" : "raises:" + l.exception_class;
}

Judgement not_compared_case() {
  Judgement j;
  j.not_compared = true;
  return j;
}

SideBytes<I> side_of(const state::StateConfig& config, I T) {
  return state::state_side(config, T, vllm_ds(config.dims.family)).value();
}

// ---- the split (T, model, layout) ------------------------------------------------

// What SPEC §16.1 gives for T ranks: the rows, the local widths in order,
// the element size, and the (conv, SSM) bytes.
struct Split {
  I rows = 0, e_conv = 0, conv_bytes = 0, ssm_bytes = 0;
  std::vector<I> widths;
  std::string text(const std::string& names) const {
    return "conv_rows " + decimal(rows) + ", widths " + ints_text(widths) + " " + names + ", conv_dtype_size " +
           decimal(e_conv) + ", ssm_sizes (" + decimal(conv_bytes) + ", " + decimal(ssm_bytes) + ")";
  }
};

Split model_split(const state::StateConfig& config, I T) {
  const SideBytes<I> b = side_of(config, T);
  Split s{b.rows, b.e_conv, static_cast<I>(b.conv_bytes), static_cast<I>(b.ssm_bytes), {}};
  for (const auto& seg : b.state.segments()) s.widths.push_back(static_cast<I>(seg.width));
  return s;
}

// "S ds 2 (12,3,3) 2 (120,96)": whether its fields are the model's (the SSM
// sizes only where the record has them).
bool same_split(const LogLine& l, const Split& want) {
  if (l.words.size() != 6) return false;
  const auto rows = int_word(l.words[2]), e = int_word(l.words[4]);
  const auto widths = ints_of(l.words[3]);
  if (!rows || !e || !widths || *rows != want.rows || *e != want.e_conv || *widths != want.widths) return false;
  if (l.words[5] == "-") return true;
  const auto sizes = ints_of(l.words[5]);
  return sizes && *sizes == std::vector<I>{want.conv_bytes, want.ssm_bytes};
}

const std::string kDsAssertion = "3-read requires DS conv state layout";

Judgement judge_split(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  if (actual.status != Actual::Status::Value) return unreadable(actual);
  const auto a = small_args(args);
  if (!a || a->size() != 3 || (*a)[1] < 0 || (*a)[1] >= static_cast<I>(state_configs().size())) {
    return not_compared_case();
  }
  const I T = (*a)[0], layout = (*a)[2];
  const auto& config = state_configs()[static_cast<std::size_t>((*a)[1])];
  if (!state::loads(config, T)) return not_compared_case();
  const Split want = model_split(config, T);
  const std::string names = segment_names(config);
  Judgement j;
  auto add = [&](std::string kind, std::string expected, std::string got) {
    j.findings.push_back({std::move(kind), {}, std::move(expected), std::move(got)});
  };
  bool seen = false;
  for (const LogLine& l : capture::read_log_lines(actual.text)) {
    if (l.words.size() < 2 || l.words[0] != "S") continue;
    seen = true;
    const bool sd = layout == 1;
    if (l.raised) {
      if (l.exception_class == "NotImplementedError") {
        add("refuses_family", "a split, or NotImplementedError for a family the version does not decompose",
            l.exception());
      } else if (!(sd && l.exception_class == "AssertionError" && l.message == kDsAssertion)) {
        add("raises:" + l.exception_class,
            sd ? want.text(names) + ", or AssertionError: " + kDsAssertion : want.text(names), l.exception());
      }
      j.tallies.push_back({"refusals", 1});
      continue;
    }
    j.tallies.push_back({"splits", 1});
    if (!same_split(l, want)) add("wrong_split", want.text(names), l.joined(2));
  }
  if (!seen) add("crashed", "the split's line", actual.text.substr(0, 300));
  return j;
}

// ---- the offsets of the record (T, model) ----------------------------------------

Judgement judge_offsets(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  if (actual.status != Actual::Status::Value) return unreadable(actual);
  const auto a = small_args(args);
  if (!a || a->size() != 2 || (*a)[1] < 0 || (*a)[1] >= static_cast<I>(state_configs().size())) {
    return not_compared_case();
  }
  const I T = (*a)[0];
  const auto& config = state_configs()[static_cast<std::size_t>((*a)[1])];
  if (!state::loads(config, T)) return not_compared_case();
  const SideBytes<I> side = side_of(config, T);
  std::vector<I> proj;
  std::vector<std::pair<I, I>> local;
  for (std::size_t s = 0; s < side.state.segment_count; ++s) {
    proj.push_back(static_cast<I>(side.state.conv[s].width) * side.rows * side.e_conv);
    local.emplace_back(static_cast<I>(conv_byte_at<I>(side, s, U(0), I(0), I(0))), proj.back());
  }
  std::string local_text = "[";
  for (std::size_t i = 0; i < local.size(); ++i) {
    local_text += (i ? ", " : "") + std::string("(") + decimal(local[i].first) + ", " + decimal(local[i].second) + ")";
  }
  local_text += "] (DS offsets " + segment_names(config) + ")";
  Judgement j;
  for (const LogLine& l : capture::read_log_lines(actual.text)) {
    if (l.words.size() < 2 || l.words[0] != "O") continue;
    const bool is_proj = l.words[1] == "proj";
    const std::string want = is_proj ? ints_text(proj) + " bytes " + segment_names(config) : local_text;
    if (l.raised) {
      j.findings.push_back({l.words[1] == "split" && l.exception_class == "NotImplementedError"
                                ? "refuses_family"
                                : "raises:" + l.exception_class,
                            {}, want, std::string(l.words[1]) + ": " + l.exception()});
      continue;
    }
    const bool same = l.words.size() == 3 && (is_proj ? ints_of(l.words[2]) == std::optional(proj)
                                                      : pairs_of(l.words[2]) == std::optional(local));
    if (!same) j.findings.push_back({"wrong_split", {}, want, l.joined(1)});
  }
  j.tallies = {{"sides", 1}};
  return j;
}

// ---- the worker rule ---------------------------------------------------------------

// The sizing of a pair case: both sides' memory under DS, and the ratio
// NIXL's decode side computes (tp_ratio(D, P): D / P, or -(P / D)).
struct Pair {
  I P = 0, D = 0, ratio = 0;
  const state::StateConfig* config = nullptr;
};

std::optional<Pair> pair_of(const CaseArgs& args) {
  const auto c = state::state_case(args);
  if (!c || (c->sizing != state::Sizing::Valid && c->sizing != state::Sizing::Equal)) return std::nullopt;
  return Pair{c->P, c->D, c->D >= c->P ? c->D / c->P : -(c->P / c->D), &state_configs()[c->config]};
}

// The prefill ranks decode rank d reads, and the piece of a local row of
// `length` bytes each fills: SPEC §16.7's worker rule. D >= P: the whole row
// from d // (D/P). P > D: the row split into a = P/D pieces of length // a
// (floor: the remainder is never written), piece j from d*a + j.
struct Piece {
  I p = 0, offset = 0, length = 0;
};
std::vector<Piece> pieces(const Pair& s, I d, I length) {
  if (s.ratio > 0) return {{d / s.ratio, 0, length}};
  const I k = -s.ratio;
  std::vector<Piece> out;
  for (I j = 0; j < k; ++j) out.push_back({d * k + j, j * (length / k), length / k});
  return out;
}

std::vector<I> window_of(const Pair& s, I d) {
  std::vector<I> out;
  for (const Piece& piece : pieces(s, d, 0)) out.push_back(piece.p);
  return out;
}

std::string pair_text(I offset, I length) { return "(" + decimal(offset) + ", " + decimal(length) + ")"; }

// ---- remote_conv_offsets (P, D, model) -------------------------------------------

Judgement judge_remote(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  if (actual.status != Actual::Status::Value) return unreadable(actual);
  const auto s = pair_of(args);
  if (!s) return not_compared_case();
  const auto family = s->config->dims.family;
  const state::StateMemory memory(state::StateLayout{}, *s->config, s->P, s->D, vllm_ds(family), vllm_ds(family));
  FindingSet findings;
  state::StateJudge judge(memory, findings, "", true);
  const auto& dside = memory.side(Side::Decode);
  const std::size_t n = dside.state.segment_count;
  Judgement j;
  std::map<I, std::vector<std::pair<I, I>>> rows;
  bool refused = false;
  for (const LogLine& l : capture::read_log_lines(actual.text)) {
    if (l.words.size() >= 2 && l.words[0] == "F" && l.words[1] == "inline") {
      findings.add("inline_rule", std::nullopt, std::nullopt,
                   "a definition that compares the ratio, or the inline rule of the workers that read it where P > D",
                   "remote_conv_offsets never compares tp_ratio (it is documented for ratios >= 1): where P > D "
                   "each segment is read as proj_bytes // (P/D) at cumulative offsets, the rule of those workers");
      continue;
    }
    if (l.words.size() < 2 || l.words[0] != "R") continue;
    const auto d = int_word(l.words[1]);
    if (!d || *d >= s->D) continue;
    if (l.raised) {
      refused = refused || refusal(l);
      findings.add(refusal_kind(l), std::nullopt, *d, "the offsets d" + decimal(*d) + " reads", l.exception());
      continue;
    }
    const auto got = pairs_of(l.words.back());
    if (!got) {
      findings.add("crashed", std::nullopt, *d, "a list of (offset, bytes)", l.joined(2));
      continue;
    }
    rows[*d] = *got;
  }
  if (refused) {
    // The version refuses the sizing at handshake: nothing is read, nothing judged.
    j.not_compared = true;
    j.findings = findings.take();
    return j;
  }
  std::uint64_t segments = 0;
  for (const auto& [d, got] : rows) {
    if (got.size() != n) {
      findings.add("desc_count_mismatch", std::nullopt, d, decimal(static_cast<I>(n)) + " rows, one per segment",
                   decimal(static_cast<I>(got.size())) + " rows");
    }
    for (std::size_t q = 0; q < std::min(n, got.size()); ++q) {
      const I local_offset = static_cast<I>(conv_byte_at<I>(dside, q, U(0), I(0), I(0)));
      const I local_length = static_cast<I>(dside.state.conv[q].width) * dside.rows * dside.e_conv;
      const auto [offset, length] = got[q];
      for (const Piece& piece : pieces(*s, d, local_length)) {
        if (length != piece.length) {
          findings.add("length_mismatch", piece.p, d,
                       "a row of " + decimal(piece.length) + " bytes for the " + dside.state.conv[q].name +
                           " piece at " + decimal(local_offset + piece.offset),
                       "the row " + pair_text(offset, length));
        }
        for (I region = 0; region < static_cast<I>(memory.entry_count()); ++region) {
          judge.blocks(piece.p, d, region, {{offset, local_offset + piece.offset, std::min(length, piece.length)}}, true);
        }
        ++segments;
      }
    }
    state::judge_plan_part(memory, judge, d, s->P, s->D, StatePart::Ssm);
  }
  judge.finish();
  j.findings = findings.take();
  j.tallies = {{"configurations", 1}, {"decode ranks", rows.size()}, {"segment reads", segments},
               {"decoded bytes", judge.decoded_bytes()}};
  return j;
}

// ---- the worker's descriptors (P, D, model) ----------------------------------------

using Rows = std::vector<std::vector<Value>>;

Rows rows_of(std::string_view text) {
  Rows out;
  if (text == "-") return out;
  while (!text.empty()) {
    const auto semi = text.find(';');
    out.push_back(capture::read_values(text.substr(0, semi)));
    if (semi == std::string_view::npos) break;
    text.remove_prefix(semi + 1);
  }
  return out;
}

// Addresses and lengths of descriptor rows, checked as §14B.5 checks what
// an engine is handed.
class RowValues {
 public:
  explicit RowValues(FindingSet& findings) : findings_(findings) {}

  std::optional<std::uint64_t> address(I p, I d, const Value& v) {
    ++seen_;
    if (v.form == Value::Form::NotInteger) {
      ++non_integer_[{p, d}];
      if (example_.empty()) example_ = v.text;
      return std::nullopt;
    }
    if (!v.is_u64()) {
      findings_.add("address_not_u64", p, d, "addresses in [0, 2^64)", "the address " + v.shown());
      return std::nullopt;
    }
    return v.u64;
  }
  std::optional<std::uint64_t> length(I p, I d, const Value& v) {
    if (v.form == Value::Form::NotInteger) return address(p, d, v);
    if (!v.is_u64() || v.u64 == 0) {
      findings_.add("nonpositive_length", p, d, "a positive length", "a row of length " + v.shown());
      return std::nullopt;
    }
    return v.u64;
  }
  void finish() {
    for (const auto& [pair, count] : non_integer_) {
      findings_.add("non_integer_address", pair.first, pair.second, "integers (addresses, lengths)",
                    decimal(static_cast<I>(count)) + " values are not integers, such as " + example_);
    }
  }

 private:
  FindingSet& findings_;
  std::uint64_t seen_ = 0;
  std::map<std::pair<I, I>, std::uint64_t> non_integer_;
  std::string example_;
};

struct WorkerLog {
  std::map<I, Rows> local;
  std::map<std::pair<I, I>, Rows> remote;  // (d, p)
  std::vector<std::pair<I, LogLine>> raised;  // (d, line) of a method that raised
  std::string composed;
};

WorkerLog read_worker_log(std::string_view text, const Pair& s) {
  WorkerLog out;
  for (const LogLine& l : capture::read_log_lines(text)) {
    if (l.words.size() >= 2 && l.words[0] == "F" && l.words[1] == "composed") {
      out.composed = l.joined(2);
      continue;
    }
    const bool local = l.words[0] == "L", remote = l.words[0] == "W";
    if ((!local && !remote) || l.words.size() < (local ? 2u : 3u)) continue;
    const auto d = int_word(l.words[1]);
    const auto p = remote ? int_word(l.words[2]) : std::optional<I>(0);
    if (!d || !p || *d >= s.D || *p >= s.P) continue;
    if (l.raised) {
      out.raised.emplace_back(*d, l);
    } else if (l.words.size() == (local ? 3u : 4u)) {
      (local ? out.local[*d] : out.remote[{*d, *p}]) = rows_of(l.words.back());
    }
  }
  return out;
}

Judgement judge_worker(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  if (actual.status != Actual::Status::Value) return unreadable(actual);
  const auto s = pair_of(args);
  if (!s) return not_compared_case();
  const auto family = s->config->dims.family;
  const state::StateLayout layout;
  const state::StateMemory memory(layout, *s->config, s->P, s->D, vllm_ds(family), vllm_ds(family));
  FindingSet findings;
  state::StateJudge judge(memory, findings);
  RowValues values(findings);
  const WorkerLog log = read_worker_log(actual.text, *s);
  Judgement j;
  if (!log.composed.empty()) {
    findings.add("composed_rows", std::nullopt, std::nullopt, "the worker's _build_mamba_local and _build_mamba_remote",
                 log.composed);
  }
  bool refused = false;
  for (const auto& [d, l] : log.raised) {
    refused = refused || refusal(l);
    findings.add(refusal_kind(l), std::nullopt, d, "the descriptors d" + decimal(d) + " reads",
                 (l.words.size() > 2 && l.words[2] == "split" ? "split: " : std::string(l.words[0]) + ": ") +
                     l.exception());
  }
  if (refused) {
    j.not_compared = true;
    j.findings = findings.take();
    return j;
  }
  const I layers = static_cast<I>(layout.layers.size());
  const I n_d = layout.decode_slots, n_p = layout.prefill_slots;
  std::uint64_t rows_judged = 0;
  for (const auto& [d, local] : log.local) {
    const I per_layer = static_cast<I>(local.size()) / (layers * n_d);
    if (per_layer == 0 || static_cast<I>(local.size()) % (layers * n_d) != 0) {
      findings.add("desc_count_mismatch", std::nullopt, d,
                   "rows of every (layer, part, block): a multiple of " + decimal(layers * n_d),
                   decimal(static_cast<I>(local.size())) + " local rows");
      continue;
    }
    for (const I p : window_of(*s, d)) {
      const auto found = log.remote.find({d, p});
      if (found == log.remote.end()) continue;
      const Rows& remote = found->second;
      if (static_cast<I>(remote.size()) != per_layer * layers * n_p) {
        findings.add("desc_count_mismatch", p, d,
                     decimal(per_layer * layers * n_p) + " remote rows (" + decimal(per_layer) + " parts of " +
                         decimal(layers) + " layers, " + decimal(n_p) + " blocks), as many parts as the local rows",
                     decimal(static_cast<I>(remote.size())) + " remote rows");
        continue;
      }
      for (I i = 0; i < layers; ++i) {
        for (I q = 0; q < per_layer; ++q) {
          const auto& lrow = local[static_cast<std::size_t>((i * per_layer + q) * n_d + layout.decode_slot)];
          const auto& rrow = remote[static_cast<std::size_t>((i * per_layer + q) * n_p + layout.prefill_slot)];
          if (lrow.size() < 2 || rrow.size() < 2) {
            findings.add("crashed", p, d, "rows of (address, length, device)", "a row of fewer values");
            continue;
          }
          const auto laddr = values.address(p, d, lrow[0]), llen = values.length(p, d, lrow[1]);
          const auto raddr = values.address(p, d, rrow[0]), rlen = values.length(p, d, rrow[1]);
          if (!laddr || !llen || !raddr || !rlen) continue;
          for (const Piece& piece : pieces(*s, d, static_cast<I>(*llen))) {
            if (piece.p != p) continue;
            if (piece.length <= 0) {
              findings.add("nonpositive_length", p, d, "a positive length",
                           "a piece of " + decimal(piece.length) + " bytes of a " + decimal(static_cast<I>(*llen)) +
                               "-byte row split " + decimal(-s->ratio) + " ways");
              continue;
            }
            const auto plen = static_cast<std::uint64_t>(piece.length);
            if (plen != *rlen) {
              findings.add("length_mismatch", p, d,
                           "paired rows of equal length (the local piece is " + decimal(piece.length) + " bytes)",
                           "a remote row of " + decimal(static_cast<I>(*rlen)) + " bytes");
            }
            judge.transfer(p, d, {*raddr, *laddr + static_cast<std::uint64_t>(piece.offset), std::min(plen, *rlen)});
            ++rows_judged;
          }
        }
      }
    }
  }
  judge.finish();
  values.finish();
  j.findings = findings.take();
  j.tallies = {{"configurations", 1}, {"decode ranks", log.local.size()}, {"rows paired", rows_judged},
               {"decoded bytes", judge.decoded_bytes()}};
  return j;
}

const auto info = note_kind;

}  // namespace

state::SideSpec vllm_ds(StateFamily) {
  state::SideSpec s;
  s.container = StateContainer::VllmPage;
  s.order = ConvOrder::DimFirst;
  return s;
}

const std::vector<KindInfo>& state_kinds() {
  static const std::vector<KindInfo> kinds = [] {
    std::vector<KindInfo> k = state::state_kinds();
    for (KindInfo& info : k) {
      if (info.id == "redundant" || info.id == "nondiv:redundant") info.failure = true;
    }
    k.push_back(info("refuses_family", "The version refuses the family",
                     "NIXL refuses the model at worker start-up: its text is reported, not compared"));
    k.push_back(info("refuses_sizing", "The version refuses the sizing",
                     "NIXL refuses the pair at handshake: nothing is read, nothing is judged"));
    k.push_back(info("inline_rule", "Offsets by the workers' inline rule",
                     "the definition is documented for ratios >= 1: where P > D its reads are the inline rule's"));
    k.push_back(info("composed_rows", "Rows composed from the split",
                     "the worker's methods are not in the given files: the rows are the split's offsets by SPEC "
                     "§16.7's rule"));
    return k;
  }();
  return kinds;
}

const Relation kSplit{
    .judge = judge_split,
    .compared_with =
        [](const Binding&) -> std::string {
          return "`conv_rows = L`, the local widths of SPEC §16.1 in order, `conv_dtype_size = e_conv` and (where "
                 "present) `ssm_sizes`: a value off is `wrong_split`; `NotImplementedError` for a family it does not "
                 "decompose (reported); under SD, `AssertionError(\"3-read requires DS conv state layout\")` where the "
                 "version asserts it";
        },
    .findings = true,
};

const Relation kOffsets{
    .judge = judge_offsets,
    .compared_with =
        [](const Binding&) -> std::string {
          return "`proj_bytes` (`x_bytes()`, `b_bytes()`): `width * L * e_conv` per segment; `local_conv_offsets`: "
                 "those at the segments' DS offsets; a value off is `wrong_split`";
        },
    .findings = true,
};

const Relation kRemoteOffsets{
    .judge = judge_remote,
    .compared_with =
        [](const Binding&) -> std::string {
          return "called `(d mod a, a)`, `a = D/P`, for `D >= P` and `(0, -a)`, `a = P/D`, for `P > D`: each row read "
                 "into the decode page's segment by SPEC §16.7's worker rule, byte by byte against `state_plan(d)` "
                 "under DS (SSM from the plan); a definition that never compares the ratio takes the workers' "
                 "inline rule where `P > D`";
        },
    .findings = true,
    .not_compared = "sizings the version refuses with a modelled exception (reported as refuses_sizing)",
};

const Relation kWorker{
    .judge = judge_worker,
    .compared_with =
        [](const Binding&) -> std::string {
          return "`_build_mamba_local` and `_build_mamba_remote` (or rows composed from the split where they are not "
                 "given) paired by SPEC §16.7's worker rule, byte by byte against `state_plan(d)` in a vLLM page under "
                 "DS, memory kinds included";
        },
    .findings = true,
    .not_compared = "sizings the version refuses with a modelled exception (reported as refuses_sizing)",
};

}  // namespace tpcheck::conform::nixl
