"""Notes in a plot: a label that keeps its text while it is unchanged and stays inside the view.

:class:`Note` is a ``pg.TextItem`` (a text upright and unscaled at a data point, by an anchor)
that a plot's refresh may set at every step.

What it keeps and when it redraws: its document. :meth:`Note.setText` with the text it already
shows does nothing; a new text is laid out and painted as a ``pg.TextItem`` does. Why it is
faster: ``pg.TextItem.setText`` sets the document's text again whatever it was, so the note
is laid out anew and its part of the plot repainted at every step, though most steps keep the
text (a label naming an arrow, an angle shown to one decimal).

A placement clear of the lines and of other labels (:func:`~.occupancy.place_labels`) needs
:meth:`Note.ink_size` and :meth:`Note.margin`; :func:`place_notes` places a plot's notes so,
and not at all while nothing it depends on changed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QGraphicsItem

from posenc_gui.widgets.render.occupancy import (
    Arc,
    Bounds,
    Candidates,
    Held,
    Line,
    LineGrid,
    Spot,
    place_labels,
)
from posenc_gui.widgets.style import Style, StyleBook

if TYPE_CHECKING:
    from posenc_gui.widgets.render.items import PixelCurve
    from posenc_gui.widgets.views import Shown


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


#: Pixels between a label and what it names; the side of a cell of the lines' occupancy grid
#: (pixels), and at most this many cells a side.
LABEL_GAP = 4.0
CELL_PX = 6.0
MAX_CELLS = 120


def place_notes(
    shown: Shown,
    name: str,
    drawn: Hashable,
    grid: LineGrid,
    plot: pg.PlotWidget,
    lines: Sequence[PixelCurve | Arc],
    rings: Sequence[tuple[float, float, float]],
    notes: Sequence[Note],
    pads: Sequence[float],
    first: Callable[[np.ndarray, np.ndarray, Bounds], list[Spot]],
    more: Callable[[int, np.ndarray, np.ndarray, Bounds], Candidates],
) -> list[Spot]:
    """Place ``notes`` (anchored at their centres) in ``plot``'s view with
    :func:`~posenc_gui.widgets.render.occupancy.place_labels`: clear of ``lines`` (curves, or
    the arcs some of them draw: tested by a formula) and of the marker ``rings`` (x, y, radius
    in pixels), of each other and of the view's edge.
    ``first(half, gaps, bounds)`` gives each note's first spot (data units), ``more(k, half,
    gaps, bounds)`` note ``k``'s spots in order of preference (made when its first is taken);
    ``gaps``: how far each stays from what it names (``pads``: pixels more, as for a marker
    on its arrow's tip).

    ``drawn``: what the lines and rings are made from. While it, the view's range and size and
    the notes' sizes stay (``shown[name]``), the notes stay where they are: nothing is placed
    again (a step that moves none of them, say the base while pair 0 turns by ω = 1)."""
    vb = plot.getPlotItem().getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    try:
        per_px = max(abs(float(c)) for c in vb.viewPixelSize())
    except (ZeroDivisionError, ValueError, TypeError):
        per_px = 0.0
    inks = [n.ink_size() for n in notes]
    key = (drawn, tuple(rings), x0, x1, y0, y1, per_px, tuple(inks), tuple(pads),
           tuple(n.margin() for n in notes))  # fmt: skip
    if not shown.changed(name, key):
        return [(float(n.pos().x()), float(n.pos().y())) for n in notes]
    if not (math.isfinite(per_px) and per_px > 0):  # no size yet: a guess
        per_px = max(x1 - x0, y1 - y0) / 400.0
    cell = max(CELL_PX * per_px, max(x1 - x0, y1 - y0) / MAX_CELLS)
    nx, ny = math.ceil((x1 - x0) / cell), math.ceil((y1 - y0) / cell)
    data: list[Line | Arc] = []
    keys: list[Hashable] = []
    empty = np.zeros(0)
    for ln in lines:
        if isinstance(ln, Arc):
            data.append(ln)
            keys.append(ln)
            continue
        xs, ys = ln.getData()
        xs, ys = (empty if xs is None else xs), (empty if ys is None else ys)
        data.append((xs, ys, ln.opts["connect"]))
        keys.append(Held(xs, ys, ln.opts["connect"]))
    for x, y, r in rings:
        circle = Arc(x, y, r * per_px, 0.0, 2.0 * math.pi)
        data.append(circle)
        keys.append(circle)
    grid.rasterise(data, keys, x0, y0, cell, nx, ny)
    half = np.array([[(0.5 * w + 1.0) * per_px, (0.5 * h + 1.0) * per_px]
                     for w, h in inks])  # fmt: skip
    # the whole note (its margins too) inside the view
    m = max(n.margin() for n in notes) * per_px
    bounds = (x0 + m, y0 + m, x1 - m, y1 - m)
    # the cells a label's rectangle touches reach a cell past it: a cell more of gap
    gaps = LABEL_GAP * per_px + cell + np.asarray(pads, dtype=float) * per_px
    spots = place_labels(
        grid, first(half, gaps, bounds), lambda k: more(k, half, gaps, bounds),
        [(float(w), float(h)) for w, h in half], bounds,
    )  # fmt: skip
    for n, (x, y) in zip(notes, spots, strict=True):
        pos = n.pos()
        if pos.x() != x or pos.y() != y:  # a note left in place is not laid out again
            n.setPos(x, y)
    return spots
