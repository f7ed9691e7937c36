"""The circle plot of the RoPE tab: the selected pair of q and k before and after rotation."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg

from posenc_gui.panels.base import Panel
from posenc_gui.panels.rope.text import drawn_angle, f, pair
from posenc_gui.state.rope import TAU
from posenc_gui.widgets import styled
from posenc_gui.widgets.render.keyed import KeyedCurve
from posenc_gui.widgets.render.occupancy import (
    Arc,
    Candidates,
    Line,
    LineGrid,
    arc_candidates,
    first_arc_spot,
    first_tip_spot,
    place_labels,
    tip_candidates,
)
from posenc_gui.widgets.render.steady import SteadyLimit
from posenc_gui.widgets.render.view_range import ShownRange
from posenc_gui.widgets.style import LineStyle, StyleBook
from posenc_gui.widgets.views import Context

#: The circle's range is kept while what it shows fills more than 1/slack of the view.
CIRCLE_SLACK = 1.2
#: Pixels between a label and what it names.
LABEL_GAP = 4.0
#: The side of a cell of the lines' occupancy grid (pixels), and at most this many cells a side.
CELL_PX = 4.0
MAX_CELLS = 160
#: Which segments of an arrow (shaft, then the two strokes of its head) are drawn.
_ARROW_CONNECT = np.array([True, False, True, True, False])


class CircleViews(Panel):
    """The circle plot's items and its view (part of :class:`~.panel.RopePanel`)."""

    def _build_circle(self) -> None:
        b = self.book
        self.circle_plot = styled.plot(
            b, self, "circle_plot", "Pair i before and after rotation", "1st component",
            "2nd component",
        )  # fmt: skip
        self.circle_plot.setAspectLocked(True)
        # every line is a KeyedCurve: set only when what it is made from changed (m moves R_m q
        # and its arc only), and its pixels kept while a step leaves it alone (kept_lines)
        self.q_circle = line(b, self.circle_plot, "query", "hair", "dot")
        self.k_circle = line(b, self.circle_plot, "key", "hair", "dot")
        self.q_arc = line(b, self.circle_plot, "query", "line")
        self.k_arc = line(b, self.circle_plot, "key", "line")
        self.between_arc = line(b, self.circle_plot, "accent", "bold")
        self.q_before = line(b, self.circle_plot, "query", "line", "dash")
        self.k_before = line(b, self.circle_plot, "key", "line", "dash")
        self.q_after = line(b, self.circle_plot, "query", "heavy")
        self.k_after = line(b, self.circle_plot, "key", "heavy")
        # labels at the arrow tips (instead of a legend that would cover the circle)
        # (drawn from kept pixels: they move with m, n and the pair at every step)
        self.tip_texts = {
            key: styled.pixel_text(b, self.circle_plot, role)
            for key, role in (("q", "query"), ("k", "key"), ("Rq", "query"), ("Rk", "key"))
        }
        self.q_arc_text = styled.pixel_text(b, self.circle_plot, "query")
        self.k_arc_text = styled.pixel_text(b, self.circle_plot, "key")
        self.between_text = styled.pixel_text(b, self.circle_plot, "accent")
        # what each label names (and may touch): its arrow, or its arc
        for key, named in (("q", self.q_before), ("k", self.k_before), ("Rq", self.q_after),
                           ("Rk", self.k_after)):  # fmt: skip
            self.tip_texts[key].set_names(named)
        self.q_arc_text.set_names(self.q_arc)
        self.k_arc_text.set_names(self.k_arc)
        self.between_text.set_names(self.between_arc)
        # the half range of the view's shorter side, kept while what it fits fills it
        self._circle_scale = SteadyLimit(CIRCLE_SLACK, ceil=close_ceil)
        self._circle_range = ShownRange(self.circle_plot)
        # where the lines run: the labels are placed clear of them
        self._circle_grid = LineGrid()
        self.circle_plot.getPlotItem().getViewBox().sigResized.connect(self._circle_resized)

    def _circle_resized(self, *_: object) -> None:
        self.invalidate("circle_size")

    def circle_view_size(self) -> tuple[float, float]:
        """Width and height of the circle's view (pixels; a guess before it has a size): the
        range and the labels are set for it."""
        vb = self.circle_plot.getPlotItem().getViewBox()
        w, h = float(vb.width()), float(vb.height())
        return (w, h) if w > 0 and h > 0 else (400.0, 400.0)

    def _refresh_circle(self, ctx: Context) -> None:
        vec, sc, rot = ctx["query_key"], ctx["scores"], ctx["rotation"]
        qp, kp = pair(vec["q_pair"]), pair(vec["k_pair"])
        qr, kr = pair(sc["q_pair_rotated"]), pair(sc["k_pair_rotated"])
        q_len, k_len = math.hypot(*qp), math.hypot(*kp)
        big = max(q_len, k_len, 1e-9)
        head = 0.09 * big
        self.q_circle.set_data_for((q_len,), lambda: styled.circle_xy(q_len))
        self.k_circle.set_data_for((k_len,), lambda: styled.circle_xy(k_len))
        self.q_before.set_data_for((*qp, head), lambda: arrow(*qp, head))
        self.k_before.set_data_for((*kp, head), lambda: arrow(*kp, head))
        self.q_after.set_data_for((*qr, head), lambda: arrow(*qr, head))
        self.k_after.set_data_for((*kr, head), lambda: arrow(*kr, head))
        tips = {"Rq": qr, "Rk": kr, "q": qp, "k": kp}
        texts = {"q": "q", "k": "k", "Rq": "R<sub>m</sub>q", "Rk": "R<sub>n</sub>k"}
        for key, text in texts.items():
            self.tip_texts[key].set_html(text)
        a_q, a_k = drawn_angle(vec["angle_q"]), drawn_angle(vec["angle_k"])
        turn_m, turn_n = f(rot["angle_m"]) % TAU, f(rot["angle_n"]) % TAU
        rq, rk = 0.42 * big, 0.28 * big
        self.q_arc.set_data_for((rq, a_q, turn_m), lambda: arc(rq, a_q, a_q + turn_m))
        self.k_arc.set_data_for((rk, a_k, turn_n), lambda: arc(rk, a_k, a_k + turn_n))
        start = a_k + turn_n
        between = drawn_angle(sc["angle_between_rotated"])
        rb = 0.62 * big
        self.between_arc.set_data_for((rb, start, between), lambda: arc(rb, start, start + between))
        arcs = {
            "mθ": (self.q_arc_text, "mθ<sub>i</sub>", a_q + turn_m / 2, rq),
            "nθ": (self.k_arc_text, "nθ<sub>i</sub>", a_k + turn_n / 2, rk),
            "∠": (self.between_text, "∠", start + between / 2, rb),
        }
        # an arc of no turn (m or n = 0 in this pair) has no label: there is nothing to name
        sweeps = {"mθ": turn_m, "nθ": turn_n, "∠": between}
        for key, (item, text, _, _) in arcs.items():
            item.set_html(text if abs(sweeps[key]) > 1e-6 else "")
        items = {**self.tip_texts, **{key: a[0] for key, a in arcs.items()}}
        # the scale (data per pixel) that fits the circles and a label's room past them
        w_px, h_px = self.circle_view_size()
        inks = [item.ink_size() for item in items.values()]
        room_y = LABEL_GAP + max(h for _, h in inks) + 4.0
        room_x = LABEL_GAP + max(w for w, _ in inks) + 4.0
        avail = max(min(0.5 * h_px - room_y, 0.5 * w_px - room_x), 0.25 * min(w_px, h_px))
        # the half range of the view's shorter side: a nice number, kept while it fits
        short = min(w_px, h_px)
        lim, _ = self._circle_scale.fit(0.5 * short * 1.03 * big / avail)
        per_px = 2.0 * lim / short
        hx, hy = 0.5 * per_px * w_px, 0.5 * per_px * h_px
        half = {key: _half_size(item, per_px) for key, item in items.items()}
        lines = (self.q_circle, self.k_circle, self.q_arc, self.k_arc, self.between_arc,
                 self.q_before, self.k_before, self.q_after, self.k_after)  # fmt: skip
        reach = 1.15 * big
        cell = max(CELL_PX * per_px, 2.0 * reach / MAX_CELLS)
        n = math.ceil(2.0 * reach / cell)
        grid = self._circle_grid
        # the circles and arcs as what they are (tested by a formula, not their hundreds of
        # segments), the arrows as their points
        shapes: list[Line | Arc] = [
            Arc(0.0, 0.0, q_len, 0.0, TAU),
            Arc(0.0, 0.0, k_len, 0.0, TAU),
            Arc(0.0, 0.0, rq, a_q, turn_m),
            Arc(0.0, 0.0, rk, a_k, turn_n),
            Arc(0.0, 0.0, rb, start, between),
        ]
        shapes += [(*ln.getData(), ln.opts["connect"]) for ln in lines[5:]]
        grid.rasterise(shapes, [ln.data_key for ln in lines], -reach, -reach, cell, n, n)
        # the cells a label's rectangle touches reach a cell past it: a cell more of gap
        gap = LABEL_GAP * per_px + cell
        # every label's spots, in order of preference: the first tried alone, the others
        # made only for a label whose first spot is taken
        shown = [key for key in arcs if items[key].html()]
        keys = [*tips, *shown]
        th = np.array([half[key] for key in tips])
        ah = np.array([half[key] for key in shown]).reshape(-1, 2)
        tip_xy = np.array(list(tips.values()))
        arc_rows = np.array([[arcs[k][2], arcs[k][3], sweeps[k]] for k in shown]).reshape(-1, 3)
        first = [
            first_tip_spot(x, y, w, h, gap)
            for (x, y), (w, h) in zip(tip_xy.tolist(), th.tolist(), strict=True)
        ]
        first += [
            first_arc_spot(mid, r, w, h, gap)
            for (mid, r, _), (w, h) in zip(arc_rows.tolist(), ah.tolist(), strict=True)
        ]

        def more(k: int) -> Candidates:
            if k < len(tips):
                x, y = tip_candidates(tip_xy[k : k + 1], th[k : k + 1], gap)
            else:
                j = k - len(tips)
                x, y = arc_candidates(arc_rows[j : j + 1], ah[j : j + 1], gap)
            return x[0], y[0]

        # what each label's other spots are made from: its tip, or its arc; its size; the gap
        made_from = [(*xy, *h, gap) for xy, h in zip(tip_xy.tolist(), th.tolist(), strict=True)]
        made_from += [(*a, *h, gap) for a, h in zip(arc_rows.tolist(), ah.tolist(), strict=True)]
        bounds = (-hx, -hy, hx, hy)
        placed = place_labels(grid, first, more, [half[k] for k in keys], bounds, keys, made_from)
        spots = dict(zip(keys, placed, strict=True))
        for key, (x, y) in spots.items():
            items[key].place(x, y)
        self._circle_range.show((-hx, hx), (-hy, hy))
        spots = {key: spots[key] for key in ("Rq", "Rk", "q", "k")}
        i = ctx.values.as_int("pair")
        # the same height whatever i: the text is set in place, without a layout pass of the plot
        styled.retitle(self.book, self.circle_plot, f"Pair i = {i} before and after rotation")
        ctx.record("q_pair", qp, "pair i of q (before rotation)")
        ctx.record("k_pair", kp, "pair i of k (before rotation)")
        ctx.record("q_pair_rotated", qr, "pair i of R_m q")
        ctx.record("k_pair_rotated", kr, "pair i of R_n k")
        ctx.record("tip_labels", np.array(list(spots.values())), "label positions q, k, Rq, Rk")


def close_ceil(x: float) -> float:
    """``x`` with a few per cent of room, rounded up to two significant digits: a modest
    margin (at most ~13 %), where a "nice" limit (1, 1.5, 2, 2.5, 3, 4, 5 …) leaves up to 33 %."""
    if x <= 0 or not math.isfinite(x):
        return 1.0
    step = 10.0 ** (math.floor(math.log10(1.03 * x)) - 1)
    return math.ceil(1.03 * x / step - 1e-9) * step


def _half_size(item: styled.PixelText, per_px: float) -> tuple[float, float]:
    """Half the size of ``item``'s text (margins left out, a pixel of air kept), in data units."""
    w, h = item.ink_size()
    return (0.5 * w + 1.0) * per_px, (0.5 * h + 1.0) * per_px


def line(
    book: StyleBook, w: pg.PlotWidget, role: str, width: str, style: LineStyle = "solid"
) -> KeyedCurve:
    """An empty :class:`~posenc_gui.widgets.render.keyed.KeyedCurve` of ``role`` on ``w``, in a
    ``style`` of line (dashes, dots)."""
    item = KeyedCurve()
    w.addItem(item)
    book.add(lambda st: item.setPen(st.pen(role, width, style)))
    return item


def arrow(x: float, y: float, head: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`styled.arrow_xy` from the origin to ``(x, y)`` as points and segment flags for a
    :class:`~posenc_gui.widgets.render.items.PixelCurve` (the segments of ``connect="finite"``)."""
    xs, ys = styled.arrow_xy(0.0, 0.0, x, y, head=head)
    if len(xs) < 2:  # no length: nothing to draw
        return xs, ys, np.zeros(len(xs), dtype=bool)
    keep = np.isfinite(xs)
    return xs[keep], ys[keep], _ARROW_CONNECT


def arc(radius: float, a0: float, a1: float) -> tuple[np.ndarray, np.ndarray]:
    """Points of an arc of ``radius`` from angle ``a0`` to ``a1`` (a segment per 2°)."""
    t = np.linspace(a0, a1, max(2, int(abs(a1 - a0) / TAU * 180) + 2))
    return radius * np.cos(t), radius * np.sin(t)
