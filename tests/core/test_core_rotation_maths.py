"""core.rotation: angle wrapping at its boundaries, angles between vectors, the PE shift as a
rotation and the identities of the rotation tab, against closed forms (math.cos/sin)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from posenc_gui.core.rotation import (
    angle_between,
    composition_facts,
    max_abs_diff,
    net_turn,
    orthogonality_residual,
    pe_shift_check,
    pe_shift_matrix,
    rope_facts,
    rotation_facts,
    wrap_degrees,
)

TAU = 2.0 * math.pi


def rot(a: float) -> np.ndarray:
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


@pytest.mark.parametrize(
    ("deg", "unsigned", "signed"),
    [(0.0, 0.0, 0.0), (-1e-14, 0.0, -1e-14), (-1e-300, 0.0, -1e-300), (360.0, 0.0, 0.0),
     (-360.0, 0.0, 0.0), (180.0, 180.0, 180.0), (-180.0, 180.0, 180.0), (540.0, 180.0, 180.0),
     (190.0, 190.0, -170.0), (-190.0, 170.0, 170.0), (719.5, 359.5, -0.5)],
)  # fmt: skip
def test_wrap_degrees_boundaries(deg: float, unsigned: float, signed: float) -> None:
    assert wrap_degrees(deg) == pytest.approx(unsigned, abs=1e-9)
    assert wrap_degrees(deg, signed=True) == pytest.approx(signed, abs=1e-9, rel=1e-9)


EDGES = [-1e-15, -5e-14, -1e-13, 359.99999999999994, -180.00000000000003]


@pytest.mark.parametrize("deg", [*np.linspace(-1e4, 1e4, 2001).tolist(), *EDGES])
def test_wrap_degrees_always_inside_the_interval(deg: float) -> None:
    w, s = wrap_degrees(float(deg)), wrap_degrees(float(deg), signed=True)
    assert 0.0 <= w < 360.0
    assert -180.0 < s <= 180.0
    assert math.cos(math.radians(w)) == pytest.approx(math.cos(math.radians(deg)), abs=1e-9)
    assert math.sin(math.radians(s)) == pytest.approx(math.sin(math.radians(deg)), abs=1e-9)


def test_wrap_degrees_rejects_non_finite() -> None:
    with pytest.raises(ValueError, match="deg"):
        wrap_degrees(math.inf)
    with pytest.raises(ValueError, match="angle"):
        net_turn(math.nan)


@pytest.mark.parametrize("a", [0.0, 1.0, TAU - 1e-15, TAU, 7.0, -1e-16, -3.0, -TAU, -100.0])
def test_net_turn_keeps_the_sign(a: float) -> None:
    w = net_turn(a)
    assert (0.0 <= w < TAU) if a >= 0 else (-TAU < w <= 0.0)
    assert math.cos(w) == pytest.approx(math.cos(a), abs=1e-12)
    assert math.sin(w) == pytest.approx(math.sin(a), abs=1e-12)


@pytest.mark.parametrize("deg", [0.0, 30.0, 90.0, 179.0, 180.0, -180.0, -90.0, -1e-12, 270.0])
@pytest.mark.parametrize("u", [(1.5, 0.5), (-2.0, 0.0), (0.0, -0.05), (2.0, 2.0)])
def test_angle_between_is_the_rotation_angle(deg: float, u: tuple[float, float]) -> None:
    t = math.radians(deg)
    v = rot(t) @ np.array(u)
    a = angle_between(u, v.tolist())
    assert -math.pi < a <= math.pi
    expected = wrap_degrees(deg, signed=True)
    got = math.degrees(a)
    assert min(abs(got - expected), 360.0 - abs(got - expected)) < 1e-9
    if abs(deg) == 180.0:
        assert a == pytest.approx(math.pi)  # a half turn is +π, never −π


def test_angle_between_zero_vector_and_bad_shape() -> None:
    assert angle_between([0.0, 0.0], [1.0, 0.0]) == 0.0
    assert angle_between([1.0, 0.0], [0.0, 0.0]) == 0.0
    with pytest.raises(ValueError, match="length 2"):
        angle_between([1.0, 0.0, 0.0], [1.0, 0.0])


@pytest.mark.parametrize("deg", [0.0, 60.0, -135.0, 359.9])
def test_rotation_facts_closed_forms(deg: float) -> None:
    t = math.radians(deg)
    f = rotation_facts(t, [1.5, -0.5])
    np.testing.assert_allclose(f["matrix"].numpy(), rot(t), atol=1e-15)
    np.testing.assert_allclose(f["rotated"].numpy(), rot(t) @ [1.5, -0.5], atol=1e-15)
    np.testing.assert_allclose(f["inverse_matrix"].numpy(), rot(t).T, atol=1e-15)
    assert float(f["norm_v"]) == pytest.approx(math.hypot(1.5, 0.5))
    assert float(f["det"]) == pytest.approx(1.0)
    for key in ("norm_residual", "det_residual", "orthogonality_residual", "inverse_residual",
                "transpose_residual"):  # fmt: skip
        assert float(f[key]) < 1e-14, key
    assert f["matrix"].dtype == torch.float64


def test_composition_facts() -> None:
    a, b = math.radians(70.0), math.radians(-200.0)
    f = composition_facts(a, b, [0.3, 1.0])
    np.testing.assert_allclose(f["sum_matrix"].numpy(), rot(a + b), atol=1e-15)
    np.testing.assert_allclose(f["composition_matrix"].numpy(), rot(a) @ rot(b), atol=1e-15)
    np.testing.assert_allclose(f["composed_vector"].numpy(), rot(a + b) @ [0.3, 1.0], atol=1e-14)
    assert float(f["composition_residual"]) < 1e-14


@pytest.mark.parametrize(("k", "w"), [(2, 0.86596), (-7, 1.0), (1000, 1e-4), (0, 0.3)])
def test_pe_shift_matrix_is_the_addition_formula(k: int, w: float) -> None:
    m = pe_shift_matrix(k, w).numpy()
    kw = k * w
    np.testing.assert_allclose(m, [[math.cos(kw), math.sin(kw)], [-math.sin(kw), math.cos(kw)]],
                               atol=1e-15)  # fmt: skip
    np.testing.assert_allclose(m, rot(-kw), atol=1e-15)  # clockwise on (sin, cos)
    for p in (0, 3, 9999):
        s = np.array([math.sin(p * w), math.cos(p * w)])
        shifted = np.array([math.sin((p + k) * w), math.cos((p + k) * w)])
        np.testing.assert_allclose(m @ s, shifted, atol=1e-9)
    # one matrix per frequency for a tensor of frequencies
    assert pe_shift_matrix(k, torch.tensor([w, 2 * w])).shape == (2, 2, 2)


@pytest.mark.parametrize(
    ("dim", "base", "k"), [(128, 10000.0, 2), (2, 10.0, -7), (1024, 1e7, 1000)]
)
def test_pe_shift_check(dim: int, base: float, k: int) -> None:
    positions = [3, 40, 10000]
    c = pe_shift_check(positions, k, dim, base)
    assert c["pairs"].shape == (3, dim // 2, 2) and c["residual"].shape == (3, dim // 2)
    w = base ** (-2.0 * (dim // 2 - 1) / dim)
    np.testing.assert_allclose(c["pairs"][1, -1].numpy(), [math.sin(40 * w), math.cos(40 * w)],
                               atol=1e-12)  # fmt: skip
    later = [math.sin((40 + k) * w), math.cos((40 + k) * w)]
    np.testing.assert_allclose(c["shifted"][1, -1].numpy(), later, atol=1e-12)
    assert float(c["residual"].max()) < 1e-9
    assert max_abs_diff(c["predicted"], c["shifted"]) < 1e-9


def closed_form_rope(m: float, d: int, base: float, layout: str) -> np.ndarray:
    out = np.zeros((d, d))
    for i in range(d // 2):
        a = m * base ** (-2.0 * i / d)
        r0, r1 = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + d // 2)
        out[r0, r0], out[r0, r1] = math.cos(a), -math.sin(a)
        out[r1, r0], out[r1, r1] = math.sin(a), math.cos(a)
    return out


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rope_facts(layout: str) -> None:
    f = rope_facts(10000, 17, 64, 500.0, layout=layout)  # type: ignore[arg-type]
    np.testing.assert_allclose(f["matrix"].numpy(), closed_form_rope(10000, 64, 500.0, layout),
                               atol=1e-9)  # fmt: skip
    assert float(f["relative_residual"]) < 1e-12
    assert float(f["orthogonality_residual"]) < 1e-12


def test_max_abs_diff() -> None:
    assert max_abs_diff(torch.tensor([1.0, -2.0]), torch.tensor([1.5, 1.0])) == 3.0


def test_orthogonality_residual() -> None:
    from posenc_gui.core import rope_matrix

    assert orthogonality_residual(rope_matrix(123, 16, 100.0)) < 1e-12
    assert orthogonality_residual(torch.eye(3, dtype=torch.float64)) == 0.0
    # a shear is not orthogonal: [[1, 1], [0, 1]]ᵀ[[1, 1], [0, 1]] = [[1, 1], [1, 2]]
    assert orthogonality_residual(torch.tensor([[1.0, 1.0], [0.0, 1.0]])) == 1.0
    with pytest.raises(ValueError, match="square"):
        orthogonality_residual(torch.zeros(2, 3))


@pytest.mark.parametrize("theta", [0.0, 1e-300, 0.3, -2.5, math.pi, 7, 1e6, -1e15])
def test_rotation_matrix_of_a_number_matches_the_tensor_path(theta: float) -> None:
    """A Python number takes a shortcut (math.cos/sin): the same float64 matrix as the
    tensor path, bit for bit up to one rounding step of the cosine."""
    from posenc_gui.core.rotation import rotation_matrix

    fast = rotation_matrix(theta)
    slow = rotation_matrix(torch.tensor(float(theta), dtype=torch.float64))
    assert fast.dtype == torch.float64 and fast.shape == (2, 2)
    torch.testing.assert_close(fast, slow, rtol=0, atol=4e-16)
    np.testing.assert_allclose(fast.numpy(), rot(float(theta)), rtol=0, atol=1e-15)


def test_rotation_matrix_of_a_non_finite_number_is_nan() -> None:
    from posenc_gui.core.rotation import rotation_matrix

    for theta in (math.inf, -math.inf, math.nan):
        assert torch.isnan(rotation_matrix(theta)).all()
