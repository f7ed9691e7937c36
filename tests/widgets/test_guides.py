"""ViewGuides: reference lines across a view, drawn again only when their own axis moves."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets import styled
from posenc_gui.widgets.render.guides import ViewGuides


def _plot(qtbot: QtBot, vertical: bool) -> tuple[pg.PlotWidget, ViewGuides, style_mod.Style]:
    book = style_mod.StyleBook(style_mod.Style())
    plot = styled.plot(book, None, "guides_plot", "t", "x", "y", grid=False)
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    plot.setXRange(-2.0, 2.0, padding=0.0)
    plot.setYRange(-2.0, 2.0, padding=0.0)
    guides = ViewGuides(book, plot.getViewBox(), (-1.0, 0.0, 1.0), vertical=vertical)
    plot.show()
    qtbot.waitExposed(plot)
    return plot, guides, book.style


def _column(image: QImage, plot: pg.PlotWidget, x: float) -> set[int]:
    """The colours (RGB) of the pixels of the view's x = ``x`` and its two neighbours, at a
    height inside the view."""
    vb = plot.getViewBox()
    view = plot.mapFromScene(vb.mapViewToScene(pg.Point(x, 0.5)))
    return {image.pixel(view.x() + dx, view.y()) & 0xFFFFFF for dx in (-1, 0, 1)}


def test_lines_are_drawn_at_their_values(qtbot: QtBot) -> None:
    plot, _, st = _plot(qtbot, vertical=True)
    image = plot.grab().toImage()
    background = st.qcolor("background").rgb() & 0xFFFFFF
    for x in (-1.0, 0.0, 1.0):  # a guide line crosses the view there
        assert _column(image, plot, x) != {background}, x
    for x in (-0.5, 0.5, 1.5):  # nothing else drawn
        assert _column(image, plot, x) == {background}, x


def test_drawn_again_only_when_their_own_axis_or_the_box_changes(qtbot: QtBot) -> None:
    plot, guides, _ = _plot(qtbot, vertical=True)
    plot.grab()
    renders = guides.renders
    assert renders
    for y in ((-5.0, 5.0), (0.0, 100.0)):  # the other axis: the kept pixels are blitted
        plot.setYRange(*y, padding=0.0)
        plot.grab()
    assert guides.renders == renders
    plot.setXRange(-3.0, 3.0, padding=0.0)  # their own axis: drawn again, where they now are
    plot.grab()
    assert guides.renders == renders + 1
    plot.resize(500, 300)  # a new size: drawn again
    qtbot.waitUntil(lambda: plot.getViewBox().width() > 400)
    plot.grab()
    assert guides.renders == renders + 2
    assert np.array_equal(guides.values, [-1.0, 0.0, 1.0])
