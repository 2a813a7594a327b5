// The profile trtllm as data (SPEC §15.2): TensorRT-LLM's C++ transceiver,
// compiled from source.
#include <functional>

#include "cxx/trtllm_judge.hpp"
#include "tpcheck/conform/profile.hpp"
#include "tpcheck/model.hpp"
#include "trtllm.hpp"

namespace tpcheck::conform {
namespace {

const ParamSpec kP{"P", ParamKind::Size, {}};
const ParamSpec kD{"D", ParamKind::Size, {}};
const ParamSpec kHeadsOfBoth{"H", ParamKind::HeadCount, {"P", "D"}};

// Which rank a binding's cases are about.
enum class TransceiverRank { Gen, Ctx, None };

// Ranks of each of the deployments for the C++ transceiver's bindings: every
// rank of the side the binding is about that takes part in the request.
std::vector<CaseArgs> transceiver_cases(const GridBounds& bounds, TransceiverRank rank) {
  std::vector<CaseArgs> out;
  auto stages = [](const BigInt& digits) { return static_cast<int>(tpcheck_trtllm::stage_layers_of(static_cast<long long>(digits)).size()); };
  for (const CaseArgs& base : trtllm_deployments(bounds, false)) {
    if (rank == TransceiverRank::None) {
      out.push_back(base);
      continue;
    }
    const auto P = static_cast<int>(base[0]), D = static_cast<int>(base[1]);
    const bool ctx_adp = base[5] != 0, gen_adp = base[6] != 0;
    const auto c = static_cast<int>(base[7]), g = static_cast<int>(base[8]);
    // Under attention DP only the asking gen group and the serving ctx group take part.
    const bool gen = rank == TransceiverRank::Gen;
    const int ranks = gen ? D * stages(base[4]) : P * stages(base[3]);
    for (int r = 0; r < ranks; ++r) {
      if (gen ? gen_adp && r % D != g : ctx_adp && r % P != c) continue;
      out.push_back(base);
      out.back().push_back(r);
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
  Binding b = shaped_binding(name, std::move(params), kTrtllmTransceiver);
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

// The deployments of SPEC §15.2's and §15.1's cases: every TP size pair and
// head count with one PP stage and no attention DP; then, on sizes 1, 2, 4
// and up to 4 heads, every split of 4 layers into up to 3 stages on either
// side, and attention DP on either side or both with every serving and asking
// group. With `mla`, each of them under MLA too (H = 1). Arguments: P, D,
// H, [MLA,] ctx_layers, gen_layers (stage layer counts as digits), ctx_adp,
// gen_adp, c, g.
std::vector<CaseArgs> trtllm_deployments(const GridBounds& bounds, bool mla) {
  std::vector<CaseArgs> out;
  auto add = [&](int P, int D, int H, int with_mla, long long ctx_layers, long long gen_layers, int ctx_adp,
                 int gen_adp, int c, int g) {
    out.push_back({P, D, H});
    if (mla) out.back().push_back(with_mla);
    for (const long long v : {ctx_layers, gen_layers, static_cast<long long>(ctx_adp), static_cast<long long>(gen_adp),
                              static_cast<long long>(c), static_cast<long long>(g)}) {
      out.back().push_back(v);
    }
  };
  const int single = tpcheck_trtllm::kDefaultLayers;  // one stage
  for (int P = 1; P <= bounds.max_tp; ++P) {
    for (int D = 1; D <= bounds.max_tp; ++D) {
      for (int H = 1; H <= bounds.max_heads; ++H) {
        if (head_compatible<std::int64_t>(P, H) && head_compatible<std::int64_t>(D, H)) {
          add(P, D, H, 0, single, single, 0, 0, 0, 0);
        }
      }
      if (mla) add(P, D, 1, 1, single, single, 0, 0, 0, 0);
    }
  }
  const auto splits = tpcheck_trtllm::layer_splits();
  for (const int P : {1, 2, 4}) {
    for (const int D : {1, 2, 4}) {
      if (P > bounds.max_tp || D > bounds.max_tp) continue;
      for (int H = 1; H <= std::min(4, bounds.max_heads); ++H) {
        if (!head_compatible<std::int64_t>(P, H) || !head_compatible<std::int64_t>(D, H)) continue;
        // (With `mla`, H = 1 stands for MLA too: one latent head per rank.)
        for (const int with_mla : {0, 1}) {
          if (with_mla && (!mla || H != 1)) continue;
          for (const auto ctx : splits) {
            for (const auto gen : splits) {
              if (ctx >= 10 || gen >= 10) add(P, D, H, with_mla, ctx, gen, 0, 0, 0, 0);
            }
          }
          for (const auto& [ctx_adp, gen_adp] : {std::pair{1, 0}, std::pair{0, 1}, std::pair{1, 1}}) {
            for (int c = 0; c < (ctx_adp ? P : 1); ++c) {
              for (int g = 0; g < (gen_adp ? D : 1); ++g) {
                add(P, D, H, with_mla, single, single, ctx_adp, gen_adp, c, g);
              }
            }
          }
        }
      }
    }
  }
  return out;
}

std::vector<Binding> trtllm_bindings(const ProfileOptions& options) {
  auto out = trtllm();
  for (auto& b : trtllm_python_bindings(options)) out.push_back(std::move(b));
  return out;
}

}  // namespace tpcheck::conform
