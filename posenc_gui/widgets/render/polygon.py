"""A filled polygon whose corners come from numpy, its edges on whole pixels.

:class:`CrispPolygon` is a ``QGraphicsPolygonItem`` filled without outline and drawn without
antialiasing, so an area it covers over an image ends on the same pixels as the image's cells
(no blended seam along its edge). :meth:`CrispPolygon.set_corners` writes an ``(n, 2)`` array
of corners straight into the polygon's memory.

What it keeps and when it redraws: the polygon, until new corners are set (the item repaints
then, as any graphics item does). Why it is faster: building a ``QPolygonF`` ``QPointF`` by
``QPointF`` costs ~0.7 ms for the 1025 corners of a staircase along a 512 × 512 matrix; a numpy
copy into the polygon's memory costs a few microseconds.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsPolygonItem, QStyleOptionGraphicsItem, QWidget


class CrispPolygon(QGraphicsPolygonItem):
    """A filled polygon without outline, its edges not antialiased (see the module)."""

    def __init__(self) -> None:
        super().__init__()
        self.setPen(QPen(Qt.PenStyle.NoPen))

    def set_corners(self, xy: np.ndarray) -> None:
        """Make the polygon of the ``(n, 2)`` corners ``xy`` (data coordinates); fewer than
        three corners: an empty polygon."""
        corners = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        if len(corners) < 3:
            self.setPolygon(QPolygonF())
            return
        poly: QPolygonF = pg.functions.create_qpolygonf(len(corners))
        pg.functions.ndarray_from_qpolygonf(poly)[:] = corners
        self.setPolygon(poly)

    def paint(
        self, p: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        super().paint(p, option, widget)
