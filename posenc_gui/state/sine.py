"""Sine explorer tab: a single sinusoid and the frequency ladder of a sinusoidal encoding."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from posenc_gui.state.model import Inputs, Limits, ReadoutGroup, TabModel
from posenc_gui.state.params import Value, base_param, dim_param, float_param, int_param

TAU = 2.0 * math.pi
#: The wave plot always shows t in [0, T_VIEW] seconds.
T_VIEW = 2.0
#: The ladder draws at most this many of the first dimensions.
MAX_LADDER = 16

WAVE_INPUTS = ("amplitude", "frequency", "phase", "cursor")
LADDER_INPUTS = ("dim", "base", "position", "ladder_dims")


WAVE_SAMPLES = 401  # >= 40 per period at 5 Hz, a segment per ~1.5 px at 1600 px: smooth
#: Wave samples per period at least (a chord of 1/48 period strays from the sine by 0.2 % of the
#: amplitude: under half a pixel), and never fewer than this many: a slow wave is drawn with
#: fewer segments, each antialiased thick segment being most of the wave's paint.
WAVE_PER_PERIOD = 48
WAVE_MIN_SAMPLES = 97


def wave_samples(frequency: float) -> int:
    """How many times the wave plot samples a wave of ``frequency`` over ``[0, T_VIEW]``."""
    per_period = math.ceil(frequency * T_VIEW * WAVE_PER_PERIOD) + 1
    return min(WAVE_SAMPLES, max(WAVE_MIN_SAMPLES, per_period))


def _wave(v: Inputs) -> dict[str, Any]:
    """The sinusoid at the cursor: period, angle (raw and in [0, 2π)), both values."""
    from posenc_gui.core import wrap_angle

    amp, f, t = v.as_float("amplitude"), v.as_float("frequency"), v.as_float("cursor")
    theta = TAU * f * t + v.as_float("phase")
    wrapped = wrap_angle(theta)
    return {
        "period": 1.0 / f,
        "angular_frequency": TAU * f,
        "quarter_period": 0.25 / f,
        "angle": theta,
        "angle_wrapped": wrapped,
        "angle_degrees": math.degrees(wrapped),
        "sin_value": amp * math.sin(theta),
        "cos_value": amp * math.cos(theta),
    }


def _frequencies(v: Inputs) -> dict[str, Any]:
    """The encoding's frequencies ω_i and wavelengths 2π/ω_i."""
    from posenc_gui import core  # torch imported here: validating parameters stays fast

    dim, base = v.as_int("dim"), v.as_float("base")
    return {
        "omega": core.inverse_frequencies(dim, base).tolist(),
        "wavelength": core.wavelengths(dim, base).tolist(),
    }


def _ladder(v: Inputs) -> dict[str, Any]:
    """The encoding vector at position p (float64), the part the ladder shows, and the angle
    ``p·ω_i`` of every pair (the vector table's ``p·ω_i`` column)."""
    import torch

    from posenc_gui import core

    dim, base, p = v.as_int("dim"), v.as_float("base"), v.as_int("position")
    vector = core.sinusoidal_at([p], dim, base, dtype=torch.float64)[0]
    return {
        "vector": vector.tolist(),
        "ladder_vector": vector[: v.as_int("ladder_dims")].tolist(),
        "pair_angles": core.sinusoidal_pair_angles([p], dim, dim, base)[0].tolist(),
    }


class SineModel(TabModel):
    """``A·sin(2πft+φ)`` with its cosine partner, and the ladder ``PE[p, j]`` for the first dims.

    Read-outs: group ``wave`` (``period``, ``angular_frequency``, ``quarter_period``, ``angle``,
    ``angle_wrapped`` in [0, 2π), ``angle_degrees`` in [0°, 360°), ``sin_value``, ``cos_value``)
    group ``frequencies`` (``omega``, ``wavelength``) and group ``ladder`` (``vector`` = PE[p, :],
    ``ladder_vector``, ``pair_angles`` = ``p·ω_i`` for every pair ``i < d/2``, in radians).
    """

    id = "sine"
    title = "Sine explorer"
    short_title = "Sine"
    summary = "One sinusoid, its unit circle, and the frequency ladder of a positional encoding."
    params = (
        float_param("amplitude", 1.0, 0.0, 2.0, "Amplitude A", "Peak height A of both waves."),
        float_param("frequency", 1.0, 0.1, 5.0, "Frequency f", "Cycles per second f.", unit="Hz"),
        float_param(
            "phase", 0.0, -TAU, TAU, "Phase φ", "Phase shift φ added to the angle.", unit="rad"
        ),
        float_param(
            "cursor",
            0.125,
            0.0,
            T_VIEW,
            "Cursor t",
            "Time at which the circle and readouts are taken.",
            unit="s",
        ),
        dim_param(6, 1024),
        base_param(),
        int_param("length", 50, 2, 10000, "Positions L", "Positions 0…L−1 drawn in the ladder."),
        int_param("position", 23, 0, 9999, "Position p", "Position p whose encoding is read off."),
        int_param(
            "ladder_dims",
            6,
            2,
            MAX_LADDER,
            "Dims shown",
            "How many of the first dimensions the ladder draws.",
            even=True,
        ),
    )
    groups = (
        ReadoutGroup("wave", WAVE_INPUTS, _wave),
        ReadoutGroup("frequencies", ("dim", "base"), _frequencies),
        ReadoutGroup("ladder", LADDER_INPUTS, _ladder),
    )

    @classmethod
    def limits(cls, values: Mapping[str, Value]) -> Limits:
        v = Inputs(values, frozenset(("length", "dim")), "sine limits")
        return {
            "position": (0, v.as_int("length") - 1),
            "ladder_dims": (2, min(MAX_LADDER, v.as_int("dim"))),
        }

    figures = (
        "wave",
        "circle",
        "wave_formula",
        "circle_formula",
        "ladder",
        "vector",
        "ladder_formula",
    )
    #: Presented together in F5: a plot and its read-out block.
    figure_pairs = (
        ("wave", "wave_formula"),
        ("circle", "circle_formula"),
        ("ladder", "ladder_formula"),
    )
    animated = "cursor"


MODEL = SineModel
