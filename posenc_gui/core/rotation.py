"""2-D rotation matrices."""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["rotation_matrix"]


def rotation_matrix(theta: float | Tensor) -> Tensor:
    """Counter-clockwise 2-D rotation matrix ``[[cos θ, -sin θ], [sin θ, cos θ]]``.

    Satisfies ``R(a) @ R(b) == R(a + b)`` and ``R(a).T == R(-a)``.

    Args:
        theta: angle in radians, a Python number or a real tensor of any shape ``(...)``.

    Returns:
        tensor of shape ``(..., 2, 2)``; float64 for Python numbers and integer/bool tensors,
        otherwise the dtype of ``theta``.
    """
    if isinstance(theta, bool) or not isinstance(theta, (int, float, Tensor)):
        raise ValueError(f"theta must be a real number or a real tensor, got {theta!r}")
    if isinstance(theta, Tensor):
        if theta.is_complex():
            raise ValueError(f"theta must be a real tensor, got dtype {theta.dtype}")
        t = theta if theta.is_floating_point() else theta.to(torch.float64)
    else:
        t = torch.tensor(float(theta), dtype=torch.float64)
    c, s = torch.cos(t), torch.sin(t)
    row0 = torch.stack((c, -s), dim=-1)
    row1 = torch.stack((s, c), dim=-1)
    return torch.stack((row0, row1), dim=-2)
