"""Key offsets of a causal sequence: ``j − i`` for every query ``i`` and key ``j``, and the mask
of the keys after their query (numpy, read-only, shared)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np


def causal_key_offsets(
    length: int, capacity: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For ``length`` positions: ``j − i`` (float64, 0 where the key ``j`` comes after the
    query ``i``), the same in float32, and that mask (``j > i``). Each is the top-left
    ``length × length`` corner of the read-only matrices of ``capacity`` positions (default:
    ``length``), built once: ``j − i`` does not depend on the length, so another length slices
    the same matrices."""
    size = length if capacity is None else capacity
    if not 0 <= length <= size:
        raise ValueError(f"length must be in 0 … {size}, got {length}")
    offsets, image, mask = _offsets_of(size)
    return offsets[:length, :length], image[:length, :length], mask[:length, :length]


@lru_cache(maxsize=4)
def _offsets_of(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pos = np.arange(size, dtype=np.float64)
    offsets = pos[None, :] - pos[:, None]  # j − i (+0.0 on the diagonal)
    mask = offsets > 0
    offsets[mask] = 0.0
    image = offsets.astype(np.float32)
    for a in (offsets, image, mask):
        a.flags.writeable = False  # shared by every caller
    return offsets, image, mask
