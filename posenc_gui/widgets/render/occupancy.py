"""Where lines run, on a coarse grid: a label's rectangle tested against them in one lookup.

:class:`LineGrid` takes a plot's lines (per refresh) as segments and rasterises them into a
grid of cells a few pixels wide, summed into a summed-area table: how many cells of a
rectangle the lines cross is then four lookups, whatever the rectangle's size, and a whole
batch of candidate spots for a label is tested in a few numpy operations (:meth:`hits`).

What it keeps and when it redraws: each line's segments and cells while the line's key (what
its points are made from) and the grid stay. A line that changed is rasterised only when a
batch lookup needs its cells or once it has stayed for a step; until then :meth:`free` (is
a label's first spot clear?) tests it from its few segments. So a step that turns an arrow
rasterises nothing, and a circle that stays is tested from its cells, not its hundreds of
segments.

Why: a label that must sit clear of the lines is placed by trying spots in order of
preference; testing each spot against every line's points costs (spots × points) per label
— enough to double a tab's frame time — where this costs a lookup per spot, and most steps
find each label's first spot free and try no other. The grid is conservative: a rectangle
counts every cell it touches, so a spot found free is free of the lines.

:func:`place_labels` places a plot's labels with it: each label's first spot if it is clear
of the lines, of the labels placed before it and of the plot's edge; else its other spots in
order of preference (:func:`tip_candidates` past an arrow's tip, :func:`arc_candidates`
beside an arc, or any others), tested one at a time. The grid also keeps where its labels
went (see :func:`place_labels`): a label whose first spot is taken stays at the other spot it
took while that is clear, and its other spots are made once while it stays, so a step
searches only for the labels whose spot it took (measured on the RoPE circle, default
drag of m: the placement ~0.6 ms a step with a search for every label whose first spot is
taken, ~0.15 ms so).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import NamedTuple, cast

import numpy as np

#: A line: x, y (finite; arrays, or lists for a few points) and its ``connect`` (``"all"``,
#: ``"pairs"`` or one flag per point).
Line = tuple["np.ndarray | list[float]", "np.ndarray | list[float]", "str | np.ndarray"]


class Arc(NamedTuple):
    """A circle's arc about ``(x, y)`` of ``radius`` from the angle ``start`` through
    ``sweep`` radians (either sign; a whole circle: ``2π`` or more), as a line of
    :class:`LineGrid`: tested by :meth:`LineGrid.free` by a formula (its distance from the
    centre against the radius, its angles against the sweep), not as the hundreds of segments
    a circle is drawn with; rasterised as chords 3° apart when its cells are needed. Equal
    arcs are equal keys."""

    x: float
    y: float
    radius: float
    start: float
    sweep: float


def _arc_segments(arc: Arc) -> Segments:
    """``arc`` as chords at most 3° apart."""
    sweep = max(min(arc.sweep, 2.0 * math.pi), -2.0 * math.pi)
    n = max(2, math.ceil(abs(sweep) / math.radians(3.0)) + 1)
    a = np.linspace(arc.start, arc.start + sweep, n)
    return _segments((arc.x + arc.radius * np.cos(a), arc.y + arc.radius * np.sin(a), "all"))


def _wrap(angle: float) -> float:
    """``angle`` in [−π, π)."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


def _arc_meets(arc: Arc, box: Bounds) -> bool:
    """Whether ``arc`` meets the rectangle ``box`` (or may: a rectangle across the circle
    within the sweep's angles but beside the arc counts too)."""
    x, y, r, start, sweep = arc
    lx, b, rx, t = box[0] - x, box[1] - y, box[2] - x, box[3] - y
    # (squares and branches, not hypot and max: a placement tests thousands of rectangles)
    near_x = lx if lx > 0.0 else (-rx if rx < 0.0 else 0.0)
    near_y = b if b > 0.0 else (-t if t < 0.0 else 0.0)
    far_x, far_y = (-lx if -lx > rx else rx), (-b if -b > t else t)
    if near_x * near_x + near_y * near_y > r * r or far_x * far_x + far_y * far_y < r * r:
        return False  # wholly inside the circle, or wholly outside it
    if abs(sweep) >= 2.0 * math.pi or (near_x == 0.0 and near_y == 0.0):
        return True
    # the angles the rectangle spans (less than π: the centre is outside it), from its middle
    mid = math.atan2(0.5 * (b + t), 0.5 * (lx + rx))
    turns = [_wrap(math.atan2(py, px) - mid) for px, py in ((lx, b), (rx, b), (lx, t), (rx, t))]
    lo, hi = min(turns), max(turns)
    apart = _wrap(start + 0.5 * sweep - (mid + 0.5 * (lo + hi)))
    return abs(apart) <= 0.5 * abs(sweep) + 0.5 * (hi - lo)


class Held:
    """A line's key that is its arrays themselves: equal to another while both hold the same
    array objects (a curve set again gets new arrays; one left alone keeps them), compared
    without reading the points."""

    __slots__ = ("arrays",)

    def __init__(self, *arrays: object) -> None:
        self.arrays = arrays

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Held)
            and len(other.arrays) == len(self.arrays)
            and all(a is b for a, b in zip(self.arrays, other.arrays, strict=True))
        )

    def __hash__(self) -> int:
        return hash(tuple(id(a) for a in self.arrays))


#: A line's segments: start x, start y, end x, end y (one value per segment each; arrays, or
#: lists for a line of a few points).
Segments = tuple["np.ndarray | list[float]", ...]

#: Up to this many points a line's segments are made in plain Python: numpy's cost per call
#: outweighs its speed on a few values.
_FEW = 48


def _segments(line: Line) -> Segments:
    """The segments ``line`` draws (its ``connect``: a polyline, pairs, or one flag per point
    saying whether a segment starts there), finite ones only."""
    x, y, connect = line
    n = len(x)
    if n <= _FEW:
        return _few_segments(x, y, connect)
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if isinstance(connect, str):
        if connect == "pairs":
            m = n // 2 * 2
            ax, ay, bx, by = x[0:m:2], y[0:m:2], x[1:m:2], y[1:m:2]
        else:
            ax, ay, bx, by = x[:-1], y[:-1], x[1:], y[1:]
    else:
        keep = np.asarray(connect, dtype=bool)[: n - 1]
        ax, ay, bx, by = x[:-1][keep], y[:-1][keep], x[1:][keep], y[1:][keep]
    ok = np.isfinite(ax) & np.isfinite(ay) & np.isfinite(bx) & np.isfinite(by)
    if ok.all():
        return ax, ay, bx, by
    return ax[ok], ay[ok], bx[ok], by[ok]


def _few_segments(x: object, y: object, connect: str | np.ndarray) -> Segments:
    """:func:`_segments` of a line of a few points, in plain Python."""
    xs = x.tolist() if isinstance(x, np.ndarray) else list(x)  # type: ignore[call-overload]
    ys = y.tolist() if isinstance(y, np.ndarray) else list(y)  # type: ignore[call-overload]
    n = len(xs)
    if n < 2:
        starts: list[int] | range = []
    elif isinstance(connect, str):
        starts = range(0, n // 2 * 2, 2) if connect == "pairs" else range(n - 1)
    else:
        flags = np.asarray(connect, dtype=bool)[: n - 1].tolist()
        starts = [i for i, f in enumerate(flags) if f]
    fin = math.isfinite
    ax, ay, bx, by = [], [], [], []
    for i in starts:
        a, b, c, d = xs[i], ys[i], xs[i + 1], ys[i + 1]
        if fin(a) and fin(b) and fin(c) and fin(d):
            ax.append(a)
            ay.append(b)
            bx.append(c)
            by.append(d)
    return ax, ay, bx, by


#: A line's segments for :meth:`LineGrid.free`: its bounding box, and then the segments as
#: tuples (made when a rectangle meets the box).
_Loose = tuple[float, float, float, float, Segments]


def _box(segs: Segments) -> _Loose:
    """The bounding box of ``segs`` (empty: one no rectangle meets), and ``segs``."""
    if not len(segs[0]):
        return math.inf, math.inf, -math.inf, -math.inf, segs
    if isinstance(segs[0], np.ndarray):
        ax, ay, bx, by = segs
        # (as Python floats once: :func:`_meets` reads them for every rectangle it tests)
        listed = tuple(np.asarray(v).tolist() for v in segs)
        return (
            float(min(np.min(ax), np.min(bx))),
            float(min(np.min(ay), np.min(by))),
            float(max(np.max(ax), np.max(bx))),
            float(max(np.max(ay), np.max(by))),
            cast(Segments, listed),
        )
    ax, ay, bx, by = segs
    return (
        min(min(ax), min(bx)),
        min(min(ay), min(by)),
        max(max(ax), max(bx)),
        max(max(ay), max(by)),
        segs,
    )


def _meets(segs: Segments, box: Bounds) -> bool:
    """Whether any of ``segs`` meets the rectangle ``box``."""
    lx, b, r, t = box
    ax, ay, bx, by = (v.tolist() if isinstance(v, np.ndarray) else v for v in segs)
    for sx, sy, ex, ey in zip(ax, ay, bx, by, strict=True):
        off = (sx < lx and ex < lx) or (sx > r and ex > r) or (sy < b and ey < b)
        if not (off or (sy > t and ey > t)) and _crosses(sx, sy, ex, ey, box):
            return True
    return False


def _crosses(ax: float, ay: float, bx: float, by: float, lo: Bounds) -> bool:
    """Whether the segment from ``(ax, ay)`` to ``(bx, by)`` meets the rectangle ``lo``
    (Liang–Barsky: the part of the segment inside each of its four sides)."""
    lx, b, r, t = lo
    if lx <= ax <= r and b <= ay <= t:
        return True
    t0, t1 = 0.0, 1.0
    dx, dy = bx - ax, by - ay
    for p, q in ((-dx, ax - lx), (dx, r - ax), (-dy, ay - b), (dy, t - ay)):
        if p == 0.0:
            if q < 0.0:
                return False
        elif p < 0.0:
            t0 = max(t0, q / p)
        else:
            t1 = min(t1, q / p)
        if t0 > t1:
            return False
    return True


def _cells(
    segs: Sequence[Segments], x0: float, y0: float, cell: float, nx: int, ny: int
) -> np.ndarray:
    """The cells (``lines × ny × nx``, 1 where it runs) each line's segments cross: all
    sampled half a cell apart in one pass."""
    occ = np.zeros((len(segs), ny, nx), dtype=np.uint8)
    sizes = [len(sg[0]) for sg in segs]
    if not sum(sizes):
        return occ
    ax, ay, bx, by = (
        np.concatenate([np.asarray(sg[k], dtype=float) for sg in segs]) for k in range(4)
    )
    dx, dy = bx - ax, by - ay
    count = np.clip(np.ceil(np.hypot(dx, dy) / (0.5 * cell)), 1, 256).astype(np.int64) + 1
    of = np.repeat(np.arange(len(ax)), count)
    # t = 0 … 1 along each segment: the rank of a sample within its segment
    t = (np.arange(len(of)) - (np.cumsum(count) - count)[of]) / (count[of] - 1)
    ix = np.floor((ax[of] + dx[of] * t - x0) / cell).astype(np.int64)
    iy = np.floor((ay[of] + dy[of] * t - y0) / cell).astype(np.int64)
    inside = (ix >= 0) & (ix < nx) & (iy >= 0) & (iy < ny)
    line = np.repeat(np.arange(len(segs)), sizes)[of]
    occ[line[inside], iy[inside], ix[inside]] = 1
    return occ


class LineGrid:
    """Lines on a grid of ``nx × ny`` cells of side ``cell`` from ``(x0, y0)`` (data units):
    :meth:`hits` counts the cells of rectangles they cross, :meth:`free` tells whether
    rectangles touch none of them (see the module's docstring).

    A line set again with an unchanged key keeps its segments and cells. A line that changed
    is rasterised when :meth:`hits` first needs its cells, or at the next call that leaves
    it alone: a line that moves at every step (an arrow turning) is tested by :meth:`free`
    from its few segments, in plain Python floats (a handful of segments: numpy's cost per
    call would outweigh the work), after its bounding box, and never rasterised; one that
    stays (a circle of hundreds of segments) from its cells, in four lookups of a summed-area
    table.

    It also keeps, for :func:`place_labels`, its last answer (:attr:`last_placed`, valid
    while :attr:`version` and the call stay), the other spot each label took
    (:attr:`other_spot`) and the other spots made for each label (:attr:`other_spots`)."""

    def __init__(self) -> None:
        self._geometry: tuple[float, float, float, int, int] = (0.0, 0.0, 1.0, 0, 0)
        self._keys: list[Hashable] = []
        self._segs: list[Segments] = []
        self._loose: dict[int, _Loose] = {}  # the stale lines' segments for :meth:`free`
        self._arcs: dict[int, Arc] = {}  # the lines that are arcs
        self._stale: set[int] = set()  # lines whose cells are not made yet
        self._cells = np.zeros((0, 0, 0), dtype=np.uint8)
        self._table: np.ndarray | None = np.zeros((1, 1), dtype=np.int32)
        self._kept: np.ndarray | None = None  # the table of the lines whose cells are made
        #: Lines taken again (their segments now, their cells when asked for): a test counts
        #: the work a step did.
        self.rasterised = 0
        #: Counts the calls of :meth:`rasterise` that changed a line or the grid.
        self.version = 0
        #: Where :func:`place_labels` put the labels last: its arguments and spots, and for
        #: each label that could not take its first spot, the index of the one it took.
        self.last_placed: tuple[Hashable, list[Spot]] | None = None
        self.other_spot: dict[Hashable, int] = {}
        #: The other spots made for labels (by name, what they are made from, and bounds).
        self.other_spots: dict[Hashable, tuple[list[float], list[float]]] = {}

    def rasterise(
        self,
        lines: Sequence[Line | Arc | Callable[[], Line | Arc]],
        keys: Sequence[Hashable],
        x0: float,
        y0: float,
        cell: float,
        nx: int,
        ny: int,
    ) -> None:
        """Take ``lines`` (``keys``: what each is made from; None: unknown, always taken
        again) on the grid given, keeping what lines unchanged since the last call on the
        same grid had. A line may be a function that makes it: called only when its key
        changed. An :class:`Arc` is tested by its formula while it moves."""
        geometry = (x0, y0, cell, nx, ny)
        if geometry != self._geometry or len(keys) != len(self._keys):
            self._geometry, self._keys = geometry, [None] * len(keys)
            self._segs = [([], [], [], [])] * len(keys)
            self._cells = np.zeros((len(keys), ny, nx), dtype=np.uint8)
            self._stale = set(range(len(keys)))
            self._loose.clear()
            self._arcs.clear()
            self._table = self._kept = None
            self.version += 1
        old = self._keys
        new = [k for k, key in enumerate(keys) if key is None or key != old[k]]
        settled = self._stale.difference(new)
        if settled:  # left alone since they changed: their cells now, kept while they stay
            self._make_cells(sorted(settled))
        if not new:
            return
        if not self._stale.issuperset(new):  # a line whose cells were made moves
            self._kept = None
        for k in new:
            line = lines[k]
            made = line() if callable(line) else line
            if isinstance(made, Arc):  # its segments when its cells are made
                self._arcs[k] = made
                self._segs[k] = ([], [], [], [])
            else:
                self._arcs.pop(k, None)
                self._segs[k] = _segments(made)
            self._keys[k] = keys[k]
            self._loose.pop(k, None)
        self._stale.update(new)
        self.rasterised += len(new)
        self.version += 1
        self._table = None

    def _make_cells(self, lines: list[int]) -> None:
        for k in lines:
            if k in self._arcs and not len(self._segs[k][0]):
                self._segs[k] = _arc_segments(self._arcs[k])
        self._cells[lines] = _cells([self._segs[k] for k in lines], *self._geometry)
        self._stale.difference_update(lines)
        for k in lines:
            self._loose.pop(k, None)
        self._table = self._kept = None

    @property
    def cells(self) -> np.ndarray:
        """The cells of each line (``lines × ny × nx``, 1 where it runs)."""
        if self._stale:
            self._make_cells(sorted(self._stale))
        return self._cells

    @property
    def table(self) -> np.ndarray:
        """The summed-area table of the cells any line crosses (``(ny + 1) × (nx + 1)``)."""
        if self._table is None:
            self._table = _summed(self.cells)
        return self._table

    def free(
        self,
        cx: Sequence[float],
        cy: Sequence[float],
        hw: Sequence[float],
        hh: Sequence[float],
    ) -> list[bool]:
        """For rectangles of half size ``(hw, hh)`` centred on ``(cx, cy)`` (one value per
        rectangle each): whether no line comes near it — touches none of its cells, for a
        line rasterised; passes no nearer than half a cell, for one that has moved since
        (tested from its segments: no cells made)."""
        clear = self.tester()
        return [clear(x, y, w, h) for x, y, w, h in zip(cx, cy, hw, hh, strict=True)]

    def tester(self) -> Callable[[float, float, float, float], bool]:
        """:meth:`free` for one rectangle ``(x, y, hw, hh)`` at a time, for the lines as they
        are now (what it reads is gathered once: call it again after :meth:`rasterise`)."""
        x0, y0, c, nx, ny = self._geometry
        if self._kept is None:
            fresh = [k for k in range(len(self._segs)) if k not in self._stale]
            self._kept = _summed(self._cells[fresh]) if fresh else None
        kept = self._kept
        loose = [self._loose_of(k) for k in self._stale if k not in self._arcs]
        arcs = [self._arcs[k] for k in self._stale if k in self._arcs]
        pad = 0.5 * c
        floor = math.floor

        def clear(x: float, y: float, w: float, h: float) -> bool:
            if kept is not None:
                i0 = min(max(floor((x - w - x0) / c), 0), nx)
                i1 = min(max(floor((x + w - x0) / c) + 1, 0), nx)
                j0 = min(max(floor((y - h - y0) / c), 0), ny)
                j1 = min(max(floor((y + h - y0) / c) + 1, 0), ny)
                if kept[j1, i1] - kept[j0, i1] - kept[j1, i0] + kept[j0, i0]:
                    return False
            # as near as a cell would count: half a cell wider
            box = (x - w - pad, y - h - pad, x + w + pad, y + h + pad)
            return not any(_arc_meets(arc, box) for arc in arcs) and not any(
                _meets(segs, box)
                for lx0, ly0, lx1, ly1, segs in loose
                if lx0 <= box[2] and lx1 >= box[0] and ly0 <= box[3] and ly1 >= box[1]
            )

        return clear

    def _loose_of(self, k: int) -> _Loose:
        got = self._loose.get(k)
        if got is None:
            got = self._loose[k] = _box(self._segs[k])
        return got

    def hits(
        self, cx: np.ndarray, cy: np.ndarray, hw: np.ndarray | float, hh: np.ndarray | float
    ) -> np.ndarray:
        """For rectangles of half size ``(hw, hh)`` centred on ``(cx, cy)`` (arrays of one
        value per rectangle, or one value for all): how many cells crossed by a line each
        touches."""
        s = self.table
        x0, y0, c, nx, ny = self._geometry
        i0 = np.clip(np.floor((cx - hw - x0) / c), 0, nx).astype(np.int64)
        i1 = np.clip(np.floor((cx + hw - x0) / c) + 1, 0, nx).astype(np.int64)
        j0 = np.clip(np.floor((cy - hh - y0) / c), 0, ny).astype(np.int64)
        j1 = np.clip(np.floor((cy + hh - y0) / c) + 1, 0, ny).astype(np.int64)
        return np.asarray(s[j1, i1] - s[j0, i1] - s[j1, i0] + s[j0, i0])


def _summed(cells: np.ndarray) -> np.ndarray:
    """The summed-area table (``(ny + 1) × (nx + 1)``) of the cells any of ``cells``'s lines
    crosses."""
    _, ny, nx = cells.shape
    table = np.zeros((ny + 1, nx + 1), dtype=np.int32)
    if len(cells):
        table[1:, 1:] = cells.max(0).cumsum(0, dtype=np.int32).cumsum(1, np.int32)
    return table


# -- labels placed clear of the lines ---------------------------------------------------------
#: A label's centre (data units).
Spot = tuple[float, float]
#: A rectangle the labels must lie in: ``(x0, y0, x1, y1)`` (data units).
Bounds = tuple[float, float, float, float]
#: A label's spots: x and y, in order of preference.
Candidates = tuple[np.ndarray, np.ndarray]

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
    further out half a label's height at a time (so a label that must leave the arc for the
    next circle out sits just past that circle, not up to a label's height beyond it)."""
    mid, radius, sweep = (arcs[:, k : k + 1, None] for k in range(3))
    hw, hh = half[:, :1, None], half[:, 1:, None]
    ang = mid + sweep * _ARC_ALONG
    ext = _extent(hw, hh, ang)
    out = radius + gap + ext + np.arange(15.0)[:, None] * (hh + 0.5 * gap)
    inside = np.maximum(radius - gap - ext, 0.0)
    r = np.concatenate([out[:, :1], inside, out[:, 1:]], 1)
    n, per = len(arcs), r.shape[1] * ang.shape[2]
    return (r * np.cos(ang)).reshape(n, per), (r * np.sin(ang)).reshape(n, per)


def first_tip_spot(x: float, y: float, hw: float, hh: float, gap: float) -> Spot:
    """The first of :func:`tip_candidates` for one tip ``(x, y)`` and a label of half size
    ``(hw, hh)``: straight on past the tip, ``gap`` clear of it."""
    ang = math.atan2(y, x)
    c, s = math.cos(ang), math.sin(ang)
    dist = gap + abs(hw * c) + abs(hh * s)
    return x + dist * c, y + dist * s


def first_arc_spot(mid: float, radius: float, hw: float, hh: float, gap: float) -> Spot:
    """The first of :func:`arc_candidates` for an arc about the origin (middle angle ``mid``,
    ``radius``) and a label of half size ``(hw, hh)``: just outside the arc at its middle."""
    c, s = math.cos(mid), math.sin(mid)
    r = radius + gap + abs(hw * c) + abs(hh * s)
    return r * c, r * s


def place_labels(
    grid: LineGrid,
    first: Sequence[Spot],
    more: Callable[[int], Candidates],
    half: Sequence[tuple[float, float]],
    bounds: Bounds,
    names: Sequence[Hashable] | None = None,
    made_from: Sequence[Hashable] | None = None,
) -> list[Spot]:
    """Where each label goes, in order: label ``k`` (half size ``half[k]``) at its first
    spot ``first[k]`` if that lies over no line of ``grid``, on none of the labels placed
    before it and inside ``bounds`` ("clear"); else at one of its spots ``more(k)`` (x and y,
    in order of preference; made only then) that is clear: the one it took at the last call
    on ``grid`` if that is still clear, else the first clear one; if none is, the one that
    breaks the fewest of these (the bounds first, then the other labels, then the lines).
    ``names``: what tells the labels apart from one call to the next (default: their order);
    ``made_from``: what each label's ``more`` spots are made from, besides ``bounds`` (None:
    they are made again at each call that needs them).

    What ``grid`` keeps for it, when it recomputes, and why: a label whose first spot is
    taken (an arrow's tip on another line, an arc's middle under a circle) is found a spot
    among dozens, one at a time, in Python: ~0.1 ms a label, ~0.6 ms a step of the RoPE
    circle, where 4 of the 7 labels typically find their first spot taken. Kept:

    - the index of the other spot each label took (:attr:`LineGrid.other_spot`), tried
      first at the next call: one test. A label goes back to its first spot as soon as that
      is clear, and searches again (from its most preferred spot) only when its kept spot
      is taken; so it may stay at a clear spot a fresh search would not pick first, and does
      not jump between spots as the lines move.
    - the other spots made for a label, when ``made_from`` says what they are made from
      (:attr:`LineGrid.other_spots`): made again only when that or ``bounds`` changed.
    - the whole answer (:attr:`LineGrid.last_placed`) while the arguments are the same and
      no line of ``grid`` changed (:attr:`LineGrid.version`).

    Measured on the RoPE circle (a drag of m): the placement from ~0.6 ms a step to
    ~0.15 ms. Spots are tested one at a time (:meth:`LineGrid.tester`): no moving line's
    cells are made."""
    ids: Sequence[Hashable] = range(len(first)) if names is None else names
    made_key = None if made_from is None else tuple(made_from)
    key = (grid.version, tuple(first), tuple(half), bounds, tuple(ids), made_key)
    if grid.last_placed is not None and grid.last_placed[0] == key:
        return list(grid.last_placed[1])
    clear = grid.tester()
    x_lo, y_lo, x_hi, y_hi = bounds
    placed: list[tuple[float, float, float, float]] = []
    out: list[Spot] = []
    taken: dict[Hashable, int] = {}
    made_now: set[Hashable] = set()

    def fits(x: float, y: float, w: float, h: float) -> bool:
        if not (x_lo + w <= x <= x_hi - w and y_lo + h <= y <= y_hi - h):
            return False
        for px, py, pw, ph in placed:
            if abs(x - px) < w + pw and abs(y - py) < h + ph:
                return False
        return clear(x, y, w, h)

    for k, ((x, y), (w, h)) in enumerate(zip(first, half, strict=True)):
        if not fits(x, y, w, h):
            made = None if made_from is None else (ids[k], made_from[k], bounds)
            got = None if made is None else grid.other_spots.get(made)
            if got is None:
                mx, my = more(k)
                got = (
                    np.ravel(np.asarray(mx, dtype=float)).tolist(),
                    np.ravel(np.asarray(my, dtype=float)).tolist(),
                )
            if made is not None:
                grid.other_spots[made] = got
                made_now.add(made)
            cx, cy = got
            was = grid.other_spot.get(ids[k])
            if was is not None and was < len(cx) and fits(cx[was], cy[was], w, h):
                j: int | None = was
            else:
                j = next((i for i in range(len(cx)) if fits(cx[i], cy[i], w, h)), None)
            if j is None:  # none clear: the least bad, by how many cells each covers
                ax, ay = np.asarray(cx), np.asarray(cy)
                x, y = _choose(ax, ay, grid.hits(ax, ay, w, h), w, h, placed, bounds)
            else:
                x, y = cx[j], cy[j]
                taken[ids[k]] = j
        placed.append((x, y, w, h))
        out.append((x, y))
    grid.other_spot = taken
    grid.last_placed = (key, out)
    if len(grid.other_spots) > 4 * len(first):  # the spots of labels that have moved on
        grid.other_spots = {m: c for m, c in grid.other_spots.items() if m in made_now}
    return list(out)


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
