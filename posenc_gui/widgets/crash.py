"""What happens to an exception that no code caught (it reached the Qt event loop from a slot).

:class:`CrashReporter` is installed as ``sys.excepthook`` when the application starts. Each
uncaught exception is appended to ``crash.log`` in the user's data folder
(``QStandardPaths.AppDataLocation``; the file is kept under :data:`MAX_LOG_BYTES`: the older
half goes first) and shown in a dialog with the error, a Copy button and Close. The dialog is
not modal: the window stays usable. While one dialog is open, further exceptions are only
logged (never a cascade of dialogs); tests and the randomized driver record instead of showing.
"""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QStandardPaths, Qt
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

#: The crash log is cut to its newer half when it grows past this (bytes).
MAX_LOG_BYTES = 256 * 1024
LOG_NAME = "crash.log"

ExcHook = Callable[[type[BaseException], BaseException, TracebackType | None], object]


def default_log_path() -> Path:
    """``crash.log`` in the application's data folder (``AppDataLocation``)."""
    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(folder or Path.home()) / LOG_NAME


def append_log(path: Path, text: str, limit: int = MAX_LOG_BYTES) -> None:
    """Append ``text`` to ``path`` (created with its folder); when the file would pass
    ``limit`` bytes, its older half is dropped first (whole lines). Raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8", "backslashreplace")[-limit // 2 :]
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        size = 0
    if size + len(data) > limit:
        old = path.read_bytes()[-(limit // 2) :]
        cut = old.find(b"\n")
        path.write_bytes(old[cut + 1 :] if cut >= 0 else b"")
    with open(path, "ab") as f:
        f.write(data)


class CrashDialog(QDialog):
    """The error of an uncaught exception, with Copy (to the clipboard) and Close."""

    def __init__(self, text: str, log_path: Path | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("crash_dialog")
        self.setWindowTitle("Unexpected error")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.text = text
        where = f" It was written to {log_path}." if log_path is not None else ""
        intro = QLabel(
            "Something went wrong inside the application. The window is still usable; the "
            f"last action may not have finished.{where}",
            self,
        )
        intro.setWordWrap(True)
        details = QPlainTextEdit(text, self)
        details.setObjectName("crash_text")
        details.setReadOnly(True)
        details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.copy_button = QPushButton("&Copy", self)
        self.copy_button.setObjectName("crash_copy")
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self.copy)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(details)
        layout.addWidget(buttons)
        self.resize(640, 360)

    def copy(self) -> None:
        """The error text to the clipboard."""
        clipboard = QGuiApplication.clipboard()
        if clipboard is not None:
            clipboard.setText(self.text)


class CrashReporter:
    """The ``sys.excepthook`` of the application (see the module's docstring).

    ``show_dialog=False`` records instead of showing (tests, the randomized driver);
    :attr:`records` holds every report's text either way.
    """

    def __init__(self, log_path: Path | None = None, *, show_dialog: bool = True) -> None:
        self.log_path = log_path
        self.show_dialog = show_dialog
        self.records: list[str] = []
        self.dialog: CrashDialog | None = None
        self._previous: ExcHook | None = None

    def install(self) -> CrashReporter:
        """Become ``sys.excepthook`` (the previous hook is kept for :meth:`uninstall`)."""
        if sys.excepthook != self.hook:
            self._previous = sys.excepthook
            sys.excepthook = self.hook
        return self

    def uninstall(self) -> None:
        if sys.excepthook == self.hook:
            sys.excepthook = self._previous or sys.__excepthook__

    def hook(self, kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            (self._previous or sys.__excepthook__)(kind, exc, tb)
            return
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        text = "".join(traceback.format_exception(kind, exc, tb))
        self.records.append(text)
        print(text, file=sys.stderr, end="")
        path = self.log_path or default_log_path()
        try:
            append_log(path, f"--- {stamp}\n{text}\n")
        except OSError as err:
            print(f"(the crash log {path} could not be written: {err})", file=sys.stderr)
        if self.show_dialog and self.dialog is None and QApplication.instance() is not None:
            self._show(text, path)

    def _show(self, text: str, path: Path) -> None:
        parent = QApplication.activeWindow()
        dialog = CrashDialog(text, path, parent)
        dialog.finished.connect(self._dialog_finished)
        self.dialog = dialog
        dialog.show()

    def _dialog_finished(self, _result: int) -> None:
        self.dialog = None


_reporter: CrashReporter | None = None


def install(log_path: Path | None = None, *, show_dialog: bool = True) -> CrashReporter:
    """Install the application's crash reporter (once; later calls return it, updated)."""
    global _reporter
    if _reporter is None:
        _reporter = CrashReporter(log_path, show_dialog=show_dialog)
    else:
        _reporter.log_path, _reporter.show_dialog = log_path, show_dialog
    return _reporter.install()
