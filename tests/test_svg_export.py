"""SVG export draws what the PNG shows: rasterised by Qt's renderer and by librsvg
(``rsvg-convert``, skipped when it is not installed), each tab's figure matches its PNG."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgRenderer
from pytestqt.qtbot import QtBot

from posenc_gui.state.registry import TAB_IDS, get_model
from posenc_gui.widgets import export
from posenc_gui.widgets.svg import TEXT_SCALE, flatten_cosmetic_strokes, portable_svg

#: Root-mean-square difference (colour channels in [0, 1]) an SVG rendering may have from the
#: PNG (whole tab at the window's scale). Before cosmetic strokes were flattened and the
#: generator got the screen's resolution, every tab was at 0.11-0.36.
MAX_RMSE = 0.1
#: Per figure, exported at 1280 x 720 (slide scale 1.5), in both renderers: images are written
#: as the device pixels the PNG has, each text run is as wide as Qt lays it out, and the staged
#: copy both files come from draws its text unhinted, as the SVG renderers do (hinted, text
#: figures were at 0.035-0.076; unhinted the worst is 0.028, librsvg on RoPE's layouts).
#: Text stays whole runs (one ``<text>`` per run).
FIGURE_RMSE = 0.03
FIGURES = [(t, f) for t in TAB_IDS for f in get_model(t).figures]


def _pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    w, h = image.width(), image.height()
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(h, image.bytesPerLine() // 4, 4)
    return rows[:, :w, :3].astype(np.float32) / 255


def _rmse(a: QImage, b: QImage) -> float:
    assert (a.width(), a.height()) == (b.width(), b.height())
    return float(np.sqrt(np.mean((_pixels(a) - _pixels(b)) ** 2)))


def _qt_raster(path: Path, like: QImage, background: str) -> QImage:
    image = QImage(like.width(), like.height(), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(background)
    renderer = QSvgRenderer(str(path))
    assert renderer.isValid()
    painter = QPainter(image)
    renderer.render(painter, QRectF(0, 0, image.width(), image.height()))
    painter.end()
    return image


def _rsvg_raster(path: Path, like: QImage, background: str) -> QImage:
    out = path.with_suffix(".rsvg.png")
    size = ["-w", str(like.width()), "-h", str(like.height())]
    subprocess.run(["rsvg-convert", *size, "-b", background, str(path), "-o", str(out)], check=True)
    return QImage(str(out))


@pytest.mark.parametrize("renderer", ["qt", "librsvg"])
@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_svg_renders_as_the_png(tab_id: str, renderer: str, tmp_path: Path, qtbot: QtBot) -> None:
    if renderer == "librsvg" and shutil.which("rsvg-convert") is None:
        pytest.skip("rsvg-convert (librsvg2-bin) is not installed; Qt's renderer half still runs")
    from posenc_gui.panels import get_panel
    from posenc_gui.state import ParamState

    cls = get_panel(tab_id)
    panel = cls(ParamState(cls.model))
    qtbot.addWidget(panel)
    panel.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    panel.resize(1280, 720)
    panel.show()
    qtbot.waitExposed(panel)
    panel.refresh_all()
    panel.refresh_now()
    fig = export.figure_widget(panel)
    png = export.render_image(fig, fig.width())
    svg = export.write_svg(fig, tmp_path / f"{tab_id}.svg")
    background = fig.palette().window().color().name()
    raster = (_qt_raster if renderer == "qt" else _rsvg_raster)(svg, png, background)
    assert _rmse(png, raster) < MAX_RMSE


@pytest.mark.parametrize("renderer", ["qt", "librsvg"])
@pytest.mark.parametrize(("tab_id", "figure"), FIGURES)
def test_each_figure_svg_renders_as_its_png(
    tab_id: str, figure: str, renderer: str, tmp_path: Path, qtbot: QtBot
) -> None:
    if renderer == "librsvg" and shutil.which("rsvg-convert") is None:
        pytest.skip("rsvg-convert (librsvg2-bin) is not installed; Qt's renderer half still runs")
    from posenc_gui.panels import get_panel

    with export.staged(get_panel(tab_id), {}, (1280, 720), figure=figure) as (_, fig):
        png = export.render_image(fig, 1280)
        svg = export.write_svg(fig, tmp_path / f"{figure}.svg")
        background = fig.palette().window().color().name()
    raster = (_qt_raster if renderer == "qt" else _rsvg_raster)(svg, png, background)
    assert _rmse(png, raster) < FIGURE_RMSE


def test_text_runs_are_whole_at_whole_font_sizes(qapp: object) -> None:
    """Qt's renderer rounds a fractional font size: each run gets a whole one, scaled back, and
    as wide as Qt lays the run out at the drawn size."""
    from PySide6.QtGui import QFont, QFontMetricsF

    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><g>'
        b'<text x="2" y="16" font-family="Sans Serif" font-size="13.3333" xml:space="preserve">'
        b"k = 2 </text></g></svg>"
    )
    out = portable_svg(svg).decode()
    assert out.count("<text") == 1 and ">k = 2 </text>" in out
    size = round(13.3333 * TEXT_SCALE)
    assert f'font-size="{size}"' in out
    kx, _, _, ky, x, y = (float(v) for v in out.split("matrix(")[1].split(")")[0].split(","))
    assert (ky, x, y) == (pytest.approx(13.3333 / size), 2, 16)
    font = QFont("Sans Serif")
    font.setPointSizeF(13.3333 * 72 / 96)
    laid_out = QFontMetricsF(font).horizontalAdvance("k = 2 ")
    font.setPointSizeF(size * 72 / 96)
    assert kx * QFontMetricsF(font).horizontalAdvance("k = 2 ") == pytest.approx(laid_out)


def test_small_images_are_written_at_their_drawn_size(qapp: object) -> None:
    """A 2 x 1 image drawn 10 x 10 times larger becomes 20 x 10 pixels of two blocks."""
    import base64

    from PySide6.QtCore import QBuffer, QIODevice

    small = QImage(2, 1, QImage.Format.Format_ARGB32)
    small.setPixel(0, 0, 0xFFFF0000)
    small.setPixel(1, 0, 0xFF0000FF)
    buf = QBuffer()
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    small.save(buf, "PNG")
    data = base64.b64encode(bytes(buf.data().data()))
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        b'viewBox="0 0 100 100"><g transform="matrix(10,0,0,10,0,0)">'
        b'<image x="0" y="0" width="2" height="1" xlink:href="data:image/png;base64,'
        + data
        + b'"/></g></svg>'
    )
    out = portable_svg(svg).decode()
    href = out.split("base64,")[1].split('"')[0]
    big = QImage.fromData(base64.b64decode(href), "PNG")
    assert (big.width(), big.height()) == (20, 10)
    assert big.pixel(9, 5) == 0xFFFF0000 and big.pixel(10, 5) == 0xFF0000FF


def test_cosmetic_strokes_are_mapped_to_pixels() -> None:
    """A 3-pixel cosmetic stroke in data units under a 40x scale stays 3 pixels in librsvg."""
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
        b'<g stroke="#000" stroke-width="3" transform="matrix(40,0,0,-40,50,50)">'
        b'<polyline fill="none" vector-effect="non-scaling-stroke" points="0,0 1,0.5 "/>'
        b'<circle vector-effect="non-scaling-stroke" cx="0" cy="0" r="1"/>'
        b"</g>"
        b'<g transform="matrix(2,0,0,2,0,0)"><text x="1" y="2">kept</text>'
        b'<path vector-effect="non-scaling-stroke" d="M0,0 L1,1"/></g>'
        b"</svg>"
    )
    out = flatten_cosmetic_strokes(svg).decode()
    assert 'points="50,50 90,30"' in out
    assert "<circle" not in out and 'd="M90,50 C' in out  # the circle as a path, radius 40
    assert out.count("matrix(1,0,0,1,0,0)") == 1  # the mixed group keeps its transform
    assert "matrix(2,0,0,2,0,0)" in out and 'd="M0,0 L1,1"' in out


def test_svg_text_has_the_screen_size(qtbot: QtBot, tmp_path: Path) -> None:
    """Text is written as text, its size in pixels as on screen (the generator's resolution is
    the widget's), so runs laid out with the screen's metrics do not overlap or leave gaps."""
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QLabel

    label = QLabel("run of text")
    font = QFont(label.font())
    font.setPointSizeF(12.0)
    label.setFont(font)
    qtbot.addWidget(label)
    label.resize(200, 40)
    text = export.write_svg(label, tmp_path / "t.svg").read_text(encoding="utf-8")
    pixels = 12.0 * label.logicalDpiY() / 72
    assert ">run of text</text>" in text
    assert f'font-size="{pixels:g}"' in text or f'font-size="{round(pixels, 4):g}"' in text


def test_cosmetic_strokes_with_exponents_are_mapped_to_pixels() -> None:
    """A marker whose path has ``-8.88e-16`` in it (Qt writes tiny numbers so) is flattened too:
    left transformed, librsvg drew its 3-pixel white outline 300 pixels wide over the plot."""
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
        b'<g stroke="#fff" stroke-width="3" transform="matrix(100,0,0,-100,50,50)">'
        b'<path vector-effect="non-scaling-stroke"'
        b' d="M0.1,0 C0.1,-0.05 0.05,-0.1 -8.88e-16,-0.1 "/>'
        b"</g></svg>"
    )
    out = flatten_cosmetic_strokes(svg).decode()
    assert "matrix(1,0,0,1,0,0)" in out and 'd="M60,50 C60,55 55,60 50,60"' in out


def test_a_staged_copy_draws_text_unhinted_and_the_window_keeps_hinted_text(
    qtbot: QtBot,
) -> None:
    """The export's copy draws glyphs as the SVG renderers do (unhinted); the app's style, and
    so the window on screen, is untouched."""
    from PySide6.QtGui import QFont

    from posenc_gui.panels import get_panel
    from posenc_gui.widgets import style as style_mod

    unhinted = QFont.HintingPreference.PreferNoHinting
    with export.staged(get_panel("rope"), {}, (1280, 720), figure="layouts") as (copy, fig):
        assert not copy.hub.style.hinted_text
        assert copy.hub.style.font("tick").hintingPreference() == unhinted
        assert fig.font().hintingPreference() == unhinted
    assert style_mod.current().hinted_text
    assert style_mod.current().font("tick").hintingPreference() != unhinted
