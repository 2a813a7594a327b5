// §0 and §9.5: a narrow instantiation of the model gives the same outcome as
// the cpp_int one (the mathematical truth) on every operation, compared as
// values; the text of both outcomes is built only when they differ.
//
// Its domain is one per operation, made from the roles of the operation's
// parameters (a size, a rank of a size, a head count, ...), so an operation
// added to the table is compared at once, on inputs shaped like its own.
#include <algorithm>
#include <stdexcept>

#include "declare.hpp"
#include "tpcheck/operations.hpp"

TPCHECK_DECLARATIONS(differential)

namespace tpcheck::inv {
namespace {

using dom::Block;

// The role of each parameter of an operation, by its name in the table.
enum class Role { Size, Rank, HeadCount, HeadIndex, Flag, DpRank, DpSize, HostCount };
struct ParamRole {
  Role role;
  int of = -1;  // Rank / HeadIndex / HostCount: the parameter that bounds it
};

std::vector<ParamRole> param_roles(const OperationInfo& op) {
  std::vector<ParamRole> roles;
  const auto& p = op.params;
  const auto index_of = [&](std::string_view name) {
    return static_cast<int>(std::find(p.begin(), p.end(), name) - p.begin());
  };
  for (std::size_t i = 0; i < p.size(); ++i) {
    const std::string_view name = p[i];
    if (name == "MLA") {
      roles.push_back({Role::Flag});
    } else if (name == "H") {
      roles.push_back({Role::HeadCount});
    } else if (name == "DP_RANK") {
      roles.push_back({Role::DpRank});
    } else if (name == "TP_RANK") {
      roles.push_back({Role::Rank, index_of("TP_SIZE")});
    } else if (name == "HOSTS") {
      roles.push_back({Role::HostCount, index_of("T")});
    } else if (name == "r" || name == "q") {
      roles.push_back({Role::Rank, index_of(p.size() > 1 && p[1] == "T" ? "T" : "L")});
    } else if (name == "d") {
      roles.push_back({Role::Rank, index_of("D")});
    } else if (name == "p") {
      roles.push_back({Role::Rank, index_of("P")});
    } else {
      roles.push_back({Role::Size});
    }
  }
  return roles;
}

// One operation's domain: sizes, flags and head counts first, then what
// depends on them; and where each parameter's value sits in it.
struct OperationDomain {
  dom::Domain domain;
  std::vector<int> position;  // parameter i is values[position[i]]
};

OperationDomain operation_domain(const OperationInfo& op) {
  const std::vector<ParamRole> roles = param_roles(op);
  const auto name = [&](int i) { return op.params[static_cast<std::size_t>(i)].data(); };
  std::vector<const char*> sizes;
  const char* mla = nullptr;
  const char* head_count = nullptr;
  for (std::size_t i = 0; i < roles.size(); ++i) {
    if (roles[i].role == Role::Size) sizes.push_back(name(static_cast<int>(i)));
    if (roles[i].role == Role::Flag) mla = name(static_cast<int>(i));
    if (roles[i].role == Role::HeadCount) head_count = name(static_cast<int>(i));
  }
  std::vector<Block> blocks;
  std::vector<int> order;  // parameters in block order
  // Each pass adds the parameters of some roles: earlier passes are what later ones depend on.
  const std::vector<std::vector<Role>> passes = {{Role::Size, Role::DpSize, Role::Flag},
                                                 {Role::HeadCount},
                                                 {Role::Rank, Role::HeadIndex, Role::DpRank, Role::HostCount}};
  for (const auto& pass : passes) {
    for (std::size_t i = 0; i < roles.size(); ++i) {
      const ParamRole& r = roles[i];
      if (std::find(pass.begin(), pass.end(), r.role) == pass.end()) continue;
      const char* n = name(static_cast<int>(i));
      switch (r.role) {
        case Role::Size: blocks.push_back(dom::size(n, dom::Sizes::WithNonPositive)); break;
        case Role::DpSize: blocks.push_back(dom::dp_size(n, dom::Sizes::WithNonPositive)); break;
        case Role::Flag: blocks.push_back(dom::flag(n)); break;
        case Role::HeadCount:
          blocks.push_back(dom::heads(n, sizes.empty() ? nullptr : sizes[0], sizes.size() > 1 ? sizes[1] : nullptr,
                                      dom::HeadCounts::Edges, mla));
          break;
        case Role::Rank:
          // With a head count, an invalid one fails whatever the rank: its ranks need not multiply.
          blocks.push_back(head_count ? dom::rank_given_heads(n, name(r.of), head_count)
                                      : dom::rank(n, name(r.of), dom::Ranks::WithInvalid));
          break;
        case Role::HeadIndex: blocks.push_back(dom::rank(n, name(r.of), dom::Ranks::WithInvalid)); break;
        case Role::DpRank: blocks.push_back(dom::dp_rank(n, dom::DpRanks::Any)); break;
        case Role::HostCount: blocks.push_back(dom::hosts(n, name(r.of))); break;
      }
      order.push_back(static_cast<int>(i));
    }
  }
  OperationDomain out{dom::Domain(std::move(blocks)), std::vector<int>(roles.size())};
  for (std::size_t k = 0; k < order.size(); ++k) out.position[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
  return out;
}

const std::vector<OperationDomain>& operation_domains() {
  static const std::vector<OperationDomain> domains = [] {
    std::vector<OperationDomain> out;
    for (const OperationInfo& op : operation_infos()) out.push_back(operation_domain(op));
    return out;
  }();
  return domains;
}

// The arguments of operation `op` in its parameters' order.
template <class Int>
std::vector<Int> arguments(std::size_t op, const Int* values) {
  const std::vector<int>& position = operation_domains()[op].position;
  std::vector<Int> args;
  args.reserve(position.size());
  for (const int p : position) args.push_back(values[p]);
  return args;
}

Verdict int64_agrees(std::size_t op, const std::vector<std::int64_t>& args) {
  if (int64_and_cpp_int_agree(op, args)) return holds();
  const std::string narrow_outcome = evaluate_int64(op, args);
  const std::string wide_outcome = evaluate_big(op, std::vector<BigInt>(args.begin(), args.end()));
  if (narrow_outcome == wide_outcome) return holds();
  std::string what = std::string(operation_infos()[op].name) + "(";
  for (std::size_t i = 0; i < args.size(); ++i) what += (i ? ", " : "") + decimal(args[i]);
  return violated(what + ") gives " + narrow_outcome + " in int64 but " + wide_outcome + " in cpp_int");
}

Verdict narrow_models_agree_int64(std::size_t op, const std::int64_t* values, KindMask* kinds) {
  *kinds = KindMask{1} << op;
  return int64_agrees(op, arguments(op, values));
}

// Drawn in cpp_int, a case is compared where its values fit the narrow models.
Verdict narrow_models_agree_big(std::size_t op, const BigInt* values, KindMask* kinds) {
  std::vector<std::int64_t> args;
  for (const BigInt& v : arguments(op, values)) {
    const std::optional<std::int64_t> n = narrow(v);
    if (!n) return vacuous("an argument does not fit int64: only cpp_int holds it");
    args.push_back(*n);
  }
  *kinds = KindMask{1} << op;
  return int64_agrees(op, args);
}

Entry narrow_models_entry() {
  Entry e;
  e.name = "NarrowModelsAgreeWithCppIntModel";
  e.section = "§9.5";
  e.family = Family::Agreement;
  for (std::size_t op = 0; op < operation_infos().size(); ++op) {
    e.domains.push_back(operation_domains()[op].domain);
    e.domain_names.push_back(operation_infos()[op].name.data());
    e.kinds.push_back(operation_infos()[op].name.data());
  }
  if (e.kinds.size() > kMaxKinds) throw std::invalid_argument("the differential has more operations than kinds");
  e.min_non_vacuous = 1.0;
  e.excluded[static_cast<std::size_t>(Engine::RapidCheckCppInt)] =
      "compares the narrow models with cpp_int on values they hold; CppInt draws far beyond them";
  e.check_int64 = &narrow_models_agree_int64;
  e.check_big = &narrow_models_agree_big;
  return e;
}

[[maybe_unused]] const declare::detail::Registration registration{narrow_models_entry()};

}  // namespace
}  // namespace tpcheck::inv
