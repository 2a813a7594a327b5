// §11: which connector accepts which sizing.
#include "tpcheck/deployment.hpp"

#include "messages.hpp"
#include "tpcheck/instantiate.hpp"

namespace tpcheck {

std::string_view connector_name(Connector c) {
  switch (c) {
    case Connector::MoRIIO: return "moriio";
    case Connector::Nixl: return "nixl";
    case Connector::Mooncake: return "mooncake";
    case Connector::General: return "general";
  }
  return "unknown";
}

std::optional<Connector> connector_named(std::string_view name) {
  for (const Connector c : kConnectors) {
    if (connector_name(c) == name) return c;
  }
  return std::nullopt;
}

template <ModelInt Int>
Outcome<None> sizing_accepted(Connector c, const Int& P, const Int& D, const Int& H, bool mla) {
  if (P <= 0) return msg::size_not_positive("prefill tp_size", P);
  if (D <= 0) return msg::size_not_positive("decode tp_size", D);
  if (!mla && H <= 0) return msg::size_not_positive("total_num_kv_heads", H);
  const Int heads_total = mla ? Int(1) : H;
  if (!head_compatible(P, heads_total)) return msg::heads_not_shardable(heads_total, "prefill tp_size", P);
  if (!head_compatible(D, heads_total)) return msg::heads_not_shardable(heads_total, "decode tp_size", D);
  switch (c) {
    case Connector::MoRIIO: {
      // Each side maps its own rank 0 (the divisibility checks do not depend
      // on the rank) and the decode side runs the guard with itself as local.
      if (const auto decode_side = remote_rank(Int(0), D, P); !decode_side.ok()) return decode_side.failure();
      if (const auto prefill_side = remote_rank(Int(0), P, D); !prefill_side.ok()) return prefill_side.failure();
      return kv_heads_guard(D, P, H, mla);
    }
    case Connector::Nixl:
    case Connector::Mooncake: {
      const Outcome<Int> ratio = tp_ratio(D, P);
      if (!ratio.ok()) return ratio.failure();
      return None{};
    }
    case Connector::General:
      return None{};
  }
  return None{};
}

#define TPCHECK_DEPLOYMENT(Int) \
  template Outcome<None> sizing_accepted<Int>(Connector, const Int&, const Int&, const Int&, bool);
TPCHECK_INSTANTIATE_MODEL(TPCHECK_DEPLOYMENT)

}  // namespace tpcheck
