"""Sessions in the window: File ▸ Open / Open recent / Save, and the session of the last run.

Opening a file validates all of it first (:meth:`Session.load`, then every tab's values against
the window's); only then are the window's own :class:`ParamState` objects updated in place
(panels hold references to them), with the tab, theme, scale and view states. A file that
cannot be used is refused with a message and changes nothing. On close the session is written
to :func:`last_session_path`; ``posenc-gui`` restores it on the next start.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Mapping
from pathlib import Path

from PySide6.QtCore import QObject, QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from posenc_gui.controllers.common import (
    WindowParts,
    add_action,
    ask_open_path,
    ask_save_path,
    config_dir,
    reason,
)
from posenc_gui.controllers.presentation import PresentationController
from posenc_gui.state import ParamError, Value
from posenc_gui.state.registry import TAB_IDS
from posenc_gui.state.session import Session, SessionError
from posenc_gui.widgets.animation import Animator

#: Open recent keeps this many sessions.
MAX_RECENT = 8
#: QSettings key of the recent session files.
RECENT_KEY = "recent_sessions"
#: File name of the session written on close and restored on start.
LAST_SESSION_NAME = "last-session.json"
SESSION_FILTER = "PosEnc Explorer sessions (*.json);;All files (*)"


def last_session_path() -> Path:
    """The session written on close and restored on the next start."""
    return config_dir() / LAST_SESSION_NAME


def load_last_session() -> tuple[Session | None, str]:
    """The session of the last run, or ``None`` with a notice saying why it was not restored.

    A last session that cannot be used (damaged, unreadable, from a newer version, not a
    regular file) is moved aside, kept as ``last-session.damaged-<time>.json`` next to it (never
    over another), and the notice names that file; the window then writes a fresh last session
    on close, and the next start is clean. When it cannot be moved (a read-only folder), the
    notice says so: the file is left as it is, and closing does not write over it
    (:meth:`SessionController.save_last`)."""
    path = last_session_path()
    if not os.path.lexists(path):
        return None, ""
    try:
        return Session.load(path), ""
    except (SessionError, OSError) as err:
        why = err if isinstance(err, SessionError) else (err.strerror or err)
    try:
        where = f"kept as {keep_aside(path).name}"
    except OSError as err:
        where = (
            f"it could not be moved aside ({reason(err)}) and is left as it is: this session "
            "will not be saved over it"
        )
    return None, (
        f"The last session was not restored ({why}); {where}. Starting from the defaults."
    )


def last_session_unreadable(path: Path) -> bool:
    """Whether ``path`` holds a last session that cannot be used (see :func:`load_last_session`):
    one that is there and fails :meth:`Session.load`."""
    if not os.path.lexists(path):
        return False
    try:
        Session.load(path)
    except (SessionError, OSError):
        return True
    return False


def keep_aside(path: Path) -> Path:
    """Rename ``path`` to ``<stem>.damaged-<time>[-n]<suffix>`` in its folder, never replacing a
    file; the new path. Raises OSError when it cannot be renamed."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for k in range(100):
        extra = f"-{k}" if k else ""
        aside = path.with_name(f"{path.stem}.damaged-{stamp}{extra}{path.suffix}")
        if os.path.lexists(aside):
            continue
        try:
            if path.is_file() and not path.is_symlink():
                os.link(path, aside)  # atomic, and never replaces a file that is there
                path.unlink()
            else:  # a pipe, a device, a folder, a link: free just above
                os.rename(path, aside)
            return aside
        except FileExistsError:
            continue
        except OSError:
            if os.path.lexists(aside) and os.path.lexists(path):
                with contextlib.suppress(OSError):  # linked but not unlinked: one name only
                    os.unlink(aside)
            # no hard links on this file system: a rename (free just above)
            os.rename(path, aside)
            return aside
    raise FileExistsError(f"no free name for {path.name} in its folder")


def read_recent() -> list[str]:
    """The recent session files, newest first (strings only, at most :data:`MAX_RECENT`)."""
    raw = QSettings().value(RECENT_KEY, [], type=list)
    items = raw if isinstance(raw, list) else []
    return [str(x) for x in items if isinstance(x, str) and x][:MAX_RECENT]


def write_recent(paths: list[str]) -> None:
    """Store the recent session files (newest first)."""
    QSettings().setValue(RECENT_KEY, paths[:MAX_RECENT])


class SessionController(QObject):
    """Saving, opening and restoring the session the window shows; the Open recent menu."""

    def __init__(
        self,
        parts: WindowParts,
        presentation: PresentationController,
        animator: Animator,
    ) -> None:
        super().__init__(parts.dialog_parent())
        self._parts = parts
        self._presentation = presentation
        self._animator = animator

    # -- menu -----------------------------------------------------------------------------------
    def build_menu(self, menu: QMenu) -> None:
        """File ▸ Open session…, Open recent ▸, Save session…"""
        self.open_action = add_action(
            self, menu, "&Open session…", "open_session_action", ["Ctrl+O"], self.open_dialog,
            tip="Open a saved session: every tab's parameters, the zoom, theme and scale",
        )  # fmt: skip
        self.recent_menu = menu.addMenu("Open &recent")
        self.recent_menu.setObjectName("recent_menu")
        self.recent_menu.aboutToShow.connect(self._prune_recent)
        self.recent_menu.triggered.connect(self._on_recent_action)
        self.save_action = add_action(
            self, menu, "&Save session…", "save_session_action", ["Ctrl+S"], self.save_dialog,
            tip="Save every tab's parameters, the zoom, theme and scale to a file",
        )  # fmt: skip
        self._rebuild_recent()

    # -- saving and opening ---------------------------------------------------------------------
    def snapshot(self) -> Session:
        """A copy of the session as it would be saved now (view states collected, the scale
        from before presentation mode)."""
        session = self._parts.session
        for tab_id, panel in self._parts.panels.items():
            session.view_states[tab_id] = panel.view_state()
        copy = Session.from_dict(session.to_dict())
        if self._presentation.presenting():
            copy.scale = self._presentation.saved_scale()
        return copy

    def save(self, path: str | Path) -> bool:
        """Write the session to ``path`` (atomically); a failure is reported, never raised."""
        target = Path(path)
        try:
            self.snapshot().save(target)
        except OSError as err:
            self._parts.messages.error(
                "Session not saved", f"Could not save the session to {target}.", reason(err)
            )
            return False
        self._remember(target)
        self._parts.messages.show(f"Saved session to {target}")
        return True

    def save_last(self) -> bool:
        """Keep the session for the next start (:func:`last_session_path`); raises OSError.

        A last session that is there and cannot be used (one the start could not move aside,
        or one a newer version wrote meanwhile) is never written over: False, nothing written.
        """
        path = last_session_path()
        if last_session_unreadable(path):
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        self.snapshot().save(path)
        return True

    def open(self, path: str | Path) -> bool:
        """Open a session file: validate all of it, then apply it; refused → nothing changes."""
        target = Path(path)
        current = self._parts.session
        try:
            loaded = Session.load(target)
            resolved = {
                t: loaded.state(t).model.resolve(loaded.state(t).values(),
                                                 current.state(t).values())
                for t in TAB_IDS
            }  # fmt: skip
        except (SessionError, ParamError, OSError) as err:
            if isinstance(err, FileNotFoundError):
                self._forget_recent(str(target))
            self._parts.messages.error(
                "Session not opened",
                f"“{target.name}” was not opened: {reason(err)}.",
                "Nothing was changed.",
            )
            return False
        self.apply(loaded, resolved)
        self._remember(target)
        self._parts.messages.show(f"Opened session {target}")
        return True

    def apply(
        self, loaded: Session, resolved: Mapping[str, Mapping[str, Value]] | None = None
    ) -> None:
        """Make the window show ``loaded`` (already validated), updating its states in place."""
        self._animator.pause()
        session = self._parts.session
        for tab_id in TAB_IDS:
            values = resolved[tab_id] if resolved is not None else loaded.state(tab_id).values()
            session.state(tab_id).update(values)
        session.view_states = {t: dict(v) for t, v in loaded.view_states.items()}
        for tab_id, panel in self._parts.panels.items():
            panel.restore_view_state(session.view_states.get(tab_id, {}))
        self._presentation.apply_look(loaded.theme, loaded.scale, loaded.colormaps)
        self._parts.tabs.setCurrentIndex(TAB_IDS.index(loaded.current_tab))

    def save_dialog(self) -> None:
        """File ▸ Save session…"""
        name = f"{self._parts.current_tab_id()}-session.json"
        path = ask_save_path(
            self._parts.dialog_parent(), "Save session", name, SESSION_FILTER, "json"
        )
        if path is not None:
            self.save(path)

    def open_dialog(self) -> None:
        """File ▸ Open session…"""
        path = ask_open_path(self._parts.dialog_parent(), "Open session", SESSION_FILTER)
        if path is not None:
            self.open(path)

    # -- recent sessions ------------------------------------------------------------------------
    def recent(self) -> list[str]:
        """The paths of File ▸ Open recent, newest first."""
        return read_recent()

    def open_recent(self, path: str) -> bool:
        """Open a recent session; a file that is gone is removed from the list."""
        if not Path(path).is_file():
            self._forget_recent(path)
            self._parts.messages.error(
                "Session not opened",
                f"“{Path(path).name}” no longer exists; it was removed from Open recent.",
                path,
            )
            return False
        return self.open(path)

    def clear_recent(self) -> None:
        """File ▸ Open recent ▸ Clear list."""
        write_recent([])
        self._rebuild_recent()
        self._parts.messages.show("Open recent cleared")

    def _on_recent_action(self, action: QAction) -> None:
        path = action.data()
        if isinstance(path, str) and path:
            self.open_recent(path)

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
            self._parts.messages.show(f"Removed from Open recent (no longer there): {names}")
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
            a.setData(p)
            menu.addAction(a)
        if not recent:
            empty = menu.addAction("No recent sessions")
            empty.setEnabled(False)
        menu.addSeparator()
        clear = menu.addAction("&Clear list")
        clear.setObjectName("clear_recent")
        clear.setEnabled(bool(recent))
        clear.triggered.connect(self.clear_recent)
