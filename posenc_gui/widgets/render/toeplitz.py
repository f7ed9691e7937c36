"""A heat map of a Toeplitz matrix that keeps the row it is made from.

A Toeplitz matrix (``S[a, b] = row[a − b]``, the RoPE score matrix) has only ``2·size − 1``
distinct values. :class:`ToeplitzImage` is shown one with :meth:`ToeplitzImage.show_toeplitz`
(the matrix and its reversed row): it keeps both, and while the image it renders is that matrix
(or pyqtgraph's whole view of it) it gives the row to
:class:`~posenc_gui.widgets.render.image.ColourImage` (overriding its ``toeplitz_row``), which
then colours the row's values and lays their pixels out as the matrix is (the same float32
values, so the same pixels) instead of scaling and looking up ``size²`` values one by one. It
renders when a :class:`~posenc_gui.widgets.render.image.ColourImage` would (new data, levels or
lookup table); any other image (given with ``setImage``) is rendered as usual."""

from __future__ import annotations

from typing import Any

import numpy as np

from posenc_gui.widgets.render.image import ColourImage


class ToeplitzImage(ColourImage):
    """A :class:`ColourImage` that holds the reversed row of the Toeplitz matrix it shows (see
    the module's docstring)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        #: (matrix, reversed float32 row) given last to show_toeplitz (None: none).
        self._toeplitz_shown: tuple[np.ndarray, np.ndarray] | None = None

    def show_toeplitz(
        self, matrix: np.ndarray, reversed_row: np.ndarray, levels: tuple[float, float]
    ) -> None:
        """Show ``matrix`` (``matrix[a, b] = reversed_row[b − a + size − 1]``, float32) with
        fixed colour ``levels``."""
        self._toeplitz_shown = (matrix, reversed_row)
        self.setImage(matrix, autoLevels=False, levels=levels)

    def toeplitz_row(self, image: np.ndarray) -> np.ndarray | None:
        """The reversed row when ``image`` is the matrix shown (or a whole view of it)."""
        if self._toeplitz_shown is None:
            return None
        mat, rev = self._toeplitz_shown
        same = image is mat or (
            image.base is mat and image.shape == mat.shape and image.strides == mat.strides
            and image.ctypes.data == mat.ctypes.data
        )  # fmt: skip
        return rev if same else None
