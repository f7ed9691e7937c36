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
"""

from __future__ import annotations

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
