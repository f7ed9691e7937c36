"""Heat maps rendered straight to 32-bit colour, and the colour bar beside them.

pyqtgraph renders a one-channel float image by scaling it to 8-bit indices, building a
256-entry Qt colour table from the lookup table (a Python call per entry) and making an
indexed image; Qt then converts that image to 32-bit colour at *every paint*, before scaling
it onto the view (~0.35 ms a paint of a 64 × 64 matrix, more for 512 × 512).

:class:`ColourImage` (with ``in_colour``) keeps its rendered pixels in 32-bit colour: each paint
scales the colours directly, cell by cell (no smoothing, as Qt draws an indexed image). It
renders a plain float image (finite, row-major, a 256-entry lookup table, two levels) in one
step: the same indices as pyqtgraph (its ``rescaleData``, as its render calls it) pick the
colours from a table of 32-bit pixels kept per lookup table. Any other image goes through
pyqtgraph's render, converted once. It renders again when pyqtgraph would (new data, levels or
lookup table). A Toeplitz image (``S[a, b] = row[a − b]``, the RoPE score matrix) may give its
reversed row (:meth:`ColourImage.toeplitz_row`, which
:class:`~posenc_gui.widgets.render.toeplitz.ToeplitzImage` overrides): its pixels are then those
of the row's ``2·size − 1`` values laid out as the matrix is (each pixel the colour of the same
float32 value, so the same pixels), not ``size²`` values scaled and looked up one by one.

:class:`HouseColorBar` is pyqtgraph's colour bar with a
:class:`~posenc_gui.widgets.render.axis.HouseAxis` for its scale.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QImage, QPainter

from posenc_gui.core.rope_rows import toeplitz_from_reversed
from posenc_gui.widgets.render.axis import HouseAxis


class ColourImage(pg.ImageItem):  # type: ignore[misc]  # pyqtgraph is untyped
    """A row-major ``ImageItem`` that, with ``in_colour``, renders to 32-bit colour (see the
    module's docstring); without, pyqtgraph's image."""

    def __init__(self, *, in_colour: bool = False, **kw: Any) -> None:
        super().__init__(axisOrder="row-major", **kw)
        self._in_colour = in_colour
        #: 32-bit pixels of the last few lookup tables (by their bytes).
        self._tables: dict[bytes, np.ndarray] = {}

    def toeplitz_row(self, image: np.ndarray) -> np.ndarray | None:
        """The float32 reversed row of ``image`` when it is a Toeplitz matrix whose row is
        known, else None (here: always None)."""
        return None

    def render(self) -> None:
        if not self._in_colour:
            super().render()
            return
        pixels = self._pixels()
        if pixels is not None:
            # as ImageItem.render ends: the image is rendered and renderable
            self.qimage = pg.functions.ndarray_to_qimage(pixels, QImage.Format.Format_RGB32)
            self._renderRequired = False
            self._unrenderable = False
            return
        super().render()
        image = self.qimage
        if image is not None and image.format() == QImage.Format.Format_Indexed8:
            fmt = (
                QImage.Format.Format_ARGB32_Premultiplied
                if image.hasAlphaChannel()
                else QImage.Format.Format_RGB32
            )
            self.qimage = image.convertToFormat(fmt)

    def _pixels(self) -> np.ndarray | None:
        """The 32-bit pixels of a plain float image (None: pyqtgraph renders it)."""
        image, lut, levels = self.image, self.lut, self.levels
        plain = (
            isinstance(image, np.ndarray) and image.ndim == 2 and image.size > 0
            and image.dtype.kind == "f" and image.flags.c_contiguous
            and isinstance(lut, np.ndarray) and lut.shape == (256, 3) and lut.dtype == np.uint8
            and levels is not None and np.ndim(levels) == 1 and len(levels) == 2
            and not self.autoDownsample and self.axisOrder == "row-major"
        )  # fmt: skip
        if not plain or not np.isfinite(image.min()):
            return None
        key = lut.tobytes()
        table = self._tables.get(key)
        if table is None:
            rgb = lut.astype(np.uint32)
            table = 0xFF000000 | (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]
            if len(self._tables) >= 4:
                self._tables.clear()
            self._tables[key] = table
        lo, hi = float(levels[0]), float(levels[1])
        scale = 256 / ((hi - lo) or 1)  # as pyqtgraph: indices (x − lo)·256/(hi − lo), clipped
        rev = self.toeplitz_row(image)
        if rev is not None:
            index = pg.functions.rescaleData(rev, scale, lo, dtype=np.uint8, clip=(0, 255))
            return toeplitz_from_reversed(np.ascontiguousarray(table[index]), image.shape[0])
        index = pg.functions.rescaleData(image, scale, lo, dtype=np.uint8, clip=(0, 255))
        return np.ascontiguousarray(table[index])

    def paint(self, p: QPainter, *args: Any) -> None:
        if self._in_colour:  # cell by cell, as Qt draws an indexed image
            p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
        super().paint(p, *args)


class HouseColorBar(pg.ColorBarItem):  # type: ignore[misc]  # pyqtgraph is untyped
    """pyqtgraph's colour bar whose scale (right axis) is a
    :class:`~posenc_gui.widgets.render.axis.HouseAxis`."""

    def setAxisItems(self, axis_items: dict[str, pg.AxisItem] | None = None) -> None:
        items = dict(axis_items or {})
        if "right" not in self.axes and "right" not in items:  # built: the house's scale
            items["right"] = HouseAxis("right", parent=self)
        super().setAxisItems(items)
