"""What every tab gets from the house: views with honest inputs, one data API, one style."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyqtgraph as pg
import pytest
from pytestqt.qtbot import QtBot

from posenc_gui.panels import Panel, get_panel
from posenc_gui.state import ParamState
from posenc_gui.state.registry import TAB_IDS
from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets.styled import PixelCurve
from posenc_gui.widgets.text import LiveText
from posenc_gui.widgets.views import View, ViewSet


@pytest.fixture
def restore_style() -> Iterator[None]:
    yield
    style_mod.hub().set_style(style_mod.Style())


def _panel(qtbot: QtBot, tab_id: str) -> Panel:
    cls = get_panel(tab_id)
    panel = cls(ParamState(cls.model))
    qtbot.addWidget(panel)
    panel.resize(1400, 900)
    return panel


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_every_view_shows_finite_data(qtbot: QtBot, tab_id: str) -> None:
    panel = _panel(qtbot, tab_id)
    data = panel.data()
    assert list(data) == list(panel.views)
    for view, series in data.items():
        assert series, f"{tab_id}.{view} records nothing it shows"
        for name, s in series.items():
            if s.values.dtype.kind in "fc":
                assert np.all(np.isfinite(s.values)), f"{tab_id}.{view}.{name} is not finite"
            assert s.label, f"{tab_id}.{view}.{name} has no label"


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_each_parameter_refreshes_only_the_views_that_read_it(qtbot: QtBot, tab_id: str) -> None:
    panel = _panel(qtbot, tab_id)
    qtbot.wait(10)  # let resize and zoom events of the first layout settle
    panel.refresh_now()
    for p in panel.model.params:
        if p.kind not in ("int", "float"):
            continue
        lo, hi = panel.state.limits().get(p.name, (p.minimum, p.maximum))
        lo = p.minimum if lo is None else lo
        hi = p.maximum if hi is None else hi
        assert lo is not None and hi is not None
        old = panel.state.get(p.name)
        new = p.clamp(hi if old != hi else lo, lo, hi)
        if new == old:
            continue
        before = panel.state.values()
        # (a view skipped for an unchanged key was asked to refresh: it counts)
        counts = {n: v.refresh_count + v.skip_count for n, v in panel.views.items()}
        panel.state.set(p.name, new)
        panel.refresh_now()
        changed = {k for k, v in panel.state.values().items() if before[k] != v}
        ran = {n for n, v in panel.views.items() if v.refresh_count + v.skip_count != counts[n]}
        expected = {v.name for v in panel.viewset.affected(changed)}
        assert ran == expected, f"{tab_id}: {p.name} refreshed {ran}, expected {expected}"
        assert ran != set(panel.views) or len(panel.views) == 1 or _reads_everything(panel, p.name)
        panel.state.update(before)
        panel.refresh_now()


def _reads_everything(panel: Panel, name: str) -> bool:
    return all(name in v.params for v in panel.views.values())


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_style_change_restyles_every_view(qtbot: QtBot, tab_id: str, restore_style: None) -> None:
    panel = _panel(qtbot, tab_id)
    curves = [  # every line item with a pen: pyqtgraph's, and the house's PixelCurve
        item
        for w in panel.findChildren(pg.PlotWidget)
        for item in w.getPlotItem().vb.addedItems
        if isinstance(item, pg.PlotDataItem | pg.PlotCurveItem | PixelCurve)
        and item.opts.get("pen") is not None
    ]
    widths = [pg.mkPen(c.opts["pen"]).widthF() for c in curves]
    labels = panel.findChildren(LiveText)
    sizes = [label.font().pointSizeF() for label in labels]
    assert curves and labels
    counts = {n: v.refresh_count for n, v in panel.views.items()}

    style_mod.hub().set_style(style_mod.Style(scale=1.5, theme="dark"))
    panel.refresh_now()
    dark = style_mod.Style(theme="dark")
    for w in panel.findChildren(pg.PlotWidget):
        assert w.backgroundBrush().color().name() == dark.color("background")
    for c, width in zip(curves, widths, strict=True):
        assert pg.mkPen(c.opts["pen"]).widthF() == pytest.approx(1.5 * width)
    for label, size in zip(labels, sizes, strict=True):
        assert label.font().pointSizeF() == pytest.approx(1.5 * size)
    assert all(v.refresh_count > counts[n] for n, v in panel.views.items())


def test_undeclared_inputs_fail_loudly() -> None:
    views = ViewSet(["a", "b"])
    views.add_derived("twice_a", ["a"], lambda ctx: 2 * ctx.values.as_float("a"))
    views.add_derived("sneaky", ["a"], lambda ctx: ctx.values["b"])
    good = views.add_view(View("good", None, ["twice_a"], lambda ctx: ctx.record(
        "x", ctx["twice_a"], "2a")))  # fmt: skip
    bad = views.add_view(View("bad", None, ["a"], lambda ctx: ctx.values["b"]))
    uses_sneaky = views.add_view(View("s", None, ["sneaky"], lambda ctx: ctx["sneaky"]))
    values = {"a": 1.5, "b": 2.0}
    style = style_mod.Style()
    good.run(views.context_for(good, values, style))
    assert good.data()["x"].values == 3.0
    assert views.derived["twice_a"].compute_count == 1
    good.run(views.context_for(good, values, style))  # same inputs: not computed again
    assert views.derived["twice_a"].compute_count == 1
    with pytest.raises(KeyError, match="does not declare"):
        bad.run(views.context_for(bad, values, style))
    with pytest.raises(KeyError, match="does not declare"):
        uses_sneaky.run(views.context_for(uses_sneaky, values, style))
    assert [v.name for v in views.affected({"b"})] == []
    assert [v.name for v in views.affected({"a"})] == ["good", "bad", "s"]


def test_many_changes_one_refresh(qtbot: QtBot) -> None:
    panel = _panel(qtbot, "sine")
    panel.refresh_now()
    runs = panel.refresh_count
    wave = panel.views["wave"].refresh_count
    for k in range(50):  # a dragged slider: many values before the event loop runs
        panel.state.set("amplitude", 0.5 + k / 100)
    assert panel.pending()
    qtbot.waitUntil(lambda: not panel.pending())
    assert panel.refresh_count == runs + 1
    assert panel.views["wave"].refresh_count == wave + 1
    _, y = panel.sin_curve.getData()
    assert float(np.max(y)) == pytest.approx(0.99, abs=1e-3)  # the latest value won
