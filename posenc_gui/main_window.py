"""The main window: one tab per registry entry, built on first show, and the controllers.

The window paints at once with a "loading" page; :meth:`MainWindow.load_panels` then imports
torch (~2 s) and builds the panel of the current tab. Every other panel is built the first time
its tab is shown. Panels mirror the states of the application's :class:`Session`; the window
holds no parameter of its own.

Everything else is a controller of :mod:`posenc_gui.controllers`, held by the window and given
the tab widget, the session, the panels and the status messages (never the window):

- :attr:`~MainWindow.sessions` — File ▸ Open / Open recent / Save, the last session;
- :attr:`~MainWindow.deck` — lesson decks, their banner, step keys and status;
- :attr:`~MainWindow.exports` — the figure and its data to files or the clipboard;
- :attr:`~MainWindow.animation` — Play/Pause (Space), speed, animation export;
- :attr:`~MainWindow.presentation` — zoom, theme, colour maps, presentation, full screen;
- :attr:`~MainWindow.help` — About, About this view, Keyboard shortcuts, Show the code.
"""

from __future__ import annotations

import html
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from posenc_gui import APP_NAME
from posenc_gui.controllers.animation import AnimationController
from posenc_gui.controllers.common import MESSAGE_MS, Messages, WindowParts, add_action, reason
from posenc_gui.controllers.decks import DeckController
from posenc_gui.controllers.export import ExportController
from posenc_gui.controllers.figures import FigureController
from posenc_gui.controllers.help import HelpController
from posenc_gui.controllers.menus import TabMenu
from posenc_gui.controllers.model_config import ModelConfigController
from posenc_gui.controllers.presentation import (
    FOLLOW_SYSTEM_KEY,
    PRESENTATION_SCALE,
    ZOOM_STEP,
    PresentationController,
    system_theme,
)
from posenc_gui.controllers.sessions import SessionController
from posenc_gui.qt import pyside_source_scan_off
from posenc_gui.state import Value
from posenc_gui.state.registry import TAB_IDS, TABS, entry
from posenc_gui.state.session import Session
from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets.tab_bar import FittingTabWidget

if TYPE_CHECKING:
    from posenc_gui.panels.base import Panel
    from posenc_gui.widgets.code_view import AboutView, CodeWindow

# The look's names, also known here (they live with the presentation controller).
__all__ = ["FOLLOW_SYSTEM_KEY", "PRESENTATION_SCALE", "ZOOM_STEP", "MainWindow", "system_theme"]

#: First-start size, shrunk to fit the screen the window opens on.
DEFAULT_SIZE = (1500, 950)
#: Load the panels after this long even if the loading page was never painted (ms).
LOAD_FALLBACK_MS = 1500


def qbytes(value: object) -> QByteArray:
    """A QSettings value as QByteArray (empty when missing or of another type)."""
    return value if isinstance(value, QByteArray) else QByteArray()


class MainWindow(QMainWindow):
    """Top-level window. ``panels`` maps tab id to panel for the tabs built so far."""

    def __init__(
        self,
        initial_tab: str | None = None,
        initial_values: Mapping[str, Value] | None = None,
        parent: QWidget | None = None,
        *,
        session: Session | None = None,
        notice: str = "",
    ) -> None:
        super().__init__(parent)
        self.setObjectName("main_window")
        if session is None:
            settings_tab = str(QSettings().value("last_tab", "", type=str))
            tab = initial_tab or settings_tab
            session = Session(tab if tab in TAB_IDS else TAB_IDS[0])
        if initial_tab is not None:
            session.current_tab = initial_tab
            if initial_values:
                session.state(initial_tab).update(initial_values)
        self.session = session
        self.panels: dict[str, Panel] = {}
        self._pages: dict[str, QWidget] = {}
        self._loaded = False
        self._notice = notice
        self._styled = False
        self._build_tabs()
        self.loading = QLabel("Loading the torch backend…", self)
        self.loading.setObjectName("loading_label")
        self.loading.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.loading.installEventFilter(self)
        #: Set when the loading page has been painted (the first frame a user sees).
        self.loading_painted = False
        #: Whether the loading page had been painted when the panels started to load.
        self.painted_before_load = False
        self._load_requested = False
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.loading)
        self.stack.addWidget(self.tabs)

        self.messages = Messages(self.statusBar(), self.tabs, self)
        parts = WindowParts(self.tabs, session, self.panels, self.messages)
        self.presentation = PresentationController(session, self.panels, self.messages, self)
        self.animation = AnimationController(parts)
        self.animator = self.animation.animator
        self.sessions = SessionController(parts, self.presentation, self.animator)
        self.model_configs = ModelConfigController(parts)
        self.exports = ExportController(parts)
        self.help = HelpController(parts, self.menuBar())
        #: Lesson decks: the caption banner above the tabs, File menu entries, step keys.
        self.deck = DeckController(parts, self.animator, self.statusBar())
        self.setCentralWidget(self.deck.wrap(self.stack))
        self.presentation.attach(parts, self.deck)  # F5 follows the tab; a deck's keys win
        self.statusBar().showMessage(notice or "Starting…", MESSAGE_MS if notice else 0)
        self.animation_bar = self.animation.bar
        self.statusBar().addPermanentWidget(self.animation_bar)
        self._build_menus()
        self._follow_style(True)
        self.presentation.start()
        self._restore_geometry()

    def _build_tabs(self) -> None:
        # Short labels in a bar that never scrolls nor cuts a name (eight tabs fit 1024 px);
        # the full title is each tab's tooltip, accessible name and the window's title.
        self.tabs = FittingTabWidget(self)
        self.tabs.setObjectName("tabs")
        self.tabs.setDocumentMode(True)
        self.tabs.setAccessibleName("Explorer tabs")
        for e in TABS:
            model = e.model()
            page = QWidget(self.tabs)
            page.setObjectName(f"page_{e.id}")
            QVBoxLayout(page).setContentsMargins(0, 0, 0, 0)
            self._pages[e.id] = page
            index = self.tabs.addTab(page, model.short_title)
            tip = f"<b>{html.escape(model.title)}</b>"
            if model.summary:
                tip += f"<br>{html.escape(model.summary)}"
            self.tabs.setTabToolTip(index, tip)
            self.tabs.tabBar().setAccessibleTabName(index, model.title)
        self.tabs.setCurrentIndex(TAB_IDS.index(self.session.current_tab))
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self._show_title()

    def _show_title(self) -> None:
        """The window's title names the tab on screen in full (its tab shows the short label)."""
        self.setWindowTitle(f"{entry(self.current_tab_id()).title} — {APP_NAME}")

    def _build_menus(self) -> None:
        """The menus, in order; each controller adds its own entries."""
        bar = self.menuBar()
        self.file_menu = bar.addMenu("&File")
        self.sessions.build_menu(self.file_menu)
        self.recent_menu = self.sessions.recent_menu
        self.model_configs.build_menu(self.file_menu)
        self.file_menu.addSeparator()
        self.deck.build_menu(self.file_menu)
        self.file_menu.addSeparator()
        self.exports.build_menu(self.file_menu)
        self.animation.build_export_menu(self.file_menu)
        self.file_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setObjectName("quit_action")
        # The platform's Quit key can be a bare "Exit" key (offscreen, some X desktops): Ctrl+Q
        # is what users type everywhere.
        quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        quit_action.triggered.connect(self.close)
        self.file_menu.addAction(quit_action)

        self.view_menu = view = bar.addMenu("&View")
        self.reset_action = add_action(
            self, view, "&Reset tab parameters", "reset_action", ["Ctrl+R"], self.reset_current
        )
        self.controls_action = self.presentation.build_controls_action(view)
        self.help.build_code_action(view)
        view.addSeparator()
        p = self.presentation
        p.build_menu(view)
        self.theme_group, self.theme_actions = p.theme_group, p.theme_actions
        self.colormap_actions = p.colormap_actions
        self.zoom_in_action, self.presentation_action = p.zoom_in_action, p.presentation_action
        self.full_screen_action, self.leave_action = p.full_screen_action, p.leave_action
        self.figures = FigureController(
            WindowParts(self.tabs, self.session, self.panels, self.messages)
        )
        self.figures.build_menu(view)
        view.addSeparator()
        self.animation.build_menu(view)
        self.play_action = self.animation.play_action
        view.addSeparator()
        self.tab_menu = view.addMenu("&Go to tab")
        TabMenu(self.tab_menu, self.tabs)
        self.help.build_menu(bar.addMenu("&Help"))
        self.export_action, self.copy_action = self.exports.png_action, self.exports.copy_action
        self.export_npy_action = self.exports.npy_action
        self._set_tab_actions_enabled(False)

    def _tab_actions(self) -> list[QAction]:
        """The actions that need the tab's panel (disabled while the backend loads)."""
        return [self.reset_action, *self.exports.actions, *self.animation.export_actions]

    def _set_tab_actions_enabled(self, on: bool) -> None:
        for a in self._tab_actions():
            a.setEnabled(on)

    def _follow_style(self, on: bool) -> None:
        """Follow the application's style (from construction until close)."""
        hub = style_mod.hub()
        if on and not self._styled:
            hub.changed.connect(self._apply_window_style)
            self._apply_window_style(hub.style)
        elif not on and self._styled:
            hub.changed.disconnect(self._apply_window_style)
        self._styled = on

    def _apply_window_style(self, st: style_mod.Style) -> None:
        """The window's own text (tab titles, loading page) follows the scale too."""
        self.tabs.bar.set_point_size(st.pt("body") + st.scale)
        lf = self.loading.font()
        lf.setPointSizeF(st.pt("body") + 6 * st.scale)
        self.loading.setFont(lf)

    # -- loading and panels ---------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        painted = watched is self.loading and event.type() == QEvent.Type.Paint
        if painted and not self.loading_painted:
            self.loading_painted = True
            if self._load_requested:
                # after this paint is flushed to the screen, not before
                QTimer.singleShot(0, self.load_panels)
        return super().eventFilter(watched, event)

    def load_panels_later(self) -> None:
        """Build the current tab once the loading page is on screen.

        Importing torch blocks the event loop for ~2 s: if it started before the window was
        exposed (an X server maps a window a little after ``show()``), the user would stare at
        a black window. So loading waits for the loading page's first paint; a fallback timer
        covers a window that is never exposed (minimised, off screen).
        """
        self._load_requested = True
        if self.loading_painted:
            QTimer.singleShot(0, self.load_panels)
        else:
            QTimer.singleShot(LOAD_FALLBACK_MS, self.load_panels)

    def load_panels(self) -> None:
        """Import torch and build the current tab's panel; the others are built when shown."""
        if self._loaded:
            return
        self.painted_before_load = self.loading_painted
        with pyside_source_scan_off():
            # pyqtgraph and the panels use PySide, but none of them opts into PySide's
            # __feature__ switches: "no features", what the scan would find, holds for them.
            import pyqtgraph  # noqa: F401
            import torch

            import posenc_gui.panels  # noqa: F401

        # Two cores: OpenMP threads would spin against the paint thread; small tensors are
        # faster single-threaded anyway.
        torch.set_num_threads(1)
        self._loaded = True
        self.animation.set_target(self._ensure_panel(self.current_tab_id()))
        self.stack.setCurrentWidget(self.tabs)
        self._set_tab_actions_enabled(True)
        if self._notice:
            self.messages.show(self._notice)
        elif self.presenting():  # (``--present``: the keys of presentation mode, once loaded)
            self.presentation.announce()
        else:
            self.messages.flash("Ready", 3000)

    def _ensure_panel(self, tab_id: str) -> Panel:
        if tab_id in self.panels:
            return self.panels[tab_id]
        from posenc_gui.panels import get_panel

        cls = get_panel(tab_id)
        page = self._pages[tab_id]
        panel = cls(self.session.state(tab_id), page)
        panel.restore_view_state(self.session.view_states.get(tab_id, {}))
        panel.set_controls_visible(self.presentation.controls_visible())
        panel.message.connect(self.messages.from_panel)
        self.figures.watch(panel)
        layout = page.layout()
        assert layout is not None
        layout.addWidget(panel)
        self.panels[tab_id] = panel
        self.presentation.stage_current()  # (presenting: the new tab presents a figure too)
        return panel

    def _on_tab_changed(self, index: int) -> None:
        tab_id = TABS[index].id
        self.session.current_tab = tab_id
        self._show_title()
        if self._loaded:
            self._ensure_panel(tab_id)
        self.animation.set_target(self.panels.get(tab_id))  # (stops a running animation)
        self.messages.show_for_tab(tab_id)  # status messages belong to the tab they were about

    def current_tab_id(self) -> str:
        """Id of the tab on screen."""
        return TABS[self.tabs.currentIndex()].id

    def current_panel(self) -> Panel | None:
        """The panel on screen (``None`` while the backend loads)."""
        return self.panels.get(self.current_tab_id()) if self._loaded else None

    @property
    def error_box(self) -> QMessageBox | None:
        """The message box of the last refused or failed action (for tests and screen readers)."""
        return self.messages.error_box

    def reset_current(self) -> None:
        """Every parameter of the current tab back to its default."""
        tab_id = self.current_tab_id()
        self.session.state(tab_id).reset()
        self.messages.show(f"{entry(tab_id).title}: parameters reset")

    # -- what the command line, the start-up and other windows ask of the window ----------------
    def set_presentation(self, on: bool) -> None:
        """Presentation mode on or off (``posenc-gui --present``, F5)."""
        self.presentation.set_presentation(on)

    def presenting(self) -> bool:
        """Whether presentation mode is on."""
        return self.presentation.presenting()

    def zoom(self, direction: int) -> None:
        """One step larger (``+1``), smaller (``-1``), or back to normal (``0``)."""
        self.presentation.zoom(direction)

    def set_style(
        self, *, theme: str | None = None, scale: float | None = None, colormaps: str | None = None
    ) -> None:
        """Change the application's theme, scale and/or colour-map set (kept in the session)."""
        self.presentation.set_style(theme=theme, scale=scale, colormaps=colormaps)

    def theme_mode(self) -> str:
        """``"system"``, ``"light"`` or ``"dark"``: what View ▸ Theme shows."""
        return self.presentation.theme_mode()

    def set_theme_mode(self, mode: str) -> None:
        """Follow the system's colour scheme (``"system"``) or use ``"light"``/``"dark"``."""
        self.presentation.set_theme_mode(mode)

    def show_code(self) -> CodeWindow:
        """View ▸ Show the code."""
        return self.help.show_code()

    def show_view_about(self) -> AboutView:
        """Help ▸ About this view."""
        return self.help.show_view_about()

    @property
    def code_window(self) -> CodeWindow | None:
        """The window of View ▸ Show the code, once opened."""
        return self.help.code_window

    def shortcut_table(self) -> list[tuple[str, str, str]]:
        """``(menu, action, shortcuts)`` of every menu action that has a shortcut."""
        return self.help.shortcut_table()

    def show_shortcuts(self) -> None:
        """Help ▸ Keyboard shortcuts."""
        self.help.show_shortcuts()

    # -- window state ---------------------------------------------------------------------------
    def _restore_geometry(self) -> None:
        settings = QSettings()
        restored = self.restoreGeometry(qbytes(settings.value("geometry", type=bytes)))
        screen = self.screen() or QGuiApplication.primaryScreen()
        avail = screen.availableGeometry() if screen is not None else None
        if avail is None:
            if not restored:
                self.resize(*DEFAULT_SIZE)
            return
        if restored and avail.contains(self.frameGeometry()):
            return
        # first start, or saved on a bigger screen: fit the screen we open on
        w = min(DEFAULT_SIZE[0], int(avail.width() * 0.95))
        h = min(DEFAULT_SIZE[1], int(avail.height() * 0.92))
        self.resize(w, h)
        self.move(avail.x() + (avail.width() - w) // 2, avail.y() + (avail.height() - h) // 2)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.WindowStateChange:
            self.presentation.window_state_changed()
        super().changeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        self._follow_style(True)  # (again, after a close)
        self.deck.watch_keys(True)
        super().showEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.animator.pause()
        self.deck.watch_keys(False)
        self._follow_style(False)
        settings = QSettings()
        if not self.isFullScreen():
            settings.setValue("geometry", self.saveGeometry())
        settings.setValue("last_tab", self.current_tab_id())
        try:
            self.sessions.save_last()
        except OSError as err:  # the window is closing: nowhere else to say it
            print(f"{APP_NAME}: the session was not kept: {reason(err)}", file=sys.stderr)
        super().closeEvent(event)
