"""A long list of cells in column groups under a title, painted from plain strings.

:class:`ColumnGroups` shows a bold title over rows of cells, the rows split column-major into
groups side by side, each group headed by the same header row, every column right-aligned
(what a rich text of right-aligned tab stops shows). Cells are written in the read-outs' HTML:
text with ``<b>``, ``<sub>``, ``<sup>`` and entities (see :func:`~.painted.cell_runs`).

What it keeps and when it redraws: the layout (strings with their positions and the size) of
every content shown, up to :attr:`ColumnGroups.KEPT` of them (a slider comes back to the same
counts), the runs of each cell and the advance of each string; a step places the kept strings
and repaints. Its size only grows, and the room of the largest contents can be taken from the
start (:meth:`ColumnGroups.reserve`); past it, the height grows in steps of
:attr:`ColumnGroups.ROW_STEP` rows. Why it is faster: parsing and laying out a document of 64
rows costs Qt ~1.5 ms a step and its paint ~1 ms; a kept layout is found in microseconds and
painted in ~0.2 ms, and a widget whose size stays never lays its column of the window out
again (3–6 ms).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence

from PySide6.QtCore import QSize, QSizeF
from PySide6.QtGui import QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

from posenc_gui.widgets.style import Style, StyleBook
from posenc_gui.widgets.text.base import NOWRAP
from posenc_gui.widgets.text.painted import (
    PaintedText,
    Piece,
    cell_runs,
    draw_text,
    script_shifts,
)

#: What a :class:`ColumnGroups` shows: (title, header cells, cells row by row, rows a group).
Content = tuple[str, tuple[str, ...], tuple[tuple[str, ...], ...], int]
#: Laid-out strings: (x, baseline, text, font index) with font bit 0 bold, bit 1 small.
Laid = list[tuple[float, float, str, int]]


class ColumnGroups(PaintedText):
    """Rows of right-aligned cells in column groups under a bold title (see the module).
    :meth:`text` is the equivalent HTML (tests, accessible description): the title, then a
    line per row, the cells separated by tabs."""

    #: Room between a cell and the one before it (pixels at the label's font size), and before
    #: each further column group.
    GAP = 9.0
    GROUP_GAP = 14.0
    #: Past the rows reserved up front, the height is reserved for a multiple of this many rows.
    ROW_STEP = 8
    #: Room around the text (as a document's margin).
    MARGIN = 2.0
    #: Added to each line's height (the rows as far apart as a table's with cell padding 1).
    LEADING = 2.0
    #: Layouts kept (the least recently shown goes first).
    KEPT = 64

    def __init__(
        self, name: str, parent: QWidget | None, book: StyleBook, kind: str = "text"
    ) -> None:
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        super().__init__(name, parent, book, kind, policy)
        #: Contents whose room is taken from the start (see :meth:`reserve`).
        self._reserved: list[Content] = []
        self._shown: Content | None = None
        self._size = QSize(0, 0)  # the size reserved: grows only
        self._texts: Laid = []
        self._laid: OrderedDict[Content, tuple[Laid, QSizeF]] = OrderedDict()
        self._runs: dict[tuple[str, bool], list[Piece]] = {}
        #: Times the widget asked its layout for more room, and layouts computed (for tests).
        self.grown = 0
        self.laid_out = 0

        def apply(st: Style) -> None:
            self._laid.clear()
            self._size = QSize(0, 0)  # measured afresh in the new fonts
            for shown in self._reserved:
                self._size = self._size.expandedTo(self._need(shown))
            if self._reserved:
                self.setMinimumHeight(self._size.height())
                self.updateGeometry()
            if self._shown is not None:
                self._place(self._shown)

        book.add(apply)

    @staticmethod
    def _content(
        title: str, header: Sequence[str], cells: Sequence[Sequence[str]], rows: int
    ) -> Content:
        return (title, tuple(header), tuple(tuple(c) for c in cells), max(rows, 1))

    def reserve(
        self, title: str, header: Sequence[str], cells: Sequence[Sequence[str]], rows: int
    ) -> None:
        """Take the room of this content (as :meth:`set_cells` would show it) from now on:
        the largest contents reserved, no later step grows the widget."""
        shown = self._content(title, header, cells, rows)
        self._reserved.append(shown)
        self._size = self._size.expandedTo(self._need(shown))
        self.setMinimumHeight(self._size.height())
        self.updateGeometry()

    def set_cells(
        self, title: str, header: Sequence[str], cells: Sequence[Sequence[str]], rows: int
    ) -> None:
        """Show the bold ``title`` over ``cells`` (one sequence of cells per item, each as
        many as ``header``), ``rows`` items per column group (column-major), each group
        headed by ``header``."""
        shown = self._content(title, header, cells, rows)
        if shown == self._shown:
            return
        self._shown = shown
        _, head, items, rows = shown
        groups = max(1, math.ceil(len(items) / rows))
        blank = "\t" * len(head)
        lines = [("\t" + "\t".join(head)) * groups]
        for r in range(rows):
            line = ""
            for g in range(groups):
                k = g * rows + r
                line += "\t" + "\t".join(items[k]) if k < len(items) else blank
            lines.append(line)
        self._set_html(f"<div {NOWRAP}><b>{title}</b><br>{'<br>'.join(lines)}</div>")
        self._place(shown)

    def _need(self, shown: Content) -> QSize:
        """The whole pixels the content ``shown`` needs (laid out once, kept)."""
        hit = self._laid.get(shown)
        if hit is None:
            hit = self._laid[shown] = self._lay_out(shown)
        return QSize(math.ceil(hit[1].width()), math.ceil(hit[1].height()))

    def _place(self, shown: Content) -> None:
        hit = self._laid.get(shown)
        if hit is None:
            hit = self._laid[shown] = self._lay_out(shown)
            if len(self._laid) > self.KEPT:
                self._laid.popitem(last=False)
        else:
            self._laid.move_to_end(shown)
        self._texts, need = hit
        size = QSize(math.ceil(need.width()), math.ceil(need.height())).expandedTo(self._size)
        if size != self._size:
            self._size = size
            self.setMinimumHeight(size.height())
            self.grown += 1
            self.updateGeometry()
        self.update()

    def _cell(self, html: str, bold: bool = False) -> list[Piece]:
        key = (html, bold)
        runs = self._runs.get(key)
        if runs is None:
            if len(self._runs) > 4000:
                self._runs.clear()
            runs = self._runs[key] = cell_runs(html, bold)
        return runs

    def _lay_out(self, shown: Content) -> tuple[Laid, QSizeF]:
        """The strings (x, baseline, text, font) and the size they need (with the rows
        reserved)."""
        self.laid_out += 1
        title, head, items, rows = shown
        fm, fb = self._metrics
        adv = self._advance
        ncols = len(head)
        groups = max(1, math.ceil(len(items) / rows))
        header = [self._cell(h) for h in head]
        columns = [
            [[self._cell(items[k][c]) for k in range(g * rows, min((g + 1) * rows, len(items)))]
             for c in range(ncols)]
            for g in range(groups)
        ]  # fmt: skip

        def width(runs: list[Piece]) -> float:
            return sum(adv(t, f) for t, f, _ in runs)

        widths = [
            max([width(header[c])] + [width(r) for cols in columns for r in cols[c]])
            for c in range(ncols)
        ]
        line = self.LEADING + max(math.ceil(m.ascent()) + math.ceil(m.descent()) for m in (fm, fb))
        ascent = max(math.ceil(fm.ascent()), math.ceil(fb.ascent()))
        shift = script_shifts(fm)

        def base(row: int) -> float:
            return self.MARGIN + row * line + ascent

        texts: Laid = [(self.MARGIN, base(0), title, 1)]
        x = self.MARGIN
        for g, cols in enumerate(columns):
            for c in range(ncols):
                x += widths[c] + (self.GROUP_GAP if g and not c else self.GAP if c else 0.0)
                for r, runs in enumerate([header[c], *cols[c]]):
                    rx = x - width(runs)
                    for t, f, valign in runs:
                        texts.append((rx, base(r + 1) + shift[valign], t, f))
                        rx += adv(t, f)
        spare = -rows % self.ROW_STEP
        need = QSizeF(
            max(x, self.MARGIN + adv(title, 1)) + self.MARGIN,
            2 * self.MARGIN + (rows + 2 + spare) * line,
        )
        return texts, need

    def drawn(self) -> list[tuple[float, float, str]]:
        """What the paint writes: (x, baseline, text) in the widget's pixels."""
        return [(x, y, t) for x, y, t, _ in self._texts]

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setPen(self.palette().color(QPalette.ColorRole.WindowText))
        font = -1
        for x, y, text, f in self._texts:
            if f & 1 != font:
                font = f & 1
                p.setFont(self._fonts[font])
            draw_text(p, x, y, text, bool(f & 2))  # (a sub- or superscript at SMALL)
        p.end()
