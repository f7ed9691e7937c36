"""Absolute positional encodings: sinusoidal (Vaswani et al. 2017), binary, naive and learned.

Conventions
-----------
* Frequencies ``ω_i = base^(-2i/d)`` for ``i = 0 … d/2 - 1`` (so ``ω_0 = 1`` and
  ``ω_{d/2-1} = base^(-(d-2)/d)``); wavelengths ``λ_i = 2π/ω_i``.
* ``layout="interleaved"`` is the paper's layout: ``PE[p, 2i] = sin(p·ω_i)``,
  ``PE[p, 2i+1] = cos(p·ω_i)``.
* ``layout="concat"`` uses the same frequencies but puts all sines first, then all cosines:
  ``PE[p, i] = sin(p·ω_i)``, ``PE[p, d/2 + i] = cos(p·ω_i)`` (what many codebases do).
  (tensor2tensor additionally spaces its frequencies with ``d/2 - 1`` steps; this module does not.)
* Angles ``p·ω_i`` are always computed in float64 and only the final table is cast, so positions
  up to 1e6 and beyond stay accurate.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
import torch
from torch import Tensor, nn

from ._validate import (
    RealVector,
    check_base,
    check_choice,
    check_even_dim,
    check_int,
    check_nonneg_float,
    check_positive_int,
    to_float64_vector,
)

__all__ = [
    "SINUSOIDAL_LAYOUTS",
    "PositionalEncoding",
    "SinusoidalLayout",
    "binary_encoding",
    "group_row_means",
    "inverse_frequencies",
    "learned_encoding",
    "naive_encoding",
    "sin_cos_means",
    "sinusoidal_at",
    "sinusoidal_column_envelope",
    "sinusoidal_column_means",
    "sinusoidal_column_min_max",
    "sinusoidal_column_role",
    "sinusoidal_columns_from_angles",
    "sinusoidal_dot_by_offset",
    "sinusoidal_encoding",
    "sinusoidal_pair_angles",
    "wavelengths",
]

SinusoidalLayout = Literal["interleaved", "concat"]
SINUSOIDAL_LAYOUTS: tuple[str, ...] = ("interleaved", "concat")

_MAX_BITS = 63


def inverse_frequencies(dim: int, base: float = 10000.0) -> Tensor:
    """Angular frequencies ``ω_i = base^(-2i/dim)`` for ``i = 0 … dim/2 - 1``.

    Args:
        dim: model / head dimension, an even integer >= 2.
        base: frequency base, a finite number > 1 (10000 in the Transformer and RoPE papers).

    Returns:
        float64 tensor of shape ``(dim // 2,)``, decreasing from ``ω_0 = 1`` to
        ``base^(-(dim-2)/dim)``. The same frequencies serve as RoPE's ``θ_i``.
    """
    dim = check_even_dim(dim)
    base = check_base(base)
    return _inverse_frequencies(dim, base).clone()


@functools.lru_cache(maxsize=16)
def _inverse_frequencies(dim: int, base: float) -> Tensor:
    """The cached frequencies behind :func:`inverse_frequencies` (never handed out: cloned).

    A slider step of a tab asks for the same ``(dim, base)`` several times (read-outs, table,
    curves); the arange/pow costs more than the clone.
    """
    exponents = torch.arange(0, dim, 2, dtype=torch.float64) / dim
    return torch.pow(torch.tensor(base, dtype=torch.float64), -exponents)


def inverse_frequency(dim: int, base: float, pair: int) -> float:
    """``ω_pair = base^(-2·pair/dim)``: the float equal to ``float(inverse_frequencies(dim,
    base)[pair])``, without building and cloning the whole tensor.

    A slider step reads one pair's frequency several times (read-outs of a column, a cell, a
    turn count); each read of :func:`inverse_frequencies` validated and cloned ``dim/2`` values.
    """
    values = _inverse_frequency_values(check_even_dim(dim), check_base(base))
    pair = check_int(pair, "pair")
    if not 0 <= pair < len(values):
        raise ValueError(f"pair must be in [0, {len(values)}), got {pair}")
    return values[pair]


@functools.lru_cache(maxsize=16)
def _inverse_frequency_values(dim: int, base: float) -> tuple[float, ...]:
    """The cached frequencies of :func:`_inverse_frequencies` as Python floats."""
    return tuple(_inverse_frequencies(dim, base).tolist())


def wavelengths(dim: int, base: float = 10000.0) -> Tensor:
    """Wavelengths ``λ_i = 2π / ω_i`` (in positions) of the sinusoidal / RoPE frequencies.

    Returns:
        float64 tensor of shape ``(dim // 2,)``, increasing from ``2π`` to
        ``2π·base^((dim-2)/dim)``.
    """
    return (2.0 * math.pi) / inverse_frequencies(dim, base)


def _table_from_positions(
    positions: Tensor, dim: int, base: float, layout: str, dtype: torch.dtype
) -> Tensor:
    """Build the sinusoidal table for float64 ``positions`` of shape ``(N,)``."""
    omega = inverse_frequencies(dim, base)
    angles = positions.to(torch.float64)[:, None] * omega[None, :]  # (N, dim/2), float64
    sin, cos = torch.sin(angles), torch.cos(angles)
    if layout == "interleaved":
        table = torch.stack((sin, cos), dim=-1).reshape(positions.shape[0], dim)
    else:
        table = torch.cat((sin, cos), dim=-1)
    return table.to(dtype)


def sinusoidal_encoding(
    num_positions: int,
    dim: int,
    base: float = 10000.0,
    *,
    layout: SinusoidalLayout = "interleaved",
    start: int = 0,
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    """Sinusoidal positional-encoding table for positions ``start … start + num_positions - 1``.

    Args:
        num_positions: number of rows, an integer >= 1.
        dim: encoding dimension, an even integer >= 2.
        base: frequency base, a finite number > 1.
        layout: ``"interleaved"`` (paper: column ``2i`` = ``sin(p·ω_i)``, ``2i+1`` =
            ``cos(p·ω_i)``) or ``"concat"`` (columns ``0 … d/2-1`` sines, ``d/2 … d-1`` cosines).
        start: first position (any integer).
        dtype: dtype of the returned table; angles are computed in float64 regardless.

    Returns:
        tensor of shape ``(num_positions, dim)`` and dtype ``dtype``; row ``r`` encodes position
        ``start + r``.
    """
    num_positions = check_positive_int(num_positions, "num_positions")
    dim = check_even_dim(dim)
    base = check_base(base)
    layout_s = check_choice(layout, "layout", SINUSOIDAL_LAYOUTS)
    start = check_int(start, "start")
    positions = torch.arange(start, start + num_positions, dtype=torch.float64)
    return _table_from_positions(positions, dim, base, layout_s, dtype)


def sinusoidal_at(
    positions: RealVector,
    dim: int,
    base: float = 10000.0,
    *,
    layout: SinusoidalLayout = "interleaved",
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    """Sinusoidal encoding rows at arbitrary (possibly fractional or very large) positions.

    Same conventions as :func:`sinusoidal_encoding`; useful to evaluate only the rows that land
    on screen pixels.

    Args:
        positions: 1-D tensor or sequence of ``N`` real positions, converted to float64 (pass
            float64 or integer values: a float32 position loses digits past ~10⁷). The angles
            ``p·ω_i`` are float64 products, so they carry ~16 significant digits: an absolute
            error of ~p·1e-16 rad, about 1e-9 rad at p = 10⁷ — fine for plots, not exact.
        dim: encoding dimension, an even integer >= 2.
        base: frequency base, a finite number > 1.
        layout: ``"interleaved"`` or ``"concat"``.
        dtype: dtype of the returned table.

    Returns:
        tensor of shape ``(N, dim)`` and dtype ``dtype``.
    """
    pos = to_float64_vector(positions, "positions")
    dim = check_even_dim(dim)
    base = check_base(base)
    layout_s = check_choice(layout, "layout", SINUSOIDAL_LAYOUTS)
    return _table_from_positions(pos, dim, base, layout_s, dtype)


def sinusoidal_columns(
    positions: RealVector,
    columns: Sequence[int] | Tensor,
    dim: int,
    base: float = 10000.0,
    *,
    layout: SinusoidalLayout = "interleaved",
    dtype: torch.dtype = torch.float64,
) -> Tensor:
    """``PE[positions][:, columns]``, computing only the requested entries.

    Equal to ``sinusoidal_at(positions, dim, base, layout=layout)[:, columns]`` but costs
    ``N × len(columns)`` sines and cosines instead of ``N × dim`` (a plot of the first few
    dimensions of a 4096-dimensional encoding computes those few). Angles are float64
    products with ~16 significant digits: an absolute error of ~p·1e-16 rad (about 1e-9 rad
    at position 10⁷, more beyond).

    Args:
        positions: ``N`` real positions (fractional ones give smooth curves).
        columns: ``C`` column indices in ``[0, dim)``.
        dim, base, layout: as in :func:`sinusoidal_encoding`.
        dtype: dtype of the result.

    Returns:
        tensor of shape ``(N, C)``.
    """
    pos = to_float64_vector(positions, "positions")
    dim = check_even_dim(dim)
    base = check_base(base)
    layout_s = check_choice(layout, "layout", SINUSOIDAL_LAYOUTS)
    cols = _check_columns(columns, dim)
    omega = inverse_frequencies(dim, base)
    half = dim // 2
    if layout_s == "interleaved":
        pair, is_sin = cols // 2, cols % 2 == 0
    else:
        pair, is_sin = cols % half, cols < half
    angles = pos[:, None] * omega[pair][None, :]
    out = torch.where(is_sin[None, :], torch.sin(angles), torch.cos(angles))
    return out.to(dtype)


def sinusoidal_pair_angles(
    positions: RealVector, columns: int, dim: int, base: float = 10000.0
) -> Tensor:
    """Angles ``p·ω_i`` of the pairs behind the first ``columns`` columns (interleaved layout).

    Columns ``2i`` (sine) and ``2i+1`` (cosine) share the angle ``p·ω_i``, so the first
    ``columns`` columns need the pairs ``i < ceil(columns/2)``: each angle is computed once for
    its sine and its cosine (:func:`sinusoidal_columns` takes both functions of every column and
    keeps one, twice the work). Same float64 products as :func:`sinusoidal_columns`.
    Feed the result to :func:`sinusoidal_columns_from_angles` or
    :func:`sinusoidal_column_min_max`.

    Args:
        positions: ``N`` real positions.
        columns: how many leading columns the angles serve, in ``[1, dim]``.
        dim, base: as in :func:`sinusoidal_encoding`.

    Returns:
        float64 tensor of shape ``(N, ceil(columns/2))``: entry ``[n, i] = positions[n]·ω_i``.
    """
    pos = to_float64_vector(positions, "positions")
    dim = check_even_dim(dim)
    shown = check_positive_int(columns, "columns", maximum=dim)
    omega = _inverse_frequencies(dim, check_base(base))[: (shown + 1) // 2]
    return pos[:, None] * omega[None, :]


def sinusoidal_columns_from_angles(angles: Tensor, columns: int) -> Tensor:
    """``PE[p, j]`` for ``j < columns`` (interleaved: sin, cos, sin, …) from pair angles.

    Args:
        angles: float64 ``(N, P)`` pair angles (:func:`sinusoidal_pair_angles`).
        columns: how many leading columns, in ``[0, 2P]``.

    Returns:
        float64 tensor of shape ``(N, columns)``: column ``2i`` holds ``sin(angles[:, i])``,
        column ``2i+1`` holds ``cos(angles[:, i])``.
    """
    pairs = _check_angles(angles, columns)
    table = torch.stack((torch.sin(angles), torch.cos(angles)), dim=-1)
    return table.reshape(angles.shape[0], 2 * pairs)[:, :columns]


def sinusoidal_column_min_max(angles: Tensor, group: int, columns: int) -> tuple[Tensor, Tensor]:
    """Minimum and maximum of ``PE[p, j]`` (``j < columns``) over each run of ``group`` rows.

    Every position counts (a per-pixel-column envelope that point sampling would alias): run
    ``r`` covers rows ``r·group … r·group + group − 1`` of ``angles``, the last run may be
    shorter. Columns are interleaved as in :func:`sinusoidal_columns_from_angles`.

    Args:
        angles: float64 ``(N, P)`` pair angles (:func:`sinusoidal_pair_angles`), ``N >= 1``.
        group: rows per run, >= 1.
        columns: how many leading columns, in ``[0, 2P]``.

    Returns:
        ``(mins, maxs)``, float64 tensors of shape ``(ceil(N / group), columns)``.
    """
    pairs = _check_angles(angles, columns)
    size = check_positive_int(group, "group")
    if angles.shape[0] == 0:
        raise ValueError("angles must have at least 1 row")
    full = len(angles) // size * size
    lows, highs = [], []
    for values in (torch.sin(angles), torch.cos(angles)):
        blocks = values[:full].reshape(-1, size, pairs)
        lo, hi = blocks.amin(dim=1), blocks.amax(dim=1)
        if full < len(values):
            tail = values[full:]
            lo = torch.cat((lo, tail.amin(dim=0, keepdim=True)))
            hi = torch.cat((hi, tail.amax(dim=0, keepdim=True)))
        lows.append(lo)
        highs.append(hi)
    shape = (len(lows[0]), 2 * pairs)
    mins = torch.stack(lows, dim=-1).reshape(shape)[:, :columns]
    maxs = torch.stack(highs, dim=-1).reshape(shape)[:, :columns]
    return mins, maxs


def _check_angles(angles: object, columns: object) -> int:
    """The number of pairs ``P`` of a float ``(N, P)`` angle tensor serving ``columns``."""
    if not isinstance(angles, Tensor) or angles.dim() != 2 or not angles.is_floating_point():
        raise ValueError(f"angles must be a float tensor of shape (N, P), got {angles!r}")
    pairs = int(angles.shape[1])
    check_positive_int(columns, "columns", minimum=0, maximum=2 * pairs)
    return pairs


def sinusoidal_column_role(dim: int, layout: str, column: int) -> tuple[int, bool, int]:
    """Which frequency a column of the table holds: ``(pair i, is_sin, partner column)``.

    ``layout="interleaved"``: column ``2i`` = ``sin(p·ω_i)``, ``2i+1`` = ``cos(p·ω_i)``, the
    partner of ``j`` is ``j XOR 1``. ``layout="concat"``: column ``i < d/2`` = ``sin(p·ω_i)``,
    ``d/2 + i`` = ``cos(p·ω_i)``, the partner of ``j`` is ``j ± d/2``.
    """
    dim = check_even_dim(dim)
    layout_s = check_choice(layout, "layout", SINUSOIDAL_LAYOUTS)
    column = check_int(column, "column")
    if not 0 <= column < dim:
        raise ValueError(f"column must be in [0, {dim}), got {column}")
    half = dim // 2
    if layout_s == "interleaved":
        return column // 2, column % 2 == 0, column ^ 1
    if column < half:
        return column, True, column + half
    return column - half, False, column - half


def sinusoidal_column_envelope(
    edges: RealVector,
    column: int,
    dim: int,
    base: float = 10000.0,
    *,
    layout: SinusoidalLayout = "interleaved",
) -> tuple[Tensor, Tensor]:
    """Exact minimum and maximum of column ``column`` of the table over position intervals.

    The column is the continuous curve ``x ↦ sin(x·ω_i)`` (or ``cos``) of the real position
    ``x``. Over ``[edges[k], edges[k+1]]`` it reaches ``+1`` exactly when the angle interval
    contains a crest (``x·ω_i + φ = π/2 + 2πm``, ``φ = 0`` for sin, ``π/2`` for cos), ``−1``
    when it contains a trough; otherwise its extremes are at the interval ends. Drawing this band
    shows a curve that oscillates faster than the pixels without aliasing.

    Args:
        edges: ``n + 1`` increasing real positions delimiting ``n`` intervals.
        column: column index in ``[0, dim)``.
        dim, base, layout: as in :func:`sinusoidal_encoding`.

    Returns:
        ``(lo, hi)``, float64 tensors of shape ``(n,)``.
    """
    e = to_float64_vector(edges, "edges")
    pair, is_sin, _ = sinusoidal_column_role(dim, layout, column)
    omega = float(inverse_frequencies(dim, base)[pair])
    angles = e * omega
    phi = 0.0 if is_sin else math.pi / 2
    ends = torch.sin(angles) if is_sin else torch.cos(angles)
    a, b = angles[:-1], angles[1:]
    tau = 2.0 * math.pi
    crest = math.pi / 2 - phi
    trough = crest + math.pi
    has_crest = torch.floor((b - crest) / tau) >= torch.ceil((a - crest) / tau)
    has_trough = torch.floor((b - trough) / tau) >= torch.ceil((a - trough) / tau)
    one = torch.ones((), dtype=torch.float64)
    hi = torch.where(has_crest, one, torch.maximum(ends[:-1], ends[1:]))
    lo = torch.where(has_trough, -one, torch.minimum(ends[:-1], ends[1:]))
    return lo, hi


def sin_cos_means(first: RealVector, last: RealVector, omega: RealVector) -> tuple[Tensor, Tensor]:
    """Exact means of ``sin(p·ω)`` and ``cos(p·ω)`` over the integers ``p = a … b``.

    Closed form (Dirichlet kernel), with ``n = b − a + 1`` terms:
    ``Σ_{p=a}^{b} sin(pω) = sin((a+b)ω/2) · sin(nω/2) / sin(ω/2)`` and the same with ``cos`` in
    the first factor. ``ω`` is first reduced modulo ``2π`` to ``(−π, π]`` (integer ``p``: the
    terms do not change), so ``sin(ω/2)`` vanishes only at ``ω ≡ 0``, where every term is
    ``sin(0)``/``cos(0)``-like and the ratio's limit ``n`` is used.

    Args:
        first, last: ``K`` integer-valued bounds ``a_k ≤ b_k`` (inclusive), e.g. the positions
            one pixel covers.
        omega: ``W`` angular frequencies.

    Returns:
        ``(mean_sin, mean_cos)``, float64 tensors of shape ``(K, W)``. With ``a = b`` they are
        ``sin(aω)`` and ``cos(aω)``.
    """
    a = to_float64_vector(first, "first")
    b = to_float64_vector(last, "last")
    w = to_float64_vector(omega, "omega")
    if a.shape != b.shape:
        raise ValueError(
            f"first and last must have the same length, got {a.shape[0]}, {b.shape[0]}"
        )
    n = b - a + 1.0
    if n.numel() and float(n.min()) < 1.0:
        raise ValueError("last must be >= first for every interval")
    tau = 2.0 * math.pi
    w = torch.where(w.abs() > math.pi, w - tau * torch.round(w / tau), w)
    mid = (a + b)[:, None] * (w[None, :] / 2.0)
    ratio = _dirichlet_ratio(n, w)
    return torch.sin(mid) * ratio, torch.cos(mid) * ratio


def _dirichlet_ratio(n: Tensor, omega: Tensor) -> Tensor:
    """``sin(nω/2) / (n·sin(ω/2))`` of shape ``(K, W)`` for ``ω`` in ``[−π, π]`` (``1`` at 0).

    ``n`` usually takes one or two distinct values (pixels of equal width): the ratio is
    computed once per distinct ``n``.
    """
    ratio, inverse = _dirichlet_ratio_unique(n, omega)
    return ratio[inverse]


def _dirichlet_ratio_unique(n: Tensor, omega: Tensor) -> tuple[Tensor, Tensor]:
    """The ratio of :func:`_dirichlet_ratio` per distinct ``n``: ``(ratio (U, W), inverse (K,))``.

    ``_dirichlet_ratio(n, omega) == ratio[inverse]``.
    """
    half = omega / 2.0
    s = torch.sin(half)
    uniq, inverse = torch.unique(n, return_inverse=True)
    num = torch.sin(uniq[:, None] * half[None, :])
    den = uniq[:, None] * s[None, :]
    zero = s[None, :] == 0.0
    ratio = torch.where(zero, torch.ones_like(num), num / torch.where(zero, 1.0, den))
    return ratio, inverse


def sinusoidal_column_means(
    first: RealVector,
    last: RealVector,
    columns: Sequence[int] | Tensor,
    dim: int,
    base: float = 10000.0,
    *,
    layout: SinusoidalLayout = "interleaved",
    columns_first: bool = False,
) -> Tensor:
    """Mean of ``PE[p, c]`` over the integer positions ``p = first[k] … last[k]`` (inclusive).

    The aggregate of the table that a pixel covering several positions should show (instead of
    one sampled position, which aliases into moiré patterns once a column oscillates faster than
    the pixels). Exact, via :func:`sin_cos_means`; costs about one sine per ``(k, c)`` whatever
    the number of positions averaged. Columns whose wavelength is much shorter than the interval
    average to about ``0``; with ``first == last`` the result is the table itself.

    Args:
        first, last: ``K`` integer-valued positions with ``first[k] <= last[k]``.
        columns: ``C`` column indices in ``[0, dim)``.
        dim, base, layout: as in :func:`sinusoidal_encoding`.
        columns_first: return the transposed table, shape ``(C, K)`` (contiguous; the same
            numbers): what an image with one row per column needs, without a transposing copy.

    Returns:
        float64 tensor of shape ``(K, C)`` (``(C, K)`` with ``columns_first``), contiguous.
    """
    a = to_float64_vector(first, "first")
    b = to_float64_vector(last, "last")
    if a.shape != b.shape:
        raise ValueError(
            f"first and last must have the same length, got {a.shape[0]}, {b.shape[0]}"
        )
    dim = check_even_dim(dim)
    base = check_base(base)
    layout_s = check_choice(layout, "layout", SINUSOIDAL_LAYOUTS)
    cols = _check_columns(columns, dim)
    n = b - a + 1.0
    n_min, n_max = (float(x) for x in torch.aminmax(n)) if n.numel() else (1.0, 1.0)
    if n_min < 1.0:
        raise ValueError("last must be >= first for every interval")
    half = dim // 2
    pair = cols // 2 if layout_s == "interleaved" else cols % half
    omega = _inverse_frequencies(dim, base)[pair]  # in (0, 1]: no reduction modulo 2π needed
    # Computed column by column (rows of ``out``): each row a contiguous run of positions.
    if n_max == 1.0:  # one position per interval: the ratio sin(ω/2)/sin(ω/2) is exactly 1
        ratio, inverse = torch.ones((0, cols.shape[0]), dtype=torch.float64), None
    else:
        ratio, inverse = _dirichlet_ratio_unique(n, omega)  # (U, C): U distinct counts
    mid = ((a + b) / 2.0)[None, :]
    out = torch.empty((cols.shape[0], a.shape[0]), dtype=torch.float64)
    for rows, fn in zip(_row_groups(cols, layout_s, half), (torch.sin, torch.cos), strict=True):
        # each group's angles one contiguous block, whose sin/cos is taken at once (a strided
        # view would take the scalar path at the end of every row, which may differ from the
        # vectorised one in the last bit: the same blocks as always give the same bits)
        if isinstance(rows, Tensor):
            if rows.numel():
                out[rows] = fn(omega[rows][:, None] * mid)
        elif len(range(*rows.indices(out.shape[0]))) == out.shape[0]:  # every row
            out = fn(omega[:, None] * mid)
        elif len(range(*rows.indices(out.shape[0]))):
            out[rows] = fn(omega[rows][:, None] * mid)
    if ratio.shape[0] == 1:
        out *= ratio.T  # (C, 1) broadcast over the positions
    elif ratio.shape[0] == 2:  # the usual two counts (pixels of equal width): a select, no gather
        assert inverse is not None
        out *= torch.where(inverse.bool()[None, :], ratio[1][:, None], ratio[0][:, None])
    elif ratio.shape[0] > 2:
        out *= ratio.T[:, inverse]
    return out if columns_first else out.T.contiguous()


def group_row_means(rows: Tensor, first: RealVector, last: RealVector) -> Tensor:
    """Mean of the rows ``first[r] … last[r]`` (inclusive) of a ``(C, K)`` table, per ``r``.

    With :func:`sinusoidal_column_means` (``columns_first=True``) over consecutive columns, the
    mean of the table over a block of positions × a block of columns: what an image pixel that
    covers several positions and several dimensions should show. The groups must partition the
    rows ``first[0] … last[-1]`` in order (``first[r + 1] == last[r] + 1``).

    Returns:
        float64 tensor of shape ``(R, K)``, contiguous.
    """
    a = to_float64_vector(first, "first").to(torch.int64)
    b = to_float64_vector(last, "last").to(torch.int64)
    if a.shape != b.shape or a.numel() == 0:
        raise ValueError("first and last must be non-empty and of the same length")
    if bool((b < a).any()) or bool((a[1:] != b[:-1] + 1).any()):
        raise ValueError("the groups must partition consecutive rows in order")
    if int(a[0]) < 0 or int(b[-1]) >= rows.shape[0]:
        raise ValueError(f"rows {int(a[0])}…{int(b[-1])} outside a table of {rows.shape[0]}")
    counts = b - a + 1
    group = torch.repeat_interleave(torch.arange(a.shape[0]), counts)
    table = rows.detach()[int(a[0]) : int(b[-1]) + 1].to(torch.float64)
    # each row added to its group's (a row-wise loop: ~3x numpy's reduceat on this shape)
    sums = torch.zeros((a.shape[0], *table.shape[1:]), dtype=torch.float64)
    sums.index_add_(0, group, table)
    return sums.div_(counts.to(torch.float64).reshape(-1, *([1] * (table.dim() - 1))))


def _row_groups(cols: Tensor, layout: str, half: int) -> tuple[slice | Tensor, slice | Tensor]:
    """The rows (indices into ``cols``) holding a sine and those holding a cosine.

    Consecutive columns (an image showing every column of its range) give slices, copied into
    without an index: every other row in the interleaved layout, a block of sines then one of
    cosines in the concatenated one. Other columns give index tensors.
    """
    c = cols.numpy()
    n = len(c)
    if n == 0 or int(c[-1]) - int(c[0]) != n - 1 or (n > 2 and not (np.diff(c) == 1).all()):
        is_sin = cols % 2 == 0 if layout == "interleaved" else cols < half
        return torch.nonzero(is_sin).reshape(-1), torch.nonzero(~is_sin).reshape(-1)
    if layout == "interleaved":  # sines in the even columns
        first = int(c[0]) % 2
        return slice(first, n, 2), slice(1 - first, n, 2)
    split = min(max(half - int(c[0]), 0), n)  # columns below d/2 hold the sines
    return slice(0, split, 1), slice(split, n, 1)


def sinusoidal_dot_by_offset(offsets: RealVector, dim: int, base: float = 10000.0) -> Tensor:
    """Dot product of two sinusoidal encodings as a function of their distance ``k`` only.

    ``PE[p]·PE[p+k] = Σ_i (sin(pω_i)sin((p+k)ω_i) + cos(pω_i)cos((p+k)ω_i)) = Σ_i cos(k·ω_i)``,
    independent of ``p`` and of the layout (both layouts hold the same values). At ``k = 0`` it
    equals ``dim/2 = |PE[p]|²``.

    Args:
        offsets: 1-D tensor or sequence of ``K`` distances ``k``.
        dim: encoding dimension, an even integer >= 2.
        base: frequency base, a finite number > 1.

    Returns:
        float64 tensor of shape ``(K,)``.
    """
    k = to_float64_vector(offsets, "offsets")
    omega = inverse_frequencies(dim, base)
    return torch.cos(k[:, None] * omega[None, :]).sum(dim=-1)


def binary_encoding(num_positions: int, bits: int) -> Tensor:
    """Binary positional encoding: the bits of each position, least significant first.

    Args:
        num_positions: number of rows (positions ``0 … num_positions - 1``), an integer >= 1.
        bits: number of columns, an integer in ``[1, 63]``.

    Returns:
        float32 tensor of 0/1 values, shape ``(num_positions, bits)``; ``out[p, j]`` is bit ``j``
        of ``p`` (``(p >> j) & 1``). Higher bits than ``bits`` are dropped.
    """
    num_positions = check_positive_int(num_positions, "num_positions")
    bits = check_positive_int(bits, "bits", maximum=_MAX_BITS)
    p = torch.arange(num_positions, dtype=torch.int64)[:, None]
    j = torch.arange(bits, dtype=torch.int64)[None, :]
    return torch.bitwise_and(torch.bitwise_right_shift(p, j), 1).to(torch.float32)


def naive_encoding(num_positions: int, dim: int, *, normalized: bool = False) -> Tensor:
    """Naive "position as a number" encoding, repeated over every column.

    Args:
        num_positions: number of rows, an integer >= 1.
        dim: number of columns, an integer >= 1.
        normalized: if true divide by ``num_positions - 1`` so values run from 0 to 1
            (a single position gives zeros).

    Returns:
        float32 tensor of shape ``(num_positions, dim)`` with ``out[i, j] = i`` or
        ``i / (num_positions - 1)``.
    """
    num_positions = check_positive_int(num_positions, "num_positions")
    dim = check_positive_int(dim, "dim")
    values = torch.arange(num_positions, dtype=torch.float64)
    if normalized:
        values = values / (num_positions - 1) if num_positions > 1 else torch.zeros_like(values)
    return values[:, None].expand(num_positions, dim).to(torch.float32).contiguous()


def learned_encoding(num_positions: int, dim: int, *, std: float = 0.02, seed: int = 0) -> Tensor:
    """An untrained learned-embedding table as initialised in GPT-2/BERT: entries ~ N(0, std²).

    Deterministic for a given ``seed``; uses a local :class:`torch.Generator` and never touches
    the global RNG.

    Args:
        num_positions: number of rows, an integer >= 1.
        dim: number of columns, an integer >= 1.
        std: standard deviation, a finite number >= 0.
        seed: generator seed, any integer.

    Returns:
        float32 tensor of shape ``(num_positions, dim)``.
    """
    num_positions = check_positive_int(num_positions, "num_positions")
    dim = check_positive_int(dim, "dim")
    std = check_nonneg_float(std, "std")
    seed = check_int(seed, "seed")
    gen = torch.Generator(device="cpu")
    gen.manual_seed(seed)
    table = torch.randn((num_positions, dim), generator=gen, dtype=torch.float32)
    return table * std


class PositionalEncoding(nn.Module):
    """Classic additive sinusoidal positional encoding layer (paper layout, "interleaved").

    Holds a registered buffer ``pe`` of shape ``(max_len, d_model)`` (float32) and adds its first
    ``L`` rows to an input of shape ``(B, L, d_model)`` (any leading dims are accepted).

    Args:
        d_model: model dimension, an even integer >= 2.
        max_len: number of precomputed positions, an integer >= 1.
        base: frequency base, a finite number > 1.
    """

    pe: Tensor

    def __init__(self, d_model: int, max_len: int = 5000, base: float = 10000.0) -> None:
        super().__init__()
        self.d_model = check_even_dim(d_model, "d_model")
        self.max_len = check_positive_int(max_len, "max_len")
        self.base = check_base(base)
        self.register_buffer("pe", sinusoidal_encoding(self.max_len, self.d_model, self.base))

    def forward(self, x: Tensor) -> Tensor:
        """Return ``x + pe[:L]`` for ``x`` of shape ``(..., L, d_model)``, in ``x``'s dtype."""
        if x.dim() < 2 or x.shape[-1] != self.d_model:
            raise ValueError(
                f"x must have shape (B, L, d_model) with d_model = {self.d_model}, "
                f"got shape {tuple(x.shape)}"
            )
        length = x.shape[-2]
        if length > self.max_len:
            raise ValueError(
                f"sequence length L (x.shape[-2]) must be <= max_len = {self.max_len}, got {length}"
            )
        return x + self.pe[:length].to(dtype=x.dtype)

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, max_len={self.max_len}, base={self.base:g}"


def _check_columns(columns: object, dim: int) -> Tensor:
    """``columns`` as a flat int64 tensor of column indices in ``[0, dim)``; ValueError else."""
    cols = torch.as_tensor(columns, dtype=torch.int64).reshape(-1)
    if cols.numel() and (int(cols.min()) < 0 or int(cols.max()) >= dim):
        raise ValueError(f"columns must be in [0, {dim}), got {cols.tolist()[:8]}")
    return cols
