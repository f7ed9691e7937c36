"""A straight line across a plot that marks one value with a label, set only when it changes.

:class:`MarkedLine` keeps the value and the text it shows: :meth:`MarkedLine.mark` with the
same value and text does nothing (the line, its label and the plot are not touched), ``None``
hides the line. A new mark lays the label out once: pyqtgraph's ``setFormat`` lays the old
text out again and redraws it, and the move that follows lays the new one out again, so the
new format is stored first and the move draws it (when the value stays, the format alone).

Why it is faster: a line whose value rarely changes (the last position of a sequence on a
plot redrawn at every dimension or base step) costs nothing on the steps that leave it, where
setting it again re-laid the label's rich text out and repainted the plot around it.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg


class MarkedLine(pg.InfiniteLine):  # type: ignore[misc]  # pyqtgraph is untyped
    """A ``pg.InfiniteLine`` (same arguments; give it a ``label``) whose value and label text
    are set together by :meth:`mark` (see the module's docstring)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._mark: tuple[float | None, str] | None = None
        self._side: tuple[float, tuple[float, float]] | None = None

    def label_at(self, position: float, anchor: tuple[float, float]) -> None:
        """Put the label at ``position`` (0–1) along the line, by its ``anchor`` (``(0, 1)``:
        its bottom-left corner on the line); nothing when it is there."""
        if self._side == (position, anchor):
            return
        self._side = (position, anchor)
        self.label.anchors = [anchor, anchor]  # (the label's public choice of anchors)
        self.label.setPosition(position)

    def mark(self, value: float | None, text: str) -> bool:
        """Show the line at ``value`` labelled ``text`` (``None``: hide it); nothing when both
        are what it shows. Whether anything was set."""
        if self._mark == (value, text):
            return False
        self._mark = (value, text)
        self.setVisible(value is not None)
        if value is None:
            return True
        if self.value() == value:  # no move (shown again): the new text, drawn once
            self.label.setFormat(text)
        else:
            self.label.format = text  # the move below lays it out and draws it, once
            self.setValue(value)
        return True
