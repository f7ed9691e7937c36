"""Presentation mode (F5), zoom (Ctrl++ / Ctrl+- / Ctrl+0), Esc, themes, the shortcut table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from posenc_gui.app import BASE_POINT_SIZE
from posenc_gui.main_window import (
    FOLLOW_SYSTEM_KEY,
    PRESENTATION_SCALE,
    ZOOM_STEP,
    MainWindow,
    system_theme,
)
from posenc_gui.state.session import Session
from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets.text import LiveText

pytestmark = pytest.mark.usefixtures("restore_style")


@pytest.fixture
def window(open_window: Callable[..., MainWindow]) -> MainWindow:
    return open_window("sine")


def _sizes(w: MainWindow) -> tuple[list[float], list[float]]:
    panel = w.panels["sine"]
    panel.refresh_now()
    curves = [
        item
        for pw in panel.findChildren(pg.PlotWidget)
        for item in pw.getPlotItem().listDataItems()
        if isinstance(item, pg.PlotDataItem) and item.opts["pen"] is not None
    ]
    widths = [pg.mkPen(c.opts["pen"]).widthF() for c in curves]
    fonts = [label.font().pointSizeF() for label in panel.findChildren(LiveText)]
    assert widths and fonts
    return widths, fonts


def _key(qtbot: QtBot, w: MainWindow, key: Qt.Key, mods: Qt.KeyboardModifier | None = None) -> None:
    qtbot.keyClick(w, key, mods or Qt.KeyboardModifier.NoModifier)
    w.panels["sine"].refresh_now()


def test_f5_scales_fonts_and_pens_hides_controls_and_esc_leaves(
    qtbot: QtBot, window: MainWindow
) -> None:
    w = window
    widths, fonts = _sizes(w)
    side = w.panels["sine"].side_scroll
    assert side is not None and side.isVisible()
    assert QApplication.font().pointSizeF() == pytest.approx(BASE_POINT_SIZE)

    _key(qtbot, w, Qt.Key.Key_F5)
    assert w.presenting() and w.presentation_action.isChecked()
    big_widths, big_fonts = _sizes(w)
    assert big_widths == pytest.approx([PRESENTATION_SCALE * x for x in widths])
    assert big_fonts == pytest.approx([PRESENTATION_SCALE * x for x in fonts])
    assert not side.isVisible() and not w.controls_action.isChecked()
    assert QApplication.font().pointSizeF() == pytest.approx(BASE_POINT_SIZE * PRESENTATION_SCALE)
    assert w.leave_action.isEnabled()

    _key(qtbot, w, Qt.Key.Key_Escape)
    assert not w.presenting() and not w.presentation_action.isChecked()
    assert _sizes(w) == (pytest.approx(widths), pytest.approx(fonts))
    assert side.isVisible() and w.controls_action.isChecked()
    assert QApplication.font().pointSizeF() == pytest.approx(BASE_POINT_SIZE)
    assert not w.leave_action.isEnabled()  # Esc is free for the widgets again

    _key(qtbot, w, Qt.Key.Key_F5)  # F5 toggles too
    _key(qtbot, w, Qt.Key.Key_F5)
    assert not w.presenting() and style_mod.hub().style.scale == 1.0


def test_esc_leaves_presentation_then_full_screen(qtbot: QtBot, window: MainWindow) -> None:
    """F5 is full screen by itself and leaving it puts back the window state of before: full
    screen that was on before F5 stays on (Esc again leaves it)."""
    w = window
    _key(qtbot, w, Qt.Key.Key_F5)
    qtbot.waitUntil(w.isFullScreen)
    assert w.presenting() and w.full_screen_action.isChecked()
    _key(qtbot, w, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not w.isFullScreen())
    assert not w.presenting() and not w.full_screen_action.isChecked()

    _key(qtbot, w, Qt.Key.Key_F11)
    qtbot.waitUntil(w.isFullScreen)
    _key(qtbot, w, Qt.Key.Key_F5)
    _key(qtbot, w, Qt.Key.Key_Escape)
    assert not w.presenting() and w.isFullScreen() and w.full_screen_action.isChecked()
    assert w.leave_action.isEnabled()
    _key(qtbot, w, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not w.isFullScreen())
    assert not w.full_screen_action.isChecked() and not w.leave_action.isEnabled()


def test_zoom_steps_clamp_and_reset(qtbot: QtBot, window: MainWindow) -> None:
    w = window
    widths, _ = _sizes(w)
    ctrl = Qt.KeyboardModifier.ControlModifier
    _key(qtbot, w, Qt.Key.Key_Equal, ctrl)  # Ctrl+= (Ctrl++ without Shift)
    assert style_mod.hub().style.scale == pytest.approx(ZOOM_STEP)
    assert w.session.scale == pytest.approx(ZOOM_STEP)
    _key(qtbot, w, Qt.Key.Key_Plus, ctrl)
    assert style_mod.hub().style.scale == pytest.approx(ZOOM_STEP**2, abs=1e-3)
    assert _sizes(w)[0] == pytest.approx([x * ZOOM_STEP**2 for x in widths], rel=1e-3)
    assert QApplication.font().pointSizeF() == pytest.approx(
        BASE_POINT_SIZE * ZOOM_STEP**2, rel=1e-3
    )
    _key(qtbot, w, Qt.Key.Key_Minus, ctrl)
    _key(qtbot, w, Qt.Key.Key_Minus, ctrl)
    assert style_mod.hub().style.scale == 1.0  # steps pass through 100 % exactly
    for _ in range(30):
        w.zoom(+1)
    assert style_mod.hub().style.scale == style_mod.MAX_SCALE
    w.zoom(+1)
    assert "largest" in w.statusBar().currentMessage()
    _key(qtbot, w, Qt.Key.Key_0, ctrl)
    assert style_mod.hub().style.scale == 1.0
    for _ in range(30):
        w.zoom(-1)
    assert style_mod.hub().style.scale == style_mod.MIN_SCALE
    _key(qtbot, w, Qt.Key.Key_0, ctrl)
    assert style_mod.hub().style.scale == 1.0
    assert _sizes(w)[0] == pytest.approx(widths)


def test_theme_switches_palette_and_plot_backgrounds(qtbot: QtBot, window: MainWindow) -> None:
    w = window
    panel = w.panels["sine"]

    def looks(theme: str) -> bool:
        st = style_mod.Style(theme=theme)  # type: ignore[arg-type]
        panel.refresh_now()
        window_colour = QApplication.palette().color(QPalette.ColorRole.Window)
        return window_colour == st.palette().color(QPalette.ColorRole.Window) and all(
            p.backgroundBrush().color().name() == st.color("background")
            for p in panel.findChildren(pg.PlotWidget)
        )

    assert looks("light")
    w.theme_actions["dark"].trigger()
    assert looks("dark") and w.session.theme == "dark" and w.theme_actions["dark"].isChecked()
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(w, Qt.Key.Key_T, ctrl_shift)
    assert looks("light") and w.theme_actions["light"].isChecked()

    w.theme_actions["system"].trigger()  # offscreen: no platform scheme → light
    assert w.theme_mode() == "system" and w.theme_actions["system"].isChecked()
    assert w.session.theme == system_theme() and looks(system_theme())
    assert QSettings().value(FOLLOW_SYSTEM_KEY, type=bool) is True
    # the next window follows the system too, whatever its session says
    s = Session("sine")
    s.theme = "dark"
    w2 = MainWindow(session=s)
    qtbot.addWidget(w2)
    assert w2.theme_mode() == "system" and s.theme == system_theme()
    with pytest.raises(ValueError, match="theme must be one of"):
        w.set_theme_mode("sepia")


def test_every_menu_action_has_a_distinct_shortcut(window: MainWindow) -> None:
    w = window
    table = w.shortcut_table()
    names = {a for _, a, _ in table}
    for expected in ("Open session", "Save session", "Export figure as PNG", "Copy figure",
                     "Presentation", "Zoom in", "Zoom out", "Reset zoom", "Full screen",
                     "Leave presentation and full screen", "Export data as CSV",
                     "Export data as NumPy (.npz)", "Export figure as SVG"):  # fmt: skip
        assert expected in names
    keys = Counter(k for _, _, ks in table for k in ks.split(", "))
    assert not [k for k, n in keys.items() if n > 1], keys
    assert "F5" in keys and "F11" in keys and "Esc" in keys and "Ctrl+Shift+C" in keys
    shortcuts = {a.objectName(): [k.toString() for k in a.shortcuts()] for a in w.findChildren(
        type(w.zoom_in_action))}  # fmt: skip
    assert shortcuts["zoom_in_action"] == ["Ctrl++", "Ctrl+="]
    assert shortcuts["zoom_out_action"] == ["Ctrl+-"]
    assert shortcuts["zoom_reset_action"] == ["Ctrl+0"]
    assert shortcuts["presentation_action"] == ["F5"]
    w.show_shortcuts()
