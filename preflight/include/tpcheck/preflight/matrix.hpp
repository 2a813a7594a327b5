// Which (P, D) each connector accepts for one head count, every size from 1
// to N: one cell per sizing, marked accepted or by the rule that rejects it.
// `tpcheck matrix` prints it as text (one character per cell) and draws it as
// an SVG heat map (pictures.hpp); both take the marks from kCellKinds.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpcheck/deployment.hpp"

namespace tpcheck::preflight {

// How a cell is shown: its character, its colour and what it means.
struct CellKind {
  std::optional<Rejection> reason;  // nothing: accepted
  char mark;
  std::string_view colour;
  std::string_view meaning;
};

// The legend, in the order it is shown. Rejection::NotPositive cannot occur in
// a matrix (sizes start at 1), so it has no entry.
inline constexpr std::array<CellKind, 5> kCellKinds = {{
    {std::nullopt, '+', "#1a9850", "accepted"},
    {Rejection::NotDivisible, '.', "#d9d9d9", "P and D do not divide each other"},
    {Rejection::HeadsDoNotShard, 'x', "#737373", "KV heads do not shard over P or D (the model does not load)"},
    {Rejection::HeadGuard, 'g', "#fdae61", "MoRIIO head guard: needs P == D or min(P, D) >= heads"},
    {Rejection::NixlReplicaRule, 'r', "#d73027", "NIXL replica rule: P > D and P > heads leaves replicas unread"},
}};

// The entry for a cell (the accepted entry for nothing).
const CellKind& cell_kind(std::optional<Rejection> reason);

// A reason's name in --json output: "not_divisible", "heads_do_not_shard", ...
std::string_view reason_name(Rejection r);

struct Panel {
  Connector connector;
  std::vector<std::optional<Rejection>> cells;  // row P-1, column D-1: cells[(P-1) * N + (D-1)]
  std::int64_t accepted = 0;
};

struct Matrix {
  std::int64_t max_tp = 0;
  std::int64_t kv_heads = 1;
  bool mla = false;
  std::vector<Panel> panels;

  const std::optional<Rejection>& cell(const Panel& panel, std::int64_t P, std::int64_t D) const {
    return panel.cells[static_cast<std::size_t>((P - 1) * max_tp + (D - 1))];
  }
};

Matrix build_matrix(const std::vector<Connector>& connectors, std::int64_t max_tp, std::int64_t kv_heads, bool mla);

// The text grid: per connector a header, column numbers (one digit per line)
// and a row per prefill size; the legend first. `heads` says what the head
// count is ("8 KV heads", "MLA").
std::string matrix_text(const Matrix& m, const std::string& heads);

// The --json object's fields after the head source: "max_tp", "legend",
// "connectors" with each row as a string of marks.
std::string matrix_json_fields(const Matrix& m);

}  // namespace tpcheck::preflight
