"""Main window: tabs from the registry built on first show, menus, messages, geometry."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QSpinBox, QWidget
from pytestqt.qtbot import QtBot

from posenc_gui import APP_NAME
from posenc_gui.controllers.help import ABOUT_HTML
from posenc_gui.controllers.menus import tab_shortcut
from posenc_gui.main_window import MainWindow
from posenc_gui.state.registry import TAB_IDS, all_models
from posenc_gui.state.session import Session
from posenc_gui.widgets import style as style_mod


def test_loading_page_then_tabs_from_registry(qtbot: QtBot) -> None:
    w = MainWindow(initial_tab="sine", initial_values={"dim": 16})
    qtbot.addWidget(w)
    assert w.stack.currentWidget() is w.loading
    assert w.windowTitle() == f"Sine explorer — {APP_NAME}"
    models = list(all_models().values())
    assert [w.tabs.tabText(i) for i in range(w.tabs.count())] == [m.short_title for m in models]
    bar = w.tabs.tabBar()
    assert [bar.accessibleTabName(i) for i in range(bar.count())] == [m.title for m in models]
    assert all(m.title in w.tabs.tabToolTip(i) for i, m in enumerate(models))
    assert w.panels == {}  # nothing built (no torch) before the first paint
    w.load_panels()
    assert w.stack.currentWidget() is w.tabs
    assert list(w.panels) == ["sine"]  # only the tab on screen is built
    assert w.current_tab_id() == "sine"
    assert w.panels["sine"].state is w.session.state("sine")  # type: ignore[attr-defined]
    assert w.session.state("sine").get("dim") == 16


def test_other_tabs_are_built_when_first_shown(qtbot: QtBot) -> None:
    w = MainWindow(initial_tab="sine")
    qtbot.addWidget(w)
    w.load_panels()
    w.tabs.setCurrentIndex(TAB_IDS.index("rotation"))
    assert set(w.panels) == {"sine", "rotation"}
    assert w.windowTitle() == f"Rotation matrix — {APP_NAME}"  # the full title of the tab
    assert w.session.current_tab == "rotation"
    # the panel mirrors the session's state: a change made there shows in the panel
    w.session.state("rotation").set("dim", 64)
    assert w.panels["rotation"].state.get("dim") == 64  # type: ignore[attr-defined]


def test_window_built_from_a_session(qtbot: QtBot) -> None:
    session = Session("rotation")
    session.state("rotation").set("dim", 32)
    w = MainWindow(session=session)
    qtbot.addWidget(w)
    w.load_panels()
    assert w.current_tab_id() == "rotation"
    assert w.panels["rotation"].state.get("dim") == 32  # type: ignore[attr-defined]


def test_tab_shortcuts_go_past_nine() -> None:
    texts = [tab_shortcut(i).toString() for i in range(12)]
    assert texts[:9] == [f"Ctrl+{k}" for k in range(1, 10)]
    assert texts[9:] == ["Alt+1", "Alt+2", "Alt+3"]
    assert len(set(texts)) == 12


def test_menus_and_about(qtbot: QtBot) -> None:
    w = MainWindow()
    qtbot.addWidget(w)
    menus = [a.text() for a in w.menuBar().actions()]
    assert menus == ["&File", "&View", "&Help"]
    file_items = [a.text() for a in w.file_menu.actions() if a.text()]
    assert file_items == [
        "&Open session…", "Open &recent", "&Save session…", "Open &model config…",
        "Open dec&k…", "Open &bundled deck", "Sa&ve deck…", "&Add current view as step…",
        "&Next step", "&Previous step", "Go &to step…", "C&lose deck",
        "&Export figure as PNG…",
        "Export figure as SV&G…", "Export figure as animated G&IF…", "Export &data as CSV…",
        "Export data as NumP&y (.npz)…",
        "E&xport data as .npy files…",
        "&Copy figure", "Export animation as GI&F…", "Export animation as PNG seq&uence…",
        "&Quit",
    ]  # fmt: skip
    view_items = [a.text() for a in w.view_menu.actions() if a.text()]
    assert view_items == [
        "&Reset tab parameters", "Show &controls", "Show the co&de", "Zoom &in", "Zoom &out",
        "Reset &zoom",
        "&Theme", "Colour &maps", "&Presentation", "&Full screen",
        "&Leave presentation and full screen",
        "&Enlarge figure", "Ne&xt figure", "Pre&vious figure", "Restore fig&ures",
        "Play/Pause &animation", "Animation fa&ster", "Animation slo&wer",
        "&Go to tab",
    ]  # fmt: skip
    themes = [a.text() for a in w.theme_group.actions()]
    assert themes == ["&System", "&Light", "&Dark"] and w.theme_group.isExclusive()
    assert "Vaswani" in ABOUT_HTML and "RoFormer" in ABOUT_HTML and "0." in ABOUT_HTML
    assert w.full_screen_action.shortcuts()[0].toString() == "F11"
    table = {(menu, name): keys for menu, name, keys in w.shortcut_table()}
    assert table[("File", "Quit")] == "Ctrl+Q"
    shortcuts = [a.shortcut().toString() for a in w.tab_menu.actions()]
    assert shortcuts == [tab_shortcut(i).toString() for i in range(len(TAB_IDS))]


def test_status_messages_belong_to_their_tab(qtbot: QtBot) -> None:
    w = MainWindow(initial_tab="sine")
    qtbot.addWidget(w)
    w.load_panels()
    spin = w.panels["sine"].findChild(QSpinBox, "dim_spin")
    spin.setValue(5)
    assert "dim must be an even integer" in w.statusBar().currentMessage()
    w.tabs.setCurrentIndex(TAB_IDS.index("rotation"))
    assert w.statusBar().currentMessage() == ""  # not about this tab
    w.tabs.setCurrentIndex(TAB_IDS.index("sine"))
    assert "dim must be an even integer" in w.statusBar().currentMessage()


def test_an_accepted_value_withdraws_the_refusal(qtbot: QtBot) -> None:
    """Issue 20, finding 11: the refusal stayed in the status bar after a valid value."""
    w = MainWindow(initial_tab="sine")
    qtbot.addWidget(w)
    w.load_panels()
    spin = w.panels["sine"].findChild(QSpinBox, "dim_spin")
    spin.setValue(5)
    assert "dim must be an even integer" in w.statusBar().currentMessage()
    spin.setValue(8)
    assert w.session.state("sine").get("dim") == 8
    assert w.statusBar().currentMessage() == ""
    w.tabs.setCurrentIndex(TAB_IDS.index("rotation"))
    w.tabs.setCurrentIndex(TAB_IDS.index("sine"))
    assert w.statusBar().currentMessage() == ""  # not remembered for the tab either
    # only the refusal goes: another notice stays when a value is accepted
    w.messages.show("Session saved")
    spin.setValue(10)
    assert w.statusBar().currentMessage() == "Session saved"


def test_reset_current_tab(qtbot: QtBot) -> None:
    w = MainWindow(initial_tab="sine", initial_values={"amplitude": 0.3})
    qtbot.addWidget(w)
    w.load_panels()
    w.reset_current()
    assert w.session.state("sine").get("amplitude") == 1.0


def test_full_screen_off_restores_the_previous_state(qtbot: QtBot) -> None:
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    w.showMaximized()
    qtbot.waitUntil(w.isMaximized)
    w.full_screen_action.setChecked(True)
    qtbot.waitUntil(w.isFullScreen)
    w.full_screen_action.setChecked(False)
    qtbot.waitUntil(lambda: not w.isFullScreen())
    assert w.isMaximized()


def test_first_window_fits_the_screen(qtbot: QtBot) -> None:
    QSettings().remove("geometry")
    w = MainWindow()
    qtbot.addWidget(w)
    avail = w.screen().availableGeometry()  # the offscreen screen is 800x800
    assert w.width() <= avail.width() and w.height() <= avail.height()
    assert avail.contains(w.geometry())


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


def test_loading_page_is_painted_before_torch_loads(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the real event loop: the first frame is the loading page, then the tab.

    The loading page's paint is what starts the load here: the fallback for a window that is
    never exposed is put out of reach (on a busy machine it could come first, and this test
    is about the paint), and the wait is for the tab, however long a busy machine takes."""
    import posenc_gui.main_window as main_window

    monkeypatch.setattr(main_window, "LOAD_FALLBACK_MS", 24 * 3600 * 1000)
    w = MainWindow(initial_tab="sine")
    qtbot.addWidget(w)
    w.show()
    w.load_panels_later()  # what `posenc-gui` does right after show()
    qtbot.waitUntil(lambda: "sine" in w.panels, timeout=600_000)
    assert w.painted_before_load
    assert w.stack.currentWidget() is w.tabs


@pytest.mark.usefixtures("restore_style")
def test_a_closed_window_is_freed_without_the_garbage_collector(qapp: object) -> None:
    """Nothing the window builds (controllers, menus, panels, the code and about windows, a
    deck, an error box, a running animation) holds the window through a Qt connection or a
    reference cycle: closed and dropped, it is gone at once, with the collector off."""
    import gc
    import weakref

    from PySide6.QtWidgets import QApplication

    from posenc_gui.state.deck import bundled_decks

    warm = MainWindow(session=Session("sine"))
    warm.load_panels()  # the first import of torch and pyqtgraph leaves garbage of its own
    warm.close()
    del warm
    gc.collect()
    gc.disable()
    try:
        w = MainWindow(session=Session("sine"))
        w.show()
        w.load_panels()
        w.tabs.setCurrentIndex(TAB_IDS.index("rotation"))
        w.show_code()
        w.show_view_about()
        w.messages.error("Refused", "A test failure.")
        assert w.deck.open_path(bundled_decks()[0])
        w.set_presentation(True)
        w.animator.play()
        QApplication.processEvents()
        ref = weakref.ref(w)
        w.close()
        del w
        assert ref() is None
    finally:
        gc.enable()


# -- start-up: last session, --tab/--set on top, --fresh -------------------------------------------
def test_start_restores_the_last_session_with_cli_overrides(qtbot: QtBot) -> None:
    from posenc_gui.app import build_window
    from posenc_gui.controllers.sessions import last_session_path
    from posenc_gui.state import ParamError
    from posenc_gui.widgets import style as style_mod

    try:
        w = MainWindow(session=Session("sine"))
        qtbot.addWidget(w)
        w.session.state("sine").update({"dim": 32, "length": 20})
        w.session.state("rope").set("m", 7)
        w.close()
        assert last_session_path().is_file()

        restored = build_window()
        qtbot.addWidget(restored)
        assert restored.session.state("sine").get("dim") == 32

        # --tab/--set apply on top of the restored session (only the values given)
        over = build_window("rope", {"n": 3})
        qtbot.addWidget(over)
        assert over.current_tab_id() == "rope"
        assert over.session.state("rope").get("n") == 3
        assert over.session.state("rope").get("m") == 7
        assert over.session.state("sine").get("dim") == 32

        # a value the restored session cannot take: refused, with a hint
        try:
            build_window("sine", {"position": 40})
        except ParamError as err:
            assert "--fresh" in str(err) and "position" in str(err)
        else:
            raise AssertionError("position 40 with length 20 was accepted")

        fresh = build_window("sine", {"position": 40}, fresh=True)
        qtbot.addWidget(fresh)
        assert fresh.session.state("sine").get("dim") == all_models()["sine"].defaults()["dim"]
        assert fresh.session.state("sine").get("position") == 40

        given = Session("heatmap")
        chosen = build_window(session=given)
        qtbot.addWidget(chosen)
        assert chosen.session is given and chosen.current_tab_id() == "heatmap"
    finally:
        last_session_path().unlink(missing_ok=True)
        style_mod.hub().set_style(style_mod.Style())


def test_access_keys_are_unique_in_every_menu(qtbot: QtBot) -> None:
    """Alt+letter reaches one item: no two items of a menu (or the menu bar) share their
    underlined letter, and every item has one."""
    w = MainWindow()
    qtbot.addWidget(w)
    menus = [("menu bar", w.menuBar().actions())]
    menus += [(a.text(), a.menu().actions()) for a in w.menuBar().actions()]  # type: ignore[union-attr]
    for name, actions in menus:
        keys: dict[str, str] = {}
        for action in actions:
            text = action.text()
            if not text or action.isSeparator():
                continue
            found = re.search(r"&([^&])", text)
            assert found, f"{name}: {text!r} has no access key"
            key = found.group(1).lower()
            assert key not in keys, f"{name}: {text!r} and {keys[key]!r} share Alt+{key}"
            keys[key] = text


NAV_SIZES = [(1024, 768), (1280, 720), (1920, 1080)]


@pytest.mark.parametrize("scale", [1.0, 1.6], ids=["normal", "presentation"])
@pytest.mark.parametrize("size", NAV_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_eight_tabs_fit_without_scrolling_or_cutting(
    qtbot: QtBot, size: tuple[int, int], scale: float
) -> None:
    """Eight tabs (the real ones and stand-ins for the coming two) show every label whole,
    at the style's font (normal and presentation), without scroll buttons."""
    w = MainWindow(initial_tab="sine")
    qtbot.addWidget(w)
    for title in ("Long context", "Precision")[: 8 - w.tabs.count()]:
        w.tabs.addTab(QWidget(), title)
    assert w.tabs.count() == 8
    w.set_style(scale=scale)
    w.load_panels()
    w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    bar = w.tabs.tabBar()
    qtbot.waitUntil(lambda: bar.width() == w.width() and bar.height() >= bar.tabRect(0).height())
    assert not bar.usesScrollButtons()
    assert bar.elideMode() == Qt.TextElideMode.ElideNone
    wanted = style_mod.hub().style.pt("body") + scale
    assert bar.font().pointSizeF() == pytest.approx(wanted)  # fits without shrinking
    right = 0
    for i in range(bar.count()):
        rect = bar.tabRect(i)
        assert bar.rect().contains(rect), (bar.tabText(i), rect, bar.rect())
        text = bar.fontMetrics().horizontalAdvance(bar.tabText(i))
        assert rect.width() > text, bar.tabText(i)  # the whole label, not elided
        assert rect.left() >= right  # in a row, none hidden under another
        right = rect.right()


def test_tab_font_shrinks_to_fit_rather_than_scroll(qtbot: QtBot) -> None:
    """Zoomed past presentation on a 1024-px screen, the labels shrink to fit the bar; back
    at the normal scale they take the style's size again."""
    w = MainWindow(initial_tab="sine")
    qtbot.addWidget(w)
    for title in ("Long context", "Precision"):
        w.tabs.addTab(QWidget(), title)
    w.load_panels()
    w.resize(1024, 768)
    w.show()
    qtbot.waitExposed(w)
    bar = w.tabs.tabBar()
    w.set_style(scale=3.0)
    assert bar.font().pointSizeF() < style_mod.hub().style.pt("body") + 3.0
    # (the bar takes its new height at the next layout)
    qtbot.waitUntil(lambda: all(bar.rect().contains(bar.tabRect(i)) for i in range(8)))
    assert bar.width() == w.width() == 1024
    w.set_style(scale=1.0)
    assert bar.font().pointSizeF() == pytest.approx(style_mod.hub().style.pt("body") + 1.0)


def test_every_tab_has_a_short_distinct_label() -> None:
    """The tab bar's labels: a word or two each, all different, no longer than the title."""
    models = list(all_models().values())
    shorts = [m.short_title for m in models]
    assert len(set(shorts)) == len(shorts)
    for m in models:
        assert 0 < len(m.short_title) <= min(12, len(m.title)), m.id
