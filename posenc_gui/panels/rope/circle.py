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
CIRCLE_SLACK = 1.3
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
        self._circle_lim = SteadyLimit(CIRCLE_SLACK)
        self._circle_range = ShownRange(self.circle_plot)
        self.circle_plot.getPlotItem().getViewBox().sigResized.connect(self._circle_resized)

    def _circle_resized(self, *_: object) -> None:
        self.invalidate("circle_size")

    def circle_side(self) -> float:
        """The shorter side of the circle's view (pixels): the labels are placed for it."""
        vb = self.circle_plot.getPlotItem().getViewBox()
        return float(min(vb.width(), vb.height()))

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
        a_q, a_k = f(vec["angle_q"]), f(vec["angle_k"])
        turn_m, turn_n = f(rot["angle_m"]) % TAU, f(rot["angle_n"]) % TAU
        rq, rk = 0.42 * big, 0.28 * big
        self.q_arc.set_data_for((rq, a_q, turn_m), lambda: arc(rq, a_q, a_q + turn_m))
        self.k_arc.set_data_for((rk, a_k, turn_n), lambda: arc(rk, a_k, a_k + turn_n))
        start = a_k + turn_n
        between = f(sc["angle_between_rotated"])
        rb = 0.62 * big
        self.between_arc.set_data_for((rb, start, between), lambda: arc(rb, start, start + between))
        arcs = {
            "mθ": (self.q_arc_text, "mθ<sub>i</sub>", a_q + turn_m / 2, rq + 0.1 * big),
            "nθ": (self.k_arc_text, "nθ<sub>i</sub>", a_k + turn_n / 2, rk + 0.1 * big),
            "∠": (self.between_text, "∠", start + between / 2, 0.72 * big),
        }
        # an arc of no turn (m or n = 0 in this pair) has no label: there is nothing to name
        sweeps = {"mθ": turn_m, "nθ": turn_n, "∠": between}
        for key, (item, text, _, _) in arcs.items():
            item.set_html(text if abs(sweeps[key]) > 1e-6 else "")
        items = {**self.tip_texts, **{key: a[0] for key, a in arcs.items()}}
        rays = {key: (a[2], a[3]) for key, a in arcs.items()}
        # the labels apart in pixels: their sizes in data units at the range they will have
        # (a second pass when placing them moved the range)
        lim = self._circle_lim.value or 1.3 * big
        for _ in range(2):
            per_px = self._data_per_pixel(lim)
            half = {key: _half_size(item, per_px) for key, item in items.items()}
            spots = tip_label_positions(tips, big, half, place_apart(rays, half, 0.12 * big))
            # every label inside a circle, whatever its angle: m and n turn them, not the range
            need = max(
                [1.06 * big]
                + [math.hypot(x, y) + math.hypot(*half[k]) for k, (x, y) in spots.items()]
            )
            lim, _ = self._circle_lim.fit(need)  # a "nice" limit: the axes stay while m, n move
            if self._data_per_pixel(lim) == per_px:
                break
        for key, (x, y) in spots.items():
            items[key].place(x, y)
        self._circle_range.show((-lim, lim), (-lim, lim))
        spots = {key: spots[key] for key in ("Rq", "Rk", "q", "k")}
        i = ctx.values.as_int("pair")
        # the same height whatever i: the text is set in place, without a layout pass of the plot
        styled.retitle(self.book, self.circle_plot, f"Pair i = {i} before and after rotation")
        ctx.record("q_pair", qp, "pair i of q (before rotation)")
        ctx.record("k_pair", kp, "pair i of k (before rotation)")
        ctx.record("q_pair_rotated", qr, "pair i of R_m q")
        ctx.record("k_pair_rotated", kr, "pair i of R_n k")
        ctx.record("tip_labels", np.array(list(spots.values())), "label positions q, k, Rq, Rk")

    def _data_per_pixel(self, lim: float) -> float:
        """The data length of a pixel when the circle plot shows ``±lim`` (aspect locked: the
        shorter side of the view fits the range); 0 before the plot has a size."""
        side = self.circle_side()
        return 2.0 * lim / side if side > 0 else 0.0


Spot = tuple[float, float]
#: Half width and half height of a label in data units.
Half = Mapping[str, tuple[float, float]]


def _half_size(item: styled.PixelText, per_px: float) -> tuple[float, float]:
    """Half the size of ``item``'s text (margins left out, a pixel of air kept), in data units."""
    w, h = item.text_size()
    return (0.5 * w - 2.0) * per_px, (0.5 * h - 2.0) * per_px


def _clear(x: float, y: float, hw: float, hh: float, placed: dict[str, Spot], half: Half) -> bool:
    """Whether a label of half size ``(hw, hh)`` at ``(x, y)`` overlaps none of ``placed``."""
    return all(
        abs(x - px) >= hw + half[k][0] or abs(y - py) >= hh + half[k][1]
        for k, (px, py) in placed.items()
    )


def place_apart(rays: Mapping[str, Spot], half: Half, step: float) -> dict[str, Spot]:
    """Labels along rays from the origin (``key -> (angle, radius)``), in order, each moved out
    along its ray in steps of ``step`` until its rectangle (``half``) overlaps none placed."""
    placed: dict[str, Spot] = {}
    for key, (ang, radius) in rays.items():
        hw, hh = half[key]
        for _ in range(3 * len(rays) + 1):
            x, y = radius * math.cos(ang), radius * math.sin(ang)
            if _clear(x, y, hw, hh, placed, half):
                break
            radius += step
        placed[key] = (radius * math.cos(ang), radius * math.sin(ang))
    return placed


def tip_label_positions(
    tips: Mapping[str, Spot],
    big: float,
    half: Half | None = None,
    taken: Mapping[str, Spot] | None = None,
) -> dict[str, Spot]:
    """Where the arrow-tip labels go: just past each tip, pushed outwards when they would overlap.

    Labels are placed in the order of ``tips``; one that comes closer than ``0.22·big`` to a
    placed label, or (given their half sizes ``half`` in data units) whose rectangle overlaps
    a placed one or one of ``taken`` (other labels, by key in ``half``), moves out along its
    arrow in steps of ``0.24·big`` (at m = n = 0 the arrows before and after rotation
    coincide, and with q = k all four do). Returns ``taken`` and the tips' labels.
    """
    placed: dict[str, Spot] = dict(taken or {})
    sizes: Half = half or {}
    for key, (tx, ty) in tips.items():
        length = math.hypot(tx, ty)
        ang = math.atan2(ty, tx) if length > 0 else 0.0
        hw, hh = sizes.get(key, (0.0, 0.0))
        # just past the tip: the label's rectangle clear of it
        radius = length + max(0.13 * big, abs(hw * math.cos(ang)) + abs(hh * math.sin(ang)))
        for _ in range(len(tips) + len(placed) + 1):
            x, y = radius * math.cos(ang), radius * math.sin(ang)
            near = all(
                math.hypot(x - px, y - py) >= 0.22 * big
                for k, (px, py) in placed.items()
                if k in tips
            )
            if near and (not sizes or _clear(x, y, hw, hh, placed, sizes)):
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
