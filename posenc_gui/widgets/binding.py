"""Two-way binding between a :class:`ParamState` value and a Qt widget.

State -> widget writes happen with the widget's signals blocked (no echo back into the state);
widget -> state only assigns the value. A value the state rejects is reported through
``on_error`` and the widget snaps back to the state's value, so bad input changes nothing.
The state connection is dropped when the widget is destroyed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QSignalBlocker, SignalInstance

from posenc_gui.state import ParamError, ParamState, Value


def bind_value(
    state: ParamState,
    name: str,
    widget: QObject,
    *,
    read: Callable[[], Value],
    write: Callable[[Value], None],
    signal: SignalInstance,
    on_error: Callable[[str], None] | None = None,
    on_limits: Callable[[], None] | None = None,
) -> None:
    """Keep ``widget`` and ``state[name]`` equal in both directions.

    ``read`` returns the widget's value, ``write`` shows a value in it, ``signal`` is the
    widget's user-change signal. ``on_limits`` (optional) is called on every state change so
    the widget can narrow its range to dynamic limits.
    """

    def to_widget(value: Value) -> None:
        blocker = QSignalBlocker(widget)
        try:
            write(value)
        finally:
            blocker.unblock()

    def from_widget(*_: Any) -> None:
        try:
            state.set(name, read())
        except ParamError as err:
            if on_error is not None:
                on_error(str(err))
            to_widget(state.get(name))
            return
        if read() != state.get(name):
            # a coupling rule or a clamp kept another value (no change, no signal): show it
            to_widget(state.get(name))

    seen: list[object] = [None]  # the state's limits token last applied

    def limits() -> None:
        token = state.limits_token()
        if on_limits is not None and token is not seen[0]:  # the limits moved
            seen[0] = token
            blocker = QSignalBlocker(widget)
            try:
                on_limits()
            finally:
                blocker.unblock()

    def on_state(changed: str, value: object) -> None:
        limits()
        if changed == name:
            to_widget(state.get(name))

    signal.connect(from_widget)
    state.changed.connect(on_state)

    def disconnect(*_: Any) -> None:
        state.changed.disconnect(on_state)

    widget.destroyed.connect(disconnect)
    limits()
    to_widget(state.get(name))
