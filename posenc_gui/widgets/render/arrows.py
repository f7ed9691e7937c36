"""Arrows drawn as three segments in device pixels, kept while they point to the same place.

:class:`Arrow` is a :class:`~posenc_gui.widgets.render.items.PixelCurve` that draws an arrow
(shaft and two barbs) from a start to a tip as separate segments (``connect="pairs"``).

What it keeps and when it redraws: its segments. :meth:`Arrow.point_to` with the start, tip
and head it already draws changes nothing (the curve keeps its pixels, so a step that moves
another arrow blits this one); a new tip sets the six points and the item is drawn anew. Why it
is faster: segments need no NaN breaks (pyqtgraph computes the bounds of a broken polyline
slowly, and the segmented line mode draws it as segments anyway), and an arrow set again
unchanged would otherwise throw its kept pixels away and be drawn again at every step.
"""

from __future__ import annotations

import math

import numpy as np

from posenc_gui.widgets.render.items import PixelCurve


def arrow_segments(
    x0: float, y0: float, x1: float, y1: float, head: float
) -> tuple[np.ndarray, np.ndarray]:
    """The arrow from ``(x0, y0)`` to ``(x1, y1)`` (head length in data units, at most 40 %
    of the arrow) as segment end points: shaft, left barb to tip, tip to right barb. A
    zero-length arrow is its one point."""
    dx, dy = x1 - x0, y1 - y0
    length = math.hypot(dx, dy)
    if length < 1e-12:
        return np.array([x0]), np.array([y0])
    ux, uy = dx / length, dy / length
    h = min(head, 0.4 * length)
    lx, ly = x1 - h * (ux * 0.94 - uy * 0.34), y1 - h * (uy * 0.94 + ux * 0.34)
    rx, ry = x1 - h * (ux * 0.94 + uy * 0.34), y1 - h * (uy * 0.94 - ux * 0.34)
    return np.array([x0, x1, lx, x1, x1, rx]), np.array([y0, y1, ly, y1, y1, ry])


class Arrow(PixelCurve):
    """An arrow drawn as segments, left alone while it stays (see the module's docstring)."""

    def point_to(
        self, x: float, y: float, head: float, start: tuple[float, float] = (0, 0)
    ) -> None:
        """Draw the arrow from ``start`` to the tip ``(x, y)``, head length ``head`` (data
        units); the same arrow already drawn is left alone (its pixels are kept)."""
        xs, ys = arrow_segments(float(start[0]), float(start[1]), x, y, head)
        if (
            self.opts["connect"] == "pairs"
            and np.array_equal(self.xData, xs)
            and np.array_equal(self.yData, ys)
        ):
            return
        self.setData(xs, ys, connect="pairs")
