"""Attention-biases tab panel: state -> plots and labels, widgets -> state, per-view refreshes."""

from __future__ import annotations

import math
from typing import TypeVar

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QApplication, QComboBox, QSpinBox
from pytestqt.qtbot import QtBot

from posenc_gui.core import alibi_bias
from posenc_gui.panels.alibi import PANEL, AlibiPanel
from posenc_gui.panels.base import Panel
from posenc_gui.state import ParamState
from posenc_gui.state.alibi import MAX_HEADS
from posenc_gui.widgets.text import strip_tags

SIZE = (1600, 1000)


P = TypeVar("P", bound=Panel)


def show(qtbot: QtBot, panel: type[P], **values: object) -> P:
    """A ``panel`` laid out at the render size, as ``posenc-gui render`` does it (also used by
    the encodings tab's tests)."""
    p = panel(ParamState(panel.model, values))  # type: ignore[arg-type]
    qtbot.addWidget(p)
    p.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    p.resize(*SIZE)
    p.show()
    QApplication.processEvents()
    p.refresh_now()
    return p


def shown(qtbot: QtBot, **values: object) -> AlibiPanel:
    """The ALiBi panel laid out at the render size."""
    return show(qtbot, PANEL, **values)


# -- state -> plots and labels ---------------------------------------------------------------
def test_bias_matrix_is_the_heads_bias(qtbot: QtBot) -> None:
    panel = shown(qtbot, heads=12, head=10, positions=40, query=30)
    data = panel.data()["heatmap"]
    full = alibi_bias(12, 40)[9].numpy()  # head 10 (1-based) of the reference function
    mask = data["mask"].values
    assert np.array_equal(mask, np.isinf(full))
    assert np.array_equal(data["bias"].values[~mask], full[~mask])
    m = 2.0**-1.5  # head 10 of 12 heads: every other slope of 16 heads, h = 3
    assert data["bias"].values[39, 0] == pytest.approx(-39 * m)
    image = panel.heat_image.image
    assert image.shape == (40, 40) and image[5, 2] == pytest.approx(-3 * m)
    # no NaN (pyqtgraph's slow path): the masked cells are covered by the staircase polygon
    assert not np.isnan(image).any()
    cover = panel.mask_cover.polygon()
    for i, j in ((0, 1), (5, 6), (5, 39), (38, 39)):  # key after query: covered
        assert cover.containsPoint(QPointF(j + 0.5, i + 0.5), Qt.FillRule.OddEvenFill), (i, j)
    for i, j in ((0, 0), (5, 5), (39, 0), (39, 39)):  # visible
        assert not cover.containsPoint(QPointF(j + 0.5, i + 0.5), Qt.FillRule.OddEvenFill)
    assert tuple(panel.heat_bar.levels()) == tuple(data["levels"].values)
    assert data["levels"].values[0] <= -39 * m
    assert "head 10" in panel.heat_plot.posenc_title
    xs, ys = panel.query_row.getData()
    assert (min(ys), max(ys), max(xs)) == (30.0, 31.0, 31.0)


def test_every_head_against_distance(qtbot: QtBot) -> None:
    panel = shown(qtbot, heads=20, head=17, positions=50)
    data = panel.data()
    slopes = np.array(
        [2.0 ** (-h / 2) for h in range(1, 17)] + [2.0 ** (-k / 4) for k in (1, 3, 5, 7)]
    )
    r = np.arange(50.0)
    np.testing.assert_allclose(data["bias_lines"]["bias_by_head"].values, -slopes[:, None] * r)
    xs, ys = panel.other_lines.getData()
    assert panel.other_lines.opts["connect"] == "pairs"  # one segment per head
    assert xs.size == 40 and ys[1::2] == pytest.approx(-slopes * 49)
    np.testing.assert_allclose(data["bias_highlight"]["head_bias"].values, -(2.0**-0.25) * r)
    _, hy = panel.head_line.getData()
    assert hy[-1] == pytest.approx(-(2.0**-0.25) * 49)


def test_attention_curves_are_the_models_numbers(qtbot: QtBot) -> None:
    panel = shown(qtbot, logits="random", seed=4, positions=80, query=50, heads=8, head=2)
    read = panel.readouts()
    data = panel.data()["attention"]
    np.testing.assert_array_equal(data["weights_with_bias"].values, read["weights_with_bias"])
    np.testing.assert_array_equal(data["weights_without_bias"].values, read["weights_without_bias"])
    _, y = panel.biased_curve.getData()
    assert float(y.sum()) == pytest.approx(1.0) and np.all(y[51:] == 0)
    assert panel.query_line.value() == 50
    text = strip_tags(panel.att_label.text())
    assert "seed 4" in text and "(of 51)" in text
    # zero logits: 1/(i+1) written out
    panel.state.update({"logits": "zero"})
    panel.refresh_now()
    assert "1/(i+1) = 1/51 = 0.0196" in strip_tags(panel.att_label.text())


def test_rule_and_slopes_in_words(qtbot: QtBot) -> None:
    panel = shown(qtbot, heads=12)
    rule = strip_tags(panel.rule_label.text())
    assert "n = 12 is not a power of two" in rule
    assert "p = 8" in rule and "2p = 16 heads" in rule and "h = 1, 3, 5, 7" in rule
    table = strip_tags(panel.slopes_label.text())
    for value in ("0.5000", "0.003906", "0.7071", "0.3536", "0.1768", "0.08839"):
        assert value in table
    assert "2−3.5" in table and "2−8" in table  # exponents (superscripts stripped)
    panel.state.set("heads", 8)
    panel.refresh_now()
    assert "n = 8 is a power of two" in strip_tags(panel.rule_label.text())
    np.testing.assert_allclose(
        panel.data()["slopes_text"]["slopes"].values, [2.0**-h for h in range(1, 9)]
    )


def test_comparison_shows_rope_and_alibi(qtbot: QtBot) -> None:
    panel = shown(qtbot, dim=64, correlation=1.0, heads=8, head=1, positions=100)
    read = panel.readouts()
    data = panel.data()
    np.testing.assert_array_equal(
        data["comparison_rope"]["rope_expected_shift"].values, read["rope_expected_shift"]
    )
    _, y = panel.rope_curve.getData()
    np.testing.assert_array_equal(y, read["rope_expected_shift"])
    assert panel.floor_line.value() == pytest.approx(-16.0)
    _, ay = panel.alibi_line.getData()
    assert ay[-1] == pytest.approx(-0.5 * 99)
    assert data["comparison_alibi"]["crossing"].values == pytest.approx(32.0)
    cx, cy = panel.cross_dot.getData()
    assert (cx[0], cy[0]) == (pytest.approx(32.0), pytest.approx(-16.0))
    text = strip_tags(panel.cmp_label.text())
    assert "ρ√d = 8.000" in text and "r = 32.0" in text


# -- widgets -> state -----------------------------------------------------------------------
def test_widgets_drive_the_state(qtbot: QtBot) -> None:
    panel = shown(qtbot)
    heads = panel.findChild(QSpinBox, "heads_spin")
    heads.setFocus()
    heads.lineEdit().selectAll()
    qtbot.keyClicks(heads, "20")
    qtbot.keyClick(heads, Qt.Key.Key_Return)
    assert panel.state.get("heads") == 20
    combo = panel.findChild(QComboBox, "logits_combo")
    combo.setCurrentIndex(combo.findData("random"))
    assert panel.state.get("logits") == "random"
    panel.query_line.setValue(12.4)  # dragging the query line
    assert panel.state.get("query") == 12
    panel.query_line.setValue(1e6)
    assert panel.state.get("query") == 63


def test_fewer_heads_pull_the_head_down(qtbot: QtBot) -> None:
    panel = shown(qtbot, heads=12, head=12)
    panel.state.set("heads", 5)
    panel.refresh_now()
    assert panel.state.get("head") == 5
    assert panel.findChild(QSpinBox, "head_spin").value() == 5
    assert "head 5" in panel.heat_plot.posenc_title


# -- per-view refreshes ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("head", 7, {"heatmap", "bias_highlight", "attention", "attention_text",
                     "comparison_alibi", "comparison_text"}),
        ("query", 10, {"heatmap_query", "attention", "attention_text"}),
        ("dim", 128, {"comparison_rope", "comparison_alibi", "comparison_text"}),
        ("samples", 64, {"comparison_rope", "comparison_text"}),
        ("heads", 16, {"slopes_text", "heatmap", "bias_lines", "bias_highlight", "attention",
                       "attention_text", "comparison_alibi", "comparison_text"}),
    ],
)  # fmt: skip
def test_a_change_refreshes_only_the_views_that_read_it(
    qtbot: QtBot, name: str, value: int, expected: set[str]
) -> None:
    panel = shown(qtbot)
    counts = {n: v.refresh_count for n, v in panel.views.items()}
    slopes_computed = panel.viewset.derived["slopes"].compute_count
    panel.state.set(name, value)
    panel.refresh_now()
    ran = {n for n, v in panel.views.items() if v.refresh_count != counts[n]}
    assert ran == expected
    if name != "heads":
        assert panel.viewset.derived["slopes"].compute_count == slopes_computed


def test_every_number_shown_is_finite_and_formatted(qtbot: QtBot) -> None:
    panel = shown(qtbot, heads=64, positions=512, query=511, logits="random")
    for label in (panel.rule_label, panel.slopes_label, panel.att_label, panel.cmp_label):
        text = strip_tags(label.text())
        assert "e-" not in text and "nan" not in text.lower() and "-" not in text, text
    assert not math.isnan(float(panel.data()["comparison_text"]["rope_lowest"].values))


# -- cost of a step (mechanism, not clock) ------------------------------------------------------
def _plot_paints(panel: AlibiPanel, action: object) -> dict[str, int]:
    """Paint events of each plot's viewport while ``action`` runs and the panel repaints."""
    from PySide6.QtCore import QEvent, QObject

    plots = {p.viewport(): p.objectName() for p in
             (panel.heat_plot, panel.bias_plot, panel.att_plot, panel.cmp_plot)}  # fmt: skip
    counts = dict.fromkeys(plots.values(), 0)

    class Counter(QObject):
        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and obj in plots:
                counts[plots[obj]] += 1
            return False

    counter = Counter()
    app = QApplication.instance()
    app.installEventFilter(counter)
    try:
        action()  # type: ignore[operator]
        QApplication.processEvents()
        QApplication.processEvents()
    finally:
        app.removeEventFilter(counter)
    return counts


def test_a_new_length_paints_every_plot_once(qtbot: QtBot) -> None:
    panel = shown(qtbot)
    QApplication.processEvents()
    for positions in (100, 37, 512):
        counts = _plot_paints(panel, lambda n=positions: panel.state.set("positions", n))
        assert counts == dict.fromkeys(counts, 1), (positions, counts)


def test_readouts_edit_their_numbers_in_place(qtbot: QtBot) -> None:
    panel = shown(qtbot, logits="random")
    parsed = (panel.att_label.parsed, panel.cmp_label.parsed)
    for q in (40, 41, 12):
        panel.state.set("query", q)
        panel.refresh_now()
    panel.state.set("correlation", 0.5)
    panel.refresh_now()
    assert (panel.att_label.parsed, panel.cmp_label.parsed) == parsed
    assert panel.att_label.edited >= 3 and panel.cmp_label.edited >= 1
    assert "(of 13)" in strip_tags(panel.att_label.text())
    assert "ρ = 0.50" in strip_tags(panel.cmp_label.text())
    panel.state.set("base", 5000.0)  # "10 000" → "5000": a thin space is not edited in place
    panel.refresh_now()
    assert "base 5000" in strip_tags(panel.cmp_label.text())


def test_slopes_are_painted_in_right_aligned_columns(qtbot: QtBot) -> None:
    """The slopes read-out: painted strings (a 64-row rich text costs Qt ~2.5 ms to parse, lay
    out and paint), every head's power of two and value on it, in right-aligned columns of
    column groups under the title; its HTML equivalent for tests and screen readers."""
    panel = shown(qtbot, heads=64)
    label = panel.slopes_label
    html = label.text()
    assert "<table" not in html
    text = strip_tags(html)
    assert "Slopes of the 64 heads" in text
    assert "2−0.125" in text and "2−8" in text and "0.003906" in text
    assert label.accessibleDescription() == text
    drawn = label.drawn()
    texts = [t for _, _, t in drawn]
    assert texts[0] == "Slopes of the 64 heads"
    assert "−0.125" in texts and "−8" in texts and "= 0.003906".replace(" ", "\u00a0") in texts
    # 32 rows in two groups: the heads 1 … 32 one under the other, right edges aligned
    fm = QFontMetricsF(label.font())
    ends = {t: x + fm.horizontalAdvance(t) for x, _, t in drawn if t.isdigit()}
    assert abs(ends["1"] - ends["32"]) < 1e-6 and ends["33"] > ends["32"] + 50
    ys = {t: y for _, y, t in drawn if t.isdigit()}
    assert ys["1"] == ys["33"] and ys["3"] > ys["1"] and ys["32"] > ys["3"]
    # a superscript is raised above its 2's baseline
    two = next(y for _, y, t in drawn if t == "2")
    assert next(y for _, y, t in drawn if t == "−0.125") < two
    # fewer heads: the columns follow the narrower cells
    right = max(x for x, _, t in drawn)
    panel.state.set("heads", 4)
    panel.refresh_now()
    assert "Slopes of the 4 heads" in strip_tags(label.text())
    assert max(x for x, _, t in label.drawn()) < right
    label.grab()  # paints


def test_rule_lists_are_elided_to_a_steady_length(qtbot: QtBot) -> None:
    """Long lists of heads and slopes in the rule are written "first, second, …, last" (every
    slope is in the table): the text keeps about the same length for every head count."""
    panel = shown(qtbot, heads=61)
    rule = strip_tags(panel.rule_label.text())
    assert "n − p = 29" in rule and "at h = 1, 3, …, 57: 2−0.125, 2−0.375, …, 2−7.125." in rule
    lengths = []
    for heads in range(5, MAX_HEADS):
        if heads & (heads - 1):  # not a power of two
            panel.state.set("heads", heads)
            panel.refresh_now()
            lengths.append(len(strip_tags(panel.rule_label.text())))
    assert max(lengths) - min(lengths) <= 60  # the whole lists: 200 to 700 characters


def test_slopes_room_is_reserved_for_the_largest_tables(qtbot: QtBot) -> None:
    """The room of the largest slopes tables is taken from the start: no heads step grows the
    widget (the side column is not laid out again), though every table fits in it. Counts
    shown again reuse their layout (not measured again)."""
    panel = shown(qtbot, heads=12)
    label = panel.slopes_label
    grown, size = label.grown, label.minimumSizeHint()
    for heads in (*range(1, MAX_HEADS + 1), 12):
        panel.state.set("heads", heads)
        panel.refresh_now()
        drawn = label.drawn()
        assert max(x for x, _, _ in drawn) < size.width()
        assert max(y for _, y, _ in drawn) < size.height()
    assert (label.grown, label.minimumSizeHint()) == (grown, size)
    assert "Slopes of the 12 heads" in strip_tags(label.text())
    laid_out = label.laid_out
    for heads in (12, 16, 17):
        panel.state.set("heads", heads)
        panel.refresh_now()
    assert label.laid_out == laid_out
    assert "Slopes of the 17 heads" in strip_tags(label.text())
    assert label.accessibleDescription() == strip_tags(label.text())
    # the rule too: a text shown before is swapped in, its sizes kept with it
    rule = panel.rule_label
    parsed = rule.parsed
    for heads in (12, 17, 12):
        panel.state.set("heads", heads)
        panel.refresh_now()
    assert rule.parsed == parsed
    assert "n = 12 is not a power of two" in strip_tags(rule.text())
    assert rule.heightForWidth(rule.width()) > 0


def test_plots_paint_lines_directly_texts_and_axes_from_pixels(qtbot: QtBot) -> None:
    """Lines that most steps change are not cached (a new pixmap per change costs more than the
    paint); axes and titles are (rarely changed, painted at every repaint); the bias matrix is
    kept in 32-bit colour once rendered (no conversion of an indexed image at every paint)."""
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QGraphicsItem, QGraphicsTextItem

    panel = shown(qtbot)
    panel.grab()
    cached = QGraphicsItem.CacheMode.DeviceCoordinateCache
    lines = ("other_lines", "head_line", "plain_curve", "biased_curve", "rope_curve",
             "rope_sampled", "alibi_line")  # fmt: skip
    for name in lines:  # all set by the first refresh: drawn directly
        assert getattr(panel, name).cacheMode() == QGraphicsItem.CacheMode.NoCache, name
    panel.state.set("head", 3)  # the head's lines change; the other heads' and RoPE's stay
    panel.refresh_now()
    kept = {name for name in lines if getattr(panel, name).cacheMode() == cached}
    assert kept == {"other_lines", "rope_curve", "rope_sampled"}
    panel.state.set("positions", 100)  # every line changes
    panel.refresh_now()
    assert all(getattr(panel, n).cacheMode() == QGraphicsItem.CacheMode.NoCache for n in lines)
    for plot in (panel.heat_plot, panel.bias_plot, panel.att_plot, panel.cmp_plot):
        item = plot.getPlotItem()
        assert item.getAxis("left").cacheMode() == cached
        assert item.getAxis("bottom").cacheMode() == cached
        assert item.titleLabel.item.cacheMode() == cached
        assert isinstance(item.titleLabel.item, QGraphicsTextItem)
    assert panel.heat_image.qimage.format() == QImage.Format.Format_RGB32
    panel.state.update({"head": 2, "positions": 64})  # a new slope: rendered again, in colour
    panel.refresh_now()
    panel.grab()
    assert panel.heat_image.qimage.format() == QImage.Format.Format_RGB32
    m = 0.25  # head 2 of 12 heads: 2^(−8·2/8)
    lut = panel.heat_image.lut
    low, high = panel.heat_bar.levels()
    # the colour of cell (i, j) = (40, 0) is the colour map's at −40·m within the levels
    index = round((-40 * m - low) / (high - low) * (len(lut) - 1))
    colour = panel.heat_image.qimage.pixelColor(0, 40)
    assert (colour.red(), colour.green(), colour.blue()) == tuple(int(c) for c in lut[index])


def test_a_seed_step_with_zero_logits_draws_no_attention_anew(qtbot: QtBot) -> None:
    # zero logits do not depend on the seed: the same read-out, the curves keep their data
    panel = shown(qtbot, logits="zero", positions=40, query=30)
    before = panel.data()["attention"]
    curves = [(c.xData, c.yData) for c in (panel.plain_curve, panel.biased_curve)]
    panel.state.set("seed", 7)
    panel.refresh_now()
    assert [(c.xData, c.yData) for c in (panel.plain_curve, panel.biased_curve)] == curves
    after = panel.data()["attention"]  # still recorded, the same numbers
    assert set(after) == set(before)
    for name in before:
        np.testing.assert_array_equal(after[name].values, before[name].values)
    # random logits do depend on it: new numbers, drawn
    panel.state.set("logits", "random")
    panel.refresh_now()
    drawn = panel.biased_curve.yData
    panel.state.set("seed", 8)
    panel.refresh_now()
    assert panel.biased_curve.yData is not drawn
    assert not np.array_equal(panel.biased_curve.yData, drawn)
    np.testing.assert_array_equal(
        panel.biased_curve.yData, panel.state.readouts()["weights_with_bias"]
    )


def test_distance_axes_end_at_the_last_position(qtbot: QtBot) -> None:
    # the key and distance axes end at L − 1 (at most 2.5 % and the margin past it) and keep
    # their range while the length stays within one round step of that end
    panel = shown(qtbot, positions=64)
    plots = (panel.bias_plot, panel.att_plot, panel.cmp_plot)

    def ranges() -> list[list[float]]:
        return [p.getViewBox().viewRange()[0] for p in plots]

    kept = ranges()
    for low, high in kept:
        assert -0.05 * 63 <= low < 0 < 63 < high <= 1.05 * 63
    assert kept[0] == kept[2]  # the comparison shows the bias plot's distances
    panel.state.set("positions", 100)
    panel.refresh_now()
    assert panel.data()["bias_lines"]["distance"].values[-1] == 99  # the lines end at L − 1
    for low, high in ranges()[::2]:
        assert -0.05 * 99 <= low < 0 < 99 < high <= 1.05 * 99
    panel.state.set("positions", 99)  # 98 and 99 end at the same round 100: kept
    kept = ranges()
    panel.state.set("positions", 100)
    panel.refresh_now()
    assert ranges() == kept


def test_the_attention_plot_shows_the_keys_the_query_sees(qtbot: QtBot) -> None:
    """Early in a long sequence the attention fills its plot: the x axis runs over the keys
    j ≤ i to a round end (a query step rarely moves it), never past L − 1."""
    panel = shown(qtbot, positions=512, query=63)
    vb = panel.att_plot.getViewBox()
    low, high = vb.viewRange()[0]
    assert low < 0 < 63 < high <= 1.3 * 63
    panel.state.set("query", 70)  # the same round end (80)
    panel.refresh_now()
    assert vb.viewRange()[0] == [low, high]
    panel.state.set("query", 500)
    panel.refresh_now()
    low, high = vb.viewRange()[0]
    assert 500 < high <= 1.05 * 511


def test_the_masked_triangle_takes_the_theme_colour(qtbot: QtBot) -> None:
    """The masked cells (keys after the query) are drawn in the theme's masked colour, light
    and dark, and follow a theme switch."""
    from posenc_gui.widgets import style as style_mod

    hub = style_mod.hub()
    panel = shown(qtbot, positions=64)
    vb = panel.heat_plot.getViewBox()
    try:
        for theme in ("light", "dark", "light"):
            hub.set_style(style_mod.Style(theme=theme))
            panel.refresh_now()
            QApplication.processEvents()
            want = style_mod.Style(theme=theme).qcolor("masked")
            assert want != style_mod.Style(theme=theme).qcolor("background")
            image = panel.heat_plot.grab().toImage()
            # a cell far in the masked triangle (key j = 56 after query i = 8)
            at = vb.mapViewToScene(QPointF(56.5, 8.5))
            point = panel.heat_plot.mapFromScene(at)
            ratio = image.devicePixelRatio()
            pixel = image.pixelColor(int(point.x() * ratio), int(point.y() * ratio))
            assert pixel.name() == want.name(), (theme, pixel.name(), want.name())
    finally:
        hub.set_style(style_mod.Style())


def test_a_new_title_of_the_same_height_is_set_in_place_as_the_house_sets_it(
    qtbot: QtBot,
) -> None:
    """A title whose text changes (live numbers) is fitted and centred in place, without
    invalidating the plot's layout; it ends where pyqtgraph's ``setTitle`` and a layout pass
    put it (the same text, scale and position), long titles wrapped to the plot's width at
    the title's size."""
    from posenc_gui.widgets import styled

    panel = shown(qtbot)
    QApplication.processEvents()
    plot = panel.bias_plot
    item = plot.getPlotItem()
    label = item.titleLabel
    titles = (
        "Bias against distance, 9 heads (head 3 bold)",
        "Short",
        "A title far too long for this plot " * 4,
        "Bias against distance, 64 heads",
    )
    for k, title in enumerate(titles):
        styled.retitle(panel.book, plot, title)
        # no layout pass asked, unless the height changes (a long title wrapped, and the
        # title after it)
        assert item.layout.isActivated() == (k < 2), title
        QApplication.processEvents()  # (the layout pass asked for)
        fast = (label.item.toHtml(), label.item.scale(), label.item.pos(), label.geometry())
        plot.posenc_title = None
        styled.set_title(panel.book, plot, title)
        QApplication.processEvents()
        house = (label.item.toHtml(), label.item.scale(), label.item.pos(), label.geometry())
        assert fast[0] == house[0] and fast[3] == house[3], title
        assert fast[1] == pytest.approx(house[1]), title
        assert fast[2].x() == pytest.approx(house[2].x()) and fast[2].y() == house[2].y(), title
    assert label.item.scale() == 1.0 and plot.posenc_title == titles[-1]
    panel.state.set("head", 2)
    panel.refresh_now()
    assert "(head 2 bold)" in plot.posenc_title
    assert "head 2" in label.item.toPlainText()


def test_the_bias_matrix_title_keeps_its_height_over_heads_and_lengths(qtbot: QtBot) -> None:
    """Every title of the bias matrix fits its plot unscaled at the render size: a head or
    length step sets the title in place and asks the plot for no layout pass (a title scaled
    to fit changes height with its length)."""
    from PySide6.QtCore import QEvent, QObject

    from posenc_gui.core import alibi_rule
    from posenc_gui.panels.alibi import heat_title
    from posenc_gui.widgets import styled

    panel = shown(qtbot, heads=64, head=64, positions=512, query=511)
    QApplication.processEvents()
    item = panel.heat_plot.getPlotItem()
    label = item.titleLabel
    assert "512" not in panel.heat_plot.posenc_title  # the axes give the length
    titles = {heat_title(h + 1, m) for n in range(1, MAX_HEADS + 1)
              for h, m in enumerate(alibi_rule(n).slopes)}  # fmt: skip
    for title in sorted(titles, key=len)[-40:]:
        styled.retitle(panel.book, panel.heat_plot, title)
        assert label.item.scale() == 1.0, title
    requests = []

    class Counter(QObject):
        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.LayoutRequest and obj is item:
                requests.append(panel.heat_plot.posenc_title)
            return False

    counter = Counter()
    app = QApplication.instance()
    app.installEventFilter(counter)
    try:
        steps = (("head", 9), ("head", 37), ("positions", 8), ("heads", 5), ("head", 1),
                 ("positions", 300), ("heads", 64), ("head", 63))  # fmt: skip
        for name, value in steps:
            panel.state.set(name, value)
            panel.refresh_now()
            QApplication.processEvents()
            assert label.item.scale() == 1.0, panel.heat_plot.posenc_title
    finally:
        app.removeEventFilter(counter)
    assert requests == []


def test_a_query_step_draws_the_attention_numbers_over_the_text(qtbot: QtBot) -> None:
    """With zero logits the read-out writes 1/(i+1) as one value ("1/64"): no value sits right
    after the leaning "/", so a query step whose numbers keep their width draws them over the
    laid-out text (no edit of the document, no layout)."""
    panel = shown(qtbot, query=63)
    QApplication.processEvents()
    label = panel.att_label
    for q in (62, 61, 57):
        parsed, over = label.parsed, label.drawn_over
        panel.state.set("query", q)
        panel.refresh_now()
        QApplication.processEvents()
        assert (label.parsed, label.drawn_over) == (parsed, over + 1), q
    assert f"1/(i+1) = 1/{57 + 1} = {1 / 58:.4f}" in strip_tags(label.text())


def test_a_heads_step_that_keeps_the_heads_slope_leaves_its_plots_alone(qtbot: QtBot) -> None:
    """Head 4 has slope 2⁻⁴ for 9 … 15 heads (p = 8): a step among them draws the new lines
    of every head and the slopes, not the bias matrix nor the comparison, and their data are
    recorded all the same."""
    panel = shown(qtbot, heads=12, head=4)
    QApplication.processEvents()
    before = panel.data()["heatmap"]["bias"].values.copy()
    for heads in (13, 9, 15):
        counts = _plot_paints(panel, lambda n=heads: panel.state.set("heads", n))
        assert counts["figure_heatmap"] == counts["figure_comparison_rope"] == 0, (heads, counts)
        assert counts["figure_attention"] == 0, (heads, counts)
        assert counts["figure_bias_lines"] == 1, (heads, counts)
        data = panel.data()
        assert np.array_equal(data["heatmap"]["bias"].values, before)
        assert data["comparison_alibi"]["alibi_line"].values[-1] == pytest.approx(-63 / 16)
    counts = _plot_paints(panel, lambda: panel.state.set("heads", 16))  # p = 16: 2⁻² now
    assert counts == dict.fromkeys(counts, 1), counts
    assert panel.data()["heatmap"]["bias"].values[63, 0] == pytest.approx(-63 / 4)


@pytest.mark.parametrize(("before", "after"), [((64, 63), (8, 3)), ((8, 3), (64, 50))])
def test_update_of_positions_and_query_is_what_the_data_header_names(
    qtbot: QtBot, before: tuple[int, int], after: tuple[int, int]
) -> None:
    """Issue 20, finding 5: a fewer-positions update moved the query line's bounds, whose clamp
    was echoed into the state (query = L − 1) after the plots were computed at the query given:
    the CSV header named a query the data was not computed at."""
    from posenc_gui.widgets.export import csv_text

    panel = shown(qtbot, positions=before[0], query=before[1])
    panel.state.update({"positions": after[0], "query": after[1]})
    QApplication.processEvents()
    assert (panel.state.as_int("positions"), panel.state.as_int("query")) == after
    text = csv_text(panel.data(), tab="alibi", params=panel.state.values())
    header = next(line for line in text.splitlines() if line.startswith("# parameters:"))
    query = int(header.split("query=")[1].split(";")[0])
    assert query == after[1]
    weights = panel.data()["attention"]["weights_with_bias"].values
    assert int(np.count_nonzero(weights)) == query + 1  # keys 0 … i, the rest masked
    assert panel.query_line.value() == query
