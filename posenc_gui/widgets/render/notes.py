"""Notes in a plot: a label that keeps its text while it is unchanged and stays inside the view.

:class:`Note` is a ``pg.TextItem`` (a text upright and unscaled at a data point, by an anchor)
that a plot's refresh may set at every step.

What it keeps and when it redraws: its document. :meth:`Note.setText` with the text it already
shows does nothing; a new text is laid out and painted as a ``pg.TextItem`` does. Why it is
faster: ``pg.TextItem.setText`` sets the document's text again whatever it was, so the note
is laid out anew and its part of the plot repainted at every step, though most steps keep the
text (a label naming an arrow, an angle shown to one decimal).

A placement clear of the lines and of other labels (:func:`~.occupancy.place_labels`) needs
:meth:`Note.ink_size` and :meth:`Note.margin`.
"""

from __future__ import annotations

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
