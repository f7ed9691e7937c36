"""What every text of the family shares: the markup its texts are written in, and one base widget.

Read-outs are written as HTML (what a screen reader gets, what tests read) with their changing
numbers marked by :func:`live`. The helpers here only build and take apart such strings; the
widgets that show them are :class:`~posenc_gui.widgets.text.live_text.LiveText` (a laid-out
document) and the painted ones of :mod:`posenc_gui.widgets.text.painted` (plain strings, no
document).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape as html_escape

from PySide6.QtWidgets import QWidget

from posenc_gui.widgets.style import Style

#: The digit-group separator of :mod:`posenc_gui.widgets.fmt` (narrow no-break space).
THIN = "\u202f"
_THIN_KEPT = f"<span style='white-space:pre-wrap'>{THIN}</span>"
NBSP = "\u00a0"
#: HTML that keeps a table's numbers on one line each (inherited by the cells; one style per
#: table lays out faster than one per cell): the texts painted blocks stand for use it.
NOWRAP = "style='white-space:pre'"

#: Sub- and superscripts as a rich text sets them: at 2/3 of the size, a subscript's baseline
#: lowered by a sixth of the small font's height, a superscript's raised by half of it.
SMALL, SUB, SUP = 2.0 / 3.0, 1.0 / 6.0, 0.5

_TAG = re.compile(r"<[^>]*>?|>")
#: A value marked by :func:`live`.
VALUE = re.compile("\x02([^\x03]*)\x03")


def live(text: object) -> str:
    """A value of a read-out (plain text) that a :class:`~posenc_gui.widgets.text.LiveText`
    can draw over or replace in place; the rest of the HTML is its template."""
    return f"\x02{html_escape(str(text), quote=False)}\x03"


def unmarked(html: str) -> str:
    """``html`` without the marks of :func:`live` (the HTML it stands for)."""
    return html.replace("\x02", "").replace("\x03", "") if "\x02" in html else html


def keep_thin_spaces(html: str) -> str:
    """``html`` with its narrow no-break spaces protected from Qt's HTML import.

    Qt's rich-text parser treats U+202F as ordinary white space and turns it into a plain,
    breakable space: "10 000" could wrap inside the number and would not read back as set. In
    a ``white-space: pre-wrap`` span the character is kept as it is (and never breaks a line).
    """
    return html.replace(THIN, _THIN_KEPT) if THIN in html else html


def strip_tags(html: str) -> str:
    """The text of ``html`` without tags (for accessible descriptions and tests)."""
    return _TAG.sub("", html).replace("&nbsp;", " ")


def span(st: Style, role: str, html: str) -> str:
    """``html`` in the colour of ``role`` (for formulas that name a plotted line)."""
    return f"<span style='color:{st.color(role)[:7]}'>{html}</span>"


def table_html(rows: Sequence[tuple[str, str]]) -> str:
    """A two-column read-out table (name, value) in HTML."""
    cells = "".join(
        f"<tr><td style='padding-right:10px'>{k}</td><td align='right'><b>{v}</b></td></tr>"
        for k, v in rows
    )
    return f"<table cellspacing='0' cellpadding='1'>{cells}</table>"


class TextWidget(QWidget):
    """A read-out of the family: named for screen readers, its content the HTML it stands for
    (:meth:`text`), described to screen readers as that HTML without tags."""

    def __init__(self, name: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setAccessibleName(name.replace("_", " "))
        self._html = ""

    def text(self) -> str:
        """The content as the HTML it stands for (without the marks of :func:`live`)."""
        return self._html

    def _describe(self) -> None:
        """The accessible description: the text shown, without tags."""
        self.setAccessibleDescription(strip_tags(self._html))
