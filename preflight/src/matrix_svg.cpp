// The matrix heat map (pictures.hpp).
#include <algorithm>

#include "tpcheck/preflight/pictures.hpp"
#include "tpcheck/preflight/svg.hpp"

namespace tpcheck::preflight {
namespace {

constexpr int kMargin = 16;
constexpr int kHeader = 58;     // title and subtitle
constexpr int kLabelLeft = 40;  // prefill sizes left of the grid
constexpr int kPanelTop = 42;   // panel title and decode sizes above the grid
constexpr int kLegendRow = 20;
constexpr int kMinWidth = 620;  // the legend's longest line

// Every `step`-th size is labelled (and size 1): about 16 labels an axis.
int label_step(std::int64_t n) { return n <= 16 ? 1 : n <= 32 ? 2 : n <= 64 ? 4 : 8; }

std::string panel_title(const Matrix& m, const Panel& panel) {
  const std::int64_t n = m.max_tp;
  return std::string(connector_name(panel.connector)) + ": " + std::to_string(panel.accepted) + " of " +
         std::to_string(n * n) + " accepted" +
         (panel.misserved > 0 ? ", " + std::to_string(panel.misserved) + " served wrongly" : "");
}

std::string legend_line(const CellKind& k) { return std::string(1, k.mark) + "  " + std::string(k.meaning); }

void draw_panel(Svg& svg, const Matrix& m, const Panel& panel, int x0, int y0, int cell) {
  const int n = static_cast<int>(m.max_tp);
  const int gx = x0 + kLabelLeft, gy = y0 + kPanelTop;
  const std::string name(connector_name(panel.connector));
  svg.text(x0, y0 + 16, panel_title(m, panel), 15, Anchor::Start, true);
  svg.text(gx - 6, gy - 6, "P\\D", 11, Anchor::End, false, "#555555");
  const int step = label_step(n);
  for (int v = 1; v <= n; ++v) {
    if (v != 1 && v % step != 0) continue;
    svg.text(gx + (v - 1) * cell + cell / 2, gy - 6, std::to_string(v), 11, Anchor::Middle, false, "#555555");
    svg.text(gx - 6, gy + (v - 1) * cell + cell / 2 + 4, std::to_string(v), 11, Anchor::End, false, "#555555");
  }
  svg.open_group(name + ": rows prefill TP 1.." + std::to_string(n) + ", columns decode TP 1.." + std::to_string(n));
  // Equal neighbours in a row are one rectangle; the grid lines separate them.
  for (int P = 1; P <= n; ++P) {
    for (int D = 1; D <= n;) {
      const Cell& here = m.cell(panel, P, D);
      int run = 1;
      while (D + run <= n && m.cell(panel, P, D + run) == here) ++run;
      svg.rect(gx + (D - 1) * cell, gy + (P - 1) * cell, run * cell, cell, cell_kind(here).colour);
      D += run;
    }
  }
  if (cell >= 6) {
    for (int k = 1; k < n; ++k) {
      svg.line(gx + k * cell, gy, gx + k * cell, gy + n * cell, "#ffffff");
      svg.line(gx, gy + k * cell, gx + n * cell, gy + k * cell, "#ffffff");
    }
  }
  svg.close_group();
  svg.rect(gx, gy, n * cell, n * cell, "none", "#444444");
}

}  // namespace

std::string matrix_svg(const Matrix& m, const std::string& heads) {
  const int n = static_cast<int>(m.max_tp);
  const int cell = std::clamp(384 / n, 3, 24);
  const std::vector<const CellKind*> legend = legend_of(m);
  const std::string title = "Which prefill/decode TP sizes each connector accepts: " + heads;
  // Panels and the picture wide enough for their lines.
  int panel_w = kLabelLeft + n * cell + 24;
  for (const Panel& panel : m.panels) panel_w = std::max(panel_w, text_width(panel_title(m, panel), 15, true) + 16);
  int text_w = text_width(title, 17, true) + 2 * kMargin;
  for (const CellKind* k : legend) text_w = std::max(text_w, kMargin + 22 + text_width(legend_line(*k), 13) + kMargin);
  const int panel_h = kPanelTop + n * cell + 20;
  const int panels = static_cast<int>(m.panels.size());
  const int columns = std::min(2, std::max(1, panels)), rows = (panels + 1) / 2;
  const int width = std::max({kMinWidth, 2 * kMargin + columns * panel_w, text_w});
  const int legend_y = kHeader + rows * panel_h + 8;
  const int height = legend_y + static_cast<int>(legend.size()) * kLegendRow + kMargin;
  Svg svg(width, height, title);
  svg.text(kMargin, 26, title, 17, Anchor::Start, true);
  svg.text(kMargin, 46,
           "rows: prefill TP P = 1.." + std::to_string(n) + "; columns: decode TP D = 1.." + std::to_string(n) +
               "; colour: accepted, or the rule that rejects",
           12, Anchor::Start, false, "#555555");
  for (int i = 0; i < panels; ++i) {
    draw_panel(svg, m, m.panels[static_cast<std::size_t>(i)], kMargin + (i % 2) * panel_w, kHeader + (i / 2) * panel_h,
               cell);
  }
  for (std::size_t i = 0; i < legend.size(); ++i) {
    const int y = legend_y + static_cast<int>(i) * kLegendRow;
    svg.rect(kMargin, y, 14, 14, legend[i]->colour, "#444444");
    svg.text(kMargin + 22, y + 12, legend_line(*legend[i]), 13);
  }
  return svg.finish();
}

}  // namespace tpcheck::preflight
