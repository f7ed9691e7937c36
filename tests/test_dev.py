"""dev.py: the check of the system libraries the Qt xcb platform plugin needs (no Qt here)."""

from __future__ import annotations

import http.server
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: `ldd libqxcb.so` on a Debian 12 machine without libxcb-icccm4 and libxcb-keysyms1 (trimmed).
LDD_OUTPUT = """\
\tlinux-vdso.so.1 (0x00007ff060aa7000)
\tlibQt6XcbQpa.so.6 => /x/PySide6/Qt/plugins/platforms/../../lib/libQt6XcbQpa.so.6 (0x1)
\tlibGL.so.1 => /lib/x86_64-linux-gnu/libGL.so.1 (0x00007ff060948000)
\tlibxkbcommon-x11.so.0 => /lib/x86_64-linux-gnu/libxkbcommon-x11.so.0 (0x00007ff0608f5000)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007ff0608ee000)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-util.so.1 => /lib/x86_64-linux-gnu/libxcb-util.so.1 (0x00007ff05fdf8000)
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibEGL.so.1 => /lib/x86_64-linux-gnu/libEGL.so.1 (0x00007ff05fd29000)
\t/lib64/ld-linux-x86-64.so.2 (0x00007ff060aa9000)
"""


@pytest.fixture(scope="module")
def dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("posenc_dev_script", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_missing_libraries_from_ldd_output(dev: ModuleType) -> None:
    assert dev.missing_libraries(LDD_OUTPUT) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    assert dev.missing_libraries("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") == []
    assert dev.missing_libraries("") == []


def test_message_names_library_package_and_apt_command(dev: ModuleType) -> None:
    text = dev.missing_library_message(["libxcb-icccm.so.4", "libxcb-keysyms.so.1"])
    assert "libxcb-icccm.so.4" in text and "libxcb-keysyms.so.1" in text
    assert "sudo apt-get install libxcb-icccm4 libxcb-keysyms1" in text
    one = dev.missing_library_message(["libxcb-cursor.so.0"])
    assert "libxcb-cursor0" in one
    odd = dev.missing_library_message(["libweird.so.9", "libQt6Gui.so.6"])
    assert "apt-file search libweird.so.9" in odd and "reinstall" in odd
    assert "apt-get install" not in odd


@pytest.mark.parametrize(
    "soname",
    [
        "libxcb-cursor.so.0", "libxkbcommon-x11.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1",
        "libxcb-shape.so.0", "libxcb-render-util.so.0", "libxcb-image.so.0", "libEGL.so.1",
        "libGL.so.1", "libfontconfig.so.1",
    ],
)  # fmt: skip
def test_the_usual_suspects_have_a_package(dev: ModuleType, soname: str) -> None:
    assert soname in dev.XCB_PACKAGES


@pytest.mark.parametrize(
    ("env", "needs"),
    [
        ({}, True),
        ({"QT_QPA_PLATFORM": "xcb"}, True),
        ({"QT_QPA_PLATFORM": "offscreen"}, False),
        ({"QT_QPA_PLATFORM": "minimal"}, False),
        ({"QT_QPA_PLATFORM": "wayland;xcb"}, False),
        ({"WAYLAND_DISPLAY": "wayland-0"}, False),
        ({"WAYLAND_DISPLAY": "wayland-0", "QT_QPA_PLATFORM": "xcb"}, True),
    ],
)
def test_platform_needs_xcb(dev: ModuleType, env: dict[str, str], needs: bool) -> None:
    assert dev.platform_needs_xcb(env) is needs


def test_only_the_window_is_checked(dev: ModuleType) -> None:
    assert (
        dev.opens_window([]) and dev.opens_window(["--tab", "rope"]) and dev.opens_window(["gui"])
    )
    for args in (["render", "--tab", "sine"], ["values"], ["params"], ["--help"], ["--version"]):
        assert not dev.opens_window(args)


def test_check_reports_and_fails(
    dev: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(dev.sys, "platform", "linux")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(dev, "xcb_plugin_files", lambda: [Path("/x/libqxcb.so")])
    monkeypatch.setattr(dev.shutil, "which", lambda name: "/usr/bin/ldd")

    def fake_run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        assert cmd == ["/usr/bin/ldd", "/x/libqxcb.so"]
        return subprocess.CompletedProcess(cmd, 0, stdout=LDD_OUTPUT, stderr="")

    monkeypatch.setattr(dev.subprocess, "run", fake_run)
    assert dev.check_gui_libraries() is False
    err = capsys.readouterr().err
    assert "libxcb-icccm4" in err and "sudo apt-get install" in err
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")  # skipped: no display libraries needed
    assert dev.check_gui_libraries() is True
    monkeypatch.setattr(dev.sys, "platform", "darwin")
    monkeypatch.delenv("QT_QPA_PLATFORM")
    assert dev.check_gui_libraries() is True


def test_no_display_is_reported(dev: ModuleType) -> None:
    message = dev.display_problem({})
    assert message is not None and "DISPLAY" in message and "render" in message
    assert dev.display_problem({"DISPLAY": ":0"}) is None
    assert dev.display_problem({"QT_QPA_PLATFORM": "offscreen"}) is None
    assert dev.display_problem({"WAYLAND_DISPLAY": "wayland-0"}) is None


def test_run_exits_1_instead_of_starting_qt(
    dev: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dev, "ensure_environment", lambda with_tests: None)
    monkeypatch.setattr(dev, "check_gui_libraries", lambda: False)

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the GUI must not be started")

    monkeypatch.setattr(dev.subprocess, "run", never)
    assert dev.main(["run"]) == 1
    monkeypatch.setattr(dev, "check_gui_libraries", lambda: True)
    monkeypatch.setattr(dev, "check_display", lambda: False)
    assert dev.main(["run", "--tab", "rope"]) == 1
    checked: list[bool] = []
    monkeypatch.setattr(dev, "check_gui_libraries", lambda: checked.append(True) or True)
    monkeypatch.setattr(dev, "run_tests", lambda args: 0)
    assert dev.main(["test"]) == 0 and checked == []  # `dev.py test` does not check


def test_real_plugin_if_installed(dev: ModuleType) -> None:
    """On this machine: the check runs end to end (it may find libraries missing)."""
    if not sys.platform.startswith("linux") or not dev.xcb_plugin_files():
        pytest.skip("no PySide6 xcb plugin in .venv")
    assert dev.xcb_plugin_files()[0].name == "libqxcb.so"
    out = subprocess.run(["ldd", str(dev.xcb_plugin_files()[0])], capture_output=True, text=True)
    for soname in dev.missing_libraries(out.stdout):
        assert soname in dev.XCB_PACKAGES or soname.startswith("libQt6"), soname


def test_fuzz_runs_the_driver_offscreen(dev: ModuleType) -> None:
    cmd = dev.fuzz_command(["--events", "10", "--seed", "3"])
    assert cmd[1:4] == ["-m", "posenc_gui.testing.fuzz", "--events"]
    assert cmd[-2:] == ["--seed", "3"]
    env = dev.fuzz_environment({"QT_QPA_PLATFORM": "xcb", "HOME": "/h"})
    assert env == {"QT_QPA_PLATFORM": "offscreen", "HOME": "/h"}
    assert "fuzz" in (dev.__doc__ or "")


# -- torch from PyTorch's CPU wheel index ---------------------------------------------------------

CONSTRAINTS = "# pins\ntorch==2.13.0\nnumpy==2.4.6\n"


class _Probe:
    """A stand-in for dev.index_answers: records the URLs asked, answers ``problem``."""

    def __init__(self, problem: str | None) -> None:
        self.problem = problem
        self.asked: list[str] = []

    def __call__(self, url: str) -> str | None:
        self.asked.append(url)
        return self.problem


def test_torch_pin_is_read_from_the_constraints(dev: Any) -> None:
    assert dev.torch_pin(CONSTRAINTS) == "2.13.0"
    assert dev.torch_pin("numpy==2.4.6\n") is None
    assert dev.torch_pin((ROOT / "constraints.txt").read_text()) is not None


@pytest.mark.parametrize("platform", ["linux", "win32"])
def test_cpu_index_is_used_on_linux_and_windows_when_it_answers(dev: Any, platform: str) -> None:
    probe = _Probe(None)
    choice = dev.choose_torch_index(None, platform, probe, CONSTRAINTS)
    assert choice.url == "https://download.pytorch.org/whl/cpu"
    assert probe.asked == [choice.url]
    assert "CPU wheel index" in choice.reason


def test_default_index_when_the_cpu_index_does_not_answer(dev: Any) -> None:
    probe = _Probe("timed out")
    choice = dev.choose_torch_index(None, "linux", probe, CONSTRAINTS)
    assert choice.url is None
    assert "default package index" in choice.reason and "timed out" in choice.reason


def test_no_question_on_macos_or_when_the_pinned_torch_is_installed(dev: Any) -> None:
    probe = _Probe(None)
    assert dev.choose_torch_index(None, "darwin", probe, CONSTRAINTS).url is None
    assert dev.choose_torch_index("2.13.0+cpu", "linux", probe, CONSTRAINTS).url is None
    assert probe.asked == []
    # Another installed version is replaced: then the index is asked.
    assert dev.choose_torch_index("2.12.0+cpu", "linux", probe, CONSTRAINTS).url is not None


@pytest.mark.parametrize(
    ("have", "platform", "warned"),
    [
        ("2.13.0+cpu", "linux", False),
        ("2.13.0", "linux", True),
        ("2.13.0+cu128", "linux", True),
        ("2.13.0", "win32", False),
        ("2.13.0+cu128", "win32", True),
        ("2.13.0", "darwin", False),
        (None, "linux", False),
    ],
)
def test_a_cuda_torch_is_named_after_the_install(
    dev: Any, have: str | None, platform: str, warned: bool
) -> None:
    assert (dev.cuda_torch_warning(have, platform) is not None) == warned


def test_pip_command_passes_the_index_and_the_constraints(dev: Any) -> None:
    cmd = dev.pip_install_command(["torch"], index_url="https://example.invalid/cpu")
    assert cmd[cmd.index("--index-url") + 1] == "https://example.invalid/cpu"
    assert cmd[cmd.index("-c") + 1] == str(ROOT / "constraints.txt")
    assert cmd[-1] == "torch"
    assert "--index-url" not in dev.pip_install_command(["torch"])


def test_index_probe_reports_an_unreachable_index_quickly(dev: Any) -> None:
    # Port 9 (discard) on the loopback refuses at once: no answer, with the reason.
    problem = dev.index_answers("http://127.0.0.1:9/whl/cpu", timeout=2.0)
    assert problem is not None and problem != ""


def test_index_probe_accepts_an_index_that_answers(dev: Any, tmp_path: Path) -> None:
    import functools
    import threading

    (tmp_path / "whl" / "cpu" / "torch").mkdir(parents=True)
    (tmp_path / "whl" / "cpu" / "torch" / "index.html").write_text("<html></html>")
    handler = functools.partial(_QuietHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/whl/cpu"
        assert dev.index_answers(url, timeout=5.0) is None
        assert dev.index_answers(url + "-missing", timeout=5.0) is not None
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_index_probe_gives_up_after_its_timeout(dev: Any) -> None:
    import socket
    import time

    # A listening socket that never accepts into an HTTP answer: the request hangs.
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        start = time.monotonic()
        problem = dev.index_answers(f"http://127.0.0.1:{server.getsockname()[1]}/cpu", 0.5)
        assert problem is not None
        assert time.monotonic() - start < 3.0


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


# -- dev.py package -------------------------------------------------------------------------------

#: A stand-in for the built executable: the three subcommands the smoke test uses, with
#: ``BROKEN_TAB`` rendering nothing.
FAKE_CLI = """\
import json, sys
args = sys.argv[1:]
if args[0] == "params":
    print(json.dumps({"tabs": [{"tab": "sine"}, {"tab": "rope"}]}))
elif args[0] == "render":
    tab, out = args[args.index("--tab") + 1], args[args.index("--out") + 1]
    if tab != BROKEN_TAB:
        open(out, "wb").write(b"\\x89PNG\\r\\n")
elif args[0] == "values":
    print(json.dumps({"tab": args[args.index("--tab") + 1]}))
"""


@pytest.mark.parametrize(("broken", "failed"), [("none", []), ("rope", ["render --tab rope"])])
def test_smoke_test_renders_and_asks_every_listed_tab(
    dev: Any, tmp_path: Path, broken: str, failed: list[str]
) -> None:
    script = tmp_path / "fake_cli.py"
    script.write_text(f"BROKEN_TAB = {broken!r}\n" + FAKE_CLI)
    env = {**dev.smoke_environment(tmp_path), "PATH": "/usr/bin:/bin"}
    failures = dev.smoke_test([sys.executable, str(script)], tmp_path, env)
    assert [f.split(":")[0] for f in failures] == failed
    assert (tmp_path / "sine.png").exists()


def test_smoke_test_fails_when_params_gives_no_tabs(dev: Any, tmp_path: Path) -> None:
    failures = dev.smoke_test([sys.executable, "-c", "print('nope')"], tmp_path, {})
    assert failures and failures[0].startswith("params")


@pytest.mark.skipif(sys.platform == "win32", reason="the POSIX environment is checked")
def test_smoke_environment_is_empty_but_for_the_platform_and_home(dev: Any, tmp_path: Path) -> None:
    env = dev.smoke_environment(tmp_path, {"PATH": "/usr/bin", "DISPLAY": ":0", "PYTHONPATH": "x"})
    assert env == {"QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path)}


def test_archive_missing_names_the_files_an_archive_lacks(dev: Any) -> None:
    wanted = ["posenc_gui/resources/icon.svg", "posenc_gui/resources/decks/01.json"]
    names = ["posenc_gui-0.1.0/posenc_gui/resources/icon.svg", "posenc_gui/__init__.py"]
    assert dev.archive_missing(names, wanted) == ["posenc_gui/resources/decks/01.json"]
    assert dev.archive_missing([*names, "posenc_gui/resources/decks/01.json"], wanted) == []


def test_package_refuses_unknown_options(dev: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert dev.main(["package", "--onefile"]) == 2
    assert "usage: python3 dev.py package" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/opt/posenc-gui/posenc-gui", "/opt/posenc-gui/posenc-gui"),
        ("/home/a b/posenc-gui", '"/home/a b/posenc-gui"'),
        ("/home/$x/posenc-gui", '"/home/\\\\$x/posenc-gui"'),
    ],
)
def test_exec_field_quotes_paths_as_the_desktop_entry_spec_says(
    dev: Any, path: str, field: str
) -> None:
    assert dev.desktop_exec_quote(path) == field
