"""The circle plot of the RoPE tab: the selected pair of q and k before and after rotation."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pyqtgraph as pg

from posenc_gui.panels.base import Panel
from posenc_gui.panels.rope.text import f, pair
from posenc_gui.state.rope import TAU
from posenc_gui.widgets import styled
from posenc_gui.widgets.render.keyed import KeyedCurve
from posenc_gui.widgets.render.steady import SteadyLimit
from posenc_gui.widgets.render.view_range import ShownRange
from posenc_gui.widgets.style import LineStyle, StyleBook
from posenc_gui.widgets.views import Context

#: The circle's range is kept while what it shows fills more than 1/slack of it.
CIRCLE_SLACK = 1.6
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
        self._circle_lim = SteadyLimit(CIRCLE_SLACK)
        self._circle_range = ShownRange(self.circle_plot)

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
        spots = tip_label_positions(tips, big)
        texts = {"q": "q", "k": "k", "Rq": "R<sub>m</sub>q", "Rk": "R<sub>n</sub>k"}
        for key, (x, y) in spots.items():
            _place(self.tip_texts[key], texts[key], x, y)
        a_q, a_k = f(vec["angle_q"]), f(vec["angle_k"])
        turn_m, turn_n = f(rot["angle_m"]) % TAU, f(rot["angle_n"]) % TAU
        rq, rk = 0.42 * big, 0.28 * big
        self.q_arc.set_data_for((rq, a_q, turn_m), lambda: arc(rq, a_q, a_q + turn_m))
        self.k_arc.set_data_for((rk, a_k, turn_n), lambda: arc(rk, a_k, a_k + turn_n))
        start = a_k + turn_n
        between = f(sc["angle_between_rotated"])
        rb = 0.62 * big
        self.between_arc.set_data_for((rb, start, between), lambda: arc(rb, start, start + between))
        _place_polar(self.q_arc_text, "mθ<sub>i</sub>", rq + 0.1 * big, a_q + turn_m / 2)
        _place_polar(self.k_arc_text, "nθ<sub>i</sub>", rk + 0.1 * big, a_k + turn_n / 2)
        _place_polar(self.between_text, "∠", 0.72 * big, start + between / 2)
        far = max(math.hypot(x, y) for x, y in spots.values())
        # a "nice" limit: the axes (and their cached pictures) stay put while m and n move
        need = 1.22 * big if far + 0.12 * big <= 1.22 * big else 2.0 * big
        lim, _ = self._circle_lim.fit(need)
        self._circle_range.show((-lim, lim), (-lim, lim))
        i = ctx.values.as_int("pair")
        # the same height whatever i: the text is set in place, without a layout pass of the plot
        styled.retitle(self.book, self.circle_plot, f"Pair i = {i} before and after rotation")
        ctx.record("q_pair", qp, "pair i of q (before rotation)")
        ctx.record("k_pair", kp, "pair i of k (before rotation)")
        ctx.record("q_pair_rotated", qr, "pair i of R_m q")
        ctx.record("k_pair_rotated", kr, "pair i of R_n k")
        ctx.record("tip_labels", np.array(list(spots.values())), "label positions q, k, Rq, Rk")


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


def _place(item: styled.PixelText, text: str, x: float, y: float) -> None:
    item.set_html(text)
    item.place(x, y)


def _place_polar(item: styled.PixelText, text: str, radius: float, angle: float) -> None:
    _place(item, text, radius * math.cos(angle), radius * math.sin(angle))
