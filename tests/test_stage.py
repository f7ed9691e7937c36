"""F5 presents figures: full screen, one figure (or its declared pair) filling the plot area and
entirely in view, Page Down / → to the next, Page Up / ← to the previous; an open deck keeps
those keys; leaving puts back the layout, scale, controls and window state of before.

The offscreen platform's screen is 800 × 800 and resizing a full-screen window there ends full
screen: so each test checks the full-screen state after F5 and then resizes the presenting
window to the size of a real screen (1024 × 768, 1280 × 720, 1920 × 1080) to check the stage.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import pytest
from conftest import count_calls, resize_window, wait_full_screen
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication, QSlider
from pytestqt.exceptions import TimeoutError
from pytestqt.qtbot import QtBot

from posenc_gui.controllers.presentation import PRESENTATION_SCALE, presentation_scale
from posenc_gui.main_window import MainWindow
from posenc_gui.panels.base import Panel
from posenc_gui.state import TabModel
from posenc_gui.state.deck import Deck, Step
from posenc_gui.state.registry import TAB_IDS, get_model
from posenc_gui.widgets import style as style_mod

pytestmark = pytest.mark.usefixtures("restore_style")

SCREENS = [(1024, 768), (1280, 720), (1920, 1080)]


def _shown(panel: Panel) -> list[str]:
    return [f for f, w in panel.figure_widgets.items() if w.isVisible()]


def _stage_problem(w: MainWindow, panel: Panel) -> str:
    """What is wrong with the panel's stage ("" when nothing): its enlarged figure and
    companion, and nothing else, are shown, each entirely inside the visible plot area (nothing
    to scroll), the visible plot area inside the window, and the stage covers at least half of
    it."""
    QApplication.processEvents()
    scroll = panel.plot_scroll
    assert scroll is not None and panel.enlarged_figure is not None
    stage = panel.model.stage_of(panel.enlarged_figure)
    where = f"{panel.model.id}/{panel.enlarged_figure} at {w.width()}x{w.height()}"
    if _shown(panel) != [f for f in panel.figure_widgets if f in stage]:
        return f"{where}: shows {_shown(panel)}"
    viewport = scroll.viewport()
    area = viewport.rect()
    in_window = QRect(viewport.mapTo(w, area.topLeft()), area.size())
    if not w.rect().contains(in_window) or not area.isValid():
        return f"{where}: plot area {in_window} not in the window"
    bars = scroll.verticalScrollBar().maximum(), scroll.horizontalScrollBar().maximum()
    if any(bars):
        return f"{where}: scrolls {bars} in {area.size()}"
    covered = 0
    for f in stage:
        fig = panel.figure_widgets[f]
        rect = QRect(fig.mapTo(viewport, fig.rect().topLeft()), fig.size())
        if not area.contains(rect) or rect.isEmpty():
            return f"{where}: {f} at {rect}, not inside {area}"
        covered += rect.width() * rect.height()
    if covered < 0.5 * area.width() * area.height():
        return f"{where}: covers {covered} of {area.size()}"
    return ""


def _in_view(qtbot: QtBot, w: MainWindow, panel: Panel) -> None:
    """Wait until the panel's stage is in view (see :func:`_stage_problem`)."""
    with contextlib.suppress(TimeoutError):  # (the assertion says what is wrong)
        qtbot.waitUntil(lambda: not _stage_problem(w, panel))
    assert _stage_problem(w, panel) == ""


def _key(qtbot: QtBot, w: MainWindow, key: Qt.Key, mods: Qt.KeyboardModifier | None = None) -> None:
    qtbot.keyClick(w, key, mods or Qt.KeyboardModifier.NoModifier)


def test_presentation_scale_keeps_the_texts_share_of_the_screen() -> None:
    assert presentation_scale(1024, 768) == PRESENTATION_SCALE
    assert presentation_scale(800, 600) == PRESENTATION_SCALE  # the floor
    assert presentation_scale(1280, 720) == PRESENTATION_SCALE  # (720 < 768)
    assert presentation_scale(1920, 1080) == pytest.approx(PRESENTATION_SCALE * 1080 / 768, 0.01)
    assert presentation_scale(7680, 4320) == style_mod.MAX_SCALE


def test_stages_pair_figures_of_the_tab_and_refuse_others() -> None:
    for tab in TAB_IDS:
        model = get_model(tab)
        stages = model.stages()
        flat = [f for stage in stages for f in stage]
        assert sorted(flat) == sorted(model.figures)  # every figure on one stage, once
        assert all(len(stage) in (1, 2) for stage in stages)

    class Bad(TabModel):
        id = "bad"
        figures = ("a", "b", "c")

    Bad.figure_pairs = (("a", "z"),)
    with pytest.raises(ValueError, match="names 'z', not one of its figures: a, b, c"):
        Bad.stages()
    Bad.figure_pairs = (("a", "b"), ("b", "c"))
    with pytest.raises(ValueError, match="'b' is in two figure pairs"):
        Bad.stages()
    Bad.figure_pairs = (("a", "c"),)
    assert Bad.stages() == (("a", "c"), ("b",))
    assert Bad.stage_of("c") == ("a", "c")


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_f5_shows_every_figure_of_every_tab_in_view(
    qtbot: QtBot, open_window: Callable[..., MainWindow], screen: tuple[int, int]
) -> None:
    w = open_window(TAB_IDS[0], screen)
    _key(qtbot, w, Qt.Key.Key_F5)
    wait_full_screen(qtbot, w)
    assert w.presenting() and style_mod.hub().style.scale >= PRESENTATION_SCALE
    assert "PgDn" in w.statusBar().currentMessage()
    resize_window(qtbot, w, screen)
    # (offscreen the screen is 800 x 800: the scale F5 gives on a screen of this size)
    w.set_style(scale=presentation_scale(*screen))
    for tab in TAB_IDS:
        w.tabs.setCurrentIndex(TAB_IDS.index(tab))
        panel = w.panels[tab]
        heads = [stage[0] for stage in panel.model.stages()]
        assert panel.enlarged_figure == heads[0]  # a tab presents its first figure
        side = panel.side_scroll
        assert side is not None and not side.isVisible()
        for k, head in enumerate(heads):
            assert panel.enlarged_figure == head
            _in_view(qtbot, w, panel)
            if k + 1 < len(heads):
                with qtbot.waitSignal(panel.figure_changed):
                    _key(qtbot, w, Qt.Key.Key_PageDown if k % 2 else Qt.Key.Key_Right)
        _key(qtbot, w, Qt.Key.Key_PageDown)  # the last figure: stays, and says so
        assert panel.enlarged_figure == heads[-1]
        assert "last figure" in w.statusBar().currentMessage()
        if len(heads) > 1:
            with qtbot.waitSignal(panel.figure_changed):
                _key(qtbot, w, Qt.Key.Key_PageUp)
            assert panel.enlarged_figure == heads[-2]
            with qtbot.waitSignal(panel.figure_changed):
                _key(qtbot, w, Qt.Key.Key_Left)
            assert panel.enlarged_figure == heads[max(len(heads) - 3, 0)]
    _key(qtbot, w, Qt.Key.Key_F5)
    assert not w.presenting()
    for tab in TAB_IDS:  # every tab's grid is back
        panel = w.panels[tab]
        assert panel.enlarged_figure is None and not panel.presenting
        assert not any(f.isHidden() for f in panel.figure_widgets.values())


def test_leaving_restores_layout_scale_controls_and_window(
    qtbot: QtBot, open_window: Callable[..., MainWindow]
) -> None:
    w = open_window("sine", (1024, 768))
    sine = w.panels["sine"]
    sine.enlarge_figure("circle")  # enlarged before F5: presented first, and kept after
    _key(qtbot, w, Qt.Key.Key_F5)
    wait_full_screen(qtbot, w)
    assert sine.enlarged_figure == "circle"
    qtbot.waitUntil(lambda: _shown(sine) == ["circle", "circle_formula"])  # its pair
    assert all(k in w.statusBar().currentMessage() for k in ("PgDn", "Ctrl+Shift+H", "Esc"))
    resize_window(qtbot, w, (1024, 768))
    _key(qtbot, w, Qt.Key.Key_PageDown)
    assert sine.enlarged_figure == "ladder"
    # the tab's controls beside the figure, still presenting
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    _key(qtbot, w, Qt.Key.Key_H, ctrl_shift)
    side = sine.side_scroll
    assert side is not None
    qtbot.waitUntil(side.isVisible)
    assert w.presenting()
    _in_view(qtbot, w, sine)
    # arrows stay with a focused slider; Page Down still steps figures
    slider = side.findChildren(QSlider)[0]
    slider.setFocus()
    qtbot.waitUntil(slider.hasFocus)
    value = slider.value()
    qtbot.keyClick(slider, Qt.Key.Key_Right)
    assert slider.value() != value and sine.enlarged_figure == "ladder"
    qtbot.keyClick(slider, Qt.Key.Key_PageDown)
    assert sine.enlarged_figure == "vector"
    w.tabs.setCurrentIndex(TAB_IDS.index("rope"))
    rope = w.panels["rope"]
    assert rope.enlarged_figure == "circle"
    _key(qtbot, w, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not w.isFullScreen())
    assert not w.presenting() and style_mod.hub().style.scale == 1.0
    assert not side.isHidden() and w.controls_action.isChecked()
    assert sine.enlarged_figure == "circle"
    # (enlarged, a figure shows with its formula, in presentation mode or not)
    shown = [f for f, c in sine.figure_widgets.items() if not c.isHidden()]
    assert shown == ["circle", "circle_formula"]
    assert rope.enlarged_figure is None
    assert not any(c.isHidden() for c in rope.figure_widgets.values())
    _key(qtbot, w, Qt.Key.Key_PageDown)  # not presenting, no deck: the key is not taken
    assert sine.enlarged_figure == "circle"


def test_an_open_deck_keeps_the_step_keys_while_presenting(
    qtbot: QtBot, open_window: Callable[..., MainWindow]
) -> None:
    w = open_window("sine", (1024, 768))
    deck = Deck("two", (Step("sine", {"frequency": 2.0}), Step("sine", {"frequency": 3.0}),
                        Step("sine", {"frequency": 4.0})))  # fmt: skip
    assert w.deck.open_deck(deck)
    _key(qtbot, w, Qt.Key.Key_F5)
    stepped = count_calls(w.presentation, "step_figure")
    _key(qtbot, w, Qt.Key.Key_PageDown)
    assert w.deck.index == 1
    _key(qtbot, w, Qt.Key.Key_Right)
    assert w.deck.index == 2
    _key(qtbot, w, Qt.Key.Key_PageUp)
    assert w.deck.index == 1 and not stepped  # the deck stepped, not the figures
    w.deck.close_deck()
    with qtbot.waitSignal(w.panels["sine"].figure_changed):
        _key(qtbot, w, Qt.Key.Key_PageDown)  # no deck: the figures step again
    assert stepped == [(1,)]
