"""The benchmark harness runs: its start-up probe measures a real window (figures not judged).

The budgets themselves are checked by ``benchmarks/bench.py --check`` on a quiet machine, not
here: a shared CI machine's timings say nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = Path(__file__).resolve().parents[1] / "benchmarks" / "startup_probe.py"


def _probe(mode: str, tmp_path: Path) -> dict[str, object]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path))
    out = subprocess.run(
        [sys.executable, str(PROBE), mode],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert isinstance(result, dict)
    return result


def test_startup_probe_sees_the_loading_page_then_the_panel(tmp_path: Path) -> None:
    gui = _probe("gui", tmp_path)
    assert "error" not in gui, gui
    assert gui["panel"] == "panel_sine"  # a fresh configuration opens on the first tab
    first, panel, done = gui["first_paint_s"], gui["panel_paint_s"], gui["interactive_s"]
    assert isinstance(first, float) and isinstance(panel, float) and isinstance(done, float)
    assert 0 < first < panel <= done
    torch = _probe("torch", tmp_path)
    assert isinstance(torch["torch_import_s"], float) and torch["torch_import_s"] > 0
