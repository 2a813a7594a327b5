// A claim for Z3 to prove, and the helpers the proofs share to state them.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <z3++.h>

#include "tpcheck/prove/encoding.hpp"

namespace tpcheck::prove {

// An encoded operation applied to terms: shown with a counterexample as the
// `tpcheck eval` line that reproduces it, with the outcome the encoding gives.
struct ShownCall {
  std::string op;  // a name of encoded_operations()
  std::vector<z3::expr> args;
};

// An arithmetic law: `conclusion` wherever `premise` holds, for every value
// of its own free integers `vars`. A goal that uses a law (Goal::use) has it
// proved first, on its own, then assumes it at the goal's terms: a formula
// true for all integers stays true with terms put for its free integers. Z3
// proves such a law at once on its own, but can take seconds to find the
// same step among a plan's terms (floor(x * H / P) == x // (P/H) took up to
// 30 s there).
struct Law {
  std::string claim;
  std::vector<z3::expr> vars;
  z3::expr premise, conclusion;
  z3::expr at(const std::vector<z3::expr>& terms) const;  // premise implies conclusion, vars := terms
};

// x // b == y wherever b >= 1 and b * y <= x < b * y + b: the one quotient.
Law quotient_law(z3::context& c);

// b * (x // b) == x wherever b >= 1 and x % b == 0: a divisibility as a product.
Law divides_law(z3::context& c);

// floor(x * H / P) (a rank's first head, the anchor) without the plan's
// terms around it: x * m when H == m * P (the side splits the heads) ...
Law multiple_law(z3::context& c);

// ... and y when P == k * H (it replicates them) and k * y <= x < k * y + k (y is x // k).
Law fraction_law(z3::context& c);

// a == b * c where a * x == h, b * y == h, c * x == y and x >= 1: one side's
// share per rank is the other's times the ratio (a KV side's heads per rank,
// H/P == H/D * D/P, or replicas, D/H == D/P * P/H; a state segment's width,
// W/P == W/D * D/P).
Law cancellation_law(z3::context& c);

// Another invariant's proved statement, for a goal to be given instead of
// proving it again: every goal of that invariant as "its domain implies its
// claim", over the same named inputs (Goals::cite). The runner proves the cited
// invariant too, and the citing one is proved only when the cited one is.
struct Citation {
  std::string invariant;
  z3::expr statement;
};

// `holds` for every value of the inputs (the constants in the terms) that
// satisfies `domain`. Z3 proves it by finding `domain and not holds`
// unsatisfiable; a model of it is a counterexample.
struct Goal {
  std::string claim;  // one line: what is proved
  z3::expr domain;
  z3::expr holds;
  // Facts proved from the domain first, in order, then assumed by the claim's
  // check: they help Z3 along non-linear steps without changing what is proved.
  std::vector<z3::expr> lemmas;
  // Facts that earlier goals of the same invariant prove (each as "their
  // domain implies their claim"), or another invariant's proved statement
  // (Goal::cite), assumed here without proof: the invariant counts as proved
  // only when every one of its goals is, and every invariant it cites.
  std::vector<z3::expr> given;
  std::vector<std::string> cites;  // the invariants whose statements `given` holds
  // Subterms that every check first replaces by free constants: a stronger
  // claim (it must hold for any value of them that satisfies the domain and
  // the lemmas already proved), so unsat there is unsat as stated. When that
  // does not settle it, the check is repeated as stated, which alone can give
  // a counterexample.
  std::vector<z3::expr> abstracted;
  // Subterms equal on the domain to simpler ones (a case condition to true or
  // false): proved equal first, then replaced in every check. A model of a
  // rewritten check is a model of the check as stated.
  std::vector<std::pair<z3::expr, z3::expr>> rewrites;
  // Laws proved first (each on its own), then assumed at these terms.
  std::vector<std::pair<Law, std::vector<z3::expr>>> laws;
  void use(const Law& law, std::vector<z3::expr> terms) { laws.emplace_back(law, std::move(terms)); }
  void cite(const Citation& citation) {
    given.push_back(citation.statement);
    cites.push_back(citation.invariant);
  }
  std::vector<z3::expr> inputs;  // shown by name with a counterexample
  std::vector<ShownCall> calls;
};

// Collects the goals of one invariant and the inputs they range over.
class Goals {
 public:
  explicit Goals(const Encoding& e) : e_(e) {}
  const Encoding& enc() const { return e_; }
  z3::expr integer(const char* name);
  z3::expr flag(const char* name);  // a Bool input (MLA)
  // Adds a goal over every input declared so far; returns it for lemmas and
  // abstractions.
  Goal& add(std::string claim, const z3::expr& domain, const z3::expr& holds, std::vector<ShownCall> calls = {});
  // Adds a goal whose claim later goals may be given: returns "domain implies holds".
  z3::expr fact(std::string claim, const z3::expr& domain, const z3::expr& holds, std::vector<ShownCall> calls = {});
  // The statement of another invariant (the registry's name), built from its
  // goals on this encoding: its inputs are those of the same names here. A
  // cited invariant must not cite another (no chains, so no cycles).
  Citation cite(std::string_view invariant) const;
  std::vector<Goal> take() { return std::move(goals_); }

 private:
  const Encoding& e_;
  std::vector<z3::expr> inputs_;
  std::vector<Goal> goals_;
};

// b * (x // b) <= x < b * (x // b) + b wherever b >= 1: the definition of a
// quotient, for a goal to be given where the divisor is known positive.
Law quotient_definition_law(z3::context& c);

// Replaces floor_div(num, den) (as the encoding builds it) by a free
// constant q bound by its definition, den * q <= num < den * q + den: a lemma
// proved first, so den must be positive wherever the goal's domain holds.
// This keeps Z3 away from division, which is where non-linear goals get slow.
void abstract_quotient(Goal& goal, const z3::expr& num, const z3::expr& den);

// The same for floor_mod(num, den) and floor_div(num, den) together:
// num == den * q + m with 0 <= m < den.
void abstract_remainder(Goal& goal, const z3::expr& num, const z3::expr& den);

// The same for several goals: the definitions of floor_div(num, den) for
// each pair (for a fact proved once), and the quotient terms to abstract.
struct Quotients {
  z3::expr definitions;
  std::vector<z3::expr> terms;
};
Quotients quotients(z3::context& c, const std::vector<std::pair<z3::expr, z3::expr>>& num_den);

// Shared wordings of the model's preconditions.
z3::expr valid_rank(const z3::expr& r, const z3::expr& L, const z3::expr& R);  // L, R >= 1, 0 <= r < L
// SPEC §1/§3: both positive and the larger a multiple of the smaller (properties' divisible_pair).
z3::expr divisible_pair(const z3::expr& a, const z3::expr& b);
// SPEC §4: both positive and one divides the other (properties' heads_shard).
z3::expr heads_shard(const z3::expr& T, const z3::expr& H);
// x lies in the span {first, end}.
z3::expr within(const z3::expr& x, const std::vector<z3::expr>& span);

}  // namespace tpcheck::prove
