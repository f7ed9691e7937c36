"""ALiBi: attention with linear biases (Press, Smith & Lewis 2022).

Conventions
-----------
* Slopes: ``2^(-8h/n)`` for ``h = 1 … n`` when ``n`` is a power of two. Otherwise take the
  slopes of the nearest lower power of two ``p``, followed by every other slope (indices
  0, 2, 4, …) of ``2p``, keeping the first ``n - p`` of them (the reference implementation).
* Bias for head ``h``, query row ``i`` and key column ``j``: ``-slope_h·(i - j)`` for ``j <= i``
  and ``-inf`` for ``j > i`` (causal mask).
"""

from __future__ import annotations

import torch
from torch import Tensor

from ._validate import check_positive_int

__all__ = ["alibi_bias", "alibi_slopes"]


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
