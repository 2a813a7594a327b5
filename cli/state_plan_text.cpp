#include "state_plan_text.hpp"

#include "tpcheck/json.hpp"
#include "tpcheck/preflight/serving.hpp"
#include "tpcheck/render.hpp"

namespace tpcheck::cli {
namespace {

using I = std::int64_t;
using U = preflight::StateUnits;

// A copy in the words of the plan: its segment's name, the logical units it
// moves, whether the source holds the segment whole (replicated).
struct CopyTerms {
  std::string segment;  // "x", ..., "ssm"
  U lo{}, hi{};         // logical channels within the segment, or heads
  bool replicated = false;
  bool ssm = false;
};

CopyTerms terms_of(const StateCopy<I>& c, const RankState<I>& prefill) {
  if (c.segment >= prefill.segment_count) {
    const U lo = U(U(prefill.first_head(c.p)) + c.src);
    return {kSsmSegment, lo, U(lo + c.n), false, true};
  }
  const ConvSegment<I>& seg = prefill.conv[c.segment];
  const U lo = U(prefill.start(c.p, c.segment) + (c.src - seg.loc));
  return {seg.name, lo, U(lo + c.n), seg.replicated, false};
}

std::string range(const U& lo, const U& hi) { return "[" + render(lo) + ", " + render(hi) + ")"; }

// A copy's byte runs under the sides' layout, as (src, dst, length).
std::vector<ByteRun<I>> runs_of(const StateCopy<I>& c, const StateByteSides& b) {
  std::vector<ByteRun<I>> out;
  for_each_copy_run(c, b.prefill, b.decode, [&](const ByteRun<I>& run) {
    out.push_back(run);
    return true;
  });
  return out;
}

std::string runs_text(const std::vector<ByteRun<I>>& runs, const StateByteSides& b) {
  const bool page = b.layout != "sglang";
  const bool ssm = !runs.empty() && runs.front().part == StatePart::Ssm;
  std::string out = std::string("    bytes of the ") + (page ? "page" : ssm ? "SSM slot" : "conv slot") + ":";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const ByteRun<I>& r = runs[i];
    out += std::string(i ? ", " : " ") + render(r.src) + ".." + render(U(r.src + r.length)) + " -> " + render(r.dst) +
           ".." + render(U(r.dst + r.length));
  }
  return out + "\n";
}

std::vector<StateCopy<I>> copies_of(const preflight::HybridState& s, I P, I D, I d) {
  return state_plan<I>(d, P, D, s.dims).value();
}

}  // namespace

std::variant<StateByteSides, std::string> state_byte_sides(const preflight::HybridState& s, const std::string& layout,
                                                           I P, I D) {
  const bool sglang = layout == "sglang";
  const Connector engine = sglang ? Connector::SGLang : Connector::General;
  const ConvOrder order = layout == "ds"                                         ? ConvOrder::DimFirst
                          : layout == "sd"                                       ? ConvOrder::StateFirst
                          : s.dims.family == StateFamily::Kda                    ? ConvOrder::StateFirst
                                                                                 : ConvOrder::DimFirst;
  const StateContainer container = sglang ? StateContainer::SglangPool : StateContainer::VllmPage;
  const StateFamily family = s.dims.family;
  const I ssm_p = preflight::ssm_element_bytes(s.prefill, engine, family);
  const I ssm_d = preflight::ssm_element_bytes(s.decode, engine, family);
  const Outcome<None> pairing =
      state_pairing<I>(s.prefill.window, s.decode.window, s.prefill.conv_bytes, s.decode.conv_bytes, ssm_p, ssm_d);
  if (!pairing.ok()) return "--state-bytes " + layout + ": " + preflight::failure_line(pairing.failure());
  const auto p = preflight::side_state_bytes(P, s.dims, order, container, s.prefill.window, s.prefill.conv_bytes, ssm_p);
  const auto d = preflight::side_state_bytes(D, s.dims, order, container, s.decode.window, s.decode.conv_bytes, ssm_d);
  if (!p.ok()) return "--state-bytes " + layout + ": " + preflight::failure_line(p.failure());
  if (!d.ok()) return "--state-bytes " + layout + ": " + preflight::failure_line(d.failure());
  return StateByteSides{layout, p.value(), d.value()};
}

std::string state_plan_text(const preflight::HybridState& s, I P, I D, I d, const std::optional<StateByteSides>& bytes) {
  const RankState<I> prefill = state_ownership<I>(P, s.dims).value();
  std::string out = "  state:";
  const std::vector<SegmentRange<I>> own = segments<I>(d, D, s.dims).value();
  for (std::size_t i = 0; i < own.size(); ++i) {
    out += std::string(i ? ", " : " ") + own[i].name + " " + range(own[i].lo, own[i].hi) +
           (own[i].replicated ? " (replicated)" : "");
  }
  out += "\n";
  for (const StateCopy<I>& c : copies_of(s, P, D, d)) {
    const CopyTerms t = terms_of(c, prefill);
    const std::string units = t.ssm ? "heads" : "channels";
    out += "  state " + t.segment + " " + range(t.lo, t.hi) + " from prefill rank " + render(c.p) +
           (t.replicated ? " (which holds it whole: once, from the first rank of the window)" : "") + ": " + units + " " +
           render(c.src) + ".." + render(U(c.src + c.n)) + " of its " + (t.ssm ? "SSM" : "conv") + " state to " +
           render(c.dst) + ".." + render(U(c.dst + c.n)) + " of this one\n";
    if (bytes) out += runs_text(runs_of(c, *bytes), *bytes);
  }
  return out;
}

std::string state_plan_json(const preflight::HybridState& s, I P, I D, I d, const std::optional<StateByteSides>& bytes) {
  const RankState<I> prefill = state_ownership<I>(P, s.dims).value();
  std::string out = "{\"rank\": " + std::to_string(d) + ", \"segments\": [";
  const std::vector<SegmentRange<I>> own = segments<I>(d, D, s.dims).value();
  for (std::size_t i = 0; i < own.size(); ++i) {
    out += std::string(i ? ", " : "") + "{\"name\": " + json_string(own[i].name) + ", \"logical\": [" +
           render(own[i].lo) + ", " + render(own[i].hi) + "], \"local_lo\": " + render(own[i].local_lo) +
           ", \"replicated\": " + (own[i].replicated ? "true" : "false") + "}";
  }
  out += "], \"copies\": [";
  const std::vector<StateCopy<I>> copies = copies_of(s, P, D, d);
  for (std::size_t i = 0; i < copies.size(); ++i) {
    const StateCopy<I>& c = copies[i];
    const CopyTerms t = terms_of(c, prefill);
    out += std::string(i ? ", " : "") + "{\"segment\": " + json_string(t.segment) + ", \"prefill_rank\": " +
           render(c.p) + ", \"logical\": [" + render(t.lo) + ", " + render(t.hi) + "], \"replicated\": " +
           (t.replicated ? "true" : "false") + ", \"source_units\": [" + render(c.src) + ", " + render(U(c.src + c.n)) +
           "], \"dest_units\": [" + render(c.dst) + ", " + render(U(c.dst + c.n)) + "], \"bytes\": ";
    if (!bytes) {
      out += "null}";
      continue;
    }
    const std::vector<ByteRun<I>> runs = runs_of(c, *bytes);
    out += "[";
    for (std::size_t k = 0; k < runs.size(); ++k) {
      out += std::string(k ? ", " : "") + "[" + render(runs[k].src) + ", " + render(runs[k].dst) + ", " +
             render(runs[k].length) + "]";
    }
    out += "]}";
  }
  return out + "]}";
}

std::string state_served_text(const preflight::HybridState& s, I P, I D, I p) {
  const Window<I> served = state_served<I>(p, P, D, s.dims).value();
  const Span<I> ranks{served.front(), served.back() + 1};
  return std::string("its state serves decode rank") + (served.size() == 1 ? " " : "s ") + preflight::ranks_text(ranks);
}

std::string state_served_json(const preflight::HybridState& s, I P, I D, I p) {
  const Window<I> served = state_served<I>(p, P, D, s.dims).value();
  std::string out = "[";
  for (std::size_t i = 0; i < served.size(); ++i) out += (i ? ", " : "") + std::to_string(served[i]);
  return out + "]";
}

}  // namespace tpcheck::cli
