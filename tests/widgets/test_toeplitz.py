"""The Toeplitz heat map colours the row it holds, with the pixels of a plain heat map."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
import pytest
from conftest import record_rescales

from posenc_gui.core.rope_rows import toeplitz_float32
from posenc_gui.widgets.render.image import ColourImage
from posenc_gui.widgets.render.toeplitz import ToeplitzImage


def test_toeplitz_image_renders_its_row_with_the_pixels_of_its_matrix(
    qapp: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A matrix shown with its row is coloured from the row's 2·size − 1 values, the pixels
    of a plain heat map of the matrix; another image (a copy of it) is coloured element-wise."""
    scaled = record_rescales(monkeypatch)
    size = 9
    row = np.sin(0.7 * np.arange(2 * size - 1)) * np.linspace(1.0, 2.0, 2 * size - 1)
    mat, rev = toeplitz_float32(row, size)
    lut = pg.colormap.get("viridis").getLookupTable(nPts=256)
    item, plain = ToeplitzImage(in_colour=True), ColourImage(in_colour=True)
    for target in (item, plain):
        target.setLookupTable(lut)
    item.show_toeplitz(mat, rev, (-1.5, 1.5))
    plain.setImage(mat, autoLevels=False, levels=(-1.5, 1.5))
    scaled.clear()
    item.render()
    assert scaled == [(2 * size - 1,)]
    plain.render()
    assert item.qimage == plain.qimage
    item.setImage(mat.copy(), autoLevels=False, levels=(-1.5, 1.5))
    scaled.clear()
    item.render()
    assert scaled == [(size, size)] and item.qimage == plain.qimage
