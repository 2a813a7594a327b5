// SPEC §12 (NIXL's completion count and TPMapping) and §13 (Mooncake's
// sender plan and region check) against the model's plan(d), in int64: these
// relations run on the valid grid, whose sizes are small.
#include <algorithm>

#include "canonical.hpp"
#include "tpcheck/conform/judge.hpp"
#include "tpcheck/conform/written.hpp"
#include "tpcheck/model.hpp"
#include "tpcheck/render.hpp"
#include "vllm.hpp"

namespace tpcheck::conform {
namespace {

using I = std::int64_t;

struct Sizing {
  I P = 0, D = 0, H = 0;
  bool mla = false;
  I heads() const { return mla ? 1 : H; }  // MLA reads as one head (SPEC §4)
  I first(I rank, I T) const { return tpcheck::heads<I>(rank, T, heads()).value().first; }
  I per_rank(I T) const { return std::max<I>(1, heads() / T); }  // n(T)
  bool holds(I p, I lo, I hi) const {
    if (p < 0 || p >= P) return false;
    const auto own = tpcheck::heads<I>(p, P, heads()).value();
    return own.first <= lo && hi <= own.end;
  }
};

Judgement outside_int64() {
  Judgement j;
  j.not_compared = true;
  return j;
}

// A valid sizing whose call raised a modelled error, returned an error text,
// or returned garbage: classify() names the kind; the effect follows it.
void set_refusal_effect(Judgement& j) {
  if (j.kind == Kind::RejectsValid) j.effect = Effect::Refused;
}

// The judgement of a case whose expected outcome is a model failure.
Judgement expecting_failure(const Failure& failure, const Actual& actual) {
  Judgement j;
  j.expected = render(failure);
  j.kind = classify(j.expected, actual);
  return j;
}

std::string render_slots(const std::map<I, I>& slots) {
  std::string out = "{";
  for (const auto& [p, slot] : slots) out += (out.size() > 1 ? ", " : "") + decimal(p) + ": " + decimal(slot);
  return out + "}";
}

std::string render_list(const std::vector<I>& v) { return render(v); }

// The completions every prefill rank waits for: the decode ranks whose window
// holds it (§3 duality), the same number for every p. The count is asked of
// the decode side, which refuses a pair that is not divisible.
Outcome<I> window_count(I P, I D) {
  const auto ratio = tp_ratio<I>(D, P);
  if (!ratio.ok()) return ratio.failure();
  const auto span = window_span<I>(0, P, D).value();
  return span.end - span.first;
}

Judgement judge_window_count(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  const auto a = small_args(args);
  if (!a) return outside_int64();
  const I P = (*a)[0], D = (*a)[1];
  const auto count = window_count(P, D);
  if (!count.ok()) return expecting_failure(count.failure(), actual);
  Judgement j;
  const auto span = window_span<I>(0, P, D).value();
  j.expected = decimal(count.value());
  j.note = "for every prefill rank p: |window(p, " + decimal(P) + ", " + decimal(D) + ")|";
  j.kind = classify(j.expected, actual);
  if (j.kind == Kind::WrongValue) {
    const auto got = read_int(actual.text);
    j.too_many = got && *got > span.end - span.first;
    j.effect = j.too_many ? Effect::Stranded : Effect::EarlyFree;
  }
  set_refusal_effect(j);
  return j;
}

// What NIXL's mapping for decode rank d must hold (SPEC §12), from plan(d).
struct NixlMappingWanted {
  std::vector<Copy<I>> copies;
  std::vector<I> sources;
  std::map<I, I> slots;
  I offset = 0;
  I consumers = 0;
  bool slots_compared = false;
};

Outcome<NixlMappingWanted> nixl_mapping_wanted(const Sizing& s, I d) {
  const auto plan_outcome = plan<I>(d, s.P, s.D, s.H, s.mla);
  if (!plan_outcome.ok()) return plan_outcome.failure();
  NixlMappingWanted w;
  w.copies = plan_outcome.value();
  for (const auto& c : w.copies) {
    w.sources.push_back(c.p);
    w.slots[c.p] = (c.lo - s.first(d, s.D)) / (c.hi - c.lo);
  }
  w.offset = s.D > s.P ? (w.copies[0].lo - s.first(w.copies[0].p, s.P)) / s.per_rank(s.D) : 0;
  const auto window = window_span<I>(0, s.P, s.D).value();
  w.consumers = window.end - window.first;
  w.slots_compared = s.P > s.D;
  return w;
}

// NIXL refuses the sizing at handshake (SPEC §11): its mapping is not compared.
bool refused_at_handshake(const Sizing& s) { return !s.mla && s.P > s.D && s.P > s.H; }

Judgement judge_nixl_mapping(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  const auto a = small_args(args);
  if (!a) return outside_int64();
  const Sizing s{(*a)[0], (*a)[1], (*a)[2], (*a)[3] != 0};
  const I d = (*a)[4];
  const auto ratio = tp_ratio<I>(s.D, s.P);
  if (!ratio.ok()) {
    // A mapping for a pair that is not divisible: every decode rank copies
    // heads from a prefill rank that does not hold them.
    Judgement j = expecting_failure(ratio.failure(), actual);
    if (j.kind == Kind::AcceptsInvalid) j.effect = Effect::WrongHeads;
    return j;
  }
  Judgement j;
  if (refused_at_handshake(s)) {
    j.not_compared = true;
    return j;
  }
  const auto wanted = nixl_mapping_wanted(s, d);
  if (!wanted.ok()) return expecting_failure(wanted.failure(), actual);
  const auto& [copies, sources, slots, offset, consumers, slots_compared] = wanted.value();
  j.expected = "TPMapping(sources=" + render_list(sources) + ", rank_offset_factor=" + decimal(offset) +
               (slots_compared ? ", rank_to_attention_slot=" + render_slots(slots) : "") +
               ", local_consumers=" + decimal(consumers) + ")";
  j.note = std::string("from plan(") + decimal(d) + ", " + decimal(s.P) + ", " + decimal(s.D) + ", " +
           decimal(s.H) + ", " + (s.mla ? "1" : "0") + ")" + (slots_compared ? "" : "; slots compared only when P > D");
  if (actual.status != Actual::Status::Value) {
    j.kind = classify(j.expected, actual);
    set_refusal_effect(j);
    return j;
  }
  const auto got = read_nixl_mapping(actual.text);
  if (!got) {
    j.kind = Kind::WrongValue;
    return j;
  }
  j.kind = Kind::WrongValue;
  for (std::size_t i = 0; i < std::max(sources.size(), got->sources.size()); ++i) {
    if (i >= got->sources.size()) {
      j.effect = Effect::Unwritten;
      return j;
    }
    if (i >= copies.size()) {
      j.effect = Effect::Overwrites;
      return j;
    }
    if (got->sources[i] != sources[i]) {
      j.effect = s.holds(got->sources[i], copies[i].lo, copies[i].hi) ? Effect::OffWindow : Effect::WrongHeads;
      return j;
    }
  }
  if (got->rank_offset_factor != offset || (slots_compared && got->slots != slots)) {
    j.effect = Effect::WrongHeads;
    return j;
  }
  if (got->local_consumers && *got->local_consumers != consumers) {
    j.too_many = *got->local_consumers > consumers;
    j.effect = j.too_many ? Effect::Stranded : Effect::EarlyFree;
    return j;
  }
  j.kind.reset();
  return j;
}

// The copy from p of plan(d), in bytes (SPEC §13); transfer false when plan(d) has none.
Outcome<SenderCopy> sender_copy_wanted(const Sizing& s, I p, I d) {
  const auto plan_outcome = plan<I>(d, s.P, s.D, s.H, s.mla);
  if (!plan_outcome.ok()) return plan_outcome.failure();
  const auto& copies = plan_outcome.value();
  const auto copy = std::find_if(copies.begin(), copies.end(), [&](const Copy<I>& c) { return c.p == p; });
  if (copy == copies.end()) return SenderCopy{};
  const I B = kBytesPerHead;
  return SenderCopy{true, (copy->lo - s.first(p, s.P)) * B, (copy->lo - s.first(d, s.D)) * B, (copy->hi - copy->lo) * B};
}

Judgement judge_sender_plan(const Binding&, std::size_t, const CaseArgs& args, const Actual& actual) {
  const auto a = small_args(args);
  if (!a) return outside_int64();
  const Sizing s{(*a)[0], (*a)[1], (*a)[2], (*a)[3] != 0};
  const I p = (*a)[4], d = (*a)[5];
  const auto wanted = sender_copy_wanted(s, p, d);
  if (!wanted.ok()) return expecting_failure(wanted.failure(), actual);
  Judgement j;
  const SenderCopy want = wanted.value();
  j.expected = want.transfer ? "(True, " + decimal(want.src) + ", " + decimal(want.dst) + ", " + decimal(want.length) + ")"
                             : "(False, ...)";
  j.note = std::string("the copy from p of plan(") + decimal(d) + ", " + decimal(s.P) + ", " + decimal(s.D) + ", " +
           decimal(s.H) + ", " + (s.mla ? "1" : "0") + ")";
  if (actual.status != Actual::Status::Value) {
    j.kind = classify(j.expected, actual);
    set_refusal_effect(j);
    return j;
  }
  const auto got = read_sender_copy(actual.text);
  if (!got) {
    j.kind = Kind::WrongValue;
    return j;
  }
  if (!want.transfer) {
    if (got->transfer) {
      j.kind = Kind::WrongValue;
      j.effect = Effect::Overwrites;  // a second copy to heads another prefill rank writes
    }
    return j;
  }
  if (got->transfer && got->src == want.src && got->dst == want.dst && got->length == want.length) return j;
  j.kind = Kind::WrongValue;
  const I B = kBytesPerHead;
  const I source_page = s.per_rank(s.P) * B, decode_page = s.per_rank(s.D) * B;
  const bool inside = got->src >= 0 && got->dst >= 0 && got->length >= 0 && got->src + got->length <= source_page &&
                      got->dst + got->length <= decode_page;
  if (!got->transfer || (inside && got->dst == want.dst && got->length < want.length)) {
    j.effect = Effect::Unwritten;
  } else if (!inside || got->dst != want.dst || got->length != want.length) {
    j.effect = Effect::Overwrites;
  } else {
    j.effect = Effect::WrongHeads;
  }
  return j;
}

Judgement judge_accepts_sizing(const Binding&, std::size_t, const CaseArgs&, const Actual& actual) {
  Judgement j;
  j.expected = "None";
  if (actual.status == Actual::Status::Value && actual.text != "None") {
    j.kind = Kind::RejectsValid;  // an error text returned instead of raised
  } else {
    j.kind = classify(j.expected, actual);
  }
  set_refusal_effect(j);
  return j;
}

// --- written tests: the model's outcome of each case as a Python literal ---

Expected expected_failure(const Failure& f) { return expected_outcome(render(f)); }

std::vector<WrittenItem> window_count_items(const Binding&, std::size_t, const CaseArgs& args, const Actual*) {
  const auto a = small_args(args);
  if (!a) return {};
  const auto count = window_count((*a)[0], (*a)[1]);
  return {{{}, count.ok() ? expected_value(decimal(count.value())) : expected_failure(count.failure())}};
}

// The fields conform compares, as the written tests' _tp_mapping gives them:
// local_consumers only where the version has it (its shape, from its outcome).
std::vector<WrittenItem> nixl_mapping_items(const Binding&, std::size_t, const CaseArgs& args, const Actual* code) {
  const auto a = small_args(args);
  if (!a) return {};
  const Sizing s{(*a)[0], (*a)[1], (*a)[2], (*a)[3] != 0};
  const auto ratio = tp_ratio<I>(s.D, s.P);
  if (!ratio.ok()) return {{{}, expected_failure(ratio.failure())}};
  if (refused_at_handshake(s)) return {};
  const auto wanted = nixl_mapping_wanted(s, (*a)[4]);
  if (!wanted.ok()) return {{{}, expected_failure(wanted.failure())}};
  const auto& w = wanted.value();
  std::vector<std::string> sources;
  for (const I p : w.sources) sources.push_back(decimal(p));
  std::string literal = "{'sources': " + python_list(sources) + ", 'rank_offset_factor': " + decimal(w.offset);
  if (w.slots_compared) literal += ", 'rank_to_attention_slot': " + render_slots(w.slots);
  const bool has_consumers = code == nullptr || code->status != Actual::Status::Value ||
                             code->text.find(", local_consumers=") != std::string::npos;
  if (has_consumers) literal += ", 'local_consumers': " + decimal(w.consumers);
  return {{{}, expected_value(literal + "}")}};
}

std::vector<WrittenItem> sender_plan_items(const Binding&, std::size_t, const CaseArgs& args, const Actual*) {
  const auto a = small_args(args);
  if (!a) return {};
  const auto wanted = sender_copy_wanted({(*a)[0], (*a)[1], (*a)[2], (*a)[3] != 0}, (*a)[4], (*a)[5]);
  if (!wanted.ok()) return {{{}, expected_failure(wanted.failure())}};
  const SenderCopy& c = wanted.value();
  return {{{}, expected_value(c.transfer ? python_tuple({"True", decimal(c.src), decimal(c.dst), decimal(c.length)})
                                         : python_tuple({"False"}))}};
}

std::vector<WrittenItem> accepts_sizing_items(const Binding&, std::size_t, const CaseArgs&, const Actual*) {
  return {{{}, expected_value("None")}};
}

}  // namespace

const Relation kWindowCompletionCount{
    .judge = judge_window_count,
    .compared_with =
        [](const Binding&) -> std::string {
          return "`|window(p, P, D)|`, the same for every prefill rank `p`; a pair that is not divisible fails as "
                 "`tp_ratio(D, P)`";
        },
    .counts_completions = true,
    .test_items = window_count_items,
};

const Relation kNixlMapping{
    .judge = judge_nixl_mapping,
    .compared_with =
        [](const Binding& b) {
          return "`" + b.model_op + "(d, P, D, H, MLA)`: the sources, the offset (when `D > P`), the slots (when "
                 "`P > D`), `local_consumers` (when present); a sizing NIXL refuses at handshake is not compared";
        },
    .not_compared = "sizings NIXL refuses at handshake: not MLA, P > D, P > H (SPEC §11)",
    .test_items = nixl_mapping_items,
};

const Relation kSenderPlan{
    .judge = judge_sender_plan,
    .compared_with =
        [](const Binding& b) {
          return "the copy from `p` of `" + b.model_op + "(d, P, D, H, MLA)`, in bytes (" +
                 std::to_string(kBytesPerHead) + " per head); `(False, ...)` when there is none";
        },
    .test_items = sender_plan_items,
};

const Relation kAcceptsSizing{
    .judge = judge_accepts_sizing,
    .compared_with = [](const Binding&) -> std::string { return "`None` on every sizing the connector accepts (SPEC §11)"; },
    .test_items = accepts_sizing_items,
};

}  // namespace tpcheck::conform
