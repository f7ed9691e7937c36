"""Plot items and labels styled by role: the only way panels make something visible.

Every factory takes the panel's :class:`~posenc_gui.widgets.style.StyleBook` and a colour *role*
and size *kind* instead of a colour and a size; the book re-applies them whenever the style
changes (presentation scale, dark theme). Items are built once; panels push arrays into them.

Paint cost (measured on the 2-core reference machine, offscreen): pyqtgraph replays each axis'
tick *and grid* picture whenever anything inside its plot repaints, a few milliseconds per plot
and per frame. Axes are therefore cached as device pixmaps (``DeviceCoordinateCache``): a data
change repaints the curve and blits the axes. Thick antialiased lines are ~10x cheaper drawn as
segments (``segmentedLineMode``).
"""

from __future__ import annotations

import bisect
import math
from collections import OrderedDict
from collections.abc import Sequence
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
    QFontMetrics,
    QFontMetricsF,
    QImage,
    QPainter,
    QPalette,
    QPen,
    QPicture,
    QPixmap,
    QTextDocument,
    QTransform,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsTextItem,
    QGraphicsView,
    QSizePolicy,
    QStyleOptionGraphicsItem,
    QWidget,
)

from posenc_gui.widgets.fmt import MINUS
from posenc_gui.widgets.style import LineStyle, Style, StyleBook

_configured = False

#: Smallest size a plot is given before the panel scrolls instead of shrinking it (pixels at
#: scale 1): below this, tick labels collide and titles are cut.
MIN_PLOT_WIDTH = 340
MIN_PLOT_HEIGHT = 230


def configure() -> None:
    """Global pyqtgraph options (idempotent): antialiasing, row-major images, segmented lines."""
    global _configured
    if _configured:
        return
    pg.setConfigOptions(antialias=True, imageAxisOrder="row-major", segmentedLineMode="on")
    _configured = True


class FitTitle(pg.LabelItem):  # type: ignore[misc]
    """A plot title that shrinks its text to the width it is given (at most to half size).

    pyqtgraph's title asks the layout for its whole text width, so a long title on a narrow
    plot (a small projector, a large scale) makes the scene wider than the widget and cuts off
    the plot's right side with it. A title scaled down a little reads better than either.
    """

    def resizeEvent(self, ev: object) -> None:
        self.item.setScale(1.0)
        natural = self.item.boundingRect().width()
        avail = self.size().width()
        if natural > 0 and 0 < avail < natural:
            self.item.setScale(max(avail / natural, 0.5))
        super().resizeEvent(ev)

    def updateMin(self) -> None:
        bounds = self.itemRect()
        self.setMinimumWidth(0)
        self.setMinimumHeight(bounds.height())
        self._sizeHint = {
            Qt.SizeHint.MinimumSize: (0, bounds.height()),
            Qt.SizeHint.PreferredSize: (bounds.width(), bounds.height()),
            Qt.SizeHint.MaximumSize: (-1, -1),
            Qt.SizeHint.MinimumDescent: (0, 0),
        }
        self.updateGeometry()


def _fit_title(item: pg.PlotItem) -> None:
    """Put a :class:`FitTitle` where the plot's own title label was."""
    old = item.titleLabel
    new = FitTitle("", size="11pt", parent=item)
    item.layout.removeItem(old)
    old.setParentItem(None)
    if old.scene() is not None:
        old.scene().removeItem(old)
    item.layout.addItem(new, 0, 1)
    item.titleLabel = new


def plot(
    book: StyleBook,
    parent: QWidget | None,
    name: str,
    title: str,
    xlabel: str,
    ylabel: str,
    *,
    xunits: str | None = None,
    yunits: str | None = None,
    legend: bool = False,
    grid: bool = True,
    mouse: tuple[bool, bool] = (False, False),
) -> pg.PlotWidget:
    """A plot with title, axis labels (with units), optional grid and legend, styled by ``book``.

    ``mouse`` enables pan/zoom along x and y (off by default: fixed views read best in a
    lecture). The title can be changed later with :func:`set_title`.
    """
    configure()
    w = pg.PlotWidget(parent, enableMenu=False)  # no context menu: not built, ~4 ms a plot
    w.setObjectName(name)
    repaint_cheaply(w)
    w.setAccessibleName(title)
    w.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
    item = w.getPlotItem()
    item.setMenuEnabled(False)
    item.setMouseEnabled(x=mouse[0], y=mouse[1])
    if not any(mouse):
        item.hideButtons()
    w.posenc_title = title
    _fit_title(item)
    labels = {"bottom": (xlabel, xunits), "left": (ylabel, yunits)}
    for side in ("top", "right"):  # hidden, but they would relabel on every range change
        item.getAxis(side).enableAutoSIPrefix(False)
    for side in ("bottom", "left"):
        axis = item.getAxis(side)
        axis.enableAutoSIPrefix(False)
        # Major and minor ticks only: the third level doubles the paint time, adds nothing legible.
        axis.setStyle(maxTickLevel=1)
        axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        fast_axis_lines(axis)
    grid_lines = GridLines(item.getViewBox(), [item.getAxis("bottom"), item.getAxis("left")])
    grid_lines.setVisible(grid)
    if grid:
        item.showGrid(x=True, y=True, alpha=0.25)
    lg = item.addLegend(offset=(10, 10)) if legend else None
    cache_texts(w)

    def apply(st: Style) -> None:
        w.setBackground(st.color("background"))
        grid_lines.set_background(st.qcolor("background"))
        # The width minimum grows less than the text: at presentation scales on a small screen
        # a plot a little narrower beats one cut off behind a scroll bar.
        w.setMinimumSize(int(MIN_PLOT_WIDTH * min(st.scale, 1.25)), int(MIN_PLOT_HEIGHT * st.scale))
        item.setTitle(w.posenc_title, size=st.css_pt("title"), color=st.color("ink"))
        for side, (text, units) in labels.items():
            axis = item.getAxis(side)
            axis.setPen(st.pen("ink", "hair"))
            axis.setTextPen(st.pen("ink", "hair"))
            axis.setTickFont(st.font("tick"))
            axis.setLabel(text, units=units, **{"font-size": st.css_pt("label"),
                                                "color": st.color("ink")})  # fmt: skip
        if lg is not None:
            lg.setBrush(st.brush("legend"))
            lg.setPen(st.pen("guide", "hair"))
            lg.setLabelTextSize(st.css_pt("legend"))
            lg.setLabelTextColor(st.qcolor("ink"))

    book.add(apply)
    return w


def repaint_cheaply(view: QGraphicsView) -> None:
    """Repaint ``view`` in one rectangle around what changed, on a plain background fill.

    pyqtgraph's views repaint the exact region of the changed items (``MinimalViewportUpdate``)
    over a cached background pixmap (``CacheBackground``). A step that moves a marker and sets
    a curve gives a region of many rectangles; Qt then clips every item's drawing to it and
    blits the background per rectangle. One bounding rectangle over a fill of the background
    colour paints the same pixels for 7–15 % less time per slider step (measured here on the
    sine, heatmap, RoPE and ALiBi tabs, steps alternated in one process).
    """
    view.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)
    view.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)


def set_title(book: StyleBook, w: pg.PlotWidget, title: str) -> None:
    """Change a plot's title (kept for the next restyle)."""
    if getattr(w, "posenc_title", None) == title:
        return
    w.posenc_title = title
    st = book.style
    w.getPlotItem().setTitle(title, size=st.css_pt("title"), color=st.color("ink"))


def retitle(book: StyleBook, plot: pg.PlotWidget, title: str) -> None:
    """:func:`styled.set_title` without a layout pass of the plot when only the text changes.

    pyqtgraph's ``PlotItem.setTitle`` fixes the title row's height again and its label asks
    for its size anew: each invalidates the plot's layout (two requests a new title, a layout
    pass of the whole plot before the paint), though a title of the same height keeps its
    place (its width is the plot's: the text is scaled to fit it and centred, as
    :class:`~posenc_gui.widgets.FitTitle` does on a resize). Here the new text is set
    in the label's text item, fitted and centred in place; a title of another height, or one
    not laid out yet, takes the house path."""
    if getattr(plot, "posenc_title", None) == title:
        return
    label = plot.getPlotItem().titleLabel
    hint = getattr(label, "_sizeHint", {})
    room = label.size()
    if not isinstance(label, FitTitle) or not label.isVisible() or room.width() <= 0:
        set_title(book, plot, title)
        return
    st = book.style
    label.text = title
    label.opts["size"], label.opts["color"] = st.css_pt("title"), st.color("ink")
    css = [f"color: {pg.mkColor(label.opts['color']).name(QColor.NameFormat.HexArgb)}"]
    css += [f"{k}: {label.opts[o]}" for o, k in (("family", "font-family"), ("size", "font-size"))
            if o in label.opts]  # fmt: skip
    item = label.item
    item.setHtml(f"<span style='{'; '.join(css)}'>{title}</span>")
    item.setScale(1.0)
    natural = item.boundingRect().width()
    if 0 < room.width() < natural:
        item.setScale(max(room.width() / natural, 0.5))
    item.setPos(0.0, 0.0)
    bounds = label.itemRect()
    before = hint.get(Qt.SizeHint.MinimumSize, (0.0, -1.0))[1]
    plot.posenc_title = title
    if bounds.height() != before:  # another height: the plot makes room for it
        label.resizeEvent(None)
        return
    placed = QRectF(bounds)
    placed.moveCenter(label.rect().center())
    item.setPos(placed.topLeft() - bounds.topLeft())
    hint[Qt.SizeHint.PreferredSize] = (bounds.width(), bounds.height())  # no layout request


def axis_right(book: StyleBook, w: pg.PlotWidget) -> pg.AxisItem:
    """Show the right axis (for per-row labels), styled like the left one, no grid."""
    item = w.getPlotItem()
    item.showAxis("right")
    axis = item.getAxis("right")
    axis.setGrid(False)
    axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
    fast_axis_lines(axis)

    def apply(st: Style) -> None:
        axis.setPen(st.pen("ink", "hair"))
        axis.setTextPen(st.pen("ink", "hair"))
        axis.setTickFont(st.font("tick"))

    book.add(apply)
    return axis


def curve(
    book: StyleBook,
    w: pg.PlotWidget,
    role: str,
    width: str = "line",
    line: LineStyle = "solid",
    name: str | None = None,
    **kw: object,
) -> pg.PlotDataItem:
    """An empty line item on ``w`` in the colour of ``role``, ready for ``setData``."""
    item = pg.PlotDataItem(name=name, **kw)
    w.addItem(item)
    _cache(item.curve)
    book.add(lambda st: item.setPen(st.pen(role, width, line)))
    return item


def _cache(item: QGraphicsItem) -> None:
    """Keep the item's pixels: a marker moving over a curve then repaints it by a blit.

    Without it, every item under a dirty region is drawn again in full (all its segments),
    which is most of the cost of moving a cursor over a dense curve. A cached item is drawn
    again only when its own data changes.
    """
    item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)


def dots(
    book: StyleBook,
    w: pg.PlotWidget,
    role: str,
    size: str = "marker",
    name: str | None = None,
    rim: bool = True,
) -> pg.ScatterPlotItem:
    """An empty scatter item: filled markers, with a rim in the background colour."""
    item = pg.ScatterPlotItem(name=name)
    w.addItem(item)

    def apply(st: Style) -> None:
        item.setBrush(st.brush(role))
        item.setPen(st.pen("rim", "normal") if rim else pg.mkPen(None))
        item.setSize(st.marker(size))

    book.add(apply)
    return item


def text(
    book: StyleBook,
    w: pg.PlotWidget,
    role: str = "ink",
    anchor: tuple[float, float] = (0, 1),
    kind: str = "text",
) -> pg.TextItem:
    """A text label placed in data coordinates."""
    item = pg.TextItem(anchor=anchor)
    w.addItem(item)

    def apply(st: Style) -> None:
        item.setColor(st.qcolor(role))
        item.setFont(st.font(kind))

    book.add(apply)
    return item


def vline(
    book: StyleBook,
    w: pg.PlotWidget,
    role: str = "ink",
    *,
    movable: bool = False,
    tooltip: str = "",
    angle: float = 90,
    bounds: tuple[float, float] | None = None,
    line: LineStyle = "dash",
) -> pg.InfiniteLine:
    """A vertical (or ``angle``) line; a movable one thickens under the mouse."""
    item = pg.InfiniteLine(angle=angle, movable=movable, bounds=bounds)
    if tooltip:
        item.setToolTip(tooltip)
    w.addItem(item)

    def apply(st: Style) -> None:
        item.setPen(st.pen(role, "normal", line))
        item.setHoverPen(st.pen(role, "bold"))

    book.add(apply)
    return item


def heatmap(
    book: StyleBook,
    w: pg.PlotWidget,
    levels: tuple[float, float] = (-1.0, 1.0),
    cmap: str = "diverging",
    label: str | None = None,
    widest: str = "−1.0",
) -> tuple[pg.ImageItem, pg.ColorBarItem]:
    """A row-major :class:`pg.ImageItem` with fixed ``levels`` and a labelled colour bar.

    Push data with ``item.setImage(arr, autoLevels=False)`` (contiguous float32) and place it
    with ``item.setRect(x, y, w, h)``; the levels stay fixed so a colour means the same value
    whatever the data. Change them with ``bar.setLevels(...)``.

    The bar's axis is as wide as ``widest`` (its widest tick label) in the style's tick font,
    plus its label: pyqtgraph's fixed 45 px hides the labels that do not fit (the negative
    ones at presentation scale).
    """
    configure()
    item = pg.ImageItem(axisOrder="row-major")
    w.addItem(item)
    bar = pg.ColorBarItem(
        values=levels, colorMap=book.style.colormap(cmap), interactive=False, width=18,
        colorMapMenu=False,
    )  # fmt: skip
    bar.setImageItem(item, insert_in=w.getPlotItem())
    axis = bar.getAxis("right")
    fast_axis_lines(axis)
    axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
    axis.setWidth(None)  # from the text width below, at every scale
    axis.enableAutoSIPrefix(False)
    w.getPlotItem().showGrid(x=False, y=False)
    grid_lines = getattr(w.getPlotItem().getAxis("bottom"), "posenc_grid", None)
    if grid_lines is not None:
        grid_lines.setVisible(False)

    def apply(st: Style) -> None:
        bar.setColorMap(st.colormap(cmap))
        axis.setPen(st.pen("ink", "hair"))
        axis.setTextPen(st.pen("ink", "hair"))
        axis.setTickFont(st.font("tick"))
        if label:
            axis.setLabel(label, **{"font-size": st.css_pt("label"), "color": st.color("ink")})

    book.add(apply)
    steady_axis(book, axis, widest)

    def whole_pixels(st: Style) -> None:
        # pyqtgraph's width from the text is fractional (label line height); a whole number
        # lets a plot beside or below match it exactly (aligned axes share their drawing)
        axis.setWidth(None)
        axis.setWidth(math.ceil(axis.maximumWidth() - 1e-6))

    book.add(whole_pixels)
    return item, bar


def circle_xy(radius: float = 1.0, n: int = 361) -> tuple[np.ndarray, np.ndarray]:
    """Points on a circle of ``radius`` (closed polyline)."""
    t = np.linspace(0.0, 2.0 * np.pi, n)
    return radius * np.cos(t), radius * np.sin(t)


def arrow_xy(
    x0: float, y0: float, x1: float, y1: float, head: float = 0.08
) -> tuple[np.ndarray, np.ndarray]:
    """A polyline drawing an arrow from (x0, y0) to (x1, y1), head length in data units.

    Returned with NaN breaks so one ``PlotDataItem`` (``connect="finite"``) draws shaft and head.
    """
    dx, dy = x1 - x0, y1 - y0
    length = float(np.hypot(dx, dy))
    if length < 1e-12:
        return np.array([x0]), np.array([y0])
    ux, uy = dx / length, dy / length
    h = min(head, 0.4 * length)
    left = (x1 - h * (ux * 0.94 - uy * 0.34), y1 - h * (uy * 0.94 + ux * 0.34))
    right = (x1 - h * (ux * 0.94 + uy * 0.34), y1 - h * (uy * 0.94 - ux * 0.34))
    xs = [x0, x1, np.nan, left[0], x1, right[0]]
    ys = [y0, y1, np.nan, left[1], y1, right[1]]
    return np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)


def move_line(line: pg.InfiniteLine, value: float) -> None:
    """Move a draggable line to ``value`` without echoing the move back into the state."""
    if abs(float(line.value()) - value) > 1e-12:
        line.blockSignals(True)
        try:
            line.setValue(value)
        finally:
            line.blockSignals(False)


_MIN, _MAX = np.minimum.reduce, np.maximum.reduce


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
    three): the symbol is rendered once per style and blitted once per point.
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

    def set_style(self, size: float, pen: QPen, brush: QBrush) -> None:
        self._size, self._pen, self._brush = size, pen, brush
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


def markers(
    book: StyleBook, plot: pg.PlotWidget, role: str, size: str = "marker", rim: bool = True
) -> Dots:
    """Round markers of colour ``role`` as a :class:`Dots` (one pre-rendered symbol blitted per
    point), filled and, with ``rim``, rimmed in the background colour like :func:`dots`.

    Cheaper than :func:`dots` (a ``ScatterPlotItem`` keeps a record per point: ~0.2 ms per
    ``setData`` and a rebuild of them all on a new count or size) for markers that change every
    frame or come by the thousand.
    """
    item = Dots()
    plot.addItem(item)
    book.add(
        lambda st: item.set_style(
            st.marker(size), st.pen("rim", "normal") if rim else QPen(Qt.PenStyle.NoPen),
            st.brush(role),
        )
    )  # fmt: skip
    return item


def steady_axis(book: StyleBook, axis: pg.AxisItem, widest: str) -> None:
    """Reserve room for tick labels as wide as ``widest`` in the tick font (never shrinking).

    A new range whose tick labels are wider or narrower would otherwise re-lay the plot out and
    paint it twice.
    """

    def apply(st: Style) -> None:
        axis.textWidth = QFontMetrics(st.font("tick")).horizontalAdvance(widest)
        axis.setStyle(autoReduceTextSpace=False)  # re-computes the width

    book.add(apply)


def set_range(
    plot: pg.PlotWidget, x: tuple[float, float] | None, y: tuple[float, float] | None
) -> None:
    """Show ``x`` and/or ``y`` (no padding) and apply the new view transform at once.

    pyqtgraph applies a range change lazily, while painting; the items that follow the view
    (markers, text, cached curves) then ask for a second paint of the plot. Applied here, in a
    view's refresh, the plot is painted once.
    """
    plot.getPlotItem().getViewBox().setRange(xRange=x, yRange=y, padding=0.0)
    apply_transform(plot)


def apply_transform(plot: pg.PlotWidget) -> None:
    """Apply a pending view transform now (a plot linked to one whose range was just set)."""
    plot.getPlotItem().getViewBox().updateMatrix()


#: Mantissas of the "nice" ends of an axis over the positions (1.2: no curve fills less than
#: 80 % of its plot's width).
NICE_ENDS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_end(x: float) -> float:
    """The smallest ``c·10^k >= x`` with ``c`` in :data:`NICE_ENDS` (1 for ``x <= 1``)."""
    if x <= 1.0:
        return 1.0
    e = math.floor(math.log10(x))
    for c in NICE_ENDS:
        if x <= c * 10.0**e * (1 + 1e-12):
            return c * 10.0**e
    return 10.0 ** (e + 1)


def positions_range(n: int, margin: float = 0.01) -> tuple[float, float]:
    """The x range of a plot over positions (or distances) ``0 … n−1``: from 0 to a "nice"
    end at or above ``n − 1``, ``margin`` of it on each side. A length step keeps the axis
    (and its drawing, kept by the axis) for as long as ``n − 1`` stays under the same end;
    the curves end where the table does."""
    end = nice_end(float(max(n - 1, 1)))
    return (-margin * end, (1.0 + margin) * end)


#: Drawings (tick specs, lines and the labels' picture) each axis keeps for ranges it may show
#: again: a slider dragged back and forth, "nice" limits that come back as the data moves.
AXIS_DRAWINGS_KEPT = 48


def axis_key(axis: pg.AxisItem) -> tuple[Any, ...] | None:
    """Everything an axis' drawing depends on: range, geometry, the linked view's rectangle
    (grid lines), ticks set by hand, text room, style, fonts, pens and transforms (None when
    the axis is not in a view). Two equal keys draw the same pixels."""
    view = axis.getViewWidget()
    if view is None:
        return None
    style = axis.style
    font = style["tickFont"]
    rect = axis.mapRectFromParent(axis.geometry())
    t, v = axis.sceneTransform(), view.transform()
    linked = axis.linkedView()
    tick_rect = (  # grid lines span the linked view (without a grid, ticks the axis only)
        None
        if linked is None or axis.grid is False
        else linked.mapRectToItem(axis, linked.boundingRect())
    )
    levels = axis._tickLevels
    return (
        axis.orientation, tuple(axis.range), rect.x(), rect.y(), rect.width(), rect.height(),
        None if tick_rect is None else tick_rect.getRect(), axis.grid, axis.logMode,
        axis.scale, axis.autoSIPrefixScale, None if levels is None else repr(levels),
        axis.textWidth, axis.textHeight, None if font is None else font.toString(),
        *(repr(style[k]) for k in sorted(style) if k != "tickFont"),
        axis.pen().color().rgba(), axis.pen().widthF(), axis.textPen().color().rgba(),
        axis.tickPen().color().rgba(), axis.tickPen().widthF(),
        t.m11(), t.m12(), t.m21(), t.m22(), v.m11(), v.m12(), v.m21(), v.m22(),
    )  # fmt: skip


def _vertical_lines(
    p: QPainter, t: QTransform, xs: Sequence[float], top: float, bottom: float, color: QColor
) -> None:
    """1-px vertical lines at ``xs`` from ``top`` to ``bottom`` (item coordinates, ``t`` the
    painter's upright world transform, ``p.transform()``: drawn after ``resetTransform()``,
    which keeps the painter's own device offset — a view's, or a cache pixmap's), all at once.

    Qt's raster engine fills a 1-px-wide translucent rectangle one scan line at a time (24 grid
    lines 400 px high: ~1.8 ms); the same pixels as one row image with a pixel per line,
    stretched to the lines' height, cost ~0.15 ms. The pixels are those of ``fillRect`` of the
    1-px rectangle around each line, except that lines falling in one pixel column are drawn
    once (not blended twice).
    """
    cols = [math.floor(t.m11() * x + t.dx()) for x in xs]
    y0, y1 = sorted((t.m22() * top + t.dy(), t.m22() * bottom + t.dy()))
    first, last = min(cols), max(cols)
    row = QImage(last - first + 1, 1, QImage.Format.Format_ARGB32_Premultiplied)
    row.fill(0)
    for c in cols:
        row.setPixelColor(c - first, 0, color)
    p.save()
    p.resetTransform()
    p.drawImage(QRectF(first, y0 - 0.5, last - first + 1, y1 - y0 + 1.0), row)
    p.restore()


#: Label alignment per axis side, as pyqtgraph's (text is never clipped to its rectangle).
_LABEL_FLAGS = {
    "left": Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip,
    "right": Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip,
    "top": Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom | Qt.TextFlag.TextDontClip,
    "bottom": Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextDontClip,
}
#: Tick label sizes by (font, text): measured once (``QPainter.boundingRect`` per label is most
#: of the cost of a new range).
_LABEL_SIZES: dict[tuple[str, str], tuple[float, float]] = {}
_MEASURE_BOX = QRectF(0, 0, 100, 100)
#: Fonts (``QFont.toString``) whose ten digits have one advance: there a label's size is that
#: of its shape, every digit a 0 (a range that moves with a slider shows new numbers at each
#: step, ~0.03 ms a measurement; their shapes repeat).
_TABULAR: dict[str, bool] = {}
_ZEROS = str.maketrans("123456789", "000000000")


def _draw_specs(axis: pg.AxisItem, p: QPainter, outer: QRectF) -> Any:
    """What ``pg.AxisItem.generateDrawSpecs`` returns (the same tick positions, pens, label
    rectangles, flags and strings, the same update of the axis's text room), ~3× cheaper.

    A new range regenerates an axis's ticks and labels: pyqtgraph spends ~0.5 ms of Python on
    it (a ``Point`` per coordinate, a text measurement and the axis's bounds per label). Here
    label sizes are measured once per (font, text) and constants hoisted. ``outer``: the
    rectangle a label must lie in (pyqtgraph's ``boundingRect`` of the axis). Axes with a tick
    alpha of their own or stopping at a tick go to pyqtgraph's.
    """
    style = axis.style
    if style["tickAlpha"] is not None or tuple(style["stopAxisAtTick"]) != (False, False):
        return pg.AxisItem.generateDrawSpecs(axis, p)
    if style["tickFont"] is not None:
        p.setFont(style["tickFont"])
    orientation = axis.orientation
    bounds = axis.mapRectFromParent(axis.geometry())
    linked = axis.linkedView()
    grid = axis.grid
    tick_bounds = (
        bounds
        if linked is None or grid is False
        else linked.mapRectToItem(axis, linked.boundingRect())
    )
    if orientation == "left":
        span = (bounds.topRight() + QPointF(-1.0, -1.0), bounds.bottomRight() + QPointF(-1.0, 1.0))
        tick_start, tick_stop, tick_dir, ax = tick_bounds.right(), bounds.right(), -1, 0
    elif orientation == "right":
        span = (bounds.topLeft() + QPointF(1.0, -1.0), bounds.bottomLeft() + QPointF(1.0, 1.0))
        tick_start, tick_stop, tick_dir, ax = tick_bounds.left(), bounds.left(), 1, 0
    elif orientation == "top":
        span = (
            bounds.bottomLeft() + QPointF(-1.0, -1.0),
            bounds.bottomRight() + QPointF(1.0, -1.0),
        )
        tick_start, tick_stop, tick_dir, ax = tick_bounds.bottom(), bounds.bottom(), -1, 1
    else:
        span = (bounds.topLeft() + QPointF(-1.0, 1.0), bounds.topRight() + QPointF(1.0, 1.0))
        tick_start, tick_stop, tick_dir, ax = tick_bounds.top(), bounds.top(), 1, 1
    points = [axis.mapToDevice(pt) for pt in span]
    if None in points:
        return None
    d = points[1] - points[0]
    length = math.hypot(d.x(), d.y())
    if length == 0:
        return None
    r0, r1 = axis.range[0], axis.range[1]
    manual: list[list[str]] | None = None
    if axis._tickLevels is None:
        levels = axis.tickValues(r0, r1, length)
    else:
        levels = [(None, [v for v, _ in level]) for level in axis._tickLevels]
        manual = [[t for _, t in level] for level in axis._tickLevels]
    dif = r1 - r0
    if dif == 0:
        x_scale, offset = 1.0, 0.0
    elif ax == 0:
        x_scale = -bounds.height() / dif
        offset = r0 * x_scale - bounds.height()
    else:
        x_scale = bounds.width() / dif
        offset = r0 * x_scale
    x_lo, x_hi = sorted((r0 * x_scale - offset, r1 * x_scale - offset))
    positions: list[list[float | None]] = []
    tick_specs: list[tuple[QPen, QPointF, QPointF]] = []
    base_pen = axis.tickPen()
    solid = base_pen.brush().style() == Qt.BrushStyle.SolidPattern
    vertical = ax == 0
    for i, (_, ticks) in enumerate(levels):
        at: list[float | None] = []
        positions.append(at)
        reach = 0.0 if grid is not False else style["tickLength"] / ((i * 0.5) + 1.0) * tick_dir
        alpha = 255 / (i + 1)
        if grid is not False:
            alpha *= grid / 255.0 * min(max(0.05 * length / (len(ticks) + 1), 0.0), 1.0)
        pen = base_pen
        if solid:
            pen = QPen(base_pen)
            colour = QColor(pen.color())
            colour.setAlpha(int(alpha))
            pen.setColor(colour)
        for v in ticks:
            x = (v * x_scale) - offset
            if x < x_lo or x > x_hi:
                at.append(None)
                continue
            at.append(x)
            if vertical:
                tick_specs.append((pen, QPointF(tick_start, x), QPointF(tick_stop + reach, x)))
            else:
                tick_specs.append((pen, QPointF(x, tick_start), QPointF(x, tick_stop + reach)))
    axis_spec = (axis.pen(), span[0], span[1])
    text_specs: list[tuple[QRectF, Any, str]] = []
    if not style["showValues"]:
        return axis_spec, tick_specs, text_specs
    room = max(0, style["tickLength"]) + style["tickTextOffset"][ax]
    flags = _LABEL_FLAGS[orientation]
    font = p.font().toString()
    tabular = _TABULAR.get(font)
    if tabular is None:
        metrics = QFontMetricsF(p.font())
        tabular = _TABULAR[font] = len({metrics.horizontalAdvance(c) for c in "0123456789"}) == 1
    along: list[float] = []  # label sizes along the axis, all levels so far
    across: list[float] = []  # and across it
    last_across = 0.0
    for i in range(min(len(levels), style["maxTextLevel"] + 1)):
        if manual is None:
            spacing, values = levels[i]
            strings = axis.tickStrings(values, axis.autoSIPrefixScale * axis.scale, spacing)
        else:
            strings = manual[i]
        if len(strings) == 0:
            continue
        sizes: list[tuple[float, float] | None] = []
        for j, text in enumerate(strings):
            if positions[i][j] is None:
                sizes.append(None)
                continue
            shape = text.translate(_ZEROS) if tabular else text
            wh = _LABEL_SIZES.get((font, shape))
            if wh is None:
                br = p.boundingRect(_MEASURE_BOX, Qt.AlignmentFlag.AlignCenter, shape)
                br.setHeight(br.height() * 0.8)  # as pyqtgraph: the measure is a bit large
                wh = _LABEL_SIZES[(font, shape)] = (br.width(), br.height())
            sizes.append(wh)
            along.append(wh[1] if vertical else wh[0])
            across.append(wh[0] if vertical else wh[1])
        size_along = float(np.sum(along)) if along else 0.0
        size_across = float(np.max(across)) if across else 0.0
        if i > 0:  # the first level always has its labels; the next ones while they fit
            fill = size_along / length
            if any(len(text_specs) >= n and fill >= lim for n, lim in style["textFillLimits"]):
                break
        last_across = size_across
        for j, text in enumerate(strings):
            x, wh = positions[i][j], sizes[j]
            if x is None or wh is None:
                continue
            width, height = wh
            if orientation == "left":
                rect = QRectF(tick_stop - room - width, x - height / 2, width, height)
            elif orientation == "right":
                rect = QRectF(tick_stop + room, x - height / 2, width, height)
            elif orientation == "top":
                rect = QRectF(x - width / 2.0, tick_stop - room - height, width, height)
            else:
                rect = QRectF(x - width / 2.0, tick_stop + room, width, height)
            if outer & rect != rect:
                continue
            text_specs.append((rect, flags, text))
    if len(_LABEL_SIZES) > 8192:
        _LABEL_SIZES.clear()
    axis._updateMaxTextSize(last_across)
    return axis_spec, tick_specs, text_specs


def linear_tick_values(
    axis: pg.AxisItem, lo: float, hi: float, size: float
) -> list[tuple[float, list[float]]]:
    """``pg.AxisItem.tickValues`` of a linear axis: the same numbers without numpy.

    A new range asks pyqtgraph for its ticks: an ``np.arange`` per level and an all-pairs
    ``np.isclose`` against the coarser levels' values, ~0.1–0.2 ms an axis of numpy overhead
    for ten-odd numbers (a length step of the ALiBi tab sets seven axes). Here the same
    floats, ``(k·spacing + start) / scale``, in the same order, and the same test (``|a − b|
    ≤ spacing/scale·0.01``: ``np.isclose`` with ``rtol = 0`` on finite values) in plain
    Python, against the nearest earlier values only (kept sorted).
    """
    lo, hi = sorted((lo, hi))
    scale = axis.scale
    lo *= scale
    hi *= scale
    ticks: list[tuple[float, list[float]]] = []
    seen: list[float] = []  # sorted: the values nearest v are beside its place
    for spacing, offset in axis.tickSpacing(lo, hi, size):
        start = (math.ceil((lo - offset) / spacing) * spacing) + offset
        num = int((hi - start) / spacing) + 1
        atol = spacing / scale * 0.01
        values = []
        for k in range(max(num, 0)):
            v = (k * spacing + start) / scale
            at = bisect.bisect_left(seen, v)
            if (at < len(seen) and abs(seen[at] - v) <= atol) or (
                at > 0 and abs(seen[at - 1] - v) <= atol
            ):
                continue
            values.append(v)
        seen = sorted(seen + values)
        ticks.append((spacing / scale, values))
    return ticks


def fast_axis_lines(axis: pg.AxisItem) -> None:
    """Paint ``axis``'s straight lines (axis line, ticks and grid lines) as 1-px rectangles.

    Qt's raster engine blends a translucent 1-px cosmetic line pixel by pixel: the grid lines
    of a plot cost ~0.05 ms each (4 ms for the decay plot's log axis), the same pixels as
    filled rectangles ~1/30 of that. Pixel-identical for the solid 1-px cosmetic pens of the
    style (a line from p1 to p2 covers the pixels of the rectangle 1 px wide around it, half a
    pixel past each end); any other pen is drawn as a line. The tick labels stay in the axis's
    picture.

    The axis also keeps the drawings (specs, lines, labels' picture) of the last
    :data:`AXIS_DRAWINGS_KEPT` keys (:func:`axis_key`) it drew: a range it shows again is
    blitted from them instead of generating its ticks and labels anew (~1 ms of Python an axis).
    A linear axis picks its tick values with :func:`linear_tick_values`.
    """
    kept: OrderedDict[tuple[Any, ...], tuple[QPicture, list[Any]]] = OrderedDict()
    no_pen = QPen(Qt.PenStyle.NoPen)
    lines: list[tuple[QPen, QPointF, QPointF]] = []

    def tick_strings(values: Any, scale: float, spacing: float) -> list[str]:
        # the app writes negative numbers with a real minus sign (U+2212), ticks too
        return [
            t.replace("-", MINUS) for t in pg.AxisItem.tickStrings(axis, values, scale, spacing)
        ]

    def log_tick_strings(values: Any, scale: float, spacing: float) -> list[str]:
        strings = pg.AxisItem.logTickStrings(axis, values, scale, spacing)
        return [t.replace("-", MINUS) for t in strings]

    def tick_values(lo: float, hi: float, size: float) -> list[tuple[float, list[float]]]:
        if axis.logMode:
            found: list[tuple[float, list[float]]] = pg.AxisItem.tickValues(axis, lo, hi, size)
            return found
        return linear_tick_values(axis, lo, hi, size)

    if axis.tickStrings.__func__ is pg.AxisItem.tickStrings:  # not set by a panel already
        axis.tickStrings = tick_strings
    if axis.tickValues.__func__ is pg.AxisItem.tickValues:
        axis.tickValues = tick_values
    axis.logTickStrings = log_tick_strings

    def draw_picture(p: QPainter, axis_spec: Any, tick_specs: Any, text_specs: Any) -> None:
        lines[:] = [axis_spec, *tick_specs]
        pg.AxisItem.drawPicture(axis, p, (no_pen, *axis_spec[1:]), [], text_specs)

    def drawing() -> list[Any]:
        """The axis's lines (axis line first, then one per tick) for what it shows now, from
        what it kept or drawn anew (its labels' picture set as ``axis.picture``)."""
        if axis.picture is None:
            key = axis_key(axis)
            hit = None if key is None else kept.get(key)
            if hit is not None:
                kept.move_to_end(key)  # type: ignore[arg-type]
                axis.picture, lines[:] = hit[0], hit[1]
            else:  # as AxisItem.paint: the specs, then the picture (labels)
                picture = QPicture()
                painter = QPainter(picture)
                try:
                    if axis.style["tickFont"]:
                        painter.setFont(axis.style["tickFont"])
                    specs = axis.generateDrawSpecs(painter)
                    lines.clear()
                    if specs is not None:
                        axis.drawPicture(painter, *specs)
                finally:
                    painter.end()
                axis.picture = picture
                if key is not None:
                    kept[key] = (picture, list(lines))
                    if len(kept) > AXIS_DRAWINGS_KEPT:
                        kept.popitem(last=False)
        return lines

    def paint(p: QPainter, opt: Any, widget: Any) -> None:
        drawn = drawing()
        if _grid_of(axis) is not None:
            drawn = drawn[:1]  # the tick lines are grid lines: the plot's GridLines draws them
        t = p.deviceTransform()
        px, py = 1.0 / max(abs(t.m11()), 1e-9), 1.0 / max(abs(t.m22()), 1e-9)  # a device pixel
        antialias = p.testRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        upright = t.m12() == 0 and t.m21() == 0
        columns: dict[tuple[int, float, float], list[float]] = {}
        for pen, p1, p2 in drawn:
            x1, y1, x2, y2 = p1.x(), p1.y(), p2.x(), p2.y()
            thin = pen.isCosmetic() and pen.widthF() <= 1.0 and pen.style() == Qt.PenStyle.SolidLine
            if thin and upright and y1 == y2:
                x = min(x1, x2)
                p.fillRect(QRectF(x - px / 2, y1 - py / 2, abs(x2 - x1) + px, py), pen.color())
            elif thin and upright and x1 == x2:  # vertical: drawn together, below
                key = (pen.color().rgba(), min(y1, y2), max(y1, y2))
                columns.setdefault(key, []).append(x1)
            else:
                p.setPen(pen)
                p.drawLine(p1, p2)
        for (rgba, top, bottom), xs in columns.items():
            _vertical_lines(p, p.transform(), xs, top, bottom, QColor.fromRgba(rgba))
        p.setRenderHint(QPainter.RenderHint.Antialiasing, antialias)
        axis.picture.play(p)

    culling = [False]

    def draw_specs(p: QPainter) -> Any:
        # pyqtgraph keeps the tick labels that lie in the axis's bounds: those of the axis
        # with its grid (as pyqtgraph draws it), not the smaller rectangle of its pixmap
        culling[0] = True
        try:
            return _draw_specs(axis, p, axis.boundingRect())
        finally:
            culling[0] = False

    def bounding_rect() -> QRectF:
        if culling[0] or _grid_of(axis) is None:
            whole: QRectF = pg.AxisItem.boundingRect(axis)
            return whole
        # the strip of ticks and labels only: the grid lines are another item's, and a cached
        # axis the size of the whole view would blend that much pixmap at every repaint
        rect: QRectF = axis.mapRectFromParent(axis.geometry())
        m = 0 if axis.style["hideOverlappingLabels"] else 15
        if axis.orientation in ("left", "right"):
            return rect.adjusted(0, -m, 0, m)
        return rect.adjusted(-m, 0, m, 0)

    def update(*args: Any) -> None:
        pg.AxisItem.update(axis, *args)
        grid = _grid_of(axis)
        if grid is not None:
            grid.update()

    axis.drawPicture = draw_picture
    axis.paint = paint
    axis.posenc_drawing = drawing
    axis.boundingRect = bounding_rect
    axis.generateDrawSpecs = draw_specs
    axis.update = update


def _grid_of(axis: pg.AxisItem) -> GridLines | None:
    """The :class:`GridLines` drawing ``axis``'s grid lines, if its grid is shown."""
    grid = getattr(axis, "posenc_grid", None)
    return grid if grid is not None and axis.grid is not False else None


class GridLines(pg.GraphicsObject):  # type: ignore[misc]  # pyqtgraph is untyped
    """A plot's grid lines, under its data, drawn straight onto the view at every paint.

    pyqtgraph draws a grid line as part of its axis's tick: over the data, translucent, inside
    the axis's picture. Cached, that picture is a pixmap as large as the whole view, and every
    repaint of the plot blends it (~0.1–0.2 ms an axis); drawn each time, a translucent 1-px
    vertical line is blended scan line by scan line (~25 µs for 400 px). Here the lines (the
    axes' own tick lines: same positions, same alpha per tick level) are filled in the opaque
    colour their translucent one has over the plot's background, 1-px rectangles that cost
    ~2 µs each, below the data like the grid of a printed chart. The axes keep their line and
    labels in a pixmap the size of their strip.
    """

    def __init__(self, view: pg.ViewBox, axes: list[pg.AxisItem]) -> None:
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
            axis.posenc_grid = self
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
        lines = [(a, a.posenc_drawing()[1:]) for a in axes]  # drawn anew if the axis changed
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
        self, lines: list[tuple[pg.AxisItem, list[Any]]], t: QTransform
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

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        return self._xy

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


def pixel_text(
    book: StyleBook, plot: pg.PlotWidget, role: str = "ink", kind: str = "text"
) -> PixelText:
    """An empty :class:`PixelText` on ``plot`` in the colour of ``role`` and font ``kind``."""
    item = PixelText()
    plot.addItem(item)
    book.add(lambda st: item.set_style(st.font(kind), st.qcolor(role)))
    return item


def pixel_curve(book: StyleBook, plot: pg.PlotWidget, role: str, width: str) -> PixelCurve:
    """An empty :class:`PixelCurve` on ``plot`` in the pen of ``role`` and ``width``."""
    item = PixelCurve()
    plot.addItem(item)
    book.add(lambda st: item.setPen(st.pen(role, width)))
    return item


def keep_pixels(item: QGraphicsItem, keep: bool) -> None:
    """Keep the pixels of ``item`` (a pixmap, blitted while other items change over it), or
    draw it directly.

    A cached item that changes renders a new pixmap the size of its bounds and blits it: more
    than drawing it (a length step changes every line: ~1 ms). An item that stays while others
    move over it (the other heads' lines while the head changes) is blitted from its pixmap
    instead of drawn again. So a line that a step set is drawn directly, one that a step left
    alone is cached (the first such step renders its pixmap, the next ones blit it)."""
    mode = (
        QGraphicsItem.CacheMode.DeviceCoordinateCache if keep else QGraphicsItem.CacheMode.NoCache
    )
    if item.cacheMode() != mode:
        item.setCacheMode(mode)


def cache_texts(plot: pg.PlotWidget) -> None:
    """Keep the pixels of the plot's title and axis labels.

    Each repaint of a plot otherwise lays out and draws these rich texts again (~0.12 ms a
    plot), though they rarely change; a title that changes (one with a number) renders its
    small pixmap once. Notes at data points (``pg.TextItem``) are left alone: they follow the
    view with a new transform at every move, which would render a new pixmap each time.
    """
    for item in plot.scene().items():
        if isinstance(item, QGraphicsTextItem) and not isinstance(item.parentItem(), pg.TextItem):
            item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)


def render_in_colour(plot: pg.PlotWidget) -> None:
    """Let the plot's images (a heat map, its colour bar) keep their rendered pixels in 32-bit
    colour rather than 8-bit indices.

    pyqtgraph renders a one-channel image through its colour map as an indexed image; Qt then
    converts it to 32-bit colour at every paint, before scaling it onto the view (~0.35 ms a
    paint of a 64 × 64 matrix, more for 512 × 512). Converted once when rendered, each paint
    scales the colours directly, cell by cell (no smoothing, as Qt draws an indexed image).
    """
    for item in plot.scene().items():
        if isinstance(item, pg.ImageItem) and not getattr(item, "_posenc_in_colour", False):
            _render_in_colour(item)


def _render_in_colour(item: pg.ImageItem) -> None:
    render, paint = item.render, item.paint

    def render_colour() -> None:
        render()
        image = item.qimage
        if image is not None and image.format() == QImage.Format.Format_Indexed8:
            fmt = (
                QImage.Format.Format_ARGB32_Premultiplied
                if image.hasAlphaChannel()
                else QImage.Format.Format_RGB32
            )
            item.qimage = image.convertToFormat(fmt)

    def paint_cells(p: QPainter, *args: object) -> None:
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
        paint(p, *args)

    item.render, item.paint = render_colour, paint_cells
    item._posenc_in_colour = True
