// Every failure text of the model, in one place. Texts marked SPEC are
// upstream's exact words; the others are this project's, for inputs the SPEC
// is silent about, and always name the bad argument.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "tpcheck/outcome.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::msg {

// A failure from its pieces: literal text (string literals only: a FailureText
// keeps them by pointer) and integers of any model type, kept unrendered
// (outcome.hpp's FailureText says why).
namespace detail {
inline void add(FailureText& m, const char* literal) { m.add_literal(literal); }
inline void add(FailureText& m, std::int16_t v) { m.add_integer(v); }
inline void add(FailureText& m, std::int32_t v) { m.add_integer(v); }
inline void add(FailureText& m, std::int64_t v) { m.add_integer(v); }
inline void add(FailureText& m, __int128 v) {
  if (v >= std::numeric_limits<std::int64_t>::min() && v <= std::numeric_limits<std::int64_t>::max()) {
    m.add_integer(static_cast<std::int64_t>(v));
  } else {
    m.add_digits(decimal(v));
  }
}
// A cpp_int that fits int64 is kept as one, so the int64 and cpp_int models'
// failures compare piece by piece (the differential's case).
inline void add(FailureText& m, const BigInt& v) {
  if (const std::optional<std::int64_t> small = narrow(v)) {
    m.add_integer(*small);
  } else {
    m.add_digits(decimal(v));
  }
}
}  // namespace detail

template <class... Parts>
Failure make(ErrorKind kind, const Parts&... parts) {
  static_assert(sizeof...(Parts) <= FailureText::kMaxPieces, "more pieces than a FailureText holds");
  Failure f{kind, FailureText()};
  (detail::add(f.message, parts), ...);
  return f;
}

// SPEC §1, §7 (ack count), §8.
inline Failure tp_sizes_must_be_positive() { return make(ErrorKind::ValueError, "TP sizes must be positive"); }

// SPEC §1.
template <class Int>
Failure local_rank_out_of_range(const Int& r, const Int& L) {
  return make(ErrorKind::ValueError, "local_tp_rank ", r, " must be in [0, ", L, ")");
}

// SPEC §1 and §7 share one shape: "{larger} tp_size {a} must be a multiple of
// {smaller} tp_size {b} for heterogeneous-TP P/D".
template <class Int>
Failure not_a_multiple(const char* larger_role, const Int& larger, const char* smaller_role, const Int& smaller) {
  return make(ErrorKind::ValueError, larger_role, " tp_size ", larger, " must be a multiple of ", smaller_role,
              " tp_size ", smaller, " for heterogeneous-TP P/D");
}

// SPEC §1: the remote side is larger and not a multiple.
template <class Int>
Failure remote_not_multiple(const Int& R, const Int& L) {
  return not_a_multiple("remote", R, "local", L);
}

// SPEC §1: the local side is larger and not a multiple.
template <class Int>
Failure local_not_multiple(const Int& L, const Int& R) {
  return not_a_multiple("local", L, "remote", R);
}

// SPEC §3.
template <class Int>
Failure local_not_divisible(const Int& L, const Int& R) {
  return make(ErrorKind::AssertionError, "Local tensor parallel size ", L,
              " is not divisible by remote tensor parallel size ", R, ".");
}

// SPEC §3.
template <class Int>
Failure remote_not_divisible(const Int& R, const Int& L) {
  return make(ErrorKind::AssertionError, "Remote tensor parallel size ", R,
              " is not divisible by local tensor parallel size ", L, ".");
}

// Project: a size that must be positive, named by its role.
template <class Int>
Failure size_not_positive(const char* role, const Int& size) {
  return make(ErrorKind::ValueError, role, " ", size, " must be positive");
}

// Project: a rank outside [0, size), named by its role.
template <class Int>
Failure rank_out_of_range(const char* role, const Int& rank, const Int& size) {
  return make(ErrorKind::ValueError, role, " ", rank, " must be in [0, ", size, ")");
}

// Project (SPEC §4: "the model does not load").
template <class Int>
Failure heads_not_shardable(const Int& H, const char* role, const Int& T) {
  return make(ErrorKind::ValueError, "total_num_kv_heads ", H, " cannot be sharded over ", role, " ", T,
              ": one must divide the other");
}

// SPEC §5.
inline Failure guard_not_positive() {
  return make(ErrorKind::ValueError, "TP sizes and total_num_kv_heads must be positive");
}

// SPEC §5.
template <class Int>
Failure guard_needs_replicated_heads(const Int& H, const Int& L, const Int& R) {
  return make(ErrorKind::NotImplementedError,
              "MoRIIO heterogeneous TP requires replicated KV heads on both prefill and decode. Got "
              "total_num_kv_heads=",
              H, ", local_tp_size=", L, ", remote_tp_size=", R, ".");
}

// Project: a window or plan too long to list (kMaxListed): "{what}{rank} has
// {count} elements, ...", `what` naming the list ("window of local_tp_rank ").
template <class Int, class Count>
Failure too_long_to_list(const char* what, const Int& rank, const Count& count, std::int64_t limit) {
  return make(ErrorKind::ValueError, what, rank, " has ", count, " elements, more than the model lists (", limit,
              ")");
}

// SPEC §11: NIXL's handshake refuses a larger prefill side that replicates
// heads (`not mla and P > D and P > H`) with an AssertionError that has no
// message.
inline Failure nixl_refuses_unread_replicas() { return make(ErrorKind::AssertionError, ""); }

// SPEC §7: the consumer is larger and not a multiple (the ack count's text).
template <class Int>
Failure consumer_not_multiple(const Int& D, const Int& P) {
  return not_a_multiple("consumer", D, "producer", P);
}

// SPEC §7: its mirror, the producer is larger and not a multiple.
template <class Int>
Failure producer_not_multiple(const Int& P, const Int& D) {
  return not_a_multiple("producer", P, "consumer", D);
}

// SPEC §8.
inline Failure port_tp_size_not_positive() { return make(ErrorKind::ValueError, "tp_size must be positive"); }

// SPEC §8.
template <class Int>
Failure tp_rank_out_of_range(const Int& t, const Int& T) {
  return make(ErrorKind::ValueError, "tp_rank ", t, " must be in [0, ", T, ")");
}

// SPEC §8.
template <class Int>
Failure dp_rank_negative(const Int& dp) {
  return make(ErrorKind::ValueError, "dp_rank ", dp, " must be non-negative");
}

// Project: a rank count that a host count does not divide (a rank would land
// on a host past the last one).
template <class Int>
Failure ranks_not_spread_over_hosts(const Int& T, const Int& n) {
  return make(ErrorKind::ValueError, "tp_size ", T, " does not spread evenly over num_hosts ", n);
}

// Project: a deployment whose highest port passes 65535.
template <class Int, class Wide>
Failure ports_exceed_range(const Int& base, const Wide& last) {
  return make(ErrorKind::ValueError, "ports ", base, "..", last, " exceed 65535");
}

// Project (SPEC §15.4): a side's stage split, named by its side ("prefill", "decode").
inline Failure pp_layers_empty(const char* side) {
  return make(ErrorKind::ValueError, side, " pp_layers must list at least one stage");
}

// Project: more stages than kMaxStages.
inline Failure too_many_stages(const char* side, std::int64_t stages, std::int64_t limit) {
  return make(ErrorKind::ValueError, side, " pp_layers lists ", stages, " stages, more than the model takes (", limit,
              ")");
}

// Project: a stage without layers (an empty stage, or a negative count).
template <class Int>
Failure stage_without_layers(const char* side, std::int64_t stage, const Int& count) {
  return make(ErrorKind::ValueError, side, " pp stage ", stage, " has ", count, " layers, must have at least one");
}

// Project (SPEC §15.4.1: both sides sum to the same layer count; TRT-LLM
// checks that the layers taken from the peer's stages sum to its own).
template <class Wide>
Failure layer_totals_differ(const Wide& prefill_total, const Wide& decode_total) {
  return make(ErrorKind::ValueError, "prefill pp stages hold ", prefill_total, " layers but decode pp stages hold ",
              decode_total, ": both sides must hold the same layers");
}

// Project (SPEC §11, §15.3): TensorRT-LLM's C++ transceiver checks that the TP
// size per attention-DP group is a power of two on both sides.
template <class Int>
Failure tp_per_group_not_power_of_two(const char* side, const Int& per_group) {
  return make(ErrorKind::ValueError, side,
              " tp_size per attention-DP group ", per_group,
              " must be a power of two for TensorRT-LLM's C++ transceiver");
}

// Project (SPEC §11, §15.2): the C++ transceiver's CacheFormatter does not
// serve MLA; MLACacheFormatter does, which the model does not cover.
inline Failure trtllm_mla_not_covered() {
  return make(ErrorKind::ValueError,
              "TensorRT-LLM's C++ CacheFormatter does not serve MLA (MLACacheFormatter does, which this model does not "
              "cover)");
}

// ---- SPEC §16.1: the recurrent state's checks ----------------------------------

// SPEC §16.1 (the project's texts: the dims that must be positive, named as
// the model's configs name them).
template <class Int>
Failure mamba2_dims_not_positive(const Int& H, const Int& PH, const Int& G, const Int& N) {
  return make(ErrorKind::ValueError, "mamba2 dims must be positive: num_heads=", H, ", head_dim=", PH,
              ", n_groups=", G, ", d_state=", N);
}
template <class Int>
Failure gdn_dims_not_positive(const Int& HK, const Int& DK, const Int& HV, const Int& DV) {
  return make(ErrorKind::ValueError, "gdn dims must be positive: linear_num_key_heads=", HK,
              ", linear_key_head_dim=", DK, ", linear_num_value_heads=", HV, ", linear_value_head_dim=", DV);
}
template <class Int>
Failure kda_dims_not_positive(const Int& H, const Int& DH) {
  return make(ErrorKind::ValueError, "kda dims must be positive: num_heads=", H, ", head_dim=", DH);
}
template <class Int>
Failure mamba1_dims_not_positive(const Int& I, const Int& N) {
  return make(ErrorKind::ValueError, "mamba1 dims must be positive: intermediate_size=", I, ", d_state=", N);
}

// SPEC §16.1: a config whose dims contradict each other.
template <class Int>
Failure heads_not_multiple_of_groups(const Int& H, const Int& G) {
  return make(ErrorKind::ValueError, "num_heads ", H, " must be a multiple of n_groups ", G);
}
template <class Int>
Failure value_heads_not_multiple_of_key_heads(const Int& HV, const Int& HK) {
  return make(ErrorKind::ValueError, "linear_num_value_heads ", HV, " must be a multiple of linear_num_key_heads ", HK);
}

// SPEC §16.1: MambaMixer2's asserts (vLLM and SGLang).
inline Failure tp_does_not_divide_mamba_heads() {
  return make(ErrorKind::AssertionError, "Tensor parallel world size must divide num heads.");
}
inline Failure tp_does_not_divide_mamba_groups() {
  return make(ErrorKind::AssertionError,
              "If tensor parallel world size does not divide num_groups, then num_groups must equal 1.");
}

// SPEC §16.1: GDN fails upstream in views, without a text: the project's names the argument.
template <class Int>
Failure gdn_key_heads_not_sharded(const Int& HK, const Int& T) {
  return make(ErrorKind::ValueError, "GDN cannot shard linear_num_key_heads ", HK, " over tp_size ", T,
              ": it never replicates key heads");
}

// SPEC §16.1: KDA's bare assert.
inline Failure kda_heads_not_divisible() { return make(ErrorKind::AssertionError, ""); }

// SPEC §16.1: vLLM's divide().
template <class Int>
Failure mamba1_not_divisible(const Int& I, const Int& T) {
  return make(ErrorKind::AssertionError, I, " is not divisible by ", T);
}

// SPEC §16.1: state_pairing's sides differ.
template <class Int>
Failure conv_window_lengths_differ(const Int& LP, const Int& LD) {
  return make(ErrorKind::ValueError, "prefill conv window length ", LP, " differs from decode's ", LD,
              ": K-1+num_speculative_tokens must match on both sides");
}
template <class Int>
Failure conv_element_sizes_differ(const Int& ECP, const Int& ECD) {
  return make(ErrorKind::ValueError, "prefill conv element size ", ECP, " differs from decode's ", ECD);
}
template <class Int>
Failure ssm_element_sizes_differ(const Int& ESP, const Int& ESD) {
  return make(ErrorKind::ValueError, "prefill SSM element size ", ESP, " differs from decode's ", ESD);
}

// Project (SPEC §16.3): a side's state bytes (channels x rows x element size)
// past what the model's integer type holds (cpp_int holds any).
template <class Int>
Failure state_bytes_do_not_fit(const Int& T, const char* type) {
  return make(ErrorKind::ValueError, "state bytes of tp_size ", T, " do not fit in ", type);
}

// Project (SPEC §16.3): a vLLM page's stride holds the state and padding.
inline Failure page_smaller_than_state(const BigInt& stride, const BigInt& bytes) {
  return make(ErrorKind::ValueError, "vLLM page of ", stride, " bytes is smaller than its state's ", bytes);
}

}  // namespace tpcheck::msg
