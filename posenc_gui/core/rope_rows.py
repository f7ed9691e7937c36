"""RoPE scores of one query/key pair along rows of integer distances, and their matrices.

The arithmetic behind :func:`posenc_gui.core.rope.rope_score_range`,
:func:`~posenc_gui.core.rope.rope_score_toeplitz` and :func:`~posenc_gui.core.rope.minmax_bins`
(which check their arguments and call these), on numpy arrays and without checks: the RoPE tab
calls them at every step of a slider.

Conventions (those of :mod:`posenc_gui.core.rope`)
--------------------------------------------------
* ``θ_i = base^(−2i/d)``; ``h_i = q_i·conj(k_i)`` (complex128, shape ``(d/2,)``) with the complex
  pairs of the layout (:func:`~posenc_gui.core.rope.rope_complex_pairs`).
* ``score(r) = <R_m q, R_n k> = Re Σ_i h_i e^{i r θ_i}`` at the distance ``r = m − n``.
* A window of queries ``m₀ + a`` and keys ``n₀ + b`` (``a, b < size``) has the score matrix
  ``S[a, b] = row[a − b + size − 1]`` of the row of scores at ``d₀ − size + 1 … d₀ + size − 1``
  (``d₀ = m₀ − n₀``): a Toeplitz matrix, constant along its diagonals.

Speed: what is kept, when it is made again, why it is faster
-----------------------------------------------------------
:func:`rope_phase_table` keeps the table ``[cos tθ_i | sin tθ_i]ᵀ`` (``t < count``) per
``(dim, base)`` (at most eight tables); a table that is too short is made again at least twice as
long (a window slider dragged upwards), a longer one serves every shorter count. A row of scores
then computes only the ``blocks × d/2`` phases of its block starts and does one matrix product
``(blocks, d) @ (d, chunk)``: a range of 200,001 distances at d = 512 takes a few milliseconds
(the direct sum over all ``count × d/2`` phases, tens). The products run in torch, single-threaded
as the app sets it (numpy's OpenBLAS would start its own threads, which spin against the GUI).
"""

from __future__ import annotations

import threading

import numpy as np
import torch
from torch import Tensor

from .sinusoidal import _inverse_frequencies

__all__ = [
    "SCORE_CHUNK",
    "minmax_runs",
    "rope_even_score_row",
    "rope_phase_table",
    "rope_score_row",
    "toeplitz_float32",
    "toeplitz_from_reversed",
]

#: Distances per block of :func:`rope_score_row` (columns of the phase table it uses).
SCORE_CHUNK = 512

#: ``[cos tθ_i | sin tθ_i]ᵀ`` tables by ``(dim, base)`` (see :func:`rope_phase_table`).
_PHASES: dict[tuple[int, float], Tensor] = {}
_PHASES_LOCK = threading.Lock()
_PHASES_KEPT = 8


def _theta(dim: int, base: float) -> np.ndarray:
    """``θ_i`` (float64, ``(d/2,)``), the cached frequencies: read them, never write."""
    out: np.ndarray = _inverse_frequencies(dim, base).numpy()
    return out


def rope_phase_table(dim: int, base: float, count: int) -> Tensor:
    """``[cos tθ_i | sin tθ_i]ᵀ`` for ``t = 0 … count−1``: the cosines of pair ``i`` in row
    ``i``, the sines in row ``d/2 + i``.

    Cached by ``(dim, base)`` (see the module docstring); safe to call from several threads.
    Read the result, do not write it: it is a view of the kept table. The cosines in torch
    (vectorised: ~15x numpy's on the reference machine), written straight into the two halves.

    Args:
        dim: head dimension, an even integer >= 2 (not checked).
        base: frequency base, a number > 1 (not checked).
        count: number of distances ``t``, >= 0.

    Returns:
        float64 tensor of shape ``(dim, count)``.
    """
    key = (dim, base)
    with _PHASES_LOCK:
        hit = _PHASES.get(key)
        if hit is None or hit.shape[1] < count:
            rows = count if hit is None else max(count, 2 * hit.shape[1])
            half = dim // 2
            t = torch.from_numpy(_theta(dim, base)[:, None] * np.arange(rows, dtype=np.float64))
            hit = torch.empty(dim, rows, dtype=torch.float64)
            torch.cos(t, out=hit[:half])
            torch.sin(t, out=hit[half:])
            if len(_PHASES) >= _PHASES_KEPT:
                _PHASES.clear()
            _PHASES[key] = hit
    return hit[:, :count]


def rope_score_row(
    h: np.ndarray, base: float, start: int, count: int, *, chunk: int = SCORE_CHUNK
) -> np.ndarray:
    """``score(r) = Re Σ_i h_i e^{i r θ_i}`` at ``r = start … start+count−1``.

    ``score(r₀ + t) = Re Σ_i g_i e^{i t θ_i}`` with ``g = h·e^{i r₀ θ}`` per block start ``r₀``:
    the blocks (of equal size, at most ``chunk``: 513 distances are 2 × 257, not 512 + 1) share
    the table of :func:`rope_phase_table`, and all of them are one matrix product
    ``[Re g | −Im g] @ table``.

    Args:
        h: complex128 array of shape ``(d/2,)``, ``h_i = q_i·conj(k_i)``.
        base: frequency base, a number > 1 (not checked).
        start: first distance (may be negative).
        count: number of consecutive distances (<= 0: none).
        chunk: most distances per block, >= 1.

    Returns:
        float64 array of shape ``(max(count, 0),)``.
    """
    if count <= 0:
        return np.zeros(0, dtype=np.float64)
    half = h.shape[0]
    dim = 2 * half
    blocks = -(-count // chunk)
    size = -(-count // blocks)
    table = rope_phase_table(dim, base, size)
    starts = start + size * np.arange(blocks, dtype=np.float64)
    ang = torch.from_numpy(starts[:, None] * _theta(dim, base)[None, :])
    c0, s0 = torch.cos(ang).numpy(), torch.sin(ang).numpy()
    # the products of a few rows in numpy (the same IEEE operations, each rounded alike, without
    # a torch call per operation); the long matrix product in torch
    h_re, h_im = h.real, h.imag
    g = np.empty((blocks, dim), dtype=np.float64)
    np.subtract(h_re * c0, h_im * s0, out=g[:, :half])  # Re g
    np.add(h_re * s0, h_im * c0, out=g[:, half:])  # Im g
    np.negative(g[:, half:], out=g[:, half:])
    out: np.ndarray = (torch.from_numpy(g) @ table).numpy().reshape(-1)[:count]
    return out


def rope_even_score_row(h: np.ndarray, base: float, a: int, b: int) -> np.ndarray:
    """:func:`rope_score_row` at ``r = a … b`` (``b >= a``) for a real ``h`` (``q = k``:
    ``h_i = |k_i|²``). Such a score is even in ``r``, so a range across 0 computes each ``|r|``
    once.

    Returns:
        float64 array of shape ``(b − a + 1,)``.
    """
    if a < 0 < b:
        half = rope_score_row(h, base, 0, max(-a, b) + 1)
        return np.concatenate((half[-a:0:-1], half[: b + 1]))  # at |r|, r = a … b
    return rope_score_row(h, base, a, b - a + 1)


def minmax_runs(values: np.ndarray, group: int) -> tuple[np.ndarray, np.ndarray]:
    """Minimum and maximum of each run of ``group`` consecutive values (the last run may be
    shorter): a per-pixel-column envelope that keeps every peak point sampling would miss.

    Args:
        values: 1-D array of ``N >= 1`` values.
        group: values per run, >= 1.

    Returns:
        ``(mins, maxs)``, arrays of shape ``(ceil(N / group),)`` and the dtype of ``values``.
    """
    bins = -(-values.shape[0] // group)
    pad = bins * group - values.shape[0]
    if pad:  # the last value repeated: the last run's extremes stay its own
        values = np.concatenate((values, np.repeat(values[-1:], pad)))
    blocks = values.reshape(bins, group)
    return blocks.min(axis=1), blocks.max(axis=1)


def toeplitz_float32(row: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The float32 matrix ``S[a, b] = row[a − b + size − 1]`` of a row of ``2·size − 1``
    values (the score matrix of a window, see the module docstring), and the reversed float32
    row it is made from (:func:`toeplitz_from_reversed` makes the matrix again from it).

    Returns:
        ``(matrix, reversed_row)``: C-contiguous float32 arrays of shapes ``(size, size)`` and
        ``(2·size − 1,)``.
    """
    rev = np.ascontiguousarray(row[::-1], dtype=np.float32)
    return toeplitz_from_reversed(rev, size), rev


def toeplitz_from_reversed(rev: np.ndarray, size: int) -> np.ndarray:
    """``out[a, b] = rev[size − 1 − a + b]``: the Toeplitz matrix of the row ``rev[::-1]``.

    Row ``a`` is ``rev`` from ``size − 1 − a`` on: overlapping windows of the one contiguous
    array (a strided view, no index array for each new size), read once into the result. Any
    dtype (the RoPE tab also lays out the 32-bit colours of a row this way).

    Args:
        rev: C-contiguous 1-D array of ``2·size − 1`` values.
        size: side of the matrix, >= 1.

    Returns:
        a new C-contiguous array of shape ``(size, size)`` and the dtype of ``rev``.
    """
    step = rev.strides[0]
    windows = np.lib.stride_tricks.as_strided(rev, (size, size), (step, step), writeable=False)
    out: np.ndarray = np.ascontiguousarray(windows[::-1])
    return out
