// The model's arithmetic (SPEC §1-8, lib/) as Z3 terms, each operation once,
// with the model's checks in the model's order and the project's choices
// where the SPEC is silent. Arguments are unbounded integers (Int terms);
// MLA is a Bool term. prove/tests/differential_test.cpp ties every operation
// here to the cpp_int model on the sweep's inputs.
#pragma once

#include <z3++.h>

#include "tpcheck/prove/terms.hpp"

namespace tpcheck::prove {

// Deliberate faults in the encoding, for the test that shows a wrong encoding
// yields a counterexample the model confirms (prove/tests/planted_fault_test.cpp).
enum class Fault {
  None,
  WindowOneRankTooLong,  // window_span of R > L ends one rank late
};

// Which connector sizing_accepted asks about (SPEC §11).
enum class ConnectorTerm { MoRIIO, Nixl, Mooncake, General };

class Encoding {
 public:
  explicit Encoding(z3::context& c, Fault fault = Fault::None) : c_(c), fault_(fault) {}
  z3::context& ctx() const { return c_; }
  z3::expr num(long long v) const { return c_.int_val(static_cast<int64_t>(v)); }

  // §1-3 (lib/src/rank_map.cpp). Spans are {first, end}.
  OutcomeTerm remote_rank(const z3::expr& r, const z3::expr& L, const z3::expr& R) const;
  OutcomeTerm general_rank(const z3::expr& r, const z3::expr& L, const z3::expr& R) const;
  OutcomeTerm tp_ratio(const z3::expr& L, const z3::expr& R) const;
  OutcomeTerm window_span(const z3::expr& r, const z3::expr& L, const z3::expr& R) const;
  OperationTerm window(const z3::expr& r, const z3::expr& L, const z3::expr& R) const;  // listed: at most 2^20

  // §4-5 (lib/src/heads.cpp). head_compatible's value is a Bool; T, H >= 1.
  OutcomeTerm head_compatible(const z3::expr& T, const z3::expr& H) const;
  OutcomeTerm heads(const z3::expr& r, const z3::expr& T, const z3::expr& H) const;
  OutcomeTerm holders(const z3::expr& h, const z3::expr& T, const z3::expr& H) const;
  OutcomeTerm kv_heads_guard(const z3::expr& L, const z3::expr& R, const z3::expr& H, const z3::expr& mla) const;
  OutcomeTerm kv_heads_guard_strict(const z3::expr& L, const z3::expr& R, const z3::expr& H,
                                    const z3::expr& mla) const;

  // §6-7 (lib/src/plan.cpp). A copy is {p, lo, hi}. plan_copies is the plan
  // of any length (its outcome's value is plan_copy_count); plan is the same
  // list as the model lists it (at most 2^20 copies).
  OutcomeTerm plan_copy_count(const z3::expr& d, const z3::expr& P, const z3::expr& D, const z3::expr& H,
                              const z3::expr& mla) const;
  OperationTerm plan_copies(const z3::expr& d, const z3::expr& P, const z3::expr& D, const z3::expr& H,
                            const z3::expr& mla) const;
  OperationTerm plan(const z3::expr& d, const z3::expr& P, const z3::expr& D, const z3::expr& H,
                     const z3::expr& mla) const;
  OperationTerm single_source_plan(const z3::expr& d, const z3::expr& P, const z3::expr& D, const z3::expr& H,
                                   const z3::expr& mla) const;
  OutcomeTerm readers(const z3::expr& p, const z3::expr& P, const z3::expr& D, const z3::expr& H,
                      const z3::expr& mla) const;
  OutcomeTerm single_readers(const z3::expr& p, const z3::expr& P, const z3::expr& D) const;

  // §8 (lib/src/ports.cpp).
  OutcomeTerm port_offset(const z3::expr& dp_rank, const z3::expr& tp_rank, const z3::expr& tp_size) const;
  OutcomeTerm host_index(const z3::expr& q, const z3::expr& T, const z3::expr& n) const;
  OutcomeTerm port_range(const z3::expr& base, const z3::expr& dp_size, const z3::expr& tp_size) const;

  // §15.4.4 (lib/src/stages.cpp): whether both sides hold as many heads per
  // rank, over each side's TP size per attention-DP group (1 under its flag).
  OutcomeTerm whole_block_copy_allowed(const z3::expr& P, const z3::expr& D, const z3::expr& H, const z3::expr& mla,
                                       const z3::expr& prefill_adp, const z3::expr& decode_adp) const;

  // §11 (lib/src/deployment.cpp).
  OutcomeTerm sizing_accepted(ConnectorTerm c, const z3::expr& P, const z3::expr& D, const z3::expr& H,
                              const z3::expr& mla) const;

  // Shared arithmetic, as the model's helpers compute it: the heads rank r of
  // a T-rank engine holds, [floor(r*H/T), first + max(1, H // T)), for valid
  // (r, T, H); and MLA folded into the head count (H = 1).
  std::vector<z3::expr> heads_of(const z3::expr& r, const z3::expr& T, const z3::expr& H) const;
  z3::expr effective_heads(const z3::expr& H, const z3::expr& mla) const;

 private:
  z3::expr list_limit() const;
  // The validation plan, plan_copy_count, single_source_plan and readers share:
  // positive sizes, the rank inside [0, bound), both sides able to shard.
  Checks validate_sizing(const z3::expr& rank, bool rank_is_decode, const z3::expr& P, const z3::expr& D,
                         const z3::expr& H, const z3::expr& mla) const;
  z3::expr copy_count(const z3::expr& d, const z3::expr& P, const z3::expr& D, const z3::expr& Heff) const;

  z3::context& c_;
  Fault fault_;
};

}  // namespace tpcheck::prove
