"""MarkedLine: value and label text set together, nothing set when both are unchanged."""

from __future__ import annotations

from conftest import count_calls
from pytestqt.qtbot import QtBot

from posenc_gui.widgets.render.marked_line import MarkedLine


def test_a_marked_line_sets_only_a_changed_mark(qtbot: QtBot) -> None:
    line = MarkedLine(angle=0, movable=False, label="")
    values = count_calls(line, "setValue")
    texts = count_calls(line.label, "setText")
    assert line.mark(2.0, "two")
    assert line.value() == 2.0 and line.label.toPlainText() == "two"
    assert len(values) == len(texts) == 1  # the label laid out once, with the new text
    assert not line.mark(2.0, "two")  # unchanged: nothing set
    assert len(values) == len(texts) == 1
    assert line.mark(None, "two") and not line.isVisible()
    assert line.mark(2.0, "again")  # shown again where it was: the text alone
    assert line.isVisible() and line.label.toPlainText() == "again"
    assert len(values) == 1 and len(texts) == 2
