"""House axes keep the drawings of ranges they showed: a range shown again is not generated
anew, and looks exactly as when it was drawn first; anything else that changes the drawing
(hand-set ticks, the style) draws anew."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
import pytest
from conftest import compare_specs, show_panel
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter, QPicture, QTransform
from PySide6.QtWidgets import QApplication, QGraphicsItem, QWidget
from pytestqt.qtbot import QtBot

from posenc_gui.state.registry import TAB_IDS
from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets import styled
from posenc_gui.widgets.render import HouseAxis
from posenc_gui.widgets.render import axis as axis_mod
from posenc_gui.widgets.render.axis import log_tick_strings


def _grab(plot: object) -> np.ndarray:
    QApplication.processEvents()
    image = plot.grab().toImage()  # type: ignore[attr-defined]
    h, stride = image.height(), image.bytesPerLine()
    return np.frombuffer(image.constBits(), np.uint8, count=h * stride).reshape(h, stride).copy()


def _pixels(plot: object) -> np.ndarray:
    """The plot once it is laid out (an axis widens to new labels after their first paint)."""
    last = _grab(plot)
    for _ in range(5):
        now = _grab(plot)
        if np.array_equal(now, last):
            return now
        last = now
    return last


def test_a_range_shown_again_is_drawn_from_what_the_axis_kept(qtbot: QtBot) -> None:
    book = style_mod.StyleBook(style_mod.Style())
    plot = styled.plot(book, None, "axis_plot", "t", "position", "value")
    qtbot.addWidget(plot)
    plot.resize(500, 350)
    plot.show()
    qtbot.waitExposed(plot)
    axis = plot.getAxis("bottom")
    calls = []
    original = axis.generateDrawSpecs
    axis.generateDrawSpecs = lambda p: calls.append(1) or original(p)

    styled.set_range(plot, (0.0, 100.0), (-1.0, 1.0))
    first = _pixels(plot)
    assert calls
    styled.set_range(plot, (0.0, 250.0), (-1.0, 1.0))
    other = _pixels(plot)
    assert not np.array_equal(first, other)  # new ticks and labels
    drawn = len(calls)
    styled.set_range(plot, (0.0, 100.0), (-1.0, 1.0))
    np.testing.assert_array_equal(_pixels(plot), first)
    assert len(calls) == drawn  # kept: not generated again

    # ticks set by hand for the same range: a different drawing, generated anew
    axis.setTicks([[(25.0, "quarter"), (75.0, "three quarters")], []])
    by_hand = _pixels(plot)
    assert len(calls) > drawn
    assert not np.array_equal(by_hand, first)
    axis.setTicks(None)
    np.testing.assert_array_equal(_pixels(plot), first)

    # a new style (larger text) draws anew, and its own range comes back from the cache too
    book.apply(style_mod.Style(scale=1.5))
    drawn = len(calls)
    large = _pixels(plot)
    assert len(calls) > drawn and not np.array_equal(large, first)


def _axis_labels(qtbot: QtBot, tab_id: str) -> list[tuple[pg.AxisItem, list[str]]]:
    """Every visible axis of tab ``tab_id`` (built and refreshed) and the tick labels it draws."""
    panel = show_panel(qtbot, tab_id)
    panel.refresh_now()
    QApplication.processEvents()
    found = []
    for plot in panel.findChildren(pg.PlotWidget):
        for axis in [i for i in plot.scene().items() if isinstance(i, pg.AxisItem)]:
            if not axis.isVisible():
                continue
            picture = QPicture()
            painter = QPainter(picture)
            specs = axis.generateDrawSpecs(painter)
            painter.end()
            found.append((axis, [text for _, _, text in specs[2]] if specs is not None else []))
    return found


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_tick_labels_write_negative_numbers_with_a_minus_sign(qtbot: QtBot, tab_id: str) -> None:
    """The app writes −1, never -1 (U+2212, as every read-out): on every axis of every tab."""
    texts = [t for _, labels in _axis_labels(qtbot, tab_id) for t in labels]
    assert texts
    assert not [t for t in texts if "-" in t], tab_id
    if tab_id == "sine":  # its value axis runs from −2 to 2
        assert any(t.startswith("−") for t in texts)


@pytest.mark.parametrize("seed", range(20))
def test_vertical_grid_lines_cover_the_pixels_of_their_rectangles(seed: int) -> None:
    """Drawn at once as a stretched row image, the 1-px vertical lines cover exactly the pixels
    their 1-px rectangles would (lines in distinct pixel columns), under any upright scaling."""
    rng = np.random.default_rng(seed)
    sx, sy = rng.uniform(0.5, 3.0), rng.uniform(0.5, 2.0)
    dx, dy = rng.uniform(-3, 3), rng.uniform(-3, 3)
    cols = rng.choice(np.arange(4, 100), size=6, replace=False)
    xs = [(c + rng.uniform(0.05, 0.95) - dx) / sx for c in cols]  # one line per device column
    top = float(rng.uniform(2, 20))
    bottom = top + float(rng.uniform(5, 100))
    colour = QColor(10, 20, 30, 90)
    images = []
    for mode in ("rectangles", "row image"):
        image = QImage(400, 300, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(0)
        painter = QPainter(image)
        painter.setTransform(QTransform(sx, 0, 0, sy, dx, dy))
        if mode == "rectangles":
            px, py = 1 / sx, 1 / sy
            for x in xs:
                painter.fillRect(QRectF(x - px / 2, top - py / 2, px, bottom - top + py), colour)
        else:
            axis_mod.vertical_lines(painter, painter.transform(), xs, top, bottom, colour)
        painter.end()
        images.append(image)
    assert images[0] == images[1]


def test_an_axis_draws_the_same_cached_or_not(qtbot: QtBot) -> None:
    """The grid lines (row images drawn after resetting the transform) land on the same pixels
    whether the axis paints into its cache pixmap or straight into the view."""
    book = style_mod.StyleBook(style_mod.Style())
    window = QWidget()  # inside a window, off its corner, as in a panel
    qtbot.addWidget(window)
    window.resize(560, 400)
    plot = styled.plot(book, window, "grid_plot", "t", "position", "value")
    plot.setGeometry(37, 23, 500, 350)
    window.show()
    qtbot.waitExposed(window)
    styled.set_range(plot, (0.0, 100.0), (-1.0, 1.0))
    axes = [plot.getAxis("bottom"), plot.getAxis("left")]
    assert all(a.grid is not False for a in axes)  # the house plot has grid lines
    for axis in axes:
        axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
    cached = _pixels(window)  # the window's pixels: the plot painted at its offset
    for axis in axes:
        axis.setCacheMode(QGraphicsItem.CacheMode.NoCache)
        axis.picture = None
        axis.update()
    np.testing.assert_array_equal(_pixels(window), cached)


def test_grid_lines_lie_under_the_data_at_the_ticks_in_their_colour_over_the_background(
    qtbot: QtBot,
) -> None:
    """The plot's GridLines draw each axis's tick lines across the view, below the curves, in
    the colour the translucent tick pen shows over the background; the axes' cached pixmaps
    cover their own strips only."""
    book = style_mod.StyleBook(style_mod.Style())
    plot = styled.plot(book, None, "grid_plot", "t", "x", "y")
    qtbot.addWidget(plot)
    plot.resize(500, 350)
    plot.show()
    qtbot.waitExposed(plot)
    styled.set_range(plot, (0.0, 10.0), (0.0, 10.0))
    line = styled.curve(book, plot, "ink", "thick")
    line.setData([0.0, 10.0], [4.0, 4.0])  # horizontal, along the y = 4 grid line
    image = plot.grab().toImage()
    for _ in range(3):  # laid out (axes widen to their labels after the first paint)
        QApplication.processEvents()
        image = plot.grab().toImage()
    vb = plot.getPlotItem().getViewBox()
    background = QColor(book.style.color("background"))
    bottom = plot.getAxis("bottom")
    grid = bottom.grid_lines
    ticks = [v for v in bottom.tickValues(0.0, 10.0, vb.width())[0][1] if 0.0 < v < 10.0]
    assert len(ticks) >= 3  # major ticks inside the view
    pen_colour = bottom.drawing()[1][0].color()
    assert pen_colour.alpha() < 255  # pyqtgraph's grid pen is translucent
    expected = grid.opaque(pen_colour)
    assert expected.alpha() == 255 and expected != background
    for tick in ticks:
        at = vb.mapViewToScene(pg.Point(tick, 2.0))
        assert image.pixelColor(int(at.x()), int(at.y())) == expected, tick  # a grid line
    assert 4.0 in [v for v in plot.getAxis("left").tickValues(0.0, 10.0, vb.height())[0][1]]
    # the curve is drawn over the grid: on the y = 4 grid line it shows its own colour
    on_line = vb.mapViewToScene(pg.Point(5.0, 4.0))
    assert image.pixelColor(int(on_line.x()), int(on_line.y())) == QColor(book.style.color("ink"))
    for axis in (bottom, plot.getAxis("left")):
        strip = axis.mapRectFromParent(axis.geometry())
        rect = axis.boundingRect()
        assert rect.height() <= strip.height() + 30 and rect.width() <= strip.width() + 30


def _pyqtgraphs_specs(axis: HouseAxis, p: QPainter) -> Any:
    """pyqtgraph's own specs, its labels kept within its own bounds of the axis (with a grid,
    the axis and the view; the house's axis is bounded by its strip, for its pixmap)."""
    return axis.pyqtgraph_specs(p)


def test_house_axes_draw_the_specs_pyqtgraph_draws(qtbot: QtBot) -> None:
    """Every side, with and without a grid, linear and log, ticks set by hand: the house's
    cheaper specs are pyqtgraph's (tick lines, pens, label rectangles and strings, text room)."""
    from functools import partial

    book = style_mod.StyleBook(style_mod.Style())
    plot = styled.plot(book, None, "spec_plot", "t", "x", "y")
    qtbot.addWidget(plot)
    plot.resize(640, 420)
    item = plot.getPlotItem()
    for side in ("top", "right"):
        item.showAxis(side)
    plot.show()
    qtbot.waitExposed(plot)
    QApplication.processEvents()
    ranges = [(-0.5, 99.5), (0.0, 1.0), (-2.1, 2.1), (3.2, 17.9), (1e-3, 5e-3), (-0.5, 999_999.5),
              (120.25, 130.75), (0.0, 0.0)]  # fmt: skip
    log_ranges = [(-3.0, 2.0), (0.0, 6.0), (1.2, 1.9), (-0.5, 0.5)]  # decades
    compared = 0
    for grid in (0.25, False):
        for log in (False, True):
            for manual in (False, True):
                for side in ("left", "bottom", "top", "right"):
                    axis = item.getAxis(side)
                    axis.setGrid(grid)
                    axis.setLogMode(log)
                    axis.setTicks([[(1.0, "one"), (5.0, "five")], [(2.0, "2")]] if manual else None)
                    for lo, hi in ranges if not log else log_ranges:
                        axis.range = [lo, hi]
                        compared += compare_specs(
                            axis,
                            partial(_pyqtgraphs_specs, axis),
                            (side, grid, log, manual, lo, hi),
                        )
    assert compared > 500  # labels were compared, not only empty lists


def test_linear_axes_pick_pyqtgraphs_tick_values(qtbot: QtBot) -> None:
    """Every house axis (plot sides, colour bar) takes its linear ticks from plain Python: the
    same levels and floats as pyqtgraph's numpy code, for any range, direction and length; a
    log axis keeps pyqtgraph's."""
    book = style_mod.StyleBook(style_mod.Style())
    plot = styled.plot(book, None, "p", "t", "x", "y")
    qtbot.addWidget(plot)
    _, bar = styled.heatmap(book, plot)
    axes = [plot.getAxis("left"), plot.getAxis("bottom"), bar.getAxis("right")]
    rng = np.random.default_rng(3)
    for axis in axes:
        assert isinstance(axis, HouseAxis)  # the house's tick values
        for _ in range(60):
            lo, hi = sorted(rng.choice([-1, 1]) * 10.0 ** rng.uniform(-3, 3, size=2))
            size = float(rng.uniform(40, 900))
            for a, b in ((lo, hi), (hi, lo), (0.0, float(rng.integers(8, 513))), (-8.0, 0.0)):
                want = pg.AxisItem.tickValues(axis, a, b, size)
                assert axis_mod.linear_tick_values(axis, a, b, size) == want, (a, b, size)
                assert axis.tickValues(a, b, size) == want
    log_axis = plot.getAxis("left")
    plot.setLogMode(y=True)
    assert log_axis.tickValues(0.0, 3.0, 300.0) == pg.AxisItem.tickValues(log_axis, 0.0, 3.0, 300.0)


def test_labels_of_one_shape_are_measured_once_in_a_font_of_equal_digits(qtbot: QtBot) -> None:
    """In a font whose digits share one advance, a label's size is that of its shape (every
    digit a 0): a range moving with a slider measures no new label, and the rectangles are
    still pyqtgraph's (the spec comparison above covers every digit)."""
    from functools import partial

    book = style_mod.StyleBook(style_mod.Style())
    plot = styled.plot(book, None, "shape_plot", "t", "x", "y")
    qtbot.addWidget(plot)
    plot.resize(640, 420)
    plot.show()
    qtbot.waitExposed(plot)
    QApplication.processEvents()
    axis = plot.getAxis("left")
    axis.range = [100.0, 160.0]
    compare_specs(axis, partial(_pyqtgraphs_specs, axis), "first")
    assert any(v for v in axis_mod.TABULAR.values())  # the style's tick font has equal digits
    assert all(not any(c in "123456789" for c in text) for _, text in axis_mod.LABEL_SIZES)
    measured = len(axis_mod.LABEL_SIZES)
    for start in range(101, 130, 7):  # new numbers, same shapes: nothing measured anew
        axis.range = [float(start), float(start + 60)]
        assert compare_specs(axis, partial(_pyqtgraphs_specs, axis), start) > 0
    assert len(axis_mod.LABEL_SIZES) == measured


def test_log_axis_labels_use_one_notation() -> None:
    """Written out while the axis stays within 0.01 … 100, powers beyond (never pyqtgraph's
    mix of ``0.0001`` and ``10⁻⁵``, nor its ``3·10¹`` for 25)."""
    decades = [float(e) for e in range(-7, 0)]
    assert log_tick_strings(decades, 1.0, (-7.2, -0.9)) == [
        "10⁻⁷", "10⁻⁶", "10⁻⁵", "10⁻⁴", "10⁻³", "10⁻²", "10⁻¹",
    ]  # fmt: skip
    assert log_tick_strings([0.0, 1.0, 2.0], 1.0, (0.0, 2.2)) == ["1", "10", "100"]
    assert log_tick_strings([0.0, 1.0, 2.0, 3.0], 1.0, (0.0, 3.2)) == ["10⁰", "10¹", "10²", "10³"]
    minors = [math.log10(x) for x in (2, 25, 80)]
    assert log_tick_strings(minors, 1.0, (0.0, 1.95)) == ["2", "25", "80"]
    assert log_tick_strings(minors, 1.0, (0.0, 6.0)) == ["2·10⁰", "2.5·10¹", "8·10¹"]
    # between the decades, only the labels that fit: all, then 2 and 5, then none
    ticks = [math.log10(x) for x in (1, 2, 3, 5, 8, 10)]
    assert log_tick_strings(ticks, 1.0, (0.0, 1.0), 20.0) == ["1", "2", "3", "5", "8", "10"]
    assert log_tick_strings(ticks, 1.0, (0.0, 1.0), 5.0) == ["1", "2", "", "5", "", "10"]
    assert log_tick_strings(ticks, 1.0, (0.0, 1.0), 2.0) == ["1", "", "", "", "", "10"]


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_every_log_axis_writes_its_labels_in_one_notation(qtbot: QtBot, tab_id: str) -> None:
    for axis, texts in _axis_labels(qtbot, tab_id):
        if not axis.logMode:
            continue
        powers = ["10" in t and any(c in "⁰¹²³⁴⁵⁶⁷⁸⁹" for c in t) for t in texts]
        assert all(powers) or not any(powers), (tab_id, texts)


# -- issue 20: a long session's memory -----------------------------------------------------------
def _qt_values() -> int:
    """Live Python wrappers of QPointF and QPen (what a kept line once held three of)."""
    import gc

    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QPen

    gc.collect()
    return sum(isinstance(o, QPointF | QPen) for o in gc.get_objects())


def test_kept_drawings_hold_no_qt_objects_per_line(qtbot: QtBot) -> None:
    """The drawings an axis keeps (up to AXIS_DRAWINGS_KEPT per axis, a hundred axes in the
    window) are packed: keeping one more does not keep its lines' QPen/QPointF objects (it did:
    ~10 KB a drawing, the memory of a long session growing for an hour)."""
    book = style_mod.StyleBook(style_mod.Style())
    plot = styled.plot(book, None, "axis_plot", "t", "position", "value")
    qtbot.addWidget(plot)
    plot.resize(500, 350)
    plot.show()
    qtbot.waitExposed(plot)
    axis = plot.getAxis("bottom")
    styled.set_range(plot, (0.0, 100.0), (-1.0, 1.0))
    first = _pixels(plot)
    before = _qt_values()
    shown = axis_mod.AXIS_DRAWINGS_KEPT - 2
    for k in range(1, shown):
        styled.set_range(plot, (0.0, 100.0 + 7 * k), (-1.0, 1.0))
        _grab(plot)
    assert len(axis._kept) >= shown - 1  # all of them kept (each a new drawing)
    lines = sum(len(kept.lines()) for _, kept in axis._kept.values())
    assert lines > 10 * shown  # each has its ticks' lines...
    assert _qt_values() - before < lines // 4  # ... not as Qt objects
    styled.set_range(plot, (0.0, 100.0), (-1.0, 1.0))
    np.testing.assert_array_equal(_pixels(plot), first)  # and draws from them as before
