"""Lines that remember what they show: set again only when what they are made from changed.

:class:`KeyedCurve` is a :class:`~posenc_gui.widgets.render.items.PixelCurve` that keeps the
*key* of its data (the few numbers its points are made from: a radius, an angle, an arrow's
tip). :meth:`KeyedCurve.set_data_for` computes and sets the points only for a new key; a step that
leaves the key alone computes nothing and sets nothing, so the line keeps its arrays — and
with them its cached pixels (``Panel.kept_lines`` keeps the pixels of a line whose arrays a
refresh left alone), and nothing beneath it is repainted.

Why: a step of m on the RoPE tab rotates one arrow and one arc of the circle plot; the other
seven lines of that plot (circles, the arrows before rotation, the key's arrow and arc) are
left alone instead of being computed, set and stroked again (each set drops the line's pixmap
and repaints its bounds).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import numpy as np

from posenc_gui.widgets.render.items import PixelCurve


class KeyedCurve(PixelCurve):
    """A :class:`PixelCurve` that sets new data only when the key of its data changed."""

    def __init__(self) -> None:
        super().__init__()
        self._key: Hashable | None = None

    @property
    def data_key(self) -> Hashable | None:
        """The key of the data shown (None: data set by :meth:`setData`, or none yet)."""
        return self._key

    def set_data_for(self, key: Hashable, make: Callable[[], tuple[np.ndarray, ...]]) -> bool:
        """``setData(x, y[, connect])`` from ``make()`` unless ``key`` (what the data is made
        from, compared with ``==``) is the key of the data shown. Whether data was set."""
        if key == self._key:
            return False
        x, y, *connect = make()
        super().setData(x, y, connect=connect[0] if connect else "all")
        self._key = key
        return True

    def setData(
        self,
        x: np.ndarray,
        y: np.ndarray,
        antialias: bool = True,
        connect: str | np.ndarray = "all",
    ) -> None:
        """Set data directly (the next :meth:`set_data_for` sets its own again)."""
        super().setData(x, y, antialias=antialias, connect=connect)
        self._key = None
