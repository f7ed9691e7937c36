"""PixelCurve: the house's cheap line item draws exactly the segments asked for."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QColor, QImage
from pytestqt.qtbot import QtBot

from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets import styled
from posenc_gui.widgets.render import PixelCurve

# two rows: y = 0 from x = 0 to 10, then y = 10 from x = 0 to 10 (the second row starts at the
# left again, so a segment joining the rows would cross the plot's centre diagonally)
XS = np.array([0.0, 5.0, 10.0, 0.0, 5.0, 10.0])
YS = np.array([0.0, 0.0, 0.0, 10.0, 10.0, 10.0])


def _image(qtbot: QtBot, connect: object) -> tuple[QImage, pg.PlotWidget, QColor]:
    book = style_mod.StyleBook(style_mod.Style())
    plot = styled.plot(book, None, "test_plot", "t", "x", "y")
    qtbot.addWidget(plot)
    plot.resize(400, 400)
    plot.setXRange(-1.0, 11.0, padding=0.0)
    plot.setYRange(-1.0, 11.0, padding=0.0)
    curve = styled.pixel_curve(book, plot, "sin", "thick")
    curve.setData(XS, YS, connect=connect)  # type: ignore[arg-type]
    plot.show()
    qtbot.waitExposed(plot)
    return plot.grab().toImage(), plot, book.style.qcolor("sin")


def _at(image: QImage, plot: pg.PlotWidget, x: float, y: float) -> QColor:
    vb = plot.getPlotItem().getViewBox()
    scene = vb.mapViewToScene(pg.Point(x, y))
    view = plot.mapFromScene(scene)
    return image.pixelColor(view.x(), view.y())


def _far(a: QColor, b: QColor) -> bool:
    return abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue()) > 90


@pytest.mark.parametrize(
    ("connect", "joined"),
    [
        ("all", True),
        (np.array([True, True, False, True, True, False]), False),
        (np.array([True, True, True, True, True, False]), True),
    ],
    ids=["all", "two-rows", "array-all"],
)
def test_segments_drawn_as_connect_says(qtbot: QtBot, connect: object, joined: bool) -> None:
    image, plot, colour = _image(qtbot, connect)
    paper = _at(image, plot, 7.3, 3.3)  # away from every segment and grid line
    assert _far(paper, colour)
    # both rows are drawn
    assert _far(_at(image, plot, 2.5, 0.0), paper)
    assert _far(_at(image, plot, 7.5, 10.0), paper)
    # the segment from (10, 0) to (0, 10) passes through (4.3, 5.7) only when joined
    assert _far(_at(image, plot, 4.3, 5.7), paper) is joined


def test_connect_array_must_match_the_points() -> None:
    curve = PixelCurve()
    with pytest.raises(ValueError, match="one flag per point"):
        curve.setData(XS, YS, connect=np.ones(3, dtype=bool))
