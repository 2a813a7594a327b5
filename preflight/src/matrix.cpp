// The acceptance matrix (matrix.hpp).
#include "tpcheck/preflight/matrix.hpp"

#include <algorithm>

#include "tpcheck/json.hpp"
#include "tpcheck/preflight/serving.hpp"

namespace tpcheck::preflight {

const CellKind& cell_kind(const Cell& cell) {
  for (const CellKind& k : kCellKinds) {
    if (k.cell == cell) return k;
  }
  static constexpr CellKind kUnknown{{Rejection::NotPositive, {}, {}}, '?', "#000000", "a size is not positive"};
  return kUnknown;
}

std::vector<const CellKind*> legend_of(const Matrix& m) {
  std::vector<const CellKind*> out;
  for (const CellKind& k : kCellKinds) {
    const bool shown = !k.cell.reason && !k.cell.misserved && !k.cell.state;  // "accepted" always
    const bool met = std::any_of(m.panels.begin(), m.panels.end(), [&](const Panel& panel) {
      return std::find(panel.cells.begin(), panel.cells.end(), k.cell) != panel.cells.end();
    });
    if (shown || met) out.push_back(&k);
  }
  return out;
}

std::string_view reason_name(Rejection r) {
  switch (r) {
    case Rejection::NotPositive: return "not_positive";
    case Rejection::HeadsDoNotShard: return "heads_do_not_shard";
    case Rejection::NotDivisible: return "not_divisible";
    case Rejection::HeadGuard: return "head_guard";
    case Rejection::NixlReplicaRule: return "nixl_replica_rule";
    case Rejection::NotPowerOfTwo: return "not_power_of_two";
    case Rejection::MlaNotCovered: return "mla_not_covered";
  }
  return "unknown";
}

std::string_view misservice_name(Misservice m) {
  switch (m) {
    case Misservice::TargetsMissingPrefillRanks: return "targets_missing_prefill_ranks";
    case Misservice::PrefillRanksStall: return "prefill_ranks_stall";
    case Misservice::NotDivisible: return "not_divisible";
  }
  return "unknown";
}

std::string_view state_cell_name(StateCell s) {
  switch (s) {
    case StateCell::DoesNotLoad: return "state_does_not_load";
    case StateCell::Refused: return "state_refused";
    case StateCell::Outside: return "state_outside_the_model";
    case StateCell::Misserved: return "state_misserved";
  }
  return "unknown";
}

Matrix build_matrix(const std::vector<Connector>& connectors, std::int64_t max_tp, std::int64_t kv_heads, bool mla,
                    AttentionDp adp) {
  return build_matrix(connectors, max_tp, ModelShape{{true, kv_heads, mla}, std::nullopt}, adp);
}

namespace {

// A cell by SPEC §16.5's precedence: x, l, ., the KV refusals, h, o, the KV misservices, z, +.
Cell cell_of(Connector c, std::int64_t P, std::int64_t D, const ModelShape& m, const std::vector<bool>& loads,
             AttentionDp adp) {
  const SizingVerdict v = kv_verdict(c, P, D, m.attention, adp);
  if (!m.state) return {v.reason, v.misserved, {}};
  if (v.reason == Rejection::HeadsDoNotShard) return {v.reason, {}, {}};
  if (!loads[static_cast<std::size_t>(P)] || !loads[static_cast<std::size_t>(D)]) return {{}, {}, StateCell::DoesNotLoad};
  if (v.reason) return {v.reason, {}, {}};
  const StateVerdict s = state_verdict(c, P, D, *m.state, m.attention);
  switch (s.serving) {
    case StateServing::DoesNotLoad: return {{}, {}, StateCell::DoesNotLoad};
    case StateServing::Refuses: return {{}, {}, StateCell::Refused};
    case StateServing::Outside: return {{}, {}, StateCell::Outside};
    case StateServing::Invalid:
    case StateServing::Misserves: return {{}, v.misserved, v.misserved ? std::nullopt : std::optional(StateCell::Misserved)};
    case StateServing::Serves: break;
  }
  return {{}, v.misserved, {}};
}

}  // namespace

Matrix build_matrix(const std::vector<Connector>& connectors, std::int64_t max_tp, const ModelShape& shape,
                    AttentionDp adp) {
  Matrix m{max_tp, shape.attention.kv_heads, shape.attention.mla, shape.state.has_value(), adp, {}};
  // Where the state loads (SPEC §16.1), once per size.
  std::vector<bool> loads(static_cast<std::size_t>(max_tp + 1), true);
  if (shape.state) {
    for (std::int64_t T = 1; T <= max_tp; ++T) {
      loads[static_cast<std::size_t>(T)] = state_shape<std::int64_t>(T, shape.state->dims).ok();
    }
  }
  for (const Connector c : connectors) {
    Panel panel{c, {}, 0, 0};
    panel.cells.reserve(static_cast<std::size_t>(max_tp * max_tp));
    for (std::int64_t P = 1; P <= max_tp; ++P) {
      for (std::int64_t D = 1; D <= max_tp; ++D) {
        const Cell cell = cell_of(c, P, D, shape, loads, adp);
        panel.cells.push_back(cell);
        const bool refused = cell.reason || cell.state == StateCell::DoesNotLoad || cell.state == StateCell::Refused;
        panel.accepted += refused ? 0 : 1;
        panel.misserved += !refused && (cell.misserved || cell.state) ? 1 : 0;
      }
    }
    m.panels.push_back(std::move(panel));
  }
  return m;
}

namespace {

std::string row_marks(const Matrix& m, const Panel& panel, std::int64_t P) {
  std::string row;
  for (std::int64_t D = 1; D <= m.max_tp; ++D) row += cell_kind(m.cell(panel, P, D)).mark;
  return row;
}

std::string padded(std::int64_t v, std::size_t width) {
  std::string s = std::to_string(v);
  return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
}

}  // namespace

std::string matrix_text(const Matrix& m, const std::string& heads) {
  const std::int64_t cells = m.max_tp * m.max_tp;
  std::string out = "matrix: " + heads + ", prefill TP P = 1.." + std::to_string(m.max_tp) +
                    " (rows), decode TP D = 1.." + std::to_string(m.max_tp) + " (columns)\n";
  for (const CellKind* k : legend_of(m)) out += std::string("  ") + k->mark + "  " + std::string(k->meaning) + "\n";
  const std::size_t digits = std::to_string(m.max_tp).size();
  const std::string margin(digits + 4, ' ');  // "P" + space + number + space
  for (const Panel& panel : m.panels) {
    out += "\n" + std::string(connector_name(panel.connector)) + ": " + std::to_string(panel.accepted) + " of " +
           std::to_string(cells) + " sizings accepted" +
           (panel.misserved > 0 ? ", " + std::to_string(panel.misserved) + " of them served wrongly" : "") + "\n";
    // Column numbers written downwards, one digit per line.
    for (std::size_t line = 0; line < digits; ++line) {
      std::string header = line + 1 == digits ? std::string("D") + std::string(margin.size() - 1, ' ') : margin;
      for (std::int64_t D = 1; D <= m.max_tp; ++D) header += padded(D, digits)[line];
      out += header + "\n";
    }
    for (std::int64_t P = 1; P <= m.max_tp; ++P) {
      out += std::string(P == 1 ? "P " : "  ") + padded(P, digits) + "  " + row_marks(m, panel, P) + "\n";
    }
  }
  return out;
}

std::string matrix_json_fields(const Matrix& m) {
  std::string out = "\"max_tp\": " + std::to_string(m.max_tp) + ", \"legend\": {";
  for (std::size_t i = 0; i < kCellKinds.size(); ++i) {
    const CellKind& k = kCellKinds[i];
    const std::string name = k.cell.reason      ? std::string(reason_name(*k.cell.reason))
                             : k.cell.misserved ? "runs_but_" + std::string(misservice_name(*k.cell.misserved))
                             : k.cell.state     ? std::string(state_cell_name(*k.cell.state))
                                                : "accepted";
    out += std::string(i ? ", " : "") + json_string(std::string(1, k.mark)) + ": " + json_string(name);
  }
  out += "}, \"connectors\": [";
  for (std::size_t i = 0; i < m.panels.size(); ++i) {
    const Panel& panel = m.panels[i];
    out += std::string(i ? ", " : "") + "{\"name\": " + json_string(std::string(connector_name(panel.connector))) +
           ", \"accepted\": " + std::to_string(panel.accepted) + ", \"misserved\": " + std::to_string(panel.misserved) +
           ", \"rows\": [";
    for (std::int64_t P = 1; P <= m.max_tp; ++P) out += (P > 1 ? ", " : "") + json_string(row_marks(m, panel, P));
    out += "]}";
  }
  return out + "]";
}

}  // namespace tpcheck::preflight
