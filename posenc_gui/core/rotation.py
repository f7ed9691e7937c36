"""2-D rotation matrices, angle wrapping, and the identities the rotation tab checks.

Conventions: angles in radians unless a name says degrees; ``R(θ)`` turns counter-clockwise
(:func:`rotation_matrix`); a sinusoidal pair is stored as ``(sin pω, cos pω)`` (columns ``2i``
and ``2i+1``), on which the shift by ``k`` positions is ``R(−kω)`` (:func:`pe_shift_matrix`).
Residuals are float64 maxima of absolute differences (0 in exact arithmetic).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from torch import Tensor

from ._validate import check_base, check_even_dim, check_int, to_float64_vector
from .rope import RopeLayout, rope_matrix
from .sinusoidal import inverse_frequencies, sinusoidal_at

__all__ = [
    "angle_between",
    "arc_angles",
    "composition_facts",
    "max_abs_diff",
    "net_turn",
    "orthogonality_residual",
    "pe_shift_check",
    "pe_shift_matrix",
    "rope_facts",
    "rotation_facts",
    "rotation_matrix",
    "wrap_angle",
    "wrap_degrees",
]

TAU = 2.0 * math.pi


def wrap_angle(theta: float, *, signed: bool = False) -> float:
    """``theta`` (radians) reduced to ``[0, 2π)``, or to ``(−π, π]`` when ``signed``.

    The result is inside the documented interval for every finite input: ``-1e-17 % 2π``
    rounds to ``2π`` in float64, which is mapped to 0 here.
    """
    if not math.isfinite(theta):
        raise ValueError(f"theta must be finite, got {theta!r}")
    w = theta % TAU
    if w >= TAU:
        w = 0.0
    if signed and w > math.pi:
        w -= TAU
        if w <= -math.pi:  # rounding at the boundary: −π belongs to the other end
            w = math.pi
    return w


def rotation_matrix(theta: float | Tensor) -> Tensor:
    """Counter-clockwise 2-D rotation matrix ``[[cos θ, -sin θ], [sin θ, cos θ]]``.

    Satisfies ``R(a) @ R(b) == R(a + b)`` and ``R(a).T == R(-a)``.

    Args:
        theta: angle in radians, a Python number or a real tensor of any shape ``(...)``.

    Returns:
        tensor of shape ``(..., 2, 2)``; float64 for Python numbers and integer/bool tensors,
        otherwise the dtype of ``theta``.
    """
    if isinstance(theta, bool) or not isinstance(theta, (int, float, Tensor)):
        raise ValueError(f"theta must be a real number or a real tensor, got {theta!r}")
    if isinstance(theta, Tensor):
        if theta.is_complex():
            raise ValueError(f"theta must be a real tensor, got dtype {theta.dtype}")
        t = theta if theta.is_floating_point() else theta.to(torch.float64)
    elif math.isfinite(theta):  # a number: one tensor from math.cos/sin (~5 µs a torch op)
        cos, sin = math.cos(float(theta)), math.sin(float(theta))
        return torch.tensor([[cos, -sin], [sin, cos]], dtype=torch.float64)
    else:  # ±inf, nan: NaN entries, as torch.cos gives them
        t = torch.tensor(float(theta), dtype=torch.float64)
    c, s = torch.cos(t), torch.sin(t)
    row0 = torch.stack((c, -s), dim=-1)
    row1 = torch.stack((s, c), dim=-1)
    return torch.stack((row0, row1), dim=-2)


def wrap_degrees(deg: float, *, signed: bool = False) -> float:
    """``deg`` (degrees) reduced to ``[0, 360)``, or to ``(−180, 180]`` when ``signed``.

    Like :func:`wrap_angle`, the result is inside the interval for every finite input
    (``-1e-14 % 360`` is ``360.0`` in float64; here it is 0).
    """
    if not math.isfinite(deg):
        raise ValueError(f"deg must be finite, got {deg!r}")
    w = deg % 360.0
    if w >= 360.0:
        w = 0.0
    if signed and w > 180.0:
        w -= 360.0
        if w <= -180.0:
            w = 180.0
    return w


def net_turn(angle: float) -> float:
    """The net turn of ``angle`` (radians) with its sign kept: in ``[0, 2π)`` for ``angle >= 0``,
    in ``(−2π, 0]`` otherwise (``math.fmod``, exact: never reaches ``±2π``)."""
    if not math.isfinite(angle):
        raise ValueError(f"angle must be finite, got {angle!r}")
    return math.fmod(angle, TAU)


def _vec2(v: Tensor | Sequence[float], name: str) -> Tensor:
    t = to_float64_vector(v, name)
    if t.shape[0] != 2:
        raise ValueError(f"{name} must have length 2, got length {t.shape[0]}")
    return t


def angle_between(u: Tensor | Sequence[float], v: Tensor | Sequence[float]) -> float:
    """Signed angle (radians) that turns the direction of ``u`` into that of ``v``.

    Counter-clockwise positive, in ``(−π, π]`` (``atan2(u × v, u · v)`` wrapped with
    :func:`wrap_angle`, so a half turn is ``+π`` whatever the rounding); 0 when either vector
    is zero. ``u`` and ``v``: 2-vectors.
    """
    a, b = _vec2(u, "u"), _vec2(v, "v")
    if not bool(a.any()) or not bool(b.any()):
        return 0.0
    cross = float(a[0] * b[1] - a[1] * b[0])
    return wrap_angle(math.atan2(cross, float(a @ b)), signed=True)


def max_abs_diff(a: Tensor, b: Tensor) -> float:
    """``max |a − b|`` over all entries (the residual of an identity ``a = b``)."""
    return float((a - b).abs().max())


def orthogonality_residual(r: Tensor) -> float:
    """``max |RᵀR − I|`` of a square matrix ``R`` (0 in exact arithmetic for a rotation)."""
    if r.ndim != 2 or r.shape[0] != r.shape[1]:
        raise ValueError(f"r must be a square matrix, got shape {tuple(r.shape)}")
    return max_abs_diff(r.T @ r, torch.eye(r.shape[0], dtype=r.dtype))


def rotation_facts(theta: float, v: Tensor | Sequence[float]) -> dict[str, Tensor]:
    """``R(θ)``, ``R(θ)v`` and the properties of a rotation with their residuals (float64).

    Returns 0-d tensors unless a shape is given: ``matrix`` (2, 2) ``R(θ)``; ``vector`` (2,)
    ``v``; ``rotated`` (2,) ``Rv``; ``norm_v``, ``norm_rotated`` and ``norm_residual`` =
    ``| |Rv| − |v| |``; ``det`` and ``det_residual`` = ``|det R − 1|``; ``gram`` (2, 2) ``RᵀR``
    and ``orthogonality_residual`` = ``max |RᵀR − I|``; ``inverse_matrix`` (2, 2) ``R(−θ)``,
    ``inverse_product`` (2, 2) ``R(−θ)R(θ)``, ``inverse_residual`` = ``max |R(−θ)R(θ) − I|``
    and ``transpose_residual`` = ``max |R(−θ) − Rᵀ|``.
    """
    r = rotation_matrix(float(theta))
    vec = _vec2(v, "v")
    eye = torch.eye(2, dtype=torch.float64)
    rv = r @ vec
    inverse = rotation_matrix(-float(theta))
    norm_v, norm_rv = torch.linalg.vector_norm(vec), torch.linalg.vector_norm(rv)
    det = torch.linalg.det(r)
    gram = r.T @ r
    product = inverse @ r
    return {
        "matrix": r,
        "vector": vec,
        "rotated": rv,
        "norm_v": norm_v,
        "norm_rotated": norm_rv,
        "norm_residual": (norm_rv - norm_v).abs(),
        "det": det,
        "det_residual": (det - 1.0).abs(),
        "gram": gram,
        "orthogonality_residual": (gram - eye).abs().max(),
        "inverse_matrix": inverse,
        "inverse_product": product,
        "inverse_residual": (product - eye).abs().max(),
        "transpose_residual": (inverse - r.T).abs().max(),
    }


def composition_facts(
    theta1: float, theta2: float, v: Tensor | Sequence[float]
) -> dict[str, Tensor]:
    """``R(θ₁)R(θ₂) = R(θ₁+θ₂)`` checked numerically (float64).

    Returns ``matrix2`` (2, 2) ``R(θ₂)``; ``composition_matrix`` (2, 2) ``R(θ₁)R(θ₂)``;
    ``sum_matrix`` (2, 2) ``R(θ₁+θ₂)``; ``composition_residual`` (0-d) the max difference of
    the two; ``composed_vector`` (2,) ``R(θ₁)R(θ₂)v``.
    """
    r1, r2 = rotation_matrix(float(theta1)), rotation_matrix(float(theta2))
    composed = r1 @ r2
    summed = rotation_matrix(float(theta1) + float(theta2))
    return {
        "matrix2": r2,
        "composition_matrix": composed,
        "sum_matrix": summed,
        "composition_residual": (composed - summed).abs().max(),
        "composed_vector": composed @ _vec2(v, "v"),
    }


def pe_shift_matrix(offset: float, omega: float | Tensor) -> Tensor:
    """The matrix ``M_k`` with ``M_k (sin pω, cos pω) = (sin (p+k)ω, cos (p+k)ω)`` for every p.

    From the addition formulas ``M_k = [[cos kω, sin kω], [−sin kω, cos kω]] = R(−kω)``: on the
    stored (sin, cos) order the shift is a clockwise turn (on (cos, sin) it is ``R(+kω)``).

    Args:
        offset: the shift ``k`` (a real number).
        omega: a frequency, or a tensor of frequencies of shape ``(...)``.

    Returns:
        float64 tensor of shape ``(..., 2, 2)``.
    """
    w = omega if isinstance(omega, Tensor) else torch.tensor(float(omega), dtype=torch.float64)
    return rotation_matrix(-float(offset) * w.to(torch.float64))


def pe_shift_check(
    positions: Tensor | Sequence[float], offset: int, dim: int, base: float = 10000.0
) -> dict[str, Tensor]:
    """Every sinusoidal pair at ``positions`` and ``k = offset`` later, and ``M_k`` between them.

    Returns float64 tensors, ``N = len(positions)``, ``P = dim/2`` pairs in (sin, cos) order:
    ``pairs`` (N, P, 2) the pairs at ``p``; ``shifted`` (N, P, 2) at ``p + k``; ``predicted``
    (N, P, 2) ``M_k`` (:func:`pe_shift_matrix`, built from ``k`` and ``ω_i`` only) times the
    pairs at ``p``; ``residual`` (N, P) ``‖predicted − shifted‖`` (0 in exact arithmetic).
    """
    k = check_int(offset, "offset")
    dim = check_even_dim(dim)
    base = check_base(base)
    pos = to_float64_vector(positions, "positions")
    table = sinusoidal_at(torch.cat((pos, pos + k)), dim, base, dtype=torch.float64)
    pairs = table.reshape(2, pos.shape[0], dim // 2, 2)
    shift = pe_shift_matrix(k, inverse_frequencies(dim, base))  # (P, 2, 2)
    predicted = torch.einsum("iab,nib->nia", shift, pairs[0])
    return {
        "pairs": pairs[0],
        "shifted": pairs[1],
        "predicted": predicted,
        "residual": torch.linalg.vector_norm(predicted - pairs[1], dim=-1),
    }


def rope_facts(
    m: float, n: float, dim: int, base: float = 10000.0, *, layout: RopeLayout = "interleaved"
) -> dict[str, Tensor]:
    """RoPE's ``R_m`` (:func:`~posenc_gui.core.rope_matrix`) and its two identities (float64).

    Returns ``matrix`` (dim, dim) ``R_m``; ``relative_residual`` (0-d) ``max |R_mᵀR_n −
    R_{n−m}|``; ``orthogonality_residual`` (0-d) ``max |R_mᵀR_m − I|``.
    """
    rm = rope_matrix(m, dim, base, layout=layout)
    rn = rope_matrix(n, dim, base, layout=layout)
    rnm = rope_matrix(float(n) - float(m), dim, base, layout=layout)
    eye = torch.eye(rm.shape[0], dtype=torch.float64)
    return {
        "matrix": rm,
        "relative_residual": (rm.T @ rn - rnm).abs().max(),
        "orthogonality_residual": (rm.T @ rm - eye).abs().max(),
    }


def arc_angles(start: float, turn: float, step_degrees: float) -> np.ndarray:
    """The angles of an arc from ``start`` through ``turn`` radians (either sign), evenly
    spaced, a point at least every ``step_degrees`` degrees and at both ends (at least 2)."""
    if not step_degrees > 0:
        raise ValueError(f"step_degrees must be positive, got {step_degrees}")
    count = max(2, math.ceil(abs(math.degrees(turn)) / step_degrees) + 1)
    return np.linspace(start, start + turn, count)
