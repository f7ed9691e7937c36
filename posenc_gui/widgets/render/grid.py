"""A plot's grid lines as one item under its data.

pyqtgraph draws a grid line as part of its axis's tick: over the data, translucent, inside the
axis's picture. Cached, that picture is a pixmap as large as the whole view, and every repaint
of the plot blends it (~0.1–0.2 ms an axis); drawn each time, a translucent 1-px vertical line
is blended scan line by scan line (~25 µs for 400 px). :class:`GridLines` keeps the 1-px
rectangles of the axes' own tick lines (same positions, same alpha per tick level) in the
opaque colour their translucent one has over the plot's background, and fills them at every
paint (~2 µs each), below the data like the grid of a printed chart. It recomputes them when an
axis's drawing (range, geometry, style) or the device scale changed. The axes
(:class:`~posenc_gui.widgets.render.axis.HouseAxis`) keep their line and labels in a pixmap the
size of their strip.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QPainter, QTransform
from PySide6.QtWidgets import QStyleOptionGraphicsItem, QWidget

from posenc_gui.widgets.render.axis import HouseAxis


class GridLines(pg.GraphicsObject):  # type: ignore[misc]  # pyqtgraph is untyped
    """The grid lines of ``axes`` across ``view``, under its data (see the module docstring)."""

    def __init__(self, view: pg.ViewBox, axes: list[HouseAxis]) -> None:
        super().__init__()
        self.setParentItem(view)
        self.setZValue(-1e5)  # above the view's background rectangle, below its data
        self._view = view
        self._axes = axes
        self._background = QColor("white")
        self._opaque: dict[int, QColor] = {}
        self._key: tuple[Any, ...] = ()
        self._rects: list[tuple[QRectF, QColor]] = []
        for axis in axes:
            axis.set_grid_lines(self)
        view.sigResized.connect(self.prepareGeometryChange)

    def set_background(self, colour: QColor) -> None:
        """The colour under the grid: translucent lines are blended over it."""
        self._background = QColor(colour)
        self._opaque.clear()
        self._key = ()
        self.update()

    def opaque(self, colour: QColor) -> QColor:
        """``colour`` (translucent) as it shows over the background."""
        rgba = colour.rgba()
        hit = self._opaque.get(rgba)
        if hit is None:
            a, bg = colour.alphaF(), self._background
            pairs = ((colour.red(), bg.red()), (colour.green(), bg.green()),
                     (colour.blue(), bg.blue()))  # fmt: skip
            mix = [round(a * c + (1 - a) * b) for c, b in pairs]
            hit = self._opaque[rgba] = QColor(mix[0], mix[1], mix[2])
        return hit

    def boundingRect(self) -> QRectF:
        rect: QRectF = self._view.boundingRect()
        return rect

    def paint(
        self, p: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        axes = [a for a in self._axes if a.grid is not False and a.isVisible()]
        t = p.deviceTransform()
        lines = [(a, a.drawing()[1:]) for a in axes]  # drawn anew if the axis changed
        # the pictures change with every new drawing (range, geometry, style): same pictures,
        # same scale, same rectangles
        key = (*(a.picture for a in axes), t.m11(), t.m22(), t.m12(), t.m21())
        if len(key) != len(self._key) or any(
            x is not y and x != y for x, y in zip(key, self._key, strict=True)
        ):
            self._key, self._rects = key, self._rectangles(lines, t)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        for rect, colour in self._rects:
            p.fillRect(rect, colour)

    def _rectangles(
        self, lines: list[tuple[HouseAxis, list[Any]]], t: QTransform
    ) -> list[tuple[QRectF, QColor]]:
        """The 1-px rectangles (this item's coordinates) of the axes' tick lines."""
        px, py = 1.0 / max(abs(t.m11()), 1e-9), 1.0 / max(abs(t.m22()), 1e-9)  # a device pixel
        out = []
        for axis, specs in lines:
            if not specs:
                continue
            to_view = axis.itemTransform(self)[0]
            upright = to_view.type().value <= QTransform.TransformationType.TxScale.value
            sx, sy, dx, dy = to_view.m11(), to_view.m22(), to_view.dx(), to_view.dy()
            for pen, p1, p2 in specs:
                if upright:  # (a grid's axes are: the arithmetic, without a call per point)
                    x1, y1 = sx * p1.x() + dx, sy * p1.y() + dy
                    x2, y2 = sx * p2.x() + dx, sy * p2.y() + dy
                else:
                    a, b = to_view.map(QPointF(p1)), to_view.map(QPointF(p2))
                    x1, y1, x2, y2 = a.x(), a.y(), b.x(), b.y()
                colour = self.opaque(pen.color())
                if abs(y1 - y2) < abs(x1 - x2):  # horizontal
                    rect = QRectF(min(x1, x2) - px / 2, y1 - py / 2, abs(x2 - x1) + px, py)
                else:
                    rect = QRectF(x1 - px / 2, min(y1, y2) - py / 2, px, abs(y2 - y1) + py)
                out.append((rect, colour))
        return out
