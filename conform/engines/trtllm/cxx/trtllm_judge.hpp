// What the TensorRT-LLM C++ transceiver does for one deployment, as text, and
// the relations of SPEC §15.2 it must satisfy. Standard C++ only: tpcheck
// judges the C++ child's outcomes with it (trtllm_transceiver.cpp, with the
// model's heads), and the --fuzz target, built on the user's machine from
// sources tpcheck carries, judges with it in-process (trtllm_fuzz_main.hpp).
//
// A deployment is a ctx (context, prefill) side and a gen (generation,
// decode) side, each a TP size, its PP stages' layer counts and whether
// attention DP is on (SPEC §15.0, §15.4), and the model's KV heads H. Ranks
// are global: stage s, TP rank t is s * T + t.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tpcheck_trtllm {

// Layers of a side without PP stages given: any count serves (SPEC §15.2
// compares ranks and heads; with one stage every rank holds every layer).
inline constexpr int kDefaultLayers = 2;

struct Side {
  int tp = 1;
  std::vector<int> stage_layers{kDefaultLayers};  // layer count of each PP stage
  bool adp = false;

  int pp() const { return static_cast<int>(stage_layers.size()); }
  int ranks() const { return tp * pp(); }
  int tp_per_group() const { return adp ? 1 : tp; }  // T' of SPEC §15.0
  int layers() const {
    int n = 0;
    for (const int c : stage_layers) n += c;
    return n;
  }
  int stage_begin(int s) const {
    int a = 0;
    for (int u = 0; u < s; ++u) a += stage_layers[static_cast<std::size_t>(u)];
    return a;
  }
  int stage_end(int s) const { return stage_begin(s) + stage_layers[static_cast<std::size_t>(s)]; }
};

struct Deployment {
  Side ctx, gen;
  int heads = 1;          // H, the model's KV heads
  int serving_group = 0;  // c: the ctx attention-DP group serving the request (0 without ctx ADP)
  int asking_group = 0;   // g: the gen attention-DP group asking (0 without gen ADP)
};

// Whether gen rank d takes part in the request: every gen rank without gen
// ADP, the ranks of TP rank g in each stage with it (SPEC §15.4).
inline bool asks(const Deployment& dep, int d) { return !dep.gen.adp || d % dep.gen.tp == dep.asking_group; }

// A side's stage layer counts written as the digits of one number (13: a
// stage of 1 layer, then one of 3), as a case argument carries them.
inline std::vector<int> stage_layers_of(long long digits) {
  std::vector<int> out;
  for (; digits > 0; digits /= 10) out.insert(out.begin(), static_cast<int>(digits % 10));
  return out.empty() ? std::vector<int>{kDefaultLayers} : out;
}

// A case's deployment and the rank it is about, from the binding's parameter
// names, as tpcheck and the child both read them: P, D, H; d a gen rank, p a
// ctx rank; ctx_layers, gen_layers the stage layer counts as digits;
// ctx_adp, gen_adp attention DP (0 or 1); c, g the serving and asking groups.
inline Deployment deployment_of(const std::vector<std::string>& names, const std::vector<long long>& args, int& rank) {
  Deployment dep;
  rank = 0;
  for (std::size_t k = 0; k < names.size() && k < args.size(); ++k) {
    const std::string& n = names[k];
    const int v = static_cast<int>(args[k]);
    if (n == "P") dep.ctx.tp = v;
    if (n == "D") dep.gen.tp = v;
    if (n == "H") dep.heads = v;
    if (n == "d" || n == "p") rank = v;
    if (n == "ctx_layers") dep.ctx.stage_layers = stage_layers_of(args[k]);
    if (n == "gen_layers") dep.gen.stage_layers = stage_layers_of(args[k]);
    if (n == "ctx_adp") dep.ctx.adp = v != 0;
    if (n == "gen_adp") dep.gen.adp = v != 0;
    if (n == "c") dep.serving_group = v;
    if (n == "g") dep.asking_group = v;
  }
  return dep;
}

// The PP splits the grid and the fuzzer try: every split of kPipelineLayers
// layers into at most kMaxStages stages, as digits (13: 1 layer, then 3).
inline constexpr int kPipelineLayers = 4;
inline constexpr int kMaxStages = 3;
inline std::vector<long long> layer_splits() {
  std::vector<long long> out;
  struct Split {
    std::vector<long long>& out;
    void operator()(int left, int stages, long long digits) const {
      if (left == 0) {
        out.push_back(digits);
        return;
      }
      if (stages == kMaxStages) return;
      for (int c = 1; c <= left; ++c) (*this)(left - c, stages + 1, digits * 10 + c);
    }
  };
  Split{out}(kPipelineLayers, 0, 0);
  return out;
}

inline bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// The C++ transceiver's documented constraint (SPEC §15.3): the TP size per
// attention-DP group a power of two on both sides.
inline bool cxx_accepts(const Deployment& dep) {
  return power_of_two(dep.ctx.tp_per_group()) && power_of_two(dep.gen.tp_per_group());
}

// Another documented constraint (SPEC §15.2), of the versions whose
// inquireSupport checks that each side's layer count is divisible by its PP
// size: they support only even stages, and refuse a deployment whose PP sizes
// differ where a side's layers cannot be split evenly over its stages.
inline bool even_stages_refusal(const Deployment& dep) {
  return dep.ctx.pp() != dep.gen.pp() &&
         (dep.ctx.layers() % dep.ctx.pp() != 0 || dep.gen.layers() % dep.gen.pp() != 0);
}
inline constexpr const char* kEvenStagesRule =
    "PP stages that cannot be even (a layer count not divisible by its PP size) where the two sides' PP sizes "
    "differ, refused by inquireSupport in versions that check it (a documented constraint, SPEC §15.2)";

// --- what the code did, as text -------------------------------------------------
// targetIRanks from gen rank d: the ctx ranks d connects to, and for each of
// them (in range) the gen ranks it waits for (its own targetIRanks for d's
// request) and the gen ranks that really connect to it.
struct TargetView {
  std::vector<int> connects;
  struct Peer {
    int rank = 0;
    std::vector<int> waits_for;
    std::vector<int> asked_by;
  };
  std::vector<Peer> peers;
};

// needSendCache of ctx rank p: the gen ranks that ask it, those it sends to,
// and those that pick it among their connections.
struct SendView {
  std::vector<int> asked_by, sends_to, picked_by;
};

// pickRecvConnections of gen rank d: its connections, which of them send to
// d, and the indices d picks.
struct PickView {
  std::vector<int> connects, senders;
  std::vector<long long> picks;
};

inline std::string render_list(const std::vector<int>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}
inline std::string render_list(const std::vector<long long>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

inline std::string render(const TargetView& v) {
  std::string out = "connects " + render_list(v.connects);
  for (const auto& p : v.peers) {
    out += "; ctx " + std::to_string(p.rank) + " waits for " + render_list(p.waits_for) + ", asked by " +
           render_list(p.asked_by);
  }
  return out;
}
inline std::string render(const SendView& v) {
  return "asked by " + render_list(v.asked_by) + "; sends to " + render_list(v.sends_to) + "; picked by " +
         render_list(v.picked_by);
}
inline std::string render(const PickView& v) {
  return "connects " + render_list(v.connects) + "; senders " + render_list(v.senders) + "; picks " +
         render_list(v.picks);
}

// Reading the text back (tpcheck's side): strict, nullopt on anything else.
class Reader {
 public:
  explicit Reader(const std::string& text) : text_(text) {}
  bool literal(const char* word) {
    const std::string w(word);
    if (text_.compare(at_, w.size(), w) != 0) return false;
    at_ += w.size();
    return true;
  }
  bool number(long long& out) {
    const std::size_t start = at_;
    if (at_ < text_.size() && text_[at_] == '-') ++at_;
    const std::size_t digits = at_;
    long long v = 0;
    while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9' && at_ - digits < 18) {
      v = v * 10 + (text_[at_++] - '0');
    }
    if (at_ == digits || (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9')) return false;
    out = text_[start] == '-' ? -v : v;
    return true;
  }
  template <class T>
  bool list(std::vector<T>& out) {
    out.clear();
    if (!literal("[")) return false;
    if (literal("]")) return true;
    for (;;) {
      long long v = 0;
      if (!number(v)) return false;
      out.push_back(static_cast<T>(v));
      if (literal("]")) return true;
      if (!literal(", ")) return false;
    }
  }
  bool done() const { return at_ == text_.size(); }

 private:
  const std::string& text_;
  std::size_t at_ = 0;
};

inline std::optional<TargetView> parse_target(const std::string& text) {
  Reader r(text);
  TargetView v;
  if (!r.literal("connects ") || !r.list(v.connects)) return std::nullopt;
  while (!r.done()) {
    TargetView::Peer p;
    long long rank = 0;
    if (!r.literal("; ctx ") || !r.number(rank) || !r.literal(" waits for ") || !r.list(p.waits_for) ||
        !r.literal(", asked by ") || !r.list(p.asked_by)) {
      return std::nullopt;
    }
    p.rank = static_cast<int>(rank);
    v.peers.push_back(std::move(p));
  }
  return v;
}
inline std::optional<SendView> parse_send(const std::string& text) {
  Reader r(text);
  SendView v;
  if (!r.literal("asked by ") || !r.list(v.asked_by) || !r.literal("; sends to ") || !r.list(v.sends_to) ||
      !r.literal("; picked by ") || !r.list(v.picked_by) || !r.done()) {
    return std::nullopt;
  }
  return v;
}
inline std::optional<PickView> parse_pick(const std::string& text) {
  Reader r(text);
  PickView v;
  if (!r.literal("connects ") || !r.list(v.connects) || !r.literal("; senders ") || !r.list(v.senders) ||
      !r.literal("; picks ") || !r.list(v.picks) || !r.done()) {
    return std::nullopt;
  }
  return v;
}

// --- the relations ----------------------------------------------------------------
// A deviation's kind (SPEC §15.2's spelling), or none; `refused` for a
// documented refusal, which is not compared.
struct Verdict {
  std::string kind;
  std::string expected;  // what the relation asks, in the same words as the actual text
  bool refused = false;
  std::string rule;  // the documented rule that refused, when the report names it apart
};

// SPEC §4's heads of rank t of T for a head-compatible (T, H): the model's
// heads() in standard C++, for the --fuzz target, which is built without
// tpcheck's model (tpcheck's tests hold the two equal).
struct StdHeads {
  std::pair<int, int> heads(int t, int T, int H) const {
    const int first = static_cast<int>(static_cast<long long>(t) * H / T);
    return {first, first + std::max(1, H / T)};
  }
};

// Model: heads(t, T, H) -> {first, end} of SPEC §4 for a head-compatible (T, H).
template <class Model>
struct Holdings {
  const Deployment& dep;
  const Model& model;

  // The layers and heads a rank of a side holds (SPEC §15.0, §15.4).
  struct Held {
    int layer_begin, layer_end, head_begin, head_end;
  };
  Held held(const Side& side, int rank) const {
    const int s = rank / side.tp, t = rank % side.tp;
    Held h{side.stage_begin(s), side.stage_end(s), 0, dep.heads};
    if (!side.adp) {
      const auto [first, end] = model.heads(t, side.tp, dep.heads);
      h.head_begin = first;
      h.head_end = end;
    }
    return h;
  }
  // The ranks of the serving ctx group: every ctx rank without ctx ADP, the
  // ranks of TP rank c in each stage with it.
  bool in_serving_group(int p) const {
    if (p < 0 || p >= dep.ctx.ranks()) return false;
    return !dep.ctx.adp || p % dep.ctx.tp == dep.serving_group;
  }
  bool is_gen_rank(int d) const { return d >= 0 && d < dep.gen.ranks(); }

  // How many of `sources` hold each (layer, head) of gen rank d: the least and the most.
  std::pair<int, int> holder_counts(int d, const std::vector<int>& sources) const {
    const auto mine = held(dep.gen, d);
    int least = 1 << 30, most = 0;
    for (int layer = mine.layer_begin; layer < mine.layer_end; ++layer) {
      for (int head = mine.head_begin; head < mine.head_end; ++head) {
        int holders = 0;
        for (const int p : sources) {
          const auto theirs = held(dep.ctx, p);
          holders += theirs.layer_begin <= layer && layer < theirs.layer_end && theirs.head_begin <= head &&
                     head < theirs.head_end;
        }
        least = std::min(least, holders);
        most = std::max(most, holders);
      }
    }
    return {least, most};
  }
  bool covered(int d, const std::vector<int>& sources) const { return holder_counts(d, sources).first > 0; }
};

inline bool same_set(std::vector<int> a, std::vector<int> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

inline bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

template <class Model>
Verdict judge_target(const Deployment& dep, int d, const TargetView& v, const Model& model) {
  const Holdings<Model> h{dep, model};
  Verdict out;
  for (const int p : v.connects) {
    if (!h.in_serving_group(p)) {
      out.kind = "rank_out_of_range";
      out.expected = "connects ctx ranks of the serving group only: [0, " + std::to_string(dep.ctx.ranks()) + ")" +
                     (dep.ctx.adp ? " with TP rank " + std::to_string(dep.serving_group) : "");
      return out;
    }
  }
  for (const auto& peer : v.peers) {
    if (!same_set(peer.waits_for, peer.asked_by)) {
      out.kind = "duality";
      out.expected = "ctx " + std::to_string(peer.rank) + " waits for " + render_list(peer.asked_by) +
                     ", the gen ranks that connect to it";
      return out;
    }
  }
  // The connections must hold every (layer, head) of d between them.
  if (!h.covered(d, v.connects)) {
    out.kind = "missing_heads";
    out.expected = "connects ctx ranks that together hold every (layer, head) of gen " + std::to_string(d);
  }
  return out;
}

template <class Model>
Verdict judge_send(const Deployment&, int, const SendView& v, const Model&) {
  Verdict out;
  for (const int d : v.sends_to) {
    if (!contains(v.picked_by, d)) {
      out.kind = "send_unpicked";
      out.expected = "sends to " + render_list(v.picked_by) + ", the gen ranks that pick it";
      return out;
    }
  }
  return out;
}

template <class Model>
Verdict judge_pick(const Deployment& dep, int d, const PickView& v, const Model& model) {
  const Holdings<Model> h{dep, model};
  Verdict out;
  std::vector<int> picked;
  for (const long long i : v.picks) {
    if (i < 0 || i >= static_cast<long long>(v.connects.size())) {
      out.kind = "rank_out_of_range";
      out.expected = "picks indices into its " + std::to_string(v.connects.size()) + " connections";
      return out;
    }
    picked.push_back(v.connects[static_cast<std::size_t>(i)]);
  }
  // A connection out of range is targetIRanks' deviation; what d picks among
  // such connections is not judged.
  for (const int p : v.connects) {
    if (!h.in_serving_group(p)) return out;
  }
  const std::string want = "picks the senders " + render_list(v.senders) +
                           ", together holding each (layer, head) of gen " + std::to_string(d) + " once";
  for (const int p : picked) {
    if (!contains(v.senders, p)) {
      out.kind = "recv_from_nonsender";
      out.expected = want;
      return out;
    }
  }
  const auto [least, most] = h.holder_counts(d, picked);
  if (least == 0 || most > 1) {
    out.kind = least == 0 ? "missing_heads" : "duplicate_source";
    out.expected = want;
    return out;
  }
  const auto mine = h.held(dep.gen, d);
  for (const int p : picked) {
    const auto theirs = h.held(dep.ctx, p);
    const bool shares = std::max(theirs.layer_begin, mine.layer_begin) < std::min(theirs.layer_end, mine.layer_end) &&
                        std::max(theirs.head_begin, mine.head_begin) < std::min(theirs.head_end, mine.head_end);
    if (!shares) {
      out.kind = "wrong_source";
      out.expected = want;
      return out;
    }
  }
  return out;
}

// inquireSupport on a sizing both sides serve (same data type, kv factor,
// tokens per block, size per head and layer count, not MLA, cp = 1): a
// refusal is a deviation unless it is the documented one of uneven stages.
inline Verdict judge_inquire(const Deployment& dep, bool supported) {
  Verdict out;
  if (supported) return out;
  if (even_stages_refusal(dep)) {
    out.refused = true;
    out.rule = kEvenStagesRule;
    return out;
  }
  out.kind = "rejects_valid";
  out.expected = "true";
  return out;
}

// A call that threw (or a deployment the version has no feature for): a TLLM_CHECK is the documented refusal of TP sizes per
// DP group that are not powers of two, and a refusal of a valid sizing
// otherwise; any other exception is a crash.
inline Verdict judge_raised(const Deployment& dep, const std::string& exception_class) {
  Verdict out;
  if (exception_class == "TPCHECK_UNSUPPORTED") {  // the version has no such feature (trtllm_observe.hpp)
    out.refused = true;
    return out;
  }
  if (exception_class != "TLLM_CHECK") {
    out.kind = "crashed";
  } else if (cxx_accepts(dep)) {
    out.kind = "rejects_valid";
  } else {
    out.refused = true;
  }
  out.expected = "no exception";
  return out;
}

}  // namespace tpcheck_trtllm
