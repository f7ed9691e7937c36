"""The presentation's key hint is read whole at 1024 × 768 in F5 on every tab: the status bar
shows it left of the animation controls (the long context tab's "Context length L: 128 …
4194304" among them), which it would otherwise run under."""

from __future__ import annotations

from collections.abc import Callable

from conftest import resize_window, wait_full_screen
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from posenc_gui.controllers.presentation import PRESENTATION_DECK_HELP, PRESENTATION_HELP
from posenc_gui.main_window import MainWindow
from posenc_gui.state.registry import TAB_IDS

#: QStatusBar draws its message from 6 px in to 1 px before its first permanent widget.
MESSAGE_INSET = 7


def test_the_f5_hint_fits_beside_the_animation_controls(
    qtbot: QtBot, open_window: Callable[..., MainWindow]
) -> None:
    w = open_window("context", (1024, 768))
    qtbot.keyClick(w, Qt.Key.Key_F5)
    wait_full_screen(qtbot, w)
    resize_window(qtbot, w, (1024, 768))
    bar, status = w.animation_bar, w.statusBar()
    assert status.currentMessage() == PRESENTATION_HELP
    width = status.fontMetrics().horizontalAdvance
    QApplication.processEvents()
    room = {"context (first shown)": bar.geometry().left() - MESSAGE_INSET}
    for index, tab in enumerate(TAB_IDS):
        w.tabs.setCurrentIndex(index)
        QApplication.processEvents()
        if bar.isVisible():
            room[tab] = bar.geometry().left() - MESSAGE_INSET
    assert room, "no tab shows the animation controls"
    for hint in (PRESENTATION_HELP, PRESENTATION_DECK_HELP):
        assert all(width(hint) <= r for r in room.values()), (hint, width(hint), room)
    assert all(key in PRESENTATION_HELP for key in ("PgDn", "Ctrl+Shift+H", "Esc"))
