"""Read-outs painted from plain strings, without a document: tables of numbers and wrapped lines.

A :class:`~posenc_gui.widgets.text.live_text.LiveText` keeps a laid-out document and draws its
values over it, or edits them in, when the template stays; a value of another width inside a
*table* still edits the table and lays it out again whole (~0.2–0.3 ms a table), and its repaint
spans every row the new column widths moved. Read-outs whose every number changes at every step,
or whose layout is a grid, are cheaper without a document: a painted one places plain strings
with font metrics only (advances kept per string) and draws them.

:class:`PaintedText` is the base (fonts that follow the style, advances kept, the HTML it
stands for as :meth:`~PaintedText.text`); :class:`ReadoutTable` a two-column table of numbers
that repaints the rows a step changed; :class:`PaintedBlock` a block of fixed size laid out from
its content, with :class:`GridTable` (a table under a header row) as one; :class:`RichLines`
sentences of styled runs wrapped to the width, every number of which changes at every step.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from html import escape as html_escape
from html import unescape

from PySide6.QtCore import QLineF, QPointF, QRect, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import QFontMetricsF, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from posenc_gui.widgets.style import Style, StyleBook
from posenc_gui.widgets.text.base import (
    NBSP,
    NOWRAP,
    SMALL,
    SUB,
    SUP,
    TextWidget,
    span,
    table_html,
)


class PaintedText(TextWidget):
    """A read-out drawn with a painter from plain strings in the style's font of ``kind``,
    regular and bold (:attr:`_fonts`, :attr:`_metrics`).

    A font index has bit 0 for bold and bit 1 for small (a sub- or superscript: the font drawn
    at :data:`SMALL` of its size, see :func:`draw_text`). :meth:`text` is the equivalent HTML
    (tests, the accessible description).
    """

    def __init__(
        self, name: str, parent: QWidget | None, book: StyleBook, kind: str, policy: QSizePolicy
    ) -> None:
        super().__init__(name, parent)
        self.setSizePolicy(policy)
        self._style = book.style
        self._advances: dict[tuple[str, int], float] = {}
        #: The size the content needs: the layout's hint (a block laid out from its content).
        self._size = QSize(0, 0)

        def fonts(st: Style) -> None:  # (before a subclass's own restyle: registered first)
            self._style = st
            self.setFont(st.font(kind))
            self._fonts = (st.font(kind), st.font(kind, bold=True))
            self._metrics = (QFontMetricsF(self._fonts[0]), QFontMetricsF(self._fonts[1]))
            self._advances.clear()

        book.add(fonts)

    def sizeHint(self) -> QSize:
        return QSize(self._size)

    def minimumSizeHint(self) -> QSize:
        return QSize(self._size)

    def _fix_size(self, size: QSize) -> None:
        """Make ``size`` the size hint and the minimum; the layout is asked again only when it
        changed."""
        if size != self._size:
            self._size = size
            self.setMinimumSize(size)
            self.updateGeometry()

    def _set_html(self, html: str) -> None:
        self._html = html
        self._describe()

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


#: A head above a part, or a cell of a :class:`GridTable`: (text, colour role or "", bold).
Styled = tuple[str, str, bool]
#: Cell padding of the read-out tables (pixels, as ``cellpadding='2'``) and the margin left
#: and right (a document's margin; the tables it replaces had none above or below).
PAD = 2.0
MARGIN = 2.0


def line_height(m: QFontMetricsF) -> int:
    """A line's height as Qt's text layout makes it: ascent and descent, each rounded up."""
    return math.ceil(m.ascent()) + math.ceil(m.descent())


def script_shifts(m: QFontMetricsF) -> dict[str, float]:
    """How far a run's baseline moves (down > 0) by its vertical alignment ("", "sub",
    "sup") in a font of metrics ``m``, as a rich text sets sub- and superscripts."""
    small = SMALL * m.height()
    return {"": 0.0, "sub": SUB * small, "sup": -SUP * small}


#: Cell padding of a read-out table (pixels: ``cellpadding='1'``) and the room after the name
#: column (``padding-right:10px``); the margin around it is :data:`MARGIN`.
CELL_PAD = 1.0
NAME_GAP = 10.0

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

    What :func:`.base.table_html` shows in a rich-text label, without a document: a number of
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
        return max(line_height(m) for m in self._metrics) + 2 * CELL_PAD

    def _fit(self) -> bool:
        """Widen the columns to the rows' text; whether the geometry changed."""
        names = max((c[1] for c in self._cells), default=0.0) + 2 * CELL_PAD + NAME_GAP
        values = max((c[3] for c in self._cells), default=0.0) + 2 * CELL_PAD
        columns = (max(names, self._columns[0]), max(values, self._columns[1]))
        moved = columns != self._columns
        self._columns = columns
        self._fix_size(
            QSize(
                math.ceil(sum(columns) + 2 * MARGIN),
                math.ceil(len(self._cells) * self._row_height() + 2 * MARGIN),
            )
        )
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
            self.update(QRect(math.floor(x), math.floor(MARGIN + i * h),
                              self.width() - math.floor(x), math.ceil(h) + 1))  # fmt: skip

    def _right(self) -> float:
        """The right edge of the values."""
        return MARGIN + self._columns[0] + self._columns[1] - CELL_PAD

    def drawn(self) -> list[tuple[float, float, str]]:
        """What the paint writes: (x, baseline, text) in the widget's pixels."""
        return [(x, y, t) for _, x, y, t in self._segments(0, len(self._cells))]

    def _segments(self, first: int, last: int) -> list[tuple[int, float, float, str]]:
        """(font index, x, baseline, text) of rows ``first … last - 1``."""
        h = self._row_height()
        ascent = max(math.ceil(x.ascent()) for x in self._metrics)
        shift = script_shifts(self._metrics[0])
        right = self._right()
        out = []
        for i in range(first, last):
            names, _, values, width = self._cells[i]
            y = MARGIN + i * h + CELL_PAD + ascent
            for runs, x in ((names, MARGIN + CELL_PAD), (values, right - width)):
                for text, f, valign in runs:
                    out.append((f, x, y + shift[valign], text))
                    x += self._advance(text, f)
        return out

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self._cells:
            return
        h = self._row_height()
        clip = event.rect()
        first = max(0, int((clip.top() - MARGIN) // h))
        last = min(len(self._cells), int((clip.bottom() - MARGIN) // h) + 1)
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


# -- painted blocks: tables with a header, lines of styled runs -----------------------------------
class PaintedBlock(PaintedText):
    """A read-out block painted from plain strings (see :class:`PaintedText`).

    Its numbers change at every step. A table inside a rich-text document is laid out again in
    full when any of its cells changes (~0.2 ms a table, most of a read-out's cost); here a step
    places the strings (font metrics only) and the paint draws them. The size is fixed by the
    content (never wrapped, like the ``white-space:pre`` tables it replaces); the layout is
    asked again only when it changes.
    """

    def __init__(self, name: str, parent: QWidget | None, book: StyleBook, kind: str) -> None:
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        super().__init__(name, parent, book, kind, policy)
        self._html_style: Style | None = None  # the style text() was written in
        #: What the paint draws: texts (x, baseline, text, bold, colour role) and lines.
        self._texts: list[tuple[float, float, str, bool, str]] = []
        self._lines: list[QLineF] = []

        def apply(st: Style) -> None:
            self._size = QSize(0, 0)  # measured afresh in the new fonts
            self._relayout()

        book.add(apply)

    def _lay_out(self) -> QSizeF:
        """Fill :attr:`_texts` and :attr:`_lines`; the size they need."""
        raise NotImplementedError

    def _relayout(self) -> None:
        self._texts, self._lines = [], []
        need = self._lay_out()
        # the room only grows (until the style changes): a column that widens for a longer
        # number and narrows again would lay the read-out column out at every step
        self._fix_size(
            QSize(math.ceil(need.width()), math.ceil(need.height())).expandedTo(self._size)
        )
        self.update()

    def drawn(self) -> list[tuple[float, float, str]]:
        """What the paint writes: (x, baseline, text) in the widget's pixels."""
        return [(x, y, t) for x, y, t, _, _ in self._texts]

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        if self._lines:
            lw = self._style.width("line")
            edge = QPen(self._style.qcolor("ink"), lw)
            edge.setCapStyle(Qt.PenCapStyle.FlatCap)
            p.setPen(edge)
            p.drawLines(self._lines)
        ink = self.palette().color(QPalette.ColorRole.WindowText)
        font, role = -1, None
        for x, y, text, bold, r in self._texts:
            if int(bold) != font:
                font = int(bold)
                p.setFont(self._fonts[font])
            if r != role:
                role = r
                p.setPen(self._style.qcolor(r) if r else ink)
            p.drawText(QPointF(x, y), text)
        p.end()


class GridTable(PaintedBlock):
    """Rows of cells under a header row: the first column left-aligned, the others right-aligned,
    header cells bold and centred (an HTML table with ``th`` heads, cell padding 2 px)."""

    _head: Sequence[Styled] = ()
    _rows: Sequence[Sequence[Styled]] = ()

    def set_rows(self, head: Sequence[Styled], rows: Sequence[Sequence[Styled]]) -> None:
        """Show the header ``head`` and ``rows`` (each cell: text, colour role or "", bold)."""
        new_rows = [list(r) for r in rows]
        st = self._style
        if list(head) == self._head and new_rows == self._rows and self._html_style is st:
            return
        self._head, self._rows, self._html_style = list(head), new_rows, st

        def cell(tag: str, c: Styled, align: str = "") -> str:
            t, role, bold = c
            t = f"<b>{t}</b>" if bold and tag == "td" else t
            return f"<{tag}{align}>{span(st, role, t) if role else t}</{tag}>"

        body = "<tr>" + "".join(cell("th", c) for c in self._head) + "</tr>" + "".join(
            "<tr>" + "".join(cell("td", c, "" if k == 0 else " align='right'")
                             for k, c in enumerate(r)) + "</tr>"
            for r in self._rows
        )  # fmt: skip
        self._set_html(f"<table {NOWRAP} cellspacing='0' cellpadding='2'>{body}</table>")
        self._relayout()

    def _lay_out(self) -> QSizeF:
        fm, fb = self._metrics
        grid = [[(t, role, bold or r == 0) for t, role, bold in cells]
                for r, cells in enumerate([self._head, *self._rows])]  # fmt: skip
        widths = [[(fb if bold else fm).horizontalAdvance(t) for t, _, bold in cells]
                  for cells in grid]  # fmt: skip
        cols = [0.0] * max((len(c) for c in grid), default=0)
        for ws in widths:
            for k, w in enumerate(ws):
                cols[k] = max(cols[k], w + 2 * PAD)
        row = max(line_height(fm), line_height(fb)) + 2 * PAD
        for r, (cells, ws) in enumerate(zip(grid, widths, strict=True)):
            x = MARGIN
            for k, ((t, role, bold), tw) in enumerate(zip(cells, ws, strict=True)):
                if r == 0:
                    tx = x + (cols[k] - tw) / 2
                elif k == 0:
                    tx = x + PAD
                else:
                    tx = x + cols[k] - PAD - tw
                m = fb if bold else fm
                y = r * row + row / 2 - line_height(m) / 2 + math.ceil(m.ascent())
                self._texts.append((tx, y, t, bold, role))
                x += cols[k]
        return QSizeF(sum(cols) + 2 * MARGIN, len(grid) * row)


#: A run of text in :class:`RichLines`: (text, colour role or "", bold), optionally with a
#: vertical alignment "sub" or "sup" (a smaller font below or above the baseline).
Run = tuple[str, str, bool] | tuple[str, str, bool, str]
_PIECES = re.compile(r"[^ ]* *")  # a word and the spaces after it: where a line may break


class RichLines(PaintedText):
    """Lines of text runs (plain text, each in a colour role, bold or not, sub- or
    superscript), wrapped at spaces to the widget's width: a read-out of sentences whose numbers
    change at every step, painted directly (what a rich-text read-out of ``<br>``-separated
    lines shows, without laying out a document again for each new number). The height follows
    the width (height for width); a step that keeps the number of wrapped lines changes no
    geometry. :meth:`text` is the equivalent HTML; ``edited`` counts the changes (nothing is
    ever parsed: ``parsed`` stays 0).
    """

    parsed = 0

    def __init__(self, name: str, parent: QWidget | None, book: StyleBook, kind: str) -> None:
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        policy.setHeightForWidth(True)
        super().__init__(name, parent, book, kind, policy)
        self._html_style: Style | None = None
        self._lines: list[list[tuple[str, str, bool, str]]] = []
        #: Per width: segments (x, baseline, text, font index, role) and the height.
        self._laid: dict[int, tuple[list[tuple[float, float, str, int, str]], float]] = {}
        self._height = -1
        self.edited = 0

        def apply(st: Style) -> None:
            self.setMinimumHeight(0)
            self._changed()

        book.add(apply)

    def set_lines(self, lines: Sequence[Sequence[Run]]) -> None:
        """Show ``lines``, each a sequence of runs (see :data:`Run`)."""
        new = [[(r[0], r[1], r[2], r[3] if len(r) > 3 else "") for r in line] for line in lines]
        st = self._style
        if new == self._lines and self._html_style is st:
            return
        self._lines, self._html_style = new, st

        def run(t: str, role: str, bold: bool, valign: str) -> str:
            t = html_escape(t, quote=False).replace(NBSP, "&nbsp;")
            t = f"<b>{t}</b>" if bold else t
            t = f"<{valign}>{t}</{valign}>" if valign else t
            return span(st, role, t) if role else t

        # (text(): runs as bold, coloured, sub/sup spans; lines joined by <br>)
        self._set_html("<br>".join("".join(run(*r) for r in line) for line in self._lines))
        self.edited += 1
        self._changed()

    def _changed(self) -> None:
        self._laid.clear()
        height = self.heightForWidth(max(self.width(), 1))
        if height != self._height:
            self._height = height
            self.updateGeometry()
        self.update()

    def _lay_out(self, width: int) -> tuple[list[tuple[float, float, str, int, str]], float]:
        """Segments (x, baseline, text, font index, role) at ``width``, the height they need."""
        hit = self._laid.get(width)
        if hit is not None:
            return hit
        if len(self._laid) > 16:  # a window being resized
            self._laid.clear()
        fm = self._metrics[0]
        shift = script_shifts(fm)
        step = max(line_height(self._metrics[0]), line_height(self._metrics[1]))
        right = width - MARGIN
        out: list[tuple[float, int, float, str, int, str]] = []
        row = 0
        for line in self._lines:
            fonts = [int(b) + (2 if v else 0) for _, _, b, v in line]
            widths = [self._advance(t, f) for (t, *_), f in zip(line, fonts, strict=True)]
            end = line[-1][0] if line else ""
            trailing = widths[-1] - self._advance(end.rstrip(" "), fonts[-1]) if line else 0.0
            if MARGIN + sum(widths) - trailing <= right:  # it fits: one piece a run
                x = MARGIN
                for (text, role, _, valign), f, w in zip(line, fonts, widths, strict=True):
                    out.append((x, row, shift[valign], text, f, role))
                    x += w
                row += 1
                continue
            # words across runs ("base" and its superscript are one word): a line breaks only
            # after a space, before the first word that would stick out
            words: list[list[tuple[str, int, str, str]]] = [[]]
            for (text, role, _, valign), f in zip(line, fonts, strict=True):
                for piece in _PIECES.findall(text):
                    if piece:
                        words[-1].append((piece, f, role, valign))
                        if piece.endswith(" "):
                            words.append([])
            x = MARGIN
            for word in words:
                if not word:
                    continue
                *body, (last, f_last, _, _) = word
                inked = sum(self._advance(t, f) for t, f, _, _ in body)
                inked += self._advance(last.rstrip(" "), f_last)
                if x > MARGIN and x + inked > right:
                    row, x = row + 1, MARGIN
                for piece, f, role, valign in word:
                    prev = out[-1] if out else None
                    if (
                        prev
                        and prev[1] == row
                        and prev[2:3] == (shift[valign],)
                        and prev[4:] == (f, role)
                    ):  # the same style: one text to draw
                        out[-1] = (*prev[:3], prev[3] + piece, f, role)
                    else:
                        out.append((x, row, shift[valign], piece, f, role))
                    x += self._advance(piece, f)
            row += 1
        top = MARGIN + math.ceil(fm.ascent())
        laid = ([(x, top + r * step + dy, t, f, c) for x, r, dy, t, f, c in out],
                row * step + 2 * MARGIN)  # fmt: skip
        self._laid[width] = laid
        return laid

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return math.ceil(self._lay_out(max(width, 1))[1])

    def _font_of(self, bold: bool, valign: str) -> int:
        return int(bold) + (2 if valign else 0)

    def sizeHint(self) -> QSize:
        widest = max(
            (sum(self._advance(t, self._font_of(b, v)) for t, _, b, v in line)
             for line in self._lines),
            default=0.0,
        )  # fmt: skip
        width = math.ceil(min(widest + 2 * MARGIN, 900))
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        """The widest word: narrower, a line could not be broken any more."""
        least = max(
            (self._advance(piece.rstrip(" "), self._font_of(b, v))
             for line in self._lines for t, _, b, v in line for piece in _PIECES.findall(t)),
            default=0.0,
        )  # fmt: skip
        return QSize(max(120, math.ceil(least + 2 * MARGIN)), 0)

    def drawn(self) -> list[tuple[float, float, str]]:
        """What the paint writes at the current width: (x, baseline, text) in pixels."""
        return [(x, y, t) for x, y, t, _, _ in self._lay_out(max(self.width(), 1))[0]]

    def paintEvent(self, event: QPaintEvent) -> None:
        segments, height = self._lay_out(max(self.width(), 1))
        need = math.ceil(height)
        if need > self.height() and need > self.minimumHeight():
            self.setMinimumHeight(need)  # wrapped into more lines here: the layout makes room
        p = QPainter(self)
        ink = self.palette().color(QPalette.ColorRole.WindowText)
        clip = QRectF(event.rect())
        font, role = -1, None
        for x, y, text, f, r in segments:
            m = self._metrics[f & 1]
            if y + m.descent() < clip.top() or y - m.ascent() > clip.bottom():
                continue
            if f & 1 != font:
                font = f & 1
                p.setFont(self._fonts[font])
            if r != role:
                role = r
                p.setPen(self._style.qcolor(r) if r else ink)
            draw_text(p, x, y, text, bool(f & 2))  # (a sub- or superscript at SMALL)
        p.end()
