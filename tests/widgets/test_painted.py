"""The house base of painted read-outs: fonts that follow the style, measured advances, small
runs drawn at 2/3 of the size, and the HTML they stand for as the accessible description."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QSizePolicy
from pytestqt.qtbot import QtBot

from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets.painted import SMALL, PaintedText, draw_text


def _widget(qtbot: QtBot, book: style_mod.StyleBook) -> PaintedText:
    policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
    w = PaintedText("some_read_out", None, book, "text", policy)
    qtbot.addWidget(w)
    return w


def test_advances_follow_the_fonts_and_the_style(qtbot: QtBot) -> None:
    book = style_mod.StyleBook(style_mod.Style())
    w = _widget(qtbot, book)
    assert w.accessibleName() == "some read out"
    regular, bold, small = w._advance("12.5", 0), w._advance("12.5", 1), w._advance("12.5", 2)
    assert regular == w._metrics[0].horizontalAdvance("12.5") and bold >= regular
    assert small == regular * SMALL and w._advance("12.5", 3) == bold * SMALL
    book.apply(style_mod.Style(scale=2.0))  # a restyle: new fonts, advances measured anew
    assert w.font().pointSizeF() > 0 and w._advance("12.5", 0) > 1.5 * regular
    w._set_html("<b>slope</b> 2<sup>−1</sup>")
    assert w.text() == "<b>slope</b> 2<sup>−1</sup>"
    assert w.accessibleDescription() == "slope 2−1"


def _ink_width(small: bool) -> int:
    image = QImage(200, 60, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    p = QPainter(image)
    p.setPen(QColor("black"))
    draw_text(p, 10.0, 40.0, "8888", small)
    p.end()
    a = np.frombuffer(image.constBits(), np.uint8).reshape(60, 200, 4)[..., 0]
    cols = np.nonzero((a < 128).any(axis=0))[0]
    return int(cols.max() - cols.min() + 1)


def test_small_runs_are_drawn_at_two_thirds_of_the_size(qtbot: QtBot) -> None:
    full, small = _ink_width(False), _ink_width(True)
    assert abs(small - full * SMALL) <= 2, (full, small)
