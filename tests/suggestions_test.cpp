// Suggestions when a connector rejects a sizing (preflight/suggestions.hpp):
// the manual's example, and on every small sizing that each suggestion is
// accepted, keeps what it says, is the nearest of its kind, and reports the
// fan-in the model gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "tpcheck/model.hpp"
#include "tpcheck/preflight/suggestions.hpp"

namespace tpcheck::preflight {
namespace {

using Sizings = std::vector<std::pair<std::int64_t, std::int64_t>>;

Sizings sizings(const std::vector<Suggestion>& s) {
  Sizings out;
  for (const Suggestion& x : s) out.emplace_back(x.prefill_tp, x.decode_tp);
  return out;
}

bool accepts(Connector c, std::int64_t P, std::int64_t D, std::int64_t H, bool mla) {
  return sizing_accepted<std::int64_t>(c, P, D, H, mla).ok();
}

// The manual's example (docs/sizing-a-deployment.md): 4 -> 6 with 8 KV heads.
TEST(Suggestions, FourToSixWithEightHeads) {
  const Sizings divisible = {{4, 4}, {4, 8}, {2, 8}, {8, 2}};
  EXPECT_EQ(sizings(suggest(Connector::Nixl, 4, 6, 8, false, 20)), divisible);
  EXPECT_EQ(sizings(suggest(Connector::Mooncake, 4, 6, 8, false, 20)), divisible);
  // MoRIIO's head guard: equal sizes only, unless min(P, D) >= 8.
  EXPECT_EQ(sizings(suggest(Connector::MoRIIO, 4, 6, 8, false, 20)), (Sizings{{4, 4}}));
  EXPECT_EQ(sizings(suggest(Connector::MoRIIO, 4, 6, 8, false, 40)), (Sizings{{4, 4}}));  // min(4, D) < 8 always
  EXPECT_EQ(sizings(suggest(Connector::MoRIIO, 8, 12, 8, false, 40)), (Sizings{{8, 8}, {8, 16}}));
  const std::vector<Suggestion> nixl = suggest(Connector::Nixl, 4, 6, 8, false, 20);
  EXPECT_EQ(nixl[1].keeps, Keeps::Prefill);
  EXPECT_EQ(nixl[1].change, 2);
  EXPECT_EQ(nixl[1].fan_in.readers_per_prefill_rank, (CountRange{2, 2}));  // D/P decode ranks read each prefill rank
  EXPECT_EQ(nixl[3].fan_in.copies_per_decode_rank, (CountRange{4, 4}));    // 8 -> 2: four sources per decode rank
  EXPECT_EQ(nixl[2].keeps, Keeps::Total);
}

TEST(Suggestions, NixlReplicaRuleIsAvoided) {
  // 4 -> 2 with 2 heads: NIXL refuses; keeping decode 2 it takes prefill 2.
  const std::vector<Suggestion> s = suggest(Connector::Nixl, 4, 2, 2, false, 12);
  EXPECT_EQ(sizings(s), (Sizings{{4, 4}, {2, 2}, {2, 4}}));
  // MoRIIO counts each prefill rank's readers with its single source: 0 or 1 when P > D.
  EXPECT_EQ(fan_in(Connector::MoRIIO, 8, 2, 2, false).readers_per_prefill_rank, (CountRange{0, 1}));
  EXPECT_EQ(fan_in(Connector::General, 4, 6, 12, false).copies_per_decode_rank, (CountRange{1, 2}));
}

// Every suggestion on every small rejected sizing: accepted, within budget,
// keeps what it says, nothing nearer of its kind on its side, sorted, with
// the model's fan-in. Counts the kinds met so the check is not vacuous.
TEST(Suggestions, NearestAcceptedOfEachKindOnEverySmallSizing) {
  int rejected = 0, suggested[3] = {0, 0, 0};
  for (const Connector c : kConnectors) {
    for (const bool mla : {false, true}) {
      for (std::int64_t H : {1, 2, 4, 6, 8, 12}) {
        if (mla && H > 1) continue;
        for (std::int64_t P = 1; P <= 12; ++P) {
          for (std::int64_t D = 1; D <= 12; ++D) {
            if (accepts(c, P, D, H, mla)) continue;
            ++rejected;
            const std::int64_t budget = 2 * (P + D);
            const std::vector<Suggestion> s = suggest(c, P, D, H, mla, budget);
            for (std::size_t i = 0; i < s.size(); ++i) {
              const Suggestion& x = s[i];
              SCOPED_TRACE(testing::Message() << connector_name(c) << " P=" << P << " D=" << D << " H=" << H
                                              << " mla=" << mla << " -> " << x.prefill_tp << ", " << x.decode_tp);
              ++suggested[static_cast<int>(x.keeps)];
              EXPECT_TRUE(accepts(c, x.prefill_tp, x.decode_tp, H, mla));
              EXPECT_LE(x.prefill_tp + x.decode_tp, budget);
              if (x.keeps == Keeps::Prefill) {
                EXPECT_EQ(x.prefill_tp, P);
              }
              if (x.keeps == Keeps::Decode) {
                EXPECT_EQ(x.decode_tp, D);
              }
              if (x.keeps == Keeps::Total) {
                EXPECT_EQ(x.prefill_tp + x.decode_tp, P + D);
              }
              EXPECT_EQ(x.change, std::llabs(x.prefill_tp - P) + std::llabs(x.decode_tp - D));
              if (i > 0) {
                EXPECT_LE(s[i - 1].change, x.change);
              }
              // Nothing of the same kind strictly between the sizing and the suggestion.
              const std::int64_t moved = x.keeps == Keeps::Prefill ? x.decode_tp - D : x.prefill_tp - P;
              const std::int64_t step = moved > 0 ? 1 : -1;
              for (std::int64_t k = 1; k < std::llabs(moved); ++k) {
                const std::int64_t p = x.keeps == Keeps::Prefill ? P : P + step * k;
                const std::int64_t d = x.keeps == Keeps::Prefill ? D + step * k
                                       : x.keeps == Keeps::Decode ? D
                                                                  : D - step * k;
                EXPECT_FALSE(accepts(c, p, d, H, mla)) << "nearer: " << p << ", " << d;
              }
              // Fan-in is the model's, rank by rank.
              std::int64_t lo = INT64_MAX, hi = 0;
              for (std::int64_t p = 0; p < x.prefill_tp; ++p) {
                const std::int64_t n = c == Connector::MoRIIO ? single_readers<std::int64_t>(p, x.prefill_tp, x.decode_tp).value()
                                                              : readers<std::int64_t>(p, x.prefill_tp, x.decode_tp, H, mla).value();
                lo = std::min(lo, n);
                hi = std::max(hi, n);
              }
              EXPECT_EQ(x.fan_in.readers_per_prefill_rank, (CountRange{lo, hi}));
            }
          }
        }
      }
    }
  }
  EXPECT_GT(rejected, 1000);
  for (const int n : suggested) EXPECT_GT(n, 100);
}

TEST(Suggestions, HeadCountsBothSidesShard) {
  EXPECT_EQ(head_counts_both_shard(4, 6, 4), (std::vector<std::int64_t>{1, 2, 12, 24}));
  EXPECT_EQ(head_counts_both_shard(4, 8, 5), (std::vector<std::int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(head_counts_both_shard(3, 6, 4), (std::vector<std::int64_t>{1, 3, 6, 12}));
  // Against trying every count, on every small pair.
  for (std::int64_t P = 1; P <= 24; ++P) {
    for (std::int64_t D = 1; D <= 24; ++D) {
      std::vector<std::int64_t> expected;
      for (std::int64_t h = 1; expected.size() < 6; ++h) {
        if (head_compatible<std::int64_t>(P, h) && head_compatible<std::int64_t>(D, h)) expected.push_back(h);
      }
      EXPECT_EQ(head_counts_both_shard(P, D, 6), expected) << P << ", " << D;
    }
  }
}

}  // namespace
}  // namespace tpcheck::preflight
