"""Number formatting for the whole application: one style in readouts, formulas, hover texts.

Rules (each has a test in ``tests/widgets/test_fmt.py``):

* A real minus sign U+2212 (``−1.5``), never the hyphen-minus: it is as wide as ``+`` and stays
  readable on a projector.
* Exponents as real superscripts: ``1.23·10⁻¹⁶``, never ``1.23e-16`` or ``10^−16``.
* No negative zero: a value that rounds to zero at the shown precision prints ``0.0000``, and
  :func:`signed` prints it without a sign too (zero is neither positive nor negative; ``±`` would
  read as an uncertainty).
* Digit groups of three with a narrow no-break space U+202F once the integer part has five or
  more digits (``10 000``, ``1 000 000``; ``9999`` stays as it is, the SI convention). The
  space never lets a line wrap inside a number.
* :func:`plain` is the one exception: ASCII, positional, no groups and no exponent
  (``1000000``, ``-0.5``, ``0.00001``), for error messages and for text a user may copy into a
  field or onto the command line. It agrees with the bounds in
  :meth:`posenc_gui.state.Param.accepts`.

Non-finite values print as ``∞``, ``−∞`` and ``NaN``. This module imports no Qt.
"""

from __future__ import annotations

import math
from decimal import Decimal

#: U+2212 MINUS SIGN.
MINUS = "\u2212"
#: U+202F NARROW NO-BREAK SPACE, between digit groups.
GROUP = "\u202f"
#: The multiplication dot between a mantissa and its power of ten.
TIMES = "·"

_SUPERSCRIPT = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")


def _special(x: float) -> str | None:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return MINUS + "∞" if x < 0 else "∞"
    return None


def _group(digits: str) -> str:
    """Digit groups of three in a string of digits, when it has five or more digits."""
    if len(digits) < 5:
        return digits
    head = len(digits) % 3 or 3
    parts = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
    return GROUP.join(parts)


def _finish(text: str) -> str:
    """Shared last step: no sign on a zero, groups in the integer part, real minus sign."""
    negative = text.startswith("-")
    body = text[1:] if negative else text
    if not any(c in "123456789" for c in body):
        negative = False  # rounds to zero: never "−0.0000"
    whole, dot, frac = body.partition(".")
    body = _group(whole) + dot + frac
    return (MINUS if negative else "") + body


def superscript(n: int) -> str:
    """``n`` in superscript digits: ``superscript(-16) == "⁻¹⁶"``."""
    return str(n).translate(_SUPERSCRIPT)


def sci(x: float, digits: int = 4) -> str:
    """Scientific notation with ``digits`` significant digits: ``1.235·10⁻¹⁶``, ``−2.000·10⁷``."""
    special = _special(x)
    if special is not None:
        return special
    if x == 0:
        return "0"
    text = f"{x:.{max(digits - 1, 0)}e}"
    mant, _, exp = text.partition("e")
    return _finish(mant) + TIMES + "10" + superscript(int(exp))


def num(x: float, digits: int = 4) -> str:
    """Compact number: ``digits`` decimals for moderate magnitudes, scientific for tiny/huge ones.

    ``num(0.5) == "0.5000"``, ``num(-12345.6, 1) == "−12 345.6"``, ``num(1.2e-16) ==
    "1.200·10⁻¹⁶"``, ``num(3e6) == "3.000·10⁶"``.
    """
    special = _special(x)
    if special is not None:
        return special
    ax = abs(x)
    if ax != 0 and (ax < 10 ** (-digits + 1) or ax >= 1e6):
        return sci(x, max(digits, 2))
    return _finish(f"{x:.{digits}f}")


def signed(x: float, digits: int = 4) -> str:
    """Like :func:`num` but with a sign on every non-zero value, so columns of values line up.

    A value that shows as zero has no sign: ``signed(0.0) == signed(-0.0) == "0.0000"``.
    """
    text = num(x, digits)
    if text.startswith((MINUS, "NaN")) or not any(c in "123456789∞" for c in text):
        return text
    return "+" + text


def sig(x: float, digits: int = 4) -> str:
    """``digits`` significant digits (frequencies, wavelengths): ``sig(0.012345) == "0.01235"``.

    Scientific below 10⁻⁴ and from 10⁶ on; ``0`` prints as ``0``.
    """
    special = _special(x)
    if special is not None:
        return special
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 1e6 or ax < 1e-4:
        return num(x, digits)
    decimals = max(digits - 1 - math.floor(math.log10(ax)), 0)
    rounded = round(ax, decimals)
    if rounded >= 1e6:
        return num(x, digits)
    if rounded > 0:  # 9.99996 -> 10.00: one decimal fewer keeps `digits` significant digits
        decimals = max(digits - 1 - math.floor(math.log10(rounded)), 0)
    return _finish(f"{x:.{decimals}f}")


def integer(n: float) -> str:
    """A whole number with digit groups: ``integer(1_000_000) == "1 000 000"``, ``"−12 345"``.

    Non-integral input is rounded to the nearest integer first.
    """
    special = _special(float(n))
    if special is not None:
        return special
    return _finish(str(round(n)))


def plain(x: float, digits: int = 6) -> str:
    """ASCII text of ``x`` for messages: positional, no groups, no exponent, hyphen-minus.

    Whole numbers print in full (``1000000``, never ``1e+06``); other values with at least
    ``digits`` significant digits (one decimal more than the integer part when that is
    longer, so a fraction never looks whole): ``6.28319``, ``12345678.5``,
    ``0.00001``, ``-0.5``. ``inf``, ``-inf`` and ``nan`` print as such.
    """
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    if x.is_integer():
        return str(int(x))
    whole_digits = math.floor(math.log10(abs(x))) + 1
    places = digits if whole_digits < digits else whole_digits + 1
    text = format(Decimal(f"{x:.{places}g}"), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
