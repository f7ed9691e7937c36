"""Read-outs: the texts beside the plots, whose numbers change at every step of a slider.

One family, one base (:class:`~posenc_gui.widgets.text.base.TextWidget`: named for screen
readers, :meth:`text` is the HTML it stands for, described as that HTML without tags), two
ways of showing a text:

- :class:`LiveText` (:mod:`.live_text`): *the* live text. Made from a template and values
  (HTML whose numbers are marked with :func:`live`), it decides by itself whether to draw new
  digits over the laid-out document, edit them into it in place, take back a document it kept
  for another template, or lay the text out again; a text without values is a formula. Every
  rich-text read-out of the app is one.
- The painted read-outs (:mod:`.painted`): :class:`ReadoutTable` (a two-column table of
  numbers), :class:`GridTable` (a table under a header row, a :class:`PaintedBlock`) and
  :class:`RichLines` (sentences of styled runs, wrapped). They are not live texts: they hold
  no document at all. Their content is a grid of cells or runs rather than free HTML, every
  number in them changes at every step, and a table inside a document is laid out again whole
  whenever one number changes width; placing plain strings with font metrics is cheaper there.

The markup helpers (:func:`live`, :func:`span`, :func:`table_html`, :func:`strip_tags`,
:func:`keep_thin_spaces`) are in :mod:`.base`.
"""

from posenc_gui.widgets.text.base import (
    NBSP,
    NOWRAP,
    SMALL,
    SUB,
    SUP,
    THIN,
    TextWidget,
    keep_thin_spaces,
    live,
    span,
    strip_tags,
    table_html,
)
from posenc_gui.widgets.text.live_text import CATCH_UP_MS, KEPT_DOCUMENTS, LiveText
from posenc_gui.widgets.text.painted import (
    GridTable,
    PaintedBlock,
    PaintedText,
    ReadoutTable,
    RichLines,
    Run,
    Styled,
    draw_text,
)

__all__ = [
    "CATCH_UP_MS",
    "KEPT_DOCUMENTS",
    "NBSP",
    "NOWRAP",
    "SMALL",
    "SUB",
    "SUP",
    "THIN",
    "GridTable",
    "LiveText",
    "PaintedBlock",
    "PaintedText",
    "ReadoutTable",
    "RichLines",
    "Run",
    "Styled",
    "TextWidget",
    "draw_text",
    "keep_thin_spaces",
    "live",
    "span",
    "strip_tags",
    "table_html",
]
