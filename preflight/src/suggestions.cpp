// Suggestions (suggestions.hpp): a search outwards from the rejected sizing.
#include "tpcheck/preflight/suggestions.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <tuple>

#include "tpcheck/model.hpp"
#include "tpcheck/preflight/serving.hpp"

namespace tpcheck::preflight {

std::string_view keeps_name(Keeps k) {
  switch (k) {
    case Keeps::Prefill: return "prefill";
    case Keeps::Decode: return "decode";
    case Keeps::Total: return "total";
  }
  return "unknown";
}

namespace {

void widen(CountRange& r, std::int64_t v, bool first) {
  r.lo = first ? v : std::min(r.lo, v);
  r.hi = first ? v : std::max(r.hi, v);
}

// The nearest accepted sizing on one side of the current one, moving `step`
// (+1 or -1) at a time: `at(k)` is the k-th sizing from the current one, or
// nothing once past the budget or below size 1.
template <class At>
std::optional<std::pair<std::int64_t, std::int64_t>> nearest(Connector c, const ModelShape& m, AttentionDp adp, At at) {
  for (std::int64_t k = 1;; ++k) {
    const auto sizing = at(k);
    if (!sizing) return std::nullopt;
    if (serves(c, sizing->first, sizing->second, m, adp)) return sizing;
  }
}

ModelShape kv_only(std::int64_t H, bool mla) { return {{true, H, mla}, std::nullopt}; }

// The state's fan-in (a model without attention): each prefill rank's state
// serves its window, each decode rank copies from the prefill ranks of its plan.
FanIn state_fan_in(std::int64_t P, std::int64_t D, const HybridState& s) {
  FanIn f;
  for (std::int64_t p = 0; p < P; ++p) {
    const Outcome<Window<std::int64_t>> served = state_served<std::int64_t>(p, P, D, s.dims);
    widen(f.readers_per_prefill_rank, served.ok() ? static_cast<std::int64_t>(served.value().size()) : 0, p == 0);
  }
  for (std::int64_t d = 0; d < D; ++d) {
    const Outcome<std::vector<StateCopy<std::int64_t>>> plan = state_plan<std::int64_t>(d, P, D, s.dims);
    std::vector<std::int64_t> sources;
    if (plan.ok()) {
      for (const StateCopy<std::int64_t>& c : plan.value()) sources.push_back(c.p);
    }
    std::sort(sources.begin(), sources.end());
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
    widen(f.copies_per_decode_rank, static_cast<std::int64_t>(sources.size()), d == 0);
  }
  return f;
}

}  // namespace

bool serves(Connector c, std::int64_t P, std::int64_t D, std::int64_t H, bool mla, AttentionDp adp) {
  return serves(c, P, D, kv_only(H, mla), adp);
}

bool serves(Connector c, std::int64_t P, std::int64_t D, const ModelShape& m, AttentionDp adp) {
  const SizingVerdict v = kv_verdict(c, P, D, m.attention, adp);
  if (!v.outcome.ok() || v.misserved) return false;
  return !m.state || state_served(state_verdict(c, P, D, *m.state, m.attention));
}

FanIn fan_in(Connector c, std::int64_t P, std::int64_t D, std::int64_t H, bool mla, AttentionDp adp) {
  return fan_in(c, P, D, kv_only(H, mla), adp);
}

FanIn fan_in(Connector c, std::int64_t P_all, std::int64_t D_all, const ModelShape& m, AttentionDp adp) {
  if (!m.attention.present && m.state) return state_fan_in(P_all, D_all, *m.state);
  const std::int64_t H = m.attention.kv_heads;
  const bool mla = m.attention.mla;
  const std::int64_t P = adp.prefill ? 1 : P_all, D = adp.decode ? 1 : D_all;
  FanIn f;
  for (std::int64_t p = 0; p < P; ++p) {
    const Outcome<std::int64_t> n = c == Connector::MoRIIO ? single_readers<std::int64_t>(p, P, D)
                                                           : readers<std::int64_t>(p, P, D, H, mla);
    widen(f.readers_per_prefill_rank, n.ok() ? n.value() : 0, p == 0);
  }
  for (std::int64_t d = 0; d < D; ++d) {
    const Outcome<std::int64_t> n = plan_copy_count<std::int64_t>(d, P, D, H, mla);
    widen(f.copies_per_decode_rank, n.ok() ? n.value() : 0, d == 0);
  }
  return f;
}

std::vector<Suggestion> suggest(Connector c, std::int64_t P, std::int64_t D, std::int64_t H, bool mla,
                                std::int64_t max_gpus, AttentionDp adp) {
  return suggest(c, P, D, kv_only(H, mla), max_gpus, adp);
}

std::vector<Suggestion> suggest(Connector c, std::int64_t P, std::int64_t D, const ModelShape& m, std::int64_t max_gpus,
                                AttentionDp adp) {
  using Sizing = std::optional<std::pair<std::int64_t, std::int64_t>>;
  const auto within = [&](std::int64_t p, std::int64_t d) -> Sizing {
    if (p < 1 || d < 1 || p + d > max_gpus) return std::nullopt;
    return std::pair{p, d};
  };
  std::vector<std::pair<Keeps, Sizing>> found;
  for (const std::int64_t step : {-1, 1}) {
    found.emplace_back(Keeps::Prefill, nearest(c, m, adp, [&](std::int64_t k) { return within(P, D + step * k); }));
    found.emplace_back(Keeps::Decode, nearest(c, m, adp, [&](std::int64_t k) { return within(P + step * k, D); }));
    if (P + D <= max_gpus) {
      found.emplace_back(Keeps::Total,
                         nearest(c, m, adp, [&](std::int64_t k) { return within(P + step * k, D - step * k); }));
    }
  }
  std::vector<Suggestion> out;
  for (const auto& [keeps, sizing] : found) {
    if (!sizing) continue;
    const auto [p, d] = *sizing;
    out.push_back({p, d, keeps, std::llabs(p - P) + std::llabs(d - D), fan_in(c, p, d, m, adp)});
  }
  std::sort(out.begin(), out.end(), [](const Suggestion& a, const Suggestion& b) {
    return std::tuple(a.change, a.keeps, a.prefill_tp + a.decode_tp, a.prefill_tp) <
           std::tuple(b.change, b.keeps, b.prefill_tp + b.decode_tp, b.prefill_tp);
  });
  return out;
}

std::vector<std::int64_t> head_counts_both_shard(std::int64_t P, std::int64_t D, std::size_t count) {
  // A count both sides shard divides max(P, D) or is a multiple of lcm(P, D):
  // below max(P, D) try each, past it step through the multiples of the lcm.
  std::vector<std::int64_t> out;
  const auto both = [&](std::int64_t h) {
    return head_compatible<std::int64_t>(P, h) && head_compatible<std::int64_t>(D, h);
  };
  const std::int64_t lcm = std::lcm(P, D);
  for (std::int64_t h = 1; out.size() < count && h <= std::max(P, D); ++h) {
    if (both(h)) out.push_back(h);
  }
  for (std::int64_t h = (std::max(P, D) / lcm + 1) * lcm; out.size() < count; h += lcm) out.push_back(h);
  return out;
}

}  // namespace tpcheck::preflight
