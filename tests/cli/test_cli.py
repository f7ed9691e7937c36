"""Command line: params / values / render, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from posenc_gui.cli import main
from posenc_gui.state.registry import TAB_IDS


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_params_describes_every_parameter(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "params", "--tab", "sine")
    assert code == 0
    data = json.loads(out)
    assert data["tab"] == "sine"
    assert data["short_title"] == "Sine" and data["title"] == "Sine explorer"
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
        (["render", "--tab", "sine", "--out", "x.jpg"], "--out must end in .png or .svg"),
        (
            ["render", "--tab", "sine", "--figure", "nope", "--out", "x.png"],
            "figures: wave, circle, ",
        ),
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


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_render_refuses_a_pipe_or_folder_and_keeps_a_file_s_mode(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, qapp: object, suffix: str
) -> None:
    """Issue 20, finding 7: ``render --out`` replaced whatever was there by a new 0600 file."""
    import os
    import stat

    fifo = tmp_path / f"pipe{suffix}"
    os.mkfifo(fifo)
    folder = tmp_path / f"folder{suffix}"
    folder.mkdir()
    for target, what in [(fifo, "named pipe"), (folder, "folder")]:
        code, out, err = run(capsys, "render", "--tab", "sine", "--out", str(target))
        assert code == 2 and out == "" and what in err and len(err.strip().splitlines()) == 1
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and folder.is_dir()
    shared = tmp_path / f"shared{suffix}"
    shared.write_bytes(b"old")
    shared.chmod(0o640)
    link = tmp_path / f"link{suffix}"
    link.symlink_to(shared)
    args = ["render", "--tab", "sine", "--size", "640x360"]
    assert run(capsys, *args, "--out", str(link))[0] == 0
    assert link.is_symlink() and shared.read_bytes() != b"old"
    assert stat.S_IMODE(shared.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [fifo.name, folder.name, shared.name, link.name]
    )


def test_render_refuses_a_size_over_the_picture_cap(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "big.png"
    code, _, err = run(capsys, "render", "--tab", "sine", "--out", str(out), "--size", "8192x8192")
    assert code == 2 and "8192 × 8192" in err and "40 megapixels" in err
    assert not out.exists()


def _svg_size(path: Path) -> tuple[str, str, str]:
    import xml.etree.ElementTree as ET

    root = ET.parse(path).getroot()
    return root.get("width", ""), root.get("height", ""), root.get("viewBox", "")


@pytest.mark.parametrize("suffix", [".png", ".SVG"])
@pytest.mark.parametrize("figure", [None, "circle"])
def test_render_writes_the_format_of_the_suffix_at_the_size(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, qapp: object, suffix: str,
    figure: str | None,
) -> None:  # fmt: skip
    out = tmp_path / f"sine{suffix}"
    args = ["render", "--tab", "sine", "--out", str(out), "--size", "1280x720"]
    code, stdout, _ = run(capsys, *args, *(["--figure", figure] if figure else []))
    assert code == 0 and "wrote" in stdout and "1280x720" in stdout
    data = out.read_bytes()
    if suffix == ".png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert int.from_bytes(data[16:20], "big") == 1280  # IHDR width, height
        assert int.from_bytes(data[20:24], "big") == 720
    else:
        assert data.lstrip().startswith(b"<?xml") and b"<svg" in data
        w, h, box = _svg_size(out)
        assert (w, h) == ("1280px", "720px")
        assert box.split() == ["0", "0", "1280", "720"]


def test_render_of_a_figure_shows_that_figure_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, qapp: object
) -> None:
    """The circle figure fills the picture: it differs from the whole tab at the same size
    and from the wave figure."""
    images = {}
    for name, extra in [("tab", []), ("circle", ["--figure", "circle"]),
                        ("wave", ["--figure", "wave"])]:  # fmt: skip
        out = tmp_path / f"{name}.png"
        args = ["render", "--tab", "sine", "--out", str(out), "--size", "960x540", *extra]
        assert run(capsys, *args)[0] == 0
        images[name] = QImage(str(out))
    assert all((i.width(), i.height()) == (960, 540) for i in images.values())
    assert images["circle"] != images["tab"] and images["circle"] != images["wave"]


# -- sessions ------------------------------------------------------------------------------------
def test_session_command_writes_a_session_values_reads_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from posenc_gui.state.session import Session

    out = tmp_path / "lecture.json"
    code, stdout, err = run(
        capsys, "session", "--tab", "sine", "--set", "dim=16", "--set", "position=7",
        "--theme", "dark", "--scale", "1.5", "--out", str(out),
    )  # fmt: skip
    assert (code, err) == (0, "") and "wrote" in stdout
    session = Session.load(out)
    assert session.current_tab == "sine"
    assert session.state("sine").get("dim") == 16 and session.state("sine").get("position") == 7
    assert (session.theme, session.scale) == ("dark", 1.5)

    # values: the session's tab and values, --set on top
    code, stdout, _ = run(capsys, "values", "--session", str(out), "--set", "position=3")
    data = json.loads(stdout)
    assert code == 0 and data["tab"] == "sine"
    assert data["params"]["dim"] == 16 and data["params"]["position"] == 3
    # another tab of the same session: its (default) values
    code, stdout, _ = run(capsys, "values", "--session", str(out), "--tab", "rope")
    assert code == 0 and json.loads(stdout)["tab"] == "rope"

    # session from a session: the rest is kept
    out2 = tmp_path / "next.json"
    assert (
        run(capsys, "session", "--session", str(out), "--set", "dim=8", "--out", str(out2))[0] == 0
    )
    again = Session.load(out2)
    assert again.state("sine").get("dim") == 8 and again.theme == "dark"


def _bad_session(tmp_path: Path) -> Path:
    path = tmp_path / "newer.json"
    path.write_text('{"kind": "posenc-explorer-session", "version": 99}', encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["values", "--session", "{bad}"], "newer version"),
        (["values", "--session", "{missing}"], "cannot read it"),
        (["render", "--session", "{bad}", "--out", "{out}"], "newer version"),
        (["session", "--session", "{bad}", "--out", "{out}"], "newer version"),
        (["session", "--tab", "sine", "--set", "dim=3", "--out", "{out}"], "dim must be"),
        (["session", "--set", "dim=4", "--out", "{out}"], "--set needs --tab"),
        (["session", "--scale", "9", "--out", "{out}"], "--scale must be a number from 0.75"),
        (["session", "--theme", "sepia", "--out", "{out}"], "--theme"),
        (["session", "--out", "/no/such/dir/s.json"], "--out folder does not exist"),
        (["--session", "{bad}"], "newer version"),
        (["--fresh", "--session", "{good}"], "--fresh and --session cannot be used together"),
        (["render", "--out", "{out}"], "--tab is required"),
    ],
)
def test_bad_session_input_exits_2_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], fragment: str
) -> None:
    good = tmp_path / "good.json"
    assert main(["session", "--out", str(good)]) == 0
    capsys.readouterr()
    names = {"bad": _bad_session(tmp_path), "missing": tmp_path / "missing.json",
             "out": tmp_path / "out.json", "good": good}  # fmt: skip
    filled = [a.format(**{k: str(v) for k, v in names.items()}) for a in args]
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = run(capsys, *filled)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("posenc-gui: error: ")
    assert fragment in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_render_uses_the_session(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, qapp: object
) -> None:
    from posenc_gui.widgets import style as style_mod

    session_file = tmp_path / "s.json"
    assert main(["session", "--tab", "sine", "--theme", "dark", "--out", str(session_file)]) == 0
    out = tmp_path / "sine.png"
    code, stdout, _ = run(
        capsys, "render", "--session", str(session_file), "--out", str(out), "--size", "800x600"
    )
    assert code == 0 and "wrote" in stdout
    image = QImage(str(out))
    assert (image.width(), image.height()) == (800, 600)
    dark_bg = style_mod.Style(theme="dark").qcolor("background").rgb()
    pixels = [image.pixel(x, y) for x in range(0, 800, 10) for y in range(0, 600, 10)]
    assert pixels.count(dark_bg) > len(pixels) // 10  # dark plot backgrounds
    assert style_mod.hub().style == style_mod.Style()  # the app's own style is untouched


def test_session_and_values_import_no_qt(tmp_path: Path) -> None:
    import subprocess
    import sys

    out = tmp_path / "s.json"
    code = (
        "import sys\nfrom posenc_gui.cli import main\n"
        f"assert main(['session', '--tab', 'sine', '--out', {str(out)!r}]) == 0\n"
        f"assert main(['values', '--session', {str(out)!r}, '--no-series']) == 0\n"
        "qt = ('PySide6', 'pyqtgraph', 'shiboken')\n"
        "bad = sorted(m for m in sys.modules if m.startswith(qt))\n"
        "print('QT:', bad)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert "QT: []" in result.stdout
    printed = json.loads(result.stdout.splitlines()[1])  # after the session's "wrote" line
    assert printed["tab"] == "sine" and "vector" in printed and "series" not in printed


# -- issue 20: files and typed values the command line must refuse cleanly ---------------------
def test_values_refuses_a_session_with_a_huge_integer(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from posenc_gui.state.session import Session

    path = tmp_path / "huge.json"
    text = Session("sine").to_json().replace('"scale": 1.0', '"scale": 1' + "0" * 400)
    path.write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "values", "--session", str(path))
    assert code == 2 and out == ""
    assert err == (
        f"posenc-gui: error: --session {str(path)!r}: 'scale' must be a number from 0.75 to "
        "3.0, got a 401-digit integer\n"
    )


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_values_refuses_a_device_as_session(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "values", "--session", "/dev/zero")
    assert code == 2
    assert "not a session: '/dev/zero' is not a regular file (a character device)" in err


def test_session_out_to_a_folder_or_read_only_file_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ro = tmp_path / "ro.json"
    ro.write_text("old", encoding="utf-8")
    ro.chmod(0o444)
    code, _, err = run(capsys, "session", "--tab", "sine", "--out", str(ro))
    assert code == 1 and "is read-only" in err and "/." not in err
    assert ro.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ro.json"]


@pytest.mark.parametrize(
    ("text", "value"), [("\u221230", -30.0), ("1 000", 1000.0), ("1,000", 1000.0)]
)
def test_set_reads_what_the_window_reads(
    capsys: pytest.CaptureFixture[str], text: str, value: float
) -> None:
    code, out, err = (
        run(capsys, "values", "--tab", "rotation", "--set", f"angle={text}")
        if value < 0
        else run(capsys, "values", "--tab", "sine", "--set", f"length={text}")
    )
    assert code == 0, err
    params = json.loads(out)["params"]
    assert (params["angle"] if value < 0 else params["length"]) == value


# -- issue 20, finding 12: no NaN in `values`; an undefined quantity is null with its reason -----
def test_values_prints_an_undefined_quantity_as_null_with_its_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys, "values", "--tab", "rope", "--set", "dim=2", "--set", "vectors=typed",
        "--set", "q0=0", "--set", "q1=0",
    )  # fmt: skip
    assert code == 0
    assert "nan" not in out.lower() and "infinity" not in out.lower()
    data = json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in values"))
    assert data["score"] == 0
    assert data["pair_fraction"] is None
    assert data["pair_fraction_undefined"] == "the score is 0"
    # the angle of the zero pair (0, 0) has no direction: not atan2(0, 0) = 0
    assert data["angle_q"] is None
    assert data["angle_q_undefined"] == "q's selected pair is (0, 0): no direction"
    assert data["angle_k"] == 0.0 and "angle_k_undefined" not in data
    assert data["angle_between_rotated"] is None
    assert "(0, 0)" in data["angle_between_rotated_undefined"]


@pytest.mark.parametrize("tab", TAB_IDS)
def test_values_of_every_tab_is_strict_json(capsys: pytest.CaptureFixture[str], tab: str) -> None:
    code, out, _ = run(capsys, "values", "--tab", tab)
    assert code == 0
    json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in values of {tab}"))
    assert '"nan"' not in out and '"inf"' not in out


def test_the_undefined_convention_covers_lists_and_unexplained_values() -> None:
    from posenc_gui.state.model import UNDEFINED, json_values

    got = json_values({"a": [1.0, math.nan], "b": math.inf, "c": 2.0}, {"a": "why a"})
    assert got == {"a": [1.0, None], "a_undefined": "why a", "b": None,
                   "b_undefined": UNDEFINED, "c": 2.0}  # fmt: skip


# -- issue 20: `values` prints every array the tab shows, the series the CSV export writes -------
def _csv_series(tab: str, values: dict[str, object], tmp_path: Path) -> set[tuple[str, str]]:
    """The (view, series) the app's CSV export writes for ``tab`` at ``values``."""
    import re

    from posenc_gui.cli import DEFAULT_SIZE
    from posenc_gui.controllers.export import panel_meta
    from posenc_gui.panels import get_panel
    from posenc_gui.widgets import export

    path = tmp_path / f"{tab}.csv"
    with export.staged(get_panel(tab), values, DEFAULT_SIZE) as (panel, _):
        export.write_csv(panel.data(), path, **panel_meta(panel))
    found = set()
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        if line.startswith("# view "):
            view, _, names = line.removeprefix("# view ").partition(": ")
            for column in names.split(", "):  # a 2-D series is columns name[:,j]
                found.add((view, re.sub(r"(\[:,\d+\]|\.flat)$", "", column)))
    return found


@pytest.mark.parametrize("tab", TAB_IDS)
def test_values_prints_the_series_the_csv_export_writes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tab: str
) -> None:
    code, out, _ = run(capsys, "values", "--tab", tab)
    assert code == 0
    data = json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in values of {tab}"))
    printed = {(view, name) for view, series in data["series"].items() for name in series}
    assert printed == _csv_series(tab, data["params"], tmp_path)
    for series in data["series"].values():
        for s in series.values():
            assert isinstance(s["label"], str) and s["label"] and isinstance(s["unit"], str)


def test_values_prints_the_alibi_bias_matrix_and_curves_as_the_panel_has_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import numpy as np

    from posenc_gui.cli import DEFAULT_SIZE
    from posenc_gui.panels import get_panel
    from posenc_gui.widgets import export

    code, out, _ = run(
        capsys, "values", "--tab", "alibi", "--set", "positions=20", "--set", "heads=4",
        "--set", "query=11",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    series = data["series"]
    bias = np.array(series["heatmap"]["bias"]["values"])
    by_head = np.array(series["bias_lines"]["bias_by_head"]["values"])
    distance = np.array(series["bias_lines"]["distance"]["values"])
    assert bias.shape == (20, 20) and by_head.shape == (4, 20) and distance.shape == (20,)
    with export.staged(get_panel("alibi"), data["params"], DEFAULT_SIZE) as (panel, _):
        shown = panel.data()
    assert np.array_equal(bias, shown["heatmap"]["bias"].values)
    assert np.array_equal(by_head, shown["bias_lines"]["bias_by_head"].values)
    assert series["heatmap"]["bias"]["label"] == shown["heatmap"]["bias"].label
    # each head's curve is its slope times the distance (the first head: m = 2^-2 for 4 heads)
    assert np.allclose(by_head[0], -0.25 * distance)


def test_values_no_series_prints_the_same_read_outs(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("values", "--tab", "rope", "--set", "dim=8")
    full = json.loads(run(capsys, *args)[1])
    fast = json.loads(run(capsys, *args, "--no-series")[1])
    assert "series" in full and "series" not in fast
    assert {k: v for k, v in full.items() if k != "series"} == fast


def test_a_series_entry_that_is_not_a_number_is_null_with_its_reason() -> None:
    import numpy as np

    from posenc_gui.state.model import UNDEFINED
    from posenc_gui.state.series import series_json
    from posenc_gui.widgets.views import Series

    data = {
        "plot": {
            "weights": Series(np.array([[0.5, np.nan], [np.inf, 1.0]]), "w", "1"),
            "steps": Series(np.arange(3), "step"),
            "angle": Series(np.float64(-np.inf), "θ", "rad"),
        },
        "empty": {},
    }
    got = series_json(data, {"angle": "the pair is zero"})
    assert json.dumps(got, allow_nan=False)  # strict JSON
    assert got == {"plot": {
        "weights": {"label": "w", "unit": "1", "values": [[0.5, None], [None, 1.0]],
                    "values_undefined": UNDEFINED},
        "steps": {"label": "step", "unit": "", "values": [0, 1, 2]},
        "angle": {"label": "θ", "unit": "rad", "values": None,
                  "values_undefined": "the pair is zero"},
    }}  # fmt: skip
