"""StraightCurve: every point kept in its data, one segment drawn, no cached pixels."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QImage, QPainter, QPen, QTransform
from PySide6.QtWidgets import QGraphicsItem

from posenc_gui.widgets.render import PixelCurve
from posenc_gui.widgets.render.straight import StraightCurve


def _alpha(item: PixelCurve, transform: QTransform) -> np.ndarray:
    img = QImage(300, 220, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(0)
    p = QPainter(img)
    try:
        p.setTransform(transform)
        item.paint(p, None, None)  # type: ignore[arg-type]
    finally:
        p.end()
    bits = np.frombuffer(img.constBits(), dtype=np.uint8).reshape(220, 300, 4)
    return bits[:, :, 3].astype(int)


def test_a_straight_curve_draws_the_polylines_pixels_as_one_segment(qapp: object) -> None:
    x = np.arange(40, dtype=np.float64)
    y = 0.8 + x * 0.05
    poly, one = PixelCurve(), StraightCurve()
    for item in (poly, one):
        item.setPen(QPen(QPen().color(), 3.0))
        item.setData(x, y)
    t = QTransform(7.0, 0.0, 0.0, -60.0, 10.0, 200.0)  # data -> pixels, y up
    a, b = _alpha(poly, t), _alpha(one, t)
    assert len(one._lines) == 1 and len(poly._lines) == len(x) - 1  # one segment drawn
    assert np.array_equal(one.getData()[0], x) and np.array_equal(one.getData()[1], y)
    assert a.sum() > 0
    assert np.count_nonzero((a > 0) != (b > 0)) <= 0.01 * np.count_nonzero(a)
    assert np.all(a[b == 255] == 255)


def test_a_straight_curve_keeps_no_pixels(qapp: object) -> None:
    assert StraightCurve().cacheMode() == QGraphicsItem.CacheMode.NoCache
    assert PixelCurve().cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache
