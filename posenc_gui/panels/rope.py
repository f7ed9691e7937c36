"""RoPE playground: a query at position m and a key at position n, rotated pair by pair.

Top left: the selected pair of q and k before (dashed) and after (solid) rotation by ``m·θ_i``
and ``n·θ_i`` on a circle. Top right: the score ``<R_m q, R_n k>`` as a function of the relative
distance ``r = m − n`` only (one row, computed at the plot's pixel resolution for the visible
range) with a draggable marker at the current distance. Bottom left: the score matrix over a
window of (m, n), built from that one row (Toeplitz: constant along diagonals). Bottom right:
the long-term decay, ``|score|`` against the RoFormer bound of eq. (37), on a log axis.
The side column shows the invariance (same distance at the origin, computed independently) and
the interleaved-vs-half layout check.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
import torch
from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QScrollArea, QVBoxLayout, QWidget

from posenc_gui import core
from posenc_gui.panels.base import Panel
from posenc_gui.state.rope import (
    LAYOUTS,
    MAX_POSITION,
    TAU,
    RopeModel,
    bound_coefficient,
)
from posenc_gui.widgets import plots
from posenc_gui.widgets.controls import ControlGroup
from posenc_gui.widgets.fmt import num, sig, signed
from posenc_gui.widgets.plots import BLACK, BLUE, GREEN, GREY, VERMILLION, FormulaLabel, make_plot

#: At most this many distances are sampled across the visible part of the score-vs-distance
#: plots; fewer on a narrow plot (two per pixel of the plot's width, at least MIN_SAMPLES).
CURVE_SAMPLES = 2000
MIN_SAMPLES = 400
#: Digits after the decimal point for the scores in the invariance readout.
SCORE_DIGITS = 8
TYPED_PARAMS = ("q0", "q1", "k0", "k1")


def _layout(name: str) -> core.RopeLayout:
    return "interleaved" if name == "interleaved" else "half"


def nice_ceil(x: float) -> float:
    """Smallest 'nice' number (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k) >= ``x`` (1 for x <= 0)."""
    if not math.isfinite(x) or x <= 0:
        return 1.0
    e = math.floor(math.log10(x))
    for c in (1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0):
        v = c * 10.0**e
        if x <= v * (1 + 1e-12):
            return v
    return 10.0 ** (e + 1)


def curve_offsets(lo: float, hi: float, samples: int = CURVE_SAMPLES) -> np.ndarray:
    """Integer distances covering ``[lo, hi]``: all of them if few, else ``samples`` of them."""
    a, b = math.ceil(lo), math.floor(hi)
    if b < a:
        return np.array([round((lo + hi) / 2)], dtype=np.float64)
    if b - a + 1 <= samples:
        return np.arange(a, b + 1, dtype=np.float64)
    return np.unique(np.round(np.linspace(a, b, samples)))


def score_matrix(row: np.ndarray, size: int) -> np.ndarray:
    """``S[a, b] = row[a − b + size − 1]``: the Toeplitz matrix of one row of 2·size − 1 scores."""
    a = np.arange(size)
    return np.ascontiguousarray(row[a[:, None] - a[None, :] + size - 1], dtype=np.float32)


class RopePanel(Panel):
    """The ``rope`` tab."""

    model = RopeModel

    def build(self) -> None:
        s = self.state
        self._last_mn = (s.as_int("m"), s.as_int("n"))
        self._locking = False
        self._curve_key: tuple[object, ...] | None = None
        self._range_max_shown: int | None = None
        self._curve_step = 1.0
        self.readouts_cache: dict[str, Any] = {}
        self.curve_arrays: tuple[np.ndarray, ...] = ()
        self.matrix_levels = 1.0
        self.matrix_data = np.zeros((1, 1), dtype=np.float32)

        # ---- side column: controls and readouts --------------------------------------------
        pos_box = self.controls("Positions", "m", "n", "lock")
        self.invariance_label = FormulaLabel("invariance_readout", self)
        freq_box = self.controls("Frequencies and layout", "dim", "base", "pair", "layout")
        self.pair_label = FormulaLabel("pair_readout", self)
        self.vec_box: ControlGroup = self.controls("Query and key vectors", "vectors", "seed")
        self.vec_box.add_all(*TYPED_PARAMS)
        view_box = self.controls("Views", "range_max", "window")
        side = QVBoxLayout()
        for w in (pos_box, self.invariance_label, freq_box, self.pair_label, self.vec_box):
            side.addWidget(w)
        side.addWidget(view_box)
        side.addStretch(1)
        side_widget = QWidget(self)
        side_widget.setLayout(side)
        scroll = QScrollArea(self)
        scroll.setObjectName("rope_side_scroll")
        scroll.setWidget(side_widget)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setMinimumWidth(450)
        scroll.setMaximumWidth(520)

        # ---- circle of the selected pair -----------------------------------------------------
        self.circle_plot = make_plot(
            self, "circle_plot", "Pair i before and after rotation", "1st component",
            "2nd component",
        )  # fmt: skip
        self.circle_plot.setAspectLocked(True)
        self.circle_plot.setMouseEnabled(x=False, y=False)
        self.circle_plot.hideButtons()
        self.q_circle = plots.curve(self.circle_plot, GREY, 1.2)
        self.q_circle.setPen(plots.pen(BLUE, 1.0, Qt.PenStyle.DotLine))
        self.k_circle = plots.curve(self.circle_plot, GREY, 1.2)
        self.k_circle.setPen(plots.pen(VERMILLION, 1.0, Qt.PenStyle.DotLine))
        self.q_arc = plots.curve(self.circle_plot, BLUE, 2.0)
        self.k_arc = plots.curve(self.circle_plot, VERMILLION, 2.0)
        self.between_arc = plots.curve(self.circle_plot, GREEN, 3.0)
        self.q_before = plots.curve(self.circle_plot, BLUE, 2.0, connect="finite")
        self.q_before.setPen(plots.pen(BLUE, 2.0, Qt.PenStyle.DashLine))
        self.k_before = plots.curve(self.circle_plot, VERMILLION, 2.0, connect="finite")
        self.k_before.setPen(plots.pen(VERMILLION, 2.0, Qt.PenStyle.DashLine))
        self.q_after = plots.curve(self.circle_plot, BLUE, 4.0, connect="finite")
        self.k_after = plots.curve(self.circle_plot, VERMILLION, 4.0, connect="finite")
        # labels at the arrow tips (instead of a legend that would cover the circle)
        self.tip_texts = {
            key: plots.text_item(self.circle_plot, color, anchor=(0.5, 0.5))
            for key, color in (
                ("q", BLUE), ("k", VERMILLION), ("Rq", BLUE), ("Rk", VERMILLION)
            )
        }  # fmt: skip
        self.q_arc_text = plots.text_item(self.circle_plot, BLUE, anchor=(0.5, 0.5))
        self.k_arc_text = plots.text_item(self.circle_plot, VERMILLION, anchor=(0.5, 0.5))
        self.between_text = plots.text_item(self.circle_plot, GREEN, anchor=(0.5, 0.5))
        self.circle_formula = FormulaLabel("circle_formula", self)

        # ---- score vs relative distance ------------------------------------------------------
        self.curve_plot = make_plot(
            self, "score_curve_plot", "Score vs relative distance (depends on m − n only)",
            "relative distance r = m − n", "score", legend=True,
        )  # fmt: skip
        self.curve_plot.setMouseEnabled(x=True, y=False)
        self.score_curve = plots.curve(self.curve_plot, BLUE, 2.0, name="score ⟨R_m q, R_n k⟩")
        self.qk_curve = plots.curve(self.curve_plot, VERMILLION, 1.5, name="q = k (the key)")
        self.distance_line = pg.InfiniteLine(
            angle=90, movable=True, pen=plots.pen(BLACK, 1.5, Qt.PenStyle.DashLine),
            hoverPen=plots.pen(BLACK, 3),
        )  # fmt: skip
        self.distance_line.setToolTip("Drag to change the distance m − n (keeps m, moves n)")
        self.curve_plot.addItem(self.distance_line)
        self.distance_line.sigPositionChanged.connect(self._distance_dragged)
        self.curve_dots = plots.dots(self.curve_plot, BLACK, 12)
        self.curve_plot.sigXRangeChanged.connect(self._view_changed)
        self.curve_formula = FormulaLabel("curve_formula", self)

        # ---- long-term decay (log) -----------------------------------------------------------
        self.decay_plot = make_plot(
            self, "decay_plot", "Long-term decay: |score| and the RoFormer bound (log scale)",
            "relative distance r = m − n", "|score|", legend=True,
        )  # fmt: skip
        self.decay_plot.setLogMode(x=False, y=True)
        self.decay_plot.setMouseEnabled(x=True, y=False)
        self.decay_plot.setXLink(self.curve_plot)
        self.abs_curve = plots.curve(self.decay_plot, BLUE, 1.5, name="|score|")
        self.abs_qk_curve = plots.curve(self.decay_plot, VERMILLION, 1.2, name="|score|, q = k")
        self.bound_curve = plots.curve(self.decay_plot, BLACK, 2.5, name="bound, eq. (37)")
        self.decay_line = pg.InfiniteLine(angle=90, pen=plots.pen(BLACK, 1.5, Qt.PenStyle.DashLine))
        self.decay_plot.addItem(self.decay_line)

        # ---- score matrix --------------------------------------------------------------------
        self.matrix_plot = make_plot(
            self, "score_matrix_plot", "Score matrix S[m, n]",
            "key position n", "query position m",
        )  # fmt: skip
        self.matrix_plot.invertY(True)
        self.matrix_plot.setMouseEnabled(x=False, y=False)
        self.matrix_plot.hideButtons()
        self.matrix_image, self.matrix_bar = plots.heatmap(
            self.matrix_plot, (-1.0, 1.0), plots.DIVERGING, label="score"
        )
        self.matrix_plot.getPlotItem().showGrid(x=False, y=False)
        self.diagonal_line = plots.curve(self.matrix_plot, BLACK, 1.5)
        self.diagonal_line.setPen(plots.pen(BLACK, 1.5, Qt.PenStyle.DashLine))
        self.matrix_dot = plots.dots(self.matrix_plot, BLACK, 12)
        self.matrix_plot.scene().sigMouseClicked.connect(self._matrix_clicked)
        self.matrix_plot.setToolTip(
            "Click a cell to move the query to row m and the key to column n"
        )

        # ---- layout comparison ---------------------------------------------------------------
        self.layout_label = FormulaLabel("layout_readout", self)

        # ---- layout ----------------------------------------------------------------------
        grid = QGridLayout()
        grid.addWidget(self.circle_plot, 0, 0)
        grid.addWidget(self.curve_plot, 0, 1)
        grid.addWidget(self.circle_formula, 1, 0)
        grid.addWidget(self.curve_formula, 1, 1)
        grid.addWidget(self.matrix_plot, 2, 0)
        grid.addWidget(self.decay_plot, 2, 1)
        grid.addWidget(self.layout_label, 3, 0, 1, 2)
        grid.setColumnStretch(0, 4)
        grid.setColumnStretch(1, 5)
        grid.setRowStretch(0, 5)
        grid.setRowStretch(2, 5)
        root = QHBoxLayout(self)
        root.addWidget(scroll)
        root.addLayout(grid, 1)

        # lock distance: a state handler, so every way of changing m or n obeys it
        s.changed.connect(self._on_positions)
        self.destroyed.connect(self._disconnect_positions)
        # recompute the curves when the visible distance range changes (coalesced)
        self._curve_timer = QTimer(self)
        self._curve_timer.setSingleShot(True)
        self._curve_timer.setInterval(0)
        self._curve_timer.timeout.connect(self._refresh_curves)

    # -- lock distance ------------------------------------------------------------------------
    def _disconnect_positions(self, *_: object) -> None:
        self.state.changed.disconnect(self._on_positions)

    def _on_positions(self, name: str, value: object) -> None:
        """With ``lock`` on, a change of m alone moves n by the same amount (and vice versa)."""
        if name not in ("m", "n"):
            return
        s = self.state
        m, n = s.as_int("m"), s.as_int("n")
        lm, ln = self._last_mn
        self._last_mn = (m, n)
        dm, dn = m - lm, n - ln
        if self._locking or not s.get("lock") or (dm != 0) == (dn != 0):
            return  # not locked, our own correction, or both moved in one update
        dist = lm - ln
        if dm:
            new_n = min(max(n + dm, 0), MAX_POSITION)
            new_m = new_n + dist
        else:
            new_m = min(max(m + dn, 0), MAX_POSITION)
            new_n = new_m - dist
        self._locking = True
        try:
            s.update({"m": new_m, "n": new_n})
        finally:
            self._locking = False

    # -- plot interaction -> state ------------------------------------------------------------
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

    def _distance_dragged(self) -> None:
        rng = self.state.as_int("range_max")
        r = round(min(max(float(self.distance_line.value()), -rng), rng))
        self._set_distance(r)

    def _matrix_clicked(self, event: object) -> None:
        pos = event.scenePos()  # type: ignore[attr-defined]
        vb = self.matrix_plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            return
        p: QPointF = vb.mapSceneToView(pos)
        r = self.readouts_cache
        size = self.state.as_int("window")
        col, row = math.floor(p.x()), math.floor(p.y())
        m0, n0 = int(r["window_m_start"]), int(r["window_n_start"])
        if m0 <= row < m0 + size and n0 <= col < n0 + size:
            self.state.update({"m": min(row, MAX_POSITION), "n": min(col, MAX_POSITION)})

    def _view_changed(self, *_: object) -> None:
        if not self._curve_timer.isActive():
            self._curve_timer.start()

    # -- state -> plots -----------------------------------------------------------------------
    def refresh(self) -> None:
        s = self.state
        r = s.readouts()
        self.readouts_cache = r
        self._last_mn = (s.as_int("m"), s.as_int("n"))
        typed = s.get("vectors") == "typed"
        for name in TYPED_PARAMS:
            for suffix in ("slider", "spin", "label"):
                w = self.vec_box.findChild(QWidget, f"{name}_{suffix}")
                if w is not None:
                    w.setEnabled(typed)
        self._q, self._k = RopeModel.vectors(s.values())
        self._refresh_circle(r)
        self._refresh_readouts(r)
        rng = s.as_int("range_max")
        if rng != self._range_max_shown:
            self._range_max_shown = rng
            pad = 0.02 * rng
            vb = self.curve_plot.getPlotItem().getViewBox()
            vb.setLimits(xMin=-rng - pad, xMax=rng + pad)
            self.curve_plot.setXRange(-rng, rng, padding=0.0)
        self._refresh_curves()
        self._refresh_matrix(r)
        self._refresh_layouts(r)

    def _refresh_circle(self, r: dict[str, Any]) -> None:
        qp, kp = _pair(r["q_pair"]), _pair(r["k_pair"])
        qr, kr = _pair(r["q_pair_rotated"]), _pair(r["k_pair_rotated"])
        q_len, k_len = math.hypot(*qp), math.hypot(*kp)
        big = max(q_len, k_len, 1e-9)
        head = 0.09 * big
        self.q_circle.setData(*plots.circle_xy(q_len))
        self.k_circle.setData(*plots.circle_xy(k_len))
        self.q_before.setData(*plots.arrow_xy(0.0, 0.0, *qp, head=head))
        self.k_before.setData(*plots.arrow_xy(0.0, 0.0, *kp, head=head))
        self.q_after.setData(*plots.arrow_xy(0.0, 0.0, *qr, head=head))
        self.k_after.setData(*plots.arrow_xy(0.0, 0.0, *kr, head=head))
        for key, tip, text in (
            ("q", qp, "q"), ("k", kp, "k"),
            ("Rq", qr, "R<sub>m</sub>q"), ("Rk", kr, "R<sub>n</sub>k"),
        ):  # fmt: skip
            length = math.hypot(*tip)
            ang = math.atan2(tip[1], tip[0]) if length > 0 else 0.0
            self._place(self.tip_texts[key], text, length + 0.13 * big, ang)
        a_q, a_k = _f(r["angle_q"]), _f(r["angle_k"])
        turn_m = _f(r["angle_m"]) % TAU
        turn_n = _f(r["angle_n"]) % TAU
        rq, rk = 0.42 * big, 0.28 * big
        self.q_arc.setData(*_arc(rq, a_q, a_q + turn_m))
        self.k_arc.setData(*_arc(rk, a_k, a_k + turn_n))
        start = a_k + turn_n
        between = _f(r["angle_between_rotated"])
        self.between_arc.setData(*_arc(0.62 * big, start, start + between))
        self._place(self.q_arc_text, "mθ<sub>i</sub>", rq + 0.1 * big, a_q + turn_m / 2)
        self._place(self.k_arc_text, "nθ<sub>i</sub>", rk + 0.1 * big, a_k + turn_n / 2)
        self._place(self.between_text, "∠", 0.62 * big + 0.1 * big, start + between / 2)
        lim = 1.22 * big
        self.circle_plot.setXRange(-lim, lim, padding=0)
        self.circle_plot.setYRange(-lim, lim, padding=0)
        i = self.state.as_int("pair")
        self.circle_plot.setTitle(f"Pair i = {i} before and after rotation", size=plots.TITLE_PT)
        a, b = r["pair_indices"]
        self.circle_formula.set_html(
            f"pair i = {i} = (x[{a}], x[{b}]), θ<sub>i</sub> = {sig(_f(r['theta']), 6)} rad per "
            f"position, λ<sub>i</sub> = {sig(_f(r['wavelength']), 6)} positions<br>"
            f"<span style='color:{BLUE}'>m·θ<sub>i</sub> = {sig(_f(r['angle_m']), 7)} rad "
            f"≡ {_deg(turn_m)}</span>, &nbsp; "
            f"<span style='color:{VERMILLION}'>n·θ<sub>i</sub> = {sig(_f(r['angle_n']), 7)} rad "
            f"≡ {_deg(turn_n)}</span><br>"
            f"(m − n)·θ<sub>i</sub> = {sig(_f(r['angle_difference']), 7)} rad ≡ "
            f"{_deg(_f(r['angle_difference_wrapped']))}; "
            f"<span style='color:{GREEN}'>∠ between the rotated pairs = ∠(q, k) + (m − n)θ"
            f"<sub>i</sub> = {_deg(between)}</span><br>"
            f"pair share |q<sub>i</sub>||k<sub>i</sub>| cos ∠ = {num(q_len, 3)} · "
            f"{num(k_len, 3)} · {num(math.cos(between), 4)} = <b>{signed(_f(r['pair_score']))}"
            "</b>"
        )

    def _place(self, item: pg.TextItem, text: str, radius: float, angle: float) -> None:
        item.setHtml(text)
        item.setPos(radius * math.cos(angle), radius * math.sin(angle))

    def _refresh_readouts(self, r: dict[str, Any]) -> None:
        s = self.state
        m, n = s.as_int("m"), s.as_int("n")
        om, on = r["origin_m"], r["origin_n"]
        d = SCORE_DIGITS
        self.invariance_label.set_html(
            "<b>Score depends only on m − n</b>"
            + plots.table_html(
                [
                    ("relative distance m − n", f"{r['relative_distance']}"),
                    (f"score ⟨R<sub>{m}</sub>q, R<sub>{n}</sub>k⟩", signed(_f(r["score"]), d)),
                    (
                        f"same distance at origin ⟨R<sub>{om}</sub>q, R<sub>{on}</sub>k⟩",
                        signed(_f(r["score_at_origin"]), d),
                    ),
                    ("difference (rounding only)", _diff(_f(r["score_difference"]))),
                    (
                        f"pair {s.as_int('pair')}'s share of the score",
                        signed(_f(r["pair_score"]), 4),
                    ),
                    (
                        f"sum of all {s.as_int('dim') // 2} pair shares",
                        signed(_f(r["pair_scores_sum"]), d),
                    ),
                ]
            )
            + "<span>Move m and n together (lock) and the score does not change.</span>"
        )
        self.pair_label.set_html(
            plots.table_html(
                [
                    (
                        f"θ<sub>{s.as_int('pair')}</sub> = base<sup>−2i/d</sup>",
                        f"{sig(_f(r['theta']), 6)} rad",
                    ),
                    ("wavelength λ = 2π/θ", f"{sig(_f(r['wavelength']), 6)} positions"),
                    ("|q|, |k|", f"{num(_f(r['q_norm']), 3)}, {num(_f(r['k_norm']), 3)}"),
                ]
            )
        )

    def _refresh_curves(self) -> None:
        """Score vs distance for the visible range, at the plot's resolution."""
        s = self.state
        rng = s.as_int("range_max")
        lo, hi = self.curve_plot.getPlotItem().getViewBox().viewRange()[0]
        lo, hi = max(lo, -rng), min(hi, rng)
        samples = int(
            min(
                CURVE_SAMPLES,
                max(MIN_SAMPLES, 2 * self.curve_plot.getPlotItem().getViewBox().width()),
            )
        )
        key = (
            lo, hi, samples, rng, s.as_int("dim"), s.as_float("base"), s.get("layout"),
            tuple(self._q.tolist()), tuple(self._k.tolist()),
        )  # fmt: skip
        r = self.readouts_cache
        dist = int(r["relative_distance"])
        _set_line(self.distance_line, float(dist))
        self.decay_line.setValue(float(dist))
        self.curve_dots.setData([dist, dist], [_f(r["score"]), _f(r["score_qk"])])
        if key != self._curve_key:
            self._curve_key = key
            self._compute_curves(lo, hi, samples)
        step = self._curve_step
        in_range = abs(dist) <= rng
        self.curve_formula.set_html(
            f"score(r) = ⟨q, R<sub>−r</sub>k⟩ = Σ<sub>i</sub> Re(h<sub>i</sub> e<sup>i r θ"
            f"<sub>i</sub></sup>), &nbsp; h<sub>i</sub> = q<sub>i</sub>·conj(k<sub>i</sub>)<br>"
            f"at r = {dist}: score = <b>{signed(_f(r['score']), 6)}</b>, q = k: "
            f"{signed(_f(r['score_qk']), 4)} (at r = 0 it is |k|² = "
            f"{num(_f(r['k_norm']) ** 2, 4)})"
            + ("" if in_range else f" — r is outside ±{rng}: raise the distance range")
            + "<br>"
            + (
                "every integer distance shown"
                if step <= 1
                else f"sampled every ~{sig(step, 3)} positions (zoom with the wheel to resolve "
                "fast pairs)"
            )
            + f"; bound eq. (37): max|h<sub>i+1</sub> − h<sub>i</sub>| · Σ<sub>j</sub>|S<sub>j"
            f"</sub>(r)| = {num(_f(r['bound_coefficient']), 3)} · "
            f"{s.as_int('dim') // 2}·{num(_f(r['relative_decay_bound']), 3)} = "
            f"{sig(_f(r['decay_bound']), 5)} ≥ |score|"
        )

    def _compute_curves(self, lo: float, hi: float, samples: int) -> None:
        s = self.state
        base, layout = s.as_float("base"), _layout(str(s.get("layout")))
        dim = s.as_int("dim")
        offs = curve_offsets(lo, hi, samples)
        self._curve_step = (offs[-1] - offs[0]) / max(len(offs) - 1, 1) if len(offs) > 1 else 1.0
        t = torch.from_numpy(offs)
        q, k = self._q, self._k
        sc = core.rope_score_by_offset(q, k, t, base=base, layout=layout).numpy()
        sqk = core.rope_score_by_offset(k, k, t, base=base, layout=layout).numpy()
        coeff = bound_coefficient(q, k, str(s.get("layout")))
        bound = coeff * (dim // 2) * core.rope_decay_bound(t, dim, base).numpy()
        self.score_curve.setData(offs, sc)
        self.qk_curve.setData(offs, sqk)
        top = max(float(np.abs(sc).max()), float(np.abs(sqk).max()), 1e-12)
        self.curve_plot.setYRange(-1.08 * top, 1.08 * top, padding=0)
        floor = max(1e-7 * max(top, float(bound.max())), 1e-300)
        self.abs_curve.setData(offs, np.maximum(np.abs(sc), floor))
        self.abs_qk_curve.setData(offs, np.maximum(np.abs(sqk), floor))
        self.bound_curve.setData(offs, np.maximum(bound, floor))
        ylo = max(floor, 1e-3 * top)
        yhi = max(float(bound.max()), top) * 1.5
        self.decay_plot.setYRange(math.log10(ylo), math.log10(yhi), padding=0)
        self.curve_arrays = (offs, sc, sqk, bound)

    def _refresh_matrix(self, r: dict[str, Any]) -> None:
        s = self.state
        size = s.as_int("window")
        m0, n0 = int(_f(r["window_m_start"])), int(_f(r["window_n_start"]))
        d0 = m0 - n0
        offs = torch.arange(d0 - size + 1, d0 + size, dtype=torch.float64)
        row = core.rope_score_by_offset(
            self._q, self._k, offs, base=s.as_float("base"), layout=_layout(str(s.get("layout")))
        ).numpy()
        mat = score_matrix(row, size)
        level = nice_ceil(float(np.abs(row).max()))
        self.matrix_image.setImage(mat, autoLevels=False, levels=(-level, level))
        self.matrix_bar.setLevels((-level, level))
        self.matrix_image.setRect(float(n0), float(m0), float(size), float(size))
        self.matrix_plot.setXRange(n0, n0 + size, padding=0)
        self.matrix_plot.setYRange(m0, m0 + size, padding=0)
        m, n = s.as_int("m"), s.as_int("n")
        dist = m - n
        x_lo, x_hi = max(n0, m0 - dist), min(n0 + size, m0 + size - dist)
        if x_hi > x_lo:
            self.diagonal_line.setData([x_lo, x_hi], [x_lo + dist, x_hi + dist])
        else:
            self.diagonal_line.setData([], [])
        self.matrix_dot.setData([n + 0.5], [m + 0.5])
        self.matrix_levels = level
        self.matrix_data = mat

    def _refresh_layouts(self, r: dict[str, Any]) -> None:
        current = str(self.state.get("layout"))
        dim = self.state.as_int("dim")
        perm = ", ".join(str(v) for v in core.layout_permutation(min(dim, 8)).tolist()[:6])

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
                "interleaved (x[2i], x[2i+1])", signed(_f(r["score_interleaved"]), d),
                "reference", current == LAYOUTS[0],
            )
            + row(
                "half (x[i], x[i+d/2])", signed(_f(r["score_half"]), d),
                f"differs by {signed(-_f(r['layout_difference']), 4)}", current == LAYOUTS[1],
            )
            + row(
                f"half after permuting q, k by [{perm}, …]",
                signed(_f(r["score_half_permuted"]), d),
                f"differs by {_diff(-_f(r['permuted_difference']))}", False,
            )
        )  # fmt: skip
        self.layout_label.set_html(
            "<b>Same q, k, m, n through the two pair layouts</b> — "
            "<span style='color:#B00000'><b>the most common RoPE bug in real code</b></span>: "
            "weights trained with one layout run by code that uses the other (Hugging Face's "
            "LLaMA conversion permutes the q/k projection rows for exactly this reason)."
            "<table cellspacing='0' cellpadding='2'>"
            "<tr><th align='left'>layout</th><th align='right'>score</th><th></th></tr>"
            f"{rows}</table>"
        )


def _deg(rad: float) -> str:
    """An angle given in radians, shown in degrees with two decimals."""
    return f"{math.degrees(rad):.2f}°".replace("-", "−")


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


def _set_line(line: pg.InfiniteLine, value: float) -> None:
    """Move a draggable line without echoing the move back into the state."""
    if abs(float(line.value()) - value) > 1e-12:
        line.blockSignals(True)
        try:
            line.setValue(value)
        finally:
            line.blockSignals(False)


PANEL = RopePanel
