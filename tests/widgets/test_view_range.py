"""HouseViewBox.show_extent: limits and range in one range update; settle applies it."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from pytestqt.qtbot import QtBot

from posenc_gui.widgets.render.view_range import HouseViewBox, settle


class _Box(HouseViewBox):  # type: ignore[misc]
    """A view box that counts its range updates."""

    updates = 0

    def updateViewRange(self, *args: Any, **kw: Any) -> None:
        self.updates += 1
        super().updateViewRange(*args, **kw)


def _box(qtbot: QtBot) -> tuple[_Box, pg.PlotWidget]:
    """A counting view box and the plot that holds it (keep it: qtbot holds it weakly)."""
    vb = _Box(enableMenu=False)
    plot = pg.PlotWidget(viewBox=vb, enableMenu=False)
    qtbot.addWidget(plot)
    plot.resize(300, 200)
    vb.disableAutoRange()
    return vb, plot


def test_limits_and_range_in_one_update(qtbot: QtBot) -> None:
    vb, _plot = _box(qtbot)
    vb.updates = 0
    assert vb.show_extent((-0.5, 99.5), (-0.5, 63.5), 4.0, 2.0) == (True, True)
    assert vb.updates == 1
    assert vb.viewRange() == [[-0.5, 99.5], [-0.5, 63.5]]
    limits = vb.state["limits"]  # as setLimits stores them
    assert limits["xLimits"] == [-0.5, 99.5] and limits["yLimits"] == [-0.5, 63.5]
    assert limits["xRange"] == [4.0, None] and limits["yRange"] == [2.0, None]
    vb.setRange(xRange=(-50.0, 500.0), padding=0.0)  # beyond the limits: clamped
    assert vb.viewRange()[0] == [-0.5, 99.5]
    vb.updates = 0
    assert vb.show_extent((-0.5, 99.5), (-0.5, 31.5), 4.0, 2.0) == (False, True)  # y alone
    assert vb.updates == 1 and vb.viewRange()[1] == [-0.5, 31.5]
    vb.updates = 0
    assert vb.show_extent((-0.5, 99.5), (-0.5, 31.5), 4.0, 2.0) == (False, False)
    assert vb.updates == 0  # nothing moved, nothing stored
    vb.setRange(xRange=(10.0, 20.0), padding=0.0)  # a zoom: the same extent shows it all again
    vb.updates = 0
    assert vb.show_extent((-0.5, 99.5), (-0.5, 31.5), 4.0, 2.0) == (True, False)
    assert vb.updates == 1 and vb.viewRange()[0] == [-0.5, 99.5]


def test_settle_applies_the_transform_before_the_paint(qtbot: QtBot) -> None:
    vb, _plot = _box(qtbot)
    vb.setRange(xRange=(0.0, 10.0), yRange=(0.0, 10.0), padding=0.0)
    settle(vb)
    before = vb.childGroup.transform()  # what the view's items are drawn through
    vb.setRange(xRange=(0.0, 20.0), padding=0.0)
    assert vb.childGroup.transform() == before  # pyqtgraph defers it to the paint
    settle(vb)
    after = vb.childGroup.transform()
    assert after != before
    assert after.m11() == before.m11() / 2  # twice the range on the same width
