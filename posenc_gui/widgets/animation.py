"""Animation of the current tab: the Play/Pause timer, its control, and export as GIF or PNGs.

Every tab model names one numeric parameter to animate (:attr:`TabModel.animated`); the maths
of the loop (range, wrap-around, speed, the frames of one loop) is Qt-free in
:mod:`posenc_gui.state.animation`. Here:

:class:`Animator`
    A timer that sweeps the animated parameter of one *target* panel. Each tick sets the value
    that the elapsed time calls for (the loop lasts as long at any frame rate) and refreshes the
    panel at once; the next tick does nothing until the window has painted that frame (at most
    :data:`PAINT_WAIT_S`), so a slow frame is never followed by a queue of stale ones. The timer
    period follows the measured frame time (:func:`timer_interval_ms`: 60 Hz while frames take
    under ~8 ms). A value changed meanwhile by the user (a drag, a typed value) is where the
    loop goes on from; pausing leaves the state where it stopped.
:class:`AnimationBar`
    Play/Pause button, speed list and the name and range of the animated parameter: one bar for
    every tab (the main window puts it in its status bar, which presentation mode keeps).
:class:`SpaceGuard`
    Space plays and pauses, except where Space already means something: in a text or number
    field (it types), on a button or check box (it presses), in a list.
Export
    :func:`export_gif` and :func:`export_png_sequence` set the parameter to each frame of one
    loop, refresh, render the figure (:func:`posenc_gui.widgets.export.render_image`) and write
    atomically; the state is restored afterwards, also when cancelled or failing.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QImage, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from posenc_gui.state import ParamError, ParamState
from posenc_gui.state.animation import (
    DEFAULT_SPEED_INDEX,
    SPEEDS,
    Sweep,
    advance,
    loop_seconds,
    timer_interval_ms,
)
from posenc_gui.state.jsonfile import write_atomic

if TYPE_CHECKING:  # numpy and the encoder load with the first export, not with the window
    import numpy as np

#: A tick waits at most this long for the previous frame to be painted (a hidden window never
#: paints; the animation goes on, slowly).
PAINT_WAIT_S = 0.25
#: Weight of the newest frame time in the running average that sets the timer period.
FRAME_SMOOTHING = 0.2
#: Export defaults and limits.
DEFAULT_FRAMES, MIN_FRAMES, MAX_FRAMES = 60, 2, 1000
DEFAULT_EXPORT_WIDTH = 960
MIN_LOOP_SECONDS, MAX_LOOP_SECONDS = 0.5, 600.0

_FRACTIONS = {0.125: "⅛", 0.25: "¼", 0.5: "½"}


def speed_label(speed: float) -> str:
    """``"½×"``, ``"1×"``, ``"4×"``."""
    return f"{_FRACTIONS.get(speed, f'{speed:g}')}×"


class Animatable(Protocol):
    """What the animator drives: a panel (its state, its refresh, its window)."""

    state: ParamState

    def pending(self) -> bool: ...

    def refresh_now(self) -> None: ...

    def window(self) -> QWidget: ...


class Animator(QObject):
    """Plays the animated parameter of one target panel (see the module doc)."""

    playing_changed = Signal(bool)
    speed_changed = Signal(int)
    target_changed = Signal()
    message = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._target: Animatable | None = None
        #: Seconds, monotonic (tests replace it to step time by hand).
        self.clock: Callable[[], float] = time.perf_counter
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(timer_interval_ms(None))
        self._timer.timeout.connect(self.tick)
        self._speed_index = DEFAULT_SPEED_INDEX
        self._phase = 0.0
        self._last_value: object = None
        self._last_tick = 0.0
        self._tick_started = 0.0
        self._awaiting_paint = False
        self._watched: QWidget | None = None
        #: Running average of the time from a tick to its frame painted (ms); None until one.
        self.frame_ms: float | None = None
        #: Frames set (ticks that changed the state) and ticks skipped waiting for a paint.
        self.frames = 0
        self.skipped = 0

    # -- target, speed ----------------------------------------------------------------------
    @property
    def target(self) -> Animatable | None:
        """The panel that Play animates (the tab on screen), or None."""
        if self._target is not None and not shiboken6.isValid(self._target):
            self._target = None
        return self._target

    def set_target(self, target: Animatable | None) -> None:
        """Animate ``target`` from now on (a running animation stops first)."""
        self.pause()
        old = self.target
        if old is not None:
            old.state.changed.disconnect(self._on_values)
        self._target = target
        if target is not None:
            target.state.changed.connect(self._on_values)
        self.target_changed.emit()

    def _on_values(self, name: str, value: object) -> None:
        if not shiboken6.isValid(self):  # the window is gone, the session's state is not
            return
        t = self.target
        if t is not None and name != t.state.model.animated:
            self.target_changed.emit()  # the range may have changed (the bar shows it)

    def sweep(self) -> Sweep | None:
        """The sweep Play gives the target now: its values with the tab's
        :attr:`~TabModel.animation_setup` applied (None without a target)."""
        t = self.target
        if t is None:
            return None
        model, values = t.state.model, t.state.values()
        with suppress(ParamError):
            values = model.resolve(dict(model.animation_setup), values)
        return Sweep.of(model, values)

    @property
    def speed_index(self) -> int:
        """Index into :data:`SPEEDS`."""
        return self._speed_index

    @property
    def speed(self) -> float:
        """Loops per :data:`BASE_LOOP_SECONDS` (1.0 = one loop in 10 s)."""
        return SPEEDS[self._speed_index]

    def loop_seconds(self) -> float:
        """Duration of one loop at the current speed."""
        return loop_seconds(self.speed)

    def set_speed_index(self, index: int) -> None:
        """Choose a speed from :data:`SPEEDS` (clamped to the list)."""
        index = min(max(int(index), 0), len(SPEEDS) - 1)
        if index != self._speed_index:
            self._speed_index = index
            self.speed_changed.emit(index)

    def faster(self) -> None:
        """One speed up (``]``)."""
        self.set_speed_index(self._speed_index + 1)

    def slower(self) -> None:
        """One speed down (``[``)."""
        self.set_speed_index(self._speed_index - 1)

    # -- play / pause -----------------------------------------------------------------------
    def is_playing(self) -> bool:
        """Whether the timer runs."""
        return self._timer.isActive()

    def set_playing(self, on: bool) -> None:
        """Play (``True``) or pause."""
        if on:
            self.play()
        else:
            self.pause()

    def toggle(self) -> None:
        """Space: play when paused, pause when playing."""
        self.set_playing(not self.is_playing())

    def play(self) -> bool:
        """Start sweeping from the current value; ``False`` (and a message) when impossible."""
        if self.is_playing():
            return True
        t = self.target
        if t is None:
            self.message.emit("Nothing to animate yet: the tab is still loading")
            self.playing_changed.emit(False)
            return False
        try:
            setup = dict(t.state.model.animation_setup)
            if setup:
                t.state.update(setup)
                t.refresh_now()
            sweep = Sweep.of(t.state.model, t.state.values())
        except (ParamError, TypeError) as err:
            self.message.emit(f"Cannot animate this tab: {err}")
            self.playing_changed.emit(False)
            return False
        current = t.state.get(sweep.name)
        self._phase = sweep.phase_of(current)
        self._last_value = current
        self._last_tick = self.clock()
        self._awaiting_paint = False
        self._watch(t.window())
        self._timer.start()
        self.playing_changed.emit(True)
        return True

    def pause(self) -> None:
        """Stop; the state keeps the value it has now."""
        was = self._timer.isActive()
        self._timer.stop()
        self._watch(None)
        self._awaiting_paint = False
        if was:
            self.playing_changed.emit(False)

    # -- the timer --------------------------------------------------------------------------
    def tick(self) -> None:
        """One timer tick: the value for the time elapsed, refreshed at once (or nothing, while
        the previous frame waits to be painted)."""
        t = self.target
        if t is None:
            self.pause()
            return
        now = self.clock()
        if t.pending() or (self._awaiting_paint and now - self._tick_started < PAINT_WAIT_S):
            self.skipped += 1  # the elapsed time is kept: the loop does not slow down
            return
        self._awaiting_paint = False
        state = t.state
        try:
            sweep = Sweep.of(state.model, state.values())
        except (ParamError, TypeError) as err:
            self.pause()
            self.message.emit(f"Animation stopped: {err}")
            return
        current = state.get(sweep.name)
        if current != self._last_value:  # moved by the user: go on from there
            self._phase = sweep.phase_of(current)
        else:
            self._phase = advance(self._phase, now - self._last_tick, self.speed)
        self._last_tick = now
        value = sweep.value_at(self._phase)
        if value == current:
            return
        self._tick_started = now
        try:
            state.set(sweep.name, value)
        except ParamError as err:
            self.pause()
            self.message.emit(f"Animation stopped: {err}")
            return
        self._last_value = state.get(sweep.name)
        self.frames += 1
        t.refresh_now()
        self._awaiting_paint = self._watched is not None and self._watched.isVisible()

    def _watch(self, window: QWidget | None) -> None:
        if self._watched is not None and shiboken6.isValid(self._watched):
            self._watched.removeEventFilter(self)
        self._watched = window
        if window is not None:
            window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            self._awaiting_paint
            and watched is self._watched
            and event.type() == QEvent.Type.UpdateRequest
        ):
            # the dirty regions are painted while this event is handled: measure after it
            QTimer.singleShot(0, self._painted)
        return False

    def _painted(self) -> None:
        if not self._awaiting_paint:
            return
        self._awaiting_paint = False
        ms = (self.clock() - self._tick_started) * 1000.0
        old = self.frame_ms
        self.frame_ms = ms if old is None else old + FRAME_SMOOTHING * (ms - old)
        interval = timer_interval_ms(self.frame_ms)
        if abs(interval - self._timer.interval()) > 1:
            self._timer.setInterval(interval)

    def interval_ms(self) -> int:
        """The timer period now."""
        return self._timer.interval()


class AnimationBar(QWidget):
    """Play/Pause, speed and what is animated, bound to an :class:`Animator`."""

    def __init__(self, animator: Animator, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("animation_bar")
        self.animator = animator
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 4, 0)
        self.play_button = QToolButton(self)
        self.play_button.setObjectName("play_button")
        self.play_button.setCheckable(True)
        self.play_button.setAccessibleName("Play or pause the animation")
        self.play_button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.play_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.play_button.toggled.connect(animator.set_playing)
        self.speed_combo = QComboBox(self)
        self.speed_combo.setObjectName("speed_combo")
        self.speed_combo.setAccessibleName("Animation speed")
        for s in SPEEDS:
            self.speed_combo.addItem(speed_label(s), s)
        self.speed_combo.currentIndexChanged.connect(animator.set_speed_index)
        speed_label_widget = QLabel("&Speed", self)
        speed_label_widget.setBuddy(self.speed_combo)
        self.info = QLabel(self)
        self.info.setObjectName("animation_info")
        lay.addWidget(self.play_button)
        lay.addWidget(speed_label_widget)
        lay.addWidget(self.speed_combo)
        lay.addWidget(self.info)
        animator.playing_changed.connect(self._sync_play)
        animator.speed_changed.connect(self._sync_speed)
        animator.target_changed.connect(self.sync)
        self._sync_play(animator.is_playing())
        self._sync_speed(animator.speed_index)
        self.sync()

    def _sync_play(self, playing: bool) -> None:
        self.play_button.blockSignals(True)
        self.play_button.setChecked(playing)
        self.play_button.blockSignals(False)
        self.play_button.setText("❚❚ Pause" if playing else "▶ Play")
        self.sync()

    def _sync_speed(self, index: int) -> None:
        self.speed_combo.blockSignals(True)
        self.speed_combo.setCurrentIndex(index)
        self.speed_combo.blockSignals(False)
        seconds = self.animator.loop_seconds()
        self.speed_combo.setToolTip(
            f"Animation speed: one loop in {seconds:g} s ([ slower, ] faster)"
        )

    def sync(self) -> None:
        """Show the target's animated parameter and its range (or nothing while loading)."""
        t = self.animator.target
        sweep = self.animator.sweep() if t is not None else None
        self.setEnabled(sweep is not None)
        text = tip = ""
        if t is not None and sweep is not None:
            model = t.state.model
            locks = [f", {model.param(k).label} on" for k, v in model.animation_setup if v is True]
            text = sweep.short()
            tip = f"Play sweeps {sweep.describe()}{''.join(locks)}, looping"
        if self.info.text() != text:
            self.info.setText(text)
            self.info.setToolTip(tip)
        what = "the animation" if sweep is None else sweep.param.label
        self.play_button.setToolTip(f"Play or pause {what}, looping (Space)")


#: Widgets in which Space already does something: it is theirs, not Play's.
SPACE_OWNERS: tuple[type[QWidget], ...] = (
    QLineEdit, QAbstractSpinBox, QTextEdit, QPlainTextEdit, QAbstractButton, QComboBox,
    QAbstractItemView,
)  # fmt: skip


def space_is_taken(widget: QObject | None) -> bool:
    """Whether Space typed into ``widget`` (the focus widget) belongs to it."""
    return isinstance(widget, SPACE_OWNERS)


class SpaceGuard(QObject):
    """Keeps Space for the focused widget when it is a text field, a button, a list…

    It watches the focus widget only (not every event of the application): on a shortcut
    override for a bare Space it accepts the event, so Qt gives the key to the widget instead
    of to the Play shortcut.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._watched: QWidget | None = None
        app = QApplication.instance()
        if isinstance(app, QApplication):
            # (PySide drops the connection when the guard is destroyed)
            app.focusChanged.connect(self._focus_changed)
            self._focus_changed(None, app.focusWidget())

    def _focus_changed(self, old: QWidget | None, new: QWidget | None) -> None:
        if self._watched is not None and shiboken6.isValid(self._watched):
            self._watched.removeEventFilter(self)
        self._watched = new if space_is_taken(new) else None
        if self._watched is not None:
            self._watched.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Space
            and not (event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier)
        ):
            event.accept()
            return True
        return False


# -- export -----------------------------------------------------------------------------------
class ExportCancelledError(Exception):
    """The user cancelled an animation export (nothing was written)."""


#: ``progress(done, total, text)`` → ``False`` to cancel.
Progress = Callable[[int, int, str], bool]


@dataclass(frozen=True)
class AnimationSettings:
    """What an animation export renders: ``frames`` of one loop, ``width`` pixels wide, the
    loop lasting ``loop_seconds`` in the GIF."""

    frames: int = DEFAULT_FRAMES
    width: int = DEFAULT_EXPORT_WIDTH
    loop_seconds: float = 10.0

    def delay_cs(self) -> int:
        """GIF frame delay in hundredths of a second."""
        return max(2, round(100.0 * self.loop_seconds / self.frames))

    def check(self) -> None:
        """:class:`ValueError` naming what is out of range."""
        from posenc_gui.widgets import export

        if not MIN_FRAMES <= self.frames <= MAX_FRAMES:
            raise ValueError(f"frames must be from {MIN_FRAMES} to {MAX_FRAMES}")
        if not export.MIN_PNG_WIDTH <= self.width <= export.MAX_PNG_WIDTH:
            raise ValueError(
                f"width must be from {export.MIN_PNG_WIDTH} to {export.MAX_PNG_WIDTH} pixels"
            )
        if not MIN_LOOP_SECONDS <= self.loop_seconds <= MAX_LOOP_SECONDS:
            raise ValueError(f"a loop must last {MIN_LOOP_SECONDS} to {MAX_LOOP_SECONDS:g} s")


class Renderable(Protocol):
    """A panel, as far as export needs it."""

    state: ParamState

    def refresh_now(self) -> None: ...


@contextmanager
def kept_state(state: ParamState) -> Iterator[None]:
    """Put every value of ``state`` back on exit (normal, cancelled or failed)."""
    saved = state.values()
    try:
        yield
    finally:
        state.update(saved)


def loop_frames(
    panel: Renderable, figure: QWidget, settings: AnimationSettings, progress: Progress,
    total: int,
) -> Iterator[QImage]:  # fmt: skip
    """Each frame of one loop as an image (the state is set frame by frame; the caller restores
    it, see :func:`kept_state`). ``progress`` counts frames 1 … ``frames`` out of ``total``."""
    from posenc_gui.widgets import export

    state = panel.state
    setup = dict(state.model.animation_setup)
    if setup:
        state.update(setup)
    sweep = Sweep.of(state.model, state.values())
    for k, value in enumerate(sweep.frames(settings.frames)):
        if not progress(k, total, f"Rendering frame {k + 1} of {settings.frames}…"):
            raise ExportCancelledError
        state.set(sweep.name, value)
        panel.refresh_now()
        yield export.render_image(figure, settings.width)


def image_rgb(image: QImage) -> np.ndarray:
    """A QImage as an ``(h, w, 3)`` uint8 RGB array (a copy)."""
    import numpy as np

    img = image.convertToFormat(QImage.Format.Format_RGB888)
    w, h, stride = img.width(), img.height(), img.bytesPerLine()
    raw = np.frombuffer(img.constBits(), dtype=np.uint8, count=stride * h)
    return raw.reshape(h, stride)[:, : 3 * w].reshape(h, w, 3).copy()


def export_gif(
    panel: Renderable, figure: QWidget, path: str | os.PathLike[str], settings: AnimationSettings,
    *, overwrite: bool = False, progress: Progress | None = None,
) -> Path:  # fmt: skip
    """One loop of the panel's animation as a looping GIF (atomically; the state restored)."""
    from posenc_gui.widgets.gif import EncodingCancelledError, GifEncoder

    settings.check()
    target = Path(path)
    if not overwrite and target.exists():
        raise FileExistsError(f"{target} exists already; not replaced")
    report = progress or (lambda *_: True)
    total = 2 * settings.frames  # rendering, then compressing
    with kept_state(panel.state):
        encoder: GifEncoder | None = None
        for image in loop_frames(panel, figure, settings, report, total):
            if encoder is None:
                encoder = GifEncoder(image.width(), image.height())
            encoder.add_frame(image_rgb(image), settings.delay_cs())
    assert encoder is not None
    n = settings.frames

    def step(k: int) -> bool:
        return report(n + k, total, f"Compressing frame {k + 1} of {n}…")

    try:
        data = encoder.encode(step)
    except EncodingCancelledError:
        raise ExportCancelledError from None
    if not report(total, total, "Writing…"):
        raise ExportCancelledError
    return write_atomic(target, data, overwrite=overwrite)


def frame_name(folder: Path, k: int) -> str:
    """``name_0001.png`` for frame ``k = 0`` of folder ``name``."""
    return f"{folder.name}_{k + 1:04d}.png"


def is_frame_folder(folder: Path) -> bool:
    """Whether ``folder`` holds only frames of an earlier PNG-sequence export (may replace)."""
    pattern = re.compile(re.escape(folder.name) + r"_\d{4,}\.png")
    try:
        entries = list(folder.iterdir())
    except OSError:
        return False
    return all(e.is_file() and pattern.fullmatch(e.name) for e in entries)


def export_png_sequence(
    panel: Renderable, figure: QWidget, folder: str | os.PathLike[str],
    settings: AnimationSettings, *, overwrite: bool = False, progress: Progress | None = None,
) -> Path:  # fmt: skip
    """One loop as ``folder/name_0001.png …`` (:func:`posenc_gui.widgets.export.write_folder`:
    a failure or a cancel leaves nothing). An existing ``folder`` is replaced only with
    ``overwrite=True`` and only when it holds nothing but frames of an earlier export
    (:class:`FileExistsError`)."""
    from posenc_gui.widgets import export

    settings.check()
    target = Path(folder)
    report = progress or (lambda *_: True)
    n = settings.frames

    def frames() -> Generator[tuple[str, bytes]]:
        with kept_state(panel.state):
            for k, image in enumerate(loop_frames(panel, figure, settings, report, n + 1)):
                yield frame_name(target, k), export.png_bytes(image)
        if not report(n, n + 1, "Writing…"):
            raise ExportCancelledError

    files = frames()
    try:
        return export.write_folder(target, files, overwrite=overwrite,
                                   replaceable=is_frame_folder,
                                   what="frames of an animation")  # fmt: skip
    finally:
        files.close()  # (the state is put back now, not when the generator is collected)


class AnimationExportDialog(QDialog):
    """Frames, width and loop duration of an animation export (labelled, keyboard-reachable)."""

    def __init__(
        self, title: str, what: str, settings: AnimationSettings, *, gif: bool,
        parent: QWidget | None = None,
    ) -> None:  # fmt: skip
        from posenc_gui.widgets import export

        super().__init__(parent)
        self.setObjectName("animation_export_dialog")
        self.setWindowTitle(title)
        lay = QVBoxLayout(self)
        intro = QLabel(f"One loop of {what}, rendered frame by frame.", self)
        intro.setWordWrap(True)
        lay.addWidget(intro)
        form = QFormLayout()
        self.frames_spin = QSpinBox(self)
        self.frames_spin.setObjectName("frames_spin")
        self.frames_spin.setRange(MIN_FRAMES, MAX_FRAMES)
        self.frames_spin.setValue(settings.frames)
        self.frames_spin.setAccessibleName("Frames")
        self.width_spin = QSpinBox(self)
        self.width_spin.setObjectName("width_spin")
        self.width_spin.setRange(export.MIN_PNG_WIDTH, export.MAX_PNG_WIDTH)
        self.width_spin.setSingleStep(16)
        self.width_spin.setSuffix(" px")
        self.width_spin.setValue(settings.width)
        self.width_spin.setAccessibleName("Picture width in pixels")
        self.loop_spin = QDoubleSpinBox(self)
        self.loop_spin.setObjectName("loop_spin")
        self.loop_spin.setRange(MIN_LOOP_SECONDS, MAX_LOOP_SECONDS)
        self.loop_spin.setDecimals(1)
        self.loop_spin.setSuffix(" s")
        self.loop_spin.setValue(settings.loop_seconds)
        self.loop_spin.setAccessibleName("Duration of one loop in seconds")
        form.addRow("&Frames per loop:", self.frames_spin)
        form.addRow("Picture &width:", self.width_spin)
        if gif:
            form.addRow("&One loop lasts:", self.loop_spin)
        else:
            self.loop_spin.hide()
        lay.addLayout(form)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def settings(self) -> AnimationSettings:
        """The values entered."""
        return AnimationSettings(
            self.frames_spin.value(), self.width_spin.value(), round(self.loop_spin.value(), 1)
        )
