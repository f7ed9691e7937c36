"""Lifetimes that do not depend on the garbage collector: a panel ends when it is closed,
disposed of or destroyed with its window — never when a collection happens to run."""

from __future__ import annotations

import gc
import weakref

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication, QMenu, QSlider, QWidget
from pytestqt.qtbot import QtBot

from posenc_gui.panels.base import live_panels
from posenc_gui.panels.sine import SinePanel
from posenc_gui.state import ParamState
from posenc_gui.state.sine import SineModel
from posenc_gui.widgets import style as style_mod


def _connections(state: ParamState) -> int:
    return len(state.changed)


def test_dispose_lets_go_of_state_style_and_controls(qtbot: QtBot, restore_style: None) -> None:
    state = ParamState(SineModel)
    bare = _connections(state)
    panel = SinePanel(state)
    qtbot.addWidget(panel)
    assert _connections(state) > bare and len(panel.book) > 0 and panel in live_panels()
    panel.dispose()
    assert panel.disposed and panel not in live_panels()
    assert _connections(state) == bare  # no panel method, no bound control left
    assert len(panel.book) == 0  # the callbacks that refer to the panel are gone
    slider = panel.findChild(QSlider, "amplitude_slider")
    shown, runs = slider.value(), panel.refresh_count
    state.set("amplitude", 0.25)
    style_mod.hub().set_style(style_mod.Style(theme="dark"))
    assert not panel.pending() and panel.refresh_count == runs
    assert slider.value() == shown
    panel.dispose()  # idempotent


def test_closing_a_panel_window_disposes_of_it(qtbot: QtBot) -> None:
    panel = SinePanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.close()
    assert panel.disposed


def test_a_panel_destroyed_with_its_window_lets_go(qtbot: QtBot) -> None:
    """The safety net: Qt deletes the window, the panel's ``destroyed`` hook disposes of it."""
    state = ParamState(SineModel)
    bare = _connections(state)
    window = QWidget()
    panel = SinePanel(state, window)
    ref = weakref.ref(panel)
    del panel
    assert ref() in live_panels()
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not shiboken6.isValid(window)
    assert _connections(state) == bare
    assert all(p is not ref() for p in live_panels())


def test_a_dropped_panel_is_never_freed_by_the_collector(qtbot: QtBot) -> None:
    panel = SinePanel()
    ref = weakref.ref(panel)
    plots = panel.findChildren(pg.PlotWidget)
    del panel
    gc.collect()
    assert ref() is not None and all(shiboken6.isValid(p) for p in plots)
    ref().dispose()  # type: ignore[union-attr]


def test_plot_menus_belong_to_their_plots(qtbot: QtBot) -> None:
    """pyqtgraph makes each plot's option menu without a parent (Python owns it, and the
    collector would delete it at any moment); the panel gives it one, so Qt deletes it with
    the plot."""
    panel = SinePanel()  # deleted below
    menus: list[QMenu] = []
    for plot in panel.findChildren(pg.PlotWidget):
        item = plot.getPlotItem()
        assert item.ctrlMenu.parent() is plot and item.stateGroup.parent() is plot
        menus.append(item.ctrlMenu)
    assert menus
    panel.close()
    panel.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not any(shiboken6.isValid(m) for m in menus)
