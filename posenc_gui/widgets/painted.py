"""Read-outs painted from plain strings: the house base of the tabs' painted tables and lines.

A rich-text read-out whose numbers change at every step is laid out again in full for each
new number; a painted one places plain strings with font metrics only and draws them.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtGui import QFontMetricsF, QPainter
from PySide6.QtWidgets import QSizePolicy, QWidget

from posenc_gui.widgets.style import Style, StyleBook
from posenc_gui.widgets.styled import strip_tags

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
