"""What the heatmap tab's views share: resolution constants, the sampling of the image and the
position curves (:func:`axis_samples`, :func:`position_bins`, :func:`curve_samples`), and small
text helpers."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg

from posenc_gui.core.sinusoidal import SinusoidalLayout
from posenc_gui.widgets import styled
from posenc_gui.widgets.fmt import integer, sig
from posenc_gui.widgets.style import StyleBook
from posenc_gui.widgets.text import live

#: Hard cap on computed samples per image axis (a screen has ~2000 pixels a side).
MAX_SAMPLES = 2000
#: Below this many pixels we still compute this many samples (widget not laid out yet).
MIN_SAMPLES = 64
#: Most samples per turn of a position curve drawn as a line (see :func:`curve_samples`).
SAMPLES_PER_TURN = 64
MIN_CURVE_SAMPLES = 64
#: Pixels a position curve's polyline may stray from the curve (see :func:`curve_samples`).
CURVE_TOLERANCE = 0.25
#: The position curves' y range is ``[−CURVE_Y_RANGE, CURVE_Y_RANGE]``.
CURVE_Y_RANGE = 1.2
#: Integer sample dots on the position curves when at most this many positions are visible.
CURVE_DOTS_MAX = 160
#: Symbols on the vector / wavelength plots up to this many points.
SYMBOLS_MAX = 160
#: Width of the left axes of the heatmap, the vector and the curve plot (pixels at scale 1):
#: equal, so the heatmap's and the curve plot's position axes line up pixel by pixel.
AXIS_WIDTH = 78


IMAGE_INPUTS = ("positions", "dim", "base", "layout", "shown", "heat_range")
CURVE_INPUTS = ("positions", "dim", "base", "layout", "dimension", "column", "curve_range")
HOVER_INPUTS = (*IMAGE_INPUTS, "position", "dimension", "hover")


def axis_samples(lo: float, hi: float, count: int, pixels: int) -> tuple[np.ndarray, float, float]:
    """The items of one image axis to compute for the view ``[lo, hi]``.

    Items ``0 … count-1`` occupy ``[k-0.5, k+0.5]``. Returns ``(indices, start, extent)``: the
    item indices to compute (every visible one if they fit in ``pixels``, else one representative
    per pixel, the item nearest the pixel centre) and the image placement ``[start, start+extent]``.
    """
    first = min(max(math.floor(lo + 0.5), 0), count - 1)
    last = min(max(math.ceil(hi - 0.5), 0), count - 1)
    last = max(last, first)
    visible = last - first + 1
    start = first - 0.5
    if visible <= pixels:
        return np.arange(first, last + 1, dtype=np.int64), start, float(visible)
    width = visible / pixels
    centres = start + (np.arange(pixels, dtype=np.float64) + 0.5) * width
    idx = np.clip(np.floor(centres + 0.5), first, last).astype(np.int64)
    return idx, start, float(visible)


def position_bins(
    lo: float, hi: float, count: int, pixels: int
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """The positions each pixel column of the view ``[lo, hi]`` covers.

    Positions ``0 … count-1`` occupy ``[p-0.5, p+0.5]``. Returns ``(first, last, start,
    extent)``: pixel column ``k`` covers the positions ``first[k] … last[k]`` (inclusive; one
    position each when every visible position gets its own pixel, else the positions whose
    centres fall inside the pixel, so the bins partition the visible positions) and the image is
    placed on ``[start, start+extent]``.
    """
    idx, start, extent = axis_samples(lo, hi, count, pixels)
    if len(idx) == extent:  # every visible position has its own pixel
        return idx, idx, start, extent
    first_pos = int(start + 0.5)
    last_pos = first_pos + int(extent) - 1
    edges = start + np.arange(pixels + 1, dtype=np.float64) * (extent / pixels)
    first = np.clip(np.ceil(edges[:-1]), first_pos, last_pos).astype(np.int64)
    last = np.clip(np.ceil(edges[1:]) - 1, first_pos, last_pos).astype(np.int64)
    last[-1] = last_pos
    return first, np.maximum(last, first), start, extent


def curve_samples(span: float, omega: float, pixels: int, height: float | None = None) -> int:
    """Samples of a smooth ``sin(x·ω)`` curve drawn over ``span`` positions on ``pixels`` pixels.

    Per turn, enough that the polyline strays at most :data:`CURVE_TOLERANCE` pixels from the
    curve on a plot ``height`` pixels high (the y range is ±:data:`CURVE_Y_RANGE`: amplitude
    ``A = height / (2·CURVE_Y_RANGE)``; a chord over ``δ`` radians of ``A·sin`` strays at most
    ``A·δ²/8``), never more than :data:`SAMPLES_PER_TURN` (``height`` None: that many); at
    least :data:`MIN_CURVE_SAMPLES`, at most one per pixel: a slow column does not pay for a
    thousand segments it does not need.
    """
    per_turn: float = SAMPLES_PER_TURN
    if height is not None and height > 0:
        amplitude = height / (2.0 * CURVE_Y_RANGE)
        per_turn = min(per_turn, math.pi * math.sqrt(amplitude / (2.0 * CURVE_TOLERANCE)))
    turns = span * omega / (2.0 * math.pi)
    wanted = math.ceil(turns * math.ceil(per_turn)) + 1
    return int(min(max(wanted, MIN_CURVE_SAMPLES), max(pixels, MIN_CURVE_SAMPLES)))


def view_pixels(vb: pg.ViewBox, horizontal: bool) -> int:
    size = vb.width() if horizontal else vb.height()
    return int(min(max(round(float(size)), MIN_SAMPLES), MAX_SAMPLES))


def base_text(base: float) -> str:
    return integer(int(base)) if float(base).is_integer() else sig(base, 5)


def position_ticks(values: list[float], scale: float, spacing: float) -> list[str]:
    """Tick labels for position axes: whole numbers in full (1 000 000, not 1e+06)."""
    if spacing * scale >= 1:
        return [integer(round(v * scale)) for v in values]
    return [f"{v * scale:g}".replace("-", "−") for v in values]


def layout_of(name: str) -> SinusoidalLayout:
    return "concat" if name == "concat" else "interleaved"


def span_text(positions: int) -> str:
    """``0…L−1`` as one live value.

    A :class:`~posenc_gui.widgets.text.LiveText` draws a new value over the old one only
    when the characters beside it are upright (not "…" or "/"): written as
    ``0…{L−1}`` with only ``L−1`` live, every ``positions`` step edited and re-laid out the
    label; as one value it is drawn over whenever its width is unchanged.
    """
    return live(f"0…{integer(positions - 1)}")


def other(fn: str) -> str:
    return "cos" if fn == "sin" else "sin"


def crosshair(book: StyleBook, plot: pg.PlotWidget, angle: int, tip: str) -> pg.InfiniteLine:
    """A draggable selection line on ``plot`` (``angle`` 90: vertical)."""
    line = styled.vline(book, plot, "ink", movable=True, tooltip=tip, angle=angle)
    line.setZValue(20)
    # not cached: a new range (every positions, dim or shown_dims step) would draw the
    # line again into a pixmap the width of the view and blend it; drawn directly it is
    # one dashed line, and a moved line repaints only its old and new strips anyway
    return line
