// Misserved sizings in ranks (serving.hpp).
#include "tpcheck/preflight/serving.hpp"

#include <algorithm>
#include <vector>

#include "tpcheck/stages.hpp"

namespace tpcheck::preflight {

SglangUnserved sglang_unserved(std::int64_t P, std::int64_t D) {
  SglangUnserved out;
  std::vector<bool> targeted(static_cast<std::size_t>(std::max<std::int64_t>(P, 0)), false);
  bool any_missing = false;
  for (std::int64_t d = 0; d < D; ++d) {
    const Outcome<Span<std::int64_t>> t = sglang_target_ranks<std::int64_t>(d, P, D);
    if (!t.ok()) continue;
    for (std::int64_t p = t.value().first; p < std::min(t.value().end, P); ++p) targeted[static_cast<std::size_t>(p)] = true;
    if (t.value().end <= P) continue;
    if (!any_missing) {
      out.decode_ranks.first = d;
      out.missing_targets.first = std::max(t.value().first, P);
    }
    any_missing = true;
    out.decode_ranks.end = d + 1;
    out.missing_targets.end = t.value().end;
  }
  // The resolver's targets ascend: the untargeted ranks are the last ones.
  const auto first_untargeted = std::find(targeted.begin(), targeted.end(), false);
  if (first_untargeted != targeted.end()) {
    out.untargeted = {static_cast<std::int64_t>(first_untargeted - targeted.begin()), P};
  }
  return out;
}

SizingVerdict kv_verdict(Connector c, std::int64_t P, std::int64_t D, const AttentionShape& a, AttentionDp adp) {
  if (a.present) return sizing_verdict<std::int64_t>(c, P, D, a.kv_heads, a.mla, adp);
  SizingVerdict v = sizing_verdict<std::int64_t>(c, P, D, 1, false, adp);
  if (v.reason == Rejection::NixlReplicaRule) return {None{}, std::nullopt, std::nullopt};
  return v;
}

std::string ranks_text(const Span<std::int64_t>& r) {
  const std::int64_t n = r.end - r.first;
  if (n == 1) return std::to_string(r.first);
  if (n == 2) return std::to_string(r.first) + " and " + std::to_string(r.first + 1);
  if (n == 3) return std::to_string(r.first) + ", " + std::to_string(r.first + 1) + " and " + std::to_string(r.first + 2);
  return std::to_string(r.first) + " to " + std::to_string(r.end - 1);
}

namespace {

std::string ranks_noun(const char* side, const Span<std::int64_t>& r) {
  return std::string(side) + (r.end - r.first == 1 ? " rank " : " ranks ") + ranks_text(r);
}

}  // namespace

std::string misservice_text(Connector c, Misservice how, std::int64_t P, std::int64_t D, AttentionDp adp) {
  if (c == Connector::SGLang) {
    const SglangUnserved u = sglang_unserved(P, D);
    if (how == Misservice::TargetsMissingPrefillRanks) {
      const bool one = u.decode_ranks.end - u.decode_ranks.first == 1;
      return ranks_noun("decode", u.decode_ranks) + (one ? " targets " : " target ") +
             ranks_noun("prefill", u.missing_targets) +
             (u.missing_targets.end - u.missing_targets.first == 1 ? ", which does not exist" : ", which do not exist") +
             " (prefill TP is " + std::to_string(P) + "): " + (one ? "its requests fail" : "their requests fail") +
             " at the bootstrap lookup";
    }
    const bool one = u.untargeted.end - u.untargeted.first == 1;
    return ranks_noun("prefill", u.untargeted) + (one ? " is" : " are") +
           " targeted by no decode rank: " + (one ? "it never receives" : "they never receive") +
           " a registration for a request and stall";
  }
  const std::int64_t P1 = adp.prefill ? 1 : P, D1 = adp.decode ? 1 : D;
  return "prefill TP " + std::to_string(P1) + " and decode TP " + std::to_string(D1) +
         (adp.prefill || adp.decode ? " per attention-DP group" : "") +
         " do not divide each other; the Python transceiver checks no divisibility, and its overlaps are correct only "
         "on pairs that divide";
}

}  // namespace tpcheck::preflight
