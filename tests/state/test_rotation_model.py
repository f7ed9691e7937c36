"""Rotation tab model: readouts checked against closed forms and identities; CLI ``values``.

No Qt here. The expected values are written from the mathematics (math.cos/sin, the angle
addition formulas), never copied from the model's own output.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from posenc_gui import cli
from posenc_gui.state import ParamError, ParamState
from posenc_gui.state.rotation import MODEL

TIGHT = 1e-12


def readouts(**given: Any) -> dict[str, Any]:
    return MODEL.readouts(MODEL.resolve(given))


def standard_rotation(a: float) -> np.ndarray:
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


# -- 2-D rotation ---------------------------------------------------------------------------
@pytest.mark.parametrize("deg", [0.0, 30.0, 60.0, 90.0, -45.0, 135.5, 270.0, -360.0, 359.9])
def test_matrix_entries_are_cos_and_sin_of_the_angle(deg: float) -> None:
    r = readouts(angle=deg)
    theta = deg * math.pi / 180.0
    assert r["radians"] == pytest.approx(theta, abs=TIGHT)
    np.testing.assert_allclose(r["matrix"], standard_rotation(theta), atol=TIGHT)


@pytest.mark.parametrize(
    ("deg", "x", "y"),
    [(60.0, 1.5, 0.5), (90.0, 1.0, 0.0), (-120.0, -2.0, 1.25), (200.0, 0.3, -1.7)],
)
def test_rotated_vector_matches_the_closed_form(deg: float, x: float, y: float) -> None:
    r = readouts(angle=deg, x=x, y=y)
    t = math.radians(deg)
    expected = [x * math.cos(t) - y * math.sin(t), x * math.sin(t) + y * math.cos(t)]
    np.testing.assert_allclose(r["rotated"], expected, atol=TIGHT)
    # |Rv| = |v| and the measured turn from v to Rv is θ (mod 360°).
    assert r["norm_v"] == pytest.approx(math.hypot(x, y), abs=TIGHT)
    assert r["norm_rotated"] == pytest.approx(math.hypot(x, y), abs=TIGHT)
    assert r["norm_residual"] < TIGHT
    turn = (r["measured_angle_degrees"] - deg) % 360.0
    assert min(turn, 360.0 - turn) < 1e-9


def test_special_angles() -> None:
    r = readouts(angle=90.0, x=1.0, y=0.5)
    np.testing.assert_allclose(r["matrix"], [[0.0, -1.0], [1.0, 0.0]], atol=TIGHT)
    np.testing.assert_allclose(r["rotated"], [-0.5, 1.0], atol=TIGHT)
    r = readouts(angle=180.0, x=1.0, y=0.5)
    np.testing.assert_allclose(r["rotated"], [-1.0, -0.5], atol=TIGHT)


@pytest.mark.parametrize("deg", [0.0, 37.0, -200.0, 360.0])
def test_det_is_one_and_matrix_is_orthogonal(deg: float) -> None:
    r = readouts(angle=deg)
    assert r["det"] == pytest.approx(1.0, abs=TIGHT)
    assert r["det_residual"] < TIGHT
    mat = np.array(r["matrix"])
    np.testing.assert_allclose(mat.T @ mat, np.eye(2), atol=TIGHT)
    np.testing.assert_allclose(r["gram"], np.eye(2), atol=TIGHT)
    assert r["orthogonality_residual"] < TIGHT


@pytest.mark.parametrize(("a", "b"), [(60.0, 30.0), (-90.0, 45.0), (300.0, 300.0), (0.0, -17.5)])
def test_composition_is_rotation_by_the_sum(a: float, b: float) -> None:
    r = readouts(angle=a, angle2=b)
    total = math.radians(a + b)
    np.testing.assert_allclose(r["composition_matrix"], standard_rotation(total), atol=TIGHT)
    np.testing.assert_allclose(r["sum_matrix"], standard_rotation(total), atol=TIGHT)
    np.testing.assert_allclose(r["matrix2"], standard_rotation(math.radians(b)), atol=TIGHT)
    assert r["angle_sum_degrees"] == pytest.approx(a + b)
    assert r["composition_residual"] < TIGHT
    v = np.array([r["vector"]]).T
    np.testing.assert_allclose(
        r["composed_vector"], (standard_rotation(total) @ v).ravel(), atol=TIGHT
    )


@pytest.mark.parametrize("deg", [25.0, -170.0])
def test_inverse_is_rotation_by_minus_theta_and_the_transpose(deg: float) -> None:
    r = readouts(angle=deg)
    t = math.radians(deg)
    np.testing.assert_allclose(
        r["inverse_matrix"], [[math.cos(t), math.sin(t)], [-math.sin(t), math.cos(t)]], atol=TIGHT
    )
    np.testing.assert_allclose(r["inverse_product"], np.eye(2), atol=TIGHT)
    assert r["inverse_residual"] < TIGHT
    assert r["transpose_residual"] < TIGHT


# -- sinusoidal PE pair as a rotation ------------------------------------------------------
PE_CASES = [
    (128, 10000.0, 1, 3, 40, 2),
    (128, 10000.0, 0, 0, 7, 1),
    (512, 10000.0, 10, 137, 5000, 250),
    (64, 500.0, 31, 9999, 1, -1000),
    (1024, 1e7, 511, 10000, 2, 1000),
    (2, 10.0, 0, 42, 43, -7),
]


@pytest.mark.parametrize(("dim", "base", "i", "p", "p2", "k"), PE_CASES)
def test_pe_shift_is_a_rotation_that_depends_on_k_only(
    dim: int, base: float, i: int, p: int, p2: int, k: int
) -> None:
    r = readouts(dim=dim, base=base, pair=i, position=p, position2=p2, offset=k)
    w = base ** (-2.0 * i / dim)
    assert r["omega"] == pytest.approx(w, rel=1e-12)
    pair = lambda q: np.array([math.sin(q * w), math.cos(q * w)])  # noqa: E731 (sin, cos)
    np.testing.assert_allclose(r["pe_pair"], pair(p), atol=1e-12)
    np.testing.assert_allclose(r["pe_pair_shifted"], pair(p + k), atol=1e-12)
    np.testing.assert_allclose(r["pe_pair2"], pair(p2), atol=1e-12)
    np.testing.assert_allclose(r["pe_pair2_shifted"], pair(p2 + k), atol=1e-12)
    # Derived from the addition formulas: on (sin, cos) columns the shift is
    # [[cos kω, sin kω], [−sin kω, cos kω]], which is the standard R(−kω).
    kw = k * w
    m = np.array([[math.cos(kw), math.sin(kw)], [-math.sin(kw), math.cos(kw)]])
    np.testing.assert_allclose(r["pe_rotation_matrix"], m, atol=1e-12)
    np.testing.assert_allclose(r["pe_rotation_matrix"], standard_rotation(-kw), atol=1e-12)
    # The same matrix maps both positions onto their partners k later.
    np.testing.assert_allclose(m @ pair(p), pair(p + k), atol=1e-9)
    np.testing.assert_allclose(m @ pair(p2), pair(p2 + k), atol=1e-9)
    np.testing.assert_allclose(r["pe_rotated"], pair(p + k), atol=1e-9)
    np.testing.assert_allclose(r["pe_rotated2"], pair(p2 + k), atol=1e-9)
    for key in ("pe_residual", "pe_residual2", "pe_residual_all_pairs"):
        assert r[key] < 1e-9, key
    # Swapped to (cos, sin) the shift is the standard counter-clockwise R(+kω).
    swap = np.array([[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_allclose(r["pe_rotation_matrix_cos_sin"], standard_rotation(kw), atol=1e-12)
    np.testing.assert_allclose(
        np.array(r["pe_rotation_matrix_cos_sin"]) @ (swap @ pair(p)), swap @ pair(p + k), atol=1e-9
    )
    # Using R(+kω) on (sin, cos) misses by ‖(R(kω) − R(−kω)) s‖ = 2|sin kω|.
    assert r["pe_wrong_sign_residual"] == pytest.approx(2 * abs(math.sin(kw)), abs=1e-9)
    assert r["pe_angle"] == pytest.approx(kw, rel=1e-12, abs=1e-15)
    assert r["pe_positions"] == [p, p + k, p2, p2 + k]


def test_pe_matrix_does_not_depend_on_the_position() -> None:
    a = readouts(position=3, offset=5, pair=4)
    b = readouts(position=9000, offset=5, pair=4)
    np.testing.assert_allclose(a["pe_rotation_matrix"], b["pe_rotation_matrix"], atol=0)
    c = readouts(position=3, offset=6, pair=4)
    assert not np.allclose(a["pe_rotation_matrix"], c["pe_rotation_matrix"])


# -- RoPE block matrix ---------------------------------------------------------------------
def closed_form_rope(m: float, d: int, base: float, layout: str) -> np.ndarray:
    out = np.zeros((d, d))
    for i in range(d // 2):
        a = m * base ** (-2.0 * i / d)
        r0, r1 = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + d // 2)
        out[r0, r0], out[r0, r1] = math.cos(a), -math.sin(a)
        out[r1, r0], out[r1, r1] = math.sin(a), math.cos(a)
    return out


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize(("m", "n", "d", "base"), [(3, 5, 8, 10000.0), (10000, 17, 64, 500.0)])
def test_rope_matrix_and_relative_identity(
    layout: str, m: int, n: int, d: int, base: float
) -> None:
    r = readouts(m=m, n=n, block_dim=d, base=base, layout=layout)
    rm = np.array(r["rope_matrix"])
    np.testing.assert_allclose(rm, closed_form_rope(m, d, base, layout), atol=1e-9)
    rn = closed_form_rope(n, d, base, layout)
    np.testing.assert_allclose(rm.T @ rn, closed_form_rope(n - m, d, base, layout), atol=1e-9)
    assert r["rope_relative_residual"] < 1e-12
    assert r["rope_orthogonality_residual"] < 1e-12
    assert r["rope_offset"] == n - m
    np.testing.assert_allclose(
        r["rope_angles"], [m * base ** (-2.0 * i / d) for i in range(d // 2)], rtol=1e-12
    )


# -- parameters and limits -------------------------------------------------------------------
def test_pair_is_limited_by_dim() -> None:
    state = ParamState(MODEL, {"dim": 128, "pair": 63})
    state.set("dim", 8)
    assert state.get("pair") == 3  # clamped into 0 … d/2 − 1
    with pytest.raises(ParamError, match="pair"):
        state.set("pair", 4)
    assert state.get("pair") == 3
    with pytest.raises(ParamError, match="dim"):
        state.set("dim", 7)
    with pytest.raises(ParamError, match="angle"):
        state.set("angle", 361.0)
    with pytest.raises(ParamError, match="layout"):
        state.set("layout", "diagonal")


def test_state_module_imports_neither_torch_nor_qt() -> None:
    code = (
        "import sys, posenc_gui.state.rotation as m; m.MODEL.resolve({}); "
        "print(sorted(k for k in ('torch', 'PySide6', 'pyqtgraph') if k in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- CLI -------------------------------------------------------------------------------------
def test_cli_values(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["values", "--tab", "rotation", "--set", "angle=90", "--set", "x=1", "--set", "y=0"]
    assert cli.main([*argv, "--set", "offset=-3", "--set", "pair=2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tab"] == "rotation"
    assert out["params"]["angle"] == 90.0
    np.testing.assert_allclose(out["matrix"], [[0.0, -1.0], [1.0, 0.0]], atol=TIGHT)
    np.testing.assert_allclose(out["rotated"], [0.0, 1.0], atol=TIGHT)
    assert out["radians"] == pytest.approx(math.pi / 2)
    kw = -3 * 10000.0 ** (-4.0 / 128)
    np.testing.assert_allclose(out["pe_rotation_matrix"], standard_rotation(-kw), atol=1e-12)
    for key in ("det_residual", "composition_residual", "inverse_residual", "pe_residual"):
        assert out[key] < 1e-9
    assert len(out["rope_matrix"]) == 8


@pytest.mark.parametrize(
    ("assignment", "name"),
    [("angle=400", "angle"), ("dim=7", "dim"), ("pair=64", "pair"), ("layout=diagonal", "layout"),
     ("x=abc", "x"), ("block_dim=66", "block_dim"), ("nope=1", "nope")],
)  # fmt: skip
def test_cli_bad_input_exits_2(
    capsys: pytest.CaptureFixture[str], assignment: str, name: str
) -> None:
    assert cli.main(["values", "--tab", "rotation", "--set", assignment]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert name in lines[0]


# -- read-out groups and documented ranges -------------------------------------------------------
def test_groups_declare_their_inputs_honestly() -> None:
    """Every group runs on its declared inputs alone (Inputs raises on anything else)."""
    values = MODEL.defaults()
    union: dict[str, Any] = {}
    for g in MODEL.groups:
        out = g(values)
        assert not set(out) & set(union), g.name
        union.update(out)
    assert union == MODEL.readouts(values)
    assert {g.name for g in MODEL.groups} == {
        "rotation", "composition", "pe_shift", "pe_pairs", "rope_matrix", "rope_relative",
    }  # fmt: skip
    # pe_order only changes the drawing
    assert all("pe_order" not in g.inputs for g in MODEL.groups)


ANGLES = [-360.0, -359.9, -180.0, -179.9, -90.0, -1e-14, -1e-13, 0.0, 1e-14, 179.9, 180.0,
          180.1, 359.9, 360.0]  # fmt: skip


@pytest.mark.parametrize("deg", ANGLES)
@pytest.mark.parametrize(("x", "y"), [(1.5, 0.5), (-2.0, 0.0), (0.0, -0.05), (2.0, 2.0)])
def test_angle_readouts_stay_inside_their_documented_ranges(deg: float, x: float, y: float) -> None:
    r = readouts(angle=deg, x=x, y=y, angle2=deg)
    assert 0.0 <= r["angle_wrapped_degrees"] < 360.0
    assert -180.0 < r["measured_angle_degrees"] <= 180.0
    # and they are the right angle (mod 360°)
    for key in ("angle_wrapped_degrees", "measured_angle_degrees"):
        turn = (r[key] - deg) % 360.0
        assert min(turn, 360.0 - turn) < 1e-9, key


@pytest.mark.parametrize("k", [-1000, -7, -1, 0, 1, 7, 1000])
@pytest.mark.parametrize("pair", [0, 1, 63])
def test_pe_net_turn_keeps_its_sign_and_range(k: int, pair: int) -> None:
    r = readouts(offset=k, pair=pair)
    wrapped, tau = r["pe_angle_wrapped"], 2.0 * math.pi
    if k >= 0:
        assert 0.0 <= wrapped < tau
    else:
        assert -tau < wrapped <= 0.0
    turns = (r["pe_angle"] - wrapped) / tau
    assert turns == pytest.approx(round(turns), abs=1e-9)


def test_cli_boundary_angles(capsys: pytest.CaptureFixture[str]) -> None:
    """The review's cases: a half turn measures +180°, a tiny negative angle wraps to 0°."""
    argv = [
        "values",
        "--tab",
        "rotation",
        "--set",
        "angle=-180",
        "--set",
        "x=1.5",
        "--set",
        "y=0.5",
    ]
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["measured_angle_degrees"] == pytest.approx(180.0)
    assert -180.0 < out["measured_angle_degrees"] <= 180.0
    assert out["angle_wrapped_degrees"] == 180.0
    assert cli.main(["values", "--tab", "rotation", "--set", "angle=-1e-14"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert 0.0 <= out["angle_wrapped_degrees"] < 360.0
    assert out["angle_wrapped_degrees"] == pytest.approx(0.0, abs=1e-12)
    assert out["measured_angle_degrees"] == pytest.approx(0.0, abs=1e-9)
