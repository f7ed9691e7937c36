"""PE heatmap tab: paired tests (state -> widgets/plots, widgets -> state), resolution, render."""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
import pytest
import torch
from conftest import compare_specs, count_calls
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QFontMetricsF, QImage
from PySide6.QtWidgets import QApplication, QComboBox, QPushButton, QSlider, QSpinBox
from pytestqt.qtbot import QtBot

from posenc_gui import cli, core
from posenc_gui.core.sinusoidal import sinusoidal_column_means
from posenc_gui.panels.heatmap import MAX_SAMPLES, HeatmapPanel, axis_samples, position_bins
from posenc_gui.state import ParamState
from posenc_gui.state.heatmap import HeatmapModel
from posenc_gui.widgets import style as S  # noqa: N812 (the brief's spelling)
from posenc_gui.widgets import styled
from posenc_gui.widgets.fmt import integer
from posenc_gui.widgets.text import LiveText, strip_tags

DIVERGING = S.COLORMAPS["diverging"]


@pytest.fixture
def panel(qtbot: QtBot) -> HeatmapPanel:
    p = HeatmapPanel(ParamState(HeatmapModel))
    qtbot.addWidget(p)
    p.resize(1500, 950)
    p.show()
    qtbot.waitExposed(p)
    p.refresh_now()
    return p


def _omega(i: int, d: int, base: float = 10000.0) -> float:
    return base ** (-2 * i / d)


# -- resolution: only what lands on pixels ----------------------------------------------------
def test_axis_samples() -> None:
    idx, start, extent = axis_samples(-0.5, 99.5, 100, 500)
    assert idx.tolist() == list(range(100)) and (start, extent) == (-0.5, 100.0)
    idx, start, extent = axis_samples(-0.5, 999_999.5, 1_000_000, 800)
    assert len(idx) == 800 and (start, extent) == (-0.5, 1_000_000.0)
    # one representative per pixel: the position nearest the pixel centre
    assert idx[0] == 625 and idx[-1] == 999_375
    assert bool((np.diff(idx) > 0).all())


def test_position_bins_partition_the_visible_positions() -> None:
    first, last, start, extent = position_bins(-0.5, 99.5, 100, 500)
    assert first.tolist() == last.tolist() == list(range(100)) and (start, extent) == (-0.5, 100.0)
    first, last, start, extent = position_bins(-0.5, 999_999.5, 1_000_000, 800)
    assert len(first) == len(last) == 800 and (start, extent) == (-0.5, 1_000_000.0)
    assert first[0] == 0 and last[-1] == 999_999
    assert bool((first[1:] == last[:-1] + 1).all())  # no gap, no overlap
    assert set((last - first + 1).tolist()) <= {1250}
    first, last, _, _ = position_bins(1000.2, 5000.7, 10_000, 333)
    assert first[0] == 1000 and last[-1] == 5001
    assert bool((first[1:] == last[:-1] + 1).all()) and bool((last >= first).all())


def test_big_table_is_computed_at_screen_resolution(panel: HeatmapPanel) -> None:
    panel.state.update({"positions": 1_000_000, "dim": 4096, "position": 777_777})
    panel.refresh_now()
    rows, cols = panel.image_table.shape
    assert rows <= MAX_SAMPLES and cols <= MAX_SAMPLES
    assert rows <= panel.heat_vb.width() + 1 and cols <= panel.heat_vb.height() + 1
    assert panel.image.image.shape == (cols, rows, 4)  # drawn transposed: x = position, RGBA
    first, last = panel.image_first, panel.image_last
    j0, j1 = panel.image_dim_first, panel.image_dim_last
    assert first[0] == 0 and last[-1] == 999_999 and j0[0] == 0 and j1[-1] == 4095
    # the pixel rows partition the 4096 columns, none of them one sampled column
    assert bool((j0[1:] == j1[:-1] + 1).all()) and bool((j1 > j0).all())
    # every pixel is the exact mean of the positions × dimensions it covers (float64 angles)
    for r in (0, 1, rows // 2, rows - 1):
        block = core.sinusoidal_at(
            torch.arange(int(first[r]), int(last[r]) + 1), 4096, 10000.0, dtype=torch.float64
        ).numpy()
        expected = [block[:, a : b + 1].mean() for a, b in zip(j0, j1, strict=True)]
        np.testing.assert_allclose(panel.image_table[r], expected, rtol=0, atol=1e-9)
    # and it says so
    n, m = round(1_000_000 / rows), round(4096 / cols)
    assert "averaged over p and j" in panel.heat_plot.getPlotItem().titleLabel.text
    note = (
        f"Each pixel column = mean over ~{integer(n)} positions; "
        f"each pixel row = mean over ~{m} dimensions"
    )
    assert note in panel.hover_label.text()
    # the curve below is drawn with at most a few samples per pixel
    x, _ = panel.sel_curve.getData()
    assert len(x) <= 4 * MAX_SAMPLES


def test_aggregated_image_equals_the_brute_force_mean(panel: HeatmapPanel) -> None:
    panel.state.update({"positions": 5000, "dim": 16, "layout": "concat", "base": 100.0})
    panel.refresh_now()
    first, last, dims = panel.image_first, panel.image_last, panel.image_dims
    assert len(first) < 5000 and bool((last > first).any())
    full = core.sinusoidal_encoding(5000, 16, 100.0, layout="concat", dtype=torch.float64)
    sums = torch.cat((torch.zeros(1, 16, dtype=torch.float64), full.cumsum(dim=0)))
    brute = (sums[last + 1] - sums[first]) / torch.from_numpy(last - first + 1)[:, None]
    np.testing.assert_allclose(panel.image_table, brute.numpy()[:, dims], rtol=0, atol=1e-10)
    image = panel.views["image"].data()
    np.testing.assert_array_equal(image["values"].values, panel.image_table)


def test_a_million_positions_show_means_not_moire(panel: HeatmapPanel) -> None:
    """Fast columns average to ~0 (the middle of the colour scale) instead of aliasing."""
    panel.state.update({"positions": 1_000_000, "dim": 128})
    panel.refresh_now()
    dims = panel.image_dims
    lam = 2 * math.pi * 10000.0 ** (2 * (dims // 2) / 128)
    fast = lam < 20.0
    assert fast.sum() >= 10
    assert float(np.abs(panel.image_table[:, fast]).max()) < 0.01
    # point samples at the pixel centres would swing over the whole colour scale (moiré)
    centres = torch.from_numpy(panel.image_positions)
    sampled = core.sinusoidal_columns(centres, torch.from_numpy(dims), 128, 10000.0).numpy()
    assert float(np.abs(sampled[:, fast]).max()) > 0.9
    # slow columns (λ ≫ positions per pixel) keep their values
    slow = lam > 20 * panel.image_mean_over
    assert slow.sum() >= 2
    np.testing.assert_allclose(panel.image_table[:, slow], sampled[:, slow], atol=0.02)
    # the image pushed to the screen is the mean, fast columns at the centre of the scale
    lut = pg.colormap.get(DIVERGING).getLookupTable(nPts=256, alpha=True)
    pushed = panel.image.image[fast, :].reshape(-1, 4)
    assert bool(np.isin(panel.image_index[fast, :], (127, 128)).all())
    assert {tuple(px) for px in pushed.tolist()} <= {tuple(lut[127]), tuple(lut[128])}


def test_zoom_recomputes_exact_rows(panel: HeatmapPanel, qtbot: QtBot) -> None:
    panel.state.update({"positions": 1_000_000, "dim": 512, "layout": "concat"})
    panel.refresh_now()
    panel.heat_vb.setRange(xRange=(500_000 - 0.5, 500_099.5), yRange=(99.5, 139.5), padding=0)
    # the view-range signal triggers a coalesced recompute
    qtbot.waitUntil(lambda: panel.image_positions[0] == 500_000, timeout=60_000)
    assert panel.image_positions.tolist() == list(range(500_000, 500_100))
    assert panel.image_dims.tolist() == list(range(100, 140))
    expected = core.sinusoidal_at(
        torch.arange(500_000, 500_100), 512, 10000.0, layout="concat", dtype=torch.float64
    )
    np.testing.assert_allclose(panel.image_table, expected.numpy()[:, 100:140], atol=1e-12)
    # the position curve follows the zoom (shared axis) and is exact there
    x, y = panel.sel_curve.getData()
    assert x.min() >= 499_999 and x.max() <= 500_101
    j = panel.state.as_int("dimension")
    pair, is_sin = j % 256, j < 256
    f = np.sin if is_sin else np.cos
    np.testing.assert_allclose(y, f(x * _omega(pair, 512)), atol=1e-9)


def test_fast_columns_are_drawn_as_their_band(panel: HeatmapPanel) -> None:
    panel.state.update({"positions": 1_000_000, "dim": 128, "dimension": 0})
    panel.refresh_now()
    assert panel.curve_is_band  # λ = 2π ≪ positions per pixel
    _, y = panel.sel_curve.getData()
    assert y.min() == -1.0 and y.max() == 1.0
    assert "Oscillates faster than the pixels here" in panel.curve_label.text()
    lines = panel.curve_label.text().count("<br>")
    panel.state.update({"positions": 100})
    panel.refresh_now()
    assert not panel.curve_is_band
    assert "Oscillates faster" not in panel.curve_label.text()
    assert panel.curve_label.text().count("<br>") == lines  # as many lines: no re-layout
    x, y = panel.sel_curve.getData()
    np.testing.assert_allclose(y, np.sin(x), atol=1e-12)  # column 0 = sin(p·1)


# -- state -> widgets and plots ---------------------------------------------------------------
def test_state_to_widgets(panel: HeatmapPanel) -> None:
    panel.state.update({"positions": 5000, "dim": 64, "layout": "concat", "position": 4321})
    assert panel.findChild(QSpinBox, "positions_spin").value() == 5000
    pos_spin = panel.findChild(QSpinBox, "position_spin")
    assert pos_spin.value() == 4321 and pos_spin.maximum() == 4999
    assert panel.findChild(QSpinBox, "dimension_spin").maximum() == 63
    assert panel.findChild(QComboBox, "layout_combo").currentData() == "concat"
    slider = panel.findChild(QSlider, "positions_slider")  # log slider
    assert slider.value() == round(math.log(5000) / math.log(1e6) * slider.maximum())


@pytest.mark.parametrize("layout", ["interleaved", "concat"])
def test_state_to_plots(panel: HeatmapPanel, layout: str) -> None:
    panel.state.update(
        {"positions": 200, "dim": 32, "layout": layout, "position": 57, "dimension": 9}
    )
    panel.refresh_now()
    r = panel.readouts()
    vec = np.asarray(r["vector"])
    # vector plot: x = value, y = column index; sin columns in one item, cos in the other
    xs, ys = panel.vec_sin.getData()
    sin_cols = np.arange(0, 32, 2) if layout == "interleaved" else np.arange(16)
    np.testing.assert_array_equal(ys, sin_cols)
    np.testing.assert_allclose(xs, [math.sin(57 * _omega(i, 32)) for i in range(16)], atol=1e-12)
    np.testing.assert_allclose(xs, vec[sin_cols])
    # crosshairs and markers at the selection
    assert panel.pos_line.value() == 57 and panel.curve_pos_line.value() == 57
    assert panel.dim_line.value() == 9 and panel.vec_dim_line.value() == 9
    mx, my = panel.curve_markers.getData()
    assert list(mx) == [57, 57] and list(my) == pytest.approx([r["value"], r["partner_value"]])
    # selected column and partner over positions: the closed form of that column
    pair = 4 if layout == "interleaved" else 9
    fn, other = (np.cos, np.sin) if layout == "interleaved" else (np.sin, np.cos)
    x, y = panel.sel_curve.getData()
    np.testing.assert_allclose(y, fn(x * _omega(pair, 32)), atol=1e-12)
    x, y = panel.partner_curve.getData()
    np.testing.assert_allclose(y, other(x * _omega(pair, 32)), atol=1e-12)
    # wavelengths: green up to the span, orange beyond, reference line at L-1
    gi, _ = panel.wl_full.getData()
    ni, _ = panel.wl_never.getData()
    lam = [2 * math.pi / _omega(i, 32) for i in range(16)]
    assert list(gi) == [i for i in range(16) if lam[i] <= 199]
    assert list(ni) == [i for i in range(16) if lam[i] > 199]
    assert panel.span_line.value() == pytest.approx(math.log10(199))
    assert f"{len(gi)} of 16 pairs" in panel.turns_label.text()


def test_formula_labels_show_the_numbers(panel: HeatmapPanel) -> None:
    panel.state.update({"position": 37, "dimension": 12, "dim": 128, "layout": "interleaved"})
    panel.refresh_now()
    text = panel.hover_label.text()
    w = _omega(6, 128)
    assert "PE[37, 12]" in text and "−12/128" in text
    assert f"{w:.4f}" in text and f"+{math.sin(37 * w):.4f}" in text
    formula = panel.formula_label.text()
    assert "10\u202f000<sup>−2i/128</sup>" in formula and "interleaved" in formula
    panel.state.update({"layout": "concat", "dimension": 70})
    panel.refresh_now()
    text = panel.hover_label.text()
    assert "PE[37, 70]" in text and "cos(" in text and "concat" in text
    assert f"{math.cos(37 * w):+.4f}".replace("-", "−") in text


def test_hover_shows_the_cell_under_the_mouse(panel: HeatmapPanel) -> None:
    panel.state.update({"positions": 30, "dim": 16, "position": 3, "dimension": 1})
    panel.refresh_now()
    scene_pos = panel.heat_vb.mapViewToScene(QPointF(20.2, 5.1))
    panel._mouse_moved(scene_pos)
    panel.refresh_now()
    text = panel.hover_label.text()
    assert "Under the mouse" in text and "PE[20, 5]" in text
    assert f"{math.cos(20 * _omega(2, 16)):+.4f}".replace("-", "−") in text
    panel._mouse_moved(QPointF(-1000.0, -1000.0))  # off the plot: back to the selection
    panel.refresh_now()
    assert "PE[3, 1]" in panel.hover_label.text()


# -- widgets / plot interaction -> state ------------------------------------------------------
def test_widgets_to_state(panel: HeatmapPanel, qtbot: QtBot) -> None:
    panel.findChild(QSpinBox, "dim_spin").setValue(256)
    assert panel.state.as_int("dim") == 256
    panel.findChild(QComboBox, "layout_combo").setCurrentIndex(1)
    assert panel.state.as_str("layout") == "concat"
    slider = panel.findChild(QSlider, "positions_slider")
    slider.setValue(slider.maximum())
    assert panel.state.as_int("positions") == 1_000_000
    dim_slider = panel.findChild(QSlider, "dimension_slider")
    before = panel.state.as_int("dimension")
    dim_slider.setFocus()
    qtbot.keyClick(dim_slider, Qt.Key.Key_Right)
    assert panel.state.as_int("dimension") == before + 1
    panel.findChild(QSpinBox, "shown_dims_spin").setValue(6)
    assert panel.state.as_int("shown_dims") == 6 and panel.state.as_int("dimension") <= 5


def test_bad_typed_value_is_rejected(panel: HeatmapPanel, qtbot: QtBot) -> None:
    spin = panel.findChild(QSpinBox, "dim_spin")
    before = panel.state.values()
    with qtbot.waitSignal(panel.message, timeout=1000) as blocker:
        spin.setValue(127)
    assert "dim must be an even integer" in blocker.args[0]
    assert panel.state.values() == before and spin.value() == before["dim"]


def test_dragging_crosshairs_sets_the_selection(panel: HeatmapPanel) -> None:
    panel.pos_line.setValue(12.4)
    assert panel.state.as_int("position") == 12
    panel.dim_line.setValue(3.6)
    assert panel.state.as_int("dimension") == 4
    panel.curve_pos_line.setValue(80.0)
    assert panel.state.as_int("position") == 80
    panel.vec_dim_line.setValue(100.2)
    assert panel.state.as_int("dimension") == 100


def test_click_selects_the_cell(panel: HeatmapPanel) -> None:
    class Click:
        def __init__(self, pos: QPointF) -> None:
            self.pos = pos

        def button(self) -> Qt.MouseButton:
            return Qt.MouseButton.LeftButton

        def double(self) -> bool:
            return False

        def scenePos(self) -> QPointF:
            return self.pos

    panel._mouse_clicked(Click(panel.heat_vb.mapViewToScene(QPointF(61.3, 7.8))))
    assert (panel.state.as_int("position"), panel.state.as_int("dimension")) == (61, 8)


def test_pixel_rows_average_their_dimensions_above_the_pixel_count(panel: HeatmapPanel) -> None:
    """d = 2048 on a plot a few hundred pixels high: each image row is the mean of the PE
    columns it covers (none a single sampled column); a click still selects a real j."""
    panel.state.update({"positions": 100, "dim": 2048, "shown_dims": 0})
    panel.refresh_now()
    height = panel.heat_vb.height()
    j0, j1 = panel.image_dim_first, panel.image_dim_last
    assert 100 < len(j0) <= height + 1 < 2048
    assert j0[0] == 0 and j1[-1] == 2047 and bool((j0[1:] == j1[:-1] + 1).all())
    assert bool((j1 > j0).all())  # no pixel row is one subsampled column
    table = core.sinusoidal_encoding(100, 2048, 10000.0, dtype=torch.float64).numpy()
    assert panel.image_first.tolist() == list(range(100))  # positions exact
    expected = np.stack([table[:, a : b + 1].mean(axis=1) for a, b in zip(j0, j1, strict=True)])
    np.testing.assert_allclose(panel.image_table, expected.T, rtol=0, atol=1e-12)
    index = np.clip(np.floor((expected + 1.0) * 128.0), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(panel.image_index, index)
    assert panel.views["image"].data()["dim_mean_over"].values == pytest.approx(2048 / len(j0))
    title = panel.heat_plot.getPlotItem().titleLabel.text
    assert "averaged over dimensions" in title
    m = round(2048 / len(j0))
    assert f"Each pixel row = mean over ~{m} dimensions" in strip_tags(panel.hover_label.text())
    assert "pixel column = mean" not in panel.hover_label.text()
    # the hover line names the selected entry's pixel and its mean
    panel.state.update({"position": 40, "dimension": 1000})
    panel.refresh_now()
    c = int(np.searchsorted(j0, 1000, side="right")) - 1
    a, b = int(j0[c]), int(j1[c])
    text = strip_tags(panel.hover_label.text())
    assert f"positions 40…40 × dimensions {a}…{b}" in text
    assert panel.views["hover"].data()["pixel_mean"].values == pytest.approx(
        float(table[40, a : b + 1].mean()), abs=1e-12
    )
    # a click selects the dimension under the mouse, not the row's representative
    for y in (1000.2, float(a), float(b)):
        assert panel.cell_at(40.0, y) == (40, round(y))
    # fewer shown columns: rows averaged again from the kept column means
    computed = panel.kept_columns.computed
    panel.state.set("shown_dims", 1500)
    panel.refresh_now()
    assert panel.kept_columns.computed == computed and panel.image_dim_last[-1] == 1499
    j0, j1 = panel.image_dim_first, panel.image_dim_last
    expected = np.stack([table[:, a : b + 1].mean(axis=1) for a, b in zip(j0, j1, strict=True)])
    np.testing.assert_allclose(panel.image_table, expected.T, rtol=0, atol=1e-12)


def test_below_the_pixel_count_the_image_is_the_exact_table(panel: HeatmapPanel) -> None:
    panel.state.update({"positions": 100, "dim": 128, "shown_dims": 0})
    panel.refresh_now()
    assert panel.heat_vb.height() > 128
    assert panel.image_dim_first.tolist() == panel.image_dim_last.tolist() == list(range(128))
    table = core.sinusoidal_encoding(100, 128, 10000.0, dtype=torch.float64).numpy()
    np.testing.assert_allclose(panel.image_table, table, rtol=0, atol=1e-12)
    assert panel.image_dim_mean_over == 1.0
    assert panel.heat_plot.getPlotItem().titleLabel.text.endswith("Sinusoidal encoding PE[p, j]")
    assert "One image pixel per entry" in panel.hover_label.text()


def test_preset_buttons(panel: HeatmapPanel, qtbot: QtBot) -> None:
    explainer = panel.findChild(QPushButton, "preset_explainer_button")
    notebook = panel.findChild(QPushButton, "preset_notebook_button")
    for b in (explainer, notebook, panel.findChild(QPushButton, "reset_view_button")):
        assert b.accessibleName() and b.toolTip()
        assert b.focusPolicy() & Qt.FocusPolicy.TabFocus
    panel.state.update({"positions": 1_000_000, "dim": 4096, "base": 500.0})
    qtbot.mouseClick(explainer, Qt.MouseButton.LeftButton)
    v = panel.state.values()
    assert (v["positions"], v["dim"], v["shown_dims"], v["base"]) == (30, 128, 6, 10000.0)
    assert v["layout"] == "interleaved"
    panel.refresh_now()
    # exactly the explainer's figure: 30 positions × the first 6 dimensions
    assert panel.image_positions.tolist() == list(range(30))
    assert panel.image_dims.tolist() == list(range(6))
    assert panel.heat_vb.viewRange() == [[-0.5, 29.5], [-0.5, 5.5]]
    # keyboard: focus the other button and press Space
    notebook.setFocus()
    qtbot.keyClick(notebook, Qt.Key.Key_Space)
    v = panel.state.values()
    assert (v["positions"], v["dim"], v["shown_dims"], v["base"]) == (100, 512, 0, 10000.0)
    panel.refresh_now()
    assert panel.image_positions.tolist() == list(range(100))
    assert panel.image_dims[0] == 0 and panel.image_dims[-1] >= 510  # all 512 columns spanned


def test_preset_again_resets_the_zoom(panel: HeatmapPanel) -> None:
    panel.apply_preset("notebook")
    panel.refresh_now()
    panel.heat_vb.setRange(xRange=(10, 20), yRange=(3, 9), padding=0)
    panel.apply_preset("notebook")  # same values: no state change, but the whole table again
    assert panel.heat_vb.viewRange() == [[-0.5, 99.5], [-0.5, 511.5]]


def test_reset_view_button(panel: HeatmapPanel, qtbot: QtBot) -> None:
    panel.heat_vb.setRange(xRange=(10, 20), yRange=(3, 9), padding=0)
    qtbot.mouseClick(panel.findChild(QPushButton, "reset_view_button"), Qt.MouseButton.LeftButton)
    assert panel.heat_vb.viewRange() == [[-0.5, 99.5], [-0.5, 127.5]]


# -- pixels -----------------------------------------------------------------------------------
def test_heatmap_pixels_follow_the_colour_map(panel: HeatmapPanel) -> None:
    panel.apply_preset("explainer")
    panel.refresh_now()
    image = panel.heat_plot.grab().toImage()
    cmap = pg.colormap.get(DIVERGING)
    vb = panel.heat_vb
    checked = 0
    for p, j in ((0, 1), (5, 0), (11, 0), (20, 3), (25, 4), (8, 5)):
        value = HeatmapModel.cell(panel.state.values(), p, j)["value"]
        # a point inside the cell, away from the crosshairs at the selection
        if p == panel.state.as_int("position") or j == panel.state.as_int("dimension"):
            continue
        pt = panel.heat_plot.mapFromScene(vb.mapViewToScene(QPointF(p + 0.25, j + 0.25)))
        got = image.pixelColor(pt.x(), pt.y())
        want = cmap.map((value + 1) / 2, mode="qcolor")
        diff = max(
            abs(got.red() - want.red()),
            abs(got.green() - want.green()),
            abs(got.blue() - want.blue()),
        )
        assert diff <= 8, (p, j, value, got.name(), want.name())
        checked += 1
    assert checked >= 4


def test_render_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "heatmap.png"
    argv: list[Any] = ["render", "--tab", "heatmap", "--set", "positions=1000000",
                       "--set", "dim=128",
                       "--size", "1280x800", "--out", str(out)]  # fmt: skip
    assert cli.main(argv) == 0
    img = QImage(str(out))
    assert (img.width(), img.height()) == (1280, 800)
    # the diverging map's extremes are both somewhere in the picture (values hit ±1: with a
    # pixel row per shown column; averaged over neighbouring columns they need not)
    cmap = pg.colormap.get(DIVERGING)
    lo, hi = cmap.map(0.0, mode="qcolor"), cmap.map(1.0, mode="qcolor")
    arr = np.frombuffer(img.convertToFormat(QImage.Format.Format_RGB888).constBits(), np.uint8)
    rgb = arr.reshape(800, -1)[:, : 1280 * 3].reshape(800, 1280, 3).astype(int)
    for c in (lo, hi):
        dist = np.abs(rgb - np.array([c.red(), c.green(), c.blue()])).max(axis=2)
        assert (dist <= 10).sum() > 50


# -- views: honest inputs, recorded data, style, view state -----------------------------------
def _refreshed(panel: HeatmapPanel, change: dict[str, Any]) -> set[str]:
    panel.refresh_now()
    before = {n: v.refresh_count for n, v in panel.views.items()}
    panel.state.update(change)
    panel.refresh_now()
    return {n for n, v in panel.views.items() if v.refresh_count != before[n]}


def test_position_refreshes_only_what_shows_it(panel: HeatmapPanel) -> None:
    assert _refreshed(panel, {"position": 50}) == {
        "position_lines", "hover", "vector", "vector_marker", "curve_markers", "readouts",
    }  # fmt: skip


def test_dimension_refreshes_only_what_shows_it(panel: HeatmapPanel) -> None:
    assert _refreshed(panel, {"dimension": 20}) == {
        "dimension_lines", "hover", "vector_marker", "curves", "curve_markers", "curve_label",
        "wavelength_marker", "readouts",
    }  # fmt: skip


def test_table_parameters_refresh_the_image(panel: HeatmapPanel) -> None:
    base = _refreshed(panel, {"base": 500.0})
    assert "image" in base and "wavelengths" in base and "vector" in base
    assert "extent" not in base and "position_lines" not in base
    assert "dimension_lines" not in base
    positions = _refreshed(panel, {"positions": 300})
    assert {"extent", "image", "position_lines", "curves", "wavelengths", "formula"} <= positions
    assert "vector" not in positions and "vector_marker" not in positions
    assert "wavelength_marker" not in positions and "dimension_lines" not in positions
    shown = _refreshed(panel, {"shown_dims": 40})
    assert shown == {"extent", "image", "dimension_lines", "hover"}


def test_zoom_refreshes_only_the_view_dependent_views(panel: HeatmapPanel) -> None:
    panel.refresh_now()
    before = {n: v.refresh_count for n, v in panel.views.items()}
    panel.heat_vb.setRange(xRange=(10, 60), yRange=(3, 40), padding=0)
    panel.refresh_now()
    changed = {n for n, v in panel.views.items() if v.refresh_count != before[n]}
    assert changed == {"image", "hover", "curves", "curve_label"}
    assert panel.image_first[0] == 10 and panel.image_dims[0] == 3


def test_every_view_records_finite_data_matching_the_state(panel: HeatmapPanel) -> None:
    panel.state.update({"positions": 3000, "dim": 64, "layout": "concat", "position": 1234,
                        "dimension": 40})  # fmt: skip
    data = panel.data()
    assert set(data) == set(panel.views)
    for view, series in data.items():
        assert series, view
        for name, s in series.items():
            arr = np.asarray(s.values, dtype=np.float64)
            assert np.isfinite(arr).all(), (view, name)
            assert s.label, (view, name)
    r = panel.readouts()
    pair = 40 - 32  # concat: column 40 = cos of pair 8
    w = _omega(pair, 64)
    np.testing.assert_allclose(data["vector"]["vector"].values, r["vector"], atol=0)
    np.testing.assert_allclose(
        data["vector_marker"]["marker"].values, [math.cos(1234 * w), 40.0], atol=1e-12
    )
    np.testing.assert_allclose(
        data["curve_markers"]["markers"].values,
        [math.cos(1234 * w), math.sin(1234 * w)], atol=1e-12,
    )  # fmt: skip
    assert float(data["position_lines"]["position"].values) == 1234
    assert float(data["dimension_lines"]["dimension"].values) == 40
    lam = [2 * math.pi / _omega(i, 64) for i in range(32)]
    np.testing.assert_allclose(data["wavelengths"]["wavelength"].values, lam, rtol=1e-12)
    np.testing.assert_allclose(
        data["wavelength_marker"]["marker"].values, [pair, 2 * math.pi / w], rtol=1e-12
    )
    # the curve: the closed form of column 40 where it is drawn as a line
    x, y = data["curves"]["x"].values, data["curves"]["selected"].values
    if bool(data["curves"]["envelope"].values):  # (min, max) per pixel: contains the curve
        lo, hi = y[0::2], y[1::2]
        mid = np.cos(x[0::2] * w)
        assert bool((lo <= mid + 1e-12).all()) and bool((mid <= hi + 1e-12).all())
    else:
        np.testing.assert_allclose(y, np.cos(x * w), atol=1e-9)
    # the image: the exact mean over each pixel's positions
    img = data["image"]
    first, last, dims = img["first"].values, img["last"].values, img["dims"].values
    full = core.sinusoidal_encoding(3000, 64, 10000.0, layout="concat", dtype=torch.float64)
    sums = torch.cat((torch.zeros(1, 64, dtype=torch.float64), full.cumsum(dim=0)))
    brute = (sums[last + 1] - sums[first]) / torch.from_numpy(last - first + 1)[:, None]
    np.testing.assert_allclose(img["values"].values, brute.numpy()[:, dims], atol=1e-10)
    np.testing.assert_allclose(
        data["readouts"]["numbers"].values,
        [w, 1234 * w, math.cos(1234 * w), math.sin(1234 * w), 32.0], atol=1e-9,
    )  # fmt: skip


def test_style_scale_and_dark_theme(panel: HeatmapPanel) -> None:
    light_ink = panel.pos_line.pen.color().name()
    width = panel.pos_line.pen.widthF()
    curve_width = panel.sel_curve.opts["pen"].widthF()
    try:
        S.hub().set_style(S.Style(scale=1.5, theme="dark"))
        panel.refresh_now()
        dark = S.Style(scale=1.5, theme="dark")
        assert panel.pos_line.pen.widthF() == pytest.approx(1.5 * width)
        assert panel.pos_line.pen.color().name() == dark.color("ink")
        assert panel.pos_line.pen.color().name() != light_ink
        assert panel.sel_curve.opts["pen"].widthF() == pytest.approx(1.5 * curve_width)
        fn = panel.readouts()["function"]
        assert panel.sel_curve.opts["pen"].color().name() == dark.color(fn).lower()
        assert panel.heat_plot.backgroundBrush().color().name() == dark.color("background")
        assert dark.color("ink") in panel.hover_label.text() or dark.color(fn)[:7] in (
            panel.hover_label.text()
        )
        assert panel.heat_plot.getAxis("left").width() == round(78 * 1.5)
    finally:
        S.hub().set_style(S.Style())
        panel.refresh_now()
    assert panel.pos_line.pen.widthF() == pytest.approx(width)


def test_view_state_round_trip(panel: HeatmapPanel, qtbot: QtBot) -> None:
    panel.state.update({"positions": 5000, "dim": 256})
    panel.refresh_now()  # the new extent resets the zoom once
    panel.heat_vb.setRange(xRange=(100.5, 300.5), yRange=(10.5, 60.5), padding=0)
    vs = panel.view_state()
    assert vs == {"x_range": [100.5, 300.5], "y_range": [10.5, 60.5]}
    assert all(isinstance(v, float) for pair in vs.values() for v in pair)
    other = HeatmapPanel(ParamState(HeatmapModel))
    qtbot.addWidget(other)
    other.resize(1500, 950)
    other.state.update({"positions": 5000, "dim": 256})  # a session sets the values first
    other.restore_view_state(vs)
    other.refresh_now()
    assert other.heat_vb.viewRange() == [[100.5, 300.5], [10.5, 60.5]]
    assert other.image_first[0] == 101 and other.image_dims[0] == 11
    other.restore_view_state({"x_range": "nonsense", "y_range": [1.0], "zoom": 3})  # ignored
    assert other.heat_vb.viewRange() == [[100.5, 300.5], [10.5, 60.5]]
    # issue 20, finding 3: ranges the table cannot show are not applied (as at session load)
    other.restore_view_state({"x_range": [-1.7e308, 1.7e308], "y_range": [20.0, 20.0]})
    other.refresh_now()
    assert other.heat_vb.viewRange() == [[100.5, 300.5], [10.5, 60.5]]


def test_dragged_lines_follow_the_clamped_state(panel: HeatmapPanel) -> None:
    panel.state.update({"shown_dims": 6})
    panel.refresh_now()
    panel.vec_dim_line.setValue(4.4)
    assert panel.state.as_int("dimension") == 4
    panel.vec_dim_line.sigPositionChangeFinished.emit(panel.vec_dim_line)
    assert panel.vec_dim_line.value() == 4  # snapped to the state's value
    panel.refresh_now()
    assert panel.dim_line.value() == 4
    panel.pos_line.setValue(1e9)  # bounded by the line, clamped by the state
    assert panel.state.as_int("position") == 99
    panel.pos_line.sigPositionChangeFinished.emit(panel.pos_line)
    panel.refresh_now()
    assert panel.pos_line.value() == 99 and panel.curve_pos_line.value() == 99


# -- mechanisms that keep a frame cheap (asserted by counters and identities, not clocks) -----
def test_image_is_coloured_once_from_the_table(panel: HeatmapPanel) -> None:
    panel.state.update({"positions": 3000, "dim": 64})
    panel.refresh_now()
    lut = pg.colormap.get(DIVERGING).getLookupTable(nPts=256, alpha=True)
    index = np.clip(np.floor((panel.image_table.T + 1.0) * 128.0), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(panel.image_index, index)
    np.testing.assert_array_equal(panel.image.image, lut[index])
    assert panel.image.image.dtype == np.uint8 and panel.image.levels is None  # no LUT per paint


def test_moving_the_selection_recomputes_no_table(panel: HeatmapPanel) -> None:
    panel.refresh_now()
    image, curves = panel.views["image"].refresh_count, panel.views["curves"].refresh_count
    table = panel.image_table
    for p in (3, 50, 99):
        panel.state.set("position", p)
        panel.refresh_now()
    assert panel.views["image"].refresh_count == image and panel.image_table is table
    assert panel.views["curves"].refresh_count == curves
    panel.state.set("dimension", 20)
    panel.refresh_now()
    assert panel.views["image"].refresh_count == image and panel.image_table is table


def test_unchanged_parts_are_not_set_again(panel: HeatmapPanel) -> None:
    panel.refresh_now()
    wl_x = panel.wl_full.xData
    panel.state.set("positions", 101)  # the same pairs turn fully
    panel.refresh_now()
    assert panel.wl_full.xData is wl_x
    panel.state.set("positions", 10_000)  # more pairs turn fully
    panel.refresh_now()
    assert panel.wl_full.xData is not wl_x and len(panel.wl_full.xData) > len(wl_x)


def test_reference_lines_are_drawn_again_only_when_their_axis_changes(
    panel: HeatmapPanel,
) -> None:
    panel.refresh_now()
    plots = {
        "vector": (panel.vector_plot, panel.vector_guides),
        "curve": (panel.curve_plot, panel.curve_guides),
        "wavelength": (panel.wl_plot, panel.decade_lines),
    }
    for plot, _ in plots.values():
        plot.grab()
    renders = {k: g.renders for k, (_, g) in plots.items()}
    assert all(renders.values())
    # new shown columns (the vector's y range), positions (the curve's x range), pairs (the
    # wavelength plot's x range): none of the lines' own axes moves
    panel.state.update({"shown_dims": 40, "positions": 1000, "dim": 130})
    panel.refresh_now()
    for plot, _ in plots.values():
        plot.grab()
    assert {k: g.renders for k, (_, g) in plots.items()} == renders
    # where the lines are drawn: the vector's verticals at PE = -1 … 1 of its fixed x range
    assert list(panel.vector_guides.values) == [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert panel.vector_plot.getViewBox().viewRange()[0] == [-1.15, 1.15]


def test_position_curves_are_sampled_per_turn(panel: HeatmapPanel) -> None:
    panel.state.update({"positions": 100, "dim": 128, "dimension": 100})  # λ ≈ 5e3: 0.02 turn
    panel.refresh_now()
    x, y = panel.sel_curve.getData()
    assert len(x) < panel.curve_vb.width() / 4
    panel.state.update({"dimension": 0})  # λ = 2π: 16 turns, as many samples as pixels
    panel.refresh_now()
    x, y = panel.sel_curve.getData()
    assert len(x) >= min(16 * 64, panel.curve_vb.width()) - 1
    # between samples the polyline stays within ~a quarter pixel of the curve
    fine = np.linspace(x[0], x[-1], 20_001)
    height = panel.curve_vb.height() / 2.4  # pixels per PE unit (y range [-1.2, 1.2])
    assert float(np.abs(np.interp(fine, x, y) - np.sin(fine)).max()) * height < 0.5


def test_readout_table_repaints_only_the_rows_a_step_changed(panel: HeatmapPanel) -> None:
    """A position step changes the position, the angle and the two entries: those rows are
    repainted (from their values' left ends), the others and the table's size stay."""
    label = panel.readout_label
    label.repaint()
    size = label.size()
    panel.state.set("position", 12)
    panel.refresh_now()
    names = [strip_tags(n) for n, _ in label._rows]
    changed = {names[i] for i in label.repainted_rows}
    assert changed == {"Position p", "Angle p·ωi", "PE[p, 12]", "PE[p, 13]"}, changed
    assert label.size() == size and "<b>12</b>" in label.text()


def test_vector_axis_keeps_its_width_as_the_shown_columns_change(panel: HeatmapPanel) -> None:
    axis = panel.vector_plot.getAxis("left")
    widths = set()
    for shown in (8, 15, 120, 0):
        panel.state.set("shown_dims", shown)
        panel.refresh_now()
        widths.add(axis.width())
    assert len(widths) == 1  # no re-layout (and second paint) of the plot


def test_hover_and_curve_labels_keep_their_lines(panel: HeatmapPanel) -> None:
    """A label that grows re-lays the whole tab out: the texts keep their number of lines."""
    counts = set()
    for positions in (100, 1_000_000, 30):
        panel.state.update({"positions": positions, "position": 10})
        panel.refresh_now()
        counts.add((panel.hover_label.text().count("<br>"), panel.curve_label.text().count("<br>")))
    assert len(counts) == 1
    assert "mean over" in panel.hover_label.text() or "One image column" in panel.hover_label.text()


def test_readout_table_keeps_its_size_as_ranges_and_numbers_change(
    panel: HeatmapPanel,
) -> None:
    """New ranges of the controls and new numbers of other widths keep the table's geometry
    (its columns only widen), so the side column is not laid out again."""
    label = panel.readout_label
    hints: list[set[tuple[int, int]]] = [set(), set()]
    for seen in hints:  # the columns widen for the widest text once, then stay
        for dim in (256, 512, 1024, 128):
            panel.state.set("dim", dim)
            panel.refresh_now()
            QApplication.processEvents()
            seen.add((label.sizeHint().width(), label.sizeHint().height()))
        for j in (5, 100, 7, 13):
            panel.state.set("dimension", j)
            panel.refresh_now()
            seen.add((label.sizeHint().width(), label.sizeHint().height()))
    assert len(hints[1]) == 1 and hints[1] <= hints[0]
    assert label.height() >= label.sizeHint().height()


def test_aligned_axes_share_their_drawing_specs(panel: HeatmapPanel) -> None:
    """The heatmap's and the curve plot's position axes draw the same thing: computed once."""
    from PySide6.QtGui import QPainter, QPicture

    panel.state.set("positions", 5000)
    panel.refresh_now()
    heat, curve = panel.heat_plot.getAxis("bottom"), panel.curve_plot.getAxis("bottom")
    picture = QPicture()
    painter = QPainter(picture)
    try:
        first = heat.generateDrawSpecs(painter)
        assert curve.generateDrawSpecs(painter) is first
        curve.setStyle(tickLength=7)  # a different look: computed anew
        assert curve.generateDrawSpecs(painter) is not first
        # the dimension axes of the heatmap and of the vector beside it, equally wide
        left, vec = panel.heat_plot.getAxis("left"), panel.vector_plot.getAxis("left")
        assert left.width() == vec.width()
        assert vec.generateDrawSpecs(painter) is left.generateDrawSpecs(painter)
    finally:
        painter.end()


def test_a_new_extent_sets_only_the_ranges_that_move(panel: HeatmapPanel) -> None:
    panel.refresh_now()
    heat = count_calls(panel.heat_vb, "setRange")
    curve = count_calls(panel.curve_vb, "setXRange")
    updates = count_calls(panel.heat_vb, "updateViewRange")
    panel.state.set("dim", 256)  # the dimensions move, the positions do not
    panel.refresh_now()
    assert len(heat) == 1 and not curve
    assert ("xRange", None) in heat[0] and ("yRange", (-0.5, 255.5)) in heat[0]
    assert panel.heat_vb.viewRange() == [[-0.5, 99.5], [-0.5, 255.5]]
    # the new limits (as setLimits stores them) applied by the range's one update
    limits = panel.heat_vb.state["limits"]
    assert limits["xLimits"] == [-0.5, 99.5] and limits["yLimits"] == [-0.5, 255.5]
    assert limits["xRange"] == [4.0, None] and limits["yRange"] == [2.0, None]
    assert len(updates) == 1
    panel.state.set("dim", 64)  # fewer columns: the range within the new limits at once
    panel.refresh_now()
    assert panel.heat_vb.viewRange() == [[-0.5, 99.5], [-0.5, 63.5]]
    assert limits["yLimits"] == [-0.5, 63.5] and len(updates) == 2
    panel.heat_vb.setRange(yRange=(-10.0, 100.0), padding=0.0)  # beyond them: clamped
    assert panel.heat_vb.viewRange()[1] == [-0.5, 63.5]
    panel.state.set("dim", 256)
    panel.refresh_now()
    limits = count_calls(panel.heat_vb, "setLimits")
    heat.clear()
    panel.state.set("positions", 300)  # the positions move: the linked curve plot with them
    panel.refresh_now()
    assert len(heat) == 1 and ("yRange", None) in heat[0]
    assert panel.curve_vb.viewRange()[0] == [-0.5, 299.5]
    heat.clear()
    limits.clear()
    panel.state.set("shown_dims", 256)  # the same extent (256 of 256): nothing to set
    panel.refresh_now()
    assert not heat and not limits
    panel.heat_vb.setRange(xRange=(10, 50), padding=0.0)  # a zoom...
    panel.reset_view()  # ...reset: the x range moves back, the y range stays
    assert panel.heat_vb.viewRange() == [[-0.5, 299.5], [-0.5, 255.5]]


def test_a_shrinking_extent_paints_the_heatmap_once(panel: HeatmapPanel) -> None:
    """Fewer columns clamp the old range to the new limits: the transform must still be applied
    in the refresh, or the paint finds it stale and asks for a second paint."""
    panel.state.set("dim", 512)
    panel.refresh_now()
    QApplication.processEvents()
    QApplication.processEvents()
    paints: list[int] = []
    original = panel.heat_plot.paintEvent

    def counted(ev: Any) -> None:
        paints.append(1)
        original(ev)

    panel.heat_plot.paintEvent = counted  # type: ignore[method-assign]
    for dim in (400, 300, 200):
        paints.clear()
        panel.state.set("dim", dim)
        QApplication.processEvents()
        QApplication.processEvents()
        QApplication.processEvents()
        assert len(paints) == 1, dim


def test_the_span_line_is_set_only_when_the_span_changes(panel: HeatmapPanel) -> None:
    panel.refresh_now()
    values = count_calls(panel.span_line, "setValue")
    texts = count_calls(panel.span_line.label, "setText")
    for dim in (130, 200, 64):
        panel.state.set("dim", dim)
        panel.refresh_now()
    panel.state.set("base", 500.0)
    panel.refresh_now()
    assert not values and not texts
    panel.state.set("positions", 1000)
    panel.refresh_now()
    assert len(values) == len(texts) == 1  # the label laid out once, with the new text
    assert panel.span_line.label.format == "last position L−1 = " + integer(999)
    assert panel.span_line.label.toPlainText() == "last position L−1 = " + integer(999)


def test_fast_axis_specs_are_pyqtgraphs(panel: HeatmapPanel) -> None:
    """The heatmap's position and dimension axes draw exactly what pyqtgraph would draw."""

    from posenc_gui.widgets.render.axis import linear_tick_values

    axes = [
        panel.heat_plot.getAxis("bottom"), panel.heat_plot.getAxis("left"),
        panel.vector_plot.getAxis("left"), panel.curve_plot.getAxis("bottom"),
        panel.wl_plot.getAxis("bottom"),
    ]  # fmt: skip
    ranges = [(-0.5, 99.5), (-0.5, 127.5), (-0.5, 4095.5), (-0.5, 999_999.5), (3.2, 17.9),
              (-0.5, 1.5), (120.25, 130.75), (-0.5, 29.5), (-0.5, 63.5 * 1.04)]  # fmt: skip
    compared = 0
    for axis in axes:
        for lo, hi in ranges:
            for size in (90.0, 373.0, 634.0, 1500.0):
                assert linear_tick_values(axis, lo, hi, size) == pg.AxisItem.tickValues(
                    axis, lo, hi, size
                ), (axis.orientation, lo, hi, size)
            axis.range = [lo, hi]
            theirs = partial(pg.AxisItem.generateDrawSpecs, axis)
            compared += compare_specs(axis, theirs, (axis.orientation, lo, hi))
    assert compared > 100  # labels were compared, not only empty lists


def test_wavelength_axis_keeps_its_room_for_labels(panel: HeatmapPanel) -> None:
    """Two decades of λ label 20, 50, … (wider than the powers of ten): the room they took is
    kept when the range widens again, so a base or dim drag does not re-lay the plot out."""
    axis = panel.wl_plot.getAxis("left")
    panel.state.set("base", 10.0)
    panel.refresh_now()
    panel.wl_plot.grab()
    room = axis.textWidth
    layouts = count_calls(panel.wl_plot.getPlotItem(), "resizeEvent")
    for base in (22_539.3, 1_000_000.0, 10_000.0, 50.0, 10.0, 3_000.0):
        panel.state.set("base", base)
        panel.refresh_now()
        panel.wl_plot.grab()
        assert axis.textWidth == room, base
    assert not layouts


def test_sine_and_cosine_columns_reuse_their_label_documents(panel: HeatmapPanel) -> None:
    """Stepping between a sine and a cosine column changes the colours around the numbers:
    each text's document is kept and edited in place, not parsed again."""
    hover, curve = panel.hover_label, panel.curve_label
    for j in (12, 13):  # each skeleton seen once
        panel.state.set("dimension", j)
        panel.refresh_now()
    parsed = (hover.parsed, curve.parsed)
    for j in (14, 15, 20, 21, 3):
        panel.state.set("dimension", j)
        panel.refresh_now()
        hover.repaint()
        curve.repaint()
        fn = "sin" if j % 2 == 0 else "cos"
        for label in (hover, curve):  # values drawn over: described once they rest
            label._catch_up()
        assert f"= {fn}(" in hover.accessibleDescription()
        assert f"PE[p, {j}] = {fn}(p·ω" in curve.accessibleDescription()
        assert hover._doc.toPlainText().count(f"PE[{panel.state.as_int('position')}, {j}]") == 1
        assert f"PE[p, {j}] = {fn}" in curve._doc.toPlainText()
    assert (hover.parsed, curve.parsed) == parsed and hover.reused == curve.reused == 4
    # a document taken back differs from the one shown beyond its values (colours, words):
    # the whole label is repainted, not only the blocks whose values changed
    for label in (hover, curve):
        label.repaint()
    updates = [count_calls(hover, "update"), count_calls(curve, "update")]
    panel.state.set("dimension", 4)  # a sine again: documents taken back, values edited
    panel.refresh_now()
    for label, calls in zip((hover, curve), updates, strict=True):
        assert label.reused == 5 and calls
        assert all(args in ((), (label.rect(),)) for args in calls), calls
    # a style change drops the kept documents (their fonts and colours are the old ones)
    assert hover._kept
    try:
        S.hub().set_style(S.Style(scale=1.25))
        panel.refresh_now()
        assert not hover._kept and not curve._kept
        assert hover._doc.defaultFont().pointSizeF() == hover.font().pointSizeF()
    finally:
        S.hub().set_style(S.Style())
        panel.refresh_now()


def _render_curve(item: Any, size: tuple[int, int], transform: Any) -> np.ndarray:
    """The item's pixels (alpha of what it drew) on a transparent image."""
    from PySide6.QtGui import QPainter

    img = QImage(size[0], size[1], QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(0)
    p = QPainter(img)
    try:
        p.setTransform(transform)
        item.paint(p, None, None)
    finally:
        p.end()
    bits = np.frombuffer(img.constBits(), dtype=np.uint8).reshape(size[1], size[0], 4)
    return bits[:, :, 3].astype(int)


def test_wavelength_curves_are_straight_and_drawn_as_one_segment(panel: HeatmapPanel) -> None:
    """log10 λ_i is linear in i: each wavelength curve keeps every pair in its data and draws
    the segment through its ends, the pixels of the polyline through all its points."""
    from PySide6.QtGui import QTransform

    from posenc_gui.widgets.render.straight import StraightCurve

    assert isinstance(panel.wl_full, StraightCurve) and isinstance(panel.wl_never, StraightCurve)
    for dim, base, positions in ((8, 10.0, 5), (128, 10000.0, 100), (4096, 1e7, 5000)):
        panel.state.update({"dim": dim, "base": base, "positions": positions})
        panel.refresh_now()
        lam = 2 * math.pi / (base ** (-np.arange(0, dim, 2) / dim))
        xs = np.concatenate([panel.wl_full.xData, panel.wl_never.xData])
        ys = np.concatenate([panel.wl_full.yData, panel.wl_never.yData])
        assert list(xs) == list(range(dim // 2))  # every pair, in order
        np.testing.assert_allclose(ys, np.log10(lam), rtol=1e-12)
        for item in (panel.wl_full, panel.wl_never):
            x, y = item.getData()
            if len(x) >= 2:  # every point on the segment through the ends
                line = y[0] + (x - x[0]) * (y[-1] - y[0]) / (x[-1] - x[0])
                np.testing.assert_allclose(y, line, rtol=0, atol=1e-9 * max(1.0, abs(y).max()))
    # drawn: the pixels of the polyline through every point (up to antialiasing where the
    # polyline's segments overlap)
    x = np.arange(40, dtype=np.float64)
    y = 0.8 + x * 0.05
    poly, one = styled.PixelCurve(), StraightCurve()
    pen = panel.wl_full.opts["pen"]
    for item in (poly, one):
        item.setPen(pen)
        item.setData(x, y)
    t = QTransform(7.0, 0.0, 0.0, -60.0, 10.0, 200.0)  # data -> pixels, y up
    a, b = _render_curve(poly, (300, 220), t), _render_curve(one, (300, 220), t)
    assert a.sum() > 0
    # the same pixels touched (the polyline's overlapping segment ends blend its antialiased
    # edges several times over: there, a shade darker than the line's own edge)
    assert np.count_nonzero((a > 0) != (b > 0)) <= 0.01 * np.count_nonzero(a)
    assert np.all(a[b == 255] == 255)  # the line's core is the polyline's


def test_curve_samples_keep_the_polyline_within_a_quarter_pixel_of_the_curve() -> None:
    """The samples per turn follow the plot's height: up to ~500 pixels high (where the fixed
    SAMPLES_PER_TURN sufficed) the polyline through them strays at most CURVE_TOLERANCE pixels
    from sin(x·ω); never more samples than SAMPLES_PER_TURN gave (taller plots: as many)."""
    from posenc_gui.panels.heatmap import (
        CURVE_TOLERANCE,
        CURVE_Y_RANGE,
        SAMPLES_PER_TURN,
        curve_samples,
    )

    span, pixels = 99.0, 100_000  # never capped by pixels here
    for height in (60.0, 224.0, 400.0, 490.0, 1000.0, 4000.0):
        amplitude = height / (2 * CURVE_Y_RANGE)
        for omega in (0.05, 0.42, 1.0, 3.0):
            n = curve_samples(span, omega, pixels, height)
            assert n <= curve_samples(span, omega, pixels)  # never more than before
            if height > 500:
                assert n == curve_samples(span, omega, pixels)
                continue
            x = np.linspace(0.0, span, n)
            fine = np.linspace(0.0, span, 200_001)
            drawn = np.interp(fine, x, np.sin(x * omega))
            stray = np.abs(drawn - np.sin(fine * omega)).max() * amplitude
            assert stray <= CURVE_TOLERANCE, (height, omega, n, stray)
    assert curve_samples(99.0, 0.42, 100_000, 224.0) < curve_samples(99.0, 0.42, 100_000)
    assert curve_samples(99.0, 1.0, 100_000) == math.ceil(99 / (2 * math.pi) * SAMPLES_PER_TURN) + 1


def test_the_panel_samples_its_curve_for_the_plot_height(panel: HeatmapPanel) -> None:
    from posenc_gui.panels.heatmap import curve_samples

    panel.state.update({"positions": 100, "dim": 128, "dimension": 12})
    panel.refresh_now()
    omega = _omega(6, 128)
    vb = panel.curve_vb
    want = curve_samples(99.0, omega, round(vb.width()), float(vb.height()))
    assert len(panel.sel_curve.xData) == want


def test_readout_table_shows_the_selected_column(panel: HeatmapPanel) -> None:
    """The table's text after dimension steps: the column, its function and pair, its partner
    and ω with five significant digits; each value drawn right-aligned at one edge."""
    panel.state.update({"position": 37, "dimension": 20, "dim": 128, "layout": "interleaved"})
    for j in (21, 22, 23, 28):
        panel.state.set("dimension", j)
        panel.refresh_now()
    label = panel.readout_label
    w = _omega(14, 128)
    text = label.text()
    assert "28 = sin of pair i = 14" in text and "29 (cos)" in text
    assert f"{w:.5f}" in text  # ω with five significant digits
    fm = QFontMetricsF(label._fonts[1])
    values = [(x, t) for x, _, t in label.drawn() if x >= label._columns[0]]
    assert len(values) == len(label._rows)
    ends = {round(x + fm.horizontalAdvance(t), 3) for x, t in values}
    assert len(ends) == 1, ends


def _paint(label: LiveText) -> None:
    label.render(QImage(label.size(), QImage.Format.Format_ARGB32_Premultiplied))


def test_span_and_dimension_values_are_drawn_over_the_labels(panel: HeatmapPanel) -> None:
    """``0…L−1`` and ``2i/d`` are single values (the "…" and "/" beside a value lean into its
    box, which keeps it from being drawn over): a ``positions`` or ``dim`` step that keeps
    their widths draws them over the formula, turns and curve labels, without an edit."""
    panel.state.update({"positions": 150, "dim": 128, "base": 10000.0, "dimension": 12})
    panel.refresh_now()
    labels = (panel.formula_label, panel.turns_label, panel.curve_label)
    for label in labels:
        _paint(label)
    before = [(label.drawn_over, label.parsed) for label in labels]
    panel.state.set("positions", 160)  # 0…149 → 0…159: as wide
    panel.refresh_now()
    after = [(label.drawn_over, label.parsed) for label in labels]
    assert [a[0] - b[0] for a, b in zip(after, before, strict=True)] == [1, 1, 1]
    assert [a[1] for a in after] == [b[1] for b in before]
    assert "p = 0…159." in panel.formula_label.text()
    assert "within positions 0…159 " in panel.turns_label.text()
    assert "turns over positions 0…159." in panel.curve_label.text()
    formula = panel.formula_label
    _paint(formula)
    drawn, parsed = formula.drawn_over, formula.parsed
    panel.state.set("dim", 130)  # 2i/128 → 2i/130, i = 0…63 → 0…64: as wide
    panel.refresh_now()
    assert formula.drawn_over == drawn + 1 and formula.parsed == parsed
    assert "<sup>−2i/130</sup>, i = 0…64;" in formula.text()


def test_hover_formula_shows_the_exponent_as_one_value(panel: HeatmapPanel) -> None:
    panel.state.update({"position": 5, "dimension": 7, "dim": 16, "layout": "interleaved"})
    panel.refresh_now()
    # column 7: pair 3, 2i = 6
    assert f"{integer(10000)}<sup>−6/16</sup>" in panel.hover_label.text()


def test_a_shown_dims_step_takes_the_image_rows_it_has(panel: HeatmapPanel) -> None:
    """The rows of every column are kept: fewer shown columns are a slice of them (no pixel
    means computed), the same numbers as computed afresh."""
    panel.state.update({"positions": 5000, "dim": 128, "shown_dims": 0})
    panel.refresh_now()
    computed = panel.kept_rows.computed
    for shown in (100, 40, 7, 128):
        panel.state.set("shown_dims", shown)
        panel.refresh_now()
        expected = sinusoidal_column_means(
            torch.from_numpy(panel.image_first), torch.from_numpy(panel.image_last),
            torch.from_numpy(panel.image_dims), 128, 10000.0,
        )  # fmt: skip
        assert panel.image_dims.tolist() == list(range(shown))
        np.testing.assert_allclose(panel.image_table, expected.numpy(), rtol=0, atol=1e-15)
        index = np.clip(np.floor((panel.image_table.T + 1.0) * 128.0), 0, 255).astype(np.uint8)
        np.testing.assert_array_equal(panel.image_index, index)
    assert panel.kept_rows.computed == computed
    panel.state.set("base", 500.0)  # other numbers: computed again
    panel.refresh_now()
    assert panel.kept_rows.computed == computed + 1


def test_kept_image_rows_serve_any_subset_of_their_columns(panel: HeatmapPanel) -> None:
    panel.refresh_now()
    first, last, cols = panel.image_first, panel.image_last, panel.image_dims
    computed = panel.kept_rows.computed
    subset = cols[1::3]
    table, index = panel._image_rows(first, last, subset, subset, 128, 10000.0, "interleaved")
    assert panel.kept_rows.computed == computed
    np.testing.assert_array_equal(table.numpy(), panel.image_table.T[1::3])
    np.testing.assert_array_equal(index, panel.image_index[1::3])
    outside = np.array([0, 200], dtype=np.int64)  # a column it has not: computed
    panel._image_rows(first, last, outside, outside, 256, 10000.0, "interleaved")
    assert panel.kept_rows.computed == computed + 1


def test_wavelength_axis_ends_at_the_data_and_x_follows_dim_in_one_update(
    panel: HeatmapPanel,
) -> None:
    """The λ axis runs from under 2π to the next decade over the longest wavelength or the
    span line, whatever the base (never a decade past it); a dim step that keeps that decade
    moves the x range alone, in one view update."""
    vb = panel.wl_plot.getViewBox()
    for base, positions in ((10000.0, 100), (1e6, 100), (10.0, 100), (10.0, 5000)):
        panel.state.update({"dim": 512, "base": base, "positions": positions})
        panel.refresh_now()
        lam = panel.views["wavelengths"].data()["wavelength"].values
        y0, y1 = vb.viewRange()[1]
        data_top = math.log10(max(float(lam.max()), positions - 1))
        assert y0 < math.log10(lam.min()) and data_top < y1 <= data_top + 1.0
    panel.state.update({"dim": 512, "base": 10000.0, "positions": 100})
    panel.refresh_now()
    before = [tuple(r) for r in vb.viewRange()]
    assert before[1][1] == pytest.approx(5.0)  # λ_max ≈ 6.1·10^4: 10^5, not 10^8
    calls = count_calls(vb, "setRange")
    panel.state.set("dim", 1024)
    panel.refresh_now()
    assert len(calls) == 1 and dict(calls[0])["yRange"] is None
    assert vb.viewRange()[0][1] == styled.positions_range(512, 0.02)[1]
    assert tuple(vb.viewRange()[1]) == before[1]


def test_a_positions_step_below_the_pixels_computes_only_new_positions(
    panel: HeatmapPanel,
) -> None:
    """One position per pixel column: fewer positions are a slice of the kept entries, more
    (from the same first position) compute only the positions added; the same numbers as
    computed afresh."""
    panel.state.update({"positions": 100, "dim": 64, "base": 10000.0, "shown_dims": 0})
    panel.refresh_now()
    computed, added = panel.kept_rows.computed, panel.kept_rows.positions_added
    for positions, new in ((60, 0), (100, 0), (150, 50), (30, 0), (151, 1)):
        panel.state.set("positions", positions)
        panel.refresh_now()
        assert panel.kept_rows.positions_added - added == new
        added = panel.kept_rows.positions_added
        assert panel.image_positions.tolist() == list(range(positions))
        expected = core.sinusoidal_encoding(positions, 64, dtype=torch.float64)
        np.testing.assert_allclose(panel.image_table, expected.numpy(), rtol=0, atol=1e-15)
        index = np.clip(np.floor((panel.image_table.T + 1.0) * 128.0), 0, 255).astype(np.uint8)
        np.testing.assert_array_equal(panel.image_index, index)
        assert panel.image.image.shape[:2] == (64, positions)
    assert panel.kept_rows.computed == computed
    panel.state.set("positions", 5000)  # more positions than pixels: means, computed afresh
    panel.refresh_now()
    assert panel.kept_rows.computed == computed + 1


def test_position_curves_keep_their_pixels_while_a_step_leaves_them_alone(
    panel: HeatmapPanel,
) -> None:
    """A position step (the crosshair and markers move over the curves) keeps the curves'
    pixels; a step that sets them (another column) draws them directly."""
    cache = pg.QtWidgets.QGraphicsItem.CacheMode
    curves = (panel.sel_curve, panel.partner_curve)
    panel.state.set("position", 40)
    panel.refresh_now()
    assert all(c.cacheMode() == cache.DeviceCoordinateCache for c in curves)
    x = panel.sel_curve.xData
    panel.state.set("dimension", 20)
    panel.refresh_now()
    assert panel.sel_curve.xData is not x
    assert all(c.cacheMode() == cache.NoCache for c in curves)
    panel.state.set("position", 41)
    panel.refresh_now()
    assert all(c.cacheMode() == cache.DeviceCoordinateCache for c in curves)


def test_the_span_label_follows_the_span_through_a_hidden_line(panel: HeatmapPanel) -> None:
    for positions, shown in ((6, True), (1, False), (6, True), (1, False), (3, True)):
        panel.state.set("positions", positions)
        panel.refresh_now()
        assert panel.span_line.isVisible() is shown
        if shown:
            assert panel.span_line.value() == pytest.approx(math.log10(positions - 1))
            text = "last position L−1 = " + integer(positions - 1)
            assert panel.span_line.label.toPlainText() == text


def test_hover_on_a_row_that_a_smaller_dim_removes_is_forgotten(panel: HeatmapPanel) -> None:
    """Issue 20, finding 4: the pointer rests on row j, then ``dim`` drops below j; the hover
    view forgets the cell (no exception) and the views after it still refresh."""
    panel.state.update({"positions": 30, "dim": 512, "position": 3, "dimension": 1})
    panel.refresh_now()
    panel._mouse_moved(panel.heat_vb.mapViewToScene(QPointF(20.2, 400.1)))
    panel.refresh_now()
    assert "PE[20, 400]" in panel.hover_label.text()
    panel.state.set("dim", 128)  # an exception in a view fails the test (pytest-qt)
    panel.refresh_now()
    assert "Under the mouse" not in panel.hover_label.text()
    assert "PE[3, 1]" in panel.hover_label.text()
    counts = [len(dots.getData()[1]) for dots in (panel.vec_sin, panel.vec_cos)]
    assert counts == [64, 64]


def test_curve_plot_on_its_own_stage_spans_the_positions(panel: HeatmapPanel, qtbot: QtBot) -> None:
    """Enlarged (a deck step, F5), the curve plot is not stretched by the hidden heatmap it is
    linked to under the grid: its x axis covers exactly positions 0…L−1 and its view reaches
    the widget's right edge; restored, it lines up with the heatmap's columns again."""
    panel.state.update({"positions": 64, "dim": 128})
    panel.refresh_now()
    panel.enlarge_figure("curves")
    qtbot.waitUntil(lambda: panel.heat_plot.isHidden() or not panel.heat_plot.isVisible())
    panel.refresh_now()
    assert panel.curve_vb.viewRange()[0] == pytest.approx([-0.5, 63.5])
    curve = panel.curve_vb.screenGeometry()
    assert panel.curve_plot.width() - curve.right() < 0.03 * panel.curve_plot.width()
    panel.state.set("positions", 100)
    panel.refresh_now()
    assert panel.curve_vb.viewRange()[0] == pytest.approx([-0.5, 99.5])
    panel.enlarge_figure(None)
    qtbot.waitUntil(panel.heat_plot.isVisible)
    panel.refresh_now()

    def aligned() -> bool:
        heat, curve = panel.heat_vb.screenGeometry(), panel.curve_vb.screenGeometry()
        return abs(heat.right() - curve.right()) < 1.5 and abs(heat.left() - curve.left()) < 1.5

    qtbot.waitUntil(aligned)
    assert panel.curve_vb.viewRange()[0] == pytest.approx(panel.heat_vb.viewRange()[0])
