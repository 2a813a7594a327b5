// The plan picture (pictures.hpp): pages, heads, one curve per copy; or, past
// kMaxDrawnRanks on a side, a summary of the counts.
#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <vector>

#include "tpcheck/model.hpp"
#include "tpcheck/render.hpp"
#include "tpcheck/preflight/pictures.hpp"
#include "tpcheck/preflight/svg.hpp"

namespace tpcheck::preflight {
namespace {

using I = std::int64_t;

constexpr int kMargin = 20;
constexpr int kGap = 12;         // between two pages
constexpr int kPad = 4;          // inside a page, around its cells
constexpr int kMaxCell = 34;     // widest head cell
constexpr int kMinPage = 76;     // room for a page's labels
constexpr int kPrefillTop = 112;  // prefill pages
constexpr int kDecodeTop = 330;   // decode pages
constexpr int kPageHeight = 34;
constexpr int kStateGap = 4;     // between a page and its state cells
constexpr int kStateHeight = 22;  // a rank's state cells, under its page

// Head cells are tinted by head, curves coloured by source rank.
constexpr std::array<std::string_view, 12> kHeadTints = {"#c6dbef", "#fdd0a2", "#c7e9c0", "#fcbba1", "#dadaeb", "#f2e0b6",
                                                         "#b8e3e0", "#f7c6e0", "#e0e0e0", "#d4e8a8", "#cbc4e8", "#f5c2a0"};
constexpr std::array<std::string_view, 8> kRankColours = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                                          "#9467bd", "#8c564b", "#e377c2", "#17becf"};
// State cells are tinted by segment: the conv segments in family order, then the SSM state.
constexpr std::array<std::string_view, 4> kSegmentTints = {"#d0e1f2", "#fde0c5", "#d9f0d3", "#e7d4e8"};

std::string plural(I n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

// One engine's row of pages: where page r and its k-th head cell sit.
struct Row {
  I ranks, heads_per_page, total_heads;
  int page_w, x0;
  int page_x(I r) const { return x0 + static_cast<int>(r) * (page_w + kGap); }
  // The left edge of head offset k (0..heads_per_page) inside page r.
  int head_x(I r, I k) const {
    return page_x(r) + kPad + static_cast<int>(k * (page_w - 2 * kPad) / heads_per_page);
  }
  int width() const { return static_cast<int>(ranks) * page_w + static_cast<int>(ranks - 1) * kGap; }
};

// `min_page`: room for a page's labels, and for its state cells when it has them.
Row make_row(I ranks, I total_heads, int min_page = kMinPage) {
  const I per_page = std::max<I>(1, total_heads / ranks);
  const int fit = (1200 - static_cast<int>(ranks - 1) * kGap) / static_cast<int>(ranks);
  const int wanted = static_cast<int>(std::min<I>(per_page, 64)) * kMaxCell + 2 * kPad;
  return {ranks, per_page, total_heads, std::max(min_page, std::min(fit, wanted)), 0};
}

void draw_pages(Svg& svg, const Row& row, int top, bool mla) {
  for (I r = 0; r < row.ranks; ++r) {
    const int x = row.page_x(r);
    svg.rect(x, top, row.page_w, kPageHeight, "#f7f7f7", "#555555");
    const Span<I> own = heads<I>(r, row.ranks, row.total_heads).value();
    const int cell_w = (row.page_w - 2 * kPad) / static_cast<int>(row.heads_per_page);
    if (cell_w < 4) {  // too many heads to draw one by one: the range as one block
      svg.rect(x + kPad, top + kPad, row.page_w - 2 * kPad, kPageHeight - 2 * kPad, kHeadTints[0], "#888888");
      svg.text(x + row.page_w / 2, top + 22,
               "heads " + std::to_string(own.first) + "-" + std::to_string(own.end - 1), 10, Anchor::Middle);
      continue;
    }
    // Numbered when the page's longest number fits every one of its cells.
    const std::size_t longest = mla ? 3 : std::to_string(own.end - 1).size();
    const bool numbered = cell_w >= static_cast<int>(longest) * 7 + 4;
    for (I h = own.first; h < own.end; ++h) {
      const int hx = row.head_x(r, h - own.first), hw = row.head_x(r, h - own.first + 1) - hx;
      svg.rect(hx, top + kPad, hw, kPageHeight - 2 * kPad, kHeadTints[static_cast<std::size_t>(h % 12)], "#888888");
      if (numbered) svg.text(hx + hw / 2, top + 22, mla ? "MLA" : std::to_string(h), 11, Anchor::Middle);
    }
  }
}

std::string moriio_count(I p, I P, I D) {
  const Outcome<I> single = single_readers<I>(p, P, D);
  return single.ok() ? "MoRIIO " + std::to_string(single.value()) : "MoRIIO -";
}

// A side's state cells: one per conv segment and one for the SSM state, equal
// widths across the page; a copy's end lies where its units are in its cell.
struct StateCells {
  const RankState<I>* state;
  int cell_w(const Row& row) const { return (row.page_w - 2 * kPad) / static_cast<int>(state->segment_count + 1); }
  int cell_x(const Row& row, I r, std::size_t k) const {
    return row.page_x(r) + kPad + static_cast<int>(k) * cell_w(row);
  }
  // The middle of local units [u, u + n) of segment k (the SSM heads for k = segment_count).
  int unit_x(const Row& row, I r, std::size_t k, const StateUnits& u, const StateUnits& n) const {
    const bool ssm = k >= state->segment_count;
    const StateUnits first = ssm ? StateUnits(0) : state->conv[k].loc;
    const StateUnits width = ssm ? StateUnits(state->h_loc) : state->conv[k].width;
    const StateUnits mid2 = 2 * (u - first) + n;  // twice the middle, within the cell
    return cell_x(row, r, k) + static_cast<int>(mid2 * StateUnits(cell_w(row)) / (2 * width));
  }
};

void draw_state_cells(Svg& svg, const Row& row, const StateCells& cells, int top) {
  const RankState<I>& s = *cells.state;
  for (I r = 0; r < row.ranks; ++r) {
    svg.rect(row.page_x(r), top, row.page_w, kStateHeight, "#f7f7f7", "#555555");
    for (std::size_t k = 0; k <= s.segment_count; ++k) {
      const bool ssm = k == s.segment_count;
      const bool replicated = !ssm && s.conv[k].replicated;
      const int x = cells.cell_x(row, r, k), w = cells.cell_w(row);
      svg.rect(x, top + 3, w, kStateHeight - 6, kSegmentTints[std::min<std::size_t>(k, 3)], "#888888");
      const std::string name = ssm ? "ssm" : std::string(s.conv[k].name) + (replicated ? "*" : "");
      if (w >= static_cast<int>(name.size()) * 6 + 2) svg.text(x + w / 2, top + 15, name, 10, Anchor::Middle);
    }
  }
}

PlanPicture drawn(I P, I D, const ModelShape& m, const std::string& heads_text) {
  const bool kv = m.attention.present, state = m.state.has_value();
  const bool mla = m.attention.mla;
  const I H = m.attention.kv_heads;
  const I heads_total = !kv || mla ? 1 : H;
  // Each state cell wide enough for "ssm" or "B*".
  const int min_page =
      state ? std::max(kMinPage, static_cast<int>(state_ownership<I>(P, m.state->dims).value().segment_count + 1) * 26 +
                                     2 * kPad)
            : kMinPage;
  Row prefill = make_row(P, heads_total, min_page), decode = make_row(D, heads_total, min_page);
  const int width = std::max({prefill.width(), decode.width(), 720}) + 2 * kMargin;
  prefill.x0 = (width - prefill.width()) / 2;
  decode.x0 = (width - decode.width()) / 2;
  // A side's block: its KV page (with attention), then its state cells (with a state).
  const int block = (kv ? kPageHeight : 0) + (kv && state ? kStateGap : 0) + (state ? kStateHeight : 0);
  const int prefill_bottom = kPrefillTop + block;
  const int decode_top = kDecodeTop + (block - kPageHeight);
  const int decode_bottom = decode_top + block;
  const int state_lines = state ? (kv ? 1 : 0) + 1 : 0;
  const int height = decode_bottom + 110 + 18 * state_lines;
  const std::string title = "Plan: prefill TP " + std::to_string(P) + " -> decode TP " + std::to_string(D) + ", " + heads_text;
  Svg svg(width, height, title);
  svg.text(kMargin, 26, title, 17, Anchor::Start, true);
  svg.text(kMargin, 46,
           kv ? "Each cell is a KV head in a rank's page; each curve is one copy, from the prefill rank's heads to the decode rank's."
              : "Each cell is a segment of a rank's state; each curve is one copy, from a prefill rank to a decode rank.",
           12, Anchor::Start, false, "#555555");

  std::optional<RankState<I>> prefill_state, decode_state;
  if (state) {
    prefill_state = state_ownership<I>(P, m.state->dims).value();
    decode_state = state_ownership<I>(D, m.state->dims).value();
  }
  for (I p = 0; p < P; ++p) {
    const int cx = prefill.page_x(p) + prefill.page_w / 2;
    svg.text(cx, kPrefillTop - 40, "prefill " + std::to_string(p), 12, Anchor::Middle, true);
    if (kv) {
      const Outcome<I> n = readers<I>(p, P, D, H, mla);
      svg.text(cx, kPrefillTop - 24, plural(n.ok() ? n.value() : 0, "reader", "readers"), 11, Anchor::Middle);
      svg.text(cx, kPrefillTop - 9, moriio_count(p, P, D), 11, Anchor::Middle, false, "#555555");
    } else {
      const I served = static_cast<I>(state_served<I>(p, P, D, m.state->dims).value().size());
      svg.text(cx, kPrefillTop - 24, "serves " + plural(served, "rank", "ranks"), 11, Anchor::Middle);
    }
  }
  if (kv) {
    draw_pages(svg, prefill, kPrefillTop, mla);
    draw_pages(svg, decode, decode_top, mla);
  }
  const int state_offset = kv ? kPageHeight + kStateGap : 0;
  if (state) {
    draw_state_cells(svg, prefill, StateCells{&*prefill_state}, kPrefillTop + state_offset);
    draw_state_cells(svg, decode, StateCells{&*decode_state}, decode_top + state_offset);
  }
  for (I d = 0; d < D; ++d) {
    std::int64_t kv_copies = 0, state_copies = 0;
    if (kv) {
      const Span<I> own = heads<I>(d, D, heads_total).value();
      const Plan<I> copies = plan<I>(d, P, D, H, mla).value();
      kv_copies = static_cast<I>(copies.size());
      for (const Copy<I>& c : copies) {
        const Span<I> src = heads<I>(c.p, P, heads_total).value();
        const int x1 = (prefill.head_x(c.p, c.lo - src.first) + prefill.head_x(c.p, c.hi - src.first)) / 2;
        const int x2 = (decode.head_x(d, c.lo - own.first) + decode.head_x(d, c.hi - own.first)) / 2;
        svg.open_group("decode " + std::to_string(d) + " copies heads [" + std::to_string(c.lo) + ", " +
                       std::to_string(c.hi) + ") from prefill " + std::to_string(c.p));
        svg.curve(x1, prefill_bottom, x2, decode_top, kRankColours[static_cast<std::size_t>(c.p % 8)], 2, "0.85");
        svg.close_group();
      }
    }
    if (state) {
      const std::vector<StateCopy<I>> copies = state_plan<I>(d, P, D, m.state->dims).value();
      state_copies = static_cast<I>(copies.size());
      const StateCells from{&*prefill_state}, to{&*decode_state};
      for (const StateCopy<I>& c : copies) {
        const int x1 = from.unit_x(prefill, c.p, c.segment, c.src, c.n);
        const int x2 = to.unit_x(decode, d, c.segment, c.dst, c.n);
        svg.open_group("decode " + std::to_string(d) + " copies " + c.name + " units [" + render(c.dst) + ", " +
                       render(StateUnits(c.dst + c.n)) + ") from prefill " + std::to_string(c.p) + "'s [" +
                       render(c.src) + ", " + render(StateUnits(c.src + c.n)) + ")");
        svg.curve(x1, prefill_bottom, x2, decode_top, kRankColours[static_cast<std::size_t>(c.p % 8)], 2, "0.85", "5 3");
        svg.close_group();
      }
    }
    const int cx = decode.page_x(d) + decode.page_w / 2;
    svg.text(cx, decode_bottom + 18, "decode " + std::to_string(d), 12, Anchor::Middle, true);
    if (kv) svg.text(cx, decode_bottom + 33, plural(kv_copies, "copy", "copies"), 11, Anchor::Middle);
    if (state) {
      svg.text(cx, decode_bottom + (kv ? 48 : 33), plural(state_copies, "state copy", "state copies"), 11, Anchor::Middle);
    }
  }
  int notes = decode_bottom + 62 + (kv && state ? 15 : 0);
  if (kv) {
    svg.text(kMargin, notes, "readers: decode ranks copying from the prefill rank, the completions it waits for before freeing blocks.", 12,
             Anchor::Start, false, "#555555");
    svg.text(kMargin, notes + 18, "MoRIIO: the same under MoRIIO's single-source map (- where it cannot map the sizes). Curve colour: source rank.", 12,
             Anchor::Start, false, "#555555");
    notes += 36;
  }
  if (state) {
    svg.text(kMargin, notes,
             std::string(kv ? "Under each page: the state's" : "Cells: the state's") +
                 " segments and SSM heads (* held whole by every rank); dashed curves: state copies.",
             12, Anchor::Start, false, "#555555");
    if (!kv) {
      svg.text(kMargin, notes + 18, "serves: the decode ranks the prefill rank's state goes to. Curve colour: source rank.", 12,
               Anchor::Start, false, "#555555");
    }
  }
  return {svg.finish(), false};
}

// "2 on 16 ranks, 1 on 16 ranks": how many ranks have each count, largest count first.
std::string distribution(const std::vector<I>& counts) {
  std::map<I, I, std::greater<>> ranks_with;
  for (const I c : counts) ++ranks_with[c];
  std::string out;
  for (const auto& [count, ranks] : ranks_with) {
    out += (out.empty() ? "" : ", ") + std::to_string(count) + " on " + plural(ranks, "rank", "ranks");
  }
  return out;
}

// Bars of a per-rank count, left to right by rank.
void draw_bars(Svg& svg, const std::vector<I>& counts, int x0, int y0, int height, const std::string& caption) {
  const I top = std::max<I>(1, *std::max_element(counts.begin(), counts.end()));
  svg.text(x0, y0 - height - 8, caption + " (bar height 0 to " + std::to_string(top) + ")", 12, Anchor::Start, true);
  const int bar = std::max(1, std::min(16, 1000 / static_cast<int>(counts.size())));
  for (std::size_t r = 0; r < counts.size(); ++r) {
    const int h = static_cast<int>(counts[r] * height / top);
    svg.rect(x0 + static_cast<int>(r) * bar, y0 - h, std::max(1, bar - (bar > 3 ? 1 : 0)), h, "#4a78b0");
  }
  svg.line(x0, y0, x0 + static_cast<int>(counts.size()) * bar, y0, "#444444");
}

// The distinct prefill ranks decode rank d's state plan copies from.
I state_sources(I d, I P, I D, const HybridState& s) {
  std::vector<I> sources;
  const std::vector<StateCopy<I>> copies = state_plan<I>(d, P, D, s.dims).value();
  for (const StateCopy<I>& c : copies) sources.push_back(c.p);
  std::sort(sources.begin(), sources.end());
  return static_cast<I>(std::unique(sources.begin(), sources.end()) - sources.begin());
}

PlanPicture summary(I P, I D, const ModelShape& m, const std::string& heads_text) {
  const bool kv = m.attention.present;
  const bool mla = m.attention.mla;
  const I H = m.attention.kv_heads;
  const I heads_total = mla ? 1 : H;
  std::vector<I> readers_of(static_cast<std::size_t>(P)), copies_of(static_cast<std::size_t>(D));
  if (kv) {
    for (I p = 0; p < P; ++p) readers_of[static_cast<std::size_t>(p)] = readers<I>(p, P, D, H, mla).value();
    for (I d = 0; d < D; ++d) copies_of[static_cast<std::size_t>(d)] = plan_copy_count<I>(d, P, D, H, mla).value();
  }
  const auto holding = [&](I T) {
    if (mla) return std::string("the latent vector (MLA)");
    if (T >= heads_total) return "1 KV head each, each head on " + plural(T / heads_total, "rank", "ranks");
    return plural(heads_total / T, "KV head", "KV heads") + " each";
  };
  std::string moriio = "MoRIIO single source: cannot map these sizes (neither divides the other)";
  if (single_readers<I>(0, P, D).ok()) {
    std::vector<I> single(static_cast<std::size_t>(P));
    for (I p = 0; p < P; ++p) single[static_cast<std::size_t>(p)] = single_readers<I>(p, P, D).value();
    moriio = "MoRIIO single source, readers per prefill rank: " + distribution(single);
  }
  const bool bars = kv && P <= 1024 && D <= 1024;
  std::vector<std::string> lines = {
      "More than " + std::to_string(kMaxDrawnRanks) + " ranks on a side: too many to draw one by one (tpcheck plan lists every copy).",
  };
  if (kv) {
    lines.insert(lines.end(), {"prefill: " + plural(P, "rank", "ranks") + ", " + holding(P),
                               "decode: " + plural(D, "rank", "ranks") + ", " + holding(D),
                               "readers per prefill rank (completions it waits for): " + distribution(readers_of), moriio,
                               "copies per decode rank: " + distribution(copies_of)});
  }
  if (m.state) {
    std::vector<I> served(static_cast<std::size_t>(P)), sources(static_cast<std::size_t>(D));
    for (I p = 0; p < P; ++p) {
      served[static_cast<std::size_t>(p)] = static_cast<I>(state_served<I>(p, P, D, m.state->dims).value().size());
    }
    for (I d = 0; d < D; ++d) sources[static_cast<std::size_t>(d)] = state_sources(d, P, D, *m.state);
    lines.push_back("state: decode ranks each prefill rank's state serves: " + distribution(served));
    lines.push_back("state: prefill ranks each decode rank copies its state from: " + distribution(sources));
  }
  const int width = 1080, height = bars ? 420 + (m.state ? 44 : 0) : 100 + 22 * static_cast<int>(lines.size());
  const std::string title = "Plan: prefill TP " + std::to_string(P) + " -> decode TP " + std::to_string(D) + ", " + heads_text + " (summary)";
  Svg svg(width, height, title);
  svg.text(kMargin, 26, title, 17, Anchor::Start, true);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    svg.text(kMargin, 58 + static_cast<int>(i) * 22, lines[i], 13, Anchor::Start, i == 0, i == 0 ? "#555555" : "#222222");
  }
  if (bars) {
    const int shift = m.state ? 44 : 0;
    draw_bars(svg, readers_of, kMargin, 290 + shift, 60, "readers per prefill rank");
    draw_bars(svg, copies_of, kMargin, 400 + shift, 60, "copies per decode rank");
  }
  return {svg.finish(), true};
}

}  // namespace

PlanPicture plan_svg(I P, I D, I H, bool mla, const std::string& heads_text) {
  return plan_svg(P, D, ModelShape{{true, H, mla}, std::nullopt}, heads_text);
}

PlanPicture plan_svg(I P, I D, const ModelShape& m, const std::string& heads_text) {
  if (P > kMaxDrawnRanks || D > kMaxDrawnRanks) return summary(P, D, m, heads_text);
  return drawn(P, D, m, heads_text);
}

}  // namespace tpcheck::preflight
