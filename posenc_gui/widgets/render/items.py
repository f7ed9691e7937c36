"""Items drawn at data points with a reach in pixels: markers, curves and notes.

Each is what a pyqtgraph item draws for the app's use, without its per-set bookkeeping:

- :class:`PaddedItem` keeps its bounds until the data, style or view transform change (a view
  asks for them about a dozen times a frame, each mapping pixels to data).
- :class:`Dots` renders its symbol once per style and pixel ratio and blits it once per point
  (``pg.ScatterPlotItem`` keeps a record per point: ~0.2 ms a ``setData`` of 150 points).
- :class:`PixelCurve` maps its points to device pixels with numpy and strokes the segments with
  an identity transform (a thick antialiased pen stroked through the view's scaling costs Qt
  about twice as much); it keeps its pixels (``DeviceCoordinateCache``), so a marker moving
  over it blits them, and redraws when its data or pen change.
- :class:`PixelText` renders its rich text once per text, font, colour and pixel ratio and
  blits it at its point: a move only changes the point (``pg.TextItem`` lays the document out
  and draws it at every repaint of the plot).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from pyqtgraph.Qt.internals import PrimitiveArray
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QBrush,
    QColor,
    QFont,
    QPainter,
    QPalette,
    QPen,
    QPixmap,
    QTextDocument,
    QTransform,
)
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

_MIN, _MAX = np.minimum.reduce, np.maximum.reduce
#: The blank margin around a ``QTextDocument``'s text (pixels; Qt's default).
_DOCUMENT_MARGIN = 4.0


class PaddedItem(pg.GraphicsObject):  # type: ignore[misc]  # pyqtgraph is untyped
    """An item drawn at data points with a reach in *pixels* past them (a marker radius, half a
    pen width): its bounds are cached until the data, style or view transform change (a view
    asks for them about a dozen times a frame, each mapping pixels to data)."""

    _rect: QRectF | None = None
    #: The data length of one pixel along x and y (None: the view transform changed since).
    _pixel: tuple[float, float] | None = None

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def reach(self) -> float:
        """How far (pixels) the drawing reaches past the points."""
        raise NotImplementedError

    def minimum_points(self) -> int:
        return 1

    def geometry_changed(self) -> None:
        """Call when the data or the style changed."""
        self.prepareGeometryChange()
        self._rect = None
        self.update()

    def viewTransformChanged(self) -> None:
        self.prepareGeometryChange()
        self._rect = None
        self._pixel = None
        super().viewTransformChanged()

    def boundingRect(self) -> QRectF:
        if self._rect is None:
            self._rect = self._bounds()
        return self._rect

    def _bounds(self) -> QRectF:
        x, y = self.points()
        if len(x) < self.minimum_points():
            return QRectF()
        if self._pixel is None:  # kept per view transform: pixelVectors maps it each call
            px, py = self.pixelVectors()
            self._pixel = (0.0 if px is None else px.length(), 0.0 if py is None else py.length())
        pad = self.reach()
        dx, dy = pad * self._pixel[0], pad * self._pixel[1]
        x0, x1 = float(_MIN(x)), float(_MAX(x))  # the ufuncs: no wrapper of ndarray.min
        y0, y1 = float(_MIN(y)), float(_MAX(y))
        return QRectF(x0 - dx, y0 - dy, x1 - x0 + 2 * dx, y1 - y0 + 2 * dy)


class Dots(PaddedItem):
    """Round markers of one style at data points (a fixed size in pixels).

    What ``pg.ScatterPlotItem`` draws for markers that all look alike, without its per-point
    bookkeeping (a ``setData`` of 150 points costs it ~0.2 ms, and a frame here sets up to
    three): the symbol is rendered once per style and blitted once per point. Its style is in
    ``opts`` (``size``, ``pen``, ``brush``), as a ``ScatterPlotItem``'s.
    """

    def __init__(self) -> None:
        super().__init__()
        self._x = np.empty(0)
        self._y = np.empty(0)
        self._size = 0.0
        self._pen = QPen(Qt.PenStyle.NoPen)
        self._brush = QBrush()
        self._sprite: QPixmap | None = None
        self._sprite_dpr = 0.0
        self._frags = PrimitiveArray(QPainter.PixmapFragment, 10)
        self.opts: dict[str, Any] = {"size": 0.0, "pen": self._pen, "brush": self._brush}

    def set_style(self, size: float, pen: QPen, brush: QBrush) -> None:
        self._size, self._pen, self._brush = size, QPen(pen), QBrush(brush)
        self.opts = {"size": size, "pen": self._pen, "brush": self._brush}
        self._sprite = None
        self.geometry_changed()

    def setData(self, x: object, y: object) -> None:
        self._x = np.asarray(x, dtype=np.float64).reshape(-1)
        self._y = np.asarray(y, dtype=np.float64).reshape(-1)
        self.geometry_changed()

    def getData(self) -> tuple[np.ndarray, np.ndarray]:
        return self._x, self._y

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        return self._x, self._y

    def reach(self) -> float:
        return 0.5 * (self._size + self._pen.widthF()) + 1.0

    def paint(
        self, p: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if not len(self._x) or self._size <= 0:
            return
        dpr = widget.devicePixelRatioF() if widget is not None else 1.0
        if self._sprite is None or dpr != self._sprite_dpr:
            image = pg.graphicsItems.ScatterPlotItem.renderSymbol(
                "o", self._size, self._pen, self._brush, dpr=dpr
            )
            self._sprite, self._sprite_dpr = QPixmap.fromImage(image), dpr
        t = p.transform()
        xs = t.m11() * self._x + t.m21() * self._y + t.dx()
        ys = t.m12() * self._x + t.m22() * self._y + t.dy()
        p.resetTransform()
        side = self._sprite.width()
        self._frags.resize(len(xs))
        frags = self._frags.ndarray()
        frags[:, 0] = xs
        frags[:, 1] = ys
        frags[:, 2:6] = (0.0, 0.0, side, side)  # source rectangle: the whole sprite
        frags[:, 6:10] = (1 / dpr, 1 / dpr, 0.0, 1.0)  # scale x, scale y, rotation, opacity
        p.drawPixmapFragments(*self._frags.drawargs(), self._sprite)  # type: ignore[call-arg]


class PixelCurve(PaddedItem):
    """A polyline (``connect="all"``), separate segments (``"pairs"``) or several polylines (a
    boolean ``connect`` array) drawn in device pixels.

    What ``pg.PlotCurveItem`` draws with the app's segmented thick lines, cheaper: the points
    are mapped to pixels with numpy and the segments drawn with an identity transform (a thick
    antialiased pen stroked through the view's scaling costs Qt about twice as much), without
    its per-set bookkeeping. Exposes ``xData``, ``yData``, ``getData()`` and ``opts["pen"]``.
    Cached (``DeviceCoordinateCache``): a marker moving over it blits its pixels.
    """

    def __init__(self) -> None:
        super().__init__()
        self.xData = np.zeros(0)
        self.yData = np.zeros(0)
        self.opts: dict[str, Any] = {"pen": QPen(), "antialias": True, "connect": "all"}
        self._lines = PrimitiveArray(QLineF, 4)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def setPen(self, pen: QPen) -> None:
        self.opts["pen"] = QPen(pen)
        self.geometry_changed()

    def setData(
        self,
        x: np.ndarray,
        y: np.ndarray,
        antialias: bool = True,
        connect: str | np.ndarray = "all",
    ) -> None:
        """``connect``: ``"all"`` (a polyline), ``"pairs"`` (points 0–1, 2–3, …) or, as in
        pyqtgraph, a boolean array: ``connect[i]`` draws the segment from point ``i`` to
        ``i + 1`` (several polylines in one item)."""
        self.xData = np.asarray(x, dtype=np.float64)
        self.yData = np.asarray(y, dtype=np.float64)
        if not isinstance(connect, str):
            connect = np.asarray(connect, dtype=bool)
            if connect.shape != self.xData.shape:
                raise ValueError(
                    f"connect must have one flag per point ({self.xData.shape}), "
                    f"got {connect.shape}"
                )
        self.opts["antialias"], self.opts["connect"] = antialias, connect
        self.geometry_changed()

    def getData(self) -> tuple[np.ndarray, np.ndarray]:
        return self.xData, self.yData

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        return self.xData, self.yData

    def reach(self) -> float:
        return (
            0.5 * float(self.opts["pen"].widthF()) + 2.0
        )  # square caps reach w/2·√2 past the ends

    def minimum_points(self) -> int:
        return 2

    def paint(
        self, p: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if len(self.xData) < 2:
            return
        self._device_lines(p.transform())
        p.resetTransform()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, bool(self.opts["antialias"]))
        p.setPen(self.opts["pen"])
        p.drawLines(*self._lines.drawargs())

    def _device_lines(self, t: QTransform) -> None:
        """Fill :attr:`_lines` with the segments to draw, in device pixels (``t``: the
        painter's transform)."""
        x, y = self.xData, self.yData
        xs = t.m11() * x + t.m21() * y + t.dx()
        ys = t.m12() * x + t.m22() * y + t.dy()
        connect = self.opts["connect"]
        if not isinstance(connect, str):
            keep = connect[:-1]
            self._lines.resize(int(np.count_nonzero(keep)))
            lines = self._lines.ndarray()
            lines[:, 0], lines[:, 1] = xs[:-1][keep], ys[:-1][keep]
            lines[:, 2], lines[:, 3] = xs[1:][keep], ys[1:][keep]
        elif connect == "pairs":
            n = len(xs) // 2
            self._lines.resize(n)
            lines = self._lines.ndarray()
            lines[:, 0], lines[:, 1] = xs[0 : 2 * n : 2], ys[0 : 2 * n : 2]
            lines[:, 2], lines[:, 3] = xs[1 : 2 * n : 2], ys[1 : 2 * n : 2]
        else:
            self._lines.resize(len(xs) - 1)
            lines = self._lines.ndarray()
            lines[:, 0], lines[:, 1] = xs[:-1], ys[:-1]
            lines[:, 2], lines[:, 3] = xs[1:], ys[1:]


class PixelText(PaddedItem):
    """A short rich text centred on a data point, drawn from its kept pixels.

    What ``pg.TextItem(anchor=(0.5, 0.5))`` shows (the text's document, margins included,
    centred on the point, upright and unscaled whatever the view), cheaper for a note that
    follows the data: pyqtgraph's lays the document out and draws it at every repaint of the
    plot, and maps a new transform at each move; this one renders the document once per text,
    font, colour and pixel ratio (:attr:`renders` counts it), and a move only changes its
    point. Drawn at whole device pixels.
    """

    def __init__(self) -> None:
        super().__init__()
        self._xy = (np.zeros(1), np.zeros(1))
        self._html = ""
        self._font = QFont()
        self._colour = QColor("black")
        self._size: tuple[float, float] | None = None
        self._pixmap: QPixmap | None = None
        self.renders = 0
        #: The items this text names (an arrow, an arc): it may sit on them, on no other line.
        self.names: tuple[QGraphicsItem, ...] = ()

    def set_names(self, *items: QGraphicsItem) -> None:
        """Declare the items (arrows, arcs) this label names and may touch."""
        self.names = items

    def set_html(self, html: str) -> None:
        if html != self._html:
            self._html = html
            self._forget()

    def html(self) -> str:
        return self._html

    def set_style(self, font: QFont, colour: QColor) -> None:
        self._font, self._colour = QFont(font), QColor(colour)
        self._forget()

    def place(self, x: float, y: float) -> None:
        """Centre the text on the data point ``(x, y)``."""
        if (x, y) != (float(self._xy[0][0]), float(self._xy[1][0])):
            self._xy = (np.array([x], dtype=np.float64), np.array([y], dtype=np.float64))
            self.geometry_changed()

    def point(self) -> tuple[float, float]:
        return float(self._xy[0][0]), float(self._xy[1][0])

    def _forget(self) -> None:
        self._size, self._pixmap = None, None
        self.geometry_changed()

    def _document(self) -> QTextDocument:
        doc = QTextDocument()
        doc.setDefaultFont(self._font)
        doc.setHtml(self._html)
        return doc

    def text_size(self) -> tuple[float, float]:
        """Width and height (pixels) of the text's document, margins included."""
        if self._size is None:
            size = self._document().size()
            self._size = (size.width(), size.height())
        return self._size

    def ink_size(self) -> tuple[float, float]:
        """Width and height (pixels) of the text itself: its document without the margins."""
        w, h = self.text_size()
        return w - 2 * _DOCUMENT_MARGIN, h - 2 * _DOCUMENT_MARGIN

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        return self._xy

    def scene_text_rect(self) -> QRectF:
        """The rectangle of the text (its document without its margins), in scene
        coordinates: what a test of overlapping labels compares."""
        w, h = self.text_size()
        at = self.sceneTransform().map(QPointF(*self.point()))
        m = _DOCUMENT_MARGIN
        return QRectF(round(at.x() - w / 2) + m, round(at.y() - h / 2) + m, w - 2 * m, h - 2 * m)

    def reach(self) -> float:
        w, h = self.text_size()
        return 0.5 * math.hypot(w, h) + 1.0  # any direction: the rectangle's half diagonal

    def paint(
        self, p: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if not self._html:
            return
        ratio = p.device().devicePixelRatioF()
        pixmap = self._pixmap
        if pixmap is None or pixmap.devicePixelRatioF() != ratio:
            pixmap = self._pixmap = self._render(ratio)
        w, h = self.text_size()
        at = p.transform().map(QPointF(*self.point()))
        p.save()
        p.resetTransform()
        p.drawPixmap(QPointF(round(at.x() - w / 2), round(at.y() - h / 2)), pixmap)
        p.restore()

    def _render(self, ratio: float) -> QPixmap:
        doc = self._document()
        w, h = self.text_size()
        pixmap = QPixmap(max(1, math.ceil(w * ratio)), max(1, math.ceil(h * ratio)))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.palette.setColor(QPalette.ColorRole.Text, self._colour)
        doc.documentLayout().draw(painter, ctx)
        painter.end()
        self.renders += 1
        return pixmap
