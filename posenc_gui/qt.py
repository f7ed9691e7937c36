"""PySide6 for the application's process, without PySide's per-module source scan.

Once PySide6 is imported, every module imported in the process goes through a hook that reads
the module's source (``inspect.getsource``) to see whether it opts into PySide's
``from __feature__ import ...`` switches. No module of this application (nor pyqtgraph, torch
or psygnal) does, so the scan finds "no features" every time, at ~0.2 ms a module: ~20 ms before
the first window paints and ~0.15 s more while torch and pyqtgraph load. Importing this module
records every module imported from then on as "does not use PySide features" without reading
it. The hook is private to PySide6 (``shibokensupport.feature._mod_uses_pyside``, 6.10): where
it is missing, nothing changes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from types import ModuleType

import PySide6.QtCore  # noqa: F401  # installs PySide's import hook (bypassed below)

_FEATURE = "shibokensupport.feature"
_HOOK = "_mod_uses_pyside"


def _no_features(module: object) -> bool:
    return False


def _set_hook(fn: Callable[[object], bool] | None) -> Callable[[object], bool] | None:
    """Install ``fn`` as PySide's scan (``None``: leave it); return the previous one."""
    feature = sys.modules.get(_FEATURE)
    previous = getattr(feature, _HOOK, None)
    if feature is not None and previous is not None and fn is not None:
        setattr(feature, _HOOK, fn)
    return previous


@contextmanager
def pyside_source_scan_off() -> Iterator[None]:
    """Skip the scan for the modules imported inside the ``with`` block (restored after it)."""
    previous = _set_hook(_no_features)
    try:
        yield
    finally:
        _set_hook(previous)


def skip_pyside_source_scan() -> None:
    """Skip the scan from now on, for the rest of the process."""
    _set_hook(_no_features)


skip_pyside_source_scan()


#: pyqtgraph's mirrors of the Qt modules (``pyqtgraph.Qt.QtCore`` …) and what they mirror.
_MIRRORED = ("QtCore", "QtGui", "QtWidgets")


def import_pyqtgraph() -> ModuleType:
    """Import pyqtgraph without instantiating every Qt class (~0.2 s of the start-up).

    pyqtgraph fills its mirror modules ``pyqtgraph.Qt.QtCore/QtGui/QtWidgets`` by copying
    every name of PySide's modules (``getattr`` on each of ~750 names). PySide creates a class
    (and its enums) when it is first read, so that copy builds every class of QtCore, QtGui
    and QtWidgets, most of which the application never uses. Here the mirrors are modules
    that look each name up in PySide's module when it is first read (``__getattr__``, the same
    object pyqtgraph would have copied), and PySide's module lists no names while pyqtgraph
    copies them. Already imported: nothing changes.
    """
    import importlib

    if "pyqtgraph" in sys.modules:
        return sys.modules["pyqtgraph"]
    pyside = {name: importlib.import_module(f"PySide6.{name}") for name in _MIRRORED}
    for name, module in pyside.items():
        mirror = ModuleType(f"pyqtgraph.Qt.{name}")
        mirror.__getattr__ = partial(getattr, module)  # type: ignore[method-assign]
        sys.modules[mirror.__name__] = mirror
        module.__dir__ = list  # type: ignore[method-assign]  # lists nothing while copied
    try:
        return importlib.import_module("pyqtgraph")
    finally:
        for module in pyside.values():
            del module.__dir__
