"""PE heatmap tab: the sinusoidal table ``PE[p, j]`` as an image, with linked slices.

Conventions: ``ω_i = base^(-2i/d)``, wavelength ``λ_i = 2π/ω_i``.

* ``layout="interleaved"`` (the paper): column ``2i`` holds ``sin(p·ω_i)``, column ``2i+1``
  holds ``cos(p·ω_i)``; the partner of column ``j`` is ``j XOR 1``.
* ``layout="concat"``: columns ``0 … d/2-1`` hold ``sin(p·ω_i)`` (``i = j``), columns
  ``d/2 … d-1`` hold ``cos(p·ω_i)`` (``i = j - d/2``); the partner of ``j`` is ``j ± d/2``.

A pair "completes a full turn within the sequence" when its angle sweeps at least ``2π`` over
positions ``0 … L-1``, i.e. ``(L-1)·ω_i ≥ 2π`` ⇔ ``λ_i ≤ L-1``.

Read-outs come in groups with declared inputs (see :data:`HeatmapModel.groups`); the maths
(partial tables, envelopes, pixel means) lives in :mod:`posenc_gui.core.sinusoidal`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

from posenc_gui.state.model import Inputs, Limits, ReadoutGroup, TabModel, check_span
from posenc_gui.state.params import (
    Value,
    base_param,
    dim_param,
    int_param,
    sinusoidal_layout_param,
)

TAU = 2.0 * math.pi
MAX_POSITIONS = 1_000_000
MAX_DIM = 4096

#: One-click views. ``explainer``: the figure of the explainer (first 30 positions × first 6
#: dimensions of d = 128). ``notebook``: the notebook's ``PositionalEncoding(512)`` applied to a
#: batch of length 100 (the whole 100 × 512 table).
PRESETS: dict[str, dict[str, Value]] = {
    "explainer": {
        "positions": 30,
        "dim": 128,
        "base": 10000.0,
        "layout": "interleaved",
        "shown_dims": 6,
    },
    "notebook": {
        "positions": 100,
        "dim": 512,
        "base": 10000.0,
        "layout": "interleaved",
        "shown_dims": 0,
    },
}


def shown_count(values: Mapping[str, Value]) -> int:
    """How many dimension columns the heatmap shows (``shown_dims``, 0 meaning all ``dim``)."""
    v = Inputs(values, frozenset(("dim", "shown_dims")), "shown_count")
    dim, shown = v.as_int("dim"), v.as_int("shown_dims")
    return dim if shown <= 0 else min(shown, dim)


def column_role(dim: int, layout: str, j: int) -> tuple[int, bool, int]:
    """``(pair i, is_sin, partner column)`` of column ``j`` for ``layout``."""
    from posenc_gui.core.sinusoidal import sinusoidal_column_role

    return sinusoidal_column_role(dim, layout, j)


def _layout(v: Inputs) -> Literal["interleaved", "concat"]:
    return "concat" if v.as_str("layout") == "concat" else "interleaved"


def _omega(dim: int, base: float, pair: int) -> float:
    """``ω_i = base^(−2i/d)`` (float64, the same number as ``core.inverse_frequencies``)."""
    from posenc_gui.core.sinusoidal import inverse_frequency

    return inverse_frequency(dim, base, pair)


def cell(values: Mapping[str, Value], position: int, dimension: int) -> dict[str, Any]:
    """Everything about one entry ``PE[position, dimension]`` (reads ``dim``, ``base``, ``layout``).

    Keys: ``position``, ``dimension``, ``pair`` (i), ``function`` ("sin"/"cos"), ``partner``
    (column of the same ω), ``exponent`` (2i, so ω = base^(−2i/d)), ``omega``, ``angle``
    (p·ω_i, float64), ``value``.
    """
    v = Inputs(values, frozenset(CELL_PARAMS), "cell")
    dim = v.as_int("dim")
    pair, is_sin, partner = column_role(dim, v.as_str("layout"), dimension)
    omega = _omega(dim, v.as_float("base"), pair)
    angle = position * omega
    return {
        "position": position,
        "dimension": dimension,
        "pair": pair,
        "function": "sin" if is_sin else "cos",
        "partner": partner,
        "exponent": 2 * pair,
        "omega": omega,
        "angle": angle,
        "value": math.sin(angle) if is_sin else math.cos(angle),
    }


#: Parameters that fix what a column holds (a cell also needs its position and dimension).
CELL_PARAMS = ("dim", "base", "layout")
SHOWN_INPUTS = ("dim", "shown_dims")
COLUMN_INPUTS = ("dim", "base", "layout", "dimension")
CELL_INPUTS = ("dim", "base", "layout", "position", "dimension")
VECTOR_INPUTS = ("dim", "base", "layout", "position")
SPECTRUM_INPUTS = ("positions", "dim", "base")
TURNS_INPUTS = ("positions", "dim", "base", "layout", "dimension")


def _shown(v: Inputs) -> dict[str, Any]:
    """How many columns the heatmap shows."""
    return {"shown": shown_count(v)}


def _column(v: Inputs) -> dict[str, Any]:
    """The selected column j: its pair, function, partner and frequency."""
    dim = v.as_int("dim")
    pair, is_sin, partner = column_role(dim, v.as_str("layout"), v.as_int("dimension"))
    omega = _omega(dim, v.as_float("base"), pair)
    return {
        "pair": pair,
        "function": "sin" if is_sin else "cos",
        "partner": partner,
        "partner_function": "cos" if is_sin else "sin",
        "exponent": 2 * pair,
        "omega": omega,
        "frequency": omega / TAU,
        "selected_wavelength": TAU / omega,
    }


def _cell(v: Inputs) -> dict[str, Any]:
    """The selected entry PE[p, j] and its partner PE[p, partner] (float64 angle)."""
    c = cell(v, v.as_int("position"), v.as_int("dimension"))
    is_sin = c["function"] == "sin"
    return {
        "angle": c["angle"],
        "value": c["value"],
        "partner_value": math.cos(c["angle"]) if is_sin else math.sin(c["angle"]),
    }


def _vector(v: Inputs) -> dict[str, Any]:
    """The encoding vector PE[p, :] (float64) and its squared norm (= d/2)."""
    import torch  # imported here so that validating parameters stays fast (no torch)

    from posenc_gui.core.sinusoidal import sinusoidal_at

    vector = sinusoidal_at(
        [float(v.as_int("position"))], v.as_int("dim"), v.as_float("base"),
        layout=_layout(v), dtype=torch.float64,
    )[0]  # fmt: skip
    return {"vector": vector.tolist(), "vector_norm_sq": float((vector * vector).sum())}


def _spectrum(v: Inputs) -> dict[str, Any]:
    """Every pair's wavelength against the span L−1, and how many pairs turn fully."""
    from posenc_gui.core.sinusoidal import wavelengths

    dim = v.as_int("dim")
    wavelength = wavelengths(dim, v.as_float("base"))
    span = v.as_int("positions") - 1
    full = int((wavelength <= span).sum().item())
    return {
        "pairs": dim // 2,
        "span": span,
        "wavelength": wavelength.tolist(),
        "full_turn_pairs": full,
        "never_turn_pairs": dim // 2 - full,
    }


def _turns(v: Inputs) -> dict[str, Any]:
    """How many turns the selected column makes over positions 0…L−1."""
    dim = v.as_int("dim")
    pair = column_role(dim, v.as_str("layout"), v.as_int("dimension"))[0]
    return {"turns": (v.as_int("positions") - 1) * _omega(dim, v.as_float("base"), pair) / TAU}


class HeatmapModel(TabModel):
    """The table ``PE[p, j]`` for ``p < positions``, ``j < dim`` and its selected row/column.

    Read-out groups: ``shown`` (``shown``); ``column`` (``pair``, ``function``, ``partner``,
    ``partner_function``, ``exponent``, ``omega``, ``frequency``, ``selected_wavelength``);
    ``cell`` (``angle``, ``value``, ``partner_value``); ``vector`` (``vector``,
    ``vector_norm_sq``); ``spectrum`` (``pairs``, ``span``, ``wavelength``,
    ``full_turn_pairs``, ``never_turn_pairs``); ``turns`` (``turns``).
    """

    id = "heatmap"
    title = "PE heatmap"
    short_title = "Heatmap"
    summary = (
        "The whole sinusoidal table PE[position, dimension] as a heatmap, with the encoding "
        "vector at one position, one dimension over positions, and every pair's wavelength."
    )
    params = (
        int_param(
            "positions",
            100,
            1,
            MAX_POSITIONS,
            "Positions L",
            "Number of positions 0…L−1 in the table (rows of PE).",
            log=True,
        ),
        dim_param(128, MAX_DIM),
        base_param(description="Base of the frequencies: ω_i = base^(−2i/d)."),
        sinusoidal_layout_param(),
        int_param(
            "position",
            37,
            0,
            MAX_POSITIONS - 1,
            "Position p",
            "Selected position p: the encoding vector PE[p] is shown.",
        ),
        int_param(
            "dimension",
            12,
            0,
            MAX_DIM - 1,
            "Dimension j",
            "Selected dimension (column) j, drawn over positions with its sin/cos partner.",
        ),
        int_param(
            "shown_dims",
            0,
            0,
            MAX_DIM,
            "Dims shown",
            "How many of the first dimension columns the heatmap shows (0 = all d).",
        ),
    )
    groups = (
        ReadoutGroup("shown", SHOWN_INPUTS, _shown),
        ReadoutGroup("column", COLUMN_INPUTS, _column),
        ReadoutGroup("cell", CELL_INPUTS, _cell),
        ReadoutGroup("vector", VECTOR_INPUTS, _vector),
        ReadoutGroup("spectrum", SPECTRUM_INPUTS, _spectrum),
        ReadoutGroup("turns", TURNS_INPUTS, _turns),
    )

    @classmethod
    def limits(cls, values: Mapping[str, Value]) -> Limits:
        v = Inputs(values, frozenset(("positions", "dim", "shown_dims")), "heatmap limits")
        return {
            "position": (0, v.as_int("positions") - 1),
            "shown_dims": (0, v.as_int("dim")),
            "dimension": (0, shown_count(v) - 1),
        }

    @classmethod
    def check_view(cls, values: Mapping[str, Value], view: Mapping[str, Any]) -> None:
        """The heatmap's ``x_range`` (positions) and ``y_range`` (shown dimensions)."""
        v = Inputs(values, frozenset(("positions", "dim", "shown_dims")), "heatmap view")
        x_hi, y_hi = v.as_int("positions") - 0.5, shown_count(v) - 0.5
        check_span(view, "x_range", -0.5, x_hi, "the table's positions")
        check_span(view, "y_range", -0.5, y_hi, "the table's shown dimensions")

    @classmethod
    def cell(cls, values: Mapping[str, Value], position: int, dimension: int) -> dict[str, Any]:
        """See :func:`cell` (kept on the model for the panel's hover text)."""
        return cell(values, position, dimension)

    figures = (
        "image",
        "vector",
        "hover",
        "curves",
        "wavelengths",
        "curve_label",
        "turns_label",
        "formula",
    )
    #: Presented together (enlarged, F5): a plot and its read-out block. The hover read-out is
    #: a stage of its own: under the image it would take half of a 1024×768 projector's height.
    figure_pairs = (
        ("curves", "curve_label"),
        ("wavelengths", "turns_label"),
    )
    animated = "position"


MODEL = HeatmapModel
