// The plan picture (pictures.hpp): pages, heads, one curve per copy; or, past
// kMaxDrawnRanks on a side, a summary of the counts.
#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <vector>

#include "tpcheck/model.hpp"
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

// Head cells are tinted by head, curves coloured by source rank.
constexpr std::array<std::string_view, 12> kHeadTints = {"#c6dbef", "#fdd0a2", "#c7e9c0", "#fcbba1", "#dadaeb", "#f2e0b6",
                                                         "#b8e3e0", "#f7c6e0", "#e0e0e0", "#d4e8a8", "#cbc4e8", "#f5c2a0"};
constexpr std::array<std::string_view, 8> kRankColours = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                                          "#9467bd", "#8c564b", "#e377c2", "#17becf"};

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

Row make_row(I ranks, I total_heads) {
  const I per_page = std::max<I>(1, total_heads / ranks);
  const int fit = (1200 - static_cast<int>(ranks - 1) * kGap) / static_cast<int>(ranks);
  const int wanted = static_cast<int>(std::min<I>(per_page, 64)) * kMaxCell + 2 * kPad;
  return {ranks, per_page, total_heads, std::max(kMinPage, std::min(fit, wanted)), 0};
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

PlanPicture drawn(I P, I D, I H, bool mla, const std::string& heads_text) {
  const I heads_total = mla ? 1 : H;
  Row prefill = make_row(P, heads_total), decode = make_row(D, heads_total);
  const int width = std::max({prefill.width(), decode.width(), 720}) + 2 * kMargin;
  prefill.x0 = (width - prefill.width()) / 2;
  decode.x0 = (width - decode.width()) / 2;
  const int height = kDecodeTop + kPageHeight + 110;
  const std::string title = "Plan: prefill TP " + std::to_string(P) + " -> decode TP " + std::to_string(D) + ", " + heads_text;
  Svg svg(width, height, title);
  svg.text(kMargin, 26, title, 17, Anchor::Start, true);
  svg.text(kMargin, 46, "Each cell is a KV head in a rank's page; each curve is one copy, from the prefill rank's heads to the decode rank's.",
           12, Anchor::Start, false, "#555555");

  for (I p = 0; p < P; ++p) {
    const int cx = prefill.page_x(p) + prefill.page_w / 2;
    const Outcome<I> n = readers<I>(p, P, D, H, mla);
    svg.text(cx, kPrefillTop - 40, "prefill " + std::to_string(p), 12, Anchor::Middle, true);
    svg.text(cx, kPrefillTop - 24, plural(n.ok() ? n.value() : 0, "reader", "readers"), 11, Anchor::Middle);
    svg.text(cx, kPrefillTop - 9, moriio_count(p, P, D), 11, Anchor::Middle, false, "#555555");
  }
  draw_pages(svg, prefill, kPrefillTop, mla);
  draw_pages(svg, decode, kDecodeTop, mla);
  for (I d = 0; d < D; ++d) {
    const Span<I> own = heads<I>(d, D, heads_total).value();
    const Plan<I> copies = plan<I>(d, P, D, H, mla).value();
    for (const Copy<I>& c : copies) {
      const Span<I> src = heads<I>(c.p, P, heads_total).value();
      const int x1 = (prefill.head_x(c.p, c.lo - src.first) + prefill.head_x(c.p, c.hi - src.first)) / 2;
      const int x2 = (decode.head_x(d, c.lo - own.first) + decode.head_x(d, c.hi - own.first)) / 2;
      svg.open_group("decode " + std::to_string(d) + " copies heads [" + std::to_string(c.lo) + ", " +
                     std::to_string(c.hi) + ") from prefill " + std::to_string(c.p));
      svg.curve(x1, kPrefillTop + kPageHeight, x2, kDecodeTop, kRankColours[static_cast<std::size_t>(c.p % 8)], 2, "0.85");
      svg.close_group();
    }
    const int cx = decode.page_x(d) + decode.page_w / 2;
    svg.text(cx, kDecodeTop + kPageHeight + 18, "decode " + std::to_string(d), 12, Anchor::Middle, true);
    svg.text(cx, kDecodeTop + kPageHeight + 33, plural(static_cast<I>(copies.size()), "copy", "copies"), 11,
             Anchor::Middle);
  }
  const int notes = kDecodeTop + kPageHeight + 62;
  svg.text(kMargin, notes, "readers: decode ranks copying from the prefill rank, the completions it waits for before freeing blocks.", 12,
           Anchor::Start, false, "#555555");
  svg.text(kMargin, notes + 18, "MoRIIO: the same under MoRIIO's single-source map (- where it cannot map the sizes). Curve colour: source rank.", 12,
           Anchor::Start, false, "#555555");
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

PlanPicture summary(I P, I D, I H, bool mla, const std::string& heads_text) {
  const I heads_total = mla ? 1 : H;
  std::vector<I> readers_of(static_cast<std::size_t>(P)), copies_of(static_cast<std::size_t>(D));
  for (I p = 0; p < P; ++p) readers_of[static_cast<std::size_t>(p)] = readers<I>(p, P, D, H, mla).value();
  for (I d = 0; d < D; ++d) copies_of[static_cast<std::size_t>(d)] = plan_copy_count<I>(d, P, D, H, mla).value();
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
  const bool bars = P <= 1024 && D <= 1024;
  const int width = 1080, height = bars ? 420 : 230;
  const std::string title = "Plan: prefill TP " + std::to_string(P) + " -> decode TP " + std::to_string(D) + ", " + heads_text + " (summary)";
  Svg svg(width, height, title);
  svg.text(kMargin, 26, title, 17, Anchor::Start, true);
  const std::vector<std::string> lines = {
      "More than " + std::to_string(kMaxDrawnRanks) + " ranks on a side: too many to draw one by one (tpcheck plan lists every copy).",
      "prefill: " + plural(P, "rank", "ranks") + ", " + holding(P),
      "decode: " + plural(D, "rank", "ranks") + ", " + holding(D),
      "readers per prefill rank (completions it waits for): " + distribution(readers_of),
      moriio,
      "copies per decode rank: " + distribution(copies_of),
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    svg.text(kMargin, 58 + static_cast<int>(i) * 22, lines[i], 13, Anchor::Start, i == 0, i == 0 ? "#555555" : "#222222");
  }
  if (bars) {
    draw_bars(svg, readers_of, kMargin, 290, 60, "readers per prefill rank");
    draw_bars(svg, copies_of, kMargin, 400, 60, "copies per decode rank");
  }
  return {svg.finish(), true};
}

}  // namespace

PlanPicture plan_svg(I P, I D, I H, bool mla, const std::string& heads_text) {
  if (P > kMaxDrawnRanks || D > kMaxDrawnRanks) return summary(P, D, H, mla, heads_text);
  return drawn(P, D, H, mla, heads_text);
}

}  // namespace tpcheck::preflight
