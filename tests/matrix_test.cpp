// The acceptance matrix and the SVG writer (preflight/matrix.hpp, svg.hpp):
// every cell is the model's verdict, the legend covers every reason met, the
// text grid reads back to the cells, and the pictures are well-formed.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "tpcheck/preflight/matrix.hpp"
#include "tpcheck/preflight/output_file.hpp"
#include "tpcheck/preflight/pictures.hpp"
#include "tpcheck/preflight/svg.hpp"

namespace tpcheck::preflight {
namespace {

const std::vector<Connector> kAll(kConnectors.begin(), kConnectors.end());

TEST(Matrix, CellsAreTheModelsVerdicts) {
  std::set<char> marks_met;
  for (const std::int64_t H : {1, 2, 8, 12}) {
    for (const bool mla : {false, true}) {
      const Matrix m = build_matrix(kAll, 24, H, mla);
      for (const Panel& panel : m.panels) {
        std::int64_t accepted = 0, misserved = 0;
        for (std::int64_t P = 1; P <= 24; ++P) {
          for (std::int64_t D = 1; D <= 24; ++D) {
            const SizingVerdict v = sizing_verdict<std::int64_t>(panel.connector, P, D, H, mla);
            const Cell expected{v.reason, v.misserved, {}};
            EXPECT_EQ(m.cell(panel, P, D), expected) << connector_name(panel.connector) << " " << P << ", " << D;
            accepted += v.reason ? 0 : 1;
            misserved += v.misserved ? 1 : 0;
            marks_met.insert(cell_kind(expected).mark);
          }
        }
        EXPECT_EQ(panel.accepted, accepted);
        EXPECT_EQ(panel.misserved, misserved);
      }
    }
  }
  // Every KV entry of the legend was met, and nothing outside it.
  std::set<char> legend;
  for (const CellKind& k : kCellKinds) {
    if (!k.cell.state) legend.insert(k.mark);
  }
  EXPECT_EQ(marks_met, legend);
}

// A hybrid model's cells (SPEC §16.5): the first of x, l, ., the KV refusals,
// h, o, the KV misservices, z, + — each from the KV and state verdicts.
TEST(Matrix, StateCellsFollowThePrecedence) {
  std::set<char> marks_met;
  const std::vector<StateDims<std::int64_t>> configs = {
      {StateFamily::Mamba2, {24, 1, 1, 3}}, {StateFamily::Mamba2, {24, 1, 6, 2}}, {StateFamily::Gdn, {24, 1, 48, 2}},
      {StateFamily::Kda, {24, 2}}, {StateFamily::Mamba1, {24, 2}}};
  for (const StateDims<std::int64_t>& d : configs) {
    for (const ConvOrder layout : {ConvOrder::DimFirst, ConvOrder::StateFirst}) {
      for (const std::int64_t H : {2, 8}) {
        const StateSide side{2, 2, std::nullopt, layout};
        const ModelShape shape{{true, H, false}, HybridState{d, 3, side, side}};
        const Matrix m = build_matrix(kAll, 12, shape);
        for (const Panel& panel : m.panels) {
          for (std::int64_t P = 1; P <= 12; ++P) {
            for (std::int64_t D = 1; D <= 12; ++D) {
              const SizingVerdict kv = sizing_verdict<std::int64_t>(panel.connector, P, D, H, false);
              const StateVerdict st = state_verdict(panel.connector, P, D, *shape.state, shape.attention);
              const bool loads = state_shape<std::int64_t>(P, d).ok() && state_shape<std::int64_t>(D, d).ok();
              char want = '+';
              if (kv.reason == Rejection::HeadsDoNotShard) {
                want = 'x';
              } else if (!loads) {
                want = 'l';
              } else if (kv.reason) {
                want = cell_kind({kv.reason, {}, {}}).mark;
              } else if (st.serving == StateServing::Refuses) {
                want = 'h';
              } else if (st.serving == StateServing::Outside) {
                want = 'o';
              } else if (kv.misserved) {
                want = cell_kind({{}, kv.misserved, {}}).mark;
              } else if (st.serving != StateServing::Serves) {
                want = 'z';
              }
              const char got = cell_kind(m.cell(panel, P, D)).mark;
              EXPECT_EQ(got, want) << connector_name(panel.connector) << " " << P << ", " << D;
              marks_met.insert(got);
            }
          }
        }
      }
    }
  }
  for (const char mark : {'l', 'h', 'o', 'z', 'x', '.', 'g', 'r', 't', 's', 'n', 'p', '+'}) {
    EXPECT_TRUE(marks_met.count(mark)) << mark << " never met";
  }
}

// The legend shows "accepted" and the kinds the grid has, in the legend's order.
TEST(Matrix, LegendShowsTheKindsTheGridHas) {
  const auto marks = [](const Matrix& m) {
    std::string out;
    for (const CellKind* k : legend_of(m)) out += k->mark;
    return out;
  };
  EXPECT_EQ(marks(build_matrix({Connector::Nixl}, 8, 8, false)), "+x");
  EXPECT_EQ(marks(build_matrix({Connector::Nixl}, 8, 2, false)), "+.xr");
  EXPECT_EQ(marks(build_matrix({Connector::SGLang, Connector::Trtllm, Connector::TrtllmV2}, 6, 1, false)), "+ptsn");
  EXPECT_EQ(marks(build_matrix({Connector::Trtllm}, 4, 1, true)), "+m");  // no cell accepted: "+" still explains the others
  // Every KV kind but MLA's.
  EXPECT_EQ(marks(build_matrix(kAll, 24, 2, false)).size(),
            static_cast<std::size_t>(std::count_if(kCellKinds.begin(), kCellKinds.end(),
                                                   [](const CellKind& k) { return !k.cell.state; })) - 1);
}

TEST(Matrix, TextGridReadsBackToTheCells) {
  const Matrix m = build_matrix({Connector::Nixl}, 16, 8, false);
  const std::string text = matrix_text(m, "8 KV heads");
  EXPECT_NE(text.find("\nnixl: 21 of 256 sizings accepted\n"), std::string::npos);
  for (std::int64_t P = 1; P <= 16; ++P) {
    std::string row;
    for (std::int64_t D = 1; D <= 16; ++D) row += cell_kind(m.cell(m.panels[0], P, D)).mark;
    const std::string label = (P == 1 ? "P " : "  ") + std::string(P < 10 ? " " : "") + std::to_string(P) + "  ";
    EXPECT_NE(text.find("\n" + label + row + "\n"), std::string::npos) << "row " << P;
  }
  // The replica rule on the last row: prefill 16 over 8 heads, decode smaller.
  EXPECT_NE(text.find("\n  16  rrxrxxxrxxxxxxx+\n"), std::string::npos);
}

TEST(Svg, EscapesTextAndAttributes) {
  EXPECT_EQ(xml_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  EXPECT_EQ(xml_escape(std::string("x\x01y\tz", 5)), "x?y\tz");
  Svg svg(10, 20, "t<");
  svg.text(1, 2, "</svg>", 9);
  const std::string doc = svg.finish();
  EXPECT_NE(doc.find("width=\"10\" height=\"20\" viewBox=\"0 0 10 20\""), std::string::npos);
  EXPECT_NE(doc.find("<title>t&lt;</title>"), std::string::npos);
  EXPECT_NE(doc.find("&lt;/svg&gt;</text>"), std::string::npos);
  EXPECT_EQ(doc.substr(doc.size() - 7), "</svg>\n");
}

TEST(Pictures, SameInputSameBytesAndSummaryPastSixteenRanks) {
  const Matrix m = build_matrix(kAll, 8, 4, false);
  EXPECT_EQ(matrix_svg(m, "4 KV heads"), matrix_svg(m, "4 KV heads"));
  EXPECT_FALSE(plan_svg(16, 16, 16, false, "16 KV heads").summary);
  EXPECT_TRUE(plan_svg(17, 16, 1, false, "1 KV head").summary);
  EXPECT_TRUE(plan_svg(4, 17, 1, false, "1 KV head").summary);
  const PlanPicture p = plan_svg(4, 6, 12, false, "12 KV heads");
  EXPECT_EQ(p.svg, plan_svg(4, 6, 12, false, "12 KV heads").svg);
  // One curve per copy: 6 decode ranks, two of which read two sources.
  std::size_t curves = 0;
  for (std::size_t at = p.svg.find("<path "); at != std::string::npos; at = p.svg.find("<path ", at + 1)) ++curves;
  EXPECT_EQ(curves, 8u);
}

TEST(OutputFile, FailureLeavesNothingBehind) {
  EXPECT_EQ(write_file("/nonexistent-dir/x.svg", "x"), "cannot write '/nonexistent-dir/x.svg': No such file or directory");
  const std::string dir = ::testing::TempDir();
  EXPECT_EQ(write_file("/tmp/", "x"), "cannot write '/tmp/': Is a directory");
  const auto onto_directory = write_file(dir, "x");
  ASSERT_TRUE(onto_directory.has_value());
  EXPECT_NE(onto_directory->find("Is a directory"), std::string::npos) << *onto_directory;
  const std::string path = dir + "/tpcheck_output_file_test.svg";
  EXPECT_EQ(write_file(path, "first"), std::nullopt);
  EXPECT_EQ(write_file(path, "second"), std::nullopt);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  char buffer[16] = {};
  EXPECT_EQ(std::fread(buffer, 1, sizeof buffer, f), 6u);
  std::fclose(f);
  EXPECT_EQ(std::string(buffer), "second");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tpcheck::preflight
