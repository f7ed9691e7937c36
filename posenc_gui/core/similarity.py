"""Similarity matrices of positional-encoding tables."""

from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor

from ._validate import check_choice

__all__ = ["SIMILARITY_KINDS", "SimilarityKind", "similarity"]

SimilarityKind = Literal["dot", "cosine"]
SIMILARITY_KINDS: tuple[str, ...] = ("dot", "cosine")


def similarity(table: Tensor, *, kind: SimilarityKind = "dot") -> Tensor:
    """Pairwise similarity of the rows of an encoding table.

    Args:
        table: real tensor of shape ``(L, D)`` (one encoding per row).
        kind: ``"dot"`` for ``table @ table.T``; ``"cosine"`` normalises the rows to unit length
            first (an all-zero row has similarity 0 with every row, itself included).

    Returns:
        tensor of shape ``(L, L)``, dtype of ``table`` (float64 for integer/bool tables).
    """
    kind_s = check_choice(kind, "kind", SIMILARITY_KINDS)
    if not isinstance(table, Tensor) or table.dim() != 2 or table.is_complex():
        desc = f"shape {tuple(table.shape)}" if isinstance(table, Tensor) else repr(table)
        raise ValueError(f"table must be a real 2-D tensor of shape (L, D), got {desc}")
    t = table if table.is_floating_point() else table.to(torch.float64)
    if kind_s == "cosine":
        norms = torch.linalg.vector_norm(t, dim=-1, keepdim=True)
        t = t / torch.where(norms > 0, norms, torch.ones_like(norms))
    return t @ t.T
