"""Every tab on a 1024×768 projector: plots keep a legible size, text never scrolls on its own.

The panel gets what a maximised 1024×768 window leaves it (menu bar, tab bar and status bar
take about 100 px). Below the reflow width the plots stand in one scrolling column.
"""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from conftest import show_panel
from PySide6.QtGui import QPainter, QPicture
from PySide6.QtWidgets import QApplication, QScrollArea
from pytestqt.qtbot import QtBot

from posenc_gui.panels.base import SIDE_MIN_WIDTH
from posenc_gui.state.registry import TAB_IDS
from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets.styled import MIN_PLOT_HEIGHT, MIN_PLOT_WIDTH

SIZES = [(1024, 668), (1280, 620)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_plots_keep_a_legible_size(qtbot: QtBot, tab_id: str, size: tuple[int, int]) -> None:
    panel = show_panel(qtbot, tab_id, size)
    for _ in range(3):
        QApplication.processEvents()
    plots = panel.findChildren(pg.PlotWidget)
    assert plots
    for plot in plots:
        assert plot.width() >= MIN_PLOT_WIDTH, (plot.objectName(), plot.width())
        assert plot.height() >= MIN_PLOT_HEIGHT, (plot.objectName(), plot.height())
    side = panel.side_scroll
    assert side.isVisible() and side.width() >= SIDE_MIN_WIDTH
    if panel.plot_grid.narrow:
        # one column scrolls as a whole: no text cell has a scroll bar of its own
        for area in panel.plot_grid.findChildren(QScrollArea):
            assert not area.verticalScrollBar().isVisible(), area.objectName()


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_large_scale_on_a_small_screen_cuts_nothing_off(qtbot: QtBot, tab_id: str) -> None:
    """Presentation scale on a 1024×768 projector: every plot fits its widget (long titles
    shrink rather than widen the scene) and the controls column keeps its legible width."""
    hub = style_mod.hub()
    hub.set_style(style_mod.Style(scale=1.6))
    try:
        panel = show_panel(qtbot, tab_id, (1024, 668))
        for _ in range(3):
            QApplication.processEvents()
        panel.refresh_now()  # read-outs with their text: their widest part is known
        for _ in range(3):
            QApplication.processEvents()
        for plot in panel.findChildren(pg.PlotWidget):
            inner = plot.getPlotItem().size().width()
            assert inner <= plot.viewport().width() + 1, (plot.objectName(), inner, plot.width())
        side = panel.side_scroll
        assert side.width() >= int(SIDE_MIN_WIDTH * 1.6) - 1
        # controls and read-outs are never cut off unseen: they fit, or the column scrolls
        column = side.widget()
        if column.width() > side.viewport().width():
            assert side.horizontalScrollBar().isVisible()
        assert column.width() >= column.minimumSizeHint().width()
        # every colour bar shows all its major tick labels (pyqtgraph hides those that do not
        # fit its axis width)
        for bar in [i for p in panel.findChildren(pg.PlotWidget) for i in p.scene().items()
                    if isinstance(i, pg.ColorBarItem)]:  # fmt: skip
            axis = bar.getAxis("right")
            picture = QPicture()
            painter = QPainter(picture)
            specs = axis.generateDrawSpecs(painter)
            painter.end()
            lo, hi = axis.range
            major = [v for v in axis.tickValues(lo, hi, axis.geometry().height())[0][1]
                     if lo - 1e-9 <= v <= hi + 1e-9]  # fmt: skip
            assert specs is not None and len(specs[2]) >= len(major), (tab_id, specs[2], major)
    finally:
        hub.set_style(style_mod.Style())


@pytest.mark.parametrize("size", [(1280, 720), (1024, 768)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_plot_area_never_scrolls_sideways_in_a_projector_window(
    qtbot: QtBot, tab_id: str, size: tuple[int, int]
) -> None:
    """In the whole window on a projector, after the read-outs got their text: the grid goes
    to one column when its cells side by side need more than the width (a wide read-out
    table), instead of running past the window."""
    from posenc_gui.main_window import MainWindow
    from posenc_gui.state.session import Session

    session = Session(tab_id)
    if tab_id == "encodings":  # its widest read-out: the table of small learned values
        session.state(tab_id).set("scheme", "learned")
    w = MainWindow(session=session)
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    w.load_panels()
    qtbot.waitExposed(w)
    panel = w.panels[tab_id]
    panel.refresh_now()
    for _ in range(3):
        QApplication.processEvents()
    area = panel.findChild(QScrollArea, "plot_scroll")
    assert area is not None
    assert not area.horizontalScrollBar().isVisible()
    assert panel.plot_grid.width() <= area.viewport().width()
