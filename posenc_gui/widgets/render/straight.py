"""A curve whose points lie on one straight line, drawn as one segment, without a cache.

:class:`StraightCurve` keeps every point in its data (``xData``, ``yData``, ``getData()``) and
draws the one segment from its first point to its last (``log10 λ_i`` against ``i`` is such a
line: 2048 points at d = 4096, a fraction of a pixel each). Why it is faster: the polyline's
segment ends are stroked once instead of once per point (~0.3 ms a curve for large d).

It keeps no pixels (``NoCache``) and redraws at every paint of its plot: a curve whose data
change with most steps would otherwise fill a pixmap as large as the view, draw into it and
blend it at each of them (~0.3 ms more per curve than drawing it), and one segment redrawn
under a marker moving over it costs next to nothing.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtGui import QTransform
from PySide6.QtWidgets import QGraphicsItem

from posenc_gui.widgets.render.items import PixelCurve


class StraightCurve(PixelCurve):
    """A :class:`~posenc_gui.widgets.render.items.PixelCurve` whose points lie on one straight
    line (in the view's coordinates), drawn as the one segment through its ends (see the
    module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.setCacheMode(QGraphicsItem.CacheMode.NoCache)

    def _device_lines(self, t: QTransform) -> None:
        x, y = self.xData, self.yData
        a = t.map(QPointF(float(x[0]), float(y[0])))
        b = t.map(QPointF(float(x[-1]), float(y[-1])))
        self._lines.resize(1)
        self._lines.ndarray()[0] = (a.x(), a.y(), b.x(), b.y())
