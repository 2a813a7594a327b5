// §16.1-16.2: where the recurrent state's operations fail, in SPEC §16.1's
// order, with its texts: the side's size (or both sizes), the family's dims,
// its config, the rank, each side's TP checks (prefill's first), the TP ratio
// (§3), then the listing limit, counted as the SPEC counts it.
#include "preconditions.hpp"

TPCHECK_DECLARATIONS(preconditions_state)

namespace tpcheck::oracle {
using namespace shared;
namespace {

// A side's name in the labels of its TP checks ("prefill: ...", or none for a lone side).
std::string on(const std::string& side) { return side.empty() ? "" : side + ": "; }

// ---- each family's dims, config and TP checks (§16.1's table) ----------------

auto mamba2_dims(const auto& H, const auto& PH, const auto& G, const auto& N) {
  return std::tuple{
      fails_if("dims not positive", H <= 0 || PH <= 0 || G <= 0 || N <= 0,
               value_error("mamba2 dims must be positive: num_heads={H}, head_dim={PH}, n_groups={G}, d_state={N}")),
      fails_if("num_heads not a multiple of n_groups", !divides(G, H),
               value_error("num_heads {H} must be a multiple of n_groups {G}"))};
}

auto mamba2_tp(const std::string& side, const auto& T, const auto& H, const auto& G) {
  return std::tuple{
      fails_if(on(side) + "TP size does not divide num_heads", !divides(T, H),
               assertion_error("Tensor parallel world size must divide num heads.")),
      fails_if(on(side) + "TP size does not divide n_groups > 1", !divides(T, G) && G != 1,
               assertion_error("If tensor parallel world size does not divide num_groups, then num_groups must equal 1."))};
}

auto gdn_dims(const auto& HK, const auto& DK, const auto& HV, const auto& DV) {
  return std::tuple{
      fails_if("dims not positive", HK <= 0 || DK <= 0 || HV <= 0 || DV <= 0,
               value_error("gdn dims must be positive: linear_num_key_heads={HK}, linear_key_head_dim={DK}, "
                           "linear_num_value_heads={HV}, linear_value_head_dim={DV}")),
      fails_if("value heads not a multiple of key heads", !divides(HK, HV),
               value_error("linear_num_value_heads {HV} must be a multiple of linear_num_key_heads {HK}"))};
}

auto gdn_tp(const std::string& side, const auto& T, const auto& HK) {
  return fails_if(on(side) + "TP size does not divide the key heads", !divides(T, HK),
                  value_error("GDN cannot shard linear_num_key_heads {HK} over tp_size {T}: it never replicates key "
                              "heads")
                      .where("T", T));
}

auto kda_dims(const auto& H, const auto& DH) {
  return fails_if("dims not positive", H <= 0 || DH <= 0,
                  value_error("kda dims must be positive: num_heads={H}, head_dim={DH}"));
}

auto kda_tp(const std::string& side, const auto& T, const auto& H) {
  return fails_if(on(side) + "TP size does not divide num_heads", !divides(T, H), assertion_error(""));
}

auto mamba1_dims(const auto& I, const auto& N) {
  return fails_if("dims not positive", I <= 0 || N <= 0,
                  value_error("mamba1 dims must be positive: intermediate_size={I}, d_state={N}"));
}

auto mamba1_tp(const std::string& side, const auto& T, const auto& I) {
  return fails_if(on(side) + "TP size does not divide intermediate_size", !divides(T, I),
                  assertion_error("{I} is not divisible by {T}").where("T", T));
}

// ---- what the operations share ---------------------------------------------------

// state_shape: the side's size, then the family's checks with T.
auto side_size(const auto& T) {
  return fails_if("size not positive", T <= 0, value_error("tp_size {T} must be positive"));
}

// segments: the rank, after the config and before the TP checks.
auto side_rank(const auto& r, const auto& T) {
  return fails_if("rank out of range", r < 0 || r >= T, value_error("tp_rank {r} must be in [0, {T})"));
}

auto prefill_rank(const auto& p, const auto& P) {
  return fails_if("prefill rank out of range", p < 0 || p >= P, value_error("prefill_tp_rank {p} must be in [0, {P})"));
}

// A state plan's copies (§16.2): per conv segment and the SSM state, 1 when
// the segment is replicated on the prefill side, max(1, P // D) otherwise.
// `replicated` counts the segments replicated there.
auto plan_limit(const auto& d, const auto& copies) {
  return fails_if("more copies than the model lists", copies > 1048576,
                  value_error("state plan of decode_tp_rank {d} has {copies} elements, more than the model lists "
                              "(1048576)")
                      .where("d", d)
                      .where("copies", copies));
}

auto per_source(const auto& P, const auto& D) { return named("per_source", max(1, P / D)); }

// The fan-in of p: every rank of its window (§16.2's duality), max(1, D // P).
auto served_limit(const auto& p, const auto& P, const auto& D) {
  const auto n = named("n", max(1, D / P));
  return fails_if("more decode ranks than the model lists", n > 1048576,
                  value_error("state served by prefill_tp_rank {p} has {n} elements, more than the model lists "
                              "(1048576)")
                      .where("p", p)
                      .where("n", n));
}

// Which way the sizes differ, for the engines' coverage.
auto each_way(const auto& P, const auto& D) {
  return preconditions(succeeds_if("P > D", P > D), succeeds_if("P < D", P < D), succeeds_if("P == D", P == D));
}

}  // namespace

// ---- mamba2 -------------------------------------------------------------------------

TPCHECK_ORACLE(Mamba2StateShapeErrorsFireExactlyWhereDue, "§16.1", "mamba2_state_shape(T, H, PH, G, N)",
    [](const auto& T, const auto& H, const auto& PH, const auto& G, const auto& N) {
      return preconditions(side_size(T), mamba2_dims(H, PH, G, N), mamba2_tp("", T, H, G),
                           succeeds_if("case A", divides(T, G)), succeeds_if("case B", G == 1 && T > 1));
    });

TPCHECK_ORACLE(Mamba2SegmentsErrorsFireExactlyWhereDue, "§16.1", "mamba2_segments(r, T, H, PH, G, N)",
    [](const auto& r, const auto& T, const auto& H, const auto& PH, const auto& G, const auto& N) {
      return preconditions(side_size(T), mamba2_dims(H, PH, G, N), side_rank(r, T), mamba2_tp("", T, H, G));
    });

TPCHECK_ORACLE(Mamba2StatePlanErrorsFireExactlyWhereDue, "§16.2", "mamba2_state_plan(d, P, D, H, PH, G, N)",
    [](const auto& d, const auto& P, const auto& D, const auto& H, const auto& PH, const auto& G, const auto& N) {
      const auto per = per_source(P, D);
      // x and the SSM heads are always sharded; B and C replicated on the prefill side in case B.
      const auto copies = named("copies", 2 * per + 2 * if_else(G == 1 && P > 1, 1, per));
      return preconditions(sides_positive(P, D), mamba2_dims(H, PH, G, N), decode_rank(d, D),
                           mamba2_tp("prefill", P, H, G), mamba2_tp("decode", D, H, G), ratio_divisibility(D, P),
                           plan_limit(d, copies), each_way(P, D),
                           succeeds_if("replicated on the prefill side", G == 1 && P > 1),
                           succeeds_if("replicated on the decode side only", G == 1 && P == 1 && D > 1));
    });

TPCHECK_ORACLE(Mamba2StateServedErrorsFireExactlyWhereDue, "§16.2", "mamba2_state_served(p, P, D, H, PH, G, N)",
    [](const auto& p, const auto& P, const auto& D, const auto& H, const auto& PH, const auto& G, const auto& N) {
      return preconditions(sides_positive(P, D), mamba2_dims(H, PH, G, N), prefill_rank(p, P),
                           mamba2_tp("prefill", P, H, G), mamba2_tp("decode", D, H, G), ratio_divisibility(P, D),
                           served_limit(p, P, D), each_way(P, D));
    });

// ---- gdn ------------------------------------------------------------------------------

TPCHECK_ORACLE(GdnStateShapeErrorsFireExactlyWhereDue, "§16.1", "gdn_state_shape(T, HK, DK, HV, DV)",
    [](const auto& T, const auto& HK, const auto& DK, const auto& HV, const auto& DV) {
      return preconditions(side_size(T), gdn_dims(HK, DK, HV, DV), gdn_tp("", T, HK));
    });

TPCHECK_ORACLE(GdnSegmentsErrorsFireExactlyWhereDue, "§16.1", "gdn_segments(r, T, HK, DK, HV, DV)",
    [](const auto& r, const auto& T, const auto& HK, const auto& DK, const auto& HV, const auto& DV) {
      return preconditions(side_size(T), gdn_dims(HK, DK, HV, DV), side_rank(r, T), gdn_tp("", T, HK));
    });

TPCHECK_ORACLE(GdnStatePlanErrorsFireExactlyWhereDue, "§16.2", "gdn_state_plan(d, P, D, HK, DK, HV, DV)",
    [](const auto& d, const auto& P, const auto& D, const auto& HK, const auto& DK, const auto& HV, const auto& DV) {
      const auto copies = named("copies", 4 * per_source(P, D));  // q, k, v and the SSM heads: always sharded
      return preconditions(sides_positive(P, D), gdn_dims(HK, DK, HV, DV), decode_rank(d, D),
                           gdn_tp("prefill", P, HK), gdn_tp("decode", D, HK), ratio_divisibility(D, P),
                           plan_limit(d, copies), each_way(P, D));
    });

TPCHECK_ORACLE(GdnStateServedErrorsFireExactlyWhereDue, "§16.2", "gdn_state_served(p, P, D, HK, DK, HV, DV)",
    [](const auto& p, const auto& P, const auto& D, const auto& HK, const auto& DK, const auto& HV, const auto& DV) {
      return preconditions(sides_positive(P, D), gdn_dims(HK, DK, HV, DV), prefill_rank(p, P),
                           gdn_tp("prefill", P, HK), gdn_tp("decode", D, HK), ratio_divisibility(P, D),
                           served_limit(p, P, D), each_way(P, D));
    });

// ---- kda ------------------------------------------------------------------------------

TPCHECK_ORACLE(KdaStateShapeErrorsFireExactlyWhereDue, "§16.1", "kda_state_shape(T, H, DH)",
    [](const auto& T, const auto& H, const auto& DH) {
      return preconditions(side_size(T), kda_dims(H, DH), kda_tp("", T, H));
    });

TPCHECK_ORACLE(KdaSegmentsErrorsFireExactlyWhereDue, "§16.1", "kda_segments(r, T, H, DH)",
    [](const auto& r, const auto& T, const auto& H, const auto& DH) {
      return preconditions(side_size(T), kda_dims(H, DH), side_rank(r, T), kda_tp("", T, H));
    });

TPCHECK_ORACLE(KdaStatePlanErrorsFireExactlyWhereDue, "§16.2", "kda_state_plan(d, P, D, H, DH)",
    [](const auto& d, const auto& P, const auto& D, const auto& H, const auto& DH) {
      const auto copies = named("copies", 4 * per_source(P, D));
      return preconditions(sides_positive(P, D), kda_dims(H, DH), decode_rank(d, D), kda_tp("prefill", P, H),
                           kda_tp("decode", D, H), ratio_divisibility(D, P), plan_limit(d, copies), each_way(P, D));
    });

TPCHECK_ORACLE(KdaStateServedErrorsFireExactlyWhereDue, "§16.2", "kda_state_served(p, P, D, H, DH)",
    [](const auto& p, const auto& P, const auto& D, const auto& H, const auto& DH) {
      return preconditions(sides_positive(P, D), kda_dims(H, DH), prefill_rank(p, P), kda_tp("prefill", P, H),
                           kda_tp("decode", D, H), ratio_divisibility(P, D), served_limit(p, P, D), each_way(P, D));
    });

// ---- mamba1 ---------------------------------------------------------------------------

TPCHECK_ORACLE(Mamba1StateShapeErrorsFireExactlyWhereDue, "§16.1", "mamba1_state_shape(T, I, N)",
    [](const auto& T, const auto& I, const auto& N) {
      return preconditions(side_size(T), mamba1_dims(I, N), mamba1_tp("", T, I));
    });

TPCHECK_ORACLE(Mamba1SegmentsErrorsFireExactlyWhereDue, "§16.1", "mamba1_segments(r, T, I, N)",
    [](const auto& r, const auto& T, const auto& I, const auto& N) {
      return preconditions(side_size(T), mamba1_dims(I, N), side_rank(r, T), mamba1_tp("", T, I));
    });

TPCHECK_ORACLE(Mamba1StatePlanErrorsFireExactlyWhereDue, "§16.2", "mamba1_state_plan(d, P, D, I, N)",
    [](const auto& d, const auto& P, const auto& D, const auto& I, const auto& N) {
      const auto copies = named("copies", 2 * per_source(P, D));  // x and the SSM heads
      return preconditions(sides_positive(P, D), mamba1_dims(I, N), decode_rank(d, D), mamba1_tp("prefill", P, I),
                           mamba1_tp("decode", D, I), ratio_divisibility(D, P), plan_limit(d, copies),
                           each_way(P, D));
    });

TPCHECK_ORACLE(Mamba1StateServedErrorsFireExactlyWhereDue, "§16.2", "mamba1_state_served(p, P, D, I, N)",
    [](const auto& p, const auto& P, const auto& D, const auto& I, const auto& N) {
      return preconditions(sides_positive(P, D), mamba1_dims(I, N), prefill_rank(p, P), mamba1_tp("prefill", P, I),
                           mamba1_tp("decode", D, I), ratio_divisibility(P, D), served_limit(p, P, D),
                           each_way(P, D));
    });

// ---- state_pairing ---------------------------------------------------------------------

TPCHECK_ORACLE(StatePairingErrorsFireExactlyWhereDue, "§16.1", "state_pairing(LP, LD, ECP, ECD, ESP, ESD)",
    [](const auto& LP, const auto& LD, const auto& ECP, const auto& ECD, const auto& ESP, const auto& ESD) {
      return preconditions(
          fails_if("prefill window length not positive", LP <= 0,
                   value_error("prefill conv window length {LP} must be positive")),
          fails_if("decode window length not positive", LD <= 0,
                   value_error("decode conv window length {LD} must be positive")),
          fails_if("prefill conv element size not positive", ECP <= 0,
                   value_error("prefill conv element size {ECP} must be positive")),
          fails_if("decode conv element size not positive", ECD <= 0,
                   value_error("decode conv element size {ECD} must be positive")),
          fails_if("prefill SSM element size not positive", ESP <= 0,
                   value_error("prefill SSM element size {ESP} must be positive")),
          fails_if("decode SSM element size not positive", ESD <= 0,
                   value_error("decode SSM element size {ESD} must be positive")),
          fails_if("window lengths differ", LP != LD,
                   value_error("prefill conv window length {LP} differs from decode's {LD}: "
                               "K-1+num_speculative_tokens must match on both sides")),
          fails_if("conv element sizes differ", ECP != ECD,
                   value_error("prefill conv element size {ECP} differs from decode's {ECD}")),
          fails_if("SSM element sizes differ", ESP != ESD,
                   value_error("prefill SSM element size {ESP} differs from decode's {ESD}")));
    });

}  // namespace tpcheck::oracle
