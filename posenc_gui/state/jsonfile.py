"""Reading and writing the app's JSON files (sessions, lesson decks): one set of checks.

A file is refused before it is parsed when it is larger than the limit or not UTF-8 text; text
that is not JSON (or nested too deeply to parse) is refused with the parser's reason and line.
Every refusal is the caller's error class with a message that starts "not a <what>: ", and
nothing has been changed anywhere. Writing is atomic: a temporary file in the target's folder,
then renamed, so a crash mid-write never leaves half a file in place. Qt-free.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from posenc_gui.state.params import echo


def parse(text: str, what: str, error: type[Exception]) -> object:
    """The JSON value of ``text``; ``error("not a <what>: …")`` when it is not JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise error(f"not a {what}: invalid JSON ({err.msg}, line {err.lineno})") from None
    except RecursionError:
        raise error(f"not a {what}: the JSON is nested too deeply") from None


def check_version(
    data: Mapping[str, object], what: str, error: type[Exception], newest: int
) -> int:
    """The file's ``'version'``: a positive integer no newer than ``newest`` (the version this
    app writes), else ``error`` saying what is wrong (a newer file asks for an update)."""
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise error(f"'version' must be a positive integer, got {echo(version)}")
    if version > newest:
        raise error(
            f"the {what} was written by a newer version (format {version}; this app reads "
            f"up to {newest}): update PosEnc Explorer to open it"
        )
    return version


def read(path: str | os.PathLike[str], what: str, error: type[Exception], max_bytes: int) -> object:
    """The JSON value of the file at ``path`` (see :func:`parse`); :class:`OSError` when it
    cannot be read, ``error`` when it is too large, not UTF-8 or not JSON."""
    p = Path(path)
    if p.stat().st_size > max_bytes:
        raise error(f"not a {what}: the file is larger than {max_bytes} bytes")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise error(f"not a {what}: the file is not UTF-8 text") from None
    return parse(text, what, error)


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, replacing a file that is there."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}-", suffix=target.suffix, dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
