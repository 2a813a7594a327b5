// SPEC §16.6: TensorRT-LLM's mappers of hybrid models' recurrent state
// against the model. Self is ctx rank p, peer each gen rank d of its window;
// what they map (the conv state's sections, the SSM state's heads) is judged
// byte by byte by the state judge (state_judge.hpp) on TensorRT-LLM's state:
// a conv tensor (C, K-1) and a temporal tensor per layer. Each part's other
// part is written as the plan writes it. Only sizings whose segments are all
// sharded on both sides (and P = D) are served: where a side replicates a
// segment, the cache manager refuses with SPEC §16.5's texts, or gives B and
// C a part of the groups each (outside the model).
#include <algorithm>
#include <map>

#include "capture.hpp"
#include "tpcheck/conform/judge.hpp"
#include "tpcheck/conform/state_grid.hpp"
#include "tpcheck/conform/state_judge.hpp"
#include "tpcheck/conform/state_offsets.hpp"
#include "tpcheck/state.hpp"
#include "tpcheck/state_bytes.hpp"
#include "trtllm.hpp"

namespace tpcheck::conform {
namespace {

using I = std::int64_t;
using capture::LogLine;

// SPEC §16.5: what TensorRT-LLM's cache manager does with a Mamba2 side of T
// ranks whose B and C are replicated: its refusal, or nothing where it goes
// on (and gives B and C G*N/T channels per rank, outside the model).
std::optional<std::string> cache_manager_refusal(const StateDims<I>& dims, I T) {
  if (dims.family != StateFamily::Mamba2) return std::nullopt;
  const I H = dims.v[0], PH = dims.v[1], G = dims.v[2], N = dims.v[3];
  if (H % T != 0) return "AssertionError: mamba_num_heads must be divisible by tp_size";
  if ((H * PH + 2 * G * N) % T != 0) return "AssertionError: conv_dim must be divisible by tp_size";
  if (G * N % T != 0) {
    return "ValueError: Disaggregated Mamba transfer requires each convolution state section to be divisible by "
           "tp_size";
  }
  return std::nullopt;
}

// A side holds every segment sharded (no segment held whole by each of T > 1 ranks).
bool all_sharded(const state::StateConfig& config, I T) {
  const auto side = state_ownership<I>(T, config.dims);
  if (!side.ok()) return false;
  return std::none_of(side.value().segments().begin(), side.value().segments().end(),
                      [](const ConvSegment<I>& s) { return s.replicated; });
}

std::optional<I> rank_word(std::string_view w) {
  const auto v = capture::read_value(w);
  if (!v.is_u64() || v.u64 > std::uint64_t{INT64_MAX}) return std::nullopt;
  return static_cast<I>(v.u64);
}

// An offset or a length as the driver writes it: a decimal, maybe negative.
std::optional<I> signed_word(std::string_view w) {
  const auto v = capture::read_value(w);
  if (v.is_u64() && v.u64 <= std::uint64_t{INT64_MAX}) return static_cast<I>(v.u64);
  if (v.form == capture::Value::Form::Negative && v.u64 > 0 && v.u64 <= std::uint64_t{INT64_MAX}) return -static_cast<I>(v.u64);
  return std::nullopt;
}

// A mapper's answers for every (p, d), judged as blocks of bytes of the
// request's slots: `part` is what it maps (Conv: the sections, one block
// each, into the conv entries; Ssm: one block into the temporal entries).
// Blocks are judged by the bytes they move, not by their number (SPEC
// §16.3): one plan over sections that abut on both sides is as good as one
// per section.
Judgement judge_mapper(const CaseArgs& args, const Actual& actual, StatePart part) {
  if (actual.status != Actual::Status::Value) return unreadable(actual);
  Judgement j;
  const auto c = state::state_case(args);
  if (!c || (c->sizing != state::Sizing::Valid && c->sizing != state::Sizing::Equal)) {
    j.not_compared = true;
    return j;
  }
  const state::StateConfig& config = state::state_configs()[c->config];
  FindingSet findings;
  for (const I T : {c->P, c->D}) {
    if (all_sharded(config, T) || c->P == c->D) continue;
    const auto refusal = cache_manager_refusal(config.dims, T);
    findings.add(refusal ? "cache_manager_refuses" : "outside_model", std::nullopt, std::nullopt,
                 "segments sharded on both sides, or P = D",
                 (c->P == T ? "prefill" : "decode") + std::string(" tp_size ") + decimal(T) + " holds " +
                     config.label + "'s B and C whole on every rank: " +
                     (refusal ? "the cache manager refuses: " + *refusal
                              : "the cache manager gives B and C G*N/T channels per rank, outside the model"));
    j.not_compared = true;
    j.findings = findings.take();
    return j;
  }
  const auto spec = trtllm_state_side(config.dims.family);
  const state::StateMemory memory(state::StateLayout{}, config, c->P, c->D, spec, spec);
  state::StateJudge judge(memory, findings, "", true);
  const char* tag = part == StatePart::Conv ? "C" : "H";
  std::map<I, std::vector<I>> senders;  // d -> the ctx ranks that answered for it
  std::uint64_t blocks = 0, pairs = 0;
  for (const LogLine& l : capture::read_log_lines(actual.text)) {
    if (l.words.size() < 3 || l.words[0] != tag) continue;
    const auto p = rank_word(l.words[1]), d = rank_word(l.words[2]);
    if (!p || !d || *p >= c->P || *d >= c->D) continue;
    senders[*d].push_back(*p);
    if (l.raised) {
      findings.add("raises:" + l.exception_class, *p, *d, "the mapper's offsets", l.exception());
      continue;
    }
    std::vector<std::array<I, 3>> got;
    if (part == StatePart::Conv) {
      const auto tree = l.words.size() == 4 ? capture::read_int_tree(l.words[3]) : std::nullopt;
      bool readable = tree && tree->is_list;
      for (std::size_t i = 0; readable && i < tree->items.size(); ++i) {
        const auto v = capture::flat_ints(tree->items[i]);
        readable = v && v->size() == 3;
        if (readable) got.push_back({(*v)[0], (*v)[1], (*v)[2]});
      }
      if (!readable) {
        findings.add("crashed", *p, *d, "a list of (src_off, dst_off, bytes)", l.joined(3));
        continue;
      }
    } else {
      const auto off = [&](std::size_t i) { return l.words.size() == 6 ? signed_word(l.words[i]) : std::nullopt; };
      const auto src = off(3), dst = off(4), n = off(5);
      if (!src || !dst || !n) {
        findings.add("crashed", *p, *d, "_src_head_off _dst_head_off _bytes_cont_heads", l.joined(3));
        continue;
      }
      got.push_back({*src, *dst, *n});
    }
    for (I region = 0; region < static_cast<I>(memory.entry_count()); ++region) {
      if (memory.entry(region).tensor == part) judge.blocks(*p, *d, region, got, true);
    }
    blocks += got.size();
    ++pairs;
  }
  for (const auto& [d, from] : senders) {
    state::judge_plan_part(memory, judge, d, c->P, c->D, part == StatePart::Conv ? StatePart::Ssm : StatePart::Conv);
  }
  judge.finish();
  j.findings = findings.take();
  j.tallies = {{"configurations", 1}, {"pairs", pairs}, {"blocks", blocks}, {"decoded bytes", judge.decoded_bytes()}};
  return j;
}

Judgement judge_sections(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  return judge_mapper(args, actual, StatePart::Conv);
}

Judgement judge_heads(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  return judge_mapper(args, actual, StatePart::Ssm);
}

const auto note = note_kind;

}  // namespace

state::SideSpec trtllm_state_side(StateFamily) {
  state::SideSpec s;
  s.container = StateContainer::SglangPool;
  s.order = ConvOrder::DimFirst;
  return s;
}

const std::vector<KindInfo>& trtllm_state_kinds() {
  static const std::vector<KindInfo> kinds = [] {
    std::vector<KindInfo> k = state::state_kinds();
    for (KindInfo& info : k) {
      if (info.id == "redundant" || info.id == "nondiv:redundant") {
        info.failure = true;
        info.meaning = "a byte of the gen rank is written twice: TensorRT-LLM requires each byte written exactly once";
      }
    }
    k.push_back(note("cache_manager_refuses", "The cache manager refuses the sizing",
                     "a side replicates a segment, and TensorRT-LLM's cache manager refuses it (SPEC §16.5's texts)"));
    k.push_back(note("outside_model", "Outside the model",
                     "a side replicates a segment, and TensorRT-LLM's cache gives B and C G*N/T channels per rank: "
                     "not the model's layout, not compared"));
    return k;
  }();
  return kinds;
}

const Relation kConvSections{
    .judge = judge_sections,
    .compared_with =
        [](const Binding&) -> std::string {
          return "called with section bytes `width * (K-1) * e_conv` in TensorRT-LLM's order, then `(P, D, p, d)` for "
                 "every `d` in `window(p, P, D)`: each section's `(src_off, dst_off, bytes)` against `state_plan(d)`'s "
                 "copy from `p`, byte by byte in dim-first conv bytes";
        },
    .findings = true,
    .not_compared = "sizings with a replicated segment: the cache manager refuses them or lays them out otherwise "
                    "(reported as notes)",
};

const Relation kSsmHeads{
    .judge = judge_heads,
    .compared_with =
        [](const Binding&) -> std::string {
          return "constructed `(2, 0, 0, E * e_ssm, H_s/P, H_s/D, P, D, p, d)` for every `d` in `window(p, P, D)`: "
                 "`_src_head_off`, `_dst_head_off` and `_bytes_cont_heads` against `state_plan(d)`'s SSM copy from "
                 "`p`, byte by byte";
        },
    .findings = true,
    .not_compared = "sizings with a replicated segment: the cache manager refuses them or lays them out otherwise "
                    "(reported as notes)",
};

}  // namespace tpcheck::conform
