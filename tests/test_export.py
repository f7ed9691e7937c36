"""Export: PNG at a chosen width, SVG, CSV and .npz matching ``panel.data()``, the clipboard,
atomic writes that never replace a file unasked."""

from __future__ import annotations

import csv
import errno
import json
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QGuiApplication, QImage
from pytestqt.qtbot import QtBot

from posenc_gui.main_window import MainWindow
from posenc_gui.panels.base import Panel
from posenc_gui.state.jsonfile import WriteRefusedError
from posenc_gui.state.registry import TAB_IDS
from posenc_gui.state.session import Session
from posenc_gui.widgets import export
from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets.views import Series


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[MainWindow]:
    w = MainWindow(session=Session("sine"))
    qtbot.addWidget(w)
    w.resize(1200, 760)
    w.show()
    w.load_panels()
    qtbot.waitExposed(w)
    w.panels["sine"].refresh_now()
    yield w
    style_mod.hub().set_style(style_mod.Style())


def _panel(w: MainWindow) -> Panel:
    panel = w.current_panel()
    assert panel is not None
    return panel


def test_png_has_the_chosen_width_and_the_figure_aspect(window: MainWindow, tmp_path: Path) -> None:
    fig = export.figure_widget(_panel(window))
    assert fig is _panel(window).plot_grid  # the plots, not the controls column
    out = window.exports.png(tmp_path / "fig.png", 1920)
    image = QImage(str(out))
    assert image.width() == 1920
    assert image.height() == round(fig.height() * 1920 / fig.width())
    colours = {image.pixel(x, y) for x in range(0, 1920, 9) for y in range(0, image.height(), 9)}
    assert len(colours) > 50  # a picture, not a blank
    small = QImage(str(window.exports.png(tmp_path / "small.png", 640)))
    assert small.width() == 640
    with pytest.raises(ValueError, match="width must be"):
        window.exports.png(tmp_path / "huge.png", 100_000)
    assert not (tmp_path / "huge.png").exists()


def test_svg_is_a_vector_drawing(window: MainWindow, tmp_path: Path) -> None:
    out = window.exports.svg(tmp_path / "fig.svg")
    text = out.read_text(encoding="utf-8")
    assert "<svg" in text and "</svg>" in text and "Sine explorer" in text
    assert "<path" in text or "<polyline" in text


def _sections(path: Path) -> dict[str, tuple[list[str], list[str], list[list[str]]]]:
    """view → (series names, header, rows) from the CSV layout of export.py."""
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    assert lines[0].startswith("# PosEnc Explorer: tab sine")
    out: dict[str, tuple[list[str], list[str], list[list[str]]]] = {}
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("# view "):
            view, _, names = line[len("# view ") :].partition(": ")
            block = []
            k += 1
            while k < len(lines) and lines[k] and not lines[k].startswith("#"):
                block.append(lines[k])
                k += 1
            rows = list(csv.reader(block))
            out[view] = (names.split(", "), rows[0], rows[1:])
        else:
            k += 1
    return out


def test_csv_columns_match_panel_data(window: MainWindow, tmp_path: Path) -> None:
    panel = _panel(window)
    out = window.exports.csv(tmp_path / "data.csv")
    sections = _sections(out)
    data = panel.data()
    assert list(sections) == [v for v, s in data.items() if s]
    for view, series in data.items():
        if not series:
            continue
        names, header, rows = sections[view]
        expected = export.columns(series)
        assert names == [c[0] for c in expected]
        assert header == [c[1] for c in expected]
        for col, (_, _, values) in enumerate(expected):
            cells = [r[col] for r in rows if col < len(r) and r[col] != ""]
            got = np.array([float(c) for c in cells])
            np.testing.assert_array_equal(got, values.astype(float))
    # labels and units as headers: "time t [s]"
    assert sections["wave"][1][0] == f"{data['wave']['t'].label} [{data['wave']['t'].unit}]"
    assert "amplitude=1.0" in out.read_text(encoding="utf-8-sig")


def test_csv_layout_for_2d_bool_and_scalar() -> None:
    data = {
        "v": {
            "m": Series(np.arange(6).reshape(3, 2), "matrix", "rad"),
            "flag": Series(np.array(True), "on", ""),
            "short": Series(np.array([0.1]), "x", ""),
        },
        "empty": {},
    }
    text = export.csv_text(data, tab="t", title="T")
    lines = text.splitlines()
    assert "# view v: m[:,0], m[:,1], flag, short" in lines
    assert "matrix [rad] (column 0),matrix [rad] (column 1),on,x" in lines
    assert "0,1,1,0.1" in lines and "2,3,," in lines
    assert "empty" not in text


def test_npz_round_trip_equals_the_arrays(window: MainWindow, tmp_path: Path) -> None:
    panel = _panel(window)
    out = window.exports.npz(tmp_path / "data.npz")
    data = panel.data()
    with np.load(out, allow_pickle=False) as archive:
        meta = json.loads(str(archive["__meta__"]))
        keys = set(archive.files) - {"__meta__"}
        assert keys == {f"{v}/{n}" for v, s in data.items() for n in s}
        for view, series in data.items():
            for name, s in series.items():
                np.testing.assert_array_equal(archive[f"{view}/{name}"], s.values)
                assert archive[f"{view}/{name}"].dtype == s.values.dtype
                assert meta["series"][f"{view}/{name}"] == {"label": s.label, "unit": s.unit}
    assert meta["tab"] == "sine" and meta["params"] == panel.state.values()


def test_npy_folder_holds_every_array_as_its_own_file(window: MainWindow, tmp_path: Path) -> None:
    """File ▸ Export data as .npy files: one ``view__name.npy`` per array (read without pickle),
    ``meta.json`` with labels, units and parameters; a new folder, written atomically."""
    panel = _panel(window)
    out = window.exports.npy(tmp_path / "sine_data")
    data = panel.data()
    names = {f.name for f in out.iterdir()}
    assert names == {f"{v}__{n}.npy" for v, s in data.items() for n in s} | {"meta.json"}
    meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    for view, series in data.items():
        for name, s in series.items():
            loaded = np.load(out / f"{view}__{name}.npy", allow_pickle=False)
            np.testing.assert_array_equal(loaded, s.values)
            assert loaded.dtype == s.values.dtype
            assert meta["series"][f"{view}/{name}"] == {"label": s.label, "unit": s.unit}
    assert meta["tab"] == "sine" and meta["params"] == panel.state.values()
    assert [p.name for p in tmp_path.iterdir()] == ["sine_data"]  # no temporary folder left
    # not replaced unasked; replaced when asked; never a folder holding other files
    with pytest.raises(FileExistsError):
        window.exports.npy(out)
    panel.state.set("dim", 16)
    window.exports.npy(out, overwrite=True)
    assert json.loads((out / "meta.json").read_text(encoding="utf-8"))["params"]["dim"] == 16
    other = tmp_path / "thesis"
    other.mkdir()
    (other / "chapter.tex").write_text("keep me", encoding="utf-8")
    with pytest.raises(FileExistsError, match="other files"):
        window.exports.npy(other, overwrite=True)
    assert (other / "chapter.tex").read_text(encoding="utf-8") == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sine_data", "thesis"]


Exporter = Callable[[MainWindow, Path, bool], Path]
EXPORTERS: dict[str, Exporter] = {
    "png": lambda w, p, o: w.exports.png(p, 800, overwrite=o),
    "svg": lambda w, p, o: w.exports.svg(p, overwrite=o),
    "csv": lambda w, p, o: w.exports.csv(p, overwrite=o),
    "npz": lambda w, p, o: w.exports.npz(p, overwrite=o),
}


@pytest.mark.parametrize("kind", EXPORTERS)
def test_existing_files_are_not_replaced_unasked(
    window: MainWindow, tmp_path: Path, kind: str
) -> None:
    path = tmp_path / f"out.{kind}"
    path.write_bytes(b"precious")
    with pytest.raises(FileExistsError, match="exists already"):
        EXPORTERS[kind](window, path, False)
    assert path.read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no temp file left
    EXPORTERS[kind](window, path, True)
    assert path.read_bytes() != b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def _full_disk_under(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Writes to files in ``folder`` take 100 bytes, then fail as on a full disk (ENOSPC)."""
    real_write = os.write
    taken: dict[int, int] = {}

    def write(fd: int, data: bytes | memoryview) -> int:
        try:
            name = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            name = ""
        if not name.startswith(str(folder)):
            return real_write(fd, data)
        if taken.get(fd):
            raise OSError(errno.ENOSPC, "No space left on device")
        taken[fd] = real_write(fd, bytes(data)[:100])
        return taken[fd]

    monkeypatch.setattr(os, "write", write)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc/self/fd")
def test_svg_on_a_full_disk_is_an_error_not_saved(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 20, finding 8: the drawing was truncated and the status bar said "Saved"."""
    from posenc_gui.widgets.export_dialog import FigureExportDialog

    target = tmp_path / "fig.svg"
    target.write_bytes(b"the previous drawing")
    monkeypatch.setattr(FigureExportDialog, "exec", lambda self: 1)
    monkeypatch.setattr(window.exports, "ask_save_path", lambda *a: target)
    _full_disk_under(monkeypatch, tmp_path)
    window.exports.svg_action.trigger()
    monkeypatch.undo()
    assert target.read_bytes() == b"the previous drawing"  # untouched, not half a drawing
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig.svg"]  # no temporary file
    message = window.statusBar().currentMessage()
    assert not message.startswith("Saved") and "No space left" in message
    assert window.messages.error_box is not None


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc/self/fd")
@pytest.mark.parametrize("kind", [*EXPORTERS, "gif", "npy"])
def test_a_failed_write_leaves_nothing(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    target = tmp_path / f"out.{kind}"
    _full_disk_under(monkeypatch, tmp_path)
    with pytest.raises(OSError, match="No space left") as raised:
        WRITERS[kind](window, target, True)
    monkeypatch.undo()
    assert str(raised.value).endswith(f"'{target}'")  # it names the file, no temporary one
    assert list(tmp_path.iterdir()) == []


WRITERS: dict[str, Callable[[MainWindow, Path, bool], Path]] = {
    **EXPORTERS,
    "gif": lambda w, p, o: w.exports.gif(p, "wave", (640, 360), frames=2, overwrite=o),
    "npy": lambda w, p, o: w.exports.npy(p, overwrite=o),
}


@pytest.mark.parametrize("kind", list(WRITERS))
def test_exports_refuse_a_named_pipe_and_keep_a_file_s_mode(
    window: MainWindow, tmp_path: Path, kind: str
) -> None:
    """Issue 20, finding 7: a device or pipe was replaced by a file, and every export was 0600."""
    fifo = tmp_path / f"pipe.{kind}"
    os.mkfifo(fifo)
    with pytest.raises(WriteRefusedError, match="named pipe"):
        WRITERS[kind](window, fifo, True)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    shared = tmp_path / f"shared.{kind}"
    WRITERS[kind](window, shared, False)
    first = shared.read_bytes() if shared.is_file() else b""
    os.chmod(shared, 0o750 if kind == "npy" else 0o640)
    WRITERS[kind](window, shared, True)
    if kind != "npy":  # (a folder export is a new folder: its mode follows the umask)
        assert stat.S_IMODE(shared.stat().st_mode) == 0o640
        assert shared.read_bytes()[:4] == first[:4]  # the same kind of file, written again
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([fifo.name, shared.name])


@pytest.mark.parametrize("kind", list(WRITERS))
def test_new_exports_follow_the_umask_and_write_through_a_symlink(
    window: MainWindow, tmp_path: Path, kind: str
) -> None:
    old = os.umask(0o022)
    try:
        made = WRITERS[kind](window, tmp_path / f"new.{kind}", False)
    finally:
        os.umask(old)
    assert stat.S_IMODE(made.stat().st_mode) == (0o755 if kind == "npy" else 0o644)
    if kind == "npy":
        assert all(stat.S_IMODE(f.stat().st_mode) == 0o644 for f in made.iterdir())
        return
    real = tmp_path / f"real.{kind}"
    real.write_bytes(b"old")
    link = tmp_path / f"link.{kind}"
    link.symlink_to(real)
    WRITERS[kind](window, link, True)
    assert link.is_symlink() and real.read_bytes() == made.read_bytes()


# -- the picture cap (issue 20, finding 9) ---------------------------------------------------------
CAP = f"{export.MAX_PICTURE_PIXELS // 1_000_000} megapixels"


def test_a_picture_over_the_cap_is_refused_naming_it() -> None:
    export.check_picture_size(export.MAX_PICTURE_SIDE, 4000)
    for w, h in [(8192, 45_249), (8193, 320), (320, 8193), (7000, 7000)]:
        with pytest.raises(export.PictureTooLargeError, match=f"{w} × {h}.*{CAP}"):
            export.check_picture_size(w, h)
    with pytest.raises(ValueError, match=CAP):
        export.parse_size("8192x8192")


def test_copy_and_png_of_a_tall_figure_at_a_huge_width_are_refused(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wide picture of a tall figure: refused with the cap before an image is made."""
    from PySide6.QtCore import QSettings

    from posenc_gui.controllers.export import EXPORT_WIDTH_KEY

    fig = export.figure_widget(_panel(window))
    assert export.image_height(fig, 8192) * 8192 > export.MAX_PICTURE_PIXELS
    made: list[object] = []
    real_qimage = export.QImage

    def counting(*args: object) -> QImage:
        made.append(args)
        return real_qimage(*args)  # type: ignore[call-overload,no-any-return]

    monkeypatch.setattr(export, "QImage", counting)
    QSettings().setValue(EXPORT_WIDTH_KEY, 8192)
    try:
        QGuiApplication.clipboard().clear()
        assert not window.exports.copy_figure()
        assert QGuiApplication.clipboard().image().isNull()
        assert CAP in window.statusBar().currentMessage()
        with pytest.raises(export.PictureTooLargeError, match=CAP):
            window.exports.png(tmp_path / "huge.png")
        with pytest.raises(export.PictureTooLargeError, match=CAP):
            window.exports.gif(tmp_path / "huge.gif", None, frames=2)
    finally:
        QSettings().remove(EXPORT_WIDTH_KEY)
    assert made == []  # refused before any picture's memory was taken
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    assert window.exports.copy_figure()  # at the default width it fits


def test_copy_figure_puts_an_image_on_the_clipboard(window: MainWindow) -> None:
    QGuiApplication.clipboard().clear()
    assert window.exports.copy_figure()
    image = QGuiApplication.clipboard().image()
    assert not image.isNull()
    assert image.width() == window.exports.width()
    assert "copied to the clipboard" in window.statusBar().currentMessage()


def test_export_actions_wait_for_the_panels(qtbot: QtBot) -> None:
    w = MainWindow(session=Session("sine"))
    qtbot.addWidget(w)
    assert not w.export_action.isEnabled() and not w.copy_action.isEnabled()
    assert not w.exports.copy_figure()
    w.load_panels()
    assert w.export_action.isEnabled() and w.copy_action.isEnabled()
    assert w.export_action.shortcut().toString() == "Ctrl+E"
    assert w.copy_action.shortcut().toString() == "Ctrl+Shift+C"


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_every_tab_exports_its_data(tab_id: str, tmp_path: Path, qtbot: QtBot) -> None:
    """Generic: whatever a tab records can be written as CSV and .npz."""
    from posenc_gui.panels import get_panel
    from posenc_gui.state import ParamState

    cls = get_panel(tab_id)
    panel = cls(ParamState(cls.model))
    qtbot.addWidget(panel)
    data = panel.data()
    export.write_csv(data, tmp_path / "d.csv", tab=tab_id)
    export.write_npz(data, tmp_path / "d.npz", tab=tab_id)
    with np.load(tmp_path / "d.npz", allow_pickle=False) as archive:
        assert len(archive.files) == 1 + sum(len(s) for s in data.values())


def test_npy_menu_action_writes_the_folder(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _panel(window)
    target = tmp_path / "from_menu"
    monkeypatch.setattr(window.exports, "ask_save_path", lambda *a: target)
    window.export_npy_action.trigger()
    assert (target / "meta.json").is_file()
    assert any(f.suffix == ".npy" for f in target.iterdir())


# -- one figure at a slide size -------------------------------------------------------------------
def _screen(panel: Panel) -> tuple[object, ...]:
    """What the tab on screen shows: its values, enlarged figure, visible cells and sizes."""
    cells = tuple(
        (fid, w.isVisible(), w.size().toTuple()) for fid, w in panel.figure_widgets.items()
    )
    return panel.state.values(), panel.enlarged_figure, cells, panel.size().toTuple()


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720), (700, 500)])
def test_one_figure_png_is_exactly_the_size_and_leaves_the_screen_alone(
    window: MainWindow, tmp_path: Path, size: tuple[int, int]
) -> None:
    panel = _panel(window)
    before = _screen(panel)
    out = window.exports.figure_png(tmp_path / "circle.png", "circle", size)
    image = QImage(str(out))
    assert (image.width(), image.height()) == size
    assert len({image.pixel(x, y) for x in range(0, size[0], 7) for y in range(0, size[1], 7)}) > 5
    assert _screen(panel) == before


def test_a_staged_figure_is_laid_out_at_the_size_alone(window: MainWindow) -> None:
    """The figure's own cell at exactly the size, the other figures hidden (not a column of the
    tab scaled down): its plot's view box is wider at 1920 than at 1280 pixels."""
    panel = _panel(window)
    widths = []
    for size in [(1280, 720), (1920, 1080)]:
        with export.staged_copy(panel, size, "wave") as (copy, widget):
            assert widget.objectName() == "figure_wave"
            assert widget.size().toTuple() == size
            others = [w for f, w in copy.figure_widgets.items() if f != "wave"]
            assert others and not any(w.isVisible() for w in others)
            widths.append(widget.getPlotItem().vb.width())
    assert widths[1] > widths[0] + 500


def test_an_unknown_figure_is_refused_with_the_list(window: MainWindow, tmp_path: Path) -> None:
    with pytest.raises(KeyError, match="figures: wave, circle"):
        window.exports.figure_png(tmp_path / "x.png", "nope", (1280, 720))
    assert not (tmp_path / "x.png").exists()


def test_one_figure_svg_has_the_size(window: MainWindow, tmp_path: Path) -> None:
    text = window.exports.figure_svg(tmp_path / "w.svg", "wave", (1280, 720)).read_text("utf-8")
    assert 'viewBox="0 0 1280 720"' in text


def test_one_figure_gif_is_exactly_the_size(window: MainWindow, tmp_path: Path) -> None:
    panel = _panel(window)
    before = _screen(panel)
    out = window.exports.gif(tmp_path / "c.gif", "circle", (640, 360), frames=2)
    data = out.read_bytes()
    assert data[:6] == b"GIF89a"
    assert int.from_bytes(data[6:8], "little") == 640
    assert int.from_bytes(data[8:10], "little") == 360
    assert _screen(panel) == before


@pytest.mark.parametrize(
    ("text", "size"), [("1600x900", (1600, 900)), (" 1024 × 768 ", (1024, 768))]
)
def test_sizes_parse(text: str, size: tuple[int, int]) -> None:
    assert export.parse_size(text) == size


@pytest.mark.parametrize("text", ["", "1600", "1600x", "ax9", "100x100", "9000x900"])
def test_bad_sizes_say_what_a_size_is(text: str) -> None:
    with pytest.raises(ValueError, match=r"W×H .* from 320 to 8192"):
        export.parse_size(text)


def test_dialog_offers_the_enlarged_figure_and_checks_a_typed_size(
    window: MainWindow, qtbot: QtBot
) -> None:
    from PySide6.QtWidgets import QDialogButtonBox

    from posenc_gui.widgets.export_dialog import FigureExportDialog

    panel = _panel(window)
    panel.enlarge_figure("circle")
    assert window.exports.default_figure() == "circle"
    panel.enlarge_figure(None)
    d = FigureExportDialog("t", "png", list(panel.figure_widgets), current="circle", width=1920)
    qtbot.addWidget(d)
    assert d.figure_combo.currentData() == "circle"
    assert d.choice().size == (1920, 1080)
    d.size_combo.setCurrentIndex(d.size_combo.count() - 1)  # custom
    ok = d.buttons.button(QDialogButtonBox.StandardButton.Ok)
    d.custom_edit.setText("12x")
    assert not ok.isEnabled() and "W×H" in d.error.text()
    d.custom_edit.setText("1600×900")
    assert ok.isEnabled() and d.error.text() == ""
    assert d.choice().size == (1600, 900)
    d.figure_combo.setCurrentIndex(0)  # the whole tab: a width, no size
    assert d.choice().figure is None and d.choice().size is None
    assert not d.size_combo.isEnabled() and d.width_spin.isEnabled()


def test_png_menu_action_writes_the_chosen_figure_at_the_chosen_size(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from posenc_gui.widgets.export_dialog import FigureExportDialog

    panel = _panel(window)
    panel.enlarge_figure("wave")
    target = tmp_path / "menu.png"
    monkeypatch.setattr(FigureExportDialog, "exec", lambda self: 1)
    monkeypatch.setattr(window.exports, "ask_save_path", lambda *a: target)
    window.export_action.trigger()
    image = QImage(str(target))
    assert (image.width(), image.height()) == window.exports.last_size()
    assert panel.enlarged_figure == "wave"


def test_slide_scale_follows_the_height_from_the_presentation_scale() -> None:
    assert export.slide_scale(768, floor=1.0) == 1.6
    assert export.slide_scale(1080, floor=1.0) == 2.25
    assert export.slide_scale(720, floor=1.0) == 1.5
    assert export.slide_scale(720, floor=1.8) == 1.8  # never below the window's scale
    assert export.slide_scale(8192, floor=1.0) == style_mod.MAX_SCALE


def _ink_width(image: QImage, background: int) -> float:
    """Fraction of the image's width between the leftmost and rightmost painted pixel."""
    im = image.convertToFormat(QImage.Format.Format_RGB32)
    w, h = im.width(), im.height()
    px = np.frombuffer(im.constBits(), np.uint8).reshape(h, im.bytesPerLine() // 4, 4)[:, :w, :3]
    bg = np.array([(background >> 16) & 255, (background >> 8) & 255, background & 255])
    xs = np.nonzero((np.abs(px.astype(int) - bg).sum(axis=2) > 60).any(axis=0))[0]
    return float(xs.max() - xs.min() + 1) / w


@pytest.mark.parametrize(
    ("tab_id", "figure"),
    [("sine", "wave_formula"), ("heatmap", "hover"), ("rope", "circle_formula")],
)
def test_a_read_out_figure_at_a_slide_size_reads_as_a_slide(
    tab_id: str, figure: str, qtbot: QtBot
) -> None:
    """At 1920 x 1080 a read-out's text is laid out at the slide's scale: its lines span most of
    the slide's width (at the window's scale 1 they spanned 38-56 %)."""
    from posenc_gui.panels import get_panel

    with export.staged(get_panel(tab_id), {}, (1920, 1080), figure=figure) as (panel, widget):
        assert panel.book.style.scale == export.slide_scale(1080)
        image = export.render_image(widget, 1920)
        background = widget.palette().window().color().rgb()
    assert _ink_width(image, background) >= 0.6
