// §0 and §9.5: a narrow instantiation of the model (int16, int64) gives the
// same outcome as the cpp_int one, the mathematical truth, on every operation
// of the typed operation table, compared as values; text is built only when
// they differ.
//
// Its domain is one per operation, made from the roles of the operation's
// parameters (a size, a rank of a size, a head count, ...), so an operation
// added to the table is compared at once, on inputs shaped like its own. The
// sweep runs it in int16 wherever the values fit (products of its sizes pass
// 2^15, so the overflow guards are crossed exhaustively); RapidCheck and the
// fuzzers in int64 up to 2^63, and in int16 too where the values fit.
#include <algorithm>
#include <array>
#include <span>
#include <stdexcept>

#include "declare.hpp"
#include "tpcheck/operations.hpp"

TPCHECK_DECLARATIONS(differential)

namespace tpcheck::inv {
namespace {

using dom::Block;

// One operation's domain: sizes, flags and head counts first, then what
// depends on them; and where each parameter's value sits in it.
struct OperationDomain {
  dom::Domain domain;
  std::vector<int> position;  // parameter i is values[position[i]]
};

OperationDomain operation_domain(const OperationInfo& op) {
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
        case Role::Size: blocks.push_back(dom::size(n, dom::Sizes::WithNonPositive)); break;
        case Role::DpSize: blocks.push_back(dom::dp_size(n, dom::Sizes::WithNonPositive)); break;
        case Role::Flag: blocks.push_back(dom::flag(n)); break;
        case Role::HeadCount:
          blocks.push_back(dom::heads(n, sizes.empty() ? nullptr : sizes[0], sizes.size() > 1 ? sizes[1] : nullptr,
                                      dom::HeadCounts::Edges, mla));
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
  OperationDomain out{dom::Domain(std::move(blocks)), std::vector<int>(params.size())};
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

constexpr std::size_t kMaxArity = 8;

// The arguments of operation `op` in its parameters' order, in the narrow type
// Narrow, or nothing when one does not fit it.
template <class Narrow, class Int>
std::optional<std::array<Narrow, kMaxArity>> arguments(std::size_t op, const Int* values) {
  const std::vector<int>& position = operation_domains()[op].position;
  std::array<Narrow, kMaxArity> args{};
  for (std::size_t i = 0; i < position.size(); ++i) {
    const Int& v = values[position[i]];
    if constexpr (std::is_same_v<Int, BigInt>) {
      const std::optional<Narrow> n = narrow_to<Narrow>(v);
      if (!n) return std::nullopt;
      args[i] = *n;
    } else {
      if (v < std::numeric_limits<Narrow>::min() || v > std::numeric_limits<Narrow>::max()) return std::nullopt;
      args[i] = static_cast<Narrow>(v);
    }
  }
  return args;
}

template <class Narrow>
Verdict agrees(std::size_t op, const std::array<Narrow, kMaxArity>& args) {
  const std::span<const Narrow> used(args.data(), operation_domains()[op].position.size());
  if (narrow_agrees_with_cpp_int<Narrow>(op, used)) return holds();
  return violated(narrow_disagreement<Narrow>(op, used));
}

// The sweep's: int16 against cpp_int (the sweep calls it where the values fit).
Verdict int16_agrees(std::size_t op, const std::int16_t* values, KindMask* kinds) {
  *kinds = KindMask{1} << op;
  return agrees(op, *arguments<std::int16_t>(op, values));
}

// int64 against cpp_int, and int16 too where the values fit it; drawn in
// cpp_int, a case is compared where its values fit int64.
template <class Int>
Verdict narrow_agree(std::size_t op, const Int* values, KindMask* kinds) {
  const auto args64 = arguments<std::int64_t>(op, values);
  if (!args64) return vacuous("an argument does not fit int64: only cpp_int holds it");
  *kinds = KindMask{1} << op;
  if (const auto args16 = arguments<std::int16_t>(op, values)) {
    if (Verdict v = agrees(op, *args16); v.is_violated()) return v;
  }
  return agrees(op, *args64);
}

Entry narrow_models_entry() {
  Entry e;
  e.name = "NarrowModelsAgreeWithCppIntModel";
  e.section = "§9.5";
  e.family = Family::Agreement;
  for (std::size_t op = 0; op < operation_infos().size(); ++op) {
    if (operation_infos()[op].params.size() > kMaxArity) throw std::invalid_argument("an operation has too many parameters");
    e.domains.push_back(operation_domains()[op].domain);
    e.domain_names.push_back(operation_infos()[op].name.data());
    e.kinds.push_back(operation_infos()[op].name.data());
  }
  if (e.kinds.size() > kMaxKinds) throw std::invalid_argument("the differential has more operations than kinds");
  e.min_non_vacuous = 1.0;
  e.excluded[static_cast<std::size_t>(Engine::RapidCheckCppInt)] =
      "compares the narrow models with cpp_int on values they hold; CppInt draws far beyond them";
  e.check_int64 = &narrow_agree<std::int64_t>;
  e.check_big = &narrow_agree<BigInt>;
  e.check_int16 = &int16_agrees;
  return e;
}

[[maybe_unused]] const declare::detail::Registration registration{narrow_models_entry()};

}  // namespace
}  // namespace tpcheck::inv
