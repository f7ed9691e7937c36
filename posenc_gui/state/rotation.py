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
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

from posenc_gui.state.model import Limits, TabModel
from posenc_gui.state.params import Value, choice_param, float_param, int_param

#: A check passes when its residual is below this (float64 maths gives ~1e-16 … 1e-12).
TOLERANCE = 1e-9
PE_ORDERS: tuple[str, ...] = ("sin_cos", "cos_sin")
LAYOUTS: tuple[str, ...] = ("interleaved", "half")


def _num(values: Mapping[str, Value], name: str) -> float:
    v = values[name]
    assert not isinstance(v, str)
    return float(v)


class RotationModel(TabModel):
    """The 2-D rotation matrix, its properties, the PE shift as a rotation and RoPE's ``R_m``."""

    id = "rotation"
    title = "Rotation matrix"
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
        int_param(
            "dim", 128, 2, 1024, "Model dim d",
            "Encoding dimension d (even: one sin/cos pair per frequency).", even=True,
        ),
        float_param(
            "base", 10000.0, 10.0, 1e7, "Base",
            "Frequency base: ω_i = base^(-2i/d) (also RoPE's θ_i).", log=True, decimals=1,
        ),
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
        int_param(
            "block_dim", 8, 2, 64, "Head dim", "Dimension of the RoPE matrix R_m shown.",
            even=True,
        ),
        choice_param(
            "layout", "interleaved", LAYOUTS, "RoPE layout",
            "interleaved: pairs (x[2i], x[2i+1]) (RoFormer, LLaMA); "
            "half: pairs (x[i], x[i+d/2]) (GPT-NeoX, HF rotate_half).",
            choice_labels=("interleaved (2i, 2i+1)", "half (i, i+d/2)"),
        ),
    )  # fmt: skip

    @classmethod
    def limits(cls, values: Mapping[str, Value]) -> Limits:
        dim = int(_num(values, "dim"))
        return {"pair": (0, dim // 2 - 1)}

    @classmethod
    def readouts(cls, values: Mapping[str, Value]) -> dict[str, Any]:
        import torch  # imported here so that validating parameters stays fast (no torch)

        from posenc_gui import core

        out: dict[str, Any] = {}
        eye = torch.eye(2, dtype=torch.float64)

        def maxabs(t: torch.Tensor) -> float:
            return float(t.abs().max())

        # ---- 2-D rotation ---------------------------------------------------------------
        deg1, deg2 = _num(values, "angle"), _num(values, "angle2")
        th1, th2 = math.radians(deg1), math.radians(deg2)
        r1 = core.rotation_matrix(th1)
        r2 = core.rotation_matrix(th2)
        v = torch.tensor([_num(values, "x"), _num(values, "y")], dtype=torch.float64)
        rv = r1 @ v
        norm_v, norm_rv = float(torch.linalg.vector_norm(v)), float(torch.linalg.vector_norm(rv))
        det = float(torch.linalg.det(r1))
        composed = r1 @ r2
        summed = core.rotation_matrix(th1 + th2)
        inverse = core.rotation_matrix(-th1)
        composed_v = composed @ v
        # Signed angle from v to Rv, measured from the vectors themselves (in (−180°, 180°]).
        measured = (
            math.degrees(math.atan2(float(v[0] * rv[1] - v[1] * rv[0]), float(v @ rv)))
            if norm_v > 0
            else 0.0
        )
        out.update(
            radians=th1,
            angle2_radians=th2,
            angle_sum_degrees=deg1 + deg2,
            angle_sum_radians=th1 + th2,
            angle_wrapped_degrees=_wrap_degrees(deg1),
            matrix=r1.tolist(),
            matrix2=r2.tolist(),
            vector=v.tolist(),
            rotated=rv.tolist(),
            norm_v=norm_v,
            norm_rotated=norm_rv,
            norm_residual=abs(norm_rv - norm_v),
            measured_angle_degrees=measured,
            det=det,
            det_residual=abs(det - 1.0),
            gram=(r1.T @ r1).tolist(),
            orthogonality_residual=maxabs(r1.T @ r1 - eye),
            composition_matrix=composed.tolist(),
            sum_matrix=summed.tolist(),
            composition_residual=maxabs(composed - summed),
            composed_vector=composed_v.tolist(),
            inverse_matrix=inverse.tolist(),
            inverse_product=(inverse @ r1).tolist(),
            inverse_residual=maxabs(inverse @ r1 - eye),
            transpose_residual=maxabs(inverse - r1.T),
        )

        # ---- sinusoidal PE pair as a rotation -------------------------------------------
        dim, base = int(_num(values, "dim")), _num(values, "base")
        i = int(_num(values, "pair"))
        p, p2, k = (int(_num(values, n)) for n in ("position", "position2", "offset"))
        omega_all = core.inverse_frequencies(dim, base)
        omega = float(omega_all[i])
        pos = torch.tensor([p, p + k, p2, p2 + k], dtype=torch.float64)
        table = core.sinusoidal_at(pos, dim, base, dtype=torch.float64)  # (4, dim)
        pairs = table.reshape(4, dim // 2, 2)  # [..., 0] = sin (col 2i), [..., 1] = cos (2i+1)
        # Stored order (sin, cos): the shift by k is R(−kω) (clockwise); (cos, sin): R(+kω).
        shift = core.rotation_matrix(-k * omega_all)  # (d/2, 2, 2), one matrix per pair
        m_sc = shift[i]
        m_cs = core.rotation_matrix(k * omega)  # acts on (cos, sin); on (sin, cos) it is wrong
        s_p, s_pk, s_p2, s_p2k = pairs[0, i], pairs[1, i], pairs[2, i], pairs[3, i]
        rot_p, rot_p2 = m_sc @ s_p, m_sc @ s_p2
        # Every pair i at both positions, with the matrix built from k (and ω_i) only.
        all_pred = torch.einsum("iab,nib->nia", shift, pairs[[0, 2]])
        all_res = torch.linalg.vector_norm(all_pred - pairs[[1, 3]], dim=-1)
        k_omega = k * omega
        out.update(
            omega=omega,
            wavelength=2.0 * math.pi / omega,
            pe_angle=k_omega,
            pe_angle_degrees=math.degrees(k_omega),
            pe_angle_turns=k_omega / (2.0 * math.pi),
            pe_angle_wrapped=_wrap_signed(k_omega),
            pe_positions=[p, p + k, p2, p2 + k],
            pe_position_angle=p * omega,
            pe_position2_angle=p2 * omega,
            pe_pair=s_p.tolist(),
            pe_pair_shifted=s_pk.tolist(),
            pe_pair2=s_p2.tolist(),
            pe_pair2_shifted=s_p2k.tolist(),
            pe_rotation_matrix=m_sc.tolist(),
            pe_rotation_matrix_cos_sin=m_cs.tolist(),
            pe_rotated=rot_p.tolist(),
            pe_rotated2=rot_p2.tolist(),
            pe_residual=float(torch.linalg.vector_norm(rot_p - s_pk)),
            pe_residual2=float(torch.linalg.vector_norm(rot_p2 - s_p2k)),
            pe_residual_all_pairs=float(all_res.max()),
            pe_wrong_sign_residual=float(torch.linalg.vector_norm(m_cs @ s_p - s_pk)),
            pe_norm=float(torch.linalg.vector_norm(s_p)),
        )

        # ---- RoPE block matrix R_m ------------------------------------------------------
        bd = int(_num(values, "block_dim"))
        layout: Literal["interleaved", "half"] = (
            "half" if values["layout"] == "half" else "interleaved"
        )
        m, n = int(_num(values, "m")), int(_num(values, "n"))
        rm = core.rope_matrix(m, bd, base, layout=layout)
        rn = core.rope_matrix(n, bd, base, layout=layout)
        rnm = core.rope_matrix(n - m, bd, base, layout=layout)
        rope_theta = core.inverse_frequencies(bd, base)
        out.update(
            rope_matrix=rm.tolist(),
            rope_theta=rope_theta.tolist(),
            rope_angles=(m * rope_theta).tolist(),
            rope_relative_residual=maxabs(rm.T @ rn - rnm),
            rope_orthogonality_residual=maxabs(rm.T @ rm - torch.eye(bd, dtype=torch.float64)),
            rope_offset=n - m,
            tolerance=TOLERANCE,
        )
        return out


def _wrap_degrees(deg: float) -> float:
    """``deg`` mapped into ``[0, 360)``."""
    return deg % 360.0


def _wrap_signed(angle: float) -> float:
    """The net turn of ``angle`` (radians) with its sign kept: ``[0, 2π)`` or ``(−2π, 0]``."""
    tau = 2.0 * math.pi
    return math.fmod(angle, tau)


MODEL = RotationModel
