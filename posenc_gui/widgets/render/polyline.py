"""Several rows of a table as one polyline data set, straight runs merged into one segment.

:func:`rows_polyline` gives the data of one
:class:`~posenc_gui.widgets.render.items.PixelCurve` for many rows (one item to paint and bound
instead of one per row, rows separated by breaks in ``connect``). A point on the line through
its neighbours is left out: a straight run is drawn as one segment, the same pixels with no
joints drawn over each other (a row of a linear table: one segment instead of ``L − 1``), so
the paint costs what the row's bends cost, not what its length costs.
"""

from __future__ import annotations

import numpy as np


def rows_polyline(x: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(xs, ys, connect)`` for the rows of ``ys`` (rows, n) over ``x`` (n, increasing): the
    points one row after the other, no segment from the end of a row to the start of the
    next, inner points where the slope goes on unchanged (to round-off) left out."""
    rows, n = ys.shape
    keep = np.ones((rows, n), dtype=bool)
    if n > 2:
        dx = np.diff(x)
        slopes = np.diff(ys, axis=1) / dx  # (rows, n − 1)
        scale = np.maximum(np.abs(slopes[:, 1:]), np.abs(slopes[:, :-1]))
        straight = np.abs(slopes[:, 1:] - slopes[:, :-1]) <= 1e-9 * np.maximum(scale, 1e-300)
        keep[:, 1:-1] = ~straight
    counts = keep.sum(axis=1)
    connect = np.ones(int(counts.sum()), dtype=bool)
    connect[np.cumsum(counts) - 1] = False  # the last point of each row
    return np.broadcast_to(x, (rows, n))[keep], ys[keep], connect
