"""An exception no slot caught: logged (bounded), shown once with Copy, the window usable."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from posenc_gui.widgets import crash
from posenc_gui.widgets.crash import CrashDialog, CrashReporter, append_log


class Raiser(QObject):
    fire = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0
        self.fire.connect(self.boom)

    def boom(self) -> None:
        self.calls += 1
        raise RuntimeError(f"deliberate failure {self.calls}")


@pytest.fixture
def reporter(tmp_path: Path) -> Iterator[CrashReporter]:
    """A reporter that shows its dialog, installed as sys.excepthook for the test only (the
    exceptions it takes are handled: pytest-qt's own capture sees none)."""
    previous = sys.excepthook
    r = CrashReporter(tmp_path / "data" / "crash.log").install()
    yield r
    if r.dialog is not None:
        r.dialog.close()
    sys.excepthook = previous


def test_exception_in_a_slot_is_logged_and_shown_with_copy(
    reporter: CrashReporter, qtbot: QtBot
) -> None:
    raiser = Raiser()
    QTimer.singleShot(0, raiser.fire.emit)  # from the event loop, as a user's click would
    qtbot.waitUntil(lambda: reporter.dialog is not None)
    dialog = reporter.dialog
    assert isinstance(dialog, CrashDialog) and dialog.isVisible()
    assert not dialog.isModal()  # the window stays usable
    assert "RuntimeError: deliberate failure 1" in dialog.text
    assert reporter.log_path is not None
    log = reporter.log_path.read_text()
    assert "RuntimeError: deliberate failure 1" in log and "Traceback" in log
    dialog.copy_button.click()
    clipboard = QApplication.clipboard()
    assert "deliberate failure 1" in clipboard.text()
    assert dialog.isVisible()  # Copy does not close it


def test_second_exception_while_the_dialog_is_open_is_only_logged(
    reporter: CrashReporter, qtbot: QtBot
) -> None:
    raiser = Raiser()
    QTimer.singleShot(0, raiser.fire.emit)
    qtbot.waitUntil(lambda: reporter.dialog is not None)
    first = reporter.dialog
    QTimer.singleShot(0, raiser.fire.emit)
    qtbot.waitUntil(lambda: raiser.calls == 2)
    assert reporter.dialog is first
    dialogs = [w for w in QApplication.topLevelWidgets() if isinstance(w, CrashDialog)]
    assert [d for d in dialogs if d.isVisible()] == [first]
    assert reporter.log_path is not None
    assert "deliberate failure 2" in reporter.log_path.read_text()
    assert first is not None
    first.close()
    qtbot.waitUntil(lambda: reporter.dialog is None)
    QTimer.singleShot(0, raiser.fire.emit)  # closed: the next one is shown again
    qtbot.waitUntil(lambda: reporter.dialog is not None)
    assert "deliberate failure 3" in reporter.dialog.text


def test_recording_reporter_shows_nothing(tmp_path: Path, qtbot: QtBot) -> None:
    previous = sys.excepthook
    r = CrashReporter(tmp_path / "crash.log", show_dialog=False).install()
    try:
        raiser = Raiser()
        QTimer.singleShot(0, raiser.fire.emit)
        qtbot.waitUntil(lambda: len(r.records) == 1)
    finally:
        r.uninstall()
        sys.excepthook = previous
    assert r.dialog is None and "deliberate failure 1" in r.records[0]
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, CrashDialog)
                and w.isVisible()]  # fmt: skip


def test_crash_log_is_appended_and_bounded(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "crash.log"
    append_log(path, "first\n", limit=1000)
    append_log(path, "second\n", limit=1000)
    assert path.read_text() == "first\nsecond\n"
    for i in range(200):
        append_log(path, f"line {i:04d} " + "x" * 40 + "\n", limit=1000)
    text = path.read_text()
    assert path.stat().st_size <= 1000
    assert text.endswith("line 0199 " + "x" * 40 + "\n")
    assert "first" not in text
    assert all(line.startswith("line ") for line in text.splitlines())  # whole lines kept


def test_the_application_installs_the_reporter(tmp_path: Path) -> None:
    previous = sys.excepthook
    try:
        r = crash.install(tmp_path / "crash.log", show_dialog=False)
        assert sys.excepthook == r.hook
        assert crash.install(tmp_path / "crash.log", show_dialog=False) is r
    finally:
        sys.excepthook = previous


class _StopError(Exception):
    pass


def test_run_gui_installs_the_crash_reporter_before_the_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from posenc_gui import app

    seen: list[object] = []

    def build_window(*_: object, **__: object) -> None:
        seen.append(sys.excepthook)
        raise _StopError

    previous = sys.excepthook
    monkeypatch.setattr(app, "build_window", build_window)
    try:
        with pytest.raises(_StopError):
            app.run_gui("sine")
    finally:
        sys.excepthook = previous
    hook = seen[0]
    assert isinstance(getattr(hook, "__self__", None), CrashReporter)
