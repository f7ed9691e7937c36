"""PySide6 for the application's process, without PySide's per-module source scan.

Once PySide6 is imported, every module imported in the process goes through PySide's import
hook, which reads the new module's source (``inspect.getsource``) to see whether it opts into
PySide's ``from __feature__ import ...`` switches, unless PySide's feature table
(``__feature__.pyside_feature_dict``, which PySide publishes) already holds the module's name.
No module of this application (nor pyqtgraph, torch or psygnal) opts in, so the scan finds
"no features" every time, at ~0.2 ms a module. Measured with the start-up bench (medians of 7
runs, variants alternated, quiet machine): interactive − torch import was 0.54–0.55 s with the
scan and 0.42 s with this module's finder (budget: 0.5 s); first paint ~0.14 s either way.

:class:`NoFeatureFinder` is an import finder (Python's ``sys.meta_path`` extension point) that
finds nothing itself: it writes the name of each module about to be imported into PySide's
table as ``-1``, "ignore this module" (what the scan would conclude), and lets the ordinary
finders import it. PySide's hook then sees a known name and reads no source. A module that
does ask for features (``from __feature__ import snake_case``) still gets them: PySide
overwrites its entry on that import. Nothing of PySide is replaced or wrapped. Without a
PySide feature table (another PySide release), nothing changes.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, MutableMapping, Sequence
from contextlib import contextmanager
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType

import PySide6.QtCore  # noqa: F401  # installs PySide's import hook and its feature table

#: PySide's value for a module whose feature switches are ignored (it uses none).
IGNORE = -1


def feature_table() -> MutableMapping[str, int] | None:
    """PySide's published feature table (module name → feature flags), if this PySide has
    one."""
    table = getattr(sys.modules.get("__feature__"), "pyside_feature_dict", None)
    return table if isinstance(table, MutableMapping) else None


class NoFeatureFinder(MetaPathFinder):
    """Marks every module imported while it is on ``sys.meta_path`` as using no PySide
    features, before it loads; finds no module itself."""

    def __init__(self, table: MutableMapping[str, int]) -> None:
        self.table = table

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        self.table.setdefault(fullname, IGNORE)
        return None


def _install() -> NoFeatureFinder | None:
    """Put a :class:`NoFeatureFinder` first on ``sys.meta_path`` (None: no feature table)."""
    table = feature_table()
    if table is None:
        return None
    finder = NoFeatureFinder(table)
    sys.meta_path.insert(0, finder)
    return finder


@contextmanager
def pyside_source_scan_off() -> Iterator[None]:
    """Skip the scan for the modules imported inside the ``with`` block."""
    finder = _install()
    try:
        yield
    finally:
        if finder is not None and finder in sys.meta_path:
            sys.meta_path.remove(finder)


def skip_pyside_source_scan() -> None:
    """Skip the scan from now on, for the rest of the process (once per process)."""
    if not any(isinstance(f, NoFeatureFinder) for f in sys.meta_path):
        _install()


skip_pyside_source_scan()
