"""Command line: params / values / render, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from posenc_gui.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_params_describes_every_parameter(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "params", "--tab", "sine")
    assert code == 0
    data = json.loads(out)
    assert data["tab"] == "sine"
    params = data["params"]
    for name in ("amplitude", "frequency", "phase", "cursor", "dim", "base", "position"):
        assert name in params
        assert params[name]["description"]
    assert params["dim"] == {**params["dim"], "type": "int", "minimum": 2, "even": True}
    assert params["base"]["scale"] == "log"


def test_values_sine(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "values", "--tab", "sine", "--set", "frequency=2", "--set", "dim=4",
        "--set", "position=3",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["params"]["frequency"] == 2.0
    assert data["period"] == pytest.approx(0.5)
    assert data["angular_frequency"] == pytest.approx(4 * math.pi)
    w1 = 10000.0 ** (-2 / 4)
    assert data["vector"] == pytest.approx(
        [math.sin(3), math.cos(3), math.sin(3 * w1), math.cos(3 * w1)]
    )


def test_notebook_dot_product_via_values(capsys: pytest.CaptureFixture[str]) -> None:
    """PE[32]·PE[42] = 173.790 for d = 512 (the source notebook's number)."""
    vectors = []
    for p in (32, 42):
        args = ["values", "--tab", "sine", "--set", "dim=512", "--set", f"position={p}"]
        _, out, _ = run(capsys, *args, "--set", "length=100")
        vectors.append(json.loads(out)["vector"])
    dot = sum(a * b for a, b in zip(*vectors, strict=True))
    assert round(dot, 3) == 173.790


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["values", "--tab", "nope"], "unknown tab 'nope'; known tabs: sine"),
        (["values", "--tab", "sine", "--set", "bogus=1"], "unknown parameter 'bogus'"),
        (
            ["values", "--tab", "sine", "--set", "dim=7"],
            "dim must be an even integer from 2 to 1024",
        ),
        (["values", "--tab", "sine", "--set", "amplitude=big"], "amplitude must be a number"),
        (
            ["values", "--tab", "sine", "--set", "amplitude=9"],
            "amplitude must be a number from 0 to 2",
        ),
        (
            ["values", "--tab", "sine", "--set", "position=60"],
            "position must be an integer from 0 to 49",
        ),
        (["values", "--tab", "sine", "--set", "dim"], "--set expects NAME=VALUE"),
        (["values"], "--tab"),
        (["render", "--tab", "sine", "--out", "x.jpg"], "--out must be a .png file"),
        (["render", "--tab", "sine", "--out", "x.png", "--size", "10x10"], "--size must be WxH"),
        (["render", "--tab", "sine", "--out", "/no/such/dir/x.png"], "--out folder does not exist"),
        (["--tab", "sine", "--set", "dim=0"], "dim must be an even integer"),
        (["--set", "dim=4"], "--set needs --tab"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], fragment: str
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert fragment in err


def test_render_writes_png_only_on_success(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, qapp: object
) -> None:
    bad = tmp_path / "bad.png"
    assert run(capsys, "render", "--tab", "sine", "--set", "dim=3", "--out", str(bad))[0] == 2
    assert not bad.exists()
    out = tmp_path / "sine.png"
    code, stdout, _ = run(
        capsys, "render", "--tab", "sine", "--out", str(out), "--size", "1200x800"
    )
    assert code == 0 and "wrote" in stdout
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1200, 800)
    # not a blank picture: many distinct colours (plots, text, the two wave colours)
    colours = {image.pixel(x, y) for x in range(0, 1200, 7) for y in range(0, 800, 7)}
    assert len(colours) > 50
