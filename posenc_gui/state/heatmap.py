"""PE heatmap tab: the sinusoidal table ``PE[p, j]`` as an image, with linked slices.

Conventions (GUIDE §4): ``ω_i = base^(-2i/d)``, wavelength ``λ_i = 2π/ω_i``.

* ``layout="interleaved"`` (the paper): column ``2i`` holds ``sin(p·ω_i)``, column ``2i+1``
  holds ``cos(p·ω_i)``; the partner of column ``j`` is ``j XOR 1``.
* ``layout="concat"``: columns ``0 … d/2-1`` hold ``sin(p·ω_i)`` (``i = j``), columns
  ``d/2 … d-1`` hold ``cos(p·ω_i)`` (``i = j - d/2``); the partner of ``j`` is ``j ± d/2``.

A pair "completes a full turn within the sequence" when its angle sweeps at least ``2π`` over
positions ``0 … L-1``, i.e. ``(L-1)·ω_i ≥ 2π`` ⇔ ``λ_i ≤ L-1``.

The helpers :meth:`HeatmapModel.table` and :meth:`HeatmapModel.envelope` evaluate only the
requested rows (positions) and columns, so a view of 1,000,000 positions × 4096 dimensions is
computed at screen resolution; angles are float64 throughout.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from posenc_gui.state.model import Limits, TabModel
from posenc_gui.state.params import Value, choice_param, float_param, int_param

if TYPE_CHECKING:
    import torch

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


def _num(values: Mapping[str, Value], name: str) -> float:
    v = values[name]
    assert not isinstance(v, str)
    return float(v)


def shown_count(values: Mapping[str, Value]) -> int:
    """How many dimension columns the heatmap shows (``shown_dims``, 0 meaning all ``dim``)."""
    dim = int(_num(values, "dim"))
    shown = int(_num(values, "shown_dims"))
    return dim if shown <= 0 else min(shown, dim)


def column_role(dim: int, layout: str, j: int) -> tuple[int, bool, int]:
    """``(pair i, is_sin, partner column)`` of column ``j`` for ``layout``."""
    half = dim // 2
    if layout == "interleaved":
        return j // 2, j % 2 == 0, j ^ 1
    if j < half:
        return j, True, j + half
    return j - half, False, j - half


class HeatmapModel(TabModel):
    """The table ``PE[p, j]`` for ``p < positions``, ``j < dim`` and its selected row/column."""

    id = "heatmap"
    title = "PE heatmap"
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
        int_param(
            "dim",
            128,
            2,
            MAX_DIM,
            "Model dim d",
            "Encoding dimension d (even: one sin/cos pair per frequency).",
            even=True,
        ),
        float_param(
            "base",
            10000.0,
            10.0,
            1e7,
            "Base",
            "Base of the frequencies: ω_i = base^(−2i/d).",
            log=True,
            decimals=1,
        ),
        choice_param(
            "layout",
            "interleaved",
            ("interleaved", "concat"),
            "Layout",
            "interleaved (paper): column 2i = sin, 2i+1 = cos; "
            "concat: all d/2 sines, then all d/2 cosines.",
            choice_labels=("interleaved (sin, cos, sin, cos, …)", "concat (all sin | all cos)"),
        ),
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

    @classmethod
    def limits(cls, values: Mapping[str, Value]) -> Limits:
        positions = int(_num(values, "positions"))
        dim = int(_num(values, "dim"))
        return {
            "position": (0, positions - 1),
            "shown_dims": (0, dim),
            "dimension": (0, shown_count(values) - 1),
        }

    # -- maths helpers (torch imported lazily) ---------------------------------------------------
    @classmethod
    def table(
        cls,
        values: Mapping[str, Value],
        positions: torch.Tensor | Sequence[float],
        columns: torch.Tensor | Sequence[int],
    ) -> torch.Tensor:
        """``PE[positions][:, columns]`` as float64, computing only the requested entries.

        Equal to ``core.sinusoidal_at(positions, dim, base, layout=layout)[:, columns]`` but
        costs ``N × len(columns)`` sines/cosines instead of ``N × dim``. Positions may be
        fractional (for smooth curves) and as large as 1e6; angles are float64.
        """
        import torch

        from posenc_gui import core

        dim = int(_num(values, "dim"))
        layout = str(values["layout"])
        pos = torch.as_tensor(positions, dtype=torch.float64).reshape(-1)
        cols = torch.as_tensor(columns, dtype=torch.int64).reshape(-1)
        omega = core.inverse_frequencies(dim, _num(values, "base"))
        half = dim // 2
        if layout == "interleaved":
            pair, is_sin = cols // 2, cols % 2 == 0
        else:
            pair, is_sin = cols % half, cols < half
        out = torch.empty((pos.shape[0], cols.shape[0]), dtype=torch.float64)
        sin_idx = torch.nonzero(is_sin).reshape(-1)
        cos_idx = torch.nonzero(~is_sin).reshape(-1)
        if sin_idx.numel():
            out[:, sin_idx] = torch.sin(pos[:, None] * omega[pair[sin_idx]][None, :])
        if cos_idx.numel():
            out[:, cos_idx] = torch.cos(pos[:, None] * omega[pair[cos_idx]][None, :])
        return out

    @classmethod
    def envelope(
        cls, values: Mapping[str, Value], column: int, edges: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Exact minimum and maximum of column ``column`` over each interval of ``edges``.

        ``edges`` (float64, shape ``(n+1,)``, increasing) delimit ``n`` position intervals; the
        column's curve ``sin(x·ω_i)`` or ``cos(x·ω_i)`` reaches ``±1`` inside an interval when
        the angle range contains a crest/trough, otherwise its extremes are at the ends. This
        draws a curve that oscillates faster than the pixels as the band it fills, not as an
        aliased zig-zag. Returns ``(lo, hi)`` of shape ``(n,)``.
        """
        import torch

        from posenc_gui import core

        dim = int(_num(values, "dim"))
        pair, is_sin, _ = column_role(dim, str(values["layout"]), column)
        omega = float(core.inverse_frequencies(dim, _num(values, "base"))[pair])
        angles = edges.to(torch.float64) * omega
        # f(θ) = sin(θ + φ): φ = 0 for sin, π/2 for cos. Crest where θ + φ = π/2 + 2πk.
        phi = 0.0 if is_sin else math.pi / 2
        ends = torch.sin(angles + phi)
        a, b = angles[:-1], angles[1:]
        crest = math.pi / 2 - phi
        trough = crest + math.pi
        has_crest = torch.floor((b - crest) / TAU) >= torch.ceil((a - crest) / TAU)
        has_trough = torch.floor((b - trough) / TAU) >= torch.ceil((a - trough) / TAU)
        hi = torch.where(has_crest, 1.0, torch.maximum(ends[:-1], ends[1:]))
        lo = torch.where(has_trough, -1.0, torch.minimum(ends[:-1], ends[1:]))
        return lo, hi

    @classmethod
    def cell(cls, values: Mapping[str, Value], position: int, dimension: int) -> dict[str, Any]:
        """Everything about one entry ``PE[position, dimension]`` (used by hover texts too).

        Keys: ``position``, ``dimension``, ``pair`` (i), ``function`` ("sin"/"cos"),
        ``partner`` (column of the same ω), ``exponent`` (2i, so ω = base^(−2i/d)), ``omega``,
        ``angle`` (p·ω_i), ``value``.
        """
        from posenc_gui import core

        dim = int(_num(values, "dim"))
        pair, is_sin, partner = column_role(dim, str(values["layout"]), dimension)
        omega = float(core.inverse_frequencies(dim, _num(values, "base"))[pair])
        value = float(cls.table(values, [float(position)], [dimension])[0, 0])
        return {
            "position": position,
            "dimension": dimension,
            "pair": pair,
            "function": "sin" if is_sin else "cos",
            "partner": partner,
            "exponent": 2 * pair,
            "omega": omega,
            "angle": position * omega,
            "value": value,
        }

    @classmethod
    def readouts(cls, values: Mapping[str, Value]) -> dict[str, Any]:
        import torch  # imported here so that validating parameters stays fast (no torch)

        from posenc_gui import core

        positions = int(_num(values, "positions"))
        dim = int(_num(values, "dim"))
        base = _num(values, "base")
        layout = str(values["layout"])
        p = int(_num(values, "position"))
        j = int(_num(values, "dimension"))
        sel = cls.cell(values, p, j)
        vector = core.sinusoidal_at(
            [float(p)],
            dim,
            base,
            layout="interleaved" if layout == "interleaved" else "concat",
            dtype=torch.float64,
        )[0]
        wavelength = core.wavelengths(dim, base)
        span = positions - 1
        full = int((wavelength <= span).sum().item())
        omega = sel["omega"]
        return {
            "shown": shown_count(values),
            "pairs": dim // 2,
            "span": span,
            "pair": sel["pair"],
            "function": sel["function"],
            "partner": sel["partner"],
            "partner_function": "cos" if sel["function"] == "sin" else "sin",
            "exponent": sel["exponent"],
            "omega": omega,
            "frequency": omega / TAU,
            "selected_wavelength": TAU / omega,
            "angle": sel["angle"],
            "turns": span * omega / TAU,
            "value": sel["value"],
            "partner_value": float(vector[sel["partner"]]),
            "vector": vector.tolist(),
            "vector_norm_sq": float((vector * vector).sum()),
            "wavelength": wavelength.tolist(),
            "full_turn_pairs": full,
            "never_turn_pairs": dim // 2 - full,
        }


MODEL = HeatmapModel
