"""Help and the windows beside the main one: About, About this view, Keyboard shortcuts, and
View ▸ Show the code (the current tab's PyTorch snippet, following the tab and its values)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QMenuBar, QMessageBox

from posenc_gui import APP_NAME, __version__
from posenc_gui.controllers.common import WindowParts, add_action
from posenc_gui.controllers.menus import shortcut_table
from posenc_gui.state.registry import TABS

if TYPE_CHECKING:
    from posenc_gui.widgets.code_view import AboutView, CodeWindow

ABOUT_HTML = f"""
<h2>{APP_NAME} {__version__}</h2>
<p>Positional encodings in Transformers, made tangible: every plot is computed live by a torch
backend from the formulas of the papers below.</p>
<ul>
<li>Vaswani et al., <i>Attention Is All You Need</i>, NeurIPS 2017 (sinusoidal encoding).</li>
<li>Su et al., <i>RoFormer: Enhanced Transformer with Rotary Position Embedding</i>,
2021 (RoPE).</li>
</ul>
<p>Free software under the MIT licence. Fonts: DejaVu (Bitstream Vera licence).</p>
"""


class HelpController(QObject):
    """The Help menu and View ▸ Show the code; the code and about windows follow the tab."""

    def __init__(self, parts: WindowParts, menu_bar: QMenuBar) -> None:
        super().__init__(parts.dialog_parent())
        self._parts = parts
        self._bar = menu_bar
        #: View ▸ Show the code and Help ▸ About this view (built on first use).
        self.code_window: CodeWindow | None = None
        self.about_view: AboutView | None = None
        parts.tabs.currentChanged.connect(self._follow_tab)

    def build_code_action(self, menu: QMenu) -> QAction:
        """View ▸ Show the code."""
        self.code_action = add_action(
            self, menu, "Show the co&de", "show_code_action", ["Ctrl+Shift+K"], self.show_code,
            tip="A short PyTorch snippet that recomputes what the tab shows (copy or save it)",
        )  # fmt: skip
        return self.code_action

    def build_menu(self, menu: QMenu) -> None:
        """Help ▸ Keyboard shortcuts, About this view, About."""
        self.shortcuts_action = add_action(
            self, menu, "&Keyboard shortcuts", "shortcuts_action", ["F1"], self.show_shortcuts
        )
        self.view_about_action = add_action(
            self, menu, "About this &view", "view_about_action", ["Shift+F1"],
            self.show_view_about,
            tip="What the tab shows, its formulas and the papers they come from",
        )  # fmt: skip
        self.about_action = add_action(
            self, menu, f"&About {APP_NAME}", "about_action", None, self.show_about
        )

    def _follow_tab(self, index: int) -> None:
        tab_id = TABS[index].id
        for view in (self.code_window, self.about_view):
            if view is not None:
                view.set_tab(tab_id)

    def show_about(self) -> None:
        """Help ▸ About: version and the papers behind the maths."""
        QMessageBox.about(self._parts.dialog_parent(), f"About {APP_NAME}", ABOUT_HTML)

    def show_code(self) -> CodeWindow:
        """View ▸ Show the code: the current tab's snippet, following the tab and its values."""
        from posenc_gui.widgets.code_view import CodeWindow

        tab_id = self._parts.current_tab_id()
        if self.code_window is None:
            self.code_window = CodeWindow(self._parts.session, tab_id, self._parts.dialog_parent())
        self.code_window.set_tab(tab_id)
        self.code_window.show()
        self.code_window.raise_()
        self.code_window.activateWindow()
        return self.code_window

    def show_view_about(self) -> AboutView:
        """Help ▸ About this view: what the current tab shows, its formulas and papers."""
        from posenc_gui.widgets.code_view import AboutView

        tab_id = self._parts.current_tab_id()
        if self.about_view is None:
            self.about_view = AboutView(tab_id, self._parts.dialog_parent())
        self.about_view.set_tab(tab_id)
        self.about_view.show()
        self.about_view.raise_()
        self.about_view.activateWindow()
        return self.about_view

    def shortcut_table(self) -> list[tuple[str, str, str]]:
        """``(menu, action, shortcuts)`` of every menu action that has a shortcut."""
        return shortcut_table(self._bar)

    def show_shortcuts(self) -> None:
        """Help ▸ Keyboard shortcuts: every menu action with its keys."""
        body = "".join(
            f"<tr><td>{html.escape(m)}</td><td>{html.escape(a)}</td>"
            f"<td><b>{html.escape(k)}</b></td></tr>"
            for m, a, k in self.shortcut_table()
        )
        box = QMessageBox(self._parts.dialog_parent())
        box.setWindowTitle("Keyboard shortcuts")
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(
            "<table cellspacing='6'>" + body + "</table><p>Every control is reachable with Tab; "
            "sliders move with the arrow keys and Page Up/Down.</p>"
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
