"""Sessions in the window: save / open (in place, all or nothing), Open recent, the last state."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from posenc_gui.controllers.presentation import FOLLOW_SYSTEM_KEY
from posenc_gui.controllers.sessions import (
    MAX_RECENT,
    last_session_path,
    load_last_session,
    read_recent,
    write_recent,
)
from posenc_gui.main_window import MainWindow
from posenc_gui.state import ParamError, ParamState
from posenc_gui.state.registry import TAB_IDS
from posenc_gui.state.session import SCHEMA_VERSION, Session
from posenc_gui.widgets import style as style_mod


@pytest.fixture(autouse=True)
def clean_settings() -> Iterator[None]:
    QSettings().remove(FOLLOW_SYSTEM_KEY)
    write_recent([])
    yield
    style_mod.hub().set_style(style_mod.Style())
    QSettings().remove(FOLLOW_SYSTEM_KEY)
    write_recent([])


def _window(qtbot: QtBot, tab: str = "sine") -> MainWindow:
    w = MainWindow(session=Session(tab))
    qtbot.addWidget(w)
    w.load_panels()
    return w


def _perturb(state: ParamState) -> None:
    """Move every numeric parameter to the far end of its range (when the state accepts it)."""
    for p in state.model.params:
        if p.kind not in ("int", "float"):
            continue
        lo, hi = state.limits().get(p.name, (p.minimum, p.maximum))
        lo = p.minimum if lo is None else lo
        hi = p.maximum if hi is None else hi
        if lo is None or hi is None:
            continue
        target = p.clamp(hi if state.get(p.name) != hi else lo, lo, hi)
        with contextlib.suppress(ParamError):
            state.set(p.name, target)


def _everything(w: MainWindow) -> dict[str, Any]:
    s = w.session
    return {
        "tab": w.current_tab_id(),
        "values": {t: s.state(t).values() for t in TAB_IDS},
        "views": {t: dict(v) for t, v in s.view_states.items() if v},
        "theme": s.theme,
        "scale": s.scale,
        "colormaps": s.colormaps,
        "hub": style_mod.hub().style,
    }


def test_round_trip_every_tab_exactly_back(qtbot: QtBot, tmp_path: Path) -> None:
    w = _window(qtbot)
    states = {t: w.session.state(t) for t in TAB_IDS}  # the objects panels hold
    for state in states.values():
        _perturb(state)
    w.session.view_states["rope"] = {"x_range": [-40.0, 60.0]}
    w.set_theme_mode("dark")
    w.zoom(+1)
    w.colormap_actions["dark-centred"].trigger()
    saved = _everything(w)
    path = tmp_path / "lecture.json"
    assert w.sessions.save(path)
    assert "Saved session" in w.statusBar().currentMessage()

    # change everything
    for state in states.values():
        state.reset()
    w.session.view_states.clear()
    w.set_theme_mode("light")
    w.zoom(0)
    w.set_style(colormaps="blue-red")
    w.session.state("sine").set("dim", 16)
    assert _everything(w) != saved

    assert w.sessions.open(path)
    assert _everything(w) == saved
    # updated in place: the panel still mirrors the window's state object
    for t in TAB_IDS:
        assert w.session.state(t) is states[t]
    panel = w.panels["sine"]
    assert panel.state is states["sine"]
    panel.refresh_now()
    assert panel.data()["ladder_formula"]["dim"].values == saved["values"]["sine"]["dim"]
    assert w.theme_actions["dark"].isChecked()
    assert w.colormap_actions["dark-centred"].isChecked()
    assert style_mod.hub().style.colormaps == "dark-centred"
    assert str(path.resolve()) == w.sessions.recent()[0]


def test_open_switches_tab_and_builds_it(qtbot: QtBot, tmp_path: Path) -> None:
    session = Session("rotation")
    session.state("sine").set("amplitude", 0.5)
    path = tmp_path / "s.json"
    session.save(path)
    w = _window(qtbot)
    assert w.sessions.open(path)
    assert w.current_tab_id() == "rotation"
    assert "rotation" in w.panels
    assert w.session.state("sine").get("amplitude") == 0.5


def _good_dict() -> dict[str, Any]:
    return Session("sine").to_dict()


def _bad_files() -> list[tuple[str, bytes, str]]:
    newer = {**_good_dict(), "version": SCHEMA_VERSION + 1}
    out_of_range = _good_dict()
    out_of_range["tabs"]["sine"]["params"]["amplitude"] = 99
    unknown_param = _good_dict()
    unknown_param["tabs"]["sine"]["params"]["bogus"] = 1
    unknown_tab = _good_dict()
    unknown_tab["tabs"]["nope"] = {"params": {}}
    huge_view = _good_dict()  # issue 20, finding 3: pyqtgraph tracebacks, a crash on close
    huge_view["tabs"]["heatmap"]["view"] = {"x_range": [-1.7e308, 1.7e308]}
    bad_theme = {**_good_dict(), "theme": "sepia"}
    bad_scale = {**_good_dict(), "scale": 50}
    bad_maps = {**_good_dict(), "colormaps": "jet"}
    return [
        ("malformed", b'{"kind": "posenc-explorer-session", ', "invalid JSON"),
        ("not_a_session", json.dumps({"hello": 1}).encode(), "not a session"),
        ("newer", json.dumps(newer).encode(), "newer version"),
        ("out_of_range", json.dumps(out_of_range).encode(), "amplitude"),
        ("unknown_param", json.dumps(unknown_param).encode(), "bogus"),
        ("unknown_tab", json.dumps(unknown_tab).encode(), "unknown tab"),
        ("bad_theme", json.dumps(bad_theme).encode(), "'theme'"),
        ("bad_scale", json.dumps(bad_scale).encode(), "'scale'"),
        ("bad_colormaps", json.dumps(bad_maps).encode(), "'colormaps'"),
        ("not_utf8", b"\xff\xfe\x00garbage", "not UTF-8"),
        (
            "huge_view",
            json.dumps(huge_view).encode(),
            "tab 'heatmap': 'view' x_range must be [from, to] with from < to within -100.5 … 199.5",
        ),
        ("huge_scale", _with_number("scale", "1" + "0" * 400), "got a 401-digit integer"),
        ("huge_int", _with_number("scale", "7" * 4400), "got a 4400-digit integer"),
        ("huge_float", _with_number("amplitude", "1e400"), "too large for a float"),
    ]


def _with_number(name: str, number: str) -> bytes:
    """A session whose ``name`` (the scale, or a sine parameter) is the JSON number ``number``."""
    data = _good_dict()
    if name == "scale":
        data["scale"] = "@"
    else:
        data["tabs"]["sine"]["params"][name] = "@"
    return json.dumps(data).replace('"@"', number).encode()


@pytest.mark.parametrize(("name", "content", "reason"), _bad_files(), ids=lambda x: str(x)[:14])
def test_bad_files_are_refused_and_change_nothing(
    qtbot: QtBot, tmp_path: Path, name: str, content: bytes, reason: str
) -> None:
    w = _window(qtbot)
    _perturb(w.session.state("sine"))
    w.set_theme_mode("dark")
    before = _everything(w)
    path = tmp_path / f"{name}.json"
    path.write_bytes(content)
    assert not w.sessions.open(path)
    assert _everything(w) == before
    assert w.error_box is not None
    assert reason in w.error_box.text() and "Nothing was changed" in w.error_box.informativeText()
    assert reason in w.statusBar().currentMessage()
    assert w.sessions.recent() == []
    w.error_box.close()


def test_missing_file_is_refused(qtbot: QtBot, tmp_path: Path) -> None:
    w = _window(qtbot)
    before = _everything(w)
    assert not w.sessions.open(tmp_path / "nowhere.json")
    assert _everything(w) == before
    assert w.error_box is not None and "nowhere.json" in w.error_box.text()
    w.error_box.close()


def test_save_failure_is_reported(qtbot: QtBot, tmp_path: Path) -> None:
    w = _window(qtbot)
    assert not w.sessions.save(tmp_path / "no" / "such" / "dir.json")
    assert w.error_box is not None and "Could not save" in w.error_box.text()
    assert not (tmp_path / "no").exists()
    w.error_box.close()


def test_recent_sessions_newest_first_capped_and_pruned(qtbot: QtBot, tmp_path: Path) -> None:
    w = _window(qtbot)
    paths = [tmp_path / f"s{k}.json" for k in range(MAX_RECENT + 2)]
    for p in paths:
        assert w.sessions.save(p)
    recent = w.sessions.recent()
    assert recent == [str(p.resolve()) for p in reversed(paths)][:MAX_RECENT]
    assert QSettings().value("recent_sessions", type=list) == recent
    entries = [a for a in w.recent_menu.actions() if a.objectName().startswith("recent_")]
    assert [a.text() for a in entries[:2]] == [f"&1 {paths[-1].name}", f"&2 {paths[-2].name}"]

    paths[-1].unlink()
    paths[-2].unlink()
    w.recent_menu.aboutToShow.emit()  # what opening the menu does
    assert w.sessions.recent() == recent[2:]
    message = w.statusBar().currentMessage()
    assert "Removed from Open recent" in message and paths[-1].name in message

    # opening an entry that vanished meanwhile: removed, with a message
    paths[-3].unlink()
    assert not w.sessions.open_recent(str(paths[-3].resolve()))
    assert str(paths[-3].resolve()) not in w.sessions.recent()
    assert w.error_box is not None and "no longer exists" in w.error_box.text()
    w.error_box.close()

    # re-opening moves an entry to the top
    assert w.sessions.open_recent(str(paths[-5].resolve()))
    assert w.sessions.recent()[0] == str(paths[-5].resolve())
    w.sessions.clear_recent()
    assert w.sessions.recent() == []
    assert not w.recent_menu.findChild(object, "clear_recent").isEnabled()


def test_recent_ignores_junk_in_settings(qtbot: QtBot) -> None:
    QSettings().setValue("recent_sessions", "just-a-string.json")
    assert read_recent() == ["just-a-string.json"]
    QSettings().setValue("recent_sessions", 42)
    assert read_recent() == []
    QSettings().setValue("recent_sessions", ["a.json", "", 3, "b.json"])
    assert read_recent() == ["a.json", "b.json"]


def test_last_state_written_on_close_and_restored(qtbot: QtBot) -> None:
    last_session_path().unlink(missing_ok=True)
    w = _window(qtbot)
    w.session.state("sine").set("dim", 32)
    w.tabs.setCurrentIndex(TAB_IDS.index("rotation"))
    w.set_theme_mode("dark")
    w.set_presentation(True)  # presentation is not kept: the scale from before it is
    w.close()
    restored, notice = load_last_session()
    assert notice == "" and restored is not None
    assert restored.state("sine").get("dim") == 32
    assert restored.current_tab == "rotation"
    assert (restored.theme, restored.scale) == ("dark", 1.0)

    w2 = MainWindow(session=restored)
    qtbot.addWidget(w2)
    assert w2.current_tab_id() == "rotation"
    assert style_mod.hub().style == style_mod.Style(scale=1.0, theme="dark")
    assert w2.theme_actions["dark"].isChecked()


def test_bad_last_state_is_ignored_with_a_message(qtbot: QtBot) -> None:
    path = last_session_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"kind": "posenc-explorer-session", "version": 99}', encoding="utf-8")
    session, notice = load_last_session()
    assert session is None
    assert "not restored" in notice and "newer version" in notice
    w = MainWindow(session=None, notice=notice)
    qtbot.addWidget(w)
    assert "not restored" in w.statusBar().currentMessage()
    w.load_panels()
    assert "not restored" in w.statusBar().currentMessage()
    assert not path.exists()  # kept aside (see the issue-20 tests below)
    for kept in _kept_aside():
        kept.unlink()
    assert load_last_session() == (None, "")


def test_open_during_presentation_keeps_presenting(qtbot: QtBot, tmp_path: Path) -> None:
    session = Session("sine")
    session.scale = 1.3
    path = tmp_path / "s.json"
    session.save(path)
    w = _window(qtbot)
    w.set_presentation(True)
    assert w.sessions.open(path)
    assert w.presenting() and style_mod.hub().style.scale == pytest.approx(1.6)
    w.set_presentation(False)
    assert style_mod.hub().style.scale == pytest.approx(1.3)


def test_colour_map_sets_restyle_the_heatmaps_live(qtbot: QtBot) -> None:
    """View ▸ Colour maps: every set is offered; checking one recolours the open heatmaps (the
    PE table's pixels are the set's diverging map at each cell) and is kept in the session."""
    w = _window(qtbot, "heatmap")
    assert set(w.colormap_actions) == set(style_mod.COLORMAP_SETS)
    assert w.colormap_actions[style_mod.DEFAULT_COLORMAPS].isChecked()
    panel = w.panels["heatmap"]

    def pixels() -> np.ndarray:
        panel.refresh_now()
        return np.array(panel.image.image, copy=True)

    def expected(maps: str) -> np.ndarray:
        lut = style_mod.Style(colormaps=maps).colormap("diverging")
        table = np.asarray(lut.getLookupTable(nPts=256, alpha=True), dtype=np.uint8)
        return table[panel.image_index]

    first = pixels()
    np.testing.assert_array_equal(first, expected("colorblind"))
    w.colormap_actions["blue-red"].trigger()
    assert w.session.colormaps == "blue-red"
    assert style_mod.hub().style.colormaps == "blue-red"
    assert w.colormap_actions["blue-red"].isChecked()
    recoloured = pixels()
    np.testing.assert_array_equal(recoloured, expected("blue-red"))
    assert not np.array_equal(recoloured, first)
    w.colormap_actions["colorblind"].trigger()
    np.testing.assert_array_equal(pixels(), expected("colorblind"))


# -- issue 20: a last session that cannot be read is kept aside, and the app starts ------------
def _kept_aside() -> list[Path]:
    path = last_session_path()
    return sorted(path.parent.glob(f"{path.stem}.damaged-*{path.suffix}"))


@pytest.fixture
def no_last_session() -> Iterator[None]:
    for p in [last_session_path(), *_kept_aside()]:
        p.unlink(missing_ok=True)
    yield
    for p in [last_session_path(), *_kept_aside()]:
        p.unlink(missing_ok=True)


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b'{"kind": "posenc-explorer-session", "version": 2}', "newer version"),
        (b"{not json", "invalid JSON"),
        (_with_number("scale", "1" + "0" * 400), "401-digit integer"),
        (_with_number("scale", "7" * 5000), "5000-digit integer"),
    ],
    ids=["newer", "damaged", "huge", "over_int_limit"],
)
def test_unreadable_last_session_is_kept_aside_and_the_app_starts(
    qtbot: QtBot, no_last_session: None, content: bytes, why: str
) -> None:
    from posenc_gui.app import build_window

    path = last_session_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    w = build_window()
    qtbot.addWidget(w)
    kept = _kept_aside()
    assert len(kept) == 1 and kept[0].read_bytes() == content
    assert not path.exists()
    assert w.current_tab_id() == TAB_IDS[0]
    w.load_panels()
    message = w.statusBar().currentMessage()
    assert why in message and kept[0].name in message
    w.close()  # a fresh last session is written; the kept file is untouched
    assert Session.load(path).current_tab == TAB_IDS[0]
    assert _kept_aside() == kept and kept[0].read_bytes() == content


def test_kept_aside_files_never_overwrite_each_other(qtbot: QtBot, no_last_session: None) -> None:
    path = last_session_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    for k in range(3):
        path.write_bytes(b"{broken %d" % k)
        session, notice = load_last_session()
        assert session is None and "kept as" in notice
    assert sorted(p.read_bytes() for p in _kept_aside()) == [
        b"{broken 0",
        b"{broken 1",
        b"{broken 2",
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_fifo_as_last_session_does_not_hang(qtbot: QtBot, no_last_session: None) -> None:
    path = last_session_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)  # never opened: reading it would block for ever
    session, notice = load_last_session()
    assert session is None and "not a regular file" in notice
    assert not path.exists() and len(_kept_aside()) == 1


# -- issue 20: a damaged last session that cannot be moved aside is left as it is ---------------
def _refuse(*_args: object, **_kwargs: object) -> None:
    raise PermissionError(13, "Permission denied")


def _start_and_close_with_a_damaged_last_session(qtbot: QtBot, fail_moves: bool) -> bytes:
    """Start the app on a damaged last session that cannot be moved aside (the move refused,
    as in a read-only config folder); check the notice, close; the file's bytes after."""
    from posenc_gui.app import build_window

    path = last_session_path()
    content = b'{"kind": "posenc-explorer-session", "version": 2}'
    path.write_bytes(content)
    with pytest.MonkeyPatch.context() as mp:
        if fail_moves:  # only the start's moves: writes go through at close
            mp.setattr(os, "link", _refuse)
            mp.setattr(os, "rename", _refuse)
        w = build_window()
    qtbot.addWidget(w)
    assert _kept_aside() == [] and path.read_bytes() == content
    assert w.current_tab_id() == TAB_IDS[0]  # the defaults
    w.load_panels()
    message = w.statusBar().currentMessage()
    assert "newer version" in message
    assert "could not be moved aside (Permission denied)" in message
    assert "left as it is" in message and "not be saved over it" in message
    w.session.state("sine").set("dim", 32)
    w.close()
    return path.read_bytes()


def test_a_last_session_that_cannot_be_moved_aside_is_not_overwritten_on_close(
    qtbot: QtBot, no_last_session: None
) -> None:
    last_session_path().parent.mkdir(parents=True, exist_ok=True)
    content = _start_and_close_with_a_damaged_last_session(qtbot, fail_moves=True)
    assert content == b'{"kind": "posenc-explorer-session", "version": 2}'
    assert _kept_aside() == []
    # once the file is gone (the user moved it), closing writes the last session again
    last_session_path().unlink()
    w = _window(qtbot)
    w.session.state("sine").set("dim", 32)
    w.close()
    assert Session.load(last_session_path()).state("sine").get("dim") == 32


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="root ignores a folder's permissions (the monkeypatched test covers it)",
)
def test_a_read_only_config_folder_keeps_the_damaged_last_session(
    qtbot: QtBot, no_last_session: None
) -> None:
    folder = last_session_path().parent
    folder.mkdir(parents=True, exist_ok=True)
    mode = folder.stat().st_mode
    last_session_path().write_bytes(b"")
    folder.chmod(0o555)
    try:
        content = _start_and_close_with_a_damaged_last_session(qtbot, fail_moves=False)
    finally:
        folder.chmod(mode)
    assert content == b'{"kind": "posenc-explorer-session", "version": 2}'
