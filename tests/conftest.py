"""Test set-up: offscreen Qt, settings in a temporary folder, one configured QApplication."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before any Qt import
os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")


@pytest.fixture(scope="session")
def qapp_cls() -> type:
    from PySide6.QtWidgets import QApplication

    return QApplication


@pytest.fixture(scope="session")
def qapp(qapp_args: list[str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """The app configured as ``posenc-gui`` configures it, with QSettings in a temp dir."""
    from PySide6.QtCore import QSettings

    settings_dir = tmp_path_factory.mktemp("settings")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(settings_dir))
    from posenc_gui.app import create_application

    app = create_application([sys.argv[0], *qapp_args])
    import torch

    torch.set_num_threads(1)
    # what the imports made lives as long as the process: the collector need not walk it again
    # (a full collection then costs a fraction, and comes at the moments chosen below)
    gc.collect()
    gc.freeze()
    yield app


@pytest.fixture(autouse=True)
def dispose_panels() -> Iterator[None]:
    """After each test: every panel it made and left open is disposed of (and deleted by Qt
    when it has no parent), the widgets pytest-qt closed are deleted, and the test's young
    garbage is collected here, between two tests,
    rather than whenever a later allocation happens to trigger the collector — possibly inside a
    Qt call of the next test, where freeing a Qt object a cycle held can deadlock."""
    base = sys.modules.get("posenc_gui.panels.base")
    before = set(base.live_panels()) if base is not None else set()
    yield
    base = sys.modules.get("posenc_gui.panels.base")
    if base is not None:
        import shiboken6

        for panel in base.live_panels():
            if panel in before:
                continue
            panel.dispose()
            if shiboken6.isValid(panel) and panel.parent() is None:
                panel.deleteLater()
    if "PySide6.QtWidgets" in sys.modules:
        from PySide6.QtCore import QEvent
        from PySide6.QtWidgets import QApplication

        if QApplication.instance() is not None:  # what pytest-qt closed, and the above
            QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect(1)


@pytest.fixture
def restore_style() -> Iterator[None]:
    """The app-wide style and the follow-the-system setting as a fresh start has them, before
    and after the test (presentation, zoom and theme tests change them)."""
    from PySide6.QtCore import QSettings

    from posenc_gui.main_window import FOLLOW_SYSTEM_KEY
    from posenc_gui.widgets import style as style_mod

    QSettings().remove(FOLLOW_SYSTEM_KEY)
    yield
    style_mod.hub().set_style(style_mod.Style())
    QSettings().remove(FOLLOW_SYSTEM_KEY)


@pytest.fixture
def open_window(qtbot: Any) -> Callable[..., Any]:
    """A function opening a main window on ``tab`` (panels built, shown, active: key clicks
    reach it), at ``size`` when given."""
    from PySide6.QtWidgets import QApplication

    from posenc_gui.main_window import MainWindow
    from posenc_gui.state.session import Session

    def open_(tab: str = "sine", size: tuple[int, int] | None = None) -> MainWindow:
        w = MainWindow(session=Session(tab))
        qtbot.addWidget(w)
        if size is not None:
            w.resize(*size)
        w.show()
        w.load_panels()
        w.activateWindow()
        qtbot.waitExposed(w)
        qtbot.waitUntil(lambda: QApplication.activeWindow() is w)
        return w

    return open_


# -- axis drawing specs -----------------------------------------------------------------------
def spec_tuple(specs: Any) -> Any:
    """Draw specs as comparable values (pens by colour and width, points, label rectangles)."""

    def line(spec: Any) -> tuple[Any, ...]:
        pen, p1, p2 = spec
        return (pen.color().rgba(), pen.widthF(), p1.x(), p1.y(), p2.x(), p2.y())

    if specs is None:
        return None
    axis_spec, ticks, texts = specs
    return (
        line(axis_spec),
        [line(t) for t in ticks],
        [(r.getRect(), int(f.value if hasattr(f, "value") else f), s) for r, f, s in texts],
    )


def compare_specs(axis: Any, theirs: Any, context: object) -> int:
    """Assert ``axis.generateDrawSpecs`` gives what ``theirs`` gives (and leaves the same text
    room); the number of labels compared."""
    from PySide6.QtGui import QPainter, QPicture

    got = []
    for draw in (theirs, axis.generateDrawSpecs):
        room = (axis.textWidth, axis.textHeight)
        picture = QPicture()
        painter = QPainter(picture)
        try:
            specs = draw(painter)
        finally:
            painter.end()
        got.append((spec_tuple(specs), (axis.textWidth, axis.textHeight)))
        axis.textWidth, axis.textHeight = room
    assert got[0] == got[1], context
    return 0 if got[0][0] is None else len(got[0][0][2])


def record_updates(widget: Any) -> list[Any]:
    """Wrap ``widget.update`` so that every call also records the region it asks to repaint
    (a ``QRegion``; the whole widget for a call without arguments); the list fills as it runs."""
    from PySide6.QtGui import QRegion

    regions: list[Any] = []
    update = widget.update

    def record(*args: object) -> None:
        regions.append(QRegion(args[0] if args else widget.rect()))  # type: ignore[call-overload]
        update(*args)

    widget.update = record
    return regions


def count_calls(obj: Any, name: str) -> list[tuple[Any, ...]]:
    """Record the calls of ``obj.name`` (still calling it) and return the list of their args.

    Test instrumentation on one instance, never on a class: the object is a test's own.
    """
    calls: list[tuple[Any, ...]] = []
    original = getattr(obj, name)

    def wrapper(*args: Any, **kw: Any) -> Any:
        calls.append((*args, *kw.items()))
        return original(*args, **kw)

    setattr(obj, name, wrapper)
    return calls


def show_panel(qtbot: Any, tab_id: str, size: tuple[int, int] = (1600, 1000)) -> Any:
    """A new panel of ``tab_id`` at its defaults, shown at ``size`` and exposed (qtbot
    closes it after the test)."""
    from posenc_gui.panels import get_panel
    from posenc_gui.state import ParamState

    cls = get_panel(tab_id)
    panel = cls(ParamState(cls.model))
    qtbot.addWidget(panel)
    panel.resize(*size)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def record_rescales(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, ...]]:
    """Record the shape of every array pyqtgraph scales to colour indices
    (``pg.functions.rescaleData``, still called) for the rest of the test."""
    import numpy as np
    import pyqtgraph as pg

    shapes: list[tuple[int, ...]] = []
    rescale = pg.functions.rescaleData

    def counted(data: Any, *a: Any, **kw: Any) -> Any:
        shapes.append(tuple(np.shape(data)))
        return rescale(data, *a, **kw)

    monkeypatch.setattr(pg.functions, "rescaleData", counted)
    return shapes


def wait_full_screen(qtbot: Any, w: Any) -> None:
    """Wait for full screen: the state, then the screen's geometry (which comes later)."""
    screen = w.screen().geometry()
    qtbot.waitUntil(lambda: w.isFullScreen() and w.geometry() == screen)


def resize_window(qtbot: Any, w: Any, size: tuple[int, int]) -> None:
    """The window at ``size`` (offscreen, this ends full screen)."""
    w.resize(*size)
    qtbot.waitUntil(lambda: (w.width(), w.height()) == size and not w.isFullScreen())
