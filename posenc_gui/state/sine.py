"""Sine explorer tab: a single sinusoid and the frequency ladder of a sinusoidal encoding."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from posenc_gui.state.model import Limits, TabModel
from posenc_gui.state.params import Value, float_param, int_param

TAU = 2.0 * math.pi
#: The wave plot always shows t in [0, T_VIEW] seconds.
T_VIEW = 2.0


def _num(values: Mapping[str, Value], name: str) -> float:
    v = values[name]
    assert not isinstance(v, str)
    return float(v)


class SineModel(TabModel):
    """``A·sin(2πft+φ)`` with its cosine partner, and the ladder ``PE[p, j]`` for the first dims."""

    id = "sine"
    title = "Sine explorer"
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
        int_param(
            "dim",
            6,
            2,
            1024,
            "Model dim d",
            "Encoding dimension d (even: one sin/cos pair per frequency).",
            even=True,
        ),
        float_param(
            "base",
            10000.0,
            10.0,
            1e7,
            "Base",
            "Base of the frequency ladder: ω_i = base^(-2i/d).",
            log=True,
            decimals=1,
        ),
        int_param("length", 50, 2, 10000, "Positions L", "Positions 0…L−1 drawn in the ladder."),
        int_param("position", 23, 0, 9999, "Position p", "Position p whose encoding is read off."),
        int_param(
            "ladder_dims",
            6,
            2,
            16,
            "Dims shown",
            "How many of the first dimensions the ladder draws.",
            even=True,
        ),
    )

    @classmethod
    def limits(cls, values: Mapping[str, Value]) -> Limits:
        length = int(_num(values, "length"))
        dim = int(_num(values, "dim"))
        return {"position": (0, length - 1), "ladder_dims": (2, min(16, dim))}

    @classmethod
    def angle(cls, values: Mapping[str, Value], t: float) -> float:
        """The angle ``2πft + φ`` in radians at time ``t``."""
        return TAU * _num(values, "frequency") * t + _num(values, "phase")

    @classmethod
    def readouts(cls, values: Mapping[str, Value]) -> dict[str, Any]:
        import torch  # imported here so that validating parameters stays fast (no torch)

        from posenc_gui import core

        amp = _num(values, "amplitude")
        f = _num(values, "frequency")
        t = _num(values, "cursor")
        theta = cls.angle(values, t)
        dim = int(_num(values, "dim"))
        base = _num(values, "base")
        position = int(_num(values, "position"))
        shown = int(_num(values, "ladder_dims"))
        omega = core.inverse_frequencies(dim, base)
        vector = core.sinusoidal_at([position], dim, base, dtype=torch.float64)[0]
        return {
            "period": 1.0 / f,
            "angular_frequency": TAU * f,
            "quarter_period": 0.25 / f,
            "angle": theta,
            "angle_wrapped": theta % TAU,
            "angle_degrees": math.degrees(theta % TAU),
            "sin_value": amp * math.sin(theta),
            "cos_value": amp * math.cos(theta),
            "omega": omega.tolist(),
            "wavelength": core.wavelengths(dim, base).tolist(),
            "vector": vector.tolist(),
            "ladder_vector": vector[:shown].tolist(),
        }


MODEL = SineModel
