"""The house plot: a ``pg.PlotItem`` whose title fits its width and takes new text in place.

- **Fit.** pyqtgraph's title asks the layout for its whole text width, so a long title on a
  narrow plot (a small projector, a large scale) makes the scene wider than the widget and cuts
  off the plot's right side with it. :class:`FitTitle` asks for no width and wraps its text
  to the width it is given (lines centred): every title of a tab keeps the title role's size,
  none shrinks alone.
- **Text in place.** pyqtgraph's ``PlotItem.setTitle`` fixes the title row's height again and
  its label asks the layout for its size anew: each invalidates the plot's layout (a layout
  pass of the whole plot before the next paint) though a title of the same height keeps its
  place (its width is the plot's). :meth:`HousePlot.retitle` sets a title that is already laid
  out through :meth:`FitTitle.set_text_in_place`: the text item gets the new text, is fitted
  and centred where the label is, and the layout is asked for a new place only when the
  title's height changed. Titles with live numbers (a length or head step) change at every
  step of a slider; this keeps those steps from laying out their plots again.

What the title keeps: the size hints of its last text (the layout reads them on its next pass).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSizeF, Qt

from posenc_gui.widgets.render.view_range import HouseViewBox

_MIN = Qt.SizeHint.MinimumSize
#: The height of a plot's title row for a title of one line (pyqtgraph's).
TITLE_ROW = 30.0


class FitTitle(pg.LabelItem):  # type: ignore[misc]  # pyqtgraph is untyped
    """A plot title that wraps its text to the width it is given (lines centred, at the
    title's size), and asks for its height only (its width is the plot's)."""

    #: The size hints of the text shown (replaced, never changed in place).
    _hints: Mapping[Qt.SizeHint, tuple[float, float]] = MappingProxyType({})
    #: True while a text is set in place: no layout request (see :meth:`set_text_in_place`).
    _in_place = False

    def set_text_in_place(self, text: str, **args: Any) -> None:
        """Show ``text`` (``setText``'s style arguments) fitted and centred where the title is,
        without asking the layout for a new place unless the title's height changes."""
        before = self._hints.get(_MIN, (0.0, -1.0))[1]
        self._in_place = True
        try:
            self.setText(text, **args)
        finally:
            self._in_place = False
        if self._hints[_MIN][1] != before:
            self.updateMin()  # another height: the plot makes room for it

    def laid_out(self) -> bool:
        """Whether the title is shown with a place given by the layout."""
        return bool(self.isVisible() and self.size().width() > 0 and self._hints)

    def resizeEvent(self, ev: object) -> None:
        self._wrap()
        super().resizeEvent(ev)  # (its updateMin makes room for another number of lines)

    def _wrap(self) -> None:
        """Lay the text out at the title's width (centred lines, wrapped when too long).

        The text is always laid out at that width, never measured unwrapped first: a new text
        (a live number) is laid out once."""
        item = self.item
        doc = item.document()
        option = doc.defaultTextOption()
        if option.alignment() != Qt.AlignmentFlag.AlignHCenter:
            option.setAlignment(Qt.AlignmentFlag.AlignHCenter)
            doc.setDefaultTextOption(option)
        avail = self.size().width()
        width = avail if avail > 0 else -1.0
        if item.textWidth() != width:
            item.setTextWidth(width)

    def updateMin(self) -> None:
        bounds = self.itemRect()
        self._hints = {
            _MIN: (0.0, bounds.height()),
            Qt.SizeHint.PreferredSize: (bounds.width(), bounds.height()),
            Qt.SizeHint.MaximumSize: (-1.0, -1.0),
            Qt.SizeHint.MinimumDescent: (0.0, 0.0),
        }
        if self._in_place:
            return
        self.setMinimumWidth(0)
        height = max(bounds.height(), TITLE_ROW)
        if height != self.maximumHeight():  # the plot's title row: all of the title's lines
            self.setMaximumHeight(height)
            parent = self.parentItem()
            if isinstance(parent, HousePlot):
                parent.title_height_changed(height)
        self.setMinimumHeight(bounds.height())
        self.updateGeometry()

    def updateGeometry(self) -> None:
        if not self._in_place:
            super().updateGeometry()

    def sizeHint(self, which: Qt.SizeHint, constraint: QSizeF | None = None) -> QSizeF:
        return QSizeF(*self._hints.get(which, (0.0, 0.0)))


class HousePlot(pg.PlotItem):  # type: ignore[misc]  # pyqtgraph is untyped
    """A ``pg.PlotItem`` (same arguments) whose title is a :class:`FitTitle` and whose view box,
    unless one is given, a :class:`~posenc_gui.widgets.render.view_range.HouseViewBox`."""

    titleLabel: FitTitle
    #: The rectangle the plot's view last gave it (None: none yet).
    _given: QRectF | None = None

    def __init__(self, *args: Any, **kw: Any) -> None:
        if kw.get("viewBox") is None:
            kw["viewBox"] = HouseViewBox(enableMenu=kw.get("enableMenu", True))
        super().__init__(*args, **kw)
        # pyqtgraph builds its own label in the title cell; the house title takes its place
        plain = self.titleLabel
        self.layout.removeItem(plain)
        plain.setParentItem(None)
        self.titleLabel = FitTitle("", size="11pt", parent=self)
        self.layout.addItem(self.titleLabel, 0, 1)

    def setGeometry(self, rect: QRectF) -> None:
        self._given = QRectF(rect)
        super().setGeometry(rect)

    def title_height_changed(self, height: float) -> None:
        """Give the title row ``height``, and the plot again the rectangle its view gave it: a
        taller title (wrapped while the plot was narrow) raised the plot's minimum size, and
        Qt kept the plot that tall."""
        self.layout.setRowFixedHeight(0, height)
        given = self._given
        if given is not None and given != self.geometry():
            self.setGeometry(given)

    def retitle(self, title: str, **args: Any) -> None:
        """:meth:`setTitle`, set in place on a title already laid out (module docstring)."""
        if self.titleLabel.laid_out():
            self.titleLabel.set_text_in_place(title, **args)
        else:
            self.setTitle(title, **args)
