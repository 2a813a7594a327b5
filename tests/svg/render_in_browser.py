#!/usr/bin/env python3
"""Looks at tpcheck's SVG pictures the way a person would: in a browser.

  render_in_browser.py --xml-only SVG...             the XML checks only
  render_in_browser.py --chromium PATH SVG...        also render each in headless
                                                     Chromium and check the screenshot
  render_in_browser.py --chromium PATH --expect-blank SVG
                                                     self-test: the check must call
                                                     this picture's screenshot blank

XML: the file parses, its root is an SVG <svg> with integer width and height,
a viewBox of exactly "0 0 width height" and a <title>.
Screenshot (Chromium at a window of the picture's own size, a fresh profile):
  - the PNG is exactly width x height pixels;
  - it is not blank: at least 1% of its pixels differ from white;
  - every colour the SVG fills a rectangle of at least 100 square pixels with
    (cells, pages, legend swatches) shows up in at least 20 pixels;
  - text was drawn: at least 200 near-black pixels (titles, labels).
The PNG is decoded here (zlib and the five PNG filters), standard library only.
Exit 0 when every picture passes, 1 when one fails, 2 on a usage error.
"""

import argparse
import os
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

SVG_NS = "{http://www.w3.org/2000/svg}"
# The flags Chromium needs to run headless as root without reaching out.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars"]
MIN_DRAWN_FRACTION = 0.01
MIN_COLOUR_PIXELS = 20
MIN_TEXT_PIXELS = 200
MIN_RECT_AREA = 100


class Failed(Exception):
    pass


def check_xml(path):
    """The size and the colours of large filled rectangles, after the XML checks."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise Failed(f"not well-formed XML: {e}")
    if root.tag != SVG_NS + "svg":
        raise Failed(f"root element is {root.tag}, not an SVG <svg>")
    try:
        width, height = int(root.get("width", "")), int(root.get("height", ""))
    except ValueError:
        raise Failed(f"width/height are not whole numbers: {root.get('width')!r}, {root.get('height')!r}")
    if root.get("viewBox") != f"0 0 {width} {height}":
        raise Failed(f"viewBox is {root.get('viewBox')!r}, expected '0 0 {width} {height}'")
    if root.find(SVG_NS + "title") is None or not root.find(SVG_NS + "title").text:
        raise Failed("no <title>")
    colours = set()
    for rect in root.iter(SVG_NS + "rect"):
        fill = rect.get("fill", "")
        if fill.startswith("#") and len(fill) == 7 and fill.lower() != "#ffffff":
            if int(rect.get("width", 0)) * int(rect.get("height", 0)) >= MIN_RECT_AREA:
                colours.add(tuple(int(fill[i:i + 2], 16) for i in (1, 3, 5)))
    return width, height, colours


def decode_png(data):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise Failed("screenshot is not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    if header is None:
        raise Failed("PNG has no IHDR")
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6) or interlace != 0:
        raise Failed(f"unexpected PNG format: depth {depth}, colour type {colour_type}, interlace {interlace}")
    channels = 3 if colour_type == 2 else 4
    stride = width * channels
    raw = zlib.decompress(idat)
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else upper_left)) & 0xFF
            elif kind != 0:
                raise Failed(f"unknown PNG filter {kind}")
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        previous = line
    return width, height, rows


def screenshot(chromium, svg_path, width, height, workdir):
    png = os.path.join(workdir, "shot.png")
    command = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={os.path.join(workdir, 'profile')}",
               f"--window-size={width},{height}", f"--screenshot={png}", "file://" + os.path.abspath(svg_path)]
    try:
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        raise Failed("Chromium took more than 120 s")
    if not os.path.exists(png):
        raise Failed("Chromium wrote no screenshot")
    with open(png, "rb") as f:
        return f.read()


def check_screenshot(png, width, height, colours):
    got_w, got_h, rows = decode_png(png)
    if (got_w, got_h) != (width, height):
        raise Failed(f"screenshot is {got_w}x{got_h}, expected {width}x{height}")
    drawn = text = 0
    seen = dict.fromkeys(colours, 0)
    for row in rows:
        for px in row:
            if max(255 - c for c in px) > 24:
                drawn += 1
            if max(px) < 90:
                text += 1
            if px in seen:
                seen[px] += 1
    fraction = drawn / (width * height)
    if fraction < MIN_DRAWN_FRACTION:
        raise Failed(f"blank: only {fraction:.2%} of the pixels differ from white")
    missing = ["#%02x%02x%02x" % c for c, n in sorted(seen.items()) if n < MIN_COLOUR_PIXELS]
    if missing:
        raise Failed(f"colours filled in the SVG but absent from the screenshot: {', '.join(missing)}")
    if text < MIN_TEXT_PIXELS:
        raise Failed(f"only {text} near-black pixels: no text drawn")
    return f"{width}x{height} screenshot, {fraction:.1%} drawn, {len(colours)} colours found, {text} text pixels"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chromium", help="the Chromium binary")
    parser.add_argument("--xml-only", action="store_true")
    parser.add_argument("--expect-blank", action="store_true")
    parser.add_argument("svg", nargs="+")
    args = parser.parse_args()
    if not args.xml_only and not args.chromium:
        parser.error("give --chromium PATH or --xml-only")
    failures = 0
    for path in args.svg:
        name = os.path.basename(path)
        try:
            width, height, colours = check_xml(path)
            if args.xml_only:
                print(f"{name}: valid SVG, {width}x{height}, viewBox 0 0 {width} {height}")
                continue
            with tempfile.TemporaryDirectory(prefix="tpcheck-browser-") as workdir:
                png = screenshot(args.chromium, path, width, height, workdir)
            verdict = check_screenshot(png, width, height, colours)
            if args.expect_blank:
                print(f"{name}: FAIL: expected a blank screenshot, got {verdict}")
                failures += 1
            else:
                print(f"{name}: {verdict}")
        except Failed as e:
            if args.expect_blank and str(e).startswith("blank:"):
                print(f"{name}: called blank as it should be ({e})")
                continue
            print(f"{name}: FAIL: {e}")
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
