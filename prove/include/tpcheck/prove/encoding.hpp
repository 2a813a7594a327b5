// The model's arithmetic (SPEC §1-8, lib/) as Z3 terms, each operation once,
// with the model's checks in the model's order and the project's choices
// where the SPEC is silent. Arguments are unbounded integers (Int terms);
// MLA is a Bool term. prove/tests/differential_test.cpp ties every operation
// here to the cpp_int model on the sweep's inputs.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include <z3++.h>

#include "tpcheck/prove/terms.hpp"
#include "tpcheck/state.hpp"
#include "tpcheck/state_bytes.hpp"

namespace tpcheck::prove {

// Deliberate faults in the encoding, for the test that shows a wrong encoding
// yields a counterexample the model confirms (prove/tests/planted_fault_test.cpp).
enum class Fault {
  None,
  WindowOneRankTooLong,  // window_span of R > L ends one rank late
  // The state plan slices a segment replicated on the prefill side as if it
  // were sharded: the decode rank takes only its 1/D share of B and C (the
  // slicing of the connectors that treat the state as one block).
  ReplicatedSegmentSliced,
};

// §16.1 what a T-rank side holds of one segment of a family's state, on
// checked input (lib's ConvSegment): the conv segments in family order, then
// the SSM heads as one more segment, "ssm" (never replicated, from local unit 0).
struct StateSegmentTerms {
  z3::expr groups;      // G_s; the SSM state: H_s
  z3::expr group_width; // w_s; the SSM state: 1 (a head is one unit)
  z3::expr full;        // W_s = G_s * w_s; the SSM state: H_s
  z3::expr replicated;  // a Bool: G_s == 1 < T (only Mamba2's B and C load so)
  z3::expr width;       // width(T, s): W_s // T, or W_s when replicated; the SSM state: H_s // T
  z3::expr loc;         // loc(T, s): the widths before it; the SSM state: 0
};

// §16.1 a T-rank side's ownership of the state (lib's RankState).
struct StateSideTerms {
  StateFamily family;
  z3::expr T;
  std::vector<StateSegmentTerms> segments;  // conv_count() conv segments, then the SSM heads
  z3::expr c_loc;                           // C_loc(T): the conv widths added up
  z3::expr head_elements;                   // E

  std::size_t conv_count() const { return segments.size() - 1; }
  const StateSegmentTerms& ssm() const { return segments.back(); }
  // start(r, T, s): the first logical unit rank r holds of segment s (0 when replicated).
  z3::expr start(const z3::expr& r, std::size_t s) const;
};

// The names of a family's segments in its order, then "ssm" (how `tpcheck
// eval` prints them; SPEC §16.0's table).
const std::vector<std::string_view>& state_segment_names(StateFamily family);

// One segment's part of decode rank d's state plan (§16.2), in the fixed
// arity the proofs need: how many copies, and copy j (0 <= j < count) as
// {p, src, dst, n}, the model's overlap rule (one whole copy from floor(d * P /
// D) for a segment replicated on the prefill side).
struct SegmentCopiesTerm {
  z3::expr count;
  std::function<std::vector<z3::expr>(const z3::expr& j)> copy;
};

// §16.2's overlap rule: the copies to decode units [a_d, a_d + wd) (local
// unit loc_d on) from the prefill ranks each holding wp units (rank k from k *
// wp, local unit loc_p on), as lib's append_overlaps lists them. The proofs'
// laws are stated on this same function, so that their instances are the
// encoding's terms.
SegmentCopiesTerm overlap_copies(const z3::expr& a_d, const z3::expr& wd, const z3::expr& wp, const z3::expr& loc_p,
                                 const z3::expr& loc_d);

// §16.3 one stretch of bytes a copy moves, as lib's for_each_copy_run visits
// them before it merges neighbours: `length` bytes from `src` of the sender's
// entry to `dst` of the receiver's (the SSM state's entry when `ssm`).
struct ByteRunTerm {
  bool ssm;
  z3::expr src, dst, length;
};

// How many runs a copy has before merging (lib's for_each_copy_run): one for
// the SSM state or between two DS sides; one per row t between two row-major
// sides; one per element (k, t) otherwise.
enum class RunsPer { Copy, Row, Element };
RunsPer runs_per(bool ssm, ConvOrder sender, ConvOrder receiver);

// One side's state bytes: its ownership, conv order, container, rows and element sizes.
struct StateBytesTerms {
  const StateSideTerms* side;
  ConvOrder order;
  StateContainer container;
  z3::expr L, e_conv, e_ssm;
  z3::expr conv_bytes() const;  // C_loc * L * e_conv
  z3::expr ssm_bytes() const;   // H_loc * E * e_ssm
  z3::expr ssm_offset() const;  // a vLLM page: after the conv state; SGLang's temporal tensor: 0
  // The offset of byte b of row t of local channel j of conv segment s, from the conv state's start.
  z3::expr conv_byte_at(std::size_t s, const z3::expr& j, const z3::expr& t, const z3::expr& b) const;
  // The offset of byte b of element i of local head h, from the SSM state's start.
  z3::expr ssm_byte_at(const z3::expr& h, const z3::expr& i, const z3::expr& b) const;
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

  // §16.1-16.2 (lib/src/state.cpp) for one family, its DIMS in SPEC §16.0's
  // order (dims.size() == state_dim_count(family)).
  OutcomeTerm state_shape(StateFamily f, const z3::expr& T, const std::vector<z3::expr>& dims) const;
  // One element per conv segment, then "ssm": {segment index, lo, hi, local_lo, replicated (0 or 1)}.
  OperationTerm segments(StateFamily f, const z3::expr& r, const z3::expr& T, const std::vector<z3::expr>& dims) const;
  // The plan of any length (no listing limit), and as the model lists it: the
  // copies by segment, each {segment index, p, src, dst, n}.
  OperationTerm state_plan_copies(StateFamily f, const z3::expr& d, const z3::expr& P, const z3::expr& D,
                                  const std::vector<z3::expr>& dims) const;
  OperationTerm state_plan(StateFamily f, const z3::expr& d, const z3::expr& P, const z3::expr& D,
                           const std::vector<z3::expr>& dims) const;
  OperationTerm state_served(StateFamily f, const z3::expr& p, const z3::expr& P, const z3::expr& D,
                             const std::vector<z3::expr>& dims) const;
  OutcomeTerm state_pairing(const z3::expr& LP, const z3::expr& LD, const z3::expr& ECP, const z3::expr& ECD,
                            const z3::expr& ESP, const z3::expr& ESD) const;

  // The arithmetic behind them, on checked input: a side's ownership (lib's
  // owned()), segment s's copies in d's plan, and the count the listing limit
  // compares (per segment 1 when replicated on the prefill side, else max(1, P // D)).
  StateSideTerms state_side(StateFamily f, const z3::expr& T, const std::vector<z3::expr>& dims) const;
  SegmentCopiesTerm segment_copies(const StateSideTerms& prefill, const StateSideTerms& decode, std::size_t s,
                                   const z3::expr& d) const;
  z3::expr state_plan_listed_count(const StateSideTerms& prefill, const StateSideTerms& decode) const;
  // §16.3 a run of copy {p, src, dst, n} of segment s (lib's for_each_copy_run,
  // before merging): the one run, row t's, or element (k, t)'s (runs_per).
  ByteRunTerm copy_run(const StateBytesTerms& sender, const StateBytesTerms& receiver, std::size_t s,
                       const std::vector<z3::expr>& copy, const z3::expr& k, const z3::expr& t) const;

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
  // §16.1's checks of a family's dims (positive, then the config) and of a side's TP size T.
  void check_state_dims(Checks& checks, StateFamily f, const std::vector<z3::expr>& dims) const;
  void check_state_tp(Checks& checks, StateFamily f, const z3::expr& T, const std::vector<z3::expr>& dims) const;
  // What state_plan and state_served check before listing (first failure wins).
  Checks validate_state_sizing(StateFamily f, const z3::expr& rank, bool rank_is_decode, const z3::expr& P,
                               const z3::expr& D, const std::vector<z3::expr>& dims) const;

  z3::context& c_;
  Fault fault_;
};

}  // namespace tpcheck::prove
