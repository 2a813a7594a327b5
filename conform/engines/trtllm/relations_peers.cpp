// SPEC §15.1: TensorRT-LLM's Python transceiver (peer.py, block.py) against
// the model, one configuration at a time: _find_overlap against §3's window,
// _compute_head_offsets against §6's copy offsets, and a deployment's log
// (child/27_peers.py) against the stage model of §15.4: the
// registrations, the ranks each side asks and waits for, and the bytes the
// block mappers copy, decoded on both sides by the byte judge
// (byte_judge.hpp) on TensorRT-LLM's block layout (§15.0).
#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "capture.hpp"
#include "cxx/trtllm_judge.hpp"
#include "peer_terms.hpp"
#include "tpcheck/conform/byte_judge.hpp"
#include "tpcheck/conform/judge.hpp"
#include "tpcheck/conform/written.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/pyint.hpp"
#include "tpcheck/render.hpp"
#include "tpcheck/stages.hpp"
#include "trtllm.hpp"

namespace tpcheck::conform {
namespace {

using I = std::int64_t;
using capture::Item;
using capture::Value;

std::string ints(const std::vector<I>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + decimal(v[i]);
  return s + "]";
}

std::string values_shown(const std::vector<Value>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].shown();
  return s + "]";
}

// Items of an each driver with `arity` coordinates; the others are a finding.
std::vector<Item> items_of(const Actual& actual, std::size_t arity, FindingSet& findings) {
  std::size_t malformed = 0;
  auto items = capture::read_items(actual.text, malformed);
  std::erase_if(items, [&](const Item& item) {
    const bool bad = item.coords.size() != arity;
    malformed += bad ? 1 : 0;
    return bad;
  });
  if (malformed) {
    findings.add("crashed", std::nullopt, std::nullopt, "an answer tpcheck can read",
                 decimal(static_cast<I>(malformed)) + " lines of the driver's answer could not be read");
  }
  return items;
}

std::string raised_text(const Item& item) { return item.exception_class + ": " + item.message; }

// (L, R): for every r, (overlap, start, end) with range(start, end) = window(r, L, R).
Judgement judge_peer_find_overlap(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  if (actual.status != Actual::Status::Value) return unreadable(actual);
  Judgement j;
  const auto a = small_args(args);
  if (!a || a->size() != 2) {
    j.not_compared = true;
    return j;
  }
  const I L = (*a)[0], R = (*a)[1];
  FindingSet findings;
  for (const Item& item : items_of(actual, 1, findings)) {
    const I r = item.coords[0];
    const auto want = window<I>(r, L, R);
    const std::string call = "_find_overlap(" + decimal(L) + ", " + decimal(R) + ", " + decimal(r) + ")";
    if (item.raised) {
      if (want.ok()) findings.add("rejects_valid", r, std::nullopt, ints(want.value()), call + " raised " + raised_text(item));
      continue;
    }
    const auto tree = capture::read_int_tree(item.value);
    const auto got = tree ? capture::flat_ints(*tree) : std::nullopt;
    const std::string shown = call + " = " + item.value;
    if (!want.ok()) findings.add("accepts_invalid", r, std::nullopt, render(want.failure()), shown);
    if (!got || got->size() != 3) {
      findings.add(want.ok() ? "wrong_ranks" : "crashed", r, std::nullopt, "(overlap, start, end)", shown);
      continue;
    }
    const I overlap = (*got)[0], start = (*got)[1], end = (*got)[2];
    if (start < 0 || end > R) findings.add("out_of_range", r, std::nullopt, "ranks in [0, " + decimal(R) + ")", shown);
    if (!want.ok()) continue;
    const auto& w = want.value();
    const I first = w.empty() ? 0 : w.front();
    const bool same = start == first && end == first + static_cast<I>(w.size()) && overlap == static_cast<I>(w.size());
    if (!same) {
      findings.add("wrong_ranks", r, std::nullopt,
                   "(" + decimal(static_cast<I>(w.size())) + ", " + decimal(first) + ", " +
                       decimal(first + static_cast<I>(w.size())) + "): window " + ints(w),
                   shown);
    }
  }
  j.findings = findings.take();
  j.tallies = {{"configurations", 1}};
  return j;
}

// (P, D, H): for every pair that shares heads, the byte offsets of §6's copy.
Judgement judge_peer_head_offsets(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  if (actual.status != Actual::Status::Value) return unreadable(actual);
  Judgement j;
  const auto a = small_args(args);
  if (!a || a->size() != 3 || !head_compatible<I>((*a)[0], (*a)[2]) || !head_compatible<I>((*a)[1], (*a)[2])) {
    j.not_compared = true;
    return j;
  }
  const I P = (*a)[0], D = (*a)[1], H = (*a)[2], B = peers::kBlocks.head_bytes();
  FindingSet findings;
  std::uint64_t pairs = 0;
  for (const Item& item : items_of(actual, 2, findings)) {
    const I p = item.coords[0], d = item.coords[1];
    if (p < 0 || p >= P || d < 0 || d >= D) continue;
    ++pairs;
    const auto own_p = heads<I>(p, P, H).value(), own_d = heads<I>(d, D, H).value();
    const I lo = std::max(own_p.first, own_d.first);
    const std::string want = "(" + decimal((lo - own_p.first) * B) + ", " + decimal((lo - own_d.first) * B) + ")";
    const std::string call = "_compute_head_offsets(" + decimal(P) + ", " + decimal(D) + ", " + decimal(p) + ", " +
                             decimal(d) + ", " + decimal(std::min(H / P, H / D) * B) + ")";
    if (item.raised) {
      findings.add("mapper_error", p, d, want, call + " raised " + raised_text(item));
      continue;
    }
    const auto tree = capture::read_int_tree(item.value);
    const auto got = tree ? capture::flat_ints(*tree) : std::nullopt;
    if (!got || got->size() != 2 || (*got)[0] != (lo - own_p.first) * B || (*got)[1] != (lo - own_d.first) * B) {
      findings.add("misplaced", p, d, want + ": heads from " + decimal(lo) + " at the same place on both sides",
                   call + " = " + item.value);
    }
  }
  j.findings = findings.take();
  j.tallies = {{"configurations", 1}, {"pairs", pairs}};
  return j;
}

// --- a deployment's log ------------------------------------------------------------

struct Overlap {
  bool raised = false;
  std::string exception;
  std::vector<Value> ranks;
  Value dup, peer_dup;
};

struct MapCopies {
  bool raised = false;
  std::string exception;
  std::string skipped;  // get_kv_map chose a mapper that cannot run: "HeadMismatchMapper needs numpy"
  std::vector<bytes::Transfer> copies;
  std::vector<std::string> unreadable;  // values that are not addresses or lengths
};

struct Registration {
  std::string side, probe;
  I self = 0, peer = 0;
  bool ok = false;
  std::string exception;
};

struct PeerLog {
  std::vector<Registration> registrations;
  std::map<I, Overlap> gen;                  // gen rank -> its overlap with the ctx instance
  std::map<std::pair<I, I>, Overlap> ctx;    // (ctx rank, gen rank) -> the ctx rank's overlap
  std::map<std::pair<I, I>, MapCopies> maps;  // (ctx rank, gen rank) -> what get_kv_map's mapper copies
  std::size_t malformed = 0;
};

std::vector<std::string_view> words_of(std::string_view line, std::string_view& rest) {
  std::vector<std::string_view> out;
  rest = {};
  while (!line.empty()) {
    const auto space = line.find(' ');
    const auto word = line.substr(0, space);
    if (!word.empty() && word.front() == '!') {
      rest = line.substr(1);
      break;
    }
    if (!word.empty()) out.push_back(word);
    if (space == std::string_view::npos) break;
    line.remove_prefix(space + 1);
  }
  return out;
}

// "Class|message" as "Class: message".
std::string exception_of(std::string_view rest) {
  const auto bar = rest.find('|');
  if (bar == std::string_view::npos) return std::string(rest);
  return std::string(rest.substr(0, bar)) + ": " + std::string(rest.substr(bar + 1));
}

std::optional<I> rank_word(std::string_view w) {
  const Value v = capture::read_value(w);
  if (!v.is_u64() || v.u64 > std::uint64_t{INT64_MAX}) return std::nullopt;
  return static_cast<I>(v.u64);
}

bool read_overlap(const std::vector<std::string_view>& w, std::size_t at, std::string_view rest, Overlap& o) {
  if (!rest.empty() && w.size() == at) {
    o.raised = true;
    o.exception = exception_of(rest);
    return true;
  }
  if (w.size() != at + 3 || !rest.empty()) return false;
  o.ranks = capture::read_values(w[at]);
  o.dup = capture::read_value(w[at + 1]);
  o.peer_dup = capture::read_value(w[at + 2]);
  return true;
}

PeerLog read_peer_log(std::string_view text) {
  PeerLog log;
  while (!text.empty()) {
    const auto end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (line.empty()) continue;
    std::string_view rest;
    const auto w = words_of(line, rest);
    bool ok = false;
    if (!w.empty() && w[0] == "R" && w.size() >= 5) {
      const auto self = rank_word(w[2]), peer = rank_word(w[3]);
      Registration r{std::string(w[1]), std::string(w[4]), self.value_or(0), peer.value_or(0),
                     w.size() == 6 && w[5] == "ok", exception_of(rest)};
      ok = self && peer && (r.ok || (w.size() == 5 && !rest.empty()));
      if (ok) log.registrations.push_back(std::move(r));
    } else if (!w.empty() && w[0] == "G" && w.size() >= 2) {
      const auto gen = rank_word(w[1]);
      Overlap o;
      ok = gen && read_overlap(w, 2, rest, o);
      if (ok) log.gen[*gen] = std::move(o);
    } else if (!w.empty() && w[0] == "X" && w.size() >= 3) {
      const auto ctx = rank_word(w[1]), gen = rank_word(w[2]);
      Overlap o;
      ok = ctx && gen && read_overlap(w, 3, rest, o);
      if (ok) log.ctx[{*ctx, *gen}] = std::move(o);
    } else if (!w.empty() && w[0] == "M" && w.size() >= 3) {
      const auto ctx = rank_word(w[1]), gen = rank_word(w[2]);
      ok = ctx && gen;
      if (ok) {
        MapCopies& m = log.maps[{*ctx, *gen}];
        if (!rest.empty() && w.size() == 3) {
          m.raised = true;
          m.exception = exception_of(rest);
        } else if (w.size() == 6 && w[3] == "skip" && rest.empty()) {
          m.skipped = std::string(w[4]) + " needs " + std::string(w[5]);
        } else if (w.size() == 6 && rest.empty()) {
          // One region pair: zip(src ptrs, dst ptrs), each of the source's bytes_per_region.
          const Value length = capture::read_value(w[3]);
          const auto src = capture::read_values(w[4]), dst = capture::read_values(w[5]);
          if (!length.is_u64()) m.unreadable.push_back("bytes_per_region " + length.shown());
          for (std::size_t k = 0; k < std::min(src.size(), dst.size()); ++k) {
            if (!src[k].is_u64() || !dst[k].is_u64()) {
              m.unreadable.push_back("pointers " + src[k].shown() + ", " + dst[k].shown());
            } else if (length.is_u64()) {
              m.copies.push_back({src[k].u64, dst[k].u64, length.u64});
            }
          }
        } else {
          ok = w.size() == 4 && w[3] == "none" && rest.empty();
        }
      }
    }
    log.malformed += ok ? 0 : 1;
  }
  return log;
}

// A deployment: the case's sides (trtllm_judge.hpp's, shared with the C++
// half), MLA, and the model's topology of it.
struct PeerDeployment {
  tpcheck_trtllm::Deployment dep;
  bool mla = false;
  Topology<I> topology;
  I P() const { return dep.ctx.tp; }
  I D() const { return dep.gen.tp; }
  I ctx_group_size() const { return dep.ctx.tp_per_group(); }
  I gen_group_size() const { return dep.gen.tp_per_group(); }
  bool ctx_exists(I r) const { return r >= 0 && r < dep.ctx.ranks(); }
  bool serves(I r) const { return (r % P()) / ctx_group_size() == dep.serving_group; }
  std::vector<I> gen_ranks() const {
    std::vector<I> out;
    for (int d = 0; d < dep.gen.ranks(); ++d) {
      if (tpcheck_trtllm::asks(dep, d)) out.push_back(d);
    }
    return out;
  }
  std::vector<I> ctx_ranks() const {
    std::vector<I> out;
    for (int p = 0; p < dep.ctx.ranks(); ++p) {
      if (serves(p)) out.push_back(p);
    }
    return out;
  }
};

std::optional<PeerDeployment> deployment_of(const Binding& b, const CaseArgs& args) {
  std::vector<long long> values;
  for (const BigInt& a : args) {
    const auto v = narrow(a);
    if (!v || *v < 0 || *v > 99999) return std::nullopt;
    values.push_back(*v);
  }
  PeerDeployment d;
  int rank = 0;
  d.dep = tpcheck_trtllm::deployment_of(b.param_names(), values, rank);
  const auto names = b.param_names();
  const auto mla = std::find(names.begin(), names.end(), "MLA");
  d.mla = mla != names.end() && values[static_cast<std::size_t>(mla - names.begin())] != 0;
  auto layers = [](const tpcheck_trtllm::Side& s) {
    std::vector<I> out(s.stage_layers.begin(), s.stage_layers.end());
    return out;
  };
  d.topology = {d.P(), d.D(), d.mla ? 1 : d.dep.heads, d.mla, layers(d.dep.ctx), layers(d.dep.gen),
                AttentionDp{d.dep.ctx.adp, d.dep.gen.adp}};
  // Only deployments the model lays out (the grid has no others): TP sizes,
  // heads that shard, stages of at least one layer holding the same layers,
  // DP groups that exist.
  const auto& ctx = d.dep.ctx;
  const auto& gen = d.dep.gen;
  const auto empty_stage = [](const tpcheck_trtllm::Side& s) {
    return std::any_of(s.stage_layers.begin(), s.stage_layers.end(), [](int c) { return c < 1; });
  };
  if (ctx.tp < 1 || gen.tp < 1 || !head_compatible<I>(d.P(), d.topology.H) ||
      !head_compatible<I>(d.D(), d.topology.H) || empty_stage(ctx) || empty_stage(gen) ||
      ctx.layers() != gen.layers() || d.dep.serving_group >= (ctx.adp ? ctx.tp : 1) ||
      d.dep.asking_group >= (gen.adp ? gen.tp : 1)) {
    return std::nullopt;
  }
  return d;
}

std::vector<I> as_ranks(const std::vector<wide_t<I>>& wide) {
  std::vector<I> out;
  for (const auto& r : wide) out.push_back(static_cast<I>(r));
  return out;
}

// The ranks an overlap lists that are ranks at all, and the first that is not.
std::vector<I> listed(const Overlap& o, std::optional<std::string>& bad) {
  std::vector<I> out;
  for (const Value& v : o.ranks) {
    if (v.is_u64() && v.u64 <= std::uint64_t{INT64_MAX}) {
      out.push_back(static_cast<I>(v.u64));
    } else if (!bad) {
      bad = v.shown();
    }
  }
  return out;
}

// A deployment's log, read: nullopt, with `j` the judgement to return, when
// the configuration is not judged here (its driver did not answer, or the
// case is not a deployment the model shards).
struct OpenLog {
  PeerDeployment d;
  PeerLog log;
};
std::optional<OpenLog> open_log(const Binding& b, const CaseArgs& args, const Actual& actual, Judgement& j) {
  if (actual.status != Actual::Status::Value) {
    j = unreadable(actual);
    return std::nullopt;
  }
  auto d = deployment_of(b, args);
  if (!d) {
    j.not_compared = true;
    return std::nullopt;
  }
  return OpenLog{std::move(*d), read_peer_log(actual.text)};
}

void report_malformed(const PeerLog& log, FindingSet& findings) {
  if (log.malformed) {
    findings.add("crashed", std::nullopt, std::nullopt, "a log tpcheck can read",
                 decimal(static_cast<I>(log.malformed)) + " lines of the log could not be read");
  }
}

std::string overlap_shown(const Overlap& o) {
  return o.raised ? "raised " + o.exception
                  : ".ranks " + values_shown(o.ranks) + ", duplicate_head_factor " + o.dup.shown() +
                        ", peer_duplicate_head_factor " + o.peer_dup.shown();
}

// The gen ranks whose overlap lists each ctx rank.
std::map<I, std::vector<I>> asked_by(const PeerLog& log) {
  std::map<I, std::vector<I>> out;
  for (const auto& [gen, o] : log.gen) {
    if (o.raised) continue;
    std::optional<std::string> bad;
    for (const I r : listed(o, bad)) out[r].push_back(gen);
  }
  return out;
}

Judgement judge_peer_compatible(const Binding& b, std::size_t, const CaseArgs& args, const Actual& actual) {
  Judgement j;
  const auto opened = open_log(b, args, actual, j);
  if (!opened) return j;
  const PeerLog& log = opened->log;
  FindingSet findings;
  for (const Registration& r : log.registrations) {
    const bool gen = r.side == "gen";
    const FindingSet::Rank p = gen ? r.peer : r.self, dr = gen ? r.self : r.peer;
    const std::string who = (gen ? "gen rank " : "ctx rank ") + decimal(r.self) + " registers " +
                            (gen ? "ctx rank " : "gen rank ") + decimal(r.peer);
    if (r.probe == "valid" && !r.ok) {
      findings.add("rejects_valid", p, dr, "accepted: equal is_mla, sizes and layer counts, cp 1",
                   who + ": " + r.exception);
    } else if (r.probe != "valid" && r.ok) {
      findings.add("accepts_invalid", p, dr,
                   r.probe == "cp" ? "ValueError: a peer with cp_size 2 is incompatible"
                                   : "ValueError: an MLA peer with kv_heads_per_rank 2 is incompatible",
                   who + " with " + (r.probe == "cp" ? "cp_size 2" : "kv_heads_per_rank 2") + ": accepted");
    }
  }
  report_malformed(log, findings);
  j.findings = findings.take();
  j.tallies = {{"configurations", 1}, {"registrations", log.registrations.size()}};
  return j;
}

Judgement judge_peer_overlap(const Binding& b, std::size_t, const CaseArgs& args, const Actual& actual) {
  Judgement j;
  const auto opened = open_log(b, args, actual, j);
  if (!opened) return j;
  const PeerDeployment* d = &opened->d;
  const PeerLog& log = opened->log;
  const Topology<I>& t = d->topology;
  FindingSet findings;
  const auto factors = duplicate_head_factors<I>(t.P, t.D, t.H, t.mla, t.adp);
  auto check_factors = [&](const Overlap& o, I want_dup, I want_peer, FindingSet::Rank p, FindingSet::Rank dr,
                           const std::string& who) {
    if (o.dup.is_u64() && o.peer_dup.is_u64() && static_cast<I>(o.dup.u64) == want_dup &&
        static_cast<I>(o.peer_dup.u64) == want_peer) {
      return;
    }
    findings.add("duplicate_head_factor", p, dr, "dup " + decimal(want_dup) + ", peer_dup " + decimal(want_peer),
                 who + ": " + overlap_shown(o));
  };
  // The gen side: the ranks each gen rank asks.
  for (const I gr : d->gen_ranks()) {
    const auto found = log.gen.find(gr);
    if (found == log.gen.end()) continue;  // its registration failed (judged by _check_peer_compatible)
    const Overlap& o = found->second;
    const std::string who = "gen rank " + decimal(gr) + " get_peer_overlap(ctx, " + decimal(d->dep.serving_group) + ")";
    const auto window = stage_window<I>(gr / t.D, gr % t.D, d->dep.serving_group, t);
    // A sizing the model refuses (TP sizes per DP group that do not divide
    // each other) must be refused; what an accepted one asks is judged below.
    if (!window.ok()) {
      if (!o.raised) findings.add("accepts_invalid", std::nullopt, gr, render(window.failure()), who + ": " + overlap_shown(o));
      if (o.raised) continue;
    }
    const auto want = window.ok() ? as_ranks(window.value()) : std::vector<I>{};
    if (o.raised) {
      findings.add("rejects_valid", std::nullopt, gr, ".ranks " + ints(want), who + " raised " + o.exception);
      continue;
    }
    std::optional<std::string> bad;
    const auto ranks = listed(o, bad);
    for (const I r : ranks) {
      if (!d->ctx_exists(r)) {
        findings.add("out_of_range", r, gr, "ctx ranks in [0, " + decimal(d->dep.ctx.ranks()) + ")",
                     who + ": " + overlap_shown(o));
      } else if (!d->serves(r)) {
        findings.add("rank_out_of_range", r, gr,
                     "ctx ranks of DP group " + decimal(d->dep.serving_group) + " (TP ranks [" +
                         decimal(d->dep.serving_group * d->ctx_group_size()) + ", " +
                         decimal((d->dep.serving_group + 1) * d->ctx_group_size()) + ") of each stage)",
                     who + ": " + overlap_shown(o));
      }
    }
    if (bad) {
      findings.add("out_of_range", std::nullopt, gr, "ctx ranks in [0, " + decimal(d->dep.ctx.ranks()) + ")",
                   who + ": " + overlap_shown(o) + " (" + *bad + " is no rank)");
    }
    auto sorted = ranks;
    std::sort(sorted.begin(), sorted.end());
    if (window.ok() && (bad || sorted != want)) {
      findings.add("wrong_ranks", std::nullopt, gr, ".ranks " + ints(want) + " (the stage window)",
                   who + ": " + overlap_shown(o));
    }
    if (factors.ok()) check_factors(o, factors.value().decode, factors.value().prefill, std::nullopt, gr, who);
  }
  // The ctx side: each rank waits for as many requests as gen ranks ask it.
  const auto asks = asked_by(log);
  for (const I cr : d->ctx_ranks()) {
    const auto a = asks.find(cr);
    const std::vector<I> askers = a == asks.end() ? std::vector<I>{} : a->second;
    const auto serving = stage_served<I>(cr / t.P, cr % t.P, d->dep.asking_group, t);
    const auto served = serving.ok() ? as_ranks(serving.value()) : std::vector<I>{};
    for (const auto& [key, o] : log.ctx) {
      if (key.first != cr) continue;
      const I gr = key.second;
      const bool asked = std::find(askers.begin(), askers.end(), gr) != askers.end();
      if (!asked && std::find(served.begin(), served.end(), gr) == served.end()) continue;
      const std::string who = "ctx rank " + decimal(cr) + " get_peer_overlap(gen rank " + decimal(gr) + ")";
      if (o.raised) {
        if (serving.ok()) {
          findings.add("rejects_valid", cr, gr, "len(.ranks) " + decimal(static_cast<I>(served.size())),
                       who + " raised " + o.exception);
        }
        continue;
      }
      std::optional<std::string> bad;
      const auto ranks = listed(o, bad);
      if (bad) {
        findings.add("out_of_range", cr, gr, "gen ranks in [0, " + decimal(d->dep.gen.ranks()) + ")",
                     who + ": " + overlap_shown(o) + " (" + *bad + " is no rank)");
      }
      for (const I r : ranks) {
        if (r >= d->dep.gen.ranks()) {
          findings.add("out_of_range", cr, gr, "gen ranks in [0, " + decimal(d->dep.gen.ranks()) + ")",
                       who + ": " + overlap_shown(o));
        }
      }
      if (o.ranks.size() != askers.size()) {
        findings.add("count_mismatch", cr, std::nullopt,
                     "len(.ranks) " + decimal(static_cast<I>(askers.size())) + ": the gen ranks that ask it " +
                         ints(askers),
                     who + ": " + overlap_shown(o));
      }
      if (factors.ok()) check_factors(o, factors.value().prefill, factors.value().decode, cr, gr, who);
    }
  }
  report_malformed(log, findings);
  j.findings = findings.take();
  j.tallies = {{"configurations", 1},
               {"gen overlaps", log.gen.size()},
               {"ctx overlaps", log.ctx.size()}};
  return j;
}

// Every rank's request blocks (SPEC §15.0): per block, local layer and K/V a
// region of one slot holding the rank's heads, head-major, keyed by the
// global (K/V, layer) so that both sides' regions compare.
bytes::MemoryMap block_memory(const PeerDeployment& d) {
  const peers::BlockLayout& L = peers::kBlocks;
  const I kv_factor = d.mla ? 1 : 2, H = d.topology.H;
  bytes::MemoryMap map;
  for (const bytes::Side which : {bytes::Side::Prefill, bytes::Side::Decode}) {
    const bool ctx = which == bytes::Side::Prefill;
    const tpcheck_trtllm::Side& side = ctx ? d.dep.ctx : d.dep.gen;
    const std::uint64_t base = ctx ? L.ctx_base : L.gen_base;
    for (int r = 0; r < side.ranks(); ++r) {
      if (!ctx && !tpcheck_trtllm::asks(d.dep, r)) continue;
      const int s = r / side.tp, t = r % side.tp;
      I first = 0, n = d.mla ? 1 : H;
      if (!d.mla && !side.adp) {
        const auto own = heads<I>(t, side.tp, H).value();
        first = own.first;
        n = own.end - own.first;
      }
      bytes::RankMemory m;
      m.side = which;
      m.rank = r;
      m.pages = std::make_shared<bytes::HeadMajorPages>(L.tokens, first, n, L.dims * L.element_bytes);
      m.slots = 1;
      m.layers = side.layers();
      m.slot_word = "block";
      const std::uint64_t rank_base = base + static_cast<std::uint64_t>(r) * L.rank_stride;
      for (I i = 0; i < L.blocks; ++i) {
        m.request.push_back(i);
        for (int l = 0; l < side.stage_layers[static_cast<std::size_t>(s)]; ++l) {
          for (I k = 0; k < kv_factor; ++k) {
            // Layer l's K or V of the block: the rank's n heads of B bytes each.
            m.region_bases.push_back(rank_base + static_cast<std::uint64_t>(i) * L.block_stride +
                                     static_cast<std::uint64_t>(l * kv_factor + k) * m.pages->item_length());
            m.region_keys.push_back(k * side.layers() + side.stage_begin(s) + l);
            m.region_slots.push_back(i);
          }
        }
      }
      map.add(std::move(m));
    }
  }
  return map;
}

// duplicate_write: any two copies to one gen rank that write a byte in
// common, whatever they hold (the byte judge's `redundant` counts only bytes
// written correctly twice). On byte ranges: sorted by start, a copy that
// starts before the furthest end so far overlaps an earlier one.
void overlapping_writes(std::map<I, std::vector<std::pair<I, bytes::Transfer>>>& writes,
                        const bytes::MemoryMap& memory, FindingSet& findings) {
  for (auto& [gen, copies] : writes) {
    std::sort(copies.begin(), copies.end(), [](const auto& a, const auto& b) { return a.second.dst < b.second.dst; });
    std::uint64_t furthest = 0;
    std::size_t reaching = 0;
    for (std::size_t k = 0; k < copies.size(); ++k) {
      const bytes::Transfer& t = copies[k].second;
      if (k > 0 && t.dst < furthest) {
        const auto& earlier = copies[reaching];
        findings.add("duplicate_write", copies[k].first, gen, "each byte of gen rank " + decimal(gen) + " written once",
                     bytes::bytes_text(std::min(furthest, t.dst + t.length) - t.dst) + " at " +
                         bytes::place_text(memory, t.dst) + " written by ctx rank " + decimal(earlier.first) +
                         " and ctx rank " + decimal(copies[k].first));
        continue;
      }
      // (Compared without adding first: a length from code under test may reach 2^64.)
      const std::uint64_t end = t.length > UINT64_MAX - t.dst ? UINT64_MAX : t.dst + t.length;
      if (end > furthest) {
        furthest = end;
        reaching = k;
      }
    }
  }
}

// The byte judge's kinds (SPEC §14B.5) as SPEC §15.1 names them.
std::string peer_kind(const std::string& kind) {
  if (kind == "src_outside_region") return "read_outside";
  if (kind == "dst_outside_region" || kind == "write_outside_request") return "write_outside";
  if (kind == "wrong_layer_or_kv" || kind == "wrong_page_or_token" || kind == "wrong_heads" ||
      kind == "misaligned_in_head") {
    return "misplaced";
  }
  if (kind == "unwritten") return "missing";
  return kind;
}

Judgement judge_peer_kv_map(const Binding& b, std::size_t, const CaseArgs& args, const Actual& actual) {
  Judgement j;
  const auto opened = open_log(b, args, actual, j);
  if (!opened) return j;
  const PeerDeployment* d = &opened->d;
  const PeerLog& log = opened->log;
  // A sizing the model refuses and every gen rank refused moves nothing: not judged.
  const bool refused = std::all_of(log.gen.begin(), log.gen.end(), [](const auto& g) { return g.second.raised; });
  if (refused && !stage_window<I>(0, 0, d->dep.serving_group, d->topology).ok()) {
    j.not_compared = true;
    return j;
  }
  // A sending pair whose mapper cannot run in this interpreter: the
  // deployment's bytes cannot be judged, and the report says why.
  const auto sends_to = [&](I cr, I gen) {
    const auto x = log.ctx.find({cr, gen});
    if (x == log.ctx.end() || x->second.raised || !x->second.dup.is_u64()) return false;
    const I dup = static_cast<I>(std::min<std::uint64_t>(x->second.dup.u64, std::uint64_t{INT64_MAX}));
    const I gen_dp_rank = d->dep.gen.adp ? gen % d->D() : 0;
    return dup <= 1 || gen_dp_rank % dup == ((cr % d->P()) % d->ctx_group_size()) % dup;
  };
  for (const auto& [pair, m] : log.maps) {
    if (!m.skipped.empty() && sends_to(pair.first, pair.second)) {
      j.not_compared = true;
      j.not_compared_reason = "deployments whose block mapper " + m.skipped + ", which this Python cannot import";
      return j;
    }
  }
  const bytes::MemoryMap memory = block_memory(*d);
  FindingSet bytes_found, findings;
  bytes::ByteJudge judge(memory, bytes_found);
  std::uint64_t sends = 0, silent = 0;
  std::map<I, std::vector<std::pair<I, bytes::Transfer>>> writes;  // gen rank -> (ctx rank, copy)
  for (const auto& [gen, o] : log.gen) {
    if (o.raised) continue;
    std::optional<std::string> bad;
    for (const I cr : listed(o, bad)) {
      // The selection rule (SPEC §15.1), with dup from the ctx rank's overlap with gen.
      const auto x = log.ctx.find({cr, gen});
      if (x == log.ctx.end() || x->second.raised || !x->second.dup.is_u64()) continue;
      if (!sends_to(cr, gen)) {
        ++silent;  // another replica of its heads sends
        continue;
      }
      ++sends;
      const auto m = log.maps.find({cr, gen});
      if (m == log.maps.end()) continue;  // nothing mapped: the bytes stay missing
      if (m->second.raised) {
        findings.add("mapper_error", cr, gen, "a map of ctx rank " + decimal(cr) + "'s blocks onto gen rank " +
                                                  decimal(gen) + "'s", "raised " + m->second.exception);
        continue;
      }
      if (!m->second.unreadable.empty()) {
        findings.add("mapper_error", cr, gen, "integer pointers and lengths", m->second.unreadable.front());
      }
      for (const auto& copy : m->second.copies) {
        judge.transfer(cr, gen, copy);
        writes[gen].push_back({cr, copy});
      }
    }
  }
  judge.finish();
  overlapping_writes(writes, memory, findings);
  for (auto& f : bytes_found.take()) {
    if (f.kind == "redundant") continue;  // overlapping_writes reports every byte written twice
    const auto p = f.at[0] ? narrow(*f.at[0]) : std::nullopt, g = f.at[1] ? narrow(*f.at[1]) : std::nullopt;
    findings.add(peer_kind(f.kind), p, g, std::move(f.expected), std::move(f.actual));
  }
  report_malformed(log, findings);
  j.findings = findings.take();
  j.tallies = {{"configurations", 1},
               {"sends", sends},
               {"silent replicas", silent},
               {"copies", judge.transfers()},
               {"decoded bytes", judge.decoded_bytes()}};
  return j;
}

}  // namespace

namespace {

// --- written tests: the calls of a configuration and the model's outcome of each ---

std::vector<WrittenItem> find_overlap_items(const Binding&, std::size_t, const CaseArgs& args, const Actual*) {
  const auto a = small_args(args);
  if (!a || a->size() != 2 || (*a)[0] < 1) return {};
  const I L = (*a)[0], R = (*a)[1];
  std::vector<WrittenItem> out;
  for (I r = 0; r < L; ++r) {
    const auto w = window<I>(r, L, R);
    if (!w.ok()) {
      out.push_back({{r}, expected_refusal()});
      continue;
    }
    const I first = w.value().front(), n = static_cast<I>(w.value().size());
    out.push_back({{r}, expected_value(python_tuple({decimal(n), decimal(first), decimal(first + n)}))});
  }
  return out;
}

std::vector<WrittenItem> head_offsets_items(const Binding&, std::size_t, const CaseArgs& args, const Actual*) {
  const auto a = small_args(args);
  if (!a || a->size() != 3 || !head_compatible<I>((*a)[0], (*a)[2]) || !head_compatible<I>((*a)[1], (*a)[2])) return {};
  const I P = (*a)[0], D = (*a)[1], H = (*a)[2], B = peers::kBlocks.head_bytes();
  std::vector<WrittenItem> out;
  for (I p = 0; p < P; ++p) {
    for (I d = 0; d < D; ++d) {
      const auto own_p = heads<I>(p, P, H).value(), own_d = heads<I>(d, D, H).value();
      const I lo = std::max(own_p.first, own_d.first);
      if (lo >= std::min(own_p.end, own_d.end)) continue;  // the pair shares no head: no call
      const std::string offsets = python_tuple({decimal((lo - own_p.first) * B), decimal((lo - own_d.first) * B)});
      out.push_back({{p, d}, expected_value(offsets)});
    }
  }
  return out;
}

// Why the deployments' functions get no written test.
constexpr const char* kDeploymentNotWritten =
    "judged on whole deployments: every rank's registrar built from RankInfo records of its pipeline stage and "
    "attention-DP group, registering with its peers; conform checks it (give the files to tpcheck conform in CI)";

}  // namespace

const Relation kPeerFindOverlap{
    .judge = judge_peer_find_overlap,
    .compared_with =
        [](const Binding&) -> std::string {
          return "for every `r`: `(overlap, start, end)` with `range(start, end)` = `window(r, L, R)`; a pair that is "
                 "not divisible is refused, and `end` never past `R` (SPEC §15.1)";
        },
    .findings = true,
    .test_items = find_overlap_items,
    .test_coords = {"r"},
};

const Relation kPeerHeadOffsets{
    .judge = judge_peer_head_offsets,
    .compared_with =
        [](const Binding&) -> std::string {
          return "for every pair that shares heads: the byte offsets of §6's copy in `p`'s and `d`'s heads (SPEC "
                 "§15.1)";
        },
    .findings = true,
    .test_items = head_offsets_items,
    .test_coords = {"p", "d"},
};

const Relation kPeerCompatible{
    .judge = judge_peer_compatible,
    .compared_with =
        [](const Binding&) -> std::string {
          return "through `register`, on both sides: every head-compatible sizing accepted, a peer with `cp` 2 (or, "
                 "under MLA, 2 heads per rank) refused (SPEC §15.1)";
        },
    .findings = true,
    .not_written = kDeploymentNotWritten,
};

const Relation kPeerOverlap{
    .judge = judge_peer_overlap,
    .compared_with =
        [](const Binding&) -> std::string {
          return "gen side: `.ranks` = the stage window, in range and in the serving DP group; ctx side: "
                 "`len(.ranks)` = the gen ranks that ask it; the duplicate-head factors (SPEC §15.1, §15.4)";
        },
    .findings = true,
    .not_written = kDeploymentNotWritten,
};

const Relation kPeerKvMap{
    .judge = judge_peer_kv_map,
    .compared_with =
        [](const Binding&) -> std::string {
          return "for every pair that sends (the selection rule): every byte of each gen rank's blocks written once, "
                 "from the same block, layer, K or V, head and byte of a ctx rank that holds it (SPEC §15.1)";
        },
    .findings = true,
    .not_compared = "sizings the model refuses (TP sizes per attention-DP group that do not divide each other) and "
                    "every gen rank refused: nothing moves",
    .not_written = "judged byte by byte on whole deployments: a test would carry every rank's RankInfo records and "
                   "registrars, the synthetic blocks and a decoder mapping every copied byte back to a block, layer, "
                   "K or V, head and byte; conform checks it (give the files to tpcheck conform in CI)",
};

}  // namespace tpcheck::conform
