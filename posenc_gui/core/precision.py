"""RoPE in finite precision: what float32, bfloat16 and float16 do to the angles and the table.

For an angle dtype ``t`` (one of :data:`PRECISION_DTYPES`) the computation is the one real code
does when it is not careful:

1. the inverse frequencies ``θ_i = base^(−2i/d)`` are computed in float64 and cast to ``t``;
2. the position ``m`` is cast to ``t``;
3. the angle ``m·θ_i`` is their product in ``t`` (rounded to ``t``);
4. ``cos`` and ``sin`` are computed in ``t``;
5. the results are cast to the table dtype (the dtype the cos/sin table is stored in).

Errors are against the same quantities in float64 (``m·θ_i`` and its cos/sin in float64): the
angle error is wrapped to ``(−π, π]`` (an angle off by a whole turn is not wrong), the cos and
sin errors are plain differences. A float64 angle with a float64 table has error 0.

Hugging Face's recipe ("cast after float32") computes the angle and cos/sin in float32 and casts
cos/sin to the low dtype afterwards: :func:`errors` with ``angle_dtype="float32"`` and
``table_dtype`` the low one.

torch on CPU computes ``cos``/``sin`` of a bfloat16 or float16 tensor (and the product of two)
by widening to float32 and rounding the result to ``t``: the same as computing each operation in
float32 and rounding after it, which is what a GPU kernel does too. float16 holds no number above
65 504: a larger position is ``inf`` in float16 and its angle, cos and sin are NaN (the errors
are NaN there; :func:`finite_spread` leaves such shifts out).

Shapes: positions ``(P,)``, inverse frequencies ``(N,)`` (``N = d/2``), per-pair results
``(P, N)``. Pair ``i`` holds components ``(2i, 2i+1)`` (interleaved layout).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import Tensor

from ._validate import check_base, check_choice, check_even_dim

#: The dtypes compared, widest first.
PRECISION_DTYPES: tuple[str, ...] = ("float64", "float32", "bfloat16", "float16")
_TORCH: dict[str, torch.dtype] = {
    "float64": torch.float64,
    "float32": torch.float32,
    "bfloat16": torch.bfloat16,
    "float16": torch.float16,
}


def torch_dtype(name: str) -> torch.dtype:
    """The torch dtype called ``name`` (one of :data:`PRECISION_DTYPES`)."""
    return _TORCH[check_choice(name, "dtype", PRECISION_DTYPES)]


def unit_roundoff(name: str) -> float:
    """``u = 2^−(p)`` with ``p`` the significand bits (stored + 1): half the spacing of the numbers
    in ``[1, 2)``. float64 2⁻⁵³, float32 2⁻²⁴, bfloat16 2⁻⁸, float16 2⁻¹¹."""
    return float(torch.finfo(torch_dtype(name)).eps) / 2.0


def exact_integer_limit(name: str) -> int:
    """``2^p`` (``p`` significand bits incl. the implicit one): every integer up to it is held
    exactly, ``2^p + 1`` is not. float64 2⁵³, float32 2²⁴, bfloat16 256, float16 2048."""
    return round(2.0 / float(torch.finfo(torch_dtype(name)).eps))


def largest_finite(name: str) -> float:
    """The largest finite number of the dtype (float16: 65 504)."""
    return float(torch.finfo(torch_dtype(name)).max)


def inv_freq(dim: int, base: float) -> Tensor:
    """``θ_i = base^(−2i/d)``, ``i = 0 … d/2 − 1``, in float64 (Hugging Face's formula)."""
    d = check_even_dim(dim, "dim")
    b = check_base(base)
    return 1.0 / b ** (torch.arange(0, d, 2, dtype=torch.float64) / d)


def angles(positions: Tensor, inv: Tensor, angle_dtype: str) -> Tensor:
    """``(P, N)`` angles ``m·θ_i`` computed in ``angle_dtype`` (both factors cast to it first)."""
    t = torch_dtype(angle_dtype)
    return positions.to(t)[:, None] * inv.to(t)[None, :]


def cos_sin(
    positions: Tensor, inv: Tensor, angle_dtype: str, table_dtype: str
) -> tuple[Tensor, Tensor]:
    """``(P, N)`` cos and sin of :func:`angles`, computed in ``angle_dtype`` and cast to
    ``table_dtype``."""
    a = angles(positions, inv, angle_dtype)
    table = torch_dtype(table_dtype)
    return torch.cos(a).to(table), torch.sin(a).to(table)


def wrap(e: Tensor) -> Tensor:
    """``e`` wrapped to ``(−π, π]`` (float64)."""
    two_pi = 2.0 * math.pi
    return e + two_pi * torch.floor((math.pi - e) / two_pi)


class Errors(NamedTuple):
    """Signed float64 errors ``(P, N)`` against float64: angle (wrapped), cos and sin."""

    angle: Tensor
    cos: Tensor
    sin: Tensor


def errors(positions: Tensor, inv: Tensor, angle_dtype: str, table_dtype: str) -> Errors:
    """The errors of the angle, cos and sin in ``angle_dtype`` (table in ``table_dtype``)
    against float64, at ``positions`` (float64 ``(P,)``) for ``inv`` (float64 ``(N,)``)."""
    pos = positions.to(torch.float64)
    ref = pos[:, None] * inv[None, :]
    a = angles(pos, inv, angle_dtype)
    table = torch_dtype(table_dtype)
    c = torch.cos(a).to(table).to(torch.float64)
    s = torch.sin(a).to(table).to(torch.float64)
    return Errors(wrap(a.to(torch.float64) - ref), c - torch.cos(ref), s - torch.sin(ref))


def recipe_errors(positions: Tensor, inv: Tensor, low_dtype: str) -> tuple[Errors, Errors]:
    """``(cast after float32, all in low)``: the errors of Hugging Face's recipe (angle and
    cos/sin in float32, cast to ``low_dtype``) and of computing the angle in ``low_dtype``."""
    return errors(positions, inv, "float32", low_dtype), errors(
        positions, inv, low_dtype, low_dtype
    )


def pair_parts(x: Tensor) -> tuple[Tensor, Tensor]:
    """The two components of every pair of ``x`` (``(..., d)``, interleaved layout)."""
    return x[..., 0::2], x[..., 1::2]


class ShiftTables(NamedTuple):
    """float64 ``(S, N)`` tables of the score over shifts, from the rounded cos/sin of the query
    positions (``c_m``, ``s_m``) and of the keys (``c_n``, ``s_n``): ``cos = c_m·c_n + s_m·s_n``
    and ``sin = c_m·s_n − s_m·c_n`` (the cosine and sine of ``angle_n − angle_m`` as the rounded
    tables give them)."""

    cos: Tensor
    sin: Tensor


def shift_tables(
    inv: Tensor, queries: Tensor, distance: int, angle_dtype: str, table_dtype: str
) -> ShiftTables:
    """The tables :func:`scores_from_tables` needs for the query positions ``queries`` (float64
    ``(S,)``) and the keys ``distance`` before them, from :func:`cos_sin` (float64 after)."""
    cm, sm = (x.to(torch.float64) for x in cos_sin(queries, inv, angle_dtype, table_dtype))
    keys = queries - float(distance)
    cn, sn = (x.to(torch.float64) for x in cos_sin(keys, inv, angle_dtype, table_dtype))
    return ShiftTables(cm * cn + sm * sn, cm * sn - sm * cn)


def scores_from_tables(q: Tensor, k: Tensor, tables: ShiftTables) -> Tensor:
    """``(S,)`` scores ``q_m·k_n``: every pair of q rotated by the query's rounded cos/sin, of
    k by the key's, dotted, in float64. Expanded, ``(R_m q_i)·(R_n k_i) = (q_a k_a + q_b k_b)·cos
    + (q_b k_a − q_a k_b)·sin`` with the tables of :class:`ShiftTables` (an identity of the
    products, whatever the rounding of the cos/sin): two matrix–vector products per change of
    q or k."""
    qa, qb = pair_parts(q.to(torch.float64))
    ka, kb = pair_parts(k.to(torch.float64))
    return tables.cos @ (qa * ka + qb * kb) + tables.sin @ (qb * ka - qa * kb)


def shifted_scores(
    q: Tensor,
    k: Tensor,
    inv: Tensor,
    queries: Tensor,
    distance: int,
    angle_dtype: str,
    table_dtype: str,
) -> Tensor:
    """``(S,)`` scores ``q_m·k_n`` with ``n = m − distance`` for the query positions ``queries``
    (float64 ``(S,)``), q and k rotated with the cos/sin of :func:`cos_sin` (angle in
    ``angle_dtype``, table in ``table_dtype``); the rotation and the dot product are float64, so
    what varies with ``m`` is the precision of the angles alone. Exact arithmetic gives the same
    score for every ``m`` (RoPE's relative property)."""
    tables = shift_tables(inv, queries, distance, angle_dtype, table_dtype)
    return scores_from_tables(q, k, tables)


def finite_spread(x: Tensor) -> float:
    """``max − min`` of the finite entries of ``x`` (0 when fewer than one is finite)."""
    f = x[torch.isfinite(x)]
    return float(f.max() - f.min()) if f.numel() else 0.0


__all__ = [
    "PRECISION_DTYPES",
    "Errors",
    "ShiftTables",
    "angles",
    "cos_sin",
    "errors",
    "exact_integer_limit",
    "finite_spread",
    "inv_freq",
    "largest_finite",
    "pair_parts",
    "recipe_errors",
    "scores_from_tables",
    "shift_tables",
    "shifted_scores",
    "torch_dtype",
    "unit_roundoff",
    "wrap",
]
