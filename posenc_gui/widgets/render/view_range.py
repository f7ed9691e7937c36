"""A view box's extent (limits and range) set in one range update, applied before the paint.

pyqtgraph's ``ViewBox.setLimits`` updates the view range at once, and the ``setRange`` that
follows it updates it again: each update moves every linked view and axis, so a step that
changes a plot's extent (a new number of positions or columns) did that work twice.
:class:`ViewExtent` keeps the limits it last stored: it stores new ones as ``setLimits`` does
(the box's ``state["limits"]``) without that update, and lets the one range update that
follows apply them; unchanged limits are not stored again, and only the axes whose range moves
are set.

:func:`settle` applies new view ranges now, not in the next paint: pyqtgraph defers the view
transform to the paint, and the items that react to it then ask for a second paint of the
whole plot; updating the transform right after the range change lets one paint show it.
"""

from __future__ import annotations

import pyqtgraph as pg

Span = tuple[float, float]


def settle(*boxes: pg.ViewBox) -> None:
    """Apply the new view ranges of ``boxes`` now (see the module's docstring)."""
    for vb in boxes:
        vb.prepareForPaint()


class ViewExtent:
    """The extent of view box ``vb``: what it may show (its limits) and shows (its range).

    See the module's docstring for what it keeps and why it is faster.
    """

    def __init__(self, vb: pg.ViewBox) -> None:
        self._vb = vb
        self._limits: tuple[Span, Span, float, float] | None = None

    def show(self, x: Span, y: Span, min_x_range: float, min_y_range: float) -> tuple[bool, bool]:
        """Limit the box to ``x × y`` (zoomed in at most to ``min_x_range × min_y_range``) and
        show all of it; returns whether the x and the y range moved. Settle the boxes that
        moved (:func:`settle`) once their linked views follow."""
        vb = self._vb
        (x0, x1), (y0, y1) = vb.viewRange()
        new_x = x if (x0, x1) != x else None
        new_y = y if (y0, y1) != y else None
        limits = (x, y, min_x_range, min_y_range)
        limits_moved = limits != self._limits
        if limits_moved:
            self._limits = limits
            stored = vb.state["limits"]  # what setLimits stores, without its range update
            stored["xLimits"] = [x[0], x[1]]
            stored["yLimits"] = [y[0], y[1]]
            stored["xRange"][0] = min_x_range
            stored["yRange"][0] = min_y_range
        if new_x is not None or new_y is not None:  # applies the new limits too
            vb.setRange(xRange=new_x, yRange=new_y, padding=0.0)
        elif limits_moved:
            vb.updateViewRange()
        return new_x is not None, new_y is not None
