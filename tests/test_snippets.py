"""Show the code: every tab's two snippets run in a fresh interpreter and give the app's numbers.

All snippets (every tab × a few parameter sets) run in two subprocesses, one per version; each is
exec'ed in its own namespace as ``__main__``. The plain version runs with ``posenc_gui`` made
unimportable (``sys.modules["posenc_gui"] = None``), which proves it needs only torch. The
tensors each snippet binds are compared with the model's read-outs (what ``posenc-gui values``
prints) and with the arrays the panel shows (``panel.data()``, offscreen).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from posenc_gui.state import snippets
from posenc_gui.state.about import ABOUT, about, about_text
from posenc_gui.state.params import Value
from posenc_gui.state.registry import TAB_IDS, get_model

#: Parameter sets per tab: the defaults and non-default ones that take the other branches.
PARAM_SETS: dict[str, list[dict[str, Value]]] = {
    "sine": [
        {},
        {"amplitude": 1.7, "frequency": 1 / 3, "phase": -1.2345678901234567, "cursor": 1.234,
         "dim": 64, "base": 500.0, "length": 300, "position": 271, "ladder_dims": 8},
    ],
    "heatmap": [
        {},
        {"positions": 300, "dim": 64, "base": 100.0, "layout": "concat", "position": 250,
         "dimension": 40, "shown_dims": 48},
    ],
    "rotation": [
        {},
        {"angle": -123.4, "x": -0.35, "y": 1.9, "dim": 32, "base": 777.0, "pair": 7,
         "position": 999, "offset": -17, "m": 12, "block_dim": 12, "layout": "half"},
    ],
    "rope": [
        {},
        {"m": 12345, "n": 345, "dim": 32, "base": 500.0, "layout": "half", "vectors": "typed",
         "pair": 5, "q0": 1.5, "q1": -2.25, "k0": 0.125, "k1": 3.0, "seed": 7, "window": 24},
        {"m": 100000, "n": 3, "vectors": "q=k", "seed": 3, "dim": 16},
    ],
    "alibi": [
        {},
        {"heads": 6, "head": 5, "positions": 100, "query": 77, "logits": "random", "seed": 42},
    ],
    "encodings": [
        {},
        {"scheme": "binary", "dim": 10, "positions": 200, "distance": 3, "position": 150},
        {"scheme": "learned", "seed": 5, "positions": 40, "dim": 12, "distance": 7,
         "heatmap": "cosine"},
        {"scheme": "normalized", "positions": 33, "dim": 6, "distance": 1},
        {"scheme": "naive", "positions": 20, "dim": 4, "layout": "concat"},
        {"scheme": "sinusoidal", "layout": "concat", "positions": 64, "dim": 32,
         "heatmap": "cosine"},
    ],
    "context": [
        {},
        {"preset": "deepseek-v3"},
        {"preset": "qwen2.5-7b-yarn", "seq_len": 50000},
        {"scheme": "dynamic", "seq_len": 1_000_000, "factor": 3.5, "dim": 64, "base": 1e6},
        {"scheme": "ntk", "factor": 16.0, "dim": 96},
        {"scheme": "linear", "factor": 2.5},
        {"preset": "llama-2-7b"},
        {"scheme": "yarn", "mscale": 0.707, "mscale_all_dim": 0.5, "beta_fast": 8.0},
    ],
    "precision": [
        {},
        {"angle_dtype": "float16", "position": 1_000_000, "table_dtype": "float32", "dim": 16,
         "vectors": "typed", "q0": 1.5, "q1": -0.5, "k0": 0.25, "k1": 2.0, "distance": 0,
         "shift_range": 70000},
        {"angle_dtype": "float32", "table_dtype": "bfloat16", "position": 257, "base": 500000.0,
         "seed": 7, "distance": 1000},
    ],
}  # fmt: skip
CASES = [(t, i) for t in TAB_IDS for i in range(len(PARAM_SETS.get(t, [{}])))]
VERSIONS = ("core", "plain")

RUNNER = r"""
import contextlib, io, json, sys

PLAIN = sys.argv[1] == "plain"
if PLAIN:
    sys.modules["posenc_gui"] = None  # `import posenc_gui…` raises ImportError from here on
import numpy as np
import torch

jobs = json.load(open(sys.argv[2], encoding="utf-8"))
arrays, printed = {}, {}
for key, src, names in jobs:
    ns = {"__name__": "__main__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(src, f"<snippet {key}>", "exec"), ns)
    printed[key] = out.getvalue()
    for name in names:
        arrays[f"{key}__{name}"] = torch.as_tensor(ns[name]).detach().numpy()
    if PLAIN:
        assert not [m for m in sys.modules if m.startswith("posenc_gui.")], key
np.savez(sys.argv[3], **arrays)
json.dump(printed, open(sys.argv[4], "w", encoding="utf-8"))
"""


def values_of(tab: str, index: int) -> dict[str, Value]:
    return get_model(tab).resolve(PARAM_SETS.get(tab, [{}])[index])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``{version: (arrays, printed)}`` of every case, each version run in one subprocess."""
    tmp = tmp_path_factory.mktemp("snippets")
    jobs: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {v: [] for v in VERSIONS}
    for tab, i in CASES:
        if not snippets.has_snippet(tab):
            continue
        snip = snippets.snippet(tab, values_of(tab, i))
        for version in VERSIONS:
            jobs[version].append((f"{tab}_{i}", snip.source(version == "plain"), snip.names))
    results: dict[str, Any] = {}
    for version, todo in jobs.items():
        job_file, npz, txt = (tmp / f"{version}.{ext}" for ext in ("json", "npz", "txt"))
        job_file.write_text(json.dumps(todo), encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-c", RUNNER, version, str(job_file), str(npz), str(txt)],
            capture_output=True, text=True, cwd=tmp, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, f"{version} snippets failed:\n{done.stderr[-3000:]}"
        with np.load(npz) as archive:
            arrays = {k: archive[k] for k in archive.files}
        results[version] = (arrays, json.loads(txt.read_text(encoding="utf-8")))
    return results


def outputs(runs: dict[str, Any], version: str, tab: str, i: int) -> dict[str, np.ndarray]:
    arrays = runs[version][0]
    prefix = f"{tab}_{i}__"
    return {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}


# -- what each output must equal -------------------------------------------------------------------
# A check returns {output name: (value taken from the snippet's outputs, the app's value)}.
Checks = dict[str, tuple[Any, Any]]


def _sine(v: Mapping[str, Value], r: Mapping[str, Any], o: Mapping[str, np.ndarray]) -> Checks:
    return {
        "at_cursor": (o["at_cursor"], [r["sin_value"], r["cos_value"]]),
        "omega": (o["omega"], r["omega"]),
        "pe": (o["pe"], r["vector"]),
        "ladder": (o["ladder"][int(v["position"])], r["ladder_vector"]),
        "pair_angles": (o["pair_angles"], r["pair_angles"]),
    }


def _heatmap(v: Mapping[str, Value], r: Mapping[str, Any], o: Mapping[str, np.ndarray]) -> Checks:
    step = snippets.heatmap_step(int(v["positions"]), int(v["dim"]))
    return {
        "positions": (o["positions"], np.arange(0, int(v["positions"]), step)),
        "vector": (o["vector"], r["vector"]),
        "value": (o["value"], r["value"]),
        "wavelength": (o["wavelength"], r["wavelength"]),
    }


def _rotation(v: Mapping[str, Value], r: Mapping[str, Any], o: Mapping[str, np.ndarray]) -> Checks:
    return {
        "R": (o["R"], r["matrix"]),
        "rotated": (o["rotated"], r["rotated"]),
        "M": (o["M"], r["pe_rotation_matrix"]),
        "pairs": (o["pairs"], [r["pe_pair"], r["pe_pair_shifted"]]),
        "predicted": (o["predicted"], r["pe_rotated"]),
        "R_m": (o["R_m"], r["rope_matrix"]),
    }


def _rope(v: Mapping[str, Value], r: Mapping[str, Any], o: Mapping[str, np.ndarray]) -> Checks:
    a, b = r["pair_indices"]
    m0, n0 = r["window_m_start"], r["window_n_start"]
    return {
        "q": (o["q"], r["q"]),
        "k": (o["k"], r["k"]),
        "q_rot": (o["q_rot"][[a, b]], r["q_pair_rotated"]),
        "k_rot": (o["k_rot"][[a, b]], r["k_pair_rotated"]),
        "score": (o["score"], r["score"]),
        "scores": (o["scores"][int(v["m"]) - m0, int(v["n"]) - n0], r["score"]),
        "score_curve": (o["score_curve"], r["score_by_distance"]),
        "score_qk_curve": (o["score_qk_curve"], r["score_qk_by_distance"]),
    }


def _alibi(v: Mapping[str, Value], r: Mapping[str, Any], o: Mapping[str, np.ndarray]) -> Checks:
    i = int(v["query"])
    return {
        "slopes": (o["slopes"], r["slopes"]),
        "bias": (o["bias"][i, : i + 1], -r["head_slope"] * np.arange(i, -1, -1.0)),
        "logits": (o["logits"], r["content_logits"]),
        "weights": (o["weights"], r["weights_with_bias"]),
        "weights_plain": (o["weights_plain"], r["weights_without_bias"]),
    }


def _encodings(v: Mapping[str, Value], r: Mapping[str, Any], o: Mapping[str, np.ndarray]) -> Checks:
    cos = o["cosine"]
    means = [np.mean(np.diagonal(cos, offset=k)) for k in r["cosine_offsets"]]
    return {
        "table": (o["table"][int(v["position"])], r["vector_at_position"]),
        "dots": (o["dots"], r["dot_at_distance"]),
        "cosine": (means, r["mean_cosine_at_offsets"]),
    }


def _context(v: Mapping[str, Value], r: Mapping[str, Any], o: Mapping[str, np.ndarray]) -> Checks:
    return {
        "inv_freq": (o["inv_freq"], r["inv_freq"]),
        "inv_freq_original": (o["inv_freq_original"], r["inv_freq_original"]),
        "attention_factor": (o["attention_factor"], r["attention_factor"]),
    }


def _precision(v: Mapping[str, Value], r: Mapping[str, Any], o: Mapping[str, np.ndarray]) -> Checks:
    return {
        "angle_error": (o["angle_error"], r["angle_error"]),
        "cos_error": (o["cos_error"], r["cos_error"]),
        "sin_error": (o["sin_error"], r["sin_error"]),
        "score_spread": (o["score_spread"], list(r["score_spread"].values())),
    }


#: Compared with the model's read-outs (the numbers the tab shows and ``values`` prints).
READOUT_CHECKS: dict[str, Callable[..., Checks]] = {
    "sine": _sine, "heatmap": _heatmap, "rotation": _rotation, "rope": _rope, "alibi": _alibi,
    "encodings": _encodings, "context": _context, "precision": _precision,
}  # fmt: skip


def _heatmap_image(data: Any, o: Mapping[str, np.ndarray]) -> Checks:
    image = data["image"]
    first, last, j0, j1 = (
        np.asarray(image[k].values, dtype=int) for k in ("first", "last", "dim_first", "dim_last")
    )
    pe = o["pe"]
    means = np.array(
        [
            [pe[a : b + 1, c : d + 1].mean() for c, d in zip(j0, j1, strict=True)]
            for a, b in zip(first, last, strict=True)
        ]
    )
    return {"pe": (means, image["values"].values)}


def _encodings_panel(data: Any, o: Mapping[str, np.ndarray]) -> Checks:
    """The heatmap shows the table or the cosine matrix (the ``heatmap`` choice)."""
    shown = {n: s.values for n, s in data["heatmap"].items() if n in ("table", "cosine")}
    assert shown, "the heatmap shows neither the table nor the cosine matrix"
    checks = {name: (o[name], values) for name, values in shown.items()}
    checks["dots"] = (o["dots"], data["dots"]["dot_at_distance"].values)
    return checks


def _rope_panel(data: Any, o: Mapping[str, np.ndarray]) -> Checks:
    """The score matrix, and the score curves where the plot shows one value per distance."""
    checks: Checks = {"scores": (o["scores"], data["matrix"]["matrix"].values)}
    curves = data["curves"]
    if int(curves["distances_per_column"].values) == 1:
        r = np.asarray(curves["distance"].values, dtype=int)
        at = r + (len(o["score_curve"]) - 1) // 2
        checks["score_curve"] = (o["score_curve"][at], curves["score_max"].values)
        checks["score_qk_curve"] = (o["score_qk_curve"][at], curves["score_qk_max"].values)
    return checks


#: Compared with the arrays the panel shows: ``{tab: (outputs covered, check)}``.
PanelCheck = Callable[[Any, Mapping[str, np.ndarray]], Checks]
PANEL_CHECKS: dict[str, tuple[tuple[str, ...], PanelCheck]] = {
    "sine": (("t", "wave"), lambda d, o: {
        "t": (o["t"], d["wave"]["t"].values),
        "wave": (o["wave"], [d["wave"]["sin"].values, d["wave"]["cos"].values]),
    }),
    "heatmap": (("pe",), _heatmap_image),
    "rotation": (("R", "R_m"), lambda d, o: {
        "R": (o["R"], d["matrix"]["matrix"].values),
        "R_m": (o["R_m"], d["rope_heatmap"]["rope_matrix"].values),
    }),
    "rope": (("scores",), lambda d, o: _rope_panel(d, o)),
    "alibi": (("bias",), lambda d, o: {
        "bias": (np.where(np.isinf(o["bias"]), 0.0, o["bias"]), d["heatmap"]["bias"].values),
        "mask": (np.isinf(o["bias"]), d["heatmap"]["mask"].values),
    }),
    "encodings": (("table", "cosine"), lambda d, o: _encodings_panel(d, o)),
    "context": (("inv_freq", "inv_freq_original"), lambda d, o: {
        "inv_freq": (2 * np.pi / o["inv_freq"], d["wavelengths"]["wavelength"].values),
        "inv_freq_original": (
            2 * np.pi / o["inv_freq_original"], d["wavelengths"]["wavelength_original"].values
        ),
    }),
    "precision": (("cos_error",), lambda d, o: {
        "cos_error": (np.nan_to_num(np.abs(o["cos_error"]), nan=0.0),
                      d["readout"]["error_at_m"].values),
    }),
}  # fmt: skip
#: float32 sources (the app's naive/normalized/learned tables, images) are 1e-7 relative.
RTOL = {"encodings": 1e-6}


def _close(tab: str, what: str, actual: Any, expected: Any, rtol: float) -> None:
    a = np.asarray(actual, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    assert a.shape == e.shape, f"{tab}.{what}: shape {a.shape}, app {e.shape}"
    finite = e[np.isfinite(e)]
    scale = float(np.abs(finite).max()) if finite.size else 1.0
    np.testing.assert_allclose(
        a, e, rtol=rtol, atol=rtol * max(scale, 1.0), err_msg=f"{tab}.{what}"
    )


# -- every tab, present and future -----------------------------------------------------------------
@pytest.mark.parametrize("tab", TAB_IDS)
def test_every_tab_has_a_snippet_and_an_about_text(tab: str) -> None:
    assert snippets.has_snippet(tab), f"tab {tab!r}: add a builder to snippets.BUILDERS"
    assert tab in ABOUT, f"tab {tab!r}: add its text to about.ABOUT"
    snip = snippets.snippet(tab)
    for version in VERSIONS:
        src = snip.source(version == "plain")
        compile(src, f"<{tab} {version}>", "exec")
        assert len(src.splitlines()) <= 40, f"{tab} {version}: keep the snippet short"
        for name in snip.names:  # documented in the header, bound in the code
            assert re.search(rf"^#\s+{re.escape(name)}\s", src, re.M), (tab, version, name)
            assert re.search(rf"\b{re.escape(name)}\b[^\n]*=", src), (tab, version, name)
    assert "posenc_gui" not in snip.plain.replace("no posenc_gui", "")
    assert "from posenc_gui import core" in snip.core
    # every output is compared with the app's numbers by one of the checks below
    assert tab in READOUT_CHECKS and tab in PANEL_CHECKS and tab in PARAM_SETS
    text = about(tab)
    assert text.shows and text.formulas and text.papers
    for paper in text.papers:
        assert re.fullmatch(r"\d{4}\.\d{5}", paper.arxiv) and 2000 < paper.year < 2100
    assert get_model(tab).title in about_text(tab)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("tab", "index"), CASES)
def test_snippet_gives_the_numbers_the_tab_shows(
    runs: dict[str, Any], tab: str, index: int, version: str
) -> None:
    values = values_of(tab, index)
    o = outputs(runs, version, tab, index)
    snip = snippets.snippet(tab, values)
    assert set(o) == set(snip.names)
    assert runs[version][1][f"{tab}_{index}"].strip(), "the snippet prints a summary"
    checks = READOUT_CHECKS[tab](values, get_model(tab).readouts(values), o)
    for name, (actual, expected) in checks.items():
        _close(tab, name, actual, expected, RTOL.get(tab, 1e-9))
    covered = set(checks) | set(PANEL_CHECKS[tab][0])
    assert covered >= set(snip.names), f"{tab}: outputs never compared: {set(snip.names) - covered}"


@pytest.mark.parametrize("tab", TAB_IDS)
def test_snippet_gives_the_arrays_the_panel_draws(
    runs: dict[str, Any], tab: str, qtbot: Any
) -> None:
    """One panel per tab (as in the window), taken through every parameter set."""
    from posenc_gui.panels import get_panel
    from posenc_gui.state import ParamState

    cls = get_panel(tab)
    panel = cls(ParamState(cls.model))
    qtbot.addWidget(panel)
    panel.resize(1600, 1000)
    panel.show()
    for index in range(len(PARAM_SETS[tab])):
        panel.state.update(values_of(tab, index))
        data = panel.data()
        for version in VERSIONS:
            o = outputs(runs, version, tab, index)
            for name, (actual, expected) in PANEL_CHECKS[tab][1](data, o).items():
                _close(tab, f"{version} {index}: panel {name}", actual, expected, 2e-6)


def test_values_are_written_as_exact_literals() -> None:
    values = values_of("sine", 1)
    snip = snippets.snippet("sine", values)
    for name in ("frequency", "phase", "base"):
        assert repr(values[name]) in snip.core and repr(values[name]) in snip.plain
    assert "0.3333333333333333" in snip.core


def test_unknown_tab_and_bad_values_are_refused() -> None:
    from posenc_gui.state.params import ParamError

    with pytest.raises(ParamError, match="unknown tab"):
        snippets.snippet("nope")
    with pytest.raises(ParamError, match="dim must be an even integer"):
        snippets.snippet("rope", {"dim": 7})


def test_a_huge_heatmap_takes_every_step_th_position() -> None:
    step = snippets.heatmap_step(1_000_000, 4096)
    assert step > 1 and (1_000_000 // step + 1) * 4096 <= snippets.MAX_TABLE_ENTRIES * 1.01
    src = snippets.snippet("heatmap", {"positions": 1_000_000, "dim": 4096}).plain
    assert f"torch.arange(0, L, {step}" in src


def test_the_plain_run_cannot_import_posenc_gui(tmp_path: Path) -> None:
    """The plain run really cannot import posenc_gui (the guard the fixture relies on)."""
    code = "import sys; sys.modules['posenc_gui'] = None\nfrom posenc_gui import core"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path)  # fmt: skip
    assert done.returncode != 0 and "import of posenc_gui halted" in done.stderr
