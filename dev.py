#!/usr/bin/env python3
"""One entry point for a fresh machine: set up the environment once, then run the app or the tests.

    python3 dev.py run [ARGS...]   # create .venv if needed, install, launch `posenc-gui ARGS...`
    python3 dev.py test [PYTEST ARGS...]  # same environment + test tools; ruff, mypy, then pytest

The virtual environment lives in `.venv/` next to this file. A stamp file records a hash of
pyproject.toml, constraints.txt and this script; when none of them changed, nothing is reinstalled.
Only the standard library is used here, so this runs on a bare Python 3.11.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
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


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"run", "test", "setup"}:
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    ensure_environment(with_tests=command in {"test", "setup"})
    if command == "run":
        return subprocess.run([str(_venv_bin("posenc-gui")), *rest]).returncode
    if command == "test":
        return run_tests(rest)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
