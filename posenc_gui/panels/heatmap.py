"""PE heatmap tab: the table ``PE[p, j]`` (x = position, y = dimension j) with linked slices.

* Top left: the heatmap with a fixed diverging colour scale [-1, 1], crosshair lines at the
  selected position and dimension (draggable; a click selects a cell), the hovered cell's
  formula with numbers underneath.
* Top right, sharing the heatmap's dimension axis: the encoding vector ``PE[p, :]``.
* Bottom left, sharing the heatmap's position axis: the selected column and its sin/cos
  partner over positions, with markers at ``p``.
* Bottom right: every pair's wavelength ``λ_i = 2π/ω_i`` on a log axis against the span of the
  sequence, and how many pairs complete a full turn.

Resolution: the heatmap and the curve are computed only for what lands on pixels of the current
view (at most :data:`MAX_SAMPLES` per axis) and recomputed when the view range or size changes
(events ``heat_range`` and ``curve_range``). When a pixel column covers several positions it
shows the exact **mean** of each column over those positions (closed form,
:func:`posenc_gui.core.sinusoidal.sinusoidal_column_means`), not one sampled position: a column
that oscillates faster than the pixels averages to ~0 (the middle of the colour scale) instead
of drawing moiré arcs. The plot says so: its title becomes "PE[p, j] averaged over positions"
and the line under it "Each pixel column = mean over ~N positions" (a longer title would force
the plot's minimum width).
Dimension columns are never averaged: each pixel row shows one column (the one nearest its
centre). The curve below draws such a column as its exact min–max band.

Views and their inputs: ``extent`` (positions, shown), ``image`` (positions, dim, base, layout,
shown, heat_range), ``position_lines`` (positions, position), ``dimension_lines`` (shown,
dimension), ``hover`` (everything the hovered cell depends on, and the ``hover`` event),
``vector`` (vector group, layout, dim), ``vector_marker`` (cell, dimension), ``curves``
(positions, dim, base, layout, dimension, column, curve_range), ``curve_markers`` (cell,
position), ``curve_label`` (column, turns, positions, dimension, curve_range), ``wavelengths``
(spectrum), ``wavelength_marker`` (column), ``turns_label`` (spectrum, positions), ``formula``
(dim, base, layout, positions), ``readouts`` (position, dimension, column, cell, vector,
spectrum).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import pyqtgraph as pg
import torch
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QPainter,
    QPen,
    QTransform,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsTextItem,
    QGroupBox,
    QPushButton,
    QStyleOptionGraphicsItem,
    QVBoxLayout,
    QWidget,
)

from posenc_gui.core.colour import colour_index
from posenc_gui.core.sinusoidal import (
    SinusoidalLayout,
    sinusoidal_column_envelope,
    sinusoidal_column_means,
    sinusoidal_columns,
)
from posenc_gui.panels.base import Cell, Panel
from posenc_gui.state.heatmap import PRESETS, HeatmapModel, shown_count
from posenc_gui.widgets import styled
from posenc_gui.widgets.fmt import integer, num, sig, signed
from posenc_gui.widgets.render import AlignedAxes
from posenc_gui.widgets.style import Style, StyleBook
from posenc_gui.widgets.styled import Dots
from posenc_gui.widgets.text import LiveText, ReadoutTable, live, span
from posenc_gui.widgets.views import Context

#: Hard cap on computed samples per image axis (a screen has ~2000 pixels a side).
MAX_SAMPLES = 2000
#: Below this many pixels we still compute this many samples (widget not laid out yet).
MIN_SAMPLES = 64
#: Most samples per turn of a position curve drawn as a line (see :func:`curve_samples`).
SAMPLES_PER_TURN = 64
MIN_CURVE_SAMPLES = 64
#: Pixels a position curve's polyline may stray from the curve (see :func:`curve_samples`).
CURVE_TOLERANCE = 0.25
#: The position curves' y range is ``[−CURVE_Y_RANGE, CURVE_Y_RANGE]``.
CURVE_Y_RANGE = 1.2
#: Integer sample dots on the position curves when at most this many positions are visible.
CURVE_DOTS_MAX = 160
#: Symbols on the vector / wavelength plots up to this many points.
SYMBOLS_MAX = 160
#: Width of the left axes of the heatmap and the curve plot (pixels at scale 1): equal, so the
#: two plots' position axes line up pixel by pixel.
AXIS_WIDTH = 78
#: Opacity of the reference lines other than zero.
GUIDE_ALPHA = 0.4

#: Top of the wavelength plot's log10 λ axis: the longest wavelength of any base the slider
#: allows, 2π·base_max (the last pair's ω tends to 1/base as d grows), a quarter decade padded.
WAVELENGTH_TOP = math.log10(2 * math.pi * float(HeatmapModel.param("base").maximum or 1e7)) + 0.25
IMAGE_INPUTS = ("positions", "dim", "base", "layout", "shown", "heat_range")
CURVE_INPUTS = ("positions", "dim", "base", "layout", "dimension", "column", "curve_range")
HOVER_INPUTS = (*IMAGE_INPUTS, "position", "dimension", "hover")


def axis_samples(lo: float, hi: float, count: int, pixels: int) -> tuple[np.ndarray, float, float]:
    """The items of one image axis to compute for the view ``[lo, hi]``.

    Items ``0 … count-1`` occupy ``[k-0.5, k+0.5]``. Returns ``(indices, start, extent)``: the
    item indices to compute (every visible one if they fit in ``pixels``, else one representative
    per pixel, the item nearest the pixel centre) and the image placement ``[start, start+extent]``.
    """
    first = min(max(math.floor(lo + 0.5), 0), count - 1)
    last = min(max(math.ceil(hi - 0.5), 0), count - 1)
    last = max(last, first)
    visible = last - first + 1
    start = first - 0.5
    if visible <= pixels:
        return np.arange(first, last + 1, dtype=np.int64), start, float(visible)
    width = visible / pixels
    centres = start + (np.arange(pixels, dtype=np.float64) + 0.5) * width
    idx = np.clip(np.floor(centres + 0.5), first, last).astype(np.int64)
    return idx, start, float(visible)


def position_bins(
    lo: float, hi: float, count: int, pixels: int
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """The positions each pixel column of the view ``[lo, hi]`` covers.

    Positions ``0 … count-1`` occupy ``[p-0.5, p+0.5]``. Returns ``(first, last, start,
    extent)``: pixel column ``k`` covers the positions ``first[k] … last[k]`` (inclusive; one
    position each when every visible position gets its own pixel, else the positions whose
    centres fall inside the pixel, so the bins partition the visible positions) and the image is
    placed on ``[start, start+extent]``.
    """
    idx, start, extent = axis_samples(lo, hi, count, pixels)
    if len(idx) == extent:  # every visible position has its own pixel
        return idx, idx, start, extent
    first_pos = int(start + 0.5)
    last_pos = first_pos + int(extent) - 1
    edges = start + np.arange(pixels + 1, dtype=np.float64) * (extent / pixels)
    first = np.clip(np.ceil(edges[:-1]), first_pos, last_pos).astype(np.int64)
    last = np.clip(np.ceil(edges[1:]) - 1, first_pos, last_pos).astype(np.int64)
    last[-1] = last_pos
    return first, np.maximum(last, first), start, extent


class _Rows(NamedTuple):
    """The image rows last computed (see ``HeatmapPanel._image_rows``)."""

    key: tuple[int, float, SinusoidalLayout]  # (dim, base, layout)
    first: np.ndarray  # first and last position of each pixel column
    last: np.ndarray
    cols: np.ndarray  # the table columns computed (sorted)
    means: torch.Tensor  # (C, K) float64 pixel means
    colours: np.ndarray  # their colour-map indices (uint8)


def _exact_run(first: np.ndarray, last: np.ndarray) -> bool:
    """Whether pixel columns ``first … last`` are one position each, consecutive ones."""
    n = len(first)
    return (
        n > 0
        and (first is last or np.array_equal(first, last))
        and int(first[-1]) - int(first[0]) == n - 1
    )


def curve_samples(span: float, omega: float, pixels: int, height: float | None = None) -> int:
    """Samples of a smooth ``sin(x·ω)`` curve drawn over ``span`` positions on ``pixels`` pixels.

    Per turn, enough that the polyline strays at most :data:`CURVE_TOLERANCE` pixels from the
    curve on a plot ``height`` pixels high (the y range is ±:data:`CURVE_Y_RANGE`: amplitude
    ``A = height / (2·CURVE_Y_RANGE)``; a chord over ``δ`` radians of ``A·sin`` strays at most
    ``A·δ²/8``), never more than :data:`SAMPLES_PER_TURN` (``height`` None: that many); at
    least :data:`MIN_CURVE_SAMPLES`, at most one per pixel: a slow column does not pay for a
    thousand segments it does not need.
    """
    per_turn: float = SAMPLES_PER_TURN
    if height is not None and height > 0:
        amplitude = height / (2.0 * CURVE_Y_RANGE)
        per_turn = min(per_turn, math.pi * math.sqrt(amplitude / (2.0 * CURVE_TOLERANCE)))
    turns = span * omega / (2.0 * math.pi)
    wanted = math.ceil(turns * math.ceil(per_turn)) + 1
    return int(min(max(wanted, MIN_CURVE_SAMPLES), max(pixels, MIN_CURVE_SAMPLES)))


def _pixels(vb: pg.ViewBox, horizontal: bool) -> int:
    size = vb.width() if horizontal else vb.height()
    return int(min(max(round(float(size)), MIN_SAMPLES), MAX_SAMPLES))


def _base_text(base: float) -> str:
    return integer(int(base)) if float(base).is_integer() else sig(base, 5)


def _position_ticks(values: list[float], scale: float, spacing: float) -> list[str]:
    """Tick labels for position axes: whole numbers in full (1 000 000, not 1e+06)."""
    if spacing * scale >= 1:
        return [integer(round(v * scale)) for v in values]
    return [f"{v * scale:g}".replace("-", "−") for v in values]


def _layout(name: str) -> SinusoidalLayout:
    return "concat" if name == "concat" else "interleaved"


class ViewGuides(pg.GraphicsObject):  # type: ignore[misc]  # pyqtgraph is untyped
    """Reference lines across a whole view at fixed data values of one axis.

    Drawn in the view box's own (pixel) coordinates, as one cached item: a change of the other
    axis' range (or any item repainted beneath) leaves the cache alone and blits it, where
    :class:`pg.InfiniteLine` items (one per value, bounds and cache tied to the view transform)
    each draw again whenever either range changes. The cache is drawn again only when the box
    is resized or the range of the lines' own axis changes (:attr:`renders` counts those draws).
    ``values`` first, zero drawn in the full guide colour, others at :data:`GUIDE_ALPHA`.
    """

    def __init__(
        self, book: StyleBook, vb: pg.ViewBox, values: tuple[float, ...], vertical: bool
    ) -> None:
        super().__init__()
        self._vb, self._vertical = vb, vertical
        self.values = np.asarray(values, dtype=np.float64)
        self._pens = (QPen(), QPen())
        self._range: tuple[float, float] | None = None
        self.renders = 0
        self.setParentItem(vb)
        self.setZValue(-1e5)  # above the view's background, beneath everything it shows
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresParentOpacity, False)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        vb.sigResized.connect(self._resized)
        vb.sigRangeChanged.connect(self._range_changed)
        book.add(self._style)

    def _style(self, st: Style) -> None:
        pens = []
        for alpha in (1.0, GUIDE_ALPHA):
            pen = st.pen("guide", "hair")
            pen.setColor(st.qcolor("guide", alpha))
            pens.append(pen)
        self._pens = (pens[0], pens[1])
        self.update()

    def _resized(self, *_: object) -> None:
        self.prepareGeometryChange()
        self.update()

    def _range_changed(self, *_: object) -> None:
        rng = self._axis_range()
        if rng != self._range:
            self.update()

    def _axis_range(self) -> tuple[float, float]:
        lo, hi = self._vb.viewRange()[0 if self._vertical else 1]
        return float(lo), float(hi)

    def boundingRect(self) -> QRectF:
        return QRectF(self._vb.rect())

    def paint(
        self, p: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        self.renders += 1
        self._range = lo, hi = self._axis_range()
        rect = self._vb.rect()
        w, h = float(rect.width()), float(rect.height())
        if hi <= lo or w <= 0 or h <= 0:
            return
        state = self._vb.state
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)  # axis-aligned hair lines
        for value in self.values:
            if not lo <= value <= hi:
                continue
            p.setPen(self._pens[0 if value == 0 else 1])
            f = (value - lo) / (hi - lo)
            if self._vertical:
                x = (1.0 - f if state["xInverted"] else f) * w
                p.drawLine(QPointF(x, 0.0), QPointF(x, h))
            else:
                y = (f if state["yInverted"] else 1.0 - f) * h
                p.drawLine(QPointF(0.0, y), QPointF(w, y))


def _store_limits(
    vb: pg.ViewBox,
    x: tuple[float, float],
    y: tuple[float, float],
    min_x_range: float,
    min_y_range: float,
) -> None:
    """What ``vb.setLimits(xMin=…, xMax=…, yMin=…, yMax=…, minXRange=…, minYRange=…)`` stores,
    without the range update it runs at once: the caller sets the new range next, whose update
    applies the new limits (``setLimits`` first would update the view range twice a step, with
    every linked view and axis following each time)."""
    limits = vb.state["limits"]
    limits["xLimits"] = [x[0], x[1]]
    limits["yLimits"] = [y[0], y[1]]
    limits["xRange"][0] = min_x_range
    limits["yRange"][0] = min_y_range


def _settle(*boxes: pg.ViewBox) -> None:
    """Apply new view ranges now, not in the next paint.

    pyqtgraph defers the view transform to the paint; the items that react to it then ask for
    a second paint of the whole plot. Updating the transform right after the range change lets
    one paint show the new range.
    """
    for vb in boxes:
        vb.prepareForPaint()


def _draw_directly(*items: QGraphicsItem) -> None:
    """Draw ``items`` straight onto the plot, without a device cache.

    The position curves and the wavelength curves change with ``positions``, ``dim`` and
    ``base`` (and the selected column): cached, each such step fills a pixmap as large as
    the view, draws the curve into it and blends it onto the plot — ~0.3 ms more per curve
    than drawing it. A wavelength curve is one segment: what moves over it (the selected
    pair's ring) redraws it for next to nothing. The position curves are many segments, each
    stroked even where the repaint clips it away: they keep their pixels on the steps that
    leave them alone (``kept_lines``).
    """
    for item in items:
        item.setCacheMode(QGraphicsItem.CacheMode.NoCache)


class StraightCurve(styled.PixelCurve):
    """A :class:`~posenc_gui.widgets.styled.PixelCurve` whose points lie on one straight line
    (in the view's coordinates), drawn as the one segment from its first point to its last.

    The wavelength plot's ``log10 λ_i = log10 2π + (2i/d)·log10 base`` is linear in ``i``: the
    polyline through its ``d/2`` points (2048 of them at d = 4096, a fraction of a pixel each)
    is that segment, whose ends are stroked once instead of once per point (~0.3 ms a curve
    for large d). The data (``xData``, ``yData``, ``getData()``) keep every point.
    """

    def _device_lines(self, t: QTransform) -> None:
        x, y = self.xData, self.yData
        a = t.map(QPointF(float(x[0]), float(y[0])))
        b = t.map(QPointF(float(x[-1]), float(y[-1])))
        self._lines.resize(1)
        self._lines.ndarray()[0] = (a.x(), a.y(), b.x(), b.y())


def _span_text(positions: int) -> str:
    """``0…L−1`` as one live value.

    A :class:`~posenc_gui.widgets.text.LiveText` draws a new value over the old one only
    when the characters beside it are upright (not "…" or "/"): written as
    ``0…{L−1}`` with only ``L−1`` live, every ``positions`` step edited and re-laid out the
    label; as one value it is drawn over whenever its width is unchanged.
    """
    return live(f"0…{integer(positions - 1)}")


def _other(fn: str) -> str:
    return "cos" if fn == "sin" else "sin"


class HeatmapPanel(Panel):
    """The ``heatmap`` tab."""

    model = HeatmapModel

    def build(self) -> None:
        b = self.book
        self._extent: tuple[int, int] | None = None
        self._limits: tuple[int, int] | None = None  # (positions, shown) of the view limits
        self._applying_extent = False
        self._hover: tuple[int, int] | None = None
        #: Per pixel column of the image: the positions it covers (``first … last``) and its
        #: centre position; per pixel row: the dimension column it shows. ``image_table[r, c]``
        #: is the mean of ``PE[first[r] … last[r], image_dims[c]]`` (float64; the entry itself
        #: when the pixel covers one position).
        self.image_positions = np.zeros(0, dtype=np.int64)
        self.image_first = np.zeros(0, dtype=np.int64)
        self.image_last = np.zeros(0, dtype=np.int64)
        self.image_dims = np.zeros(0, dtype=np.int64)
        self.image_table = np.zeros((0, 0))
        #: Average number of positions per pixel column (1 = exact rows, no averaging).
        self.image_mean_over = 1.0
        self._image_rect = (0.0, 0.0, 1.0, 1.0)
        self._image_placed: tuple[Any, ...] | None = None
        #: The last image rows computed: ((dim, base, layout), first, last, columns, means,
        #: colour indices); see :meth:`_image_rows`.
        self._kept_rows: _Rows | None = None
        #: How many times the image's pixel means were computed (not taken from kept rows).
        self.image_rows_computed = 0
        #: Positions whose entries were computed to extend the kept rows (see _image_rows).
        self.image_positions_added = 0
        #: Whether the position curves are drawn as min–max bands (faster than the pixels).
        self.curve_is_band = False
        #: Seconds spent in the last image recompute.
        self.last_view_seconds = 0.0
        self._vec_key: tuple[Any, ...] | None = None
        self._curve_pens: tuple[Any, ...] | None = None
        self._wl_key: Style | None = None
        self._wl_data: tuple[int, np.ndarray, bool] | None = None
        self._wl_ranges: tuple[Any, ...] | None = None
        self._wl_span: int | None = None
        self._bounds: dict[str, tuple[float, float]] = {}

        # ---- controls ----------------------------------------------------------------------
        table_box = self.controls("Table", "positions", "dim", "base", "layout")
        sel_box = self.controls("Selection", "position", "dimension", "shown_dims")
        preset_box = QGroupBox("One-click views", self)
        preset_layout = QVBoxLayout(preset_box)
        self.explainer_button = self._button(
            preset_box, "preset_explainer_button",
            "&Explainer figure: 30 positions × 6 dims, d = 128",
            "The explainer's figure: the first 30 positions and the first 6 dimensions of a "
            "128-dimensional encoding (positions=30, dim=128, base=10000, dims shown=6).",
        )  # fmt: skip
        self.notebook_button = self._button(
            preset_box, "preset_notebook_button", "&Notebook table: 100 positions × 512 dims",
            "The notebook's PositionalEncoding(512) applied to a batch of length 100 "
            "(positions=100, dim=512, base=10000, all dimensions).",
        )  # fmt: skip
        self.reset_view_button = self._button(
            preset_box, "reset_view_button", "Show &all (reset zoom)",
            "Zoom the heatmap out to every position and every shown dimension.",
        )  # fmt: skip
        for button in (self.explainer_button, self.notebook_button, self.reset_view_button):
            preset_layout.addWidget(button)
        self.explainer_button.clicked.connect(lambda: self.apply_preset("explainer"))
        self.notebook_button.clicked.connect(lambda: self.apply_preset("notebook"))
        self.reset_view_button.clicked.connect(self.reset_view)
        self.readout_label = ReadoutTable("heatmap_readouts", self, b)

        # ---- heatmap -----------------------------------------------------------------------
        self.heat_plot = styled.plot(
            b, self, "heatmap_plot", "Sinusoidal encoding PE[p, j]", "position", "dimension j",
            grid=False, mouse=(True, True),
        )  # fmt: skip
        self.heat_plot.invertY(True)
        self.heat_plot.hideButtons()
        #: Whole-number ticks and drawings shared by the axes that show the same range on the
        #: same length (the heatmap's and the curve plot's positions, its and the vector's
        #: dimensions).
        self._position_ticks, self._dimension_ticks = AlignedAxes(), AlignedAxes()
        self.heat_plot.getAxis("bottom").set_ticks(
            whole=True, aligned=self._position_ticks, labels=_position_ticks
        )
        self.heat_plot.getAxis("left").set_ticks(whole=True, aligned=self._dimension_ticks)
        self.heat_vb: pg.ViewBox = self.heat_plot.getViewBox()
        self.heat_vb.disableAutoRange()
        self.image, self.colorbar = styled.heatmap(
            b, self.heat_plot, (-1.0, 1.0), "diverging", "PE value"
        )
        # The image gets RGBA pixels coloured here (see :meth:`_push_image`), not float values
        # that pyqtgraph maps through levels and a LUT at every paint (an Indexed8 image drawn
        # scaled costs several times an RGBA one): the bar only shows the scale.
        self.colorbar.setImageItem([])
        self.image.setLevels(None)
        #: Colour-map index (0…255) of every image pixel, (shown columns, pixel columns).
        self.image_index = np.zeros((0, 0), dtype=np.uint8)
        self._lut32 = np.zeros(256, dtype=np.uint32)
        b.add(self._style_image)
        self.pos_line = self._crosshair(self.heat_plot, 90, "Drag to choose the position p")
        self.dim_line = self._crosshair(self.heat_plot, 0, "Drag to choose the dimension j")
        self.hover_label = LiveText("hover_formula", self, b, "title")
        self.formula_label = LiveText("heatmap_formula", self, b)

        # ---- encoding vector (shares the dimension axis) -----------------------------------
        self.vector_plot = styled.plot(
            b, self, "vector_plot", "Encoding vector PE[p, j]", "PE value", "dimension j",
            grid=False, mouse=(False, True),
        )  # fmt: skip
        vec_axis = self.vector_plot.getAxis("bottom")
        b.add(
            lambda st: vec_axis.setLabel(
                "PE value: " + span(st, "sin", "● sin") + " " + span(st, "cos", "● cos"),
                **{"font-size": st.css_pt("label"), "color": st.color("ink")},
            )
        )
        self.vector_plot.getAxis("left").set_ticks(whole=True, aligned=self._dimension_ticks)
        self.vector_plot.invertY(True)
        self.vector_plot.hideButtons()
        self.vector_plot.setXRange(-1.15, 1.15, padding=0)
        self.vector_plot.getViewBox().disableAutoRange()
        self.vector_plot.setYLink(self.heat_plot)
        self.vector_guides = ViewGuides(
            b, self.vector_plot.getViewBox(), (-1.0, -0.5, 0.0, 0.5, 1.0), vertical=True
        )
        # thin connecting lines, drawn only while d is small, and one dot per column
        self.vec_sin_line = styled.curve(b, self.vector_plot, "sin", "thin")
        self.vec_cos_line = styled.curve(b, self.vector_plot, "cos", "thin")
        self.vec_sin = styled.markers(b, self.vector_plot, "sin", "dot")
        self.vec_cos = styled.markers(b, self.vector_plot, "cos", "dot")
        self.vec_dim_line = self._crosshair(self.vector_plot, 0, "Drag to choose the dimension j")
        self.vec_marker = styled.markers(b, self.vector_plot, "ink", "large")

        # ---- selected dimension over positions (shares the position axis) ------------------
        self.curve_plot = styled.plot(
            b, self, "dimension_plot", "Dimension j over positions", "position", "PE value",
            grid=False, mouse=(True, False),
        )  # fmt: skip
        self.curve_plot.hideButtons()
        right = styled.axis_right(b, self.curve_plot)
        right.setStyle(showValues=False)
        self.curve_plot.setYRange(-CURVE_Y_RANGE, CURVE_Y_RANGE, padding=0)
        self.curve_guides = ViewGuides(
            b, self.curve_plot.getViewBox(), (-1.0, -0.5, 0.0, 0.5, 1.0), vertical=False
        )
        self.curve_plot.getAxis("bottom").set_ticks(
            whole=True, aligned=self._position_ticks, labels=_position_ticks
        )
        self.curve_vb: pg.ViewBox = self.curve_plot.getViewBox()
        self.curve_vb.disableAutoRange()
        self.curve_plot.setXLink(self.heat_plot)
        self.partner_curve = styled.pixel_curve(b, self.curve_plot, "cos", "line")
        self.sel_curve = styled.pixel_curve(b, self.curve_plot, "sin", "thick")
        _draw_directly(self.partner_curve, self.sel_curve)
        # drawn directly on the steps that set them; a step that leaves them alone (a
        # position: the crosshair and markers move over them) keeps their pixels and blits
        # the strips it repaints, instead of stroking every segment again (Panel.kept_lines)
        self.kept_lines = (self.partner_curve, self.sel_curve)
        # integer samples: one item per function (fixed colour; the selected one on top), so
        # that a step from a sine to a cosine column recolours nothing
        self.samples = {
            fn: styled.markers(b, self.curve_plot, fn, "small", rim=False) for fn in ("sin", "cos")
        }
        self.curve_pos_line = self._crosshair(self.curve_plot, 90, "Drag to choose the position p")
        self.curve_markers = styled.markers(b, self.curve_plot, "ink", "huge")
        self.curve_label = LiveText("dimension_readout", self, b)

        # ---- wavelengths -------------------------------------------------------------------
        self.wl_plot = styled.plot(
            b, self, "wavelength_plot", "Wavelengths λ<sub>i</sub> = 2π/ω<sub>i</sub>",
            "pair i", "λ<sub>i</sub> (positions)", grid=False,
        )  # fmt: skip
        self.wl_plot.setLogMode(x=False, y=True)
        # The room for the λ labels only grows: a range of two decades labels 20, 50, … (wider
        # than 10², 10³, …), and shrinking back when it widens again re-laid the plot out
        # (its title, axes and view resized, everything painted twice) in a dim or base drag.
        self.wl_plot.getAxis("left").setStyle(autoReduceTextSpace=False)
        self.wl_plot.getAxis("bottom").set_ticks(whole=True)
        self.decade_lines = ViewGuides(
            b, self.wl_plot.getViewBox(), tuple(float(k) for k in range(9)), vertical=False
        )
        self.wl_plot.getViewBox().disableAutoRange()
        # bare cached curves of log10 λ (the view's coordinates on the log axis) and dots: a
        # PlotDataItem log-transforms its data, keeps datasets and rebuilds a scatter per set
        self.wl_full = self._wl_curve("accent")
        self.wl_never = self._wl_curve("third")
        self.wl_full_dots = styled.markers(b, self.wl_plot, "accent", "dot")
        self.wl_never_dots = styled.markers(b, self.wl_plot, "third", "dot")
        # a ring at (i, log10 λ_i): a bare marker item, not a PlotDataItem whose setData
        # rebuilds its scatter and log-transforms for one point
        self.wl_selected = Dots()
        self.wl_plot.addItem(self.wl_selected)
        b.add(self._style_wl_selected)
        self.span_line = pg.InfiniteLine(
            angle=0, movable=False, label="",
            labelOpts={"position": 0.02, "anchors": [(0, 1), (0, 1)]},
        )  # fmt: skip
        self.wl_plot.addItem(self.span_line)
        b.add(self._style_span_line)
        self.turns_label = LiveText("turns_readout", self, b)

        # ---- views -------------------------------------------------------------------------
        self.view("extent", self.heat_plot, ("positions", "shown"), self._refresh_extent)
        self.view("image", self.image, IMAGE_INPUTS, self._refresh_image)
        self.view("position_lines", self.pos_line, ("positions", "position"),
                  self._refresh_position_lines)  # fmt: skip
        self.view("dimension_lines", self.dim_line, ("shown", "dimension"),
                  self._refresh_dimension_lines)  # fmt: skip
        self.view("hover", self.hover_label, HOVER_INPUTS, self._refresh_hover)
        self.view("vector", self.vector_plot, ("vector", "layout", "dim"), self._refresh_vector)
        self.view("vector_marker", self.vec_marker, ("cell", "dimension"),
                  self._refresh_vector_marker)  # fmt: skip
        self.view("curves", self.curve_plot, CURVE_INPUTS, self._refresh_curves)
        self.view("curve_markers", self.curve_markers, ("cell", "position"),
                  self._refresh_curve_markers)  # fmt: skip
        self.view("curve_label", self.curve_label,
                  ("column", "turns", "positions", "dimension", "curve_range"),
                  self._refresh_curve_label)  # fmt: skip
        self.view("wavelengths", self.wl_plot, ("spectrum",), self._refresh_wavelengths)
        self.view("wavelength_marker", self.wl_selected, ("column",),
                  self._refresh_wavelength_marker)  # fmt: skip
        self.view("turns_label", self.turns_label, ("spectrum", "positions"),
                  self._refresh_turns_label)  # fmt: skip
        self.view("formula", self.formula_label, ("dim", "base", "layout", "positions"),
                  self._refresh_formula)  # fmt: skip
        self.view("readouts", self.readout_label,
                  ("position", "dimension", "column", "cell", "vector", "spectrum"),
                  self._refresh_readouts)  # fmt: skip

        # ---- drags, mouse, view-range events -----------------------------------------------
        def position_shown() -> float:
            return float(self.state.as_int("position"))

        def dimension_shown() -> float:
            return float(self.state.as_int("dimension"))

        self.bind_drag(self.pos_line, self._select_position, position_shown)
        self.bind_drag(self.curve_pos_line, self._select_position, position_shown)
        self.bind_drag(self.dim_line, self._select_dimension, dimension_shown)
        self.bind_drag(self.vec_dim_line, self._select_dimension, dimension_shown)
        self.heat_vb.sigRangeChanged.connect(self._heat_range_changed)
        self.heat_vb.sigResized.connect(self._heat_range_changed)
        self.heat_vb.sigResized.connect(self._align_curve_plot)
        self.curve_vb.sigResized.connect(self._align_curve_plot)
        self.curve_vb.sigXRangeChanged.connect(self._curve_range_changed)
        self.curve_vb.sigResized.connect(self._curve_range_changed)
        scene = self.heat_plot.scene()
        scene.sigMouseMoved.connect(self._mouse_moved)
        scene.sigMouseClicked.connect(self._mouse_clicked)
        b.add(self._style_axes)
        # Titles, axis labels and the span label are text items of their own (the axes' device
        # caches do not hold their labels): cached, a repaint beneath them blits their pixels
        # instead of laying the rich text out and drawing it again.
        for plot in (self.heat_plot, self.vector_plot, self.curve_plot, self.wl_plot):
            for item in plot.scene().items():
                if isinstance(item, QGraphicsTextItem):
                    item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

        self.place(
            [table_box, sel_box, preset_box, self.readout_label],
            [
                Cell(self.heat_plot, 0, 0), Cell(self.vector_plot, 0, 1),
                Cell(self.hover_label, 1, 0, 1, 2),
                Cell(self.curve_plot, 2, 0), Cell(self.wl_plot, 2, 1),
                Cell(self.curve_label, 3, 0), Cell(self.turns_label, 3, 1),
                Cell(self.formula_label, 4, 0, 1, 2),
            ],
            row_stretch={0: 6, 2: 4}, col_stretch={0: 5, 1: 2},
        )  # fmt: skip

    # -- building helpers ---------------------------------------------------------------------
    def _crosshair(self, plot: pg.PlotWidget, angle: int, tip: str) -> pg.InfiniteLine:
        line = styled.vline(self.book, plot, "ink", movable=True, tooltip=tip, angle=angle)
        line.setZValue(20)
        # not cached: a new range (every positions, dim or shown_dims step) would draw the
        # line again into a pixmap the width of the view and blend it; drawn directly it is
        # one dashed line, and a moved line repaints only its old and new strips anyway
        return line

    def _wl_curve(self, role: str) -> StraightCurve:
        item = StraightCurve()
        self.wl_plot.addItem(item)
        self.book.add(lambda st: item.setPen(st.pen(role, "bold")))
        _draw_directly(item)
        return item

    def _style_wl_selected(self, st: Style) -> None:
        self.wl_selected.set_style(st.marker("huge"), st.pen("ink", "thick"), QBrush())

    def _style_span_line(self, st: Style) -> None:
        self.span_line.setPen(st.pen("ink", "line", "dash"))
        self.span_line.label.setColor(st.qcolor("ink"))
        self.span_line.label.setFont(st.font("legend"))

    def _style_axes(self, st: Style) -> None:
        width = round(AXIS_WIDTH * st.scale)
        self.heat_plot.getAxis("left").setWidth(width)
        self.curve_plot.getAxis("left").setWidth(width)
        # the vector plot's dimension axis as wide as the heatmap's: a steady width (ticks
        # growing from "8" to "120" would re-lay the plot out and paint it twice), and the
        # same drawing as the heatmap's axis beside it (shared: AlignedAxes)
        self.vector_plot.getAxis("left").setWidth(width)

    def _button(self, parent: QWidget, name: str, text: str, tip: str) -> QPushButton:
        button = QPushButton(text, parent)
        button.setObjectName(name)
        button.setAccessibleName(text.replace("&", ""))
        button.setToolTip(tip)
        button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        return button

    def _align_curve_plot(self, *_: object) -> None:
        """Make the curve plot's view end where the heatmap's does (left of the colour bar).

        The two share the position axis (``setXLink`` lines them up pixel by pixel), so with equal
        widths every curve sample sits exactly under its heatmap column.
        """
        heat, curve = self.heat_vb.screenGeometry(), self.curve_vb.screenGeometry()
        if heat is None or curve is None or heat.width() <= 0 or curve.width() <= 0:
            return
        diff = curve.right() - heat.right()
        axis = self.curve_plot.getAxis("right")
        if abs(diff) >= 1:
            axis.setWidth(min(max(0, round(axis.width() + diff)), 200))

    # -- actions ------------------------------------------------------------------------------
    def apply_preset(self, name: str) -> None:
        """Set one of :data:`~posenc_gui.state.heatmap.PRESETS` and show it whole."""
        self.state.update(PRESETS[name])
        self.reset_view()

    def reset_view(self) -> None:
        """Show every position and every shown dimension."""
        self._apply_extent(self.state.as_int("positions"), shown_count(self.state.values()))

    def _apply_extent(self, positions: int, shown: int) -> None:
        vb = self.heat_vb
        x, y = (-0.5, positions - 0.5), (-0.5, shown - 0.5)
        (x0, x1), (y0, y1) = vb.viewRange()
        # only the axes whose range really moves: a ``dim`` step leaves the positions (the
        # heatmap's x, the linked curve plot) alone, a ``positions`` step the dimensions
        new_x = x if (x0, x1) != x else None
        new_y = y if (y0, y1) != y else None
        limits_moved = (positions, shown) != self._limits
        if limits_moved:
            self._limits = (positions, shown)
            _store_limits(
                vb, (-0.5, positions - 0.5), (-0.5, shown - 0.5),
                min(4.0, float(positions)), min(2.0, float(shown)),
            )  # fmt: skip
        if new_x is not None or new_y is not None:  # applies the new limits too
            vb.setRange(xRange=new_x, yRange=new_y, padding=0.0)
        elif limits_moved:
            vb.updateViewRange()
        if tuple(self.curve_vb.viewRange()[0]) != x:
            self.curve_vb.setXRange(*x, padding=0.0)
        self._extent = (positions, shown)
        # the new transforms now, not in the paint (which would then paint twice)
        boxes = [vb] if new_x is not None or new_y is not None else []
        if new_x is not None:
            boxes.append(self.curve_vb)
        if new_y is not None:
            boxes.append(self.vector_plot.getViewBox())
        _settle(*boxes)

    def view_state(self) -> dict[str, Any]:
        """The heatmap's zoom/pan: ``{"x_range": [x0, x1], "y_range": [y0, y1]}`` (floats)."""
        self.refresh_now()
        (x0, x1), (y0, y1) = self.heat_vb.viewRange()
        return {"x_range": [float(x0), float(x1)], "y_range": [float(y0), float(y1)]}

    def restore_view_state(self, state: Mapping[str, Any]) -> None:
        """Zoom/pan the heatmap to a :meth:`view_state` (invalid or unknown entries ignored)."""
        self.refresh_now()  # parameters first: a new extent would reset the zoom afterwards
        ranges: dict[str, tuple[float, float]] = {}
        for key in ("x_range", "y_range"):
            got = state.get(key)
            if not isinstance(got, list | tuple) or len(got) != 2:
                continue
            try:
                lo, hi = float(got[0]), float(got[1])
            except (TypeError, ValueError):
                continue
            if math.isfinite(lo) and math.isfinite(hi) and hi > lo:
                ranges[key] = (lo, hi)
        if ranges:
            self.heat_vb.setRange(
                xRange=ranges.get("x_range"), yRange=ranges.get("y_range"), padding=0.0
            )

    # -- plot interaction -> state ------------------------------------------------------------
    def _select_position(self, x: float) -> None:
        hi = self.state.as_int("positions") - 1
        self.state.set("position", round(min(max(x, 0.0), float(hi))))

    def _select_dimension(self, y: float) -> None:
        hi = shown_count(self.state.values()) - 1
        self.state.set("dimension", round(min(max(y, 0.0), float(hi))))

    def _heat_range_changed(self, *_: object) -> None:
        if not self._applying_extent:  # the extent view's own change: image refreshes anyway
            self.invalidate("heat_range")

    def _curve_range_changed(self, *_: object) -> None:
        if not self._applying_extent:
            self.invalidate("curve_range")

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        """The (position, dimension) under view point (x, y) of the image.

        The position is the one nearest ``x`` (exact even where a pixel averages several
        positions); the dimension is the column the pixel row shows.
        """
        x0, y0, w, h = self._image_rect
        n, m = len(self.image_first), len(self.image_dims)
        if n == 0 or m == 0 or w <= 0 or h <= 0:
            return None
        r = math.floor((x - x0) / w * n)
        c = math.floor((y - y0) / h * m)
        if not (0 <= r < n and 0 <= c < m):
            return None
        p = min(max(round(x), int(self.image_first[r])), int(self.image_last[r]))
        return p, int(self.image_dims[c])

    def _scene_cell(self, pos: QPointF) -> tuple[int, int] | None:
        if not self.heat_vb.sceneBoundingRect().contains(pos):
            return None
        p = self.heat_vb.mapSceneToView(pos)
        return self.cell_at(float(p.x()), float(p.y()))

    def _mouse_moved(self, pos: QPointF) -> None:
        cell = self._scene_cell(pos)
        if cell != self._hover:
            self._hover = cell
            self.invalidate("hover")

    def _mouse_clicked(self, ev: Any) -> None:
        if ev.button() != Qt.MouseButton.LeftButton or ev.double():
            return
        cell = self._scene_cell(ev.scenePos())
        if cell is not None:
            self.state.update({"position": cell[0], "dimension": cell[1]})

    # -- heatmap ------------------------------------------------------------------------------
    def _refresh_extent(self, ctx: Context) -> None:
        positions, shown = ctx.values.as_int("positions"), int(ctx["shown"]["shown"])
        if self._extent != (positions, shown):
            self._applying_extent = True
            try:
                self._apply_extent(positions, shown)
            finally:
                self._applying_extent = False
        ctx.record("extent", [positions, shown], "positions × shown dimension columns")

    def _refresh_image(self, ctx: Context) -> None:
        v = ctx.values
        start_time = time.perf_counter()
        positions, dim, base = v.as_int("positions"), v.as_int("dim"), v.as_float("base")
        layout = _layout(v.as_str("layout"))
        shown = int(ctx["shown"]["shown"])
        (x0, x1), (y0, y1) = self.heat_vb.viewRange()
        first, last, xs, xw = position_bins(x0, x1, positions, _pixels(self.heat_vb, True))
        cols, ys, yh = axis_samples(y0, y1, shown, _pixels(self.heat_vb, False))
        aggregated = bool((last > first).any())
        # one row per shown column (the image's rows); a pixel covering one position is
        # that entry itself (the mean of one term)
        table_t, self.image_index = self._image_rows(first, last, cols, dim, base, layout)
        self.image_first, self.image_last, self.image_dims = first, last, cols
        self.image_positions = (first + last) // 2
        self.image_table = table_t.numpy().T  # (pixel columns, shown columns), a view
        self.image_mean_over = xw / len(first)
        self._push_image()
        # the rect is a scale per image pixel: set it again whenever the shape changed too
        rect = (xs, ys, xw, yh)
        if (rect, self.image_table.shape) != self._image_placed:
            self.image.setRect(*rect)
            self._image_rect = rect
            self._image_placed = (rect, self.image_table.shape)
        # a long title would force the plot's minimum width: the note is in the hover label
        title = "PE[p, j] averaged over positions" if aggregated else "Sinusoidal encoding PE[p, j]"
        styled.set_title(self.book, self.heat_plot, title)
        ctx.record("values", self.image_table, "PE[p, j], mean over each pixel's positions")
        ctx.record("first", first, "first position of each pixel column")
        ctx.record("last", last, "last position of each pixel column")
        ctx.record("dims", cols, "dimension column of each pixel row")
        ctx.record("mean_over", self.image_mean_over, "positions per pixel column (mean)")
        self.last_view_seconds = time.perf_counter() - start_time

    def _image_rows(
        self,
        first: np.ndarray,
        last: np.ndarray,
        cols: np.ndarray,
        dim: int,
        base: float,
        layout: SinusoidalLayout,
    ) -> tuple[torch.Tensor, np.ndarray]:
        """The image's rows: the pixel means of columns ``cols`` (``(C, K)`` float64) and their
        colour-map indices (uint8).

        The last rows computed are kept: when only the set of shown columns changed (a
        ``shown_dims`` step, a vertical pan or zoom within the columns computed) and the
        columns asked for are among them, they are taken from those (a slice when
        consecutive), not computed again (:attr:`image_rows_computed` counts computations).
        Likewise when each pixel column shows one position (no means) and only the run of
        positions changed (a ``positions`` step below the pixel count): fewer positions are
        a slice of the kept entries, more positions from the same start compute only the
        new ones (:attr:`image_positions_added` counts them).
        """
        kept = self._kept_rows
        if kept is not None and kept.key != (dim, base, layout):
            kept = None  # other frequencies: nothing to take from
        if (
            kept is not None
            and np.array_equal(kept.first, first)
            and np.array_equal(kept.last, last)
            and len(cols)
        ):
            have = kept.cols
            at = np.searchsorted(have, cols)
            if int(at[-1]) < len(have) and np.array_equal(have[at], cols):
                lo, n = int(at[0]), len(cols)
                if int(at[-1]) - lo == n - 1:  # consecutive rows: views of the kept ones
                    return kept.means[lo : lo + n], kept.colours[lo : lo + n]
                return kept.means[torch.from_numpy(at)], kept.colours[at]
        if (
            kept is not None
            and _exact_run(first, last)
            and _exact_run(kept.first, kept.last)
            and np.array_equal(kept.cols, cols)
        ):
            k0, k1, n0, n1 = int(kept.first[0]), int(kept.first[-1]), int(first[0]), int(first[-1])
            if k0 <= n0 and n1 <= k1:  # fewer positions: columns of the kept entries
                return kept.means[:, n0 - k0 : n1 - k0 + 1], kept.colours[:, n0 - k0 : n1 - k0 + 1]
            if n0 == k0 and n1 > k1:  # more positions: only the new ones computed
                new = np.arange(k1 + 1, n1 + 1, dtype=np.int64)
                more = sinusoidal_column_means(
                    torch.from_numpy(new), torch.from_numpy(new), torch.from_numpy(cols),
                    dim, base, layout=layout, columns_first=True,
                )  # fmt: skip
                table_t = torch.cat((kept.means, more), dim=1)
                index = np.concatenate((kept.colours, colour_index(more)), axis=1)
                self.image_positions_added += len(new)
                self._kept_rows = _Rows((dim, base, layout), first, last, cols, table_t, index)
                return table_t, index
        table_t = sinusoidal_column_means(
            torch.from_numpy(first), torch.from_numpy(last), torch.from_numpy(cols),
            dim, base, layout=layout, columns_first=True,
        )  # fmt: skip
        index = colour_index(table_t)
        self.image_rows_computed += 1
        self._kept_rows = _Rows((dim, base, layout), first, last, cols, table_t, index)
        return table_t, index

    def _style_image(self, st: Style) -> None:
        lut = st.colormap("diverging").getLookupTable(nPts=256, alpha=True)
        self._lut32 = np.ascontiguousarray(lut, dtype=np.uint8).view(np.uint32).reshape(256)
        if self.image_index.size:
            self._push_image()

    def _push_image(self) -> None:
        """Colour :attr:`image_index` with the colour map and hand the RGBA pixels over."""
        rows, cols = self.image_index.shape
        rgba = np.take(self._lut32, self.image_index).view(np.uint8).reshape(rows, cols, 4)
        self.image.setImage(rgba, autoLevels=False)

    def _set_bounds(self, line: pg.InfiniteLine, key: str, hi: float) -> None:
        """Bound a draggable line; setBounds clamps (and announces) the old value: not echoed."""
        if self._bounds.get(key) == (0.0, hi):
            return
        self._bounds[key] = (0.0, hi)
        line.blockSignals(True)
        try:
            line.setBounds((0.0, hi))
        finally:
            line.blockSignals(False)

    def _refresh_position_lines(self, ctx: Context) -> None:
        p, hi = ctx.values.as_int("position"), float(ctx.values.as_int("positions") - 1)
        for key, line in (("pos", self.pos_line), ("curve_pos", self.curve_pos_line)):
            self._set_bounds(line, key, hi)
            styled.move_line(line, float(p))
        ctx.record("position", p, "selected position p")

    def _refresh_dimension_lines(self, ctx: Context) -> None:
        j, hi = ctx.values.as_int("dimension"), float(int(ctx["shown"]["shown"]) - 1)
        for key, line in (("dim", self.dim_line), ("vec_dim", self.vec_dim_line)):
            self._set_bounds(line, key, hi)
            styled.move_line(line, float(j))
        ctx.record("dimension", j, "selected dimension j")

    def _pixel_of(self, p: int) -> int | None:
        """The image's pixel column that covers position ``p`` (None when not in view)."""
        n = len(self.image_first)
        if n == 0 or p < int(self.image_first[0]) or p > int(self.image_last[-1]):
            return None
        return int(np.searchsorted(self.image_first, p, side="right")) - 1

    def _refresh_hover(self, ctx: Context) -> None:
        v, st = ctx.values, ctx.style
        if self._hover is not None:
            p, j = self._hover
            head = "Under the mouse:"
        else:
            p, j = v.as_int("position"), v.as_int("dimension")
            head = "Selected (hover the heatmap for any cell, click to select):"
        cell = HeatmapModel.cell(v, p, j)
        # Always the same lines (a note on the pixels, the cell, the pixel's value): a label
        # that grows re-lays the whole tab out and paints it several times over.
        if self.image_mean_over > 1.0:
            note = (
                "<b>Each pixel column = mean over "
                f"{live(f'~{integer(round(self.image_mean_over))}')} "
                "positions</b> <small>(one sampled position per pixel would alias into moiré "
                "arcs; zoom in to see single positions)</small>"
            )
        else:
            note = (
                "<b>One image column per position</b> <small>(exact entries; with more "
                "positions than pixels, each pixel column shows the mean over its "
                "positions)</small>"
            )
        html = f"{note}<br><small>{head}</small><br>{self.cell_html(cell, v, st)}"
        r = self._pixel_of(p)
        rows = np.nonzero(self.image_dims == j)[0]
        if r is not None and len(rows) and self.image_last[r] > self.image_first[r]:
            a, b = int(self.image_first[r]), int(self.image_last[r])
            mean = float(self.image_table[r, rows[0]])
            html += (
                "<br><small>its pixel column shows the mean over positions "
                f"{live(f'{integer(a)}…{integer(b)}')} "
                f"({live(integer(b - a + 1))} positions): "
                f"<b>{live(signed(mean))}</b></small>"
            )
            ctx.record("pixel_mean", mean, f"mean of PE[{a}…{b}, {j}]")
        else:  # one text slot: a step between these cases edits the words in place
            if r is None:
                note = "(outside the current view)"
            elif not len(rows):
                note = "its column falls between the pixel rows shown: zoom in to see it"
            else:
                note = "its image column shows this entry itself"
            html += f"<br><small>{live(note)}</small>"
        self.hover_label.set_html(html)
        ctx.record("cell", [p, j, float(cell["value"])], "(position, dimension, PE value)")

    def cell_html(self, cell: Mapping[str, Any], values: Mapping[str, Any], st: Style) -> str:
        """The formula of one entry with its numbers substituted (hover / selection text).

        The numbers are marked with :func:`~posenc_gui.widgets.text.live` (for a
        :class:`~posenc_gui.widgets.text.LiveText`, which edits them in place).
        """
        dim, layout = int(values["dim"]), str(values["layout"])
        b = live(_base_text(float(values["base"])))
        p, j, fn = int(cell["position"]), int(cell["dimension"]), str(cell["function"])
        i = live(int(cell["pair"]))
        # ``2i/d`` as one value: a value next to the leaning "/" is not drawn over (see
        # :func:`_span_text`), so a dim step would edit the label instead
        ed = live(f"{int(cell['exponent'])}/{dim}")
        pt, jt = live(integer(p)), live(j)
        if layout == "interleaved":
            plus = "" if fn == "sin" else " + 1"
            where = f"interleaved: column {jt} = 2·{i}{plus} → {fn} of pair i = {i}"
        else:
            half = live(dim // 2)
            where = (
                f"concat: column {jt} {'<' if fn == 'sin' else '≥'} d/2 = {half} → {fn} half, "
                f"pair i = {i}"
            )
        return (
            span(st, fn, f"<b>PE[{pt}, {jt}]</b>")
            + f" = {fn}({pt} · {b}<sup>−{ed}</sup>) = {fn}({pt} · "
            f"{live(sig(float(cell['omega']), 4))}) = {fn}({live(num(float(cell['angle']), 4))})"
            f" = <b>{live(signed(float(cell['value'])))}</b>"
            f"<br><small>{where}; partner column {live(int(cell['partner']))} holds "
            f"{_other(fn)}({pt} · ω<sub>{i}</sub>)</small>"
        )

    # -- vector -------------------------------------------------------------------------------
    def _refresh_vector(self, ctx: Context) -> None:
        v, st = ctx.values, ctx.style
        vec = np.asarray(ctx["vector"]["vector"], dtype=np.float64)
        dim, p = v.as_int("dim"), v.as_int("position")
        idx = np.arange(dim)
        is_sin = idx % 2 == 0 if v.as_str("layout") == "interleaved" else idx < dim // 2
        # Dots, one per column; thin lines only while the columns are few enough to follow
        # (for large d, neighbouring fast columns jump between -1 and 1 and lines become noise).
        kind = "dot" if dim <= 128 else ("small" if dim <= 512 else "tiny")
        lines = dim <= 64
        if self._vec_key != (kind, st):
            self._vec_key = (kind, st)
            rim = st.pen("rim", "hair") if kind != "tiny" else QPen(Qt.PenStyle.NoPen)
            for dots, role in ((self.vec_sin, "sin"), (self.vec_cos, "cos")):
                dots.set_style(st.marker(kind), rim, st.brush(role))
        empty = np.zeros(0)
        for dots, line, mask in (
            (self.vec_sin, self.vec_sin_line, is_sin),
            (self.vec_cos, self.vec_cos_line, ~is_sin),
        ):
            x, y = vec[mask], idx[mask].astype(np.float64)
            dots.setData(x, y)
            if lines:
                line.setData(x, y)
            elif line.xData is not None and len(line.xData):  # emptied once, not every step
                line.setData(empty, empty)
        ctx.record("vector", vec, f"PE[{p}, j]")
        ctx.record("is_sin", is_sin, "column holds a sine")

    def _refresh_vector_marker(self, ctx: Context) -> None:
        value, j = float(ctx["cell"]["value"]), ctx.values.as_int("dimension")
        self.vec_marker.setData([value], [float(j)])
        ctx.record("marker", [value, float(j)], "(PE[p, j], j)")

    # -- curves -------------------------------------------------------------------------------
    def _refresh_curves(self, ctx: Context) -> None:
        v, st, col = ctx.values, ctx.style, ctx["column"]
        positions, dim, base = v.as_int("positions"), v.as_int("dim"), v.as_float("base")
        layout = _layout(v.as_str("layout"))
        j, partner = v.as_int("dimension"), int(col["partner"])
        fn = str(col["function"])
        cx0, cx1 = self.curve_vb.viewRange()[0]
        lo, hi = max(cx0, 0.0), min(cx1, float(positions - 1))
        n = _pixels(self.curve_vb, True)
        self.curve_is_band = False
        empty = np.zeros(0)
        if hi - lo <= n:
            if hi <= lo:  # a single position (or the view is off the table)
                x = np.array([min(max(lo, 0.0), float(positions - 1))])
            else:
                height = float(self.curve_vb.height())
                count = curve_samples(hi - lo, float(col["omega"]), n, height)
                x = np.linspace(lo, hi, count)
            y = sinusoidal_columns(torch.from_numpy(x), [j, partner], dim, base, layout=layout)
            ys = y.numpy()
            sel_x, sel_y, par_x, par_y = x, ys[:, 0], x, ys[:, 1]
            aa, envelope, connect = True, False, "all"
        else:
            envelope, connect = True, "pairs"  # one vertical segment (min → max) per pixel
            edges = torch.linspace(lo, hi, n + 1, dtype=torch.float64)
            centres = (0.5 * (edges[:-1] + edges[1:])).numpy()
            xx = np.repeat(centres, 2)
            bands, is_band = [], []
            for c in (j, partner):
                bot, top = sinusoidal_column_envelope(edges, c, dim, base, layout=layout)
                bands.append(torch.stack((bot, top), dim=1).reshape(-1).numpy())
                is_band.append(bool(((top - bot) > 1.0).double().mean() > 0.5))
            self.curve_is_band = is_band[0]
            # A band of near-vertical segments: antialiasing (and width) there costs several
            # times the paint time and changes nothing visible; a partner band lies entirely
            # under the selected one, so it is not drawn at all.
            aa = not self.curve_is_band
            sel_x, sel_y = xx, bands[0]
            par_x, par_y = (empty, empty) if all(is_band) else (xx, bands[1])
        thin = self.curve_is_band
        pens = (fn, thin, st)
        if pens != self._curve_pens:
            self._curve_pens = pens
            self.sel_curve.setPen(st.pen(fn, "hair" if thin else "thick"))
            self.partner_curve.setPen(st.pen(_other(fn), "hair" if thin else "line"))
            self.samples[fn].setZValue(1)
            self.samples[_other(fn)].setZValue(0)
        self.sel_curve.setData(sel_x, sel_y, antialias=aa, connect=connect)
        self.partner_curve.setData(par_x, par_y, antialias=aa, connect=connect)
        first, last = math.ceil(lo), math.floor(hi)
        if 0 <= last - first + 1 <= CURVE_DOTS_MAX:
            ints = np.arange(first, last + 1, dtype=np.float64)
            y = sinusoidal_columns(torch.from_numpy(ints), [j, partner], dim, base, layout=layout)
            samples = y.numpy()
        else:
            ints, samples = empty, np.zeros((0, 2))
        self.samples[fn].setData(ints, samples[:, 0])
        self.samples[_other(fn)].setData(ints, samples[:, 1])
        ctx.record("x", sel_x, "position p", "positions")
        ctx.record("selected", sel_y, f"PE[p, {j}] (min, max pairs when drawn as a band)")
        ctx.record("partner_x", par_x, "position p", "positions")
        ctx.record("partner", par_y, f"PE[p, {partner}]")
        ctx.record("envelope", envelope, "drawn as (min, max) pairs per pixel column")
        ctx.record("is_band", self.curve_is_band, "mostly a full-height band")
        ctx.record("sample_positions", ints, "integer positions", "positions")
        ctx.record("selected_samples", samples[:, 0], f"PE[p, {j}] at integer p")
        ctx.record("partner_samples", samples[:, 1], f"PE[p, {partner}] at integer p")

    def _refresh_curve_markers(self, ctx: Context) -> None:
        c, p = ctx["cell"], float(ctx.values.as_int("position"))
        values = [float(c["value"]), float(c["partner_value"])]
        self.curve_markers.setData([p, p], values)
        ctx.record("markers", values, "PE[p, j] and PE[p, partner]")

    def _refresh_curve_label(self, ctx: Context) -> None:
        v, st, col = ctx.values, ctx.style, ctx["column"]
        positions, j = v.as_int("positions"), v.as_int("dimension")
        fn, other = str(col["function"]), str(col["partner_function"])
        pair, partner = int(col["pair"]), int(col["partner"])
        turns = float(ctx["turns"]["turns"])
        text = (
            span(st, fn, f"<b>PE[p, {live(j)}] = {fn}(p·ω<sub>{live(pair)}</sub>)</b>")
            + " and its partner "
            + span(
                st, other, f"<b>PE[p, {live(partner)}] = {other}(p·ω<sub>{live(pair)}</sub>)</b>"
            )
            + f", ω<sub>{live(pair)}</sub> = {live(sig(float(col['omega']), 5))}, λ = "
            f"{live(sig(float(col['selected_wavelength'])))}: {live(num(turns, 2))} turns over "
            f"positions {_span_text(positions)}."
        )
        if self.curve_is_band:  # a second line either way: a label that grows re-lays out
            text += (
                "<br><i>Oscillates faster than the pixels here: each pixel column shows the "
                "band from the curve's minimum to its maximum over the positions it covers; "
                "zoom in.</i>"
            )
        else:
            text += (
                "<br><i>A smooth curve through the exact values here; where a column oscillates "
                "faster than the pixels, each pixel column shows its minimum–maximum band.</i>"
            )
        self.curve_label.set_html(text)
        ctx.record("turns", turns, "turns over positions 0…L−1")

    # -- wavelengths --------------------------------------------------------------------------
    def _refresh_wavelengths(self, ctx: Context) -> None:
        st, spec = ctx.style, ctx["spectrum"]
        lam = np.asarray(spec["wavelength"], dtype=np.float64)
        pairs = int(spec["pairs"])
        i = np.arange(pairs, dtype=np.float64)
        span_ = int(spec["span"])
        k = int(spec["full_turn_pairs"])  # λ is increasing: pairs 0…k-1 complete a turn
        dots = pairs <= SYMBOLS_MAX
        if (
            self._wl_data is None
            or k != self._wl_data[0]
            or dots != self._wl_data[2]
            or not np.array_equal(lam, self._wl_data[1])
        ):  # a new span alone (positions) rarely moves a pair across it
            self._wl_data = (k, lam, dots)
            log_lam = np.log10(lam)
            self.wl_full.setData(i[:k], log_lam[:k])
            self.wl_never.setData(i[k:], log_lam[k:])
            empty = np.zeros(0)
            self.wl_full_dots.setData(*((i[:k], log_lam[:k]) if dots else (empty, empty)))
            self.wl_never_dots.setData(*((i[k:], log_lam[k:]) if dots else (empty, empty)))
        if self._wl_key != st:
            self._wl_key = st
            for item, role in ((self.wl_full_dots, "accent"), (self.wl_never_dots, "third")):
                item.set_style(st.marker("dot"), st.pen("rim", "hair"), st.brush(role))
        # λ's axis is fixed from 2π to the longest wavelength any base of the slider gives
        # (2π·base_max): a base step shows the line tilting, where an axis fitted to the data
        # kept the line's shape and relabelled the axis instead (and drew it again at every
        # half decade). The right end is snapped to a round number of pairs: the axes are
        # drawn again (and the view settled) only when it moves, not at every dim.
        x0, x1 = styled.positions_range(pairs, 0.02)
        ranges = (math.log10(2 * math.pi) - 0.25, WAVELENGTH_TOP, x1)
        old = self._wl_ranges
        if ranges != old:  # re-setting unchanged ranges re-lays out the axes
            self._wl_ranges = ranges
            # one range update for the axes that move: y is fixed, so after the first call
            # only x (x0 follows x1, a dim step); a call per axis updated the view, its axes
            # and the view's listeners twice
            new_y = None if old is not None and old[:2] == ranges[:2] else ranges[:2]
            new_x = None if old is not None and old[2] == x1 else (min(x0, -0.5), x1)
            self.wl_plot.getViewBox().setRange(xRange=new_x, yRange=new_y, padding=0)
            _settle(self.wl_plot.getViewBox())
        if span_ != self._wl_span:  # a dim or base step leaves the line and its label alone
            self._wl_span = span_
            self.span_line.setVisible(span_ >= 1)
            if span_ >= 1:
                # the format first, without its own redraw: the move below redraws the label
                # once (setFormat after it laid the old text out again first)
                text, at = f"last position L−1 = {integer(span_)}", math.log10(span_)
                if self.span_line.value() == at:  # no move (shown again): no redraw either
                    self.span_line.label.setFormat(text)
                else:
                    self.span_line.label.format = text
                    self.span_line.setValue(at)
        ctx.record("pair", i, "pair i")
        ctx.record("wavelength", lam, "λ_i = 2π/ω_i", "positions")
        ctx.record("span", span_, "last position L−1", "positions")

    def _refresh_wavelength_marker(self, ctx: Context) -> None:
        col = ctx["column"]
        pair, lam = float(col["pair"]), float(col["selected_wavelength"])
        self.wl_selected.setData([pair], [math.log10(lam)])
        ctx.record("marker", [pair, lam], "(i, λ_i) of the selected column", "positions")

    def _refresh_turns_label(self, ctx: Context) -> None:
        st, spec = ctx.style, ctx["spectrum"]
        positions = ctx.values.as_int("positions")
        k, n, never = (int(spec[key]) for key in ("full_turn_pairs", "pairs", "never_turn_pairs"))
        self.turns_label.set_html(
            span(st, "accent", f"<b>{live(k)} of {live(n)} pairs</b>")
            + f" complete ≥ 1 full turn within positions {_span_text(positions)} "
            "(λ<sub>i</sub> ≤ L−1); " + span(st, "third", f"<b>{live(never)}</b>") + " never do."
        )
        ctx.record("full_turn_pairs", k, "pairs with ≥ 1 full turn")
        ctx.record("never_turn_pairs", never, "pairs that never turn fully")

    # -- labels -------------------------------------------------------------------------------
    def _refresh_formula(self, ctx: Context) -> None:
        v = ctx.values
        dim, layout, positions = v.as_int("dim"), v.as_str("layout"), v.as_int("positions")
        b = _base_text(v.as_float("base"))
        half = dim // 2
        if layout == "interleaved":
            this = (
                "<b>interleaved</b> (paper): PE[p, 2i] = sin(p·ω<sub>i</sub>), "
                "PE[p, 2i+1] = cos(p·ω<sub>i</sub>)"
            )
        else:
            this = (
                f"<b>concat</b>: PE[p, i] = sin(p·ω<sub>i</sub>), PE[p, {live(half)}+i] = "
                f"cos(p·ω<sub>i</sub>) (same values as the paper's PE[p, 2i], PE[p, 2i+1], "
                "columns reordered)"
            )
        self.formula_label.set_html(
            f"Layout {this}; &nbsp; ω<sub>i</sub> = base<sup>−2i/d</sup> = "
            f"{live(b)}<sup>−{live(f'2i/{dim}')}</sup>, i = {live(f'0…{half - 1}')}; &nbsp; "
            f"positions p = {_span_text(positions)}. Colour scale fixed to [−1, 1]."
        )
        ctx.record("base", v.as_float("base"), "base")

    def _refresh_readouts(self, ctx: Context) -> None:
        v = ctx.values
        col, c, vec, spec = ctx["column"], ctx["cell"], ctx["vector"], ctx["spectrum"]
        p, j = v.as_int("position"), v.as_int("dimension")
        fn, other = str(col["function"]), str(col["partner_function"])
        pair, partner = int(col["pair"]), int(col["partner"])
        # painted: a step repaints the rows whose text changed (see ReadoutTable)
        self.readout_label.set_rows(
            [
                ("Position p", integer(p)),
                ("Dimension j", f"{j} = {fn} of pair i = {pair}"),
                ("Partner column", f"{partner} ({other})"),
                ("ω<sub>i</sub> = base<sup>−2i/d</sup>", sig(float(col["omega"]), 5)),
                ("Frequency ω<sub>i</sub>/2π",
                 f"{sig(float(col['frequency']))} turns/pos"),
                ("Wavelength λ<sub>i</sub>",
                 f"{sig(float(col['selected_wavelength']), 5)} pos"),
                ("Angle p·ω<sub>i</sub>", f"{num(float(c['angle']), 4)} rad"),
                (f"PE[p, {j}]", signed(float(c["value"]))),
                (f"PE[p, {partner}]", signed(float(c["partner_value"]))),
                ("|PE[p]|² (= d/2)", num(float(vec["vector_norm_sq"]), 4)),
                (
                    "Pairs with ≥ 1 full turn",
                    f"{spec['full_turn_pairs']} of {spec['pairs']}",
                ),
            ]
        )  # fmt: skip
        ctx.record(
            "numbers",
            [float(col["omega"]), float(c["angle"]), float(c["value"]), float(c["partner_value"]),
             float(vec["vector_norm_sq"])],
            "ω_i, angle p·ω_i, PE[p, j], PE[p, partner], |PE[p]|²",
        )  # fmt: skip


PANEL = HeatmapPanel
