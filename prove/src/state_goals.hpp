// What the proofs of SPEC §16.4 share: a family's inputs, where a side
// loads them, the shape of a side's ownership (proved once per invariant as
// a fact, from the laws below), and the state plan's copies in the closed
// form of §16.2 on divisible pairs.
#pragma once

#include <string>
#include <vector>

#include "tpcheck/prove/goal.hpp"

namespace tpcheck::prove::state {

// The family's DIMS as inputs of `g`, named as `tpcheck eval` names them.
std::vector<z3::expr> dim_inputs(Goals& g, StateFamily f);

// SPEC §16.1: a side of T ranks loads these dims: positive, the config
// consistent, the side's TP checks pass.
z3::expr loads(StateFamily f, const z3::expr& T, const std::vector<z3::expr>& dims);

// Mamba2's case B on T ranks: one group, several ranks (false for the other families).
z3::expr case_b(StateFamily f, const z3::expr& T, const std::vector<z3::expr>& dims);

// Whether SPEC §16.1 replicates segment s (a conv segment's index) on T ranks:
// Mamba2's B and C in case B, nothing else.
z3::expr replicated_by_spec(StateFamily f, std::size_t s, const z3::expr& T, const std::vector<z3::expr>& dims);

// A loaded side's ownership as the proofs use it: each conv segment
// replicated exactly where the SPEC says, then W_s wide, otherwise T * width
// == W_s; every width and W_s positive; T * H_loc == H_s; E positive.
z3::expr side_shape(const StateSideTerms& side, const std::vector<z3::expr>& dims);

// The laws that prove side_shape, at the side's terms: T * (G_s // T) == G_s
// and (G_s * w_s) // T == (G_s // T) * w_s for each sharded segment (GDN's
// value heads through its key heads), T * (H_s // T) == H_s.
void use_side_laws(Goal& goal, const StateSideTerms& side, const std::vector<z3::expr>& dims);

// side_shape proved from `domain` (which must imply the side loads) as a
// goal of `g`; returns "domain implies the shape", for later goals to be given.
z3::expr side_shape_fact(Goals& g, const std::string& where, const z3::expr& domain, const StateSideTerms& side,
                         const std::vector<z3::expr>& dims, std::vector<ShownCall> calls);

// A goal given facts, with the side's quotients (each width W_s // T and
// H_s // T) replaced by free constants: the facts bind them.
void abstract_widths(Goal& goal, const StateSideTerms& side);

// §16.2's overlap rule (overlap_copies) for decode units [a, a + w) and
// prefill ranks of p units each, where the quotients the rule computes are
// known (the goals give them by quotient_law, whose premises are products):
//  - a // p == q, q * p <= a, a + w <= q * p + p and (a + w + p - 1) // p ==
//    q + 1: one copy, from prefill rank q, at its unit a - q * p;
Law one_overlap_law(z3::context& c);
//  - a == q * p (so a // p == q), w == k * p and (a + w + p - 1) // p == q +
//    k: k copies, copy j (0 <= j < k) from prefill rank q + j, whole, to unit j * p.
Law several_overlaps_law(z3::context& c);

// a * w <= b * w wherever a <= b and w >= 0.
Law monotone_product_law(z3::context& c);

}  // namespace tpcheck::prove::state
