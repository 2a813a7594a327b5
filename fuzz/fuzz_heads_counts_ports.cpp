// Fuzz target: head ownership, the head guards, completion counts, ports and
// hosts (SPEC §4, §5, §7, §8) on arbitrary inputs.
//
// Property, for any integers (any width and sign) and an MLA flag:
//   1. decode sizes L, R, a head count H, mla, a head h, a producer rank p,
//      and a deployment: dp rank, tp rank t, DP size, host count, base port;
//   2. in cpp_int, and in int64 when all fit, check: both guards decide as §5
//      says; holders of h hold it; single_readers fails exactly where due and,
//      when both sides are small enough to enumerate, equals the map's
//      preimage count for every p; port offsets fail exactly where due, are
//      distinct over a small deployment, the dialed peer is the mapped rank on
//      the right host, and the port range rejects exactly the overflow;
//   3. any violation aborts with its text.
#include "fuzz_check.hpp"

namespace {

constexpr std::int64_t kMaxEnumerated = 4096;  // ranks or workers per input

template <class Int>
void check_heads_counts_ports(const Int& L, const Int& R, const Int& H, const Int& mla_flag, const Int& h,
                              const Int& p, const Int& dp, const Int& t, const Int& dp_size, const Int& hosts,
                              const Int& base) {
  using namespace tpcheck::inv;
  using tpcheck::fuzz::require;
  const bool mla = mla_flag != 0;
  require(guards_decide_as_specified(L, R, H, mla), "errors exactly where due (head guards)");
  require(holders_hold_the_head(h, L, H), "head alignment (holders, prefill side)");
  require(holders_hold_the_head(h, R, H), "head alignment (holders, decode side)");
  require(count_errors_exactly_where_due(p, L, R), "errors exactly where due (single_readers)");
  if (tpcheck::fuzz::affordable(tpcheck::BigInt(L) + tpcheck::BigInt(R), kMaxEnumerated)) {
    require(single_readers_count_map_preimages(L, R), "completion counts (single_readers)");
  }
  require(port_errors_exactly_where_due(dp, t, R), "errors exactly where due (port_offset)");
  if (tpcheck::fuzz::affordable(tpcheck::BigInt(dp_size) * tpcheck::BigInt(R), kMaxEnumerated)) {
    require(port_offsets_distinct(dp_size, R), "ports and hosts (distinct offsets)");
  }
  // The decode side (R ranks) dials the prefill side (L ranks).
  require(dialed_peer_is_the_mapped_rank(dp, t, L, R, hosts), "ports and hosts (dialed peer)");
  require(port_range_rejects_exactly_overflow(base, dp_size, R), "ports and hosts (port range)");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tpcheck::fuzz::FuzzInput in(data, size);
  const tpcheck::BigInt L = in.integer("L");
  const tpcheck::BigInt R = in.integer("R");
  const tpcheck::BigInt H = in.heads_for("H", L, R);
  const tpcheck::BigInt mla = in.flag("mla") ? 1 : 0;
  const tpcheck::BigInt h = in.rank_below("h", H);
  const tpcheck::BigInt p = in.rank_below("p", L);
  const tpcheck::BigInt dp = in.integer("dp");
  const tpcheck::BigInt t = in.rank_below("t", R);
  const tpcheck::BigInt dp_size = in.integer("dp_size");
  const tpcheck::BigInt hosts = in.integer("hosts");
  const tpcheck::BigInt base = in.integer("base");
  tpcheck::fuzz::in_every_int_type<11>({L, R, H, mla, h, p, dp, t, dp_size, hosts, base},
                                       [](const auto&... v) { check_heads_counts_ports(v...); });
  return 0;
}
