"""Notes in a plot: a label that keeps its text while it is unchanged and stays inside the view.

:class:`Note` is a ``pg.TextItem`` (a text upright and unscaled at a data point, by an anchor)
that a plot's refresh may set at every step.

What it keeps and when it redraws: its document. :meth:`Note.setText` with the text it already
shows does nothing; a new text is laid out and painted as a ``pg.TextItem`` does. Why it is
faster: ``pg.TextItem.setText`` sets the document's text again whatever it was, so the note
is laid out anew and its part of the plot repainted at every step, though most steps keep the
text (a label naming an arrow, an angle shown to one decimal).

Its placements are for labels of arrows drawn from the origin: :meth:`Note.place_beyond` puts
it just past an arrow's tip, kept inside the view; :meth:`Note.place_in_corner_away` in the
corner of the view farthest from some points. A placement clear of the lines and of other
labels (:func:`~.occupancy.place_labels`) needs :meth:`Note.ink_size` and :meth:`Note.margin`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtWidgets import QGraphicsItem

from posenc_gui.widgets.style import Style, StyleBook


class Note(pg.TextItem):  # type: ignore[misc]  # pyqtgraph is untyped
    """A ``pg.TextItem`` that keeps its document while its text stays (see the module).

    :attr:`names`: the items (arrows, arcs) the note names; it may sit on them, on no other
    line (:meth:`set_names`)."""

    names: tuple[QGraphicsItem, ...] = ()

    def set_names(self, *items: QGraphicsItem) -> None:
        """Declare the items (arrows, arcs) this note names and may touch."""
        self.names = items

    _ink: tuple[float, float] | None = None

    def setText(self, text: str, color: object = None) -> None:
        if color is None and text == self.toPlainText():
            return
        self._ink = None
        super().setText(text, color)

    def setFont(self, *args: object) -> None:
        self._ink = None
        super().setFont(*args)

    def ink_size(self) -> tuple[float, float]:
        """Width and height of the text in pixels, the document's margins left out (kept
        while the text and the font stay)."""
        if self._ink is None:
            rect = self.boundingRect()  # pixels: text items ignore the view's scaling
            m = 2.0 * self.margin()
            self._ink = max(rect.width() - m, 0.0), max(rect.height() - m, 0.0)
        return self._ink

    def margin(self) -> float:
        """The document's margin around the text (pixels)."""
        return float(self.textItem.document().documentMargin())

    def place_beyond(self, x: float, y: float, gap: float, clear_px: float = 3.0) -> None:
        """Centre the note ``gap`` (data units) beyond the tip ``(x, y)`` of an arrow from the
        origin — farther if its text would reach back within ``clear_px`` pixels of the circle
        through the tip (a guide circle, a marker at the tip) — moved inside the view if it
        would stick out (anchor ``(0.5, 0.5)``)."""
        length = math.hypot(x, y)
        ux, uy = (x / length, y / length) if length > 1e-12 else (1.0, 0.0)
        vb = self.getViewBox()
        if vb is None:
            self.setPos(x + gap * ux, y + gap * uy)
            return
        (x0, x1), (y0, y1) = vb.viewRange()
        try:
            px, py = (abs(float(c)) for c in vb.viewPixelSize())
        except (ZeroDivisionError, ValueError, TypeError):
            px = py = 0.0
        if not (math.isfinite(px) and math.isfinite(py)):
            px = py = 0.0
        rect = self.boundingRect()  # pixels: text items ignore the view's scaling
        hw, hh = rect.width() * px / 2, rect.height() * py / 2
        # the text's own rectangle (the document's margins left out) clear of that circle
        m = self.textItem.document().documentMargin()
        reach = abs(ux) * (hw - m * px) + abs(uy) * (hh - m * py) + clear_px * max(px, py)
        gap = max(gap, reach)
        lx, ly = x + gap * ux, y + gap * uy
        self.setPos(_clamp(lx, x0 + hw, x1 - hw), _clamp(ly, y0 + hh, y1 - hh))

    def place_in_corner_away(self, points: Sequence[tuple[float, float]]) -> None:
        """Put the note in the corner of the view farthest from ``points`` (anchored by that
        corner, so it lies inside the view)."""
        vb = self.getViewBox()
        if vb is None:
            return
        (x0, x1), (y0, y1) = vb.viewRange()
        corners = [(x0, y1, (0, 0)), (x1, y1, (1, 0)), (x0, y0, (0, 1)), (x1, y0, (1, 1))]
        cx, cy, anchor = max(
            corners, key=lambda c: min(math.hypot(c[0] - px, c[1] - py) for px, py in points)
        )
        if (self.anchor.x(), self.anchor.y()) != anchor:
            self.setAnchor(anchor)
        self.setPos(cx, cy)


def _clamp(v: float, lo: float, hi: float) -> float:
    return (lo + hi) / 2 if lo > hi else min(max(v, lo), hi)


def note(
    book: StyleBook,
    plot: pg.PlotWidget,
    role: str = "ink",
    anchor: tuple[float, float] = (0, 1),
    kind: str = "text",
    text: str = "",
) -> Note:
    """A :class:`Note` on ``plot`` showing ``text`` in the colour of ``role`` and font
    ``kind`` (restyled with the book)."""
    item = Note(anchor=anchor)
    item.setText(text)
    plot.addItem(item)

    def apply(st: Style) -> None:
        item.setColor(st.qcolor(role))
        item.setFont(st.font(kind))

    book.add(apply)
    return item
