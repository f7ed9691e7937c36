"""Argument validation helpers shared by :mod:`posenc_gui.core`.

Every helper raises :class:`ValueError` whose message names the offending argument and the
accepted range, e.g. ``"dim must be an even integer >= 2, got 7"``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor

RealVector = Tensor | Sequence[float]
"""A 1-D tensor or a sequence of real numbers (ints are accepted wherever floats are)."""

__all__ = [
    "RealVector",
    "check_base",
    "check_choice",
    "check_even_dim",
    "check_int",
    "check_nonneg_float",
    "check_positive_int",
    "to_float64_vector",
]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_int(value: object, name: str) -> int:
    """Return ``value`` if it is a Python ``int`` (not ``bool``), else raise ``ValueError``."""
    if not _is_int(value):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    assert isinstance(value, int)
    return value


def check_positive_int(
    value: object, name: str, *, minimum: int = 1, maximum: int | None = None
) -> int:
    """Return ``value`` if it is an integer in ``[minimum, maximum]``, else raise ``ValueError``."""
    if not _is_int(value) or not isinstance(value, int):
        ok = False
    else:
        ok = value >= minimum and (maximum is None or value <= maximum)
    if not ok:
        if maximum is None:
            raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
        raise ValueError(f"{name} must be an integer in [{minimum}, {maximum}], got {value!r}")
    assert isinstance(value, int)
    return value


def check_even_dim(value: object, name: str = "dim") -> int:
    """Return ``value`` if it is an even integer >= 2, else raise ``ValueError``."""
    if not _is_int(value) or not isinstance(value, int) or value < 2 or value % 2 != 0:
        raise ValueError(f"{name} must be an even integer >= 2, got {value!r}")
    return value


def _as_real(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, Tensor) and value.numel() == 1 and not value.is_complex():
        return float(value.item())
    return None


def check_base(value: object, name: str = "base") -> float:
    """Return ``value`` as a float if it is a finite number > 1, else raise ``ValueError``."""
    real = _as_real(value)
    if real is None or not math.isfinite(real) or real <= 1.0:
        raise ValueError(f"{name} must be a finite number > 1, got {value!r}")
    return real


def check_nonneg_float(value: object, name: str) -> float:
    """Return ``value`` as a float if it is a finite number >= 0, else raise ``ValueError``."""
    real = _as_real(value)
    if real is None or not math.isfinite(real) or real < 0.0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return real


def check_choice(value: object, name: str, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise ``ValueError``."""
    if not isinstance(value, str) or value not in choices:
        accepted = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {accepted}, got {value!r}")
    return value


def to_float64_vector(values: RealVector, name: str, *, allow_empty: bool = True) -> Tensor:
    """Convert a 1-D tensor or sequence of real numbers to a 1-D float64 tensor.

    Raises ``ValueError`` (naming ``name``) for non-1-D input, complex or non-numeric values.
    """
    try:
        if isinstance(values, Tensor):
            t = values
        else:
            t = torch.as_tensor(values)
            if t.is_floating_point():  # as_tensor picks float32 for Python floats: redo exactly
                t = torch.as_tensor(values, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise ValueError(
            f"{name} must be a 1-D tensor or sequence of real numbers, got {values!r}"
        ) from exc
    if t.dim() != 1 or t.is_complex() or t.dtype == torch.bool:
        raise ValueError(
            f"{name} must be a 1-D tensor or sequence of real numbers, "
            f"got shape {tuple(t.shape)} and dtype {t.dtype}"
        )
    if not allow_empty and t.numel() == 0:
        raise ValueError(f"{name} must contain at least 1 value, got an empty sequence")
    return t.to(dtype=torch.float64)
