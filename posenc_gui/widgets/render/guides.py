"""Reference lines across a whole view, kept as pixels until their own axis moves.

:class:`ViewGuides` draws lines at fixed data values of one axis (``PE = −1 … 1`` across a
plot, one per decade of a log axis) as one item in the view box's own pixel coordinates,
kept in a device cache. It keeps the pixels of its lines; it draws them again only when the
box is resized or the range of the lines' own axis changes (:attr:`ViewGuides.renders` counts
those draws). Why it is faster: a change of the *other* axis' range (new positions under
horizontal lines, new columns beside vertical ones) or any item repainted beneath blits the
kept pixels, where ``pg.InfiniteLine`` items (one per value, bounds and cache tied to the view
transform) each draw again whenever either range changes — one item per value, each laid out
and stroked at every range step of the tab.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from posenc_gui.widgets.style import Style, StyleBook

#: Opacity of the reference lines other than zero.
GUIDE_ALPHA = 0.4


class ViewGuides(pg.GraphicsObject):  # type: ignore[misc]  # pyqtgraph is untyped
    """Reference lines across view box ``vb`` at the data ``values`` of its x axis
    (``vertical``) or y axis, beneath everything the view shows.

    Zero is drawn in the full guide colour, other values at ``alpha``. See the module's
    docstring for what it keeps and when it draws again.
    """

    def __init__(
        self,
        book: StyleBook,
        vb: pg.ViewBox,
        values: tuple[float, ...],
        vertical: bool,
        alpha: float = GUIDE_ALPHA,
    ) -> None:
        super().__init__()
        self._vb, self._vertical, self._alpha = vb, vertical, alpha
        self.values = np.asarray(values, dtype=np.float64)
        self._pens = (QPen(), QPen())
        self._range: tuple[float, float] | None = None
        #: How many times the lines were drawn (into the cache).
        self.renders = 0
        self.setParentItem(vb)
        self.setZValue(-1e5)  # above the view's background, beneath everything it shows
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresParentOpacity, False)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        vb.sigResized.connect(self._resized)
        vb.sigRangeChanged.connect(self._range_changed)
        book.add(self._style)

    def _style(self, st: Style) -> None:
        pens = []
        for alpha in (1.0, self._alpha):
            pen = st.pen("guide", "hair")
            pen.setColor(st.qcolor("guide", alpha))
            pens.append(pen)
        self._pens = (pens[0], pens[1])
        self.update()

    def _resized(self, *_: object) -> None:
        self.prepareGeometryChange()
        self.update()

    def _range_changed(self, *_: object) -> None:
        if self._axis_range() != self._range:
            self.update()

    def _axis_range(self) -> tuple[float, float]:
        lo, hi = self._vb.viewRange()[0 if self._vertical else 1]
        return float(lo), float(hi)

    def boundingRect(self) -> QRectF:
        return QRectF(self._vb.rect())

    def paint(
        self, p: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        self.renders += 1
        self._range = lo, hi = self._axis_range()
        rect = self._vb.rect()
        w, h = float(rect.width()), float(rect.height())
        if hi <= lo or w <= 0 or h <= 0:
            return
        state = self._vb.state
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)  # axis-aligned hair lines
        for value in self.values:
            if not lo <= value <= hi:
                continue
            p.setPen(self._pens[0 if value == 0 else 1])
            f = (value - lo) / (hi - lo)
            if self._vertical:
                x = (1.0 - f if state["xInverted"] else f) * w
                p.drawLine(QPointF(x, 0.0), QPointF(x, h))
            else:
                y = (f if state["yInverted"] else 1.0 - f) * h
                p.drawLine(QPointF(0.0, y), QPointF(w, y))
