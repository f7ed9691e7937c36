"""A tab bar that shows every label whole: it never scrolls and never elides.

Qt's tab bar, when its labels are wider than the window, either hides tabs behind scroll
arrows or cuts names ("Sine expl…"). On a lecture projector (1024 px, presentation fonts)
neither is acceptable. :class:`FittingTabBar` keeps the font the style asks for when the labels
fit the width its tab widget gives it, and otherwise the largest size (in half-point steps, down to
:data:`MIN_TAB_PT`) at which they do. :class:`FittingTabWidget` tells the bar its width.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QTabBar, QTabWidget, QWidget

#: The smallest tab font (points) the bar shrinks to; below it, it keeps its width instead.
MIN_TAB_PT = 8.0
#: The step (points) by which the font shrinks while the labels do not fit.
STEP_PT = 0.5


class FittingTabBar(QTabBar):
    """Tabs that all show their whole label: no scroll buttons, no elision, font fitted."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tab_bar")
        self.setUsesScrollButtons(False)
        self.setElideMode(Qt.TextElideMode.ElideNone)
        self.setExpanding(False)
        self._wanted = self.font().pointSizeF()
        self._room = 0

    def set_point_size(self, pt: float) -> None:
        """Ask for ``pt`` points; the bar uses it, or the largest size that fits its room."""
        self._wanted = pt
        self._fit()

    def fit_to(self, width: int) -> None:
        """The width the bar has (its tab widget's); refit the font to it."""
        self._room = width
        self._fit()

    def labels_width(self) -> int:
        """The width every tab takes at the bar's current font."""
        return sum(self.tabSizeHint(i).width() for i in range(self.count()))

    def _fit(self) -> None:
        font = self.font()
        pt = self._wanted
        while True:
            if font.pointSizeF() != pt:
                font.setPointSizeF(pt)
                self.setFont(font)
            if self._room <= 0 or pt <= MIN_TAB_PT or self.labels_width() <= self._room:
                break
            pt = max(MIN_TAB_PT, pt - STEP_PT)

    def minimumSizeHint(self) -> QSize:
        # Without scroll buttons Qt's minimum is every tab at the current font, which would
        # stop the window from narrowing: the minimum is the labels at the smallest font.
        hint = super().minimumSizeHint()
        pt = self.font().pointSizeF()
        if pt > MIN_TAB_PT:
            hint.setWidth(int(hint.width() * MIN_TAB_PT / pt) + 1)
        return hint

    def tabInserted(self, index: int) -> None:
        super().tabInserted(index)
        self._fit()

    def tabRemoved(self, index: int) -> None:
        super().tabRemoved(index)
        self._fit()


class FittingTabWidget(QTabWidget):
    """A tab widget with a :class:`FittingTabBar` that it keeps fitted to its width."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bar = FittingTabBar(self)
        self.setTabBar(self.bar)

    def resizeEvent(self, event: QResizeEvent) -> None:
        self.bar.fit_to(event.size().width())
        super().resizeEvent(event)
