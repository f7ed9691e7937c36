"""Frame-time benchmark: how long one slider step takes from state change to a painted frame.

    .venv/bin/python benchmarks/frame_times.py [--tab ID]... [--steps N] [--size WxH] [--json FILE]

For every tab and every numeric parameter, the parameter is swept across its range in N steps
(as a dragged slider would) at the default values and at the tab's large "stress" values; each
step is timed as ``state.set`` -> coalesced refresh -> the paint of the regions that changed
(offscreen raster, the panel shown at the given size); ``--full-paint`` adds a ``grab()`` of
the whole panel per step, the worst case. Reported: median and 95th percentile per sweep, against
the frame budget (33 ms = 30 frames/s). Ratios between tabs and scenarios measured in one run are
what to compare: this machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

BUDGET_MS = 33.0

#: Large values per tab: the sizes a user can reach that are most expensive to draw.
STRESS: dict[str, dict[str, Any]] = {
    "sine": {"dim": 1024, "length": 10000, "ladder_dims": 16},
    "heatmap": {"positions": 1_000_000, "dim": 4096},
    "rotation": {"dim": 1024, "block_dim": 64},
    "rope": {"dim": 512, "range_max": 100_000},
}


def sweep_values(param: Any, lo: float, hi: float, steps: int) -> list[Any]:
    """``steps`` values spread over [lo, hi] (log-spaced for log parameters)."""
    out: list[Any] = []
    for k in range(steps):
        frac = k / max(steps - 1, 1)
        x = lo * (hi / lo) ** frac if param.log and lo > 0 else lo + frac * (hi - lo)
        out.append(param.clamp(float(x) if param.kind == "float" else round(x), lo, hi))
    return out


def time_tab(
    tab_id: str, steps: int, size: tuple[int, int], full_paint: bool = False
) -> list[dict[str, Any]]:
    from PySide6.QtWidgets import QApplication

    from posenc_gui.panels import get_panel
    from posenc_gui.state import ParamError, ParamState

    cls = get_panel(tab_id)
    results = []
    scenarios = {"default": {}, "stress": STRESS.get(tab_id, {})}
    for scenario, overrides in scenarios.items():
        try:
            values = cls.model.resolve(overrides)
        except ParamError as err:
            print(f"  {tab_id}/{scenario}: skipped ({err})", file=sys.stderr)
            continue
        panel = cls(ParamState(cls.model, values))
        panel.resize(*size)
        panel.show()
        QApplication.processEvents()
        for param in cls.model.params:
            if param.kind not in ("float", "int"):
                continue
            lo, hi = panel.state.limits().get(param.name, (None, None))
            lo = param.minimum if lo is None else lo
            hi = param.maximum if hi is None else hi
            assert lo is not None and hi is not None
            if param.name in overrides:  # keep the stress size; sweep the others
                continue
            times = []
            for v in sweep_values(param, lo, hi, steps):
                start = time.perf_counter()
                try:
                    panel.state.set(param.name, v)
                except ParamError:
                    continue
                QApplication.processEvents()  # runs the coalesced refresh
                if full_paint:
                    panel.grab()  # worst case: every widget of the panel repainted
                else:
                    QApplication.processEvents()  # the update requests: dirty regions painted
                times.append((time.perf_counter() - start) * 1000.0)
            if times:
                times.sort()
                results.append({
                    "tab": tab_id, "scenario": scenario, "param": param.name,
                    "median_ms": statistics.median(times),
                    "p95_ms": times[min(len(times) - 1, int(0.95 * len(times)))],
                    "max_ms": times[-1], "steps": len(times),
                })  # fmt: skip
            panel.state.update({param.name: values[param.name]})
        panel.close()
        panel.deleteLater()
        QApplication.processEvents()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--tab", action="append", help="only these tabs (repeatable)")
    parser.add_argument("--steps", type=int, default=25, help="steps per parameter sweep")
    parser.add_argument("--size", default="1600x1000", help="panel size WxH")
    parser.add_argument("--json", help="also write the results to this JSON file")
    parser.add_argument(
        "--full-paint", action="store_true",
        help="time a grab() of the whole panel per step (worst case) instead of the dirty regions",
    )  # fmt: skip
    ns = parser.parse_args(argv)
    w, _, h = ns.size.partition("x")
    size = (int(w), int(h))

    from posenc_gui.app import create_application
    from posenc_gui.state.registry import TAB_IDS

    create_application()
    import torch

    torch.set_num_threads(1)
    tabs = ns.tab or list(TAB_IDS)
    rows: list[dict[str, Any]] = []
    for tab in tabs:
        rows += time_tab(tab, ns.steps, size, ns.full_paint)
    print(
        f"{'tab':9} {'scenario':8} {'param':14} {'median ms':>10} {'p95 ms':>8} "
        f"{'max ms':>8}  budget"
    )
    over = 0
    for r in rows:
        ok = r["p95_ms"] <= BUDGET_MS
        over += not ok
        print(
            f"{r['tab']:9} {r['scenario']:8} {r['param']:14} {r['median_ms']:10.1f} "
            f"{r['p95_ms']:8.1f} {r['max_ms']:8.1f}  {'ok' if ok else 'OVER'}"
        )
    print(f"{len(rows)} sweeps, {over} over the {BUDGET_MS:.0f} ms p95 budget")
    if ns.json:
        with open(ns.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
