"""PosEnc Explorer performance harness: frame times, cold start, peak memory, notebook baseline.

    .venv/bin/python benchmarks/bench.py [--tab ID]... [--steps N] [--size WxH] [--json FILE]
        [--skip-startup] [--skip-baseline] [--skip-rss] [--startup-runs N] [--full-paint]
        [--params] [--floor] [--check]

Needs the ``bench`` extra for the baseline (``pip install -c constraints.txt -e '.[bench]'``);
without matplotlib the baseline is skipped with a message. Every measurement runs in a child
process of this script (one per tab, one per memory scenario, one per start-up run, one for the
baseline), all headless (``QT_QPA_PLATFORM=offscreen``), torch single-threaded as in the app.
A tab whose panel fails to import or raises is reported as an error; the others go on.

What the figures mean and how they are measured
-----------------------------------------------
frame time (per tab, "default" and "largest" scenario)
    One slider step, from ``panel.state.set(name, value)`` to the changed regions painted:
    ``set``; ``processEvents()`` (runs the coalesced refresh); ``processEvents()`` (the paint
    of the dirty regions on the offscreen raster), the panel shown at ``--size`` (1600x1000).
    ``--full-paint`` replaces the second step by a ``grab()`` of the whole panel (worst case).
    "default" starts from the tab's defaults; "largest" from the biggest sizes the tab allows
    (:data:`LARGEST`; a tab not listed there uses its defaults). Every numeric parameter not
    fixed by the scenario is dragged like a slider: a walk in small, even steps (log-spaced for
    log parameters) from its value up to the top of its current range (the dynamic limits of
    ``state.limits()``), down to the bottom and back, repeated until it had its share of steps;
    values the state rejects and repeats of the current value are skipped. Shares:
    ``max(ceil(200 / number of parameters), --steps)``, so at least 200 timed steps per tab and
    scenario. Three untimed steps warm the panel up first. Reported: median and 95th percentile
    pooled over all the tab's parameters, and per parameter in the JSON.
repaint floor (``--floor``, per parameter)
    Where a step's time goes: each parameter is swept again, every widget's paint event
    recorded, and after each step the regions painted are repainted with nothing changed
    (``update(region)`` of each widget, then the two ``processEvents()``). Its median is the
    cost of the pixels that step changed, without the work of changing them (state, views,
    data): what is left of the step for that work is the step's median minus it. A floor: Qt
    paints the regions in one pass, where a step may take several.
baseline_matplotlib_ms
    The source chapter's notebook figure redrawn per change: a 16x10 in figure at 100 dpi (Agg)
    with three panels, the PE heatmap (imshow, RdBu, colour bar), four dimensions' curves over
    positions and the cosine-similarity matrix of the position vectors (imshow, colour bar), at
    the heatmap tab's default size. Per change (``positions`` walked over 30 values around the
    default): the table is recomputed with torch, the figure cleared, its axes re-created and
    plotted, ``fig.canvas.draw()``. Measured twice, in a child before the frame times and in
    one after them, 30 draws each after 3 warm-up draws; the median of the 60 pooled (each
    half's median is reported too): a machine whose speed drifts during the run weighs on
    both sides of the ratio alike.
    ``speedup`` per tab = baseline median / the tab's default median.
startup (median of ``--startup-runs`` fresh processes, see ``startup_probe.py``)
    ``torch_import_s``: ``import torch`` alone; ``first_paint_s``: the main window's first paint
    event, as ``run_gui`` starts; ``interactive_s``: the end of the first paint pass of the first
    tab's panel (built, refreshed, painted). All three are seconds from the child's first
    statement (before any import; the interpreter's own ~30 ms start-up is not in them); the
    whole process wall time seen by this parent is reported beside them. The OS file cache is
    warm after the first run: these are "new process" starts, not "first after boot" ones. The
    app's bytecode is compiled before the runs, as an installed package's is. Each
    child gets fresh settings (``XDG_CONFIG_HOME``), so it opens on the first tab.
rss_mb
    Peak resident memory (``getrusage(RUSAGE_SELF).ru_maxrss``) of one process holding every
    tab's panel at once, shown and swept a few steps per parameter: "default" at defaults,
    "largest" with every tab at its largest scenario (as a user with all tabs open would).

Sanity checks. An exception while sweeping a parameter (from ``set``, re-raised by
``processEvents``, or raised in a Qt slot: PySide prints those and goes on) is an ERROR of that
parameter; the others are still swept. After each parameter's sweep, the untimed change back
to the start values counts the paint events of all widgets: a change that repaints nothing is
a WARNING (is the panel refreshing?), and if no parameter repaints anything the tab's figures
count as not measured. A child that crashes or times out is an ERROR of what it measured.

Budgets, one PASS / FAIL / ERROR (not measured) / SKIP (left out by an option) line each, then
a summary: default median <= 8 ms and p95 <= 16 ms per tab; speedup >= 40x; largest median
<= 16 ms; peak RSS <= 600 MB; first paint <= 1.0 s; interactive_s - torch_import_s <= 0.5 s.
The exit code is 0 unless ``--check`` is given: then 1 on any FAIL or ERROR.

JSON (``--json FILE``): ``tabs.TAB.{default,largest}.{median_ms,p95_ms,max_ms,steps,params}``
(``params.NAME``: the same per parameter, with ``--floor`` also ``repaint_median_ms``) and
``tabs.TAB.speedup_vs_baseline``;
``baseline_matplotlib_ms`` (and ``baseline``, its details: ``before_median_ms``,
``after_median_ms``, the redraws under ``times_ms``); ``startup.{first_paint_s,
interactive_s,torch_import_s,...}`` with every run under ``startup.samples``; ``rss_mb.{default,
largest}`` (and ``rss``, details); ``budgets`` (name, value, op, limit, unit, status);
``passed``; ``meta`` (size, versions, run time, CPU share and load average).

The machine is shared and noisy (two cores, other jobs): compare figures of one run with each
other, and repeat a run before trusting a difference between runs. The closing line says how
much CPU the children got: well under 100% means the figures are inflated by contention.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PROBE = HERE / "startup_probe.py"

#: Marks a result line on a child's stdout (panels or Qt may print other lines).
RESULT_MARK = "@@bench-result "
#: Stands for "the parameter's static maximum" in :data:`LARGEST`.
MAXIMUM = "maximum"

#: The biggest sizes each tab allows: the most expensive states a user can reach.
LARGEST: dict[str, dict[str, Any]] = {
    "sine": {"dim": 1024, "length": 10000, "ladder_dims": 16},
    "heatmap": {"positions": 1_000_000, "dim": 4096},
    "rotation": {"dim": 1024, "block_dim": 64},
    "rope": {"dim": 512, "range_max": MAXIMUM},
    "alibi": {"heads": 64, "positions": MAXIMUM, "dim": MAXIMUM, "samples": MAXIMUM},
    "encodings": {"positions": MAXIMUM, "dim": MAXIMUM},
    "context": {"dim": MAXIMUM, "seq_len": MAXIMUM},
    "precision": {"dim": MAXIMUM, "shift_range": MAXIMUM, "position": MAXIMUM},
}

MIN_STEPS = 200  # timed steps per tab and scenario, at least
WARMUP_STEPS = 3
RSS_STEPS = 3  # steps per parameter in the memory children
BASELINE_STEPS = 30
BASELINE_WARMUP = 3
BASELINE_DIMS = 4  # curves in the baseline's middle panel
FALLBACK_HEATMAP_SIZE = {"positions": 100, "dim": 128}

STARTUP_TIMEOUT_S = 60.0
FRAMES_TIMEOUT_S = 300.0
RSS_TIMEOUT_S = 300.0
BASELINE_TIMEOUT_S = 180.0

#: Upper limits, except ``speedup_min`` (a lower one).
BUDGETS: dict[str, float] = {
    "default_median_ms": 8.0,
    "default_p95_ms": 16.0,
    "speedup_min": 40.0,
    "largest_median_ms": 16.0,
    "rss_mb": 600.0,
    "first_paint_s": 1.0,
    "interactive_minus_torch_s": 0.5,
}

Json = dict[str, Any]


# =============================================================================================
# small helpers
# =============================================================================================
def log(text: str) -> None:
    """Progress on stderr (the table goes to stdout)."""
    print(text, file=sys.stderr, flush=True)


def parse_size(text: str) -> tuple[int, int]:
    """``"1600x1000"`` -> ``(1600, 1000)``."""
    w, sep, h = text.lower().partition("x")
    if not sep or not w.isdigit() or not h.isdigit() or int(w) < 1 or int(h) < 1:
        raise argparse.ArgumentTypeError(f"expected WxH such as 1600x1000, got {text!r}")
    return int(w), int(h)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in [0, 1]) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def summarize(times_ms: list[float]) -> Json:
    """Median, p95, max and count of a list of step times (ms)."""
    return {
        "median_ms": statistics.median(times_ms),
        "p95_ms": percentile(times_ms, 0.95),
        "max_ms": max(times_ms),
        "steps": len(times_ms),
    }


def median_or_none(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def error_text(err: BaseException) -> Json:
    """An exception as JSON: message and the last frames of its traceback."""
    frames = traceback.format_exception(type(err), err, err.__traceback__)
    return {"error": f"{type(err).__name__}: {err}", "traceback": "".join(frames[-3:])[-1500:]}


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (Linux: ru_maxrss is in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def current_rss_mb() -> float | None:
    """Current resident set size (``VmRSS``), None where /proc is missing."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


# =============================================================================================
# sweeps: a dragged slider over a parameter's current range
# =============================================================================================
def value_at(frac: float, lo: float, hi: float, log_scale: bool) -> float:
    """The value at fraction ``frac`` of ``[lo, hi]`` (geometric when ``log_scale``)."""
    if log_scale:
        return float(lo * (hi / lo) ** frac)
    return lo + frac * (hi - lo)


def fraction_of(value: float, lo: float, hi: float, log_scale: bool) -> float:
    """Where ``value`` lies in ``[lo, hi]``, clipped to [0, 1]."""
    if hi <= lo:
        return 0.0
    if log_scale:
        frac = math.log(max(value, lo) / lo) / math.log(hi / lo)
    else:
        frac = (value - lo) / (hi - lo)
    return min(max(frac, 0.0), 1.0)


def fraction_walk(start: float, step: float) -> Iterator[float]:
    """Endless back-and-forth walk in [0, 1]: from ``start`` up to 1, down to 0, up again..."""
    frac, direction = start, 1.0
    while True:
        frac += direction * step
        if frac >= 1.0:
            frac, direction = 1.0, -1.0
        elif frac <= 0.0:
            frac, direction = 0.0, 1.0
        yield frac


def sweep_range(param: Any, limits: Mapping[str, Any]) -> tuple[float, float] | None:
    """The current range of ``param`` (dynamic limits over static bounds); None if unbounded."""
    lo, hi = limits.get(param.name, (None, None))
    lo = param.minimum if lo is None else lo
    hi = param.maximum if hi is None else hi
    if lo is None or hi is None or hi <= lo:
        return None
    return float(lo), float(hi)


def slider_values(param: Any, current: float, lo: float, hi: float, share: int) -> Iterator[Any]:
    """Accepted-type values of a slider drag over ``[lo, hi]``: one full cycle ~ ``share`` steps."""
    log_scale = bool(param.log) and lo > 0
    start = fraction_of(current, lo, hi, log_scale)
    for frac in fraction_walk(start, 2.0 / max(share, 1)):
        x = value_at(frac, lo, hi, log_scale)
        yield param.clamp(x if param.kind == "float" else round(x), lo, hi)


def numeric_params(model: Any, fixed: Mapping[str, Any]) -> list[Any]:
    """The model's float/int parameters, less those the scenario fixes."""
    return [p for p in model.params if p.kind in ("float", "int") and p.name not in fixed]


def share_per_param(n_params: int, steps: int | None) -> int:
    """Steps per parameter: enough for :data:`MIN_STEPS` in total, or ``steps`` if larger."""
    return max(math.ceil(MIN_STEPS / max(n_params, 1)), steps or 0)


def scenario_overrides(tab: str, model: Any, scenario: str) -> dict[str, Any]:
    """The values a scenario fixes (``MAXIMUM`` replaced by the parameter's maximum)."""
    if scenario == "default":
        return {}
    out = {}
    for name, value in LARGEST.get(tab, {}).items():
        out[name] = model.param(name).maximum if value == MAXIMUM else value
        if model.param(name).kind == "int":
            out[name] = int(out[name])
    return out


# =============================================================================================
# child: Qt, the panels and one timed step
# =============================================================================================
#: Exceptions raised in Qt slots (PySide prints them through ``sys.excepthook`` and goes on).
SLOT_ERRORS: list[str] = []


def record_slot_error(kind: type[BaseException], err: BaseException, tb: Any) -> None:
    SLOT_ERRORS.append(f"{kind.__name__}: {err}")
    sys.__excepthook__(kind, err, tb)


def setup_qt() -> None:
    """The app's QApplication (fonts, style) and single-threaded torch, as in the GUI."""
    sys.excepthook = record_slot_error
    from posenc_gui.app import create_application

    create_application()
    import torch

    torch.set_num_threads(1)


def process_events() -> None:
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()


def make_panel(tab: str, values: Mapping[str, Any], size: tuple[int, int]) -> Any:
    """Build tab ``tab``'s panel on a fresh state, show it at ``size`` and let it settle."""
    from posenc_gui.panels import get_panel
    from posenc_gui.state import ParamState
    from posenc_gui.state.registry import get_model

    panel = get_panel(tab)(ParamState(get_model(tab), values))
    panel.resize(*size)
    panel.show()
    process_events()
    process_events()
    return panel


def dispose(panel: Any) -> None:
    panel.close()
    panel.deleteLater()
    process_events()


def timed_step(panel: Any, name: str, value: Any, full_paint: bool) -> float | None:
    """One slider step in ms, from ``state.set`` to painted; None if the state rejects it."""
    from posenc_gui.state import ParamError

    start = time.perf_counter()
    try:
        panel.state.set(name, value)
    except ParamError:
        return None
    process_events()  # the coalesced refresh
    if full_paint:
        panel.grab()  # worst case: every widget of the panel repainted
    else:
        process_events()  # the update requests: dirty regions painted
    return (time.perf_counter() - start) * 1000.0


def restore(panel: Any, values: Mapping[str, Any]) -> None:
    """Put the state back to ``values`` (untimed) and let the panel repaint."""
    from posenc_gui.state import ParamError

    try:
        panel.state.update(values)
    except ParamError:
        for name, value in values.items():
            try:
                panel.state.set(name, value)
            except ParamError:
                continue
    process_events()
    process_events()


def sweep_param(
    panel: Any,
    param: Any,
    share: int,
    full_paint: bool,
    step: Callable[[Any], float | None] | None = None,
) -> list[float]:
    """Drag ``param`` over its current range for ``share`` changing steps; their times (ms), or
    what ``step(value)`` returns for each (it makes the step; None: the state refused it)."""
    bounds = sweep_range(param, panel.state.limits())
    if bounds is None:
        return []
    times: list[float] = []
    attempts = 0
    current = panel.state.get(param.name)
    for value in slider_values(param, float(current), *bounds, share):
        attempts += 1
        if len(times) >= share or attempts > 20 * share + 50:
            break
        if value == panel.state.get(param.name):
            continue  # a repeat: the slider did not move to a new value
        t = timed_step(panel, param.name, value, full_paint) if step is None else step(value)
        if t is not None:
            times.append(t)
    return times


def paints_during(action: Callable[[], None]) -> int:
    """Run ``action`` while counting every widget's paint events (application-wide)."""
    return len(record_paints(action))


def record_paints(action: Callable[[], None]) -> list[tuple[Any, Any]]:
    """Run ``action`` while recording every widget's paint event: ``(widget, region)`` each."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtGui import QRegion
    from PySide6.QtWidgets import QApplication

    painted: list[tuple[Any, Any]] = []

    class PaintRecorder(QObject):
        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and obj.isWidgetType():
                painted.append((obj, QRegion(event.region())))  # type: ignore[attr-defined]
            return False

    recorder = PaintRecorder()
    app = QApplication.instance()
    assert app is not None
    app.installEventFilter(recorder)
    try:
        action()
    finally:
        app.removeEventFilter(recorder)
    return painted


def repaint_ms(painted: list[tuple[Any, Any]]) -> float:
    """Time (ms) to paint the recorded regions again with nothing changed: the cost of the
    pixels a step changed, without the work that changed them.

    Every recorded widget is asked to repaint its region, then the events are processed as a
    step's are. Qt paints them in one pass, where a step may take several (a plot's scene
    sends its changes in a queued call of its own), so this is a floor, not a share.
    """
    import shiboken6

    start = time.perf_counter()
    for widget, region in painted:
        if shiboken6.isValid(widget):
            widget.update(region)
    process_events()
    process_events()
    return (time.perf_counter() - start) * 1000.0


def floor_sweep(panel: Any, param: Any, share: int) -> list[float]:
    """:func:`sweep_param` again, each step's painted regions then repainted unchanged: those
    repaints' times (ms). The steps themselves carry the recorder: their times are not used."""

    def step(value: Any) -> float | None:
        stepped: list[float | None] = []
        painted = record_paints(lambda: stepped.append(timed_step(panel, param.name, value, False)))
        return None if stepped[0] is None else repaint_ms(painted)

    return sweep_param(panel, param, share, False, step)


def guarded_sweep(
    panel: Any, param: Any, share: int, full_paint: bool, values: Mapping[str, Any]
) -> tuple[list[float], str | None, int | None]:
    """:func:`sweep_param`, then :func:`restore` (untimed, its paint events counted).

    Returns the step times, the first error raised (or None) and the paint count of the
    restoring change (None when nothing was changed): 0 means the panel repainted nothing for a
    state change, so its step times measure no refresh. An exception from ``set`` or re-raised
    by ``processEvents`` ends this parameter's sweep (not the scenario); one raised in a slot
    (printed by PySide, the refresh cut short) is recorded.
    """
    times: list[float] = []
    seen = len(SLOT_ERRORS)
    try:
        times = sweep_param(panel, param, share, full_paint)
        moved = panel.state.values() != dict(values)
        paints = paints_during(lambda: restore(panel, values))
    except Exception as err:
        return times, error_text(err)["error"], None
    check = paints if moved else None
    if len(SLOT_ERRORS) > seen:
        count = len(SLOT_ERRORS) - seen
        return times, f"{count} exception(s) in Qt slots, first: {SLOT_ERRORS[seen]}", check
    return times, None, check


def warm_up(panel: Any, params: list[Any], full_paint: bool) -> None:
    """A few untimed steps (first paints, caches), then back to the start values."""
    if not params:
        return
    start = panel.state.values()
    sweep_param(panel, params[0], WARMUP_STEPS, full_paint)
    restore(panel, start)


def time_scenario(
    tab: str,
    scenario: str,
    steps: int | None,
    size: tuple[int, int],
    full_paint: bool,
    floor: bool = False,
) -> Json:
    """Pooled and per-parameter step times of one tab in one scenario (with ``floor``, each
    parameter's repaint floor too: :func:`floor_sweep`)."""
    from posenc_gui.state.registry import get_model

    model = get_model(tab)
    fixed = scenario_overrides(tab, model, scenario)
    values = model.resolve(fixed)
    panel = make_panel(tab, values, size)
    params = numeric_params(model, fixed)
    share = share_per_param(len(params), steps)
    warm_up(panel, params, full_paint)
    pooled: list[float] = []
    per_param: Json = {}
    failures: dict[str, str] = {}
    unpainted: list[str] = []
    for param in params:
        times, failure, paints = guarded_sweep(panel, param, share, full_paint, values)
        if failure:
            failures[param.name] = failure
        if paints == 0:
            unpainted.append(param.name)
        if times:
            per_param[param.name] = {**summarize(times), "check_paints": paints}
            pooled += times
            if floor and not failure:
                repaints = floor_sweep(panel, param, share)
                restore(panel, values)
                if repaints:
                    per_param[param.name]["repaint_median_ms"] = statistics.median(repaints)
    dispose(panel)
    if not pooled:
        return {
            "error": "no parameter could be swept",
            "overrides": fixed,
            "param_errors": failures,
        }
    out = summarize(pooled)
    out.update(overrides=fixed, share_per_param=share, params=per_param)
    if failures:
        out["param_errors"] = failures
    if unpainted:
        out["unpainted_params"] = unpainted
        out["no_repaint"] = set(unpainted) >= set(per_param)
    if scenario == "largest" and tab not in LARGEST:
        out["note"] = "no largest sizes defined for this tab: defaults used"
    return out


def emit(payload: Json) -> None:
    """One result line for the parent."""
    sys.stdout.write(RESULT_MARK + json.dumps(payload) + "\n")
    sys.stdout.flush()


def child_frames(args: Json) -> None:
    """Child: frame times of one tab, one result line per scenario."""
    setup_qt()
    size = (int(args["size"][0]), int(args["size"][1]))
    for scenario in ("default", "largest"):
        try:
            result = time_scenario(
                args["tab"], scenario, args["steps"], size, args["full_paint"],
                floor=bool(args.get("floor")),
            )  # fmt: skip
        except Exception as err:  # a broken panel: report it, go on with the next scenario
            result = error_text(err)
        emit({"scenario": scenario, "result": result})


def exercise(tab: str, scenario: str, size: tuple[int, int]) -> Any:
    """Build a panel for the memory child and drag each parameter a few steps."""
    from posenc_gui.state.registry import get_model

    model = get_model(tab)
    fixed = scenario_overrides(tab, model, scenario)
    values = model.resolve(fixed)
    panel = make_panel(tab, values, size)
    for param in numeric_params(model, fixed):
        sweep_param(panel, param, RSS_STEPS, full_paint=False)
        restore(panel, values)
    return panel


def child_rss(args: Json) -> None:
    """Child: peak RSS with every tab's panel alive at once, in one scenario."""
    setup_qt()
    base = peak_rss_mb()
    size = (int(args["size"][0]), int(args["size"][1]))
    alive: list[Any] = []
    errors: Json = {}
    for tab in args["tabs"]:
        try:
            alive.append(exercise(tab, args["scenario"], size))
        except Exception as err:
            errors[tab] = error_text(err)["error"]
    emit(
        {
            "peak_mb": peak_rss_mb(),
            "after_imports_mb": base,
            "current_mb": current_rss_mb(),
            "panels": len(alive),
            "errors": errors,
        }
    )


# =============================================================================================
# child: the matplotlib notebook baseline
# =============================================================================================
def sinusoidal_table(positions: int, dim: int, base: float = 10000.0) -> Any:
    """PE[p, 2i] = sin(p·ω_i), PE[p, 2i+1] = cos(p·ω_i), ω_i = base^(−2i/d) (torch, float32)."""
    import torch

    pos = torch.arange(positions, dtype=torch.float32)[:, None]
    i = torch.arange(dim // 2, dtype=torch.float32)
    angles = pos * base ** (-2.0 * i / dim)
    pe = torch.zeros(positions, dim)
    pe[:, 0 : 2 * (dim // 2) : 2] = torch.sin(angles)
    pe[:, 1 : 2 * (dim // 2) : 2] = torch.cos(angles)
    return pe


def draw_notebook_figure(fig: Any, positions: int, dim: int) -> None:
    """Clear ``fig``, re-create the three axes, plot, draw: one notebook cell re-run."""
    import torch

    pe = sinusoidal_table(positions, dim)
    unit = pe / pe.norm(dim=1, keepdim=True).clamp_min(1e-12)
    similarity = (unit @ unit.T).numpy()
    fig.clear()
    ax_heat, ax_curves, ax_sim = fig.subplots(1, 3)
    image = ax_heat.imshow(pe.T.numpy(), aspect="auto", cmap="RdBu", vmin=-1, vmax=1)
    ax_heat.set(title="PE[p, j]", xlabel="position p", ylabel="dimension j")
    fig.colorbar(image, ax=ax_heat)
    shown = torch.linspace(0, dim - 1, BASELINE_DIMS).round().long().tolist()
    for j in shown:
        ax_curves.plot(pe[:, j].numpy(), label=f"j = {j}")
    ax_curves.set(title="PE[:, j]", xlabel="position p")
    ax_curves.legend(loc="upper right")
    image = ax_sim.imshow(similarity, cmap="RdBu", vmin=-1, vmax=1)
    ax_sim.set(title="cosine similarity", xlabel="position", ylabel="position")
    fig.colorbar(image, ax=ax_sim)
    fig.canvas.draw()


def heatmap_defaults() -> tuple[int, int]:
    """The heatmap tab's default ``positions`` and ``dim`` (fallback 100 x 128)."""
    try:
        from posenc_gui.state.registry import get_model

        defaults = get_model("heatmap").defaults()
        return int(defaults["positions"]), int(defaults["dim"])
    except Exception:
        return FALLBACK_HEATMAP_SIZE["positions"], FALLBACK_HEATMAP_SIZE["dim"]


def child_baseline(args: Json) -> None:
    """Child: median time of a notebook-style redraw of the three-panel matplotlib figure."""
    try:
        import matplotlib
    except ImportError:
        hint = "pip install -c constraints.txt -e '.[bench]'"
        emit({"skipped": f"matplotlib is not installed ({hint})"})
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import torch

    torch.set_num_threads(1)
    positions, dim = heatmap_defaults()
    fig = plt.figure(figsize=(16, 10), dpi=100)
    walk = [
        max(2, round(positions * (0.75 + 0.5 * k / (BASELINE_STEPS - 1))))
        for k in range(BASELINE_STEPS)
    ]
    for p in walk[:BASELINE_WARMUP]:
        draw_notebook_figure(fig, p, dim)
    times: list[float] = []
    for p in walk:
        start = time.perf_counter()
        draw_notebook_figure(fig, p, dim)
        times.append((time.perf_counter() - start) * 1000.0)
    result = summarize(times)
    result.update(positions=positions, dim=dim, matplotlib=matplotlib.__version__, times_ms=times)
    emit(result)


CHILDREN = {"frames": child_frames, "rss": child_rss, "baseline": child_baseline}


# =============================================================================================
# parent: run the children
# =============================================================================================
def child_env(config_dir: str) -> dict[str, str]:
    """The environment of every child: offscreen Qt, this checkout importable, fresh settings."""
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["XDG_CONFIG_HOME"] = config_dir
    return env


def run_process(cmd: list[str], timeout: float) -> tuple[str, str, int | None, float]:
    """Run ``cmd``; (stdout, stderr, return code or None on timeout, wall seconds)."""
    start = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="posenc-bench-") as config_dir:
            proc = subprocess.run(
                cmd,
                capture_output=True,
                text=True,
                timeout=timeout,
                env=child_env(config_dir),
                cwd=ROOT,
            )
    except subprocess.TimeoutExpired as err:
        out = err.stdout.decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
        errs = err.stderr.decode() if isinstance(err.stderr, bytes) else (err.stderr or "")
        return out, errs, None, time.perf_counter() - start
    return proc.stdout, proc.stderr, proc.returncode, time.perf_counter() - start


def failure(stderr: str, code: int | None, timeout: float) -> str:
    """Why a child gave no (complete) result."""
    if code is None:
        return f"timed out after {timeout:.0f} s"
    tail = [line for line in stderr.strip().splitlines() if line.strip()][-3:]
    return f"exit code {code}" + (": " + " | ".join(tail) if tail else "")


def run_child(kind: str, args: Json, timeout: float) -> tuple[list[Json], str | None]:
    """Run ``bench.py --child KIND ARGS``; its result lines and an error text (None if clean)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", kind, json.dumps(args)]
    out, errs, code, _ = run_process(cmd, timeout)
    results = [
        json.loads(line[len(RESULT_MARK) :])
        for line in out.splitlines()
        if line.startswith(RESULT_MARK)
    ]
    return results, (None if code == 0 else failure(errs, code, timeout))


def measure_tab(tab: str, ns: argparse.Namespace) -> Json:
    """Frame times of one tab (both scenarios) from a child process."""
    args = {
        "tab": tab, "steps": ns.steps, "size": ns.size, "full_paint": ns.full_paint,
        "floor": ns.floor,
    }  # fmt: skip
    results, err = run_child("frames", args, FRAMES_TIMEOUT_S)
    out: Json = {r["scenario"]: r["result"] for r in results}
    for scenario in ("default", "largest"):
        out.setdefault(scenario, {"error": err or "no result"})
    return out


def measure_frames(tabs: list[str], ns: argparse.Namespace) -> Json:
    result: Json = {}
    for tab in tabs:
        log(f"[bench] frame times: {tab} ...")
        result[tab] = measure_tab(tab, ns)
    return result


def measure_baseline(when: str) -> Json:
    log(f"[bench] matplotlib baseline, {when} ...")
    results, err = run_child("baseline", {}, BASELINE_TIMEOUT_S)
    return results[-1] if results else {"error": err or "no result"}


def pool_baselines(before: Json, after: Json) -> Json:
    """The baseline of the run: the redraws measured before and after the frame times, pooled
    (a machine whose speed drifts during the run then weighs on both sides of the ratios), with
    each half's median; one half alone when the other failed or was skipped."""
    halves = [h for h in (before, after) if "times_ms" in h]
    if not halves:
        if "skipped" in before:
            return before
        reasons = (before.get("error", "no result"), after.get("error", "no result"))
        return {"error": f"before the frame times: {reasons[0]}; after: {reasons[1]}"}
    times = [t for h in halves for t in h["times_ms"]]
    out: Json = dict(halves[0])
    out.update(summarize(times), times_ms=times)
    out["before_median_ms"] = before.get("median_ms")
    out["after_median_ms"] = after.get("median_ms")
    for name, half in (("before", before), ("after", after)):
        if "times_ms" not in half:
            out[f"{name}_error"] = half.get("error") or half.get("skipped") or "no result"
    return out


def measure_rss(tabs: list[str], size: tuple[int, int]) -> Json:
    out: Json = {}
    for scenario in ("default", "largest"):
        log(f"[bench] peak RSS, all tabs at {scenario} ...")
        args = {"tabs": tabs, "scenario": scenario, "size": size}
        results, err = run_child("rss", args, RSS_TIMEOUT_S)
        out[scenario] = results[-1] if results else {"error": err or "no result"}
        if err and results:
            out[scenario]["error"] = err
    return out


def probe_once(mode: str) -> Json:
    """One start-up probe child; its figures plus ``wall_s``, or an ``error``."""
    out, errs, code, wall = run_process([sys.executable, str(PROBE), mode], STARTUP_TIMEOUT_S)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if code != 0 or not lines:
        return {"error": failure(errs, code, STARTUP_TIMEOUT_S), "wall_s": wall}
    result: Json = json.loads(lines[-1])
    result["wall_s"] = wall
    return result


def collect(samples: list[Json], key: str) -> list[float]:
    return [float(s[key]) for s in samples if isinstance(s.get(key), int | float)]


def compile_app() -> None:
    """Write the application's bytecode, as an installed package has it (``pip install``
    compiles it; a checkout imported with ``PYTHONDONTWRITEBYTECODE`` set would otherwise
    compile every module of the app at every start, ~0.1 s that no user's start pays)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "posenc_gui")],
        env=env, capture_output=True, check=False, timeout=STARTUP_TIMEOUT_S,
    )  # fmt: skip


def measure_startup(runs: int) -> Json:
    """Medians of ``runs`` torch-import and GUI start-up children (interleaved), the app's
    bytecode compiled first (:func:`compile_app`)."""
    compile_app()
    torch_runs: list[Json] = []
    gui_runs: list[Json] = []
    for k in range(runs):
        log(f"[bench] cold start, run {k + 1}/{runs} ...")
        torch_runs.append(probe_once("torch"))
        gui_runs.append(probe_once("gui"))
    out: Json = {
        "torch_import_s": median_or_none(collect(torch_runs, "torch_import_s")),
        "first_paint_s": median_or_none(collect(gui_runs, "first_paint_s")),
        "interactive_s": median_or_none(collect(gui_runs, "interactive_s")),
        "panel_paint_event_s": median_or_none(collect(gui_runs, "panel_paint_s")),
        "torch_import_wall_s": median_or_none(collect(torch_runs, "wall_s")),
        "gui_wall_s": median_or_none(collect(gui_runs, "wall_s")),
        "runs": runs,
        "samples": {"torch": torch_runs, "gui": gui_runs},
    }
    errors = [s["error"] for s in torch_runs + gui_runs if "error" in s]
    if errors:
        out["errors"] = errors
    return out


# =============================================================================================
# budgets and report
# =============================================================================================
def budget(
    name: str,
    value: float | None,
    limit: float,
    unit: str,
    *,
    higher: bool = False,
    skipped: bool = False,
) -> Json:
    """One budget line: PASS/FAIL; SKIP when skipped by an option, ERROR when not measured."""
    if skipped:
        status = "SKIP"
    elif value is None:
        status = "ERROR"
    else:
        status = "PASS" if (value >= limit if higher else value <= limit) else "FAIL"
    op = ">=" if higher else "<="
    return {"name": name, "value": value, "limit": limit, "unit": unit, "op": op, "status": status}


def number(entry: Any, key: str) -> float | None:
    """``entry[key]`` if ``entry`` is a dict holding a number there."""
    if isinstance(entry, dict) and isinstance(entry.get(key), int | float):
        return float(entry[key])
    return None


def measured(row: Json, key: str) -> float | None:
    """A frame-time figure; None (not measured) if part of the sweep raised or if no change
    repainted anything (the panel is not refreshing: its step times would be meaningless)."""
    return None if row.get("param_errors") or row.get("no_repaint") else number(row, key)


def tab_budgets(tab: str, data: Json, no_baseline: bool) -> list[Json]:
    default, largest = data["default"], data["largest"]
    return [
        budget(f"{tab}: default median", measured(default, "median_ms"),
               BUDGETS["default_median_ms"], "ms"),
        budget(f"{tab}: default p95", measured(default, "p95_ms"),
               BUDGETS["default_p95_ms"], "ms"),
        budget(f"{tab}: largest median", measured(largest, "median_ms"),
               BUDGETS["largest_median_ms"], "ms"),
        budget(f"{tab}: speedup vs notebook", data.get("speedup_vs_baseline"),
               BUDGETS["speedup_min"], "x", higher=True, skipped=no_baseline),
    ]  # fmt: skip


def startup_budgets(startup: Json | None) -> list[Json]:
    s = startup or {}
    torch_s, ready_s = s.get("torch_import_s"), s.get("interactive_s")
    extra = ready_s - torch_s if ready_s is not None and torch_s is not None else None
    return [
        budget("first paint", s.get("first_paint_s"), BUDGETS["first_paint_s"], "s",
               skipped=startup is None),
        budget("interactive - torch import", extra, BUDGETS["interactive_minus_torch_s"], "s",
               skipped=startup is None),
    ]  # fmt: skip


def evaluate_budgets(report: Json) -> list[Json]:
    no_baseline = "skipped" in report["baseline"]
    lines: list[Json] = []
    for tab, data in report["tabs"].items():
        lines += tab_budgets(tab, data, no_baseline)
    rss = report.get("rss_mb")
    for scenario in ("default", "largest"):
        value = rss.get(scenario) if rss else None
        lines.append(budget(f"peak RSS ({scenario})", value, BUDGETS["rss_mb"], "MB",
                            skipped=rss is None))  # fmt: skip
    return lines + startup_budgets(report.get("startup"))


def add_speedups(report: Json) -> None:
    """Baseline median / each tab's default median."""
    base = report.get("baseline_matplotlib_ms")
    for data in report["tabs"].values():
        tab_ms = measured(data["default"], "median_ms")
        if base is not None and tab_ms:
            data["speedup_vs_baseline"] = base / tab_ms


def fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def print_frames(report: Json, show_params: bool) -> None:
    meta = report["meta"]
    paint = "grab() of the whole panel" if meta["full_paint"] else "dirty regions painted"
    print(
        f"\nFrame time per step: state.set -> {paint}, panel {meta['size']}, pooled over "
        "all numeric parameters"
    )
    print(
        f"{'tab':9} {'scenario':8} {'steps':>6} {'median ms':>10} {'p95 ms':>8} {'max ms':>8}"
        f" {'speedup':>8}"
    )
    for tab, data in report["tabs"].items():
        for scenario in ("default", "largest"):
            print_frame_row(tab, scenario, data, show_params)


def print_frame_row(tab: str, scenario: str, data: Json, show_params: bool) -> None:
    row = data[scenario]
    errors = "".join(
        f"\n{'':18} ERROR {name}: {text[:200]}"
        for name, text in (row.get("param_errors") or {}).items()
    )
    if row.get("unpainted_params"):
        what = "ERROR no" if row.get("no_repaint") else "WARNING no"
        errors += (f"\n{'':18} {what} widget repainted after a change of "
                   f"{', '.join(row['unpainted_params'])} (is the panel refreshing?)")  # fmt: skip
    if "error" in row:
        print(f"{tab:9} {scenario:8} ERROR {row['error'][:200]}{errors}")
        return
    speed = data.get("speedup_vs_baseline") if scenario == "default" else None
    speed_text = "" if speed is None else f"{speed:7.1f}x"
    print(
        f"{tab:9} {scenario:8} {row['steps']:6d} {row['median_ms']:10.2f} "
        f"{row['p95_ms']:8.2f} {row['max_ms']:8.1f} {speed_text:>8}"
        + (f"  ({row['note']})" if "note" in row else "")
        + errors
    )
    if show_params:
        for name, p in row["params"].items():
            floor = p.get("repaint_median_ms")
            floor_text = "" if floor is None else f"  (repaint floor {floor:.2f} ms)"
            print(
                f"{'':9} {'':8} {p['steps']:6d} {p['median_ms']:10.2f} {p['p95_ms']:8.2f} "
                f"{p['max_ms']:8.1f}   {name}{floor_text}"
            )


def print_baseline(report: Json) -> None:
    base = report.get("baseline") or {}
    if "median_ms" in base:
        print(
            f"\nNotebook baseline (matplotlib {base['matplotlib']}, 3 panels, "
            f"{base['positions']} x {base['dim']}): median {base['median_ms']:.1f} ms, "
            f"p95 {base['p95_ms']:.1f} ms per redraw"
            + (
                f" (before the frame times {base['before_median_ms']:.1f} ms, after "
                f"{base['after_median_ms']:.1f} ms)"
                if base.get("before_median_ms") and base.get("after_median_ms")
                else ""
            )
        )
    else:
        reason = base.get("skipped") or base.get("error") or "no result"
        print(f"\nNotebook baseline: {reason}")


def print_startup(report: Json) -> None:
    s = report.get("startup")
    if not s:
        print("\nCold start: skipped (--skip-startup)")
        return
    print(
        f"\nCold start (median of {s['runs']} processes; s since the child's first line, "
        "process wall time in brackets)"
    )
    print(
        f"  import torch alone      {fmt(s['torch_import_s'], 2):>6} s  "
        f"[{fmt(s['torch_import_wall_s'], 2)} s]"
    )
    print(f"  first window paint      {fmt(s['first_paint_s'], 2):>6} s")
    print(
        f"  first tab interactive   {fmt(s['interactive_s'], 2):>6} s  "
        f"[{fmt(s['gui_wall_s'], 2)} s]"
    )
    for err in s.get("errors", [])[:3]:
        print(f"  error: {err}")


def print_rss(report: Json) -> None:
    rss = report.get("rss")
    if not rss:
        print("\nPeak RSS: skipped (--skip-rss)")
        return
    print("\nPeak RSS, every tab's panel alive in one process")
    for scenario, r in rss.items():
        line = (
            f"  {scenario:8} {fmt(r.get('peak_mb'), 0):>6} MB"
            f"  (after imports {fmt(r.get('after_imports_mb'), 0)} MB,"
            f" {r.get('panels', 0)} panels)"
        )
        errors = dict(r.get("errors") or {})
        if "error" in r:
            errors["process"] = r["error"]
        print(line + "".join(f"\n    error {k}: {v[:200]}" for k, v in errors.items()))


def print_budgets(lines: list[Json]) -> None:
    print("\nBudgets")
    for b in lines:
        value = "n/a" if b["value"] is None else f"{b['value']:.2f}"
        print(f"  {b['status']:5} {b['name']:36} {value:>9} {b['op']} {b['limit']:g} {b['unit']}")
    counts = {k: sum(b["status"] == k for b in lines) for k in ("PASS", "FAIL", "ERROR", "SKIP")}
    verdict = "all met" if counts["FAIL"] + counts["ERROR"] == 0 else "NOT met"
    print(
        f"Budgets {verdict}: {counts['PASS']} passed, {counts['FAIL']} failed, "
        f"{counts['ERROR']} not measured (error), {counts['SKIP']} skipped"
    )


def print_report(report: Json, show_params: bool) -> None:
    print_frames(report, show_params)
    print_baseline(report)
    print_startup(report)
    print_rss(report)
    print_budgets(report["budgets"])
    m = report["meta"]
    print(
        f"\nTotal run time {m['elapsed_s']:.0f} s. The children ran {m['cpu_share']:.0%} of "
        f"the time (CPU s / wall s; ~100% when they have a core to themselves); load average "
        f"{m['loadavg_start']:.1f} at the start, {m['loadavg_end']:.1f} at the end on "
        f"{os.cpu_count()} CPUs. Under contention every figure is inflated: compare ratios."
    )


# =============================================================================================
# command line
# =============================================================================================
def parse_args(argv: list[str] | None, tab_ids: tuple[str, ...]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tab", action="append", choices=tab_ids, help="only these tabs")
    parser.add_argument(
        "--steps",
        type=int,
        help=f"steps per parameter (default: enough for "
        f"{MIN_STEPS} per tab and scenario; a smaller value is raised to that)",
    )
    parser.add_argument("--size", type=parse_size, default=(1600, 1000), help="panel size WxH")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--skip-startup", action="store_true", help="no cold-start runs")
    parser.add_argument("--skip-baseline", action="store_true", help="no matplotlib baseline")
    parser.add_argument("--skip-rss", action="store_true", help="no peak-memory runs")
    parser.add_argument("--startup-runs", type=int, default=5, help="cold starts (median)")
    parser.add_argument(
        "--full-paint",
        action="store_true",
        help="time a grab() of the whole panel per step (worst case)",
    )
    parser.add_argument("--params", action="store_true", help="print per-parameter rows too")
    parser.add_argument(
        "--floor",
        action="store_true",
        help="per parameter, also time a repaint of what each step painted, nothing changed "
        "(implies --params; doubles the sweeps)",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if a budget is not met")
    return parser.parse_args(argv)


def versions() -> Json:
    from importlib.metadata import PackageNotFoundError, version

    out: Json = {"python": platform.python_version(), "cpus": os.cpu_count()}
    for package in ("torch", "PySide6-Essentials", "pyqtgraph", "matplotlib"):
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            out[package] = None
    return out


def run_all(ns: argparse.Namespace, tabs: list[str]) -> Json:
    started = time.perf_counter()
    load_start = os.getloadavg()[0]
    skipped: Json = {"skipped": "skipped (--skip-baseline)"}
    before = skipped if ns.skip_baseline else measure_baseline("before the frame times")
    report: Json = {"tabs": measure_frames(tabs, ns)}
    after = skipped if ns.skip_baseline else measure_baseline("after the frame times")
    report["baseline"] = pool_baselines(before, after)
    report["baseline_matplotlib_ms"] = number(report["baseline"], "median_ms")
    add_speedups(report)
    report["startup"] = None if ns.skip_startup else measure_startup(ns.startup_runs)
    report["rss"] = None if ns.skip_rss else measure_rss(tabs, ns.size)
    report["rss_mb"] = (
        None if ns.skip_rss else {k: number(v, "peak_mb") for k, v in report["rss"].items()}
    )
    report["budgets"] = evaluate_budgets(report)
    report["passed"] = all(b["status"] in ("PASS", "SKIP") for b in report["budgets"])
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    elapsed = time.perf_counter() - started
    report["meta"] = {
        "size": "x".join(map(str, ns.size)),
        "full_paint": ns.full_paint,
        "floor": ns.floor,
        "steps": ns.steps,
        "largest": LARGEST,
        "budgets": BUDGETS,
        "versions": versions(),
        "elapsed_s": elapsed,
        "children_cpu_s": children.ru_utime + children.ru_stime,
        "cpu_share": (children.ru_utime + children.ru_stime) / elapsed,
        "loadavg_start": load_start,
        "loadavg_end": os.getloadavg()[0],
    }
    return report


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    if argv[:1] == ["--child"]:
        CHILDREN[argv[1]](json.loads(argv[2]))
        sys.stdout.flush()
        os._exit(0)  # results are out: skip the Qt/torch teardown (slow, may crash)
    from posenc_gui.state.registry import TAB_IDS

    ns = parse_args(argv, TAB_IDS)
    tabs = list(dict.fromkeys(ns.tab or TAB_IDS))
    missing = [t for t in tabs if t not in LARGEST]
    if missing:
        log(f"[bench] no largest sizes defined for {', '.join(missing)}: defaults used there")
    report = run_all(ns, tabs)
    print_report(report, ns.params or ns.floor)
    if ns.json:
        Path(ns.json).write_text(json.dumps(report, indent=1))
    return 1 if ns.check and not report["passed"] else 0


if __name__ == "__main__":
    sys.exit(main())
