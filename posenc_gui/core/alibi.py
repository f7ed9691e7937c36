"""ALiBi: attention with linear biases (Press, Smith & Lewis 2022).

Conventions
-----------
* Slopes: ``2^(-8h/n)`` for ``h = 1 … n`` when ``n`` is a power of two. Otherwise take the
  slopes of the nearest lower power of two ``p``, followed by every other slope (indices
  0, 2, 4, …) of ``2p``, keeping the first ``n - p`` of them (the reference implementation).
* Bias for head ``h``, query row ``i`` and key column ``j``: ``-slope_h·(i - j)`` for ``j <= i``
  and ``-inf`` for ``j > i`` (causal mask). It is added to the scaled logits ``q·k/√d``.
* For comparison with RoPE's *implicit* decay: :func:`rope_expected_score` (closed form of the
  expected RoPE score of correlated random q, k at distance ``r``) and :func:`rope_mean_score`
  (its Monte-Carlo estimate from sampled pairs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import torch
from torch import Tensor

from ._validate import (
    RealVector,
    check_choice,
    check_even_dim,
    check_positive_int,
    to_float64_vector,
)
from .rope import ROPE_LAYOUTS, RopeLayout
from .sinusoidal import inverse_frequencies

__all__ = [
    "AlibiRule",
    "alibi_bias",
    "alibi_bias_for_slope",
    "alibi_rule",
    "alibi_slopes",
    "causal_softmax_row",
    "nearest_keys_holding",
    "rope_expected_score",
    "rope_mean_score",
]


def _power_of_two_slopes(n: int) -> list[float]:
    return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]


def _slopes(n: int) -> list[float]:
    if n & (n - 1) == 0:
        return _power_of_two_slopes(n)
    lower = 1 << (n.bit_length() - 1)
    return _power_of_two_slopes(lower) + _slopes(2 * lower)[0::2][: n - lower]


def alibi_slopes(num_heads: int) -> Tensor:
    """Per-head ALiBi slopes (Press et al. reference implementation).

    Args:
        num_heads: number of attention heads, an integer >= 1.

    Returns:
        float64 tensor of shape ``(num_heads,)``; for 8 heads ``[1/2, 1/4, …, 1/256]``.
    """
    num_heads = check_positive_int(num_heads, "num_heads")
    return torch.tensor(_slopes(num_heads), dtype=torch.float64)


def alibi_bias(num_heads: int, length: int) -> Tensor:
    """Causal ALiBi bias added to the attention logits.

    Args:
        num_heads: number of attention heads, an integer >= 1.
        length: sequence length, an integer >= 1.

    Returns:
        float64 tensor of shape ``(num_heads, length, length)`` with
        ``out[h, i, j] = -slope_h·(i - j)`` for ``j <= i`` (0 on the diagonal) and ``-inf`` for
        ``j > i``; ``i`` is the query row and ``j`` the key column.
    """
    slopes = alibi_slopes(num_heads)
    length = check_positive_int(length, "length")
    pos = torch.arange(length, dtype=torch.float64)
    key_minus_query = pos[None, :] - pos[:, None]  # j - i (gives +0.0, not -0.0, on the diagonal)
    bias = slopes[:, None, None] * key_minus_query[None, :, :]
    return bias.masked_fill((key_minus_query > 0)[None, :, :], float("-inf"))


# -- the head-count rule spelled out, one head's bias, one query's attention ---------------------


@dataclass(frozen=True)
class AlibiRule:
    """How the slopes of ``num_heads`` heads come about (Press et al., §3 and their code).

    ``num_heads`` a power of two: ``slope_h = 2^(−8h/n)``, ``h = 1 … n`` (``lower == num_heads``,
    no extra slopes). Otherwise ``lower = p`` is the nearest lower power of two, whose ``p``
    slopes ``2^(−8h/p)`` come first, followed by the slopes ``2^(−8h/2p)`` of ``2p`` heads at
    ``h = extra_heads = 1, 3, 5, …`` (every other one), the first ``num_heads − p`` of them.

    ``exponents[k]`` is the exact power of two of ``slopes[k]`` (``slopes[k] == 2**exponents[k]``).
    """

    num_heads: int
    lower: int
    extra_heads: tuple[int, ...]
    exponents: tuple[float, ...]
    slopes: tuple[float, ...]

    @property
    def power_of_two(self) -> bool:
        """Whether ``num_heads`` is a power of two (then there are no extra slopes)."""
        return self.lower == self.num_heads

    @property
    def doubled(self) -> int:
        """``2p``: the head count whose every other slope fills the remaining heads."""
        return 2 * self.lower


def alibi_rule(num_heads: int) -> AlibiRule:
    """The slopes of ``num_heads`` heads with the rule that makes them (see :class:`AlibiRule`).

    ``alibi_rule(n).slopes == tuple(alibi_slopes(n).tolist())`` for every ``n``. The rule is
    immutable and cached per head count (a slider step asks for it once per read-out group).
    """
    return _alibi_rule(check_positive_int(num_heads, "num_heads"))


@lru_cache(maxsize=128)
def _alibi_rule(n: int) -> AlibiRule:
    lower = 1 << (n.bit_length() - 1)
    exponents = [-8.0 * h / lower for h in range(1, lower + 1)]
    extra = tuple(range(1, 2 * (n - lower), 2))  # h = 1, 3, 5, … of 2p heads, n − p of them
    exponents += [-8.0 * h / (2 * lower) for h in extra]
    return AlibiRule(n, lower, extra, tuple(exponents), tuple(2.0**e for e in exponents))


def alibi_bias_for_slope(slope: float, length: int) -> Tensor:
    """The causal bias matrix of one head with slope ``slope``.

    Args:
        slope: the head's slope ``m`` (a finite number >= 0).
        length: sequence length, an integer >= 1.

    Returns:
        float64 tensor of shape ``(length, length)`` with ``out[i, j] = −m·(i − j)`` for
        ``j <= i`` (query row ``i``, key column ``j``) and ``−inf`` for ``j > i``; equal to
        ``alibi_bias(n, length)[h]`` when ``slope = alibi_slopes(n)[h]``.
    """
    m = _check_slope(slope)
    length = check_positive_int(length, "length")
    pos = torch.arange(length, dtype=torch.float64)
    key_minus_query = pos[None, :] - pos[:, None]
    return (m * key_minus_query).masked_fill(key_minus_query > 0, float("-inf"))


def causal_softmax_row(logits: RealVector, query: int, slope: float = 0.0) -> Tensor:
    """Attention weights of query ``i = query`` over the keys, with an ALiBi bias of ``slope``.

    ``w_j = exp(s_j − m·(i − j)) / Σ_{k<=i} exp(s_k − m·(i − k))`` for ``j <= i`` and ``w_j = 0``
    for ``j > i`` (causal mask); ``slope = 0`` is plain causal attention. With all logits equal
    the weights are geometric: ``w_j = e^{−m(i−j)}·(1 − e^{−m}) / (1 − e^{−m(i+1)})``.

    Args:
        logits: the ``L`` logits ``s_j`` of this query for keys ``j = 0 … L−1``.
        query: the query position ``i``, ``0 <= i < L``.
        slope: ALiBi slope ``m >= 0``.

    Returns:
        float64 tensor of shape ``(L,)`` that sums to 1.
    """
    s = to_float64_vector(logits, "logits", allow_empty=False)
    i = check_positive_int(query, "query", minimum=0, maximum=s.shape[0] - 1)
    m = _check_slope(slope)
    j = torch.arange(i + 1, dtype=torch.float64)
    out = torch.zeros_like(s)
    out[: i + 1] = torch.softmax(s[: i + 1] - m * (i - j), dim=0)
    return out


def nearest_keys_holding(weights: RealVector, query: int, fraction: float) -> int:
    """The smallest ``k`` such that keys ``i−k+1 … i`` (the ``k`` nearest) hold ``fraction``.

    Args:
        weights: attention weights over keys ``0 … L−1`` (summing to 1).
        query: the query position ``i``.
        fraction: a share of the weight in ``(0, 1]``.

    Returns:
        an integer from 1 to ``i + 1``.
    """
    w = to_float64_vector(weights, "weights", allow_empty=False)
    i = check_positive_int(query, "query", minimum=0, maximum=w.shape[0] - 1)
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"fraction must be a number in (0, 1], got {fraction!r}")
    held = torch.cumsum(w[: i + 1].flip(0), dim=0)
    reached = torch.nonzero(held >= fraction * float(held[-1]) * (1 - 1e-12))
    return int(reached[0]) + 1


# -- RoPE's implicit decay, for comparison -------------------------------------------------------


def rope_expected_score(
    offsets: RealVector, dim: int, base: float = 10000.0, *, correlation: float = 1.0
) -> Tensor:
    """Expected RoPE score ``E⟨R_m q, R_n k⟩`` at relative distance ``r = m − n`` (closed form).

    For ``q ~ N(0, I_d)`` and ``k = ρq + √(1−ρ²)·z`` with ``z ~ N(0, I_d)`` independent
    (``ρ = correlation``), each pair ``i`` contributes ``ρ·E|q_i|²·cos(rθ_i) = 2ρ·cos(rθ_i)``:

        E score(r) = 2ρ · Σ_{i=0}^{d/2−1} cos(r·θ_i),   θ_i = base^(−2i/d),

    so ``E score(0) = ρ·d`` and, since every cosine is >= −1, ``E score(r) >= −ρ·d``. Independent
    q and k (``ρ = 0``) have expected score 0 at every distance: RoPE's decay is a decay of the
    *correlation* between a query and a key. Either pair layout gives the same expectation.

    Args:
        offsets: 1-D tensor or sequence of ``K`` distances ``r``.
        dim: head dimension, an even integer >= 2.
        base: frequency base, a finite number > 1.
        correlation: ``ρ`` in ``[0, 1]``.

    Returns:
        float64 tensor of shape ``(K,)``.
    """
    r = to_float64_vector(offsets, "offsets")
    rho = _check_correlation(correlation)
    theta = inverse_frequencies(dim, base)
    return 2.0 * rho * torch.cos(r[:, None] * theta[None, :]).sum(dim=-1)


def rope_mean_score(
    offsets: RealVector,
    dim: int,
    base: float = 10000.0,
    *,
    correlation: float = 1.0,
    samples: int = 256,
    seed: int = 0,
    layout: RopeLayout = "interleaved",
) -> Tensor:
    """The mean RoPE score over ``samples`` random (q, k) pairs at each distance ``r = m − n``.

    Draws ``q_s ~ N(0, I_d)``, ``k_s = ρq_s + √(1−ρ²)·z_s`` (``torch.Generator`` seeded with
    ``seed``) and averages ``score_s(r) = ⟨R_m q_s, R_n k_s⟩`` (:func:`~posenc_gui.core.rope.
    rope_score_by_offset` of each pair). The score is ``Re Σ_i h_i e^{irθ_i}`` with
    ``h_i = q_i·conj(k_i)`` (complex pairs of ``layout``), linear in ``h``, so the mean is that
    sum with the mean ``h̄_i``: one ``(K, d/2)`` product however many samples. Its expectation is
    :func:`rope_expected_score`; at ``r = 0`` it is exactly the mean of ``⟨q_s, k_s⟩``.

    Args:
        offsets: 1-D tensor or sequence of ``K`` distances ``r``.
        dim: head dimension, an even integer >= 2.
        base: frequency base, a finite number > 1.
        correlation: ``ρ`` in ``[0, 1]``.
        samples: number of (q, k) pairs, an integer >= 1.
        seed: seed of the generator (an integer >= 0).
        layout: ``"interleaved"`` or ``"half"``.

    Returns:
        float64 tensor of shape ``(K,)``.
    """
    r = to_float64_vector(offsets, "offsets")
    rho = _check_correlation(correlation)
    count = check_positive_int(samples, "samples")
    seed = check_positive_int(seed, "seed", minimum=0)
    d = check_even_dim(dim)
    square, cross = _pair_moments(count, seed, d, check_choice(layout, "layout", ROPE_LAYOUTS))
    # h = q·conj(ρq + √(1−ρ²)z) = ρ|q|² + √(1−ρ²)·q·conj(z): its mean from the two cached means
    mean = rho * square + math.sqrt(max(1.0 - rho * rho, 0.0)) * cross
    theta = inverse_frequencies(d, base)
    angles = r[:, None] * theta[None, :]
    return torch.cos(angles) @ mean.real - torch.sin(angles) @ mean.imag


@lru_cache(maxsize=128)
def _pair_moments(count: int, seed: int, dim: int, layout: str) -> tuple[Tensor, Tensor]:
    """Means over the ``count`` drawn pairs of ``|q_i|²`` and of ``q_i·conj(z_i)`` (complex pairs
    of ``layout``): all that the correlation changes is their mix, so a new ``ρ``, base or set
    of distances needs no new draw (1024 pairs at d = 256: ~10 ms, most of it the draw). In
    real arithmetic on the pairs' components (``q·conj(z) = (q_a z_a + q_b z_b) + i(q_b z_a −
    q_a z_b)``): complex tensors cost torch twice as much here. Cached for many seeds: each
    entry is two vectors of d/2 numbers."""
    gen = torch.Generator().manual_seed(seed)
    q, z = torch.randn(2, count, dim, dtype=torch.float64, generator=gen)
    qa, qb = _pair_parts(q, layout)
    za, zb = _pair_parts(z, layout)
    square = (qa * qa + qb * qb).mean(dim=0)
    cross = torch.complex((qa * za + qb * zb).mean(dim=0), (qb * za - qa * zb).mean(dim=0))
    return square, cross


def _pair_parts(x: Tensor, layout: str) -> tuple[Tensor, Tensor]:
    """The two components of each pair of the rows of ``x`` (``(S, d)``) in ``layout``, as
    :func:`~posenc_gui.core.rope.rope_complex_pairs` takes them from one vector."""
    if check_choice(layout, "layout", ROPE_LAYOUTS) == "interleaved":
        return x[:, 0::2], x[:, 1::2]
    half = x.shape[1] // 2
    return x[:, :half], x[:, half:]


def _check_slope(slope: object) -> float:
    if isinstance(slope, bool) or not isinstance(slope, int | float):
        raise ValueError(f"slope must be a finite number >= 0, got {slope!r}")
    m = float(slope)
    if not math.isfinite(m) or m < 0:
        raise ValueError(f"slope must be a finite number >= 0, got {slope!r}")
    return m


def _check_correlation(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"correlation must be a number from 0 to 1, got {value!r}")
    rho = float(value)
    if not 0.0 <= rho <= 1.0:
        raise ValueError(f"correlation must be a number from 0 to 1, got {value!r}")
    return rho
