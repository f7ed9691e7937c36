"""Limits that change rarely: an axis redrawn only when the data leaves its band.

A new range makes pyqtgraph draw the axis again (tick values, labels, grid) and repaint the
whole plot, with every item mapped anew; a range set again to what it shows still costs a
view-transform update. So a view that sets its plot's range from data that moves a little at
each step keeps it instead:

- :func:`steady_limit` / :class:`SteadyLimit`: a symmetric limit (an axis ``±lim``, a colour
  level) kept while the data fills more than ``1/slack`` of it and fits in it, else the nice
  limit of the data (:func:`~posenc_gui.core.rope.nice_ceil`). A slider step then rarely moves an
  axis, and the data always fits.
- the ranges a view sets from such limits go through
  :class:`~posenc_gui.widgets.render.view_range.ShownRange`.
"""

from __future__ import annotations

from collections.abc import Callable

from posenc_gui.core.rope import nice_ceil


def steady_limit(
    need: float, current: float | None, slack: float, ceil: Callable[[float], float] = nice_ceil
) -> float:
    """A limit that covers ``need`` and changes rarely: ``current`` while ``need <= current <=
    slack·need``, else ``ceil(need)`` (by default the nice limit
    :func:`~posenc_gui.core.rope.nice_ceil`)."""
    if current is not None and need <= current <= slack * need:
        return current
    return ceil(need)


class SteadyLimit:
    """A limit kept while the data fills more than ``1/slack`` of it (see :func:`steady_limit`)."""

    __slots__ = ("ceil", "slack", "value")

    def __init__(self, slack: float, ceil: Callable[[float], float] = nice_ceil) -> None:
        self.slack = slack
        #: The limit set for a need that left the band (see :func:`steady_limit`).
        self.ceil = ceil
        #: The limit shown (None: none yet).
        self.value: float | None = None

    def fit(self, need: float) -> tuple[float, bool]:
        """The limit for data that needs ``need``, and whether it changed."""
        lim = steady_limit(need, self.value, self.slack, self.ceil)
        changed = lim != self.value
        self.value = lim
        return lim, changed
