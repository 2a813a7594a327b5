// A decode rank's state plan as the proofs of SPEC §16.4 take it (the plan
// invariants, the duality and the bytes): one family, a divisible pair P, D
// whose sides both load the dims, decode rank d, and the plan's copies
// segment by segment in the encoding's fixed arity (segment s, copy j). The
// proofs go case by case (which side is larger; for Mamba2, whether B and C
// are replicated and where), each case given the shapes of both sides and
// the ratio of their widths (facts proved first), and the overlap laws at the
// copies a goal looks at, which turn §16.2's overlap rule into the closed
// form of its divisible pairs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "state_goals.hpp"

namespace tpcheck::prove::state {

enum class Ratio { DecodeLarger, PrefillLarger };  // D >= P (D = m * P), P > D (P = k * D)
// Where Mamba2's B and C are replicated: nowhere, on the prefill side (case B
// there, P > 1), or on the decode side only (P == 1 < D, G == 1).
enum class Groups { Sharded, ReplicatedOnPrefill, ReplicatedOnDecodeOnly };
struct PlanCase {
  Ratio ratio;
  Groups groups;
};

// The cases of a family: both ratios, and Mamba2's three ways for its groups
// (the decode side alone replicates only where it is the larger).
std::vector<PlanCase> plan_cases(StateFamily f);

struct PlanSetting {
  StateFamily f;
  z3::expr d, P, D;
  std::vector<z3::expr> dims;
  StateSideTerms prefill, decode;
  z3::expr loaded;  // both sides load the dims, P and D divide, 0 <= d < D
  std::vector<SegmentCopiesTerm> copies;  // the encoding's, per segment (the SSM heads last)
  z3::expr m, k;                          // D // P and P // D
  z3::expr anchor;                        // floor(d * P / D), §6's anchor
  z3::expr shapes;                        // both sides' shape facts (facts())

  // Inputs d, P, D and the family's dims, in `tpcheck eval`'s order.
  PlanSetting(Goals& g, StateFamily family);

  std::size_t segment_count() const { return prefill.segments.size(); }
  // The case's condition on the inputs.
  z3::expr on(const PlanCase& c) const;
  // Whether segment s is replicated on the prefill side in the case (known for every case).
  bool replicated_on_prefill(std::size_t s, const PlanCase& c) const;
  // Whether segment s has several copies in the case (k of them: P > D,
  // sharded on the prefill side); one otherwise.
  bool several(std::size_t s, const PlanCase& c) const;
  // `claim` of every copy of segment s: of copy j (0 <= j < count) where it
  // has several, and, where it has one, of copy 0 with the count 1.
  z3::expr every_copy(const PlanCase& c, std::size_t s, const z3::expr& j,
                      const std::function<z3::expr(const std::vector<z3::expr>&)>& claim) const;
  std::string where(const PlanCase& c) const;  // " (mamba2, D >= P, B and C replicated on the prefill side)"
  ShownCall plan_call() const;

  // Proves both sides' shapes (side_shape) as goals of g: call once, first.
  void facts(Goals& g);
  // The ratio of the widths in the case, proved as a goal of g: D == m * P
  // and width(P, s) == m * width(D, s) for each segment sharded on both sides
  // (D >= P; P > D: P == k * D and width(D, s) == k * width(P, s)), and the
  // anchor d // m (D >= P) or d * k.
  z3::expr ratio_fact(Goals& g, const PlanCase& c) const;
  // A goal of the case: given the shapes and the ratio, the replicated flags
  // the case fixes rewritten, the widths and ratios abstracted.
  void prepare(Goal& goal, const PlanCase& c, const z3::expr& ratio) const;
  // The overlap law at copy j of segment s (sharded on the prefill side in the case).
  void use_copy_law(Goal& goal, const PlanCase& c, std::size_t s, const z3::expr& j) const;

  // The closed form of copy j of segment s in the case: {p, src, dst, n}, and
  // the segment's count (§16.2's divisible pairs).
  std::vector<z3::expr> expected(const PlanCase& c, std::size_t s, const z3::expr& j) const;
  z3::expr expected_count(const PlanCase& c, std::size_t s) const;
  // The first logical unit rank r of a side holds of segment s.
  z3::expr start(const StateSideTerms& side, const z3::expr& r, std::size_t s) const { return side.start(r, s); }
};

}  // namespace tpcheck::prove::state
