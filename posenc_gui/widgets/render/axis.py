"""The house axis: pyqtgraph's ``AxisItem`` with the same ticks, labels and pixels, cheaper.

:class:`HouseAxis` is given to plots through ``axisItems=`` (see
:func:`posenc_gui.widgets.styled.plot`); it overrides the methods pyqtgraph designed for it
(``tickValues``, ``tickStrings``, ``generateDrawSpecs``, ``drawPicture``, ``paint``,
``boundingRect``), as pyqtgraph's own ``DateAxisItem`` does. What it keeps and why:

- **Drawings by key.** The axis keeps the drawings (specs, lines, the labels' picture) of the
  last :data:`AXIS_DRAWINGS_KEPT` keys (:func:`axis_key`: everything the drawing depends on) it
  drew. A range it shows again (a slider dragged back and forth, "nice" limits that come back)
  is replayed from them instead of generating its ticks and labels anew (~1 ms of Python an
  axis). It redraws when the key changes: range, geometry, ticks set by hand, style, pens,
  fonts, transforms. A kept drawing's lines are packed (:class:`KeptLines`: their few pens
  once, the coordinates in one array, ~0.3 KB) rather than kept as a ``QPen`` and two
  ``QPointF`` objects per line (~0.5 KB a line, ~10 KB a drawing: some 50 MB once the hundred
  axes of the tabs are full, which a long session reaches slowly).
- **Cheaper specs.** :meth:`HouseAxis.generateDrawSpecs` returns what pyqtgraph's returns (the
  same tick positions, pens, label rectangles, flags and strings, the same update of the text
  room), ~3× cheaper: pyqtgraph spends ~0.5 ms of Python on a new range (a ``Point`` per
  coordinate, a text measurement and the axis's bounds per label); here label sizes are
  measured once per (font, text) — once per *shape* in a font of equal digits, every digit a 0
  — and constants hoisted. Linear tick values come from plain Python
  (:func:`linear_tick_values`: pyqtgraph's numpy code costs ~0.1–0.2 ms an axis of overhead).
- **Lines as rectangles.** Qt's raster engine blends a translucent 1-px cosmetic line pixel by
  pixel: the grid lines of a plot cost ~0.05 ms each (4 ms for a log axis), the same pixels as
  filled rectangles ~1/30 of that. The axis line and ticks are painted as 1-px rectangles
  (pixel-identical for the style's solid 1-px cosmetic pens: a line from p1 to p2 covers the
  pixels of the 1-px rectangle around it, half a pixel past each end; any other pen is drawn
  as a line); vertical ones all at once as one stretched row image (:func:`vertical_lines`).
  The tick labels stay in the axis's picture.
- **A strip-sized pixmap.** Axes are cached as device pixmaps (``DeviceCoordinateCache``): a
  data change repaints the curve and blits the axes. With a grid, the grid lines are drawn by
  the plot's :class:`~posenc_gui.widgets.render.grid.GridLines` under the data, and the axis's
  bounds are its strip of ticks and labels: a cached axis the size of the whole view would
  blend that much pixmap at every repaint.

Options the panels need: whole-number ticks, axes aligned pixel by pixel that share their
ticks and drawing (:class:`AlignedAxes`), tick labels of their own, room reserved for the
widest label (:meth:`HouseAxis.reserve_text`). Negative numbers are written with a real minus
sign (U+2212), as every read-out of the app.
"""

from __future__ import annotations

import bisect
import math
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QFontMetricsF,
    QImage,
    QPainter,
    QPen,
    QPicture,
    QTransform,
)
from PySide6.QtWidgets import QGraphicsItem

from posenc_gui.widgets.fmt import MINUS, TIMES, sig, superscript

#: Drawings (tick specs, lines and the labels' picture) each axis keeps for ranges it may show
#: again: a slider dragged back and forth, "nice" limits that come back as the data moves.
AXIS_DRAWINGS_KEPT = 48

#: ``tickStrings(values, scale, spacing)`` of an axis with labels of its own.
TickLabels = Callable[[list[float], float, float], list[str]]

#: Label alignment per axis side, as pyqtgraph's (text is never clipped to its rectangle).
_LABEL_FLAGS = {
    "left": Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip,
    "right": Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip,
    "top": Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom | Qt.TextFlag.TextDontClip,
    "bottom": Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextDontClip,
}
#: Tick label sizes by (font, text): measured once (``QPainter.boundingRect`` per label is most
#: of the cost of a new range).
LABEL_SIZES: dict[tuple[str, str], tuple[float, float]] = {}
_MEASURE_BOX = QRectF(0, 0, 100, 100)
#: Fonts (``QFont.toString``) whose ten digits have one advance: there a label's size is that
#: of its shape, every digit a 0 (a range that moves with a slider shows new numbers at each
#: step, ~0.03 ms a measurement; their shapes repeat).
TABULAR: dict[str, bool] = {}
_ZEROS = str.maketrans("123456789", "000000000")
_NO_PEN = QPen(Qt.PenStyle.NoPen)


class AlignedAxes:
    """Axes that show the same range on the same length, aligned pixel by pixel (the heatmap's
    and the curve plot's position axes): the second one reuses the first one's tick levels and
    drawing specs (the last range only; ~0.5 ms of Python each). The specs are in each axis's
    own coordinates, equal for equal sizes; any difference in the key (range, size, style,
    pens, scales) computes them anew."""

    def __init__(self) -> None:
        self.ticks: dict[tuple[float, float, float], list[tuple[float, list[float]]]] = {}
        self.specs: dict[tuple[Any, ...], Any] = {}


def axis_key(axis: pg.AxisItem) -> tuple[Any, ...] | None:
    """Everything an axis' drawing depends on: range, geometry, the linked view's rectangle
    (grid lines), ticks set by hand, text room, style, fonts, pens and transforms (None when
    the axis is not in a view). Two equal keys draw the same pixels."""
    view = axis.getViewWidget()
    if view is None:
        return None
    style = axis.style
    font = style["tickFont"]
    rect = axis.mapRectFromParent(axis.geometry())
    t, v = axis.sceneTransform(), view.transform()
    linked = axis.linkedView()
    tick_rect = (  # grid lines span the linked view (without a grid, ticks the axis only)
        None
        if linked is None or axis.grid is False
        else linked.mapRectToItem(axis, linked.boundingRect())
    )
    levels = axis._tickLevels
    return (
        axis.orientation, tuple(axis.range), rect.x(), rect.y(), rect.width(), rect.height(),
        None if tick_rect is None else tick_rect.getRect(), axis.grid, axis.logMode,
        axis.scale, axis.autoSIPrefixScale, None if levels is None else repr(levels),
        axis.textWidth, axis.textHeight, None if font is None else font.toString(),
        *(repr(style[k]) for k in sorted(style) if k != "tickFont"),
        axis.pen().color().rgba(), axis.pen().widthF(), axis.textPen().color().rgba(),
        axis.tickPen().color().rgba(), axis.tickPen().widthF(),
        t.m11(), t.m12(), t.m21(), t.m22(), v.m11(), v.m12(), v.m21(), v.m22(),
    )  # fmt: skip


def linear_tick_values(
    axis: pg.AxisItem, lo: float, hi: float, size: float
) -> list[tuple[float, list[float]]]:
    """``pg.AxisItem.tickValues`` of a linear axis: the same numbers without numpy.

    A new range asks pyqtgraph for its ticks: an ``np.arange`` per level and an all-pairs
    ``np.isclose`` against the coarser levels' values, ~0.1–0.2 ms an axis of numpy overhead
    for ten-odd numbers (a length step of the ALiBi tab sets seven axes). Here the same
    floats, ``(k·spacing + start) / scale``, in the same order, and the same test (``|a − b|
    ≤ spacing/scale·0.01``: ``np.isclose`` with ``rtol = 0`` on finite values) in plain
    Python, against the nearest earlier values only (kept sorted).
    """
    lo, hi = sorted((lo, hi))
    scale = axis.scale
    lo *= scale
    hi *= scale
    ticks: list[tuple[float, list[float]]] = []
    seen: list[float] = []  # sorted: the values nearest v are beside its place
    for spacing, offset in axis.tickSpacing(lo, hi, size):
        start = (math.ceil((lo - offset) / spacing) * spacing) + offset
        num = int((hi - start) / spacing) + 1
        atol = spacing / scale * 0.01
        values = []
        for k in range(max(num, 0)):
            v = (k * spacing + start) / scale
            at = bisect.bisect_left(seen, v)
            if (at < len(seen) and abs(seen[at] - v) <= atol) or (
                at > 0 and abs(seen[at - 1] - v) <= atol
            ):
                continue
            values.append(v)
        seen = sorted(seen + values)
        ticks.append((spacing / scale, values))
    return ticks


def vertical_lines(
    p: QPainter, t: QTransform, xs: Sequence[float], top: float, bottom: float, color: QColor
) -> None:
    """1-px vertical lines at ``xs`` from ``top`` to ``bottom`` (item coordinates, ``t`` the
    painter's upright world transform, ``p.transform()``: drawn after ``resetTransform()``,
    which keeps the painter's own device offset — a view's, or a cache pixmap's), all at once.

    Qt's raster engine fills a 1-px-wide translucent rectangle one scan line at a time (24 grid
    lines 400 px high: ~1.8 ms); the same pixels as one row image with a pixel per line,
    stretched to the lines' height, cost ~0.15 ms. The pixels are those of ``fillRect`` of the
    1-px rectangle around each line, except that lines falling in one pixel column are drawn
    once (not blended twice).
    """
    cols = [math.floor(t.m11() * x + t.dx()) for x in xs]
    y0, y1 = sorted((t.m22() * top + t.dy(), t.m22() * bottom + t.dy()))
    first, last = min(cols), max(cols)
    row = QImage(last - first + 1, 1, QImage.Format.Format_ARGB32_Premultiplied)
    row.fill(0)
    for c in cols:
        row.setPixelColor(c - first, 0, color)
    p.save()
    p.resetTransform()
    p.drawImage(QRectF(first, y0 - 0.5, last - first + 1, y1 - y0 + 1.0), row)
    p.restore()


def _minus(strings: list[str]) -> list[str]:
    """Tick labels with a real minus sign (U+2212), as the app writes negative numbers."""
    return [t.replace("-", MINUS) for t in strings]


#: Labels a decade of a log axis must have room for to label every tick between decades,
#: and to label 2 and 5 (:func:`log_tick_strings`).
MINOR_ALL, MINOR_SOME = 12.0, 3.5
#: Decades a log axis writes out in full (0.01 … 100: no wider than the powers); beyond them
#: every label is a power.
PLAIN_DECADES = range(-2, 3)


def log_tick_strings(
    values: Sequence[float],
    scale: float,
    shown: tuple[float, float] | None = None,
    decade_room: float = math.inf,
) -> list[str]:
    """Labels of a log axis's ticks (``values`` are log10 of the numbers, times ``scale``),
    in one notation on the whole axis: written out (``0.01``, ``1``, ``100``) when every
    decade it shows (``shown``: its log10 range; else the ticks') lies in
    :data:`PLAIN_DECADES`, otherwise as powers (``10⁻⁵``, ``2·10¹``). pyqtgraph mixes them
    (``0.0001`` beside ``10⁻⁵``, ``1`` beside ``10¹``) and its ``%0.1g`` writes 25 as 3·10¹.

    ``decade_room``: how many labels fit in one decade of the axis. The labels between the
    decades (2 … 9) are written only where they fit: all of them from :data:`MINOR_ALL`
    labels a decade on, only 2 and 5 from :data:`MINOR_SOME`, none below (pyqtgraph wrote
    8, 9 and 10 over each other at the top of a decade)."""
    numbers = [10.0**v * scale for v in values]
    if shown is not None and all(math.isfinite(v) for v in shown):
        lo, hi = sorted(shown)
        plain = math.floor(lo + 1e-9) >= PLAIN_DECADES.start and hi < PLAIN_DECADES.stop
    else:
        exps = [math.floor(math.log10(x) + 1e-9) for x in numbers if x > 0]
        plain = all(e in PLAIN_DECADES for e in exps)
    out = []
    for x in numbers:
        if not x > 0 or not math.isfinite(x):
            out.append("")
            continue
        e = math.floor(math.log10(x) + 1e-9)
        mant = round(x / 10.0**e, 1)
        if mant >= 10:
            mant, e = mant / 10, e + 1
        digits = f"{mant:g}"
        if (
            digits != "1"
            and decade_room < MINOR_ALL
            and (decade_room < MINOR_SOME or digits not in ("2", "5"))
        ):
            out.append("")
            continue
        if plain:
            out.append(sig(x, max(1, len(digits.replace(".", "")))))
        elif digits == "1":
            out.append("10" + superscript(e))
        else:
            out.append(digits + TIMES + "10" + superscript(e))
    return out


class KeptLines:
    """An axis's lines (``(pen, p1, p2)``, as :meth:`HouseAxis.drawing` returns them) packed to
    be kept: each distinct pen once (the lines of a tick level share one) and the end points in
    one float64 array; :meth:`lines` gives the same lines back (the same pens, equal points)."""

    __slots__ = ("_at", "_pens")

    def __init__(self, lines: Sequence[tuple[QPen, QPointF, QPointF]]) -> None:
        pens: dict[int, int] = {}
        self._pens: list[QPen] = []
        rows = []
        for pen, p1, p2 in lines:
            k = pens.setdefault(id(pen), len(self._pens))
            if k == len(self._pens):
                self._pens.append(pen)
            rows.append((k, p1.x(), p1.y(), p2.x(), p2.y()))
        self._at = np.array(rows, dtype=np.float64).reshape(-1, 5)

    def lines(self) -> list[tuple[QPen, QPointF, QPointF]]:
        pens = self._pens
        return [
            (pens[int(k)], QPointF(x1, y1), QPointF(x2, y2))
            for k, x1, y1, x2, y2 in self._at.tolist()
        ]


class HouseAxis(pg.AxisItem):  # type: ignore[misc]  # pyqtgraph is untyped
    """pyqtgraph's axis, drawn from kept drawings with cheaper specs and 1-px rectangles (see
    the module's docstring for what it keeps, when it redraws and why it is faster).

    ``whole``: only whole-number ticks (positions, dimension indices); ``aligned``: the
    :class:`AlignedAxes` this axis shares its ticks and drawing with; ``labels``: its own
    ``tickStrings``. Change them later with :meth:`set_ticks`.
    """

    #: The labels' picture for what the axis shows (None: to be drawn), as pyqtgraph's.
    picture: QPicture | None
    #: The plot's grid lines, drawn by another item (None: the axis has no grid drawer).
    grid_lines: QGraphicsItem | None = None  # a render.grid.GridLines
    _whole = False
    _aligned: AlignedAxes | None = None
    _labels: TickLabels | None = None
    #: True while the specs are generated: labels are culled to the whole bounds, grid included.
    _culling = False

    def __init__(
        self,
        orientation: str,
        *,
        whole: bool = False,
        aligned: AlignedAxes | None = None,
        labels: TickLabels | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(orientation, **kw)
        self._kept: OrderedDict[tuple[Any, ...], tuple[QPicture, KeptLines]] = OrderedDict()
        self._lines: list[tuple[QPen, QPointF, QPointF]] = []
        self.set_ticks(whole=whole, aligned=aligned, labels=labels)
        self.enableAutoSIPrefix(False)  # numbers as they are: 1 000 000, not 1 (x1e6)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    # -- options ------------------------------------------------------------------------------
    def set_ticks(
        self,
        *,
        whole: bool = False,
        aligned: AlignedAxes | None = None,
        labels: TickLabels | None = None,
    ) -> None:
        """Whole-number ticks only (``whole``), shared with the ``aligned`` axes, labelled by
        ``labels`` (None: pyqtgraph's numbers with a minus sign). Drawings kept with other
        options are forgotten."""
        self._whole, self._aligned, self._labels = whole, aligned, labels
        self._kept.clear()
        self.picture = None
        self.update()

    def set_grid_lines(self, grid: QGraphicsItem | None) -> None:
        """Let ``grid`` draw this axis's grid lines (the axis draws its line and labels)."""
        self.grid_lines = grid
        self.prepareGeometryChange()
        self.picture = None
        self.update()

    def grid_drawer(self) -> QGraphicsItem | None:
        """The item drawing this axis's grid lines, if its grid is shown."""
        if self.grid_lines is None or self.grid is False:
            return None
        return self.grid_lines

    def reserve_text(self, widest: str, font: QFont) -> None:
        """Reserve room for tick labels as wide as ``widest`` in ``font`` (never shrinking):
        a new range whose labels are wider or narrower would otherwise re-lay the plot out and
        paint it twice."""
        self.textWidth = QFontMetrics(font).horizontalAdvance(widest)
        self.setStyle(autoReduceTextSpace=False)  # re-computes the width

    # -- ticks ----------------------------------------------------------------------------------
    def tickValues(self, lo: float, hi: float, size: float) -> list[Any]:
        if not self._whole:
            return self._tick_values(lo, hi, size)
        lo, hi = min(lo, hi), max(lo, hi)  # inverted axes pass (top, bottom)
        memo = None if self._aligned is None else self._aligned.ticks
        key = (lo, hi, size)
        if memo is not None and key in memo:
            return [(spacing, list(values)) for spacing, values in memo[key]]
        levels = [
            (spacing, [v for v in values if abs(v - round(v)) < 1e-6])
            for spacing, values in self._tick_values(lo, hi, size)
            if spacing >= 1
        ]
        levels = [(spacing, values) for spacing, values in levels if values]
        if not levels:
            levels = [(1.0, [float(v) for v in range(math.ceil(lo), math.floor(hi) + 1)])]
        if memo is not None:
            memo.clear()
            memo[key] = [(spacing, list(values)) for spacing, values in levels]
        return levels

    def _tick_values(self, lo: float, hi: float, size: float) -> list[Any]:
        if self.logMode:
            found: list[Any] = super().tickValues(lo, hi, size)
            return found
        return linear_tick_values(self, lo, hi, size)

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        if self._labels is not None:
            return self._labels(values, scale, spacing)
        return _minus(super().tickStrings(values, scale, spacing))

    def logTickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        lo, hi = self.range
        vertical = self.orientation in ("left", "right")
        length = self.height() if vertical else self.width()
        font = self.style.get("tickFont") or self.font()
        metrics = QFontMetrics(font)
        room = metrics.height() if vertical else metrics.horizontalAdvance("2·10⁻⁰⁰")
        decade = length / abs(hi - lo) if hi != lo else math.inf
        return log_tick_strings(values, scale, (float(lo), float(hi)), decade / room)

    # -- drawing --------------------------------------------------------------------------------
    def generateDrawSpecs(self, p: QPainter) -> Any:
        """pyqtgraph's specs (:func:`draw_specs`), shared with the :class:`AlignedAxes`."""
        if self._aligned is not None:
            key = axis_key(self)
            if key is not None:
                memo = self._aligned.specs
                if key not in memo:
                    memo.clear()
                    memo[key] = self._own_specs(p)
                return memo[key]
        return self._own_specs(p)

    def _own_specs(self, p: QPainter) -> Any:
        # pyqtgraph keeps the tick labels that lie in the axis's bounds: those of the axis
        # with its grid (as pyqtgraph draws it), not the smaller rectangle of its pixmap
        self._culling = True
        try:
            return draw_specs(self, p, self.boundingRect())
        finally:
            self._culling = False

    def pyqtgraph_specs(self, p: QPainter) -> Any:
        """pyqtgraph's own ``generateDrawSpecs`` (labels culled to its own bounds)."""
        culling = self._culling
        self._culling = True
        try:
            return super().generateDrawSpecs(p)
        finally:
            self._culling = culling

    def drawPicture(self, p: QPainter, axis_spec: Any, tick_specs: Any, text_specs: Any) -> None:
        """The labels into the picture; the lines are kept for :meth:`paint` (as rectangles)."""
        self._lines[:] = [axis_spec, *tick_specs]
        super().drawPicture(p, (_NO_PEN, *axis_spec[1:]), [], text_specs)

    def drawing(self) -> list[tuple[QPen, QPointF, QPointF]]:
        """The axis's lines (axis line first, then one per tick) for what it shows now, from
        what it kept or drawn anew (its labels' picture set as ``picture``)."""
        if self.picture is None:
            key = axis_key(self)
            hit = None if key is None else self._kept.get(key)
            if hit is not None:
                self._kept.move_to_end(key)  # type: ignore[arg-type]
                self.picture, self._lines[:] = hit[0], hit[1].lines()
            else:  # as AxisItem.paint: the specs, then the picture (labels)
                picture = QPicture()
                painter = QPainter(picture)
                try:
                    if self.style["tickFont"]:
                        painter.setFont(self.style["tickFont"])
                    specs = self.generateDrawSpecs(painter)
                    self._lines.clear()
                    if specs is not None:
                        self.drawPicture(painter, *specs)
                finally:
                    painter.end()
                self.picture = picture
                if key is not None:
                    self._kept[key] = (picture, KeptLines(self._lines))
                    if len(self._kept) > AXIS_DRAWINGS_KEPT:
                        self._kept.popitem(last=False)
        return self._lines

    def paint(self, p: QPainter, opt: Any, widget: Any) -> None:
        drawn = self.drawing()
        if self.grid_drawer() is not None:
            drawn = drawn[:1]  # the tick lines are grid lines: the plot's GridLines draws them
        t = p.deviceTransform()
        px, py = 1.0 / max(abs(t.m11()), 1e-9), 1.0 / max(abs(t.m22()), 1e-9)  # a device pixel
        antialias = p.testRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        upright = t.m12() == 0 and t.m21() == 0
        columns: dict[tuple[int, float, float], list[float]] = {}
        for pen, p1, p2 in drawn:
            x1, y1, x2, y2 = p1.x(), p1.y(), p2.x(), p2.y()
            thin = pen.isCosmetic() and pen.widthF() <= 1.0 and pen.style() == Qt.PenStyle.SolidLine
            if thin and upright and y1 == y2:
                x = min(x1, x2)
                p.fillRect(QRectF(x - px / 2, y1 - py / 2, abs(x2 - x1) + px, py), pen.color())
            elif thin and upright and x1 == x2:  # vertical: drawn together, below
                key = (pen.color().rgba(), min(y1, y2), max(y1, y2))
                columns.setdefault(key, []).append(x1)
            else:
                p.setPen(pen)
                p.drawLine(p1, p2)
        for (rgba, top, bottom), xs in columns.items():
            vertical_lines(p, p.transform(), xs, top, bottom, QColor.fromRgba(rgba))
        p.setRenderHint(QPainter.RenderHint.Antialiasing, antialias)
        if self.picture is not None:
            self.picture.play(p)

    def boundingRect(self) -> QRectF:
        if self._culling or self.grid_drawer() is None:
            whole: QRectF = super().boundingRect()
            return whole
        # the strip of ticks and labels only: the grid lines are another item's, and a cached
        # axis the size of the whole view would blend that much pixmap at every repaint
        rect: QRectF = self.mapRectFromParent(self.geometry())
        m = 0 if self.style["hideOverlappingLabels"] else 15
        if self.orientation in ("left", "right"):
            return rect.adjusted(0, -m, 0, m)
        return rect.adjusted(-m, 0, m, 0)

    def update(self, *args: Any) -> None:
        super().update(*args)
        grid = self.grid_drawer()
        if grid is not None:
            grid.update()


# -- the specs ----------------------------------------------------------------------------------


def _sides(
    orientation: str, bounds: QRectF, tick_bounds: QRectF
) -> tuple[tuple[QPointF, QPointF], float, float, int, int]:
    """The axis line's ends, where ticks start and stop, their direction and the axis (0: a
    vertical axis, 1: a horizontal one), as pyqtgraph places them."""
    if orientation == "left":
        span = (bounds.topRight() + QPointF(-1.0, -1.0), bounds.bottomRight() + QPointF(-1.0, 1.0))
        return span, tick_bounds.right(), bounds.right(), -1, 0
    if orientation == "right":
        span = (bounds.topLeft() + QPointF(1.0, -1.0), bounds.bottomLeft() + QPointF(1.0, 1.0))
        return span, tick_bounds.left(), bounds.left(), 1, 0
    if orientation == "top":
        span = (
            bounds.bottomLeft() + QPointF(-1.0, -1.0),
            bounds.bottomRight() + QPointF(1.0, -1.0),
        )
        return span, tick_bounds.bottom(), bounds.bottom(), -1, 1
    span = (bounds.topLeft() + QPointF(-1.0, 1.0), bounds.topRight() + QPointF(1.0, 1.0))
    return span, tick_bounds.top(), bounds.top(), 1, 1


def draw_specs(axis: HouseAxis, p: QPainter, outer: QRectF) -> Any:
    """What ``pg.AxisItem.generateDrawSpecs`` returns (the same tick positions, pens, label
    rectangles, flags and strings, the same update of the axis's text room), ~3× cheaper.

    ``outer``: the rectangle a label must lie in (pyqtgraph's ``boundingRect`` of the axis).
    Axes with a tick alpha of their own or stopping at a tick go to pyqtgraph's.
    """
    style = axis.style
    if style["tickAlpha"] is not None or tuple(style["stopAxisAtTick"]) != (False, False):
        return axis.pyqtgraph_specs(p)
    if style["tickFont"] is not None:
        p.setFont(style["tickFont"])
    bounds = axis.mapRectFromParent(axis.geometry())
    linked = axis.linkedView()
    tick_bounds = (
        bounds
        if linked is None or axis.grid is False
        else linked.mapRectToItem(axis, linked.boundingRect())
    )
    span, tick_start, tick_stop, tick_dir, ax = _sides(axis.orientation, bounds, tick_bounds)
    points = [axis.mapToDevice(pt) for pt in span]
    if None in points:
        return None
    d = points[1] - points[0]
    length = math.hypot(d.x(), d.y())
    if length == 0:
        return None
    r0, r1 = axis.range[0], axis.range[1]
    manual: list[list[str]] | None = None
    if axis._tickLevels is None:
        levels = axis.tickValues(r0, r1, length)
    else:
        levels = [(None, [v for v, _ in level]) for level in axis._tickLevels]
        manual = [[t for _, t in level] for level in axis._tickLevels]
    dif = r1 - r0
    if dif == 0:
        x_scale, offset = 1.0, 0.0
    elif ax == 0:
        x_scale = -bounds.height() / dif
        offset = r0 * x_scale - bounds.height()
    else:
        x_scale = bounds.width() / dif
        offset = r0 * x_scale
    positions, tick_specs = _tick_lines(
        axis, levels, (x_scale, offset, r0, r1), (tick_start, tick_stop, tick_dir), ax, length
    )
    axis_spec = (axis.pen(), span[0], span[1])
    if not style["showValues"]:
        return axis_spec, tick_specs, []
    text_specs, last_across = _labels(axis, p, levels, manual, positions, tick_stop, ax, length,
                                      outer)  # fmt: skip
    if len(LABEL_SIZES) > 8192:
        LABEL_SIZES.clear()
    axis._updateMaxTextSize(last_across)
    return axis_spec, tick_specs, text_specs


def _tick_lines(
    axis: HouseAxis,
    levels: list[Any],
    scaling: tuple[float, float, float, float],
    ticks: tuple[float, float, int],
    ax: int,
    length: float,
) -> tuple[list[list[float | None]], list[tuple[QPen, QPointF, QPointF]]]:
    """Each tick's position along the axis (None: outside the range) and its line, per level,
    with pyqtgraph's pens (alpha by level, and by density for grid lines)."""
    x_scale, offset, r0, r1 = scaling
    tick_start, tick_stop, tick_dir = ticks
    x_lo, x_hi = sorted((r0 * x_scale - offset, r1 * x_scale - offset))
    grid, style = axis.grid, axis.style
    positions: list[list[float | None]] = []
    tick_specs: list[tuple[QPen, QPointF, QPointF]] = []
    base_pen = axis.tickPen()
    solid = base_pen.brush().style() == Qt.BrushStyle.SolidPattern
    for i, (_, values) in enumerate(levels):
        at: list[float | None] = []
        positions.append(at)
        reach = 0.0 if grid is not False else style["tickLength"] / ((i * 0.5) + 1.0) * tick_dir
        alpha = 255 / (i + 1)
        if grid is not False:
            alpha *= grid / 255.0 * min(max(0.05 * length / (len(values) + 1), 0.0), 1.0)
        pen = base_pen
        if solid:
            pen = QPen(base_pen)
            colour = QColor(pen.color())
            colour.setAlpha(int(alpha))
            pen.setColor(colour)
        for v in values:
            x = (v * x_scale) - offset
            if x < x_lo or x > x_hi:
                at.append(None)
                continue
            at.append(x)
            if ax == 0:
                tick_specs.append((pen, QPointF(tick_start, x), QPointF(tick_stop + reach, x)))
            else:
                tick_specs.append((pen, QPointF(x, tick_start), QPointF(x, tick_stop + reach)))
    return positions, tick_specs


def _label_size(p: QPainter, font: str, tabular: bool, text: str) -> tuple[float, float]:
    """A label's size as pyqtgraph measures it, kept by (font, shape)."""
    shape = text.translate(_ZEROS) if tabular else text
    wh = LABEL_SIZES.get((font, shape))
    if wh is None:
        br = p.boundingRect(_MEASURE_BOX, Qt.AlignmentFlag.AlignCenter, shape)
        br.setHeight(br.height() * 0.8)  # as pyqtgraph: the measure is a bit large
        wh = LABEL_SIZES[(font, shape)] = (br.width(), br.height())
    return wh


def _label_rect(orientation: str, x: float, wh: tuple[float, float], stop: float,
                room: float) -> QRectF:  # fmt: skip
    width, height = wh
    if orientation == "left":
        return QRectF(stop - room - width, x - height / 2, width, height)
    if orientation == "right":
        return QRectF(stop + room, x - height / 2, width, height)
    if orientation == "top":
        return QRectF(x - width / 2.0, stop - room - height, width, height)
    return QRectF(x - width / 2.0, stop + room, width, height)


def _labels(
    axis: HouseAxis,
    p: QPainter,
    levels: list[Any],
    manual: list[list[str]] | None,
    positions: list[list[float | None]],
    tick_stop: float,
    ax: int,
    length: float,
    outer: QRectF,
) -> tuple[list[tuple[QRectF, Any, str]], float]:
    """The labels' rectangles, flags and strings (the first level always, the next ones while
    they fit), and the size across the axis of the last level shown (the text room)."""
    style = axis.style
    room = max(0, style["tickLength"]) + style["tickTextOffset"][ax]
    flags = _LABEL_FLAGS[axis.orientation]
    font = p.font().toString()
    tabular = TABULAR.get(font)
    if tabular is None:
        metrics = QFontMetricsF(p.font())
        tabular = TABULAR[font] = len({metrics.horizontalAdvance(c) for c in "0123456789"}) == 1
    along: list[float] = []  # label sizes along the axis, all levels so far
    across: list[float] = []  # and across it
    last_across = 0.0
    text_specs: list[tuple[QRectF, Any, str]] = []
    for i in range(min(len(levels), style["maxTextLevel"] + 1)):
        if manual is None:
            spacing, values = levels[i]
            strings = axis.tickStrings(values, axis.autoSIPrefixScale * axis.scale, spacing)
        else:
            strings = manual[i]
        if len(strings) == 0:
            continue
        sizes: list[tuple[float, float] | None] = []
        for j, text in enumerate(strings):
            if positions[i][j] is None:
                sizes.append(None)
                continue
            wh = _label_size(p, font, tabular, text)
            sizes.append(wh)
            along.append(wh[1] if ax == 0 else wh[0])
            across.append(wh[0] if ax == 0 else wh[1])
        if i > 0:  # the first level always has its labels; the next ones while they fit
            fill = (float(np.sum(along)) if along else 0.0) / length
            if any(len(text_specs) >= n and fill >= lim for n, lim in style["textFillLimits"]):
                break
        last_across = float(np.max(across)) if across else 0.0
        for j, text in enumerate(strings):
            x, size = positions[i][j], sizes[j]
            if x is None or size is None:
                continue
            rect = _label_rect(axis.orientation, x, size, tick_stop, room)
            if outer & rect != rect:
                continue
            text_specs.append((rect, flags, text))
    return text_specs, last_across
