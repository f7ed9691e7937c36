"""Every bundled deck step on a 1024×768 projector in presentation mode: the figure its caption
talks about (its ``focus``) is on screen whole; with the read-out its model pairs it with (the
stage presentation mode shows, :meth:`TabModel.stage_of`) it fills at least half of the window;
and no step looks like the one before it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import resize_window, wait_full_screen
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QAbstractScrollArea, QWidget
from pytestqt.qtbot import QtBot

from posenc_gui.controllers.presentation import presentation_scale
from posenc_gui.main_window import MainWindow
from posenc_gui.state.deck import Deck, bundled_decks

SIZE = (1024, 768)
#: The focus figure covers at least this share of the window.
MIN_COVER = 0.5

pytestmark = pytest.mark.usefixtures("restore_style")


def _rect_in(widget: QWidget, ancestor: QWidget) -> QRect:
    return QRect(widget.mapTo(ancestor, QPoint(0, 0)), widget.size())


def _clipping_viewports(widget: QWidget, window: QWidget) -> list[QWidget]:
    """The viewports of the scroll areas ``widget`` sits in (they may cut it)."""
    out: list[QWidget] = []
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        if isinstance(parent, QAbstractScrollArea) and parent.viewport().isAncestorOf(widget):
            out.append(parent.viewport())
        parent = parent.parentWidget()
    return out


def _where(path_name: str, k: int, focus: str | None) -> str:
    return f"{path_name} step {k + 1} (figure_{focus})"


def test_every_bundled_step_shows_its_figure_on_a_projector(
    open_window: Callable[..., MainWindow], qtbot: QtBot
) -> None:
    w = open_window("sine", SIZE)
    w.presentation.set_presentation(True)
    # F5 goes full screen; offscreen the screen is not 1024×768, so the presenting window is then
    # given the projector's size (and F5's scale on it), as tests/test_stage.py does
    wait_full_screen(qtbot, w)
    resize_window(qtbot, w, SIZE)
    w.set_style(scale=presentation_scale(*SIZE))
    window_area = w.width() * w.height()
    for path in bundled_decks():
        deck = Deck.load(path)
        assert w.deck.open_deck(deck)
        previous: QImage | None = None
        for k, step in enumerate(deck.steps):
            where = _where(path.name, k, step.focus)
            assert step.focus is not None, f"{where}: the step names no figure"
            assert w.deck.go_to(k)
            panel = w.panels[step.tab]
            figure = panel.figure_widgets[step.focus]
            stage = [panel.figure_widgets[f] for f in panel.model.stage_of(step.focus)]
            qtbot.waitUntil(lambda p=panel: not p.pending())

            def on_stage(stage: list[QWidget] = stage, where: str = where) -> None:
                shown = QRect()
                for cell in stage:
                    assert cell.isVisible(), f"{where}: {cell.objectName()} hidden"
                    rect = _rect_in(cell, w)
                    assert w.rect().contains(rect), f"{where}: {rect} is not inside the window"
                    for viewport in _clipping_viewports(cell, w):
                        seen = _rect_in(cell, viewport)
                        assert viewport.rect().contains(seen), f"{where}: cut by a scroll area"
                    shown = shown.united(rect)
                cover = shown.width() * shown.height() / window_area
                assert cover >= MIN_COVER, f"{where}: covers {cover:.0%} of the window ({shown})"

            qtbot.waitUntil(on_stage)  # (the enlarged figure's layout settles in events)
            # the figure itself (stricter than the whole window, whose caption always changes)
            image = figure.grab().toImage()
            assert image != previous, f"{where} looks the same as the step before"
            previous = image
        w.deck.close_deck()
