"""Animation in the window: Play/Pause (Space) sweeps each tab's parameter and loops within its
range, pausing keeps the value, Space stays with fields and buttons, ticks never queue stale
frames; export of one loop as GIF or PNG sequence, cancellable, atomic, never overwriting."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt, QTimer
from PySide6.QtGui import QImage, QImageReader
from PySide6.QtWidgets import QApplication, QCheckBox, QWidget
from pytestqt.qtbot import QtBot

from posenc_gui.main_window import MainWindow
from posenc_gui.panels.base import Panel
from posenc_gui.state.animation import SPEEDS
from posenc_gui.state.registry import TAB_IDS
from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets.animation import (
    AnimationSettings,
    ExportCancelledError,
    frame_name,
    space_is_taken,
)


@pytest.fixture
def window(open_window: Callable[..., MainWindow]) -> Iterator[Callable[[str], MainWindow]]:
    opened: list[MainWindow] = []

    def make(tab: str) -> MainWindow:
        opened.append(open_window(tab, (1200, 760)))
        return opened[-1]

    yield make
    for w in opened:
        w.animator.pause()
    style_mod.hub().set_style(style_mod.Style())


def _panel(w: MainWindow) -> Panel:
    panel = w.current_panel()
    assert panel is not None
    return panel


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_each_tab_sweeps_its_parameter_and_loops_within_its_range(
    window: Callable[[str], MainWindow], tab_id: str
) -> None:
    w = window(tab_id)
    panel, a = _panel(w), w.animator
    clock = FakeClock()
    a.clock = clock
    model = panel.state.model
    assert a.target is panel
    label = model.param(model.animated).label
    assert w.animation_bar.info.text().startswith(f"{label}: ")
    assert label in w.animation_bar.info.toolTip()
    before = {k: v for k, v in panel.state.values().items() if k != model.animated}
    assert a.play() and a.is_playing() and w.play_action.isChecked()
    assert w.animation_bar.play_button.isChecked()
    sweep = a.sweep()
    assert sweep is not None and sweep.name == model.animated
    for key, value in model.animation_setup:
        assert panel.state.get(key) == value
    seen = []
    for _ in range(40):  # 2.5 loops in steps of 1/16 of a loop
        clock.now += a.loop_seconds() / 16
        a.tick()
        seen.append(panel.state.get(sweep.name))
    assert all(sweep.lo <= float(v) <= sweep.hi for v in seen)
    assert len(set(seen)) >= 8
    drops = [k for k in range(1, len(seen)) if seen[k] < seen[k - 1]]
    assert 2 <= len(drops) <= 3, f"one wrap per loop, got {seen}"
    # only the animated parameter moved (and, for RoPE, n with it at the locked distance)
    after = panel.state.values()
    moved = {k for k, v in before.items() if after[k] != v} - {"lock"}
    assert moved <= ({"n"} if tab_id == "rope" else set())
    if tab_id == "rope":
        assert after["m"] - after["n"] == before_gap(before, after)
    assert panel.refresh_count > 0
    a.pause()
    assert not a.is_playing() and not w.play_action.isChecked()


def before_gap(before: dict[str, object], after: dict[str, object]) -> int:
    m, n = after["m"], after["n"]
    assert isinstance(m, int) and isinstance(n, int)
    return m - n  # n followed m: the distance of the first frame is the distance now


def test_rope_keeps_the_distance_while_m_moves(window: Callable[[str], MainWindow]) -> None:
    w = window("rope")
    state = _panel(w).state
    state.update({"m": 40, "n": 30})
    clock = FakeClock()
    w.animator.clock = clock
    w.animator.play()
    for _ in range(20):
        clock.now += 0.37
        w.animator.tick()
        assert state.get("m") - state.get("n") == 10  # type: ignore[operator]
    assert state.get("lock") is True


def test_pause_leaves_the_state_where_it_stopped(
    qtbot: QtBot, window: Callable[[str], MainWindow]
) -> None:
    w = window("sine")
    state, a = _panel(w).state, w.animator
    start = state.get("cursor")
    a.set_speed_index(len(SPEEDS) - 1)
    assert w.animation_bar.play_button.text().endswith("Play")
    w.animation_bar.play_button.click()
    assert a.is_playing() and w.animation_bar.play_button.text().endswith("Pause")
    qtbot.waitUntil(lambda: a.frames >= 5, timeout=60_000)
    w.animation_bar.play_button.click()
    assert not a.is_playing()
    stopped = state.get("cursor")
    assert stopped != start
    qtbot.wait(150)
    assert state.get("cursor") == stopped
    assert a.frame_ms is not None and a.interval_ms() >= 16  # measured, at most 60 Hz


def test_a_tick_never_queues_behind_an_unpainted_frame(
    qtbot: QtBot, window: Callable[[str], MainWindow]
) -> None:
    w = window("heatmap")
    panel, a = _panel(w), w.animator
    clock = FakeClock()
    a.clock = clock
    a.play()
    clock.now += 1.0
    a.tick()
    first = panel.state.get("position")
    assert a.frames == 1
    clock.now += 0.05  # the frame is not painted yet: this tick does nothing
    a.tick()
    assert (a.frames, a.skipped) == (1, 1) and panel.state.get("position") == first
    QApplication.processEvents()  # the dirty regions painted
    QApplication.processEvents()
    assert a.frame_ms is not None  # measured from the tick to the paint
    clock.now += 1.0
    a.tick()
    assert a.frames == 2 and panel.state.get("position") != first
    # a change from elsewhere that is not refreshed yet: the tick waits for it...
    clock.now += 1.0
    panel.state.set("position", 80)
    assert panel.pending()
    a.tick()
    assert panel.state.get("position") == 80 and a.skipped == 2
    # ...and the loop goes on from the value the user chose
    panel.refresh_now()
    QApplication.processEvents()
    QApplication.processEvents()
    a.tick()
    assert panel.state.get("position") in (80, 81)


def _type(qtbot: QtBot, key: Qt.Key = Qt.Key.Key_Space) -> None:
    """A key typed where the focus is (shortcuts first, as from a keyboard)."""
    focus = QApplication.focusWidget()
    assert focus is not None
    qtbot.keyClick(focus, key)


def _focus(qtbot: QtBot, widget: QWidget) -> None:
    widget.setFocus()
    qtbot.waitUntil(lambda: widget.hasFocus() or widget.isAncestorOf(QApplication.focusWidget()))


def test_space_plays_and_pauses_unless_a_field_or_button_has_focus(
    qtbot: QtBot, window: Callable[[str], MainWindow]
) -> None:
    w = window("rope")
    panel, a = _panel(w), w.animator
    slider = panel.findChild(QWidget, "window_slider")
    spin = panel.findChild(QWidget, "seed_spin")
    check = panel.findChild(QCheckBox, "lock_check")
    assert slider is not None and spin is not None and check is not None
    _focus(qtbot, slider)
    assert not space_is_taken(QApplication.focusWidget())
    _type(qtbot)
    assert a.is_playing()
    _type(qtbot)
    assert not a.is_playing()
    # a number field: Space is typed into it, the animation does not start
    _focus(qtbot, spin)
    assert space_is_taken(QApplication.focusWidget())
    _type(qtbot)
    assert not a.is_playing()
    # a check box: Space ticks it
    _focus(qtbot, check)
    was = check.isChecked()
    _type(qtbot)
    assert check.isChecked() is not was and not a.is_playing()
    # the tab bar has no use for Space
    _focus(qtbot, w.tabs.tabBar())
    _type(qtbot)
    assert a.is_playing()
    _type(qtbot)
    assert not a.is_playing()


def test_speed_keys_and_control(qtbot: QtBot, window: Callable[[str], MainWindow]) -> None:
    w = window("alibi")
    a, bar = w.animator, w.animation_bar
    start = a.speed_index
    _focus(qtbot, w.tabs.tabBar())
    _type(qtbot, Qt.Key.Key_BracketRight)
    assert a.speed_index == start + 1 and bar.speed_combo.currentIndex() == start + 1
    assert a.loop_seconds() == pytest.approx(10.0 / SPEEDS[start + 1])
    _type(qtbot, Qt.Key.Key_BracketLeft)
    _type(qtbot, Qt.Key.Key_BracketLeft)
    assert a.speed_index == start - 1
    bar.speed_combo.setCurrentIndex(0)
    assert a.speed_index == 0
    for _ in range(3):
        a.slower()
    assert a.speed_index == 0  # stays at the slowest
    assert "one loop in" in bar.speed_combo.toolTip()
    for widget in (bar.play_button, bar.speed_combo):
        assert widget.accessibleName() and widget.toolTip()
        assert widget.focusPolicy() & Qt.FocusPolicy.TabFocus
    keys = Counter(k for _, _, ks in w.shortcut_table() for k in ks.split(", "))
    assert {k for k, n in keys.items() if n > 1} == set(), "two actions share a key"
    assert {"Space", "[", "]"} <= set(keys)


def test_tab_change_session_open_and_close_stop_it(
    qtbot: QtBot, window: Callable[[str], MainWindow], tmp_path: Path
) -> None:
    w = window("sine")
    a = w.animator
    a.play()
    w.tabs.setCurrentIndex(TAB_IDS.index("rotation"))
    assert not a.is_playing() and a.target is w.panels["rotation"]
    assert "Angle θ" in w.animation_bar.info.text()
    a.play()
    path = tmp_path / "s.json"
    assert w.sessions.save(path)
    assert w.sessions.open(path)
    assert not a.is_playing()
    a.play()
    w.close()
    assert not a.is_playing()


def _decode_gif(path: Path) -> list[QImage]:
    data = QByteArray(path.read_bytes())
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buf, b"gif")
    frames = []
    while not (image := reader.read()).isNull():
        frames.append(image.convertToFormat(QImage.Format.Format_RGB32))
    del reader
    buf.close()
    return frames


def _pixels(image: QImage) -> np.ndarray:
    h, stride = image.height(), image.bytesPerLine()
    return np.frombuffer(image.constBits(), np.uint8, count=h * stride).reshape(h, stride).copy()


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_gif_of_five_frames_at_the_requested_width(
    window: Callable[[str], MainWindow], tab_id: str, tmp_path: Path
) -> None:
    w = window(tab_id)
    state = _panel(w).state
    before = state.values()
    out = w.animation.export("gif", tmp_path / "a.gif", AnimationSettings(5, 400, 2.0))
    assert out == tmp_path / "a.gif"
    frames = _decode_gif(out)
    assert len(frames) == 5
    assert {f.width() for f in frames} == {400}
    assert len({_pixels(f).tobytes() for f in frames}) >= 3  # the frames move
    assert state.values() == before  # the parameter (and the RoPE lock) put back
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gif"]
    with pytest.raises(FileExistsError):
        w.animation.export("gif", out, AnimationSettings(5, 400, 2.0))
    assert len(_decode_gif(out)) == 5


@pytest.mark.parametrize("kind", ["gif", "png"])
def test_cancelling_leaves_no_file_and_the_state_as_it_was(
    window: Callable[[str], MainWindow], tmp_path: Path, kind: str
) -> None:
    w = window("rope")
    state = _panel(w).state
    before = state.values()
    target = tmp_path / ("a.gif" if kind == "gif" else "frames")
    with pytest.raises(ExportCancelledError):
        w.animation.export(kind, target, AnimationSettings(6, 320, 2.0),
                           progress=lambda done, total, text: done < 3)  # fmt: skip
    assert list(tmp_path.iterdir()) == []
    assert state.values() == before
    # the same from the progress dialog's Cancel button, late in the export
    steps: list[int] = []

    def cancel_later() -> None:
        dialog = w.animation.export_progress
        if dialog is None:
            return
        steps.append(dialog.value())
        if dialog.value() >= dialog.maximum() - 2:  # late: GIF compressing, last PNGs
            dialog.cancel()
        else:
            QTimer.singleShot(0, cancel_later)

    QTimer.singleShot(0, cancel_later)
    assert w.animation.run_export(kind, target, AnimationSettings(6, 320, 2.0)) is None
    assert steps, "the progress dialog was shown"
    assert list(tmp_path.iterdir()) == []
    assert state.values() == before
    assert w.animation.export_progress is None
    assert "cancelled" in w.statusBar().currentMessage()


def test_png_sequence_is_a_new_folder_of_numbered_frames(
    window: Callable[[str], MainWindow], tmp_path: Path
) -> None:
    w = window("alibi")
    state = _panel(w).state
    before = state.values()
    folder = tmp_path / "alibi-frames"
    out = w.animation.export("png", folder, AnimationSettings(5, 480))
    names = sorted(p.name for p in out.iterdir())
    assert names == [f"alibi-frames_{k:04d}.png" for k in range(1, 6)]
    assert frame_name(folder, 0) == "alibi-frames_0001.png"
    images = [QImage(str(out / n)) for n in names]
    assert {i.width() for i in images} == {480}
    assert len({_pixels(i.convertToFormat(QImage.Format.Format_RGB32)).tobytes()
                for i in images}) == 5  # fmt: skip
    assert state.values() == before
    # never replaced unasked; replaced (not merged) when asked
    with pytest.raises(FileExistsError):
        w.animation.export("png", folder, AnimationSettings(3, 480))
    assert len(list(folder.iterdir())) == 5
    w.animation.export("png", folder, AnimationSettings(3, 480), overwrite=True)
    assert len(list(folder.iterdir())) == 3
    # a folder that holds anything else is never replaced
    other = tmp_path / "notes"
    other.mkdir()
    (other / "lecture.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="other files"):
        w.animation.export("png", other, AnimationSettings(3, 480), overwrite=True)
    assert (other / "lecture.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alibi-frames", "notes"]


def test_bad_settings_are_refused_before_anything_is_rendered(
    window: Callable[[str], MainWindow], tmp_path: Path
) -> None:
    w = window("sine")
    with pytest.raises(ValueError, match="frames"):
        w.animation.export("gif", tmp_path / "a.gif", AnimationSettings(1, 400))
    with pytest.raises(ValueError, match="width"):
        w.animation.export("png", tmp_path / "f", AnimationSettings(5, 10))
    assert list(tmp_path.iterdir()) == []
    assert w.animation.run_export("gif", tmp_path / "a.gif", AnimationSettings(5, 10)) is None
    assert w.error_box is not None
