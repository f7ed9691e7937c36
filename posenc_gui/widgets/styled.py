"""Plot items and labels styled by role: the only way panels make something visible.

Every factory takes the panel's :class:`~posenc_gui.widgets.style.StyleBook` and a colour *role*
and size *kind* instead of a colour and a size; the book re-applies them whenever the style
changes (presentation scale, dark theme). Items are built once; panels push arrays into them.

The items themselves are types of :mod:`posenc_gui.widgets.render` (house axes, grid lines,
pixel curves and texts, markers, heat maps in colour), whose docstrings say what each keeps and
why it is cheaper; here they are built and styled. Thick antialiased lines are ~10x cheaper
drawn as segments (``segmentedLineMode``).
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsTextItem,
    QGraphicsView,
    QSizePolicy,
    QWidget,
)

from posenc_gui.widgets.render import ColourImage, GridLines, HouseAxis, HouseColorBar

# the types of the items the factories below return (defined in the render package)
from posenc_gui.widgets.render import Dots as Dots
from posenc_gui.widgets.render import PixelCurve as PixelCurve
from posenc_gui.widgets.render import PixelText as PixelText
from posenc_gui.widgets.render.bands import MinMaxBands
from posenc_gui.widgets.render.notes import Note, note
from posenc_gui.widgets.render.plot import HousePlot
from posenc_gui.widgets.render.ring import Ring
from posenc_gui.widgets.render.view_range import apply_transform as apply_transform
from posenc_gui.widgets.render.view_range import set_range as set_range
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
    sides = ("left", "bottom", "right", "top")
    w = pg.PlotWidget(  # no context menu: not built, ~4 ms a plot
        parent,
        plotItem=HousePlot(enableMenu=False, axisItems={side: HouseAxis(side) for side in sides}),
    )
    w.setObjectName(name)
    repaint_cheaply(w)
    w.setAccessibleName(title)
    w.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
    item = w.getPlotItem()
    item.hideAxis("top")  # given axes are shown: the right one shows with axis_right
    item.hideAxis("right")
    item.setMenuEnabled(False)
    item.setMouseEnabled(x=mouse[0], y=mouse[1])
    if not any(mouse):
        item.hideButtons()
    w.posenc_title = title
    labels = {"bottom": (xlabel, xunits), "left": (ylabel, yunits)}
    for side in ("bottom", "left"):
        # Major and minor ticks only: the third level doubles the paint time, adds nothing legible.
        item.getAxis(side).setStyle(maxTickLevel=1)
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
    """:func:`set_title` without a layout pass of the plot when only the text changes: a
    title already laid out takes the new text in place, and asks for a new place only when
    its height changes (:meth:`~posenc_gui.widgets.render.plot.HousePlot.retitle`)."""
    if getattr(plot, "posenc_title", None) == title:
        return
    plot.posenc_title = title
    st = book.style
    plot.getPlotItem().retitle(title, size=st.css_pt("title"), color=st.color("ink"))


def axis_right(book: StyleBook, w: pg.PlotWidget) -> HouseAxis:
    """Show the right axis (for per-row labels), styled like the left one, no grid."""
    item = w.getPlotItem()
    item.showAxis("right")
    axis: HouseAxis = item.getAxis("right")
    axis.setGrid(False)

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
) -> Note:
    """A text label placed in data coordinates (a :class:`~posenc_gui.widgets.render.notes.Note`,
    which ignores a ``setText`` of the text it shows)."""
    return note(book, w, role, anchor, kind)


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
    *,
    in_colour: bool = False,
    image_type: type[ColourImage] = ColourImage,
) -> tuple[ColourImage, HouseColorBar]:
    """A row-major :class:`~posenc_gui.widgets.render.ColourImage` (or ``image_type``) with
    fixed ``levels`` and a labelled colour bar; ``in_colour``: the image keeps its pixels in
    32-bit colour.

    Push data with ``item.setImage(arr, autoLevels=False)`` (contiguous float32) and place it
    with ``item.setRect(x, y, w, h)``; the levels stay fixed so a colour means the same value
    whatever the data. Change them with ``bar.setLevels(...)``.

    The bar's axis is as wide as ``widest`` (its widest tick label) in the style's tick font,
    plus its label: pyqtgraph's fixed 45 px hides the labels that do not fit (the negative
    ones at presentation scale).
    """
    configure()
    item = image_type(in_colour=in_colour)
    w.addItem(item)
    bar = HouseColorBar(
        values=levels, colorMap=book.style.colormap(cmap), interactive=False, width=18,
        colorMapMenu=False,
    )  # fmt: skip
    bar.setImageItem(item, insert_in=w.getPlotItem())
    axis = bar.getAxis("right")
    axis.setWidth(None)  # from the text width below, at every scale
    w.getPlotItem().showGrid(x=False, y=False)
    grid_lines = w.getPlotItem().getAxis("bottom").grid_lines
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


def bound_line(line: pg.InfiniteLine, low: float, high: float) -> None:
    """Bound a draggable line to ``low … high`` without echoing into the state the clamp of its
    old value that ``setBounds`` announces (it would be written back over the value the same
    refresh shows)."""
    line.blockSignals(True)
    try:
        line.setBounds((low, high))
    finally:
        line.blockSignals(False)


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


def steady_axis(book: StyleBook, axis: HouseAxis, widest: str) -> None:
    """Reserve room for tick labels as wide as ``widest`` in the tick font (never shrinking,
    :meth:`HouseAxis.reserve_text`), at every style."""

    def apply(st: Style) -> None:
        axis.reserve_text(widest, st.font("tick"))

    book.add(apply)


#: Mantissas of the "nice" ends of an axis over the positions (1.2: no curve fills less than
#: 80 % of its plot's width).
#: Round ends for an axis that should change rarely: ``c·10^k`` with ``c`` among these.
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


def data_end(x: float, share: float = 0.025) -> float:
    """The end of an axis over ``0 … x``: ``x`` rounded up to a multiple of a round step
    (1, 2 or 5·10^k) of at most ``share`` of it (1 for ``x <= 1``). The axis ends at the data
    (at most ``share`` past it) and keeps its end while ``x`` moves within one step."""
    if x <= 1.0:
        return 1.0
    target = share * x
    e = math.floor(math.log10(target))
    step = max(c * 10.0**e for c in (1.0, 2.0, 5.0) if c * 10.0**e <= target * (1 + 1e-12))
    return math.ceil(x / step - 1e-9) * step


def positions_range(n: int, margin: float = 0.01) -> tuple[float, float]:
    """The x range of a plot over positions (or distances) ``0 … n−1``: from 0 to
    :func:`data_end` of ``n − 1`` (at most 2.5 % past it), ``margin`` of it on each side. A
    length step keeps the axis (and its drawing, kept by the axis) while ``n − 1`` stays within
    one step of that end; the curves end where the table does."""
    end = data_end(float(max(n - 1, 1)))
    return (-margin * end, (1.0 + margin) * end)


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


def line(
    book: StyleBook,
    plot: pg.PlotWidget,
    role: str,
    width: str = "line",
    line: LineStyle = "solid",
    *,
    keep: bool = True,
) -> pg.PlotCurveItem:
    """An empty line like :func:`curve`, as a bare ``pg.PlotCurveItem``, for lines set at every
    step: ``PlotDataItem.setData`` adds ~0.06 ms of dataset bookkeeping to each (downsampling,
    log axes, symbols, none of them used by such lines). ``keep``: keep its pixels while other
    items change over it (:func:`_cache`; worth it for long lines, not for a few segments that
    change at every step anyway)."""
    item = pg.PlotCurveItem()
    plot.addItem(item)
    if keep:
        _cache(item)
    book.add(lambda st: item.setPen(st.pen(role, width, line)))
    return item


def bands(book: StyleBook, plot: pg.PlotWidget, role: str) -> MinMaxBands:
    """Empty :class:`~posenc_gui.widgets.render.bands.MinMaxBands` on ``plot``, filled in the
    colour of ``role``."""
    item = MinMaxBands()
    plot.addItem(item)
    book.add(lambda st: item.set_brush(st.brush(role)))
    return item


def ring(book: StyleBook, plot: pg.PlotWidget, role: str, width: str = "line") -> Ring:
    """A :class:`~posenc_gui.widgets.render.ring.Ring` (radius 0 until set) on ``plot`` in the
    pen of ``role`` and ``width``."""
    item = Ring()
    plot.addItem(item)
    book.add(lambda st: item.set_pen(st.pen(role, width)))
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
