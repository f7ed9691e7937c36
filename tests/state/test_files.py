"""Session and deck files as an attacker or a full disk would have them (issue 20).

Huge numbers, lone surrogates and special files (devices, pipes, folders) are refused with an
exact message before anything is read or changed; writes go only to regular files or new paths,
through symlinks to their targets, keep an existing file's mode and are verified.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from posenc_gui.state import jsonfile
from posenc_gui.state.deck import FORMAT, Deck, DeckError
from posenc_gui.state.deck import SCHEMA_VERSION as DECK_VERSION
from posenc_gui.state.session import Session, SessionError

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


def _session_text(**changes: Any) -> str:
    data = Session("sine").to_dict()
    data.update(changes)
    return json.dumps(data)


def _deck(steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {"format": FORMAT, "version": DECK_VERSION, "title": "T", "steps": steps}


# -- finding 1: huge numbers ------------------------------------------------------------------
def test_huge_integer_scale_is_refused_naming_the_field() -> None:
    text = _session_text().replace('"scale": 1.0', '"scale": 1' + "0" * 400)
    with pytest.raises(SessionError) as err:
        Session.from_json(text)
    assert str(err.value) == "'scale' must be a number from 0.75 to 3.0, got a 401-digit integer"


def test_integer_beyond_pythons_string_limit_is_refused() -> None:
    text = _session_text().replace('"scale": 1.0', '"scale": ' + "9" * 5000)
    with pytest.raises(SessionError, match=r"'scale' must be .*, got a 5000-digit integer"):
        Session.from_json(text)


@pytest.mark.parametrize("number", ["1" + "0" * 400, "1e400", "-1e400"])
def test_huge_float_parameter_is_refused_naming_the_parameter(number: str) -> None:
    data = Session("sine").to_dict()
    data["tabs"] = {"sine": {"params": {"amplitude": "@"}}}
    text = json.dumps(data).replace('"@"', number)
    with pytest.raises(SessionError) as err:
        Session.from_json(text)
    message = str(err.value)
    assert message.startswith("tab 'sine': amplitude must be a number from 0 to 2, got ")
    assert "inf" not in message


def test_huge_integer_in_a_deck_names_the_step() -> None:
    text = json.dumps(_deck([{"tab": "sine"}, {"tab": "sine", "params": {"dim": "@"}}]))
    with pytest.raises(DeckError) as err:
        Deck.loads(text.replace('"@"', "2" + "0" * 400))
    assert str(err.value) == (
        "step 2 (tab 'sine'): 'params': dim must be an even integer from 2 to 1024, "
        "got a 401-digit integer"
    )


def test_huge_version_is_refused() -> None:
    text = json.dumps(_deck([{"tab": "sine"}])).replace(
        f'"version": {DECK_VERSION}', '"version": 1' + "0" * 5000
    )
    with pytest.raises(DeckError, match="'version' must be a positive integer, got a 5001-digit"):
        Deck.loads(text)


# -- finding 10: lone surrogates ---------------------------------------------------------------
def test_deck_caption_with_a_lone_surrogate_is_refused_at_load() -> None:
    steps = [{"tab": "sine"}, {"tab": "sine"}, {"tab": "sine", "caption": "a\ud800b"}]
    with pytest.raises(DeckError) as err:
        Deck.loads(json.dumps(_deck(steps)))
    assert str(err.value) == "step 3: 'caption' contains an unpaired surrogate (U+D800)"


def test_deck_title_with_a_lone_surrogate_is_refused_at_load() -> None:
    data = {**_deck([{"tab": "sine"}]), "title": "x\udfffy"}
    with pytest.raises(DeckError, match=r"'title' contains an unpaired surrogate \(U\+DFFF\)"):
        Deck.loads(json.dumps(data))


def test_session_view_text_with_a_lone_surrogate_is_refused_at_load() -> None:
    data = Session("sine").to_dict()
    data["tabs"]["heatmap"]["view"] = {"mode": "\ud834"}
    with pytest.raises(SessionError) as err:
        Session.from_json(json.dumps(data))
    assert str(err.value) == (
        "tab 'heatmap': 'view' 'mode' contains an unpaired surrogate (U+D834)"
    )


# -- finding 6: special files as input ---------------------------------------------------------
@needs_fifo
def test_fifo_as_session_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)  # never opened for writing: a read that opened it would block for ever
    with pytest.raises(SessionError) as err:
        Session.load(fifo)
    assert str(err.value) == f"not a session: {str(fifo)!r} is not a regular file (a named pipe)"
    with pytest.raises(DeckError, match=r"not a deck: .* is not a regular file \(a named pipe\)"):
        Deck.load(fifo)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_character_device_as_session_is_refused() -> None:
    with pytest.raises(SessionError) as err:
        Session.load("/dev/zero")
    assert str(err.value) == (
        "not a session: '/dev/zero' is not a regular file (a character device)"
    )


def test_folder_as_deck_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DeckError, match="is not a regular file \\(a folder\\)"):
        Deck.load(tmp_path)


def test_read_takes_at_most_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a file that grows after the size check is still cut at the limit, then refused
    path = tmp_path / "s.json"
    path.write_text(_session_text() + " " * 100, encoding="utf-8")
    real_stat = os.stat

    def small_stat(p: Any, *a: Any, **k: Any) -> os.stat_result:
        st = real_stat(p, *a, **k)
        return os.stat_result((st.st_mode, *st[1:6], 10, *st[7:]))

    monkeypatch.setattr(jsonfile.os, "stat", small_stat)
    with pytest.raises(SessionError, match="larger than 50 bytes"):
        jsonfile.read(path, "session", SessionError, 50)


# -- finding 7: writes -------------------------------------------------------------------------
@needs_fifo
def test_write_to_a_fifo_is_refused_and_nothing_written(tmp_path: Path) -> None:
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match=r"is not a regular file \(a named pipe\)"):
        jsonfile.write_atomic(fifo, "{}")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_write_to_a_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "out.json"
    folder.mkdir()
    with pytest.raises(OSError, match=r"is not a regular file \(a folder\)"):
        jsonfile.write_atomic(folder, "{}")
    assert folder.is_dir() and list(folder.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_write_to_a_device_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "null"
    target.write_text("kept", encoding="utf-8")
    real_stat = os.stat

    def as_device(p: Any, *a: Any, **k: Any) -> os.stat_result:
        st = real_stat(p, *a, **k)
        if Path(p) == target:
            mode = stat.S_IFCHR | 0o666
            return os.stat_result((mode, *st[1:]))
        return st

    monkeypatch.setattr(jsonfile.os, "stat", as_device)
    with pytest.raises(OSError, match=r"is not a regular file \(a character device\)"):
        jsonfile.write_atomic(target, "{}")
    assert target.read_text(encoding="utf-8") == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


def test_write_through_a_symlink_replaces_its_target(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    jsonfile.write_atomic(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text(encoding="utf-8") == "new"


def test_write_keeps_an_existing_files_mode(tmp_path: Path) -> None:
    path = tmp_path / "shared.json"
    path.write_text("old", encoding="utf-8")
    path.chmod(0o644)
    jsonfile.write_atomic(path, b"new")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    path.chmod(0o640)
    jsonfile.write_atomic(path, "newer")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert path.read_text(encoding="utf-8") == "newer"


def test_write_refuses_a_read_only_file(tmp_path: Path) -> None:
    path = tmp_path / "ro.json"
    path.write_text("old", encoding="utf-8")
    path.chmod(0o444)
    with pytest.raises(OSError, match="is read-only"):
        jsonfile.write_atomic(path, "new")
    assert path.read_text(encoding="utf-8") == "old"
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ro.json"]


def test_new_file_follows_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        jsonfile.write_atomic(tmp_path / "a.json", "{}")
        os.umask(0o027)
        jsonfile.write_atomic(tmp_path / "b.json", "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "b.json").stat().st_mode) == 0o640


def test_full_disk_is_an_error_and_leaves_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.json"
    path.write_text("old", encoding="utf-8")

    def full(fd: int, data: Any) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(jsonfile.os, "write", full)
    with pytest.raises(OSError) as err:
        jsonfile.write_atomic(path, "new")
    assert err.value.errno == errno.ENOSPC and err.value.filename == str(path)
    assert ".tmp" not in str(err.value)
    assert path.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


def test_short_write_is_detected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write

    def lying(fd: int, data: Any) -> int:  # writes half, says it wrote all
        real_write(fd, bytes(data)[: len(data) // 2])
        return len(data)

    monkeypatch.setattr(jsonfile.os, "write", lying)
    with pytest.raises(OSError, match="short write"):
        jsonfile.write_atomic(tmp_path / "s.json", "0123456789")
    assert list(tmp_path.iterdir()) == []


def test_failed_write_never_names_the_temporary_file(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("running as root: the folder stays writable")
        with pytest.raises(OSError) as err:
            jsonfile.write_atomic(folder / "s.json", "{}")
    finally:
        folder.chmod(0o700)
    assert err.value.filename == str(folder / "s.json")
    assert ".tmp" not in str(err.value) and "/.s" not in str(err.value)


def test_no_clobber_write_keeps_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "deck.json"
    path.write_text("old", encoding="utf-8")
    with pytest.raises(FileExistsError):
        jsonfile.write_atomic(path, "new", overwrite=False)
    assert path.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deck.json"]
    jsonfile.write_atomic(tmp_path / "new.json", "x", overwrite=False)
    assert (tmp_path / "new.json").read_text(encoding="utf-8") == "x"
