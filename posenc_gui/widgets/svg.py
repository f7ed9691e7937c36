"""Make Qt's SVG output draw the same picture in every SVG renderer.

:class:`~PySide6.QtSvg.QSvgGenerator` writes a *cosmetic* pen (pyqtgraph's default: a line
width in screen pixels, whatever the zoom) as ``vector-effect="non-scaling-stroke"`` on shapes
whose coordinates are in the plot's data units, inside a ``<g transform="matrix(...)">`` that
maps data units to pixels. Qt's own renderer honours the vector effect; librsvg (``rsvg-convert``,
GNOME, Inkscape's import, many converters) does not, and scales the stroke width with the data
transform: a 1.5-pixel dashed cursor under a 200× scale becomes a 300-pixel black bar, and the
unit circle's 3-pixel sides fill its plot.

:func:`flatten_cosmetic_strokes` maps the coordinates of those shapes through their group's
transform and leaves the group untransformed, so the stroke width is in pixels for every
renderer and the drawing is unchanged in Qt's. Groups that also hold text or images keep their
transform (their shapes are rare and drawn with a unit transform by this app).

Two more differences between renderers are removed by :func:`portable_svg`:

- **Text size.** Qt's SVG renderer draws a fractional ``font-size`` (13.3333 px: 10 pt at
  96 dpi) at a rounded pixel size, so its runs come out narrower than on screen and leave gaps
  between the runs a label is written in. Each ``<text>`` gets an integer font size
  :data:`TEXT_SCALE` times larger under a transform that scales it back: the same size in every
  renderer, the run still whole (one ``<text>`` per run, as Qt wrote it).
- **Text width.** Qt lays a run out with hinted, whole-pixel advances; an SVG renderer scales
  the font's design advances, a pixel or two narrower over a run. The transform's horizontal
  scale makes the run as wide as Qt laid it out (measured with Qt's metrics at the size).
- **Images drawn scaled** (a heatmap's 100 × 128 values over 1112 × 646.4 pixels): librsvg
  smooths them whatever ``image-rendering`` says, and a renderer's own nearest-neighbour rule
  puts a row edge that falls on a pixel centre on the other side from Qt's raster engine. Such
  an image is drawn by the raster engine into the whole device pixels it covers, as the PNG
  has them, and written at exactly those pixels: every renderer only copies pixels.
"""

from __future__ import annotations

import base64
import contextlib
import math
import re
import xml.etree.ElementTree as ET

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF
from PySide6.QtGui import QFont, QFontMetricsF, QImage, QPainter, QTransform

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_MATRIX = re.compile(r"^\s*matrix\(([^)]*)\)\s*$")
_SHAPES = {"polyline", "polygon", "path", "line", "rect", "circle", "ellipse"}
_IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
_GEOMETRY = {"d", "points", "x", "y", "width", "height", "cx", "cy", "r", "rx", "ry", "x1", "y1"}
_GEOMETRY |= {"x2", "y2"}
#: Cubic Bézier handle length for a quarter ellipse.
_KAPPA = 0.5522847498307936

#: A text's font size is written this many times larger (and scaled back): see the module doc.
TEXT_SCALE = 64
#: An image is written as the device pixels it covers only up to this many pixels.
MAX_IMAGE_PIXELS = 4096 * 4096

Matrix = tuple[float, float, float, float, float, float]


def _tag(el: ET.Element) -> str:
    return el.tag.rpartition("}")[2]


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def _apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


def _points(m: Matrix, text: str) -> str:
    nums = [float(v) for v in re.findall(_NUM, text)]
    out = []
    for i in range(0, len(nums) - 1, 2):
        x, y = _apply(m, nums[i], nums[i + 1])
        out.append(f"{_fmt(x)},{_fmt(y)}")
    return " ".join(out)


def _path(m: Matrix, d: str) -> str | None:
    """``d`` mapped through ``m``; None when it uses commands other than absolute M/L/C/Z."""
    out: list[str] = []
    for cmd, args in re.findall(r"([MmLlHhVvCcSsQqTtAaZz])([^MmLlHhVvCcSsQqTtAaZz]*)", d):
        if cmd not in "MLCZ":
            return None
        out.append(cmd + (_points(m, args) if cmd != "Z" else ""))
    return " ".join(out)


def _ellipse_path(cx: float, cy: float, rx: float, ry: float) -> str:
    kx, ky = rx * _KAPPA, ry * _KAPPA
    return (
        f"M{cx + rx},{cy} C{cx + rx},{cy + ky} {cx + kx},{cy + ry} {cx},{cy + ry} "
        f"C{cx - kx},{cy + ry} {cx - rx},{cy + ky} {cx - rx},{cy} "
        f"C{cx - rx},{cy - ky} {cx - kx},{cy - ry} {cx},{cy - ry} "
        f"C{cx + kx},{cy - ry} {cx + rx},{cy - ky} {cx + rx},{cy} Z"
    )


def _as_path(el: ET.Element) -> str | None:
    """The outline of ``el`` as absolute M/L/C/Z path data (None if it is not a simple shape)."""
    tag, g = _tag(el), el.get
    try:
        if tag == "path":
            return g("d", "")
        if tag in ("polyline", "polygon"):
            pts = g("points", "").replace(",", " ").split()
            pairs = [f"{pts[i]},{pts[i + 1]}" for i in range(0, len(pts) - 1, 2)]
            if not pairs:
                return ""
            return "M" + " L".join(pairs) + (" Z" if tag == "polygon" else "")
        if tag == "line":
            return f"M{g('x1', '0')},{g('y1', '0')} L{g('x2', '0')},{g('y2', '0')}"
        if tag == "rect":
            if g("rx") or g("ry"):
                return None
            x, y = float(g("x", "0")), float(g("y", "0"))
            w, h = float(g("width", "0")), float(g("height", "0"))
            return f"M{x},{y} L{x + w},{y} L{x + w},{y + h} L{x},{y + h} Z"
        if tag == "circle":
            r = float(g("r", "0"))
            return _ellipse_path(float(g("cx", "0")), float(g("cy", "0")), r, r)
        if tag == "ellipse":
            cx, cy = float(g("cx", "0")), float(g("cy", "0"))
            return _ellipse_path(cx, cy, float(g("rx", "0")), float(g("ry", "0")))
    except ValueError:
        return None
    return None


def _flatten_shape(el: ET.Element, m: Matrix) -> bool:
    """Map ``el``'s coordinates through ``m`` in place; False when it cannot be."""
    tag = _tag(el)
    if tag in ("polyline", "polygon"):
        el.set("points", _points(m, el.get("points", "")))
        return True
    d = _as_path(el)
    mapped = None if d is None else _path(m, d)
    if mapped is None:
        return False
    keep = {k: v for k, v in el.attrib.items() if k not in _GEOMETRY}
    tail = el.tail
    el.clear()
    el.tail = tail
    el.tag = f"{{{SVG_NS}}}path"
    el.attrib.update(keep)
    el.set("d", mapped)
    return True


def _matrix(text: str | None) -> Matrix | None:
    match = _MATRIX.match(text or "")
    if match is None:
        return None
    nums = [float(v) for v in re.findall(_NUM, match.group(1))]
    return (nums[0], nums[1], nums[2], nums[3], nums[4], nums[5]) if len(nums) == 6 else None


def _cosmetic(el: ET.Element) -> bool:
    return _tag(el) in _SHAPES and el.get("vector-effect") == "non-scaling-stroke"


def set_pixel_size(svg: bytes, width: int, height: int) -> bytes:
    """``svg`` with its ``width``/``height`` in pixels (Qt writes millimetres at its
    resolution): a renderer draws it ``width`` × ``height`` pixels at any resolution."""
    head, sep, rest = svg.partition(b"<svg ")
    if not sep:
        return svg
    tag, close, tail = rest.partition(b">")
    tag = re.sub(rb'\bwidth="[^"]*"', b'width="%dpx"' % width, tag, count=1)
    tag = re.sub(rb'\bheight="[^"]*"', b'height="%dpx"' % height, tag, count=1)
    return head + sep + tag + close + tail


def flatten_cosmetic_strokes(svg: bytes) -> bytes:
    """``svg`` (QSvgGenerator output) with every transformed cosmetic stroke in pixel units.

    Only groups whose children are all non-scaling-stroke shapes change: their shapes'
    coordinates are mapped through the group's ``matrix(...)`` and the group's transform becomes
    the identity. Everything else is written back as it was read.
    """
    root = ET.fromstring(svg)
    changed = False
    for group in root.iter(f"{{{SVG_NS}}}g"):
        m = _matrix(group.get("transform"))
        children = list(group)
        if m is None or m == _IDENTITY or not children:
            continue
        if not all(_cosmetic(child) for child in children):
            continue
        originals = [(child.tag, dict(child.attrib), child.tail) for child in children]
        if all(_flatten_shape(child, m) for child in children):
            group.set("transform", "matrix(1,0,0,1,0,0)")
            changed = True
        else:  # leave the whole group as Qt wrote it
            for child, (tag, attrib, tail) in zip(children, originals, strict=True):
                child.clear()
                child.tag, child.tail = tag, tail
                child.attrib.update(attrib)
    if not changed:
        return svg
    out: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return out


def _font(el: ET.Element, pixels: float, dpi: float) -> QFont:
    font = QFont(el.get("font-family", ""))
    font.setPointSizeF(pixels * 72 / dpi)
    with contextlib.suppress(ValueError):
        font.setWeight(QFont.Weight(int(el.get("font-weight", "400"))))
    font.setItalic(el.get("font-style", "normal") in ("italic", "oblique"))
    return font


def _whole_size_text(el: ET.Element, dpi: float) -> bool:
    try:
        size = float(el.get("font-size", "0"))
        x, y = float(el.get("x", "0")), float(el.get("y", "0"))
    except ValueError:
        return False
    if size <= 0:
        return False
    n = round(size * TEXT_SCALE)
    k = size / n
    # the run as wide as Qt lays it out at ``size`` (whole-pixel advances): an SVG renderer
    # scales the font's design advances, narrower by a pixel or two over a run
    text = el.text or ""
    screen = QFontMetricsF(_font(el, size, dpi)).horizontalAdvance(text)
    design = QFontMetricsF(_font(el, n, dpi)).horizontalAdvance(text) * k
    kx = k * screen / design if screen > 0 and design > 0 else k
    el.set("font-size", str(n))
    el.set("x", "0")
    el.set("y", "0")
    own = el.get("transform")
    scale = f"matrix({kx:.9g},0,0,{k:.9g},{_fmt(x)},{_fmt(y)})"
    el.set("transform", f"{own} {scale}" if own else scale)
    return True


def _device_image(el: ET.Element, m: Matrix) -> bool:
    """Write ``el`` (a data-URI PNG under the transform ``m``) as the pixels Qt's raster engine
    paints for it: drawn by that engine (unsmoothed) into the whole device pixels it covers,
    then placed on exactly those pixels, so every renderer only copies pixels."""
    a, b, c, d, e, f = m
    href_key = f"{{{XLINK_NS}}}href"
    href = el.get(href_key, "")
    prefix = "data:image/png;base64,"
    if b or c or not a or not d or not href.startswith(prefix):
        return False
    try:
        x, y = float(el.get("x", "0")), float(el.get("y", "0"))
        w, h = float(el.get("width", "0")), float(el.get("height", "0"))
    except ValueError:
        return False
    image = QImage()
    image.loadFromData(QByteArray(base64.b64decode(href[len(prefix) :])), "PNG")  # type: ignore[arg-type]
    if image.isNull() or w <= 0 or h <= 0:
        return False
    xs, ys = sorted((a * x + e, a * (x + w) + e)), sorted((d * y + f, d * (y + h) + f))
    left, top = math.floor(xs[0] + 1e-6), math.floor(ys[0] + 1e-6)
    width, height = math.ceil(xs[1] - 1e-6) - left, math.ceil(ys[1] - 1e-6) - top
    on_pixels = (left, top, width, height) == (xs[0], ys[0], image.width(), image.height())
    if on_pixels or width <= 0 or height <= 0 or width * height > MAX_IMAGE_PIXELS:
        return False  # already one image pixel per device pixel (or too large to expand)
    drawn = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    drawn.fill(0)
    painter = QPainter(drawn)
    painter.setTransform(QTransform(a, 0, 0, d, e - left, f - top))
    painter.drawImage(QRectF(x, y, w, h), image)
    painter.end()
    # the element's own transform undoes the group's: it lands on device pixels left, top
    el.set("x", "0")
    el.set("y", "0")
    el.set("width", str(width))
    el.set("height", str(height))
    el.set("transform", f"matrix({1 / a!r},0,0,{1 / d!r},{(left - e) / a!r},{(top - f) / d!r})")
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    drawn.save(buffer, "PNG")  # type: ignore[call-overload]
    el.set(href_key, prefix + base64.b64encode(bytes(buffer.data().data())).decode("ascii"))
    return True


def portable_svg(svg: bytes, dpi: float = 96.0) -> bytes:
    """``svg`` (QSvgGenerator output) drawn alike by Qt's renderer and librsvg: cosmetic strokes
    in pixels (:func:`flatten_cosmetic_strokes`), text at whole font sizes and small images
    written at their drawn size (see the module doc)."""
    root = ET.fromstring(flatten_cosmetic_strokes(svg))
    for group in root.iter(f"{{{SVG_NS}}}g"):
        m = _matrix(group.get("transform")) or _IDENTITY
        for child in group:
            if _tag(child) == "text":
                _whole_size_text(child, dpi)
            elif _tag(child) == "image":
                _device_image(child, m)
    for el in root:
        if _tag(el) == "text":
            _whole_size_text(el, dpi)
    out: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return out
