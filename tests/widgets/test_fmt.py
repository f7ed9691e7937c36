"""The app's one number style (posenc_gui.widgets.fmt), rule by rule. No Qt needed."""

from __future__ import annotations

import math

import pytest

from posenc_gui.state.params import _fmt, int_param
from posenc_gui.widgets.fmt import GROUP, MINUS, integer, num, plain, sci, sig, signed, superscript

NNBSP = "\u202f"


# -- exponents are real superscripts --------------------------------------------------------------
@pytest.mark.parametrize(
    ("x", "digits", "text"),
    [
        (1.2345e-16, 3, "1.23·10⁻¹⁶"),
        (1.2345e-16, 4, "1.234·10⁻¹⁶"),  # 1.2345 is 1.23449999... in binary
        (-2.5e7, 4, "−2.500·10⁷"),
        (3e6, 4, "3.000·10⁶"),
        (1e-12, 2, "1.0·10⁻¹²"),
    ],
)
def test_scientific_uses_superscript_exponents(x: float, digits: int, text: str) -> None:
    assert num(x, digits) == text
    assert "^" not in num(x, digits) and "e" not in num(x, digits)


def test_sci_and_superscript() -> None:
    assert superscript(-16) == "⁻¹⁶" and superscript(7) == "⁷" and superscript(0) == "⁰"
    assert sci(12345.0, 3) == "1.23·10⁴"
    assert sci(-0.000123, 2) == "−1.2·10⁻⁴"
    assert sci(0.0) == "0"
    assert sig(2.5e-7, 3) == "2.50·10⁻⁷" and sig(1.5e9, 2) == "1.5·10⁹"


# -- real minus sign, never a hyphen ---------------------------------------------------------------
@pytest.mark.parametrize("x", [-1.0, -0.5, -123.456, -1e-9, -1e9, -12345.0])
def test_minus_is_u2212(x: float) -> None:
    texts = [num(x), signed(x), sig(x), sci(x)] + ([integer(x)] if abs(x) >= 1 else [])
    for text in texts:
        assert text.startswith(MINUS) and "-" not in text, text


# -- no negative zero ------------------------------------------------------------------------------
@pytest.mark.parametrize("x", [0.0, -0.0])
def test_zero_has_no_sign(x: float) -> None:
    assert num(x) == "0.0000" and num(x, 2) == "0.00"
    assert signed(x) == "0.0000"  # documented choice: no "+", no "±" on a zero
    assert sig(x) == "0" and integer(x) == "0"


def test_values_that_round_to_zero_print_unsigned() -> None:
    assert integer(-0.4) == "0" and integer(-0.49) == "0"
    # num never rounds a non-zero value to zero: below its precision it goes scientific
    assert num(-0.00001, 1) == "−1.0·10⁻⁵" and num(-0.0004) == "−4.000·10⁻⁴"


# -- signed ----------------------------------------------------------------------------------------
def test_signed_puts_a_sign_on_every_nonzero_value() -> None:
    assert signed(0.25) == "+0.2500"
    assert signed(-0.25) == "−0.2500"
    assert signed(1e-9, 2) == "+1.0·10⁻⁹"
    assert signed(math.inf) == "+∞" and signed(-math.inf) == "−∞" and signed(math.nan) == "NaN"


# -- digit groups with a narrow no-break space -----------------------------------------------------
@pytest.mark.parametrize(
    ("n", "text"),
    [
        (0, "0"),
        (999, "999"),
        (9999, "9999"),  # four digits stay together (SI)
        (10_000, f"10{NNBSP}000"),
        (123_456, f"123{NNBSP}456"),
        (1_000_000, f"1{NNBSP}000{NNBSP}000"),
        (-1_234_567, f"{MINUS}1{NNBSP}234{NNBSP}567"),
        (12.6, "13"),
    ],
)
def test_integer_groups_digits(n: float, text: str) -> None:
    assert GROUP == NNBSP
    assert integer(n) == text
    assert " " not in integer(n)  # an ordinary space would let the line wrap inside the number


def test_fixed_numbers_group_their_integer_part() -> None:
    assert num(12345.678, 2) == f"12{NNBSP}345.68"
    assert num(1234.5, 1) == "1234.5"
    assert sig(10000.0, 5) == f"10{NNBSP}000"
    assert sig(123456.0, 6) == f"123{NNBSP}456"


# -- significant digits ----------------------------------------------------------------------------
def test_sig_keeps_significant_digits() -> None:
    assert sig(0.012345) == "0.01235"
    assert sig(3.14159, 3) == "3.14"
    assert sig(9.99996, 4) == "10.00"  # rounding up does not add a digit
    assert sig(0.0) == "0"


def test_non_finite() -> None:
    for f in (num, signed, sig, sci):
        assert f(math.nan) == "NaN"
        assert f(-math.inf) == f"{MINUS}∞"
    assert num(math.inf) == "∞" and integer(math.inf) == "∞"


# -- plain: for messages ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("x", "text"),
    [
        (1e6, "1000000"),
        (1e7, "10000000"),
        (2.0, "2"),
        (-1000.0, "-1000"),
        (0.1, "0.1"),
        (2 * math.pi, "6.28319"),
        (-2 * math.pi, "-6.28319"),
        (1e-5, "0.00001"),
        (1.5e-20, "0.000000000000000000015"),
        (12_345_678.5, "12345678.5"),
        (0.5, "0.5"),
    ],
)
def test_plain_never_uses_an_exponent(x: float, text: str) -> None:
    assert plain(x) == text
    assert "e" not in plain(x) and NNBSP not in plain(x) and plain(x).isascii()


@pytest.mark.parametrize(
    "x", [0.0, 1.0, 1e6, 1e7, -3.5, 2 * math.pi, 1e-5, 1e-12, 123456.789, 12_345_678.5, 1e20, 0.1]
)
def test_plain_agrees_with_the_bounds_in_param_messages(x: float) -> None:
    assert plain(x) == _fmt(x)


def test_param_messages_show_bounds_in_full() -> None:
    p = int_param("positions", 10, 2, 1_000_000, "Positions", "how many")
    assert p.accepts() == "an integer from 2 to 1000000"
    assert "e+" not in p.accepts(0, 1e7) and p.accepts(0, 1e7).endswith("to 10000000")
