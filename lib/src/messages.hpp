// Every failure text of the model, in one place. Texts marked SPEC are
// upstream's exact words; the others are this project's, for inputs the SPEC
// is silent about, and always name the bad argument.
#pragma once

#include <cstdint>
#include <string>

#include "tpcheck/outcome.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::msg {

// SPEC §1, §7 (ack count), §8.
inline Failure tp_sizes_must_be_positive() { return value_error("TP sizes must be positive"); }

// SPEC §1.
template <class Int>
Failure local_rank_out_of_range(const Int& r, const Int& L) {
  return value_error("local_tp_rank " + decimal(r) + " must be in [0, " + decimal(L) + ")");
}

// SPEC §1 and §7 share one shape: "{larger} tp_size {a} must be a multiple of
// {smaller} tp_size {b} for heterogeneous-TP P/D".
template <class Int>
Failure not_a_multiple(const char* larger_role, const Int& larger, const char* smaller_role, const Int& smaller) {
  return value_error(std::string(larger_role) + " tp_size " + decimal(larger) + " must be a multiple of " +
                     smaller_role + " tp_size " + decimal(smaller) + " for heterogeneous-TP P/D");
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
  return assertion_error("Local tensor parallel size " + decimal(L) +
                         " is not divisible by remote tensor parallel size " + decimal(R) + ".");
}

// SPEC §3.
template <class Int>
Failure remote_not_divisible(const Int& R, const Int& L) {
  return assertion_error("Remote tensor parallel size " + decimal(R) +
                         " is not divisible by local tensor parallel size " + decimal(L) + ".");
}

// Project: a size that must be positive, named by its role.
template <class Int>
Failure size_not_positive(const char* role, const Int& size) {
  return value_error(std::string(role) + " " + decimal(size) + " must be positive");
}

// Project: a rank outside [0, size), named by its role.
template <class Int>
Failure rank_out_of_range(const char* role, const Int& rank, const Int& size) {
  return value_error(std::string(role) + " " + decimal(rank) + " must be in [0, " + decimal(size) + ")");
}

// Project (SPEC §4: "the model does not load").
template <class Int>
Failure heads_not_shardable(const Int& H, const char* role, const Int& T) {
  return value_error("total_num_kv_heads " + decimal(H) + " cannot be sharded over " + role + " " + decimal(T) +
                     ": one must divide the other");
}

// SPEC §5.
inline Failure guard_not_positive() {
  return value_error("TP sizes and total_num_kv_heads must be positive");
}

// SPEC §5.
template <class Int>
Failure guard_needs_replicated_heads(const Int& H, const Int& L, const Int& R) {
  return not_implemented_error(
      "MoRIIO heterogeneous TP requires replicated KV heads on both prefill and decode. Got total_num_kv_heads=" +
      decimal(H) + ", local_tp_size=" + decimal(L) + ", remote_tp_size=" + decimal(R) + ".");
}

// Project: a window or plan too long to list (kMaxListed).
template <class Int>
Failure too_long_to_list(const std::string& what, const Int& count, std::int64_t limit) {
  return value_error(what + " has " + decimal(count) + " elements, more than the model lists (" +
                     decimal(limit) + ")");
}

// SPEC §11: NIXL's handshake refuses a larger prefill side that replicates
// heads (`not mla and P > D and P > H`) with an AssertionError that has no
// message.
inline Failure nixl_refuses_unread_replicas() { return assertion_error(""); }

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
inline Failure port_tp_size_not_positive() { return value_error("tp_size must be positive"); }

// SPEC §8.
template <class Int>
Failure tp_rank_out_of_range(const Int& t, const Int& T) {
  return value_error("tp_rank " + decimal(t) + " must be in [0, " + decimal(T) + ")");
}

// SPEC §8.
template <class Int>
Failure dp_rank_negative(const Int& dp) {
  return value_error("dp_rank " + decimal(dp) + " must be non-negative");
}

// Project: a rank count that a host count does not divide (a rank would land
// on a host past the last one).
template <class Int>
Failure ranks_not_spread_over_hosts(const Int& T, const Int& n) {
  return value_error("tp_size " + decimal(T) + " does not spread evenly over num_hosts " + decimal(n));
}

// Project: a deployment whose highest port passes 65535.
template <class Int, class Wide>
Failure ports_exceed_range(const Int& base, const Wide& last) {
  return value_error("ports " + decimal(base) + ".." + decimal(last) + " exceed 65535");
}

}  // namespace tpcheck::msg
