"""PE heatmap tab: the table ``PE[p, j]`` (x = position, y = dimension j) with linked slices.

* Top left: the heatmap with a fixed diverging colour scale [-1, 1], crosshair lines at the
  selected position and dimension (draggable; a click selects a cell), the hovered cell's
  formula with numbers underneath.
* Top right, sharing the heatmap's dimension axis: the encoding vector ``PE[p, :]``.
* Bottom left, sharing the heatmap's position axis: the selected column and its sin/cos
  partner over positions, with markers at ``p``.
* Bottom right: every pair's wavelength ``λ_i = 2π/ω_i`` on a log axis against the span of the
  sequence, and how many pairs complete a full turn.

Resolution: the heatmap and the curve are computed only for the positions/dimensions that land
on pixels of the current view (at most :data:`MAX_SAMPLES` per axis) and recomputed when the view
range or size changes (coalesced with a zero-delay timer). A view of 1,000,000 × 4096 never builds
the full table.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
import torch
from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from posenc_gui.panels.base import Panel
from posenc_gui.state.heatmap import PRESETS, HeatmapModel, column_role
from posenc_gui.widgets import plots
from posenc_gui.widgets.fmt import num, sig, signed
from posenc_gui.widgets.plots import (
    BLUE,
    GREEN,
    GREY,
    ORANGE,
    VERMILLION,
    FormulaLabel,
    make_plot,
)

#: Hard cap on computed samples per image axis (a screen has ~2000 pixels a side).
MAX_SAMPLES = 2000
#: Below this many pixels we still compute this many samples (widget not laid out yet).
MIN_SAMPLES = 64
#: Integer sample dots on the position curves when at most this many positions are visible.
CURVE_DOTS_MAX = 160
#: Symbols on the vector / wavelength plots up to this many points.
SYMBOLS_MAX = 160
AXIS_WIDTH = 78


def fn_color(fn: str) -> str:
    """sin columns blue, cos columns vermillion (as in the sine tab)."""
    return BLUE if fn == "sin" else VERMILLION


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


def _pixels(vb: pg.ViewBox, horizontal: bool) -> int:
    size = vb.width() if horizontal else vb.height()
    return int(min(max(round(float(size)), MIN_SAMPLES), MAX_SAMPLES))


def _set_line(line: pg.InfiniteLine, value: float) -> None:
    """Move a draggable line without echoing the move back into the state."""
    if abs(float(line.value()) - value) > 1e-12:
        line.blockSignals(True)
        try:
            line.setValue(value)
        finally:
            line.blockSignals(False)


def _int_text(n: int) -> str:
    """Integers with thin-space thousands separators (1 000 000) for legibility."""
    return f"{n:,}".replace(",", "\u2009")


def _base_text(base: float) -> str:
    return _int_text(int(base)) if float(base).is_integer() else sig(base, 5)


def _position_ticks(values: list[float], scale: float, spacing: float) -> list[str]:
    """Tick labels for position axes: whole numbers in full (1 000 000, not 1e+06)."""
    if spacing * scale >= 1:
        return [_int_text(round(v * scale)) for v in values]
    return [f"{v * scale:g}".replace("-", "−") for v in values]


def _integer_ticks(axis: pg.AxisItem) -> None:
    """Only whole-number ticks on an axis of positions or dimension indices."""
    original = axis.tickValues

    def tick_values(lo: float, hi: float, size: float) -> list[tuple[float, list[float]]]:
        lo, hi = min(lo, hi), max(lo, hi)  # inverted axes pass (top, bottom)
        levels = [
            (spacing, [v for v in values if abs(v - round(v)) < 1e-6])
            for spacing, values in original(lo, hi, size)
            if spacing >= 1
        ]
        levels = [(spacing, values) for spacing, values in levels if values]
        if not levels:
            levels = [(1.0, [float(v) for v in range(math.ceil(lo), math.floor(hi) + 1)])]
        return levels

    axis.tickValues = tick_values


def _guides(plot: pg.PlotWidget, angle: int, at: tuple[float, ...]) -> list[pg.InfiniteLine]:
    """A few fixed reference lines instead of pyqtgraph's grid.

    The grid (major and minor lines, translucent, antialiased, across the whole view) was ~70% of
    this tab's paint time; a handful of lines at meaningful values costs next to nothing.
    """
    lines = []
    for value in at:
        line = pg.InfiniteLine(
            pos=value, angle=angle, movable=False,
            pen=plots.pen(GREY if value == 0 else "#c8c8c8", 1.0),
        )  # fmt: skip
        line.setZValue(-10)
        plot.addItem(line)
        lines.append(line)
    return lines


def _crosshair(plot: pg.PlotWidget, angle: int, tip: str) -> pg.InfiniteLine:
    line = pg.InfiniteLine(
        angle=angle, movable=True, pen=plots.pen("#000000", 2.0, Qt.PenStyle.DashLine),
        hoverPen=plots.pen("#000000", 4.0),
    )  # fmt: skip
    line.setToolTip(tip)
    line.setZValue(20)
    plot.addItem(line)
    return line


class HeatmapPanel(Panel):
    """The ``heatmap`` tab."""

    model = HeatmapModel

    def build(self) -> None:
        self._extent: tuple[int, int] | None = None
        self._force_reset = False
        self._generation = 0
        self._view_key: tuple[Any, ...] | None = None
        self._hover: tuple[int, int] | None = None
        #: Positions (rows of PE) and dimension columns of the computed image, and the values
        #: ``image_table[r, c] = PE[image_positions[r], image_dims[c]]`` (float64).
        self.image_positions = np.zeros(0, dtype=np.int64)
        self.image_dims = np.zeros(0, dtype=np.int64)
        self.image_table = np.zeros((0, 0))
        self._image_rect = (0.0, 0.0, 1.0, 1.0)
        self._curve_text = ""
        #: Whether the position curves are drawn as min–max bands (faster than the pixels).
        self.curve_is_band = False
        #: Seconds spent in the last view recompute (image + curves).
        self.last_view_seconds = 0.0

        # ---- controls ------------------------------------------------------------------
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
        for b in (self.explainer_button, self.notebook_button, self.reset_view_button):
            preset_layout.addWidget(b)
        self.explainer_button.clicked.connect(lambda: self.apply_preset("explainer"))
        self.notebook_button.clicked.connect(lambda: self.apply_preset("notebook"))
        self.reset_view_button.clicked.connect(self.reset_view)
        self.readout_label = FormulaLabel("heatmap_readouts", self)

        side = QVBoxLayout()
        side.addWidget(table_box)
        side.addWidget(sel_box)
        side.addWidget(preset_box)
        side.addWidget(self.readout_label)
        side.addStretch(1)
        side_widget = QWidget(self)
        side_widget.setLayout(side)
        scroll = QScrollArea(self)
        scroll.setWidget(side_widget)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setMinimumWidth(430)
        scroll.setMaximumWidth(500)

        # ---- heatmap -------------------------------------------------------------------
        self.heat_plot = make_plot(
            self, "heatmap_plot", "Sinusoidal encoding PE[p, j]", "position", "dimension j"
        )
        self.heat_plot.showGrid(x=False, y=False)
        self.heat_plot.invertY(True)
        self.heat_plot.hideButtons()
        self.heat_plot.getAxis("left").setWidth(AXIS_WIDTH)
        self.heat_plot.getAxis("bottom").tickStrings = _position_ticks
        for axis in (self.heat_plot.getAxis("bottom"), self.heat_plot.getAxis("left")):
            _integer_ticks(axis)
        self.heat_vb: pg.ViewBox = self.heat_plot.getViewBox()
        self.heat_vb.disableAutoRange()
        self.image, self.colorbar = plots.heatmap(self.heat_plot, label="PE value")
        self.pos_line = _crosshair(self.heat_plot, 90, "Drag to choose the position p")
        self.dim_line = _crosshair(self.heat_plot, 0, "Drag to choose the dimension j")
        self.pos_line.sigPositionChanged.connect(self._pos_dragged)
        self.dim_line.sigPositionChanged.connect(self._dim_dragged)
        self.hover_label = FormulaLabel("hover_formula", self, point_size=13)
        self.hover_label.setMinimumHeight(60)
        self.formula_label = FormulaLabel("heatmap_formula", self)

        # ---- encoding vector (shares the dimension axis) ----------------------------------
        self.vector_plot = make_plot(
            self, "vector_plot", "Encoding vector PE[p, j]", "PE value", "dimension j"
        )
        self.vector_plot.getAxis("bottom").setLabel(
            f"PE value: <span style='color:{BLUE}'>● sin</span> "
            f"<span style='color:{VERMILLION}'>● cos</span>",
            **{"font-size": plots.LABEL_PT},
        )
        _integer_ticks(self.vector_plot.getAxis("left"))
        self.vector_plot.invertY(True)
        self.vector_plot.hideButtons()
        self.vector_plot.setMouseEnabled(x=False, y=True)
        self.vector_plot.setXRange(-1.15, 1.15, padding=0)
        self.vector_plot.getViewBox().disableAutoRange()
        self.vector_plot.setYLink(self.heat_plot)
        self.vector_plot.showGrid(x=False, y=False)  # see _guides
        _guides(self.vector_plot, 90, (-1.0, -0.5, 0.0, 0.5, 1.0))
        self.vec_sin = plots.curve(self.vector_plot, BLUE, 2.0, name="sin columns")
        self.vec_cos = plots.curve(self.vector_plot, VERMILLION, 2.0, name="cos columns")
        self.vec_dim_line = _crosshair(self.vector_plot, 0, "Drag to choose the dimension j")
        self.vec_dim_line.sigPositionChanged.connect(self._vec_dim_dragged)
        self.vec_marker = plots.dots(self.vector_plot, "#000000", 13)

        # ---- selected dimension over positions (shares the position axis) ----------------
        self.curve_plot = make_plot(
            self, "dimension_plot", "Dimension j over positions", "position", "PE value"
        )
        self.curve_plot.hideButtons()
        self.curve_plot.getAxis("left").setWidth(AXIS_WIDTH)
        self.curve_plot.showAxis("right")
        self.curve_plot.getAxis("right").setStyle(showValues=False)
        self.curve_plot.setMouseEnabled(x=True, y=False)
        self.curve_plot.setYRange(-1.2, 1.2, padding=0)
        self.curve_plot.showGrid(x=False, y=False)
        _guides(self.curve_plot, 0, (-1.0, -0.5, 0.0, 0.5, 1.0))
        self.curve_plot.getAxis("bottom").tickStrings = _position_ticks
        _integer_ticks(self.curve_plot.getAxis("bottom"))
        self.curve_vb: pg.ViewBox = self.curve_plot.getViewBox()
        self.curve_vb.disableAutoRange()
        self.curve_plot.setXLink(self.heat_plot)
        self.partner_curve = plots.curve(self.curve_plot, VERMILLION, 1.8)
        self.sel_curve = plots.curve(self.curve_plot, BLUE, 2.6)
        self.partner_samples = pg.ScatterPlotItem(size=6, pen=None)
        self.sel_samples = pg.ScatterPlotItem(size=7, pen=None)
        self.curve_plot.addItem(self.partner_samples)
        self.curve_plot.addItem(self.sel_samples)
        self.curve_pos_line = _crosshair(self.curve_plot, 90, "Drag to choose the position p")
        self.curve_pos_line.sigPositionChanged.connect(self._curve_pos_dragged)
        self.curve_markers = plots.dots(self.curve_plot, "#000000", 14)
        self.curve_label = FormulaLabel("dimension_readout", self)

        # ---- wavelengths -----------------------------------------------------------------
        self.wl_plot = make_plot(
            self, "wavelength_plot", "Wavelengths λ<sub>i</sub> = 2π/ω<sub>i</sub>",
            "pair i", "λ<sub>i</sub> (positions)",
        )  # fmt: skip
        self.wl_plot.setLogMode(x=False, y=True)
        _integer_ticks(self.wl_plot.getAxis("bottom"))
        self.wl_plot.hideButtons()
        self.wl_plot.showGrid(x=False, y=False)
        self.decade_lines = _guides(self.wl_plot, 0, tuple(float(k) for k in range(9)))
        self.wl_plot.setMouseEnabled(x=False, y=False)
        self.wl_plot.getViewBox().disableAutoRange()
        self.wl_full = plots.curve(self.wl_plot, GREEN, 3.0)
        self.wl_never = plots.curve(self.wl_plot, ORANGE, 3.0)
        self.wl_selected = pg.PlotDataItem(
            symbol="o", symbolSize=15, symbolBrush=None, symbolPen=pg.mkPen("#000000", width=2.5),
            pen=None,
        )  # fmt: skip
        self.wl_plot.addItem(self.wl_selected)
        self.span_line = pg.InfiniteLine(
            angle=0, movable=False, pen=plots.pen("#000000", 2.0, Qt.PenStyle.DashLine),
            label="", labelOpts={"position": 0.02, "anchors": [(0, 1), (0, 1)],
                                 "color": "#000000"},
        )  # fmt: skip
        font = self.span_line.label.textItem.font()
        font.setPointSize(11)
        self.span_line.label.setFont(font)
        self.wl_plot.addItem(self.span_line)
        self.turns_label = FormulaLabel("turns_readout", self)

        # ---- layout --------------------------------------------------------------------
        grid = QGridLayout()
        grid.addWidget(self.heat_plot, 0, 0)
        grid.addWidget(self.vector_plot, 0, 1)
        grid.addWidget(self.hover_label, 1, 0, 1, 2)
        grid.addWidget(self.curve_plot, 2, 0)
        grid.addWidget(self.wl_plot, 2, 1)
        grid.addWidget(self.curve_label, 3, 0)
        grid.addWidget(self.turns_label, 3, 1)
        grid.addWidget(self.formula_label, 4, 0, 1, 2)
        grid.setColumnStretch(0, 5)
        grid.setColumnStretch(1, 2)
        grid.setRowStretch(0, 6)
        grid.setRowStretch(2, 4)
        root = QHBoxLayout(self)
        root.addWidget(scroll)
        root.addLayout(grid, 1)

        # ---- view-dependent recompute (coalesced) --------------------------------------
        self._view_timer = QTimer(self)
        self._view_timer.setSingleShot(True)
        self._view_timer.setInterval(0)
        self._view_timer.timeout.connect(self.update_view)
        self.heat_vb.sigRangeChanged.connect(self._schedule_view)
        self.heat_vb.sigResized.connect(self._schedule_view)
        self.heat_vb.sigResized.connect(self._align_curve_plot)
        self.curve_vb.sigResized.connect(self._align_curve_plot)
        self.curve_vb.sigXRangeChanged.connect(self._schedule_view)
        self.curve_vb.sigResized.connect(self._schedule_view)
        scene = self.heat_plot.scene()
        scene.sigMouseMoved.connect(self._mouse_moved)
        scene.sigMouseClicked.connect(self._mouse_clicked)

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

    def _button(self, parent: QWidget, name: str, text: str, tip: str) -> QPushButton:
        b = QPushButton(text, parent)
        b.setObjectName(name)
        b.setAccessibleName(text.replace("&", ""))
        b.setToolTip(tip)
        b.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        return b

    # -- actions ----------------------------------------------------------------------------
    def apply_preset(self, name: str) -> None:
        """Set one of :data:`~posenc_gui.state.heatmap.PRESETS` and show it whole."""
        self._force_reset = True
        self.state.update(PRESETS[name])
        if not self.pending():  # nothing changed: still reset the zoom
            self.reset_view()

    def reset_view(self) -> None:
        """Show every position and every shown dimension."""
        self._apply_extent(self.state.as_int("positions"), self._shown())

    def _shown(self) -> int:
        dim, shown = self.state.as_int("dim"), self.state.as_int("shown_dims")
        return dim if shown <= 0 else min(shown, dim)

    def _apply_extent(self, positions: int, shown: int) -> None:
        vb = self.heat_vb
        vb.setLimits(
            xMin=-0.5, xMax=positions - 0.5, yMin=-0.5, yMax=shown - 0.5,
            minXRange=min(4.0, float(positions)), minYRange=min(2.0, float(shown)),
        )  # fmt: skip
        vb.setRange(xRange=(-0.5, positions - 0.5), yRange=(-0.5, shown - 0.5), padding=0.0)
        self.curve_vb.setXRange(-0.5, positions - 0.5, padding=0.0)
        self._extent = (positions, shown)

    # -- plot interaction -> state ----------------------------------------------------------
    def _select_position(self, x: float) -> None:
        hi = self.state.as_int("positions") - 1
        self.state.set("position", round(min(max(x, 0.0), float(hi))))

    def _select_dimension(self, y: float) -> None:
        hi = self._shown() - 1
        self.state.set("dimension", round(min(max(y, 0.0), float(hi))))

    def _pos_dragged(self) -> None:
        self._select_position(float(self.pos_line.value()))

    def _curve_pos_dragged(self) -> None:
        self._select_position(float(self.curve_pos_line.value()))

    def _dim_dragged(self) -> None:
        self._select_dimension(float(self.dim_line.value()))

    def _vec_dim_dragged(self) -> None:
        self._select_dimension(float(self.vec_dim_line.value()))

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        """The (position, dimension) whose value colours the image at view point (x, y)."""
        x0, y0, w, h = self._image_rect
        n, m = len(self.image_positions), len(self.image_dims)
        if n == 0 or m == 0 or w <= 0 or h <= 0:
            return None
        r = math.floor((x - x0) / w * n)
        c = math.floor((y - y0) / h * m)
        if not (0 <= r < n and 0 <= c < m):
            return None
        return int(self.image_positions[r]), int(self.image_dims[c])

    def _scene_cell(self, pos: QPointF) -> tuple[int, int] | None:
        if not self.heat_vb.sceneBoundingRect().contains(pos):
            return None
        p = self.heat_vb.mapSceneToView(pos)
        return self.cell_at(float(p.x()), float(p.y()))

    def _mouse_moved(self, pos: QPointF) -> None:
        cell = self._scene_cell(pos)
        if cell != self._hover:
            self._hover = cell
            self._show_hover()

    def _mouse_clicked(self, ev: Any) -> None:
        if ev.button() != Qt.MouseButton.LeftButton or ev.double():
            return
        cell = self._scene_cell(ev.scenePos())
        if cell is not None:
            self.state.update({"position": cell[0], "dimension": cell[1]})

    # -- state -> plots ---------------------------------------------------------------------
    def refresh(self) -> None:
        s = self.state
        r = s.readouts()
        positions, dim, shown = s.as_int("positions"), s.as_int("dim"), int(r["shown"])
        p, j = s.as_int("position"), s.as_int("dimension")
        self._generation += 1
        if self._force_reset or self._extent != (positions, shown):
            self._force_reset = False
            self._apply_extent(positions, shown)

        for line, value, hi in (
            (self.pos_line, p, positions - 1),
            (self.curve_pos_line, p, positions - 1),
            (self.dim_line, j, shown - 1),
            (self.vec_dim_line, j, shown - 1),
        ):
            # setBounds clamps (and announces) the old value: keep that out of the state
            line.blockSignals(True)
            try:
                line.setBounds((0.0, float(hi)))
            finally:
                line.blockSignals(False)
            _set_line(line, float(value))

        self._refresh_vector(r, p, j, dim)
        self._refresh_wavelengths(r, positions, dim)
        self._refresh_labels(r)
        self._show_hover()
        self.update_view()

    def _refresh_vector(self, r: dict[str, Any], p: int, j: int, dim: int) -> None:
        vec = np.asarray(r["vector"], dtype=np.float64)
        idx = np.arange(dim)
        is_sin = idx % 2 == 0 if self.state.as_str("layout") == "interleaved" else idx < dim // 2
        # Dots, one per column; thin lines only while the columns are few enough to follow
        # (for large d, neighbouring fast columns jump between -1 and 1 and lines become noise).
        size = 8 if dim <= 128 else (5 if dim <= 512 else 3)
        lines = dim <= 64
        for item, mask, color in (
            (self.vec_sin, is_sin, BLUE),
            (self.vec_cos, ~is_sin, VERMILLION),
        ):
            item.setData(vec[mask], idx[mask].astype(np.float64))
            style = (size, lines)
            if getattr(item, "_hm_style", None) != style:
                item._hm_style = style
                item.setPen(plots.pen(color, 1.2) if lines else None)
                item.setSymbol("o")
                item.setSymbolBrush(pg.mkBrush(color))
                item.setSymbolPen(pg.mkPen("w", width=1) if size > 4 else None)
                item.setSymbolSize(size)
        self.vec_marker.setData([float(r["value"])], [float(j)])
        self.vector_plot.setTitle(f"Vector PE[{_int_text(p)}, j]", size=plots.TITLE_PT)

    def _refresh_wavelengths(self, r: dict[str, Any], positions: int, dim: int) -> None:
        lam = np.asarray(r["wavelength"], dtype=np.float64)
        i = np.arange(dim // 2, dtype=np.float64)
        span = int(r["span"])
        k = int(r["full_turn_pairs"])  # λ is increasing: pairs 0…k-1 complete a turn
        symbol = "o" if dim // 2 <= SYMBOLS_MAX else None
        for item, sl, color in (
            (self.wl_full, slice(0, k), GREEN),
            (self.wl_never, slice(k, None), ORANGE),
        ):
            item.setData(i[sl], lam[sl])
            if item.opts["symbol"] != symbol:
                item.setSymbol(symbol)
                item.setSymbolBrush(pg.mkBrush(color))
                item.setSymbolPen(pg.mkPen("w", width=1))
                item.setSymbolSize(9)
        pair = int(r["pair"])
        self.wl_selected.setData([float(pair)], [float(lam[pair])])
        top = max(float(lam[-1]), float(span), 2 * math.pi)
        self.wl_plot.setYRange(math.log10(2 * math.pi) - 0.25, math.log10(top) + 0.6, padding=0)
        self.wl_plot.setXRange(-0.5, dim // 2 - 0.5, padding=0.02)
        self.span_line.setVisible(span >= 1)
        if span >= 1:
            self.span_line.setValue(math.log10(span))
            self.span_line.label.setFormat(f"last position L−1 = {_int_text(span)}")

    def _refresh_labels(self, r: dict[str, Any]) -> None:
        s = self.state
        dim, base, layout = s.as_int("dim"), s.as_float("base"), s.as_str("layout")
        p, j = s.as_int("position"), s.as_int("dimension")
        positions = s.as_int("positions")
        fn, other = str(r["function"]), str(r["partner_function"])
        pair, partner = int(r["pair"]), int(r["partner"])
        b = _base_text(base)
        half = dim // 2
        if layout == "interleaved":
            this = (
                "<b>interleaved</b> (paper): PE[p, 2i] = sin(p·ω<sub>i</sub>), "
                "PE[p, 2i+1] = cos(p·ω<sub>i</sub>)"
            )
        else:
            this = (
                f"<b>concat</b>: PE[p, i] = sin(p·ω<sub>i</sub>), PE[p, {half}+i] = "
                f"cos(p·ω<sub>i</sub>) (same values as the paper's PE[p, 2i], PE[p, 2i+1], "
                "columns reordered)"
            )
        self.formula_label.set_html(
            f"Layout {this}; &nbsp; ω<sub>i</sub> = base<sup>−2i/d</sup> = "
            f"{b}<sup>−2i/{dim}</sup>, i = 0…{half - 1}; &nbsp; positions p = 0…"
            f"{_int_text(positions - 1)}. Colour scale fixed to [−1, 1]."
        )
        self.readout_label.set_html(
            plots.table_html(
                [
                    ("Position p", _int_text(p)),
                    ("Dimension j", f"{j} = {fn} of pair i = {pair}"),
                    ("Partner column", f"{partner} ({other})"),
                    ("ω<sub>i</sub> = base<sup>−2i/d</sup>", sig(float(r["omega"]), 5)),
                    ("Frequency ω<sub>i</sub>/2π", f"{sig(float(r['frequency']))} turns/pos"),
                    ("Wavelength λ<sub>i</sub>", f"{sig(float(r['selected_wavelength']))} pos"),
                    ("Angle p·ω<sub>i</sub>", f"{num(float(r['angle']), 4)} rad"),
                    (f"PE[p, {j}]", signed(float(r["value"]))),
                    (f"PE[p, {partner}]", signed(float(r["partner_value"]))),
                    ("|PE[p]|² (= d/2)", num(float(r["vector_norm_sq"]), 4)),
                    ("Pairs with ≥ 1 full turn", f"{r['full_turn_pairs']} of {r['pairs']}"),
                ]
            )
        )
        self._curve_text = (
            f"<span style='color:{fn_color(fn)}'><b>PE[p, {j}] = {fn}(p·ω<sub>{pair}</sub>)"
            f"</b></span> and its partner <span style='color:{fn_color(other)}'><b>PE[p, "
            f"{partner}] = {other}(p·ω<sub>{pair}</sub>)</b></span>, ω<sub>{pair}</sub> = "
            f"{sig(float(r['omega']), 5)}, λ = {sig(float(r['selected_wavelength']))}: "
            f"{num(float(r['turns']), 2)} turns over positions 0…{_int_text(positions - 1)}."
        )
        k, n = int(r["full_turn_pairs"]), int(r["pairs"])
        self.turns_label.set_html(
            f"<span style='color:{GREEN}'><b>{k} of {n} pairs</b></span> complete ≥ 1 full "
            f"turn within positions 0…{_int_text(positions - 1)} (λ<sub>i</sub> ≤ L−1); "
            f"<span style='color:{ORANGE}'><b>{int(r['never_turn_pairs'])}</b></span> never do."
        )
        self.sel_samples.setBrush(pg.mkBrush(fn_color(fn)))
        self.partner_samples.setBrush(pg.mkBrush(fn_color(other)))
        self.curve_markers.setData(
            [float(p), float(p)], [float(r["value"]), float(r["partner_value"])]
        )

    def cell_html(self, cell: dict[str, Any]) -> str:
        """The formula of one entry with its numbers substituted (hover / selection text)."""
        s = self.state
        dim, layout = s.as_int("dim"), s.as_str("layout")
        b = _base_text(s.as_float("base"))
        p, j, fn = int(cell["position"]), int(cell["dimension"]), str(cell["function"])
        i, e = int(cell["pair"]), int(cell["exponent"])
        other = "cos" if fn == "sin" else "sin"
        pt = _int_text(p)
        if layout == "interleaved":
            where = f"interleaved: column {j} = 2·{i}{'' if fn == 'sin' else ' + 1'} → {fn} of pair i = {i}"  # noqa: E501
        else:
            half = dim // 2
            where = (
                f"concat: column {j} {'<' if fn == 'sin' else '≥'} d/2 = {half} → {fn} half, "
                f"pair i = {i}"
            )
        return (
            f"<span style='color:{fn_color(fn)}'><b>PE[{pt}, {j}]</b></span> = "
            f"{fn}({pt} · {b}<sup>−{e}/{dim}</sup>) = {fn}({pt} · {sig(float(cell['omega']), 4)}) "
            f"= {fn}({num(float(cell['angle']), 4)}) = <b>{signed(float(cell['value']))}</b>"
            f"<br><small>{where}; partner column {int(cell['partner'])} holds {other}"
            f"({pt} · ω<sub>{i}</sub>)</small>"
        )

    def _show_hover(self) -> None:
        s = self.state
        values = s.values()
        if self._hover is not None:
            cell = HeatmapModel.cell(values, *self._hover)
            head = "Under the mouse:"
        else:
            cell = HeatmapModel.cell(values, s.as_int("position"), s.as_int("dimension"))
            head = "Selected (hover the heatmap for any cell, click to select):"
        self.hover_label.set_html(f"<small>{head}</small><br>{self.cell_html(cell)}")

    # -- view-dependent recompute -----------------------------------------------------------
    def _schedule_view(self, *_: object) -> None:
        if not self._view_timer.isActive():
            self._view_timer.start()

    def update_view(self) -> None:
        """Recompute the image and the position curves for the current view (if it changed)."""
        self._view_timer.stop()
        key = (
            self._generation,
            tuple(map(tuple, self.heat_vb.viewRange())),
            _pixels(self.heat_vb, True),
            _pixels(self.heat_vb, False),
            tuple(self.curve_vb.viewRange()[0]),
            _pixels(self.curve_vb, True),
        )
        if key == self._view_key:
            return
        self._view_key = key
        import time

        start = time.perf_counter()
        self._update_image()
        self._update_curves()
        self.last_view_seconds = time.perf_counter() - start

    def _update_image(self) -> None:
        s = self.state
        positions = s.as_int("positions")
        shown = self._shown()
        (x0, x1), (y0, y1) = self.heat_vb.viewRange()
        rows, xs, xw = axis_samples(x0, x1, positions, _pixels(self.heat_vb, True))
        cols, ys, yh = axis_samples(y0, y1, shown, _pixels(self.heat_vb, False))
        table = HeatmapModel.table(s.values(), torch.from_numpy(rows), torch.from_numpy(cols))
        self.image_positions, self.image_dims = rows, cols
        self.image_table = table.numpy()
        self.image.setImage(
            np.ascontiguousarray(self.image_table.T, dtype=np.float32), autoLevels=False
        )
        self.image.setRect(xs, ys, xw, yh)
        self._image_rect = (xs, ys, xw, yh)

    def _update_curves(self) -> None:
        s = self.state
        values = s.values()
        positions = s.as_int("positions")
        j = s.as_int("dimension")
        _, _, partner = column_role(s.as_int("dim"), s.as_str("layout"), j)
        cx0, cx1 = self.curve_vb.viewRange()[0]
        lo, hi = max(cx0, 0.0), min(cx1, float(positions - 1))
        n = _pixels(self.curve_vb, True)
        self.curve_is_band = False
        empty = np.zeros(0)
        if hi <= lo:  # a single position (or the view is off the table)
            x = np.array([min(max(lo, 0.0), float(positions - 1))])
            y = HeatmapModel.table(values, torch.from_numpy(x), [j, partner]).numpy()
            self.sel_curve.setData(x, y[:, 0], antialias=True)
            self.partner_curve.setData(x, y[:, 1], antialias=True)
        elif hi - lo <= n:
            x = np.linspace(lo, hi, max(2 * n, 64))
            y = HeatmapModel.table(values, torch.from_numpy(x), [j, partner]).numpy()
            self.sel_curve.setData(x, y[:, 0], antialias=True)
            self.partner_curve.setData(x, y[:, 1], antialias=True)
        else:
            edges = torch.linspace(lo, hi, n + 1, dtype=torch.float64)
            centres = (0.5 * (edges[:-1] + edges[1:])).numpy()
            xx = np.repeat(centres, 2)
            bands, is_band = [], []
            for col in (j, partner):
                bot, top = HeatmapModel.envelope(values, col, edges)
                bands.append(torch.stack((bot, top), dim=1).reshape(-1).numpy())
                is_band.append(bool(((top - bot) > 1.0).float().mean() > 0.5))
            self.curve_is_band = is_band[0]
            # A band of near-vertical segments: antialiasing (and width) there costs several
            # times the paint time and changes nothing visible; a partner band lies entirely
            # under the selected one, so it is not drawn at all.
            aa = not self.curve_is_band
            self.sel_curve.setData(xx, bands[0], antialias=aa)
            if all(is_band):
                self.partner_curve.setData(empty, empty)
            else:
                self.partner_curve.setData(xx, bands[1], antialias=aa)
        first, last = math.ceil(lo), math.floor(hi)
        if 0 <= last - first + 1 <= CURVE_DOTS_MAX:
            ints = np.arange(first, last + 1, dtype=np.float64)
            y = HeatmapModel.table(values, torch.from_numpy(ints), [j, partner]).numpy()
            self.sel_samples.setData(ints, y[:, 0])
            self.partner_samples.setData(ints, y[:, 1])
        else:
            self.sel_samples.setData(empty, empty)
            self.partner_samples.setData(empty, empty)
        fn = "sin" if column_role(s.as_int("dim"), s.as_str("layout"), j)[1] else "cos"
        other = "cos" if fn == "sin" else "sin"
        thin = self.curve_is_band
        self.sel_curve.setPen(plots.pen(fn_color(fn), 1.0 if thin else 2.6))
        self.partner_curve.setPen(plots.pen(fn_color(other), 1.0 if thin else 1.8))
        self.curve_plot.setTitle(
            f"Column j = {j} ({fn}) and its partner {partner}", size=plots.TITLE_PT
        )
        note = (
            "<br><i>Oscillates faster than the pixels here: each pixel column shows the band "
            "from the curve's minimum to its maximum over the positions it covers; zoom in.</i>"
            if self.curve_is_band
            else ""
        )
        self.curve_label.set_html(self._curve_text + note)


PANEL = HeatmapPanel
