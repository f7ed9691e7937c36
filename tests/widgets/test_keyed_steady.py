"""KeyedCurve sets data only for a new key; SteadyLimit and ShownRange keep a plot's range."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from pytestqt.qtbot import QtBot

from posenc_gui.core.rope import nice_ceil
from posenc_gui.widgets.render.keyed import KeyedCurve
from posenc_gui.widgets.render.steady import SteadyLimit, steady_limit
from posenc_gui.widgets.render.view_range import ShownRange


def test_keyed_curve_sets_data_only_for_a_new_key(qtbot: QtBot) -> None:
    curve = KeyedCurve()
    made: list[float] = []

    def make(r: float) -> tuple[np.ndarray, np.ndarray]:
        made.append(r)
        return np.array([0.0, r]), np.array([0.0, r])

    assert curve.set_data_for((1.0,), lambda: make(1.0))
    x = curve.getData()[0]
    assert not curve.set_data_for((1.0,), lambda: make(1.0))
    assert curve.getData()[0] is x and made == [1.0]
    assert curve.set_data_for((2.0,), lambda: make(2.0)) and curve.getData()[0][1] == 2.0
    curve.setData(np.zeros(2), np.zeros(2))  # set directly: the next keyed set runs
    assert curve.data_key is None and curve.set_data_for((2.0,), lambda: make(2.0))
    flags = np.array([True, False])
    curve.set_data_for("arrow", lambda: (np.zeros(2), np.ones(2), flags))
    assert np.array_equal(curve.opts["connect"], flags)


def test_steady_limit_moves_only_when_the_data_leaves_its_band() -> None:
    lim = SteadyLimit(2.0)
    assert lim.fit(0.83) == (nice_ceil(0.83), True)
    assert lim.fit(0.6) == (1.0, False) and lim.fit(1.0) == (1.0, False)
    assert lim.fit(0.45) == (nice_ceil(0.45), True)
    assert steady_limit(1.01, 1.0, 2.0) == nice_ceil(1.01)


def test_shown_range_sets_only_what_changed(qtbot: QtBot) -> None:
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    shown = ShownRange(plot)
    assert shown.show((0.0, 10.0), (-1.0, 1.0))
    vb = plot.getPlotItem().getViewBox()
    assert vb.viewRange()[0] == [0.0, 10.0] and vb.viewRange()[1] == [-1.0, 1.0]
    assert not shown.show((0.0, 10.0), (-1.0, 1.0))
    assert shown.show(y=(-2.0, 2.0)) and vb.viewRange()[1] == [-2.0, 2.0]
    assert vb.viewRange()[0] == [0.0, 10.0]
