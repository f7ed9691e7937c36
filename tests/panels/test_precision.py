"""The precision tab: its errors against an independent computation written here (numpy float64
for the reference, torch only for the casts to the low dtypes), the command line, the panel."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
from pytestqt.qtbot import QtBot

from posenc_gui.cli import main
from posenc_gui.panels import get_panel
from posenc_gui.state import ParamState
from posenc_gui.state.precision import PrecisionModel

POSITIONS = (0, 255, 256, 257, 10_000, 1_000_000)
DTYPES = ("float64", "float32", "bfloat16", "float16")
TORCH = {"float64": torch.float64, "float32": torch.float32, "bfloat16": torch.bfloat16,
         "float16": torch.float16}  # fmt: skip


def reference(position: int, dim: int, base: float, t: str, table: str) -> dict[str, np.ndarray]:
    """The errors written out: θ_i in numpy float64, the position and θ_i cast to t by torch,
    their product and cos/sin in t, cos/sin cast to the table dtype; against numpy float64."""
    inv = 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    exact = position * inv
    pos_t = torch.tensor(float(position), dtype=torch.float64).to(TORCH[t])
    angle_t = pos_t * torch.from_numpy(inv).to(TORCH[t])
    cos_t = torch.cos(angle_t).to(TORCH[table]).to(torch.float64).numpy()
    sin_t = torch.sin(angle_t).to(TORCH[table]).to(torch.float64).numpy()
    diff = angle_t.to(torch.float64).numpy() - exact
    ok = np.isfinite(diff)
    wrapped = np.full_like(diff, np.nan)
    wrapped[ok] = -np.angle(np.exp(-1j * diff[ok]))  # in (−π, π]
    return {"angle": wrapped, "cos": cos_t - np.cos(exact), "sin": sin_t - np.sin(exact)}


def _close(got: object, want: np.ndarray, what: str) -> None:
    g = np.array([math.nan if x is None else x for x in got], dtype=np.float64)  # type: ignore[attr-defined]
    np.testing.assert_allclose(g, want, rtol=0, atol=1e-9, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("t", DTYPES)
@pytest.mark.parametrize("table", ["same", "float32", "bfloat16"])
def test_errors_match_an_independent_computation(position: int, t: str, table: str) -> None:
    values = PrecisionModel.resolve({"position": position, "angle_dtype": t,
                                     "table_dtype": table, "dim": 64, "base": 10000.0})  # fmt: skip
    r = PrecisionModel.readouts(values)
    want = reference(position, 64, 10000.0, t, t if table == "same" else table)
    for q in ("angle", "cos", "sin"):
        _close(r[f"{q}_error"], want[q], f"{q} error, {t}, table {table}, m = {position}")
    if t == "float16" and position > 65504:
        assert np.isnan(want["angle"]).all()  # float16 holds no such position


def test_float64_has_no_error_anywhere() -> None:
    for position in (*POSITIONS, 10_000_000):
        r = PrecisionModel.readouts(
            PrecisionModel.resolve({"position": position, "angle_dtype": "float64"})
        )
        for q in ("angle", "cos", "sin"):
            assert all(x == 0.0 for x in r[f"{q}_error"]), (position, q)


def test_the_positions_a_dtype_holds() -> None:
    r = PrecisionModel.readouts(PrecisionModel.resolve({"position": 257}))
    assert r["exact_integer_limit"] == {"float64": 2**53, "float32": 2**24, "bfloat16": 256,
                                        "float16": 2048}  # fmt: skip
    assert r["position_in"]["bfloat16"] == 256.0 and r["position_in"]["float16"] == 257.0
    r = PrecisionModel.readouts(PrecisionModel.resolve({"position": 1_000_000}))
    assert r["position_in"]["bfloat16"] == 999_424.0 and r["position_in"]["float16"] is None
    assert r["position_in"]["float32"] == 1_000_000.0


def test_cast_after_float32_keeps_what_the_low_angle_loses() -> None:
    r = PrecisionModel.readouts(PrecisionModel.resolve({"position": 1_000_000, "dim": 128}))
    # two float32 roundings (θ_i, then m·θ_i ≤ 10⁶) put the angle off by at most
    # 2·2⁻²⁴·10⁶ ≈ 0.12 rad (float32's spacing at 10⁶ is 0.0625), cos/sin by as much, plus
    # their rounding to bfloat16 (at most 2⁻⁹ for values in [−1, 1])
    assert r["cast_after_float32"]["bfloat16"] <= 2 * 2**-24 * 1e6 + 2**-9
    assert r["angle_in_low"]["bfloat16"] > 0.5  # the bfloat16 angle is off by radians
    assert math.isnan(r["angle_in_low"]["float16"])  # overflow


def test_values_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["values", "--tab", "precision", "--no-series", "--set", "angle_dtype=bfloat16",
            "--set", "position=1000000"]  # fmt: skip
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    d, base = out["params"]["dim"], out["params"]["base"]
    want = reference(1_000_000, d, base, "bfloat16", "bfloat16")
    for q in ("angle", "cos", "sin"):
        assert len(out[f"{q}_error"]) == d // 2
        _close(out[f"{q}_error"], want[q], q)
    assert max(abs(x) for x in out["angle_error"]) > 1.0  # bfloat16 loses the angle at 10⁶
    assert out["exact_integer_limit"]["bfloat16"] == 256
    spread = out["score_spread"]
    assert spread["float64"] < 1e-8 < spread["float32"] < spread["bfloat16"]
    # float16 overflows: null with its reason, never NaN
    assert main([*args[:4], "--set", "angle_dtype=float16", "--set", "position=1000000"]) == 0
    text = capsys.readouterr().out
    out = json.loads(text)
    assert "NaN" not in text and out["angle_error"][0] is None
    assert "65 504" in out["angle_error_undefined"]


def test_the_panel_draws_the_models_numbers(qtbot: QtBot) -> None:
    cls = get_panel("precision")
    panel = cls(ParamState(cls.model))
    qtbot.addWidget(panel)
    panel.resize(1400, 900)
    panel.refresh_now()
    for settings in ({"position": 1_000_000, "quantity": "angle"},
                     {"position": 257, "quantity": "sin", "table_dtype": "float32"}):  # fmt: skip
        panel.state.update(settings)
        panel.refresh_now()
        v = panel.state.values()
        data = panel.data()
        for t in ("float32", "bfloat16", "float16"):
            want = np.abs(reference(int(v["position"]), int(v["dim"]), float(v["base"]), t,
                                    t if v["table_dtype"] == "same" else str(v["table_dtype"]))
                          [str(v["quantity"])])  # fmt: skip
            np.testing.assert_allclose(data["pairs"][f"error_{t}"].values,
                                       np.nan_to_num(want, nan=0.0), atol=1e-9)  # fmt: skip
        r = panel.readouts()
        spread = [max(s) - min(s) for s in (
            [x for x in data["score"][f"score_{t}"].values if x != 0.0] for t in ("float64",)
        )]  # fmt: skip
        assert spread[0] == pytest.approx(r["score_spread"]["float64"], abs=1e-12)
        title = panel.pair_plot.posenc_title
        assert str(v["quantity"]) in title and "bfloat16" in title
