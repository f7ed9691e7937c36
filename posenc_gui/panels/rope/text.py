"""How the RoPE tab writes its numbers: values of a steady width, angles, differences."""

from __future__ import annotations

import math
from functools import lru_cache

from posenc_gui import core
from posenc_gui.widgets.fmt import integer, num, signed

#: Digits after the decimal point for the scores in the invariance readout.
SCORE_DIGITS = 8


@lru_cache(maxsize=64)
def perm_text(dim: int) -> str:
    """The layout permutation of ``dim``, written out for small d and abbreviated for large d
    (cached: every m, n or seed step writes it again)."""
    perm: list[int] = core.layout_permutation(dim).tolist()
    if len(perm) <= 8:
        return ", ".join(str(v) for v in perm)
    half = len(perm) // 2
    return (
        f"{perm[0]}, {perm[1]}, …, {perm[half - 1]}, {perm[half]}, {perm[half + 1]}, …, {perm[-1]}"
    )


def fixed(x: float, digits: int, sign: bool = True) -> str:
    """``x`` with ``digits`` digits in all (as many decimals as its integer part leaves), with
    an explicit sign (``+``/``−``) when ``sign``: ``+2.72935221``, ``−17.9080915``.

    A read-out's value then keeps its width from step to step (digits, ``+`` and ``−`` are
    equally wide) while its magnitude stays below ``10^digits`` (the digit groups of
    :mod:`~posenc_gui.widgets.fmt` add a narrow space from five integer digits on), and the
    read-out draws the new value over the old one (a :class:`LiveText`). Below 1 the
    ``0`` before the point counts as a digit. Formatted by :func:`fmt.num` / :func:`fmt.signed`
    (minus sign, groups, no negative zero, scientific for tiny and huge values).
    """
    ax = abs(x)
    whole = 1 if not math.isfinite(ax) or ax < 1 else math.floor(math.log10(ax)) + 1
    decimals = max(digits - whole, 0)
    if decimals and round(ax, decimals) >= 10.0**whole:  # 9.9999… rounds up to 10.000
        decimals -= 1
    return signed(x, decimals) if sign else num(x, decimals)


def signed_int(n: int) -> str:
    """A signed whole number: ``+17 642``, ``−3``, ``0`` (real minus sign, digit groups)."""
    return ("+" if n > 0 else "") + integer(n)


def deg(rad: float, sign: bool = True) -> str:
    """An angle given in radians, shown in degrees with five digits in all (``+176.32°``,
    ``−98.301°``, ``5.1200°``: the same width at every angle below 1000°; see
    :func:`fixed`)."""
    return fixed(math.degrees(rad), 5, sign) + "°"


#: What a read-out shows for an undefined value (before the reason).
UNDEFINED_MARK = "—"


def undefined(reason: str) -> str:
    """An undefined read-out: the mark and why (``— (q's selected pair is (0, 0)…)``)."""
    return f"{UNDEFINED_MARK} ({reason})"


def drawn_angle(x: object) -> float:
    """An angle read-out to draw from: an undefined one (NaN: a pair with no direction) as 0,
    an arc with no sweep or starting on the axis (the zero pair's arrow has no length)."""
    a = f(x)
    return a if math.isfinite(a) else 0.0


def diff(x: float) -> str:
    """A difference that should be zero: "0 (exact)" or its (tiny) value."""
    return "0 (exact)" if x == 0 else signed(x, 2)


def f(x: object) -> float:
    """A read-out number as a float."""
    assert isinstance(x, int | float)
    return float(x)


def pair(x: object) -> tuple[float, float]:
    """A read-out pair as two floats."""
    assert isinstance(x, list) and len(x) == 2
    return float(x[0]), float(x[1])
