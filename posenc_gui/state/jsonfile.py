"""Reading and writing the app's files (sessions, lesson decks): one set of checks. Qt-free.

Reading: a path that is not a regular file (a device, a named pipe, a socket, a folder) is
refused before it is opened, so ``/dev/zero`` or a pipe never blocks or fills memory; the file is
opened non-blocking (a belt against a swap after the check) and at most ``max_bytes + 1`` bytes
are read, so a file larger than the limit is refused whatever ``stat`` said. Text that is not
UTF-8 or not JSON (or nested too deeply) is refused with the parser's reason and line. Numbers
are read by :func:`~posenc_gui.state.params.read_number`: one that no float holds (``1e400``,
an integer of 400 or 5000 digits) becomes :class:`~posenc_gui.state.params.Unrepresentable`,
which every validator refuses naming its field ("got a 401-digit integer"). Every refusal is
the caller's error class with a message that starts "not a <what>: " (or names the field), and
nothing has been changed anywhere.

Writing (:func:`write_atomic`, for every file the app writes): only to a regular file or a new
path; through a symlink to its target; an existing file keeps its mode (a read-only one is
refused), a new one follows the umask; a temporary file in the target's folder is written in
full, its size checked and flushed to the disk, then renamed over the target, so a crash, a full
disk or a short write never leaves half a file in place, and an error never names the temporary
file.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path

from posenc_gui.state.params import echo, read_number


class WriteRefusedError(OSError):
    """A path :func:`write_atomic` will not write to (a device, a named pipe, a folder, a
    read-only file); the message says why, and nothing was written."""


def file_kind(mode: int) -> str:
    """What a ``stat`` mode is, in words: "a folder", "a named pipe", "a character device"…"""
    kinds = (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "not a file")


def unpaired_surrogate(text: str) -> str | None:
    """``"U+D800"`` when ``text`` holds a lone surrogate (JSON's ``"\\ud800"``, which no UTF-8
    file can be written with), else ``None``."""
    for ch in text:
        if 0xD800 <= ord(ch) <= 0xDFFF:
            return f"U+{ord(ch):04X}"
    return None


def parse(text: str, what: str, error: type[Exception]) -> object:
    """The JSON value of ``text``; ``error("not a <what>: …")`` when it is not JSON. Numbers no
    float holds are :class:`~posenc_gui.state.params.Unrepresentable` (never an exception)."""
    try:
        return json.loads(text, parse_int=read_number, parse_float=read_number)
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
            f"the {what} was written by a newer version (format {echo(version)}; this app "
            f"reads up to {newest}): update PosEnc Explorer to open it"
        )
    return version


def read(path: str | os.PathLike[str], what: str, error: type[Exception], max_bytes: int) -> object:
    """The JSON value of the file at ``path`` (see :func:`parse`); :class:`OSError` when it
    cannot be read, ``error`` when it is not a regular file, too large, not UTF-8 or not JSON."""
    name = os.fspath(path)
    st = os.stat(name)
    if not stat.S_ISREG(st.st_mode):
        raise error(f"not a {what}: {name!r} is not a regular file ({file_kind(st.st_mode)})")
    if st.st_size > max_bytes:
        raise error(f"not a {what}: the file is larger than {max_bytes} bytes")
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as fh:
        mode = os.fstat(fh.fileno()).st_mode
        if not stat.S_ISREG(mode):  # swapped for something else since the check
            raise error(f"not a {what}: {name!r} is not a regular file ({file_kind(mode)})")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise error(f"not a {what}: the file is larger than {max_bytes} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"not a {what}: the file is not UTF-8 text") from None
    return parse(text, what, error)


def write_atomic(
    path: str | os.PathLike[str], data: bytes | str, *, overwrite: bool = True
) -> Path:
    """Write ``data`` (``str`` as UTF-8) to ``path`` atomically and verified; the path written.

    ``path`` must be a regular file or a new path (a device, named pipe, socket or folder
    raises :class:`WriteRefusedError`, and nothing is written); a symlink is followed and its target
    replaced (the link stays a link). An existing file keeps its permission bits; a read-only
    one is refused (:class:`WriteRefusedError`: replacing it by a rename would bypass what its owner
    asked for). A new file gets the umask's mode. With ``overwrite=False`` an existing file
    raises :class:`FileExistsError` and is left alone (even one that appears meanwhile).
    The bytes go to a temporary file in the same folder, written in full (a short write, a full
    disk: :class:`OSError`), checked for size, flushed to the disk, then renamed into place; on
    any failure the temporary file is removed, the target is untouched and the error names
    ``path``, never the temporary file.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    given = Path(path)
    target = Path(os.path.realpath(given)) if given.is_symlink() else given
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    keep_mode: int | None = None
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            kind = file_kind(st.st_mode)
            raise WriteRefusedError(f"{str(given)!r} is not a regular file ({kind})")
        if not overwrite:
            raise FileExistsError(errno.EEXIST, "it exists already; not replaced", str(given))
        if not st.st_mode & 0o222 or not os.access(target, os.W_OK):
            raise WriteRefusedError(f"{str(given)!r} is read-only")
        keep_mode = stat.S_IMODE(st.st_mode)
    tmp: Path | None = None
    try:
        tmp, fd = _create_temp(target)
        try:
            _write_all(fd, payload)
            if keep_mode is not None:
                os.fchmod(fd, keep_mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        if overwrite:
            os.replace(tmp, target)
        else:
            _move_no_clobber(tmp, target)
        tmp = None
    except OSError as err:
        if isinstance(err, FileExistsError | WriteRefusedError):
            raise
        raise OSError(err.errno, err.strerror or str(err), str(given)) from None
    finally:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
    _sync_folder(target.parent)
    return target


def _create_temp(target: Path) -> tuple[Path, int]:
    """A new hidden file next to ``target``, opened for writing, mode 0666 less the umask."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            return tmp, os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(target))


def _write_all(fd: int, payload: bytes) -> None:
    """Write every byte (a write may take only part); then check the file's size."""
    view = memoryview(payload)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(errno.EIO, "short write: the disk took no more bytes")
        view = view[n:]
    if os.fstat(fd).st_size != len(payload):
        raise OSError(errno.EIO, f"short write: the file is not {len(payload)} bytes long")


def _move_no_clobber(tmp: Path, target: Path) -> None:
    """Rename without replacing a file that appeared meanwhile (a hard link is atomic)."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise FileExistsError(
            errno.EEXIST, "it exists already; not replaced", str(target)
        ) from None
    except OSError:  # no hard links here (FAT, some network shares): check, then rename
        if target.exists():
            raise FileExistsError(
                errno.EEXIST, "it exists already; not replaced", str(target)
            ) from None
        os.replace(tmp, target)
        return
    tmp.unlink()


def _sync_folder(folder: Path) -> None:
    """Flush the rename to the disk where the system allows it (not on Windows)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
