"""The caption banner of a lesson deck: one line or two of large text above the tabs.

Colours and sizes come from the current :class:`~posenc_gui.widgets.style.Style`: the text is
the theme's window text on its alternate background, with an accent bar on the left, at the
``title`` font size times the scale (so presentation mode makes it larger with everything
else). It restyles itself when the theme or scale changes.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from posenc_gui.widgets import style as style_mod

#: Left accent bar and padding, in pixels at scale 1.
BAR_PX = 6.0
PAD_PX = 8.0


class DeckBanner(QLabel):
    """The caption of the current step (hidden when there is nothing to show)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("deck_banner")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.setAccessibleName("Step caption")
        self.hide()
        hub = style_mod.hub()
        hub.changed.connect(self.apply_style)
        self.apply_style(hub.style)

    def apply_style(self, st: style_mod.Style) -> None:
        """Font, colours and padding of ``st``."""
        self.setFont(st.font("title", bold=True))
        pal = st.palette()
        fg = pal.color(QPalette.ColorRole.WindowText).name()
        bg = pal.color(QPalette.ColorRole.AlternateBase).name()
        bar = st.color("accent")[:7]
        pad = round(PAD_PX * st.scale)
        self.setStyleSheet(
            f"QLabel#deck_banner {{ color: {fg}; background: {bg}; "
            f"border-left: {round(BAR_PX * st.scale)}px solid {bar}; "
            f"padding: {pad}px {2 * pad}px {pad}px {2 * pad}px; }}"
        )

    def show_caption(self, text: str) -> None:
        """Show ``text`` (hide the banner when it is empty)."""
        self.setText(text)
        self.setToolTip(text)
        self.setVisible(bool(text))
