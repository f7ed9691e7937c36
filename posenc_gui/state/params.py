"""Typed, validated parameters: the single description of every control, CLI flag and session key.

A :class:`Param` says what a value may be (type, range, choices) and how to show it (label, unit,
decimals, log slider). The same objects drive the widgets, ``posenc-gui params``, the validation
of ``--set NAME=VALUE`` and of typed values. No Qt here.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

Value = float | int | str | bool
Kind = Literal["float", "int", "choice", "bool"]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class ParamError(ValueError):
    """A value that a parameter does not accept. The message names the parameter and the range."""


#: At most this many characters of a rejected value are echoed in an error message.
ECHO_CHARS = 80
#: An integer longer than this many digits is echoed as "a 401-digit integer".
ECHO_DIGITS = 20
#: Digit-group separators a typed or command-line number may use ("1 000", "1,000", and the
#: narrow no-break, thin and no-break spaces the app itself writes).
GROUP_SEPARATORS = " ,\u202f\u2009\u00a0"
_GROUPED = re.compile(
    r"[+-]?\d{1,3}(?P<sep>[ ,\u202f\u2009\u00a0])\d{3}(?:(?P=sep)\d{3})*"
    r"(?:\.\d*)?(?:[eE][+-]?\d+)?"
)
_INTEGER = re.compile(r"[+-]?\d+")
#: The largest integer a float holds (above it, a JSON or typed integer is unrepresentable).
_FLOAT_MAX = int(sys.float_info.max)


@dataclass(frozen=True)
class Unrepresentable:
    """A number (in a file, or typed) that no float holds: too large (``1e400``, an integer of
    400 digits) or too small (``1e-400``, not zero but read as 0). Its text is kept so that the
    refusal can say what was written. No parameter or setting accepts it."""

    text: str

    def describe(self) -> str:
        """``a 401-digit integer``, ``1e400 (too large for a float)``, ``1e-400 (too small…)``."""
        body = self.text.lstrip("+-")
        if body.isdigit():
            sign = "negative " if self.text.startswith("-") else ""
            return f"a {len(body)}-digit {sign}integer"
        cut = self.text if len(self.text) <= 40 else self.text[:39] + "…"
        if re.match(r"[+-]?[0-9.]*[1-9]", self.text) and float(self.text) == 0:
            return f"{cut} (too small for a float: it would be 0)"
        return f"{cut} (too large for a float)"


def number_text(text: str) -> str:
    """Typed or command-line number text as Python reads it: the real minus sign (U+2212) as
    ``-``, digit groups joined (``1 000``, ``1,000``, ``1 000 000`` with the narrow no-break
    spaces the app writes; every group after the first of exactly three digits, one separator
    throughout). The window and ``--set`` both read numbers through this."""
    text = text.strip().replace("\u2212", "-")
    if _GROUPED.fullmatch(text):
        text = "".join(c for c in text if c not in GROUP_SEPARATORS)
    return text


def read_number(text: str) -> int | float | Unrepresentable:
    """The number ``text`` writes (JSON or Python syntax): an ``int`` for digits alone, else a
    ``float``; :class:`Unrepresentable` when no float holds it (never an ``int`` of thousands of
    digits, so Python's limit on converting them is never reached). :class:`ValueError` when it
    is not a number. Both the JSON reader and :meth:`Param.parse` use this."""
    if _INTEGER.fullmatch(text):
        if len(text.lstrip("+-")) > 310:
            return Unrepresentable(text)
        n = int(text)
        return n if abs(n) <= _FLOAT_MAX else Unrepresentable(text)
    x = float(text)
    if math.isinf(x) and "inf" not in text.lower():
        return Unrepresentable(text)
    if x == 0 and re.match(r"[+-]?[0-9.]*[1-9]", text):
        return Unrepresentable(text)
    return x


def echo(value: object) -> str:
    """``repr(value)``, cut to :data:`ECHO_CHARS` characters (a pasted megabyte stays readable).

    A real number is written positionally (``2000000``, never ``2e+06``) with every digit of
    its shortest round-trip form (``360.0000001``, not ``360``); one too large or too small for
    that as ``1.5x10^200``. An integer of many digits, or a number no float holds, is described
    (``a 401-digit integer``).
    """
    if isinstance(value, Unrepresentable):
        text = value.describe()
    elif isinstance(value, int) and not isinstance(value, bool):
        text = _int_echo(value)
    elif isinstance(value, float) and math.isfinite(value):
        text = _float_echo(value)
    else:
        text = repr(value)
    if len(text) <= ECHO_CHARS:
        return text
    return text[: ECHO_CHARS - 1] + "…"


def _int_echo(n: int) -> str:
    sign = "negative " if n < 0 else ""
    try:
        digits = str(abs(n))
    except ValueError:  # beyond Python's int-to-text limit
        return f"an integer of over {sys.get_int_max_str_digits()} digits"
    if len(digits) > ECHO_DIGITS:
        return f"a {len(digits)}-digit {sign}integer"
    return str(n)


def _float_echo(x: float) -> str:
    """Every digit of ``repr(x)``, positionally; ``1.5x10^200`` when that is long."""
    exact = Decimal(repr(x))
    text = format(exact, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    if len(text) <= ECHO_DIGITS:
        return text
    mant, exp = format(exact, "e").split("e")
    if "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    return f"{mant}x10^{int(exp)}"


def _fmt(x: float) -> str:
    """A bound as plain ASCII text: ``10000000`` (never ``1e+07``), ``6.28319``, ``0.00001``.

    Whole numbers in full, others with 6 significant digits (one decimal more than the integer
    part when that is longer), positional, never an exponent. ASCII so that messages print on
    any terminal and can be copied back into a field or a ``--set``. Mirrors
    :func:`posenc_gui.widgets.fmt.plain` (that module is on the Qt side of the layering).
    """
    x = float(x)
    if not math.isfinite(x):
        return str(x)
    if x.is_integer():
        return str(int(x))
    whole_digits = math.floor(math.log10(abs(x))) + 1
    places = 6 if whole_digits < 6 else whole_digits + 1
    text = format(Decimal(f"{x:.{places}g}"), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@dataclass(frozen=True)
class Param:
    """One tab parameter.

    ``minimum``/``maximum`` are inclusive static bounds; a tab model may narrow them further
    from the other values (see :meth:`posenc_gui.state.model.TabModel.limits`).
    ``even`` restricts an int to even numbers; ``log`` asks the slider for a logarithmic map.
    """

    name: str
    kind: Kind
    default: Value
    description: str
    label: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    even: bool = False
    log: bool = False
    unit: str = ""
    decimals: int = 3
    step: float | None = None
    choice_labels: tuple[str, ...] = field(default=())

    # -- checking -----------------------------------------------------------------------------
    def accepts(self, lo: float | None = None, hi: float | None = None) -> str:
        """Human description of what the parameter accepts (used in every error message)."""
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "bool":
            return "true or false"
        lo = self.minimum if lo is None else lo
        hi = self.maximum if hi is None else hi
        what = (
            "an even integer" if self.even else ("an integer" if self.kind == "int" else "a number")
        )
        if lo is not None and hi is not None:
            return f"{what} from {_fmt(lo)} to {_fmt(hi)}"
        if lo is not None:
            return f"{what} of at least {_fmt(lo)}"
        if hi is not None:
            return f"{what} of at most {_fmt(hi)}"
        return what

    def _fail(self, got: object, lo: float | None = None, hi: float | None = None) -> ParamError:
        return ParamError(f"{self.name} must be {self.accepts(lo, hi)}, got {echo(got)}")

    def check(self, value: object, lo: float | None = None, hi: float | None = None) -> Value:
        """Return ``value`` converted to this parameter's type, or raise :class:`ParamError`.

        ``lo``/``hi`` override the static bounds (dynamic limits from the other values).
        """
        if self.kind == "choice":
            if isinstance(value, str) and value in self.choices:
                return value
            raise self._fail(value)
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            raise self._fail(value)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self._fail(value, lo, hi)
        lo = self.minimum if lo is None else lo
        hi = self.maximum if hi is None else hi
        if self.kind == "int":
            if isinstance(value, float):
                if not value.is_integer():
                    raise self._fail(value, lo, hi)
                value = int(value)
            if self.even and value % 2:
                raise self._fail(value, lo, hi)
            out: Value = int(value)
        else:
            try:
                out = float(value)
            except OverflowError:  # an int no float holds
                raise self._fail(value, lo, hi) from None
            if not math.isfinite(out):
                raise self._fail(value, lo, hi)
        assert isinstance(out, int | float)
        if (lo is not None and out < lo) or (hi is not None and out > hi):
            raise self._fail(value, lo, hi)
        return out

    def parse(self, text: str) -> Value:
        """Parse command-line or typed text; raise :class:`ParamError` naming the parameter.

        Numbers are read by :func:`number_text` and :func:`read_number` (a real minus sign,
        digit groups, ``1e4`` for an integer), the same for the window and ``--set``."""
        text = text.strip()
        if self.kind == "choice":
            return self.check(text)
        if self.kind == "bool":
            low = text.lower()
            if low in _TRUE:
                return True
            if low in _FALSE:
                return False
            raise self._fail(text)
        try:
            number = read_number(number_text(text))
        except ValueError:
            raise self._fail(text) from None
        return self.check(number)

    def clamp(self, value: Value, lo: float | None, hi: float | None) -> Value:
        """Nearest accepted value in ``[lo, hi]`` (used when another value narrows the range)."""
        if self.kind in ("choice", "bool") or isinstance(value, str | bool):
            return value
        x: float = value
        if lo is not None:
            x = max(x, lo)
        if hi is not None:
            x = min(x, hi)
        if self.kind == "int":
            n = round(x)
            if self.even and n % 2:
                n = n - 1 if (lo is None or n - 1 >= lo) else n + 1
            return n
        return float(x)

    def describe(self) -> dict[str, object]:
        """JSON-ready description for ``posenc-gui params``."""
        out: dict[str, object] = {
            "type": self.kind,
            "default": self.default,
            "description": self.description,
            "label": self.label,
        }
        if self.kind in ("float", "int"):
            out["minimum"] = self.minimum
            out["maximum"] = self.maximum
            if self.even:
                out["even"] = True
            if self.log:
                out["scale"] = "log"
            if self.unit:
                out["unit"] = self.unit
        if self.kind == "choice":
            out["choices"] = list(self.choices)
        return out


@dataclass(frozen=True)
class Scale:
    """The one map between a value in ``[lo, hi]`` and a fraction in ``[0, 1]``.

    Linear, or logarithmic when ``log`` (then ``lo`` must be > 0). Sliders, animation sweeps,
    the benchmark and the GUI fuzzer all walk a parameter's range through this map, so a
    "log" parameter moves the same way everywhere.
    """

    lo: float
    hi: float
    log: bool = False

    @classmethod
    def of(cls, param: Param, lo: float | None = None, hi: float | None = None) -> Scale:
        """The scale of ``param`` over its static range, or ``[lo, hi]`` when given."""
        low = param.minimum if lo is None else lo
        high = param.maximum if hi is None else hi
        if low is None or high is None:
            raise ValueError(f"{param.name} has no numeric range")
        return cls(float(low), float(high), param.log and low > 0)

    def to_fraction(self, value: float) -> float:
        """Where ``value`` lies in the range, clipped to ``[0, 1]``."""
        if self.hi <= self.lo:
            return 0.0
        if self.log:
            frac = math.log(max(value, self.lo) / self.lo) / math.log(self.hi / self.lo)
        else:
            frac = (value - self.lo) / (self.hi - self.lo)
        return min(max(frac, 0.0), 1.0)

    def from_fraction(self, frac: float) -> float:
        """The value at fraction ``frac`` of the range (``frac`` clipped to ``[0, 1]``)."""
        frac = min(max(frac, 0.0), 1.0)
        if self.log:
            return float(self.lo * (self.hi / self.lo) ** frac)
        return self.lo + frac * (self.hi - self.lo)

    def sweep(self, steps: int) -> list[float]:
        """``steps`` values evenly spaced in fraction from ``lo`` to ``hi`` (both included)."""
        if steps <= 1:
            return [self.lo]
        return [self.from_fraction(k / (steps - 1)) for k in range(steps)]


def float_param(
    name: str,
    default: float,
    minimum: float,
    maximum: float,
    label: str,
    description: str,
    *,
    log: bool = False,
    unit: str = "",
    decimals: int = 3,
    step: float | None = None,
) -> Param:
    """A bounded real parameter."""
    return Param(
        name, "float", float(default), description, label, float(minimum), float(maximum),
        log=log, unit=unit, decimals=decimals, step=step,
    )  # fmt: skip


def int_param(
    name: str,
    default: int,
    minimum: int,
    maximum: int,
    label: str,
    description: str,
    *,
    even: bool = False,
    log: bool = False,
    unit: str = "",
) -> Param:
    """A bounded integer parameter (``even=True`` for dimensions that hold pairs)."""
    return Param(
        name, "int", int(default), description, label, minimum, maximum,
        even=even, log=log, unit=unit, decimals=0, step=2 if even else 1,
    )  # fmt: skip


def choice_param(
    name: str,
    default: str,
    choices: tuple[str, ...],
    label: str,
    description: str,
    *,
    choice_labels: tuple[str, ...] = (),
) -> Param:
    """One of a fixed set of strings; ``choice_labels`` are the texts the combo box shows."""
    if default not in choices:
        raise ValueError(f"default {default!r} of {name} is not among {choices}")
    return Param(
        name, "choice", default, description, label, choices=choices,
        choice_labels=choice_labels or choices,
    )  # fmt: skip


def bool_param(name: str, default: bool, label: str, description: str) -> Param:
    """An on/off toggle."""
    return Param(name, "bool", bool(default), description, label)


# -- shared declarations: parameters that several tabs have --------------------------------------

#: Layouts of a sinusoidal table: "interleaved" (paper: column 2i = sin, 2i+1 = cos) and
#: "concat" (all d/2 sines, then all d/2 cosines).
SINUSOIDAL_LAYOUT_CHOICES: tuple[str, ...] = ("interleaved", "concat")
#: RoPE pairings: "interleaved" pairs (x[2i], x[2i+1]) (RoFormer, GPT-J, Meta's LLaMA),
#: "half" pairs (x[i], x[i+d/2]) (GPT-NeoX, Hugging Face rotate_half).
ROPE_LAYOUT_CHOICES: tuple[str, ...] = ("interleaved", "half")


def dim_param(
    default: int,
    maximum: int,
    *,
    name: str = "dim",
    label: str = "Model dim d",
    description: str = "Encoding dimension d (even: one sin/cos pair per frequency).",
    minimum: int = 2,
) -> Param:
    """An even model/head dimension (one pair per frequency)."""
    return int_param(name, default, minimum, maximum, label, description, even=True)


def base_param(
    default: float = 10000.0,
    *,
    description: str = "Base of the frequency ladder: ω_i = base^(−2i/d).",
    minimum: float = 10.0,
    maximum: float = 1e7,
) -> Param:
    """The frequency base (log slider)."""
    return float_param("base", default, minimum, maximum, "Base", description, log=True, decimals=1)


def sinusoidal_layout_param(name: str = "layout", label: str = "Layout") -> Param:
    """Column layout of a sinusoidal table (see :data:`SINUSOIDAL_LAYOUT_CHOICES`)."""
    return choice_param(
        name, "interleaved", SINUSOIDAL_LAYOUT_CHOICES, label,
        "interleaved (paper): column 2i = sin, 2i+1 = cos; "
        "concat: all d/2 sines, then all d/2 cosines.",
        choice_labels=("interleaved (sin, cos, sin, cos, …)", "concat (all sin | all cos)"),
    )  # fmt: skip


def rope_layout_param(name: str = "layout", label: str = "Pair layout") -> Param:
    """RoPE pairing (see :data:`ROPE_LAYOUT_CHOICES`)."""
    return choice_param(
        name, "interleaved", ROPE_LAYOUT_CHOICES, label,
        "interleaved: pairs (x[2i], x[2i+1]) (RoFormer, GPT-J, LLaMA); "
        "half: pairs (x[i], x[i+d/2]) (GPT-NeoX, HF rotate_half).",
        choice_labels=("interleaved (2i, 2i+1)", "half (i, i+d/2)"),
    )  # fmt: skip
