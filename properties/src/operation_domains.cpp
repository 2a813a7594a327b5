// The domain of each model operation, from the roles of its parameters.
#include "tpcheck/operation_domains.hpp"

#include <algorithm>
#include <stdexcept>

#include "tpcheck/operations.hpp"

namespace tpcheck::dom {
namespace {

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
  std::vector<Block> blocks;
  std::vector<int> order;  // parameters in block order
  // Each pass adds the parameters of some roles: earlier passes are what later ones depend on.
  const std::vector<std::vector<Role>> passes = {{Role::Size, Role::DpSize, Role::Flag},
                                                 {Role::HeadCount},
                                                 {Role::Rank, Role::HeadIndex, Role::DpRank, Role::HostCount, Role::BasePort}};
  for (const auto& pass : passes) {
    for (std::size_t i = 0; i < params.size(); ++i) {
      const Param& p = params[i];
      if (std::find(pass.begin(), pass.end(), p.role) == pass.end()) continue;
      const char* n = p.name.data();
      switch (p.role) {
        // The sweep runs the int16 model on these: sizes and head counts at
        // int16's overflow edges cross its guards whatever the bound.
        case Role::Size: blocks.push_back(with_narrow_edges(dom::size(n, dom::Sizes::WithNonPositive))); break;
        case Role::DpSize: blocks.push_back(dom::dp_size(n, dom::Sizes::WithNonPositive)); break;
        case Role::Flag: blocks.push_back(dom::flag(n)); break;
        case Role::HeadCount:
          blocks.push_back(with_narrow_edges(dom::heads(n, sizes.empty() ? nullptr : sizes[0],
                                                        sizes.size() > 1 ? sizes[1] : nullptr, dom::HeadCounts::Edges, mla)));
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
      }
      order.push_back(static_cast<int>(i));
    }
  }
  if (order.size() != params.size()) {
    throw std::invalid_argument("the differential has no block for a parameter of " + std::string(op.name));
  }
  OperationDomain out{Domain(std::move(blocks)), std::vector<int>(params.size())};
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

