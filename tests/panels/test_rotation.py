"""Rotation tab panel: paired state <-> widget/plot tests, dragging, views, style, rendering."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QMouseEvent
from PySide6.QtWidgets import QApplication, QComboBox, QDoubleSpinBox, QSlider, QSpinBox

from posenc_gui import cli
from posenc_gui.panels.rotation import PANEL, RotationPanel
from posenc_gui.state import ParamError, ParamState
from posenc_gui.widgets import fmt
from posenc_gui.widgets import style as S  # noqa: N812
from posenc_gui.widgets.text import strip_tags

SIZE = (1600, 1000)


@pytest.fixture
def panel(qtbot: object) -> Iterator[RotationPanel]:
    p = PANEL()
    qtbot.addWidget(p)  # type: ignore[attr-defined]
    yield p


def shown(values: dict[str, object], qtbot: object) -> RotationPanel:
    """A panel laid out at the render size, as ``posenc-gui render`` does it."""
    p = PANEL(ParamState(PANEL.model, values))  # type: ignore[arg-type]
    qtbot.addWidget(p)  # type: ignore[attr-defined]
    p.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    p.resize(*SIZE)
    p.show()
    QApplication.processEvents()
    p.refresh_now()
    QApplication.processEvents()
    return p


@pytest.fixture
def big(qtbot: object) -> RotationPanel:
    """The default panel shown at the render size."""
    return shown({}, qtbot)


def tip(item: pg.PlotDataItem) -> tuple[float, float]:
    """End point of an arrow drawn by plots.arrow_xy (second vertex of the shaft)."""
    xs, ys = item.getData()
    return float(xs[1]), float(ys[1])


def view_to_widget(plot: pg.PlotWidget, x: float, y: float) -> QPoint:
    vb = plot.getPlotItem().getViewBox()
    return plot.mapFromScene(vb.mapViewToScene(QPointF(x, y)))


def view_to_panel(panel: RotationPanel, plot: pg.PlotWidget, x: float, y: float) -> QPoint:
    return plot.mapTo(panel, view_to_widget(plot, x, y))


def close_colour(image: QImage, pt: QPoint, expected: str, tol: int = 12) -> bool:
    c, e = QColor(image.pixel(pt)), QColor(expected)
    return max(abs(c.red() - e.red()), abs(c.green() - e.green()), abs(c.blue() - e.blue())) <= tol


# -- state -> widgets and plots ------------------------------------------------------------
def test_state_drives_controls_and_arrows(panel: RotationPanel) -> None:
    panel.state.update({"angle": 90.0, "x": 1.0, "y": 0.5})
    panel.refresh_now()
    assert panel.findChild(QDoubleSpinBox, "angle_spin").value() == pytest.approx(90.0)
    assert panel.findChild(QDoubleSpinBox, "x_spin").value() == pytest.approx(1.0)
    # R(90°)(1, 0.5) = (−0.5, 1): the closed form, not the model's output.
    assert tip(panel.v_arrow) == pytest.approx((1.0, 0.5))
    assert tip(panel.rv_arrow) == pytest.approx((-0.5, 1.0), abs=1e-12)
    assert panel.v_target.pos().x() == pytest.approx(1.0)
    assert panel.rv_target.pos().y() == pytest.approx(1.0)
    # R(90°)R(30°)v = R(120°)v
    c, s = math.cos(math.radians(120)), math.sin(math.radians(120))
    assert tip(panel.composed_arrow) == pytest.approx((c - 0.5 * s, s + 0.5 * c), abs=1e-12)
    # the swept arc runs from the direction of v to that of Rv, at a fixed radius
    xs, ys = panel.arc.getData()
    start, end = math.atan2(ys[0], xs[0]), math.atan2(ys[-1], xs[-1])
    assert start == pytest.approx(math.atan2(0.5, 1.0))
    assert end == pytest.approx(math.atan2(1.0, -0.5))
    assert np.allclose(np.hypot(xs, ys), np.hypot(xs[0], ys[0]))
    text = panel.matrix_label.text()
    for number in ("+0.0000", "−1.0000", "+1.0000", "−0.5000"):
        assert number in text
    assert "✗" not in panel.checks_label.text()
    assert panel.checks_label.text().count("✓") == 6


def test_pe_plot_follows_order_and_position(panel: RotationPanel) -> None:
    panel.state.update({"dim": 64, "base": 10000.0, "pair": 3, "position": 11, "offset": 4})
    panel.refresh_now()
    w = 10000.0 ** (-6 / 64)
    assert tip(panel.pe_arrow) == pytest.approx((math.sin(11 * w), math.cos(11 * w)))
    assert tip(panel.pek_arrow) == pytest.approx((math.sin(15 * w), math.cos(15 * w)))
    xs, ys = panel.pe_pred.getData()
    assert (xs[0], ys[0]) == pytest.approx((math.sin(15 * w), math.cos(15 * w)))
    assert "sin" in panel.pe_plot.getAxis("bottom").labelText
    assert "R(−kω)" in panel.pe_label.text()
    assert "clockwise" in panel.pe_label.text()
    combo = panel.findChild(QComboBox, "pe_order_combo")
    combo.setCurrentIndex(combo.findData("cos_sin"))
    assert panel.state.get("pe_order") == "cos_sin"
    panel.refresh_now()
    assert tip(panel.pe_arrow) == pytest.approx((math.cos(11 * w), math.sin(11 * w)))
    assert "cos" in panel.pe_plot.getAxis("bottom").labelText
    assert "R(+kω)" in panel.pe_label.text()
    assert "counter-clockwise" in panel.pe_label.text()


def test_heatmap_shows_rope_matrix_with_outlined_blocks(big: RotationPanel) -> None:
    panel = big
    panel.state.update({"m": 5, "block_dim": 8, "layout": "interleaved", "base": 100.0})
    panel.refresh_now()
    img = panel.rope_image.image
    assert img.shape == (8, 8)
    assert img[0, 0] == pytest.approx(math.cos(5.0), abs=1e-6)
    assert img[1, 0] == pytest.approx(math.sin(5.0), abs=1e-6)
    assert img[2, 3] == pytest.approx(-math.sin(5 * 100.0 ** (-2 / 8)), abs=1e-6)
    assert img[0, 2] == 0.0
    assert tuple(panel.rope_image.getLevels()) == (-1.0, 1.0)
    xs, _ = panel.block_outline.getData()
    assert np.isnan(xs).sum() == 4  # one 2×2 square per pair
    # the nonzero entries get their numbers (with as many decimals as fit into a cell)
    cells = panel.cell_numbers.cells()
    assert len(cells) == 16
    assert {(r, c) for r, c, _ in cells} == {(r, c) for r in range(8) for c in range(8)
                                              if r // 2 == c // 2}  # fmt: skip
    digits = int(panel.views["rope_cells"].data()["cell_digits"].values)
    assert digits in (1, 2)
    assert cells[0] == (0, 0, f"{math.cos(5.0):.{digits}f}".replace("-", "−"))
    assert (1, 0, f"{math.sin(5.0):.{digits}f}".replace("-", "−")) in cells

    combo = panel.findChild(QComboBox, "layout_combo")
    combo.setCurrentIndex(combo.findData("half"))
    assert panel.state.get("layout") == "half"
    panel.refresh_now()
    img = panel.rope_image.image
    assert img[0, 4] == pytest.approx(-math.sin(5.0), abs=1e-6)  # pair 0 couples 0 and d/2
    assert img[0, 1] == 0.0
    xs, _ = panel.block_outline.getData()
    assert np.isnan(xs).sum() == 16  # four coupled cells per pair
    assert "✓" in panel.rope_label.text()

    panel.state.set("block_dim", 16)
    panel.refresh_now()
    assert panel.rope_image.image.shape == (16, 16)
    assert not panel.cell_numbers.cells()


# -- widgets -> state ------------------------------------------------------------------------
def test_controls_drive_state(panel: RotationPanel) -> None:
    panel.findChild(QDoubleSpinBox, "angle_spin").setValue(-45.0)
    assert panel.state.get("angle") == -45.0
    slider = panel.findChild(QSlider, "x_slider")
    slider.setValue(slider.maximum())
    assert panel.state.get("x") == 2.0
    panel.findChild(QSpinBox, "offset_spin").setValue(-12)
    assert panel.state.get("offset") == -12
    panel.findChild(QSpinBox, "m_spin").setValue(77)
    assert panel.state.get("m") == 77
    panel.refresh_now()
    assert "m = 77" in panel.rope_plot.getPlotItem().titleLabel.text


def test_pair_range_follows_dim(panel: RotationPanel) -> None:
    panel.state.update({"dim": 128, "pair": 60})
    panel.findChild(QSpinBox, "dim_spin").setValue(16)
    assert panel.state.get("dim") == 16
    assert panel.state.get("pair") == 7
    assert panel.findChild(QSpinBox, "pair_spin").maximum() == 7
    with pytest.raises(ParamError):
        panel.state.set("pair", 8)


def test_dragging_the_tip_of_v_sets_x_and_y(panel: RotationPanel) -> None:
    panel.v_target.setPos(QPointF(1.234, -0.7))  # what TargetItem.mouseDragEvent does
    assert panel.state.get("x") == pytest.approx(1.23)
    assert panel.state.get("y") == pytest.approx(-0.7)
    panel.v_target.setPos(QPointF(5.0, -9.0))  # beyond the range: clamped, never rejected
    assert (panel.state.get("x"), panel.state.get("y")) == (2.0, -2.0)
    # released there: the handle snaps back onto the tip of v (the clamped state)
    panel.v_target.sigPositionChangeFinished.emit(panel.v_target)
    assert (panel.v_target.pos().x(), panel.v_target.pos().y()) == (2.0, -2.0)
    panel.refresh_now()
    assert tip(panel.v_arrow) == (2.0, -2.0)


def test_handle_released_past_the_angle_limit_snaps_to_the_tip(panel: RotationPanel) -> None:
    panel.state.update({"x": 1.0, "y": 0.0, "angle": 350.0})
    panel.refresh_now()
    # drag on round: 355° is fine, then past 360° the angle stays at its limit
    panel.rv_target.setPos(QPointF(math.cos(math.radians(355)), math.sin(math.radians(355))))
    assert panel.state.get("angle") == pytest.approx(355.0)
    panel.rv_target.setPos(QPointF(math.cos(math.radians(20)), math.sin(math.radians(20))))
    assert panel.state.get("angle") == 360.0
    panel.rv_target.sigPositionChangeFinished.emit(panel.rv_target)
    pos = panel.rv_target.pos()
    assert (pos.x(), pos.y()) == pytest.approx((1.0, 0.0), abs=1e-12)  # R(360°)v = v
    panel.refresh_now()
    assert tip(panel.rv_arrow) == pytest.approx((pos.x(), pos.y()), abs=1e-12)


def test_dragging_the_tip_of_rv_sets_the_angle(panel: RotationPanel) -> None:
    panel.state.update({"x": 1.0, "y": 0.0, "angle": 10.0})
    panel.rv_target.setPos(QPointF(0.0, 0.7))
    assert panel.state.get("angle") == pytest.approx(90.0)
    panel.rv_target.setPos(QPointF(-1.0, -0.001))  # just past 180°: continues, no jump to −180
    assert panel.state.get("angle") == pytest.approx(180.1, abs=0.05)
    panel.refresh_now()
    # refresh puts the dot back on the circle |Rv| = |v|
    pos = panel.rv_target.pos()
    assert math.hypot(pos.x(), pos.y()) == pytest.approx(1.0)


def test_mouse_drag_of_the_v_tip(qtbot: object) -> None:
    p = shown({"x": 1.5, "y": 0.5}, qtbot)
    plot = p.rot_plot
    start, end = view_to_widget(plot, 1.5, 0.5), view_to_widget(plot, -1.0, 1.25)
    vp = plot.viewport()

    def send(kind: QEvent.Type, pos: QPoint, button: Qt.MouseButton, held: Qt.MouseButton) -> None:
        ev = QMouseEvent(
            kind, QPointF(pos), QPointF(vp.mapToGlobal(pos)), button, held,
            Qt.KeyboardModifier.NoModifier,
        )  # fmt: skip
        QApplication.sendEvent(vp, ev)

    left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton
    send(QEvent.Type.MouseButtonPress, start, left, left)
    for f in (0.25, 0.5, 0.75, 1.0):
        pt = QPoint(
            round(start.x() + (end.x() - start.x()) * f),
            round(start.y() + (end.y() - start.y()) * f),
        )
        send(QEvent.Type.MouseMove, pt, none, left)
    send(QEvent.Type.MouseButtonRelease, end, left, none)
    assert p.state.get("x") == pytest.approx(-1.0, abs=0.03)
    assert p.state.get("y") == pytest.approx(1.25, abs=0.03)


def test_refresh_is_coalesced(panel: RotationPanel, qtbot: object) -> None:
    count = panel.refresh_count
    for deg in range(0, 100, 5):
        panel.state.set("angle", float(deg))
    assert panel.pending()
    qtbot.waitUntil(lambda: not panel.pending())  # type: ignore[attr-defined]
    assert panel.refresh_count == count + 1
    assert tip(panel.rv_arrow)[0] == pytest.approx(
        1.5 * math.cos(math.radians(95)) - 0.5 * math.sin(math.radians(95))
    )


def test_refresh_time_at_the_largest_sizes(panel: RotationPanel) -> None:
    panel.state.update({"dim": 1024, "pair": 511, "block_dim": 64, "layout": "half",
                        "position": 10000, "offset": -1000, "m": 10000})  # fmt: skip
    panel.refresh_now()
    times = []
    for deg in (10.0, 20.0, 30.0):
        panel.state.set("angle", deg)
        panel.refresh_now()
        times.append(panel.last_refresh_seconds)
    assert min(times) < 0.05


# -- picture -----------------------------------------------------------------------------------
def test_picture_matches_the_maths(qtbot: object, tmp_path: Path) -> None:
    values = {"angle": 120.0, "x": 1.5, "y": 0.5, "m": 0, "block_dim": 16}
    p = shown(values, qtbot)
    image = p.grab().toImage()
    t = math.radians(120.0)
    rx, ry = 1.5 * math.cos(t) - 0.5 * math.sin(t), 1.5 * math.sin(t) + 0.5 * math.cos(t)
    points = {
        "v tip": (view_to_panel(p, p.rot_plot, 1.5, 0.5), S.Style().color("query")),
        "Rv tip": (view_to_panel(p, p.rot_plot, rx, ry), S.Style().color("key")),
    }
    cmap = S.Style().colormap("diverging")
    # R_0 = I: diagonal cells at level +1, off-diagonal cells at 0 (sampled off the centre).
    for name, (row, col) in {"diagonal": (3, 3), "zero": (2, 9)}.items():
        level = 1.0 if row == col else 0.0
        colour = cmap.map((level + 1.0) / 2.0, mode="qcolor").name()
        points[name] = (view_to_panel(p, p.rope_plot, col + 0.7, row + 0.7), colour)
    for name, (pt, colour) in points.items():
        assert close_colour(image, pt, colour), name

    out = tmp_path / "rotation.png"
    argv = ["render", "--tab", "rotation", "--out", str(out)]
    for k, v in values.items():
        argv += ["--set", f"{k}={v}"]
    assert cli.main(argv) == 0
    png = QImage(str(out))
    assert (png.width(), png.height()) == SIZE
    for name, (pt, colour) in points.items():
        assert close_colour(png, pt, colour), f"render: {name}"


# -- views: which refresh, what they show, style ---------------------------------------------
ALL_VIEWS = {
    "v", "rv", "composed", "rot_labels", "matrix", "checks", "pe_plot", "pe_text", "rope_geometry",
    "rope_heatmap", "rope_cells", "rope_text",
}  # fmt: skip
ROPE = {"rope_heatmap", "rope_cells", "rope_text"}
EXPECTED_REFRESHES = [
    ("angle", 75.0, {"rv", "composed", "rot_labels", "matrix", "checks"}),
    ("x", -1.25, {"v", "rv", "composed", "rot_labels", "matrix", "checks"}),
    ("y", 1.75, {"v", "rv", "composed", "rot_labels", "matrix", "checks"}),
    ("angle2", -40.0, {"composed", "rot_labels", "checks"}),
    ("dim", 64, {"pe_plot", "pe_text"}),
    ("pair", 5, {"pe_plot", "pe_text"}),
    ("position", 17, {"pe_plot", "pe_text"}),
    ("offset", -9, {"pe_plot", "pe_text"}),
    ("pe_order", "cos_sin", {"pe_plot", "pe_text"}),
    ("base", 500.0, {"pe_plot", "pe_text", *ROPE}),
    ("m", 12, ROPE),
    ("n", 99, {"rope_text"}),
    ("block_dim", 16, {"rope_geometry", *ROPE}),
    ("layout", "half", {"rope_geometry", *ROPE}),
]


@pytest.mark.parametrize(("name", "value", "expected"), EXPECTED_REFRESHES)
def test_a_change_refreshes_exactly_the_views_that_show_it(
    panel: RotationPanel, name: str, value: object, expected: set[str]
) -> None:
    assert set(panel.views) == ALL_VIEWS
    panel.refresh_now()
    before = {n: v.refresh_count for n, v in panel.views.items()}
    panel.state.set(name, value)  # type: ignore[arg-type]
    panel.refresh_now()
    refreshed = {n for n, v in panel.views.items() if v.refresh_count != before[n]}
    assert refreshed == expected
    assert all(panel.views[n].refresh_count == before[n] + 1 for n in expected)


def _finite(panel: RotationPanel) -> dict[str, dict[str, np.ndarray]]:
    out = {}
    for view, series in panel.data().items():
        out[view] = {}
        for key, s in series.items():
            arr = np.asarray(s.values, dtype=float)
            assert np.isfinite(arr).all(), f"{view}.{key}"
            out[view][key] = arr
    return out


@pytest.mark.parametrize("order", ["sin_cos", "cos_sin"])
def test_view_data_is_finite_and_matches_the_maths(panel: RotationPanel, order: str) -> None:
    values = {"angle": 130.0, "x": -0.75, "y": 1.5, "angle2": -25.0, "dim": 32, "base": 100.0,
              "pair": 3, "position": 21, "position2": 400, "offset": -6, "pe_order": order,
              "m": 7, "n": 2, "block_dim": 6, "layout": "half"}  # fmt: skip
    panel.state.update(values)  # type: ignore[arg-type]
    d = _finite(panel)
    assert set(d) == ALL_VIEWS
    t, t2 = math.radians(130.0), math.radians(105.0)
    x, y = -0.75, 1.5
    rot = lambda a: np.array([x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)])  # noqa: E731
    np.testing.assert_allclose(d["v"]["v"], [x, y])
    assert float(d["v"]["norm_v"]) == pytest.approx(math.hypot(x, y))
    np.testing.assert_allclose(d["rv"]["rotated"], rot(t), atol=1e-12)
    np.testing.assert_allclose(d["matrix"]["rotated"], rot(t), atol=1e-12)
    np.testing.assert_allclose(
        d["matrix"]["matrix"], [[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]], atol=1e-12
    )
    np.testing.assert_allclose(d["composed"]["composed"], rot(t2), atol=1e-12)
    # the arc sweeps θ at a fixed radius, from the direction of v
    arc = np.hypot(d["rv"]["arc_x"], d["rv"]["arc_y"])
    np.testing.assert_allclose(arc, arc[0])
    assert math.atan2(d["rv"]["arc_y"][0], d["rv"]["arc_x"][0]) == pytest.approx(math.atan2(y, x))
    assert (d["checks"]["residuals"] < 1e-12).all()
    assert float(d["checks"]["measured_angle"]) == pytest.approx(130.0)
    # PE: the pair (sin pω, cos pω) in the plot's coordinates, the turn drawn is kω
    w = 100.0 ** (-6 / 32)

    def pair(q: int) -> list[float]:
        s, c = math.sin(q * w), math.cos(q * w)
        return [c, s] if order == "cos_sin" else [s, c]

    for key, q in (("pe_pair", 21), ("pe_pair_shifted", 15), ("pe_pair2", 400),
                   ("pe_pair2_shifted", 394)):  # fmt: skip
        np.testing.assert_allclose(d["pe_plot"][key], pair(q), atol=1e-12)
    np.testing.assert_allclose(d["pe_plot"]["predicted"], [pair(15), pair(394)], atol=1e-9)
    sign = 1.0 if order == "cos_sin" else -1.0
    turn = d["pe_plot"]["arc"][-1] - d["pe_plot"]["arc"][0]
    assert turn == pytest.approx(sign * math.fmod(-6 * w, 2 * math.pi))
    assert float(d["pe_text"]["omega"]) == pytest.approx(w)
    kw = -6 * w * (1.0 if order == "cos_sin" else -1.0)
    np.testing.assert_allclose(
        d["pe_text"]["matrix"], [[math.cos(kw), -math.sin(kw)], [math.sin(kw), math.cos(kw)]],
        atol=1e-12,
    )  # fmt: skip
    # RoPE (half layout, d = 6): pair i couples rows i and i + 3
    rm = d["rope_heatmap"]["rope_matrix"]
    for i in range(3):
        a = 7 * 100.0 ** (-2 * i / 6)
        np.testing.assert_allclose(rm[i, i], math.cos(a), atol=1e-6)
        np.testing.assert_allclose(rm[i + 3, i], math.sin(a), atol=1e-6)
        np.testing.assert_allclose(rm[i, i + 3], -math.sin(a), atol=1e-6)
    np.testing.assert_allclose(d["rope_text"]["angles"], [7 * 100.0 ** (-2 * i / 6)
                                                          for i in range(3)])  # fmt: skip
    assert (d["rope_text"]["residuals"] < 1e-12).all()
    # the outline: four unit squares per pair
    blocks = d["rope_geometry"]["blocks"]
    assert blocks.shape == (12, 3) and (blocks[:, 2] == 1.0).all()
    assert {(int(c), int(r)) for c, r, _ in blocks} == {
        (b, a) for i in range(3) for a in (i, i + 3) for b in (i, i + 3)
    }


def test_style_change_restyles_the_items(panel: RotationPanel) -> None:
    light = S.Style()
    assert panel.v_arrow.opts["pen"].widthF() == pytest.approx(S.WIDTHS["bold"])
    try:
        S.hub().set_style(S.Style(scale=1.5, theme="dark"))
        panel.refresh_now()
        dark = S.Style(scale=1.5, theme="dark")
        pen = panel.v_arrow.opts["pen"]
        assert pen.widthF() == pytest.approx(1.5 * S.WIDTHS["bold"])
        assert pen.color().name() == dark.color("query").lower()
        assert panel.rv_arrow.opts["pen"].color().name() == dark.color("key").lower()
        assert panel.pe_pred.opts["pen"].color().name() == dark.color("ink").lower()
        assert panel.pe_pred.opts["size"] == pytest.approx(1.5 * S.MARKERS["huge"])
        assert panel.block_outline.opts["pen"].widthF() == pytest.approx(1.5 * S.WIDTHS["thick"])
        assert panel.v_target.scale == pytest.approx(1.5 * S.MARKERS["huge"])
        assert panel.v_target.brush.color().name() == dark.color("query").lower()
        # the formulas carry the theme's colours (brackets in the ink colour, ticks in "good")
        assert dark.color("ink")[:7] in panel.matrix_label.text()
        assert dark.color("good")[:7] in panel.checks_label.text()
        assert dark.color("key")[:7] in panel.matrix_label.text()
        assert light.color("key")[:7] not in panel.matrix_label.text()
        assert panel.matrix_label.font().pointSizeF() == pytest.approx(1.5 * S.FONTS["title"])
    finally:
        S.hub().set_style(S.Style())
    panel.refresh_now()
    assert panel.v_arrow.opts["pen"].widthF() == pytest.approx(S.WIDTHS["bold"])
    assert light.color("key")[:7] in panel.matrix_label.text()


@pytest.mark.parametrize(("x", "y", "angle"), [(2.0, 2.0, 45.0), (2.0, 2.0, 135.0),
                                               (-2.0, -2.0, 0.0), (2.0, -2.0, 0.0),
                                               (2.0, 2.0, -135.0)])  # fmt: skip
def test_labels_stay_inside_the_view(qtbot: object, x: float, y: float, angle: float) -> None:
    p = shown({"x": x, "y": y, "angle": angle}, qtbot)
    for plot, items in ((p.rot_plot, [p.v_text, p.rv_text, p.angle_text]),
                        (p.pe_plot, p.pe_texts)):  # fmt: skip
        view = plot.getPlotItem().getViewBox().sceneBoundingRect().adjusted(-1, -1, 1, 1)
        for item in items:
            box = item.sceneBoundingRect()
            assert view.contains(box), (item.toPlainText(), box, view)


def test_cell_numbers_follow_the_cell_size_and_the_font(big: RotationPanel) -> None:
    def digits() -> int:
        big.refresh_now()
        return int(big.views["rope_cells"].data()["cell_digits"].values)

    assert digits() >= 1
    # A small plot: cells too narrow for any number -> hidden, no overlapping text.
    big.rope_plot.setFixedSize(200, 200)
    QApplication.processEvents()
    assert digits() == 0
    assert not big.cell_numbers.cells()
    # A large plot: two decimals fit.
    big.rope_plot.setFixedSize(900, 900)
    QApplication.processEvents()
    assert digits() == 2
    shown_texts = [text for _, _, text in big.cell_numbers.cells()]
    assert shown_texts and all(len(s.split(".")[1]) == 2 for s in shown_texts)
    # Same plot, triple font size: the numbers would not fit any more.
    try:
        S.hub().set_style(S.Style(scale=3.0))
        assert digits() < 2
    finally:
        S.hub().set_style(S.Style())
    big.rope_plot.setFixedSize(900, 900)  # the style set the plots' minimum sizes again
    QApplication.processEvents()
    # The numbers never overlap: each fits into its cell at the current pixel size.
    assert digits() == 2
    vb = big.rope_plot.getPlotItem().getViewBox()
    cell_px = 1.0 / vb.viewPixelSize()[0]
    assert all(big.cell_numbers.text_width(s) < cell_px for _, _, s in big.cell_numbers.cells())
    assert big.cell_numbers.font().pointSizeF() == pytest.approx(S.Style().pt("small"))
    assert big.views["rope_cells"].data()["cell_values"].values.shape == (8, 8)


def test_largest_sizes_refresh_only_what_changed(panel: RotationPanel) -> None:
    panel.state.update({"dim": 1024, "pair": 511, "block_dim": 64})
    panel.refresh_now()
    before = {n: v.refresh_count for n, v in panel.views.items()}
    panel.state.set("angle", 12.0)
    panel.refresh_now()
    assert panel.views["rope_heatmap"].refresh_count == before["rope_heatmap"]
    assert panel.views["pe_plot"].refresh_count == before["pe_plot"]
    assert not panel.cell_numbers.cells()  # d = 64: no numbers in cells


def test_slider_steps_edit_the_readouts_in_place(panel: RotationPanel) -> None:
    """An angle or position step changes only numbers: the read-outs edit them in place (no
    HTML parsed again, heights kept) and show the new values, residuals falling to 0
    included."""
    labels = (panel.matrix_label, panel.checks_label)
    panel.state.set("angle", 10.0)
    panel.refresh_now()
    parsed = [lab.parsed for lab in labels]
    for deg in (20.0, 30.0, 90.0, 0.0, -135.5):
        panel.state.set("angle", deg)
        panel.refresh_now()
        assert [lab.parsed for lab in labels] == parsed
        assert f"θ = {fmt.num(deg, 1)}°" in strip_tags(panel.matrix_label.text())
    assert all(lab.edited >= 5 for lab in labels)
    pe = panel.pe_label
    panel.state.set("position", 3)
    panel.refresh_now()
    before = pe.parsed
    for p in (4, 5, 6):
        panel.state.set("position", p)
        panel.refresh_now()
        assert f"p = {p} → {p + panel.state.as_int('offset')}" in strip_tags(pe.text())
    assert pe.parsed == before


@pytest.mark.parametrize(
    ("name", "values"),
    [("dim", (64, 66, 1024, 8)), ("base", (100.0, 1e7, 12.5)), ("pair", (0, 2, 30)),
     ("offset", (-1000, 0, 7))],
)  # fmt: skip
def test_pe_steps_edit_the_pe_text_in_place(
    panel: RotationPanel, name: str, values: tuple[float, ...]
) -> None:
    """Every number of the PE read-out is a live value: a dim, base, pair or offset step edits
    it in place (never parsed again) and shows what the maths says."""
    pe = panel.pe_label
    panel.refresh_now()
    before = pe.parsed
    for value in values:
        panel.state.set(name, value)  # type: ignore[arg-type]
        panel.refresh_now()
        v = panel.state.values()
        dim, base, i, k = int(v["dim"]), float(v["base"]), int(v["pair"]), int(v["offset"])
        text = strip_tags(pe.text())
        omega = base ** (-2 * i / dim)
        assert f"ω{i} = " in text and f"−2·{i}/{dim}" in text
        assert f"= {fmt.sig(omega, 5)} (λ = {fmt.sig(2 * math.pi / omega, 5)})" in text
        assert f"k = {k}" in text and f"kω = {fmt.num(k * omega, 4)} rad" in text
        assert f"Every pair i &lt; {dim // 2} at p" in text
        # a base written in scientific form is bracketed as the base of a power
        power = f"({fmt.sig(base, 5)})" if base >= 1e6 else fmt.sig(base, 5)
        assert f"= {power}−2·{i}/{dim} =" in text
    assert pe.parsed == before


@pytest.mark.parametrize(
    ("name", "values"), [("m", (4, 77, 10000)), ("n", (0, 9, 10000)), ("base", (100.0, 5e6)),
                         ("block_dim", (16, 64, 10))],
)  # fmt: skip
def test_rope_steps_edit_the_rope_text_in_place(
    panel: RotationPanel, name: str, values: tuple[float, ...]
) -> None:
    rope = panel.rope_label
    panel.refresh_now()
    before = rope.parsed
    for value in values:
        panel.state.set(name, value)  # type: ignore[arg-type]
        panel.refresh_now()
        v = panel.state.values()
        m, n, bd = int(v["m"]), int(v["n"]), int(v["block_dim"])
        text = strip_tags(rope.text())
        assert f"d = {bd}, interleaved layout." in text
        assert f"(n = {fmt.integer(n)}, n−m = {fmt.integer(n - m)})" in text
        first = m * float(v["base"]) ** 0.0
        assert f"m·θi = {fmt.sig(first, 3)}, " in text
    assert rope.parsed == before


def test_cell_numbers_are_painted_in_their_cells(big: RotationPanel) -> None:
    """The numbers are drawn inside the cells that hold them (ink pixels in the cell of a
    nonzero entry, none in a zero cell)."""
    big.rope_plot.setFixedSize(700, 700)
    big.state.update({"m": 0, "block_dim": 8, "layout": "interleaved"})
    big.refresh_now()
    QApplication.processEvents()
    assert big.cell_numbers.cells()
    image = big.rope_plot.grab().toImage()
    ink = QColor(S.Style().color("ink"))

    def inky(row: int, col: int) -> int:
        a = view_to_widget(big.rope_plot, col + 0.1, row + 0.1)
        b = view_to_widget(big.rope_plot, col + 0.9, row + 0.9)
        count = 0
        for x in range(a.x(), b.x()):
            for y in range(a.y(), b.y()):
                c = QColor(image.pixel(x, y))
                if max(abs(c.red() - ink.red()), abs(c.green() - ink.green()),
                       abs(c.blue() - ink.blue())) < 60:  # fmt: skip
                    count += 1
        return count

    assert inky(0, 0) > 10 and inky(5, 5) > 10  # R_0 = I: "1.0" on the diagonal
    assert inky(0, 2) == 0  # a zero entry: no number


def test_painted_matrices_and_table_match_their_text(big: RotationPanel) -> None:
    """The matrices and the PE table are painted: every entry of the equivalent HTML table is
    written, entries of a matrix column share their right edge, rows their baseline, nothing
    overlaps its neighbour, and all of it lies inside the widget; the pixels are there."""
    panel = big
    panel.state.update({"angle": -135.0, "x": 1.25, "y": -0.5})
    panel.refresh_now()
    QApplication.processEvents()
    t = math.radians(-135.0)
    c, s = math.cos(t), math.sin(t)
    line = panel.product_line
    drawn = line.drawn()
    texts = [d[2] for d in drawn]
    for value in (c, -s, s, c):
        assert f"{value:+.4f}".replace("-", "−") in texts
    for value in (1.25 * c + 0.5 * s, 1.25 * s - 0.5 * c):
        assert f"{value:+.4f}".replace("-", "−") in texts
    assert all(strip_tags(line.text()).count(x) >= 1 for x in texts)
    fm = QFontMetricsF(line.font())
    by_text = {d[2]: d for d in drawn}
    right = {round(by_text[e][0] + fm.horizontalAdvance(e), 6)
             for e in (f"{c:+.4f}".replace("-", "−"), f"{s:+.4f}".replace("-", "−"))}  # fmt: skip
    assert len(right) == 1  # the first column's entries are right-aligned
    for baseline in {y for _, y, _ in drawn}:  # on one baseline, no two texts overlap
        spans = sorted((x, x + fm.horizontalAdvance(t)) for x, y, t in drawn if y == baseline)
        assert all(a1 <= b0 + 1e-6 for (_, a1), (b0, _) in itertools.pairwise(spans))
    assert all(x >= 0 and x + fm.horizontalAdvance(t) <= line.width() for x, _, t in drawn)
    image = line.grab().toImage()
    ink = sum(
        1 for x in range(image.width()) for y in range(image.height())
        if QColor(image.pixel(x, y)).lightness() < 100
    )  # fmt: skip
    assert ink > 200  # numbers and brackets were painted

    table = panel.pe_table
    rows = [d for d in table.drawn()]
    assert [r[2] for r in rows[:3]] == ["", "p = 3 → 5", "p′ = 40 → 42"]
    assert {"angle", "pair", "M × pair", "pair at +k", "residual ‖·‖"} <= {r[2] for r in rows}
    assert strip_tags(table.text()).count("→") == 2


def test_arcs_are_drawn_with_a_segment_every_few_degrees(panel: RotationPanel) -> None:
    panel.state.update({"angle": -300.0, "x": 1.0, "y": 1.0})
    panel.refresh_now()
    for xs, ys in (panel.arc.getData(), panel.pe_arc.getData()):
        steps = np.abs(np.diff(np.unwrap(np.arctan2(ys, xs))))
        assert steps.max() <= math.radians(3.0) + 1e-12
    xs, ys = panel.arc.getData()
    turn = np.unwrap(np.arctan2(ys, xs))
    assert turn[-1] - turn[0] == pytest.approx(math.radians(-300.0))


def test_painted_lines_wrap_to_the_width(big: RotationPanel) -> None:
    """The painted property lines break at spaces when the column is narrow: every piece stays
    inside the width, the height grows with the number of lines, and all words are there."""
    label = big.checks_label
    fm = QFontMetricsF(label.font())

    def words(drawn: list[tuple[float, float, str]]) -> list[str]:
        return " ".join(t for _, _, t in sorted(drawn, key=lambda d: (d[1], d[0]))).split()

    wide = label.drawn()
    assert label.heightForWidth(250) > label.heightForWidth(900) > 0
    label.setFixedWidth(250)
    QApplication.processEvents()
    narrow = label.drawn()
    assert len({y for _, y, _ in narrow}) > len({y for _, y, _ in wide})
    assert all(x + fm.horizontalAdvance(t.rstrip(" ")) <= 250 + 1e-6 for x, _, t in narrow
               if x > 2.0)  # fmt: skip  # (a single word wider than the column may stick out)
    assert words(narrow) == words(wide)
    for _ in range(3):
        QApplication.processEvents()
    assert label.height() >= label.heightForWidth(250)  # the layout made room
    assert strip_tags(label.text()).count("✓") == 6


def test_painted_readouts_keep_their_room(big: RotationPanel) -> None:
    """A painted matrix or table never shrinks while the style stays (a narrower number would
    otherwise re-lay the read-out column out), and is measured afresh for a new style."""
    table = big.pe_table
    big.state.update({"position": 9999, "position2": 9998})
    big.refresh_now()
    wide = table.sizeHint().width()
    big.state.update({"position": 3, "position2": 4})
    big.refresh_now()
    assert table.sizeHint().width() == wide
    try:
        S.hub().set_style(S.Style(scale=1.5))
        big.refresh_now()
        assert table.sizeHint().width() != wide
    finally:
        S.hub().set_style(S.Style())


def test_painted_lines_keep_a_superscript_with_its_base(big: RotationPanel) -> None:
    """Lines break only after a space: "base" and its superscript "−2i/d" stay together, the
    superscript drawn right after its base, above the baseline, whatever the width."""
    label = big.rope_label
    for width in (200, 240, 280, 320, 360, 900):
        label.setFixedWidth(width)
        QApplication.processEvents()
        drawn = label.drawn()
        k = next(i for i, (_, _, t) in enumerate(drawn) if t == "−2i/d")
        x, y, _ = drawn[k]
        bx, by, before = drawn[k - 1]
        assert before.endswith("base")
        assert x == pytest.approx(bx + QFontMetricsF(label.font()).horizontalAdvance(before))
        assert y < by  # raised


@pytest.mark.parametrize(
    "values",
    [{"angle": 0.0, "x": 1.5, "y": 0.5}, {"angle": 0.0, "angle2": 0.0, "x": 0.0, "y": 2.0},
     {"pair": 1, "position": 40, "offset": 7}, {"pair": 0, "position": 3, "position2": 3}],
)  # fmt: skip
def test_labels_where_the_arrows_coincide_lie_apart(qtbot: object, values: dict) -> None:
    """v on R(θ)v (θ = 0) and p, p′, p+k, p′+k close together: the labels do not overlap."""
    p = shown(values, qtbot)
    for items in ([p.v_text, p.rv_text, p.angle_text], p.pe_texts):
        boxes = [(item.toPlainText(), item.sceneBoundingRect()) for item in items]
        for k, (a, ra) in enumerate(boxes):
            for b, rb in boxes[k + 1 :]:
                inter = ra.adjusted(4, 4, -4, -4).intersected(rb.adjusted(4, 4, -4, -4))
                assert inter.isEmpty(), (a, ra, b, rb)


# -- issue 20: the angle of the zero vector is undefined, not atan2(0, 0) = 0 --------------------
def test_the_zero_vector_has_no_measured_angle(
    panel: RotationPanel, capsys: pytest.CaptureFixture[str]
) -> None:
    panel.state.update({"x": 1.0, "y": 0.0, "angle": 30.0})
    panel.refresh_now()
    assert panel.readouts()["measured_angle_degrees"] == pytest.approx(30.0)
    assert "30.00°" in strip_tags(panel.checks_label.text())
    panel.state.update({"x": 0.0, "y": 0.0})
    panel.refresh_now()
    assert math.isnan(panel.readouts()["measured_angle_degrees"])
    assert "— (v is (0, 0): no direction)" in strip_tags(panel.checks_label.text())
    for view, series in panel.data().items():  # no NaN among the arrays shown and exported
        for name, s in series.items():
            assert np.isfinite(np.asarray(s.values, dtype=float)).all(), (view, name)
    assert cli.main(["values", "--tab", "rotation", "--set", "x=0", "--set", "y=0"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["measured_angle_degrees"] is None
    assert data["measured_angle_degrees_undefined"] == "v is (0, 0): no direction"
