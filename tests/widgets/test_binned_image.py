"""KeptRows: the rows of a binned image are computed once and taken back (sliced, picked,
extended) while only what is shown changes; ColourTable colours indices as RGBA pixels."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import torch

from posenc_gui.widgets.render.binned_image import ColourTable, KeptRows


def _means(table: torch.Tensor):  # type: ignore[no-untyped-def]
    """``compute`` for KeptRows: the mean of ``table[first…last, col]`` per bin and column,
    counting the entries it reads."""
    reads = [0]

    def compute(first: np.ndarray, last: np.ndarray, cols: np.ndarray) -> torch.Tensor:
        out = torch.empty((len(cols), len(first)), dtype=torch.float64)
        for k, (a, b) in enumerate(zip(first, last, strict=True)):
            out[:, k] = table[int(a) : int(b) + 1][:, torch.from_numpy(cols)].mean(dim=0)
            reads[0] += (int(b) - int(a) + 1) * len(cols)
        return out

    return compute, reads


def _colour(values: torch.Tensor) -> np.ndarray:
    return np.clip(np.floor((values.numpy() + 1.0) * 128.0), 0, 255).astype(np.uint8)


def _fresh(table: torch.Tensor, first: np.ndarray, last: np.ndarray, cols: np.ndarray):  # type: ignore[no-untyped-def]
    compute, _ = _means(table)
    values = compute(first, last, cols)
    return values, _colour(values)


TABLE = torch.sin(torch.arange(300, dtype=torch.float64)[:, None] * torch.linspace(0.01, 2, 16))


def test_a_subset_of_the_kept_columns_is_taken_back() -> None:
    rows, (compute, reads) = KeptRows(_colour), _means(TABLE)
    first = np.arange(0, 300, 3, dtype=np.int64)
    last = first + 2
    cols = np.arange(16, dtype=np.int64)
    rows.rows("k", first, last, cols, compute)
    assert rows.computed == 1
    read = reads[0]
    for subset in (cols[2:9], cols[1::3], cols[:1]):
        values, colours = rows.rows("k", first, last, subset, compute)
        want, want_colours = _fresh(TABLE, first, last, subset)
        np.testing.assert_array_equal(values.numpy(), want.numpy())
        np.testing.assert_array_equal(colours, want_colours)
    assert rows.computed == 1 and reads[0] == read  # nothing computed again
    rows.rows("other", first, last, cols[2:9], compute)  # another table: computed
    assert rows.computed == 2


def test_a_run_of_positions_is_sliced_or_extended() -> None:
    rows, (compute, reads) = KeptRows(_colour), _means(TABLE)
    cols = np.arange(16, dtype=np.int64)
    rows.rows("k", np.arange(100), np.arange(100), cols, compute)
    for n, added in ((60, 0), (100, 0), (150, 50), (30, 0), (151, 1)):
        before, read = rows.positions_added, reads[0]
        run = np.arange(n, dtype=np.int64)
        values, colours = rows.rows("k", run, run, cols, compute)
        want, want_colours = _fresh(TABLE, run, run, cols)
        np.testing.assert_array_equal(values.numpy(), want.numpy())
        np.testing.assert_array_equal(colours, want_colours)
        assert rows.positions_added - before == added
        assert reads[0] - read == added * len(cols)
    assert rows.computed == 1
    binned = np.arange(0, 300, 2, dtype=np.int64)
    rows.rows("k", binned, binned + 1, cols, compute)  # bins of two: computed afresh
    assert rows.computed == 2


def test_colour_table_gives_the_colour_maps_rgba() -> None:
    cmap = pg.colormap.get("CET-CBD1")
    table = ColourTable()
    table.set_colormap(cmap)
    index = np.array([[0, 17, 255], [128, 3, 64]], dtype=np.uint8)
    rgba = table.rgba(index)
    lut = cmap.getLookupTable(nPts=256, alpha=True)
    assert rgba.shape == (2, 3, 4) and rgba.dtype == np.uint8
    np.testing.assert_array_equal(rgba, lut[index])
