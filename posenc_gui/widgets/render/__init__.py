"""The app's plot items as types: pyqtgraph extended by subclassing, one module per kind of
thing drawn. Each module's docstring says what its mechanism keeps, when it redraws and why
it is faster.

- :mod:`~posenc_gui.widgets.render.axis`: :class:`HouseAxis` (ticks, labels, axis lines) and
  :class:`AlignedAxes`;
- :mod:`~posenc_gui.widgets.render.grid`: :class:`GridLines`, a plot's grid under its data;
- :mod:`~posenc_gui.widgets.render.items`: :class:`PaddedItem`, :class:`Dots`,
  :class:`PixelCurve`, :class:`PixelText`;
- :mod:`~posenc_gui.widgets.render.image`: :class:`ColourImage` (heat maps in 32-bit colour)
  and :class:`HouseColorBar`.
"""

from posenc_gui.widgets.render.axis import AlignedAxes, HouseAxis
from posenc_gui.widgets.render.grid import GridLines
from posenc_gui.widgets.render.image import ColourImage, HouseColorBar
from posenc_gui.widgets.render.items import Dots, PaddedItem, PixelCurve, PixelText

__all__ = [
    "AlignedAxes",
    "ColourImage",
    "Dots",
    "GridLines",
    "HouseAxis",
    "HouseColorBar",
    "PaddedItem",
    "PixelCurve",
    "PixelText",
]
