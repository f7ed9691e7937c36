"""The RoPE tab's score curves over the relative distance, the long-term decay and its bound.

The curves follow q, k, base, layout, the distance range and the visible x range (``"x_range"``,
zoom and resize) — never m or n, which only move the markers. Every integer distance of the
visible range is computed; with more distances than pixel columns each column shows the min–max
of its distances (no peak, such as r = 0, is lost). The eq. (37) bound over a long range is
computed by a low-priority :class:`~posenc_gui.widgets.background.LatestJob` and appears when
done (``"bound_ready"``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from posenc_gui.core.rope import rope_abel_sums, rope_complex_pairs
from posenc_gui.core.rope_rows import (
    SCORE_CHUNK,
    minmax_runs,
    rope_even_score_row,
    rope_phase_table,
    rope_score_row,
)
from posenc_gui.panels.base import Panel
from posenc_gui.panels.rope.text import f, fixed, signed_int
from posenc_gui.state.rope import rope_layout
from posenc_gui.widgets import styled
from posenc_gui.widgets.background import LatestJob, SecondThread
from posenc_gui.widgets.fmt import sig
from posenc_gui.widgets.render.steady import SteadyLimit
from posenc_gui.widgets.render.view_range import ShownRange
from posenc_gui.widgets.text import LiveText, live, span
from posenc_gui.widgets.views import Context, Kept, Same, Shown

#: The curves are binned to at least this many pixel columns (before the plot is laid out).
MIN_COLUMNS = 400
#: Score curves (per-column envelopes) kept for a slider dragged back: the last ones computed.
CURVES_KEPT = 16
#: From this many (distance, pair) terms on, the q = k curve is computed on a second thread
#: while the GUI thread computes the score (~1.8 ms less per step at d = 512 over ±100,000 on
#: the 2-core reference machine); below, a thread hand-over costs more than it saves.
PARALLEL_TERMS = 2_000_000
#: The eq. (37) bound is computed in the refresh up to this many (distance, pair) terms.
SYNC_BOUND_TERMS = 300_000
#: Distances per block of the background bound (it checks between blocks whether still wanted).
BOUND_BLOCK = 8192
#: Distances per torch operation of the bound (:func:`rope_abel_sums`' ``chunk``): small in the
#: refresh (in the CPU cache: fastest), large on the worker thread (its Python between torch
#: calls holds the GIL: 128 distances per call slow the GUI thread's steps by ~1.5 ms).
SYNC_CHUNK = 128
WORKER_CHUNK = 2048
#: The score axis is kept while the curves fill more than 1/slack of it.
CURVE_SLACK = 2.0


def pair_products(q: torch.Tensor, k: torch.Tensor, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """``h_i = q_i·conj(k_i)`` and ``|k_i|²`` (complex128) of the pairs of ``layout``: the
    score at distance r is ``Σ_i Re(h_i e^{i r θ_i})``."""
    qc = rope_complex_pairs(q, rope_layout(layout)).numpy()
    kc = rope_complex_pairs(k, rope_layout(layout)).numpy()
    return qc * np.conj(kc), (kc * np.conj(kc)).real.astype(np.complex128)


def bound_sums(key: tuple[int, float, int, int, int], cancelled: Any = None) -> np.ndarray | None:
    """Per-column maximum of ``Σ_j |S_j(r)|`` (the Abel sums of eq. (37)) for ``key = (dim,
    base, a, b, group)``: distances ``a … b``, ``group`` per column. None when ``cancelled()``
    said to stop (checked between blocks; None: computed here, in small fast operations)."""
    dim, base, a, b, group = key
    if a >= 0:
        lo, n = a, b - a + 1
    elif b <= 0:
        lo, n = -b, b - a + 1
    else:  # A(−r) = A(r): compute each |r| once
        lo, n = 0, max(-a, b) + 1
    sums = np.empty(n, dtype=np.float64)
    # on the worker: long torch operations (few hand-overs of the GIL, which a slider step in
    # the GUI thread would otherwise wait for); in the refresh: small, fast ones
    chunk = SYNC_CHUNK if cancelled is None else WORKER_CHUNK
    for s in range(0, n, BOUND_BLOCK):
        if cancelled is not None and cancelled():
            return None  # superseded by a newer request: stop early
        c = min(BOUND_BLOCK, n - s)
        sums[s : s + c] = rope_abel_sums(lo + s, c, dim, base, chunk=chunk).numpy()
    values = sums[np.abs(np.arange(a, b + 1)) - lo]
    return minmax_runs(values, group)[1]


class CurveViews(Panel):
    """The score and decay plots and their views (part of :class:`~.panel.RopePanel`)."""

    curve_formula: LiveText

    def _build_curves(self) -> None:
        b = self.book
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
        self.curve_dots = styled.markers(b, self.curve_plot, "ink", "large")
        vb = self.curve_plot.getPlotItem().getViewBox()
        # zoom and resize: the columns are found again (a change that keeps them runs no view)
        vb.sigXRangeChanged.connect(self._x_range_changed)
        vb.sigResized.connect(self._x_range_changed)

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

        #: The envelopes shown and the last few computed (a slider dragged back and forth).
        self._curves = Kept(CURVES_KEPT)
        self._curve_range = ShownRange(self.curve_plot)
        self._curve_lim = SteadyLimit(CURVE_SLACK)
        self._decay_range = ShownRange(self.decay_plot)
        #: Where the distance markers were placed last (None: off the plots, out of sight).
        self._markers = Shown()
        #: The q = k curve over long ranges, beside the score (see PARALLEL_TERMS).
        self._second = SecondThread("rope-curves")
        #: The eq. (37) bound over long ranges: one low-priority worker, latest wins.
        self.bound_job = LatestJob("rope-bound", bound_sums, parent=self)
        self.bound_job.done.connect(self._on_bound_done)

    def _x_range_changed(self, *_: object) -> None:
        self.invalidate("x_range")

    def _x_shown(self) -> tuple[float, float]:
        """The distances the curve and decay plots show (linked x ranges)."""
        lo, hi = self.curve_plot.getPlotItem().getViewBox().viewRange()[0]
        return float(lo), float(hi)

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

    def _curve_data(self, ctx: Context) -> dict[str, Any]:
        """Score and q = k score at every integer distance visible, binned per pixel column."""
        v = ctx.values
        rng = v.as_int("range_max")
        if self._curve_range.x != (-rng, rng):  # a new range: show all of it (zoom reset)
            pad = 0.02 * rng
            vb = self.curve_plot.getPlotItem().getViewBox()
            vb.setLimits(xMin=-rng - pad, xMax=rng + pad)
            self._curve_range.show(x=(-rng, rng))
            styled.apply_transform(self.decay_plot)  # x-linked
        a, b, group = self._visible(rng)
        q, k = ctx["qk"]
        base, lay = v.as_float("base"), rope_layout(v.as_str("layout"))
        key = (a, b, group, base, lay, q.numpy().tobytes(), k.numpy().tobytes())
        curves: dict[str, Any] = self._curves.get(key, lambda: self._envelopes(ctx, a, b, group))
        return curves

    def _envelopes(self, ctx: Context, a: int, b: int, group: int) -> dict[str, Any]:
        base = ctx.values.as_float("base")
        count = b - a + 1
        h_qk, h_kk = ctx["products"]

        def score() -> tuple[np.ndarray, np.ndarray]:
            return minmax_runs(rope_score_row(h_qk, base, a, count), group)

        def qk_envelope() -> tuple[np.ndarray, np.ndarray]:
            return minmax_runs(rope_even_score_row(h_kk, base, a, b), group)

        if count * h_qk.shape[0] >= PARALLEL_TERMS:
            # two long matrix products: the q = k one on a second thread while this one does
            # the score (torch lets the GIL go meanwhile); the shared table is made first
            rope_phase_table(2 * h_qk.shape[0], base, SCORE_CHUNK)
            (s_lo, s_hi), (k_lo, k_hi) = self._second.beside(qk_envelope, score)
        else:
            (s_lo, s_hi), (k_lo, k_hi) = score(), qk_envelope()
        first = a + group * np.arange(-(-count // group), dtype=np.float64)
        width = np.minimum(group, b + 1 - first)
        return {
            "x": first + (width - 1) / 2.0,
            "score_min": s_lo, "score_max": s_hi, "qk_min": k_lo, "qk_max": k_hi,
            "abs_max": np.maximum(np.abs(s_lo), np.abs(s_hi)),
            "abs_qk_max": np.maximum(np.abs(k_lo), np.abs(k_hi)),
            "range": np.array([a, b], dtype=np.int64), "group": group,
        }  # fmt: skip

    def _curves_key(self, ctx: Context) -> object:
        return Same(self._curve_data(ctx))

    def _refresh_curves(self, ctx: Context) -> None:
        d = self._curve_data(ctx)
        x, group = d["x"], d["group"]
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
        lim, _ = self._curve_lim.fit(1.08 * top)
        self._curve_range.show(y=(-lim, lim))
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

    # -- long-term decay and the eq. (37) bound -------------------------------------------------
    def _bound_key(self, ctx: Context, d: dict[str, Any]) -> tuple[int, float, int, int, int]:
        a, b = (int(t) for t in d["range"])
        return (ctx.values.as_int("dim"), ctx.values.as_float("base"), a, b, d["group"])

    def _bound_sums(self, key: tuple[int, float, int, int, int]) -> np.ndarray | None:
        """Per-column maximum of ``Σ_j |S_j(r)|`` for ``key``, or None while it is computed."""
        done = self.bound_job.result(key)
        if done is not None:
            return done  # type: ignore[no-any-return]
        dim, _, a, b, _ = key
        if (max(-a, b, b - a) + 1) * (dim // 2) <= SYNC_BOUND_TERMS:
            return self.bound_job.compute_now(key)  # type: ignore[no-any-return]
        self.bound_job.request(key)
        return None

    def _on_bound_done(self) -> None:
        self.invalidate("bound_ready")

    def _decay_key(self, ctx: Context) -> object:
        d = self._curve_data(ctx)
        sums = self._bound_sums(self._bound_key(ctx, d))
        coeff = f(ctx["query_key"]["bound_coefficient"])
        return (Same(d), Same(sums), coeff, ctx.values.as_int("dim"))

    def _refresh_decay(self, ctx: Context) -> None:
        d = self._curve_data(ctx)
        v, vec = ctx.values, ctx["query_key"]
        x, group = d["x"], d["group"]
        coeff = f(vec["bound_coefficient"])
        half = v.as_int("dim") // 2
        peak = coeff * half * (half + 1) / 2  # the bound at r = 0, its largest value
        top = max(float(d["abs_max"].max()), float(d["abs_qk_max"].max()), 1e-12)
        floor = max(1e-7 * max(top, peak), 1e-300)
        # one point per pixel column: antialiasing such a dense curve costs ~5x, shows nothing
        smooth = group <= 1
        self.abs_curve.setData(x, np.log10(np.maximum(d["abs_max"], floor)), antialias=smooth)
        self.abs_qk_curve.setData(x, np.log10(np.maximum(d["abs_qk_max"], floor)), antialias=smooth)
        sums = self._bound_sums(self._bound_key(ctx, d))
        if sums is None:  # on its way from the worker thread
            self.bound_curve.setVisible(False)
        else:
            bound = coeff * sums
            self.bound_curve.setData(x, np.log10(np.maximum(bound, floor)), antialias=smooth)
            self.bound_curve.setVisible(True)
            ctx.record("bound_max", bound, "eq. (37) bound, maximum per column")
        # whole decades: the axis ends at the next decade over the data (a hair of room for
        # the line) and stays put unless the data move by a factor of ten
        self._decay_range.show(y=(
            float(math.floor(math.log10(max(floor, 1e-3 * top)))),
            float(math.ceil(math.log10(max(peak, top) * 1.02))),
        ))  # fmt: skip
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

    # -- the markers at the distance m − n and the formula -------------------------------------
    def _distance_marker_key(self, ctx: Context) -> object:
        pos, sc = ctx["positions"], ctx["scores"]
        return (pos["relative_distance"], sc["score"], sc["score_qk"], self._x_shown())

    def _refresh_distance_marker(self, ctx: Context) -> None:
        pos, sc = ctx["positions"], ctx["scores"]
        dist = int(pos["relative_distance"])
        ys = [f(sc["score"]), f(sc["score_qk"])]
        lo, hi = self._x_shown()
        inside = lo <= dist <= hi
        # markers off the plots (m and n beyond the distances shown, most of a drag of m) are
        # moved once, out of sight, then left alone until the distance or the range brings
        # them back: moving them set both plots' scenes to work for no visible change
        if self._markers.changed("at", (dist, ys) if inside else None):
            styled.move_line(self.distance_line, float(dist))
            styled.move_line(self.decay_line, float(dist))
            self.curve_dots.setData([dist, dist], ys)
        ctx.record("distance", dist, "relative distance m − n")
        ctx.record("scores", ys, "score and q = k score at m − n")

    def _curve_group(self) -> int:
        shown = self._curves.last
        return 1 if shown is None else int(shown["group"])

    def _curve_formula_key(self, ctx: Context) -> object:
        """What the formula below the score curves shows (not the pair: its steps skip it)."""
        pos, sc, vec, bd = ctx["positions"], ctx["scores"], ctx["query_key"], ctx["bound"]
        return (
            pos["relative_distance"], sc["score"], sc["score_qk"], vec["k_norm"],
            vec["bound_coefficient"], bd["relative_decay_bound"], bd["decay_bound"],
            ctx.values.as_int("range_max"), ctx.values.as_int("dim"), self._curve_group(),
        )  # fmt: skip

    def _refresh_curve_formula(self, ctx: Context) -> None:
        v, pos, sc, vec, bd = (ctx.values, ctx["positions"], ctx["scores"], ctx["query_key"],
                               ctx["bound"])  # fmt: skip
        st = ctx.style
        rng = v.as_int("range_max")
        dist = int(pos["relative_distance"])
        in_range = abs(dist) <= rng
        group = self._curve_group()
        self.curve_formula.set_html(
            f"score(r) = ⟨q, R<sub>−r</sub>k⟩ = Σ<sub>i</sub> Re(h<sub>i</sub> e<sup>i r θ"
            f"<sub>i</sub></sup>), &nbsp; h<sub>i</sub> = q<sub>i</sub>·conj(k<sub>i</sub>)<br>"
            f"at r = {live(signed_int(dist))}: "
            + span(st, "query", f"score = <b>{live(fixed(f(sc['score']), 7))}</b>")
            + ", " + span(st, "key", f"q = k: {live(fixed(f(sc['score_qk']), 5))}")
            + f" (at r = 0 it is |k|² = {live(fixed(f(vec['k_norm']) ** 2, 6, False))})"
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
            f"</sub>(r)| = {live(fixed(f(vec['bound_coefficient']), 4, False))} · "
            f"{live(v.as_int('dim') // 2)}·{live(fixed(f(bd['relative_decay_bound']), 4, False))}"
            " = "
            f"{live(sig(f(bd['decay_bound']), 5))} ≥ |score|"
        )  # fmt: skip
        ctx.record("decay_bound", f(bd["decay_bound"]), "eq. (37) bound at r = m − n")


def _envelope(
    x: np.ndarray, lo: np.ndarray, hi: np.ndarray, group: int
) -> tuple[np.ndarray, np.ndarray]:
    """The line through the values (one per distance), or one segment per pixel column from its
    min to its max (``connect="pairs"``): a continuous curve takes every value in between."""
    if group <= 1:
        return x, hi
    return np.repeat(x, 2), np.column_stack((lo, hi)).ravel()
