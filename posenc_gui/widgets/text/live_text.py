"""The live text: a rich-text read-out made from a template and values, shown at the least cost.

A read-out is written as HTML whose changing numbers are marked with
:func:`~posenc_gui.widgets.text.base.live`; the rest (the *template*, or skeleton) rarely
changes. :class:`LiveText` shows it and decides by itself, at every new text, how:

1. **Draw over** — the template is the one shown and every changed value is as wide as the one
   it replaces (a slider step changes the digits, not their number; digits are equally wide),
   in a plain, sub- or superscript position between upright characters (:data:`_UPRIGHT`: a
   "/" or "…" leans into the value's box, which a repaint would cut). The new values are
   painted in their places, in their font and colour, over the laid-out document, and only
   those places are repainted: ~0.02 ms instead of ~0.3 ms for an edit and a layout. The
   document catches up when the values rest (:data:`CATCH_UP_MS`) or as soon as anything reads
   it; so does the accessible description (a screen reader reads the numbers a drag settles on).
2. **Edit in place** — the template is the one shown, a value changed width: the changed values
   are replaced in the document in one edit block, each keeping its character format (values
   are anchors, ``<a name>``, of the document). The document is exactly what ``setHtml`` of
   the new text builds, without parsing the HTML or laying the whole text out again; heights
   measured by width are kept (new numbers rarely change them); only the blocks the edit changed
   or moved are repainted.
3. **Take a document back** — another template: the shown document is put aside as it is
   (laid out, with its value slots and measured sizes; values drawn over it are not written in
   first) and the label takes back the document it kept for the new template, whose values are
   then drawn over or edited as above (the whole label repainted). A sine column and a cosine
   column of the heatmap colour their numbers differently: without this, every other
   ``dimension`` step parsed and laid out a document anew (~0.7 ms); a rule text shown again for
   a head count (no values at all: the template is the whole text) is swapped in without a parse
   (~0.4 ms) and, at the width it was painted at, without a layout (~0.3 ms).
4. **Lay out again** — a template not kept: the HTML is parsed into a document (the least
   recently shown one past :attr:`LiveText.keep`, reused) and laid out.

It keeps: the shown document and up to ``keep`` others by template (forgotten on a new style:
their fonts and colours are the old ones), per document its values, their positions and formats,
and its heights by width and ideal/least widths (a layout pass asks for several widths, each
new width lays the whole text out again); the places of the values as laid out now; the block
rectangles of the last whole paint.

And a stable geometry: a ``QLabel`` whose text changes asks its parent layout to recompute,
and the whole column is laid out and repainted again (10–25 ms a frame on the reference
machine). This widget paints its document itself: a new text repaints only this widget, and
the layout is asked again only when the text needs more height than it has (the height only
grows, so a read-out whose digits change every frame never moves anything).

What a panel should do to stay on the cheap paths: keep the text around the values the same,
format values at a steady width (same digit count and sign), and write a span such as
``0…99`` or ``2i/128`` as one value (a value beside a leaning glyph is edited, not drawn over).
The counters ``parsed``, ``edited``, ``drawn_over``, ``painted_around`` and ``reused`` say which
path each text took (for tests).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from html import escape as html_escape
from html import unescape
from typing import Any, NamedTuple

from PySide6.QtCore import QPointF, QRect, QRectF, QSize, QTimer
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPaintEvent,
    QPalette,
    QRegion,
    QResizeEvent,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from posenc_gui.widgets.style import Style, StyleBook
from posenc_gui.widgets.text.base import SUB, SUP, VALUE, TextWidget, keep_thin_spaces, unmarked

#: After this long without a new value, values drawn over a read-out go into its document.
CATCH_UP_MS = 300
#: Documents a :class:`LiveText` keeps besides the one it shows, by default.
KEPT_DOCUMENTS = 4

#: The vertical alignments of values that can be drawn over the laid-out text.
_DRAWN_OVER = (
    QTextCharFormat.VerticalAlignment.AlignNormal,
    QTextCharFormat.VerticalAlignment.AlignSuperScript,
    QTextCharFormat.VerticalAlignment.AlignSubScript,
)

#: Characters that keep to their own advance: next to a value drawn over, none of their ink
#: lies in the value's box (a slash or an italic letter leans into the next one's, and a
#: value's box repainted would cut it).
_UPRIGHT = frozenset(" \u00a0\u2009\u202f\u2028\u20290123456789.,;:=()[]{}+−-×·°%|~…ωλθ")

#: Font metrics by font (measuring a value's width needs them at every step).
_METRICS: dict[str, QFontMetricsF] = {}

#: A value's place in a document: its position and length (UTF-16 units) and its format.
Slot = tuple[int, int, QTextCharFormat]


class _Place(NamedTuple):
    """Where a value is laid out, and how it is drawn."""

    origin: QPointF  # the start of its baseline
    box: QRect  # the pixels of its advance and line height
    metrics: QFontMetricsF
    font: QFont
    colour: QColor


class _Laid:
    """One document of a :class:`LiveText` and what the label knows of it."""

    __slots__ = ("doc", "heights", "ideal", "least", "skeleton", "slot_blocks", "slots", "values")

    def __init__(self, doc: QTextDocument) -> None:
        self.doc = doc
        self.skeleton: tuple[str, ...] = ()
        #: The values the document holds (behind those on screen while drawn over).
        self.values: list[str] = []
        #: Per value, where it is (None: not found as set, the document cannot be edited).
        self.slots: list[Slot] | None = None
        #: Per value, the number of its block (found when first needed after a parse).
        self.slot_blocks: list[int] | None = None
        #: Text height by width, ideal width, width of the widest unbreakable part.
        self.heights: dict[int, int] = {}
        self.ideal: int | None = None
        self.least: int | None = None

    def forget_widths(self) -> None:
        self.ideal = self.least = None


class LiveText(TextWidget):
    """A rich-text read-out from a template and values (see the module docstring for how it
    decides between drawing over, editing in place, taking a document back and laying out).

    ``kind`` is the style's font size kind; ``keep`` the number of documents kept besides the
    one shown (a text whose templates cycle through more than a few: a larger ``keep``).
    """

    def __init__(
        self,
        name: str,
        parent: QWidget | None,
        book: StyleBook,
        kind: str = "text",
        keep: int = KEPT_DOCUMENTS,
    ) -> None:
        super().__init__(name, parent)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.keep = keep
        self._kind = kind
        self._cur = _Laid(self._new_document())
        #: Documents put aside, by template, least recently shown first.
        self._kept: OrderedDict[tuple[str, ...], _Laid] = OrderedDict()
        # the height the paint found the text needs: it only grows while the width stays or
        # narrows, and is forgotten when the text gets wider room (see resizeEvent)
        self._needed = 0
        #: The values on screen (ahead of the document's while drawn over).
        self._shown: list[str] = []
        #: The document's values lag the values drawn over it.
        self._ahead = False
        #: The values drawn over the document since it last took them in.
        self._over: set[int] = set()
        #: By value, where the laid-out document shows it (None: it cannot be drawn over),
        #: for the document state of ``_geo_key``.
        self._geo: dict[int, _Place | None] = {}
        self._geo_key: tuple[Any, ...] | None = None
        #: Where each block was laid out at the last whole paint (document coordinates): an
        #: in-place edit repaints only the blocks it changed or moved.
        self._blocks: list[QRectF] = []
        #: Which path the texts took (for tests).
        self.parsed = self.edited = self.drawn_over = self.painted_around = self.reused = 0
        self._catch_up_timer = QTimer(self)
        self._catch_up_timer.setSingleShot(True)
        self._catch_up_timer.setInterval(CATCH_UP_MS)
        self._catch_up_timer.timeout.connect(self._catch_up)
        book.add(self._restyle)

    # -- documents ------------------------------------------------------------------------------
    @property
    def _doc(self) -> QTextDocument:
        """The document shown, with every value on screen in it."""
        if self._ahead:
            self._catch_up()
        return self._cur.doc

    @property
    def _document(self) -> QTextDocument:
        """The document shown, as it is (values drawn over it not written in)."""
        return self._cur.doc

    def _new_document(self) -> QTextDocument:
        doc = QTextDocument(self)
        doc.setDocumentMargin(2)
        doc.setUndoRedoEnabled(False)  # in-place edits must not pile up undo steps
        doc.setDefaultFont(self.font())
        return doc

    def _restyle(self, st: Style) -> None:
        self.setFont(st.font(self._kind))
        for laid in self._kept.values():  # laid out in the old font and colours
            laid.doc.deleteLater()
        self._kept.clear()
        self._doc.setDefaultFont(self.font())
        self._cur.heights.clear()
        self._cur.forget_widths()
        self._needed = 0
        self.setMinimumHeight(0)
        self.updateGeometry()
        self.update()

    def _settle(self) -> None:
        """Forget the values drawn over the document (it is edited, replaced or put aside)."""
        self._ahead = False
        self._over.clear()
        self._catch_up_timer.stop()

    def _switch_to(self, skeleton: tuple[str, ...]) -> bool:
        """Put the shown document aside and show the one kept for ``skeleton`` (True), or one
        to parse into (False)."""
        self._settle()
        cur = self._cur
        if cur.slots is not None:
            self._kept[cur.skeleton] = cur
            self._kept.move_to_end(cur.skeleton)
        hit = self._kept.pop(skeleton, None)
        if hit is not None:
            if cur.slots is None:
                cur.doc.deleteLater()
            self._cur, self._shown = hit, list(hit.values)
            self.reused += 1
        elif cur.slots is not None:  # a document to parse into (the one shown if not kept):
            if len(self._kept) > self.keep:  # the oldest kept past the budget, reused
                self._cur = self._kept.popitem(last=False)[1]
                self._cur.slots = None
            else:
                self._cur = _Laid(self._new_document())
        while len(self._kept) > self.keep:
            self._kept.popitem(last=False)[1].doc.deleteLater()
        # the blocks of the last paint, the places of the values: another document's
        self._blocks, self._geo_key = [], None
        return hit is not None

    # -- texts -------------------------------------------------------------------------------
    def set_html(self, html: str) -> None:
        """Show ``html`` (values marked with :func:`live`); :meth:`text` returns it unmarked."""
        clean = unmarked(html)
        if clean == self._html:
            return
        self._html = clean
        parts = VALUE.split(html)
        skeleton, values = tuple(parts[0::2]), [unescape(x) for x in parts[1::2]]
        swapped = False
        if skeleton != self._cur.skeleton or self._cur.slots is None:
            swapped = self._switch_to(skeleton)
        if self._cur.slots is None or not all(values):
            self._parse(skeleton, values)
            return
        if values == self._shown:  # a document taken back that holds these values
            self._describe()
            self.update()
            return
        self.edited += 1
        region = self._draw_over(values)
        if region is not None:  # (the accessible description follows when it catches up)
            if swapped:
                self.update(self.rect())  # another document: the whole label
            else:
                self.update(region)
            return
        self._describe()
        self._settle()  # the edit below puts every value on screen in the document
        changed = self._replace(values)
        self._shown = list(values)
        self._cur.forget_widths()
        self.update(self.rect() if swapped else self._dirty(changed))

    def _parse(self, skeleton: tuple[str, ...], values: list[str]) -> None:
        """Lay the text out anew in the document shown."""
        self._settle()
        anchored = skeleton[0] + "".join(
            f"<a name='v{i}'>{html_escape(v, quote=False)}</a>{rest}"
            for i, (v, rest) in enumerate(zip(values, skeleton[1:], strict=True))
        )
        laid = self._cur
        laid.doc.setHtml(keep_thin_spaces(anchored))
        laid.skeleton, laid.values = skeleton, values
        laid.slots, laid.slot_blocks = self._find_slots(values), None
        laid.heights.clear()
        laid.forget_widths()
        self._shown = list(values)
        self._blocks, self._geo_key = [], None
        self.parsed += 1
        self._describe()
        self.update()

    def _catch_up(self) -> None:
        """Put the values drawn over the document into it, and repaint from it."""
        if not self._ahead:
            return
        self._describe()
        self._settle()
        self._replace(self._shown)
        self._cur.forget_widths()
        self.update()

    def _find_slots(self, values: list[str]) -> list[Slot] | None:
        """Where the anchored values are (None if one is not found as set: then texts are set
        anew). An anchor's name marks the first character of its value."""
        doc = self._cur.doc
        found: dict[str, tuple[int, QTextCharFormat]] = {}
        block = doc.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                fmt = frag.charFormat()
                for name in fmt.anchorNames():
                    found.setdefault(name, (frag.position(), fmt))
                it += 1
            block = block.next()
        slots = []
        cursor = QTextCursor(doc)
        for i, value in enumerate(values):
            hit = found.get(f"v{i}")
            if hit is None:
                return None
            pos, length = hit[0], len(value.encode("utf-16-le")) // 2
            cursor.setPosition(pos)
            cursor.setPosition(pos + length, QTextCursor.MoveMode.KeepAnchor)
            if cursor.selectedText() != value:
                return None
            slots.append((pos, length, hit[1]))
        return slots

    def _replace(self, values: list[str]) -> list[int]:
        """Replace the document's values that differ from ``values``; the indices of those."""
        laid = self._cur
        assert laid.slots is not None
        changed = [i for i, (a, b) in enumerate(zip(values, laid.values, strict=True)) if a != b]
        moved = set(changed)
        cursor = QTextCursor(laid.doc)
        cursor.beginEditBlock()
        for i in reversed(changed):  # from the end: earlier positions stay valid
            pos, length, fmt = laid.slots[i]
            cursor.setPosition(pos)
            cursor.setPosition(pos + length, QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(values[i], fmt)
        cursor.endEditBlock()
        shift, slots = 0, []
        for i, (pos, length, fmt) in enumerate(laid.slots):
            if i in moved:
                new = len(values[i].encode("utf-16-le")) // 2
                slots.append((pos + shift, new, fmt))
                shift += new - length
            else:
                slots.append((pos + shift, length, fmt))
        laid.slots, laid.values = slots, list(values)
        return changed

    # -- drawing values over the laid-out text ---------------------------------------------------
    def _places(self) -> dict[int, _Place | None]:
        """The values measured so far in the document as laid out now (forgotten when the
        document, its layout width, the font or the palette changed)."""
        doc = self._cur.doc
        key = (
            id(doc), doc.revision(), doc.textWidth(), self.width(), self.height(),
            id(self._cur.slots), doc.defaultFont().key(),
            self.palette().color(QPalette.ColorRole.WindowText).rgba(),
        )  # fmt: skip
        if key != self._geo_key:
            self._geo_key = key
            self._geo.clear()
        return self._geo

    def _place(self, i: int, places: dict[int, _Place | None]) -> _Place | None:
        """Where the laid-out document shows value ``i`` (None: not laid out at this width, or
        the value not on one line in a plain position); ``places``: :meth:`_places`."""
        if i not in places:
            places[i] = self._measure(i)
        return places[i]

    def _measure(self, i: int) -> _Place | None:
        doc, slots = self._cur.doc, self._cur.slots
        if slots is None or doc.textWidth() != max(self.width(), 1):
            return None
        pos, length, fmt = slots[i]
        block = doc.findBlock(pos)
        at = pos - block.position()
        line = block.layout().lineForTextPosition(at)
        align = fmt.verticalAlignment()
        text = block.text()
        if (
            not line.isValid()
            or at + length > line.textStart() + line.textLength()
            or align not in _DRAWN_OVER
            or (at > 0 and text[at - 1] not in _UPRIGHT)
            or (at + length < len(text) and text[at + length] not in _UPRIGHT)
        ):
            return None
        origin = doc.documentLayout().blockBoundingRect(block).topLeft()  # the block, placed
        ends: Any = (line.cursorToX(at), line.cursorToX(at + length))  # (x, position) each
        x0, x1 = float(ends[0][0]), float(ends[1][0])
        top = origin.y() + line.y()
        font = fmt.font().resolve(doc.defaultFont())
        baseline = top + line.ascent()
        if align != QTextCharFormat.VerticalAlignment.AlignNormal:
            # as Qt's text layout sets a super- or subscript: SMALL of the size (whole points),
            # raised by SUP of its own height or lowered by SUB of it
            font = QFont(font)
            if font.pointSize() > 0:
                font.setPointSize(font.pointSize() * 2 // 3)
            else:
                font.setPixelSize(font.pixelSize() * 2 // 3)
            small = QFontMetricsF(font)
            if align == QTextCharFormat.VerticalAlignment.AlignSuperScript:
                baseline -= (small.ascent() + small.descent()) * SUP
            else:
                baseline += (small.ascent() + small.descent()) * SUB
        metrics = _METRICS.get(font.key())
        if metrics is None:
            metrics = _METRICS[font.key()] = QFontMetricsF(font)
        colour = (
            fmt.foreground().color()
            if fmt.hasProperty(QTextCharFormat.Property.ForegroundBrush)
            else self.palette().color(QPalette.ColorRole.WindowText)
        )
        return _Place(
            QPointF(origin.x() + x0, baseline),
            QRectF(origin.x() + min(x0, x1), top, abs(x1 - x0), line.height()).toAlignedRect(),
            metrics, font, colour,
        )  # fmt: skip

    def _draw_over(self, values: list[str]) -> QRegion | None:
        """Show ``values`` by drawing the changed ones over the laid-out text, if each is as
        wide as the value it replaces: the region to repaint; None (nothing done) otherwise."""
        slots = self._cur.slots
        if slots is None or len(values) != len(self._shown):
            return None
        changed = [i for i, (a, b) in enumerate(zip(values, self._shown, strict=True)) if a != b]
        if any(len(values[i]) != len(self._shown[i]) for i in changed):
            return None  # (digits are equally wide: a value of another length is not)
        if any(slots[i][2].verticalAlignment() not in _DRAWN_OVER for i in changed):
            return None  # (an alignment this label does not know how Qt sets)
        known, places = self._places(), []
        for i in changed:
            place = self._place(i, known)
            if place is None or place.metrics.horizontalAdvance(
                values[i]
            ) != place.metrics.horizontalAdvance(self._shown[i]):
                return None
            places.append(place)
        region = QRegion()
        for place in places:  # (a digit's glyph lies inside its advance: its box holds it)
            region += place.box
        self._shown = list(values)
        self._over.update(changed)
        self._ahead = True
        self._catch_up_timer.start()
        self.drawn_over += 1
        return region

    def _block_rects(self) -> list[QRectF]:
        doc = self._cur.doc  # (``_doc`` would put values drawn over into it first)
        layout, block, out = doc.documentLayout(), doc.begin(), []
        while block.isValid():
            out.append(layout.blockBoundingRect(block))
            block = block.next()
        return out

    def _dirty(self, changed: list[int]) -> QRect:
        """The region to repaint after the values at slots ``changed`` were replaced: the
        blocks holding them and every block the new layout moved (the whole label when the
        document was laid out at another width, or its blocks are not those of the last paint).
        """
        laid = self._cur
        if not self._blocks or laid.doc.textWidth() != max(self.width(), 1):
            return self.rect()
        after = self._block_rects()
        if len(after) != len(self._blocks):
            return self.rect()
        assert laid.slots is not None
        if laid.slot_blocks is None:  # the block of each value (edits of values keep it)
            laid.slot_blocks = [laid.doc.findBlock(pos).blockNumber() for pos, _, _ in laid.slots]
        edited = {laid.slot_blocks[i] for i in changed}
        region = QRectF()
        for n, (old, new) in enumerate(zip(self._blocks, after, strict=True)):
            if n in edited or old != new:
                region = region.united(old).united(new)
        self._blocks = after
        return region.toAlignedRect().adjusted(-1, -1, 1, 1)

    # -- geometry and paint -------------------------------------------------------------------
    def _lay_out_at(self, width: int) -> None:
        doc = self._doc
        if doc.textWidth() != width:  # setTextWidth lays the whole document out again
            doc.setTextWidth(width)

    def _height_at(self, width: int) -> int:
        width = max(width, 1)
        heights = self._cur.heights
        height = heights.get(width)
        if height is None:
            if len(heights) > 32:  # a window being resized: keep the cache small
                heights.clear()
            self._lay_out_at(width)
            height = self._cur.heights[width] = math.ceil(self._cur.doc.size().height())
        return height

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return max(self._height_at(width), self._needed)

    def sizeHint(self) -> QSize:
        laid = self._cur
        if laid.ideal is None:
            self._doc.setTextWidth(-1)
            laid.ideal = math.ceil(min(self._cur.doc.idealWidth(), 900))
        return QSize(laid.ideal, self.heightForWidth(laid.ideal))

    def minimumSizeHint(self) -> QSize:
        """At least the widest thing that cannot wrap (a table row, a long number): a layout
        that squeezes the label further would cut numbers off instead of wrapping them."""
        if self._cur.least is None:
            self._lay_out_at(1)
            self._cur.least = math.ceil(min(self._cur.doc.size().width(), 900))
        return QSize(max(120, self._cur.least), self._needed)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Wider room (a figure enlarged, the window widened): the height found at a narrower
        width no longer holds, so it is forgotten and the layout asks again. (Only on wider:
        the height growing can make a scroll bar narrow the text, never widen it, so this
        cannot go back and forth.)"""
        if self._needed and event.size().width() > event.oldSize().width() >= 0:
            self._needed = 0
            self.setMinimumHeight(0)
            self.updateGeometry()
        super().resizeEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        if self._ahead and self._paint_values(event):
            return
        width = max(self.width(), 1)
        self._cur.heights.pop(width, None)  # measured afresh at the paint width
        self._lay_out_at(width)  # (reading ``_doc`` puts the values drawn over into it)
        need = self._height_at(width)
        painter = QPainter(self)
        self._cur.doc.documentLayout().draw(painter, self._paint_context(QRectF(event.rect())))
        painter.end()
        if need > self.height() and need > self._needed:
            self._needed = need
            self.setMinimumHeight(need)  # grows once; the layout makes room
        if event.rect() == self.rect():
            self._blocks = self._block_rects()

    def _paint_context(self, clip: QRectF) -> QAbstractTextDocumentLayout.PaintContext:
        """How the document is drawn: in the window text colour, lines outside ``clip`` left
        out."""
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.clip = clip
        ctx.palette = self.palette()
        ctx.palette.setColor(QPalette.ColorRole.Text, self.palette().color(
            QPalette.ColorRole.WindowText))  # fmt: skip
        return ctx

    def _paint_values(self, event: QPaintEvent) -> bool:
        """Repaint with values drawn over the document: the document's text outside their
        places (where the region reaches past them: a whole repaint, a document taken back),
        the values inside. False when a value's place is unknown (the caller catches the
        document up and paints it whole)."""
        known = self._places()
        places = [(i, self._place(i, known)) for i in sorted(self._over)]
        if any(place is None for _, place in places):
            return False
        region = event.region()
        covered = QRegion()
        for _, place in places:
            covered += place.box  # type: ignore[union-attr]
        rest = region - covered
        painter = QPainter(self)
        if not rest.isEmpty():
            painter.setClipRegion(rest)
            ctx = self._paint_context(QRectF(rest.boundingRect()))
            self._cur.doc.documentLayout().draw(painter, ctx)
            self.painted_around += 1
        painter.setClipRegion(region & covered)
        bounds = region.boundingRect()
        for i, place in places:
            assert place is not None
            if place.box.intersects(bounds):
                painter.setFont(place.font)
                painter.setPen(place.colour)
                painter.drawText(place.origin, self._shown[i])
        painter.end()
        if event.rect() == self.rect():
            self._blocks = self._block_rects()
        return True
