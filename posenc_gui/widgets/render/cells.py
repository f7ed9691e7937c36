"""Texts in the cells of a heat map, all painted by one item.

:class:`CellTexts` writes a short text centred in each of some cells of a grid of unit cells
(cell ``(row, col)`` spans ``[col, col + 1] × [row, row + 1]`` in data coordinates), upright
and unscaled whatever the view.

What it keeps and when it redraws: the list of ``(row, col, text)`` and the font and colour; a
step that shows the same texts does nothing, one that changes them stores the strings and asks
for one paint, which maps each cell's centre through the painter's transform and draws the
texts in one pass. Why it is faster: a ``pg.TextItem`` per cell lays its document out again for
each new number, maps a new transform at each view change, and is painted as an item of its
own (64 items for an 8 × 8 matrix).
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter


class CellTexts(pg.GraphicsObject):  # type: ignore[misc]  # pyqtgraph is untyped
    """Texts centred in the unit cells of a grid (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._cells: list[tuple[int, int, str]] = []
        self._font = QFont()
        self._color: QColor | None = None
        self._rect = QRectF()

    def set_style(self, font: QFont, color: QColor) -> None:
        self._font, self._color = QFont(font), color
        self.update()

    def set_cells(self, cells: list[tuple[int, int, str]]) -> None:
        """Show ``text`` in each cell ``(row, col, text)`` (and nothing elsewhere)."""
        if cells == self._cells:
            return
        self.prepareGeometryChange()
        self._cells = list(cells)
        n = 1 + max((max(r, c) for r, c, _ in cells), default=-1)
        self._rect = QRectF(0.0, 0.0, float(n), float(n))
        self.update()

    def cells(self) -> list[tuple[int, int, str]]:
        """The texts shown: ``(row, col, text)``."""
        return list(self._cells)

    def text_width(self, text: str) -> float:
        """Width of ``text`` in pixels, in the font the texts are drawn in."""
        return QFontMetricsF(self._font).horizontalAdvance(text)

    def font(self) -> QFont:
        return QFont(self._font)

    def boundingRect(self) -> QRectF:
        return QRectF(self._rect)

    def paint(self, p: QPainter, *args: object) -> None:
        if not self._cells or self._color is None:
            return
        t = p.transform()
        fm = QFontMetricsF(self._font)
        lift = (fm.ascent() - fm.descent()) / 2  # the baseline below a line's middle
        p.resetTransform()
        p.setFont(self._font)
        p.setPen(self._color)
        for row, col, text in self._cells:
            centre = t.map(QPointF(col + 0.5, row + 0.5))
            p.drawText(QPointF(centre.x() - fm.horizontalAdvance(text) / 2, centre.y() + lift),
                       text)  # fmt: skip
