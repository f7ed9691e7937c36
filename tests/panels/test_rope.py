"""RoPE playground panel: paired tests (state -> widgets/plots, widgets -> state) and render."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
import pytest
import torch
from conftest import record_rescales
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QSlider, QSpinBox, QWidget
from pytestqt.qtbot import QtBot

from posenc_gui import core
from posenc_gui.cli import main
from posenc_gui.core.rope import nice_ceil
from posenc_gui.panels.rope import RopePanel
from posenc_gui.state import ParamState
from posenc_gui.state.rope import MAX_POSITION, RopeModel
from posenc_gui.widgets import styled
from posenc_gui.widgets.render import HouseAxis


@pytest.fixture
def panel(qtbot: QtBot) -> RopePanel:
    p = RopePanel(ParamState(RopeModel))
    qtbot.addWidget(p)
    p.resize(1400, 900)
    return p


@pytest.fixture
def shown(qtbot: QtBot) -> RopePanel:
    """A panel laid out at 1600×1000 (pixel columns of the plots are real)."""
    p = RopePanel(ParamState(RopeModel))
    qtbot.addWidget(p)
    p.resize(1600, 1000)
    p.show()
    QApplication.processEvents()
    p.refresh_now()
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
    decay = panel.data()["decay"]
    bound_raw = decay["bound_max"].values
    assert np.all(bound_raw + 1e-9 >= np.abs(sc))
    _, plotted = panel.bound_curve.getData()
    assert 10**plotted == pytest.approx(bound_raw)  # the plot is in log10
    assert bound_raw[64] == pytest.approx(r["bound_coefficient"] * 8 * (8 + 1) / 2)
    assert decay["abs_score_max"].values == pytest.approx(np.abs(sc))


def test_every_distance_is_aggregated_per_pixel_column(shown: RopePanel, qtbot: QtBot) -> None:
    """At range 100,000 the curve is a min/max envelope over every integer distance: the r = 0
    peak of q = k (|k|², the largest score) is drawn, however many distances share a pixel."""
    panel = shown
    panel.state.update({"range_max": 100000, "vectors": "q=k"})
    panel.settle()
    data = panel.data()["curves"]
    group = int(data["distances_per_column"].values)
    x = data["distance"].values
    assert group > 100 and len(x) * group >= 200_001 > (len(x) - 1) * group
    assert x[0] == pytest.approx(-100000 + (group - 1) / 2)
    k2 = panel.readouts()["k_norm"] ** 2
    assert data["score_max"].values.max() == pytest.approx(k2, rel=1e-9)
    assert data["score_qk_max"].values.max() == pytest.approx(k2, rel=1e-9)
    # drawn, not only computed: one vertical segment (min, max) per pixel column
    assert not panel.score_curve.isVisible() and panel.score_band.isVisible()
    bx, drawn = panel.score_band.getData()
    assert len(bx) == 2 * len(x) and drawn.max() == pytest.approx(k2, rel=1e-9)
    assert drawn[0::2] == pytest.approx(data["score_min"].values)
    # every column holds its exact extremes: check two columns against all their distances
    r = panel.readouts()
    q, k = torch.tensor(r["q"], dtype=torch.float64), torch.tensor(r["k"], dtype=torch.float64)
    for col in (0, len(x) // 2):
        first = -100000 + col * group
        offs = torch.arange(first, min(first + group, 100001), dtype=torch.float64)
        exact = core.rope_score_by_offset(q, k, offs).numpy()
        assert data["score_min"].values[col] == pytest.approx(exact.min(), abs=1e-9)
        assert data["score_max"].values[col] == pytest.approx(exact.max(), abs=1e-9)
    decay = panel.data()["decay"]
    assert decay["abs_score_max"].values.max() == pytest.approx(k2, rel=1e-9)
    assert np.all(decay["bound_max"].values >= decay["abs_score_max"].values - 1e-9)
    # zoomed in: every integer distance, a plain line
    panel.curve_plot.setXRange(-20, 20, padding=0)
    panel.refresh_now()  # the zoom is an "x_range" event: only the distance views refresh
    offs, sc = panel.score_curve.getData()
    assert list(offs) == list(range(-20, 21))
    assert panel.score_curve.isVisible() and not panel.score_band.isVisible()
    assert sc[25] == pytest.approx(_score_closed_form(r["q"], r["k"], 5, 1e4), abs=1e-9)
    assert panel.data()["curves"]["distances_per_column"].values == 1
    assert panel.view_state() == {"x_range": [-20.0, 20.0]}


def test_zoom_refreshes_only_the_distance_views(shown: RopePanel) -> None:
    panel = shown
    before = {n: _asked(v) for n, v in panel.views.items()}
    panel.curve_plot.setXRange(-50, 70, padding=0)
    panel.refresh_now()
    changed = {n for n, v in panel.views.items() if _asked(v) != before[n]}
    # the distance markers too: they are parked out of sight while beyond the range shown
    assert changed == {"curves", "decay", "curve_formula", "distance_marker"}


def test_distance_markers_off_the_plots_are_left_alone_until_they_return(
    shown: RopePanel,
) -> None:
    """m beyond the distances shown: the markers are moved out of sight once, then not moved
    again while m stays off the plots; a zoom or a distance inside brings them back."""
    panel = shown
    panel.state.update({"m": 40, "n": 10, "range_max": 10000})
    panel.refresh_now()
    panel.curve_plot.setXRange(-64, 64, padding=0)
    panel.refresh_now()
    assert panel.distance_line.value() == 30
    panel.state.set("m", 5000)  # off the plots: moved once, out of sight
    panel.refresh_now()
    lo, hi = panel._x_shown()
    assert panel.distance_line.value() == 4990 and not lo <= 4990 <= hi
    moves: list[float] = []
    panel.distance_line.sigPositionChanged.connect(lambda line: moves.append(line.value()))
    for m in (5100, 6000, 7000):
        panel.state.set("m", m)
        panel.refresh_now()
    assert moves == [] and panel.curve_dots.getData()[0][0] == 4990
    assert panel.readouts()["relative_distance"] == 6990  # the numbers follow the state
    panel.curve_plot.setXRange(6900, 7100, padding=0)  # zoomed onto it: shown where it is
    panel.refresh_now()
    assert panel.distance_line.value() == 6990 and panel.curve_dots.getData()[0][0] == 6990
    panel.curve_plot.setXRange(-64, 64, padding=0)
    panel.state.set("m", 12)  # back inside
    panel.refresh_now()
    assert panel.distance_line.value() == 2 and panel.decay_line.value() == 2


def test_view_state_round_trip(shown: RopePanel, qtbot: QtBot) -> None:
    assert shown.view_state() == {}  # the whole range: nothing to remember
    shown.curve_plot.setXRange(-30.5, 12.25, padding=0)
    state = shown.view_state()
    assert state == {"x_range": [-30.5, 12.25]}
    other = RopePanel(ParamState(RopeModel))
    qtbot.addWidget(other)
    other.resize(1600, 1000)
    other.restore_view_state({**state, "unknown": 1})
    assert other.view_state() == state
    other.restore_view_state({"x_range": "nonsense"})  # ignored
    assert other.view_state() == state


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
    mat = panel.data()["matrix"]["matrix"].values
    assert mat.shape == (16, 16)
    assert mat == pytest.approx(full, rel=1e-5, abs=1e-5)
    # constant diagonals, symmetric fixed levels that cover the data
    assert np.allclose(np.diag(mat, 3), mat[0, 3])
    assert np.allclose(np.diag(mat, -5), mat[5, 0])
    lo, hi = panel.matrix_bar.levels()
    assert lo == -hi and hi >= np.abs(full).max() and hi == nice_ceil(hi)
    # the marker sits on cell (m, n)
    xs, ys = panel.matrix_dot.getData()
    assert (xs[0], ys[0]) == (25.5, 40.5)
    assert mat[40 - m0, 25 - n0] == pytest.approx(r["score"], rel=1e-5)


def test_layout_table_shows_the_three_scores(panel: RopePanel) -> None:
    from posenc_gui.widgets.fmt import signed

    r = panel.readouts()
    text = panel.layout_label.text()
    for key in ("score_interleaved", "score_half", "score_half_permuted"):
        assert signed(r[key], 8) in text
    assert "most common RoPE bug" in text
    assert "[0, 2, …, 62, 1, 3, …, 63]" in text  # d = 64: the permutation as it really is
    inv = panel.invariance_label.text()
    assert signed(r["score"], 8) in inv and signed(r["score_at_origin"], 8) in inv
    panel.state.set("dim", 6)
    panel.refresh_now()
    assert "[0, 2, 4, 1, 3, 5]" in panel.layout_label.text()


# -- issue 20: the angle of a zero pair is undefined, not atan2(0, 0) = 0 ----------------------
@pytest.mark.parametrize(
    ("zero", "reason"), [("q", "q's selected pair"), ("k", "k's selected pair")]
)
def test_a_zero_pair_has_no_angle(panel: RopePanel, zero: str, reason: str) -> None:
    panel.state.update({"dim": 2, "vectors": "typed", "q0": 0.6, "q1": 0.8, "k0": 1.0, "k1": 0.0})
    panel.refresh_now()
    r = panel.readouts()
    assert r["angle_q"] == pytest.approx(math.atan2(0.8, 0.6)) and r["angle_k"] == 0.0
    assert math.isfinite(r["angle_between_rotated"])
    assert "(0, 0)" not in panel.circle_formula.text()
    panel.state.update({f"{zero}0": 0.0, f"{zero}1": 0.0})
    panel.refresh_now()
    r = panel.readouts()
    other = "k" if zero == "q" else "q"
    assert math.isnan(r[f"angle_{zero}"]) and math.isfinite(r[f"angle_{other}"])
    assert math.isnan(r["angle_between_rotated"])
    text = panel.circle_formula.text()
    assert f"— ({reason} is (0, 0): no direction)" in text
    assert "cos ∠ = " in text and "°" not in text.split("∠ between")[1].split("pair share")[0]
    # the circle still draws (its arcs start on the axis) and shows only finite numbers
    for view, series in panel.data().items():
        for name, s in series.items():
            arr = np.asarray(s.values)
            assert arr.dtype.kind not in "fc" or np.isfinite(arr).all(), (view, name)


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
    for name in ("figure_circle", "figure_curves", "figure_decay", "figure_matrix"):
        w = panel.findChild(pg.PlotWidget, name)
        assert w is not None and w.accessibleName()
    for name in (
        "invariance_readout",
        "figure_layouts",
        "figure_curve_formula",
        "figure_circle_formula",
    ):
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
    matrix = p.data()["matrix"]
    level = float(matrix["levels"].values[1])
    assert level == nice_ceil(k2)
    cmap = pg.colormap.get("CET-CBD1")
    vb = p.matrix_plot.getPlotItem().getViewBox()
    m0, n0 = r["window_m_start"], r["window_n_start"]
    # cells on the main diagonal (off the dashed line through their centres) and off it
    for m, n in ((m0 + 2, n0 + 2), (m0 + 12, n0 + 12), (m0 + 9, n0 + 2), (m0 + 1, n0 + 5)):
        value = float(matrix["matrix"].values[m - m0, n - n0])
        if m == n:
            assert value == pytest.approx(k2, rel=1e-5)
        scene = vb.mapViewToScene(QPointF(n + 0.8, m + 0.2))
        at = p.matrix_plot.mapTo(p, p.matrix_plot.mapFromScene(scene))
        px = image.pixelColor(at.x(), at.y())
        want = cmap.map((value + level) / (2 * level), mode="qcolor")
        assert abs(px.red() - want.red()) <= 12, (m, n)
        assert abs(px.green() - want.green()) <= 12
        assert abs(px.blue() - want.blue()) <= 12


# -- views: honest inputs, recorded data, style ----------------------------------------------------


def _asked(view: Any) -> int:
    """Refreshes a view was asked for: runs, and those its unchanged key skipped."""
    return int(view.refresh_count + view.skip_count)


def _refreshed(panel: RopePanel, change: dict[str, Any]) -> set[str]:
    panel.refresh_now()
    before = {n: _asked(v) for n, v in panel.views.items()}
    panel.state.update(change)
    panel.refresh_now()
    return {n for n, v in panel.views.items() if _asked(v) != before[n]}


ALL_VIEWS = {
    "circle", "circle_formula", "invariance", "pair_readout", "typed_controls", "curves", "decay",
    "distance_marker", "curve_formula", "matrix", "matrix_marker", "layouts",
}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        # m moves markers, the circle and the read-outs; never the curves over all distances
        ({"m": 17}, ALL_VIEWS - {"curves", "decay", "pair_readout", "typed_controls"}),
        ({"n": 40}, ALL_VIEWS - {"curves", "decay", "pair_readout", "typed_controls"}),
        ({"seed": 3}, ALL_VIEWS - {"typed_controls", "matrix_marker"}),
        ({"window": 32}, {"matrix", "matrix_marker"}),
        ({"range_max": 1000}, {"curves", "decay", "curve_formula"}),
        ({"base": 500.0}, ALL_VIEWS - {"typed_controls", "matrix_marker"}),
        ({"vectors": "typed"}, ALL_VIEWS - {"matrix_marker"}),
        ({"lock": True}, set()),
    ],
)  # fmt: skip
def test_a_change_refreshes_exactly_the_views_that_show_it(
    panel: RopePanel, change: dict[str, Any], expected: set[str]
) -> None:
    assert set(panel.views) == ALL_VIEWS
    assert _refreshed(panel, change) == expected


def test_curves_are_not_recomputed_when_m_moves(shown: RopePanel) -> None:
    shown.state.update({"range_max": 100000, "dim": 512})
    shown.settle()
    key, curve = shown._curves.last_key, shown._curves.last
    shown.state.set("m", 54321)
    shown.refresh_now()
    assert shown._curves.last_key is key and shown._curves.last is curve
    xs, _ = shown.curve_dots.getData()
    assert xs[0] == 54321 - 2 and shown.distance_line.value() == 54319


def test_view_data_is_finite_and_matches_the_state(panel: RopePanel) -> None:
    panel.state.update({"m": 40, "n": 11, "dim": 16, "pair": 3, "seed": 5, "range_max": 100})
    data = panel.data()
    assert set(data) == ALL_VIEWS
    for view, series in data.items():
        assert series, f"{view} records nothing"
        for name, s in series.items():
            assert np.all(np.isfinite(s.values)), (view, name)
            assert s.label, (view, name)
    r = panel.readouts()
    assert data["invariance"]["score"].values == pytest.approx(r["score"])
    assert data["distance_marker"]["scores"].values == pytest.approx([r["score"], r["score_qk"]])
    assert data["curve_formula"]["decay_bound"].values == pytest.approx(r["decay_bound"])
    assert data["pair_readout"]["theta"].values == pytest.approx(1e4 ** (-6 / 16))
    assert data["layouts"]["scores"].values == pytest.approx(
        [r["score_interleaved"], r["score_half"], r["score_half_permuted"]]
    )
    assert data["circle"]["q_pair_rotated"].values == pytest.approx(r["q_pair_rotated"])
    curves = data["curves"]
    xs = curves["distance"].values
    assert list(xs) == list(range(-100, 101))  # few distances: one per point, min = max
    assert curves["score_min"].values == pytest.approx(curves["score_max"].values)
    for j in (0, 129, 200):
        expected = _score_closed_form(r["q"], r["k"], xs[j], 1e4)
        assert curves["score_max"].values[j] == pytest.approx(expected, abs=1e-9)
    k2 = sum(x * x for x in r["k"])
    assert curves["score_qk_max"].values[100] == pytest.approx(k2)
    assert np.all(data["decay"]["bound_max"].values >= np.abs(curves["score_max"].values) - 1e-9)


def test_style_scale_and_dark_theme_reach_the_items(panel: RopePanel) -> None:
    from posenc_gui.widgets import style as style_mod

    panel.refresh_now()
    width = panel.score_curve.opts["pen"].widthF()
    try:
        style_mod.hub().set_style(style_mod.Style(scale=1.5, theme="dark"))
        panel.refresh_now()
        dark = style_mod.Style(theme="dark")
        assert panel.score_curve.opts["pen"].widthF() == pytest.approx(1.5 * width)
        assert panel.score_curve.opts["pen"].color().name() == dark.color("query").lower()
        assert panel.k_after.opts["pen"].color().name() == dark.color("key").lower()
        thick = style_mod.WIDTHS["thick"]
        assert panel.bound_curve.opts["pen"].widthF() == pytest.approx(1.5 * thick)
        title = panel.decay_plot.getPlotItem().titleLabel.text
        assert dark.color("query")[:7] in title and dark.color("key")[:7] in title
        assert dark.color("bad")[:7] in panel.layout_label.text()
    finally:
        style_mod.hub().set_style(style_mod.Style())
    panel.refresh_now()
    assert panel.score_curve.opts["pen"].widthF() == pytest.approx(width)


def test_no_legend_covers_the_data(panel: RopePanel) -> None:
    for plot in (panel.curve_plot, panel.decay_plot):
        assert plot.getPlotItem().legend is None
    # the decay plot's title names the colours instead, the y range leaves room for the bound
    assert "bound eq. (37)" in panel.decay_plot.getPlotItem().titleLabel.text
    _, hi = panel.decay_plot.getPlotItem().getViewBox().viewRange()[1]
    assert 10**hi > panel.data()["decay"]["bound_max"].values.max()


def test_tip_labels_do_not_overlap_at_the_origin(shown: RopePanel) -> None:
    """At m = n = 0 the arrows before and after rotation coincide (and with q = k all four):
    the four tip labels are still apart, inside the view, each next to its own tip."""
    shown.state.update({"m": 0, "n": 0, "vectors": "q=k"})
    shown.refresh_now()
    QApplication.processEvents()
    spots = shown.data()["circle"]["tip_labels"].values
    rects = [shown.tip_texts[k].scene_text_rect() for k in ("Rq", "Rk", "q", "k")]
    for i in range(4):
        for j in range(i):
            inter = rects[i].intersected(rects[j])
            assert inter.isEmpty() or min(inter.width(), inter.height()) < 1.0
    vb = shown.circle_plot.getPlotItem().getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    assert np.all((spots[:, 0] > x0) & (spots[:, 0] < x1) & (spots[:, 1] > y0) & (spots[:, 1] < y1))
    r = shown.readouts()
    big = max(r["q_pair_norm"], r["k_pair_norm"])
    tip = shown.data()["circle"]["q_pair"].values
    # near: within the circle's radius of the tip (not left at the origin or an edge)
    assert math.dist(spots[2], tip) < big


def test_circle_is_framed_to_what_it_shows(shown: RopePanel) -> None:
    """The circles (radius |q| or |k|) and a label's room past them fill the view's shorter
    side: the range is not a round number far above the vectors."""
    shown.refresh_now()
    r = shown.readouts()
    big = max(r["q_pair_norm"], r["k_pair_norm"])
    vb = shown.circle_plot.getPlotItem().getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    half = min(x1 - x0, y1 - y0) / 2
    side = min(vb.width(), vb.height())
    room = 60.0 / side * 2 * half  # at most ~60 px of label room past the circle
    assert big < half <= 1.2 * (1.03 * big + room)


def test_long_range_bound_comes_from_the_worker_thread(shown: RopePanel, qtbot: QtBot) -> None:
    shown.state.update({"range_max": 100000, "dim": 512})
    shown.refresh_now()
    assert not shown.bound_curve.isVisible()  # on its way, not a stale bound
    assert "computing" in shown.decay_plot.getPlotItem().titleLabel.text
    qtbot.waitUntil(lambda: shown.bound_curve.isVisible(), timeout=600_000)  # nice 19
    decay = shown.data()["decay"]
    assert np.all(decay["bound_max"].values >= decay["abs_score_max"].values - 1e-9)
    half = 256
    peak = shown.readouts()["bound_coefficient"] * half * (half + 1) / 2
    assert decay["bound_max"].values.max() == pytest.approx(peak, rel=1e-9)  # r = 0 is drawn
    # a newer request supersedes a running one: latest wins
    shown.state.set("base", 500.0)
    shown.refresh_now()
    shown.state.set("base", 50_000.0)
    shown.refresh_now()
    qtbot.waitUntil(lambda: shown.bound_curve.isVisible(), timeout=600_000)  # nice 19
    shown.settle()
    key = shown.bound_job.wanted
    assert key is not None and key[1] == 50_000.0


def test_lock_shows_the_kept_value_in_the_spin_box(panel: RopePanel) -> None:
    panel.state.update({"m": 3, "n": 0, "lock": True})
    m_spin = panel.findChild(QSpinBox, "m_spin")
    m_spin.setValue(0)  # the lock keeps m at 3 (n cannot go below 0)
    assert panel.state.as_int("m") == 3
    assert m_spin.value() == 3


def test_a_change_that_shows_nothing_new_touches_no_item(shown: RopePanel) -> None:
    """vectors = random: the typed components change no number, so the views that declare them
    refresh (honest inputs) but set no data, no text and no range: nothing is repainted."""
    shown.refresh_now()
    curve = shown.score_curve.getData()[0]
    html = {w: w.text() for w in (shown.invariance_label, shown.layout_label)}
    skipped = {name: v.skip_count for name, v in shown.views.items()}
    shown.state.set("q0", 2.5)
    shown.refresh_now()
    for view in ("circle", "curves", "decay", "layouts", "invariance", "curve_formula"):
        assert shown.views[view].skip_count == skipped[view] + 1, view
    assert shown.score_curve.getData()[0] is curve
    assert all(w.text() == h for w, h in html.items())
    # the data of the skipped views is still complete
    assert set(shown.data()["curves"]) >= {"distance", "score_min", "score_max"}
    # typed: the same component redraws the circle
    shown.state.set("vectors", "typed")
    shown.refresh_now()
    circle = shown.views["circle"].skip_count
    shown.state.set("q0", 1.5)
    shown.refresh_now()
    assert shown.views["circle"].skip_count == circle
    xs, _ = shown.q_before.getData()
    assert xs[1] == pytest.approx(1.5)


def test_moving_m_resets_only_the_items_that_move(shown: RopePanel) -> None:
    """m rotates R_m q: its arrow and arc are set again, the circles and k's items are not."""
    shown.refresh_now()
    before = {
        name: getattr(shown, name).getData()[0]
        for name in ("q_circle", "k_circle", "q_before", "k_before", "k_after", "k_arc",
                     "q_after", "q_arc")
    }  # fmt: skip
    shown.state.set("m", 77)
    shown.refresh_now()
    for name, xs in before.items():
        same = getattr(shown, name).getData()[0] is xs
        assert same == (name not in ("q_after", "q_arc")), name


def test_large_score_matrix_from_cached_tables(
    panel: RopePanel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window's row comes from cached cos/sin tables: it equals rope_scores at large m, n,
    and a step of m computes no RoPE rotation with torch."""
    panel.state.update({"m": 90_000, "n": 70_123, "window": 512, "dim": 512, "seed": 4})
    panel.refresh_now()
    r = panel.readouts()
    m0, n0 = r["window_m_start"], r["window_n_start"]
    q, k = torch.tensor(r["q"]), torch.tensor(r["k"])
    rows = torch.tensor([m0, m0 + 7.0, m0 + 511])
    full = core.rope_scores(q, k, rows, torch.arange(n0, n0 + 512.0)).numpy()
    mat = panel.data()["matrix"]["matrix"].values
    assert mat[[0, 7, 511]] == pytest.approx(full, rel=1e-5, abs=1e-5)
    calls: list[str] = []
    from posenc_gui.panels.rope import curves, matrix

    for name in ("rope_score_range", "apply_rope"):
        for mod in (core, curves, matrix):
            if hasattr(mod, name):
                orig = getattr(mod, name)

                def counted(*a: Any, _n: str = name, _f: Any = orig, **kw: Any) -> Any:
                    calls.append(_n)
                    return _f(*a, **kw)

                monkeypatch.setattr(mod, name, counted)
    panel.state.set("m", 90_300)
    panel.refresh_now()
    assert calls == []
    assert panel.data()["matrix"]["window_start"].values[0] == 90_300 - 256


def test_readout_accessible_text_is_the_stripped_html(panel: RopePanel) -> None:
    from posenc_gui.widgets.text import strip_tags

    panel.state.update({"m": 123, "n": 45})
    panel.refresh_now()
    for label in (panel.invariance_label, panel.layout_label, panel.curve_formula,
                  panel.circle_formula, panel.pair_label):  # fmt: skip
        assert label.accessibleDescription() == strip_tags(label.text())
    odd = "a<b>b</b> c&nbsp;d > e <i"
    panel.pair_label.set_html(odd)
    assert panel.pair_label.accessibleDescription() == strip_tags(odd)


def test_axes_paint_from_a_cache_that_marker_moves_keep(shown: RopePanel) -> None:
    """Axes (their grids span the view) are cached pixmaps; moving m keeps the circle's and
    the curve plot's tick pictures: the markers repaint their own region only."""
    from PySide6.QtWidgets import QGraphicsItem

    plots = (shown.circle_plot, shown.curve_plot, shown.decay_plot, shown.matrix_plot)
    axes = [p.getPlotItem().getAxis(side) for p in plots for side in ("left", "bottom")]
    assert all(a.cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache for a in axes)
    shown.state.set("m", 6)
    shown.refresh_now()
    QApplication.processEvents()
    shown.grab()  # every axis painted (its picture made)
    kept = axes[:6]  # circle, score curve and decay axes: m moves markers only
    pictures = [a.picture for a in kept]
    assert all(p is not None for p in pictures)
    shown.state.set("m", 7)
    shown.refresh_now()
    QApplication.processEvents()
    assert [a.picture for a in kept] == pictures


def _rendered(doc: Any, width: int) -> QImage:
    from PySide6.QtGui import QPainter

    doc.setTextWidth(width)
    img = QImage(width, math.ceil(doc.size().height()), QImage.Format.Format_ARGB32)
    img.fill(0xFFFFFFFF)
    painter = QPainter(img)
    doc.drawContents(painter)
    painter.end()
    return img


def test_readout_values_replaced_in_place_render_as_the_text(shown: RopePanel) -> None:
    """Position and pair steps replace the read-outs' numbers in place (no HTML parsed); the
    document then looks exactly like one built from the label's text."""
    from PySide6.QtGui import QTextDocument

    labels = (shown.invariance_label, shown.layout_label, shown.curve_formula,
              shown.circle_formula, shown.pair_label)  # fmt: skip
    parsed = {w: w.parsed for w in labels}
    for change in ({"m": 6}, {"m": 1234}, {"n": 99_999}, {"pair": 17}, {"m": 7, "n": 7},
                   {"pair": 3}, {"n": 8}):  # fmt: skip
        shown.state.update(change)
        shown.refresh_now()
    assert all(w.edited > 0 for w in labels)
    assert shown.invariance_label.parsed == parsed[shown.invariance_label]
    assert shown.layout_label.parsed == parsed[shown.layout_label]
    for w in labels:
        fresh = QTextDocument()
        fresh.setDocumentMargin(w._doc.documentMargin())
        fresh.setDefaultFont(w._doc.defaultFont())
        fresh.setHtml(w.text())
        assert fresh.toPlainText() == w._doc.toPlainText()
        assert _rendered(fresh, 420) == _rendered(w._doc, 420), w.objectName()
        fresh.setTextWidth(130)  # narrow: the heights known before the edits are stale
        assert w._height_at(130) == math.ceil(fresh.size().height()), w.objectName()
    r = shown.readouts()
    from posenc_gui.widgets.fmt import signed

    assert signed(r["score"], 8) in shown.invariance_label.text()


def test_hidden_axes_set_no_label_when_the_window_moves(
    shown: RopePanel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Moving the matrix window re-labels no axis (hidden top/right axes have no SI prefix)."""
    calls: list[str] = []
    orig = pg.AxisItem._updateLabel

    def counted(self: pg.AxisItem) -> None:
        calls.append(self.orientation)
        orig(self)

    monkeypatch.setattr(pg.AxisItem, "_updateLabel", counted)
    for m in (5_000, 17_000, 29_000):
        shown.state.set("m", m)
        shown.refresh_now()
    assert [c for c in calls if c in ("top", "left", "bottom")] == []


def test_background_bound_runs_at_low_priority(shown: RopePanel, qtbot: QtBot) -> None:
    """The worker thread yields the cores to the GUI thread (nice 19 on Linux).

    Waits for the job to start (the worker's set-up, which lowers its priority, ran), not for
    it to end: at nice 19 on a busy machine it may wait long for a core, which is its purpose.
    """
    import os
    import sys
    import threading

    shown.state.update({"range_max": 100000, "dim": 512})
    shown.refresh_now()
    job = shown.bound_job.future
    assert job is not None
    qtbot.waitUntil(lambda: job.running() or job.done(), timeout=600_000)
    if sys.platform.startswith("linux"):
        workers = [t for t in threading.enumerate() if t.name.startswith("rope-bound")]
        assert workers and all(t.native_id is not None for t in workers)
        for t in workers:
            assert os.getpriority(os.PRIO_PROCESS, t.native_id) == 19  # type: ignore[arg-type]
        assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) != 19
    shown.stop_work()  # cancelled and joined: no worker thread is left behind
    assert not [t for t in threading.enumerate() if t.name.startswith("rope-bound")]


def test_markers_are_painted_at_their_data(shown: RopePanel) -> None:
    """The distance and matrix markers (pre-rendered dots) sit on (m − n, score) and (n, m)."""
    from posenc_gui.widgets import style as style_mod

    shown.state.update({"m": 40, "n": 25})
    shown.refresh_now()
    QApplication.processEvents()
    image = shown.grab().toImage()
    ink = style_mod.hub().style.qcolor("ink")
    r = shown.readouts()
    for plot, (x, y) in (
        (shown.curve_plot, (15.0, r["score"])),
        (shown.matrix_plot, (25.5, 40.5)),
    ):
        vb = plot.getPlotItem().getViewBox()
        at = plot.mapTo(shown, plot.mapFromScene(vb.mapViewToScene(QPointF(x, y))))
        px = image.pixelColor(at.x(), at.y())
        assert abs(px.red() - ink.red()) + abs(px.green() - ink.green()) <= 30, plot.objectName()
        assert abs(px.blue() - ink.blue()) <= 15


@pytest.mark.parametrize(
    ("dim", "base", "start", "count", "layout"),
    [(64, 1e4, -256, 513, "interleaved"), (512, 500.0, -100_000, 200_001, "half"),
     (8, 1e6, 99_000, 1_023, "interleaved"), (2, 1e4, 3, 1, "half")],
)  # fmt: skip
def test_panel_score_ranges_equal_the_core_reference(
    dim: int, base: float, start: int, count: int, layout: str
) -> None:
    """The panel's numpy scores from cached tables equal core.rope.rope_score_range, and its
    per-column envelope equals core.rope.minmax_bins."""
    from posenc_gui.core.rope import minmax_bins, rope_complex_pairs, rope_score_range
    from posenc_gui.core.rope_rows import minmax_runs as _minmax
    from posenc_gui.core.rope_rows import rope_score_row as _score_range

    gen = torch.Generator().manual_seed(dim)
    q, k = torch.randn(2, dim, dtype=torch.float64, generator=gen)
    h = (rope_complex_pairs(q, layout) * rope_complex_pairs(k, layout).conj()).numpy()  # type: ignore[arg-type]
    ours = _score_range(h, base, start, count)
    ref = rope_score_range(q, k, start, count, base=base, layout=layout).numpy()  # type: ignore[arg-type]
    assert ours.shape == (count,)
    assert np.max(np.abs(ours - ref)) <= 1e-9 * max(1.0, float(np.abs(ref).max()))
    for group in (1, 7, 400):
        lo, hi = _minmax(ours, group)
        rlo, rhi = minmax_bins(torch.from_numpy(ours), group)
        assert np.array_equal(lo, rlo.numpy()) and np.array_equal(hi, rhi.numpy())


def test_circle_lines_are_bare_curves(panel: RopePanel) -> None:
    """Every line is a house PixelCurve (segments drawn in pixels, no PlotDataItem or
    PlotCurveItem bookkeeping): the circle's, the matrix diagonal and the distance curves. The
    lines keep their pixels while a step leaves them alone (markers move over them) and are
    drawn directly by a step that changes them."""
    from PySide6.QtWidgets import QGraphicsItem

    lines = ("q_circle", "k_circle", "q_arc", "k_arc", "between_arc", "q_before", "k_before",
             "q_after", "k_after", "diagonal_line")  # fmt: skip
    for name in lines:
        assert isinstance(getattr(panel, name), styled.PixelCurve), name
    # an arrow: its shaft and the two strokes of its head, no NaN break (as connect="finite")
    xs, ys = panel.q_before.getData()
    assert np.isfinite(xs).all() and np.isfinite(ys).all()
    assert list(panel.q_before.opts["connect"]) == [True, False, True, True, False]
    assert (xs[1], ys[1]) == (xs[3], ys[3])  # the head's strokes meet at the tip
    # the distance curves: house PixelCurves (segments drawn untransformed)
    curves = ("score_curve", "qk_curve", "score_band", "qk_band", "abs_curve", "abs_qk_curve",
              "bound_curve")  # fmt: skip
    for name in curves:
        assert isinstance(getattr(panel, name), styled.PixelCurve), name
    # their pixels are kept while the markers move over them (m, n)...
    panel.state.set("m", panel.state.as_int("m") + 1)
    panel.refresh_now()
    for name in curves:
        assert getattr(panel, name).cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache
    # ... and not rendered into a new pixmap by a step that changes them (those shown)
    panel.state.set("seed", panel.state.as_int("seed") + 1)
    panel.refresh_now()
    for name in curves:
        if getattr(panel, name).isVisible():
            assert getattr(panel, name).cacheMode() == QGraphicsItem.CacheMode.NoCache, name
    assert panel.q_circle.cacheMode() == QGraphicsItem.CacheMode.NoCache
    # a step of m: R_m q and its arc are drawn directly, the lines it leaves alone are kept
    panel.state.set("m", panel.state.as_int("m") + 1)
    panel.refresh_now()
    cached = QGraphicsItem.CacheMode.DeviceCoordinateCache
    for name in lines:
        assert (getattr(panel, name).cacheMode() == cached) == (
            name not in ("q_after", "q_arc", "between_arc", "diagonal_line")
        ), name
    panel.state.set("range_max", 100_000)
    panel.refresh_now()
    assert panel.score_band.opts["connect"] == "pairs" and not panel.score_band.opts["antialias"]
    assert panel.score_band.isVisible() and not panel.score_curve.isVisible()


def test_steady_limits_change_only_when_the_data_leaves_their_band() -> None:
    from posenc_gui.widgets.render.steady import steady_limit as _steady

    assert _steady(0.83, None, 2.0) == nice_ceil(0.83) == 1.0
    # kept while the data fits and fills more than 1/slack of it
    assert _steady(0.6, 1.0, 2.0) == 1.0
    assert _steady(1.0, 1.0, 2.0) == 1.0
    # out of the band: the nice limit of the data
    assert _steady(1.01, 1.0, 2.0) == nice_ceil(1.01)
    assert _steady(0.45, 1.0, 2.0) == nice_ceil(0.45)


def test_steady_ranges_keep_the_axes_over_small_data_changes(shown: RopePanel) -> None:
    """A seed step whose data fits the shown ranges moves no axis; every range covers its
    data (the matrix level its window, the score axis its curves)."""
    p = shown
    for seed in range(1, 8):
        p.state.set("seed", seed)
        p.refresh_now()
        level = p._level.value
        mat = p.data()["matrix"]["matrix"].values
        assert float(np.abs(mat).max()) <= level * (1 + 1e-6)
        assert tuple(p.matrix_bar.levels()) == (-level, level)
        assert level <= 2 * float(np.abs(mat).max()) or level == nice_ceil(np.abs(mat).max())
        lo, hi = p.curve_plot.getPlotItem().getViewBox().viewRange()[1]
        d = p.data()["curves"]
        top = max(float(np.abs(d[k].values).max()) for k in ("score_min", "score_max"))
        assert top <= hi and lo == -hi


def test_axis_lines_are_painted_as_before(shown: RopePanel) -> None:
    """The tick and axis lines drawn as 1-px rectangles give the pixels of pyqtgraph's own
    lines (a translucent 1-px line is slow to blend in Qt's raster engine); an axis with a grid
    leaves its tick lines to the plot's GridLines (tested with the house axes)."""
    from PySide6.QtGui import QPainter

    for axis in (
        shown.decay_plot.getPlotItem().getAxis("left"),
        shown.circle_plot.getPlotItem().getAxis("bottom"),
    ):
        assert isinstance(axis, HouseAxis)  # the house's paint
        rect = axis.boundingRect().toAlignedRect()
        images = []
        for own in (True, False):
            axis.picture = None
            image = QImage(rect.width() + 2, rect.height() + 2, QImage.Format.Format_ARGB32)
            image.fill(0)
            painter = QPainter(image)
            painter.translate(-rect.x() + 0.3, -rect.y() + 0.3)
            if own:
                axis.paint(painter, None, None)
            else:  # pyqtgraph's AxisItem, lines and labels in one picture
                painter.setFont(axis.style["tickFont"])
                specs = axis.generateDrawSpecs(painter)
                assert specs is not None
                axis_spec, tick_specs, text_specs = specs
                if axis.grid_drawer() is not None:  # its tick lines are the grid's to draw
                    tick_specs = []
                pg.AxisItem.drawPicture(axis, painter, axis_spec, tick_specs, text_specs)
            painter.end()
            images.append(image)
        assert images[0] == images[1]
        axis.picture = None


# -- cost of a step (mechanism, not clock) ------------------------------------------------------


def test_a_seed_dragged_back_reuses_its_curves(
    shown: RopePanel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The per-column envelopes of the last few (q, k, range) are kept: dragging the seed
    back to a value shown a few steps ago recomputes no score, and shows the same numbers."""
    from posenc_gui.panels.rope import curves, matrix

    shown.state.update({"seed": 3})
    shown.refresh_now()
    first = {k: s.values.copy() for k, s in shown.data()["curves"].items()}
    shown.state.set("seed", 4)
    shown.refresh_now()
    calls: list[int] = []
    original = curves.rope_score_row

    def counted(*a: Any, **kw: Any) -> Any:
        calls.append(1)
        return original(*a, **kw)

    for module in (curves, matrix):
        monkeypatch.setattr(module, "rope_score_row", counted)
    shown.state.set("seed", 3)
    shown.refresh_now()
    again = shown.data()["curves"]
    # the matrix view still computes its own row (one call); the curves none
    assert len(calls) == 1
    for name, values in first.items():
        assert np.array_equal(again[name].values, values), name


def test_matrix_in_colour_titles_from_pixels(shown: RopePanel) -> None:
    """The score matrix is kept in 32-bit colour once rendered (Qt would convert the indexed
    image at every paint); titles and axis labels paint from their pixels."""
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QGraphicsItem

    shown.grab()
    assert shown.matrix_image.qimage.format() == QImage.Format.Format_RGB32
    cached = QGraphicsItem.CacheMode.DeviceCoordinateCache
    for plot in (shown.circle_plot, shown.curve_plot, shown.decay_plot, shown.matrix_plot):
        assert plot.getPlotItem().titleLabel.item.cacheMode() == cached


def test_circle_notes_move_without_rendering_their_text_again(shown: RopePanel) -> None:
    """The notes at the arrow tips and on the arcs are rendered once per text and style: steps
    of m and n move them (centred on their new points) without a new render; a restyle
    renders them again."""
    notes = [*shown.tip_texts.values(), shown.q_arc_text, shown.k_arc_text, shown.between_text]
    shown.grab()
    renders = [note.renders for note in notes]
    assert all(r >= 1 for r in renders)
    before = shown.tip_texts["Rq"].point()
    for m in (9, 14, 23):
        shown.state.set("m", m)
        shown.refresh_now()
        shown.grab()
    assert shown.tip_texts["Rq"].point() != before  # R_m q's note followed the arrow
    assert [note.renders for note in notes] == renders
    assert shown.tip_texts["Rq"].html() == "R<sub>m</sub>q"
    # centred on its point: the half extents of its bounds (pixels) cover the text's size
    note = shown.tip_texts["q"]
    w, h = note.text_size()
    px, py = note.pixelVectors()
    rect = note.boundingRect()
    assert rect.width() / px.length() >= w and rect.height() / py.length() >= h
    assert rect.center().x() == pytest.approx(note.point()[0])
    shown.book.apply(shown.book.style)  # a restyle (font, colour): rendered again
    shown.grab()
    assert all(n.renders > r for n, r in zip(notes, renders, strict=True))


def _pyqtgraphs_pixels(image: pg.ImageItem) -> QImage:
    """pyqtgraph's render of ``image`` (an indexed image) in 32-bit colour, as Qt converts it
    at each paint."""
    image.render()
    assert image.qimage.format() == QImage.Format.Format_Indexed8
    return image.qimage.convertToFormat(QImage.Format.Format_RGB32)


def test_matrix_renders_the_pixels_of_pyqtgraphs_render(shown: RopePanel) -> None:
    """The heat map's own render to 32-bit colour gives the pixels of pyqtgraph's indexed
    render converted by the house (the usual path), for the shown matrix and an edge case
    (values past the levels, the level range empty); an image with NaNs goes the usual way."""
    item = shown.matrix_image
    shown.grab()
    levels = tuple(item.levels)
    mat = shown.data()["matrix"]["matrix"].values
    reference = pg.ImageItem(axisOrder="row-major")
    reference.setLookupTable(item.lut)
    edge = np.array([[-5.0, 0.0, 5.0], [levels[0], levels[1], 0.1]], dtype=np.float32)
    for image, lv in ((mat, levels), (edge, levels), (edge, (1.0, 1.0))):
        for target in (item, reference):
            target.setImage(image, autoLevels=False, levels=lv)
        item.render()
        ours, theirs = item.qimage, _pyqtgraphs_pixels(reference)
        assert ours.format() == theirs.format() == QImage.Format.Format_RGB32
        assert ours == theirs
    nan = edge.copy()
    nan[0, 0] = np.nan
    item.setImage(nan, autoLevels=False, levels=levels)
    item.render()
    assert item.qimage.format() == QImage.Format.Format_RGBA8888  # NaN: transparent cells
    # the shown matrix does not take pyqtgraph's path
    calls: list[int] = []
    usual = pg.functions_qimage.try_make_qimage

    def counted(*a: Any, **kw: Any) -> Any:
        calls.append(1)
        return usual(*a, **kw)

    pg.functions_qimage.try_make_qimage = counted
    try:
        item.setImage(mat, autoLevels=False, levels=levels)
        item.render()
        reference.setImage(mat, autoLevels=False, levels=levels)
        theirs = _pyqtgraphs_pixels(reference)
    finally:
        pg.functions_qimage.try_make_qimage = usual
    assert len(calls) == 1 and item.qimage == theirs


def test_each_derived_quantity_is_looked_up_once_a_flush(
    shown: RopePanel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The views of one flush share their lookups of derived quantities (each builds a key
    from the reprs of its inputs); a view still cannot read one it did not declare, and the
    next flush looks them up again (new values)."""
    from posenc_gui.widgets import views

    seen: list[str] = []
    original = views.Context._look_up  # builds the key of a derived quantity's inputs

    def counted(self: views.Context, d: views.Derived) -> Any:
        seen.append(d.name)
        return original(self, d)

    monkeypatch.setattr(views.Context, "_look_up", counted)
    for m in (40, 41):
        seen.clear()
        shown.state.set("m", m)
        shown.refresh_now()
        assert seen and len(seen) == len(set(seen)), seen
        assert "scores" in seen and "positions" in seen
    values = shown.state.values()
    memo = views.Memo(values)
    memo.get("scores", lambda: 1)  # looked up by another view of the flush
    ctx = views.Context("view 'x'", values, frozenset({"m"}), shown.viewset.derived,
                        shown.book.style, memo=memo)  # fmt: skip
    with pytest.raises(KeyError, match="does not declare"):
        ctx["scores"]


def test_readouts_repaint_without_the_grid_beneath(shown: RopePanel) -> None:
    """The read-outs fill their own background (the palette's): a step of m repaints them,
    not the plot grid (or side column) beneath them first."""
    from PySide6.QtCore import QEvent, QObject

    painted: list[str] = []

    class Paints(QObject):
        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                painted.append(obj.objectName())
            return False

    QApplication.processEvents()
    counter = Paints()
    QApplication.instance().installEventFilter(counter)  # type: ignore[union-attr]
    try:
        for m in (40, 41):
            shown.state.set("m", m)
            QApplication.processEvents()
            QApplication.processEvents()
    finally:
        QApplication.instance().removeEventFilter(counter)  # type: ignore[union-attr]
    assert {"invariance_readout", "figure_circle_formula", "figure_curve_formula"} <= set(painted)
    assert "plot_grid" not in painted


def test_fixed_width_values_keep_their_width(qtbot: QtBot) -> None:
    """_fixed writes every value of a magnitude range with the same characters count and
    advance (digits, + and − equally wide), and as fmt would at those decimals."""
    from PySide6.QtGui import QFont, QFontMetricsF

    from posenc_gui.panels.rope.text import deg as _deg
    from posenc_gui.panels.rope.text import fixed as _fixed
    from posenc_gui.widgets.fmt import num, signed

    rng = np.random.default_rng(0)
    metrics = QFontMetricsF(QFont("DejaVu Sans", 12))
    for digits, top in ((9, 1e4), (5, 1e2), (7, 1e4)):
        xs = rng.uniform(-top, top, 200)
        xs = xs[np.abs(xs) >= 1e-3]
        texts = {_fixed(float(x), digits) for x in xs}
        assert len({len(t) for t in texts if "\u202f" not in t}) == 1
        widths = {metrics.horizontalAdvance(t) for t in texts if "\u202f" not in t}
        assert len(widths) == 1, texts
    assert _fixed(2.7293522149, 9) == signed(2.7293522149, 8) == "+2.72935221"
    assert _fixed(-17.9080915312, 9) == "−17.9080915"
    assert _fixed(9.99999, 3) == "+10.0" and _fixed(0.5, 4, False) == num(0.5, 3)
    assert _fixed(0.0, 5) == "0.0000"
    assert {len(_deg(a)) for a in np.linspace(-math.pi + 1e-3, math.pi, 50)} == {8}
    assert {len(_deg(a, sign=False)) for a in np.linspace(0.0, 2 * math.pi - 1e-3, 50)} == {7}


def test_position_steps_draw_the_read_outs_values_over(shown: RopePanel) -> None:
    """A step of m or n whose values keep their digit counts edits no read-out's document:
    every changed value is drawn over the laid-out text (no subscript value, no value next to
    a line break or a leaning glyph), and the document then catches up to the label's text."""
    labels = (shown.invariance_label, shown.circle_formula, shown.curve_formula,
              shown.layout_label)  # fmt: skip
    shown.state.update({"m": 4321, "n": 1234})
    shown.refresh_now()
    QApplication.processEvents()
    shown.grab()
    for change in ({"m": 4322}, {"m": 4323}, {"n": 1235}, {"m": 4400, "n": 1300}):
        before = {w: (w.edited, w.drawn_over, w.parsed) for w in labels}
        shown.state.update(change)
        shown.refresh_now()
        for w in labels:
            edited, over, parsed = before[w]
            assert w.parsed == parsed, w.objectName()
            assert w.edited - edited == w.drawn_over - over == 1, (w.objectName(), change)
        QApplication.processEvents()


def test_a_pair_step_keeps_q_k_and_skips_the_curve_formula(shown: RopePanel) -> None:
    """vectors = random: a step of the pair leaves q and k alone. The "qk" quantity hands the
    views the same tensors (what is kept by their identity stays), the pair-free numbers
    (norms, eq. (37) coefficient) are those of q and k, and the formula under the score
    curves, which shows nothing of the pair, is not rebuilt. Typed: the pair makes q, k."""
    ctx_qk: list[Any] = []
    original = shown._make_qk

    def spy(ctx: Any) -> Any:
        out = original(ctx)
        ctx_qk.append(out)
        return out

    shown.viewset.derived["qk"].compute = spy  # type: ignore[method-assign]
    shown.state.set("pair", 3)
    shown.refresh_now()
    skipped = shown.views["curve_formula"].skip_count
    shown.state.set("pair", 7)
    shown.refresh_now()
    assert len(ctx_qk) == 2 and ctx_qk[0] is ctx_qk[1]
    assert shown.views["curve_formula"].skip_count == skipped + 1
    r = shown.readouts()
    q, k = (torch.tensor(r[x], dtype=torch.float64) for x in ("q", "k"))
    assert r["q_norm"] == float(torch.linalg.vector_norm(q))
    assert r["k_norm"] == float(torch.linalg.vector_norm(k))
    assert r["bound_coefficient"] == core.rope.rope_bound_coefficient(q, k)
    assert r["q_pair"] == [float(q[14]), float(q[15])]
    shown.state.update({"vectors": "typed", "q0": 2.0, "q1": -1.0})
    shown.refresh_now()
    shown.state.set("pair", 2)
    shown.refresh_now()
    assert ctx_qk[-1] is not ctx_qk[0]
    r = shown.readouts()
    assert r["q"][4:6] == [2.0, -1.0] and r["q_pair"] == [2.0, -1.0]
    q, k = (torch.tensor(r[x], dtype=torch.float64) for x in ("q", "k"))
    assert r["q_norm"] == float(torch.linalg.vector_norm(q))
    assert r["bound_coefficient"] == core.rope.rope_bound_coefficient(q, k)


def test_matrix_is_the_toeplitz_matrix_of_its_row(shown: RopePanel) -> None:
    """The matrix is gathered from one row of scores: S[a, b] = row[a − b + size − 1], the
    diagonals constant, for windows of several sizes."""
    from posenc_gui.core.rope_rows import rope_score_row
    from posenc_gui.panels.rope.curves import pair_products

    for size in (8, 33, 64):
        shown.state.update({"window": size, "m": 500, "n": 120})
        shown.refresh_now()
        mat = shown.data()["matrix"]["matrix"].values
        m0, n0 = shown.data()["matrix"]["window_start"].values
        q, k = shown.viewset.derived["qk"].value
        h = pair_products(q, k, "interleaved")[0]
        row = rope_score_row(h, 10_000.0, m0 - n0 - size + 1, 2 * size - 1)
        expected = np.array(
            [[row[a - b + size - 1] for b in range(size)] for a in range(size)], dtype=np.float32
        )
        assert mat.shape == (size, size)
        assert np.array_equal(mat, expected)


def test_matrix_pixels_from_its_row(shown: RopePanel, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shown matrix is Toeplitz: its pixels are made from the colours of its row (values
    scaled and looked up 2·size − 1 times, not size² times), and they are the pixels of
    pyqtgraph's render of the matrix; a copy of the matrix (not the one shown) goes the
    element-wise way."""
    scaled = record_rescales(monkeypatch)
    item = shown.matrix_image
    reference = pg.ImageItem(axisOrder="row-major")
    reference.setLookupTable(item.lut)
    for size, m in ((8, 3), (100, 70_000), (257, 12)):
        shown.state.update({"window": size, "m": m})
        shown.refresh_now()
        scaled.clear()
        item.render()
        assert scaled == [(2 * size - 1,)]
        mat = shown.data()["matrix"]["matrix"].values
        reference.setImage(mat.copy(), autoLevels=False, levels=tuple(item.levels))
        theirs = _pyqtgraphs_pixels(reference)
        assert item.qimage == theirs
        item.setImage(mat.copy(), autoLevels=False, levels=tuple(item.levels))
        scaled.clear()
        item.render()
        assert scaled == [(size, size)] and item.qimage == theirs


def test_line_grid_counts_the_cells_a_rectangle_shares_with_lines() -> None:
    """A rectangle over a line touches its cells, one beside it none; a line whose key is
    unchanged keeps its cells (only what moved is rasterised again)."""
    from posenc_gui.widgets.render.occupancy import LineGrid

    grid = LineGrid()
    flat = (np.array([-1.0, 1.0]), np.array([0.0, 0.0]), "all")  # y = 0
    tall = (np.array([0.5, 0.5]), np.array([-1.0, 1.0]), "all")  # x = 0.5
    grid.rasterise([flat, tall], ["flat", "tall"], -1.0, -1.0, 0.1, 20, 20)
    hits = grid.hits(np.array([0.0, 0.0, -0.5, 0.5]), np.array([0.0, 0.5, 0.5, 0.5]), 0.1, 0.1)
    assert hits[0] > 0 and hits[1] == 0 and hits[2] == 0 and hits[3] > 0
    assert grid.rasterised == 2
    moved = (np.array([-0.5, -0.5]), np.array([-1.0, 1.0]), "all")  # x = -0.5
    grid.rasterise([flat, moved], ["flat", "moved"], -1.0, -1.0, 0.1, 20, 20)
    assert grid.rasterised == 3  # the flat line kept its cells
    hits = grid.hits(np.array([-0.5, 0.5]), np.array([0.5, 0.5]), 0.1, 0.1)
    assert hits[0] > 0 and hits[1] == 0


def test_a_step_of_m_rasterises_only_the_lines_it_moves(shown: RopePanel) -> None:
    shown.state.set("m", 6)
    shown.refresh_now()
    before = shown._circle_grid.rasterised
    shown.state.set("m", 7)
    shown.refresh_now()
    assert shown._circle_grid.rasterised - before == 3  # R_m q, its arc and the angle between
