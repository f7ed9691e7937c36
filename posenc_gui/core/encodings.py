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

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
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
    "GramSummary",
    "cosine_by_offset",
    "cosine_matrix",
    "distinct_rows",
    "dot_at_distance",
    "encoding_table",
    "gram_summary",
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
    if type(seed) is int:
        lookup = _learned_lookup(dim, seed)
    else:
        lookup = learned_encoding(LEARNED_ROWS, dim, seed=seed)
    return lookup[:r].to(torch.float64)  # a copy: the cached draw stays as drawn


@lru_cache(maxsize=4)
def _learned_lookup(dim: int, seed: int) -> Tensor:
    """The learned lookup table of :data:`LEARNED_ROWS` rows (float32), drawn once per
    ``(dim, seed)``: a table and its first rows at other lengths slice the same draw."""
    return learned_encoding(LEARNED_ROWS, dim, seed=seed)


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
    safe = _safe_norms(g)
    return (g / safe[:, None]).div_(safe[None, :])


def _safe_norms(gram: Tensor) -> Tensor:
    """``‖P[i]‖`` from the diagonal of ``P·Pᵀ``, 1 for a zero row (its cosines are then 0)."""
    norms = torch.sqrt(torch.clamp(torch.diagonal(gram), min=0.0))
    return torch.where(norms > 0, norms, torch.ones_like(norms))


def cosine_by_offset(gram: Tensor, offsets: Sequence[int]) -> Tensor:
    """Mean of ``cos(P[i], P[i+k])`` over ``i``, for each ``k`` in ``offsets``, from the Gram
    matrix ``P·Pᵀ`` alone: ``mean_by_offset(cosine_matrix(P, gram), offsets)`` without the
    ``L × L`` cosine matrix (only the diagonals ``k`` are divided by the norms)."""
    g = _check_square(gram)
    n = g.shape[0]
    ks = _check_offsets(offsets, n)
    safe = _safe_norms(g)
    out = [(torch.diagonal(g, k) / safe[: n - k]).div_(safe[k:]).mean() for k in ks]
    return torch.stack(out) if out else torch.zeros(0, dtype=g.dtype)


def _check_square(matrix: Tensor) -> Tensor:
    if not isinstance(matrix, Tensor) or matrix.dim() != 2 or matrix.shape[0] != matrix.shape[1]:
        desc = f"shape {tuple(matrix.shape)}" if isinstance(matrix, Tensor) else repr(matrix)
        raise ValueError(f"matrix must be a square 2-D tensor, got {desc}")
    return matrix if matrix.is_floating_point() else matrix.to(torch.float64)


#: Largest ``L`` whose ``(L, 2L)`` scratch buffer is kept for the next call (8 MB in float64
#: at 1024; larger ones are allocated for the call only).
WORKSPACE_MAX_ROWS = 1024
#: The kept buffer has room for at least this many rows (the app's longest table: 4 MB).
WORKSPACE_MIN_ROWS = 512
_workspaces = threading.local()


def _workspace(n: int, dtype: torch.dtype) -> Tensor:
    """An ``(n, 2n)`` scratch matrix (contents undefined). Up to :data:`WORKSPACE_MAX_ROWS` it
    is a view of one buffer per thread and dtype, kept between calls: a new table's L² numbers
    then go to memory already mapped (freshly allocated megabytes cost more in page faults
    than the arithmetic on them)."""
    if n > WORKSPACE_MAX_ROWS:
        return torch.empty((n, 2 * n), dtype=dtype)
    kept: dict[torch.dtype, Tensor] = getattr(_workspaces, "buffers", None) or {}
    _workspaces.buffers = kept
    buf = kept.get(dtype)
    if buf is None or buf.numel() < 2 * n * n:
        rows = min(max(n, WORKSPACE_MIN_ROWS), WORKSPACE_MAX_ROWS)  # not regrown at each step
        buf = kept[dtype] = torch.empty(2 * rows * rows, dtype=dtype)
    return buf[: 2 * n * n].view(n, 2 * n)


def _diagonal_stats(work: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Mean, min and max of the upper diagonals of the matrix in the left half of ``work``
    (``(L, 2L)``); the right half is overwritten (padding)."""
    n = work.shape[0]
    pad = work[:, n:]
    skew = work.as_strided((n, n), (2 * n + 1, 1))  # skew[i, k] = M[i, i+k], padding past L
    # the padding holds the neutral element of each reduction in turn: no masks, no copies
    pad.fill_(-float("inf"))
    hi = skew.amax(dim=0)
    pad.fill_(float("inf"))
    lo = skew.amin(dim=0)
    pad.fill_(0.0)
    counts = torch.arange(n, 0, -1, dtype=torch.int64)  # L − k numbers on diagonal k
    mean = skew.sum(dim=0) / counts
    return mean, lo, hi


def offset_stats(matrix: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Mean, minimum and maximum of each upper diagonal ``M[i, i+k]`` over ``i``, for every
    offset ``k = 0 … L−1``: three tensors of shape ``(L,)``.

    Applied to ``P·Pᵀ``: the dot product against the distance, and how far it strays from its
    mean depending on where the pair sits (``max − min``).
    """
    m = _check_square(matrix)
    work = _workspace(m.shape[0], m.dtype)
    work[:, : m.shape[0]] = m
    return _diagonal_stats(work)


@dataclass(frozen=True)
class GramSummary:
    """What :func:`gram_summary` reads off ``P·Pᵀ`` (each as the function of this module that
    computes it from the matrix would: the same numbers)."""

    offset_mean: Tensor  # (L,): offset_stats(P·Pᵀ)
    offset_min: Tensor
    offset_max: Tensor
    largest: float  # max |P·Pᵀ|
    step: float  # step_and_extent(P)
    extent: float
    cosine_means: Tensor  # cosine_by_offset(P·Pᵀ, offsets)


def gram_summary(table: Tensor, offsets: Sequence[int] = ()) -> GramSummary:
    """:func:`offset_stats` of ``P·Pᵀ``, its largest ``|entry|``, :func:`step_and_extent` and
    :func:`cosine_by_offset` at ``offsets``, without keeping (or allocating) the ``L × L``
    matrix: it is built in a scratch buffer reused from call to call."""
    t = _check_table(table)
    n = check_positive_int(t.shape[0], "rows")
    work = _workspace(n, t.dtype)
    g, rest = work[:, :n], work[:, n:]
    torch.mm(t, t.T, out=g)  # the rows of g are rows of work: a BLAS-ready layout
    # max |G| without an |·| copy; row by row first (a whole-matrix reduction of the strided
    # view is ~5x slower)
    largest = max(float(g.amax(dim=1).max()), -float(g.amin(dim=1).min()))
    cosine_means = cosine_by_offset(g, offsets)
    step, extent = 0.0, 0.0
    if n >= 2:
        step = float(torch.linalg.vector_norm(t[1:] - t[:-1], dim=-1).max())
        sq = torch.diagonal(g)
        torch.add(sq[:, None], sq[None, :], out=rest)  # ‖P[i] − P[j]‖², in the scratch half
        rest.sub_(g, alpha=2.0)
        extent = float(torch.sqrt(torch.clamp(rest.amax(dim=1).max(), min=0.0)))
    mean, lo, hi = _diagonal_stats(work)  # overwrites the scratch half last
    return GramSummary(mean, lo, hi, largest, step, extent, cosine_means)


def spread_by_offset(matrix: Tensor) -> Tensor:
    """For each offset ``k = 0 … L−1``: ``max_i M[i, i+k] − min_i M[i, i+k]``, shape ``(L,)``.

    Applied to the Gram matrix ``P·Pᵀ`` it says whether the dot product depends on the distance
    only (every spread 0, as for the sinusoidal table) or also on where the pair sits.
    """
    _, lo, hi = offset_stats(matrix)
    return hi - lo


def _check_offsets(offsets: Sequence[int], n: int) -> list[int]:
    """``offsets`` as integers, each a diagonal of an ``n × n`` matrix (``0 … n−1``)."""
    ks = [check_int(k, "offset") for k in offsets]
    for k in ks:
        if not 0 <= k < n:
            raise ValueError(f"offset must be an integer from 0 to {n - 1}, got {k}")
    return ks


def mean_by_offset(matrix: Tensor, offsets: Sequence[int]) -> Tensor:
    """Mean of the ``k``-th upper diagonal ``M[i, i+k]`` over ``i``, for each ``k`` in ``offsets``
    (each an integer in ``[0, L−1]``); shape ``(len(offsets),)``."""
    m = _check_square(matrix)
    n = m.shape[0]
    ks = _check_offsets(offsets, n)
    out = [torch.diagonal(m, k).mean() for k in ks]
    return torch.stack(out) if out else torch.zeros(0, dtype=m.dtype)


def distinct_rows(table: Tensor) -> int:
    """How many different rows (position vectors) ``table`` holds; ``L`` when all are unique."""
    t = _check_table(table)
    n = check_positive_int(t.shape[0], "rows")
    if n > 1 and t.shape[1] > 0 and t.dtype == torch.float64:
        # A cheap sufficient test first: project every row on one fixed random direction. Two
        # equal rows project to values at most a few rounding errors apart (whatever order the
        # products are summed in); if every two projections, sorted, are further apart than
        # that bound, every row is different. Otherwise (repeated rows, or a near tie) count
        # them exactly below.
        direction = _direction(t.shape[1])
        projected = torch.sort(t @ direction).values
        bound = float(t.abs().max()) * float(direction.sum())
        tolerance = 8.0 * t.shape[1] * torch.finfo(torch.float64).eps * bound
        if bool((projected[1:] - projected[:-1] > tolerance).all()):
            return n
    return int(torch.unique(t, dim=0).shape[0])


@lru_cache(maxsize=16)
def _direction(dim: int) -> Tensor:
    """A fixed direction of ``dim`` positive float64 components (seeded: reproducible)."""
    gen = torch.Generator().manual_seed(0x5EED)
    return torch.rand(dim, generator=gen, dtype=torch.float64) + 0.5


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
    dist2 = (sq[:, None] + sq[None, :]).sub_(g, alpha=2.0)  # one L × L temporary
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


def position_share(positions: Tensor, words: Tensor, *, words_sq: Tensor | None = None) -> Tensor:
    """Share of each row's sum ``e = w + p`` that the position contributes:
    ``‖p_i‖² / (‖w_i‖² + ‖p_i‖²)`` per row, in ``[0, 1]`` (0 where both are zero); shape
    ``(L,)``. ``positions`` and ``words`` are ``(L, D)`` tables of the same shape;
    ``words_sq``, if given, is ``(words * words).sum(-1)`` computed already."""
    p = _check_table(positions, "positions")
    w = _check_table(words, "words")
    if p.shape != w.shape:
        raise ValueError(f"positions and words must have one shape, got {tuple(p.shape)} and "
                         f"{tuple(w.shape)}")  # fmt: skip
    pp = (p * p).sum(dim=-1)
    total = pp + ((w * w).sum(dim=-1) if words_sq is None else words_sq)
    return torch.where(total > 0, pp / torch.where(total > 0, total, 1.0), 0.0)
