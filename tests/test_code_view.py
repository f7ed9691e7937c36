"""View ▸ Show the code and Help ▸ About this view in the window (pytest-qt, offscreen)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence, QPalette
from PySide6.QtWidgets import QPushButton, QWidget
from pytestqt.qtbot import QtBot

from posenc_gui.main_window import MainWindow
from posenc_gui.state.about import about
from posenc_gui.state.registry import TAB_IDS
from posenc_gui.state.snippets import snippet
from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets.code_view import CodeWindow, mono_font


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[MainWindow]:
    w = MainWindow(initial_tab="rope")
    qtbot.addWidget(w)
    yield w
    style_mod.hub().set_style(style_mod.Style())


def test_show_the_code_shows_the_current_tab(window: MainWindow) -> None:
    win = window.show_code()
    assert win.isVisible() and window.code_window is win
    values = window.session.state("rope").values()
    assert win.editors["core"].toPlainText() == snippet("rope", values).core
    assert win.editors["plain"].toPlainText() == snippet("rope", values).plain
    assert win.version() == "core" and win.text() == snippet("rope", values).core
    assert "RoPE playground" in win.windowTitle()
    assert window.show_code() is win  # one window, raised again


def test_it_follows_the_parameters_debounced(window: MainWindow, qtbot: QtBot) -> None:
    win = window.show_code()
    count = win.refresh_count
    state = window.session.state("rope")
    for m in range(40, 48):  # a dragged slider: one rebuild once it stops
        state.set("m", m)
    assert win.is_stale() and win.refresh_count == count
    qtbot.waitUntil(lambda: "m, n, seed = 47, 2, 0" in win.editors["core"].toPlainText())
    assert win.refresh_count == count + 1
    assert win.editors["plain"].toPlainText() == snippet("rope", state.values()).plain


def test_hidden_it_does_no_work_and_catches_up_when_shown(window: MainWindow, qtbot: QtBot) -> None:
    win = window.show_code()
    win.hide()
    count = win.refresh_count
    window.session.state("rope").set("dim", 16)
    qtbot.wait(250)
    assert win.refresh_count == count and win.is_stale()
    window.show_code()
    assert win.refresh_count == count + 1
    assert "d, base, layout = 16," in win.editors["core"].toPlainText()


def test_it_follows_the_tab(window: MainWindow) -> None:
    win = window.show_code()
    window.tabs.setCurrentIndex(TAB_IDS.index("alibi"))
    assert win.tab_id == "alibi"
    assert win.text() == snippet("alibi", window.session.state("alibi").values()).core
    assert "Attention biases" in win.windowTitle()
    window.session.state("alibi").set("heads", 8)  # the new tab's state, not the old one
    assert win.is_stale()
    window.session.state("rope").set("m", 9)
    win.refresh()
    assert "n_heads, h, L, i = 8," in win.text()


@pytest.mark.parametrize("tab", TAB_IDS)
def test_every_tab_has_its_code_and_about_text(qtbot: QtBot, tab: str) -> None:
    w = MainWindow(initial_tab=tab)
    qtbot.addWidget(w)
    values = w.session.state(tab).values()
    assert w.show_code().text("plain") == snippet(tab, values).plain
    view = w.show_view_about()
    text = about(tab)
    assert text.shows[:60] in view.text()
    for paper in text.papers:
        assert f"arXiv:{paper.arxiv}" in view.text()
        assert paper.url in view.browser.toHtml()


def test_copy_puts_the_version_shown_in_the_clipboard(window: MainWindow, qtbot: QtBot) -> None:
    win = window.show_code()
    qtbot.mouseClick(win.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == win.text("core")
    assert "Copied" in win.status.text()
    win.set_version("plain")
    assert win.status.text() == ""
    qtbot.mouseClick(win.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == win.text("plain")
    assert "posenc_gui import" not in QGuiApplication.clipboard().text()


def test_save_writes_the_version_shown(window: MainWindow, tmp_path: Path) -> None:
    win = window.show_code()
    win.set_version("plain")
    assert win.default_name() == "rope_plain.py"
    path = win.save_to(tmp_path / win.default_name())
    assert path.read_text(encoding="utf-8") == win.text("plain")
    assert "Saved rope_plain.py" in win.status.text()


def test_about_this_view_follows_the_tab(window: MainWindow) -> None:
    view = window.show_view_about()
    assert "RoFormer" in view.text() and "2104.09864" in view.text()
    assert view.windowTitle() == "About this view: RoPE playground"
    window.tabs.setCurrentIndex(TAB_IDS.index("alibi"))
    assert "Train Short, Test Long" in view.text() and "2108.12409" in view.text()
    assert view.browser.openExternalLinks()


def test_menu_entries_and_shortcuts(window: MainWindow) -> None:
    table = {(m, a): k for m, a, k in window.shortcut_table()}
    assert table[("View", "Show the code")] == QKeySequence("Ctrl+Shift+K").toString(
        QKeySequence.SequenceFormat.NativeText
    )
    assert ("Help", "About this view") in table
    assert table[("Help", "Keyboard shortcuts")] == "F1"
    keys = Counter(k for _, _, ks in window.shortcut_table() for k in ks.split(", "))
    assert not [k for k, n in keys.items() if n > 1], f"shortcut used twice: {keys}"


def test_controls_are_labelled_and_keyboard_reachable(window: MainWindow) -> None:
    win = window.show_code()
    for name in ("code_versions", "code_core", "code_plain", "copy_code_button",
                 "save_code_button", "close_code_button"):  # fmt: skip
        w = win.findChild(QWidget, name)
        assert w is not None, name
        assert w.focusPolicy() & Qt.FocusPolicy.TabFocus, name
        assert w.accessibleName() or (isinstance(w, QPushButton) and w.text()), name
    assert win.editors["core"].isReadOnly() and win.editors["core"].tabChangesFocus()
    assert QKeySequence.mnemonic(win.copy_button.text()).toString() == "Alt+C"


def test_legible_in_dark_theme_and_presentation(window: MainWindow, qtbot: QtBot) -> None:
    win: CodeWindow = window.show_code()
    normal = win.editors["core"].font().pointSizeF()
    window.set_style(theme="dark", scale=1.6)
    qtbot.wait(1)  # the application palette reaches the widgets through posted events
    st = style_mod.hub().style
    font = win.editors["core"].font()
    assert font.pointSizeF() == pytest.approx(mono_font(st).pointSizeF())
    assert font.pointSizeF() > normal * 1.5
    assert font.fixedPitch() or font.styleHint() == font.StyleHint.Monospace
    base = win.editors["core"].palette().color(QPalette.ColorRole.Base)
    text = win.editors["core"].palette().color(QPalette.ColorRole.Text)
    assert base.lightness() < 80 and text.lightness() > 180  # dark page, light text
    view = window.show_view_about()
    assert view.browser.document().defaultFont().pointSizeF() == pytest.approx(st.pt("text"))
