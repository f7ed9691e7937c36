"""Rich-text read-outs: digit groups survive Qt's HTML import, numbers are edited in place."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from posenc_gui.widgets.fmt import integer
from posenc_gui.widgets.style import Style, StyleBook
from posenc_gui.widgets.styled import THIN, FormulaLabel, ReadoutLabel, live


def _lines(label: FormulaLabel, width: int) -> list[str]:
    doc = label._doc
    doc.setTextWidth(width)
    doc.size()  # lays the document out
    text, out = doc.toPlainText(), []
    block = doc.begin()
    while block.isValid():
        layout = block.layout()
        for i in range(layout.lineCount()):
            line = layout.lineAt(i)
            start = block.position() + line.textStart()
            out.append(text[start : start + line.textLength()])
        block = block.next()
    return out


def test_digit_groups_never_break_a_line(qtbot: QtBot) -> None:
    label = FormulaLabel("t", None, StyleBook(Style()))
    qtbot.addWidget(label)
    big = integer(999_999_999)
    assert THIN in big
    label.set_html(" ".join([f"positions 0…{big}"] * 6))
    assert THIN in label._doc.toPlainText()  # kept, not turned into a breakable space
    lines = _lines(label, 90)
    assert len(lines) > 3  # it did wrap
    for line in lines:
        assert not line.startswith(THIN) and not line.rstrip().endswith(THIN), lines


def test_grouped_numbers_are_edited_in_place(qtbot: QtBot) -> None:
    label = ReadoutLabel("r", None, StyleBook(Style()))
    qtbot.addWidget(label)
    label.set_html(f"L = {live(integer(10_000))}, p = {live(3)}")
    label.set_html(f"L = {live(integer(200_000))}, p = {live(4)}")
    assert (label.parsed, label.edited) == (1, 1)
    assert label._doc.toPlainText() == f"L = {integer(200_000)}, p = 4"
