"""A minimal change signal for the Qt-free state (what ``ParamState.changed`` needs).

``Signal()`` as a class attribute gives each instance its own :class:`SignalInstance`:
``connect(slot)``, ``disconnect(slot)``, ``emit(*args)``. Slots are called in the order they
were connected, with every argument. A bound method is held weakly (a panel listening to its
state does not keep itself alive: a closed panel can be collected); any other callable
strongly. Disconnecting a slot that is not connected does nothing.

Written here rather than taken from an event library: the state needs only this, and the
library (with its ``importlib.metadata`` import) cost ~30 ms of the application's start.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

Slot = Callable[..., Any]


def _key(slot: Slot) -> tuple[int, int]:
    """Identity of a slot: (function, instance) for a bound method, the callable otherwise."""
    func = getattr(slot, "__func__", None)
    owner = getattr(slot, "__self__", None)
    if func is not None and owner is not None:
        return id(func), id(owner)
    return id(slot), 0


class SignalInstance:
    """The connections of one signal of one object."""

    __slots__ = ("_slots",)

    def __init__(self) -> None:
        self._slots: list[tuple[tuple[int, int], Callable[[], Slot | None]]] = []

    def connect(self, slot: Slot) -> Slot:
        """Call ``slot(*args)`` on every :meth:`emit` (once, however often connected)."""
        if not callable(slot):
            raise TypeError(f"a slot must be callable, got {slot!r}")
        key = _key(slot)
        if any(k == key for k, _ in self._slots):
            return slot
        if hasattr(slot, "__self__") and hasattr(slot, "__func__"):
            ref: Callable[[], Slot | None] = weakref.WeakMethod(slot)
        else:
            ref = _Strong(slot)
        self._slots.append((key, ref))
        return slot

    def disconnect(self, slot: Slot) -> None:
        """Stop calling ``slot`` (nothing happens when it is not connected)."""
        key = _key(slot)
        self._slots = [(k, r) for k, r in self._slots if k != key]

    def emit(self, *args: Any) -> None:
        """Call every connected slot with ``args``; slots whose object is gone are dropped."""
        dead = False
        for _, ref in list(self._slots):
            slot = ref()
            if slot is None:
                dead = True
                continue
            slot(*args)
        if dead:
            self._slots = [(k, r) for k, r in self._slots if r() is not None]

    def __len__(self) -> int:
        """The number of live connections."""
        return sum(1 for _, r in self._slots if r() is not None)


class _Strong:
    __slots__ = ("slot",)

    def __init__(self, slot: Slot) -> None:
        self.slot = slot

    def __call__(self) -> Slot:
        return self.slot


class Signal:
    """A class attribute whose value on each instance is that instance's :class:`SignalInstance`.

    ``types`` document the arguments of :meth:`SignalInstance.emit` (not checked).
    """

    def __init__(self, *types: object) -> None:
        self.types = types
        self._attr = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._attr = f"_signal_{name}"

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        found = obj.__dict__.get(self._attr)
        if found is None:
            found = obj.__dict__[self._attr] = SignalInstance()
        return found
