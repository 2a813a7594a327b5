// The SVG pictures of `tpcheck matrix --svg` and `tpcheck plan --svg`.
#pragma once

#include <cstdint>
#include <string>

#include "tpcheck/preflight/matrix.hpp"
#include "tpcheck/preflight/state_rules.hpp"

namespace tpcheck::preflight {

// The heat map: one panel per connector, rows prefill TP, columns decode TP,
// each cell coloured by kCellKinds, with the legend. `heads` says what the
// head count is and where it came from.
std::string matrix_svg(const Matrix& m, const std::string& heads);

// Past this many ranks on a side the plan is drawn as a summary.
inline constexpr std::int64_t kMaxDrawnRanks = 16;

struct PlanPicture {
  std::string svg;
  bool summary = false;  // more than kMaxDrawnRanks on a side
};

// The plan of a sizing the model accepts (plan() succeeds): prefill ranks'
// pages on top, decode ranks' pages below, each KV head a cell, a curve per
// copy from the source heads to the destination heads; on each prefill rank
// its readers under the general plan and MoRIIO's single-source count.
PlanPicture plan_svg(std::int64_t P, std::int64_t D, std::int64_t H, bool mla, const std::string& heads);

// The same for a model's shape: a hybrid model's state segments as cells
// under each page (SPEC §16.2), a dashed curve per state copy; a model
// without attention has no KV heads to draw. Precondition: the state plan
// exists at (P, D).
PlanPicture plan_svg(std::int64_t P, std::int64_t D, const ModelShape& m, const std::string& heads);

}  // namespace tpcheck::preflight
