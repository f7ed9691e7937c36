"""The house base of painted read-outs: fonts that follow the style, measured advances, small
runs drawn at 2/3 of the size, and the HTML they stand for as the accessible description."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import record_updates
from PySide6.QtCore import QPoint
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPainter, QRegion
from PySide6.QtWidgets import QSizePolicy
from pytestqt.qtbot import QtBot

from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets.text import SMALL, strip_tags, table_html
from posenc_gui.widgets.text.painted import PaintedText, ReadoutTable, cell_runs, draw_text


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


# -- the painted read-out table ------------------------------------------------------------------
def _table(qtbot: QtBot, rows: list[tuple[str, str]]) -> ReadoutTable:
    t = ReadoutTable("table", None, style_mod.StyleBook(style_mod.Style()))
    qtbot.addWidget(t)
    t.set_rows(rows)
    t.resize(t.sizeHint())
    return t


_ROWS = [
    ("Position p", "37"),
    ("ω<sub>i</sub> = base<sup>−2i/d</sup>", "0.42170"),
    ("Wavelength λ<sub>i</sub>", "14.900 pos"),
    ("PE[p, 12]", "+0.1050"),
]


def test_cell_runs_read_the_read_outs_html() -> None:
    assert cell_runs("ω<sub>i</sub> = base<sup>−2i/d</sup>", False) == [
        ("ω", 0, ""), ("i", 2, "sub"), (" = base", 0, ""), ("−2i/d", 2, "sup"),
    ]  # fmt: skip
    assert cell_runs("\x0212\x03 = sin &amp; <b>x</b>", True) == [("12 = sin & x", 1, "")]
    assert cell_runs("a <b>b</b> c", False) == [("a ", 0, ""), ("b", 1, ""), (" c", 0, "")]
    with pytest.raises(ValueError, match="cannot paint"):
        cell_runs("<span style='color:red'>x</span>", False)


def test_readout_table_stands_for_its_html_table_and_right_aligns_the_values(
    qtbot: QtBot,
) -> None:
    t = _table(qtbot, _ROWS)
    assert t.text() == table_html(_ROWS)
    assert t.accessibleDescription() == strip_tags(t.text())
    drawn = t.drawn()
    texts = [d[2] for d in drawn]
    assert texts == ["Position p", "37", "ω", "i", " = base", "−2i/d", "0.42170",
                     "Wavelength λ", "i", "14.900 pos", "PE[p, 12]", "+0.1050"]  # fmt: skip
    bold = QFontMetricsF(t._fonts[1])
    values = [d for d in drawn if d[2] in ("37", "0.42170", "14.900 pos", "+0.1050")]
    assert len({round(x + bold.horizontalAdvance(s), 6) for x, _, s in values}) == 1
    baselines = sorted({y for _, y, s in drawn if s in ("37", "0.42170", "14.900 pos")})
    assert len(baselines) == 3 and baselines[1] - baselines[0] == baselines[2] - baselines[1]
    by = {d[2]: d for d in drawn}
    assert by["i"][1] > by["ω"][1] and by["−2i/d"][1] < by["ω"][1]  # sub lower, sup higher
    assert all(x >= 0 and x + bold.horizontalAdvance(s) <= t.width() for x, _, s in drawn)


def _render(t: ReadoutTable) -> np.ndarray:
    image = QImage(t.size(), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor("white"))
    t.render(image)
    h, stride = image.height(), image.bytesPerLine()
    return np.frombuffer(image.constBits(), np.uint8, count=h * stride).reshape(h, stride).copy()


def test_readout_table_repaints_the_changed_rows_to_the_pixels_of_a_whole_paint(
    qtbot: QtBot,
) -> None:
    """A step repaints the changed rows only, from the left end of the old or new value (the
    whole row when its name changed); painting only that region over the old pixels gives
    the pixels of a table given the new rows and painted whole."""
    t = _table(qtbot, _ROWS)
    image = _render(t)
    regions: list[QRegion] = record_updates(t)
    new = list(_ROWS)
    new[1] = (new[1][0], "0.086603")  # a wider value
    new[3] = ("PE[p, 14]", "−0.9945")  # a new name
    t.set_rows(new)
    assert t.repainted_rows == [1, 3] and len(regions) == 2
    assert regions[0].boundingRect().left() > t.width() / 3  # the value's cell only
    assert regions[1].boundingRect().left() == 0
    area = QRegion()
    for r in regions:
        area += r
    assert area.boundingRect().height() < t.height() * 0.8
    fresh = _table(qtbot, new)
    fresh.resize(t.size())
    assert np.array_equal(_render(t), _render(fresh))
    # the pixels outside the region repainted are those of the old table
    old = image.reshape(t.height(), -1, 4)
    now = _render(t).reshape(t.height(), -1, 4)
    for y in range(t.height()):
        for x in range(t.width()):
            if not area.contains(QPoint(x, y)) and (old[y, x] != now[y, x]).any():
                raise AssertionError(f"pixel ({x}, {y}) changed outside the repainted rows")


def test_readout_table_only_widens_until_the_style_changes(qtbot: QtBot) -> None:
    t = _table(qtbot, _ROWS)
    narrow = t.sizeHint().width()
    wide = [("Position p", "1 000 000 positions"), *_ROWS[1:]]
    t.set_rows(wide)
    w = t.sizeHint().width()
    assert w > narrow and t.repainted_rows == [0, 1, 2, 3]
    t.set_rows(_ROWS)  # narrower again: the room stays
    assert t.sizeHint().width() == w and t.repainted_rows == [0]
    t.set_rows(_ROWS)
    assert t.repainted_rows == []
    book = style_mod.StyleBook(style_mod.Style())
    t2 = ReadoutTable("t2", None, book)
    qtbot.addWidget(t2)
    t2.set_rows(wide)
    t2.set_rows(_ROWS)
    before = t2.sizeHint()
    book.apply(style_mod.Style(scale=1.5))  # measured afresh, in the new fonts
    assert t2.sizeHint().height() > before.height()
