"""Two-way binding between a :class:`ParamState` value and a Qt widget.

State -> widget writes happen with the widget's signals blocked (no echo back into the state);
widget -> state only assigns the value. A value the state rejects is reported through
``on_error`` and the widget snaps back to the state's value, so bad input changes nothing; a
value it accepts is announced through ``on_accept`` (the notice of an earlier refusal goes).

The state holds the binding (and through it the widget) until :meth:`Binding.disconnect`: its
owner calls it when it closes (``ControlGroup.dispose``), and the widget's ``destroyed`` signal
calls it too, so a state that outlives its widgets (a session's) never keeps them alive.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QSignalBlocker, SignalInstance

from posenc_gui.state import ParamError, ParamState, Value


class Binding:
    """One widget bound to one value of a state; :meth:`disconnect` ends it."""

    __slots__ = ("__weakref__", "_on_accept", "_on_error", "_on_limits", "_read", "_seen",
                 "_slot", "_write", "name", "state", "widget")  # fmt: skip

    def __init__(
        self,
        state: ParamState,
        name: str,
        widget: QObject,
        read: Callable[[], Value],
        write: Callable[[Value], None],
        on_error: Callable[[str], None] | None,
        on_limits: Callable[[], None] | None,
        on_accept: Callable[[], None] | None = None,
    ) -> None:
        self.state, self.name, self.widget = state, name, widget
        self._read, self._write = read, write
        self._on_error, self._on_limits, self._on_accept = on_error, on_limits, on_accept
        self._seen: object = None  # the state's limits token last applied
        # the state holds a plain function (held strongly) until disconnect
        self._slot: Callable[[str, object], None] | None = self._on_state_slot()

    def _on_state_slot(self) -> Callable[[str, object], None]:
        def on_state(changed: str, value: object) -> None:
            self._limits()
            if changed == self.name:
                self.to_widget(self.state.get(self.name))

        return on_state

    def to_widget(self, value: Value) -> None:
        """Show ``value`` in the widget without echoing it back."""
        blocker = QSignalBlocker(self.widget)
        try:
            self._write(value)
        finally:
            blocker.unblock()

    def from_widget(self, *_: Any) -> None:
        """The widget changed: set its value on the state (or snap back if refused)."""
        if self._slot is None:
            return
        state, name = self.state, self.name
        try:
            state.set(name, self._read())
        except ParamError as err:
            if self._on_error is not None:
                self._on_error(str(err))
            self.to_widget(state.get(name))
            return
        if self._on_accept is not None:
            self._on_accept()
        if self._read() != state.get(name):
            # a coupling rule or a clamp kept another value (no change, no signal): show it
            self.to_widget(state.get(name))

    def _limits(self) -> None:
        token = self.state.limits_token()
        if self._on_limits is not None and token is not self._seen:  # the limits moved
            self._seen = token
            blocker = QSignalBlocker(self.widget)
            try:
                self._on_limits()
            finally:
                blocker.unblock()

    def disconnect(self, *_: Any) -> None:
        """Stop following the state (idempotent); the widget keeps what it shows."""
        if self._slot is not None:
            self.state.changed.disconnect(self._slot)
            self._slot = None


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
    on_accept: Callable[[], None] | None = None,
) -> Binding:
    """Keep ``widget`` and ``state[name]`` equal in both directions; the :class:`Binding`.

    ``read`` returns the widget's value, ``write`` shows a value in it, ``signal`` is the
    widget's user-change signal. ``on_limits`` (optional) is called on every state change so
    the widget can narrow its range to dynamic limits. ``on_error`` receives the refusal of a
    value, ``on_accept`` is called after a value was accepted (both optional).
    """
    binding = Binding(state, name, widget, read, write, on_error, on_limits, on_accept)
    assert binding._slot is not None
    signal.connect(binding.from_widget)
    state.changed.connect(binding._slot)
    widget.destroyed.connect(binding.disconnect)
    binding._limits()
    binding.to_widget(state.get(name))
    return binding
