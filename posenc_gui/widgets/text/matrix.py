"""Matrix equations painted from plain strings: texts and bracketed matrices side by side.

:class:`MatrixLine` shows what :func:`matrix_html` writes as one flat HTML table (``R(θ) =
[cos θ, −sin θ; sin θ, cos θ]``, a matrix times a vector equals a vector, with optional heads
above the parts), without a document.

What it keeps and when it redraws: a :class:`~.painted.PaintedBlock` (fonts and string
advances kept, the room only grows while the style stays). A step that changes any entry
places the strings again with font metrics only and repaints the block; a step that shows the
same parts does nothing. Why it is faster: every entry of these matrices changes at every step
of a slider, and a table in a rich-text document is laid out again whole whenever one cell
changes (~0.2 ms a table, and the edit repaints the document); placing a dozen strings costs a
few microseconds.

:class:`ReadoutStack` stacks read-out parts (painted blocks, sentences, live texts) one below
the other and answers as one read-out (:meth:`~ReadoutStack.text` is theirs joined).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QLineF, QSizeF, Qt
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QVBoxLayout, QWidget

from posenc_gui.widgets.style import Style
from posenc_gui.widgets.text.base import NBSP, NOWRAP, span
from posenc_gui.widgets.text.painted import MARGIN, PAD, PaintedBlock, Styled, line_height

#: A part of a :class:`MatrixLine`: a text, or a matrix (rows of entries).
Part = str | Sequence[Sequence[str]]


class MatrixLine(PaintedBlock):
    """Texts and bracketed two-row matrices side by side, optionally with heads above them:
    what :func:`matrix_html` writes as one HTML table (cell padding 2 px, a no-break space
    either side of each entry, entries right-aligned, brackets as borders in the ink colour).
    A text part is centred on the matrices' rows; a head is centred over its part."""

    _parts: Sequence[Part] = ()
    _heads: Sequence[Styled] = ()

    def set_parts(self, parts: Sequence[Part], heads: Sequence[Styled] = ()) -> None:
        """Show ``parts`` (a text, or a matrix as rows of entries) with ``heads`` above them
        (one per part, in order: text, colour role or "", bold; an empty text for none)."""
        new_parts = [p if isinstance(p, str) else [list(r) for r in p] for p in parts]
        st = self._style
        if new_parts == self._parts and list(heads) == self._heads and self._html_style is st:
            return
        self._parts, self._heads, self._html_style = new_parts, list(heads), st
        html_heads = [span(st, role, f"<b>{t}</b>" if bold else t) if role else
                      (f"<b>{t}</b>" if bold else t) for t, role, bold in heads]  # fmt: skip
        self._set_html(matrix_html(st, self._parts, html_heads))
        self._relayout()

    def _lay_out(self) -> QSizeF:
        fm, fb = self._metrics
        row = line_height(fm) + 2 * PAD
        nbsp = fm.horizontalAdvance(NBSP)
        lw = self._style.width("line")
        bracket = round(2 * lw) + 2 * PAD + lw  # as the bracket cells: width, padding, border
        top = row if self._heads else 0.0

        def base(middle: float, m: QFontMetricsF = fm) -> float:  # a line centred at middle
            return middle - line_height(m) / 2 + math.ceil(m.ascent())

        x = MARGIN
        for k, part in enumerate(self._parts):
            if isinstance(part, str):
                width = fm.horizontalAdvance(part) + 2 * nbsp + 2 * PAD
                self._texts.append((x + PAD + nbsp, base(top + row), part, False, ""))
            else:
                cols = [
                    max(fm.horizontalAdvance(r[c]) for r in part) + 2 * nbsp + 2 * PAD
                    for c in range(len(part[0]))
                ]
                width = sum(cols) + 2 * bracket
                y0, y1 = top + lw / 2, top + 2 * row - lw / 2
                for bx, arm in ((x + lw / 2, x + bracket - PAD),
                                (x + width - lw / 2, x + width - bracket + PAD)):  # fmt: skip
                    self._lines += [QLineF(bx, y0, bx, y1), QLineF(bx, y0, arm, y0),
                                    QLineF(bx, y1, arm, y1)]  # fmt: skip
                cx = x + bracket
                for c, cw in enumerate(cols):
                    for r, entries in enumerate(part):
                        tw = fm.horizontalAdvance(entries[c])
                        y = base(top + (r + 0.5) * row)
                        self._texts.append((cx + cw - PAD - nbsp - tw, y, entries[c], False, ""))
                    cx += cw
            if k < len(self._heads) and self._heads[k][0]:
                text, role, bold = self._heads[k]
                m = fb if bold else fm
                tw = m.horizontalAdvance(text)
                self._texts.append((x + (width - tw) / 2, base(row / 2, m), text, bold, role))
            x += width
        return QSizeF(x + MARGIN, top + 2 * row)


def matrix_html(st: Style, items: Sequence[Part], heads: Sequence[str] = ()) -> str:
    """Text and bracketed two-row matrices side by side in ONE flat table (optional header row).

    The brackets are borders (ink colour, ``line`` width) of a narrow cell spanning both rows.
    A flat table lays out faster than nested ones (tables are most of a read-out's cost).
    """
    b = f"{st.width('line'):g}px solid {st.color('ink')[:7]}"
    w = round(2 * st.width("line"))  # the bracket's arms
    arms = f"border-top:{b};border-bottom:{b}"
    bracket = f"<td rowspan='2' width='{w}' style='border-{{}}:{b};{arms}'></td>"
    head, rows = "", ["", ""]
    for k, item in enumerate(items):
        text = heads[k] if k < len(heads) else ""
        if isinstance(item, str):
            head += f"<td align='center'>{text}</td>"
            rows[0] += f"<td rowspan='2' valign='middle'>&nbsp;{item}&nbsp;</td>"
            continue
        head += f"<td colspan='{len(item[0]) + 2}' align='center'>{text}</td>"
        rows[0] += bracket.format("left")
        for r in range(2):
            rows[r] += "".join(f"<td align='right'>&nbsp;{c}&nbsp;</td>" for c in item[r])
        rows[0] += bracket.format("right")
    top = f"<tr>{head}</tr>" if heads else ""
    body = f"{top}<tr>{rows[0]}</tr><tr>{rows[1]}</tr>"
    return f"<table {NOWRAP} cellspacing='0' cellpadding='2'>{body}</table>"


class ReadoutStack(QWidget):
    """Read-out parts one below the other, shown as one block (room to spare goes below them,
    painted blocks keep their own width, aligned left): :meth:`text` is theirs joined;
    ``parsed`` and ``edited`` sum those of its parts that count them (live texts)."""

    def __init__(self, name: str, parent: QWidget | None, parts: Sequence[QWidget]) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setAccessibleName(name.replace("_", " "))
        self.parts = list(parts)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        for w in self.parts:
            lay.addWidget(w, 0, Qt.AlignmentFlag.AlignLeft if isinstance(w, PaintedBlock) else
                          Qt.AlignmentFlag(0))  # fmt: skip
        lay.addStretch(1)  # room to spare goes below, not between the parts

    def text(self) -> str:
        return "".join(w.text() for w in self.parts)  # type: ignore[attr-defined]

    @property
    def parsed(self) -> int:
        return sum(int(getattr(w, "parsed", 0)) for w in self.parts)

    @property
    def edited(self) -> int:
        return sum(int(getattr(w, "edited", 0)) for w in self.parts)

    def font(self) -> QFont:
        return self.parts[0].font()
