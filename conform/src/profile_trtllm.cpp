// The profile trtllm as data (SPEC §15.2): TensorRT-LLM's C++ transceiver,
// compiled from source.
#include <functional>

#include "tpcheck/conform/profile.hpp"
#include "tpcheck/model.hpp"
#include "trtllm_judge.hpp"

namespace tpcheck::conform {
namespace {

const ParamSpec kP{"P", ParamKind::Size, {}};
const ParamSpec kD{"D", ParamKind::Size, {}};
const ParamSpec kHeadsOfBoth{"H", ParamKind::HeadCount, {"P", "D"}};

// Which rank a binding's cases are about.
enum class TransceiverRank { Gen, Ctx, None };

// The deployments of SPEC §15.2's cases: every TP size pair and head count
// with one PP stage and no attention DP; then, on sizes 1, 2, 4, every split
// of 4 layers into up to 3 stages on either side, and attention DP on either
// side or both with every serving and asking group. Each deployment's ranks
// are cases of their own. Arguments in the order of trtllm_params().
std::vector<CaseArgs> transceiver_cases(const GridBounds& bounds, TransceiverRank rank) {
  std::vector<CaseArgs> out;
  auto add = [&](int P, int D, int H, long long ctx_layers, long long gen_layers, int ctx_adp, int gen_adp, int c,
                 int g) {
    auto stages = [](long long digits) {
      int n = 0;
      for (; digits > 0; digits /= 10) ++n;
      return n;
    };
    CaseArgs base = {P, D, H, ctx_layers, gen_layers, ctx_adp, gen_adp, c, g};
    if (rank == TransceiverRank::None) {
      out.push_back(base);
      return;
    }
    // Under attention DP only the asking gen group and the serving ctx group take part.
    const bool gen = rank == TransceiverRank::Gen;
    const int ranks = gen ? D * stages(gen_layers) : P * stages(ctx_layers);
    for (int r = 0; r < ranks; ++r) {
      if (gen ? gen_adp && r % D != g : ctx_adp && r % P != c) continue;
      out.push_back(base);
      out.back().push_back(r);
    }
  };
  const int single = tpcheck_trtllm::kDefaultLayers;  // one stage
  for (int P = 1; P <= bounds.max_tp; ++P) {
    for (int D = 1; D <= bounds.max_tp; ++D) {
      for (int H = 1; H <= bounds.max_heads; ++H) {
        if (head_compatible<std::int64_t>(P, H) && head_compatible<std::int64_t>(D, H)) {
          add(P, D, H, single, single, 0, 0, 0, 0);
        }
      }
    }
  }
  const auto splits = tpcheck_trtllm::layer_splits();
  for (const int P : {1, 2, 4}) {
    for (const int D : {1, 2, 4}) {
      if (P > bounds.max_tp || D > bounds.max_tp) continue;
      for (int H = 1; H <= std::min(4, bounds.max_heads); ++H) {
        if (!head_compatible<std::int64_t>(P, H) || !head_compatible<std::int64_t>(D, H)) continue;
        for (const auto ctx : splits) {
          for (const auto gen : splits) {
            if (ctx >= 10 || gen >= 10) add(P, D, H, ctx, gen, 0, 0, 0, 0);
          }
        }
        for (const auto& [ctx_adp, gen_adp] : {std::pair{1, 0}, std::pair{0, 1}, std::pair{1, 1}}) {
          for (int c = 0; c < (ctx_adp ? P : 1); ++c) {
            for (int g = 0; g < (gen_adp ? D : 1); ++g) add(P, D, H, single, single, ctx_adp, gen_adp, c, g);
          }
        }
      }
    }
  }
  return out;
}

Binding transceiver(std::string name, TransceiverRank rank) {
  std::vector<ParamSpec> params = {kP, kD, kHeadsOfBoth};
  for (const char* n : {"ctx_layers", "gen_layers"}) params.push_back({n, ParamKind::Size, {}});
  for (const char* n : {"ctx_adp", "gen_adp"}) params.push_back({n, ParamKind::Flag, {}});
  for (const char* n : {"c", "g"}) params.push_back({n, ParamKind::Size, {}});
  if (rank == TransceiverRank::Gen) params.push_back({"d", ParamKind::Rank, {"D"}});
  if (rank == TransceiverRank::Ctx) params.push_back({"p", ParamKind::Rank, {"P"}});
  Binding b = shaped_binding(name, std::move(params), Relation::TrtllmTransceiver);
  b.child = ChildKind::Cxx;
  b.model_op = "plan";
  b.call.functions = {std::move(name)};
  b.cases = [rank](const GridBounds& bounds) { return transceiver_cases(bounds, rank); };
  return b;
}

std::vector<Binding> trtllm() {
  return {transceiver("targetIRanks", TransceiverRank::Gen),
          transceiver("CacheFormatter::needSendCache", TransceiverRank::Ctx),
          transceiver("CacheFormatter::pickRecvConnections", TransceiverRank::Gen),
          transceiver("CacheFormatter::inquireSupport", TransceiverRank::None)};
}

}  // namespace

std::vector<Binding> trtllm_bindings() { return trtllm(); }

}  // namespace tpcheck::conform
