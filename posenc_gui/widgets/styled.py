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
import re
from collections.abc import Sequence
from html import escape as html_escape
from html import unescape
from typing import Any, NamedTuple

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRect, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QRegion,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
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
    sides = ("left", "bottom", "right", "top")
    w = pg.PlotWidget(  # no context menu: not built, ~4 ms a plot
        parent, enableMenu=False, axisItems={side: HouseAxis(side) for side in sides}
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
    _fit_title(item)
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
    *,
    in_colour: bool = False,
) -> tuple[ColourImage, HouseColorBar]:
    """A row-major :class:`~posenc_gui.widgets.render.ColourImage` with fixed ``levels`` and
    a labelled colour bar; ``in_colour``: the image keeps its pixels in 32-bit colour.

    Push data with ``item.setImage(arr, autoLevels=False)`` (contiguous float32) and place it
    with ``item.setRect(x, y, w, h)``; the levels stay fixed so a colour means the same value
    whatever the data. Change them with ``bar.setLevels(...)``.

    The bar's axis is as wide as ``widest`` (its widest tick label) in the style's tick font,
    plus its label: pyqtgraph's fixed 45 px hides the labels that do not fit (the negative
    ones at presentation scale).
    """
    configure()
    item = ColourImage(in_colour=in_colour)
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


class FormulaLabel(QWidget):
    """A rich-text formula or read-out block in the style's text size, with a stable geometry.

    A ``QLabel`` whose text changes asks its parent layout to recompute on every change: the
    whole column is laid out and repainted again, 10–25 ms a frame on the reference machine.
    This widget paints a ``QTextDocument`` itself; a new text repaints only this widget, and
    the layout is asked again only when the text needs more height than it has (the height
    only grows, so a read-out whose digits change every frame never moves anything).
    """

    def __init__(
        self, name: str, parent: QWidget | None, book: StyleBook, kind: str = "text"
    ) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setAccessibleName(name.replace("_", " "))
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self._html = ""
        self._doc = QTextDocument(self)
        self._doc.setDocumentMargin(2)
        self._needed = 0
        # Text height by width and ideal width, for the current text and font: a layout pass
        # asks for several widths, and each new width lays the whole document out again.
        self._heights: dict[int, int] = {}
        self._ideal: int | None = None
        self._least: int | None = None  # width of the widest unbreakable part

        def apply(st: Style) -> None:
            self.setFont(st.font(kind))
            self._doc.setDefaultFont(self.font())
            self._forget_sizes()
            self._needed = 0
            self.setMinimumHeight(0)
            self.updateGeometry()
            self.update()

        book.add(apply)

    def text(self) -> str:
        """The HTML last set."""
        return self._html

    def set_html(self, html: str) -> None:
        """Replace the text (and the accessible description, for screen readers); values
        marked with :func:`live` are shown as plain text."""
        if "\x02" in html:
            html = html.replace("\x02", "").replace("\x03", "")
        if html == self._html:
            return
        self._html = html
        self._doc.setHtml(keep_thin_spaces(html))
        self._forget_sizes()
        self.setAccessibleDescription(strip_tags(html))
        self.update()

    def _forget_sizes(self) -> None:
        self._heights.clear()
        self._ideal = None
        self._least = None

    def _lay_out_at(self, width: int) -> None:
        if self._doc.textWidth() != width:  # setTextWidth lays the whole document out again
            self._doc.setTextWidth(width)

    def _height_at(self, width: int) -> int:
        width = max(width, 1)
        height = self._heights.get(width)
        if height is None:
            if len(self._heights) > 32:  # a window being resized: keep the cache small
                self._heights.clear()
            self._lay_out_at(width)
            height = self._heights[width] = math.ceil(self._doc.size().height())
        return height

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return max(self._height_at(width), self._needed)

    def sizeHint(self) -> QSize:
        if self._ideal is None:
            self._doc.setTextWidth(-1)
            self._ideal = math.ceil(min(self._doc.idealWidth(), 900))
        return QSize(self._ideal, self.heightForWidth(self._ideal))

    def minimumSizeHint(self) -> QSize:
        """At least the widest thing that cannot wrap (a table row, a long number): a layout
        that squeezes the label further would cut numbers off instead of wrapping them."""
        if self._least is None:
            self._lay_out_at(1)
            self._least = math.ceil(min(self._doc.size().width(), 900))
        return QSize(max(120, self._least), self._needed)

    def paintEvent(self, event: QPaintEvent) -> None:
        self._lay_out_at(max(self.width(), 1))
        need = self._height_at(self.width())
        painter = QPainter(self)
        self._doc.documentLayout().draw(painter, self._paint_context(QRectF(event.rect())))
        painter.end()
        if need > self.height() and need > self._needed:
            self._needed = need
            self.setMinimumHeight(need)  # grows once; the layout makes room

    def _paint_context(self, clip: QRectF) -> QAbstractTextDocumentLayout.PaintContext:
        """How the document is drawn: in the window text colour, lines outside ``clip`` left
        out."""
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.clip = clip
        ctx.palette = self.palette()
        ctx.palette.setColor(QPalette.ColorRole.Text, self.palette().color(
            QPalette.ColorRole.WindowText))  # fmt: skip
        return ctx


_TAG = re.compile(r"<[^>]*>?|>")

#: The digit-group separator of :mod:`posenc_gui.widgets.fmt` (narrow no-break space).
THIN = "\u202f"
_THIN_KEPT = f"<span style='white-space:pre-wrap'>{THIN}</span>"


def keep_thin_spaces(html: str) -> str:
    """``html`` with its narrow no-break spaces protected from Qt's HTML import.

    Qt's rich-text parser treats U+202F as ordinary white space and turns it into a plain,
    breakable space: "10 000" could wrap inside the number and would not read back as set. In
    a ``white-space: pre-wrap`` span the character is kept as it is (and never breaks a line).
    """
    return html.replace(THIN, _THIN_KEPT) if THIN in html else html


def strip_tags(html: str) -> str:
    """The text of ``html`` without tags (for accessible descriptions and tests)."""
    return _TAG.sub("", html).replace("&nbsp;", " ")


def span(st: Style, role: str, html: str) -> str:
    """``html`` in the colour of ``role`` (for formulas that name a plotted line)."""
    return f"<span style='color:{st.color(role)[:7]}'>{html}</span>"


def table_html(rows: Sequence[tuple[str, str]]) -> str:
    """A two-column read-out table (name, value) in HTML."""
    cells = "".join(
        f"<tr><td style='padding-right:10px'>{k}</td><td align='right'><b>{v}</b></td></tr>"
        for k, v in rows
    )
    return f"<table cellspacing='0' cellpadding='1'>{cells}</table>"


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


def live(text: object) -> str:
    """A value of a read-out (plain text) that :class:`ReadoutLabel` can replace in place."""
    return f"\x02{html_escape(str(text), quote=False)}\x03"


#: A value marked by :func:`live`.
_VALUE = re.compile("\x02([^\x03]*)\x03")


#: After this long without a new value, values drawn over a read-out go into its document.
CATCH_UP_MS = 300


class _Place(NamedTuple):
    """Where a read-out's value is laid out, and how it is drawn."""

    origin: QPointF  # the start of its baseline
    box: QRect  # the pixels of its advance and line height
    metrics: QFontMetricsF
    font: QFont
    colour: QColor


#: Sub- and superscripts as a rich text sets them: at 2/3 of the size, a subscript's baseline
#: lowered by a sixth of the small font's height, a superscript's raised by half of it.
SMALL, SUB, SUP = 2.0 / 3.0, 1.0 / 6.0, 0.5

#: The vertical alignments of values that can be drawn over the laid-out text.
_DRAWN_OVER = (
    QTextCharFormat.VerticalAlignment.AlignNormal,
    QTextCharFormat.VerticalAlignment.AlignSuperScript,
    QTextCharFormat.VerticalAlignment.AlignSubScript,
)

#: Characters that keep to their own advance: next to a value drawn over, none of their ink
#: lies in the value's box (a slash or an italic letter leans into the next one's, and a
#: value's box repainted would cut it).
_UPRIGHT = frozenset(" \u00a0\u2009\u202f\u2028\u20290123456789.,;:=()[]{}+−-×·°%|~…ωλθ")

#: Font metrics by font (measuring a value's width needs them at every step).
_METRICS: dict[str, QFontMetricsF] = {}


class ReadoutLabel(FormulaLabel):
    """A :class:`FormulaLabel` that replaces the values of an unchanged text in place.

    Values written with :func:`live` become named anchors (``<a name>``: no visible format) of the
    document. When only values changed since the last text (the rest is the same), the changed
    ones are replaced in one edit block, each keeping its character format — the document is
    then exactly what ``setHtml`` of the new text builds, without parsing the HTML and laying the
    whole text out again (tables especially). Otherwise the text is set anew.

    After an in-place edit the heights measured by width are kept: new numbers rarely change
    a text's height, and a layout pass that follows (a control's new range re-lays out the
    column) would otherwise lay the whole text out again at every width it asks. The paint
    measures the height at its own width afresh, so a text that needs more still grows the
    label.

    Cheapest of all, a new value as wide as the one it replaces (most steps of a slider: the
    digits change, not their number; digits are equally wide) is not put into the document at
    once: it is drawn over the laid-out text, in its value's place, font and colour, and only
    that place is repainted (~0.02 ms instead of an edit and a layout, ~0.3 ms). The document
    catches up when the values rest (:data:`CATCH_UP_MS`), or at once when anything reads it
    (``_doc``); so does the accessible description (a screen
    reader reads the numbers a drag settles on, not each frame's).
    """

    #: The document's values lag the values drawn over it (see above).
    _ahead = False

    def __init__(
        self, name: str, parent: QWidget | None, book: StyleBook, kind: str = "text"
    ) -> None:
        super().__init__(name, parent, book, kind)
        self._doc.setUndoRedoEnabled(False)  # in-place edits must not pile up undo steps
        self._skeleton: list[str] = []
        self._values: list[str] = []
        #: Per value: its position and length in the document (UTF-16 units) and its format.
        self._slots: list[tuple[int, int, QTextCharFormat]] | None = None
        #: Per value, the number of its block (found when first needed after a parse), and the
        #: document it was found in.
        self._slot_blocks: tuple[QTextDocument, list[int]] | None = None
        #: Texts set anew and texts whose values were replaced in place (for tests).
        self.parsed = 0
        self.edited = 0
        #: Where each block was laid out at the last paint (document coordinates): an in-place
        #: edit repaints only the blocks it changed or moved.
        self._blocks: list[QRectF] = []
        #: The values on screen (ahead of ``self._values``, the document's, while drawn over),
        #: and the document they are the values of (a subclass may swap documents).
        self._shown: list[str] = []
        self._shown_for: QTextDocument | None = None
        #: By value, where the laid-out document shows it (measured when first needed, for
        #: the document state of ``_geo_key``): baseline origin, box (widget coordinates),
        #: font metrics, font and colour; None where a value cannot be drawn over.
        self._geo: dict[int, _Place | None] = {}
        self._geo_key: tuple[Any, ...] | None = None
        #: The values drawn over the document since it last took them in.
        self._over: set[int] = set()
        #: Values drawn over the document since the last catch-up, and paints of the text
        #: around such values (for tests).
        self.drawn_over = 0
        self.painted_around = 0
        self._catch_up_timer = QTimer(self)
        self._catch_up_timer.setSingleShot(True)
        self._catch_up_timer.setInterval(CATCH_UP_MS)
        self._catch_up_timer.timeout.connect(self._catch_up)

    @property
    def _doc(self) -> QTextDocument:
        """The document, with every value on screen in it."""
        if self._ahead:
            self._catch_up()
        return self._document

    @_doc.setter
    def _doc(self, doc: QTextDocument) -> None:
        self._document = doc

    def _describe(self) -> None:
        """The accessible description: the text shown, without tags."""
        self.setAccessibleDescription(_TAG.sub("", self._html).replace("&nbsp;", " "))

    def _catch_up(self) -> None:
        """Put the values drawn over the document into it, and repaint from it."""
        if not self._ahead:
            return
        self._describe()
        self._ahead = False
        self._over.clear()
        self._catch_up_timer.stop()
        heights = dict(self._heights)
        self._replace(self._shown)
        self._forget_sizes()
        self._heights = heights
        self.update()

    def _places(self) -> dict[int, _Place | None]:
        """The values measured so far in the document as laid out now (forgotten when the
        document, its layout width, the font or the palette changed)."""
        doc = self._document
        key = (
            id(doc), doc.revision(), doc.textWidth(), self.width(), self.height(),
            id(self._slots), doc.defaultFont().key(),
            self.palette().color(QPalette.ColorRole.WindowText).rgba(),
        )  # fmt: skip
        if key != self._geo_key:
            self._geo_key = key
            self._geo.clear()
        return self._geo

    def _place(self, i: int, places: dict[int, _Place | None]) -> _Place | None:
        """Where the laid-out document shows value ``i`` (None: not laid out at this width, or
        the value not on one line in a plain position); ``places``: :meth:`_places`."""
        if i not in places:
            places[i] = self._measure(i)
        return places[i]

    def _measure(self, i: int) -> _Place | None:
        doc = self._document
        if self._slots is None or doc.textWidth() != max(self.width(), 1):
            return None
        pos, length, fmt = self._slots[i]
        block = doc.findBlock(pos)
        at = pos - block.position()
        line = block.layout().lineForTextPosition(at)
        align = fmt.verticalAlignment()
        text = block.text()
        if (
            not line.isValid()
            or at + length > line.textStart() + line.textLength()
            or align not in _DRAWN_OVER
            or (at > 0 and text[at - 1] not in _UPRIGHT)
            or (at + length < len(text) and text[at + length] not in _UPRIGHT)
        ):
            return None
        origin = doc.documentLayout().blockBoundingRect(block).topLeft()  # the block, placed
        ends: Any = (line.cursorToX(at), line.cursorToX(at + length))  # (x, position) each
        x0, x1 = float(ends[0][0]), float(ends[1][0])
        top = origin.y() + line.y()
        font = fmt.font().resolve(doc.defaultFont())
        baseline = top + line.ascent()
        if align != QTextCharFormat.VerticalAlignment.AlignNormal:
            # as Qt's text layout sets a super- or subscript: SMALL of the size (whole points),
            # raised by SUP of its own height or lowered by SUB of it
            font = QFont(font)
            if font.pointSize() > 0:
                font.setPointSize(font.pointSize() * 2 // 3)
            else:
                font.setPixelSize(font.pixelSize() * 2 // 3)
            small = QFontMetricsF(font)
            if align == QTextCharFormat.VerticalAlignment.AlignSuperScript:
                baseline -= (small.ascent() + small.descent()) * SUP
            else:
                baseline += (small.ascent() + small.descent()) * SUB
        metrics = _METRICS.get(font.key())
        if metrics is None:
            metrics = _METRICS[font.key()] = QFontMetricsF(font)
        colour = (
            fmt.foreground().color()
            if fmt.hasProperty(QTextCharFormat.Property.ForegroundBrush)
            else self.palette().color(QPalette.ColorRole.WindowText)
        )
        return _Place(
            QPointF(origin.x() + x0, baseline),
            QRectF(origin.x() + min(x0, x1), top, abs(x1 - x0), line.height()).toAlignedRect(),
            metrics, font, colour,
        )  # fmt: skip

    def _draw_over(self, values: list[str]) -> bool:
        """Show ``values`` by drawing the changed ones over the laid-out text, if each is as
        wide as the value it replaces; False (nothing done) otherwise."""
        if self._shown_for is not self._document or len(values) != len(self._shown):
            return False
        changed = [i for i, (a, b) in enumerate(zip(values, self._shown, strict=True)) if a != b]
        if any(len(values[i]) != len(self._shown[i]) for i in changed):
            return False  # (digits are equally wide: a value of another length is not)
        assert self._slots is not None
        if any(self._slots[i][2].verticalAlignment() not in _DRAWN_OVER for i in changed):
            return False  # (an alignment this label does not know how Qt sets)
        known, places = self._places(), []
        for i in changed:
            place = self._place(i, known)
            if place is None or place.metrics.horizontalAdvance(
                values[i]
            ) != place.metrics.horizontalAdvance(self._shown[i]):
                return False
            places.append(place)
        region = QRegion()
        for place in places:  # (a digit's glyph lies inside its advance: its box holds it)
            region += place.box
        self._shown = list(values)
        self._over.update(changed)
        self._ahead = True
        self._catch_up_timer.start()
        self.drawn_over += 1
        self.update(region)
        return True

    def set_html(self, html: str) -> None:
        """Show ``html`` (values marked with :func:`live`); :meth:`text` returns it unmarked."""
        parts = _VALUE.split(html)
        skeleton, values = parts[0::2], [unescape(x) for x in parts[1::2]]
        clean = html.replace("\x02", "").replace("\x03", "")
        if clean == self._html:
            return
        self._html = clean
        if self._slots is not None and skeleton == self._skeleton and all(values):
            self.edited += 1
            if self._draw_over(values):
                return  # (the accessible description follows when the document catches up)
            self._describe()
            self._ahead = False  # the edit below puts every value on screen in the document
            self._over.clear()
            self._catch_up_timer.stop()
            heights = dict(self._heights)
            changed = self._replace(values)
            self._shown, self._shown_for = list(values), self._document
            self._forget_sizes()
            self._heights = heights
            self.update(self._dirty(changed))
            return
        else:
            self._ahead = False
            self._over.clear()
            self._catch_up_timer.stop()
            anchored = skeleton[0] + "".join(
                f"<a name='v{i}'>{html_escape(v, quote=False)}</a>{rest}"
                for i, (v, rest) in enumerate(zip(values, skeleton[1:], strict=True))
            )
            self._doc.setHtml(keep_thin_spaces(anchored))
            self._skeleton, self._values, self._shown = skeleton, values, list(values)
            self._shown_for = self._document
            self._slots = self._find_slots(values)
            self._slot_blocks = None
            self.parsed += 1
            self._forget_sizes()
        self.setAccessibleDescription(_TAG.sub("", clean).replace("&nbsp;", " "))
        self.update()

    def _block_rects(self) -> list[QRectF]:
        doc = self._document  # (``_doc`` would put values drawn over into it first)
        layout, block, out = doc.documentLayout(), doc.begin(), []
        while block.isValid():
            out.append(layout.blockBoundingRect(block))
            block = block.next()
        return out

    def _dirty(self, changed: list[int]) -> QRect:
        """The region to repaint after the values at slots ``changed`` were replaced: the
        blocks holding them and every block the new layout moved (the whole label when the
        document was laid out at another width, or its blocks are not those of the last paint).
        """
        if not self._blocks or self._doc.textWidth() != max(self.width(), 1):
            return self.rect()
        after = self._block_rects()
        if len(after) != len(self._blocks):
            return self.rect()
        assert self._slots is not None
        doc = self._document
        if self._slot_blocks is None or self._slot_blocks[0] is not doc:
            # the block of each value (edits of values keep it), for this document
            blocks = [doc.findBlock(pos).blockNumber() for pos, _, _ in self._slots]
            self._slot_blocks = (doc, blocks)
        edited = {self._slot_blocks[1][i] for i in changed}
        region = QRectF()
        for n, (old, new) in enumerate(zip(self._blocks, after, strict=True)):
            if n in edited or old != new:
                region = region.united(old).united(new)
        self._blocks = after
        return region.toAlignedRect().adjusted(-1, -1, 1, 1)

    def paintEvent(self, event: QPaintEvent) -> None:
        if self._ahead and self._paint_values(event):
            return
        self._heights.pop(max(self.width(), 1), None)  # measured afresh at the paint width
        super().paintEvent(event)  # (reading ``_doc`` puts the values drawn over into it)
        if event.rect() == self.rect():
            self._blocks = self._block_rects()

    def _paint_values(self, event: QPaintEvent) -> bool:
        """Repaint with values drawn over the document: the document's text outside their
        places (where the region reaches past them: a whole repaint, a document taken back),
        the values inside. False when a value's place is unknown (the caller catches the
        document up and paints it whole)."""
        known = self._places()
        places = [(i, self._place(i, known)) for i in sorted(self._over)]
        if any(place is None for _, place in places):
            return False
        region = event.region()
        covered = QRegion()
        for _, place in places:
            covered += place.box  # type: ignore[union-attr]
        rest = region - covered
        painter = QPainter(self)
        if not rest.isEmpty():
            painter.setClipRegion(rest)
            ctx = self._paint_context(QRectF(rest.boundingRect()))
            self._document.documentLayout().draw(painter, ctx)
            self.painted_around += 1
        painter.setClipRegion(region & covered)
        bounds = region.boundingRect()
        for i, place in places:
            assert place is not None
            if place.box.intersects(bounds):
                painter.setFont(place.font)
                painter.setPen(place.colour)
                painter.drawText(place.origin, self._shown[i])
        painter.end()
        if event.rect() == self.rect():
            self._blocks = self._block_rects()
        return True

    def _find_slots(self, values: list[str]) -> list[tuple[int, int, QTextCharFormat]] | None:
        """Where the anchored values are (None if one is not found as set: then texts are set
        anew). An anchor's name marks the first character of its value."""
        found: dict[str, tuple[int, QTextCharFormat]] = {}
        block = self._doc.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                fmt = frag.charFormat()
                for name in fmt.anchorNames():
                    found.setdefault(name, (frag.position(), fmt))
                it += 1
            block = block.next()
        slots = []
        cursor = QTextCursor(self._doc)
        for i, value in enumerate(values):
            hit = found.get(f"v{i}")
            if hit is None:
                return None
            pos, length = hit[0], len(value.encode("utf-16-le")) // 2
            cursor.setPosition(pos)
            cursor.setPosition(pos + length, QTextCursor.MoveMode.KeepAnchor)
            if cursor.selectedText() != value:
                return None
            slots.append((pos, length, hit[1]))
        return slots

    def _replace(self, values: list[str]) -> list[int]:
        """Replace the values that differ; the indices of those replaced."""
        assert self._slots is not None
        changed = [i for i, (a, b) in enumerate(zip(values, self._values, strict=True)) if a != b]
        moved = set(changed)
        cursor = QTextCursor(self._doc)
        cursor.beginEditBlock()
        for i in reversed(changed):  # from the end: earlier positions stay valid
            pos, length, fmt = self._slots[i]
            cursor.setPosition(pos)
            cursor.setPosition(pos + length, QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(values[i], fmt)
        cursor.endEditBlock()
        shift, slots = 0, []
        for i, (pos, length, fmt) in enumerate(self._slots):
            if i in moved:
                new = len(values[i].encode("utf-16-le")) // 2
                slots.append((pos + shift, new, fmt))
                shift += new - length
            else:
                slots.append((pos + shift, length, fmt))
        self._slots, self._values = slots, values
        return changed


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
