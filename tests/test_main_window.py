"""Main window: tabs from the registry, menus, messages, geometry restored."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QSpinBox
from pytestqt.qtbot import QtBot

from posenc_gui import APP_NAME
from posenc_gui.main_window import ABOUT_HTML, MainWindow
from posenc_gui.state.registry import TAB_IDS, all_models


def test_loading_page_then_tabs_from_registry(qtbot: QtBot) -> None:
    w = MainWindow(initial_tab="sine", initial_values={"dim": 16})
    qtbot.addWidget(w)
    assert w.stack.currentWidget() is w.loading
    assert w.windowTitle() == APP_NAME
    w.load_panels()
    assert w.stack.currentWidget() is w.tabs
    titles = [w.tabs.tabText(i) for i in range(w.tabs.count())]
    assert titles == [m.title for m in all_models().values()]
    assert list(w.panels) == list(TAB_IDS)
    assert w.current_tab_id() == "sine"
    assert w.panels["sine"].state.get("dim") == 16  # type: ignore[attr-defined]


def test_menus_and_about(qtbot: QtBot) -> None:
    w = MainWindow()
    qtbot.addWidget(w)
    menus = [a.text() for a in w.menuBar().actions()]
    assert menus == ["&File", "&View", "&Help"]
    assert "Vaswani" in ABOUT_HTML and "RoFormer" in ABOUT_HTML and "0." in ABOUT_HTML
    assert w.full_screen_action.shortcuts()[0].toString() == "F11"


def test_status_bar_reports_rejected_input(qtbot: QtBot) -> None:
    w = MainWindow(initial_tab="sine")
    qtbot.addWidget(w)
    w.load_panels()
    spin = w.panels["sine"].findChild(QSpinBox, "dim_spin")
    spin.setValue(5)
    assert "dim must be an even integer" in w.statusBar().currentMessage()


def test_reset_current_tab(qtbot: QtBot) -> None:
    w = MainWindow(initial_tab="sine", initial_values={"amplitude": 0.3})
    qtbot.addWidget(w)
    w.load_panels()
    w.reset_current()
    assert w.panels["sine"].state.get("amplitude") == 1.0  # type: ignore[attr-defined]


def test_geometry_and_last_tab_restored(qtbot: QtBot) -> None:
    w = MainWindow()
    qtbot.addWidget(w)
    w.load_panels()
    w.setGeometry(40, 50, 700, 555)  # the offscreen screen is 800x800
    w.tabs.setCurrentIndex(w.tabs.count() - 1)
    w.close()
    assert QSettings().value("last_tab", type=str) == TAB_IDS[-1]
    w2 = MainWindow()
    qtbot.addWidget(w2)
    assert (w2.width(), w2.height()) == (700, 555)
    w2.load_panels()
    assert w2.current_tab_id() == TAB_IDS[-1]
