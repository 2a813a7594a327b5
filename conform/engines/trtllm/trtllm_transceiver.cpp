// SPEC §15.2: what TensorRT-LLM's C++ transceiver did for a deployment (the
// C++ child's text) judged by trtllm_judge.hpp's relations, with the
// model's heads (SPEC §4).
#include "cxx/trtllm_judge.hpp"
#include "tpcheck/conform/judge.hpp"
#include "tpcheck/model.hpp"
#include "trtllm.hpp"

namespace tpcheck::conform {
namespace {

// The heads a rank holds, from the model.
struct ModelHeads {
  std::pair<int, int> heads(int t, int T, int H) const {
    const auto span = tpcheck::heads<std::int64_t>(t, T, H);
    if (!span.ok()) return {0, 0};
    return {static_cast<int>(span.value().first), static_cast<int>(span.value().end)};
  }
};

Judgement from_verdict(const tpcheck_trtllm::Verdict& v, const std::string& what) {
  Judgement j;
  j.not_compared = v.refused;
  j.not_compared_reason = v.rule;
  if (!v.kind.empty()) {
    j.kind = kind_from_id(v.kind);
    if (!j.kind) j.kind = Kind::Crashed;
    j.expected = v.expected;
    j.note = what;
  }
  if (j.kind == Kind::RejectsValid) j.effect = Effect::Refused;
  return j;
}

Judgement judge_trtllm_transceiver(const Binding& b, std::size_t, const CaseArgs& args, const Actual& actual) {
  std::vector<long long> values;
  for (const BigInt& a : args) {
    const auto v = narrow(a);
    if (!v || *v < INT32_MIN || *v > INT32_MAX) {
      Judgement j;
      j.not_compared = true;
      return j;
    }
    values.push_back(*v);
  }
  int rank = 0;
  const auto dep = tpcheck_trtllm::deployment_of(b.param_names(), values, rank);
  const ModelHeads model;
  Judgement j;
  switch (actual.status) {
    case Actual::Status::NotRun: return j;
    case Actual::Status::TimedOut: j.kind = Kind::TimedOut; return j;
    case Actual::Status::Crashed: j.kind = Kind::Crashed; return j;
    case Actual::Status::Raised: return from_verdict(tpcheck_trtllm::judge_raised(dep, actual.exception_class), "");
    case Actual::Status::Value: break;
  }
  const std::string& text = actual.text;
  auto garbage = [&] {
    Judgement g;
    g.kind = Kind::Crashed;
    g.expected = "a view the C++ child writes";
    return g;
  };
  if (b.name == "targetIRanks") {
    const auto v = tpcheck_trtllm::parse_target(text);
    return v ? from_verdict(tpcheck_trtllm::judge_target(dep, rank, *v, model), "") : garbage();
  }
  if (b.name == "CacheFormatter::needSendCache") {
    const auto v = tpcheck_trtllm::parse_send(text);
    return v ? from_verdict(tpcheck_trtllm::judge_send(dep, rank, *v, model), "") : garbage();
  }
  if (b.name == "CacheFormatter::pickRecvConnections") {
    const auto v = tpcheck_trtllm::parse_pick(text);
    return v ? from_verdict(tpcheck_trtllm::judge_pick(dep, rank, *v, model), "") : garbage();
  }
  if (b.name == "CacheFormatter::inquireSupport") {
    if (text != "true" && text != "false") return garbage();
    return from_verdict(tpcheck_trtllm::judge_inquire(dep, text == "true"), "");
  }
  return garbage();
}

std::string compared_with(const Binding& b) {
  if (b.name == "targetIRanks") {
    return "gen side: `window(d, D, P)` over the ctx stages whose layers overlap `d`'s, in range and in the serving DP "
           "group; ctx side: the gen ranks that connect to `p` (SPEC §15.2)";
  }
  if (b.name == "CacheFormatter::needSendCache") {
    return "whether `p` sends: exactly one replica of each head group does, the one the gen rank picks (SPEC §15.2)";
  }
  if (b.name == "CacheFormatter::pickRecvConnections") {
    return "the picked ranks are exactly those that send to `d`, and hold each (layer, head) of `d` once (SPEC "
           "§15.2)";
  }
  return "`false` only for MLA and for sides that differ in data type, kv factor, tokens per block, size per head, "
         "layer count or `cp`, and, where the PP sizes differ, for a side whose layer count its PP size does not "
         "divide (a documented refusal of versions that check it, not compared) (SPEC §15.2)";
}

}  // namespace

const Relation kTrtllmTransceiver{
    .judge = judge_trtllm_transceiver,
    .compared_with = compared_with,
    .not_compared = "TP sizes per attention-DP group that are not powers of two, refused by TLLM_CHECK (a documented "
                    "constraint, SPEC §15.2), and attention DP or uneven PP stages in versions that never read them",
    .not_written = "C++: a test of it is C++ built with TensorRT-LLM's own headers and CUDA, which conform does not "
                   "write; conform compiles the functions itself against its stub header (give the files to tpcheck "
                   "conform in CI)",
};

}  // namespace tpcheck::conform
