"""Painted read-outs moved out of the tabs: matrix equations (MatrixLine, ReadoutStack) and
cells in column groups (ColumnGroups)."""

from __future__ import annotations

from PySide6.QtGui import QFontMetricsF
from pytestqt.qtbot import QtBot

from posenc_gui.widgets import style as style_mod
from posenc_gui.widgets.text import RichLines, strip_tags
from posenc_gui.widgets.text.columns import ColumnGroups
from posenc_gui.widgets.text.matrix import MatrixLine, ReadoutStack


def test_a_matrix_line_right_aligns_entries_and_writes_its_table(qtbot: QtBot) -> None:
    book = style_mod.StyleBook(style_mod.Style())
    line = MatrixLine("a_matrix", None, book, "text")
    qtbot.addWidget(line)
    line.set_parts(["R =", [["+1.0000", "−0.5"], ["+12.25", "+0.0000"]]], [("", "", False),
                   ("R", "key", True)])  # fmt: skip
    fm = QFontMetricsF(line.font())
    by = {t: (x, y) for x, y, t in line.drawn()}
    ends = {round(by[t][0] + fm.horizontalAdvance(t), 6) for t in ("+1.0000", "+12.25")}
    assert len(ends) == 1  # a column's entries share their right edge
    assert by["+1.0000"][1] == by["−0.5"][1] < by["+12.25"][1]  # rows on baselines
    assert by["R"][1] < by["+1.0000"][1]  # the head above its matrix
    assert by["R ="][1] > by["+1.0000"][1]  # a text centred on the two rows
    html = line.text()
    assert html.count("<table") == 1 and "rowspan='2'" in html
    assert strip_tags(html).split() == ["R", "R", "=", "+1.0000", "−0.5", "+12.25", "+0.0000"]
    width = line.sizeHint().width()
    line.set_parts(["R =", [["1", "2"], ["3", "4"]]])
    assert line.sizeHint().width() == width  # the room only grows (no layout at every step)


def test_a_stack_answers_as_one_read_out(qtbot: QtBot) -> None:
    book = style_mod.StyleBook(style_mod.Style())
    a, b = RichLines("a", None, book, "text"), MatrixLine("b", None, book, "text")
    stack = ReadoutStack("stack", None, [a, b])
    qtbot.addWidget(stack)
    a.set_lines([[("one", "", False)]])
    b.set_parts(["two"])
    assert strip_tags(stack.text()).split() == ["one", "two"]
    assert stack.edited == 1 and stack.parsed == 0
    assert a.parentWidget() is stack and stack.accessibleName() == "stack"


def _table(n: int) -> tuple[str, tuple[str, ...], list[tuple[str, str]], int]:
    cells = [(str(k), f"2<sup>−{k}</sup>") for k in range(1, n + 1)]
    return f"{n} items", ("<b>k</b>", "<b>x<sub>k</sub></b>"), cells, (n + 1) // 2


def test_column_groups_align_right_and_keep_their_layouts(qtbot: QtBot) -> None:
    book = style_mod.StyleBook(style_mod.Style())
    w = ColumnGroups("groups", None, book)
    qtbot.addWidget(w)
    w.set_cells(*_table(10))
    drawn = w.drawn()
    assert drawn[0][2] == "10 items"
    fm = QFontMetricsF(w.font())
    ends = {t: x + fm.horizontalAdvance(t) for x, _, t in drawn if t in ("1", "5", "6")}
    assert abs(ends["1"] - ends["5"]) < 1e-6 and ends["6"] > ends["5"]  # two groups
    ys = {t: y for _, y, t in drawn}
    assert ys["1"] == ys["6"] < ys["5"]  # column-major
    two = next(y for _, y, t in drawn if t == "2" and y == ys["1"])
    assert ys["−1"] < two  # a superscript is raised
    sub = [y for _, y, t in drawn if t == "k" and y != ys["x"]]
    assert ys["x"] < min(sub) < ys["1"]  # the header's subscript is lowered a little
    text = strip_tags(w.text())
    assert "10 items" in text and "2−10" in text and w.accessibleDescription() == text
    laid = w.laid_out
    w.set_cells(*_table(4))
    w.set_cells(*_table(10))
    assert w.laid_out == laid + 1  # the layout of 10 items was kept
    w.grab()


def test_column_groups_reserve_the_room_of_the_largest(qtbot: QtBot) -> None:
    book = style_mod.StyleBook(style_mod.Style())
    w = ColumnGroups("groups", None, book)
    qtbot.addWidget(w)
    w.reserve(*_table(40))
    size, grown = w.minimumSizeHint(), w.grown
    for n in (1, 7, 40, 3):
        w.set_cells(*_table(n))
        assert max(y for _, y, _ in w.drawn()) < size.height()
    assert (w.grown, w.minimumSizeHint()) == (grown, size)
    w.set_cells(*_table(60))
    assert w.grown == grown + 1 and w.minimumSizeHint().height() > size.height()
