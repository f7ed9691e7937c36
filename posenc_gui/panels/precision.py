"""Precision: RoPE's angles, cos and sin in float32, bfloat16 and float16 against float64.

Side column: the position and the dtypes (angle, table), which error the plots show, the pair,
d and base; the score's distance, shift range and vectors. Grid: top left the error of every
pair at ``m`` (log axis; one curve per dtype, each dtype's unit roundoff ``u`` as a dashed line;
errors of exactly 0 have no place on a log axis and are not drawn); top right the error of the
chosen pair against position (log axes; dotted lines where bfloat16 and float16 stop holding
whole numbers, the float16 overflow dashed, ``m`` solid); bottom left the score ``q_m·k_n`` at
the fixed distance ``r = m − n`` as ``m`` shifts (float64 flat, the others spread); bottom right
the read-out: the exact-integer limits, the position as each dtype holds it, the chosen
angle dtype's errors at ``m``, and Hugging Face's "cast after float32" against computing the
angle in the low dtype.

Views and their inputs: ``pairs`` (position, dim, base, table_dtype, quantity);
``position_error`` (pair, dim, base, table_dtype, quantity, position: the curves are set only
when the sweep changed, a position step moves the line); ``score`` (the ``scores`` group's
inputs); ``readout`` (``errors``, ``limits``, ``recipe``, position, pair, quantity). Every
number drawn or printed comes from :mod:`posenc_gui.state.precision`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pyqtgraph as pg

from posenc_gui.panels.base import Cell, Panel
from posenc_gui.state.precision import (
    DTYPES,
    LOW_DTYPES,
    RECIPE_DTYPES,
    SCORE_INPUTS,
    PrecisionModel,
    pair_errors,
    position_sweep,
    score_curves,
    table_of,
)
from posenc_gui.widgets import styled
from posenc_gui.widgets.fmt import integer, num, sig, superscript
from posenc_gui.widgets.render.view_range import ShownRange
from posenc_gui.widgets.style import Style
from posenc_gui.widgets.text import LiveText, live, span
from posenc_gui.widgets.views import Context, Same, Shown

#: The colour role of each dtype's curves and lines.
ROLES: dict[str, str] = {
    "float64": "ink", "float32": "query", "bfloat16": "key", "float16": "accent",
}  # fmt: skip
#: Line widths of the score curves (the others: normal).
SCORE_WIDTHS = {"float64": "thin"}
#: Errors below 10^FLOOR are drawn at it (the error axes end there).
FLOOR = -17.0
#: The error axes' top (log10): above π, the largest wrapped angle error.
TOP = 1.0
#: Share of the data's extent left on either side of an axis.
MARGIN = 0.02
#: The quantity's words in titles and labels.
WORDS = {"angle": "angle (wrapped)", "cos": "cos", "sin": "sin"}


class PrecisionPanel(Panel):
    """The ``precision`` tab."""

    model = PrecisionModel

    def build(self) -> None:
        b = self.book
        self.shown = Shown()

        where_box = self.controls("Position and dtypes", "position", "angle_dtype",
                                  "table_dtype", "quantity")  # fmt: skip
        rope_box = self.controls("RoPE", "pair", "dim", "base")
        score_box = self.controls("Score over shifts", "distance", "shift_range", "vectors",
                                  "seed", "q0", "q1", "k0", "k1")  # fmt: skip
        self.readout_label = LiveText("precision_readout", self, b)

        # ---- error per pair ------------------------------------------------------------------
        self.pair_plot = styled.plot(
            b, self, "precision_pair_plot", "Error of every pair at m (vs float64)",
            "pair i", "|error| (0: not drawn)", grid=False,
        )  # fmt: skip
        self.pair_plot.setLogMode(x=False, y=True)
        self.pair_plot.getAxis("left").setStyle(autoReduceTextSpace=False)
        self.pair_range = ShownRange(self.pair_plot)
        self.pair_curves = {t: styled.pixel_curve(b, self.pair_plot, ROLES[t], "line")
                            for t in LOW_DTYPES}  # fmt: skip
        self.pair_u = {t: styled.vline(b, self.pair_plot, ROLES[t], angle=0, line="dash")
                       for t in LOW_DTYPES}  # fmt: skip

        # ---- error against position -----------------------------------------------------------
        self.pos_plot = styled.plot(
            b, self, "precision_position_plot", "Error of pair i against position",
            "position m", "|error| (0: not drawn)", grid=False,
        )  # fmt: skip
        self.pos_plot.setLogMode(x=True, y=True)
        self.pos_plot.getAxis("left").setStyle(autoReduceTextSpace=False)
        self.pos_range = ShownRange(self.pos_plot)
        self.pos_curves = {t: styled.pixel_curve(b, self.pos_plot, ROLES[t], "thin")
                           for t in LOW_DTYPES}  # fmt: skip
        self.pos_limits = {t: styled.vline(b, self.pos_plot, ROLES[t], line="dot")
                           for t in ("bfloat16", "float16")}  # fmt: skip
        self.pos_overflow = styled.vline(b, self.pos_plot, ROLES["float16"], line="dash")
        self.pos_cursor = styled.vline(b, self.pos_plot, "ink", line="solid")

        # ---- score over shifts ----------------------------------------------------------------
        self.score_plot = styled.plot(
            b, self, "precision_score_plot", "Score at a fixed distance as m shifts",
            "query position m (n = m − r)", "q<sub>m</sub>·k<sub>n</sub>", grid=False,
        )  # fmt: skip
        self.score_plot.setLogMode(x=True, y=False)
        self.score_range = ShownRange(self.score_plot)
        # float32 over the low dtypes' wider spread, float64 (flat) thin on top of all
        self.score_curves = {
            t: styled.pixel_curve(
                b, self.score_plot, ROLES[t], "thin" if t == "float64" else "normal"
            )
            for t in ("float16", "bfloat16", "float32", "float64")
        }

        for plot in (self.pair_plot, self.pos_plot, self.score_plot):
            styled.cache_texts(plot)

        # ---- views ----------------------------------------------------------------------------
        self.view(
            "pairs",
            self.pair_plot,
            ("position", "dim", "base", "table_dtype", "quantity", "limits"),
            self._refresh_pairs,
        )
        self.view(
            "position_error",
            self.pos_plot,
            ("pair", "dim", "base", "table_dtype", "quantity", "position", "limits"),
            self._refresh_position,
        )
        self.view("score", self.score_plot, SCORE_INPUTS, self._refresh_score, key=_score_key)
        self.view("readout", self.readout_label,
                  ("errors", "limits", "recipe", "position", "pair", "quantity", "angle_dtype",
                   "table_dtype"), self._refresh_readout)  # fmt: skip

        self.place(
            [where_box, rope_box, score_box],
            [
                Cell(self.pair_plot, 0, 0), Cell(self.pos_plot, 0, 1),
                Cell(self.score_plot, 1, 0), Cell(self.readout_label, 1, 1),
            ],
            row_stretch={0: 1, 1: 1}, col_stretch={0: 1, 1: 1},
        )  # fmt: skip

    # -- error per pair ---------------------------------------------------------------------------
    def _refresh_pairs(self, ctx: Context) -> None:
        v = ctx.values
        quantity = v.as_str("quantity")
        errs = pair_errors(v.as_int("position"), v.as_int("dim"), v.as_float("base"),
                           v.as_str("table_dtype"))  # fmt: skip
        n = len(errs["float64"]["angle"])
        i = np.arange(n, dtype=np.float64)
        for t, curve in self.pair_curves.items():
            e = np.abs(np.asarray(errs[t][quantity], dtype=np.float64))
            x, y, connect = _log_points(i, e)
            curve.setData(x, y, connect=connect)
            ctx.record(f"error_{t}", np.nan_to_num(e, nan=0.0),
                       f"|{quantity} error| per pair, {t} (0 where it overflows)")  # fmt: skip
        xr = (-MARGIN * max(n - 1, 1), (1 + MARGIN) * max(n - 1, 1))
        us = [math.log10(ctx["limits"]["unit_roundoff"][t]) for t in LOW_DTYPES]
        for t, u in zip(LOW_DTYPES, us, strict=True):
            styled.move_line(self.pair_u[t], u)
        ys = [c.yData for c in self.pair_curves.values()]
        self.pair_range.show(xr, _decades([*ys, np.asarray(us)]))
        styled.retitle(self.book, self.pair_plot, f"|{WORDS[quantity]} error| of every pair at "
                       f"m: {_legend(ctx.style, LOW_DTYPES)} (dashed: u)")  # fmt: skip
        ctx.record("pair", i, "pair i")

    # -- error against position ------------------------------------------------------------------
    def _refresh_position(self, ctx: Context) -> None:
        v = ctx.values
        sweep = position_sweep(v.as_int("pair"), v.as_int("dim"), v.as_float("base"),
                               v.as_str("table_dtype"), v.as_str("quantity"))  # fmt: skip
        pos = np.asarray(sweep["positions"], dtype=np.float64)
        log_pos = np.log10(pos)
        lim = ctx["limits"]
        if self.shown.changed("sweep", Same(sweep)):
            for t, curve in self.pos_curves.items():
                e = np.abs(np.asarray(sweep[t], dtype=np.float64))
                x, y, connect = _log_points(log_pos, e)
                curve.setData(x, y, connect=connect)
            for t, line in self.pos_limits.items():
                styled.move_line(line, math.log10(lim["exact_integer_limit"][t]))
            styled.move_line(self.pos_overflow, math.log10(lim["largest_finite"]["float16"]))
            end = math.log10(float(sweep["end"]))
            ys = [c.yData for c in self.pos_curves.values()]
            self.pos_range.show((-MARGIN * end, (1 + MARGIN) * end), _decades(ys))
        styled.retitle(self.book, self.pos_plot,
                       f"|{WORDS[v.as_str('quantity')]} error| of pair {v.as_int('pair')} "
                       f"against position: {_legend(ctx.style, LOW_DTYPES)}")  # fmt: skip
        m = v.as_int("position")
        _place(self.pos_cursor, math.log10(m) if m > 0 else None)
        for t in LOW_DTYPES:
            e = np.abs(np.asarray(sweep[t], dtype=np.float64))
            ctx.record(
                f"error_{t}",
                np.nan_to_num(e, nan=0.0),
                f"|error| of pair {v.as_int('pair')}, {t} (0 where it overflows)",
            )
        ctx.record("position", pos, "position m (log-spaced samples)")

    # -- score over shifts ------------------------------------------------------------------------
    def _refresh_score(self, ctx: Context) -> None:
        c = score_curves(ctx.values)
        m = np.asarray(c["queries"], dtype=np.float64)
        log_m = np.log10(m)
        lows, highs = [], []
        for t, curve in self.score_curves.items():
            s = np.asarray(c["scores"][t], dtype=np.float64)
            ok = np.isfinite(s)
            curve.setData(log_m[ok], s[ok])
            if ok.any():
                lows.append(float(s[ok].min()))
                highs.append(float(s[ok].max()))
            ctx.record(f"score_{t}", np.nan_to_num(s, nan=0.0),
                       f"q_m·k_n, angles in {t} (0 where it overflows)")  # fmt: skip
        low, high = min(lows), max(highs)
        pad = max(0.03 * (high - low), 1e-6 * max(abs(high), abs(low), 1.0))
        x0, x1 = float(log_m[0]), float(log_m[-1])
        span_x = max(x1 - x0, 0.1)
        self.score_range.show((x0 - MARGIN * span_x, x1 + MARGIN * span_x),
                              (low - pad, high + pad))  # fmt: skip
        styled.retitle(self.book, self.score_plot,
                       f"Score at distance r = {ctx.values.as_int('distance')} as m shifts: "
                       f"{_legend(ctx.style, DTYPES)}")  # fmt: skip
        ctx.record("query_position", m, "query position m")

    # -- read-out ---------------------------------------------------------------------------------
    def _refresh_readout(self, ctx: Context) -> None:
        st, v = ctx.style, ctx.values
        lim, rec, err = ctx["limits"], ctx["recipe"], ctx["errors"]
        m, pair, quantity = v.as_int("position"), v.as_int("pair"), v.as_str("quantity")
        t = v.as_str("angle_dtype")
        table = table_of(t, v.as_str("table_dtype"))
        exact = ", ".join(
            span(st, ROLES[d], f"{d} {live(_power(lim['exact_integer_limit'][d]))}") for d in DTYPES
        )
        held = ", ".join(
            span(st, ROLES[d], f"{d} {live(_held(rec['position_in'][d]))}") for d in DTYPES
        )
        mine = np.abs(np.asarray(err[f"{quantity}_error"], dtype=np.float64))
        worst = "overflow" if np.isnan(mine).any() else _err(float(mine.max()))
        here = err[f"{quantity}_error"][pair] if pair < len(mine) else math.nan
        recipe = "; ".join(
            f"{span(st, ROLES[d], d)}: {live(_err(rec['cast_after_float32'][d]))} "
            f"vs {live(_err(rec['angle_in_low'][d]))}"
            for d in RECIPE_DTYPES
        )
        self.readout_label.set_html(
            f"Whole numbers held exactly up to: {exact}<br>"
            f"m = {live(integer(m))} is held as: {held}<br>"
            f"{span(st, ROLES[t], t)} angle, {table} table: largest |{WORDS[quantity]} error| "
            f"over the pairs {live(worst)}; pair {live(integer(pair))}: "
            f"{live(_err(abs(here)))}<br>"
            f"Largest |cos|, |sin| error at m, cast after float32 (HF) vs angle in the low "
            f"dtype: {recipe}"
        )
        ctx.record(
            "error_at_m",
            np.nan_to_num(mine, nan=0.0),
            f"|{quantity} error| per pair at m, {t} (0 where it overflows)",
        )
        ctx.record("exact_integer_limit",
                   np.array([lim["exact_integer_limit"][d] for d in DTYPES], dtype=np.float64),
                   "exact-integer limit, " + ", ".join(DTYPES))  # fmt: skip
        ctx.record(
            "cast_after_float32",
            np.array([rec["cast_after_float32"][d] for d in RECIPE_DTYPES]),
            "largest |cos|, |sin| error, cast after float32: " + ", ".join(RECIPE_DTYPES),
        )
        ctx.record("angle_in_low",
                   np.nan_to_num(np.array([rec["angle_in_low"][d] for d in RECIPE_DTYPES]),
                                 nan=0.0),
                   "largest |cos|, |sin| error, angle in low (0: overflow): "
                   + ", ".join(RECIPE_DTYPES))  # fmt: skip


# -- helpers --------------------------------------------------------------------------------------
def _score_key(ctx: Context) -> tuple[object, ...]:
    """The score plot shows the curves of :func:`score_curves` (kept by identity)."""
    return (Same(score_curves(ctx.values)),)


def _log_points(x: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The points of ``|e| > 0`` (finite) as ``x, log10|e|`` (clipped at :data:`FLOOR`), and
    where they join: a point joins the next only when no point between them was left out."""
    ok = np.isfinite(e) & (e > 0)
    idx = np.flatnonzero(ok)
    y = np.maximum(np.log10(e[idx]), FLOOR) if idx.size else np.zeros(0)
    connect = np.zeros(idx.size, dtype=bool)
    if idx.size > 1:
        connect[:-1] = np.diff(idx) == 1
    return x[idx], y, connect


def _legend(st: Style, dtypes: Iterable[str]) -> str:
    """The dtypes' names, each in its curves' colour (the plots' legend, in their titles)."""
    return " · ".join(span(st, ROLES[t], t) for t in dtypes)


def _decades(ys: Iterable[np.ndarray]) -> tuple[float, float]:
    """A log axis' ends: the decades around the values ``ys`` (logarithms) hold, else the
    floor and top."""
    finite = [y for y in ys if y.size]
    if not finite:
        return FLOOR, TOP
    lo = min(float(y.min()) for y in finite)
    hi = max(float(y.max()) for y in finite)
    return float(math.floor(lo + 1e-9)), float(max(math.ceil(hi - 1e-9), math.floor(lo) + 1))


def _place(line: pg.InfiniteLine, at: float | None) -> None:
    if line.isVisible() != (at is not None):
        line.setVisible(at is not None)
    if at is not None:
        styled.move_line(line, at)


def _power(n: int) -> str:
    """A power of two as ``2²⁴`` (in digits below 10⁵: ``2 048``)."""
    return integer(n) if n < 100_000 else f"2{superscript(round(math.log2(n)))}"


def _held(x: float | None) -> str:
    return "∞ (overflow)" if x is None else integer(x) if x == round(x) else num(x, 2)


def _err(x: float) -> str:
    if not math.isfinite(x):
        return "overflow"
    return "0" if x == 0 else sig(x, 3)


PANEL = PrecisionPanel
