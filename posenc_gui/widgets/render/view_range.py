"""Plot ranges: set in one range update and applied before the paint (one module for the job).

- :func:`set_range` shows a range with no padding and applies the new view transform at once;
  :func:`apply_transform` applies a pending one (a plot linked to one whose range was just
  set); :func:`settle` does it for view boxes.
- :class:`ShownRange` remembers the ranges a view last gave its plot and sets only what changed.
- :class:`HouseViewBox` (the view box of every house plot) sets its limits and range in one
  update.

pyqtgraph's ``ViewBox.setLimits`` updates the view range at once, and the ``setRange`` that
follows it updates it again: each update moves every linked view and axis, so a step that
changes a plot's extent (a new number of positions or columns) did that work twice.
:meth:`HouseViewBox.show_extent` keeps the limits it last stored: it stores new ones as
``setLimits`` does (the box's own ``state["limits"]``) without that update, and lets the one
range update that follows apply them; unchanged limits are not stored again, and only the axes
whose range moves are set.

:func:`settle` applies new view ranges now, not in the next paint: pyqtgraph defers the view
transform to the paint, and the items that react to it then ask for a second paint of the
whole plot; updating the transform right after the range change lets one paint show it.
"""

from __future__ import annotations

from typing import Any

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


class HouseViewBox(pg.ViewBox):  # type: ignore[misc]  # pyqtgraph is untyped
    """A ``pg.ViewBox`` (same arguments) whose extent — limits and range — is set in one range
    update by :meth:`show_extent` (see the module's docstring). Every house plot has one."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._extent: tuple[Span, Span, float, float] | None = None

    def show_extent(
        self, x: Span, y: Span, min_x_range: float, min_y_range: float
    ) -> tuple[bool, bool]:
        """Limit the box to ``x × y`` (zoomed in at most to ``min_x_range × min_y_range``) and
        show all of it; returns whether the x and the y range moved. Settle the boxes that
        moved (:func:`settle`) once their linked views follow.

        New limits are stored as :meth:`setLimits` stores them (this box's ``state``), without
        the range update it makes at once: the one range update that follows applies them.
        """
        (x0, x1), (y0, y1) = self.viewRange()
        new_x = x if (x0, x1) != x else None
        new_y = y if (y0, y1) != y else None
        extent = (x, y, min_x_range, min_y_range)
        moved = extent != self._extent
        if moved:
            self._extent = extent
            limits = self.state["limits"]
            limits["xLimits"] = [x[0], x[1]]
            limits["yLimits"] = [y[0], y[1]]
            limits["xRange"][0] = min_x_range
            limits["yRange"][0] = min_y_range
        if new_x is not None or new_y is not None:  # applies the new limits too
            self.setRange(xRange=new_x, yRange=new_y, padding=0.0)
        elif moved:
            self.updateViewRange()
        return new_x is not None, new_y is not None
