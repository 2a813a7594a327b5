// The domain of each model operation, from the roles of its parameters.
#include "tpcheck/operation_domains.hpp"

#include <algorithm>
#include <stdexcept>

#include "tpcheck/operations.hpp"

namespace tpcheck::dom {
namespace {

// The sweep's bounds for the operations of a TRT-LLM deployment (see domain_of).
constexpr std::uint8_t kSplitLayers = 2;
constexpr std::int64_t kStagedSweepCap = 3;
constexpr std::int64_t kAdpSweepCap = 16;
constexpr std::int64_t kStagedEdgesFrom = 16384;
// The recurrent state's operations: sizes up to 4 and counts up to 8 (with
// int16's edges and the listing limit past them), where every check of SPEC
// §16.1 is the first to fail, both replicated rules and P > D, P < D, P = D
// are met; the dims multiply the cases.
constexpr std::int64_t kStateSweepSizes = 4;
constexpr std::int64_t kStateSweepCounts = 8;
// Their sizes only at int16's edges whose squares pass it (d * P crosses
// there): a size of 16384 against 1 lists 16384 copies of each segment, a
// cost the counts' edges (H = 16384 heads) avoid while crossing int16 too.
constexpr std::int64_t kStateEdgesBelow = 16384;

OperationDomain domain_of(const OperationInfo& op) {
  const auto& params = op.params;
  const auto name = [&](int i) { return params[static_cast<std::size_t>(i)].name.data(); };
  const auto first_of = [&](Role role) -> const char* {
    for (const Param& p : params) {
      if (p.role == role) return p.name.data();
    }
    return nullptr;
  };
  std::vector<const char*> sizes;
  for (const Param& p : params) {
    if (p.role == Role::Size) sizes.push_back(p.name.data());
  }
  const char* mla = first_of(Role::Flag);
  const char* head_count = first_of(Role::HeadCount);
  // Attention-DP flags, in the sizes' order: under one, that side need not shard the heads.
  std::vector<const char*> adp;
  for (const Param& p : params) {
    if (p.role == Role::AttentionDp) adp.push_back(p.name.data());
  }
  const bool splits = first_of(Role::StageSplit) != nullptr;
  const bool state = first_of(Role::StateDim) != nullptr;
  std::vector<Block> blocks;
  std::vector<int> order;  // parameters in block order
  // Each pass adds the parameters of some roles: earlier passes are what later ones depend on.
  const std::vector<std::vector<Role>> passes = {
      {Role::Size, Role::DpSize, Role::Flag, Role::AttentionDp, Role::StageSplit, Role::ConvWindow, Role::ElementSize},
      {Role::StateDim},
      {Role::HeadCount},
      {Role::Rank, Role::HeadIndex, Role::DpRank, Role::HostCount, Role::BasePort, Role::Stage, Role::DpGroup}};
  for (const auto& pass : passes) {
    for (std::size_t i = 0; i < params.size(); ++i) {
      const Param& p = params[i];
      if (std::find(pass.begin(), pass.end(), p.role) == pass.end()) continue;
      const char* n = p.name.data();
      switch (p.role) {
        // The sweep runs the int16 model on these: sizes and head counts at
        // int16's overflow edges cross its guards whatever the bound.
        // With stage splits only the edges whose multiples pass int16: a
        // stage's global ranks (u * P + ...) are the products to cross there;
        // the smaller edges' squares are the plan operations' to cross.
        case Role::Size:
          blocks.push_back(with_narrow_edges(dom::size(n, dom::Sizes::WithNonPositive), splits ? kStagedEdgesFrom : 0,
                                             state ? kStateEdgesBelow : 0));
          break;
        case Role::DpSize: blocks.push_back(dom::dp_size(n, dom::Sizes::WithNonPositive)); break;
        case Role::Flag: blocks.push_back(dom::flag(n)); break;
        case Role::HeadCount:
          if (adp.size() == 2 && sizes.size() == 2) {
            // With stage splits, no head count past the bound: a plan's copies
            // are per head past the prefill size, and the edges' long plans
            // are the plan operation's to compare (its walk), not the stages'.
            const Block counts = dom::heads_per_group(n, sizes[0], adp[0], sizes[1], adp[1], dom::HeadCounts::Edges, mla);
            blocks.push_back(splits ? counts : with_narrow_edges(counts));
          } else {
            blocks.push_back(with_narrow_edges(dom::heads(n, sizes.empty() ? nullptr : sizes[0],
                                                          sizes.size() > 1 ? sizes[1] : nullptr,
                                                          dom::HeadCounts::Edges, mla)));
          }
          break;
        case Role::Rank:
          // With a head count, an invalid one fails whatever the rank: its ranks need not multiply.
          blocks.push_back(head_count ? dom::rank_given_heads(n, name(p.of), head_count)
                                      : dom::rank(n, name(p.of), dom::Ranks::WithInvalid));
          break;
        case Role::HeadIndex: blocks.push_back(dom::rank(n, name(p.of), dom::Ranks::WithInvalid)); break;
        case Role::DpRank: blocks.push_back(dom::dp_rank(n, dom::DpRanks::Any)); break;
        case Role::HostCount: blocks.push_back(dom::hosts(n, name(p.of))); break;
        case Role::BasePort: blocks.push_back(dom::base_port(n, first_of(Role::DpSize), sizes.front())); break;
        case Role::AttentionDp: blocks.push_back(dom::flag(n)); break;
        // Every split of up to kSplitLayers layers: a stage spanning two of the
        // other side's, and the uneven splits; the invalid ones fail before any
        // arithmetic a narrow type could get wrong, so they are the unit tests'.
        case Role::StageSplit:
          blocks.push_back(dom::stage_split(n, kSplitLayers, dom::Splits::Valid, p.of >= 0 ? name(p.of) : nullptr));
          break;
        case Role::Stage: blocks.push_back(dom::stage(n, name(p.of))); break;
        case Role::DpGroup: blocks.push_back(dom::dp_group(n, name(p.of), name(p.given))); break;
        // A family's dims, sharded by the operation's sizes; dim 2 (Mamba2's
        // G, GDN's HV) depends on dim 0. The counts and the first free dim
        // also walk int16's edges: their products are the widths to cross.
        case Role::StateDim: {
          const auto family = static_cast<StateFamily>(p.family);
          const auto dim = static_cast<std::uint8_t>(p.dim);
          const char* count = dim == 2 ? name(static_cast<int>(i) - 2) : nullptr;
          const dom::DimRule rule = dom::dim_rule(family, dim);
          const Block b = dom::state_dim(n, family, dim, count, sizes.empty() ? nullptr : sizes[0],
                                         sizes.size() > 1 ? sizes[1] : nullptr, dom::Dims::Edges);
          blocks.push_back(rule == dom::DimRule::Count || dim == 1 ? with_narrow_edges(b) : b);
          break;
        }
        case Role::ConvWindow:
        case Role::ElementSize:
          blocks.push_back(dom::length(n, p.of >= 0 ? name(p.of) : nullptr, dom::Sizes::WithNonPositive));
          break;
      }
      order.push_back(static_cast<int>(i));
    }
  }
  if (order.size() != params.size()) {
    throw std::invalid_argument("the differential has no block for a parameter of " + std::string(op.name));
  }
  OperationDomain out{Domain(std::move(blocks)), std::vector<int>(params.size())};
  // Stage splits and attention-DP flags multiply a sizing's cases: the sweep
  // walks them on small sizes (with int16's edges still), where every shape
  // of a stage overlap and every DP group already meets the arithmetic.
  if (state) {
    out.domain.sweep_cap(kStateSweepSizes, kStateSweepCounts);
  } else if (splits && !sizes.empty()) {
    out.domain.sweep_cap(kStagedSweepCap, kStagedSweepCap);
  } else if (!adp.empty()) {
    out.domain.sweep_cap(kAdpSweepCap, kAdpSweepCap);
  }
  for (std::size_t k = 0; k < order.size(); ++k) out.position[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
  return out;
}

}  // namespace

const std::vector<OperationDomain>& operation_domains() {
  static const std::vector<OperationDomain> domains = [] {
    std::vector<OperationDomain> out;
    for (const OperationInfo& op : operation_infos()) out.push_back(domain_of(op));
    return out;
  }();
  return domains;
}

}  // namespace tpcheck::dom

