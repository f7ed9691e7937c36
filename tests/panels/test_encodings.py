"""Encodings-compared tab panel: state -> plots and labels, widgets -> state, per-view refreshes."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox, QPushButton, QSpinBox
from pytestqt.qtbot import QtBot
from test_alibi import show

from posenc_gui.core import binary_encoding, sinusoidal_encoding
from posenc_gui.panels.encodings import PANEL, EncodingsPanel
from posenc_gui.state import ParamState
from posenc_gui.state.encodings import WAVES
from posenc_gui.widgets.text import strip_tags

SIZE = (1600, 1000)


def shown(qtbot: QtBot, **values: object) -> EncodingsPanel:
    """The encodings panel laid out at the render size (the ALiBi tests' helper)."""
    return show(qtbot, PANEL, **values)


def text(label: object) -> str:
    return strip_tags(label.text())  # type: ignore[attr-defined]


# -- lifetime ------------------------------------------------------------------------------------
def test_a_panel_without_a_reference_is_collected_safely(qtbot: QtBot) -> None:
    """pytest-qt keeps only a weak reference: the panel is collected whenever the garbage
    collector runs (it is part of reference cycles), possibly inside a later paint of its own
    plots. It used to crash there (test_alibi.py then this file); now nothing may crash."""
    p = PANEL(ParamState(PANEL.model))  # type: ignore[arg-type]
    qtbot.addWidget(p)
    p.resize(*SIZE)
    p.show()
    p.state.set("positions", 200)


def test_an_unreferenced_panel_lives_until_it_is_closed() -> None:
    """The collector never ends a panel (it could run inside a paint of its plots, or inside
    a Qt call): without a reference it lives on; closed, it is disposed of, and Qt deletes it
    between two events."""
    import gc
    import weakref

    import shiboken6
    from PySide6.QtCore import QEvent

    p = PANEL(ParamState(PANEL.model))  # type: ignore[arg-type]
    p.resize(*SIZE)
    p.show()
    QApplication.processEvents()
    plot = p.heat_plot
    ref = weakref.ref(p)
    del p
    gc.collect()
    panel = ref()
    assert panel is not None and shiboken6.isValid(plot)
    panel.close()
    assert panel.disposed and len(panel.book) == 0
    panel.deleteLater()
    del panel
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not shiboken6.isValid(plot)


def test_the_next_event_loop_turn_after_a_collected_panel(qtbot: QtBot) -> None:
    import gc

    for _ in range(3):
        QApplication.processEvents()
        gc.collect()
    panel = shown(qtbot, positions=64)
    assert panel.data()["waves"]["waves"].values.shape == (WAVES, 64)


# -- state -> plots and labels ---------------------------------------------------------------
def test_sinusoidal_table_and_constant_dot(qtbot: QtBot) -> None:
    panel = shown(qtbot, scheme="sinusoidal", dim=512, positions=100, distance=10, position=32)
    data = panel.data()
    ref = sinusoidal_encoding(100, 512, dtype=torch.float64).numpy()
    np.testing.assert_allclose(data["heatmap"]["table"].values, ref, atol=1e-12)
    assert panel.heat_image.image.shape == (100, 512)
    assert tuple(panel.heat_bar.levels()) == (-1.0, 1.0)
    dots = data["dots"]["dot_at_distance"].values
    closed = sum(math.cos(10 * 10000.0 ** (-2 * i / 512)) for i in range(256))
    assert dots.shape == (90,) and np.allclose(dots, closed, rtol=1e-9)
    _, y = panel.dot_curve.getData()
    np.testing.assert_array_equal(y, dots)
    assert float(data["dot_text"]["dot_spread"].values) < 1e-9
    dot_text = text(panel.dot_label)
    assert "173.790" in dot_text and "the same for every i" in dot_text
    assert data["verdicts"]["verdicts"].values.tolist() == [True] * 5
    np.testing.assert_allclose(data["vector_text"]["vector_at_position"].values, ref[32])
    assert "P[32]" in text(panel.vector_label) and "‖P[p]‖ = 16.000" in text(panel.vector_label)
    assert "dims 0 … 7 of 512" in panel.wave_plot.posenc_title


def test_binary_bits_least_significant_first_and_varying_dot(qtbot: QtBot) -> None:
    panel = shown(qtbot, scheme="binary", dim=8, positions=64, position=37, distance=3)
    data = panel.data()
    bits = binary_encoding(64, 8).numpy()
    np.testing.assert_array_equal(data["heatmap"]["table"].values, bits)
    np.testing.assert_array_equal(data["waves"]["waves"].values, bits.T)
    np.testing.assert_array_equal(
        data["waves_marker"]["values_at_position"].values, [1, 0, 1, 0, 0, 1, 0, 0]
    )  # 37 = 100101₂
    vector = text(panel.vector_label)
    assert "[1, 0, 1, 0, 0, 1, 0, 0]" in vector and "37 = 00100101" in vector
    assert panel.wave_line.value() == 37
    xs, ys = panel.wave_dots.getData()
    assert np.all(xs == 37)
    # bit 0 on top (the y axis runs down): a set bit sits at the top of its band
    assert ys[0] == pytest.approx(0.0) and ys[1] == pytest.approx(1.8)
    assert panel.wave_plot.getPlotItem().getViewBox().yInverted()
    expected = [bin(i & (i + 3)).count("1") for i in range(61)]
    np.testing.assert_array_equal(data["dots"]["dot_at_distance"].values, expected)
    assert "depends on where the pair sits" in text(panel.dot_label)
    assert data["verdicts"]["verdicts"].values.tolist() == [True, True, False, False, True]
    assert "bits, least significant first" in panel.wave_plot.posenc_title


def test_verdicts_are_the_models_and_explained(qtbot: QtBot) -> None:
    panel = shown(qtbot, scheme="naive", positions=40, dim=4)
    verdict = text(panel.verdict_label)
    assert "entries from 0.000 to 39.000" in verdict
    assert "Smooth?" in verdict and "2.56 % of the largest distance" in verdict  # 1/39
    assert panel.data()["verdicts"]["verdicts"].values.tolist() == [
        True, False, True, False, True
    ]  # fmt: skip
    assert tuple(panel.heat_bar.levels()) == (0.0, 40.0)
    panel.state.set("scheme", "normalized")
    panel.refresh_now()
    assert panel.data()["verdicts"]["verdicts"].values.tolist() == [
        True, True, True, False, False
    ]  # fmt: skip
    read = panel.readouts()
    for word, key in (("Unique?", "unique"), ("Bounded?", "bounded"), ("Smooth?", "smooth")):
        answer = text(panel.verdict_label).split(word)[1].lstrip()
        assert answer.startswith("yes" if read[key] else "no")


def test_binary_with_too_few_bits_says_how_many_it_needs(qtbot: QtBot) -> None:
    panel = shown(qtbot, scheme="binary", positions=100, dim=6)
    verdict = text(panel.verdict_label)
    assert "64 distinct vectors for 100 positions" in verdict
    assert "6 bits: 64 codes, L needs 7" in verdict


def test_large_naive_table_keeps_its_colour_scales_readable(qtbot: QtBot) -> None:
    panel = shown(qtbot, scheme="naive", positions=512, dim=512)
    assert tuple(panel.heat_bar.levels()) == (0.0, 600.0)
    panel.state.set("heatmap", "dot")
    panel.refresh_now()
    data = panel.data()["heatmap"]
    gram = data["dot_products"].values
    assert gram[511, 511] == 511 * 511 * 512
    lo, hi = panel.heat_bar.levels()
    assert (lo, hi) == (0.0, 1.5)  # ×10⁸: 1.34·10⁸ drawn as 1.34 under a "× 10⁸" label
    assert float(panel.heat_image.image.max()) == pytest.approx(511 * 511 * 512 / 1e8, rel=1e-6)
    assert "× 10⁸" in panel.heat_bar.getAxis("right").labelText
    assert data["levels"].values.tolist() == [0.0, 1.5e8]
    _, y = panel.dot_curve.getData()
    assert float(y.max()) < 2.0  # the dot-product curve is drawn in the same units
    assert "× 10⁸" in panel.dot_plot.getAxis("left").labelText


def test_heatmap_shows_the_table_the_products_or_the_cosines(qtbot: QtBot) -> None:
    panel = shown(qtbot, scheme="sinusoidal", positions=64, dim=64, position=20)
    panel.state.set("heatmap", "cosine")
    panel.refresh_now()
    data = panel.data()
    cos = data["heatmap"]["cosine"].values
    assert cos.shape == (64, 64) and np.allclose(np.diag(cos), 1.0)
    assert panel.heat_image.image.shape == (64, 64)
    assert "Cosine similarity" in panel.heat_plot.posenc_title
    assert panel.heat_plot.getAxis("bottom").labelText == "position j"
    xs, ys = panel.heat_row.getData()
    assert (max(xs), min(ys), max(ys)) == (64.0, 20.0, 21.0)
    means = data["similarity_text"]["mean_cosine_at_offsets"].values
    assert means[0] == pytest.approx(np.mean(np.diag(cos, 1)))
    assert "k = 32" in text(panel.similarity_label)
    panel.state.set("heatmap", "dot")
    panel.refresh_now()
    gram = panel.data()["heatmap"]["dot_products"].values
    assert gram[3, 3] == pytest.approx(32.0)
    low = 0.0 if gram.min() >= 0 else -40.0  # every product ≥ 0 here: the bar starts at 0
    assert tuple(panel.heat_bar.levels()) == (low, 40.0)
    assert panel.heat_bar.getAxis("right").labelText == "P[i]·P[j]"
    panel.state.set("heatmap", "table")
    panel.refresh_now()
    assert panel.heat_plot.getAxis("bottom").labelText == "dimension j"
    xs, _ = panel.heat_row.getData()
    assert max(xs) == 64.0


def test_dot_product_against_distance(qtbot: QtBot) -> None:
    panel = shown(qtbot, scheme="binary", positions=32, dim=6, distance=5, dots="distance")
    data = panel.data()["dots"]
    read = panel.readouts()
    np.testing.assert_array_equal(
        data["product_mean_by_distance"].values, read["product_mean_by_distance"]
    )
    x, y = panel.dot_curve.getData()
    assert x.tolist() == list(range(32)) and y.tolist() == read["product_mean_by_distance"]
    _, low = panel.dot_low.getData()
    _, high = panel.dot_high.getData()
    assert low.tolist() == read["product_min_by_distance"]
    assert high.tolist() == read["product_max_by_distance"]
    assert panel.dot_k_line.isVisible() and panel.dot_k_line.value() == 5
    assert panel.dot_band.isVisible()
    assert panel.dot_plot.getAxis("bottom").labelText == "distance k"
    # the drawn pairs sit on the line of k
    px, py = panel.pair_dots.getData()
    assert np.all(px == 5) and py.tolist() == read["random_pair_products"]
    # back to the curve over i: band and k line hidden
    panel.state.set("dots", "pairs")
    panel.refresh_now()
    assert not panel.dot_band.isVisible() and not panel.dot_k_line.isVisible()
    px, _ = panel.pair_dots.getData()
    assert px.tolist() == [i for i, _ in panel.readouts()["random_pair_positions"]]


def test_draw_button_lists_five_new_pairs(qtbot: QtBot) -> None:
    panel = shown(qtbot, scheme="binary", dim=8, positions=50, distance=10)
    before = panel.readouts()["random_pair_lines"]
    assert [line in text(panel.pairs_label) for line in before] == [True] * 5
    button = panel.findChild(QPushButton, "draw_button")
    assert button.accessibleName() and button.toolTip()
    assert button.focusPolicy() & Qt.FocusPolicy.TabFocus
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert panel.state.get("draw") == 1
    panel.refresh_now()
    after = panel.readouts()["random_pair_lines"]
    assert after != before
    shown_text = text(panel.pairs_label)
    assert "(draw 1)" in shown_text and all(line in shown_text for line in after)
    recorded = panel.data()["pairs_text"]["pair_lines"].values.tolist()
    assert recorded == after
    button.setFocus()
    qtbot.keyClick(button, Qt.Key.Key_Space)  # keyboard: the same action
    assert panel.state.get("draw") == 2
    panel.state.set("draw", 999)
    panel.draw_pairs()
    assert panel.state.get("draw") == 0  # wraps around


def test_magnitude_views(qtbot: QtBot) -> None:
    panel = shown(qtbot, scheme="naive", positions=512, dim=64)
    read = panel.readouts()
    _, share = panel.share_curve.getData()
    assert share.tolist() == read["position_share"] and share[-1] > 0.9999
    assert panel.share_curve.isVisible() and not panel.length_lines.isVisible()
    assert "99.99" in text(panel.mag_label) or "100 %" in text(panel.mag_label)
    panel.state.update({"scheme": "normalized", "magnitude": "length", "positions": 64})
    panel.refresh_now()
    assert panel.length_lines.isVisible() and not panel.share_curve.isVisible()
    data = panel.data()["magnitude"]
    lengths = data["lengths"].values
    np.testing.assert_allclose(data["vector_by_length"].values[0], 5 / (lengths - 1))
    assert panel.length_line.value() == 64
    xs, ys = panel.length_dots.getData()
    assert np.all(xs == 64) and ys == pytest.approx([5 / 63] * 8)
    assert "a different vector for each length" in text(panel.mag_label)
    panel.state.set("scheme", "sinusoidal")
    panel.refresh_now()
    assert "the same vector at every length" in text(panel.mag_label)


def test_learned_is_labelled_untrained(qtbot: QtBot) -> None:
    panel = shown(qtbot, scheme="learned", seed=5)
    assert "untrained" in panel.heat_plot.posenc_title
    assert "untrained" in text(panel.verdict_label)
    lo, hi = panel.heat_bar.levels()
    assert lo == -hi and 0.05 <= hi <= 0.2  # N(0, 0.02²): not the [−1, 1] of sinusoidal


def test_every_number_shown_is_formatted(qtbot: QtBot) -> None:
    for scheme in ("naive", "normalized", "binary", "sinusoidal", "learned"):
        panel = shown(qtbot, scheme=scheme, positions=512)
        for label in (panel.verdict_label, panel.dot_label, panel.similarity_label,
                      panel.vector_label, panel.mag_label, panel.pairs_label):  # fmt: skip
            t = text(label)
            assert "e-" not in t and "e+" not in t and "nan" not in t.lower(), (scheme, t)


# -- widgets -> state -----------------------------------------------------------------------
def test_widgets_drive_the_state(qtbot: QtBot) -> None:
    panel = shown(qtbot)
    spin = panel.findChild(QSpinBox, "distance_spin")
    spin.setFocus()
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin, "20")
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert panel.state.get("distance") == 20
    combo = panel.findChild(QComboBox, "scheme_combo")
    combo.setCurrentIndex(combo.findData("binary"))
    assert panel.state.get("scheme") == "binary"
    assert panel.state.get("dim") == 8  # the bits 128 positions need
    assert panel.findChild(QSpinBox, "dim_spin").value() == 8
    panel.refresh_now()
    assert panel.data()["dots"]["dot_at_distance"].values.size == 128 - 20
    heat = panel.findChild(QComboBox, "heatmap_combo")
    heat.setCurrentIndex(heat.findData("cosine"))
    assert panel.state.get("heatmap") == "cosine"
    dots = panel.findChild(QComboBox, "dots_combo")
    dots.setCurrentIndex(dots.findData("distance"))
    mag = panel.findChild(QComboBox, "magnitude_combo")
    mag.setCurrentIndex(mag.findData("length"))
    assert (panel.state.get("dots"), panel.state.get("magnitude")) == ("distance", "length")
    panel.refresh_now()
    assert "cosine" in panel.data()["heatmap"]


def test_a_smaller_length_pulls_position_and_distance_down(qtbot: QtBot) -> None:
    panel = shown(qtbot, position=100, distance=90)
    panel.state.set("positions", 16)
    panel.refresh_now()
    assert (panel.state.get("position"), panel.state.get("distance")) == (15, 15)
    assert panel.findChild(QSpinBox, "position_spin").maximum() == 15
    assert panel.data()["dots"]["dot_at_distance"].values.size == 1


# -- per-view refreshes ----------------------------------------------------------------------
ALL = {"heatmap", "heatmap_marker", "similarity_text", "waves", "waves_marker", "vector_text",
       "dots", "dot_pairs", "dot_text", "pairs_text", "magnitude", "magnitude_marker",
       "magnitude_text", "verdicts"}  # fmt: skip
TABLE = ALL - {"heatmap_marker"}


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("position", 5, {"heatmap_marker", "waves_marker", "vector_text"}),
        ("distance", 3, {"dots", "dot_pairs", "dot_text", "pairs_text"}),
        ("draw", 3, {"dot_pairs", "pairs_text"}),
        ("heatmap", "dot", {"heatmap", "heatmap_marker"}),
        ("dots", "distance", {"dots", "dot_pairs"}),
        ("magnitude", "length", {"magnitude", "magnitude_marker", "magnitude_text"}),
        ("seed", 3, TABLE),
        ("dim", 32, ALL),
    ],
)
def test_a_change_refreshes_only_the_views_that_read_it(
    qtbot: QtBot, name: str, value: object, expected: set[str]
) -> None:
    panel = shown(qtbot)
    counts = {n: v.refresh_count for n, v in panel.views.items()}
    panel.state.set(name, value)
    panel.refresh_now()
    ran = {n for n, v in panel.views.items() if v.refresh_count != counts[n]}
    assert ran == expected


def test_an_unused_seed_redraws_nothing(qtbot: QtBot) -> None:
    """The seed only changes the learned table (and the words): a sinusoidal table, its image
    and its waves are not set again."""
    panel = shown(qtbot, scheme="sinusoidal")
    image = panel.heat_image.image
    waves = panel.wave_lines.getData()[1]
    panel.state.set("seed", 7)
    panel.refresh_now()
    assert panel.heat_image.image is image and panel.wave_lines.getData()[1] is waves
    panel.state.set("scheme", "learned")
    panel.refresh_now()
    image = panel.heat_image.image
    panel.state.set("seed", 8)
    panel.refresh_now()
    assert panel.heat_image.image is not image


def test_readouts_edit_their_numbers_in_place(qtbot: QtBot) -> None:
    panel = shown(qtbot, scheme="binary", dim=8)
    parsed = (panel.dot_label.parsed, panel.pairs_label.parsed, panel.vector_label.parsed)
    for k in (3, 4, 5):
        panel.state.set("distance", k)
        panel.refresh_now()
    for p in (40, 41):
        panel.state.set("position", p)
        panel.refresh_now()
    panel.draw_pairs()
    panel.refresh_now()
    assert (panel.dot_label.parsed, panel.pairs_label.parsed, panel.vector_label.parsed) == parsed
    assert panel.dot_label.edited >= 3 and panel.pairs_label.edited >= 4
    assert panel.vector_label.edited >= 2


# -- what keeps a step cheap -----------------------------------------------------------------
def _x_range(plot: object) -> tuple[float, float]:
    (x0, x1), _ = plot.getPlotItem().getViewBox().viewRange()  # type: ignore[attr-defined]
    return x0, x1


def test_plots_over_the_positions_end_at_the_last_position(qtbot: QtBot) -> None:
    """The x axis over the positions ends at L − 1 rounded up to a round step (at most 2.5 %
    past it): a length step within that step changes neither the range nor the axis' drawing;
    the curves end with the table."""
    panel = shown(qtbot, positions=128)
    plots = (panel.wave_plot, panel.mag_plot)
    before = [_x_range(p) for p in plots]
    assert all(r == pytest.approx((-1.28, 129.28)) for r in before)  # 127 → 128, 1 % margin
    pictures = [p.getAxis("bottom").picture for p in plots]
    heat_y = panel.heat_plot.getPlotItem().getViewBox().viewRange()[1]
    panel.state.set("positions", 129)
    panel.refresh_now()
    QApplication.processEvents()
    assert [_x_range(p) for p in plots] == before
    assert [p.getAxis("bottom").picture for p in plots] == pictures  # not drawn again
    xs, _ = panel.share_curve.getData()
    assert xs[-1] == 128.0
    # the heatmap's image fills its plot: its y range follows L exactly
    assert panel.heat_plot.getPlotItem().getViewBox().viewRange()[1] != heat_y
    assert panel.heat_plot.getPlotItem().getViewBox().viewRange()[1] == pytest.approx([0, 129])
    panel.state.set("positions", 160)
    panel.refresh_now()
    assert all(_x_range(p) == pytest.approx((-1.6, 161.6)) for p in plots)


def test_a_table_step_builds_no_square_matrix_and_edits_read_outs_in_place(
    qtbot: QtBot,
) -> None:
    from PySide6.QtWidgets import QGraphicsItem

    from posenc_gui.state.encodings import analysis_of

    panel = shown(qtbot, scheme="sinusoidal", dim=64)
    # the image changes with every table: drawn directly, not into a cache first
    assert panel.heat_image.cacheMode() == QGraphicsItem.CacheMode.NoCache
    labels = (panel.vector_label, panel.verdict_label, panel.similarity_label, panel.dot_label)
    parsed = [w.parsed for w in labels]
    for d in (66, 68, 70):
        panel.state.set("dim", d)
        panel.refresh_now()
    assert [w.parsed for w in labels] == parsed  # "… (62 more)", verdicts: edited in place
    a = analysis_of(panel.state.values())
    assert "gram_matrix" not in a.cache and "cosine_matrix" not in a.cache
    panel.state.set("heatmap", "cosine")
    panel.refresh_now()
    assert "cosine_matrix" in a.cache  # built for the heatmap that shows it


def test_a_length_step_retitles_the_plots_in_place(qtbot: QtBot) -> None:
    """A title whose numbers change (a positions or dim step) is set in the title's text item,
    fitted and centred in place: no layout pass of the plot is asked, and it ends where the
    house's ``set_title`` and a layout pass put it."""
    from posenc_gui.widgets import styled

    panel = shown(qtbot)
    QApplication.processEvents()
    plot = panel.heat_plot
    item = plot.getPlotItem()
    label = item.titleLabel
    for n in (200, 96, 512):
        panel.state.set("positions", n)
        panel.refresh_now()
        assert (
            f"{n} positions" in plot.posenc_title and f"{n} positions" in label.item.toPlainText()
        )
        assert item.layout.isActivated()  # no layout request: the plot is not laid out again
        fast = (label.item.toHtml(), label.item.scale(), label.item.pos(), label.geometry())
        title, plot.posenc_title = plot.posenc_title, None
        styled.set_title(panel.book, plot, title)
        QApplication.processEvents()
        house = (label.item.toHtml(), label.item.scale(), label.item.pos(), label.geometry())
        assert fast[0] == house[0] and fast[3] == house[3]
        assert fast[1] == pytest.approx(house[1])
        assert fast[2].x() == pytest.approx(house[2].x()) and fast[2].y() == house[2].y()


# -- paint mechanisms ------------------------------------------------------------------------------
def test_a_straight_run_of_a_wave_is_one_segment(qtbot: QtBot) -> None:
    """Waves are drawn through the points where the slope changes only: a naive row is one
    segment, a bit one segment per flat stretch or edge, a sinusoidal row every point; the
    segments pass through every value of the table."""
    from posenc_gui.panels.encodings import BAND
    from posenc_gui.widgets.render.polyline import rows_polyline

    x = np.arange(10.0)
    rows = np.array([3.0 * x + 1.0, [0, 0, 0, 1, 1, 0, 0, 0, 0, 1.0], np.sin(x)])
    xs, ys, connect = rows_polyline(x, rows)
    ends = np.flatnonzero(~connect)
    assert list(ends) == [1, 1 + 7, 1 + 7 + 10]  # 2, 7 (0, 2, 3, 4, 5, 8, 9) and 10 points
    starts = np.concatenate([[0], ends[:-1] + 1])
    for row, a, b in zip(rows, starts, ends, strict=True):  # each row's line holds its values
        assert np.allclose(np.interp(x, xs[a : b + 1], ys[a : b + 1]), row)
    panel = shown(qtbot, scheme="naive", positions=300)
    QApplication.processEvents()
    xs, ys = panel.wave_lines.getData()
    assert len(xs) == 2 * WAVES  # eight straight lines, one segment each
    assert np.array_equal(xs, np.tile([0.0, 299.0], WAVES))
    assert np.allclose(ys[::2] - np.arange(WAVES), BAND)  # p = 0 at the bottom of each band
