"""Figures: each cell of a tab's plot area is a named figure that can fill the tab and come back.

The ids are declared once, on the Qt-free model (``posenc-gui params`` lists them); the panel
finds each figure's widget (the cell that holds the view of that id) and names it
``figure_<ID>``.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from conftest import show_panel
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget
from pytestqt.qtbot import QtBot

from posenc_gui.cli import main
from posenc_gui.main_window import MainWindow
from posenc_gui.panels.base import Panel
from posenc_gui.state.registry import TAB_IDS, get_model


def _panel(qtbot: QtBot, tab_id: str, size: tuple[int, int] = (1024, 768)) -> Panel:
    panel: Panel = show_panel(qtbot, tab_id, size)
    return panel


def _geometries(panel: Panel) -> dict[str, tuple[bool, QRect]]:
    return {f: (w.isVisible(), w.geometry()) for f, w in panel.figure_widgets.items()}


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_every_plot_cell_is_a_declared_figure(qtbot: QtBot, tab_id: str) -> None:
    panel = _panel(qtbot, tab_id)
    model = get_model(tab_id)
    assert model.figures and len(set(model.figures)) == len(model.figures)
    assert list(panel.figure_widgets) == list(model.figures)
    assert panel.plot_grid is not None
    cells = [c.widget for c in panel.plot_grid.cells]
    assert sorted(map(id, cells)) == sorted(map(id, panel.figure_widgets.values()))
    for fid, w in panel.figure_widgets.items():
        assert fid in panel.views  # a figure is named by its view
        assert w.objectName() == f"figure_{fid}"
        assert panel.findChild(QWidget, f"figure_{fid}") is w


def test_params_lists_each_tabs_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["params", "--tab", "rotation"]) == 0
    assert json.loads(capsys.readouterr().out)["figures"] == list(get_model("rotation").figures)
    assert main(["params"]) == 0
    tabs = json.loads(capsys.readouterr().out)["tabs"]
    assert {t["tab"]: t["figures"] for t in tabs} == {
        t: list(get_model(t).figures) for t in TAB_IDS
    }


def _settled(qtbot: QtBot, panel: Panel) -> dict[str, tuple[bool, QRect]]:
    """The figures' geometries once a layout pass changes them no more."""
    seen: list[dict[str, tuple[bool, QRect]]] = []

    def still() -> bool:
        QApplication.processEvents()
        seen.append(_geometries(panel))
        return len(seen) > 1 and seen[-1] == seen[-2] and all(v for v, _ in seen[-1].values())

    qtbot.waitUntil(still)
    return seen[-1]


def _covers(panel: Panel, fid: str) -> bool:
    """``fid`` with the read-out its model pairs it with (its stage) fills the plot area, the
    other figures hidden."""
    assert panel.plot_scroll is not None
    area = panel.plot_scroll.viewport().rect()
    stage = panel.model.stage_of(fid)
    shown = QRect()
    for f in stage:
        w = panel.figure_widgets[f]
        if not w.isVisible():
            return False
        shown = shown.united(QRect(w.mapTo(panel.plot_scroll.viewport(), QPoint(0, 0)), w.size()))
    others = [v for f, v in panel.figure_widgets.items() if f not in stage]
    return shown == area and not any(v.isVisible() for v in others)


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_enlarged_figure_fills_the_plot_area_and_restore_brings_the_grid_back(
    qtbot: QtBot, tab_id: str
) -> None:
    panel = _panel(qtbot, tab_id)
    QApplication.processEvents()
    # The first layout may hold the height a read-out's text needed during start-up
    # (read-outs grow, never shrink), and the split between controls and plots follows the
    # grid's minimum width: compare restores with a grid that went through the same enlarging.
    for fid in panel.figure_widgets:
        with qtbot.waitSignal(panel.figure_changed):
            panel.enlarge_figure(fid)
        qtbot.waitUntil(lambda f=fid: _covers(panel, f))  # type: ignore[misc]
    with qtbot.waitSignal(panel.figure_changed):
        panel.enlarge_figure(None)
    before = _settled(qtbot, panel)
    assert all(shown for shown, _ in before.values())
    for fid in panel.figure_widgets:
        with qtbot.waitSignal(panel.figure_changed) as changed:
            panel.enlarge_figure(fid)
        assert changed.args == [fid] and panel.enlarged_figure == fid
        qtbot.waitUntil(lambda f=fid: _covers(panel, f))  # type: ignore[misc]
    with qtbot.waitSignal(panel.figure_changed) as changed:
        panel.enlarge_figure(None)
    assert changed.args == [""] and panel.enlarged_figure is None
    qtbot.waitUntil(lambda: _geometries(panel) == before)


def test_unknown_figure_is_refused_with_the_known_ids(qtbot: QtBot) -> None:
    panel = _panel(qtbot, "sine")
    with pytest.raises(KeyError, match="no figure 'nope'; figures: wave, circle"):
        panel.enlarge_figure("nope")
    assert panel.enlarged_figure is None


@pytest.mark.parametrize("fid", ["circle", "wave_formula"])
def test_double_click_enlarges_and_restores(qtbot: QtBot, fid: str) -> None:
    panel = _panel(qtbot, "sine")
    QApplication.processEvents()
    before = _geometries(panel)
    w = panel.figure_widgets[fid]
    target = w.viewport() if isinstance(w, QAbstractScrollArea) else w
    with qtbot.waitSignal(panel.figure_changed):
        qtbot.mouseDClick(target, Qt.MouseButton.LeftButton, pos=target.rect().center())
    assert panel.enlarged_figure == fid
    qtbot.waitUntil(lambda: _covers(panel, fid))
    with qtbot.waitSignal(panel.figure_changed):
        qtbot.mouseDClick(target, Qt.MouseButton.LeftButton, pos=target.rect().center())
    assert panel.enlarged_figure is None
    qtbot.waitUntil(lambda: _geometries(panel) == before)


def test_keys_reach_every_figure_and_restore(
    qtbot: QtBot, open_window: Callable[..., MainWindow]
) -> None:
    w = open_window("rotation", (1024, 768))
    panel = w.panels["rotation"]
    ids = list(panel.figure_widgets)
    assert not w.figures.restore_action.isEnabled()
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    for fid in ids:
        with qtbot.waitSignal(panel.figure_changed):
            qtbot.keyClick(w, Qt.Key.Key_N, ctrl_shift)
        assert panel.enlarged_figure == fid
    with qtbot.waitSignal(panel.figure_changed):
        qtbot.keyClick(w, Qt.Key.Key_P, ctrl_shift)
    assert panel.enlarged_figure == ids[-2]
    assert w.figures.restore_action.isEnabled()
    with qtbot.waitSignal(panel.figure_changed):
        w.figures.restore_action.trigger()
    assert panel.enlarged_figure is None and not w.figures.restore_action.isEnabled()
    # one key enlarges (the figure under the pointer, with focus, or the first) and restores
    with qtbot.waitSignal(panel.figure_changed):
        qtbot.keyClick(w, Qt.Key.Key_F, ctrl_shift)
    assert panel.enlarged_figure in ids and w.figures.restore_action.isEnabled()
    with qtbot.waitSignal(panel.figure_changed):
        qtbot.keyClick(w, Qt.Key.Key_F, ctrl_shift)
    assert panel.enlarged_figure is None
