"""Number formatting shared by readouts, formulas and hover texts (one style everywhere)."""

from __future__ import annotations

import math


def num(x: float, digits: int = 4) -> str:
    """Compact number: fixed decimals for moderate magnitudes, scientific for tiny/huge ones.

    Uses a real minus sign (U+2212) so negative numbers stay readable on a projector.
    """
    if not math.isfinite(x):
        return "−∞" if x < 0 else ("∞" if x > 0 else "NaN")
    ax = abs(x)
    if ax != 0 and (ax < 10 ** (-digits + 1) or ax >= 1e6):
        text = f"{x:.{max(digits - 1, 1)}e}"
        mant, _, exp = text.partition("e")
        text = f"{mant}·10^{int(exp)}"
    else:
        text = f"{x:.{digits}f}"
    return text.replace("-", "−")


def signed(x: float, digits: int = 4) -> str:
    """Like :func:`num` but always with a sign, so columns of values line up."""
    text = num(x, digits)
    return text if text.startswith("−") else "+" + text


def sig(x: float, digits: int = 4) -> str:
    """``digits`` significant digits (frequencies, wavelengths)."""
    if not math.isfinite(x):
        return num(x)
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 1e6 or ax < 1e-4:
        return num(x, digits)
    decimals = max(digits - 1 - math.floor(math.log10(ax)), 0)
    return f"{x:.{decimals}f}".replace("-", "−")
