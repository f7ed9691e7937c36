#!/usr/bin/env python3
"""One entry point for a fresh machine: set up the environment once, then run the app or the tests.

    python3 dev.py run [ARGS...]   # create .venv if needed, install, launch `posenc-gui ARGS...`
    python3 dev.py test [PYTEST ARGS...]  # same environment + test tools; ruff, mypy, then pytest
    python3 dev.py fuzz [--events N] [--seed S] [--minutes M] [--json FILE]
                                   # random GUI events on every tab, checked (offscreen);
                                   # ends with `fuzz: N events, F failures, RSS A -> B MB`

The virtual environment lives in `.venv/` next to this file. A stamp file records a hash of
pyproject.toml, constraints.txt and this script; when none of them changed, nothing is reinstalled.
Only the standard library is used here, so this runs on a bare Python 3.11.

On Linux, `run` first checks that the system libraries of Qt's xcb platform plugin are installed
(`ldd` on the plugin) and, when one is missing, names it with the Debian/Ubuntu package and the
apt command instead of letting Qt abort; likewise when there is no X display. Skipped for
QT_QPA_PLATFORM=offscreen/minimal/... and in a Wayland session, for the subcommands that open no
window (render, values, params) and in `test`.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import venv
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".posenc-install-stamp"
INPUTS = ("pyproject.toml", "constraints.txt", "dev.py")


def _venv_bin(name: str) -> Path:
    sub = "Scripts" if os.name == "nt" else "bin"
    suffix = ".exe" if os.name == "nt" else ""
    return VENV / sub / f"{name}{suffix}"


def _fingerprint(extra: str) -> str:
    digest = hashlib.sha256(extra.encode())
    digest.update(sys.version.encode())
    for name in INPUTS:
        digest.update((ROOT / name).read_bytes())
    return digest.hexdigest()


def ensure_environment(with_tests: bool) -> None:
    """Create .venv and install the project (editable) with pinned dependencies, once."""
    extra = "[test]" if with_tests else ""
    wanted = _fingerprint(extra)
    have = STAMP.read_text().split() if STAMP.exists() else []
    # A stamp made with the test extras also satisfies a plain run.
    if wanted in have or (not with_tests and _fingerprint("[test]") in have):
        return
    if not _venv_bin("python").exists():
        print(f"[dev] creating virtual environment in {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("[dev] installing dependencies (first run only; torch is ~190 MB)", flush=True)
    cmd = [
        str(_venv_bin("python")),
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "-c",
        str(ROOT / "constraints.txt"),
        "-e",
        f"{ROOT}{extra}",
    ]
    subprocess.run(cmd, check=True)
    STAMP.write_text(" ".join([*have, wanted]))


def _run(cmd: list[str]) -> int:
    print("[dev] " + " ".join(cmd[0:1] + cmd[1:]), flush=True)
    return subprocess.run(cmd, cwd=ROOT).returncode


def run_tests(pytest_args: list[str]) -> int:
    py = str(_venv_bin("python"))
    steps = [
        [py, "-m", "ruff", "check", "."],
        [py, "-m", "ruff", "format", "--check", "."],
        [py, "-m", "mypy"],
        [py, "-m", "pytest", *pytest_args],
    ]
    for step in steps:
        code = _run(step)
        if code != 0:
            print(f"[dev] FAILED: {' '.join(step[1:4])} exited with {code}", flush=True)
            return code
    return 0


# -- system libraries of the Qt xcb platform plugin (Linux) ---------------------------------------

#: Shared library (soname) -> Debian/Ubuntu package that provides it, for everything the xcb
#: platform plugin and its integration library link against (from `ldd libqxcb.so`, PySide6 6.x).
#: On Ubuntu 24.04 some packages carry a ``t64`` suffix (libglib2.0-0t64); apt resolves the
#: names below to them.
XCB_PACKAGES: dict[str, str] = {
    "libxcb.so.1": "libxcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xinput.so.0": "libxcb-xinput0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-glx.so.0": "libxcb-glx0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libXau.so.6": "libxau6",
    "libXdmcp.so.6": "libxdmcp6",
    "libGL.so.1": "libgl1",
    "libEGL.so.1": "libegl1",
    "libGLX.so.0": "libglx0",
    "libOpenGL.so.0": "libopengl0",
    "libGLdispatch.so.0": "libglvnd0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libdbus-1.so.3": "libdbus-1-3",
    "libexpat.so.1": "libexpat1",
    "libpng16.so.16": "libpng16-16",
    "libz.so.1": "zlib1g",
    "libzstd.so.1": "libzstd1",
    "libbrotlidec.so.1": "libbrotli1",
    "libbrotlicommon.so.1": "libbrotli1",
    "libpcre2-8.so.0": "libpcre2-8-0",
    "libbsd.so.0": "libbsd0",
    "libmd.so.0": "libmd0",
    "libstdc++.so.6": "libstdc++6",
    "libgcc_s.so.1": "libgcc-s1",
}
#: Platforms that need no display libraries (QT_QPA_PLATFORM values).
_HEADLESS_PLATFORMS = {"offscreen", "minimal", "minimalegl", "vnc", "linuxfb", "eglfs"}
_NOT_FOUND = re.compile(r"^\s*(\S+)\s*=>\s*not found\s*$")
#: `posenc-gui` subcommands and options that open no window.
_WINDOWLESS_COMMANDS = {"render", "values", "params"}
_WINDOWLESS_OPTIONS = {"-h", "--help", "--version"}


def missing_libraries(ldd_output: str) -> list[str]:
    """The sonames that ``ldd`` reports as "not found", each once, in order of appearance."""
    found: list[str] = []
    for line in ldd_output.splitlines():
        match = _NOT_FOUND.match(line)
        if match and match.group(1) not in found:
            found.append(match.group(1))
    return found


def missing_library_message(missing: list[str]) -> str:
    """A message naming each missing library, its package and the apt command that installs it."""
    lines = ["[dev] cannot start the window: Qt's xcb platform plugin needs system libraries"]
    packages: list[str] = []
    unknown: list[str] = []
    for soname in missing:
        package = XCB_PACKAGES.get(soname)
        if package is None and soname.startswith("libQt6"):
            lines.append(f"  {soname}: part of PySide6 - reinstall it (delete .venv, run again)")
            continue
        if package is None:
            unknown.append(soname)
            lines.append(f"  {soname}: missing (find its package: apt-file search {soname})")
            continue
        lines.append(f"  {soname}: missing, provided by the package {package}")
        if package not in packages:
            packages.append(package)
    if packages:
        lines.append("Install on Debian/Ubuntu with:")
        lines.append(f"  sudo apt-get install {' '.join(packages)}")
    lines.append("(Pictures need no display: python3 dev.py run render --tab sine --out sine.png)")
    return "\n".join(lines)


def opens_window(args: list[str]) -> bool:
    """True when ``posenc-gui ARGS`` opens the window (not ``render``/``values``/``params``)."""
    if args and args[0] in _WINDOWLESS_COMMANDS:
        return False
    return not _WINDOWLESS_OPTIONS.intersection(args)


def platform_needs_xcb(environ: Mapping[str, str]) -> bool:
    """True when Qt will use its xcb (X11) platform plugin under ``environ``."""
    platform = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip().lower()
    if platform:
        return platform == "xcb"
    # Unset: Qt prefers Wayland in a Wayland session and falls back to xcb otherwise.
    return not environ.get("WAYLAND_DISPLAY")


def xcb_plugin_files() -> list[Path]:
    """libqxcb.so and libQt6XcbQpa.so.* of the PySide6 in .venv (empty when not installed)."""
    site = sorted(VENV.glob("lib/python3*/site-packages/PySide6/Qt"))
    if not site:
        return []
    qt = site[-1]
    return [*qt.glob("plugins/platforms/libqxcb.so"), *sorted(qt.glob("lib/libQt6XcbQpa.so*"))]


def check_gui_libraries() -> bool:
    """On Linux with the xcb platform: False (after printing what to install) when a library
    of the xcb plugin is missing. True when all are there or the check does not apply."""
    if not sys.platform.startswith("linux") or not platform_needs_xcb(os.environ):
        return True
    ldd = shutil.which("ldd")
    files = xcb_plugin_files()
    if ldd is None or not files:
        return True  # nothing to check with: let Qt report what it finds
    output = ""
    for path in files:
        result = subprocess.run([ldd, str(path)], capture_output=True, text=True, check=False)
        output += result.stdout
    missing = missing_libraries(output)
    if missing:
        print(missing_library_message(missing), file=sys.stderr, flush=True)
        return False
    return True


def display_problem(environ: Mapping[str, str]) -> str | None:
    """Why the xcb platform cannot open a window under ``environ`` (no X display), or None."""
    if not platform_needs_xcb(environ) or environ.get("DISPLAY"):
        return None
    return (
        "[dev] cannot start the window: no X display (DISPLAY is not set).\n"
        "Run it in a desktop session or over `ssh -X`; pictures need no display:\n"
        "  python3 dev.py run render --tab sine --out sine.png"
    )


def check_display() -> bool:
    """On Linux: False (after printing why) when Qt's xcb platform would find no display."""
    if not sys.platform.startswith("linux"):
        return True
    problem = display_problem(os.environ)
    if problem is not None:
        print(problem, file=sys.stderr, flush=True)
        return False
    return True


def fuzz_command(args: list[str]) -> list[str]:
    """The command of ``dev.py fuzz ARGS``: the randomized GUI driver in the environment."""
    return [str(_venv_bin("python")), "-m", "posenc_gui.testing.fuzz", *args]


def fuzz_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` for a fuzz run: the offscreen platform (no window on screen, no display
    needed), as for the tests."""
    return {**environ, "QT_QPA_PLATFORM": "offscreen"}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"run", "test", "setup", "fuzz"}:
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    ensure_environment(with_tests=command in {"test", "setup", "fuzz"})
    if command == "run":
        if opens_window(rest) and not (check_gui_libraries() and check_display()):
            return 1
        code = subprocess.run([str(_venv_bin("posenc-gui")), *rest]).returncode
        return 128 - code if code < 0 else code  # killed by signal N: 128 + N, as a shell says
    if command == "test":
        return run_tests(rest)
    if command == "fuzz":
        code = subprocess.run(fuzz_command(rest), cwd=ROOT, env=fuzz_environment(os.environ))
        return 128 - code.returncode if code.returncode < 0 else code.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
