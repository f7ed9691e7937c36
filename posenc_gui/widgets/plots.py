"""Plot helpers: projector-legible styling, colour-blind-safe colours, reusable items.

Plot items are built once by the panels and updated with ``setData``/``setImage``; these helpers
only make and style them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPen
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

#: Okabe–Ito palette (colour-blind safe), in the order lines are given colours.
OKABE_ITO = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
)
BLUE, VERMILLION, GREEN, PURPLE, ORANGE, SKY, YELLOW, BLACK = OKABE_ITO
GREY = "#777777"

TICK_PT = 11
LABEL_PT = "12pt"
TITLE_PT = "13pt"

_configured = False


def configure() -> None:
    """Global pyqtgraph options (idempotent): light background, antialiasing, row-major images."""
    global _configured
    if _configured:
        return
    pg.setConfigOptions(
        background="w", foreground="k", antialias=True, imageAxisOrder="row-major",
        # thick antialiased polylines paint ~10x faster drawn as segments (GUIDE §3)
        segmentedLineMode="on",
    )  # fmt: skip
    _configured = True


def pen(color: str, width: float = 2.0, style: Qt.PenStyle = Qt.PenStyle.SolidLine) -> QPen:
    """A cosmetic pen of ``width`` pixels."""
    p = QPen(QColor(color))
    p.setWidthF(width)
    p.setStyle(style)
    p.setCosmetic(True)
    return p


def make_plot(
    parent: QWidget | None,
    name: str,
    title: str,
    xlabel: str,
    ylabel: str,
    *,
    xunits: str | None = None,
    yunits: str | None = None,
    legend: bool = False,
) -> pg.PlotWidget:
    """A styled :class:`pg.PlotWidget` with title, axis labels (units) and a grid."""
    configure()
    w = pg.PlotWidget(parent)
    w.setObjectName(name)
    w.setAccessibleName(title)
    w.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
    item = w.getPlotItem()
    item.setTitle(title, size=TITLE_PT)
    tick_font = QFont()
    tick_font.setPointSize(TICK_PT)
    for side, text, units in (("bottom", xlabel, xunits), ("left", ylabel, yunits)):
        axis = item.getAxis(side)
        axis.setLabel(text, units=units, **{"font-size": LABEL_PT})
        axis.setTickFont(tick_font)
        axis.enableAutoSIPrefix(False)
        # Major and minor grid lines only: the third tick level doubles the axis paint time
        # and adds nothing legible on a projector.
        axis.setStyle(maxTickLevel=1)
    item.showGrid(x=True, y=True, alpha=0.25)
    item.setMenuEnabled(False)
    if legend:
        lg = item.addLegend(offset=(10, 10), labelTextSize="11pt")
        lg.setBrush(pg.mkBrush(255, 255, 255, 220))
        lg.setPen(pg.mkPen(GREY))
    return w


def curve(
    plot: pg.PlotWidget, color: str, width: float = 2.0, name: str | None = None, **kw: object
) -> pg.PlotDataItem:
    """An empty line item on ``plot``, ready for ``setData``."""
    item = pg.PlotDataItem(pen=pen(color, width), name=name, **kw)
    plot.addItem(item)
    return item


def dots(
    plot: pg.PlotWidget, color: str, size: float = 11.0, name: str | None = None
) -> pg.ScatterPlotItem:
    """An empty scatter item (filled markers with a white rim)."""
    item = pg.ScatterPlotItem(
        size=size, brush=pg.mkBrush(color), pen=pg.mkPen("w", width=1.5), name=name
    )
    plot.addItem(item)
    return item


def text_item(
    plot: pg.PlotWidget, color: str = "#000000", anchor: tuple[float, float] = (0, 1)
) -> pg.TextItem:
    """A text label in data coordinates."""
    item = pg.TextItem(color=color, anchor=anchor)
    font = QFont()
    font.setPointSize(12)
    item.setFont(font)
    plot.addItem(item)
    return item


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


class FormulaLabel(QLabel):
    """Rich-text formula or readout block, selectable, legible at projector distance."""

    def __init__(self, name: str, parent: QWidget | None = None, point_size: int = 12) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setWordWrap(True)
        font = self.font()
        font.setPointSize(point_size)
        self.setFont(font)
        self.setAccessibleName(name.replace("_", " "))

    def set_html(self, html: str) -> None:
        """Replace the text (and the accessible description, for screen readers)."""
        if html != self.text():
            self.setText(html)
            self.setAccessibleDescription(_strip_tags(html))


def _strip_tags(html: str) -> str:
    out, inside = [], False
    for ch in html:
        if ch == "<":
            inside = True
        elif ch == ">":
            inside = False
        elif not inside:
            out.append(ch)
    return "".join(out).replace("&nbsp;", " ")


def table_html(rows: Sequence[tuple[str, str]]) -> str:
    """A two-column readout table (name, value) in HTML."""
    cells = "".join(
        f"<tr><td style='padding-right:10px'>{k}</td><td align='right'><b>{v}</b></td></tr>"
        for k, v in rows
    )
    return f"<table cellspacing='0' cellpadding='1'>{cells}</table>"


#: Colour maps by meaning (all colour-blind safe, shipped with pyqtgraph).
DIVERGING = "CET-CBD1"  # values in [-1, 1] (sin/cos, cosine similarity, matrix entries)
CYCLIC = "CET-CBC1"  # angles
SEQUENTIAL = "cividis"  # magnitudes


def heatmap(
    plot: pg.PlotWidget,
    levels: tuple[float, float] = (-1.0, 1.0),
    cmap: str = DIVERGING,
    label: str | None = None,
) -> tuple[pg.ImageItem, pg.ColorBarItem]:
    """A row-major :class:`pg.ImageItem` with fixed ``levels`` and a labelled colour bar.

    Push data with ``item.setImage(arr, autoLevels=False)`` (contiguous float32) and place it
    with ``item.setRect(x, y, w, h)``; the levels stay fixed so colours mean the same values
    whatever the data. Change them with ``bar.setLevels(...)``.
    """
    configure()
    item = pg.ImageItem(axisOrder="row-major")
    plot.addItem(item)
    cmap_obj = pg.colormap.get(cmap)
    bar = pg.ColorBarItem(
        values=levels, colorMap=cmap_obj, interactive=False, width=18, colorMapMenu=False,
    )  # fmt: skip
    bar.setImageItem(item, insert_in=plot.getPlotItem())
    tick_font = QFont()
    tick_font.setPointSize(TICK_PT)
    bar.getAxis("right").setTickFont(tick_font)
    if label:
        bar.getAxis("right").setLabel(label, **{"font-size": LABEL_PT})
    return item, bar
