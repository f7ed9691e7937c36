"""The state's change signal: order, arguments, disconnection, weakly held methods."""

from __future__ import annotations

import gc

from posenc_gui.state.signal import Signal


class Source:
    changed = Signal(str, object)


class Listener:
    def __init__(self) -> None:
        self.seen: list[tuple[str, object]] = []

    def on(self, name: str, value: object) -> None:
        self.seen.append((name, value))


def test_slots_get_every_argument_in_connection_order() -> None:
    source, calls = Source(), []
    source.changed.connect(lambda n, v: calls.append(("first", n, v)))
    source.changed.connect(lambda n, v: calls.append(("second", n, v)))
    source.changed.emit("dim", 64)
    assert calls == [("first", "dim", 64), ("second", "dim", 64)]


def test_each_instance_has_its_own_connections() -> None:
    a, b, listener = Source(), Source(), Listener()
    a.changed.connect(listener.on)
    b.changed.emit("x", 1)
    assert listener.seen == []
    a.changed.emit("x", 2)
    assert listener.seen == [("x", 2)]
    assert Source.changed.types == (str, object)


def test_connecting_twice_calls_once_and_disconnect_stops_it() -> None:
    source, listener = Source(), Listener()
    source.changed.connect(listener.on)
    source.changed.connect(listener.on)
    source.changed.emit("a", 1)
    assert listener.seen == [("a", 1)]
    source.changed.disconnect(listener.on)
    source.changed.disconnect(listener.on)  # not connected any more: nothing happens
    source.changed.emit("b", 2)
    assert listener.seen == [("a", 1)]


def test_a_bound_method_does_not_keep_its_object_alive() -> None:
    source, listener = Source(), Listener()
    source.changed.connect(listener.on)
    assert len(source.changed) == 1
    del listener
    gc.collect()
    source.changed.emit("a", 1)  # the dead slot is dropped, not called
    assert len(source.changed) == 0


def test_a_function_is_held_strongly() -> None:
    source, calls = Source(), []

    def connect_closure() -> None:
        value = "kept"
        source.changed.connect(lambda n, v: calls.append(value))

    connect_closure()
    gc.collect()
    source.changed.emit("a", 1)
    assert calls == ["kept"]
