// A small SVG writer: integer coordinates and a fixed attribute order, so the
// same picture always gives the same bytes (the golden tests compare them).
#pragma once

#include <string>
#include <string_view>

namespace tpcheck::preflight {

// Text with &, <, >, " and ' escaped, for element content and attributes.
std::string xml_escape(std::string_view text);

enum class Anchor { Start, Middle, End };

// About how wide `text` is drawn at `size` pixels (DejaVu Sans averages under
// 0.52 of the size per character, 0.56 bold): enough to keep a line inside the picture.
int text_width(std::string_view text, int size, bool bold = false);

class Svg {
 public:
  // An image of width x height pixels with a matching viewBox, a white
  // background and `title` as its accessible name.
  Svg(int width, int height, std::string_view title);

  void rect(int x, int y, int w, int h, std::string_view fill, std::string_view stroke = "", int stroke_width = 1);
  void line(int x1, int y1, int x2, int y2, std::string_view stroke, int stroke_width = 1);
  // A cubic curve from (x1, y1) to (x2, y2), leaving and arriving vertically;
  // dashed by `dash` ("5 3": 5 pixels drawn, 3 left out) when given.
  void curve(int x1, int y1, int x2, int y2, std::string_view stroke, int stroke_width, std::string_view opacity,
             std::string_view dash = "");
  void text(int x, int y, std::string_view content, int size, Anchor anchor = Anchor::Start, bool bold = false,
            std::string_view fill = "#222222");
  // A tooltip for the next shapes a viewer hovers (an SVG <title> in a group).
  void open_group(std::string_view tooltip);
  void close_group();

  // The document; the writer is spent afterwards.
  std::string finish();

 private:
  std::string out_;
};

}  // namespace tpcheck::preflight
