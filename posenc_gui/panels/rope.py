"""RoPE playground: a query at position m and a key at position n, rotated pair by pair.

Top left: the selected pair of q and k before (dashed) and after (solid) rotation by ``m·θ_i``
and ``n·θ_i`` on a circle. Top right: the score ``<R_m q, R_n k>`` as a function of the relative
distance ``r = m − n`` only, at *every* integer distance of the visible range, drawn as a
per-pixel-column min/max envelope when there are more distances than pixels (so no peak, such as
r = 0, is lost), with a draggable marker at the current distance. Bottom left: the score matrix
over a window of (m, n), built from one row (Toeplitz: constant along diagonals). Bottom right:
the long-term decay, the per-column maximum of ``|score|`` against the RoFormer bound of
eq. (37), on a log axis. The side column shows the invariance (same distance at the origin,
computed independently) and the interleaved-vs-half layout check.

Views and what they depend on: the curves follow q, k, base, layout, the distance range and the
visible x range (``"x_range"``, zoom and resize) — never m or n, which only move the markers;
the eq. (37) bound over a long range is computed on a worker thread (``"bound_ready"``) and
appears when done. The circle and the read-outs follow the read-out groups of the model.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache
from typing import Any

import numpy as np
import pyqtgraph as pg
import shiboken6
import torch
from PySide6.QtCore import QObject, QPointF, Signal
from PySide6.QtWidgets import QWidget

from posenc_gui import core
from posenc_gui.core.rope import (
    nice_ceil,
    rope_abel_sums,
    rope_complex_pairs,
)
from posenc_gui.core.rope_rows import SCORE_CHUNK
from posenc_gui.core.rope_rows import minmax_runs as _minmax
from posenc_gui.core.rope_rows import rope_even_score_row as _even_score_range
from posenc_gui.core.rope_rows import rope_phase_table as _phase_table
from posenc_gui.core.rope_rows import rope_score_row as _score_range
from posenc_gui.core.rope_rows import toeplitz_float32 as _toeplitz
from posenc_gui.panels.base import Cell, Panel
from posenc_gui.state.rope import (
    LAYOUTS,
    MAX_POSITION,
    TAU,
    VECTOR_INPUTS,
    RopeModel,
    rope_layout,
    vector_key,
    vectors,
)
from posenc_gui.widgets import styled
from posenc_gui.widgets.fmt import integer, num, sig, signed
from posenc_gui.widgets.style import LineStyle, StyleBook
from posenc_gui.widgets.text import LiveText, live, span, table_html
from posenc_gui.widgets.views import Context, Series

#: The curves are binned to at least this many pixel columns (before the plot is laid out).
MIN_COLUMNS = 400
#: Digits after the decimal point for the scores in the invariance readout.
SCORE_DIGITS = 8
TYPED_PARAMS = ("q0", "q1", "k0", "k1")
#: Inputs of the score-vs-distance curves: never m or n.
CURVE_INPUTS = ("qk", "dim", "base", "layout", "range_max", "x_range")
#: Score curves (per-column envelopes) kept for a slider dragged back: the last ones computed.
CURVES_KEPT = 16
#: From this many (distance, pair) terms on, the q = k curve is computed on a second thread
#: while the GUI thread computes the score (~1.8 ms less per step at d = 512 over ±100,000 on
#: the 2-core reference machine); below, a thread hand-over costs more than it saves.
PARALLEL_TERMS = 2_000_000
#: The eq. (37) bound is computed in the refresh up to this many (distance, pair) terms, on the
#: worker thread above (about 5 ms of work here).
SYNC_BOUND_TERMS = 300_000
#: Distances per block of the background bound (it checks between blocks whether still wanted).
BOUND_BLOCK = 8192
#: Distances per torch operation of the bound (:func:`rope_abel_sums`' ``chunk``): small in the
#: refresh (in the CPU cache: fastest), large on the worker thread (its Python between torch
#: calls holds the GIL: 128 distances per call slow the GUI thread's steps by ~1.5 ms).
SYNC_CHUNK = 128
WORKER_CHUNK = 2048


#: A steady limit (circle range, score axis, colour level) is kept while what it must show
#: fills more than 1/slack of it (see :func:`_steady`).
CIRCLE_SLACK = 1.6
CURVE_SLACK = 2.0
LEVEL_SLACK = 2.0


class _Relay(QObject):
    """Carries "the background bound is done" from the worker thread to the GUI thread."""

    done = Signal()


class RopePanel(Panel):
    """The ``rope`` tab."""

    model = RopeModel

    def build(self) -> None:
        b = self.book
        self._range_shown: int | None = None
        self._curve_key: tuple[Any, ...] | None = None
        self._curve: dict[str, np.ndarray] = {}
        #: The last curves computed, by key (a few kilobytes each).
        self._curves: OrderedDict[tuple[Any, ...], dict[str, np.ndarray]] = OrderedDict()
        self._curve_group = 1
        self._matrix_key: tuple[Any, ...] | None = None
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._matrix_rev = np.zeros(0, dtype=np.float32)
        self._h_src: object = None
        self._h_layout = ""
        self._h = (np.zeros(0, dtype=np.complex128), np.zeros(0, dtype=np.complex128))
        self._window_shown: tuple[int, int, int] | None = None
        self._level = 0.0  # the colour level of the matrix (0: none yet)
        self._circle_lim: float | None = None
        self._marker_inside = True  # the distance markers were last placed inside the plots
        self._decay_yrange: tuple[float, float] | None = None
        self._curve_yrange: tuple[float, float] | None = None
        # the eq. (37) bound over long ranges: computed on one worker thread, latest wins
        self._executor: ThreadPoolExecutor | None = None
        #: A second thread for the q = k curve over long ranges (see _curve_data).
        self._curve_pool: ThreadPoolExecutor | None = None
        self._bound_future: Future[np.ndarray | None] | None = None
        self._bound_want: tuple[Any, ...] | None = None
        self._bound_results: dict[tuple[Any, ...], np.ndarray] = {}
        #: Per view: the key of what it shows and the arrays it recorded (see _keyed_view).
        self._shown: dict[str, tuple[tuple[Any, ...], dict[str, Series]]] = {}
        #: Derived quantities looked up in the current flush, and its values (see _lookups).
        self._lookup: dict[str, Any] = {}
        self._lookup_values: object = None
        #: Refreshes that found nothing to redraw, per view.
        self.skipped: Counter[str] = Counter()
        self._relay = _Relay(self)
        self._relay.done.connect(self._on_bound_done)

        self._qk_made: tuple[tuple[Any, ...], tuple[torch.Tensor, torch.Tensor]] | None = None
        self.derive("qk", VECTOR_INPUTS, self._make_qk)

        # ---- side column: controls and readouts --------------------------------------------
        pos_box = self.controls("Positions", "m", "n", "lock")
        self.invariance_label = LiveText("invariance_readout", self, b)
        freq_box = self.controls("Frequencies and layout", "dim", "base", "pair", "layout")
        self.pair_label = LiveText("pair_readout", self, b)
        self.vec_box = self.controls("Query and key vectors", "vectors", "seed", *TYPED_PARAMS)
        view_box = self.controls("Views", "range_max", "window")

        # ---- circle of the selected pair -----------------------------------------------------
        self.circle_plot = styled.plot(
            b, self, "circle_plot", "Pair i before and after rotation", "1st component",
            "2nd component",
        )  # fmt: skip
        self.circle_plot.setAspectLocked(True)
        # every line is a house PixelCurve (the segments pyqtgraph's PlotCurveItem draws in the
        # app's segmented line mode, mapped to pixels with numpy: no per-set bookkeeping, about
        # a third of its paint); each keeps its pixels while a step leaves it alone (kept_lines)
        self.q_circle = _line(b, self.circle_plot, "query", "hair", "dot")
        self.k_circle = _line(b, self.circle_plot, "key", "hair", "dot")
        self.q_arc = _line(b, self.circle_plot, "query", "line")
        self.k_arc = _line(b, self.circle_plot, "key", "line")
        self.between_arc = _line(b, self.circle_plot, "accent", "bold")
        self.q_before = _line(b, self.circle_plot, "query", "line", "dash")
        self.k_before = _line(b, self.circle_plot, "key", "line", "dash")
        self.q_after = _line(b, self.circle_plot, "query", "heavy")
        self.k_after = _line(b, self.circle_plot, "key", "heavy")
        # labels at the arrow tips (instead of a legend that would cover the circle)
        # (drawn from kept pixels: they move with m, n and the pair at every step)
        self.tip_texts = {
            key: styled.pixel_text(b, self.circle_plot, role)
            for key, role in (("q", "query"), ("k", "key"), ("Rq", "query"), ("Rk", "key"))
        }
        self.q_arc_text = styled.pixel_text(b, self.circle_plot, "query")
        self.k_arc_text = styled.pixel_text(b, self.circle_plot, "key")
        self.between_text = styled.pixel_text(b, self.circle_plot, "accent")
        self.circle_formula = LiveText("circle_formula", self, b)

        # ---- score vs relative distance ------------------------------------------------------
        self.curve_plot = styled.plot(
            b, self, "score_curve_plot", "Score vs relative distance (depends on m − n only)",
            "relative distance r = m − n", "score", mouse=(True, False),
        )  # fmt: skip
        # house PixelCurves (segments mapped to pixels with numpy, drawn untransformed, cached):
        # about half the paint of a PlotCurveItem's thick antialiased line, no bookkeeping
        self.score_curve = styled.pixel_curve(b, self.curve_plot, "query", "line")
        self.qk_curve = styled.pixel_curve(b, self.curve_plot, "key", "normal")
        # more distances than pixels: one vertical segment from min to max per pixel column
        # (crisp hairlines, ~10x cheaper to paint than a zig-zag through the extremes)
        self.score_band = styled.pixel_curve(b, self.curve_plot, "query", "hair")
        self.qk_band = styled.pixel_curve(b, self.curve_plot, "key", "hair")
        for item in (self.qk_curve, self.qk_band):
            item.setZValue(-1)  # the score of q, k in front
        self.distance_line = styled.vline(
            b, self.curve_plot, movable=True,
            tooltip="Drag to change the distance m − n (keeps m, moves n)",
        )  # fmt: skip
        self.bind_drag(self.distance_line, self._distance_dragged, self._distance_shown)
        self.curve_dots = styled.markers(b, self.curve_plot, "ink", "large")
        self.curve_formula = LiveText("curve_formula", self, b)
        vb = self.curve_plot.getPlotItem().getViewBox()
        vb.sigXRangeChanged.connect(lambda *_: self.invalidate("x_range"))
        vb.sigResized.connect(self._curve_resized)
        self._curve_px = 0

        # ---- long-term decay (log) -----------------------------------------------------------
        self.decay_plot = styled.plot(
            b, self, "decay_plot", "Long-term decay: |score| and the RoFormer bound (log scale)",
            "relative distance r = m − n", "|score|", mouse=(True, False),
        )  # fmt: skip
        self.decay_plot.setLogMode(x=False, y=True)
        self.decay_plot.setXLink(self.curve_plot)
        # bare curve items on a log axis take log10 values (what a PlotDataItem would plot)
        self.abs_curve = styled.pixel_curve(b, self.decay_plot, "query", "normal")
        self.abs_qk_curve = styled.pixel_curve(b, self.decay_plot, "key", "thin")
        self.bound_curve = styled.pixel_curve(b, self.decay_plot, "ink", "thick")
        self.decay_line = styled.vline(b, self.decay_plot)

        # ---- score matrix --------------------------------------------------------------------
        self.matrix_plot = styled.plot(
            b, self, "score_matrix_plot", "Score matrix S[m, n]", "key position n",
            "query position m",
        )  # fmt: skip
        self.matrix_plot.invertY(True)
        self.matrix_image, self.matrix_bar = styled.heatmap(
            b, self.matrix_plot, (-1.0, 1.0), "diverging", label="score", in_colour=True
        )
        self.diagonal_line = _line(b, self.matrix_plot, "ink", "normal", "dash")
        self.matrix_dot = styled.markers(b, self.matrix_plot, "ink", "large")
        self.matrix_plot.scene().sigMouseClicked.connect(self._matrix_clicked)
        self.matrix_plot.setToolTip(
            "Click a cell to move the query to row m and the key to column n"
        )

        # stable geometry: a left axis as wide as its widest likely tick label from the start,
        # growing (never shrinking) past it. A y range whose labels change width would otherwise
        # re-lay the whole plot out and repaint it twice.
        for plot, widest in (
            (self.circle_plot, "-0.25"), (self.curve_plot, "-0.05"),
            (self.decay_plot, "0.0001"), (self.matrix_plot, "100000"),
        ):  # fmt: skip
            styled.steady_axis(self.book, plot.getPlotItem().getAxis("left"), widest)

        # texts painted from their pixels, the matrix from 32-bit colour (see the helpers)
        for plot in (self.circle_plot, self.curve_plot, self.decay_plot, self.matrix_plot):
            styled.cache_texts(plot)
        self.matrix_image.set_toeplitz_row(self._matrix_row)
        #: Lines whose pixels are kept only while a step leaves them alone (see flush): the
        #: markers that m and n move pass over them; dim, seed, base... redraw them.
        self.kept_lines = (
            self.q_circle, self.k_circle, self.q_arc, self.k_arc, self.between_arc,
            self.q_before, self.k_before, self.q_after, self.k_after, self.diagonal_line,
            self.score_curve, self.qk_curve, self.score_band, self.qk_band, self.abs_curve,
            self.abs_qk_curve, self.bound_curve,
        )  # fmt: skip

        # ---- layout comparison ---------------------------------------------------------------
        self.layout_label = LiveText("layout_readout", self, b)
        # read-outs paint their own background (the palette's, as their parents'): a new value
        # then repaints the read-out alone, not first the part of the plot grid or side column
        # beneath it
        for label in (self.invariance_label, self.pair_label, self.circle_formula,
                      self.curve_formula, self.layout_label):  # fmt: skip
            label.setAutoFillBackground(True)

        # ---- views ---------------------------------------------------------------------------
        circle_inputs = ("pair", "query_key", "scores", "rotation")
        circle_formula_inputs = (*circle_inputs, "frequency")
        invariance_inputs = ("m", "n", "pair", "dim", "positions", "scores")
        formula_inputs = (
            "range_max",
            "dim",
            "x_range",
            "positions",
            "scores",
            "query_key",
            "bound",
        )
        matrix_inputs = ("qk", "base", "layout", "window", "matrix_window")
        # each view is keyed by what it shows: an input that changed without changing that
        # (a typed component while vectors = random, a zoom that keeps the same columns...)
        # re-records the same arrays and touches no item: nothing is set, nothing repainted
        self._keyed_view("circle", self.circle_plot, circle_inputs, self._refresh_circle,
                         lambda c: (c["query_key"], c["scores"], c["rotation"],
                                    c.values.as_int("pair")))  # fmt: skip
        self._keyed_view(
            "circle_formula", self.circle_formula, circle_formula_inputs,
            self._refresh_circle_formula,
            lambda c: (c["query_key"], c["scores"], c["rotation"], c["frequency"],
                       c.values.as_int("pair")),
        )  # fmt: skip
        self._keyed_view(
            "invariance", self.invariance_label, invariance_inputs, self._refresh_invariance,
            lambda c: (c["positions"], c["scores"], *(c.values.as_int(n) for n in
                                                      ("m", "n", "pair", "dim"))),
        )  # fmt: skip
        self._keyed_view(
            "pair_readout", self.pair_label, ("pair", "frequency", "query_key"),
            self._refresh_pair_readout,
            lambda c: (c["frequency"], c["query_key"], c.values.as_int("pair")),
        )  # fmt: skip
        self.view("typed_controls", self.vec_box, ("vectors",), self._refresh_typed_controls)
        self._keyed_view("curves", self.curve_plot, CURVE_INPUTS, self._refresh_curves,
                         lambda c: (_Same(self._curve_data(c)),))  # fmt: skip
        self._keyed_view(
            "decay", self.decay_plot, (*CURVE_INPUTS, "query_key", "bound_ready"),
            self._refresh_decay, self._decay_key,
        )  # fmt: skip
        self._keyed_view(
            "distance_marker", self.curve_plot, ("positions", "scores", "x_range"),
            self._refresh_distance_marker,
            lambda c: (c["positions"]["relative_distance"], c["scores"]["score"],
                       c["scores"]["score_qk"], self._x_shown()),
        )  # fmt: skip
        self._keyed_view(
            "curve_formula", self.curve_formula, formula_inputs, self._refresh_curve_formula,
            self._curve_formula_key,
        )  # fmt: skip
        self.view("matrix", self.matrix_plot, matrix_inputs,
                  lambda c: self._refresh_matrix(_Memo(c, self._lookups(c))))  # fmt: skip
        self._keyed_view(
            "matrix_marker", self.matrix_plot, ("m", "n", "window", "matrix_window"),
            self._refresh_matrix_marker,
            lambda c: (c["matrix_window"], *(c.values.as_int(n) for n in ("m", "n", "window"))),
        )  # fmt: skip
        self._keyed_view(
            "layouts", self.layout_label, ("layout", "dim", "layouts"), self._refresh_layouts,
            lambda c: (c["layouts"], c.values.as_str("layout"), c.values.as_int("dim")),
        )  # fmt: skip

        self.place(
            [pos_box, self.invariance_label, freq_box, self.pair_label, self.vec_box, view_box],
            [
                Cell(self.circle_plot, 0, 0), Cell(self.curve_plot, 0, 1),
                Cell(self.circle_formula, 1, 0), Cell(self.curve_formula, 1, 1),
                Cell(self.matrix_plot, 2, 0), Cell(self.decay_plot, 2, 1),
                Cell(self.layout_label, 3, 0, 1, 2),
            ],
            row_stretch={0: 5, 2: 5}, col_stretch={0: 4, 1: 5},
        )  # fmt: skip

    def _keyed_view(
        self,
        name: str,
        widget: object,
        inputs: tuple[str, ...],
        refresh: Callable[[Context], None],
        key: Callable[[Context], tuple[Any, ...]],
    ) -> None:
        """A view that redraws only when ``key(ctx)`` (or the style) differs from last time.

        Otherwise it records the same arrays again (its data stays complete) and leaves every
        item alone. :attr:`skipped` counts such refreshes per view.
        """

        def run(outer: Context) -> None:
            ctx = _Memo(outer, self._lookups(outer))  # each quantity looked up once a flush
            k = (ctx.style, *key(ctx))
            last = self._shown.get(name)
            if last is not None and last[0] == k:
                for series, s in last[1].items():
                    ctx.record(series, s.values, s.label, s.unit)
                self.skipped[name] += 1
                return
            refresh(ctx)
            assert ctx.view is not None
            self._shown[name] = (k, ctx.view.data())

        self.view(name, widget, inputs, run)

    def _lookups(self, ctx: Context) -> dict[str, Any]:
        """The derived quantities looked up so far with the values ``ctx`` refreshes with:
        shared by the views of one flush (they all get the same values), forgotten when the
        values change (the next flush)."""
        values = ctx._all
        if values is not self._lookup_values:
            self._lookup_values, self._lookup = values, {}
        return self._lookup

    def _make_qk(self, ctx: Context) -> tuple[torch.Tensor, torch.Tensor]:
        """q and k for the "qk" quantity: the same tensors while what they are made from is
        unchanged (a step of the pair or the layout while vectors = random), so what is kept
        by their identity (:meth:`_products`) stays."""
        key = vector_key(ctx.values)
        if self._qk_made is None or self._qk_made[0] != key:
            self._qk_made = (key, vectors(ctx.values))
        return self._qk_made[1]

    # -- view state (zoom of the distance plots) ------------------------------------------------
    def view_state(self) -> dict[str, Any]:
        """The visible distance range of the score plots, when zoomed: ``{"x_range": [lo, hi]}``."""
        rng = self.state.as_int("range_max")
        lo, hi = self.curve_plot.getPlotItem().getViewBox().viewRange()[0]
        if abs(lo + rng) < 1e-9 * rng and abs(hi - rng) < 1e-9 * rng:
            return {}
        return {"x_range": [float(lo), float(hi)]}

    def restore_view_state(self, state: Mapping[str, Any]) -> None:
        """Zoom the score plots back to a :meth:`view_state` (unknown keys are ignored)."""
        xr = state.get("x_range")
        if not (isinstance(xr, list | tuple) and len(xr) == 2):
            return
        lo, hi = (float(x) for x in xr)
        if math.isfinite(lo) and math.isfinite(hi) and lo < hi:
            self.refresh_now()  # the range of the current range_max first, then the zoom
            self.curve_plot.setXRange(lo, hi, padding=0.0)

    # -- plot interaction -> state --------------------------------------------------------------
    def _set_distance(self, r: int) -> None:
        """Keep m and move n so that m − n = r (moving m too at the ends of the range)."""
        m = self.state.as_int("m")
        n = m - r
        if n < 0:
            m, n = r, 0
        elif n > MAX_POSITION:
            m, n = MAX_POSITION + r, MAX_POSITION
        if 0 <= m <= MAX_POSITION:
            self.state.update({"m": m, "n": n})

    def _distance_dragged(self, x: float) -> None:
        rng = self.state.as_int("range_max")
        self._set_distance(round(min(max(x, -rng), rng)))

    def _distance_shown(self) -> float:
        return float(self.state.as_int("m") - self.state.as_int("n"))

    def _curve_resized(self, *_: object) -> None:
        """Re-bin the curves when the plot's width in pixels changes (a height change does not
        alter the per-pixel envelopes)."""
        px = round(self.curve_plot.getPlotItem().getViewBox().width())
        if px != self._curve_px:
            self._curve_px = px
            self.invalidate("x_range")

    def _matrix_clicked(self, event: Any) -> None:
        pos = event.scenePos()
        vb = self.matrix_plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            return
        p: QPointF = vb.mapSceneToView(pos)
        size = self.state.as_int("window")
        m0, n0 = RopeModel.window_starts(self.state.values())
        col, row = math.floor(p.x()), math.floor(p.y())
        if m0 <= row < m0 + size and n0 <= col < n0 + size:
            self.state.update({"m": min(row, MAX_POSITION), "n": min(col, MAX_POSITION)})

    # -- circle and read-outs ------------------------------------------------------------------
    def _refresh_circle(self, ctx: Context) -> None:
        vec, sc, rot = ctx["query_key"], ctx["scores"], ctx["rotation"]
        qp, kp = _pair(vec["q_pair"]), _pair(vec["k_pair"])
        qr, kr = _pair(sc["q_pair_rotated"]), _pair(sc["k_pair_rotated"])
        q_len, k_len = math.hypot(*qp), math.hypot(*kp)
        big = max(q_len, k_len, 1e-9)
        head = 0.09 * big
        # each item is set only when its own inputs changed (m moves R_m q and its arc only)
        _put(self.q_circle, (q_len,), lambda: styled.circle_xy(q_len))
        _put(self.k_circle, (k_len,), lambda: styled.circle_xy(k_len))
        _put(self.q_before, (*qp, head), lambda: _arrow(*qp, head))
        _put(self.k_before, (*kp, head), lambda: _arrow(*kp, head))
        _put(self.q_after, (*qr, head), lambda: _arrow(*qr, head))
        _put(self.k_after, (*kr, head), lambda: _arrow(*kr, head))
        tips = {"Rq": qr, "Rk": kr, "q": qp, "k": kp}
        spots = tip_label_positions(tips, big)
        texts = {"q": "q", "k": "k", "Rq": "R<sub>m</sub>q", "Rk": "R<sub>n</sub>k"}
        for key, (x, y) in spots.items():
            _place(self.tip_texts[key], texts[key], x, y)
        a_q, a_k = _f(vec["angle_q"]), _f(vec["angle_k"])
        turn_m, turn_n = _f(rot["angle_m"]) % TAU, _f(rot["angle_n"]) % TAU
        rq, rk = 0.42 * big, 0.28 * big
        _put(self.q_arc, (rq, a_q, turn_m), lambda: _arc(rq, a_q, a_q + turn_m))
        _put(self.k_arc, (rk, a_k, turn_n), lambda: _arc(rk, a_k, a_k + turn_n))
        start = a_k + turn_n
        between = _f(sc["angle_between_rotated"])
        rb = 0.62 * big
        _put(self.between_arc, (rb, start, between), lambda: _arc(rb, start, start + between))
        _place_polar(self.q_arc_text, "mθ<sub>i</sub>", rq + 0.1 * big, a_q + turn_m / 2)
        _place_polar(self.k_arc_text, "nθ<sub>i</sub>", rk + 0.1 * big, a_k + turn_n / 2)
        _place_polar(self.between_text, "∠", 0.72 * big, start + between / 2)
        far = max(math.hypot(x, y) for x, y in spots.values())
        # a "nice" limit: the axes (and their cached pictures) stay put while m and n move
        need = 1.22 * big if far + 0.12 * big <= 1.22 * big else 2.0 * big
        lim = _steady(need, self._circle_lim, CIRCLE_SLACK)
        if lim != self._circle_lim:
            self._circle_lim = lim
            styled.set_range(self.circle_plot, (-lim, lim), (-lim, lim))
        i = ctx.values.as_int("pair")
        # the same height whatever i: the text is set in place, without a layout pass of the plot
        styled.retitle(self.book, self.circle_plot, f"Pair i = {i} before and after rotation")
        ctx.record("q_pair", qp, "pair i of q (before rotation)")
        ctx.record("k_pair", kp, "pair i of k (before rotation)")
        ctx.record("q_pair_rotated", qr, "pair i of R_m q")
        ctx.record("k_pair_rotated", kr, "pair i of R_n k")
        ctx.record("tip_labels", np.array(list(spots.values())), "label positions q, k, Rq, Rk")

    def _refresh_circle_formula(self, ctx: Context) -> None:
        vec, sc, rot, st = ctx["query_key"], ctx["scores"], ctx["rotation"], ctx.style
        freq = ctx["frequency"]
        i = ctx.values.as_int("pair")
        a, b = vec["pair_indices"]
        q_len, k_len = _f(vec["q_pair_norm"]), _f(vec["k_pair_norm"])
        turn_m, turn_n = _f(rot["angle_m"]) % TAU, _f(rot["angle_n"]) % TAU
        between = _f(sc["angle_between_rotated"])
        # values of a steady width (see _fixed): drawn over the laid-out text from step to step
        am, an = _fixed(_f(rot["angle_m"]), 7, False), _fixed(_f(rot["angle_n"]), 7, False)
        ad = _fixed(_f(rot["angle_difference"]), 7)
        self.circle_formula.set_html(
            f"pair i = {live(i)} = (x[{live(a)}], x[{live(b)}]), θ<sub>i</sub> = "
            f"{live(sig(_f(freq['theta']), 6))} rad per "
            f"position, λ<sub>i</sub> = {live(sig(_f(freq['wavelength']), 6))} positions<br>"
            + span(st, "query", f"m·θ<sub>i</sub> = {live(am)} rad "
                   f"≡ {live(_deg(turn_m, sign=False))}")
            + ", &nbsp; "
            + span(st, "key", f"n·θ<sub>i</sub> = {live(an)} rad "
                   f"≡ {live(_deg(turn_n, sign=False))}")
            # (a no-break space ends a line after a value: an upright neighbour, so the value
            # can be drawn over; at the end of a line it shows nothing)
            + f"&nbsp;<br>(m − n)·θ<sub>i</sub> = {live(ad)} rad ≡ "
            f"{live(_deg(_f(rot['angle_difference_wrapped'])))}; "
            + span(st, "accent", "∠ between the rotated pairs = ∠(q, k) + (m − n)θ"
                   f"<sub>i</sub> = {live(_deg(between))}")
            + "&nbsp;<br>pair share |q<sub>i</sub>||k<sub>i</sub>| cos ∠ = "
            f"{live(_fixed(q_len, 4, False))} · {live(_fixed(k_len, 4, False))} · "
            f"{live(_fixed(math.cos(between), 5))} = "
            f"<b>{live(_fixed(_f(sc['pair_score']), 5))}</b>"
        )  # fmt: skip
        ctx.record("theta", _f(freq["theta"]), "θ_i", "rad/position")
        ctx.record("pair_score", _f(sc["pair_score"]), "pair i's share of the score")

    def _refresh_invariance(self, ctx: Context) -> None:
        v, pos, sc = ctx.values, ctx["positions"], ctx["scores"]
        m, n = v.as_int("m"), v.as_int("n")
        om, on = pos["origin_m"], pos["origin_n"]
        d = SCORE_DIGITS
        self.invariance_label.set_html(
            "<b>Score depends only on m − n</b>"
            + table_html(
                [
                    ("relative distance m − n", live(_int(pos["relative_distance"]))),
                    (f"score ⟨R<sub>m</sub>q, R<sub>n</sub>k⟩ at ({live(m)}, {live(n)})",
                     live(_fixed(_f(sc["score"]), d + 1))),
                    (
                        f"same distance at ({live(om)}, {live(on)})",
                        live(_fixed(_f(sc["score_at_origin"]), d + 1)),
                    ),
                    ("difference (rounding only)", live(_diff(_f(sc["score_difference"])))),
                    (f"share of pair {live(v.as_int('pair'))}",
                     live(_fixed(_f(sc["pair_score"]), 5))),
                    (f"sum of all {live(v.as_int('dim') // 2)} pair shares",
                     live(_fixed(_f(sc["pair_scores_sum"]), d + 1))),
                ]
            )
            + "<span>Move m and n together (lock) and the score does not change.</span>"
        )  # fmt: skip
        ctx.record("score", _f(sc["score"]), "score ⟨R_m q, R_n k⟩")
        ctx.record("score_at_origin", _f(sc["score_at_origin"]), "score at the origin")
        ctx.record("pair_scores", np.asarray(sc["pair_scores"]), "per-pair shares of the score")

    def _refresh_pair_readout(self, ctx: Context) -> None:
        rot, vec = ctx["frequency"], ctx["query_key"]
        self.pair_label.set_html(
            table_html(
                [
                    (
                        "θ<sub>i</sub> = base<sup>−2i/d</sup>, "
                        f"i = {live(ctx.values.as_int('pair'))}",
                        f"{live(sig(_f(rot['theta']), 6))} rad",
                    ),
                    ("wavelength λ = 2π/θ", f"{live(sig(_f(rot['wavelength']), 6))} positions"),
                    (
                        "|q|, |k|",
                        f"{live(_fixed(_f(vec['q_norm']), 4, False))}, "
                        f"{live(_fixed(_f(vec['k_norm']), 4, False))}",
                    ),
                ]
            )
        )
        ctx.record("theta", _f(rot["theta"]), "θ_i", "rad/position")
        ctx.record("wavelength", _f(rot["wavelength"]), "λ_i = 2π/θ_i", "positions")
        ctx.record("norms", [_f(vec["q_norm"]), _f(vec["k_norm"])], "|q|, |k|")

    def _refresh_typed_controls(self, ctx: Context) -> None:
        typed = ctx.values.as_str("vectors") == "typed"
        for name in TYPED_PARAMS:
            for suffix in ("slider", "spin", "label"):
                w = self.vec_box.findChild(QWidget, f"{name}_{suffix}")
                if w is not None and w.isEnabled() != typed:
                    w.setEnabled(typed)
        ctx.record("typed_enabled", float(typed), "typed pair controls enabled (1) or not (0)")

    # -- score vs distance ----------------------------------------------------------------------
    def _visible(self, rng: int) -> tuple[int, int, int]:
        """Integer distances ``a … b`` of the visible range and distances per pixel column."""
        vb = self.curve_plot.getPlotItem().getViewBox()
        lo, hi = vb.viewRange()[0]
        lo, hi = max(lo, -rng), min(hi, rng)
        a, b = math.ceil(lo), math.floor(hi)
        if b < a:
            a = b = round((lo + hi) / 2)
        count = b - a + 1
        columns = max(int(vb.width()), MIN_COLUMNS)
        group = 1 if count <= 2 * columns else -(-count // columns)
        return a, b, group

    def _curve_data(self, ctx: Context) -> dict[str, np.ndarray]:
        """Score and q = k score at every integer distance visible, binned per pixel column."""
        v = ctx.values
        rng = v.as_int("range_max")
        if rng != self._range_shown:  # a new range: show all of it (the zoom is reset)
            self._range_shown = rng
            pad = 0.02 * rng
            vb = self.curve_plot.getPlotItem().getViewBox()
            vb.setLimits(xMin=-rng - pad, xMax=rng + pad)
            styled.set_range(self.curve_plot, (-rng, rng), None)
            styled.apply_transform(self.decay_plot)  # x-linked
        a, b, group = self._visible(rng)
        q, k = ctx["qk"]
        base, lay = v.as_float("base"), rope_layout(v.as_str("layout"))
        key = (a, b, group, base, lay, q.numpy().tobytes(), k.numpy().tobytes())
        if key == self._curve_key:
            return self._curve
        kept = self._curves.get(key)
        if kept is not None:  # shown a few steps ago (a slider dragged back and forth)
            self._curves.move_to_end(key)
            self._curve_key, self._curve = key, kept
            self._curve_group = group
            return kept
        count = b - a + 1
        h_qk, h_kk = self._products(ctx["qk"], lay)

        def qk_envelope() -> tuple[np.ndarray, np.ndarray]:
            return _minmax(_even_score_range(h_kk, base, a, b), group)

        if count * h_qk.shape[0] >= PARALLEL_TERMS:
            # two long matrix products: the q = k one on a second thread while this one does
            # the score (torch lets the GIL go meanwhile); the shared table is made first
            _phase_table(2 * h_qk.shape[0], base, SCORE_CHUNK)
            if self._curve_pool is None:
                self._curve_pool = ThreadPoolExecutor(1, thread_name_prefix="rope-curves")
            job = self._curve_pool.submit(qk_envelope)
            s_lo, s_hi = _minmax(_score_range(h_qk, base, a, count), group)
            k_lo, k_hi = job.result()
        else:
            s_lo, s_hi = _minmax(_score_range(h_qk, base, a, count), group)
            k_lo, k_hi = qk_envelope()
        first = a + group * np.arange(-(-count // group), dtype=np.float64)
        width = np.minimum(group, b + 1 - first)
        self._curve = {
            "x": first + (width - 1) / 2.0,
            "score_min": s_lo, "score_max": s_hi, "qk_min": k_lo, "qk_max": k_hi,
            "abs_max": np.maximum(np.abs(s_lo), np.abs(s_hi)),
            "abs_qk_max": np.maximum(np.abs(k_lo), np.abs(k_hi)),
            "range": np.array([a, b], dtype=np.int64),
        }  # fmt: skip
        self._curve_key = key
        self._curve_group = group
        self._curves[key] = self._curve
        if len(self._curves) > CURVES_KEPT:
            self._curves.popitem(last=False)
        return self._curve

    def _refresh_curves(self, ctx: Context) -> None:
        d = self._curve_data(ctx)
        x, group = d["x"], self._curve_group
        banded = group > 1
        for line, band, lo, hi in (
            (self.score_curve, self.score_band, d["score_min"], d["score_max"]),
            (self.qk_curve, self.qk_band, d["qk_min"], d["qk_max"]),
        ):
            shown, hidden = (band, line) if banded else (line, band)
            shown.setData(*_envelope(x, lo, hi, group), antialias=not banded,
                          connect="pairs" if banded else "all")  # fmt: skip
            if hidden.isVisible():
                hidden.setData(np.zeros(0), np.zeros(0))
                hidden.setVisible(False)
            shown.setVisible(True)
        extremes = (d["score_min"], d["score_max"], d["qk_min"], d["qk_max"])
        top = max(max(float(np.abs(e).max()) for e in extremes), 1e-12)
        # stable axes: a nice limit, kept while the curves fill more than 1/slack of it
        lim = _steady(1.08 * top, None if self._curve_yrange is None else self._curve_yrange[1],
                      CURVE_SLACK)  # fmt: skip
        yr = (-lim, lim)
        if yr != self._curve_yrange:
            self._curve_yrange = yr
            styled.set_range(self.curve_plot, None, yr)
        st = ctx.style
        styled.set_title(
            self.book, self.curve_plot,
            "Score vs relative distance: " + span(st, "query", "⟨R<sub>m</sub>q, R<sub>n</sub>k⟩")
            + " and " + span(st, "key", "q = k (the key)"),
        )  # fmt: skip
        ctx.record("distance", x, "relative distance r (centre of each pixel column)")
        ctx.record("score_min", d["score_min"], "score ⟨R_m q, R_n k⟩, minimum per column")
        ctx.record("score_max", d["score_max"], "score ⟨R_m q, R_n k⟩, maximum per column")
        ctx.record("score_qk_min", d["qk_min"], "score with q = k, minimum per column")
        ctx.record("score_qk_max", d["qk_max"], "score with q = k, maximum per column")
        ctx.record("distances_per_column", group, "integer distances per pixel column")

    def _decay_key(self, ctx: Context) -> tuple[Any, ...]:
        d = self._curve_data(ctx)
        a, b = (int(t) for t in d["range"])
        dim = ctx.values.as_int("dim")
        sums = self._bound_sums((dim, ctx.values.as_float("base"), a, b, self._curve_group))
        coeff = _f(ctx["query_key"]["bound_coefficient"])
        return (_Same(d), _Same(sums), coeff, dim)

    def _refresh_decay(self, ctx: Context) -> None:
        d = self._curve_data(ctx)
        v, vec = ctx.values, ctx["query_key"]
        x, group = d["x"], self._curve_group
        coeff = _f(vec["bound_coefficient"])
        half = v.as_int("dim") // 2
        peak = coeff * half * (half + 1) / 2  # the bound at r = 0, its largest value
        top = max(float(d["abs_max"].max()), float(d["abs_qk_max"].max()), 1e-12)
        floor = max(1e-7 * max(top, peak), 1e-300)
        # one point per pixel column: antialiasing such a dense curve costs ~5x, shows nothing
        smooth = group <= 1
        self.abs_curve.setData(x, np.log10(np.maximum(d["abs_max"], floor)), antialias=smooth)
        self.abs_qk_curve.setData(x, np.log10(np.maximum(d["abs_qk_max"], floor)), antialias=smooth)
        a, b = (int(t) for t in d["range"])
        key = (v.as_int("dim"), v.as_float("base"), a, b, group)
        sums = self._bound_sums(key)
        if sums is None:  # on its way from the worker thread
            self.bound_curve.setVisible(False)
        else:
            bound = coeff * sums
            self.bound_curve.setData(x, np.log10(np.maximum(bound, floor)), antialias=smooth)
            self.bound_curve.setVisible(True)
            ctx.record("bound_max", bound, "eq. (37) bound, maximum per column")
        # whole decades: the axis stays put unless the data moves by a factor of ten
        yr = (
            float(math.floor(math.log10(max(floor, 1e-3 * top)))),
            float(math.ceil(math.log10(max(peak, top) * 1.5))),
        )
        if yr != self._decay_yrange:
            self._decay_yrange = yr
            styled.set_range(self.decay_plot, None, yr)
        st = ctx.style
        styled.retitle(
            self.book, self.decay_plot,
            "Long-term decay (log): " + span(st, "query", "|score|") + ", "
            + span(st, "key", "q = k") + ", " + span(st, "ink", "<b>bound eq. (37)</b>")
            + ("" if sums is not None else " (computing…)"),
        )  # fmt: skip
        ctx.record("distance", x, "relative distance r (centre of each pixel column)")
        ctx.record("abs_score_max", d["abs_max"], "|score|, maximum per column")
        ctx.record("abs_score_qk_max", d["abs_qk_max"], "|score| with q = k, maximum per column")

    def _x_shown(self) -> tuple[float, float]:
        """The distances the curve and decay plots show (linked x ranges)."""
        lo, hi = self.curve_plot.getPlotItem().getViewBox().viewRange()[0]
        return float(lo), float(hi)

    def _refresh_distance_marker(self, ctx: Context) -> None:
        pos, sc = ctx["positions"], ctx["scores"]
        dist = int(pos["relative_distance"])
        ys = [_f(sc["score"]), _f(sc["score_qk"])]
        lo, hi = self._x_shown()
        inside = lo <= dist <= hi
        # markers off the plots (m and n beyond the distances shown, most of a drag of m) are
        # moved once, out of sight, then left alone until the distance or the range brings
        # them back: moving them set both plots' scenes to work for no visible change
        if inside or self._marker_inside:
            self._marker_inside = inside
            styled.move_line(self.distance_line, float(dist))
            styled.move_line(self.decay_line, float(dist))
            self.curve_dots.setData([dist, dist], ys)
        ctx.record("distance", dist, "relative distance m − n")
        ctx.record("scores", ys, "score and q = k score at m − n")

    def _curve_formula_key(self, ctx: Context) -> tuple[Any, ...]:
        """What the formula below the score curves shows (not the pair: its steps skip it)."""
        pos, sc, vec, bd = ctx["positions"], ctx["scores"], ctx["query_key"], ctx["bound"]
        return (
            pos["relative_distance"], sc["score"], sc["score_qk"], vec["k_norm"],
            vec["bound_coefficient"], bd["relative_decay_bound"], bd["decay_bound"],
            ctx.values.as_int("range_max"), ctx.values.as_int("dim"), self._curve_group,
        )  # fmt: skip

    def _refresh_curve_formula(self, ctx: Context) -> None:
        v, pos, sc, vec, bd = (ctx.values, ctx["positions"], ctx["scores"], ctx["query_key"],
                               ctx["bound"])  # fmt: skip
        st = ctx.style
        rng = v.as_int("range_max")
        dist = int(pos["relative_distance"])
        in_range = abs(dist) <= rng
        group = self._curve_group
        self.curve_formula.set_html(
            f"score(r) = ⟨q, R<sub>−r</sub>k⟩ = Σ<sub>i</sub> Re(h<sub>i</sub> e<sup>i r θ"
            f"<sub>i</sub></sup>), &nbsp; h<sub>i</sub> = q<sub>i</sub>·conj(k<sub>i</sub>)<br>"
            f"at r = {live(_int(dist))}: "
            + span(st, "query", f"score = <b>{live(_fixed(_f(sc['score']), 7))}</b>")
            + ", " + span(st, "key", f"q = k: {live(_fixed(_f(sc['score_qk']), 5))}")
            + f" (at r = 0 it is |k|² = {live(_fixed(_f(vec['k_norm']) ** 2, 6, False))})"
            + ("" if in_range else f" — r is outside ±{rng}: raise the distance range")
            + "<br>"
            + (
                "every integer distance shown"
                if group <= 1
                else f"every integer distance computed; each pixel column shows the min–max of "
                f"its {live(group)} distances (zoom with the wheel to resolve fast pairs)"
            )
            + "; " + span(st, "ink", "bound eq. (37)")
            + f": max|h<sub>i+1</sub> − h<sub>i</sub>| · Σ<sub>j</sub>|S<sub>j"
            f"</sub>(r)| = {live(_fixed(_f(vec['bound_coefficient']), 4, False))} · "
            f"{live(v.as_int('dim') // 2)}·{live(_fixed(_f(bd['relative_decay_bound']), 4, False))}"
            " = "
            f"{live(sig(_f(bd['decay_bound']), 5))} ≥ |score|"
        )  # fmt: skip
        ctx.record("decay_bound", _f(bd["decay_bound"]), "eq. (37) bound at r = m − n")

    # -- the eq. (37) bound on a worker thread ----------------------------------------------------
    def _bound_sums(self, key: tuple[Any, ...]) -> np.ndarray | None:
        """Per-column maximum of ``Σ_j |S_j(r)|`` for ``key``, or None while it is computed."""
        done = self._bound_results.get(key)
        if done is not None:
            return done
        dim, _, a, b, _ = key
        if (max(-a, b, b - a) + 1) * (dim // 2) <= SYNC_BOUND_TERMS:
            return self._compute_bound(key, wanted=False)
        self._request_bound(key)
        return None

    def _compute_bound(self, key: tuple[Any, ...], *, wanted: bool) -> np.ndarray | None:
        """The per-column maxima of the Abel sums (None when no longer wanted)."""
        dim, base, a, b, group = key
        if a >= 0:
            lo, n = a, b - a + 1
        elif b <= 0:
            lo, n = -b, b - a + 1
        else:  # A(−r) = A(r): compute each |r| once
            lo, n = 0, max(-a, b) + 1
        sums = np.empty(n, dtype=np.float64)
        for s in range(0, n, BOUND_BLOCK):
            if wanted and self._bound_want != key:
                return None  # superseded by a newer request: stop early
            c = min(BOUND_BLOCK, n - s)
            # on the worker: long torch operations (few hand-overs of the GIL, which a slider
            # step in the GUI thread would otherwise wait for); in the refresh: small, fast ones
            chunk = WORKER_CHUNK if wanted else SYNC_CHUNK
            sums[s : s + c] = rope_abel_sums(lo + s, c, dim, base, chunk=chunk).numpy()
        values = sums[np.abs(np.arange(a, b + 1)) - lo]
        result = _minmax(values, group)[1]
        if len(self._bound_results) > 16:
            self._bound_results.clear()
        self._bound_results[key] = result
        return result

    def _request_bound(self, key: tuple[Any, ...]) -> None:
        self._bound_want = key
        if self._bound_future is not None and not self._bound_future.done():
            return  # the running job stops early; its end asks for this key again
        if self._executor is None:
            self._executor = ThreadPoolExecutor(
                1, thread_name_prefix="rope-bound", initializer=_lower_thread_priority
            )
        fut = self._executor.submit(self._compute_bound, key, wanted=True)
        fut.add_done_callback(self._bound_job_ended)
        self._bound_future = fut

    def _bound_job_ended(self, _: object) -> None:
        """Worker thread: tell the GUI thread (queued) that the decay view can refresh."""
        try:
            if shiboken6.isValid(self._relay):
                self._relay.done.emit()
        except RuntimeError:  # the panel is gone
            pass

    def _on_bound_done(self) -> None:
        self.invalidate("bound_ready")

    def stop_work(self) -> None:
        """Cancel the background bound (the running job stops at its next block) and the
        curve job, and wait for both threads to end; later requests start new ones."""
        self._bound_want = None
        for pool in (self._executor, self._curve_pool):
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        self._executor = self._curve_pool = None
        self._bound_future = None

    def settle(self) -> None:
        """Finish background work now and refresh (rendering, tests, exports): the bound still
        wanted is computed here, at the GUI thread's priority (the worker, at the lowest one,
        may wait long for a core on a busy machine) and the worker's job is cancelled."""
        self.flush()  # pending changes first: they decide which bound is wanted
        want = self._bound_want
        if want is not None and want not in self._bound_results:
            self._bound_want = None  # the running job stops at its next block
            self._compute_bound(want, wanted=False)
        self.invalidate("bound_ready")
        self.flush()

    def refresh_all(self) -> None:
        """Refresh every view now, including the background bound (a complete picture)."""
        super().refresh_all()
        self.settle()

    # -- score matrix ---------------------------------------------------------------------------
    def _refresh_matrix(self, ctx: Context) -> None:
        v = ctx.values
        size, win = v.as_int("window"), ctx["matrix_window"]
        m0, n0 = int(win["window_m_start"]), int(win["window_n_start"])
        q, k = ctx["qk"]
        base, lay = v.as_float("base"), rope_layout(v.as_str("layout"))
        d0 = m0 - n0
        key = (d0, size, base, lay, q.numpy().tobytes(), k.numpy().tobytes())
        if key != self._matrix_key:
            self._matrix_key = key
            row = _score_range(self._products(ctx["qk"], lay)[0], base, d0 - size + 1, 2 * size - 1)
            # S[a, b] = row[a − b + size − 1] (Toeplitz, as rope_score_toeplitz)
            self._matrix, self._matrix_rev = _toeplitz(row, size)
            # a steady level: it changes only when the window's maximum leaves (level/2, level]
            # (the colour bar, whose axis is then redrawn, always states it)
            self._level = _steady(float(np.abs(row).max()), self._level or None, LEVEL_SLACK)
            level = self._level
            self.matrix_image.setImage(self._matrix, autoLevels=False, levels=(-level, level))
            if tuple(self.matrix_bar.levels()) != (-level, level):  # its axis is redrawn
                self.matrix_bar.setLevels((-level, level))
        if (m0, n0, size) != self._window_shown:
            self._window_shown = (m0, n0, size)
            self.matrix_image.setRect(float(n0), float(m0), float(size), float(size))
            styled.set_range(self.matrix_plot, (n0, n0 + size), (m0, m0 + size))
        ctx.record("matrix", self._matrix, "score S[m, n] over the window")
        ctx.record("levels", [-self._level, self._level], "colour-bar range")
        ctx.record("window_start", [m0, n0], "first query and key positions of the window")

    def _matrix_row(self, image: np.ndarray) -> np.ndarray | None:
        """The reversed float32 row of the matrix when ``image`` is the matrix shown (or
        pyqtgraph's whole view of it: see :class:`~posenc_gui.widgets.render.ColourImage`), else
        None."""
        mat = self._matrix
        same = image is mat or (
            image.base is mat and image.shape == mat.shape and image.strides == mat.strides
            and image.ctypes.data == mat.ctypes.data
        )  # fmt: skip
        return self._matrix_rev if same else None

    def _products(
        self, qk: tuple[torch.Tensor, torch.Tensor], lay: str
    ) -> tuple[np.ndarray, np.ndarray]:
        """``h_i = q_i·conj(k_i)`` and ``|k_i|²`` (complex128) of the pairs of ``layout``,
        kept while q, k (the same derived tensors) and the layout are unchanged."""
        if self._h_src is not qk or self._h_layout != lay:
            q, k = qk
            qc = rope_complex_pairs(q, rope_layout(lay)).numpy()
            kc = rope_complex_pairs(k, rope_layout(lay)).numpy()
            self._h = (qc * np.conj(kc), (kc * np.conj(kc)).real.astype(np.complex128))
            self._h_src, self._h_layout = qk, lay
        return self._h

    def _refresh_matrix_marker(self, ctx: Context) -> None:
        v = ctx.values
        size, win = v.as_int("window"), ctx["matrix_window"]
        m0, n0 = int(win["window_m_start"]), int(win["window_n_start"])
        m, n = v.as_int("m"), v.as_int("n")
        dist = m - n
        x_lo, x_hi = max(n0, m0 - dist), min(n0 + size, m0 + size - dist)
        if x_hi > x_lo:
            xs = np.array([x_lo, x_hi], dtype=np.float64)
            self.diagonal_line.setData(xs, xs + dist)
        else:
            self.diagonal_line.setData(np.zeros(0), np.zeros(0))
        self.matrix_dot.setData([n + 0.5], [m + 0.5])
        ctx.record("cell", [m, n], "the cell (m, n)")

    # -- layouts --------------------------------------------------------------------------------
    def _refresh_layouts(self, ctx: Context) -> None:
        v, r, st = ctx.values, ctx["layouts"], ctx.style
        current = v.as_str("layout")
        perm = _perm_text(v.as_int("dim"))

        def row(name: str, value: str, diff: str, active: bool) -> str:
            weight = "bold" if active else "normal"
            return (
                f"<tr style='font-weight:{weight}'><td style='padding-right:14px'>{name}</td>"
                f"<td align='right' style='padding-right:14px'>{value}</td>"
                f"<td align='right'>{diff}</td></tr>"
            )

        d = SCORE_DIGITS
        rows = (
            row(
                "interleaved (x[2i], x[2i+1])", live(_fixed(_f(r["score_interleaved"]), d + 1)),
                "reference", current == LAYOUTS[0],
            )
            + row(
                "half (x[i], x[i+d/2])", live(_fixed(_f(r["score_half"]), d + 1)),
                f"differs by {live(_fixed(-_f(r['layout_difference']), 5))}",
                current == LAYOUTS[1],
            )
            + row(
                f"half after permuting q, k by [{live(perm)}]",
                live(_fixed(_f(r["score_half_permuted"]), d + 1)),
                f"differs by {live(_diff(-_f(r['permuted_difference'])))}", False,
            )
        )  # fmt: skip
        self.layout_label.set_html(
            "<b>Same q, k, m, n through the two pair layouts</b> — "
            + span(st, "bad", "<b>the most common RoPE bug in real code</b>")
            + ": weights trained with one layout run by code that uses the other (Hugging Face's "
            "LLaMA conversion permutes the q/k projection rows for exactly this reason)."
            "<table cellspacing='0' cellpadding='2'>"
            "<tr><th align='left'>layout</th><th align='right'>score</th><th></th></tr>"
            f"{rows}</table>"
        )
        ctx.record(
            "scores",
            [_f(r["score_interleaved"]), _f(r["score_half"]), _f(r["score_half_permuted"])],
            "score: interleaved, half, half after the layout permutation",
        )


class _Memo(Context):
    """The context of one view run with each derived quantity looked up once in ``shared``
    (a lookup builds its inputs' key from their reprs; the views of a flush, and the key and
    the refresh of each, ask for the same ones). A quantity the view did not declare still
    raises :class:`KeyError`."""

    def __init__(self, ctx: Context, shared: dict[str, Any]) -> None:
        self.__dict__.update(ctx.__dict__)
        self._memo = shared

    def __getitem__(self, name: str) -> Any:
        if name not in self._declared:
            return super().__getitem__(name)  # raises KeyError
        try:
            return self._memo[name]
        except KeyError:
            value = self._memo[name] = super().__getitem__(name)
            return value


class _Same:
    """Equal to another ``_Same`` holding the very same object (arrays have no plain ``==``)."""

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.obj is self.obj

    __hash__ = None  # type: ignore[assignment]


def tip_label_positions(
    tips: Mapping[str, tuple[float, float]], big: float
) -> dict[str, tuple[float, float]]:
    """Where the arrow-tip labels go: just past each tip, pushed outwards when they would overlap.

    Labels are placed in the order of ``tips``; one that comes closer than ``0.22·big`` to a
    placed label moves out along its arrow in steps of ``0.24·big`` (at m = n = 0 the arrows
    before and after rotation coincide, and with q = k all four do).
    """
    placed: dict[str, tuple[float, float]] = {}
    for key, (tx, ty) in tips.items():
        length = math.hypot(tx, ty)
        ang = math.atan2(ty, tx) if length > 0 else 0.0
        radius = length + 0.13 * big
        for _ in range(len(tips) + 1):
            x, y = radius * math.cos(ang), radius * math.sin(ang)
            if all(math.hypot(x - px, y - py) >= 0.22 * big for px, py in placed.values()):
                break
            radius += 0.24 * big
        placed[key] = (radius * math.cos(ang), radius * math.sin(ang))
    return placed


def _steady(need: float, current: float | None, slack: float) -> float:
    """A limit that covers ``need`` and changes rarely: ``current`` while ``need <= current <=
    slack·need``, else the nice limit :func:`~posenc_gui.core.rope.nice_ceil` of ``need``.

    A slider step that changes the data a little keeps the axes (no tick labels redrawn); the
    data always fits and fills more than ``1/slack`` of the range.
    """
    if current is not None and need <= current <= slack * need:
        return current
    return nice_ceil(need)


def _line(
    book: StyleBook, w: pg.PlotWidget, role: str, width: str, line: LineStyle = "solid"
) -> styled.PixelCurve:
    """An empty line of ``role`` as a house :class:`~posenc_gui.widgets.styled.PixelCurve`,
    like :func:`styled.pixel_curve` with a ``line`` style (dashes, dots).

    pyqtgraph's ``PlotCurveItem`` in the app's segmented line mode draws the same segments
    with the same pen (a dash pattern starts again at each segment in both), through the view
    transform and after its per-set bookkeeping; this one maps them to pixels with numpy.
    """
    item = styled.PixelCurve()
    w.addItem(item)
    book.add(lambda st: item.setPen(st.pen(role, width, line)))
    return item


#: Which segments of an arrow (shaft, then the two strokes of its head) are drawn.
_ARROW_CONNECT = np.array([True, False, True, True, False])


def _arrow(x: float, y: float, head: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`styled.arrow_xy` from the origin to ``(x, y)`` as points and segment flags for a
    :class:`~posenc_gui.widgets.styled.PixelCurve` (the segments of ``connect="finite"``)."""
    xs, ys = styled.arrow_xy(0.0, 0.0, x, y, head=head)
    if len(xs) < 2:  # no length: nothing to draw
        return xs, ys, np.zeros(len(xs), dtype=bool)
    keep = np.isfinite(xs)
    return xs[keep], ys[keep], _ARROW_CONNECT


def _lower_thread_priority() -> None:
    """Run the calling (worker) thread at the lowest CPU priority, where the OS allows it.

    The background bound (~0.4 s at d = 512 over ±100,000) competes with the GUI thread for
    the cores; at nice 19 it takes what the GUI thread leaves, so slider steps taken meanwhile
    are not slowed down. Linux applies ``setpriority`` to a single thread.
    """
    with contextlib.suppress(AttributeError, OSError):  # elsewhere: normal priority
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)


def _envelope(
    x: np.ndarray, lo: np.ndarray, hi: np.ndarray, group: int
) -> tuple[np.ndarray, np.ndarray]:
    """The line through the values (one per distance), or one segment per pixel column from its
    min to its max (``connect="pairs"``): a continuous curve takes every value in between."""
    if group <= 1:
        return x, hi
    return np.repeat(x, 2), np.column_stack((lo, hi)).ravel()


def _put(
    item: styled.PixelCurve,
    key: tuple[float, ...],
    make: Callable[[], tuple[np.ndarray, ...]],
) -> None:
    """``item.setData(x, y[, connect])`` from ``make()`` unless ``key`` (what the data is made
    from) is unchanged: new data drops the item's cached pixels and repaints it."""
    if getattr(item, "_rope_key", None) != key:
        x, y, *connect = make()
        item.setData(x, y, connect=connect[0] if connect else "all")
        item._rope_key = key


def _place(item: styled.PixelText, text: str, x: float, y: float) -> None:
    item.set_html(text)
    item.place(x, y)


def _place_polar(item: styled.PixelText, text: str, radius: float, angle: float) -> None:
    _place(item, text, radius * math.cos(angle), radius * math.sin(angle))


@lru_cache(maxsize=64)
def _perm_text(dim: int) -> str:
    """The layout permutation of ``dim``, written out for small d and abbreviated for large d
    (cached: every m, n or seed step writes it again)."""
    perm: list[int] = core.layout_permutation(dim).tolist()
    if len(perm) <= 8:
        return ", ".join(str(v) for v in perm)
    half = len(perm) // 2
    return (
        f"{perm[0]}, {perm[1]}, …, {perm[half - 1]}, {perm[half]}, {perm[half + 1]}, …, {perm[-1]}"
    )


def _fixed(x: float, digits: int, sign: bool = True) -> str:
    """``x`` with ``digits`` digits in all (as many decimals as its integer part leaves), with
    an explicit sign (``+``/``−``) when ``sign``: ``+2.72935221``, ``−17.9080915``.

    A read-out's value then keeps its width from step to step (digits, ``+`` and ``−`` are
    equally wide) while its magnitude stays below ``10^digits`` (the digit groups of
    :mod:`~posenc_gui.widgets.fmt` add a narrow space from five integer digits on), and the
    read-out draws the new value over the old one (a :class:`LiveText`). Below 1 the
    ``0`` before the point counts as a digit. Formatted by :func:`fmt.num` / :func:`fmt.signed`
    (minus sign, groups, no negative zero, scientific for tiny and huge values).
    """
    ax = abs(x)
    whole = 1 if not math.isfinite(ax) or ax < 1 else math.floor(math.log10(ax)) + 1
    decimals = max(digits - whole, 0)
    if decimals and round(ax, decimals) >= 10.0**whole:  # 9.9999… rounds up to 10.000
        decimals -= 1
    return signed(x, decimals) if sign else num(x, decimals)


def _int(n: int) -> str:
    """A signed whole number: ``+17 642``, ``−3``, ``0`` (real minus sign, digit groups)."""
    return ("+" if n > 0 else "") + integer(n)


def _deg(rad: float, sign: bool = True) -> str:
    """An angle given in radians, shown in degrees with five digits in all (``+176.32°``,
    ``−98.301°``, ``5.1200°``: the same width at every angle below 1000°; see
    :func:`_fixed`)."""
    return _fixed(math.degrees(rad), 5, sign) + "°"


def _diff(x: float) -> str:
    """A difference that should be zero: "0 (exact)" or its (tiny) value."""
    return "0 (exact)" if x == 0 else signed(x, 2)


def _f(x: object) -> float:
    assert isinstance(x, int | float)
    return float(x)


def _pair(x: object) -> tuple[float, float]:
    assert isinstance(x, list) and len(x) == 2
    return float(x[0]), float(x[1])


def _arc(radius: float, a0: float, a1: float) -> tuple[np.ndarray, np.ndarray]:
    t = np.linspace(a0, a1, max(2, int(abs(a1 - a0) / TAU * 180) + 2))
    return radius * np.cos(t), radius * np.sin(t)


PANEL = RopePanel
