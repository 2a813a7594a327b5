// When a connector rejects a sizing, the nearest sizings it accepts: keeping
// the prefill size, keeping the decode size, or keeping the total GPU count,
// within a GPU budget, ordered by how little they change.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tpcheck/deployment.hpp"
#include "tpcheck/preflight/state_rules.hpp"

namespace tpcheck::preflight {

// The smallest and largest of a per-rank count.
struct CountRange {
  std::int64_t lo = 0, hi = 0;
  bool operator==(const CountRange&) const = default;
};

// What a deployment of an accepted sizing waits for: the decode ranks that
// read from each prefill rank (the completions it waits for before freeing
// blocks; MoRIIO's single-source count for moriio, the general plan's
// otherwise) and the copies each decode rank makes.
struct FanIn {
  CountRange readers_per_prefill_rank;
  CountRange copies_per_decode_rank;
  bool operator==(const FanIn&) const = default;
};

enum class Keeps { Prefill, Decode, Total };
std::string_view keeps_name(Keeps k);  // "prefill", "decode", "total"

struct Suggestion {
  std::int64_t prefill_tp = 0, decode_tp = 0;
  Keeps keeps = Keeps::Prefill;
  std::int64_t change = 0;  // |P' - P| + |D' - D|
  FanIn fan_in;
  bool operator==(const Suggestion&) const = default;
};

// Fan-in of a sizing the connector accepts, inside one request (under
// attention DP a request is one DP group a side). O(P + D).
FanIn fan_in(Connector c, std::int64_t P, std::int64_t D, std::int64_t H, bool mla, AttentionDp adp = {});

// Whether the connector accepts the sizing and serves it correctly (no misservice).
bool serves(Connector c, std::int64_t P, std::int64_t D, std::int64_t H, bool mla, AttentionDp adp = {});

// The same for a model's shape: the KV served (kv_verdict) and its recurrent
// state, if any, served (state_verdict). Without attention the fan-in is the
// state's: the decode ranks each prefill rank's state serves, the prefill
// ranks each decode rank's state plan copies from.
bool serves(Connector c, std::int64_t P, std::int64_t D, const ModelShape& m, AttentionDp adp = {});
FanIn fan_in(Connector c, std::int64_t P, std::int64_t D, const ModelShape& m, AttentionDp adp = {});
std::vector<Suggestion> suggest(Connector c, std::int64_t P, std::int64_t D, const ModelShape& m, std::int64_t max_gpus,
                                AttentionDp adp = {});

// For each of the three kinds, the nearest sizing the connector serves (below
// and above, P' + D' <= max_gpus), ordered by change, then kind, then GPU count.
std::vector<Suggestion> suggest(Connector c, std::int64_t P, std::int64_t D, std::int64_t H, bool mla,
                                std::int64_t max_gpus, AttentionDp adp = {});

// The `count` smallest head counts that both P and D ranks shard (§4), for
// which the general rule serves P -> D.
std::vector<std::int64_t> head_counts_both_shard(std::int64_t P, std::int64_t D, std::size_t count);

}  // namespace tpcheck::preflight
