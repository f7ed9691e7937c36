"""Sine explorer model: the ladder's read-outs against closed forms (no Qt)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from posenc_gui.cli import main
from posenc_gui.state.sine import SineModel


@pytest.mark.parametrize(
    "given",
    [{}, {"dim": 64, "base": 500.0, "length": 300, "position": 271, "ladder_dims": 8},
     {"dim": 2, "position": 0, "ladder_dims": 2}, {"dim": 1024, "length": 10000, "position": 9999}],
)  # fmt: skip
def test_pair_angles_are_p_times_omega_and_give_the_vector(given: dict[str, Any]) -> None:
    """``pair_angles[i] = p·ω_i = p·base^(−2i/d)`` for every pair, and PE[p, 2i] is its sine,
    PE[p, 2i+1] its cosine."""
    v = SineModel.resolve(given)
    r = SineModel.readouts(v)
    p, d, base = int(v["position"]), int(v["dim"]), float(v["base"])
    angles = r["pair_angles"]
    assert len(angles) == d // 2
    for i, angle in enumerate(angles):
        assert angle == pytest.approx(p * base ** (-2 * i / d), rel=1e-14, abs=0.0)
        assert angle == pytest.approx(p * r["omega"][i], rel=1e-15, abs=0.0)
        assert r["vector"][2 * i] == pytest.approx(math.sin(angle), abs=1e-12)
        assert r["vector"][2 * i + 1] == pytest.approx(math.cos(angle), abs=1e-12)


def test_values_prints_the_pair_angles(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["values", "--tab", "sine", "--set", "position=7", "--set", "dim=8"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["pair_angles"] == pytest.approx([7 * 10000.0 ** (-2 * i / 8) for i in range(4)])
