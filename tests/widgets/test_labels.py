"""Rich-text read-outs: digit groups survive Qt's HTML import, numbers are edited in place."""

from __future__ import annotations

from typing import Any

import numpy as np
from conftest import count_calls, record_updates
from PySide6.QtGui import QColor, QImage, QPainter, QRegion
from pytestqt.qtbot import QtBot

from posenc_gui.widgets.fmt import integer
from posenc_gui.widgets.style import Style, StyleBook
from posenc_gui.widgets.text import CATCH_UP_MS, THIN, LiveText, live


def _lines(label: LiveText, width: int) -> list[str]:
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
    label = LiveText("t", None, StyleBook(Style()))
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
    label = LiveText("r", None, StyleBook(Style()))
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


def _repaint_check(
    label: LiveText, qtbot: QtBot, steps: list[list[str]], text: Any = None
) -> list[QRegion]:
    """Set each step's values; paint only the region the label asks to repaint over the old
    pixels (the background first: the label is transparent, Qt repaints what is behind it),
    and check the pixels are those of a label given the same text and painted whole."""
    label.resize(300, label.heightForWidth(300) + 10)
    image = QImage(label.size(), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor("white"))
    label.render(image)  # painted whole: the label knows where its blocks and values are
    regions: list[QRegion] = record_updates(label)
    text = text or _table
    for new in steps:
        label.set_html(text(new))
        region = regions[-1]
        painter = QPainter(image)
        painter.setClipRegion(region)
        painter.fillRect(label.rect(), QColor("white"))
        painter.end()
        label.render(image, region.boundingRect().topLeft(), region)
        whole = LiveText("w", None, StyleBook(Style()))
        qtbot.addWidget(whole)
        whole.set_html(text(new))
        whole.resize(label.size())
        expected = QImage(label.size(), QImage.Format.Format_ARGB32_Premultiplied)
        expected.fill(QColor("white"))
        whole.render(expected)
        # the same pixels; antialiased edges of a neighbour's glyph may differ by a few levels
        # in a value's edge column (the document repaints them exactly when it catches up)
        got, want = _levels(image), _levels(expected)
        assert np.abs(got - want).max() <= 8, new
        assert (got != want).sum() <= 24, new
    return regions


def _levels(image: QImage) -> np.ndarray:
    h, stride = image.height(), image.bytesPerLine()
    raw = np.frombuffer(image.constBits(), np.uint8, count=h * stride)
    return raw.reshape(h, stride).astype(np.int16)


def _prose(values: list[str]) -> str:
    a, b, c, d, e = values
    return (
        f"θ = 2πft + φ = {live(a)} rad ≡ {live(b)}°<br>(<span style='color:#d55e00'>A·cos θ"
        f"</span>, A·sin θ) = ({live(c)}, {live(d)})<br>period T = 1/f = {live(e)} s, ω = 2πf"
    )


def test_values_drawn_over_prose_leave_their_neighbours_whole(qtbot: QtBot) -> None:
    """Values between brackets, commas and units, in coloured spans: drawn over, the pixels
    are those of the text painted whole."""
    label = LiveText("r", None, StyleBook(Style()))
    qtbot.addWidget(label)
    label.set_html(_prose(["0.7854", "45.00", "+0.7071", "+0.7071", "1.0000"]))
    _repaint_check(label, qtbot, [
        ["0.9854", "56.46", "+0.5530", "+0.8331", "1.0000"],
        ["1.1854", "67.92", "+0.3780", "+0.9258", "1.0000"],
        ["2.3708", "35.84", "+0.8103", "+0.5860", "0.5000"],
    ], _prose)  # fmt: skip
    assert label.drawn_over == 3


def _powers(values: list[str]) -> str:
    a, d, c, e = values
    return (
        f"ω<sub>i</sub> = {live(a)}<sup>−2i/{live(d)}</sup> and p·ω = {live(c)} rad, "
        f"base<sup>({live(e)})</sup> again"
    )


def test_values_in_superscripts_are_drawn_over_as_qt_sets_them(qtbot: QtBot) -> None:
    """A superscript value is drawn at Qt's size and height for superscripts: the pixels are
    those of the text painted whole. One after a slash (whose ink leans into the value's box)
    is edited into the document instead."""
    label = LiveText("r", None, StyleBook(Style()))
    qtbot.addWidget(label)
    label.set_html(_powers(["10000", "128", "1.5000", "128"]))
    _repaint_check(label, qtbot, [
        ["10000", "128", "1.5000", "256"],  # the superscript in brackets
        ["12345", "128", "2.7500", "512"],  # and two on the line
    ], _powers)  # fmt: skip
    assert (label.drawn_over, label.edited) == (2, 2)
    _repaint_check(label, qtbot, [["12345", "130", "2.7500", "512"]], _powers)  # after "/"
    assert (label.drawn_over, label.edited) == (2, 3)


def _subscripts(values: list[str]) -> str:
    a, b, c = values
    return (
        f"sin(p·ω<sub>{live(a)}</sub>) and its partner cos(p·ω<sub>{live(a)}</sub>), "
        f"λ<sub>{live(b)}</sub> = {live(c)} positions"
    )


def test_values_in_subscripts_are_drawn_over_as_qt_sets_them(qtbot: QtBot) -> None:
    """A subscript value (a pair index after ω or λ) is drawn at Qt's size and depth for
    subscripts: the pixels are those of the text painted whole."""
    label = LiveText("r", None, StyleBook(Style()))
    qtbot.addWidget(label)
    label.set_html(_subscripts(["6", "12", "14.900"]))
    _repaint_check(label, qtbot, [
        ["7", "12", "14.900"],  # both subscripts of the same pair
        ["8", "31", "26.042"],  # and one on the line
    ], _subscripts)  # fmt: skip
    assert (label.drawn_over, label.edited) == (2, 2)


def test_an_in_place_edit_repaints_only_the_blocks_it_changed_or_moved(qtbot: QtBot) -> None:
    """New values of other widths are edited into the document; the region repainted (the
    blocks changed or moved) holds every changed pixel."""
    label = LiveText("r", None, StyleBook(Style()))
    qtbot.addWidget(label)
    label.set_html(_table(["1.000", "2.000", "3.000", "4.000", "5.000"]))
    regions = _repaint_check(label, qtbot, [
        ["1.000", "2.000", "3.000", "4.5", "5.000"],  # one cell, narrower: nothing moves
        ["1.000", "2.000", "3.000", "4.5", "−15.000"],  # a wider number: the column widens
        ["7.50", "2.000", "3.000", "4.5", "−15.000"],
    ])  # fmt: skip
    assert label.drawn_over == 0 and label.edited == 3
    assert regions[0].boundingRect().height() < label.height() / 4  # that row alone


def test_values_as_wide_as_before_are_drawn_over_the_text(qtbot: QtBot) -> None:
    """New values as wide as the old ones are drawn in their places (no edit, no layout);
    the pixels are those of the text painted whole, and the document catches up on demand."""
    label = LiveText("r", None, StyleBook(Style()))
    qtbot.addWidget(label)
    label.set_html(_table(["1.000", "2.000", "3.000", "4.000", "5.000"]))
    steps = [
        ["1.000", "2.000", "3.000", "4.123", "5.000"],
        ["9.876", "2.000", "3.000", "4.123", "5.432"],  # the heading's value and a cell
        ["9.876", "2.000", "3.000", "4.123", "5.432"],  # the same: nothing to do
        ["0.001", "2.000", "8.888", "4.123", "5.432"],
    ]
    revision = label._document.revision()
    regions = _repaint_check(label, qtbot, steps)
    assert label.drawn_over == 3 and label._document.revision() == revision  # no edit
    area = label.width() * label.height()
    for region in regions:  # the values' places only
        assert sum(r.width() * r.height() for r in region) < area / 10
    assert "8.888" not in label._document.toPlainText()  # behind the screen until read
    # painted whole meanwhile: the text around the values from the document, the values over
    # it (no catch-up), the pixels of the text painted whole
    whole = QImage(label.size(), QImage.Format.Format_ARGB32_Premultiplied)
    whole.fill(QColor("white"))
    label.render(whole)
    assert label._ahead and label.painted_around >= 1
    fresh_whole = LiveText("g", None, StyleBook(Style()))
    qtbot.addWidget(fresh_whole)
    fresh_whole.set_html(_table(steps[-1]))
    fresh_whole.resize(label.size())
    expected = QImage(label.size(), QImage.Format.Format_ARGB32_Premultiplied)
    expected.fill(QColor("white"))
    fresh_whole.render(expected)
    assert np.abs(_levels(whole) - _levels(expected)).max() <= 8
    qtbot.waitUntil(lambda: not label._ahead, timeout=200 * CATCH_UP_MS)  # or the values rest
    assert "8.888" in label.accessibleDescription()  # described once the values rest
    assert "8.888" in label._document.toPlainText() and "0.001" in label._doc.toPlainText()
    fresh = LiveText("f", None, StyleBook(Style()))
    qtbot.addWidget(fresh)
    fresh.set_html(_table(steps[-1]))
    assert label._doc.toHtml() == fresh._doc.toHtml()  # exactly the document of that text


def test_a_document_is_put_aside_without_writing_values_drawn_over_it(qtbot: QtBot) -> None:
    """A value drawn over the shown document is not written into it when another skeleton
    replaces it (an edit of a document about to be hidden); taken back, the document gets
    the values of the new text, and every later text reads right."""
    label = LiveText("k", None, StyleBook(Style()))
    qtbot.addWidget(label)
    label.resize(300, 60)
    image = QImage(label.size(), QImage.Format.Format_ARGB32_Premultiplied)

    def text(colour: str, value: str) -> str:
        return f"<span style='color:{colour}'>PE</span> = {live(value)} end"

    label.set_html(text("red", "12"))
    label.render(image)  # painted whole: laid out at its width
    red = label._document
    label.set_html(text("red", "34"))  # as wide: drawn over, the document still holds 12
    assert label.drawn_over == 1 and label._ahead
    replaced = count_calls(label, "_replace")
    label.set_html(text("blue", "56"))  # a new skeleton: the red document put aside as is
    assert not replaced and label._document is not red
    assert red.toPlainText() == "PE = 12 end"
    assert label._doc.toPlainText() == "PE = 56 end"
    label.set_html(text("red", "78"))  # taken back: 78 as wide as 12, drawn over it
    assert label.reused == 1 and label._document is red and label.drawn_over == 2
    assert not replaced
    assert label._doc.toPlainText() == "PE = 78 end"  # read: the value goes in (12 -> 78)
    assert len(replaced) == 1
    label.render(image)  # painted whole: laid out at its width
    for value in ("90", "12"):
        label.set_html(text("blue", value))
        assert label._doc.toPlainText() == f"PE = {value} end"
        assert label.text() == f"<span style='color:blue'>PE</span> = {value} end"


def test_values_are_drawn_over_a_document_taken_back(qtbot: QtBot) -> None:
    """A document taken back whose new values are as wide as those it holds is not edited:
    the label is painted whole from it, with the new values drawn in their places, and looks
    exactly like a label that was given the text afresh."""
    book = StyleBook(Style())
    label = LiveText("k", None, book)
    fresh = LiveText("f", None, book, keep=0)
    images = []
    for widget in (label, fresh):
        qtbot.addWidget(widget)
        widget.resize(300, 60)
        images.append(QImage(widget.size(), QImage.Format.Format_ARGB32_Premultiplied))

    def text(colour: str, value: str) -> str:
        return f"<span style='color:{colour}'>PE</span> = {live(value)} end"

    for colour, value in (("red", "12"), ("blue", "34")):
        label.set_html(text(colour, value))
        label.render(images[0])  # painted whole: laid out at its width
    replaced = count_calls(label, "_replace")
    label.set_html(text("red", "78"))  # taken back; 78 as wide as the 12 it holds
    assert label.reused == 1 and label.drawn_over == 1 and label._ahead and not replaced
    images[0].fill(0)
    label.render(images[0])
    assert label.painted_around == 1 and label._ahead and not replaced  # still holds 12
    fresh.set_html(text("red", "78"))
    images[1].fill(0)
    fresh.render(images[1])
    assert images[0] == images[1]
    assert label._doc.toPlainText() == "PE = 78 end" and len(replaced) == 1


def test_texts_shown_again_are_swapped_in_within_the_budget(qtbot: QtBot) -> None:
    """Formulas without values (the whole text is the template): one shown again within the
    last ``keep`` is swapped in (not parsed, its measured height kept); past the budget the
    oldest document is parsed into anew, so the label never holds more than ``keep + 1``."""
    label = LiveText("k", None, StyleBook(Style()), keep=2)
    qtbot.addWidget(label)
    texts = [f"rule for <b>{n}</b> heads" for n in range(4)]
    for t in texts[:3]:
        label.set_html(t)
        label.heightForWidth(200)
    docs = {id(laid.doc) for laid in label._kept.values()} | {id(label._document)}
    assert label.parsed == 3 and len(docs) == 3
    label.set_html(texts[0])  # kept: swapped in, with its height by width
    assert (label.parsed, label.reused) == (3, 1) and 200 in label._cur.heights
    assert label._document.toPlainText() == "rule for 0 heads"
    label.set_html(texts[3])  # not kept: parsed into the oldest kept document (texts[1]'s)
    assert label.parsed == 4 and len(label._kept) == 2
    assert {id(laid.doc) for laid in label._kept.values()} | {id(label._document)} == docs
    assert label.text() == texts[3] and label.accessibleDescription() == "rule for 3 heads"
    label.set_html(texts[1])  # forgotten: parsed again
    assert label.parsed == 5
