"""An image of binned table rows: the rows kept between refreshes, coloured through a table.

The image shows ``C`` columns of a table (its rows) over ``K`` pixel columns, pixel ``k``
holding a quantity of the table over positions ``first[k] … last[k]`` (the mean over a bin, or
one entry when the bin is one position).

:class:`KeptRows` keeps the rows last computed (float64 values and their colour indices) with
what they were computed for: a key (the table's parameters), the bins and the columns. It
computes again only when the key changed or the rows asked for are not among the kept ones:

- the same bins, columns among the kept ones (fewer shown columns, a vertical pan or zoom
  within the columns computed): a slice of the kept rows when consecutive, else picked rows;
- one position per bin, consecutive positions, the same columns (a ``positions`` step below
  the pixel count): fewer positions are a slice of the kept entries; more positions from the
  same start compute only the new ones and append them.

:attr:`KeptRows.computed` counts full computations and :attr:`KeptRows.positions_added` the
positions computed to extend the kept rows. Why it is faster: the image rows are the one
expensive quantity of a table view (``C × K`` closed-form means, then colour indices), and
these steps change what is shown without changing a single value. With more table columns
than pixel rows, a :class:`KeptRows` without a colour keeps every column's row, and a step that
shows fewer of them (or pans within them) only averages kept rows again.

:class:`ColourTable` colours indices with a colour map as 32-bit pixels: the image is handed
to pyqtgraph as RGBA, not as float values that pyqtgraph maps through levels and a lookup
table at every paint (an indexed image drawn scaled costs several times an RGBA one).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import NamedTuple

import numpy as np
import pyqtgraph as pg
import torch

#: ``compute(first, last, columns)``: the ``(C, K)`` float64 rows for bins ``first … last``.
Compute = Callable[[np.ndarray, np.ndarray, np.ndarray], torch.Tensor]
#: ``colour(rows)``: the colour-map indices (uint8, same shape) of computed rows.
Colour = Callable[[torch.Tensor], np.ndarray]


class _Rows(NamedTuple):
    key: Hashable
    first: np.ndarray  # first and last position of each bin
    last: np.ndarray
    cols: np.ndarray  # the table columns computed (sorted)
    values: torch.Tensor  # (C, K) float64
    colours: np.ndarray  # their colour-map indices (uint8)


def _exact_run(first: np.ndarray, last: np.ndarray) -> bool:
    """Whether bins ``first … last`` are one position each, consecutive ones."""
    n = len(first)
    return (
        n > 0
        and (first is last or np.array_equal(first, last))
        and int(first[-1]) - int(first[0]) == n - 1
    )


class KeptRows:
    """The rows of a binned image, kept between refreshes (see the module's docstring);
    ``colour`` gives their colour indices (None: rows that are aggregated again before they
    are coloured, see :meth:`values`; no colours are computed)."""

    def __init__(self, colour: Colour | None) -> None:
        self._colour = colour if colour is not None else _uncoloured
        self._kept: _Rows | None = None
        #: How many times rows were computed in full (not taken from the kept ones).
        self.computed = 0
        #: Positions computed to extend the kept rows.
        self.positions_added = 0

    def rows(
        self,
        key: Hashable,
        first: np.ndarray,
        last: np.ndarray,
        cols: np.ndarray,
        compute: Compute,
    ) -> tuple[torch.Tensor, np.ndarray]:
        """The rows of columns ``cols`` (sorted) over bins ``first … last``, ``(C, K)``
        float64, and their colour indices (uint8); ``compute`` computes rows for ``key``."""
        kept = self._kept
        if kept is not None and kept.key != key:
            kept = None  # another table: nothing to take from
        if (
            kept is not None
            and len(cols)
            and np.array_equal(kept.first, first)
            and np.array_equal(kept.last, last)
        ):
            have = kept.cols
            at = np.searchsorted(have, cols)
            if int(at[-1]) < len(have) and np.array_equal(have[at], cols):
                lo, n = int(at[0]), len(cols)
                if int(at[-1]) - lo == n - 1:  # consecutive rows: views of the kept ones
                    return kept.values[lo : lo + n], kept.colours[lo : lo + n]
                return kept.values[torch.from_numpy(at)], kept.colours[at]
        if (
            kept is not None
            and _exact_run(first, last)
            and _exact_run(kept.first, kept.last)
            and np.array_equal(kept.cols, cols)
        ):
            k0, k1, n0, n1 = int(kept.first[0]), int(kept.first[-1]), int(first[0]), int(first[-1])
            if k0 <= n0 and n1 <= k1:  # fewer positions: columns of the kept entries
                cut = slice(n0 - k0, n1 - k0 + 1)
                return kept.values[:, cut], kept.colours[:, cut]
            if n0 == k0 and n1 > k1:  # more positions: only the new ones computed
                new = np.arange(k1 + 1, n1 + 1, dtype=np.int64)
                more = compute(new, new, cols)
                values = torch.cat((kept.values, more), dim=1)
                colours = np.concatenate((kept.colours, self._colour(more)), axis=1)
                self.positions_added += len(new)
                self._kept = _Rows(key, first, last, cols, values, colours)
                return values, colours
        values = compute(first, last, cols)
        colours = self._colour(values)
        self.computed += 1
        self._kept = _Rows(key, first, last, cols, values, colours)
        return values, colours

    def values(
        self,
        key: Hashable,
        first: np.ndarray,
        last: np.ndarray,
        cols: np.ndarray,
        compute: Compute,
    ) -> torch.Tensor:
        """The rows of :meth:`rows` without their colours (for rows aggregated again before
        they are shown, e.g. several table columns per pixel row)."""
        return self.rows(key, first, last, cols, compute)[0]


def _uncoloured(rows: torch.Tensor) -> np.ndarray:
    """A placeholder of the rows' shape (not initialised): rows kept uncoloured."""
    return np.empty(tuple(rows.shape), dtype=np.uint8)


class ColourTable:
    """A colour map's 256 colours as 32-bit pixels: colour-map indices to an RGBA image."""

    def __init__(self) -> None:
        self._table = np.zeros(256, dtype=np.uint32)

    def set_colormap(self, cmap: pg.ColorMap) -> None:
        lut = cmap.getLookupTable(nPts=256, alpha=True)
        self._table = np.ascontiguousarray(lut, dtype=np.uint8).view(np.uint32).reshape(256)

    def rgba(self, index: np.ndarray) -> np.ndarray:
        """The ``(rows, cols, 4)`` uint8 RGBA image of the ``(rows, cols)`` indices."""
        rows, cols = index.shape
        return np.take(self._table, index).view(np.uint8).reshape(rows, cols, 4)
