"""What every controller of the window shares: its parts, status messages, file dialogs, actions.

- :class:`WindowParts`: the tab widget, the session, the panels built so far and the
  :class:`Messages` of one window, handed to each controller when it is built.
- :class:`Messages`: notices in the status bar, remembered per tab for :data:`MESSAGE_MS`, and
  the non-blocking message box of the last failure.
- :func:`ask_save_path` / :func:`start_dir`: the save dialog of every export and session file,
  starting in the folder used last.
- :func:`add_action`: a menu entry with its name, shortcuts, tip and slot.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QEvent, QObject, QSettings, QStandardPaths, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QFileDialog,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QStatusBar,
    QTabWidget,
    QTextEdit,
    QWidget,
)

from posenc_gui.state.registry import TABS
from posenc_gui.state.session import Session

if TYPE_CHECKING:
    from posenc_gui.panels.base import Panel

#: How long a status message stays (ms).
MESSAGE_MS = 8000
#: QSettings key of the folder the last file dialog ended in.
LAST_DIR_KEY = "last_dir"

#: Modifiers of a plain key press (the keypad's arrows count as plain).
PLAIN_MODIFIERS = (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier)


class AppKeyWatcher(QObject):
    """A controller of one window that watches the application's key presses (an event filter
    on the application, so the keys reach it wherever the focus is) while it has something to
    step through: :meth:`watch_app_keys` installs and removes the filter once each."""

    def __init__(self, parent: QObject | None) -> None:
        super().__init__(parent)
        self._filtering = False

    def watch_app_keys(self, on: bool) -> None:
        """Filter the application's events (``on``) or stop."""
        app = QApplication.instance()
        if app is None or on == self._filtering:
            return
        if on:
            app.installEventFilter(self)
        else:
            app.removeEventFilter(self)
        self._filtering = on

    @staticmethod
    def plain_key(watched: QObject, event: QEvent, window: QObject | None) -> Qt.Key | None:
        """The key of ``event`` when it is a key press without modifiers aimed at a widget of
        ``window`` (None otherwise)."""
        if event.type() != QEvent.Type.KeyPress:
            return None
        assert isinstance(event, QKeyEvent)
        if event.modifiers() not in PLAIN_MODIFIERS:
            return None
        if not isinstance(watched, QWidget) or watched.window() is not window:
            return None
        return Qt.Key(event.key())


#: Focused widgets that keep the arrow keys for themselves: while a deck is open (its steps) or
#: while presenting (its figures), → / ← go to them, not to the next step or figure.
ARROW_CONSUMERS: tuple[type[QWidget], ...] = (
    QAbstractSlider,
    QAbstractSpinBox,
    QLineEdit,
    QComboBox,
    QTextEdit,
    QPlainTextEdit,
    QAbstractItemView,
)


def reason(err: BaseException) -> str:
    """What went wrong, in words (an OS error's text without its number)."""
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    return str(err)


def config_dir() -> Path:
    """Where the application keeps its files: next to an INI settings file, else the platform's
    application config folder (``QStandardPaths.AppConfigLocation``)."""
    settings = QSettings()
    if settings.format() == QSettings.Format.IniFormat:
        return Path(settings.fileName()).parent
    return Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppConfigLocation))


def start_dir() -> str:
    """The folder of the last file dialog (the documents folder the first time)."""
    saved = str(QSettings().value(LAST_DIR_KEY, "", type=str))
    if saved and Path(saved).is_dir():
        return saved
    docs = QStandardPaths.StandardLocation.DocumentsLocation
    return QStandardPaths.writableLocation(docs) or str(Path.home())


def remember_dir(path: str | Path) -> None:
    """The next file dialog starts in the folder of ``path``."""
    QSettings().setValue(LAST_DIR_KEY, str(Path(path).parent))


def ask_open_path(parent: QWidget | None, title: str, filters: str) -> Path | None:
    """An open dialog in the folder of the last one (remembered for the next)."""
    path, _ = QFileDialog.getOpenFileName(parent, title, start_dir(), filters)
    if not path:
        return None
    remember_dir(path)
    return Path(path)


def ask_save_path(
    parent: QWidget | None, title: str, name: str, filters: str, suffix: str
) -> Path | None:
    """A save dialog (it asks before replacing a file, the suffix added first)."""
    dialog = QFileDialog(parent, title, str(Path(start_dir()) / name), filters)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setFileMode(QFileDialog.FileMode.AnyFile)
    dialog.setDefaultSuffix(suffix)
    if not dialog.exec() or not dialog.selectedFiles():
        return None
    path = Path(dialog.selectedFiles()[0])
    remember_dir(path)
    return path


def add_action(
    owner: QObject,
    menu: QMenu,
    text: str,
    name: str,
    shortcuts: list[str] | None,
    slot: Callable[..., object],
    *,
    tip: str = "",
    checkable: bool = False,
) -> QAction:
    """A menu entry owned by ``owner``; ``slot`` gets ``triggered`` (``toggled`` when checkable).

    ``slot`` should be a bound method of a QObject: Qt then drops the connection with it.
    """
    action = QAction(text, owner)
    action.setObjectName(name)
    if shortcuts:
        action.setShortcuts([QKeySequence(s) for s in shortcuts])
    action.setCheckable(checkable)
    if tip:
        action.setStatusTip(tip)
        action.setToolTip(tip)
    (action.toggled if checkable else action.triggered).connect(slot)
    menu.addAction(action)
    return action


class Messages(QObject):
    """The status-bar notices of one window, each remembered for its tab, and its error box."""

    def __init__(self, status_bar: QStatusBar, tabs: QTabWidget, parent: QWidget) -> None:
        super().__init__(parent)
        self.status_bar = status_bar
        self._tabs = tabs
        #: tab id -> (text, monotonic time it expires)
        self._kept: dict[str, tuple[str, float]] = {}
        #: tab id -> the last notice its panel gave (a refused value), while it may show
        self._from_panel: dict[str, str] = {}
        self._box: QMessageBox | None = None

    def _current_tab(self) -> str:
        return TABS[self._tabs.currentIndex()].id

    def show(self, text: str, tab_id: str | None = None) -> None:
        """Show a notice (e.g. rejected input) in the status bar, remembered for its tab."""
        tab = tab_id or self._current_tab()
        self._kept[tab] = (text, time.monotonic() + MESSAGE_MS / 1000)
        if tab == self._current_tab():
            self.status_bar.showMessage(text, MESSAGE_MS)

    def flash(self, text: str, ms: int) -> None:
        """A passing note for ``ms`` milliseconds (not remembered for the tab)."""
        self.status_bar.showMessage(text, ms)

    def show_for_tab(self, tab_id: str) -> None:
        """The tab came on screen: show its notice while it lasts, else nothing."""
        text, until = self._kept.get(tab_id, ("", 0.0))
        left = until - time.monotonic()
        if text and left > 0:
            self.status_bar.showMessage(text, max(1, round(left * 1000)))
        else:
            self._kept.pop(tab_id, None)
            self.status_bar.clearMessage()

    def from_panel(self, text: str) -> None:
        """A panel's ``message`` signal: the notice belongs to that panel's tab; ``""`` (a
        control accepted a value) withdraws the panel's last notice, and only that one."""
        panel = self.sender()
        model = getattr(panel, "model", None)
        tab = getattr(model, "id", None) or self._current_tab()
        if text:
            self._from_panel[tab] = text
            self.show(text, tab)
            return
        stale = self._from_panel.pop(tab, None)
        if stale is None:
            return
        if self._kept.get(tab, ("",))[0] == stale:
            self._kept.pop(tab)
        if tab == self._current_tab() and self.status_bar.currentMessage() == stale:
            self.status_bar.clearMessage()

    @property
    def error_box(self) -> QMessageBox | None:
        """The message box of the last refused or failed action while it is open."""
        if self._box is not None and not shiboken6.isValid(self._box):
            self._box = None
        return self._box

    def error(self, title: str, text: str, detail: str = "") -> None:
        """A failure: in the status bar and in a (non-blocking) message box."""
        self.show(text if not detail else f"{text} {detail}")
        parent = self.parent()
        box = QMessageBox(
            QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok,
            parent if isinstance(parent, QWidget) else None,
        )  # fmt: skip
        if detail:
            box.setInformativeText(detail)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.finished.connect(self._box_finished)
        self._box = box
        box.open()

    def _box_finished(self, _result: int) -> None:
        if self.sender() is self._box:
            self._box = None


@dataclass(frozen=True)
class WindowParts:
    """What the controllers of one window work on (never the window itself)."""

    tabs: QTabWidget
    session: Session
    #: The panels built so far, by tab id (the window's dict: it fills as tabs are shown).
    panels: Mapping[str, Panel]
    messages: Messages

    def current_tab_id(self) -> str:
        """Id of the tab on screen."""
        return TABS[self.tabs.currentIndex()].id

    def current_panel(self) -> Panel | None:
        """The panel on screen (``None`` while the backend loads)."""
        return self.panels.get(self.current_tab_id())

    def dialog_parent(self) -> QWidget:
        """The window, as the parent of dialogs."""
        return self.tabs.window()
