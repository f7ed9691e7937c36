"""Per-pixel-column min–max bands: a curve with more points than its plot has pixel columns.

:class:`MinMaxBands` keeps, for each row, one polygon (or one rectangle per column) made from
the rows' column extremes, built when :meth:`MinMaxBands.set_bands` is called and drawn as is
at every paint until the next call (a brush change only repaints). It is faster than stroking
the points: a row of a million positions is a few hundred columns, each filled without
antialiasing (the band is made of whole pixel columns anyway; an antialiased fill, or one thick
segment per column, costs 10–40x more). A row whose extremes jump from column to column (a
frequency near the column width: each column a different part of a period) is drawn as
rectangles: the rasterizer's cost for a polygon grows with how far its edges travel (~4 ms a
row there), a rectangle's does not.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from pyqtgraph.Qt.internals import PrimitiveArray
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QPainter, QPolygonF
from PySide6.QtWidgets import QStyleOptionGraphicsItem, QWidget


class MinMaxBands(pg.GraphicsObject):  # type: ignore[misc]  # pyqtgraph is untyped
    """Per-pixel-column min–max bands of several rows, filled with one brush.

    Each column of a row covers its minimum to its maximum, widened by ``pad`` (half a line
    width, in data units) on both sides, so a row that hardly varies still shows as a line of
    that width. A row whose column extremes change little from column to column is one polygon
    (along the maxima, back along the minima); a row whose edges travel more than
    :attr:`JAGGED` pixels per column is one rectangle per column (see the module docstring).
    """

    #: Rows whose edges travel more than this many pixels per column are drawn as rectangles.
    JAGGED = 8.0

    def __init__(self) -> None:
        super().__init__()
        self._brush = QBrush()
        self._rows: list[QPolygonF | PrimitiveArray] = []
        self._rect = QRectF()
        #: How far each band reaches past its rows' minima and maxima (data units).
        self.pad = 0.0

    def set_brush(self, brush: QBrush) -> None:
        self._brush = brush
        self.update()

    def set_bands(
        self, xs: np.ndarray, lows: np.ndarray, highs: np.ndarray, pad: float, pixel: float = 0.0
    ) -> None:
        """Rows ``lows[r]``/``highs[r]`` (plot coordinates) over the evenly spaced column
        centres ``xs``; ``pixel``: the height of a pixel in data units (0: all polygons)."""
        self.prepareGeometryChange()
        rows: list[QPolygonF | PrimitiveArray] = []
        n = len(xs)
        step = float(xs[1] - xs[0]) if n > 1 else 1.0
        for lo, hi in zip(lows, highs, strict=True):
            travel = float(np.abs(np.diff(hi)).sum() + np.abs(np.diff(lo)).sum())
            if pixel > 0 and travel > self.JAGGED * pixel * n:
                rects = PrimitiveArray(QRectF, 4)
                rects.resize(n)
                r = rects.ndarray()
                r[:, 0], r[:, 2] = xs - step / 2, step
                r[:, 1], r[:, 3] = lo - pad, hi - lo + 2 * pad
                rows.append(rects)
            else:
                poly = pg.functions.create_qpolygonf(2 * n)
                pts = pg.functions.ndarray_from_qpolygonf(poly)
                pts[:n, 0], pts[n:, 0] = xs, xs[::-1]
                pts[:n, 1], pts[n:, 1] = hi + pad, lo[::-1] - pad
                rows.append(poly)
        self._rows = rows
        self.pad = pad
        if n and len(lows):
            y0, y1 = float(np.min(lows)) - pad, float(np.max(highs)) + pad
            x0 = float(xs[0]) - step / 2
            self._rect = QRectF(x0, y0, float(xs[-1]) + step / 2 - x0, y1 - y0)
        else:
            self._rect = QRectF()
        self.update()

    def clear(self) -> None:
        self.set_bands(np.empty(0), np.empty((0, 0)), np.empty((0, 0)), 0.0)

    @property
    def row_kinds(self) -> tuple[str, ...]:
        """How each row is drawn: ``"polygon"`` or ``"columns"`` (one rectangle per column)."""
        return tuple("polygon" if isinstance(r, QPolygonF) else "columns" for r in self._rows)

    def envelope(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """What is drawn, read back from the polygons and rectangles: ``(x, low, high)`` per
        row (column centres; ``low`` and ``high`` include :attr:`pad`)."""
        out = []
        for row in self._rows:
            if isinstance(row, QPolygonF):
                pts = pg.functions.ndarray_from_qpolygonf(row).copy()
                n = len(pts) // 2
                out.append((pts[:n, 0], pts[n:, 1][::-1], pts[:n, 1]))
            else:
                r = row.ndarray().copy()
                out.append((r[:, 0] + r[:, 2] / 2, r[:, 1], r[:, 1] + r[:, 3]))
        return out

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(
        self, p: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(self._brush)
        for row in self._rows:
            if isinstance(row, QPolygonF):
                p.drawPolygon(row)
            else:
                p.drawRects(*row.drawargs())
