#!/usr/bin/env python3
"""One entry point for a fresh machine: set up the environment once, then run the app or the tests.

    python3 dev.py run [ARGS...]   # create .venv if needed, install, launch `posenc-gui ARGS...`
    python3 dev.py test [PYTEST ARGS...]  # same environment + test tools; ruff, mypy, then pytest
    python3 dev.py fuzz [--events N] [--seed S] [--minutes M] [--json FILE]
                                   # random GUI events on every tab, checked (offscreen);
                                   # ends with `fuzz: N events, F failures, RSS A -> B MB`
    python3 dev.py package         # PyInstaller bundle in dist/posenc-gui/, then its smoke test
    python3 dev.py package --wheel # wheel + sdist in dist/, installed and run in a fresh venv
    python3 dev.py package --install-desktop | --uninstall-desktop
                                   # launcher entry, icons and metainfo for the current user

The virtual environment lives in `.venv/` next to this file. A stamp file records a hash of
pyproject.toml, constraints.txt and this script; when none of them changed, nothing is reinstalled.
Only the standard library is used here, so this runs on a bare Python 3.11.

torch comes from PyTorch's CPU wheel index on Linux and Windows when it answers within a few
seconds (PyPI's own Linux wheel is the CUDA build, gigabytes of GPU libraries), else from the
default index; one line says which. Packaging (bundle, wheel, desktop files) is described in
packaging/README.md.

On Linux, `run` first checks that the system libraries of Qt's xcb platform plugin are installed
(`ldd` on the plugin) and, when one is missing, names it with the Debian/Ubuntu package and the
apt command instead of letting Qt abort; likewise when there is no X display. Skipped for
QT_QPA_PLATFORM=offscreen/minimal/... and in a Wayland session, for the subcommands that open no
window (render, values, params) and in `test`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.error
import urllib.request
import venv
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".posenc-install-stamp"
INPUTS = ("pyproject.toml", "constraints.txt", "dev.py")
#: PyTorch's index of CPU-only wheels (Linux, Windows; on macOS every wheel is a CPU build).
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
#: Seconds to wait for the CPU index before falling back to the default index.
TORCH_INDEX_TIMEOUT = 4.0


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
    torch_index = choose_torch_index(installed_torch(), sys.platform, index_answers)
    print(f"[dev] torch: {torch_index.reason}", flush=True)
    if torch_index.url is not None:
        # torch alone from the CPU index first; the install below then finds it satisfied.
        subprocess.run(pip_install_command(["torch"], index_url=torch_index.url), check=True)
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
    warning = cuda_torch_warning(installed_torch(), sys.platform)
    if warning:
        print(warning, flush=True)
    STAMP.write_text(" ".join([*have, wanted]))


# -- torch from the CPU wheel index ---------------------------------------------------------------


class TorchIndex(NamedTuple):
    """Where torch is installed from: ``url`` (None: the default index) and why, for the log."""

    url: str | None
    reason: str


def torch_pin(constraints: str) -> str | None:
    """The version ``constraints.txt`` pins torch to (``torch==V``), or None."""
    match = re.search(r"^torch==([^\s#;]+)", constraints, re.MULTILINE)
    return match.group(1) if match else None


def installed_torch() -> str | None:
    """The version of torch installed in .venv (``2.13.0+cpu``), or None."""
    for info in VENV.glob("lib*/python3*/site-packages/torch-*.dist-info"):
        return info.name.removeprefix("torch-").removesuffix(".dist-info")
    for info in VENV.glob("Lib/site-packages/torch-*.dist-info"):  # Windows
        return info.name.removeprefix("torch-").removesuffix(".dist-info")
    return None


def index_answers(url: str, timeout: float = TORCH_INDEX_TIMEOUT) -> str | None:
    """None when ``url``'s torch page answers within ``timeout`` seconds, else why not. The
    question runs in a thread: a name lookup that hangs (no socket timeout covers it) cannot
    hold up the install for longer than ``timeout``."""
    answers: list[str | None] = []

    def ask() -> None:
        try:
            with urllib.request.urlopen(f"{url}/torch/", timeout=timeout) as response:
                answers.append(None if response.status == 200 else f"HTTP {response.status}")
        except Exception as err:  # URLError, timeouts, refused connections, bad HTTP
            answers.append(str(getattr(err, "reason", err)) or type(err).__name__)

    thread = threading.Thread(target=ask, name="torch-index-probe", daemon=True)
    thread.start()
    thread.join(timeout)
    return answers[0] if answers else f"no answer within {timeout:g} s"


def choose_torch_index(
    have: str | None,
    platform: str,
    probe: Callable[[str], str | None],
    constraints: str | None = None,
) -> TorchIndex:
    """The index to install torch from: PyTorch's CPU index on Linux and Windows when ``probe``
    finds it answering, else the default index. Nothing is asked when the pinned torch is
    installed already (``have``) or on macOS, whose wheels are CPU builds."""
    if constraints is None:
        constraints = (ROOT / "constraints.txt").read_text()
    pin = torch_pin(constraints)
    if have is not None and pin is not None and have.split("+")[0] == pin:
        return TorchIndex(None, f"torch {have} is installed already")
    if not (platform.startswith("linux") or platform == "win32"):
        return TorchIndex(None, "default package index (its torch for this system is a CPU build)")
    problem = probe(TORCH_CPU_INDEX)
    if problem is None:
        return TorchIndex(TORCH_CPU_INDEX, f"CPU wheel index {TORCH_CPU_INDEX}")
    return TorchIndex(None, f"default package index ({TORCH_CPU_INDEX} did not answer: {problem})")


def cuda_torch_warning(have: str | None, platform: str) -> str | None:
    """A note when the installed torch is not a CPU build on Linux/Windows (``2.13.0`` from
    PyPI's default index on Linux is the CUDA build; CPU builds are ``2.13.0+cpu``)."""
    if have is None or not (platform.startswith("linux") or platform == "win32"):
        return None
    if have.endswith("+cpu") or (platform == "win32" and "+" not in have):
        return None  # PyPI's Windows wheel is the CPU build
    return (
        f"[dev] note: torch {have} is not the CPU build (it may carry GB of CUDA libraries);"
        f" for the CPU build: delete .venv and run again with {TORCH_CPU_INDEX} reachable"
    )


def pip_install_command(
    requirements: list[str], index_url: str | None = None, python: Path | None = None
) -> list[str]:
    """``pip install`` by ``python`` (.venv's) with the pins of constraints.txt (and
    ``--index-url``)."""
    py = python if python is not None else _venv_bin("python")
    cmd = [str(py), "-m", "pip", "install", "--disable-pip-version-check"]
    if index_url is not None:
        cmd += ["--index-url", index_url]
    return [*cmd, "-c", str(ROOT / "constraints.txt"), *requirements]


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


# -- packaging: bundle, wheel, desktop integration (packaging/README.md) --------------------------

APP_ID = "io.github.posenc.PosEncExplorer"
DIST = ROOT / "dist"
PACKAGING = ROOT / "packaging"
SPEC = PACKAGING / "posenc-gui.spec"
RESOURCES = ROOT / "posenc_gui" / "resources"
PACKAGE_USAGE = (
    "usage: python3 dev.py package [--wheel] [--no-smoke]\n"
    "       python3 dev.py package --install-desktop [--exec PATH] | --uninstall-desktop"
)


def bundle_executable(dist: Path = DIST) -> Path:
    """The executable of the PyInstaller bundle in ``dist``."""
    return dist / "posenc-gui" / ("posenc-gui.exe" if os.name == "nt" else "posenc-gui")


def tree_size(path: Path) -> int:
    """Bytes of the files under ``path`` (symbolic links not followed, not counted)."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def ensure_tool(module: str, requirement: str) -> None:
    """Install ``requirement`` into .venv (pinned by constraints.txt) unless ``module`` imports."""
    check = subprocess.run(
        [str(_venv_bin("python")), "-c", f"import {module}"], capture_output=True, check=False
    )
    if check.returncode != 0:
        print(f"[dev] installing {requirement} into .venv", flush=True)
        subprocess.run(pip_install_command([requirement]), check=True)


def smoke_environment(home: Path, environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The environment of the smoke test: empty but for the offscreen platform and a home in a
    temporary folder (and, on Windows, what the C runtime cannot start without)."""
    env = {"QT_QPA_PLATFORM": "offscreen", "HOME": str(home)}
    if os.name == "nt":
        env["USERPROFILE"] = str(home)
        env.update({k: environ[k] for k in ("SYSTEMROOT", "TEMP", "TMP") if k in environ})
    return env


def smoke_test(command: list[str], workdir: Path, env: Mapping[str, str]) -> list[str]:
    """Run ``command params``, then ``render`` and ``values`` for every tab it lists; the
    failures (empty when all passed). Pictures go to ``workdir``."""

    def run(args: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*command, *args], env=dict(env), cwd=workdir, capture_output=True, text=True
        )

    params = run(["params"])
    try:
        tabs = [t["tab"] for t in json.loads(params.stdout)["tabs"]]
    except (ValueError, KeyError, TypeError):
        return [f"params: exit {params.returncode}, no JSON tab list\n{params.stderr[-2000:]}"]
    failures: list[str] = []
    for tab in tabs:
        start = time.monotonic()
        out = workdir / f"{tab}.png"
        rendered = run(["render", "--tab", tab, "--out", str(out)])
        if rendered.returncode != 0 or not out.exists() or out.read_bytes()[:4] != b"\x89PNG":
            failures.append(f"render --tab {tab}: exit {rendered.returncode}\n{rendered.stderr}")
        values = run(["values", "--tab", tab])
        try:
            ok = values.returncode == 0 and json.loads(values.stdout)["tab"] == tab
        except (ValueError, KeyError, TypeError):
            ok = False
        if not ok:
            failures.append(f"values --tab {tab}: exit {values.returncode}\n{values.stderr}")
        print(f"[dev] smoke: {tab}: render + values {time.monotonic() - start:.1f} s", flush=True)
    if not tabs:
        failures.append("params: no tabs")
    return failures


def build_bundle(smoke: bool = True) -> int:
    """Build dist/posenc-gui/ with PyInstaller, report its size and build time, smoke-test it."""
    ensure_environment(with_tests=False)
    ensure_tool("PyInstaller", "pyinstaller")
    start = time.monotonic()
    py = str(_venv_bin("python"))
    build = [py, "-m", "PyInstaller", "--noconfirm", "--distpath", str(DIST)]
    code = _run([*build, "--workpath", str(ROOT / "build"), str(SPEC)])
    if code != 0:
        return code
    elapsed = time.monotonic() - start
    size = tree_size(DIST / "posenc-gui")
    print(f"[dev] bundle: {DIST / 'posenc-gui'}: {size / 1e6:.0f} MB, built in {elapsed:.0f} s")
    if not smoke:
        return 0
    with tempfile.TemporaryDirectory(prefix="posenc-smoke-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        env = smoke_environment(home)
        failures = smoke_test([str(bundle_executable())], Path(tmp), env)
    return _report_smoke("bundle", failures)


def _report_smoke(what: str, failures: list[str]) -> int:
    for failure in failures:
        print(f"[dev] smoke FAILED: {failure}", file=sys.stderr, flush=True)
    print(f"[dev] smoke test of the {what}: {'FAILED' if failures else 'passed'}", flush=True)
    return 1 if failures else 0


def resource_files(root: Path = RESOURCES) -> list[str]:
    """The package data: files under posenc_gui/resources, as paths inside the package."""
    return sorted(
        p.relative_to(root.parent.parent).as_posix()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )


def archive_missing(names: list[str], wanted: list[str]) -> list[str]:
    """The files of ``wanted`` (``posenc_gui/...``) that no name of an archive ends with."""
    have = {n.replace("\\", "/") for n in names}
    return [w for w in wanted if w not in have and not any(n.endswith("/" + w) for n in have)]


def build_wheel(smoke: bool = True) -> int:
    """Wheel and sdist into dist/; both checked for the package data, the wheel installed into a
    fresh venv (torch as ensure_environment chooses) and run."""
    ensure_environment(with_tests=False)
    ensure_tool("build", "build")
    for old in [*DIST.glob("posenc_gui-*.whl"), *DIST.glob("posenc_gui-*.tar.gz")]:
        old.unlink()
    start = time.monotonic()
    code = _run([str(_venv_bin("python")), "-m", "build", "--outdir", str(DIST), str(ROOT)])
    if code != 0:
        return code
    wheel = next(DIST.glob("posenc_gui-*.whl"))
    sdist = next(DIST.glob("posenc_gui-*.tar.gz"))
    print(f"[dev] built {wheel.name} and {sdist.name} in {time.monotonic() - start:.0f} s")
    wanted = resource_files()
    with zipfile.ZipFile(wheel) as zf:
        missing = archive_missing(zf.namelist(), wanted)
    with tarfile.open(sdist) as tf:
        missing += archive_missing(tf.getnames(), wanted)
    if missing:
        print(f"[dev] package data missing: {missing}", file=sys.stderr)
        return 1
    print(f"[dev] wheel and sdist hold all {len(wanted)} files of posenc_gui/resources")
    if not smoke:
        return 0
    with tempfile.TemporaryDirectory(prefix="posenc-wheel-") as tmp:
        env_dir = Path(tmp) / "venv"
        venv.EnvBuilder(with_pip=True).create(env_dir)
        sub = "Scripts" if os.name == "nt" else "bin"
        python = env_dir / sub / ("python.exe" if os.name == "nt" else "python")
        torch_index = choose_torch_index(None, sys.platform, index_answers)
        print(f"[dev] torch: {torch_index.reason}", flush=True)
        if torch_index.url is not None:
            subprocess.run(pip_install_command(["torch"], torch_index.url, python), check=True)
        subprocess.run(pip_install_command([str(wheel)], python=python), check=True)
        home = Path(tmp) / "home"
        home.mkdir()
        command = [str(env_dir / sub / "posenc-gui"), "values", "--tab", "sine"]
        result = subprocess.run(
            command, env=smoke_environment(home), capture_output=True, text=True, check=False
        )
        ok = result.returncode == 0 and json.loads(result.stdout or "{}").get("tab") == "sine"
        print(f"[dev] fresh venv: posenc-gui values --tab sine -> {result.stdout[:80]}...")
        return _report_smoke("wheel", [] if ok else [result.stderr[-2000:]])


def xdg_data_home(environ: Mapping[str, str] = os.environ) -> Path:
    """$XDG_DATA_HOME, or ~/.local/share when it is unset or empty (the XDG default)."""
    value = environ.get("XDG_DATA_HOME", "")
    return Path(value) if value else Path.home() / ".local" / "share"


def desktop_exec_quote(path: str) -> str:
    """``path`` as one argument of a desktop file's Exec key (quoted when needed)."""
    if not re.search(r"[\s\"'\\<>~|&;$*?#()`]", path):
        return path
    escaped = re.sub(r"([\"`$\\])", r"\\\1", path)
    return f'"{escaped}"'.replace("\\", "\\\\")


def desktop_targets(data_home: Path) -> dict[Path, Path]:
    """Source file -> installed file, for the desktop entry, metainfo and hicolor icons."""
    linux = PACKAGING / "linux"
    targets = {
        linux / f"{APP_ID}.desktop": data_home / "applications" / f"{APP_ID}.desktop",
        linux / f"{APP_ID}.metainfo.xml": data_home / "metainfo" / f"{APP_ID}.metainfo.xml",
    }
    hicolor = RESOURCES / "icons" / "hicolor"
    for icon in sorted(hicolor.glob(f"*/apps/{APP_ID}.*")):
        targets[icon] = data_home / "icons" / "hicolor" / icon.relative_to(hicolor)
    return targets


def launcher_executable() -> Path | None:
    """What the launcher entry starts: the bundle when built, else .venv's posenc-gui."""
    for candidate in (bundle_executable(), _venv_bin("posenc-gui")):
        if candidate.exists():
            return candidate
    return None


def install_desktop(data_home: Path, executable: Path) -> list[Path]:
    """Install the launcher entry (its Exec pointing at ``executable``), the metainfo and the
    icons under ``data_home``; the files written."""
    written: list[Path] = []
    for source, target in desktop_targets(data_home).items():
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.suffix == ".desktop":
            exec_line = f"Exec={desktop_exec_quote(str(executable.resolve()))}"
            text = re.sub(r"^Exec=\S+", exec_line, source.read_text(), flags=re.MULTILINE)
            target.write_text(text)
        else:
            shutil.copyfile(source, target)
        written.append(target)
    _refresh_desktop_caches(data_home)
    return written


def uninstall_desktop(data_home: Path) -> list[Path]:
    """Remove what :func:`install_desktop` wrote under ``data_home``; the files removed."""
    removed = [t for t in desktop_targets(data_home).values() if t.exists()]
    for target in removed:
        target.unlink()
    _refresh_desktop_caches(data_home)
    return removed


def _refresh_desktop_caches(data_home: Path) -> None:
    """Tell the desktop about the change, where its cache tools are installed (optional)."""
    tools = (
        ("update-desktop-database", "-q", data_home / "applications"),
        ("gtk-update-icon-cache", "-q -f -t", data_home / "icons" / "hicolor"),
    )
    for name, flags, folder in tools:
        tool = shutil.which(name)
        if tool is not None and folder.is_dir():
            subprocess.run([tool, *flags.split(), str(folder)], check=False, capture_output=True)


def package(args: list[str]) -> int:
    """``dev.py package [--wheel] [--no-smoke] [--install-desktop [--exec PATH]]
    [--uninstall-desktop]``."""
    known = {"--wheel", "--no-smoke", "--install-desktop", "--uninstall-desktop", "--exec"}
    exec_path: Path | None = None
    if "--exec" in args:
        at = args.index("--exec")
        if at + 1 >= len(args):
            print(PACKAGE_USAGE, file=sys.stderr)
            return 2
        exec_path = Path(args[at + 1])
        args = args[:at] + args[at + 2 :]
    if not set(args) <= known:
        print(PACKAGE_USAGE, file=sys.stderr)
        return 2
    smoke = "--no-smoke" not in args
    if "--uninstall-desktop" in args:
        data_home = xdg_data_home()
        for path in uninstall_desktop(data_home):
            print(f"[dev] removed {path}")
        return 0
    if "--install-desktop" in args:
        executable = exec_path or launcher_executable()
        if executable is None:
            print(
                "[dev] nothing to launch yet: build the bundle (python3 dev.py package) or the"
                " environment (python3 dev.py setup) first, or give --exec PATH",
                file=sys.stderr,
            )
            return 1
        for path in install_desktop(xdg_data_home(), executable):
            print(f"[dev] installed {path}")
        print(f"[dev] the launcher entry starts {executable.resolve()}")
        return 0
    if "--wheel" in args:
        return build_wheel(smoke)
    return build_bundle(smoke)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"run", "test", "setup", "fuzz", "package"}:
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "package":
        return package(rest)
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
