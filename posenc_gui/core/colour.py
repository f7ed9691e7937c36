"""Values on a fixed colour scale as indices into a 256-entry colour table (no Qt).

The heat maps colour values of a known range (``PE[p, j]`` in ``[−1, 1]``) with a fixed scale:
levels ``(lo, hi)`` and a table of 256 colours. This is the mapping pyqtgraph applies to such an
image (``ImageItem`` with ``levels=(lo, hi)`` and a 256-entry lookup table): index
``floor((v − lo) · 256/(hi − lo))``, clipped to ``0 … 255``. Computing the indices once lets a
view keep them with the values and colour them again with another colour map for free.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

__all__ = ["colour_index"]


def colour_index(values: Tensor) -> np.ndarray:
    """Colour-table indices (uint8, ``0 … 255``) of values on the fixed scale ``[−1, 1]``.

    ``floor((v + 1) · 128)``, clipped to ``0 … 255``: ``−1 → 0``, ``0 → 128``, ``1 → 255``
    (``256`` clipped), each of the 256 indices covering ``1/128`` of the scale. NaN has no
    colour: its index is undefined.

    Args:
        values: real tensor of any shape (not changed).

    Returns:
        uint8 array of the shape of ``values``.
    """
    out: np.ndarray = values.add(1.0).mul_(128.0).clamp_(0.0, 255.0).to(torch.uint8).numpy()
    return out
