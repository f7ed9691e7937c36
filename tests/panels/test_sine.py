"""Sine explorer: paired tests (state -> widgets/plots, widgets -> state) and its maths."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDoubleSpinBox, QSlider, QSpinBox, QWidget
from pytestqt.qtbot import QtBot

from posenc_gui.panels.sine import SinePanel
from posenc_gui.state import ParamState
from posenc_gui.state.sine import SineModel


@pytest.fixture
def panel(qtbot: QtBot) -> SinePanel:
    p = SinePanel(ParamState(SineModel))
    qtbot.addWidget(p)
    p.resize(1400, 900)
    return p


def test_readouts_closed_forms() -> None:
    values = SineModel.resolve({"amplitude": 1.5, "frequency": 2.0, "phase": 0.3, "cursor": 0.7})
    r = SineModel.readouts(values)
    theta = 2 * math.pi * 2.0 * 0.7 + 0.3
    assert r["period"] == pytest.approx(0.5)
    assert r["angular_frequency"] == pytest.approx(4 * math.pi)
    assert r["sin_value"] == pytest.approx(1.5 * math.sin(theta))
    assert r["cos_value"] == pytest.approx(1.5 * math.cos(theta))
    # cos is sin shifted by a quarter period
    shifted = SineModel.readouts({**values, "cursor": 0.7 + r["quarter_period"]})
    assert shifted["sin_value"] == pytest.approx(r["cos_value"])


def test_vector_is_the_paper_formula() -> None:
    values = SineModel.resolve({"dim": 8, "base": 10000.0, "position": 23})
    vec = SineModel.readouts(values)["vector"]
    expected = []
    for i in range(4):
        w = 10000.0 ** (-2 * i / 8)
        expected += [math.sin(23 * w), math.cos(23 * w)]
    assert vec == pytest.approx(expected, abs=1e-12)
    assert sum(v * v for v in vec) == pytest.approx(8 / 2)


def test_state_to_plots(panel: SinePanel) -> None:
    panel.state.update({"amplitude": 0.5, "frequency": 3.0, "phase": -1.0})
    panel.refresh_now()
    t, y = panel.sin_curve.getData()
    assert y == pytest.approx(0.5 * np.sin(2 * np.pi * 3.0 * t - 1.0))
    t, y = panel.cos_curve.getData()
    assert y == pytest.approx(0.5 * np.cos(2 * np.pi * 3.0 * t - 1.0))
    # the circle point is (A cos θ, A sin θ) at the cursor
    r = panel.readouts()
    x, y = panel.circle_dot.getData()
    assert (x[0], y[0]) == pytest.approx((r["cos_value"], r["sin_value"]))
    assert panel.cursor_line.value() == pytest.approx(panel.state.as_float("cursor"))


def test_state_to_widgets(panel: SinePanel) -> None:
    spin = panel.findChild(QDoubleSpinBox, "frequency_spin")
    slider = panel.findChild(QSlider, "frequency_slider")
    panel.state.set("frequency", 2.55)
    assert spin.value() == pytest.approx(2.55)
    assert slider.value() == round((2.55 - 0.1) / (5.0 - 0.1) * slider.maximum())


def test_widgets_to_state(panel: SinePanel, qtbot: QtBot) -> None:
    slider = panel.findChild(QSlider, "amplitude_slider")
    slider.setValue(slider.maximum())
    assert panel.state.as_float("amplitude") == pytest.approx(2.0)
    spin = panel.findChild(QDoubleSpinBox, "phase_spin")
    spin.setValue(1.25)
    assert panel.state.as_float("phase") == pytest.approx(1.25)
    # keyboard: focus the dim slider and press Right -> next even dimension
    dim_slider = panel.findChild(QSlider, "dim_slider")
    dim_slider.setFocus()
    qtbot.keyClick(dim_slider, Qt.Key.Key_Right)
    assert panel.state.as_int("dim") == 8


def test_dependent_limits_follow(panel: SinePanel) -> None:
    panel.state.update({"length": 100, "position": 90})
    pos_spin = panel.findChild(QSpinBox, "position_spin")
    panel.state.set("length", 30)
    assert panel.state.as_int("position") == 29
    assert pos_spin.maximum() == 29 and pos_spin.value() == 29


def test_bad_typed_value_is_rejected_and_reported(panel: SinePanel, qtbot: QtBot) -> None:
    spin = panel.findChild(QSpinBox, "dim_spin")
    before = panel.state.values()
    with qtbot.waitSignal(panel.message, timeout=1000) as blocker:
        spin.setValue(7)  # odd: not a valid model dimension
    assert "dim must be an even integer" in blocker.args[0]
    assert panel.state.values() == before
    assert spin.value() == before["dim"]


def test_dragging_the_cursor_line_moves_the_state(panel: SinePanel) -> None:
    panel.cursor_line.setValue(1.5)
    assert panel.state.as_float("cursor") == pytest.approx(1.5)
    panel.position_line.setValue(10.4)
    assert panel.state.as_int("position") == 10


def test_ladder_rows_and_marker(panel: SinePanel) -> None:
    panel.state.update({"dim": 16, "ladder_dims": 4, "position": 7, "length": 40})
    panel.refresh_now()
    rows = panel.data()["ladder"]
    assert [k for k in rows if k.startswith("pe_")] == ["pe_0", "pe_1", "pe_2", "pe_3"]
    xs, ys = panel.ladder_curves["sin"].getData()
    n = len(rows["position"].values)
    assert len(ys) == 2 * n  # rows 0 and 2, in the sine colour
    assert ys[:n] == pytest.approx(rows["pe_0"].values)
    xs, ys = panel.ladder_dots.getData()
    vec = panel.readouts()["vector"]
    offsets = [-2.6 * j for j in range(4)]
    assert list(xs) == [7.0] * 4
    assert ys == pytest.approx([o + v for o, v in zip(offsets, vec[:4], strict=True)])


def test_slider_drag_is_coalesced(panel: SinePanel, qtbot: QtBot) -> None:
    """Thousands of slider steps: latest value wins, far fewer refreshes than changes."""
    slider = panel.findChild(QSlider, "frequency_slider")
    panel.refresh_now()
    start = panel.refresh_count
    for v in range(slider.maximum() + 1):
        slider.setValue(v)
    qtbot.waitUntil(lambda: not panel.pending(), timeout=60_000)
    assert panel.refresh_count - start <= 2
    assert panel.state.as_float("frequency") == pytest.approx(5.0)
    _, y = panel.sin_curve.getData()
    t, _ = panel.sin_curve.getData()
    assert y == pytest.approx(np.sin(2 * np.pi * 5.0 * t + panel.state.as_float("phase")))


def test_every_control_is_labelled(panel: SinePanel) -> None:
    for p in SineModel.params:
        for suffix in ("slider", "spin"):
            w = panel.findChild(QWidget, f"{p.name}_{suffix}")
            assert w is not None, p.name
            assert w.accessibleName() and w.toolTip()


def test_ladder_aggregates_instead_of_subsampling(panel: SinePanel, qtbot: QtBot) -> None:
    """Issue "aggregate, don't subsample": with many more positions than pixels each pixel
    column of a row draws the exact min–max of all the positions it covers, so the row's
    extreme values over the visible range are always drawn (no point sampling that skips them).
    """
    panel.show()  # laid out: real pixel columns
    qtbot.waitExposed(panel)
    dim, base, shown = 16, 10000.0, 6
    panel.state.update({"dim": dim, "base": base, "length": 10_000, "ladder_dims": shown})
    panel.refresh_now()
    vb = panel.ladder_plot.getPlotItem().getViewBox()
    # zoomed in on a part of the positions: the bands cover what is visible
    vb.setXRange(1234.0, 8765.0, padding=0)
    panel.refresh_now()
    lo, hi = vb.viewRange()[0]
    first, last = math.ceil(max(lo, 0.0)), math.floor(min(hi, 9999.0))
    pixels = max(int(vb.width()), 200)
    assert last - first + 1 > 2 * pixels  # many more positions than pixels: aggregated
    p = np.arange(first, last + 1, dtype=np.float64)
    kinds = set()
    for role, js in (("sin", [0, 2, 4]), ("cos", [1, 3, 5])):
        bands = panel.ladder_bands[role]
        kinds.update(bands.row_kinds)
        assert bands.isVisible() and not panel.ladder_curves[role].isVisible()
        drawn = bands.envelope()
        assert len(drawn) == len(js)
        for j, (x, low, high) in zip(js, drawn, strict=True):
            omega = base ** (-2 * (j // 2) / dim)
            exact = np.sin(p * omega) if j % 2 == 0 else np.cos(p * omega)
            low = low + 2.6 * j + bands.pad  # back from the row's offset and the line width
            high = high + 2.6 * j - bands.pad
            assert len(x) <= pixels  # at most one column per pixel
            # the row's extremes over the visible range are drawn, exactly
            assert low.min() == pytest.approx(exact.min(), abs=1e-9)
            assert high.max() == pytest.approx(exact.max(), abs=1e-9)
            # and so is every column's own min–max, over all of its positions
            group = round(x[1] - x[0])
            starts = np.round(x - (group - 1) / 2).astype(int) - first
            assert starts[0] == 0 and starts[-1] + group >= len(p)
            col_min = np.minimum.reduceat(exact, starts)
            col_max = np.maximum.reduceat(exact, starts)
            np.testing.assert_allclose(low, col_min, rtol=0, atol=1e-9)
            np.testing.assert_allclose(high, col_max, rtol=0, atol=1e-9)
    # smooth rows are polygons, rows whose extremes jump from column to column are columns
    assert kinds == {"polygon", "columns"}
    # back to few positions: plain curves again
    panel.state.set("length", 40)
    panel.refresh_now()
    assert panel.ladder_curves["sin"].isVisible() and not panel.ladder_bands["sin"].isVisible()


def test_markers_are_drawn_where_their_data_is(panel: SinePanel, qtbot: QtBot) -> None:
    """The circle's point and the ladder's marker are painted, in their colours, at their data."""
    from PySide6.QtCore import QPointF

    from posenc_gui.widgets.style import Style

    panel.show()
    qtbot.waitExposed(panel)
    panel.refresh_now()
    st = Style()
    for plot, dots, role in (
        (panel.circle_plot, panel.circle_dot, "accent"),
        (panel.ladder_plot, panel.ladder_dots, "ink"),
    ):
        image = plot.grab().toImage()
        vb = plot.getPlotItem().getViewBox()
        xs, ys = dots.getData()
        assert len(xs) >= 1
        for x, y in zip(xs, ys, strict=True):
            scene = vb.mapViewToScene(QPointF(float(x), float(y)))
            px = plot.mapFromScene(scene)
            color = image.pixelColor(px.x(), px.y())
            want = st.qcolor(role)
            assert abs(color.red() - want.red()) < 40, (role, color.name())
            assert abs(color.green() - want.green()) < 40, (role, color.name())
            assert abs(color.blue() - want.blue()) < 40, (role, color.name())


def test_relayouts_do_not_lay_the_readouts_out_again(panel: SinePanel, qtbot: QtBot) -> None:
    """A new length changes the position control's range, and the side column is laid out
    again: the read-out block answers its heights from a cache instead of re-laying its text
    out for every width asked; a new text still gets its new height."""
    panel.show()
    qtbot.waitExposed(panel)
    label = panel.readout_label
    for length in (60, 70):  # every width the layout asks is seen once
        panel.state.set("length", length)
        qtbot.wait(5)
    calls = []
    doc = label._doc
    original = doc.setTextWidth
    doc.setTextWidth = lambda w: (calls.append(w), original(w))  # type: ignore[method-assign]
    try:
        for length in (60, 70, 60, 70):
            panel.state.set("length", length)
            qtbot.wait(5)
        assert calls == []
        width = label.width()
        before = label.heightForWidth(width)
        label.set_html(label.text() + "<br>one more line")
        assert label.heightForWidth(width) > before
    finally:
        doc.setTextWidth = original  # type: ignore[method-assign]


def test_ladder_changes_never_resize_it_and_paint_it_once(panel: SinePanel, qtbot: QtBot) -> None:
    """New frequencies keep the ladder's geometry (its right axis is as wide as the widest
    label), and a new range is painted in one pass (the view transform is set before the
    paint, not during it, which would schedule a second paint of the whole plot)."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtGui import QFontMetricsF
    from PySide6.QtWidgets import QApplication

    from posenc_gui.widgets.fmt import sig

    panel.show()
    qtbot.waitExposed(panel)
    qtbot.wait(10)
    vb = panel.ladder_plot.getPlotItem().getViewBox()
    right = panel.ladder_plot.getAxis("right")
    width = vb.width()
    fm = QFontMetricsF(right.style["tickFont"] or panel.font())
    for values in ({"base": 10.0}, {"base": 1e7}, {"dim": 2}, {"dim": 1024, "ladder_dims": 16}):
        panel.state.update(values)
        panel.refresh_now()
        QApplication.processEvents()
        assert vb.width() == width
        omega = panel.readouts()["omega"]
        for i in range(panel.state.as_int("ladder_dims") // 2):
            label = f"ω₇ = {sig(omega[i])}"
            assert fm.horizontalAdvance(label) < right.width()

    paints = []

    class Count(QObject):
        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                paints.append(obj)
            return False

    counter = Count()
    viewport = panel.ladder_plot.viewport()
    viewport.installEventFilter(counter)
    try:
        for length in (3000, 40, 500):
            paints.clear()
            panel.state.set("length", length)
            for _ in range(4):
                QApplication.processEvents()
            assert len(paints) == 1, length
    finally:
        viewport.removeEventFilter(counter)


def test_waves_are_sampled_finely_enough_for_their_frequency(panel: SinePanel) -> None:
    """A slow wave gets fewer samples, never fewer than 40 a period (48 below the cap): the
    chords stray from the sine by under 0.35 % of the amplitude."""
    from posenc_gui.state.sine import T_VIEW, WAVE_SAMPLES, wave_samples

    lo, hi = SineModel.param("frequency").minimum, SineModel.param("frequency").maximum
    assert lo is not None and hi is not None
    for f in np.linspace(lo, hi, 60):
        n = wave_samples(float(f))
        assert n <= WAVE_SAMPLES
        step = TAU_ * float(f) * T_VIEW / (n - 1)  # phase advance per segment
        assert 1 - math.cos(step / 2) < 0.0035, (f, n)
    assert wave_samples(0.5) < WAVE_SAMPLES  # slow waves are lighter to draw
    for f in (0.5, 1.0, 4.9):
        panel.state.set("frequency", f)
        panel.refresh_now()
        t, ys = panel.sin_curve.getData()
        assert len(t) == wave_samples(f) and t[0] == 0.0 and t[-1] == T_VIEW
        amp = panel.state.as_float("amplitude")
        np.testing.assert_allclose(ys, amp * np.sin(TAU_ * f * t + panel.state.as_float("phase")))


TAU_ = 2 * math.pi


def test_the_amplitude_circle_is_drawn_at_the_amplitude(panel: SinePanel, qtbot: QtBot) -> None:
    """The ring is painted in ink at radius A (four points on it) and not at its centre."""
    from PySide6.QtCore import QPointF

    from posenc_gui.widgets.style import Style

    panel.show()
    qtbot.waitExposed(panel)
    want = Style().qcolor("ink")
    for amp in (0.7, 1.6):
        panel.state.set("amplitude", amp)
        panel.refresh_now()
        assert panel.amp_circle.radius == amp
        plot = panel.circle_plot
        for item in (panel.radius_line, panel.sin_proj, panel.cos_proj, panel.circle_dot):
            item.setVisible(False)  # only the ring and the guide circle stay
        image = plot.grab().toImage()
        vb = plot.getPlotItem().getViewBox()
        near = []  # per point: the darkest pixel within 2 px of where the ring should be
        points = [(amp, 0.0), (-amp, 0.0), (0.0, -amp), (amp / math.sqrt(2), amp / math.sqrt(2))]
        for x, y in [*points, (amp / 2, -amp / 2)]:
            px = plot.mapFromScene(vb.mapViewToScene(QPointF(x, y)))
            around = [
                image.pixelColor(px.x() + dx, px.y() + dy)
                for dx in range(-2, 3)
                for dy in range(-2, 3)
            ]
            near.append(min(around, key=lambda c: c.red() + c.green() + c.blue()))
        for c in near[:-1]:  # on the ring: ink
            assert max(abs(c.red() - want.red()), abs(c.green() - want.green())) < 40, (amp, c)
        assert near[-1].red() > 150  # inside, off the lines: background
        for item in (panel.radius_line, panel.sin_proj, panel.cos_proj, panel.circle_dot):
            item.setVisible(True)


def test_lines_keep_their_pixels_only_on_steps_that_leave_them_alone(panel: SinePanel) -> None:
    """A step that sets a line draws it directly (a cached line would render a new pixmap and
    blit it); a step that moves something over it blits the line's kept pixels."""
    from PySide6.QtWidgets import QGraphicsItem

    cached, direct = QGraphicsItem.CacheMode.DeviceCoordinateCache, QGraphicsItem.CacheMode.NoCache
    waves = [panel.sin_curve, panel.cos_curve]
    ladder = list(panel.ladder_curves.values())
    panel.flush()
    panel.state.set("dim", 16)  # new ladder lines, the waves untouched
    panel.flush()
    assert all(c.cacheMode() == direct for c in ladder)
    assert all(c.cacheMode() == cached for c in waves)
    panel.state.set("phase", 0.5)  # new waves, the ladder untouched
    panel.flush()
    assert all(c.cacheMode() == direct for c in waves)
    assert all(c.cacheMode() == cached for c in ladder)
    panel.state.set("position", 7)  # only the marker moves over the ladder
    panel.flush()
    assert all(c.cacheMode() == cached for c in [*waves, *ladder])


@pytest.mark.parametrize(("before", "after"), [((500, 400), (20, 7)), ((20, 7), (500, 400))])
def test_update_of_length_and_position_is_what_the_data_header_names(
    qtbot: QtBot, panel: SinePanel, before: tuple[int, int], after: tuple[int, int]
) -> None:
    """Issue 20 (as finding 5, ALiBi): a shorter-ladder update moved the position line's bounds,
    whose clamp was echoed into the state (position = L − 1) after the ladder was computed at the
    position given: the CSV header named a position the data was not computed at."""
    from PySide6.QtWidgets import QApplication

    from posenc_gui.widgets.export import csv_text

    panel.state.update({"length": before[0], "position": before[1]})
    panel.show()
    qtbot.waitExposed(panel)
    panel.refresh_now()
    panel.state.update({"length": after[0], "position": after[1]})
    QApplication.processEvents()
    panel.refresh_now()
    QApplication.processEvents()
    assert (panel.state.as_int("length"), panel.state.as_int("position")) == after
    text = csv_text(panel.data(), tab="sine", params=panel.state.values())
    header = next(line for line in text.splitlines() if line.startswith("# parameters:"))
    position = int(header.split("; position=")[1].split(";")[0])
    assert position == after[1]
    assert f"PE[{position}, j]" in text  # the ladder's vector is read at that position
    assert panel.position_line.value() == position
