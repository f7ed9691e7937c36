"""PE heatmap model: readouts against closed forms, limits, the partial-table helpers, CLI."""

from __future__ import annotations

import json
import math

import pytest

from posenc_gui import cli, core
from posenc_gui.state import ParamError
from posenc_gui.state.heatmap import PRESETS, HeatmapModel, column_role


def _hand_vector(p: float, d: int, base: float, layout: str) -> list[float]:
    """PE[p] written out with math.sin/cos from the paper's formula."""
    sins = [math.sin(p * base ** (-2 * i / d)) for i in range(d // 2)]
    coss = [math.cos(p * base ** (-2 * i / d)) for i in range(d // 2)]
    if layout == "concat":
        return sins + coss
    return [v for pair in zip(sins, coss, strict=True) for v in pair]


@pytest.mark.parametrize("layout", ["interleaved", "concat"])
@pytest.mark.parametrize(
    ("p", "d", "base"), [(7, 10, 100.0), (37, 128, 10000.0), (999_999, 64, 10000.0)]
)
def test_vector_is_the_hand_formula(layout: str, p: int, d: int, base: float) -> None:
    values = HeatmapModel.resolve(
        {"positions": 1_000_000, "dim": d, "base": base, "layout": layout, "position": p}
    )
    r = HeatmapModel.readouts(values)
    vec = r["vector"]
    assert len(vec) == d
    # float64 angles: even at p ~ 1e6 the entries agree with math to ~1e-9
    assert vec == pytest.approx(_hand_vector(p, d, base, layout), abs=1e-9)
    # each pair lies on the unit circle: |PE[p]|² = d/2
    assert r["vector_norm_sq"] == pytest.approx(d / 2, rel=1e-12)
    assert sum(v * v for v in vec) == pytest.approx(d / 2, rel=1e-12)


@pytest.mark.parametrize(
    ("layout", "j", "pair", "fn", "partner"),
    [
        ("interleaved", 12, 6, "sin", 13),
        ("interleaved", 13, 6, "cos", 12),
        ("concat", 6, 6, "sin", 70),
        ("concat", 70, 6, "cos", 6),
    ],
)
def test_selected_cell_readouts(layout: str, j: int, pair: int, fn: str, partner: int) -> None:
    p, d, base = 37, 128, 10000.0
    values = HeatmapModel.resolve({"dim": d, "layout": layout, "position": p, "dimension": j})
    r = HeatmapModel.readouts(values)
    omega = base ** (-2 * pair / d)
    assert (r["pair"], r["function"], r["partner"]) == (pair, fn, partner)
    assert r["exponent"] == 2 * pair
    assert r["omega"] == pytest.approx(omega, rel=1e-12)
    assert r["frequency"] == pytest.approx(omega / (2 * math.pi), rel=1e-12)
    assert r["selected_wavelength"] == pytest.approx(2 * math.pi / omega, rel=1e-12)
    assert r["angle"] == pytest.approx(p * omega, rel=1e-12)
    f, g = (math.sin, math.cos) if fn == "sin" else (math.cos, math.sin)
    assert r["value"] == pytest.approx(f(p * omega), abs=1e-12)
    assert r["partner_value"] == pytest.approx(g(p * omega), abs=1e-12)
    # the same numbers as the vector
    assert r["vector"][j] == pytest.approx(r["value"], abs=1e-15)
    assert r["vector"][partner] == pytest.approx(r["partner_value"], abs=1e-15)
    # sin² + cos² = 1 for a pair
    assert r["value"] ** 2 + r["partner_value"] ** 2 == pytest.approx(1.0)
    assert r["turns"] == pytest.approx(99 * omega / (2 * math.pi))


def test_column_roles_are_a_pairing() -> None:
    for layout in ("interleaved", "concat"):
        seen = set()
        for j in range(16):
            pair, is_sin, partner = column_role(16, layout, j)
            back = column_role(16, layout, partner)
            assert back[0] == pair and back[1] != is_sin and back[2] == j
            seen.add((pair, is_sin))
        assert len(seen) == 16  # every (pair, sin/cos) exactly once


@pytest.mark.parametrize(
    ("positions", "d", "base"),
    [
        (100, 128, 10000.0),
        (30, 128, 10000.0),
        (1_000_000, 4096, 10000.0),
        (5000, 64, 1e7),
        (1, 8, 10.0),
    ],
)
def test_full_turn_pairs_closed_form(positions: int, d: int, base: float) -> None:
    values = HeatmapModel.resolve({"positions": positions, "dim": d, "base": base})
    r = HeatmapModel.readouts(values)
    lam = [2 * math.pi * base ** (2 * i / d) for i in range(d // 2)]
    assert r["wavelength"] == pytest.approx(lam, rel=1e-12)
    # pair i turns fully over positions 0…L-1 iff (L-1)·ω_i ≥ 2π ⇔ i ≤ d/2·log((L-1)/2π)/log(base)
    span = positions - 1
    if span > 0:
        bound = d / 2 * math.log(span / (2 * math.pi)) / math.log(base)
        expected = min(max(math.floor(bound) + 1, 0), d // 2)
    else:
        expected = 0
    assert r["full_turn_pairs"] == expected
    assert r["never_turn_pairs"] == d // 2 - expected
    assert r["span"] == span and r["pairs"] == d // 2


def test_default_and_large_case_turn_counts() -> None:
    # d = 128, L = 100: λ_i ≤ 99 ⇔ i ≤ 64·log(99/2π)/log(1e4) = 19.1 → pairs 0…19
    r = HeatmapModel.readouts(HeatmapModel.defaults())
    assert r["full_turn_pairs"] == 20
    # all of d = 4096 at one million positions: the longest λ = 2π·1e4^(4094/4096) ≈ 62 800
    big = HeatmapModel.resolve({"positions": 1_000_000, "dim": 4096})
    assert HeatmapModel.readouts(big)["full_turn_pairs"] == 2048


def test_limits_clamp_dependents() -> None:
    v = HeatmapModel.resolve({"positions": 1000, "position": 900, "dim": 256, "dimension": 200})
    v2 = HeatmapModel.resolve({"positions": 30}, v)
    assert v2["position"] == 29
    v3 = HeatmapModel.resolve({"shown_dims": 6}, v)
    assert v3["dimension"] == 5  # the selected column stays among the shown ones
    v4 = HeatmapModel.resolve({"dim": 16, "shown_dims": 10}, v)
    v5 = HeatmapModel.resolve({"dim": 8}, v4)
    assert v5["shown_dims"] == 8 and v5["dimension"] <= 7
    with pytest.raises(ParamError, match="dimension must be an integer from 0 to 5"):
        HeatmapModel.resolve({"shown_dims": 6, "dimension": 6})
    with pytest.raises(ParamError, match="dim must be an even integer"):
        HeatmapModel.resolve({"dim": 7})


def test_presets_are_the_seed_figures() -> None:
    explainer = HeatmapModel.resolve(PRESETS["explainer"])
    assert (explainer["positions"], explainer["dim"], explainer["shown_dims"]) == (30, 128, 6)
    assert HeatmapModel.readouts(explainer)["shown"] == 6
    notebook = HeatmapModel.resolve(PRESETS["notebook"])
    assert (notebook["positions"], notebook["dim"], notebook["base"]) == (100, 512, 10000.0)
    assert HeatmapModel.readouts(notebook)["shown"] == 512
    # the notebook's table: PositionalEncoding(512) rows for a batch of length 100
    pe = core.PositionalEncoding(512).pe[:100].double()
    r = HeatmapModel.readouts(HeatmapModel.resolve({"position": 42}, notebook))
    assert r["vector"] == pytest.approx(pe[42].tolist(), abs=1e-6)


READOUT_KEYS = {
    "shown", "pairs", "span", "pair", "function", "partner", "partner_function", "exponent",
    "omega", "frequency", "selected_wavelength", "angle", "turns", "value", "partner_value",
    "vector", "vector_norm_sq", "wavelength", "full_turn_pairs", "never_turn_pairs",
}  # fmt: skip


def test_readout_keys_and_groups() -> None:
    values = HeatmapModel.defaults()
    r = HeatmapModel.readouts(values)
    assert set(r) == READOUT_KEYS
    names = [g.name for g in HeatmapModel.groups]
    assert names == ["shown", "column", "cell", "vector", "spectrum", "turns"]
    # each key comes from exactly one group
    seen: list[str] = []
    for g in HeatmapModel.groups:
        seen += list(g(values))
    assert sorted(seen) == sorted(READOUT_KEYS)
    # honest inputs: the position moves only cell and vector; positions only spectrum/turns
    by_param = {
        p.name: {g.name for g in HeatmapModel.groups if p.name in g.inputs}
        for p in HeatmapModel.params
    }
    assert by_param["position"] == {"cell", "vector"}
    assert by_param["positions"] == {"spectrum", "turns"}
    assert by_param["shown_dims"] == {"shown"}
    assert by_param["dimension"] == {"column", "cell", "turns"}


@pytest.mark.parametrize("layout", ["interleaved", "concat"])
def test_groups_read_only_their_inputs(layout: str) -> None:
    """A group computed from its declared inputs alone gives the same numbers."""
    values = HeatmapModel.resolve(
        {"positions": 5000, "dim": 64, "layout": layout, "position": 4321, "dimension": 33}
    )
    full = HeatmapModel.readouts(values)
    for g in HeatmapModel.groups:
        only = {k: values[k] for k in g.inputs}
        assert g(only) == {k: full[k] for k in g(values)}


def test_model_cell_matches_the_vector() -> None:
    values = HeatmapModel.resolve({"positions": 1_000_000, "dim": 96, "position": 999_999})
    vec = HeatmapModel.readouts(values)["vector"]
    for j in (0, 1, 47, 95):
        c = HeatmapModel.cell(values, 999_999, j)
        assert c["value"] == pytest.approx(vec[j], abs=1e-12)


def test_cli_values(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["values", "--tab", "heatmap", "--set", "dim=8", "--set", "layout=concat",
            "--set", "position=3", "--set", "dimension=5"]  # fmt: skip
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tab"] == "heatmap" and out["params"]["layout"] == "concat"
    assert out["vector"] == pytest.approx(_hand_vector(3, 8, 10000.0, "concat"), abs=1e-12)
    # column 5 of concat d = 8 is cos of pair 1
    assert (out["pair"], out["function"], out["partner"]) == (1, "cos", 1)
    assert out["value"] == pytest.approx(math.cos(3 * 10000.0 ** (-2 / 8)))


@pytest.mark.parametrize(
    ("assignment", "name"),
    [("dim=7", "dim"), ("positions=0", "positions"), ("positions=2000000", "positions"),
     ("layout=diagonal", "layout"), ("base=5", "base"), ("dimension=-1", "dimension"),
     ("shown_dims=5000", "shown_dims")],
)  # fmt: skip
def test_cli_bad_input_exits_2(
    assignment: str, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["values", "--tab", "heatmap", "--set", assignment]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and name in lines[0]
