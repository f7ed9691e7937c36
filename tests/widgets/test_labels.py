"""Rich-text read-outs: digit groups survive Qt's HTML import, numbers are edited in place."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage, QPainter, QRegion
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


def _table(values: list[str]) -> str:
    rows = "".join(
        f"<tr><td>row {i}</td><td align='right'>{live(v)}</td></tr>" for i, v in enumerate(values)
    )
    return f"<p>Heading {live(values[0])}</p><table>{rows}</table><p>after</p>"


def test_an_in_place_edit_repaints_only_the_blocks_it_changed_or_moved(qtbot: QtBot) -> None:
    """The region an in-place edit repaints holds every changed pixel: the old pixels with that
    region painted anew are the pixels of the new text painted whole."""
    values = ["1.000", "2.000", "3.000", "4.000", "5.000"]
    label = ReadoutLabel("r", None, StyleBook(Style()))
    qtbot.addWidget(label)
    label.set_html(_table(values))
    label.resize(300, label.heightForWidth(300) + 10)
    image = QImage(label.size(), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor("white"))
    label.render(image)  # painted whole: the label knows where its blocks are
    regions: list[QRect] = []
    update = label.update

    def record(*args: object) -> None:
        regions.append(args[0] if args else label.rect())  # type: ignore[arg-type]
        update(*args)  # type: ignore[arg-type]

    label.update = record  # type: ignore[method-assign]
    for new in (["1.000", "2.000", "3.000", "4.500", "5.000"],  # one cell
                ["1.000", "2.000", "3.000", "4.500", "−15.000"],  # a wider number
                ["7.000", "2.000", "3.000", "4.500", "−15.000"]):  # fmt: skip
        label.set_html(_table(new))
        assert (label.parsed, label.edited) == (1, len(regions))
        region = regions[-1]
        if new[4] == "5.000":  # one cell changed, nothing moved: that row alone
            assert region.height() < label.height() / 4
        # only that part anew, over the old pixels: the background under it first (the label
        # is transparent: Qt repaints what is behind a dirty region), then the label
        painter = QPainter(image)
        painter.fillRect(region, QColor("white"))
        painter.end()
        label.render(image, region.topLeft(), QRegion(region))
        whole = ReadoutLabel("w", None, StyleBook(Style()))
        qtbot.addWidget(whole)
        whole.set_html(_table(new))
        whole.resize(label.size())
        expected = QImage(label.size(), QImage.Format.Format_ARGB32_Premultiplied)
        expected.fill(QColor("white"))
        whole.render(expected)
        assert image == expected, new
