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
from typing import Any

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


def _bench() -> Any:
    folder = str(PROBE.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    import bench

    return bench


def test_repaint_floor_repaints_exactly_what_a_step_painted(qtbot: Any) -> None:
    """``--floor`` times a repaint of the regions a step painted: the same widgets get the same
    regions again, and a widget the step left alone is not painted."""
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QLabel, QWidget

    bench = _bench()
    window = QWidget()
    window.resize(320, 200)
    changed, untouched = QLabel("changed", window), QLabel("untouched", window)
    changed.setGeometry(0, 0, 150, 60)
    untouched.setGeometry(160, 100, 150, 60)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    bench.process_events()

    def step() -> None:
        changed.update(QRect(10, 12, 30, 20))
        bench.process_events()
        bench.process_events()

    painted = bench.record_paints(step)
    regions = {w: r.boundingRect() for w, r in painted}
    assert regions.get(changed) == QRect(10, 12, 30, 20)
    assert untouched not in regions
    again = bench.record_paints(lambda: bench.repaint_ms(painted))
    assert {w: r.boundingRect() for w, r in again} == regions
    assert bench.repaint_ms(painted) > 0.0


def test_floor_sweep_gives_a_repaint_time_per_step(qtbot: Any) -> None:
    from posenc_gui.state.registry import get_model

    bench = _bench()
    model = get_model("sine")
    values = model.resolve({})
    panel = bench.make_panel("sine", values, (1200, 800))
    qtbot.addWidget(panel)
    param = bench.numeric_params(model, {})[0]
    seen: list[object] = []
    step = bench.timed_step

    def recording_step(panel: Any, name: str, value: Any, full_paint: bool) -> float | None:
        seen.append(panel.state.get(name))
        return step(panel, name, value, full_paint)  # type: ignore[no-any-return]

    bench.timed_step = recording_step
    try:
        floors = bench.floor_sweep(panel, param, 4)
    finally:
        bench.timed_step = step
    assert len(floors) == 4 and all(f > 0.0 for f in floors)
    assert len(set(seen)) >= 2  # each step moved the parameter to a new value


def test_the_baseline_pools_the_redraws_before_and_after_the_frame_times() -> None:
    bench = _bench()
    info = {"positions": 100, "dim": 128, "matplotlib": "3.x"}
    before = {**bench.summarize([100.0, 110.0, 120.0]), **info, "times_ms": [100.0, 110.0, 120.0]}
    after = {**bench.summarize([200.0, 210.0, 220.0]), **info, "times_ms": [200.0, 210.0, 220.0]}
    pooled = bench.pool_baselines(before, after)
    assert pooled["median_ms"] == 160.0 and pooled["steps"] == 6
    assert (pooled["before_median_ms"], pooled["after_median_ms"]) == (110.0, 210.0)
    assert pooled["positions"] == 100 and pooled["matplotlib"] == "3.x"
    # one half failed: the other alone, the failure said
    alone = bench.pool_baselines(before, {"error": "timed out"})
    assert alone["median_ms"] == 110.0 and alone["after_error"] == "timed out"
    # both failed, or skipped
    assert "timed out" in bench.pool_baselines({"error": "x"}, {"error": "timed out"})["error"]
    skipped = {"skipped": "skipped (--skip-baseline)"}
    assert bench.pool_baselines(skipped, skipped) == skipped
