"""The caption banner of a lesson deck (one line or two of large text above the tabs) and the
list of its steps (File ▸ Go to step…).

Colours and sizes come from the current :class:`~posenc_gui.widgets.style.Style`: the text is
the theme's window text on its alternate background, with an accent bar on the left, at the
``title`` font size times the scale (so presentation mode makes it larger with everything
else). It restyles itself when the theme or scale changes.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from posenc_gui.state.deck import Deck
from posenc_gui.state.registry import get_model
from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets.fmt import GROUP

#: Left accent bar and padding, in pixels at scale 1.
BAR_PX = 6.0
PAD_PX = 8.0


#: A space between digit groups ("60 611", "1 000 000"): after a digit, before exactly three.
_DIGIT_GROUP = re.compile(r"(?<=\d) (?=\d{3}(?!\d))")


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
        """Show ``text`` (hide the banner when it is empty). Digit groups ("60 611") are kept
        on one line: their spaces become the no-break space the app writes numbers with."""
        text = _DIGIT_GROUP.sub(GROUP, text)
        self.setText(text)
        self.setToolTip(text)
        self.setVisible(bool(text))


def step_entry(deck: Deck, index: int) -> str:
    """The list entry of step ``index`` (0-based): ``"3. caption"`` (the tab's title when the
    step has no caption)."""
    step = deck.steps[index]
    return f"{index + 1}. {step.caption or get_model(step.tab).title}"


class StepListDialog(QDialog):
    """The steps of a deck as a list, the current one selected; the deck title above it.

    Typing a step's number selects it (the list's keyboard search: every entry starts with its
    number and a dot), the arrows move, Enter or a double-click shows the selected step:
    :attr:`step_chosen` (0-based) is emitted and the dialog closes.
    """

    step_chosen = Signal(int)

    def __init__(self, deck: Deck, current: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._chosen = False
        self.setObjectName("step_list_dialog")
        self.setWindowTitle("Go to step")
        column = QVBoxLayout(self)
        self.title_label = QLabel(deck.title, self)
        self.title_label.setObjectName("step_list_title")
        self.title_label.setWordWrap(True)
        self.title_label.setTextFormat(Qt.TextFormat.PlainText)
        bold = self.title_label.font()
        bold.setBold(True)
        self.title_label.setFont(bold)
        column.addWidget(self.title_label)
        hint = QLabel("&Steps (type a number, Enter shows it):", self)
        column.addWidget(hint)
        self.steps = QListWidget(self)
        self.steps.setObjectName("step_list")
        self.steps.setAccessibleName("Steps of the deck")
        self.steps.setWordWrap(True)
        self.steps.setTextElideMode(Qt.TextElideMode.ElideNone)
        hint.setBuddy(self.steps)
        for k in range(len(deck)):
            item = QListWidgetItem(step_entry(deck, k), self.steps)
            item.setToolTip(item.text())
        self.steps.setCurrentRow(current)
        self.steps.itemActivated.connect(self._activated)
        column.addWidget(self.steps, 1)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Show step")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        column.addWidget(buttons)
        self.steps.setFocus()
        self.resize(640, 420)

    def chosen(self) -> int:
        """The selected step (0-based)."""
        return max(0, self.steps.currentRow())

    def accept(self) -> None:
        """Enter, double-click or "Show step": emit :attr:`step_chosen` and close."""
        if self._chosen:
            return  # (Enter activates the list and then presses the default button)
        self._chosen = True
        super().accept()
        if self.steps.currentRow() >= 0:
            self.step_chosen.emit(self.chosen())

    def _activated(self, _item: QListWidgetItem) -> None:
        self.accept()
