"""Read-outs painted from plain strings: the house base of the tabs' painted tables and lines.

A rich-text read-out whose numbers change at every step is laid out again in full for each
new number; a painted one places plain strings with font metrics only and draws them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from html import unescape

from PySide6.QtCore import QPointF, QRect, QSize
from PySide6.QtGui import QFontMetricsF, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

from posenc_gui.widgets.style import Style, StyleBook
from posenc_gui.widgets.styled import strip_tags, table_html

#: Sub- and superscripts as a rich text sets them: at 2/3 of the size, a subscript's baseline
#: lowered by a sixth of the small font's height, a superscript's raised by half of it.
SMALL, SUB, SUP = 2.0 / 3.0, 1.0 / 6.0, 0.5


class PaintedText(QWidget):
    """A read-out drawn with a painter from plain strings in the style's font of ``kind``,
    regular and bold (:attr:`_fonts`, :attr:`_metrics`).

    A font index has bit 0 for bold and bit 1 for small (a sub- or superscript: the font drawn
    at :data:`SMALL` of its size, see :func:`draw_text`). :meth:`text` is the equivalent HTML
    (tests, the accessible description).
    """

    def __init__(
        self, name: str, parent: QWidget | None, book: StyleBook, kind: str, policy: QSizePolicy
    ) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setAccessibleName(name.replace("_", " "))
        self.setSizePolicy(policy)
        self._style = book.style
        self._html = ""
        self._advances: dict[tuple[str, int], float] = {}

        def fonts(st: Style) -> None:  # (before a subclass's own restyle: registered first)
            self._style = st
            self.setFont(st.font(kind))
            self._fonts = (st.font(kind), st.font(kind, bold=True))
            self._metrics = (QFontMetricsF(self._fonts[0]), QFontMetricsF(self._fonts[1]))
            self._advances.clear()

        book.add(fonts)

    def text(self) -> str:
        """The content as the HTML it stands for."""
        return self._html

    def _set_html(self, html: str) -> None:
        self._html = html
        self.setAccessibleDescription(strip_tags(html))

    def _advance(self, text: str, font: int) -> float:
        """Width of ``text`` in font index ``font`` (kept: most pieces come back next step)."""
        key = (text, font)
        w = self._advances.get(key)
        if w is None:
            if len(self._advances) > 4000:
                self._advances.clear()
            w = self._metrics[font & 1].horizontalAdvance(text) * (SMALL if font & 2 else 1.0)
            self._advances[key] = w
        return w


def draw_text(p: QPainter, x: float, y: float, text: str, small: bool) -> None:
    """``text`` with its baseline starting at ``(x, y)`` in the painter's font, or at
    :data:`SMALL` of its size."""
    if small:
        p.save()
        p.translate(x, y)
        p.scale(SMALL, SMALL)
        p.drawText(QPointF(0.0, 0.0), text)
        p.restore()
    else:
        p.drawText(QPointF(x, y), text)


#: Cell padding of a read-out table (pixels: ``cellpadding='1'``), the room after the name
#: column (``padding-right:10px``) and the margin around the table (the document margin).
CELL_PAD = 1.0
NAME_GAP = 10.0
TABLE_MARGIN = 2.0

#: A run of a cell: (text, font index), the font index as in :class:`PaintedText` (bit 0 bold,
#: bit 1 small), and the vertical alignment ("", "sub" or "sup").
Piece = tuple[str, int, str]
_TAGS = re.compile(r"<(/?)(b|sub|sup)>|\x02|\x03")


def cell_runs(html: str, bold: bool) -> list[Piece]:
    """The runs of a table cell written in the read-outs' HTML: text with ``<b>``, ``<sub>``,
    ``<sup>`` and entities (values marked live keep their text). Other tags are an error."""
    if "<" in _TAGS.sub("", html):
        raise ValueError(f"a read-out table cell holds a tag it cannot paint: {html!r}")
    runs: list[Piece] = []
    weight, valign, at = int(bold), "", 0
    for m in _TAGS.finditer(html + "<b>"):  # (a sentinel: the text after the last tag)
        text, font = unescape(html[at : m.start()]), weight + (2 if valign else 0)
        if text and runs and runs[-1][1:] == (font, valign):  # (a value inside its words)
            runs[-1] = (runs[-1][0] + text, font, valign)
        elif text:
            runs.append((text, font, valign))
        at = m.end()
        if m.group(2) == "b":
            weight = int(bold or not m.group(1))
        elif m.group(2):
            valign = "" if m.group(1) else m.group(2)
    return runs


class ReadoutTable(PaintedText):
    """A two-column read-out table (name, value: the value bold and right-aligned), painted.

    What :func:`styled.table_html` shows in a rich-text label, without a document: a number of
    another width edits a table document and lays the whole table out again (~0.3 ms), and its
    repaint spans every row the new column widths moved. Here a step measures the rows whose
    text changed (advances kept per string) and repaints those rows only. The columns only
    widen while the style stays (a narrower number does not re-lay the read-out column out).
    :meth:`text` is the HTML table it stands for.
    """

    def __init__(self, name: str, parent: QWidget | None, book: StyleBook, kind: str = "text"):
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        super().__init__(name, parent, book, kind, policy)
        self._rows: list[tuple[str, str]] = []
        #: Per row: the name's and the value's runs and widths.
        self._cells: list[tuple[list[Piece], float, list[Piece], float]] = []
        self._parsed: dict[tuple[str, bool], list[Piece]] = {}
        self._columns = (0.0, 0.0)
        self._size = QSize(0, 0)
        #: Rows repainted by the last change (for tests).
        self.repainted_rows: list[int] = []

        def apply(st: Style) -> None:
            self._columns, self._size = (0.0, 0.0), QSize(0, 0)  # measured in the new fonts
            self._cells = [self._measure(n, v) for n, v in self._rows]
            self._fit()
            self.update()

        book.add(apply)

    def _runs(self, html: str, bold: bool) -> list[Piece]:
        key = (html, bold)
        runs = self._parsed.get(key)
        if runs is None:
            if len(self._parsed) > 2000:
                self._parsed.clear()
            runs = self._parsed[key] = cell_runs(html, bold)
        return runs

    def _measure(self, name: str, value: str) -> tuple[list[Piece], float, list[Piece], float]:
        a, b = self._runs(name, False), self._runs(value, True)
        return (
            a,
            sum(self._advance(t, f) for t, f, _ in a),
            b,
            sum(self._advance(t, f) for t, f, _ in b),
        )

    def _row_height(self) -> float:
        m = self._metrics
        return max(math.ceil(x.ascent()) + math.ceil(x.descent()) for x in m) + 2 * CELL_PAD

    def _fit(self) -> bool:
        """Widen the columns to the rows' text; whether the geometry changed."""
        names = max((c[1] for c in self._cells), default=0.0) + 2 * CELL_PAD + NAME_GAP
        values = max((c[3] for c in self._cells), default=0.0) + 2 * CELL_PAD
        columns = (max(names, self._columns[0]), max(values, self._columns[1]))
        moved = columns != self._columns
        self._columns = columns
        size = QSize(
            math.ceil(sum(columns) + 2 * TABLE_MARGIN),
            math.ceil(len(self._cells) * self._row_height() + 2 * TABLE_MARGIN),
        )
        if size != self._size:
            self._size = size
            self.setMinimumSize(size)
            self.updateGeometry()
        return moved

    def set_rows(self, rows: Sequence[tuple[str, str]]) -> None:
        """Show ``rows`` of (name, value), each HTML with ``<b>``, ``<sub>``, ``<sup>`` and
        values marked live (see :func:`cell_runs`)."""
        new = [(str(n), str(v)) for n, v in rows]
        if new == self._rows:
            self.repainted_rows = []
            return
        old, widths = self._rows, [c[3] for c in self._cells]
        if len(new) == len(self._rows):
            changed = [i for i, (a, b) in enumerate(zip(new, self._rows, strict=True)) if a != b]
            for i in changed:
                self._cells[i] = self._measure(*new[i])
        else:
            changed = list(range(len(new)))
            self._cells = [self._measure(n, v) for n, v in new]
        grown = len(new) != len(self._rows)
        self._rows = new
        self._set_html(table_html(new).replace("\x02", "").replace("\x03", ""))
        if self._fit() or grown:
            self.repainted_rows = list(range(len(new)))
            self.update()
            return
        self.repainted_rows = changed
        h, right = self._row_height(), self._right()
        for i in changed:
            # from the left end of the old or new value (the whole row if the name changed)
            x = 0.0 if new[i][0] != old[i][0] else right - max(widths[i], self._cells[i][3])
            self.update(QRect(math.floor(x), math.floor(TABLE_MARGIN + i * h),
                              self.width() - math.floor(x), math.ceil(h) + 1))  # fmt: skip

    def _right(self) -> float:
        """The right edge of the values."""
        return TABLE_MARGIN + self._columns[0] + self._columns[1] - CELL_PAD

    def sizeHint(self) -> QSize:
        return QSize(self._size)

    def minimumSizeHint(self) -> QSize:
        return QSize(self._size)

    def drawn(self) -> list[tuple[float, float, str]]:
        """What the paint writes: (x, baseline, text) in the widget's pixels."""
        return [(x, y, t) for _, x, y, t in self._segments(0, len(self._cells))]

    def _segments(self, first: int, last: int) -> list[tuple[int, float, float, str]]:
        """(font index, x, baseline, text) of rows ``first … last - 1``."""
        h = self._row_height()
        ascent = max(math.ceil(x.ascent()) for x in self._metrics)
        small = SMALL * self._metrics[0].height()
        shift = {"": 0.0, "sub": SUB * small, "sup": -SUP * small}
        right = self._right()
        out = []
        for i in range(first, last):
            names, _, values, width = self._cells[i]
            y = TABLE_MARGIN + i * h + CELL_PAD + ascent
            for runs, x in ((names, TABLE_MARGIN + CELL_PAD), (values, right - width)):
                for text, f, valign in runs:
                    out.append((f, x, y + shift[valign], text))
                    x += self._advance(text, f)
        return out

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self._cells:
            return
        h = self._row_height()
        clip = event.rect()
        first = max(0, int((clip.top() - TABLE_MARGIN) // h))
        last = min(len(self._cells), int((clip.bottom() - TABLE_MARGIN) // h) + 1)
        p = QPainter(self)
        p.setPen(self.palette().color(QPalette.ColorRole.WindowText))
        font = -1
        left, end = clip.left(), clip.right() + 1
        for f, x, y, text in self._segments(first, last):
            if x > end or x + self._advance(text, f) < left:
                continue  # (a name beside a value repainted alone)
            if f & 1 != font:
                font = f & 1
                p.setFont(self._fonts[font])
            draw_text(p, x, y, text, bool(f & 2))
        p.end()
