"""The main window: menus, status bar, and one tab per registry entry, built on first show.

The window paints at once with a "loading" page; :meth:`MainWindow.load_panels` then imports
torch (~2 s) and builds the panel of the current tab. Every other panel is built the first time
its tab is shown. Panels mirror the states of the application's :class:`Session`; the window
holds no parameter of its own.

Lecture workflow:

- **Sessions** (File ▸ Open / Open recent / Save). Opening a file validates all of it first
  (:meth:`Session.load`); only then are the window's own :class:`ParamState` objects updated in
  place (panels hold references to them), with the tab, theme, scale and view states. A file
  that cannot be used is refused with a message and changes nothing. On close the session is
  written to :func:`last_session_path`; ``posenc-gui`` restores it on the next start.
- **Presentation** (View ▸ Presentation, F5): everything at :data:`PRESENTATION_SCALE`, the
  controls column hidden; Esc leaves it (and full screen, F11). Zoom (Ctrl++ / Ctrl+- / Ctrl+0)
  changes the scale of plots, formulas and the application font in steps of :data:`ZOOM_STEP`.
  Theme: System (follows the platform's colour scheme, light when it has none), Light, Dark.
- **Export** (File menu): the figure as PNG at a chosen width or SVG, the data as CSV or
  ``.npz``, the figure to the clipboard (:mod:`posenc_gui.widgets.export`).
- **Animation** (View ▸ Play/Pause, Space; ``[`` / ``]`` speed; File ▸ Export animation as GIF… /
  PNG sequence…): the current tab's animated parameter (:mod:`posenc_gui.widgets.animation`).
"""

from __future__ import annotations

import html
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, QStandardPaths, Qt, QTimer
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QGuiApplication,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressDialog,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from posenc_gui import APP_NAME, __version__
from posenc_gui.deck_controller import DeckController
from posenc_gui.qt import import_pyqtgraph, pyside_source_scan_off
from posenc_gui.state import ParamError, Value
from posenc_gui.state.registry import TAB_IDS, TABS, entry
from posenc_gui.state.session import Session, SessionError
from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets.animation import (
    AnimationBar,
    AnimationExportDialog,
    AnimationSettings,
    Animator,
    ExportCancelledError,
    Progress,
    SpaceGuard,
)

if TYPE_CHECKING:
    from posenc_gui.panels.base import Panel
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
#: First-start size, shrunk to fit the screen the window opens on.
DEFAULT_SIZE = (1500, 950)
#: Load the panels after this long even if the loading page was never painted (ms).
LOAD_FALLBACK_MS = 1500
#: How long a status message stays (ms).
MESSAGE_MS = 8000
#: Scale of presentation mode (F5).
PRESENTATION_SCALE = 1.6
#: One zoom step (Ctrl++ / Ctrl+-) multiplies or divides the scale by this.
ZOOM_STEP = 1.15
#: Open recent keeps this many sessions.
MAX_RECENT = 8
#: QSettings keys.
RECENT_KEY = "recent_sessions"
FOLLOW_SYSTEM_KEY = "follow_system_theme"
EXPORT_WIDTH_KEY = "export_width"
LAST_DIR_KEY = "last_dir"
ANIMATION_FRAMES_KEY = "animation_frames"
ANIMATION_WIDTH_KEY = "animation_width"
#: File name of the session written on close and restored on start.
LAST_SESSION_NAME = "last-session.json"
SESSION_FILTER = "PosEnc Explorer sessions (*.json);;All files (*)"
ThemeMode = str  # "system", "light" or "dark"
THEME_MODES = ("system", "light", "dark")


def tab_shortcut(index: int) -> QKeySequence:
    """``Ctrl+1`` … ``Ctrl+9`` for the first nine tabs, ``Alt+1`` … ``Alt+9`` for the next nine."""
    if index < 9:
        return QKeySequence(f"Ctrl+{index + 1}")
    if index < 18:
        return QKeySequence(f"Alt+{index - 8}")
    return QKeySequence()


def qbytes(value: object) -> QByteArray:
    """A QSettings value as QByteArray (empty when missing or of another type)."""
    return value if isinstance(value, QByteArray) else QByteArray()


def config_dir() -> Path:
    """Where the application keeps its files: next to an INI settings file, else the platform's
    application config folder (``QStandardPaths.AppConfigLocation``)."""
    settings = QSettings()
    if settings.format() == QSettings.Format.IniFormat:
        return Path(settings.fileName()).parent
    return Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppConfigLocation))


def last_session_path() -> Path:
    """The session written on close and restored on the next start."""
    return config_dir() / LAST_SESSION_NAME


def load_last_session() -> tuple[Session | None, str]:
    """The session of the last run, or ``None`` with a notice saying why it was not restored."""
    path = last_session_path()
    if not path.exists():
        return None, ""
    try:
        return Session.load(path), ""
    except (SessionError, OSError) as err:
        reason = err if isinstance(err, SessionError) else (err.strerror or err)
        return None, f"The last session was not restored ({reason}); starting from the defaults."


def system_theme() -> str:
    """The platform's colour scheme as ``"light"``/``"dark"`` (light when it is unknown)."""
    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)  # Qt 6.5+
    if scheme is not None and scheme() == Qt.ColorScheme.Dark:
        return "dark"
    return "light"


def read_recent() -> list[str]:
    """The recent session files, newest first (strings only, at most :data:`MAX_RECENT`)."""
    raw = QSettings().value(RECENT_KEY, [], type=list)
    items = raw if isinstance(raw, list) else []
    return [str(x) for x in items if isinstance(x, str) and x][:MAX_RECENT]


def write_recent(paths: list[str]) -> None:
    """Store the recent session files (newest first)."""
    QSettings().setValue(RECENT_KEY, paths[:MAX_RECENT])


def _reason(err: BaseException) -> str:
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    return str(err)


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
        self.setWindowTitle(APP_NAME)
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
        self._messages: dict[str, str] = {}
        self._was_maximized = False
        self._loaded = False
        self._notice = notice
        #: While presenting: the scale and controls visibility to go back to.
        self._presentation: tuple[float, bool] | None = None
        self._follow_system = bool(QSettings().value(FOLLOW_SYSTEM_KEY, False, type=bool))
        #: The message box of the last refused or failed action (for tests and screen readers).
        self.error_box: QMessageBox | None = None
        #: View ▸ Show the code and Help ▸ About this view (built on first use).
        self.code_window: CodeWindow | None = None
        self.about_view: AboutView | None = None

        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("tabs")
        self.tabs.setDocumentMode(True)
        self.tabs.setAccessibleName("Explorer tabs")
        for e in TABS:
            model = e.model()
            page = QWidget(self.tabs)
            page.setObjectName(f"page_{e.id}")
            QVBoxLayout(page).setContentsMargins(0, 0, 0, 0)
            self._pages[e.id] = page
            index = self.tabs.addTab(page, model.title)
            self.tabs.setTabToolTip(index, model.summary)
        self.tabs.setCurrentIndex(self._index(session.current_tab))
        self.tabs.currentChanged.connect(self._on_tab_changed)

        self.loading = QLabel("Loading the torch backend…", self)
        self.loading.setObjectName("loading_label")
        self.loading.installEventFilter(self)
        #: Set when the loading page has been painted (the first frame a user sees).
        self.loading_painted = False
        #: Whether the loading page had been painted when the panels started to load.
        self.painted_before_load = False
        self._load_requested = False
        self.loading.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.loading)
        self.stack.addWidget(self.tabs)
        #: Lesson decks: the caption banner above the tabs, File menu entries, step keys.
        self.deck = DeckController(self)
        self.setCentralWidget(self.deck.wrap(self.stack))
        self.statusBar().showMessage(notice or "Starting…", MESSAGE_MS if notice else 0)
        #: Play/Pause (Space) of the current tab's animated parameter; its bar in the status bar
        #: (kept in presentation mode). Space stays with text fields and buttons that have focus.
        self.animator = Animator(self)
        self.animator.message.connect(lambda text: self.show_message(text))
        self.animation_bar = AnimationBar(self.animator, self)
        self.statusBar().addPermanentWidget(self.animation_bar)
        self._space_guard = SpaceGuard(self)
        #: The progress dialog of a running animation export (None otherwise).
        self.export_progress: QProgressDialog | None = None
        self._build_menus()
        hub = style_mod.hub()
        hub.changed.connect(self._apply_window_style)
        # (PySide drops this connection and the one below when the window is destroyed)
        # the session's look (or the platform's theme when following it)
        theme = system_theme() if self._follow_system else session.theme
        self.set_style(theme=theme, scale=session.scale, colormaps=session.colormaps)
        self._apply_window_style(hub.style)
        self._sync_theme_actions()
        hints = QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(self._on_system_scheme_changed)
        self._restore_geometry()

    def _index(self, tab_id: str) -> int:
        return TAB_IDS.index(tab_id)

    # -- menus ----------------------------------------------------------------------------------
    def _action(
        self,
        menu: QMenu,
        text: str,
        name: str,
        shortcuts: list[str] | QKeySequence.StandardKey | None,
        slot: Callable[..., object],
        *,
        tip: str = "",
        checkable: bool = False,
    ) -> QAction:
        action = QAction(text, self)
        action.setObjectName(name)
        if isinstance(shortcuts, QKeySequence.StandardKey):
            action.setShortcuts(shortcuts)
        elif shortcuts:
            action.setShortcuts([QKeySequence(s) for s in shortcuts])
        action.setCheckable(checkable)
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(tip)
        (action.toggled if checkable else action.triggered).connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = self.file_menu = bar.addMenu("&File")
        self.open_action = self._action(
            file_menu, "&Open session…", "open_session_action", ["Ctrl+O"],
            lambda: self.open_session_dialog(),
            tip="Open a saved session: every tab's parameters, the zoom, theme and scale",
        )  # fmt: skip
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.setObjectName("recent_menu")
        self.recent_menu.aboutToShow.connect(self._prune_recent)
        self.save_action = self._action(
            file_menu, "&Save session…", "save_session_action", ["Ctrl+S"],
            lambda: self.save_session_dialog(),
            tip="Save every tab's parameters, the zoom, theme and scale to a file",
        )  # fmt: skip
        file_menu.addSeparator()
        self.deck.build_menu(file_menu)
        file_menu.addSeparator()
        self.export_action = self._action(
            file_menu, "&Export figure as PNG…", "export_png_action", ["Ctrl+E"],
            lambda: self.export_png_dialog(),
            tip="Save the tab's plots as a PNG picture of a chosen width (for slides)",
        )  # fmt: skip
        self.export_svg_action = self._action(
            file_menu, "Export figure as SV&G…", "export_svg_action", ["Ctrl+Shift+E"],
            lambda: self.export_svg_dialog(), tip="Save the tab's plots as an SVG drawing",
        )  # fmt: skip
        self.export_csv_action = self._action(
            file_menu, "Export &data as CSV…", "export_csv_action", ["Ctrl+D"],
            lambda: self.export_csv_dialog(),
            tip="Save every array the tab shows as CSV (one section per view)",
        )  # fmt: skip
        self.export_npz_action = self._action(
            file_menu, "Export data as NumP&y (.npz)…", "export_npz_action", ["Ctrl+Shift+D"],
            lambda: self.export_npz_dialog(),
            tip="Save every array the tab shows in a NumPy .npz archive",
        )  # fmt: skip
        self.export_npy_action = self._action(
            file_menu, "E&xport data as .npy files…", "export_npy_action", None,
            lambda: self.export_npy_dialog(),
            tip="Save every array the tab shows as its own .npy file, in a new folder",
        )  # fmt: skip
        self.copy_action = self._action(
            file_menu, "&Copy figure", "copy_figure_action", ["Ctrl+Shift+C"],
            lambda: self.copy_figure(),
            tip="Copy the tab's plots to the clipboard as a picture",
        )  # fmt: skip
        self._tab_actions = [
            self.export_action, self.export_svg_action, self.export_csv_action,
            self.export_npz_action, self.export_npy_action, self.copy_action,
        ]  # fmt: skip
        self.export_gif_action = self._action(
            file_menu, "Export animation as GI&F…", "export_gif_action", None,
            lambda: self.export_animation_dialog("gif"),
            tip="Save one loop of the tab's animation as a looping GIF",
        )  # fmt: skip
        self.export_frames_action = self._action(
            file_menu, "Export animation as PNG seq&uence…", "export_frames_action", None,
            lambda: self.export_animation_dialog("png"),
            tip="Save one loop of the tab's animation as a folder of numbered PNG pictures",
        )  # fmt: skip
        self._tab_actions += [self.export_gif_action, self.export_frames_action]
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setObjectName("quit_action")
        # The platform's Quit key can be a bare "Exit" key (offscreen, some X desktops): Ctrl+Q
        # is what users type everywhere.
        quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)

        view_menu = self.view_menu = bar.addMenu("&View")
        self.reset_action = self._action(
            view_menu, "&Reset tab parameters", "reset_action", ["Ctrl+R"],
            lambda: self.reset_current(),
        )  # fmt: skip
        self.controls_action = self._action(
            view_menu, "Show &controls", "controls_action", ["Ctrl+Shift+H"],
            self._set_controls_visible, checkable=True,
        )  # fmt: skip
        self.controls_action.setChecked(True)
        self.code_action = self._action(
            view_menu, "Show the co&de", "show_code_action", ["Ctrl+Shift+K"],
            lambda: self.show_code(),
            tip="A short PyTorch snippet that recomputes what the tab shows (copy or save it)",
        )  # fmt: skip
        view_menu.addSeparator()
        self.zoom_in_action = self._action(
            view_menu, "Zoom &in", "zoom_in_action", ["Ctrl++", "Ctrl+="],
            lambda: self.zoom(+1), tip="Larger plots, text and controls",
        )  # fmt: skip
        self.zoom_out_action = self._action(
            view_menu, "Zoom &out", "zoom_out_action", ["Ctrl+-"],
            lambda: self.zoom(-1), tip="Smaller plots, text and controls",
        )  # fmt: skip
        self.zoom_reset_action = self._action(
            view_menu, "Reset &zoom", "zoom_reset_action", ["Ctrl+0"],
            lambda: self.zoom(0), tip="Everything at its normal size",
        )  # fmt: skip
        theme_menu = view_menu.addMenu("&Theme")
        theme_menu.setObjectName("theme_menu")
        self.theme_group = QActionGroup(self)
        self.theme_group.setExclusive(True)
        self.theme_actions: dict[str, QAction] = {}
        for mode, text in (("system", "&System"), ("light", "&Light"), ("dark", "&Dark")):
            a = QAction(text, self)
            a.setObjectName(f"theme_{mode}_action")
            a.setCheckable(True)
            a.triggered.connect(lambda _=False, m=mode: self.set_theme_mode(m))
            self.theme_group.addAction(a)
            theme_menu.addAction(a)
            self.theme_actions[mode] = a
        self.theme_actions["system"].setStatusTip(
            "Follow the system's light or dark setting (light when the system has none)"
        )
        theme_menu.addSeparator()
        self.toggle_theme_action = self._action(
            theme_menu, "S&witch light/dark", "toggle_theme_action", ["Ctrl+Shift+T"],
            lambda: self.set_theme_mode("light" if self.session.theme == "dark" else "dark"),
        )  # fmt: skip
        maps_menu = view_menu.addMenu("Colour &maps")
        maps_menu.setObjectName("colormaps_menu")
        self.colormap_group = QActionGroup(self)
        self.colormap_group.setExclusive(True)
        self.colormap_actions: dict[str, QAction] = {}
        for key, (label, maps) in style_mod.COLORMAP_SETS.items():
            a = QAction(label, self)
            a.setObjectName(f"colormaps_{key}_action")
            a.setCheckable(True)
            a.setStatusTip("Heatmaps: " + ", ".join(f"{m} ({k})" for k, m in maps.items()))
            a.triggered.connect(lambda _=False, k=key: self.set_style(colormaps=k))
            self.colormap_group.addAction(a)
            maps_menu.addAction(a)
            self.colormap_actions[key] = a
        self.colormap_actions[style_mod.hub().style.colormaps].setChecked(True)
        view_menu.addSeparator()
        self.presentation_action = self._action(
            view_menu, "&Presentation", "presentation_action", ["F5"], self.set_presentation,
            checkable=True, tip="Everything larger, controls hidden (Esc leaves)",
        )  # fmt: skip
        # No platform binding for FullScreen on a bare X server: F11 explicitly.
        self.full_screen_action = self._action(
            view_menu, "&Full screen", "full_screen_action", ["F11"], self._set_full_screen,
            checkable=True,
        )  # fmt: skip
        platform = QKeySequence.keyBindings(QKeySequence.StandardKey.FullScreen)
        self.full_screen_action.setShortcuts(
            [QKeySequence("F11"), *(k for k in platform if k.toString() != "F11")]
        )
        self.leave_action = self._action(
            view_menu, "&Leave presentation and full screen", "leave_action", ["Esc"],
            lambda: self.leave_presentation(),
        )  # fmt: skip
        self.leave_action.setEnabled(False)
        view_menu.addSeparator()
        self.play_action = self._action(
            view_menu, "Play/Pause &animation", "play_action", ["Space"],
            self.animator.set_playing, checkable=True,
            tip="Sweep the tab's main parameter, looping; pausing leaves it where it is",
        )  # fmt: skip
        self.animator.playing_changed.connect(self._sync_play_action)
        self.faster_action = self._action(
            view_menu, "Animation fa&ster", "faster_action", ["]"], lambda: self.animator.faster(),
        )  # fmt: skip
        self.slower_action = self._action(
            view_menu, "Animation slo&wer", "slower_action", ["["], lambda: self.animator.slower(),
        )  # fmt: skip
        view_menu.addSeparator()
        self.tab_menu = view_menu.addMenu("&Go to tab")
        for index, e in enumerate(TABS):
            action = QAction(e.title, self)
            action.setObjectName(f"goto_{e.id}")
            action.setShortcut(tab_shortcut(index))
            action.triggered.connect(lambda _=False, i=index: self.tabs.setCurrentIndex(i))
            self.tab_menu.addAction(action)

        help_menu = bar.addMenu("&Help")
        self._action(
            help_menu, "&Keyboard shortcuts", "shortcuts_action", ["F1"],
            lambda: self.show_shortcuts(),
        )  # fmt: skip
        self.view_about_action = self._action(
            help_menu, "About this &view", "view_about_action", ["Shift+F1"],
            lambda: self.show_view_about(),
            tip="What the tab shows, its formulas and the papers they come from",
        )  # fmt: skip
        about = QAction(f"&About {APP_NAME}", self)
        about.setObjectName("about_action")
        about.triggered.connect(self.show_about)
        help_menu.addAction(about)
        for a in (self.reset_action, *self._tab_actions):
            a.setEnabled(False)
        self._rebuild_recent()

    def _set_full_screen(self, on: bool) -> None:
        if on == self.isFullScreen():
            self._sync_leave()
            return
        if on:
            self._was_maximized = self.isMaximized()
            self.showFullScreen()
        elif self._was_maximized:
            self.showMaximized()
        else:
            self.showNormal()
        self._sync_leave()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.WindowStateChange:
            # full screen left by the window manager: keep the menu honest
            full = self.isFullScreen()
            if self.full_screen_action.isChecked() != full and not full:
                self.full_screen_action.blockSignals(True)
                self.full_screen_action.setChecked(False)
                self.full_screen_action.blockSignals(False)
            self._sync_leave()
        super().changeEvent(event)

    def _sync_leave(self) -> None:
        self.leave_action.setEnabled(
            self._presentation is not None or self.full_screen_action.isChecked()
        )

    def _set_controls_visible(self, visible: bool) -> None:
        for panel in self.panels.values():
            panel.set_controls_visible(visible)

    # -- style: zoom, presentation, theme -------------------------------------------------------
    def set_style(
        self,
        *,
        theme: str | None = None,
        scale: float | None = None,
        colormaps: str | None = None,
    ) -> None:
        """Change the application's theme, scale and/or colour-map set (kept in the session)."""
        hub = style_mod.hub()
        new = hub.style.replace(
            theme=theme if theme is not None else hub.style.theme,
            scale=scale if scale is not None else hub.style.scale,
            colormaps=colormaps if colormaps is not None else hub.style.colormaps,
        )
        self.session.theme, self.session.scale = new.theme, new.scale
        self.session.colormaps = new.colormaps
        hub.set_style(new)
        if hasattr(self, "colormap_actions"):
            self.colormap_actions[new.colormaps].setChecked(True)

    def _apply_window_style(self, st: style_mod.Style) -> None:
        """The window's own text (tab titles, loading page) follows the scale too."""
        bar = self.tabs.tabBar()
        font = bar.font()
        font.setPointSizeF(st.pt("body") + st.scale)
        bar.setFont(font)
        lf = self.loading.font()
        lf.setPointSizeF(st.pt("body") + 6 * st.scale)
        self.loading.setFont(lf)

    def zoom(self, direction: int) -> None:
        """One step larger (``+1``), smaller (``-1``), or back to normal (``0``)."""
        current = style_mod.hub().style.scale
        if direction == 0:
            new = 1.0
        else:
            new = current * ZOOM_STEP if direction > 0 else current / ZOOM_STEP
            if abs(new - 1.0) < 0.03:  # steps pass through 100 % exactly
                new = 1.0
            new = round(min(max(new, style_mod.MIN_SCALE), style_mod.MAX_SCALE), 4)
        if new == current and direction != 0:
            limit = "largest" if direction > 0 else "smallest"
            self.show_message(f"Zoom is at its {limit} ({current:.0%})")
            return
        self.set_style(scale=new)
        self.statusBar().showMessage(f"Zoom {new:.0%}", 2000)

    def presenting(self) -> bool:
        """Whether presentation mode is on."""
        return self._presentation is not None

    def set_presentation(self, on: bool) -> None:
        """Presentation mode: scale :data:`PRESENTATION_SCALE`, controls hidden; off restores."""
        if on and self._presentation is None:
            self._presentation = (style_mod.hub().style.scale, self.controls_action.isChecked())
            self.controls_action.setChecked(False)
            self.set_style(scale=PRESENTATION_SCALE)
            self.statusBar().showMessage("Presentation mode: Esc or F5 leaves it", 4000)
        elif not on and self._presentation is not None:
            scale, controls = self._presentation
            self._presentation = None
            self.set_style(scale=scale)
            self.controls_action.setChecked(controls)
        if self.presentation_action.isChecked() != on:
            self.presentation_action.blockSignals(True)
            self.presentation_action.setChecked(on)
            self.presentation_action.blockSignals(False)
        self._sync_leave()

    def leave_presentation(self) -> None:
        """Esc: leave presentation mode and full screen."""
        self.set_presentation(False)
        if self.full_screen_action.isChecked():
            self.full_screen_action.setChecked(False)
        self._sync_leave()

    def theme_mode(self) -> ThemeMode:
        """``"system"``, ``"light"`` or ``"dark"``: what View ▸ Theme shows."""
        return "system" if self._follow_system else self.session.theme

    def set_theme_mode(self, mode: ThemeMode) -> None:
        """Follow the system's colour scheme (``"system"``) or use ``"light"``/``"dark"``."""
        if mode not in THEME_MODES:
            raise ValueError(f"theme must be one of {', '.join(THEME_MODES)}, got {mode!r}")
        self._follow_system = mode == "system"
        QSettings().setValue(FOLLOW_SYSTEM_KEY, self._follow_system)
        self.set_style(theme=system_theme() if self._follow_system else mode)
        self._sync_theme_actions()

    def _on_system_scheme_changed(self, *_: object) -> None:
        if self._follow_system:
            self.set_style(theme=system_theme())

    def _sync_theme_actions(self) -> None:
        self.theme_actions[self.theme_mode()].setChecked(True)

    # -- help -----------------------------------------------------------------------------------
    def show_about(self) -> None:
        """Help ▸ About: version and the papers behind the maths."""
        QMessageBox.about(self, f"About {APP_NAME}", ABOUT_HTML)

    def show_code(self) -> CodeWindow:
        """View ▸ Show the code: the current tab's snippet, following the tab and its values."""
        from posenc_gui.widgets.code_view import CodeWindow

        if self.code_window is None:
            window = self.code_window = CodeWindow(self.session, self.current_tab_id(), self)
            self.tabs.currentChanged.connect(lambda i: window.set_tab(TABS[i].id))
        self.code_window.set_tab(self.current_tab_id())
        self.code_window.show()
        self.code_window.raise_()
        self.code_window.activateWindow()
        return self.code_window

    def show_view_about(self) -> AboutView:
        """Help ▸ About this view: what the current tab shows, its formulas and papers."""
        from posenc_gui.widgets.code_view import AboutView

        if self.about_view is None:
            view = self.about_view = AboutView(self.current_tab_id(), self)
            self.tabs.currentChanged.connect(lambda i: view.set_tab(TABS[i].id))
        self.about_view.set_tab(self.current_tab_id())
        self.about_view.show()
        self.about_view.raise_()
        self.about_view.activateWindow()
        return self.about_view

    def shortcut_table(self) -> list[tuple[str, str, str]]:
        """``(menu, action, shortcuts)`` of every menu action that has a shortcut."""
        rows: list[tuple[str, str, str]] = []
        # Sub-menus are found through their menu actions, not ``QAction.menu()``: with PySide6
        # that call hands the C++ menu to a Python wrapper that deletes it when collected.
        submenus = {m.menuAction(): m for m in self.findChildren(QMenu)}

        def walk(menu: QMenu, path: str) -> None:
            for a in menu.actions():
                sub = submenus.get(a)
                if sub is not None:
                    walk(sub, f"{path} ▸ {a.text().replace('&', '')}")
                elif a.shortcuts():
                    keys = ", ".join(
                        k.toString(QKeySequence.SequenceFormat.NativeText) for k in a.shortcuts()
                    )
                    rows.append((path, a.text().replace("&", "").rstrip("…"), keys))

        for top in self.menuBar().actions():
            sub = submenus.get(top)
            if sub is not None:
                walk(sub, top.text().replace("&", ""))
        return rows

    def show_shortcuts(self) -> None:
        """Help ▸ Keyboard shortcuts: every menu action with its keys."""
        body = "".join(
            f"<tr><td>{html.escape(m)}</td><td>{html.escape(a)}</td>"
            f"<td><b>{html.escape(k)}</b></td></tr>"
            for m, a, k in self.shortcut_table()
        )
        box = QMessageBox(self)
        box.setWindowTitle("Keyboard shortcuts")
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(
            "<table cellspacing='6'>" + body + "</table><p>Every control is reachable with Tab; "
            "sliders move with the arrow keys and Page Up/Down.</p>"
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    # -- panels ---------------------------------------------------------------------------------
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
            import_pyqtgraph()  # without building every Qt class
            import torch

            import posenc_gui.panels  # noqa: F401

        # Two cores: OpenMP threads would spin against the paint thread; small tensors are
        # faster single-threaded anyway.
        torch.set_num_threads(1)
        self._loaded = True
        self.animator.set_target(self._ensure_panel(self.current_tab_id()))
        self.stack.setCurrentWidget(self.tabs)
        for a in (self.reset_action, *self._tab_actions):
            a.setEnabled(True)
        if self._notice:
            self.show_message(self._notice)
        else:
            self.statusBar().showMessage("Ready", 3000)

    def _ensure_panel(self, tab_id: str) -> Panel:
        if tab_id in self.panels:
            return self.panels[tab_id]
        from posenc_gui.panels import get_panel

        cls = get_panel(tab_id)
        page = self._pages[tab_id]
        panel = cls(self.session.state(tab_id), page)
        panel.restore_view_state(self.session.view_states.get(tab_id, {}))
        panel.set_controls_visible(self.controls_action.isChecked())
        panel.message.connect(lambda text, t=tab_id: self.show_message(text, t))
        layout = page.layout()
        assert layout is not None
        layout.addWidget(panel)
        self.panels[tab_id] = panel
        return panel

    def _on_tab_changed(self, index: int) -> None:
        tab_id = TABS[index].id
        self.session.current_tab = tab_id
        if self._loaded:
            self._ensure_panel(tab_id)
        self.animator.set_target(self.panels.get(tab_id))  # (stops a running animation)
        # status messages belong to the tab they were about
        text = self._messages.get(tab_id, "")
        if text:
            self.statusBar().showMessage(text, MESSAGE_MS)
        else:
            self.statusBar().clearMessage()

    def current_tab_id(self) -> str:
        """Id of the tab on screen."""
        return TABS[self.tabs.currentIndex()].id

    def current_panel(self) -> Panel | None:
        """The panel on screen (``None`` while the backend loads)."""
        return self.panels.get(self.current_tab_id()) if self._loaded else None

    def show_message(self, text: str, tab_id: str | None = None) -> None:
        """Show a notice (e.g. rejected input) in the status bar, remembered for its tab."""
        tab = tab_id or self.current_tab_id()
        self._messages[tab] = text
        QTimer.singleShot(MESSAGE_MS, lambda: self._forget(tab, text))
        if tab == self.current_tab_id():
            self.statusBar().showMessage(text, MESSAGE_MS)

    def _forget(self, tab: str, text: str) -> None:
        if self._messages.get(tab) == text:
            del self._messages[tab]

    def _error(self, title: str, text: str, detail: str = "") -> None:
        """A failure: in the status bar and in a (non-blocking) message box."""
        self.show_message(text if not detail else f"{text} {detail}")
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok,
                          self)  # fmt: skip
        if detail:
            box.setInformativeText(detail)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.destroyed.connect(lambda *_: setattr(self, "error_box", None))
        self.error_box = box
        box.open()

    def reset_current(self) -> None:
        """Every parameter of the current tab back to its default."""
        tab_id = self.current_tab_id()
        self.session.state(tab_id).reset()
        self.show_message(f"{entry(tab_id).title}: parameters reset")

    # -- sessions -------------------------------------------------------------------------------
    def _collect_view_states(self) -> None:
        for tab_id, panel in self.panels.items():
            self.session.view_states[tab_id] = panel.view_state()

    def snapshot(self) -> Session:
        """A copy of the session as it would be saved now (view states collected, the scale
        from before presentation mode)."""
        self._collect_view_states()
        copy = Session.from_dict(self.session.to_dict())
        if self._presentation is not None:
            copy.scale = self._presentation[0]
        return copy

    def save_session(self, path: str | Path) -> bool:
        """Write the session to ``path`` (atomically); a failure is reported, never raised."""
        target = Path(path)
        try:
            self.snapshot().save(target)
        except OSError as err:
            self._error("Session not saved", f"Could not save the session to {target}.",
                        _reason(err))  # fmt: skip
            return False
        self._remember(target)
        self.show_message(f"Saved session to {target}")
        return True

    def open_session(self, path: str | Path) -> bool:
        """Open a session file: validate all of it, then apply it; refused → nothing changes."""
        target = Path(path)
        try:
            loaded = Session.load(target)
            resolved = {
                t: loaded.state(t).model.resolve(loaded.state(t).values(),
                                                 self.session.state(t).values())
                for t in TAB_IDS
            }  # fmt: skip
        except (SessionError, ParamError, OSError) as err:
            if isinstance(err, FileNotFoundError):
                self._forget_recent(str(target))
            self._error(
                "Session not opened",
                f"“{target.name}” was not opened: {_reason(err)}.",
                "Nothing was changed.",
            )
            return False
        self.apply_session(loaded, resolved)
        self._remember(target)
        self.show_message(f"Opened session {target}")
        return True

    def apply_session(
        self, loaded: Session, resolved: Mapping[str, Mapping[str, Value]] | None = None
    ) -> None:
        """Make the window show ``loaded`` (already validated), updating its states in place."""
        self.animator.pause()
        for tab_id in TAB_IDS:
            values = resolved[tab_id] if resolved is not None else loaded.state(tab_id).values()
            self.session.state(tab_id).update(values)
        self.session.view_states = {t: dict(v) for t, v in loaded.view_states.items()}
        for tab_id, panel in self.panels.items():
            panel.restore_view_state(self.session.view_states.get(tab_id, {}))
        self._follow_system = False
        QSettings().setValue(FOLLOW_SYSTEM_KEY, False)
        if self._presentation is not None:  # keep presenting; leaving goes to the file's scale
            self._presentation = (loaded.scale, self._presentation[1])
            self.set_style(theme=loaded.theme, colormaps=loaded.colormaps)
        else:
            self.set_style(theme=loaded.theme, scale=loaded.scale, colormaps=loaded.colormaps)
        self._sync_theme_actions()
        self.tabs.setCurrentIndex(self._index(loaded.current_tab))

    def _start_dir(self) -> str:
        saved = str(QSettings().value(LAST_DIR_KEY, "", type=str))
        if saved and Path(saved).is_dir():
            return saved
        docs = QStandardPaths.StandardLocation.DocumentsLocation
        return QStandardPaths.writableLocation(docs) or str(Path.home())

    def _ask_save_path(self, title: str, name: str, filters: str, suffix: str) -> Path | None:
        """A save dialog (it asks before replacing a file, the suffix added first)."""
        dialog = QFileDialog(self, title, str(Path(self._start_dir()) / name), filters)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setFileMode(QFileDialog.FileMode.AnyFile)
        dialog.setDefaultSuffix(suffix)
        if not dialog.exec() or not dialog.selectedFiles():
            return None
        path = Path(dialog.selectedFiles()[0])
        QSettings().setValue(LAST_DIR_KEY, str(path.parent))
        return path

    def save_session_dialog(self) -> None:
        """File ▸ Save session…"""
        path = self._ask_save_path(
            "Save session", f"{self.current_tab_id()}-session.json", SESSION_FILTER, "json"
        )
        if path is not None:
            self.save_session(path)

    def open_session_dialog(self) -> None:
        """File ▸ Open session…"""
        path, _ = QFileDialog.getOpenFileName(self, "Open session", self._start_dir(),
                                              SESSION_FILTER)  # fmt: skip
        if path:
            QSettings().setValue(LAST_DIR_KEY, str(Path(path).parent))
            self.open_session(path)

    # -- recent sessions ------------------------------------------------------------------------
    def _remember(self, path: Path) -> None:
        text = str(path.resolve())
        write_recent([text, *(p for p in read_recent() if p != text)])
        self._rebuild_recent()

    def _forget_recent(self, path: str) -> None:
        text = str(Path(path).resolve())
        write_recent([p for p in read_recent() if p not in (path, text)])
        self._rebuild_recent()

    def _prune_recent(self) -> None:
        """Drop files that no longer exist (with a message), then rebuild the menu."""
        kept: list[str] = []
        gone: list[str] = []
        for p in read_recent():
            (kept if Path(p).is_file() else gone).append(p)
        if gone:
            write_recent(kept)
            names = ", ".join(Path(p).name for p in gone)
            self.show_message(f"Removed from Open recent (no longer there): {names}")
        self._rebuild_recent()

    def _rebuild_recent(self) -> None:
        menu = self.recent_menu
        menu.clear()
        recent = read_recent()
        for k, p in enumerate(recent):
            a = QAction(f"&{k + 1} {Path(p).name}", menu)
            a.setObjectName(f"recent_{k + 1}")
            a.setStatusTip(p)
            a.setToolTip(p)
            a.triggered.connect(lambda _=False, path=p: self.open_recent(path))
            menu.addAction(a)
        if not recent:
            empty = menu.addAction("No recent sessions")
            empty.setEnabled(False)
        menu.addSeparator()
        clear = menu.addAction("&Clear list")
        clear.setObjectName("clear_recent")
        clear.setEnabled(bool(recent))
        clear.triggered.connect(self.clear_recent)

    def recent_sessions(self) -> list[str]:
        """The paths of File ▸ Open recent, newest first."""
        return read_recent()

    def open_recent(self, path: str) -> bool:
        """Open a recent session; a file that is gone is removed from the list."""
        if not Path(path).is_file():
            self._forget_recent(path)
            self._error(
                "Session not opened",
                f"“{Path(path).name}” no longer exists; it was removed from Open recent.",
                path,
            )
            return False
        return self.open_session(path)

    def clear_recent(self) -> None:
        """File ▸ Open recent ▸ Clear list."""
        write_recent([])
        self._rebuild_recent()
        self.show_message("Open recent cleared")

    # -- export ---------------------------------------------------------------------------------
    def _export_panel(self) -> Panel:
        panel = self.current_panel()
        if panel is None:
            raise RuntimeError("the tab is still loading")
        return panel

    def export_width(self) -> int:
        """The PNG width last chosen (also used for Copy figure)."""
        from posenc_gui.widgets import export

        raw = QSettings().value(EXPORT_WIDTH_KEY, export.DEFAULT_PNG_WIDTH, type=int)
        w = raw if isinstance(raw, int) else export.DEFAULT_PNG_WIDTH
        return min(max(w, export.MIN_PNG_WIDTH), export.MAX_PNG_WIDTH)

    def export_png(self, path: str | Path, width: int | None = None, *,
                   overwrite: bool = False) -> Path:  # fmt: skip
        """Save the tab's figure as PNG, ``width`` pixels wide (:class:`FileExistsError`...)."""
        from posenc_gui.widgets import export

        panel = self._export_panel()
        return export.write_png(export.figure_widget(panel), path, width or self.export_width(),
                                overwrite=overwrite)  # fmt: skip

    def export_svg(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Save the tab's figure as SVG."""
        from posenc_gui.widgets import export

        panel = self._export_panel()
        title = f"{APP_NAME}: {panel.model.title}"
        return export.write_svg(export.figure_widget(panel), path, title=title,
                                overwrite=overwrite)  # fmt: skip

    def export_csv(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Save every array the tab shows as CSV (one section per view)."""
        from posenc_gui.widgets import export

        panel = self._export_panel()
        return export.write_csv(panel.data(), path, overwrite=overwrite, **self._meta(panel))

    def export_npz(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Save every array the tab shows in a ``.npz`` archive (keys ``view/name``)."""
        from posenc_gui.widgets import export

        panel = self._export_panel()
        return export.write_npz(panel.data(), path, overwrite=overwrite, **self._meta(panel))

    def export_npy(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Save every array the tab shows as ``.npy`` files in a new folder (``view__name.npy``
        and ``meta.json``)."""
        from posenc_gui.widgets import export

        panel = self._export_panel()
        return export.write_npy_folder(panel.data(), path, overwrite=overwrite, **self._meta(panel))

    def _meta(self, panel: Panel) -> dict[str, Any]:
        return {"tab": panel.model.id, "title": panel.model.title,
                "params": panel.state.values()}  # fmt: skip

    def copy_figure(self) -> bool:
        """Copy the tab's figure to the clipboard (at the PNG export width)."""
        from posenc_gui.widgets import export

        panel = self.current_panel()
        if panel is None:
            return False
        image = export.copy_image(export.figure_widget(panel), self.export_width())
        self.show_message(f"Figure copied to the clipboard ({image.width()} × {image.height()})")
        return True

    def _run_export(self, what: str, path: Path, fn: Callable[[], Path]) -> None:
        try:
            fn()
        except (OSError, RuntimeError, ValueError) as err:
            self._error("Export failed", f"Could not save the {what} to {path}.", _reason(err))
            return
        self.show_message(f"Saved {path}")

    def export_png_dialog(self) -> None:
        """File ▸ Export figure as PNG…: a width, then a file."""
        from posenc_gui.widgets import export

        panel = self.current_panel()
        if panel is None:
            return
        fig = export.figure_widget(panel)
        width, ok = QInputDialog.getInt(
            self, "Export figure as PNG",
            f"Picture width in pixels (1920 for a full-HD slide; the height follows the "
            f"figure's shape, {fig.width()} × {fig.height()} on screen):",
            self.export_width(), export.MIN_PNG_WIDTH, export.MAX_PNG_WIDTH, 16,
        )  # fmt: skip
        if not ok:
            return
        QSettings().setValue(EXPORT_WIDTH_KEY, width)
        path = self._ask_save_path("Export figure as PNG", f"{panel.model.id}.png",
                                   "PNG images (*.png)", "png")  # fmt: skip
        if path is not None:
            self._run_export("picture", path, lambda: self.export_png(path, width, overwrite=True))

    def export_svg_dialog(self) -> None:
        """File ▸ Export figure as SVG…"""
        panel = self.current_panel()
        if panel is None:
            return
        path = self._ask_save_path("Export figure as SVG", f"{panel.model.id}.svg",
                                   "SVG drawings (*.svg)", "svg")  # fmt: skip
        if path is not None:
            self._run_export("drawing", path, lambda: self.export_svg(path, overwrite=True))

    def export_csv_dialog(self) -> None:
        """File ▸ Export data as CSV…"""
        panel = self.current_panel()
        if panel is None:
            return
        path = self._ask_save_path("Export data as CSV", f"{panel.model.id}.csv",
                                   "CSV files (*.csv)", "csv")  # fmt: skip
        if path is not None:
            self._run_export("data", path, lambda: self.export_csv(path, overwrite=True))

    def export_npz_dialog(self) -> None:
        """File ▸ Export data as NumPy (.npz)…"""
        panel = self.current_panel()
        if panel is None:
            return
        path = self._ask_save_path("Export data as NumPy archive", f"{panel.model.id}.npz",
                                   "NumPy archives (*.npz)", "npz")  # fmt: skip
        if path is not None:
            self._run_export("data", path, lambda: self.export_npz(path, overwrite=True))

    def export_npy_dialog(self) -> None:
        """File ▸ Export data as .npy files…: a new folder with one ``.npy`` per array."""
        panel = self.current_panel()
        if panel is None:
            return
        path = self._ask_save_path("Export data as .npy files (a new folder)",
                                   f"{panel.model.id}_data", "Folders (*)", "")  # fmt: skip
        if path is None:
            return
        overwrite = False
        if path.exists():
            answer = QMessageBox.question(
                self, "Replace folder?",
                f"“{path.name}” exists already. Replace it (only when it holds nothing but an "
                "earlier .npy export)?",
            )  # fmt: skip
            if answer != QMessageBox.StandardButton.Yes:
                return
            overwrite = True
        self._run_export("data", path, lambda: self.export_npy(path, overwrite=overwrite))

    def export_current(self) -> None:
        """Save the current tab as a PNG picture (File ▸ Export figure as PNG…)."""
        self.export_png_dialog()

    # -- animation ------------------------------------------------------------------------------
    def _sync_play_action(self, playing: bool) -> None:
        self.play_action.blockSignals(True)
        self.play_action.setChecked(playing)
        self.play_action.blockSignals(False)

    def export_animation(
        self, kind: str, path: str | Path, settings: AnimationSettings | None = None, *,
        overwrite: bool = False, progress: Progress | None = None,
    ) -> Path:  # fmt: skip
        """One loop of the tab's animation as a GIF (``kind="gif"``) or a folder of PNGs
        (``"png"``), written atomically; the tab's values are as before afterwards, also when
        ``progress`` cancels (:class:`ExportCancelledError`) or writing fails."""
        from posenc_gui.widgets import animation, export

        panel = self._export_panel()
        self.animator.pause()
        chosen = settings or AnimationSettings(loop_seconds=self.animator.loop_seconds())
        fig = export.figure_widget(panel)
        if kind == "gif":
            return animation.export_gif(panel, fig, path, chosen, overwrite=overwrite,
                                        progress=progress)  # fmt: skip
        if kind == "png":
            return animation.export_png_sequence(panel, fig, path, chosen, overwrite=overwrite,
                                                 progress=progress)  # fmt: skip
        raise ValueError(f"kind must be 'gif' or 'png', got {kind!r}")

    def _animation_settings(self) -> AnimationSettings:
        from posenc_gui.widgets import animation, export

        s = QSettings()
        frames = s.value(ANIMATION_FRAMES_KEY, animation.DEFAULT_FRAMES, type=int)
        width = s.value(ANIMATION_WIDTH_KEY, animation.DEFAULT_EXPORT_WIDTH, type=int)
        frames = frames if isinstance(frames, int) else animation.DEFAULT_FRAMES
        width = width if isinstance(width, int) else animation.DEFAULT_EXPORT_WIDTH
        return AnimationSettings(
            min(max(frames, animation.MIN_FRAMES), animation.MAX_FRAMES),
            min(max(width, export.MIN_PNG_WIDTH), export.MAX_PNG_WIDTH),
            self.animator.loop_seconds(),
        )

    def export_animation_dialog(self, kind: str) -> None:
        """File ▸ Export animation as GIF… / as PNG sequence…: frames and width, a file or a
        folder, then a progress dialog that can cancel."""
        from posenc_gui.state.animation import Sweep

        panel = self.current_panel()
        if panel is None:
            return
        self.animator.pause()
        gif = kind == "gif"
        title = "Export animation as GIF" if gif else "Export animation as PNG sequence"
        model = panel.state.model
        values = model.resolve(dict(model.animation_setup), panel.state.values())
        what = Sweep.of(model, values).describe()
        dialog = AnimationExportDialog(title, what, self._animation_settings(), gif=gif,
                                       parent=self)  # fmt: skip
        if not dialog.exec():
            return
        chosen = dialog.settings()
        QSettings().setValue(ANIMATION_FRAMES_KEY, chosen.frames)
        QSettings().setValue(ANIMATION_WIDTH_KEY, chosen.width)
        if gif:
            path = self._ask_save_path(title, f"{model.id}.gif", "GIF animations (*.gif)", "gif")
        else:
            path = self._ask_save_path(title, f"{model.id}-frames", "Folders of frames (*)", "")
        if path is None:
            return
        overwrite = gif  # the file dialog asked before replacing a file
        if not gif and path.exists():
            answer = QMessageBox.question(
                self, title,
                f"“{path.name}” exists already. Replace the frames in it? (A folder that holds "
                "anything else is never replaced.)",
            )  # fmt: skip
            if answer != QMessageBox.StandardButton.Yes:
                return
            overwrite = True
        self.run_animation_export(kind, path, chosen, overwrite=overwrite)

    def run_animation_export(
        self, kind: str, path: Path, settings: AnimationSettings, *, overwrite: bool = False
    ) -> Path | None:
        """:meth:`export_animation` behind a window-modal progress dialog with Cancel;
        failures and cancelling are reported, never raised."""
        dialog = QProgressDialog("Rendering…", "Cancel", 0, 1, self)
        dialog.setObjectName("animation_progress")
        dialog.setWindowTitle("Exporting animation")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(0)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        self.export_progress = dialog

        def progress(done: int, total: int, text: str) -> bool:
            dialog.setMaximum(total)
            dialog.setLabelText(text)
            dialog.setValue(done)
            return not dialog.wasCanceled()

        try:
            out = self.export_animation(kind, path, settings, overwrite=overwrite,
                                        progress=progress)  # fmt: skip
        except ExportCancelledError:
            self.show_message("Animation export cancelled: nothing was written")
            return None
        except (OSError, RuntimeError, ValueError) as err:
            self._error("Export failed", f"Could not save the animation to {path}.",
                        _reason(err))  # fmt: skip
            return None
        finally:
            self.export_progress = None
            dialog.close()
            dialog.deleteLater()
        self.show_message(f"Saved {out} ({settings.frames} frames)")
        return out

    # -- geometry -------------------------------------------------------------------------------
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

    def closeEvent(self, event: QCloseEvent) -> None:
        self.animator.pause()
        settings = QSettings()
        if not self.isFullScreen():
            settings.setValue("geometry", self.saveGeometry())
        settings.setValue("last_tab", self.current_tab_id())
        try:
            path = last_session_path()
            path.parent.mkdir(parents=True, exist_ok=True)
            self.snapshot().save(path)
        except OSError as err:  # the window is closing: nowhere else to say it
            print(f"{APP_NAME}: the session was not kept: {_reason(err)}", file=sys.stderr)
        super().closeEvent(event)
