"""Animation of a tab's main parameter, without Qt: where one loop puts the value, and timing.

Every tab model names the parameter its Play control sweeps (:attr:`TabModel.animated`) and
the range it sweeps (:meth:`TabModel.animation_range`: the dynamic limits, else the static
bounds). A :class:`Sweep` maps a *phase* in ``[0, 1)`` — how far through one loop — to a value
of that parameter and back:

- The loop **wraps**: after the top of the range the value starts again at the bottom. An angle
  from −360° to 360° or a time of whole periods looks seamless; a position starts over, as a
  reader scanning a table does.
- A real parameter takes ``lo + phase·(hi − lo)`` (through the parameter's :class:`Scale`, so a
  log parameter moves in ratios); an integer takes each of its ``hi − lo + 1`` values for an equal
  share of the loop (an even one, e.g. a dimension, the nearest even value).
- Speed is a loop duration: the phase advances by ``seconds / loop_seconds``, whatever the frame
  rate, so slow frames skip values rather than slowing the loop down.

:func:`frame_phases` gives the phases of an exported loop and :func:`timer_interval_ms` the timer
period that a measured frame time allows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from posenc_gui.state.model import TabModel
from posenc_gui.state.params import Param, Scale, Value

#: Speeds offered (multiples of one loop in :data:`BASE_LOOP_SECONDS`), slowest first.
SPEEDS: tuple[float, ...] = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
#: Index of the default speed in :data:`SPEEDS` (1×).
DEFAULT_SPEED_INDEX = 3
#: At speed 1× one loop lasts this long (seconds).
BASE_LOOP_SECONDS = 10.0
#: The timer never runs faster than this (Hz), nor slower than :data:`MIN_FPS`.
MAX_FPS = 60.0
MIN_FPS = 4.0
#: The timer period is this multiple of the measured frame time: the rest of the time is left
#: to input (a drag, a key) so that the window stays responsive while it animates.
FRAME_HEADROOM = 2.0


def loop_seconds(speed: float) -> float:
    """Duration of one loop at ``speed`` (a multiple of :data:`BASE_LOOP_SECONDS` per loop)."""
    if not speed > 0:
        raise ValueError(f"speed must be positive, got {speed}")
    return BASE_LOOP_SECONDS / speed


def speed_text(speed: float) -> str:
    """``"1×"``, ``"0.25×"``, ``"8×"``: a speed as the control shows it."""
    return f"{speed:g}×"


def advance(phase: float, seconds: float, speed: float) -> float:
    """The phase ``seconds`` later at ``speed``, wrapped into ``[0, 1)``."""
    out = (phase + max(seconds, 0.0) / loop_seconds(speed)) % 1.0
    return 0.0 if out >= 1.0 else out  # (-tiny) % 1.0 can round to 1.0


def frame_phases(frames: int) -> list[float]:
    """Phases of ``frames`` evenly spaced frames of one loop (the last frame is not the first
    again, so that a looping GIF does not show it twice)."""
    if frames < 1:
        raise ValueError(f"frames must be at least 1, got {frames}")
    return [k / frames for k in range(frames)]


def timer_interval_ms(frame_ms: float | None) -> int:
    """Timer period for a frame that takes ``frame_ms`` from tick to painted.

    :data:`FRAME_HEADROOM` times the frame time, between :data:`MAX_FPS` and :data:`MIN_FPS`
    (``None``, nothing measured yet: :data:`MAX_FPS`).
    """
    fastest, slowest = 1000.0 / MAX_FPS, 1000.0 / MIN_FPS
    wanted = fastest if frame_ms is None else FRAME_HEADROOM * max(frame_ms, 0.0)
    return math.ceil(min(max(wanted, fastest), slowest))


@dataclass(frozen=True)
class Sweep:
    """The values one loop of ``param`` takes over ``[lo, hi]``."""

    param: Param
    lo: float
    hi: float

    @classmethod
    def of(cls, model: type[TabModel], values: Mapping[str, Value]) -> Sweep:
        """The sweep of ``model``'s animated parameter for the current ``values``."""
        p = model.param(model.animated)
        if p.kind not in ("int", "float"):
            raise TypeError(f"tab {model.id!r} animates {p.name!r}, which is not numeric")
        lo, hi = model.animation_range(values)
        return cls(p, float(lo), float(max(lo, hi)))

    @property
    def name(self) -> str:
        """The animated parameter's name."""
        return self.param.name

    @property
    def scale(self) -> Scale:
        """The parameter's map between value and fraction over ``[lo, hi]``."""
        return Scale(self.lo, self.hi, self.param.log and self.lo > 0)

    def _int_count(self) -> int:
        return int(math.floor(self.hi) - math.ceil(self.lo)) + 1

    def value_at(self, phase: float) -> Value:
        """The value at ``phase`` (taken modulo 1) of the loop."""
        phase = phase % 1.0
        p = self.param
        if p.kind == "float":
            return float(self.scale.from_fraction(phase))
        lo, hi = math.ceil(self.lo), math.floor(self.hi)
        if p.log and self.lo > 0:
            raw: float = round(self.scale.from_fraction(phase))
        else:
            raw = lo + min(int(phase * self._int_count()), self._int_count() - 1)
        out = p.clamp(int(raw), lo, hi)
        assert isinstance(out, int)
        return out

    def phase_of(self, value: Value) -> float:
        """Where ``value`` lies in the loop (a value outside the range: the nearest end)."""
        if isinstance(value, str | bool):
            raise TypeError(f"{self.name} is not numeric")
        x = float(value)
        if self.param.kind == "float" or (self.param.log and self.lo > 0):
            frac = self.scale.to_fraction(x)
            return 0.0 if frac >= 1.0 else frac
        # the middle of the integer's share of the loop, so rounding cannot step back
        k = min(max(x - math.ceil(self.lo), 0.0), self._int_count() - 1)
        return (k + 0.5) / self._int_count()

    def frames(self, count: int) -> list[Value]:
        """The values of ``count`` evenly spaced frames of one loop (see :func:`frame_phases`)."""
        return [self.value_at(ph) for ph in frame_phases(count)]

    def describe(self) -> str:
        """``"Cursor t from 0 to 2 s"``: what the animation moves (tooltips, dialogs)."""
        p = self.param
        unit = f" {p.unit}" if p.unit else ""
        return f"{p.label} from {_num(self.lo)} to {_num(self.hi)}{unit}"

    def short(self) -> str:
        """``"Cursor t: 0 … 2 s"``: the same, for the status bar."""
        p = self.param
        unit = f" {p.unit}" if p.unit else ""
        return f"{p.label}: {_num(self.lo)} … {_num(self.hi)}{unit}"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"
