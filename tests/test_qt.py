"""posenc_gui.qt: modules imported by the application are known to PySide as using no PySide
features before they load, so PySide's import hook reads no source; nothing of PySide is
replaced."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

PROBE = "# uses PySide6 (PySide's scan looks for this word)\nX = 1\n"


def _run(code: str, tmp_path: Path) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        cwd=tmp_path, env={"PYTHONPATH": f"{tmp_path}:{Path(__file__).resolve().parents[1]}",
                           "QT_QPA_PLATFORM": "offscreen"},
    )  # fmt: skip
    return out.stdout.strip()


def test_the_application_skips_the_scan_from_its_first_import(tmp_path: Path) -> None:
    """After ``import posenc_gui.app`` a module that names PySide6 (the scan would mark it as
    a PySide user, 0) is marked "ignore" (-1) without being read; PySide's own hook is the
    library's, not a function of the project."""
    (tmp_path / "posenc_scan_probe.py").write_text(PROBE)
    code = (
        "import sys, posenc_gui.app\n"
        "from posenc_gui.qt import feature_table\n"
        "import posenc_scan_probe, pyqtgraph.Qt\n"
        "t = feature_table()\n"
        "hook = sys.modules['shibokensupport.feature']._mod_uses_pyside\n"
        "print(t['posenc_scan_probe'], t['pyqtgraph.Qt'], hook.__module__ != 'posenc_gui.qt')"
    )
    assert _run(code, tmp_path) == "-1 -1 True"


def test_pyside_source_scan_is_skipped_only_inside_the_block(tmp_path: Path) -> None:
    """Inside ``pyside_source_scan_off`` a new module is marked without a scan; after it,
    PySide scans again (and finds the word)."""
    (tmp_path / "posenc_scan_probe_a.py").write_text(PROBE)
    (tmp_path / "posenc_scan_probe_b.py").write_text(PROBE)
    code = (
        "import sys\n"
        "from posenc_gui.qt import NoFeatureFinder, feature_table, pyside_source_scan_off\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, NoFeatureFinder)]\n"
        "with pyside_source_scan_off():\n"
        "    import posenc_scan_probe_a\n"
        "import posenc_scan_probe_b\n"
        "t = feature_table()\n"
        "print(t['posenc_scan_probe_a'], t['posenc_scan_probe_b'],\n"
        "      any(isinstance(f, NoFeatureFinder) for f in sys.meta_path))"
    )
    assert _run(code, tmp_path) == "-1 0 False"


def test_a_module_that_asks_for_features_gets_them(tmp_path: Path) -> None:
    """The finder only sets a default: ``from __feature__ import snake_case`` still switches
    the module's Qt names to snake case."""
    (tmp_path / "posenc_feature_probe.py").write_text(
        "from __feature__ import snake_case  # noqa\n"
        "from PySide6.QtCore import QObject\n"
        "NAME = QObject().object_name()\n"
    )
    code = (
        "import posenc_gui.qt\nimport posenc_feature_probe\nprint(repr(posenc_feature_probe.NAME))"
    )
    assert _run(code, tmp_path) == "''"


def test_the_application_gives_free_heap_pages_back_periodically(qapp: QApplication) -> None:
    """On glibc, one heap trim per application, on a running timer (a 30-minute soak's
    resident size otherwise grew by a quarter with the memory in use flat)."""
    from posenc_gui.app import _HeapTrim, create_application

    create_application()
    create_application()
    trims = qapp.findChildren(_HeapTrim)
    assert len(trims) == 1
    if sys.platform.startswith("linux"):
        assert trims[0]._timer.isActive() and trims[0]._timer.interval() == _HeapTrim.PERIOD_MS
        trims[0].trim()
