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
#include "tpcheck/preflight/state_rules.hpp"

namespace tpcheck::preflight {

// What a hybrid model's recurrent state makes of a cell (SPEC §16.5's
// matrix): the state does not load at P or D; the connector refuses it; it
// runs a layout outside the model; its rule misserves it (or moves it for
// sides the model calls invalid).
enum class StateCell : std::uint8_t { DoesNotLoad, Refused, Outside, Misserved };

// A cell: the rule that rejects the sizing, or, for a sizing the connector
// runs, how it is served wrongly (neither: accepted and served correctly);
// for a recurrent state, what it makes of the sizing.
struct Cell {
  std::optional<Rejection> reason;
  std::optional<Misservice> misserved;
  std::optional<StateCell> state;
  bool operator==(const Cell&) const = default;
};

// How a cell is shown: its character, its colour and what it means.
struct CellKind {
  Cell cell;
  char mark;
  std::string_view colour;
  std::string_view meaning;
};

// The legend, in the order it is shown. Rejection::NotPositive cannot occur in
// a matrix (sizes start at 1), so it has no entry. A cell shows the first of
// x, l, ., the KV refusals, h, o, the KV misservices, z, + (build_matrix).
inline constexpr std::array<CellKind, 14> kCellKinds = {{
    {{}, '+', "#1a9850", "accepted"},
    {{Rejection::NotDivisible, {}, {}}, '.', "#d9d9d9", "P and D do not divide each other"},
    {{Rejection::HeadsDoNotShard, {}, {}}, 'x', "#737373", "KV heads do not shard over P or D (the model does not load)"},
    {{{}, {}, StateCell::DoesNotLoad}, 'l', "#8c510a", "the recurrent state does not load at P or D (the model's asserts)"},
    {{Rejection::HeadGuard, {}, {}}, 'g', "#fdae61", "MoRIIO head guard: needs P == D or min(P, D) >= heads"},
    {{Rejection::NixlReplicaRule, {}, {}}, 'r', "#d73027", "NIXL replica rule: P > D and P > heads leaves replicas unread"},
    {{Rejection::NotPowerOfTwo, {}, {}}, 'p', "#9e0142", "TRT-LLM C++: a TP size per attention-DP group is not a power of two"},
    {{Rejection::MlaNotCovered, {}, {}}, 'm', "#5e4fa2", "TRT-LLM C++: MLA is MLACacheFormatter's, which the model does not cover"},
    {{{}, {}, StateCell::Refused}, 'h', "#3288bd", "the connector refuses the recurrent state at these sizes"},
    {{{}, {}, StateCell::Outside}, 'o', "#80cdc1", "runs, but keeps the state in a layout outside the model"},
    {{{}, Misservice::TargetsMissingPrefillRanks, {}}, 't', "#f46d43",
     "runs, but decode ranks target prefill ranks that do not exist (requests fail)"},
    {{{}, Misservice::PrefillRanksStall, {}}, 's', "#fee08b", "runs, but some prefill ranks are never targeted (they stall)"},
    {{{}, Misservice::NotDivisible, {}}, 'n', "#e6f598", "runs, but serves correctly only P and D that divide each other"},
    {{{}, {}, StateCell::Misserved}, 'z', "#c51b7d",
     "runs, but its state rule moves other bytes than the model's plan (or sides that do not pair)"},
}};

// The entry for a cell.
const CellKind& cell_kind(const Cell& cell);

struct Matrix;

// The legend a matrix shows, in kCellKinds' order: "accepted" and every kind
// some cell of it has (ten kinds are a lot to read past when a grid shows three).
std::vector<const CellKind*> legend_of(const Matrix& m);

// A reason's name in --json output: "not_divisible", "heads_do_not_shard", ...
std::string_view reason_name(Rejection r);
// A misservice's name in --json output: "targets_missing_prefill_ranks", ...
std::string_view misservice_name(Misservice m);
// A state cell's name in --json output: "state_does_not_load", ...
std::string_view state_cell_name(StateCell s);

struct Panel {
  Connector connector;
  std::vector<Cell> cells;  // row P-1, column D-1: cells[(P-1) * N + (D-1)]
  std::int64_t accepted = 0;   // cells without a rejection
  std::int64_t misserved = 0;  // ... of which served wrongly
};

struct Matrix {
  std::int64_t max_tp = 0;
  std::int64_t kv_heads = 1;
  bool mla = false;
  bool state = false;  // a recurrent state was judged
  AttentionDp adp;  // read by the TRT-LLM panels
  std::vector<Panel> panels;

  const Cell& cell(const Panel& panel, std::int64_t P, std::int64_t D) const {
    return panel.cells[static_cast<std::size_t>((P - 1) * max_tp + (D - 1))];
  }
};

Matrix build_matrix(const std::vector<Connector>& connectors, std::int64_t max_tp, std::int64_t kv_heads, bool mla,
                    AttentionDp adp = {});

// The same for a model's shape: its KV (kv_verdict) and its recurrent state
// (state_verdict). A cell's accepted when neither its KV nor its state is
// refused; served wrongly when either is misserved or outside the model.
Matrix build_matrix(const std::vector<Connector>& connectors, std::int64_t max_tp, const ModelShape& m,
                    AttentionDp adp = {});

// The text grid: per connector a header, column numbers (one digit per line)
// and a row per prefill size; the legend (legend_of) first. `heads` says what the head
// count is ("8 KV heads", "MLA").
std::string matrix_text(const Matrix& m, const std::string& heads);

// The --json object's fields after the head source: "max_tp", "legend",
// "connectors" with each row as a string of marks.
std::string matrix_json_fields(const Matrix& m);

}  // namespace tpcheck::preflight
