"""Plot ranges: set in one range update and applied before the paint (one module for the job).

- :func:`set_range` shows a range with no padding and applies the new view transform at once;
  :func:`apply_transform` applies a pending one (a plot linked to one whose range was just
  set); :func:`settle` does it for view boxes.
- :class:`ShownRange` remembers the ranges a view last gave its plot and sets only what changed.
- :class:`ViewExtent` sets a box's limits and range in one update.

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


def apply_transform(plot: pg.PlotWidget) -> None:
    """Apply a pending view transform of ``plot`` now (a plot linked to one whose range was
    just set)."""
    settle(plot.getPlotItem().getViewBox())


def set_range(plot: pg.PlotWidget, x: Span | None, y: Span | None) -> None:
    """Show ``x`` and/or ``y`` (None: leave that axis alone; no padding) and apply the new view
    transform at once.

    pyqtgraph applies a range change lazily, while painting; the items that follow the view
    (markers, text, cached curves) then ask for a second paint of the plot. Applied here, in a
    view's refresh, the plot is painted once.
    """
    plot.getPlotItem().getViewBox().setRange(xRange=x, yRange=y, padding=0.0)
    apply_transform(plot)


class ShownRange:
    """The ranges a view last set on ``plot``: :meth:`show` sets only what changed.

    A range set again to what it shows still costs a view-transform update and a repaint of
    the plot; the plot's own zoom (by the user) is not compared: a view that sets a range sets
    it when what it wants changed.
    """

    def __init__(self, plot: pg.PlotWidget) -> None:
        self.plot = plot
        self.x: Span | None = None
        self.y: Span | None = None

    def show(self, x: Span | None = None, y: Span | None = None) -> bool:
        """Show ``x`` and/or ``y`` (None: leave that axis alone) with :func:`set_range`;
        nothing when both are what this view set last. Whether the plot's range was set."""
        x = None if x is None or x == self.x else x
        y = None if y is None or y == self.y else y
        if x is None and y is None:
            return False
        set_range(self.plot, x, y)
        self.x = x if x is not None else self.x
        self.y = y if y is not None else self.y
        return True


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
