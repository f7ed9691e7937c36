"""Regression guard for GUIDE §3: PySide6 6.12.0 corrupted the refcount of None/True/False on
void Qt calls and aborted the process a few thousand calls later. 20,000 calls must leave the
refcounts where they were (they would drop by ~20,000 with the broken build)."""

from __future__ import annotations

import gc
import sys

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication, QSlider
from pytestqt.qtbot import QtBot

from posenc_gui.panels.sine import SinePanel


def _settle() -> None:
    """Free what earlier tests left for deferred deletion, so only this test's calls count."""
    for _ in range(3):
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QApplication.processEvents()
        gc.collect()


def test_void_qt_calls_keep_none_refcount(qtbot: QtBot) -> None:
    slider = QSlider()
    qtbot.addWidget(slider)
    slider.setRange(0, 1000)
    before_none, before_true = sys.getrefcount(None), sys.getrefcount(True)
    for i in range(20_000):
        slider.setValue(i % 1000)
        slider.setEnabled(True)
    assert abs(sys.getrefcount(None) - before_none) < 500
    assert abs(sys.getrefcount(True) - before_true) < 500


def test_long_drag_on_the_sine_tab(qtbot: QtBot) -> None:
    """A minute of dragging, compressed: tens of thousands of slider moves, refreshes in between."""
    panel = SinePanel()
    qtbot.addWidget(panel)
    names = ("amplitude", "frequency", "phase", "cursor", "base", "position")
    sliders = [panel.findChild(QSlider, f"{n}_slider") for n in names]
    _settle()
    before = sys.getrefcount(None)
    for step in range(6000):
        for s in sliders:
            s.setValue((step * 7) % (s.maximum() + 1))
        if step % 200 == 0:
            qtbot.wait(1)  # let coalesced refreshes run, as the event loop would
    qtbot.waitUntil(lambda: not panel.pending(), timeout=2000)
    _settle()
    # 36,000 setValue calls alone would take ~36,000 off None's refcount with the broken build;
    # ordinary object churn moves it by a few thousand at most.
    assert abs(sys.getrefcount(None) - before) < 10_000
    assert panel.refresh_count > 10
