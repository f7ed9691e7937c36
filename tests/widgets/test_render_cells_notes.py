"""Plot items moved out of the tabs: texts in heat-map cells, notes, arrows, crisp polygons."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from pytestqt.qtbot import QtBot

from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets.render.arrows import Arrow, arrow_segments
from posenc_gui.widgets.render.cells import CellTexts
from posenc_gui.widgets.render.notes import note
from posenc_gui.widgets.render.polygon import CrispPolygon


def _plot(qtbot: QtBot) -> pg.PlotWidget:
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    w.resize(300, 300)
    w.setXRange(-2, 2, padding=0)
    w.setYRange(-2, 2, padding=0)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_cell_texts_cover_their_cells_and_keep_unchanged_texts(qtbot: QtBot) -> None:
    item = CellTexts()
    item.set_cells([(0, 0, "1.0"), (2, 1, "−0.5")])
    assert item.cells() == [(0, 0, "1.0"), (2, 1, "−0.5")]
    assert item.boundingRect().width() == item.boundingRect().height() == 3.0
    item.set_cells([])
    assert item.boundingRect().isEmpty()


def test_a_note_keeps_its_document_while_its_text_stays(qtbot: QtBot) -> None:
    w = _plot(qtbot)
    book = style_mod.StyleBook(style_mod.Style())
    n = note(book, w, "accent", anchor=(0.5, 0.5), text="v")
    doc = n.textItem.document()
    revision = doc.revision()
    n.setText("v")
    assert doc.revision() == revision  # not set again
    n.setText("w")
    assert n.toPlainText() == "w" and doc.revision() != revision


def test_an_arrow_is_three_segments_left_alone_while_it_stays(qtbot: QtBot) -> None:
    xs, ys = arrow_segments(0.0, 0.0, 1.0, 0.0, 0.2)
    assert (xs[1], ys[1]) == (xs[3], ys[3]) == (xs[4], ys[4]) == (1.0, 0.0)  # the tip
    assert xs[2] == pytest.approx(1.0 - 0.2 * 0.94) and ys[2] == -ys[5] != 0.0
    a = Arrow()
    a.point_to(1.0, 0.0, 0.2)
    kept = a.xData
    assert a.opts["connect"] == "pairs"
    a.point_to(1.0, 0.0, 0.2)
    assert a.xData is kept  # not set again
    a.point_to(0.0, 0.0, 0.2)
    assert len(a.xData) == 1  # a zero-length arrow: its point


def test_a_crisp_polygon_takes_its_corners_from_numpy() -> None:
    poly = CrispPolygon()
    corners = np.array([(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0)])
    poly.set_corners(corners)
    got = [(p.x(), p.y()) for p in poly.polygon()]
    assert got == [tuple(c) for c in corners]
    poly.set_corners(corners[:2])
    assert poly.polygon().isEmpty()
