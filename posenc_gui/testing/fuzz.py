"""A randomized GUI driver: random user events on the whole window, checked after each.

Every tab present and future is driven with no per-tab code: the driver walks what the window
and its panels declare — the tab registry, each panel's bound controls (``<param>_slider``,
``_spin``, ``_combo``, ``_check``), its figures (:attr:`Panel.figure_widgets`) and the
window's actions that have an object name (reset, play/pause, zoom, theme, colour maps,
presentation, figure enlarge/next, deck steps, bundled decks...). Actions whose text ends with
"…" open a file or input dialog and are left out; sessions are saved to and opened from files
in a temporary folder by calling the session controller with a path. A modal box that does
open anyway (a question) is answered "No"/closed by a watchdog timer.

An event is a small JSON-ready record ``(kind, target, value)``; a run is a seeded
``random.Random(seed)`` choosing each event from what the window shows at that moment, so a
recorded sequence replays exactly on a fresh window (an event whose target is not on screen
any more does nothing). After each event the pending refreshes run, and every ``check_every``
events (and after the last) the driver checks:

- no exception reached the event loop (``sys.excepthook``) and Qt printed no warning;
- every tab state built so far holds values within its model's declared ranges (static and
  dynamic limits);
- every array the current tab shows (:meth:`Panel.data`) is finite;
- the controls show the state's values (spin box, slider position, combo, check box).

A failure is shrunk by delta debugging: chunks of the event prefix are dropped while the same
failure (kind and first line) still reproduces on a fresh window, within a time budget.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
from PySide6.QtCore import (
    QEvent,
    QMessageLogContext,
    QPoint,
    QPointF,
    Qt,
    QTimer,
    QtMsgType,
    qInstallMessageHandler,
)
from PySide6.QtGui import QAction, QKeyEvent, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QSlider,
    QWidget,
)

from posenc_gui.state import ParamError
from posenc_gui.state.registry import TABS

#: Texts typed into number fields: words, signs, overflow, NaN, huge integers, digit groups.
TYPED = (
    "abc", "-1", "1e309", "-1e309", "nan", "inf", "1" + "0" * 400, "9" * 4400, "", "1 000",
    "1,000", "\u221230", "0", "1e-400", "0x10", "3.5", " 7 ", "2", "64", "1e5", "-0", "12abc",
)  # fmt: skip
#: How a typed text ends: Enter applies, Escape drops it, Tab leaves the field.
TYPED_ENDS = ("Return", "Return", "Escape", "Tab", "")
SLIDER_KEYS = ("Left", "Right", "Up", "Down", "PageUp", "PageDown", "Home", "End")
#: Keys sent to the focused widget (shortcuts and deck/figure keys when they are bound).
WINDOW_KEYS = ("Space", "F5", "Escape", "PageDown", "PageUp", "Left", "Right", "Tab", "Return")
#: Actions the driver never triggers: they quit, open another window or a blocking box, or
#: write to the clipboard (an export concern with its own tests).
SKIPPED_ACTIONS = frozenset({
    "quit_action", "show_code_action", "shortcuts_action", "view_about_action", "about_action",
    "copy_figure_action", "full_screen_action",
})  # fmt: skip
#: The time all shrinking of one run may take (each failure gets its share, at most the
#: ``shrink_seconds`` of :func:`run`).
SHRINK_TOTAL_SECONDS = 600.0
#: Session files the driver writes and reads (in its temporary folder).
SESSION_SLOTS = 3
#: Qt messages that are no failure (the offscreen platform's notes).
QT_IGNORED = ("propagateSizeHints", "This plugin does not support")
#: How many event kinds of each sort a run draws, relative to each other.
WEIGHTS: dict[str, int] = {
    "slider": 22, "slider_key": 8, "type": 12, "combo": 6, "check": 4, "hover": 10,
    "drag": 6, "dclick": 3, "wheel": 3, "tab": 5, "action": 10, "key": 5, "session_save": 1,
    "session_open": 1, "wait": 1,
}  # fmt: skip


#: Called with each fresh window before the events (tests plant a fault with it).
Prepare = Callable[[Any], None]
_NUMBER = re.compile(r"[-+]?\d[\d.e+-]*")


@dataclass(frozen=True)
class Event:
    """One user event: ``kind`` (see :data:`WEIGHTS`), its target's name and a JSON value."""

    kind: str
    target: str
    value: Any

    def to_json(self) -> list[Any]:
        return [self.kind, self.target, self.value]

    @classmethod
    def from_json(cls, item: Sequence[Any]) -> Event:
        kind, target, value = item
        return cls(str(kind), str(target), value)


@dataclass
class Failure:
    """A broken property: what (``kind``: exception, qt, range, finite, control), where
    (the index of the event after which it was seen) and the events that reproduce it."""

    kind: str
    message: str
    index: int
    seed: int
    events: list[Event] = field(default_factory=list)
    #: Whether a replay of :attr:`events` on a fresh window was seen to fail the same way.
    reproduced: bool = False

    @property
    def signature(self) -> str:
        """What makes two failures the same: the kind and the message's first line, its
        numbers left out (the same slot failing at another value is the same failure)."""
        first = self.message.strip().splitlines()[0] if self.message.strip() else ""
        return f"{self.kind}: {_NUMBER.sub('#', first)}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "message": self.message,
            "seed": self.seed,
            "index": self.index,
            "events": [e.to_json() for e in self.events],
            "reproduced": self.reproduced,
        }


@dataclass
class Report:
    """What a run did: its seed, the number of events, the failures and RSS samples."""

    seed: int
    events: int = 0
    failures: list[Failure] = field(default_factory=list)
    rss: list[tuple[int, float]] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "events": self.events,
            "failures": [f.to_json() for f in self.failures],
            "rss": [[n, mb] for n, mb in self.rss],
            "seconds": round(self.seconds, 2),
            "events_per_second": round(self.events / self.seconds, 1) if self.seconds else 0.0,
        }

    def summary(self) -> str:
        first = self.rss[0][1] if self.rss else rss_mb()
        last = self.rss[-1][1] if self.rss else first
        return (
            f"fuzz: {self.events} events, {len(self.failures)} failures, "
            f"RSS {first:.0f} -> {last:.0f} MB"
        )


class EventLog:
    """The events of a run that found their target, in order: appended to an anonymous
    temporary file (one JSON line each) and read back for a failure's replay, so that a long
    run's memory does not grow with its events (~350 bytes an event as objects: ~50 MB over a
    30-minute soak)."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115  # (closed by close)
        self.count = 0

    def append(self, ev: Event) -> None:
        self._file.write(json.dumps(ev.to_json(), separators=(",", ":")) + "\n")
        self.count += 1

    def events(self) -> list[Event]:
        """All the events appended so far."""
        self._file.flush()
        self._file.seek(0)
        found = [Event.from_json(json.loads(line)) for line in self._file]
        self._file.seek(0, os.SEEK_END)
        return found

    def close(self) -> None:
        self._file.close()


def rss_mb() -> float:
    """The resident memory of this process (MB): VmRSS on Linux, the peak elsewhere."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


# -- what reaches the event loop -------------------------------------------------------------
class Collector:
    """Records the exceptions that reach ``sys.excepthook`` and Qt's warnings, while active."""

    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []

    def excepthook(
        self, kind: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        text = "".join(traceback.format_exception(kind, exc, tb))
        self.problems.append(("exception", f"{kind.__name__}: {exc}\n{text}"))

    def qt_message(self, mode: QtMsgType, _context: QMessageLogContext, message: str) -> None:
        if mode == QtMsgType.QtDebugMsg or mode == QtMsgType.QtInfoMsg:
            return
        if any(s in message for s in QT_IGNORED):
            return
        self.problems.append(("qt", message))

    def take(self) -> list[tuple[str, str]]:
        found, self.problems = self.problems, []
        return found

    @contextmanager
    def active(self) -> Iterator[Collector]:
        """Install the hook and the Qt message handler; restore the previous ones after."""
        previous_hook = sys.excepthook
        sys.excepthook = self.excepthook
        previous_handler = qInstallMessageHandler(self.qt_message)
        try:
            yield self
        finally:
            sys.excepthook = previous_hook
            qInstallMessageHandler(previous_handler)


# -- the driver ------------------------------------------------------------------------------
def _key(name: str) -> Qt.Key:
    return getattr(Qt.Key, f"Key_{name}")  # type: ignore[no-any-return]


class Driver:
    """Sends events to one main window and checks it (see the module's docstring)."""

    def __init__(self, window: Any, folder: Path) -> None:
        self.window = window
        self.folder = folder
        self.dialogs = 0  # modal boxes the watchdog answered
        #: How often each kind of event is drawn (:data:`WEIGHTS`; a run may leave kinds out).
        self.weights = dict(WEIGHTS)
        self._watchdog = QTimer()
        self._watchdog.setInterval(20)
        self._watchdog.timeout.connect(self._answer_modal)
        self._watchdog.start()

    def stop(self) -> None:
        self._watchdog.stop()
        self._watchdog.timeout.disconnect(self._answer_modal)

    def _answer_modal(self) -> None:
        modal = QApplication.activeModalWidget()
        if isinstance(modal, QDialog):
            self.dialogs += 1
            modal.reject()
        elif modal is not None:
            modal.close()

    # -- what is on screen --------------------------------------------------------------------
    def panel(self) -> Any:
        return self.window.current_panel()

    def controls(self) -> dict[str, QWidget]:
        """The current panel's bound controls by object name (``<param>_<kind>``)."""
        from posenc_gui.widgets.controls import ControlGroup

        panel = self.panel()
        found: dict[str, QWidget] = {}
        if panel is None:
            return found
        for group in panel.findChildren(ControlGroup):
            found.update(group.widgets)
        return found

    def actions(self) -> dict[str, QAction]:
        found: dict[str, QAction] = {}
        for a in self.window.findChildren(QAction):
            name = a.objectName()
            if not name or name in SKIPPED_ACTIONS or a.menu() is not None:
                continue
            if a.text().rstrip().endswith(("…", "...")):
                continue  # opens a dialog
            found[name] = a
        return found

    # -- making events ------------------------------------------------------------------------
    def generate(self, rng: random.Random) -> Event:
        """A random event among those the window offers now."""
        kinds = [k for k, w in self.weights.items() if w > 0]
        while True:
            kind = rng.choices(kinds, weights=[self.weights[k] for k in kinds])[0]
            event = self._make(kind, rng)
            if event is not None:
                return event

    def _make(self, kind: str, rng: random.Random) -> Event | None:
        tab = self.window.current_tab_id()
        controls = self.controls()

        def pick(suffix: str) -> str | None:
            names = sorted(n for n in controls if n.endswith(suffix))
            return f"{tab}:{rng.choice(names)}" if names else None

        def point() -> list[float]:
            return [round(rng.random(), 3), round(rng.random(), 3)]

        panel = self.panel()
        figures = sorted(panel.figure_widgets) if panel is not None else []
        figure = f"{tab}:{rng.choice(figures)}" if figures else None
        if kind == "slider":
            target = pick("_slider")
            return Event(kind, target, round(rng.random(), 4)) if target else None
        if kind == "slider_key":
            target = pick("_slider")
            return Event(kind, target, rng.choice(SLIDER_KEYS)) if target else None
        if kind == "type":
            target = pick("_spin")
            text = rng.choice(TYPED) if rng.random() < 0.7 else str(rng.randint(-5, 5000))
            return Event(kind, target, [text, rng.choice(TYPED_ENDS)]) if target else None
        if kind == "combo":
            target = pick("_combo")
            return Event(kind, target, rng.randint(0, 9)) if target else None
        if kind == "check":
            target = pick("_check")
            return Event(kind, target, rng.random() < 0.5) if target else None
        if kind in ("hover", "dclick"):
            return Event(kind, figure, point()) if figure else None
        if kind == "drag":
            return Event(kind, figure, point() + point()) if figure else None
        if kind == "wheel":
            return (
                Event(kind, figure, [*point(), rng.choice((-240, -120, 120, 240))])
                if figure
                else None
            )
        if kind == "tab":
            return Event(kind, "", rng.randrange(len(TABS)))
        if kind == "action":
            names = sorted(self.actions())
            return Event(kind, rng.choice(names), None) if names else None
        if kind == "key":
            return Event(kind, "", rng.choice(WINDOW_KEYS))
        if kind in ("session_save", "session_open"):
            return Event(kind, "", rng.randrange(SESSION_SLOTS))
        if kind == "wait":
            return Event(kind, "", rng.choice((5, 20, 60)))
        return None

    # -- sending events -----------------------------------------------------------------------
    def _control(self, target: str) -> QWidget | None:
        tab, _, name = target.partition(":")
        if tab != self.window.current_tab_id():
            return None
        w = self.controls().get(name)
        return w if w is not None and w.isEnabled() else None

    def _figure(self, target: str) -> tuple[QWidget, QWidget] | None:
        """The figure's widget and the widget that receives its mouse events."""
        tab, _, name = target.partition(":")
        panel = self.panel()
        if panel is None or tab != self.window.current_tab_id():
            return None
        w = panel.figure_widgets.get(name)
        if w is None or not w.isVisible():
            return None
        receiver = w.viewport() if isinstance(w, QAbstractScrollArea) else w
        return w, receiver

    def apply(self, ev: Event) -> bool:
        """Send ``ev`` the way a user would; False when its target is not on screen (then it
        does nothing)."""
        kind, value = ev.kind, ev.value
        if kind in ("slider", "slider_key", "type", "combo", "check"):
            return self._apply_control(ev)
        if kind in ("hover", "drag", "dclick", "wheel"):
            return self._apply_mouse(ev)
        if kind == "tab":
            self.window.tabs.setCurrentIndex(int(value) % len(TABS))
        elif kind == "action":
            action = self.actions().get(ev.target)
            if action is None or not action.isEnabled():
                return False
            action.trigger()
        elif kind == "key":
            receiver = QApplication.focusWidget() or self.window
            QTest.keyClick(receiver, _key(str(value)))
        elif kind == "session_save":
            self.window.sessions.save(self.folder / f"session-{int(value)}.json")
        elif kind == "session_open":
            path = self.folder / f"session-{int(value)}.json"
            if not path.exists():
                return False
            self.window.sessions.open(path)
        elif kind == "wait":
            QTest.qWait(int(value))
        return True

    def _apply_control(self, ev: Event) -> bool:
        w = self._control(ev.target)
        if w is None:
            return False
        if isinstance(w, QSlider):
            if ev.kind == "slider":
                w.setValue(round(float(ev.value) * (w.maximum() - w.minimum())) + w.minimum())
            else:
                QTest.keyClick(w, _key(str(ev.value)))
        elif isinstance(w, QComboBox):
            if w.count():
                w.setCurrentIndex(int(ev.value) % w.count())
        elif isinstance(w, QCheckBox):
            w.setChecked(bool(ev.value))
        elif ev.kind == "type":
            text, end = ev.value
            w.setFocus()
            w.selectAll()  # type: ignore[attr-defined]
            QTest.keyClick(w, Qt.Key.Key_Backspace)
            if text:
                # one key event carrying the whole text, as an input method sends it (QTest's
                # key clicks know ASCII only; a field inserts whatever text an event carries)
                typed = QKeyEvent(
                    QEvent.Type.KeyPress, Qt.Key.Key_unknown, Qt.KeyboardModifier.NoModifier,
                    str(text),
                )  # fmt: skip
                QApplication.sendEvent(w, typed)
            if end:
                QTest.keyClick(w, _key(str(end)))
        return True

    def _apply_mouse(self, ev: Event) -> bool:
        found = self._figure(ev.target)
        if found is None:
            return False
        receiver = found[1]
        width, height = max(receiver.width() - 1, 1), max(receiver.height() - 1, 1)
        v = [float(x) for x in ev.value]
        at = QPoint(round(v[0] * width), round(v[1] * height))
        if ev.kind == "hover":
            QTest.mouseMove(receiver, at)
        elif ev.kind == "dclick":
            QTest.mouseDClick(
                receiver, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at
            )
        elif ev.kind == "drag":
            to = QPoint(round(v[2] * width), round(v[3] * height))
            QTest.mousePress(
                receiver, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at
            )
            for k in (1, 2, 3):
                step = at + (to - at) * (k / 3)
                QTest.mouseMove(receiver, step)
            QTest.mouseRelease(
                receiver, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, to
            )
        elif ev.kind == "wheel":
            pos = QPointF(at)
            glob = QPointF(receiver.mapToGlobal(at))
            wheel = QWheelEvent(
                pos, glob, QPoint(), QPoint(0, int(v[2])), Qt.MouseButton.NoButton,
                Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False,
            )  # fmt: skip
            QApplication.sendEvent(receiver, wheel)
        return True

    # -- settling and checking ----------------------------------------------------------------
    def settle(self, *, paint: bool) -> None:
        """Run the pending refreshes (and, when ``paint``, every posted event: timers, paints)."""
        from posenc_gui.panels.base import scheduler

        if paint:
            for _ in range(20):
                QApplication.processEvents()
                if not any(p.pending() for p in self.window.panels.values()):
                    break
        else:
            for _ in range(5):
                scheduler().run()
                if not any(p.pending() for p in self.window.panels.values()):
                    break

    def range_problems(self) -> list[tuple[str, str]]:
        """Values of the tab states built so far outside their declared ranges."""
        problems: list[tuple[str, str]] = []
        for tab_id, state in self.window.session.states().items():
            problems += [("range", f"{tab_id}: {m}") for m in state_problems(state)]
        return problems

    def check(self) -> list[tuple[str, str]]:
        """The broken properties now: ``(kind, message)`` pairs (see the module's docstring)."""
        problems = self.range_problems()
        panel = self.panel()
        if panel is not None:
            tab_id = panel.model.id
            problems += [("finite", f"{tab_id}: {m}") for m in data_problems(panel)]
            problems += [("control", f"{tab_id}: {m}") for m in control_problems(panel)]
        return problems


def state_problems(state: Any) -> list[str]:
    """Values of ``state`` outside its model's static or dynamic ranges."""
    values = state.values()
    limits = state.model.limits(values)
    found = []
    for p in state.model.params:
        lo, hi = limits.get(p.name, (None, None))
        try:
            p.check(values[p.name], lo, hi)
        except ParamError as err:
            found.append(f"{p.name}={values[p.name]!r} out of range: {err}")
    return found


def data_problems(panel: Any) -> list[str]:
    """Arrays the panel shows that hold NaN or infinity."""
    found = []
    for view, series in panel.data().items():
        for name, s in series.items():
            arr = np.asarray(s.values)
            if arr.dtype.kind in "fc" and not np.isfinite(arr).all():
                bad = int(np.size(arr) - np.isfinite(arr).sum())
                found.append(f"{view}.{name}: {bad} of {arr.size} values not finite")
    return found


def control_problems(panel: Any) -> list[str]:
    """Controls of the panel that do not show the state's value."""
    from posenc_gui.widgets.controls import ControlGroup, SliderMap

    state = panel.state
    limits = state.limits()
    found = []
    for group in panel.findChildren(ControlGroup):
        for wname, w in group.widgets.items():
            name = wname.rpartition("_")[0]
            p = state.model.param(name)
            value = state.get(name)
            shown: object
            if isinstance(w, QComboBox):
                shown, ok = w.currentData(), w.currentData() == value
            elif isinstance(w, QCheckBox):
                shown, ok = w.isChecked(), w.isChecked() == bool(value)
            elif isinstance(w, QSlider):
                lo, hi = limits.get(name, (None, None))
                lo = p.minimum if lo is None else max(lo, p.minimum)
                hi = p.maximum if hi is None else min(hi, p.maximum)
                m = SliderMap(p, float(lo), float(hi))
                # a position shows the value it maps to (several positions may map to one)
                at = m.from_slider(w.value())
                shown = at
                ok = m.to_slider(float(value)) == w.value() or math.isclose(
                    float(at), float(value), rel_tol=1e-6, abs_tol=0.5 * 10.0**-p.decimals
                )
            else:
                entry = getattr(w, "entry", None)
                if entry is not None and entry.edited:
                    continue  # the user's typed text, not applied yet
                shown = w.value()
                # a real shows the state's value rounded to the field's decimals (23.55 as 23.6)
                tol = 0.0 if p.kind == "int" else 0.5 * 10.0**-p.decimals * (1 + 1e-9)
                ok = math.isclose(float(shown), float(value), rel_tol=1e-9, abs_tol=tol)  # type: ignore[arg-type]
            if not ok:
                found.append(f"{wname} shows {shown!r}, the state holds {value!r}")
    return found


# -- runs ------------------------------------------------------------------------------------
def open_window(size: tuple[int, int] = (1280, 800)) -> Any:
    """A main window on the first tab with fresh states and the default style, shown, loaded."""
    from posenc_gui.app import create_application
    from posenc_gui.main_window import MainWindow
    from posenc_gui.state.session import Session
    from posenc_gui.widgets import style as style_mod

    create_application()
    style_mod.hub().set_style(style_mod.Style())
    window = MainWindow(session=Session(TABS[0].id))
    window.resize(*size)
    window.show()
    window.load_panels()
    window.activateWindow()
    QApplication.processEvents()
    return window


def close_window(window: Any) -> None:
    window.animator.pause()
    window.close()
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()


class Harness:
    """One fresh window driven by a :class:`Driver`, its problems collected."""

    def __init__(self, folder: Path, prepare: Prepare | None = None) -> None:
        self.collector = Collector()
        self._ctx = self.collector.active()
        self._ctx.__enter__()
        self.window = open_window()
        if prepare is not None:
            prepare(self.window)
        self.driver = Driver(self.window, folder)
        #: Whether the last event found its target (an event that did not did nothing).
        self.acted = True

    def step(self, ev: Event, *, check: bool, paint: bool | None = None) -> list[tuple[str, str]]:
        """Send ``ev``, run the refreshes (and every posted event when ``paint``, by default
        when ``check``); the problems seen (and, when ``check``, the broken properties)."""
        self.acted = True
        try:
            self.acted = self.driver.apply(ev)
        except Exception as err:  # raised by the driver's own call: counts as uncaught
            self.collector.excepthook(type(err), err, err.__traceback__)
        try:
            self.driver.settle(paint=check if paint is None else paint)
        except Exception as err:  # a refresh run by the driver rather than by the event loop
            self.collector.excepthook(type(err), err, err.__traceback__)
        problems = self.collector.take()
        if check:
            problems += self.driver.check()
            problems += self.collector.take()
        return problems

    def close(self) -> None:
        try:
            self.driver.stop()
            close_window(self.window)
        finally:
            self._ctx.__exit__(None, None, None)


def replay(
    events: Sequence[Event],
    folder: Path,
    *,
    check_every: int = 1,
    paint_every: int = 1,
    prepare: Prepare | None = None,
) -> list[tuple[str, str]]:
    """Play ``events`` on a fresh window; the first problems found (empty: none). Exceptions
    are seen after any event; the properties are checked every ``check_every`` events and
    after the last."""
    s = Harness(folder, prepare)
    try:
        for i, ev in enumerate(events):
            last = i == len(events) - 1
            check = last or (i + 1) % check_every == 0
            problems = s.step(ev, check=check, paint=check or (i + 1) % paint_every == 0)
            if problems:
                return problems
        return []
    finally:
        s.close()


def shrink(
    events: list[Event],
    signature: str,
    folder: Path,
    *,
    seconds: float = 120.0,
    prepare: Prepare | None = None,
    paint_every: int = 1,
) -> tuple[list[Event], bool]:
    """A short sub-sequence of ``events`` whose replay on a fresh window still shows a failure
    with ``signature``: first the shortest reproducing suffix (1, 2, 4... last events), then
    delta debugging on it (chunks dropped while the failure stays), within ``seconds``; and
    whether that sequence was seen to reproduce it. The replays paint every ``paint_every``
    events, as the run did (a hover's effect depends on the layout painted before it)."""
    if seconds <= 0:
        return events, False  # not shrunk, not replayed
    deadline = time.monotonic() + seconds

    def fails(seq: list[Event]) -> bool:
        if not seq:
            return False
        found = replay(seq, folder, check_every=len(seq), paint_every=paint_every, prepare=prepare)
        return any(Failure(k, m, 0, 0).signature == signature for k, m in found)

    k = 1
    while time.monotonic() < deadline:
        if fails(events[-k:]):
            events = events[-k:]
            break
        if k >= len(events):
            return events, False  # (no replay shows it: the failure depends on timing)
        k = min(k * 2, len(events))
    chunks = 2
    while len(events) >= 2 and time.monotonic() < deadline:
        size = math.ceil(len(events) / chunks)
        reduced = False
        for start in range(0, len(events), size):
            if time.monotonic() >= deadline:
                break
            candidate = events[:start] + events[start + size :]
            if fails(candidate):
                events, reduced = candidate, True
                chunks = max(chunks - 1, 2)
                break
        if not reduced:
            if size == 1:
                break
            chunks = min(len(events), chunks * 2)
    # a failure that depends on timing (a timer, the watchdog) may need a second try
    return events, any(fails(events) for _ in range(3))


def run(
    seed: int,
    *,
    events: int | None = None,
    minutes: float | None = None,
    check_every: int = 1,
    rss_every: int = 500,
    shrink_seconds: float = 120.0,
    folder: Path | None = None,
    progress: Callable[[str], None] | None = None,
    prepare: Prepare | None = None,
    kinds: Sequence[str] | None = None,
) -> Report:
    """Drive a fresh window with ``events`` random events (or for ``minutes``), seed ``seed``.

    Each distinct failure (see :attr:`Failure.signature`) is recorded once and shrunk.
    ``prepare(window)`` runs on each fresh window (the run's and the replays'). ``kinds``: only
    these kinds of event (see :data:`WEIGHTS`; to find which events a problem, or the memory's
    growth, comes from).
    """
    unknown = sorted(set(kinds or ()) - set(WEIGHTS))
    if unknown or (kinds is not None and not kinds):
        raise ValueError(f"kinds must be among {', '.join(WEIGHTS)}, got {list(kinds or ())}")
    if events is None and minutes is None:
        events = 1000
    rng = random.Random(seed)
    report = Report(seed)
    with tempfile.TemporaryDirectory(prefix="posenc-fuzz-") as tmp:
        work = folder or Path(tmp)
        s = Harness(work, prepare)
        if kinds is not None:
            s.driver.weights = {k: w for k, w in WEIGHTS.items() if k in kinds}
        acted = EventLog()  # the events that found their target: enough to replay
        seen: set[str] = set()
        start = time.monotonic()
        end = start + minutes * 60 if minutes is not None else math.inf
        report.rss.append((0, round(rss_mb(), 1)))
        n = 0
        try:
            while (events is None or n < events) and time.monotonic() < end:
                ev = s.driver.generate(rng)
                n += 1
                last = events is not None and n == events
                problems = s.step(ev, check=last or n % check_every == 0)
                if s.acted:
                    acted.append(ev)
                for kind, message in problems:
                    failure = Failure(kind, message, n - 1, seed)
                    if failure.signature not in seen:
                        seen.add(failure.signature)
                        failure.events = acted.events()
                        report.failures.append(failure)
                        if progress:
                            progress(f"failure after event {n - 1}: {failure.signature}")
                if n % rss_every == 0:
                    report.rss.append((n, round(rss_mb(), 1)))
                    if progress:
                        rate = n / (time.monotonic() - start)
                        progress(f"{n} events, {rate:.0f}/s, RSS {report.rss[-1][1]:.0f} MB")
            if report.rss[-1][0] != n:  # the last sample with the window still open
                report.rss.append((n, round(rss_mb(), 1)))
        finally:
            report.seconds = time.monotonic() - start
            report.events = n
            acted.close()
            s.close()
        budget = min(shrink_seconds, SHRINK_TOTAL_SECONDS / max(len(report.failures), 1))
        for failure in report.failures:
            failure.events, failure.reproduced = shrink(
                failure.events, failure.signature, work, seconds=budget, prepare=prepare,
                paint_every=check_every,
            )  # fmt: skip
    return report


def describe(failure: Failure) -> str:
    """A failure for a terminal: seed, index, message and the shortest sequence as JSON."""
    seq = json.dumps([e.to_json() for e in failure.events])
    return (
        f"FAILURE (seed {failure.seed}, event {failure.index}) {failure.signature}\n"
        f"{failure.message}\n{'replay' if failure.reproduced else 'not reproduced by'} "
        f"({len(failure.events)} events): {seq}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m posenc_gui.testing.fuzz [--events N] [--seed S] [--minutes M] [--json FILE]``
    (offscreen, settings and session files in a temporary folder)."""
    import argparse

    parser = argparse.ArgumentParser(prog="dev.py fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=None, help="number of events (1000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=None, help="run for this long")
    parser.add_argument("--json", type=Path, default=None, help="write the report here")
    parser.add_argument("--check-every", type=int, default=1, help="check every K events")
    parser.add_argument("--shrink-seconds", type=float, default=120.0)
    parser.add_argument("--replay", type=Path, default=None, help="replay a JSON event list")
    parser.add_argument(
        "--kinds",
        default=None,
        help=f"only these kinds of event, comma-separated: {','.join(WEIGHTS)}",
    )
    args = parser.parse_args(argv)
    kinds = None if args.kinds is None else [k.strip() for k in args.kinds.split(",") if k.strip()]
    if kinds is not None and (not kinds or set(kinds) - set(WEIGHTS)):
        parser.error(f"--kinds must be among {','.join(WEIGHTS)}, got {args.kinds!r}")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory(prefix="posenc-fuzz-settings-") as settings_dir:
        from PySide6.QtCore import QSettings

        QSettings.setDefaultFormat(QSettings.Format.IniFormat)
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, settings_dir)
        from posenc_gui.app import offscreen_application

        offscreen_application()
        if args.replay is not None:
            seq = [Event.from_json(e) for e in json.loads(args.replay.read_text())]
            with tempfile.TemporaryDirectory(prefix="posenc-fuzz-") as tmp:
                problems = replay(seq, Path(tmp))
            for kind, message in problems:
                print(f"{kind}: {message}")
            print(f"replay: {len(seq)} events, {len(problems)} problems")
            return 1 if problems else 0
        report = run(
            args.seed, events=args.events, minutes=args.minutes, check_every=args.check_every,
            shrink_seconds=args.shrink_seconds, progress=lambda t: print(t, flush=True),
            kinds=kinds,
        )  # fmt: skip
    for failure in report.failures:
        print(describe(failure), flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps(report.to_json(), indent=1))
    rate = report.events / report.seconds if report.seconds else 0.0
    print(f"seed {report.seed}, {report.seconds:.0f} s, {rate:.0f} events/s", flush=True)
    print(report.summary(), flush=True)
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
