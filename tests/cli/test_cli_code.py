"""``posenc-gui code``: the tab's snippet on stdout, runnable as ``python snippet.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from posenc_gui.cli import main
from posenc_gui.state.session import Session
from posenc_gui.state.snippets import snippet


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_code_prints_the_snippet_of_the_values(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "code", "--tab", "rope", "--set", "m=105", "--set", "dim=32")
    assert code == 0 and err == ""
    values = {"m": 105, "dim": 32}
    assert out == snippet("rope", values).core
    assert "m, n, seed = 105, 2, 0" in out and "from posenc_gui import core" in out
    code, plain, _ = run(capsys, "code", "--tab", "rope", "--set", "m=105", "--set", "dim=32",
                         "--plain")  # fmt: skip
    assert code == 0 and plain == snippet("rope", values).plain
    assert "posenc_gui import" not in plain


def test_code_reads_the_session(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    session = Session("alibi")
    session.state("alibi").update({"heads": 8, "head": 3})
    path = tmp_path / "s.json"
    session.save(path)
    code, out, _ = run(capsys, "code", "--session", str(path), "--set", "query=9")
    assert code == 0
    assert out == snippet("alibi", {"heads": 8, "head": 3, "query": 9}).core


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["code", "--tab", "nope"], "unknown tab 'nope'; known tabs: sine"),
        (["code", "--tab", "rope", "--set", "dim=7"], "dim must be an even integer from 2 to 512"),
        (["code", "--tab", "rope", "--set", "bogus=1"], "unknown parameter 'bogus'"),
        (["code", "--tab", "alibi", "--set", "head=20"], "head must be an integer from 1 to 12"),
        (["code"], "--tab is required"),
        (["code", "--tab", "sine", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], fragment: str
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert fragment in err


def test_printed_snippets_run_as_files(tmp_path: Path) -> None:
    """``posenc-gui code … > f.py; python f.py``: both versions run and print the same summary;
    the plain one with a ``posenc_gui`` on the path that refuses to be imported."""
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "posenc_gui.py").write_text("raise ImportError('the plain snippet imported me')\n")
    args = ["code", "--tab", "heatmap", "--set", "layout=concat", "--set", "positions=50"]
    printed = []
    for plain in (False, True):
        cli = subprocess.run(
            [sys.executable, "-m", "posenc_gui", *args, *(["--plain"] if plain else [])],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        file = tmp_path / f"heatmap_{'plain' if plain else 'core'}.py"
        file.write_text(cli.stdout, encoding="utf-8")
        env = dict(os.environ, PYTHONPATH=str(blocker)) if plain else None
        done = subprocess.run([sys.executable, str(file)], capture_output=True, text=True,
                              cwd=tmp_path, env=env)  # fmt: skip
        assert done.returncode == 0, done.stderr
        printed.append(done.stdout)
    assert printed[0] == printed[1] and "table (50, 128)" in printed[0]


def test_code_imports_no_qt_and_no_torch() -> None:
    code = (
        "import sys, io, contextlib\nfrom posenc_gui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['code', '--tab', 'rope', '--plain']) == 0\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph', 'torch')))\n"
        "print('LOADED:', bad)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)  # fmt: skip
    assert "LOADED: []" in result.stdout
