"""View ▸ Enlarge figure: one figure of the tab fills its plot area, and back.

- **Enlarge figure** (Ctrl+Shift+F) enlarges the figure under the pointer, else the one with
  the keyboard focus, else the tab's first; pressed again it restores the plot area.
- **Next / Previous figure** (Ctrl+Shift+N / Ctrl+Shift+P) enlarge the figure after (before)
  the enlarged one, in the order of the tab's :attr:`TabModel.figures`: every figure is
  reachable from the keyboard.
- **Restore figures** puts the plot area back (enabled while a figure is enlarged). It has no
  key of its own: Esc already leaves presentation mode and full screen, and one key does one
  job; Ctrl+Shift+F restores.

A double-click on a figure enlarges or restores it too (the panel does that itself).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QMenu

from posenc_gui.controllers.common import WindowParts, add_action

if TYPE_CHECKING:
    from posenc_gui.panels.base import Panel


class FigureController(QObject):
    """The figure actions of one window."""

    def __init__(self, parts: WindowParts) -> None:
        super().__init__(parts.tabs)
        self._parts = parts
        parts.tabs.currentChanged.connect(self.sync)

    def build_menu(self, menu: QMenu) -> None:
        """Enlarge figure, Next figure, Previous figure, Restore figures."""
        self.enlarge_action = add_action(
            self, menu, "&Enlarge figure", "enlarge_figure_action", ["Ctrl+Shift+F"],
            self.toggle,
            tip="The figure under the pointer fills the tab; again (or a double-click) restores",
        )  # fmt: skip
        self.next_action = add_action(
            self, menu, "Ne&xt figure", "next_figure_action", ["Ctrl+Shift+N"],
            self.next_figure,
            tip="Enlarge the tab's next figure",
        )  # fmt: skip
        self.previous_action = add_action(
            self, menu, "Pre&vious figure", "previous_figure_action", ["Ctrl+Shift+P"],
            self.previous_figure, tip="Enlarge the tab's previous figure",
        )  # fmt: skip
        self.restore_action = add_action(
            self, menu, "Restore fig&ures", "restore_figures_action", None, self.restore,
            tip="Every figure of the tab back in its place",
        )  # fmt: skip
        self.sync()

    def watch(self, panel: Panel) -> None:
        """Follow ``panel``'s enlarged figure (a double-click changes it too)."""
        panel.figure_changed.connect(self.sync)

    def _panel(self) -> Panel | None:
        return self._parts.current_panel()

    def toggle(self) -> None:
        """Enlarge the figure under the pointer (or with focus, or the first); restore when
        one is enlarged."""
        panel = self._panel()
        if panel is None or not panel.figure_widgets:
            return
        if panel.enlarged_figure is not None:
            panel.enlarge_figure(None)
            return
        figure = (
            panel.figure_at(QCursor.pos())
            or panel.focused_figure()
            or next(iter(panel.figure_widgets))
        )
        panel.enlarge_figure(figure)

    def step(self, by: int) -> None:
        """Enlarge the figure ``by`` places after the enlarged one (the first, or the last,
        when none is), wrapping round (while presenting: the next stage, see
        :meth:`Panel.figure_step`)."""
        panel = self._panel()
        if panel is not None and (figure := panel.figure_step(by, wrap=True)) is not None:
            panel.enlarge_figure(figure)

    def next_figure(self) -> None:
        """View ▸ Next figure."""
        self.step(+1)

    def previous_figure(self) -> None:
        """View ▸ Previous figure."""
        self.step(-1)

    def restore(self) -> None:
        """View ▸ Restore figures: the tab's figures back in their places."""
        panel = self._panel()
        if panel is not None:
            panel.enlarge_figure(None)

    def sync(self, *_: object) -> None:
        """Restore figures is enabled while a figure of the tab is enlarged."""
        if not hasattr(self, "restore_action"):
            return
        panel = self._panel()
        enlarged = panel is not None and panel.enlarged_figure is not None
        self.restore_action.setEnabled(enlarged)
