"""House plots repaint one rectangle around what changed, over a plain background fill: the
pixels left on screen after a step are those of the whole plot painted again."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtWidgets import QApplication, QGraphicsView
from pytestqt.qtbot import QtBot

from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets import styled


def _pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1).copy()


def _on_screen(widget: styled.pg.PlotWidget) -> np.ndarray:
    """What the window shows now: the backing store, as the partial repaints left it."""
    return _pixels(QGuiApplication.primaryScreen().grabWindow(widget.winId()).toImage())


def test_house_plots_repaint_a_bounding_rectangle_without_a_background_pixmap(
    qtbot: QtBot,
) -> None:
    book = style_mod.StyleBook(style_mod.Style())
    plot = styled.plot(book, None, "p", "title", "x", "y")
    qtbot.addWidget(plot)
    assert plot.viewportUpdateMode() == QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate
    assert plot.cacheMode() == QGraphicsView.CacheModeFlag.CacheNone


@pytest.mark.parametrize("steps", [1, 5])
def test_partial_repaints_leave_the_pixels_of_a_whole_repaint(qtbot: QtBot, steps: int) -> None:
    """A curve set anew at one end and a marker moved at the other (two distant dirty
    regions): after each step, the screen equals the plot painted whole."""
    book = style_mod.StyleBook(style_mod.Style())
    plot = styled.plot(book, None, "p", "title", "x", "y")
    qtbot.addWidget(plot)
    plot.resize(420, 300)
    plot.setXRange(0.0, 10.0, padding=0.0)
    plot.setYRange(-1.2, 1.2, padding=0.0)
    x = np.linspace(0.0, 10.0, 240)
    wide = styled.pixel_curve(book, plot, "sin", "thick")
    wide.setData(x, np.sin(x))
    short = styled.pixel_curve(book, plot, "cos", "line")
    short.setData(x[:40], np.cos(x[:40]))
    marker = styled.vline(book, plot)
    styled.move_line(marker, 8.0)
    plot.show()
    qtbot.waitExposed(plot)
    QApplication.processEvents()
    before = _on_screen(plot)
    for k in range(steps):
        short.setData(x[:40], np.cos(x[:40] + 0.3 * (k + 1)))
        styled.move_line(marker, 8.0 + 0.25 * (k + 1))
        QApplication.processEvents()
        QApplication.processEvents()
        shown = _on_screen(plot)
        assert not np.array_equal(shown, before)  # the step was painted
        assert np.array_equal(shown, _pixels(plot.grab().toImage()))
        before = shown


def _ink_box(image: np.ndarray, background: np.ndarray) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero((np.abs(image.astype(int) - background.astype(int)) > 60).any(axis=2))
    return int(xs.min()), int(xs.max()), int(ys.min()), int(ys.max())


def test_a_pixel_text_shows_what_a_centred_text_item_shows(qtbot: QtBot) -> None:
    """The same rich text, font and colour at the same data point: a ``PixelText`` puts its
    ink where ``pg.TextItem(anchor=(0.5, 0.5))`` puts it (within a pixel: it is drawn at whole
    pixels), and a move re-renders nothing."""
    book = style_mod.StyleBook(style_mod.Style())
    st = book.style
    boxes = []
    for kind in ("pixel", "pyqtgraph"):
        plot = styled.plot(book, None, "p", "title", "x", "y", grid=False)
        qtbot.addWidget(plot)
        plot.resize(420, 300)
        plot.setXRange(0.0, 10.0, padding=0.0)
        plot.setYRange(0.0, 10.0, padding=0.0)
        plot.show()
        qtbot.waitExposed(plot)
        QApplication.processEvents()
        plot.grab()  # (an axis widens to its labels after their first paint)
        QApplication.processEvents()
        empty = _pixels(plot.grab().toImage()).reshape(300, 420, 4)
        if kind == "pixel":
            note = styled.pixel_text(book, plot, "query")
            note.set_html("R<sub>m</sub>q")
            note.place(3.3, 6.1)
        else:
            item = styled.pg.TextItem(anchor=(0.5, 0.5))
            plot.addItem(item)
            item.setColor(st.qcolor("query"))
            item.setFont(st.font("text"))
            item.setHtml("R<sub>m</sub>q")
            item.setPos(3.3, 6.1)
        QApplication.processEvents()
        boxes.append(_ink_box(_pixels(plot.grab().toImage()).reshape(300, 420, 4), empty))
        if kind == "pixel":
            renders = note.renders
            note.place(7.0, 2.0)
            QApplication.processEvents()
            moved = _ink_box(_pixels(plot.grab().toImage()).reshape(300, 420, 4), empty)
            assert moved[0] > boxes[0][0] and moved[2] > boxes[0][2] and note.renders == renders
    assert all(abs(a - b) <= 1 for a, b in zip(boxes[0], boxes[1], strict=True)), boxes
