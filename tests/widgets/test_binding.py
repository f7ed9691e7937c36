"""Two-way binding: its end is explicit (disconnect) or comes with its widget's."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication, QSpinBox
from pytestqt.qtbot import QtBot

from posenc_gui.state import ParamState
from posenc_gui.state.sine import SineModel
from posenc_gui.widgets.binding import bind_value
from posenc_gui.widgets.controls import ControlGroup


def _bind(state: ParamState, spin: QSpinBox) -> object:
    return bind_value(state, "dim", spin, read=spin.value, write=lambda v: spin.setValue(int(v)),
                      signal=spin.valueChanged)  # fmt: skip


def test_disconnect_ends_both_directions(qtbot: QtBot) -> None:
    state = ParamState(SineModel)
    bare = len(state.changed)
    spin = QSpinBox()
    qtbot.addWidget(spin)
    spin.setRange(0, 10_000)
    binding = _bind(state, spin)
    assert spin.value() == state.get("dim") and len(state.changed) == bare + 1
    state.set("dim", 64)
    assert spin.value() == 64
    binding.disconnect()  # type: ignore[attr-defined]
    binding.disconnect()  # type: ignore[attr-defined]  # idempotent
    assert len(state.changed) == bare
    state.set("dim", 32)
    assert spin.value() == 64
    spin.setValue(128)
    assert state.get("dim") == 32


def test_a_destroyed_widget_is_unbound() -> None:
    state = ParamState(SineModel)
    bare = len(state.changed)
    spin = QSpinBox()
    spin.setRange(0, 10_000)
    _bind(state, spin)
    spin.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert len(state.changed) == bare
    state.set("dim", 16)  # nothing writes into a deleted widget


def test_a_control_group_unbinds_on_dispose(qtbot: QtBot) -> None:
    state = ParamState(SineModel)
    bare = len(state.changed)
    group = ControlGroup("g", state)
    qtbot.addWidget(group)
    group.add_all("dim", "base")
    assert len(state.changed) > bare
    group.dispose()
    assert len(state.changed) == bare
