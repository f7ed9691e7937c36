"""A circle about the origin drawn as one ellipse in device pixels.

:class:`Ring` keeps a radius and a pen; it redraws when either changes (its bounds, kept by
:class:`~posenc_gui.widgets.render.items.PaddedItem`, follow) and at every paint of what lies
over it. It is faster than the same circle as a curve: one ellipse stroked with an identity
transform, where a polyline of 361 antialiased segments through the view's scaling costs
about ten times more (a radius that follows a slider is drawn again at every step).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QStyleOptionGraphicsItem, QWidget

from posenc_gui.widgets.render.items import PaddedItem


class Ring(PaddedItem):
    """A circle of radius :attr:`radius` (data units) about the origin, stroked in device
    pixels (an aspect-locked view shows it round; otherwise it is the ellipse the view maps
    it to)."""

    def __init__(self) -> None:
        super().__init__()
        self.radius = 0.0
        self._pen = QPen()

    def set_pen(self, pen: QPen) -> None:
        self._pen = QPen(pen)
        self.geometry_changed()

    def set_radius(self, radius: float) -> None:
        self.radius = float(radius)
        self.geometry_changed()

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        r = self.radius
        return np.array([-r, r, 0.0, 0.0]), np.array([0.0, 0.0, -r, r])

    def reach(self) -> float:
        return self._pen.widthF() / 2 + 1.0

    def paint(
        self, p: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if self.radius <= 0:
            return
        t = p.transform()
        centre = t.map(QPointF(0.0, 0.0))
        rx, ry = abs(t.m11()) * self.radius, abs(t.m22()) * self.radius
        p.resetTransform()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setPen(self._pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawEllipse(centre, rx, ry)
