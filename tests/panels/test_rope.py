"""RoPE playground panel: paired tests (state -> widgets/plots, widgets -> state) and render."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
import pytest
import torch
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QSlider, QSpinBox, QWidget
from pytestqt.qtbot import QtBot

from posenc_gui import core
from posenc_gui.cli import main
from posenc_gui.panels.rope import CURVE_SAMPLES, RopePanel, curve_offsets, nice_ceil
from posenc_gui.state import ParamState
from posenc_gui.state.rope import MAX_POSITION, RopeModel


@pytest.fixture
def panel(qtbot: QtBot) -> RopePanel:
    p = RopePanel(ParamState(RopeModel))
    qtbot.addWidget(p)
    p.resize(1400, 900)
    return p


def _score_closed_form(q: list[float], k: list[float], r: float, base: float) -> float:
    """Re Σ q_i conj(k_i) e^{i r θ_i} with interleaved pairs (RoFormer eq. (16))."""
    d = len(q)
    total = 0.0
    for i in range(d // 2):
        a, b = complex(q[2 * i], q[2 * i + 1]), complex(k[2 * i], k[2 * i + 1])
        total += (a * b.conjugate() * complex(math.cos(r * base ** (-2 * i / d)),
                                              math.sin(r * base ** (-2 * i / d)))).real  # fmt: skip
    return total


# -- state -> widgets ----------------------------------------------------------------------------


def test_state_to_widgets(panel: RopePanel) -> None:
    spin = panel.findChild(QSpinBox, "m_spin")
    slider = panel.findChild(QSlider, "m_slider")
    panel.state.set("m", 12345)
    assert spin.value() == 12345  # the spin box is exact
    assert slider.value() == round(12345 / MAX_POSITION * slider.maximum())  # slider coarse
    panel.state.set("layout", "half")
    assert panel.findChild(QComboBox, "layout_combo").currentData() == "half"
    panel.state.set("dim", 16)
    pair_spin = panel.findChild(QSpinBox, "pair_spin")
    assert pair_spin.maximum() == 7


def test_typed_controls_only_enabled_in_typed_mode(panel: RopePanel) -> None:
    q0 = panel.findChild(QWidget, "q0_spin")
    assert not q0.isEnabled()
    panel.state.set("vectors", "typed")
    panel.refresh_now()
    assert all(panel.findChild(QWidget, f"{n}_spin").isEnabled() for n in ("q0", "q1", "k0", "k1"))
    assert "typed" in q0.toolTip() and "circle" in q0.toolTip()


# -- state -> plots ------------------------------------------------------------------------------


def test_circle_arrows_are_the_rotated_pairs(panel: RopePanel) -> None:
    panel.state.update(
        {"vectors": "typed", "q0": 1.0, "q1": 0.0, "k0": 0.0, "k1": 2.0, "m": 3, "n": 1,
         "dim": 8, "pair": 1, "base": 100.0}
    )  # fmt: skip
    panel.refresh_now()
    theta = 100.0 ** (-2 / 8)
    xs, ys = panel.q_after.getData()
    assert (xs[1], ys[1]) == pytest.approx((math.cos(3 * theta), math.sin(3 * theta)))
    xs, ys = panel.k_after.getData()
    assert (xs[1], ys[1]) == pytest.approx((-2 * math.sin(theta), 2 * math.cos(theta)))
    xs, ys = panel.q_before.getData()
    assert (xs[1], ys[1]) == pytest.approx((1.0, 0.0))
    # pair share: (1, 0)·R(−2θ)(0, 2)... = 2 sin(2θ)
    assert panel.readouts()["pair_score"] == pytest.approx(2 * math.sin(2 * theta))
    assert "Pair i = 1" in panel.circle_plot.getPlotItem().titleLabel.text


def test_score_curve_is_one_row_of_scores(panel: RopePanel) -> None:
    panel.state.update({"m": 30, "n": 10, "range_max": 64, "dim": 16, "seed": 4})
    panel.refresh_now()
    offs, sc = panel.score_curve.getData()
    # the whole range at every integer distance
    assert offs[0] == -64 and offs[-1] == 64 and len(offs) == 129
    r = panel.readouts()
    for j in (0, 50, 84, 128):
        assert sc[j] == pytest.approx(_score_closed_form(r["q"], r["k"], offs[j], 1e4), abs=1e-9)
    _, sqk = panel.qk_curve.getData()
    assert sqk[64] == pytest.approx(sum(x * x for x in r["k"]))  # q = k at r = 0 is |k|²
    assert panel.distance_line.value() == 20
    xs, ys = panel.curve_dots.getData()
    assert xs[0] == 20 and ys[0] == pytest.approx(r["score"])
    assert sc[list(offs).index(20)] == pytest.approx(r["score"])
    # the bound curve is eq. (37) and lies above |score|
    _, _, _, bound_raw = panel.curve_arrays
    assert np.all(bound_raw + 1e-9 >= np.abs(sc))
    _, plotted = panel.bound_curve.getData()
    assert 10**plotted == pytest.approx(bound_raw)  # the plot is in log10
    assert bound_raw[64] == pytest.approx(r["bound_coefficient"] * 8 * (8 + 1) / 2)


def test_curve_is_computed_for_the_visible_range_only(panel: RopePanel, qtbot: QtBot) -> None:
    panel.state.set("range_max", 100000)
    panel.refresh_now()
    offs, _ = panel.score_curve.getData()
    assert len(offs) <= CURVE_SAMPLES and offs[0] == -100000 and offs[-1] == 100000
    assert np.all(offs == np.round(offs))  # real (integer) distances, sampled
    panel.curve_plot.setXRange(-20, 20, padding=0)
    qtbot.waitUntil(lambda: len(panel.score_curve.getData()[0]) == 41, timeout=2000)
    offs, sc = panel.score_curve.getData()
    assert list(offs) == list(range(-20, 21))
    r = panel.readouts()
    assert sc[25] == pytest.approx(_score_closed_form(r["q"], r["k"], 5, 1e4), abs=1e-9)
    # zooming does not refresh the whole panel, only the curves
    assert not panel.pending()


def test_curve_offsets_helper() -> None:
    assert list(curve_offsets(-2.5, 3.2)) == [-2, -1, 0, 1, 2, 3]
    many = curve_offsets(0, 1e5, 1000)
    assert len(many) == 1000 and many[0] == 0 and many[-1] == 1e5


def test_score_matrix_matches_rope_scores(panel: RopePanel) -> None:
    panel.state.update({"m": 40, "n": 25, "window": 16, "dim": 32, "seed": 7, "layout": "half"})
    panel.refresh_now()
    r = panel.readouts()
    m0, n0 = r["window_m_start"], r["window_n_start"]
    assert (m0, n0) == (32, 17)
    full = core.rope_scores(
        torch.tensor(r["q"]), torch.tensor(r["k"]), torch.arange(m0, m0 + 16.0),
        torch.arange(n0, n0 + 16.0), layout="half",
    ).numpy()  # fmt: skip
    assert panel.matrix_data.shape == (16, 16)
    assert panel.matrix_data == pytest.approx(full, rel=1e-5, abs=1e-5)
    # constant diagonals, symmetric fixed levels that cover the data
    assert np.allclose(np.diag(panel.matrix_data, 3), panel.matrix_data[0, 3])
    assert np.allclose(np.diag(panel.matrix_data, -5), panel.matrix_data[5, 0])
    lo, hi = panel.matrix_bar.levels()
    assert lo == -hi and hi >= np.abs(full).max() and hi == nice_ceil(hi)
    # the marker sits on cell (m, n)
    xs, ys = panel.matrix_dot.getData()
    assert (xs[0], ys[0]) == (25.5, 40.5)
    assert panel.matrix_data[40 - m0, 25 - n0] == pytest.approx(r["score"], rel=1e-5)


def test_layout_table_shows_the_three_scores(panel: RopePanel) -> None:
    from posenc_gui.widgets.fmt import signed

    r = panel.readouts()
    text = panel.layout_label.text()
    for key in ("score_interleaved", "score_half", "score_half_permuted"):
        assert signed(r[key], 8) in text
    assert "most common RoPE bug" in text
    inv = panel.invariance_label.text()
    assert signed(r["score"], 8) in inv and signed(r["score_at_origin"], 8) in inv


# -- widgets -> state ----------------------------------------------------------------------------


def test_widgets_to_state(panel: RopePanel, qtbot: QtBot) -> None:
    panel.findChild(QSpinBox, "m_spin").setValue(4321)
    assert panel.state.as_int("m") == 4321
    panel.findChild(QSpinBox, "n_spin").setValue(4300)
    assert panel.state.as_int("n") == 4300
    combo = panel.findChild(QComboBox, "vectors_combo")
    combo.setCurrentIndex(combo.findData("q=k"))
    assert panel.state.get("vectors") == "q=k"
    dim_slider = panel.findChild(QSlider, "dim_slider")
    dim_slider.setFocus()
    qtbot.keyClick(dim_slider, Qt.Key.Key_Right)
    assert panel.state.as_int("dim") == 66


def test_lock_distance_moves_n_with_m(panel: RopePanel, qtbot: QtBot) -> None:
    panel.state.update({"m": 105, "n": 102})
    score = panel.readouts()["score"]
    check = panel.findChild(QCheckBox, "lock_check")
    check.setChecked(True)
    assert panel.state.get("lock") is True
    m_spin, n_spin = panel.findChild(QSpinBox, "m_spin"), panel.findChild(QSpinBox, "n_spin")
    m_spin.setValue(5)
    assert (panel.state.as_int("m"), panel.state.as_int("n")) == (5, 2)
    assert n_spin.value() == 2
    assert abs(panel.readouts()["score"] - score) < 1e-12
    # the coarse slider: n follows by the same amount
    slider = panel.findChild(QSlider, "m_slider")
    slider.setValue(slider.value() + 3)
    assert panel.state.as_int("m") - panel.state.as_int("n") == 3
    # moving n moves m as well
    n_spin.setValue(1000)
    assert (panel.state.as_int("m"), panel.state.as_int("n")) == (1003, 1000)
    # clamped at the range ends, the distance is kept
    m_spin.setValue(MAX_POSITION)
    assert (panel.state.as_int("m"), panel.state.as_int("n")) == (MAX_POSITION, MAX_POSITION - 3)
    n_spin.setValue(0)
    assert (panel.state.as_int("m"), panel.state.as_int("n")) == (3, 0)
    m_spin.setValue(0)  # would need n = -3: stays at the bottom end
    assert (panel.state.as_int("m"), panel.state.as_int("n")) == (3, 0)
    assert m_spin.value() == 3
    # setting both at once (a session, a click on the matrix) is taken as it is
    panel.state.update({"m": 50, "n": 10})
    assert (panel.state.as_int("m"), panel.state.as_int("n")) == (50, 10)
    # unlocked: n stays
    check.setChecked(False)
    m_spin.setValue(60)
    assert (panel.state.as_int("m"), panel.state.as_int("n")) == (60, 10)


def test_dragging_the_distance_line_moves_n(panel: RopePanel) -> None:
    panel.state.update({"m": 50, "n": 10})
    panel.refresh_now()
    panel.distance_line.setValue(-7.4)
    assert (panel.state.as_int("m"), panel.state.as_int("n")) == (50, 57)
    panel.distance_line.setValue(120.2)  # n would be negative: m moves instead
    assert (panel.state.as_int("m"), panel.state.as_int("n")) == (120, 0)


def test_clicking_the_matrix_picks_m_and_n(panel: RopePanel) -> None:
    panel.show()
    QApplication.processEvents()
    panel.refresh_now()
    vb = panel.matrix_plot.getPlotItem().getViewBox()

    class Click:
        def __init__(self, x: float, y: float) -> None:
            self._pos = vb.mapViewToScene(QPointF(x, y))

        def scenePos(self) -> Any:
            return self._pos

    r = panel.readouts()
    panel._matrix_clicked(Click(r["window_n_start"] + 10.5, r["window_m_start"] + 20.5))
    assert panel.state.as_int("n") == r["window_n_start"] + 10
    assert panel.state.as_int("m") == r["window_m_start"] + 20


def test_bad_typed_value_is_rejected(panel: RopePanel, qtbot: QtBot) -> None:
    spin = panel.findChild(QSpinBox, "dim_spin")
    before = panel.state.values()
    with qtbot.waitSignal(panel.message, timeout=1000) as blocker:
        spin.setValue(33)
    assert "dim must be an even integer" in blocker.args[0]
    assert panel.state.values() == before and spin.value() == 64


def test_plots_and_labels_have_names(panel: RopePanel) -> None:
    for name in ("circle_plot", "score_curve_plot", "decay_plot", "score_matrix_plot"):
        w = panel.findChild(pg.PlotWidget, name)
        assert w is not None and w.accessibleName()
    for name in ("invariance_readout", "layout_readout", "curve_formula", "circle_formula"):
        assert panel.findChild(QWidget, name) is not None


# -- render --------------------------------------------------------------------------------------


def test_render_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rope.png"
    assert main(["render", "--tab", "rope", "--set", "dim=512", "--set", "range_max=100000",
                 "--out", str(out), "--size", "1200x800"]) == 0  # fmt: skip
    img = QImage(str(out))
    assert (img.width(), img.height()) == (1200, 800)


def test_matrix_pixels_follow_the_colour_map(qtbot: QtBot) -> None:
    """With q = k the diagonal holds |k|², the largest score: the top colour of the map."""
    p = RopePanel(
        ParamState(RopeModel, {"vectors": "q=k", "m": 32, "n": 32, "dim": 8, "window": 16})
    )
    qtbot.addWidget(p)
    p.resize(1400, 900)
    p.show()
    QApplication.processEvents()
    p.refresh_now()
    QApplication.processEvents()
    image = p.grab().toImage()
    r = p.readouts()
    k2 = sum(x * x for x in r["k"])
    level = p.matrix_levels
    assert level == nice_ceil(k2)
    cmap = pg.colormap.get("CET-CBD1")
    vb = p.matrix_plot.getPlotItem().getViewBox()
    m0, n0 = r["window_m_start"], r["window_n_start"]
    # cells on the main diagonal (off the dashed line through their centres) and off it
    for m, n in ((m0 + 2, n0 + 2), (m0 + 12, n0 + 12), (m0 + 9, n0 + 2), (m0 + 1, n0 + 5)):
        value = float(p.matrix_data[m - m0, n - n0])
        if m == n:
            assert value == pytest.approx(k2, rel=1e-5)
        scene = vb.mapViewToScene(QPointF(n + 0.8, m + 0.2))
        at = p.matrix_plot.mapTo(p, p.matrix_plot.mapFromScene(scene))
        px = image.pixelColor(at.x(), at.y())
        want = cmap.map((value + level) / (2 * level), mode="qcolor")
        assert abs(px.red() - want.red()) <= 12, (m, n)
        assert abs(px.green() - want.green()) <= 12
        assert abs(px.blue() - want.blue()) <= 12
