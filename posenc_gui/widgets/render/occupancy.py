"""Where lines run, on a coarse grid: a label's rectangle tested against them in one lookup.

:class:`LineGrid` rasterises a plot's lines (per refresh) into a grid of cells a few pixels
wide and sums it into a summed-area table: how many cells of a rectangle the lines cross is
then four lookups, whatever the rectangle's size, and a whole batch of candidate spots for
the labels is tested in a few numpy operations. It keeps each line's cells while the line's
key (what its points are made from) and the grid stay: a step that moves one arrow
rasterises that arrow only.

Why: a label that must sit clear of the lines is placed by trying spots in order of
preference; testing each spot against every line's points costs (spots × points) per label
— enough to double a tab's frame time — where this costs the rasterisation of what moved and
one lookup per spot. The grid is conservative: a rectangle counts every cell it touches, so a
spot found free is free of the lines.

:func:`place_labels` places a plot's labels with it: each label's spots in order of preference
(:func:`tip_candidates` past an arrow's tip, :func:`arc_candidates` beside an arc, or any
others), all tested in one lookup, the first clear of the lines, of the labels placed before it
and of the plot's edge taken.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np

#: A line: x, y (finite) and its ``connect`` (``"all"``, ``"pairs"`` or one flag per point).
Line = tuple[np.ndarray, np.ndarray, "str | np.ndarray"]


def _starts(n: int, connect: str | np.ndarray) -> np.ndarray:
    """Which of a line's ``n`` points start a segment drawn with ``connect`` (the last none)."""
    if isinstance(connect, str):
        flags = np.ones(n, dtype=bool)
        if connect == "pairs":
            flags[1::2] = False
    else:
        flags = np.array(connect, dtype=bool)
    if n:
        flags[-1] = False
    return flags


def _cells(
    lines: Sequence[Line], x0: float, y0: float, cell: float, nx: int, ny: int
) -> np.ndarray:
    """The cells (``lines × ny × nx``, 1 where it runs) each line crosses: all lines' segments
    sampled half a cell apart in one pass."""
    sizes = [len(x) for x, _, _ in lines]
    px = np.concatenate([np.asarray(x, dtype=float) for x, _, _ in lines])
    py = np.concatenate([np.asarray(y, dtype=float) for _, y, _ in lines])
    starts = np.concatenate([_starts(n, c) for n, (_, _, c) in zip(sizes, lines, strict=True)])
    i = np.flatnonzero(starts)
    occ = np.zeros((len(lines), ny, nx), dtype=np.uint8)
    if not len(i):
        return occ
    ax, ay = px[i], py[i]
    dx, dy = px[i + 1] - ax, py[i + 1] - ay
    count = np.clip(np.ceil(np.hypot(dx, dy) / (0.5 * cell)), 1, 256).astype(np.int64) + 1
    of = np.repeat(np.arange(len(i)), count)
    # t = 0 … 1 along each segment: the rank of a sample within its segment
    t = (np.arange(len(of)) - (np.cumsum(count) - count)[of]) / (count[of] - 1)
    ix = np.floor((ax[of] + dx[of] * t - x0) / cell).astype(np.int64)
    iy = np.floor((ay[of] + dy[of] * t - y0) / cell).astype(np.int64)
    inside = (ix >= 0) & (ix < nx) & (iy >= 0) & (iy < ny)
    line = np.repeat(np.arange(len(lines)), sizes)[i][of]
    occ[line[inside], iy[inside], ix[inside]] = 1
    return occ


class LineGrid:
    """Lines rasterised into ``nx × ny`` cells of side ``cell`` from ``(x0, y0)`` (data units);
    :meth:`hits` counts the cells of rectangles they cross (see the module's docstring)."""

    def __init__(self) -> None:
        self._geometry: tuple[float, float, float, int, int] = (0.0, 0.0, 1.0, 0, 0)
        self._keys: list[Hashable] = []
        #: The cells of each line (``lines × ny × nx``).
        self.cells = np.zeros((0, 0, 0), dtype=np.uint8)
        #: The summed-area table of the cells any line crosses (``(ny + 1) × (nx + 1)``).
        self.table = np.zeros((1, 1), dtype=np.int32)
        #: Lines rasterised (a test counts the work a step did).
        self.rasterised = 0

    def rasterise(
        self,
        lines: Sequence[Line],
        keys: Sequence[Hashable],
        x0: float,
        y0: float,
        cell: float,
        nx: int,
        ny: int,
    ) -> None:
        """Rasterise ``lines`` (``keys``: what each is made from; None: unknown, always
        rasterised) on the grid given, keeping the cells of lines unchanged since the last
        call on the same grid."""
        geometry = (x0, y0, cell, nx, ny)
        if geometry != self._geometry or len(keys) != len(self._keys):
            self._geometry, self._keys = geometry, [None] * len(keys)
            self.cells = np.zeros((len(keys), ny, nx), dtype=np.uint8)
        new = [k for k, key in enumerate(keys) if key is None or key != self._keys[k]]
        if not new:
            return
        self.cells[new] = _cells([lines[k] for k in new], *geometry)
        for k in new:
            self._keys[k] = keys[k]
        self.rasterised += len(new)
        table = np.zeros((ny + 1, nx + 1), dtype=np.int32)
        table[1:, 1:] = self.cells.max(0).cumsum(0, dtype=np.int32).cumsum(1, dtype=np.int32)
        self.table = table

    def hits(
        self, cx: np.ndarray, cy: np.ndarray, hw: np.ndarray | float, hh: np.ndarray | float
    ) -> np.ndarray:
        """For rectangles of half size ``(hw, hh)`` centred on ``(cx, cy)`` (arrays of one
        value per rectangle, or one value for all): how many cells crossed by a line each
        touches."""
        x0, y0, c, nx, ny = self._geometry
        i0 = np.clip(np.floor((cx - hw - x0) / c), 0, nx).astype(np.int64)
        i1 = np.clip(np.floor((cx + hw - x0) / c) + 1, 0, nx).astype(np.int64)
        j0 = np.clip(np.floor((cy - hh - y0) / c), 0, ny).astype(np.int64)
        j1 = np.clip(np.floor((cy + hh - y0) / c) + 1, 0, ny).astype(np.int64)
        s = self.table
        return np.asarray(s[j1, i1] - s[j0, i1] - s[j1, i0] + s[j0, i0])


# -- labels placed clear of the lines ---------------------------------------------------------
#: A label's centre (data units).
Spot = tuple[float, float]
#: A rectangle the labels must lie in: ``(x0, y0, x1, y1)`` (data units).
Bounds = tuple[float, float, float, float]

#: Directions (radians from an arrow's own) tried for its tip label, in order of preference.
_TIP_TURNS = np.array([0.0, 0.35, -0.35, 0.7, -0.7, 1.1, -1.1, 1.6, -1.6, 2.2, -2.2])
#: Spots along an arc tried for its label (fractions of its sweep from its middle).
_ARC_ALONG = np.array([0.0, 0.2, -0.2, 0.35, -0.35])


def _extent(hw: np.ndarray, hh: np.ndarray, ang: np.ndarray) -> np.ndarray:
    """How far rectangles of half size ``(hw, hh)`` reach from their centres along ``ang``."""
    return np.asarray(np.abs(hw * np.cos(ang)) + np.abs(hh * np.sin(ang)))


def tip_candidates(tips: np.ndarray, half: np.ndarray, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """Spots for the labels of the tips ``tips`` (``n × 2``) of arrows from the origin (their
    labels' half sizes ``half``, ``n × 2``), a row per tip, in order of preference: just past
    the tip (``gap`` between it and the label's rectangle), straight on and then turning to
    either side; then a label's height further out, and so on."""
    tx, ty = tips[:, :1, None], tips[:, 1:, None]
    hw, hh = half[:, :1, None], half[:, 1:, None]
    ang = np.arctan2(ty, tx) + _TIP_TURNS  # atan2(0, 0) = 0: a tip at the origin looks right
    steps = np.arange(6.0)[:, None]
    dist = gap + _extent(hw, hh, ang) + steps * (2.0 * hh + gap)
    n, per = len(tips), dist.shape[1] * dist.shape[2]
    return (tx + dist * np.cos(ang)).reshape(n, per), (ty + dist * np.sin(ang)).reshape(n, per)


def arc_candidates(arcs: np.ndarray, half: np.ndarray, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """Spots for the labels of arcs about the origin (``arcs``: a row of middle angle, radius
    and sweep per arc; ``half``: their labels' half sizes), a row per arc, in order of
    preference: just outside the arc at its middle, then along it, then just inside; then
    further out a label's height at a time."""
    mid, radius, sweep = (arcs[:, k : k + 1, None] for k in range(3))
    hw, hh = half[:, :1, None], half[:, 1:, None]
    ang = mid + sweep * _ARC_ALONG
    ext = _extent(hw, hh, ang)
    out = radius + gap + ext + np.arange(8.0)[:, None] * (2.0 * hh + gap)
    inside = np.maximum(radius - gap - ext, 0.0)
    r = np.concatenate([out[:, :1], inside, out[:, 1:]], 1)
    n, per = len(arcs), r.shape[1] * ang.shape[2]
    return (r * np.cos(ang)).reshape(n, per), (r * np.sin(ang)).reshape(n, per)


def ring(x: float, y: float, radius: float, n: int = 16) -> Line:
    """A marker's ring (a closed line of ``n`` segments) about ``(x, y)``: a line the labels
    keep off."""
    t = np.linspace(0.0, 2.0 * np.pi, n + 1)
    return x + radius * np.cos(t), y + radius * np.sin(t), "all"


def place_labels(
    grid: LineGrid,
    spots: Sequence[tuple[np.ndarray, np.ndarray]],
    half: Sequence[tuple[float, float]],
    bounds: Bounds,
) -> list[Spot]:
    """Where each label goes, in order: label ``k`` (half size ``half[k]``) at the first of its
    spots ``spots[k]`` (x and y, in order of preference) over no line of ``grid``, on none of
    the labels placed before it and inside ``bounds``; if none is, the one that breaks the
    fewest of these (the bounds first, then the other labels, then the lines). All spots are
    tested against the lines in one lookup."""
    counts = [int(np.size(x)) for x, _ in spots]
    cx = np.concatenate([np.ravel(x) for x, _ in spots]).astype(float)
    cy = np.concatenate([np.ravel(y) for _, y in spots]).astype(float)
    hw = np.repeat([h[0] for h in half], counts)
    hh = np.repeat([h[1] for h in half], counts)
    hits = grid.hits(cx, cy, hw, hh) if len(cx) else np.zeros(0, dtype=np.int64)
    placed: list[tuple[float, float, float, float]] = []
    out: list[Spot] = []
    end = 0
    for (w, h), count in zip(half, counts, strict=True):
        row = slice(end, end + count)
        end += count
        spot = _choose(cx[row], cy[row], hits[row], w, h, placed, bounds)
        placed.append((*spot, w, h))
        out.append(spot)
    return out


def _choose(
    cx: np.ndarray,
    cy: np.ndarray,
    hits: np.ndarray,
    hw: float,
    hh: float,
    placed: Sequence[tuple[float, float, float, float]],
    bounds: Bounds,
) -> Spot:
    """The spot :func:`place_labels` picks for one label among ``(cx, cy)``."""
    x0, y0, x1, y1 = bounds[0] + hw, bounds[1] + hh, bounds[2] - hw, bounds[3] - hh
    others = [(px, py, pw + hw, ph + hh) for px, py, pw, ph in placed]
    best: Spot = (float(cx[0]), float(cy[0])) if len(cx) else (0.5 * (x0 + x1), 0.5 * (y0 + y1))
    best_cost = math.inf
    for x, y, n in zip(cx.tolist(), cy.tolist(), hits.tolist(), strict=True):
        cost = float(n) + (1e6 if x < x0 or x > x1 or y < y0 or y > y1 else 0.0)
        if cost >= best_cost:
            continue
        cost += 1e3 * sum(abs(x - px) < ow and abs(y - py) < oh for px, py, ow, oh in others)
        if cost == 0.0:
            return x, y
        if cost < best_cost:
            best, best_cost = (x, y), cost
    return best
