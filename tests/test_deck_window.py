"""Lesson decks in the window: open, step with the keyboard, banner and status, edit, save."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QAbstractSlider, QAbstractSpinBox, QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from posenc_gui.cli import main
from posenc_gui.main_window import MainWindow
from posenc_gui.state.deck import BUNDLED_DIR, Deck, Step, bundled_decks
from posenc_gui.state.registry import TAB_IDS
from posenc_gui.widgets.deck import StepListDialog
from posenc_gui.widgets.fmt import GROUP

PGDOWN, PGUP = Qt.Key.Key_PageDown, Qt.Key.Key_PageUp
RIGHT, LEFT = Qt.Key.Key_Right, Qt.Key.Key_Left


pytestmark = pytest.mark.usefixtures("restore_style")


@pytest.fixture
def window(open_window: Callable[..., MainWindow]) -> MainWindow:
    return open_window("sine")


def _everything(w: MainWindow) -> dict[str, Any]:
    return {
        "tab": w.current_tab_id(),
        "values": {t: w.session.state(t).values() for t in TAB_IDS},
        "deck": w.deck.deck,
        "index": w.deck.index,
        "banner": (w.deck.banner.text(), w.deck.banner.isVisible()),
        "status": w.deck.status_label.text(),
    }


def _check_step(w: MainWindow, deck: Deck, k: int) -> None:
    step = deck.steps[k]
    assert w.deck.index == k
    assert w.current_tab_id() == step.tab
    assert w.session.state(step.tab).values() == step.values()
    assert w.panels[step.tab].state.values() == step.values()  # the panel shows them
    # digit groups are shown with the app's no-break space (see the banner's test)
    shown = w.deck.banner.text().replace(GROUP, " ")
    assert w.deck.banner.isVisible() and shown == step.caption
    assert w.deck.status_label.isVisible()
    assert w.deck.status_label.text() == f"Step {k + 1} / {len(deck)}"
    assert deck.title in w.deck.status_label.toolTip()
    panel = w.panels[step.tab]
    assert panel.enlarged_figure == step.focus  # the step's figure, enlarged


def _slider(w: MainWindow, name: str) -> QAbstractSlider:
    panel = w.current_panel()
    assert panel is not None
    found = panel.findChild(QWidget, f"{name}_slider")
    assert isinstance(found, QAbstractSlider)
    return found


def _spin(w: MainWindow, name: str) -> QAbstractSpinBox:
    panel = w.current_panel()
    assert panel is not None
    found = panel.findChild(QWidget, f"{name}_spin")
    assert isinstance(found, QAbstractSpinBox)
    return found


@pytest.mark.parametrize("name", [p.name for p in bundled_decks()])
def test_bundled_deck_end_to_end_with_the_keyboard(
    window: MainWindow, qtbot: QtBot, tmp_path: Path, name: str
) -> None:
    """Open from the menu, present, PageDown through every step, PageUp back, export."""
    w = window
    deck = Deck.load(BUNDLED_DIR / name)
    action = next(
        a for a in w.deck.bundled_actions if a.objectName() == f"bundled_deck_{name[:-5]}"
    )
    assert action.text().endswith(deck.title)
    action.trigger()
    assert w.deck.deck == deck and w.error_box is None
    qtbot.keyClick(w, Qt.Key.Key_F5)
    assert w.presenting()
    for k in range(len(deck)):
        _check_step(w, deck, k)
        qtbot.keyClick(w, PGDOWN)
    _check_step(w, deck, len(deck) - 1)  # stays on the last step, says so
    assert "last step" in w.statusBar().currentMessage()
    for k in reversed(range(len(deck) - 1)):
        qtbot.keyClick(w, PGUP)
        _check_step(w, deck, k)
    qtbot.keyClick(w, PGUP)
    _check_step(w, deck, 0)
    assert "first step" in w.statusBar().currentMessage()
    # the arrows step too (the focus is on the tabs after opening)
    if len(deck) > 1:
        qtbot.keyClick(w, RIGHT)
        _check_step(w, deck, 1)
        qtbot.keyClick(w, LEFT)
        _check_step(w, deck, 0)
    # animate with the keyboard: Space plays the tab's sweep (the focus is on the tab bar),
    # Space again pauses where it stopped
    tab = w.current_tab_id()
    name = w.session.state(tab).model.animated
    qtbot.keyClick(w.tabs.tabBar(), Qt.Key.Key_Space)
    assert w.animator.is_playing()
    qtbot.waitUntil(lambda: w.session.state(tab).values()[name] != deck.steps[0].values()[name],
                    timeout=60_000)  # fmt: skip
    qtbot.keyClick(w.tabs.tabBar(), Qt.Key.Key_Space)
    assert not w.animator.is_playing()
    stopped = w.session.state(tab).values()
    qtbot.wait(60)
    assert w.session.state(tab).values() == stopped
    out = w.exports.png(tmp_path / "step.png", 640)
    assert not QImage(str(out)).isNull()


def test_arrows_stay_with_a_focused_spin_box_or_slider(window: MainWindow, qtbot: QtBot) -> None:
    w = window
    assert w.deck.open_path(BUNDLED_DIR / "05-web-page.json", step=9)  # rope, m = 5
    assert w.current_tab_id() == "rope" and w.deck.index == 8
    spin = _spin(w, "m")
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus)
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    assert w.session.state("rope").get("m") == 6 and w.deck.index == 8
    qtbot.keyClick(spin, RIGHT)  # moves the text cursor
    qtbot.keyClick(spin, LEFT)
    assert w.deck.index == 8
    slider = _slider(w, "dim")
    slider.setFocus()
    qtbot.waitUntil(slider.hasFocus)
    before = slider.value()
    qtbot.keyClick(slider, RIGHT)
    assert slider.value() != before and w.deck.index == 8
    # Page Down (the clicker) steps wherever the focus is, and shows the step exactly
    qtbot.keyClick(slider, PGDOWN)
    assert w.deck.index == 9
    _check_step(w, w.deck.deck, 9)  # type: ignore[arg-type]


def test_without_a_deck_the_keys_do_nothing_special(window: MainWindow, qtbot: QtBot) -> None:
    w = window
    assert w.deck.deck is None and not w.deck.banner.isVisible()
    assert not w.deck.status_label.isVisible() and not w.deck.next_action.isEnabled()
    slider = _slider(w, "dim")
    slider.setFocus()
    qtbot.waitUntil(slider.hasFocus)
    before = slider.value()
    qtbot.keyClick(slider, PGUP)  # the slider's own page step
    assert slider.value() > before
    tab = w.current_tab_id()
    w.tabs.setFocus()
    qtbot.keyClick(w.tabs.tabBar(), RIGHT)  # the tab bar's own arrow key
    assert w.current_tab_id() != tab


def test_a_bad_deck_changes_nothing(window: MainWindow, qtbot: QtBot, tmp_path: Path) -> None:
    w = window
    assert w.deck.open_path(BUNDLED_DIR / "04-chapter.json", step=2)
    w.session.state("rope").set("m", 77)
    before = _everything(w)
    data = json.loads((BUNDLED_DIR / "04-chapter.json").read_text(encoding="utf-8"))
    data["steps"][3]["params"]["positions"] = 10_000  # out of range
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert not w.deck.open_path(bad)
    assert w.error_box is not None
    text = w.error_box.text()
    assert "bad.json" in text and "step 4" in text and "positions must be" in text
    assert "Nothing was changed" in w.error_box.informativeText()
    assert _everything(w) == before
    w.error_box.close()
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({**data, "version": 2}), encoding="utf-8")
    assert not w.deck.open_path(newer)
    assert "newer version" in w.statusBar().currentMessage()
    assert _everything(w) == before
    assert not w.deck.open_path(tmp_path / "missing.json")
    assert not w.deck.open_deck(Deck.load(BUNDLED_DIR / "04-chapter.json"), step=99)
    assert _everything(w) == before


def test_banner_follows_its_tab_and_the_theme(window: MainWindow, qtbot: QtBot) -> None:
    w = window
    assert w.deck.open_path(BUNDLED_DIR / "04-chapter.json")
    step = w.deck.current_step()
    assert step is not None and w.current_tab_id() == step.tab == "heatmap"
    qtbot.keyClick(w, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)  # another tab
    assert w.current_tab_id() == "rope" and not w.deck.banner.isVisible()
    qtbot.keyClick(w, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    # digit groups are shown with the app's no-break space (see the banner's test)
    shown = w.deck.banner.text().replace(GROUP, " ")
    assert w.deck.banner.isVisible() and shown == step.caption
    light = w.deck.banner.styleSheet()
    size = w.deck.banner.font().pointSizeF()
    w.set_theme_mode("dark")
    assert w.deck.banner.styleSheet() != light
    w.set_presentation(True)
    assert w.deck.banner.font().pointSizeF() > size
    # the banner sits above the tabs
    assert (
        w.deck.banner.mapTo(w, w.deck.banner.rect().bottomLeft()).y()
        <= w.tabs.mapTo(w, w.tabs.rect().topLeft()).y()
    )


def test_add_save_and_reopen_round_trip(window: MainWindow, qtbot: QtBot, tmp_path: Path) -> None:
    w = window
    rope = w.session.state("rope")
    qtbot.keyClick(w, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    rope.update({"m": 40, "n": 37, "dim": 128})
    first = w.deck.add_current_step("Distance 3")
    assert first.params == {"m": 40, "n": 37, "dim": 128}
    assert w.deck.status_label.text() == "Step 1 / 1 (not saved)"
    assert "Untitled deck" in w.deck.status_label.toolTip()
    assert w.deck.banner.text() == "Distance 3"
    qtbot.keyClick(w, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    w.session.state("sine").set("frequency", 2.5)
    w.deck.add_current_step("")
    assert w.deck.index == 1 and not w.deck.banner.isVisible()  # no caption, no banner
    qtbot.keyClick(w, PGUP)
    w.deck.add_current_step("Inserted after step 1")  # (rope again)
    deck = w.deck.deck
    assert deck is not None and [s.caption for s in deck.steps] == [
        "Distance 3", "Inserted after step 1", ""
    ]  # fmt: skip
    path = tmp_path / "my_lecture.json"
    assert w.deck.save(path)
    assert w.deck.deck is not None and w.deck.deck.title == "my lecture"
    assert w.deck.status_label.text() == "Step 2 / 3"
    assert w.deck.status_label.toolTip().startswith("my lecture")
    saved = path.read_text(encoding="utf-8")
    # never replaced without asking
    assert not w.deck.save(path)
    assert w.error_box is not None and "exists" in w.error_box.informativeText()
    w.error_box.close()
    assert path.read_text(encoding="utf-8") == saved
    assert not list(tmp_path.glob(".*"))  # no temporary file left behind
    w.deck.close_deck()
    assert w.deck.deck is None and not w.deck.banner.isVisible()
    assert not w.deck.status_label.isVisible() and not w.deck.next_action.isEnabled()
    rope.reset()
    w.session.state("sine").reset()
    assert w.deck.open_path(path)
    reopened = w.deck.deck
    assert reopened is not None and reopened.steps == w.deck.deck.steps  # type: ignore[union-attr]
    assert [s.tab for s in reopened.steps] == ["rope", "rope", "sine"]
    assert rope.values() == {**rope.model.defaults(), "m": 40, "n": 37, "dim": 128}
    qtbot.keyClick(w, PGDOWN)
    qtbot.keyClick(w, PGDOWN)
    assert w.session.state("sine").get("frequency") == 2.5


def test_deck_menu_entries_and_shortcut_table(window: MainWindow) -> None:
    names = {a.objectName() for a in window.file_menu.actions()}
    for name in ("open_deck_action", "save_deck_action", "add_step_action",
                 "next_step_action", "previous_step_action", "goto_step_action",
                 "close_deck_action"):  # fmt: skip
        assert name in names
    assert len(window.deck.bundled_actions) == len(bundled_decks())
    rows = {a: k for _, a, k in window.shortcut_table()}
    assert rows["Next step"] == "PgDown" and rows["Previous step"] == "PgUp"
    assert rows["Go to step"] == "Ctrl+G"


# -- command line -------------------------------------------------------------------------------
def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().err


def test_cli_refuses_a_bad_deck(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "posenc-deck", "version": 1, "title": "x", "steps": []}')
    code, err = _run(capsys, "--deck", str(bad))
    assert code == 2 and "--deck" in err and "no steps" in err
    code, err = _run(capsys, "--deck", str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read it" in err
    deck = str(BUNDLED_DIR / "04-chapter.json")
    code, err = _run(capsys, "--deck", deck, "--step", "9")
    assert code == 2 and "--step must be an integer from 1 to 8, got '9'" in err
    code, err = _run(capsys, "--deck", deck, "--tab", "rope")
    assert code == 2 and "--deck cannot be used with --tab" in err
    code, err = _run(capsys, "--step", "2")
    assert code == 2 and "--step needs --deck" in err


def test_cli_opens_the_deck_at_its_step(monkeypatch: pytest.MonkeyPatch, qapp: object) -> None:
    import posenc_gui.app as app_mod

    seen: dict[str, Any] = {}

    def fake_run_gui(*args: Any, **kwargs: Any) -> int:
        seen.update(kwargs)
        return 0

    monkeypatch.setattr(app_mod, "run_gui", fake_run_gui)
    assert main(["--fresh", "--deck", str(BUNDLED_DIR / "04-chapter.json"), "--step", "6"]) == 0
    deck, step = seen["deck"]
    assert deck == Deck.load(BUNDLED_DIR / "04-chapter.json") and step == 6
    w = app_mod.build_window(fresh=True)
    try:
        assert w.deck.open_deck(deck, step)  # what run_gui does
        assert w.current_tab_id() == "rope" and w.deck.banner.text() == deck.steps[5].caption
    finally:
        w.deck.close_deck()
        w.deleteLater()


def test_unsaved_steps_are_not_dropped_without_asking(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    import posenc_gui.controllers.decks as controller

    w = window
    w.deck.add_current_step("mine")
    answers = [controller.QMessageBox.StandardButton.Cancel]
    asked: list[str] = []

    def question(*args: Any, **kwargs: Any) -> Any:
        asked.append(str(args[2]))
        return answers[0]

    monkeypatch.setattr(controller.QMessageBox, "question", question)
    mine = w.deck.deck
    w.deck.close_action.trigger()
    w.deck.bundled_actions[0].trigger()
    assert w.deck.deck is mine and len(asked) == 2 and "Untitled deck" in asked[0]
    answers[0] = controller.QMessageBox.StandardButton.Discard
    w.deck.bundled_actions[-1].trigger()
    assert w.deck.deck == Deck.load(bundled_decks()[-1])
    w.deck.close_action.trigger()  # saved / bundled: closes without asking
    assert w.deck.deck is None and len(asked) == 3


def test_a_step_pauses_a_running_animation(window: MainWindow, qtbot: QtBot) -> None:
    """Space plays the tab's sweep; the next step shows its own figure, still, with exactly
    its parameters (the animation does not carry on from the step's value)."""
    w = window
    deck = Deck.load(BUNDLED_DIR / "01-notebook.json")
    w.deck.open_deck(deck, 1)
    assert w.animator.play()
    assert w.animator.is_playing()
    qtbot.keyClick(w, PGDOWN)
    assert not w.animator.is_playing()
    _check_step(w, deck, 1)
    qtbot.wait(100)  # no tick moves it after the step
    _check_step(w, deck, 1)


# -- focus, Go to step, text that fits ----------------------------------------------------------
def test_a_step_enlarges_its_focus_and_a_step_without_one_restores(
    window: MainWindow, qtbot: QtBot
) -> None:
    w = window
    deck = Deck(
        "Focus",
        (
            Step("rope", {"m": 9}, "the circle", focus="circle"),
            Step("rope", {"m": 8}, "everything"),
            Step("rope", {"m": 7}, "the curves", focus="curves"),
        ),
    )
    assert w.deck.open_deck(deck)
    panel = w.panels["rope"]
    circle, curves = panel.figure_widgets["circle"], panel.figure_widgets["curves"]
    assert panel.enlarged_figure == "circle"
    qtbot.waitUntil(lambda: circle.isVisible() and not curves.isVisible())
    qtbot.keyClick(w, PGDOWN)
    assert panel.enlarged_figure is None
    qtbot.waitUntil(lambda: circle.isVisible() and curves.isVisible())
    qtbot.keyClick(w, PGDOWN)
    assert panel.enlarged_figure == "curves"
    qtbot.waitUntil(lambda: curves.isVisible() and not circle.isVisible())


def test_add_step_records_the_enlarged_figure(window: MainWindow, tmp_path: Path) -> None:
    w = window
    panel = w.panels["sine"]
    panel.enlarge_figure("ladder")
    assert w.deck.add_current_step("the ladder").focus == "ladder"
    panel.enlarge_figure(None)
    assert w.deck.add_current_step("all of it").focus is None
    path = tmp_path / "focus.json"
    assert w.deck.save(path)
    steps = json.loads(path.read_text(encoding="utf-8"))["steps"]
    assert steps[0]["focus"] == "ladder" and "focus" not in steps[1]
    assert Deck.load(path).steps[0].focus == "ladder"


def _step_list(w: MainWindow, qtbot: QtBot) -> StepListDialog:
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w)  # (a dialog just closed)
    qtbot.keyClick(w, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: w.deck.step_list is not None and w.deck.step_list.isVisible())
    dialog = w.deck.step_list
    assert dialog is not None
    qtbot.waitUntil(dialog.steps.hasFocus)  # keys go to the list at once
    return dialog


def test_go_to_step_lists_the_steps_by_number(window: MainWindow, qtbot: QtBot) -> None:
    w = window
    deck = Deck.load(BUNDLED_DIR / "01-notebook.json")
    assert w.deck.open_deck(deck, 2)
    dialog = _step_list(w, qtbot)
    assert dialog.title_label.text() == deck.title  # the title in full (wrapped)
    texts = [dialog.steps.item(k).text() for k in range(dialog.steps.count())]
    assert texts == [f"{k + 1}. {s.caption}" for k, s in enumerate(deck.steps)]
    assert dialog.steps.currentRow() == 1  # where the deck is
    qtbot.keyClicks(dialog.steps, "7")
    assert dialog.steps.currentRow() == 6
    qtbot.keyClick(dialog.steps, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: w.deck.step_list is None)
    _check_step(w, deck, 6)
    # Esc leaves the deck where it was; a two-digit number works too
    dialog = _step_list(w, qtbot)
    qtbot.keyClicks(dialog.steps, "10")
    assert dialog.steps.currentRow() == 9
    qtbot.keyClick(dialog.steps, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: w.deck.step_list is None)
    _check_step(w, deck, 6)


def test_go_to_step_needs_a_deck(window: MainWindow) -> None:
    assert not window.deck.goto_action.isEnabled()
    window.deck.goto_dialog()
    assert window.deck.step_list is None


def _fits(label: QLabel) -> bool:
    """The label's whole text fits its rectangle (a wrapped label: its height for its width)."""
    if label.wordWrap():
        return label.heightForWidth(label.width()) <= label.height()
    return label.sizeHint().width() <= label.width()


@pytest.mark.parametrize("present", [False, True])
def test_title_status_and_last_step_notice_fit_at_1024x768(
    open_window: Callable[..., MainWindow], qtbot: QtBot, present: bool
) -> None:
    w = open_window("sine", (1024, 768))
    w.set_presentation(present)
    longest = max(bundled_decks(), key=lambda p: len(Deck.load(p).title))
    deck = Deck.load(longest)
    assert w.deck.open_deck(deck, len(deck))
    # the longest caption of every bundled deck, wrapped, never cut
    caption = max((s.caption for p in bundled_decks() for s in Deck.load(p).steps), key=len)
    w.deck.banner.show_caption(caption)
    qtbot.waitUntil(lambda: _fits(w.deck.banner) and w.deck.banner.height() > 0)
    assert w.deck.banner.wordWrap() and w.deck.banner.text().replace(GROUP, " ") == caption
    assert _fits(w.deck.status_label) and w.deck.status_label.isVisible()
    qtbot.keyClick(w, PGDOWN)
    bar = w.statusBar()
    notice = bar.currentMessage()
    assert notice.startswith("This is the last step")
    # the notice is drawn left of the status bar's permanent widgets (deck status, playback)
    permanent = bar.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
    room = min(c.x() for c in permanent if c.isVisible() and c.x() > 0)
    width = bar.fontMetrics().horizontalAdvance(notice)
    assert width < room
    # on a projector's X server the status bar's font is ~1.6 times larger (measured): the
    # notice and the permanent widgets grow alike, and the notice still fits
    grow = 1.6
    assert width * grow < bar.width() - grow * (bar.width() - room)
    # the title in full: the status's tooltip and the step list's wrapped title
    assert deck.title in w.deck.status_label.toolTip()
    dialog = _step_list(w, qtbot)
    qtbot.waitUntil(lambda: _fits(dialog.title_label))
    assert dialog.title_label.text() == deck.title
    dialog.reject()


def test_a_deck_opened_while_the_window_loads_shows_its_figure(qtbot: QtBot) -> None:
    """``posenc-gui --deck F``: the deck opens before the panels are built (torch loading)."""
    from posenc_gui.state.session import Session

    w = MainWindow(session=Session("sine"))
    qtbot.addWidget(w)
    deck = Deck.load(BUNDLED_DIR / "01-notebook.json")
    assert w.deck.open_deck(deck, len(deck))
    assert "encodings" not in w.panels  # not built yet
    w.show()
    w.load_panels()
    qtbot.waitUntil(lambda: "encodings" in w.panels)
    qtbot.waitUntil(lambda: w.panels["encodings"].enlarged_figure == deck.steps[-1].focus)
    w.deck.close_deck()


def test_a_deck_with_a_lone_surrogate_is_refused_at_open(
    window: MainWindow, tmp_path: Path
) -> None:
    """Issue 20, finding 10: it used to open, then Save deck raised UnicodeEncodeError."""
    w = window
    data = json.loads((BUNDLED_DIR / "04-chapter.json").read_text(encoding="utf-8"))
    data["steps"][2]["caption"] = "broken \ud800 text"
    bad = tmp_path / "surrogate.json"
    bad.write_text(json.dumps(data), encoding="utf-8")  # ASCII: the file itself is valid JSON
    assert not w.deck.open_path(bad)
    assert w.error_box is not None
    assert "step 3: 'caption' contains an unpaired surrogate (U+D800)" in w.error_box.text()
    w.error_box.close()
    assert w.deck.deck is None


def test_save_deck_through_a_symlink_keeps_link_and_mode(
    window: MainWindow, tmp_path: Path
) -> None:
    """Issue 20, finding 7: Save deck writes the link's target and keeps a shared file's mode."""
    w = window
    real = tmp_path / "shared.json"
    real.write_text("{}", encoding="utf-8")
    real.chmod(0o644)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert w.deck.open_path(BUNDLED_DIR / "04-chapter.json")
    assert w.deck.save(link, overwrite=True)
    assert (
        link.is_symlink()
        and Deck.load(real).title == Deck.load(BUNDLED_DIR / "04-chapter.json").title
    )
    assert real.stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "shared.json"]


def test_banner_keeps_digit_groups_on_one_line(qtbot: QtBot) -> None:
    """ "60 611" written with a plain space in a caption is shown with the app's no-break group
    space: at 1024×768 the banner had wrapped it into "60" and "611"."""
    from posenc_gui.widgets.deck import DeckBanner

    banner = DeckBanner()
    qtbot.addWidget(banner)
    banner.show_caption("6.28 for the first pair, 60 611 for the last, m = 1 000 000, step 3 of 10")
    text = banner.text()
    assert f"60{GROUP}611" in text and f"1{GROUP}000{GROUP}000" in text
    assert "3 of 10" in text and "pair, 60" in text
