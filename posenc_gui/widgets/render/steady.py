"""Plot ranges that change rarely: an axis redrawn only when the data leaves its band.

A new range makes pyqtgraph draw the axis again (tick values, labels, grid) and repaint the
whole plot, with every item mapped anew; a range set again to what it shows still costs a
view-transform update. So a view that sets its plot's range from data that moves a little at
each step keeps it instead:

- :func:`steady_limit` / :class:`SteadyLimit`: a symmetric limit (an axis ``±lim``, a colour
  level) kept while the data fills more than ``1/slack`` of it and fits in it, else the nice
  limit of the data (:func:`~posenc_gui.core.rope.nice_ceil`). A slider step then rarely moves an
  axis, and the data always fits.
- :class:`ShownRange`: the x and y ranges a view last gave a plot; setting the same again
  does nothing (the plot's own zoom, by the user, is not compared: a view that sets a range
  sets it when what it wants changed).
"""

from __future__ import annotations

import pyqtgraph as pg

from posenc_gui.core.rope import nice_ceil


def steady_limit(need: float, current: float | None, slack: float) -> float:
    """A limit that covers ``need`` and changes rarely: ``current`` while ``need <= current <=
    slack·need``, else the nice limit :func:`~posenc_gui.core.rope.nice_ceil` of ``need``."""
    if current is not None and need <= current <= slack * need:
        return current
    return nice_ceil(need)


class SteadyLimit:
    """A limit kept while the data fills more than ``1/slack`` of it (see :func:`steady_limit`)."""

    __slots__ = ("slack", "value")

    def __init__(self, slack: float) -> None:
        self.slack = slack
        #: The limit shown (None: none yet).
        self.value: float | None = None

    def fit(self, need: float) -> tuple[float, bool]:
        """The limit for data that needs ``need``, and whether it changed."""
        lim = steady_limit(need, self.value, self.slack)
        changed = lim != self.value
        self.value = lim
        return lim, changed


class ShownRange:
    """The ranges a view last set on ``plot``: :meth:`show` sets only what changed."""

    def __init__(self, plot: pg.PlotWidget) -> None:
        self.plot = plot
        self.x: tuple[float, float] | None = None
        self.y: tuple[float, float] | None = None

    def show(
        self, x: tuple[float, float] | None = None, y: tuple[float, float] | None = None
    ) -> bool:
        """Show ``x`` and/or ``y`` (None: leave that axis alone), applied at once (see
        :func:`~posenc_gui.widgets.styled.set_range`); nothing when both are what this view set
        last. Whether the plot's range was set."""
        x = None if x is None or x == self.x else x
        y = None if y is None or y == self.y else y
        if x is None and y is None:
            return False
        vb = self.plot.getPlotItem().getViewBox()
        vb.setRange(xRange=x, yRange=y, padding=0.0)
        vb.updateMatrix()  # applied now: the plot is painted once (pyqtgraph applies it lazily)
        self.x = x if x is not None else self.x
        self.y = y if y is not None else self.y
        return True
