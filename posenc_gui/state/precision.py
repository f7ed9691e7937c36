"""Precision tab: what float32, bfloat16 and float16 do to RoPE at long positions.

The maths is :mod:`posenc_gui.core.precision`: for an angle dtype ``t`` the inverse frequencies
(float64) and the position are cast to ``t``, the angle is their product in ``t``, cos/sin are
computed in ``t`` and cast to the table dtype (``same``: ``t`` itself); the errors are against
float64, the angle's wrapped to ``(−π, π]``.

Parameters: ``position`` m, ``angle_dtype`` (the dtype whose per-pair errors the read-outs list),
``table_dtype``, ``quantity`` (which error the two error plots show), ``pair``, ``dim``, ``base``;
the score at a fixed ``distance`` r over query positions ``m = max(r, 1) … r + shift_range``, for
``vectors`` random (``seed``) or typed (every pair of q is ``(q0, q1)``, of k ``(k0, k1)``).

Read-out groups: ``errors`` (position, dim, base, angle_dtype, table_dtype): ``angle_error``,
``cos_error``, ``sin_error``, signed, one per pair at ``position`` in ``angle_dtype``;
``limits`` (none): per dtype ``exact_integer_limit``, ``unit_roundoff``, ``largest_finite``;
``recipe`` (position, dim, base): per low dtype the largest cos/sin error over the pairs with
the angle in float32 and cos/sin cast to it afterwards (``cast_after_float32``) and with the
angle computed in it (``angle_in_low``), and ``position_in`` (the position as each dtype holds
it); ``scores`` (the score inputs): ``score_reference`` (the float64 score, the same at every
shift) and ``score_spread`` per dtype (max − min over the :data:`SCORE_SAMPLES` sampled shifts
where the dtype holds the positions: float16 holds none above 65 504).

The per-dtype curves (every pair, every sampled position, every sampled shift) come from the
functions here (:func:`pair_errors`, :func:`position_sweep`, :func:`score_curves`), cached by
their inputs: the panel draws what they return and the read-outs are taken from the same arrays.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, ClassVar

from posenc_gui.state.model import Inputs, Limits, ReadoutGroup, TabModel
from posenc_gui.state.params import (
    Value,
    base_param,
    choice_param,
    dim_param,
    float_param,
    int_param,
)

DTYPES: tuple[str, ...] = ("float64", "float32", "bfloat16", "float16")
#: The dtypes whose errors are drawn (float64 is the reference: its angle error is 0).
LOW_DTYPES: tuple[str, ...] = ("float32", "bfloat16", "float16")
#: The dtypes of the "cast after float32" comparison.
RECIPE_DTYPES: tuple[str, ...] = ("bfloat16", "float16")
SAME = "same"
QUANTITIES: tuple[str, ...] = ("angle", "cos", "sin")
VECTOR_MODES: tuple[str, ...] = ("random", "typed")
MAX_POSITION = 10_000_000
#: The error-against-position plot runs to this position for cos/sin (a table) …
TABLE_END = 1_000_000
#: … and to this one for the angle alone.
ANGLE_END = 10_000_000
#: Positions sampled for the error-against-position plot (log-spaced whole numbers from 1):
#: about the pixels of a wide plot.
SWEEP_SAMPLES = 600
#: Query positions sampled for the score over shifts (log-spaced whole numbers).
SCORE_SAMPLES = 512

ERROR_INPUTS = ("position", "dim", "base", "angle_dtype", "table_dtype")
RECIPE_INPUTS = ("position", "dim", "base")
SCORE_INPUTS = (
    "dim", "base", "table_dtype", "distance", "shift_range", "vectors", "seed",
    "q0", "q1", "k0", "k1",
)  # fmt: skip
SWEEP_INPUTS = ("pair", "dim", "base", "table_dtype", "quantity")
OVERFLOW = (
    "float16 overflows: positions above 65 504 are infinite in float16 (no angle, cos or sin)"
)


def table_of(angle_dtype: str, table_dtype: str) -> str:
    """The table dtype for an angle dtype (``same``: the angle's)."""
    return angle_dtype if table_dtype == SAME else table_dtype


@lru_cache(maxsize=8)
def _inv(dim: int, base: float) -> Any:
    from posenc_gui.core.precision import inv_freq

    return inv_freq(dim, base)


@lru_cache(maxsize=16)
def pair_errors(position: int, dim: int, base: float, table_dtype: str) -> dict[str, Any]:
    """Per dtype of :data:`DTYPES`: ``{"angle"|"cos"|"sin": list}``, the signed error of every
    pair at ``position`` (NaN where the dtype overflows). The same dict for the same inputs."""
    import torch

    from posenc_gui.core.precision import errors

    pos = torch.tensor([float(position)], dtype=torch.float64)
    out: dict[str, Any] = {}
    for t in DTYPES:
        e = errors(pos, _inv(dim, base), t, table_of(t, table_dtype))
        out[t] = {"angle": e.angle[0].tolist(), "cos": e.cos[0].tolist(), "sin": e.sin[0].tolist()}
    return out


def sweep_positions(end: int) -> list[int]:
    """About :data:`SWEEP_SAMPLES` whole numbers log-spaced from 1 to ``end`` (sorted, unique)."""
    n = SWEEP_SAMPLES
    return sorted({round(math.exp(math.log(end) * k / (n - 1))) for k in range(n)})


@lru_cache(maxsize=16)
def position_sweep(
    pair: int, dim: int, base: float, table_dtype: str, quantity: str
) -> dict[str, Any]:
    """The error of ``quantity`` of pair ``pair`` against position: ``positions`` (from
    :func:`sweep_positions`, to :data:`ANGLE_END` for the angle, :data:`TABLE_END` otherwise)
    and, per dtype, the signed errors (NaN where the dtype overflows)."""
    import torch

    from posenc_gui.core.precision import errors

    end = ANGLE_END if quantity == "angle" else TABLE_END
    positions = sweep_positions(end)
    pos = torch.tensor(positions, dtype=torch.float64)
    inv = _inv(dim, base)[pair : pair + 1]
    out: dict[str, Any] = {"positions": positions, "end": end}
    for t in DTYPES:
        e = errors(pos, inv, t, table_of(t, table_dtype))
        out[t] = getattr(e, quantity)[:, 0].tolist()
    return out


def score_queries(distance: int, shift_range: int) -> list[int]:
    """The sampled query positions: about :data:`SCORE_SAMPLES` whole numbers log-spaced from
    ``max(r, 1)`` to ``r + R`` (``R`` the shift range; sorted, unique)."""
    lo, hi = max(distance, 1), distance + shift_range
    a, b, n = math.log(lo), math.log(hi), SCORE_SAMPLES
    return sorted({round(math.exp(a + (b - a) * k / (n - 1))) for k in range(n)})


def vectors(v: Mapping[str, Value]) -> tuple[Any, Any]:
    """``q, k`` (float64 ``(d,)``): standard normal from ``seed`` (q first, then k, one
    ``torch.randn(2, d)``), or typed (every pair of q is ``(q0, q1)``, of k ``(k0, k1)``)."""
    import torch

    d = int(v["dim"])
    if v["vectors"] == "typed":
        q = torch.tensor([float(v["q0"]), float(v["q1"])], dtype=torch.float64).repeat(d // 2)
        k = torch.tensor([float(v["k0"]), float(v["k1"])], dtype=torch.float64).repeat(d // 2)
        return q, k
    gen = torch.Generator().manual_seed(int(v["seed"]))
    qk = torch.randn(2, d, dtype=torch.float64, generator=gen)
    return qk[0], qk[1]


def _score_key(v: Mapping[str, Value]) -> tuple[Value | None, ...]:
    typed = v["vectors"] == "typed"
    return tuple(
        None if (typed and n == "seed") or (not typed and n in ("q0", "q1", "k0", "k1")) else v[n]
        for n in SCORE_INPUTS
    )


@lru_cache(maxsize=2)
def _shift_tables(
    dim: int, base: float, table_dtype: str, distance: int, shift_range: int
) -> tuple[list[int], dict[str, Any]]:
    """The sampled query positions and, per dtype, the rotation tables of the score (kept
    while only the vectors change: a seed or a typed component recomputes the dot products
    alone). Two entries only: one is 2 float64 tables × 4 dtypes of (shifts, d/2), 65 MB at
    d = 4096; eight had put the bench's peak memory with every tab open at 647 MB."""
    import torch

    from posenc_gui.core.precision import shift_tables

    queries = score_queries(distance, shift_range)
    m = torch.tensor(queries, dtype=torch.float64)
    inv = _inv(dim, base)
    tables = {t: shift_tables(inv, m, distance, t, table_of(t, table_dtype)) for t in DTYPES}
    return queries, tables


@lru_cache(maxsize=16)
def _score_curves(key: tuple[Value | None, ...]) -> dict[str, Any]:
    from posenc_gui.core.precision import finite_spread, scores_from_tables

    v = {n: x for n, x in zip(SCORE_INPUTS, key, strict=True) if x is not None}
    q, k = vectors(v)
    queries, tables = _shift_tables(int(v["dim"]), float(v["base"]), str(v["table_dtype"]),
                                    int(v["distance"]), int(v["shift_range"]))  # fmt: skip
    out: dict[str, Any] = {"queries": queries, "scores": {}, "spread": {}}
    for t in DTYPES:
        s = scores_from_tables(q, k, tables[t])
        out["scores"][t] = s.tolist()
        out["spread"][t] = finite_spread(s)
    out["reference"] = out["scores"]["float64"][0]
    return out


def score_curves(v: Mapping[str, Value]) -> dict[str, Any]:
    """``queries`` (the sampled m), per dtype ``scores`` (NaN where the dtype overflows) and
    ``spread`` (max − min of the finite ones), and ``reference`` (the float64 score at the
    first shift). The same dict for the same inputs (the seed is not read for typed vectors,
    the typed components not for random ones)."""
    return _score_curves(_score_key(v))


def _errors(v: Inputs) -> dict[str, Any]:
    e = pair_errors(v.as_int("position"), v.as_int("dim"), v.as_float("base"),
                    v.as_str("table_dtype"))[v.as_str("angle_dtype")]  # fmt: skip
    return {"angle_error": e["angle"], "cos_error": e["cos"], "sin_error": e["sin"]}


@lru_cache(maxsize=1)
def _limit_values() -> dict[str, Any]:
    from posenc_gui.core.precision import exact_integer_limit, largest_finite, unit_roundoff

    return {
        "exact_integer_limit": {t: exact_integer_limit(t) for t in DTYPES},
        "unit_roundoff": {t: unit_roundoff(t) for t in DTYPES},
        "largest_finite": {t: largest_finite(t) for t in DTYPES},
    }


def _limits(v: Inputs) -> dict[str, Any]:
    return dict(_limit_values())


@lru_cache(maxsize=16)
def recipe(position: int, dim: int, base: float) -> dict[str, Any]:
    """Per low dtype of :data:`RECIPE_DTYPES`: the largest |cos| or |sin| error over the pairs
    at ``position`` with the angle in float32 and cos/sin cast afterwards
    (``cast_after_float32``) and with everything in the low dtype (``angle_in_low``; NaN when
    the dtype overflows); ``position_in``: the position as each dtype of :data:`DTYPES` holds
    it (``inf`` past its largest number)."""
    import torch

    from posenc_gui.core.precision import recipe_errors, torch_dtype

    pos = torch.tensor([float(position)], dtype=torch.float64)
    out: dict[str, Any] = {"cast_after_float32": {}, "angle_in_low": {}}
    for t in RECIPE_DTYPES:
        for name, e in zip(out, recipe_errors(pos, _inv(dim, base), t), strict=True):
            worst = torch.maximum(e.cos.abs(), e.sin.abs())
            out[name][t] = float("nan") if worst.isnan().any() else float(worst.max())
    out["position_in"] = {t: float(pos.to(torch_dtype(t))[0]) for t in DTYPES}
    return out


def _recipe(v: Inputs) -> dict[str, Any]:
    r = recipe(v.as_int("position"), v.as_int("dim"), v.as_float("base"))
    return {
        "cast_after_float32": dict(r["cast_after_float32"]),
        "angle_in_low": dict(r["angle_in_low"]),
        "position_in": {t: x if math.isfinite(x) else None for t, x in r["position_in"].items()},
    }


def _scores(v: Inputs) -> dict[str, Any]:
    c = score_curves(v)
    return {"score_reference": c["reference"], "score_spread": dict(c["spread"])}


class PrecisionModel(TabModel):
    """RoPE in float32, bfloat16 and float16 against float64, pair by pair."""

    id = "precision"
    title = "Precision (RoPE in float32, bfloat16, float16)"
    short_title = "Precision"
    summary = (
        "What finite precision does to RoPE at long positions: the angle, cos and sin error of "
        "every pair in float32, bfloat16 and float16 against float64, the error of one pair "
        "against position, the score at a fixed distance broken as the positions shift, and "
        "why real code keeps the angle in float32."
    )
    params = (
        int_param(
            "position", 50_000, 0, MAX_POSITION, "Position m",
            "The position whose angles m·θ_i are computed (the slider is coarse; type an exact "
            "value in the box).",
        ),
        choice_param(
            "angle_dtype", "bfloat16", DTYPES, "Angle dtype",
            "The dtype the angle and cos/sin are computed in, whose per-pair errors the "
            "read-outs list (every dtype is drawn).",
        ),
        choice_param(
            "table_dtype", SAME, (SAME, *DTYPES), "Table dtype",
            "The dtype cos/sin are stored in (cast after computing them); same: the angle's.",
            choice_labels=("same as the angle", *DTYPES),
        ),
        choice_param(
            "quantity", "cos", QUANTITIES, "Error of",
            "Which error the two error plots show: the angle (wrapped to (−π, π]), cos or sin.",
        ),
        int_param(
            "pair", 0, 0, 255, "Pair i",
            "The pair whose error is drawn against position (0 … d/2 − 1).",
        ),
        dim_param(128, 512, label="Head dim d", minimum=4,
                  description="Head dimension d (d/2 rotated pairs)."),
        base_param(description="Frequency base: θ_i = base^(−2i/d)."),
        int_param(
            "distance", 8, 0, 100_000, "Distance r",
            "The fixed distance m − n of the score over shifts.",
        ),
        int_param(
            "shift_range", 1_000_000, 16, MAX_POSITION, "Shift range",
            "The query position m runs from r to r + this range (n = m − r).", log=True,
        ),
        choice_param(
            "vectors", "random", VECTOR_MODES, "Vectors q, k",
            "random: q and k drawn from a standard normal (seed); typed: every pair of q is "
            "(q0, q1), every pair of k is (k0, k1).",
            choice_labels=("random (seed)", "typed pair"),
        ),
        int_param("seed", 0, 0, 999, "Seed", "Seed of the random query and key vectors."),
        float_param("q0", 1.0, -5.0, 5.0, "q pair, 1st", "First component of every q pair.",
                    step=0.1),
        float_param("q1", 0.0, -5.0, 5.0, "q pair, 2nd", "Second component of every q pair.",
                    step=0.1),
        float_param("k0", 1.0, -5.0, 5.0, "k pair, 1st", "First component of every k pair.",
                    step=0.1),
        float_param("k1", 0.0, -5.0, 5.0, "k pair, 2nd", "Second component of every k pair.",
                    step=0.1),
    )  # fmt: skip

    groups = (
        ReadoutGroup("errors", ERROR_INPUTS, _errors),
        ReadoutGroup("limits", (), _limits),
        ReadoutGroup("recipe", RECIPE_INPUTS, _recipe),
        ReadoutGroup("scores", SCORE_INPUTS, _scores),
    )
    undefined: ClassVar[Mapping[str, str]] = {
        "angle_error": OVERFLOW,
        "cos_error": OVERFLOW,
        "sin_error": OVERFLOW,
        "float16": OVERFLOW,
    }

    figures = ("pairs", "position_error", "score", "readout")
    #: No pairs: the read-out (four wrapped lines at presentation scale) is a stage of its own;
    #: under the per-pair plot it left the plot a third of a 1024×768 screen.
    figure_pairs = ()
    animated = "position"

    @classmethod
    def limits(cls, values: Mapping[str, Value]) -> Limits:
        v = Inputs(values, frozenset(("dim",)), "precision limits")
        return {"pair": (0, v.as_int("dim") // 2 - 1)}


MODEL = PrecisionModel
