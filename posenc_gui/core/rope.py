"""Rotary position embedding (RoPE, Su et al. "RoFormer", 2021).

Conventions
-----------
* Pair ``i`` (``i = 0 … d/2 - 1``) is rotated by the angle ``m·θ_i`` at position ``m``, with
  ``θ_i = base^(-2i/d)`` (the sinusoidal frequencies, :func:`inverse_frequencies`).
* ``layout="interleaved"`` pairs ``(x[2i], x[2i+1])`` — RoFormer paper, GPT-J, Meta's LLaMA code.
* ``layout="half"`` pairs ``(x[i], x[i + d/2])`` — GPT-NeoX, Hugging Face ``rotate_half``.
* Each pair ``(a, b)`` becomes ``(a·cos φ - b·sin φ, a·sin φ + b·cos φ)`` (counter-clockwise).
* The same vectors give different scores under the two layouts; they agree once ``q`` and ``k``
  are permuted by :func:`layout_permutation` ``= [0, 2, 4, …, 1, 3, 5, …]``.
* Scores depend only on the relative offset: ``<R_m q, R_n k> = <q, R_{n-m} k>``
  (because ``R_mᵀ R_n = R_{n-m}``).
* Angles are computed in float64; outputs keep the input dtype (float64 in, float64 throughout).
"""

from __future__ import annotations

import math
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
    check_positive_int,
    to_float64_vector,
)
from .rope_rows import minmax_runs, rope_score_row, toeplitz_from_reversed
from .sinusoidal import inverse_frequencies

__all__ = [
    "ROPE_LAYOUTS",
    "RopeLayout",
    "RotaryEmbedding",
    "apply_rope",
    "layout_permutation",
    "minmax_bins",
    "nice_ceil",
    "rope_abel_sums",
    "rope_angles",
    "rope_bound_coefficient",
    "rope_complex_pairs",
    "rope_decay_bound",
    "rope_matrix",
    "rope_pair_scores",
    "rope_score_bound",
    "rope_score_by_offset",
    "rope_score_range",
    "rope_score_toeplitz",
    "rope_scores",
]

RopeLayout = Literal["interleaved", "half"]
ROPE_LAYOUTS: tuple[str, ...] = ("interleaved", "half")


def _check_layout(layout: object) -> str:
    return check_choice(layout, "layout", ROPE_LAYOUTS)


def _check_real_number(value: object, name: str) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, Tensor) and value.numel() == 1 and not value.is_complex():
        return float(value.item())
    raise ValueError(f"{name} must be a real number, got {value!r}")


def _check_rope_input(x: object, name: str) -> Tensor:
    """Check that ``x`` is a floating tensor of shape ``(..., L, dim)`` with ``dim`` even."""
    if not isinstance(x, Tensor) or not x.is_floating_point() or x.dim() < 2:
        desc = f"dtype {x.dtype} and shape {tuple(x.shape)}" if isinstance(x, Tensor) else repr(x)
        raise ValueError(
            f"{name} must be a floating-point tensor of shape (..., L, dim), got {desc}"
        )
    last = x.shape[-1]
    if last < 2 or last % 2 != 0:
        raise ValueError(f"{name}.shape[-1] (dim) must be an even integer >= 2, got {last}")
    return x


def _check_vector(v: RealVector, name: str) -> Tensor:
    """Convert a query/key vector to float64 of shape ``(dim,)`` with ``dim`` even >= 2."""
    t = to_float64_vector(v, name)
    n = t.shape[0]
    if n < 2 or n % 2 != 0:
        raise ValueError(f"{name} must have an even length >= 2, got length {n}")
    return t


def _rotate(x: Tensor, cos: Tensor, sin: Tensor, layout: str) -> Tensor:
    """Rotate ``x`` (..., L, dim) pairwise with ``cos``/``sin`` of shape (L, dim/2)."""
    half = x.shape[-1] // 2
    if layout == "interleaved":
        x1, x2 = x[..., 0::2], x[..., 1::2]
        out1 = x1 * cos - x2 * sin
        out2 = x1 * sin + x2 * cos
        return torch.stack((out1, out2), dim=-1).flatten(-2)
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)


def rope_angles(positions: RealVector, dim: int, base: float = 10000.0) -> Tensor:
    """Rotation angles ``φ[l, i] = positions[l]·θ_i`` with ``θ_i = base^(-2i/dim)``.

    Args:
        positions: 1-D tensor or sequence of ``L`` (possibly fractional) positions.
        dim: head dimension, an even integer >= 2.
        base: frequency base, a finite number > 1.

    Returns:
        float64 tensor of shape ``(L, dim // 2)``.
    """
    pos = to_float64_vector(positions, "positions")
    theta = inverse_frequencies(dim, base)
    return pos[:, None] * theta[None, :]


def rope_matrix(
    position: float, dim: int, base: float = 10000.0, *, layout: RopeLayout = "interleaved"
) -> Tensor:
    """The block rotation matrix ``R_m`` with ``R_m @ x == apply_rope(x, [m])`` for ``layout``.

    ``"interleaved"`` puts the 2×2 blocks ``[[cos mθ_i, -sin mθ_i], [sin mθ_i, cos mθ_i]]`` on the
    diagonal (rows/columns ``2i, 2i+1``); ``"half"`` couples index ``i`` with ``i + dim/2``.
    ``R_m`` is orthogonal and ``R_mᵀ R_n = R_{n-m}``.

    Args:
        position: the position ``m`` (a real number).
        dim: head dimension, an even integer >= 2.
        base: frequency base, a finite number > 1.
        layout: ``"interleaved"`` or ``"half"``.

    Returns:
        float64 tensor of shape ``(dim, dim)``.
    """
    m = _check_real_number(position, "position")
    dim = check_even_dim(dim)
    layout_s = _check_layout(layout)
    angles = m * inverse_frequencies(dim, base)
    c, s = torch.cos(angles), torch.sin(angles)
    half = dim // 2
    idx = torch.arange(half)
    if layout_s == "interleaved":
        a, b = 2 * idx, 2 * idx + 1
    else:
        a, b = idx, idx + half
    mat = torch.zeros((dim, dim), dtype=torch.float64)
    mat[a, a] = c
    mat[a, b] = -s
    mat[b, a] = s
    mat[b, b] = c
    return mat


def apply_rope(
    x: Tensor,
    positions: RealVector | None = None,
    *,
    base: float = 10000.0,
    layout: RopeLayout = "interleaved",
) -> Tensor:
    """Rotate query/key vectors by their positions (RoPE).

    Pair ``i`` of the vector at row ``l`` is rotated by ``positions[l]·θ_i``,
    ``θ_i = base^(-2i/dim)``; see the module docstring for the two pair layouts. Vector norms
    are preserved.

    Args:
        x: floating tensor of shape ``(..., L, dim)``, ``dim`` even.
        positions: 1-D tensor or sequence of ``L`` positions (may be fractional or negative);
            ``None`` means ``0 … L-1``.
        base: frequency base, a finite number > 1.
        layout: ``"interleaved"`` or ``"half"``.

    Returns:
        tensor of the same shape and dtype as ``x``. Angles, cos and sin are computed in float64
        and cast to ``x.dtype`` (so float64 input is handled in float64 throughout).
    """
    x = _check_rope_input(x, "x")
    layout_s = _check_layout(layout)
    length, dim = x.shape[-2], x.shape[-1]
    if positions is None:
        pos = torch.arange(length, dtype=torch.float64)
    else:
        pos = to_float64_vector(positions, "positions")
        if pos.shape[0] != length:
            raise ValueError(
                f"positions must have length L = x.shape[-2] = {length}, got {pos.shape[0]}"
            )
    angles = rope_angles(pos, dim, base)
    cos = torch.cos(angles).to(device=x.device, dtype=x.dtype)
    sin = torch.sin(angles).to(device=x.device, dtype=x.dtype)
    return _rotate(x, cos, sin, layout_s)


def rope_scores(
    q: RealVector,
    k: RealVector,
    query_positions: RealVector,
    key_positions: RealVector,
    *,
    base: float = 10000.0,
    layout: RopeLayout = "interleaved",
) -> Tensor:
    """Attention logits ``S[a, b] = <R_{m_a} q, R_{n_b} k>`` of one query and one key vector.

    Args:
        q: query vector of shape ``(dim,)``.
        k: key vector of shape ``(dim,)`` (same ``dim``).
        query_positions: ``Lq`` query positions ``m_a``.
        key_positions: ``Lk`` key positions ``n_b``.
        base: frequency base, a finite number > 1.
        layout: ``"interleaved"`` or ``"half"``.

    Returns:
        float64 tensor of shape ``(Lq, Lk)``. Depends only on ``m_a - n_b`` (Toeplitz when the
        positions are equally spaced).
    """
    q64, k64 = _check_vector(q, "q"), _check_vector(k, "k")
    if q64.shape != k64.shape:
        raise ValueError(
            f"q and k must have the same length, got {q64.shape[0]} and {k64.shape[0]}"
        )
    qpos = to_float64_vector(query_positions, "query_positions")
    kpos = to_float64_vector(key_positions, "key_positions")
    dim = q64.shape[0]
    rq = apply_rope(q64.expand(qpos.shape[0], dim), qpos, base=base, layout=layout)
    rk = apply_rope(k64.expand(kpos.shape[0], dim), kpos, base=base, layout=layout)
    return rq @ rk.T


def rope_score_by_offset(
    q: RealVector,
    k: RealVector,
    offsets: RealVector,
    *,
    base: float = 10000.0,
    layout: RopeLayout = "interleaved",
) -> Tensor:
    """RoPE score as a function of the relative distance ``r = m - n`` only.

    Uses ``<R_m q, R_n k> = qᵀ R_mᵀ R_n k = <q, R_{n-m} k> = <q, R_{-r} k>``, so the result
    equals :func:`rope_scores` for any ``m, n`` with ``m - n = r``.

    Args:
        q: query vector of shape ``(dim,)``.
        k: key vector of shape ``(dim,)``.
        offsets: 1-D tensor or sequence of ``K`` relative distances ``r = m - n``.
        base: frequency base, a finite number > 1.
        layout: ``"interleaved"`` or ``"half"``.

    Returns:
        float64 tensor of shape ``(K,)``.
    """
    q64, k64 = _check_vector(q, "q"), _check_vector(k, "k")
    if q64.shape != k64.shape:
        raise ValueError(
            f"q and k must have the same length, got {q64.shape[0]} and {k64.shape[0]}"
        )
    r = to_float64_vector(offsets, "offsets")
    rk = apply_rope(k64.expand(r.shape[0], q64.shape[0]), -r, base=base, layout=layout)
    return rk @ q64


def rope_pair_scores(
    q: RealVector,
    k: RealVector,
    m: float,
    n: float,
    *,
    base: float = 10000.0,
    layout: RopeLayout = "interleaved",
) -> Tensor:
    """Per-pair contributions to the RoPE score ``<R_m q, R_n k>``.

    Entry ``i`` is the 2-D dot product of pair ``i`` of ``R_m q`` and of ``R_n k``, i.e.
    ``q_iᵀ R((n - m)θ_i) k_i`` with ``q_i, k_i`` the 2-vectors of pair ``i`` in ``layout``;
    the entries sum to the score ``<R_m q, R_n k>``.

    Args:
        q: query vector of shape ``(dim,)``.
        k: key vector of shape ``(dim,)``.
        m: query position.
        n: key position.
        base: frequency base, a finite number > 1.
        layout: ``"interleaved"`` or ``"half"`` (defines which coordinates form pair ``i``).

    Returns:
        float64 tensor of shape ``(dim // 2,)``.
    """
    q64, k64 = _check_vector(q, "q"), _check_vector(k, "k")
    if q64.shape != k64.shape:
        raise ValueError(
            f"q and k must have the same length, got {q64.shape[0]} and {k64.shape[0]}"
        )
    m_f = _check_real_number(m, "m")
    n_f = _check_real_number(n, "n")
    layout_s = _check_layout(layout)
    rq = apply_rope(q64[None, :], [m_f], base=base, layout=layout)[0]
    rk = apply_rope(k64[None, :], [n_f], base=base, layout=layout)[0]
    prod = rq * rk
    half = q64.shape[0] // 2
    if layout_s == "interleaved":
        return prod[0::2] + prod[1::2]
    return prod[:half] + prod[half:]


def rope_decay_bound(
    offsets: RealVector, dim: int, base: float = 10000.0, *, normalize: bool = False
) -> Tensor:
    """RoFormer §3.4.3 long-term-decay bound (the "relative upper bound" of the paper's Figure 2).

    By Abel summation ``|Σ_i h_i e^{i r θ_i}| <= (max_i |h_{i+1} - h_i|) · Σ_{j=1}^{d/2} |S_j|``
    with ``S_j = Σ_{k=0}^{j-1} e^{i r θ_k}``; this returns the relative bound
    ``(1/(d/2)) · Σ_{j=1}^{d/2} |S_j|``, which decays (with oscillations) as ``|r|`` grows.
    At ``r = 0`` every ``|S_j| = j`` so the value is ``(d/2 + 1)/2``.

    Args:
        offsets: 1-D tensor or sequence of ``K`` relative distances ``r``.
        dim: head dimension, an even integer >= 2.
        base: frequency base, a finite number > 1.
        normalize: if true divide by the ``r = 0`` value ``(d/2 + 1)/2`` so the curve starts at 1.

    Returns:
        float64 tensor of shape ``(K,)``.
    """
    r = to_float64_vector(offsets, "offsets")
    theta = inverse_frequencies(dim, base)
    angles = r[:, None] * theta[None, :]  # (K, d/2)
    s_re = torch.cumsum(torch.cos(angles), dim=-1)
    s_im = torch.cumsum(torch.sin(angles), dim=-1)
    bound = torch.hypot(s_re, s_im).mean(dim=-1)
    if normalize:
        bound = bound / ((theta.shape[0] + 1) / 2.0)
    return bound


def layout_permutation(dim: int) -> Tensor:
    """Permutation ``[0, 2, 4, …, dim-2, 1, 3, 5, …, dim-1]`` linking the two RoPE layouts.

    ``apply_rope(x[..., perm], layout="half") == apply_rope(x, layout="interleaved")[..., perm]``,
    hence scores agree once both ``q`` and ``k`` are permuted.

    Args:
        dim: head dimension, an even integer >= 2.

    Returns:
        int64 tensor of shape ``(dim,)``.
    """
    dim = check_even_dim(dim)
    return torch.cat((torch.arange(0, dim, 2), torch.arange(1, dim, 2)))


class RotaryEmbedding(nn.Module):
    """RoPE as a module, usable inside a real attention layer.

    Caches ``cos``/``sin`` tables of shape ``(max_positions, dim // 2)`` in float64 as
    non-persistent buffers (not saved in ``state_dict``); the cache grows (at least doubling, up
    to :attr:`max_cache_positions`) when a larger integer position is requested. Results equal
    :func:`apply_rope` (cos/sin are computed in float64 and cast to the input dtype).

    Args:
        dim: head dimension, an even integer >= 2.
        base: frequency base, a finite number > 1.
        layout: ``"interleaved"`` or ``"half"``.
        max_positions: initial cache size, an integer >= 1.
    """

    cos_cached: Tensor
    sin_cached: Tensor
    max_cache_positions: int = 1 << 16
    """The cache never grows beyond this (or the initial size); larger positions are computed
    directly."""

    def __init__(
        self,
        dim: int,
        base: float = 10000.0,
        *,
        layout: RopeLayout = "interleaved",
        max_positions: int = 2048,
    ) -> None:
        super().__init__()
        self.dim = check_even_dim(dim)
        self.base = check_base(base)
        self.layout: str = _check_layout(layout)
        size = check_positive_int(max_positions, "max_positions")
        cos, sin = self._tables(size, torch.device("cpu"))
        self.register_buffer("cos_cached", cos, persistent=False)
        self.register_buffer("sin_cached", sin, persistent=False)

    @property
    def cached_positions(self) -> int:
        """Number of positions currently held in the cos/sin cache."""
        return int(self.cos_cached.shape[0])

    def _tables(self, size: int, device: torch.device) -> tuple[Tensor, Tensor]:
        angles = rope_angles(torch.arange(size, dtype=torch.float64), self.dim, self.base)
        return torch.cos(angles).to(device), torch.sin(angles).to(device)

    def _grow(self, needed: int) -> None:
        if needed <= self.cached_positions:
            return
        size = max(needed, min(2 * self.cached_positions, self.max_cache_positions))
        cos, sin = self._tables(size, self.cos_cached.device)
        self.cos_cached = cos
        self.sin_cached = sin

    def forward(
        self, q: Tensor, k: Tensor, positions: RealVector | None = None
    ) -> tuple[Tensor, Tensor]:
        """Rotate ``q`` and ``k`` of shape ``(..., L, dim)`` by ``positions`` (``(L,)``).

        ``positions=None`` means ``0 … L-1``. Non-negative integer positions use (and grow) the
        cache; fractional or negative positions are computed directly. Outputs keep the shapes
        and dtypes of ``q`` and ``k``; leading dims of ``q`` and ``k`` may differ (e.g. grouped
        heads) but ``L`` and ``dim`` must match.
        """
        q = _check_rope_input(q, "q")
        k = _check_rope_input(k, "k")
        for name, t in (("q", q), ("k", k)):
            if t.shape[-1] != self.dim:
                raise ValueError(f"{name}.shape[-1] must equal dim = {self.dim}, got {t.shape[-1]}")
        length = q.shape[-2]
        if k.shape[-2] != length:
            raise ValueError(
                f"k.shape[-2] must equal q.shape[-2] = {length} (one positions vector), "
                f"got {k.shape[-2]}"
            )
        pos64 = (
            torch.arange(length, dtype=torch.float64)
            if positions is None
            else to_float64_vector(positions, "positions")
        )
        if pos64.shape[0] != length:
            raise ValueError(
                f"positions must have length L = q.shape[-2] = {length}, got {pos64.shape[0]}"
            )
        use_cache = (
            length > 0
            and bool(torch.isfinite(pos64).all())
            and bool((pos64 == torch.round(pos64)).all())
            and float(pos64.min()) >= 0
        )
        needed = int(pos64.max()) + 1 if use_cache else 0
        if use_cache and needed > max(self.cached_positions, self.max_cache_positions):
            use_cache = False  # huge positions: compute directly instead of a giant cache
        if use_cache:
            self._grow(needed)
            idx = pos64.to(device=self.cos_cached.device, dtype=torch.int64)
            cos64, sin64 = self.cos_cached[idx], self.sin_cached[idx]
        else:
            angles = rope_angles(pos64, self.dim, self.base)
            cos64, sin64 = torch.cos(angles), torch.sin(angles)
        out = []
        for t in (q, k):
            cos = cos64.to(device=t.device, dtype=t.dtype)
            sin = sin64.to(device=t.device, dtype=t.dtype)
            out.append(_rotate(t, cos, sin, self.layout))
        return out[0], out[1]

    def extra_repr(self) -> str:
        return (
            f"dim={self.dim}, base={self.base:g}, layout={self.layout!r}, "
            f"cached_positions={self.cached_positions}"
        )


# -- one query/key pair: complex pairs, the eq. (37) bound, scores over integer ranges ----------


def rope_complex_pairs(x: RealVector, layout: RopeLayout = "interleaved") -> Tensor:
    """The ``d/2`` pairs of a vector as complex numbers ``x_a + i·x_b``, in pair order.

    ``layout="interleaved"``: ``(a, b) = (2i, 2i+1)``; ``"half"``: ``(a, b) = (i, i + d/2)``.
    Rotating pair ``i`` by ``φ`` (RoPE) is multiplying entry ``i`` by ``e^{iφ}``.

    Args:
        x: real vector of shape ``(dim,)``, ``dim`` even >= 2.
        layout: ``"interleaved"`` or ``"half"``.

    Returns:
        complex128 tensor of shape ``(dim // 2,)``.
    """
    v = _check_vector(x, "x")
    layout_s = _check_layout(layout)
    half = v.shape[0] // 2
    if layout_s == "interleaved":
        return torch.complex(v[0::2], v[1::2])
    return torch.complex(v[:half], v[half:])


def rope_bound_coefficient(
    q: RealVector, k: RealVector, *, layout: RopeLayout = "interleaved"
) -> float:
    """RoFormer eq. (37) coefficient ``max_i |h_{i+1} − h_i|`` (``i = 0 … d/2 − 1``).

    ``h_i = q_i·conj(k_i)`` with the complex pairs of ``layout`` (:func:`rope_complex_pairs`)
    and ``h_{d/2} = 0``, so the last difference is ``|h_{d/2−1}|``.

    Args:
        q: query vector of shape ``(dim,)``.
        k: key vector of shape ``(dim,)`` (same ``dim``).
        layout: ``"interleaved"`` or ``"half"``.

    Returns:
        the coefficient, a float >= 0.
    """
    qc, kc = rope_complex_pairs(q, layout), rope_complex_pairs(k, layout)
    if qc.shape != kc.shape:
        raise ValueError(
            f"q and k must have the same length, got {2 * qc.shape[0]} and {2 * kc.shape[0]}"
        )
    h = qc * torch.conj(kc)
    h_ext = torch.cat((h, torch.zeros(1, dtype=h.dtype)))
    return float(torch.abs(h_ext[1:] - h_ext[:-1]).max())


def _check_range(start: object, count: object) -> tuple[int, int]:
    s = check_int(start, "start")
    c = check_int(count, "count")
    if c < 0:
        raise ValueError(f"count must be an integer >= 0, got {c}")
    return s, c


def rope_abel_sums(
    start: int, count: int, dim: int, base: float = 10000.0, *, chunk: int = 128
) -> Tensor:
    """``A(r) = Σ_{j=1}^{d/2} |S_j(r)|``, ``S_j(r) = Σ_{l<j} e^{i r θ_l}``, at integer distances.

    The factor of RoFormer eq. (37) that depends on the distance only:
    ``|score(r)| <= max_i |h_{i+1} − h_i| · A(r)`` (see :func:`rope_score_bound`);
    ``A(r) = (d/2) · rope_decay_bound([r])``, ``A(0) = (d/2)(d/2 + 1)/2`` and ``A(−r) = A(r)``.

    Computed for ``r = start … start+count−1`` in blocks of ``chunk`` distances, in real
    arithmetic: the angles ``r·θ_l`` (float64), their cosines and sines (vectorised), running
    sums over ``l`` and the moduli. Memory stays ``O(chunk · d/2)`` however long the range (a
    small block also stays in the CPU cache: complex tensors, or blocks of 512 distances, take
    two to three times as long here).

    Args:
        start: first distance (an integer).
        count: number of consecutive distances, >= 0.
        dim: head dimension, an even integer >= 2.
        base: frequency base, a finite number > 1.
        chunk: distances per block, >= 1.

    Returns:
        float64 tensor of shape ``(count,)``.
    """
    s, c = _check_range(start, count)
    size = check_positive_int(chunk, "chunk")
    theta = inverse_frequencies(dim, base)
    out = torch.empty(c, dtype=torch.float64)
    for lo in range(0, c, size):
        n = min(size, c - lo)
        r = torch.arange(s + lo, s + lo + n, dtype=torch.float64)
        angles = r[:, None] * theta[None, :]  # (n, d/2)
        s_re = torch.cumsum(torch.cos(angles), dim=-1)
        s_im = torch.cumsum(torch.sin(angles), dim=-1)
        out[lo : lo + n] = torch.hypot(s_re, s_im).sum(dim=-1)
    return out


def rope_score_bound(
    q: RealVector,
    k: RealVector,
    start: int,
    count: int,
    *,
    base: float = 10000.0,
    layout: RopeLayout = "interleaved",
) -> Tensor:
    """RoFormer eq. (37) bound on ``|score(r)|`` for ``r = start … start+count−1``.

    ``bound(r) = max_i |h_{i+1} − h_i| · Σ_{j=1}^{d/2} |S_j(r)|`` =
    :func:`rope_bound_coefficient` · :func:`rope_abel_sums` (= ``coefficient · (d/2) ·``
    :func:`rope_decay_bound`). Holds for every ``r``: ``|rope_score_by_offset(q, k, [r])| <=
    bound(r)``.

    Returns:
        float64 tensor of shape ``(count,)``.
    """
    coeff = rope_bound_coefficient(q, k, layout=layout)
    dim = _check_vector(q, "q").shape[0]
    return coeff * rope_abel_sums(start, count, dim, base)


def rope_score_range(
    q: RealVector,
    k: RealVector,
    start: int,
    count: int,
    *,
    base: float = 10000.0,
    layout: RopeLayout = "interleaved",
    chunk: int = 512,
) -> Tensor:
    """``score(r) = <R_m q, R_n k>`` at every integer ``r = m − n = start … start+count−1``.

    Equal to :func:`rope_score_by_offset` on ``arange(start, start + count)`` but computed as
    ``score(r₀ + t) = Re Σ_i (h_i e^{i r₀ θ_i}) e^{i t θ_i}`` (``h_i = q_i·conj(k_i)``): one
    table ``e^{itθ}`` for ``t < chunk`` (kept per ``(dim, base)``) and one matrix product for all
    blocks (:func:`posenc_gui.core.rope_rows.rope_score_row`), so a range of 200,001 distances
    at d = 512 costs a few milliseconds and ``O(count + chunk·d/2)`` memory.

    Args:
        q: query vector of shape ``(dim,)``.
        k: key vector of shape ``(dim,)``.
        start: first distance (an integer, may be negative).
        count: number of consecutive distances, >= 0.
        base: frequency base, a finite number > 1.
        layout: ``"interleaved"`` or ``"half"``.
        chunk: most distances per block, >= 1.

    Returns:
        float64 tensor of shape ``(count,)``.
    """
    s, c = _check_range(start, count)
    size = check_positive_int(chunk, "chunk")
    qc, kc = rope_complex_pairs(q, layout), rope_complex_pairs(k, layout)
    if qc.shape != kc.shape:
        raise ValueError(
            f"q and k must have the same length, got {2 * qc.shape[0]} and {2 * kc.shape[0]}"
        )
    h = (qc * torch.conj(kc)).detach().cpu().numpy()
    return torch.from_numpy(rope_score_row(h, check_base(base), s, c, chunk=size))


def rope_score_toeplitz(row: RealVector, size: int) -> Tensor:
    """The score matrix of a window from one row of scores: ``S[a, b] = row[a − b + size − 1]``.

    ``row`` holds the scores at the ``2·size − 1`` distances ``d₀ − size + 1 … d₀ + size − 1``
    where ``d₀ = m₀ − n₀`` (first query minus first key position); the result is
    ``S[a, b] = score((m₀ + a) − (n₀ + b))`` — constant along diagonals (Toeplitz), because a
    RoPE score depends on ``m − n`` only.

    Args:
        row: 1-D tensor or sequence of ``2·size − 1`` scores.
        size: side of the window, >= 1.

    Returns:
        float64 tensor of shape ``(size, size)``.
    """
    n = check_positive_int(size, "size")
    r = to_float64_vector(row, "row")
    if r.shape[0] != 2 * n - 1:
        raise ValueError(f"row must have 2·size − 1 = {2 * n - 1} entries, got {r.shape[0]}")
    rev = np.ascontiguousarray(r.detach().cpu().numpy()[::-1])
    return torch.from_numpy(toeplitz_from_reversed(rev, n))


def minmax_bins(values: RealVector, group: int) -> tuple[Tensor, Tensor]:
    """Minimum and maximum of each run of ``group`` consecutive values (the last may be shorter).

    A per-pixel envelope: with ``group`` samples per pixel column, drawing ``[min, max]`` per
    column shows every peak and trough that point sampling would miss.

    Args:
        values: 1-D tensor or sequence of ``N >= 1`` real values.
        group: values per bin, >= 1.

    Returns:
        ``(mins, maxs)``, float64 tensors of shape ``(ceil(N / group),)``.
    """
    g = check_positive_int(group, "group")
    v = to_float64_vector(values, "values", allow_empty=False)
    mins, maxs = minmax_runs(v.detach().cpu().numpy(), g)
    return torch.from_numpy(mins), torch.from_numpy(maxs)


def nice_ceil(x: float) -> float:
    """Smallest "nice" number ``c·10^k >= x`` with ``c`` in 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8.

    Used for colour-bar levels that read well. Returns 1 for ``x <= 0``.
    """
    if not math.isfinite(x):
        raise ValueError(f"x must be finite, got {x!r}")
    if x <= 0:
        return 1.0
    e = math.floor(math.log10(x))
    for c in (1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0):
        v = c * 10.0**e
        if x <= v * (1 + 1e-12):
            return v
    return 10.0 ** (e + 1)
