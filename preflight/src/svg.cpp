// The SVG writer (svg.hpp).
#include "tpcheck/preflight/svg.hpp"

#include <utility>

namespace tpcheck::preflight {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 allows no control characters but tab, newline and return.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

int text_width(std::string_view text, int size, bool bold) {
  // Characters, not bytes: a UTF-8 continuation byte adds no width.
  int chars = 0;
  for (const char c : text) chars += (static_cast<unsigned char>(c) & 0xC0) == 0x80 ? 0 : 1;
  return chars * size * (bold ? 56 : 52) / 100;
}

namespace {

std::string num(int v) { return std::to_string(v); }

}  // namespace

Svg::Svg(int width, int height, std::string_view title) {
  out_ = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) +
         "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height) +
         "\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n<title>" + xml_escape(title) + "</title>\n";
  rect(0, 0, width, height, "#ffffff");
}

void Svg::rect(int x, int y, int w, int h, std::string_view fill, std::string_view stroke, int stroke_width) {
  out_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" + num(h) + "\" fill=\"" +
          std::string(fill) + "\"";
  if (!stroke.empty()) out_ += " stroke=\"" + std::string(stroke) + "\" stroke-width=\"" + num(stroke_width) + "\"";
  out_ += "/>\n";
}

void Svg::line(int x1, int y1, int x2, int y2, std::string_view stroke, int stroke_width) {
  out_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
          "\" stroke=\"" + std::string(stroke) + "\" stroke-width=\"" + num(stroke_width) + "\"/>\n";
}

void Svg::curve(int x1, int y1, int x2, int y2, std::string_view stroke, int stroke_width, std::string_view opacity,
                std::string_view dash) {
  const int mid = (y1 + y2) / 2;
  out_ += "<path d=\"M" + num(x1) + " " + num(y1) + " C" + num(x1) + " " + num(mid) + " " + num(x2) + " " + num(mid) +
          " " + num(x2) + " " + num(y2) + "\" fill=\"none\" stroke=\"" + std::string(stroke) + "\" stroke-width=\"" +
          num(stroke_width) + "\" stroke-opacity=\"" + std::string(opacity) + "\"";
  if (!dash.empty()) out_ += " stroke-dasharray=\"" + std::string(dash) + "\"";
  out_ += "/>\n";
}

void Svg::text(int x, int y, std::string_view content, int size, Anchor anchor, bool bold, std::string_view fill) {
  out_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + num(size) + "\"";
  if (anchor == Anchor::Middle) out_ += " text-anchor=\"middle\"";
  if (anchor == Anchor::End) out_ += " text-anchor=\"end\"";
  if (bold) out_ += " font-weight=\"bold\"";
  out_ += " fill=\"" + std::string(fill) + "\">" + xml_escape(content) + "</text>\n";
}

void Svg::open_group(std::string_view tooltip) { out_ += "<g><title>" + xml_escape(tooltip) + "</title>\n"; }

void Svg::close_group() { out_ += "</g>\n"; }

std::string Svg::finish() { return std::move(out_) + "</svg>\n"; }

}  // namespace tpcheck::preflight
