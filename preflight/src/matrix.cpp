// The acceptance matrix (matrix.hpp).
#include "tpcheck/preflight/matrix.hpp"

#include <algorithm>

#include "tpcheck/json.hpp"

namespace tpcheck::preflight {

const CellKind& cell_kind(const Cell& cell) {
  for (const CellKind& k : kCellKinds) {
    if (k.cell == cell) return k;
  }
  static constexpr CellKind kUnknown{{Rejection::NotPositive, {}}, '?', "#000000", "a size is not positive"};
  return kUnknown;
}

std::vector<const CellKind*> legend_of(const Matrix& m) {
  std::vector<const CellKind*> out;
  for (const CellKind& k : kCellKinds) {
    const bool shown = !k.cell.reason && !k.cell.misserved;  // "accepted" always
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

Matrix build_matrix(const std::vector<Connector>& connectors, std::int64_t max_tp, std::int64_t kv_heads, bool mla,
                    AttentionDp adp) {
  Matrix m{max_tp, kv_heads, mla, adp, {}};
  for (const Connector c : connectors) {
    Panel panel{c, {}, 0, 0};
    panel.cells.reserve(static_cast<std::size_t>(max_tp * max_tp));
    for (std::int64_t P = 1; P <= max_tp; ++P) {
      for (std::int64_t D = 1; D <= max_tp; ++D) {
        const SizingVerdict v = sizing_verdict<std::int64_t>(c, P, D, kv_heads, mla, adp);
        panel.cells.push_back({v.reason, v.misserved});
        panel.accepted += v.reason ? 0 : 1;
        panel.misserved += v.misserved ? 1 : 0;
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
