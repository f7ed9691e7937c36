"""Lifetimes that do not depend on the garbage collector.

A Qt object that Python owns (made without a parent) is deleted when its Python wrapper is
freed. When the wrapper sits in a reference cycle — pyqtgraph's items are full of them — that
happens whenever the garbage collector runs: possibly inside a Qt call that holds one of Qt's
signal-slot locks (a ``disconnect``), where deleting a ``QObject`` waits for a lock Qt already
holds (a deadlock seen in the test suite, an old plot's menu deleted during a new panel's
set-up). Two rules keep deletions where they belong:

- **Qt owns what Qt shows.** :func:`adopt_orphans` gives the objects pyqtgraph makes without
  a parent (a plot's option menu and its widget group, a view box's menu) a parent: they are
  deleted with their plot, by Qt, and the collector later frees only empty wrappers.
- **Hooks hold their owner weakly.** :func:`on_destroyed` connects a Qt object's
  ``destroyed`` signal to a method of an owner held by a weak reference, so the connection
  keeps nothing alive and forms no cycle.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QGraphicsView, QWidget

#: Attributes under which pyqtgraph items keep Qt objects they made without a parent.
_ORPHAN_ATTRIBUTES = ("ctrlMenu", "stateGroup", "menu")


def adopt_orphans(owner: QWidget) -> int:
    """Parent the menus (and their state objects) of every plot item under ``owner`` to the
    view that shows the item, so Qt deletes them with it; the number adopted.

    Only objects that Python owns and that have no parent are touched; a menu keeps its
    window flags (it still pops up as a menu).
    """
    adopted = 0
    for view in owner.findChildren(QGraphicsView):
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            for name in _ORPHAN_ATTRIBUTES:
                obj = item.__dict__.get(name) if hasattr(item, "__dict__") else None
                if not isinstance(obj, QObject) or not shiboken6.isValid(obj):
                    continue
                if obj.parent() is not None or not shiboken6.ownedByPython(obj):
                    continue
                if isinstance(obj, QWidget):
                    obj.setParent(view, obj.windowFlags())
                else:
                    obj.setParent(view)
                adopted += 1
    return adopted


def on_destroyed(obj: QObject, owner: object, method: Callable[[Any], Any]) -> None:
    """Call ``method(owner)`` when ``obj`` is destroyed, if ``owner`` still exists then.

    ``owner`` is held weakly: the connection neither keeps it alive nor closes a cycle.
    ``method`` is the plain function (``Type.method``), not a bound method of ``owner``.
    """
    ref = weakref.ref(owner)
    obj.destroyed.connect(_WeakCall(ref, method))


class _WeakCall:
    """``method(ref())`` when the referent is alive; nothing otherwise."""

    __slots__ = ("method", "ref")

    def __init__(self, ref: weakref.ref[Any], method: Callable[[Any], Any]) -> None:
        self.ref = ref
        self.method = method

    def __call__(self, *_: object) -> None:
        target = self.ref()
        if target is not None:
            self.method(target)
