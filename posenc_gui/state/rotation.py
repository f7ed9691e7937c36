"""Rotation-matrix tab: the 2-D rotation R(θ), its properties, and how it drives PE and RoPE.

Three parts, one model:

* **2-D rotation.** ``R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]]`` (counter-clockwise,
  :func:`posenc_gui.core.rotation_matrix`) applied to ``v = (x, y)``; live checks of
  ``|Rv| = |v|``, ``det R = 1``, ``RᵀR = I``, ``R(θ₁)R(θ₂) = R(θ₁+θ₂)`` and ``R(−θ)R(θ) = I``,
  each with its numeric residual.
* **Sinusoidal PE as a rotation.** With ``PE[p, 2i] = sin(pω_i)``, ``PE[p, 2i+1] = cos(pω_i)``
  the stored pair ``s_p = (sin pω, cos pω)`` satisfies

      sin((p+k)ω) =  cos(kω)·sin(pω) + sin(kω)·cos(pω)
      cos((p+k)ω) = −sin(kω)·sin(pω) + cos(kω)·cos(pω)

  so ``s_{p+k} = M_k s_p`` with ``M_k = [[cos kω, sin kω], [−sin kω, cos kω]] = R(−kω)``:
  in the stored (sin, cos) order the shift is a *clockwise* rotation. Swapping the pair to
  ``(cos, sin)`` turns it into the standard counter-clockwise ``R(kω)``. ``M_k`` depends on
  the offset ``k`` only, never on ``p``; the readouts check it at two positions ``p`` and ``p'``.
* **RoPE block matrix.** ``R_m`` (:func:`posenc_gui.core.rope_matrix`) for a small head
  dimension in either pair layout, and the check ``R_mᵀR_n = R_{n−m}``.

Read-out groups (the maths is in :mod:`posenc_gui.core.rotation`): ``rotation`` (angle, x, y:
the matrix, Rv, lengths, det, RᵀR, inverse, ``angle_wrapped_degrees`` in [0°, 360°) and
``measured_angle_degrees`` in (−180°, 180°]); ``composition`` (angle, angle2, x, y);
``pe_shift`` (dim, base, pair, offset: ω, kω, ``pe_angle_wrapped`` in [0, 2π) or (−2π, 0], M_k);
``pe_pairs`` (… and position, position2: the pairs and residuals); ``rope_matrix`` (m, block_dim,
base, layout) and ``rope_relative`` (… and n). ``pe_order`` only changes how the panel draws.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from posenc_gui.state.model import Inputs, Limits, ReadoutGroup, TabModel
from posenc_gui.state.params import (
    Value,
    base_param,
    choice_param,
    dim_param,
    float_param,
    int_param,
    rope_layout_param,
)

#: A check passes when its residual is below this (float64 maths gives ~1e-16 … 1e-12).
TOLERANCE = 1e-9
PE_ORDERS: tuple[str, ...] = ("sin_cos", "cos_sin")
LAYOUTS: tuple[str, ...] = ("interleaved", "half")

ROTATION_INPUTS = ("angle", "x", "y")
COMPOSITION_INPUTS = ("angle", "angle2", "x", "y")
PE_SHIFT_INPUTS = ("dim", "base", "pair", "offset")
PE_PAIR_INPUTS = ("dim", "base", "pair", "position", "position2", "offset")
ROPE_MATRIX_INPUTS = ("m", "block_dim", "base", "layout")
ROPE_RELATIVE_INPUTS = ("m", "n", "block_dim", "base", "layout")


def _lists(facts: Mapping[str, Any]) -> dict[str, Any]:
    """Tensors as JSON-ready nested lists (0-d tensors as floats)."""
    return {k: t.tolist() for k, t in facts.items()}


def _rotation(v: Inputs) -> dict[str, Any]:
    """R(θ), R(θ)v, its properties and the angle measured from v to Rv."""
    from posenc_gui.core.rotation import angle_between, rotation_facts, wrap_degrees

    deg = v.as_float("angle")
    theta = math.radians(deg)
    out = _lists(rotation_facts(theta, [v.as_float("x"), v.as_float("y")]))
    # (−180°, 180°]; undefined for v = (0, 0), which has no direction (not atan2(0, 0) = 0)
    measured = (
        wrap_degrees(math.degrees(angle_between(out["vector"], out["rotated"])), signed=True)
        if any(out["vector"])
        else math.nan
    )
    out.update(
        radians=theta,
        angle_wrapped_degrees=wrap_degrees(deg),  # [0°, 360°)
        measured_angle_degrees=measured,
        tolerance=TOLERANCE,
    )
    return out


def _composition(v: Inputs) -> dict[str, Any]:
    """R(θ)R(θ₂) = R(θ+θ₂), and R(θ)R(θ₂)v."""
    from posenc_gui.core.rotation import composition_facts

    deg1, deg2 = v.as_float("angle"), v.as_float("angle2")
    th1, th2 = math.radians(deg1), math.radians(deg2)
    out = _lists(composition_facts(th1, th2, [v.as_float("x"), v.as_float("y")]))
    out.update(angle2_radians=th2, angle_sum_degrees=deg1 + deg2, angle_sum_radians=th1 + th2)
    return out


def _pe_shift(v: Inputs) -> dict[str, Any]:
    """ω_i, the turn kω and the shift matrix M_k = R(−kω) on (sin, cos) (R(+kω) on (cos, sin))."""
    from posenc_gui import core
    from posenc_gui.core.rotation import net_turn, pe_shift_matrix

    dim, base, i, k = v.as_int("dim"), v.as_float("base"), v.as_int("pair"), v.as_int("offset")
    omega = float(core.inverse_frequencies(dim, base)[i])
    k_omega = k * omega
    return {
        "omega": omega,
        "wavelength": 2.0 * math.pi / omega,
        "pe_angle": k_omega,
        "pe_angle_degrees": math.degrees(k_omega),
        "pe_angle_turns": k_omega / (2.0 * math.pi),
        "pe_angle_wrapped": net_turn(k_omega),
        "pe_rotation_matrix": pe_shift_matrix(k, omega).tolist(),
        "pe_rotation_matrix_cos_sin": core.rotation_matrix(k_omega).tolist(),
    }


def _pe_pairs(v: Inputs) -> dict[str, Any]:
    """Pair i at p, p+k, p′, p′+k, the prediction M_k·pair, residuals (also over every pair)."""
    import torch

    from posenc_gui import core
    from posenc_gui.core.rotation import pe_shift_check

    dim, base, i, k = v.as_int("dim"), v.as_float("base"), v.as_int("pair"), v.as_int("offset")
    p, p2 = v.as_int("position"), v.as_int("position2")
    chk = pe_shift_check([p, p2], k, dim, base)
    pairs, shifted, predicted = chk["pairs"][:, i], chk["shifted"][:, i], chk["predicted"][:, i]
    omega = float(core.inverse_frequencies(dim, base)[i])
    wrong = core.rotation_matrix(k * omega) @ pairs[0]
    return {
        "pe_positions": [p, p + k, p2, p2 + k],
        "pe_position_angle": p * omega,
        "pe_position2_angle": p2 * omega,
        "pe_pair": pairs[0].tolist(),
        "pe_pair_shifted": shifted[0].tolist(),
        "pe_pair2": pairs[1].tolist(),
        "pe_pair2_shifted": shifted[1].tolist(),
        "pe_rotated": predicted[0].tolist(),
        "pe_rotated2": predicted[1].tolist(),
        "pe_residual": float(chk["residual"][0, i]),
        "pe_residual2": float(chk["residual"][1, i]),
        "pe_residual_all_pairs": float(chk["residual"].max()),
        "pe_wrong_sign_residual": float(torch.linalg.vector_norm(wrong - shifted[0])),
        "pe_norm": float(torch.linalg.vector_norm(pairs[0])),
    }


def _layout(v: Inputs) -> Literal["interleaved", "half"]:
    return "half" if v.as_str("layout") == "half" else "interleaved"


def _rope_matrix(v: Inputs) -> dict[str, Any]:
    """R_m, the frequencies θ_i and the angles m·θ_i, and R_mᵀR_m = I."""
    from posenc_gui import core
    from posenc_gui.core.rotation import orthogonality_residual

    m, bd, base = v.as_int("m"), v.as_int("block_dim"), v.as_float("base")
    rm = core.rope_matrix(m, bd, base, layout=_layout(v))
    theta = core.inverse_frequencies(bd, base)
    return {
        "rope_matrix": rm.tolist(),
        "rope_theta": theta.tolist(),
        "rope_angles": (m * theta).tolist(),
        "rope_orthogonality_residual": orthogonality_residual(rm),
    }


def _rope_relative(v: Inputs) -> dict[str, Any]:
    """The relative identity R_mᵀR_n = R_{n−m}."""
    from posenc_gui.core.rotation import rope_facts

    m, n = v.as_int("m"), v.as_int("n")
    facts = rope_facts(m, n, v.as_int("block_dim"), v.as_float("base"), layout=_layout(v))
    return {"rope_relative_residual": float(facts["relative_residual"]), "rope_offset": n - m}


class RotationModel(TabModel):
    """The 2-D rotation matrix, its properties, the PE shift as a rotation and RoPE's ``R_m``."""

    id = "rotation"
    title = "Rotation matrix"
    short_title = "Rotation"
    summary = (
        "R(θ) rotates a vector without changing its length; the same matrix shifts a sinusoidal "
        "encoding pair by k positions and builds RoPE's block-diagonal R_m."
    )
    params = (
        float_param(
            "angle", 60.0, -360.0, 360.0, "Angle θ", "Rotation angle θ (counter-clockwise).",
            unit="°", decimals=1, step=1.0,
        ),
        float_param(
            "x", 1.5, -2.0, 2.0, "x", "First coordinate of the vector v = (x, y).",
            decimals=2, step=0.05,
        ),
        float_param(
            "y", 0.5, -2.0, 2.0, "y", "Second coordinate of the vector v = (x, y).",
            decimals=2, step=0.05,
        ),
        float_param(
            "angle2", 30.0, -360.0, 360.0, "Angle θ₂",
            "Second angle θ₂ for the composition check R(θ)R(θ₂) = R(θ+θ₂).",
            unit="°", decimals=1, step=1.0,
        ),
        dim_param(128, 1024),
        base_param(description="Frequency base: ω_i = base^(-2i/d) (also RoPE's θ_i)."),
        int_param(
            "pair", 1, 0, 511, "Pair i",
            "Frequency pair i: columns 2i (sin) and 2i+1 (cos), 0 … d/2−1.",
        ),
        int_param("position", 3, 0, 10000, "Position p", "Position p of the first pair."),
        int_param(
            "position2", 40, 0, 10000, "Position p′",
            "A second position p′: the same matrix must shift it by k as well.",
        ),
        int_param(
            "offset", 2, -1000, 1000, "Offset k", "Shift k: compare PE[p] with PE[p+k]."
        ),
        choice_param(
            "pe_order", "sin_cos", PE_ORDERS, "Pair order",
            "Coordinates of the PE plot: the stored order (PE[p,2i], PE[p,2i+1]) = (sin, cos), "
            "or swapped to (cos, sin).",
            choice_labels=("(sin, cos) as stored", "(cos, sin) swapped"),
        ),
        int_param("m", 3, 0, 10000, "Position m", "Position m of the RoPE matrix R_m."),
        int_param("n", 5, 0, 10000, "Position n", "Second position n for R_mᵀR_n = R_{n−m}."),
        dim_param(8, 64, name="block_dim", label="Head dim",
                  description="Dimension of the RoPE matrix R_m shown."),
        rope_layout_param(label="RoPE layout"),
    )  # fmt: skip

    groups = (
        ReadoutGroup("rotation", ROTATION_INPUTS, _rotation),
        ReadoutGroup("composition", COMPOSITION_INPUTS, _composition),
        ReadoutGroup("pe_shift", PE_SHIFT_INPUTS, _pe_shift),
        ReadoutGroup("pe_pairs", PE_PAIR_INPUTS, _pe_pairs),
        ReadoutGroup("rope_matrix", ROPE_MATRIX_INPUTS, _rope_matrix),
        ReadoutGroup("rope_relative", ROPE_RELATIVE_INPUTS, _rope_relative),
    )

    @classmethod
    def limits(cls, values: Mapping[str, Value]) -> Limits:
        dim = Inputs(values, frozenset(("dim",)), "rotation limits").as_int("dim")
        return {"pair": (0, dim // 2 - 1)}

    figures = (
        "rv",
        "matrix",
        "pe_plot",
        "pe_text",
        "rope_heatmap",
    )
    #: No pairs: the PE-pair read-out (a matrix and its product) would take half of a
    #: 1024×768 projector's height under its plot; it is a stage of its own.
    animated = "angle"
    undefined: ClassVar[Mapping[str, str]] = {"measured_angle_degrees": "v is (0, 0): no direction"}


MODEL = RotationModel
