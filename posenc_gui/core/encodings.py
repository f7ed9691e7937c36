"""Absolute encodings side by side: one table builder and the numbers that compare them.

Schemes (rows = positions ``0 … L−1``, columns = dimensions):

- ``"naive"``: ``PE[p, j] = p``, unbounded.
- ``"normalized"``: ``PE[p, j] = p/(L−1)``: bounded, but the vector of ``p`` depends on ``L``.
- ``"binary"``: bit ``j`` of ``p``, least significant first (:func:`binary_encoding`).
- ``"sinusoidal"``: the paper's table (:func:`sinusoidal_encoding`), either layout.
- ``"learned"``: an *untrained* learned table, entries ``N(0, 0.02²)`` (:func:`learned_encoding`):
  the first ``L`` rows of one lookup table of :data:`LEARNED_ROWS` rows, as a model slices its
  ``nn.Embedding(max_len, d)``, so a position keeps its vector whatever the length.

Every table is returned in float64 so the comparisons (a dot product constant to 10⁻¹² or not)
are not float32 noise. The comparisons take any real ``(L, D)`` table; those on a square matrix
(the Gram matrix ``P·Pᵀ`` or the cosine similarities) read its upper diagonals: offset ``k``
holds ``M[i, i+k]`` for ``i = 0 … L−1−k``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import torch
from torch import Tensor

from ._validate import check_choice, check_int, check_positive_int
from .sinusoidal import (
    SinusoidalLayout,
    binary_encoding,
    learned_encoding,
    sinusoidal_encoding,
)

__all__ = [
    "ENCODING_SCHEMES",
    "LEARNED_ROWS",
    "cosine_matrix",
    "distinct_rows",
    "dot_at_distance",
    "encoding_table",
    "mean_by_offset",
    "offset_stats",
    "position_share",
    "random_pair_starts",
    "spread_by_offset",
    "step_and_extent",
]

ENCODING_SCHEMES: tuple[str, ...] = ("naive", "normalized", "binary", "sinusoidal", "learned")
#: Rows of the learned lookup table (its ``max_len``): a learned table has at most this many.
LEARNED_ROWS = 512


def encoding_table(
    scheme: str,
    num_positions: int,
    dim: int,
    *,
    layout: str = "interleaved",
    base: float = 10000.0,
    seed: int = 0,
    rows: int | None = None,
) -> Tensor:
    """The ``(num_positions, dim)`` table of ``scheme`` (see the module), float64.

    ``dim`` is the number of bits for ``"binary"`` (at most 63) and must be even for
    ``"sinusoidal"``; ``layout`` and ``base`` apply to ``"sinusoidal"`` only, ``seed`` to
    ``"learned"`` only (at most :data:`LEARNED_ROWS` positions). With ``rows``
    (``1 … num_positions``) only the first ``rows`` rows of that table are built:
    ``encoding_table(s, L, d, rows=r)`` equals ``encoding_table(s, L, d)[:r]``.
    """
    scheme = check_choice(scheme, "scheme", ENCODING_SCHEMES)
    n = check_positive_int(num_positions, "num_positions")
    dim = check_positive_int(dim, "dim")
    r = n if rows is None else check_positive_int(rows, "rows")
    if r > n:
        raise ValueError(f"rows must be an integer from 1 to {n}, got {r}")
    if scheme in ("naive", "normalized"):
        p = torch.arange(r, dtype=torch.float64)
        if scheme == "normalized":
            p = p / (n - 1) if n > 1 else torch.zeros_like(p)
        return p[:, None].expand(r, dim).contiguous()
    if scheme == "binary":
        return binary_encoding(r, dim).to(torch.float64)
    if scheme == "sinusoidal":
        shape = cast(SinusoidalLayout, check_choice(layout, "layout", ("interleaved", "concat")))
        return sinusoidal_encoding(r, dim, base, layout=shape, dtype=torch.float64)
    if n > LEARNED_ROWS:
        raise ValueError(
            f"num_positions must be at most {LEARNED_ROWS} for a learned table, got {n}"
        )
    return learned_encoding(LEARNED_ROWS, dim, seed=seed)[:r].to(torch.float64)


def _check_table(table: Tensor, name: str = "table") -> Tensor:
    if not isinstance(table, Tensor) or table.dim() != 2 or table.is_complex():
        desc = f"shape {tuple(table.shape)}" if isinstance(table, Tensor) else repr(table)
        raise ValueError(f"{name} must be a real 2-D tensor of shape (L, D), got {desc}")
    return table if table.is_floating_point() else table.to(torch.float64)


def dot_at_distance(table: Tensor, distance: int) -> Tensor:
    """``table[i]·table[i+k]`` for ``i = 0 … L−1−k``: shape ``(L − k,)``.

    ``distance`` ``k`` is an integer in ``[0, L−1]`` (``k = 0`` gives the squared norms).
    """
    t = _check_table(table)
    n = t.shape[0]
    k = check_int(distance, "distance")
    if not 0 <= k < n:
        raise ValueError(f"distance must be an integer from 0 to {n - 1}, got {k}")
    return (t[: n - k] * t[k:]).sum(dim=-1)


def cosine_matrix(table: Tensor, gram: Tensor | None = None) -> Tensor:
    """``cos(P[i], P[j])`` for every pair of rows, shape ``(L, L)``; 0 with a zero row (the
    naive table's position 0). ``gram`` (``P·Pᵀ``, if already computed) is reused."""
    t = _check_table(table)
    g = t @ t.T if gram is None else gram
    norms = torch.sqrt(torch.clamp(torch.diagonal(g), min=0.0))
    safe = torch.where(norms > 0, norms, torch.ones_like(norms))
    return g / safe[:, None] / safe[None, :]


def _diagonals(matrix: Tensor) -> Tensor:
    """``(L, L)`` view ``S[i, k] = M[i, i+k]``, NaN where ``i + k >= L`` (a copy, padded)."""
    if not isinstance(matrix, Tensor) or matrix.dim() != 2 or matrix.shape[0] != matrix.shape[1]:
        desc = f"shape {tuple(matrix.shape)}" if isinstance(matrix, Tensor) else repr(matrix)
        raise ValueError(f"matrix must be a square 2-D tensor, got {desc}")
    n = matrix.shape[0]
    m = matrix if matrix.is_floating_point() else matrix.to(torch.float64)
    padded = torch.full((n, 2 * n), float("nan"), dtype=m.dtype)
    padded[:, :n] = m
    return padded.as_strided((n, n), (2 * n + 1, 1))


def offset_stats(matrix: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Mean, minimum and maximum of each upper diagonal ``M[i, i+k]`` over ``i``, for every
    offset ``k = 0 … L−1``: three tensors of shape ``(L,)``.

    Applied to ``P·Pᵀ``: the dot product against the distance, and how far it strays from its
    mean depending on where the pair sits (``max − min``).
    """
    s = _diagonals(matrix)
    valid = ~torch.isnan(s)
    hi = torch.where(valid, s, torch.full_like(s, -float("inf"))).amax(dim=0)
    lo = torch.where(valid, s, torch.full_like(s, float("inf"))).amin(dim=0)
    mean = torch.where(valid, s, torch.zeros_like(s)).sum(dim=0) / valid.sum(dim=0)
    return mean, lo, hi


def spread_by_offset(matrix: Tensor) -> Tensor:
    """For each offset ``k = 0 … L−1``: ``max_i M[i, i+k] − min_i M[i, i+k]``, shape ``(L,)``.

    Applied to the Gram matrix ``P·Pᵀ`` it says whether the dot product depends on the distance
    only (every spread 0, as for the sinusoidal table) or also on where the pair sits.
    """
    _, lo, hi = offset_stats(matrix)
    return hi - lo


def mean_by_offset(matrix: Tensor, offsets: Sequence[int]) -> Tensor:
    """Mean of the ``k``-th upper diagonal ``M[i, i+k]`` over ``i``, for each ``k`` in ``offsets``
    (each an integer in ``[0, L−1]``); shape ``(len(offsets),)``."""
    s = _diagonals(matrix)
    n = s.shape[0]
    ks = [check_int(k, "offset") for k in offsets]
    for k in ks:
        if not 0 <= k < n:
            raise ValueError(f"offset must be an integer from 0 to {n - 1}, got {k}")
    out = [s[: n - k, k].mean() for k in ks]
    return torch.stack(out) if out else torch.zeros(0, dtype=s.dtype)


def distinct_rows(table: Tensor) -> int:
    """How many different rows (position vectors) ``table`` holds; ``L`` when all are unique."""
    t = _check_table(table)
    check_positive_int(t.shape[0], "rows")
    return int(torch.unique(t, dim=0).shape[0])


def step_and_extent(table: Tensor, gram: Tensor | None = None) -> tuple[float, float]:
    """The largest step between neighbouring rows, ``max_i ‖P[i+1] − P[i]‖``, and the largest
    distance between any two rows, ``max_{i,j} ‖P[i] − P[j]‖`` (from ``gram`` = ``P·Pᵀ`` if
    given: ``‖P[i] − P[j]‖² = G[i,i] + G[j,j] − 2G[i,j]``). Both 0 for a single row.

    A table whose largest step is a small share of its extent changes gradually with the
    position; one whose step is the whole extent (binary: ``0111…1 → 1000…0``) jumps.
    """
    t = _check_table(table)
    if t.shape[0] < 2:
        return 0.0, 0.0
    step = float(torch.linalg.vector_norm(t[1:] - t[:-1], dim=-1).max())
    g = t @ t.T if gram is None else gram
    sq = torch.diagonal(g)
    dist2 = sq[:, None] + sq[None, :] - 2.0 * g
    return step, float(torch.sqrt(torch.clamp(dist2.max(), min=0.0)))


def random_pair_starts(num_positions: int, distance: int, count: int, seed: int) -> Tensor:
    """``count`` positions ``i`` drawn uniformly from ``0 … L−1−k`` (so that ``i + k`` is a
    position too), int64; reproducible for a ``seed`` (a local generator, the global RNG is
    untouched)."""
    n = check_positive_int(num_positions, "num_positions")
    k = check_int(distance, "distance")
    if not 0 <= k < n:
        raise ValueError(f"distance must be an integer from 0 to {n - 1}, got {k}")
    count = check_positive_int(count, "count")
    gen = torch.Generator(device="cpu")
    gen.manual_seed(check_int(seed, "seed"))
    return torch.randint(0, n - k, (count,), generator=gen, dtype=torch.int64)


def position_share(positions: Tensor, words: Tensor) -> Tensor:
    """Share of each row's sum ``e = w + p`` that the position contributes:
    ``‖p_i‖² / (‖w_i‖² + ‖p_i‖²)`` per row, in ``[0, 1]`` (0 where both are zero); shape
    ``(L,)``. ``positions`` and ``words`` are ``(L, D)`` tables of the same shape."""
    p = _check_table(positions, "positions")
    w = _check_table(words, "words")
    if p.shape != w.shape:
        raise ValueError(f"positions and words must have one shape, got {tuple(p.shape)} and "
                         f"{tuple(w.shape)}")  # fmt: skip
    pp = (p * p).sum(dim=-1)
    total = pp + (w * w).sum(dim=-1)
    return torch.where(total > 0, pp / torch.where(total > 0, total, 1.0), 0.0)
