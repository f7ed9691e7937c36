"""The tab's texts: the hovered (or selected) cell's formula with its numbers, the layout's
formula, and the read-out table.

Views: ``hover`` (everything the hovered cell depends on, and the ``hover`` event),
``formula`` (dim, base, layout, positions), ``readouts`` (position, dimension, column, cell,
vector, spectrum).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QPointF, Qt

from posenc_gui.panels.heatmap.common import base_text, other, span_text
from posenc_gui.panels.heatmap.image import ImageViews
from posenc_gui.state.heatmap import HeatmapModel
from posenc_gui.widgets.fmt import integer, num, sig, signed
from posenc_gui.widgets.style import Style
from posenc_gui.widgets.text import LiveText, ReadoutTable, live, span
from posenc_gui.widgets.views import Context


class ReadoutViews(ImageViews):
    """The hover, formula and read-out views (a part of
    :class:`~posenc_gui.panels.heatmap.HeatmapPanel`)."""

    def _build_texts(self) -> None:
        b = self.book
        self._hover: tuple[int, int] | None = None
        self.readout_label = ReadoutTable("heatmap_readouts", self, b)
        self.hover_label = LiveText("hover_formula", self, b, "title")
        self.formula_label = LiveText("heatmap_formula", self, b)

    # -- mouse over the heatmap ---------------------------------------------------------------
    def _scene_cell(self, pos: QPointF) -> tuple[int, int] | None:
        if not self.heat_vb.sceneBoundingRect().contains(pos):
            return None
        p = self.heat_vb.mapSceneToView(pos)
        return self.cell_at(float(p.x()), float(p.y()))

    def _mouse_moved(self, pos: QPointF) -> None:
        cell = self._scene_cell(pos)
        if cell != self._hover:
            self._hover = cell
            self.invalidate("hover")

    def _mouse_clicked(self, ev: Any) -> None:
        if ev.button() != Qt.MouseButton.LeftButton or ev.double():
            return
        cell = self._scene_cell(ev.scenePos())
        if cell is not None:
            self.state.update({"position": cell[0], "dimension": cell[1]})

    def _refresh_hover(self, ctx: Context) -> None:
        v, st = ctx.values, ctx.style
        if self._hover is not None:
            # a cell that a smaller table no longer has (``dim`` or ``positions`` lowered
            # under the resting pointer) is forgotten: the selection is shown until it moves
            p, j = self._hover
            if not (0 <= p < v.as_int("positions") and 0 <= j < int(ctx["shown"]["shown"])):
                self._hover = None
        if self._hover is not None:
            p, j = self._hover
            head = "Under the mouse:"
        else:
            p, j = v.as_int("position"), v.as_int("dimension")
            head = "Selected (hover the heatmap for any cell, click to select):"
        cell = HeatmapModel.cell(v, p, j)
        # Always the same lines (a note on the pixels, the cell, the pixel's value): a label
        # that grows re-lays the whole tab out and paints it several times over.
        html = f"{self.pixel_note()}<br><small>{head}</small><br>{self.cell_html(cell, v, st)}"
        r, c = self._pixel_of(p), self._pixel_row_of(j)
        if r is not None and c is not None and self.image_table.size:
            a, b = int(self.image_first[r]), int(self.image_last[r])
            j0, j1 = int(self.image_dim_first[c]), int(self.image_dim_last[c])
        if r is None or c is None or not self.image_table.size:
            html += f"<br><small>{live('(outside the current view)')}</small>"
        elif a == b and j0 == j1:  # one text slot: a step between the cases edits the words
            html += f"<br><small>{live('its image pixel shows this entry itself')}</small>"
        else:
            mean = float(self.image_table[r, c])
            html += (
                "<br><small>its pixel shows the mean over positions "
                f"{live(f'{integer(a)}…{integer(b)}')} × dimensions {live(f'{j0}…{j1}')} "
                f"({live(integer((b - a + 1) * (j1 - j0 + 1)))} entries): "
                f"<b>{live(signed(mean))}</b></small>"
            )
            ctx.record("pixel_mean", mean, f"mean of PE[{a}…{b}, {j0}…{j1}]")
        self.hover_label.set_html(html)
        ctx.record("cell", [p, j, float(cell["value"])], "(position, dimension, PE value)")

    def pixel_note(self) -> str:
        """What a pixel of the image shows, from the image last computed (the first line of
        the hover text)."""
        means = []
        if self.image_mean_over > 1.0:
            n = live(f"~{integer(round(self.image_mean_over))}")
            means.append(f"Each pixel column = mean over {n} positions")
        if self.image_dim_mean_over > 1.0:
            m = live(f"~{integer(round(self.image_dim_mean_over))}")
            means.append(f"{'each' if means else 'Each'} pixel row = mean over {m} dimensions")
        if means:
            return (
                f"<b>{'; '.join(means)}</b> <small>(one sampled entry per pixel would alias "
                "into moiré arcs; zoom in to see single entries)</small>"
            )
        return (
            "<b>One image pixel per entry</b> <small>(exact entries; with more positions or "
            "dimensions than pixels, each pixel shows the mean over the entries it "
            "covers)</small>"
        )

    def cell_html(self, cell: Mapping[str, Any], values: Mapping[str, Any], st: Style) -> str:
        """The formula of one entry with its numbers substituted (hover / selection text).

        The numbers are marked with :func:`~posenc_gui.widgets.text.live` (for a
        :class:`~posenc_gui.widgets.text.LiveText`, which edits them in place).
        """
        dim, layout = int(values["dim"]), str(values["layout"])
        b = live(base_text(float(values["base"])))
        p, j, fn = int(cell["position"]), int(cell["dimension"]), str(cell["function"])
        i = live(int(cell["pair"]))
        # ``2i/d`` as one value: a value next to the leaning "/" is not drawn over (see
        # :func:`~posenc_gui.panels.heatmap.common.span_text`), so a dim step would edit the
        # label instead
        ed = live(f"{int(cell['exponent'])}/{dim}")
        pt, jt = live(integer(p)), live(j)
        if layout == "interleaved":
            plus = "" if fn == "sin" else " + 1"
            where = f"interleaved: column {jt} = 2·{i}{plus} → {fn} of pair i = {i}"
        else:
            half = live(dim // 2)
            where = (
                f"concat: column {jt} {'<' if fn == 'sin' else '≥'} d/2 = {half} → {fn} half, "
                f"pair i = {i}"
            )
        return (
            span(st, fn, f"<b>PE[{pt}, {jt}]</b>")
            + f" = {fn}({pt} · {b}<sup>−{ed}</sup>) = {fn}({pt} · "
            f"{live(sig(float(cell['omega']), 4))}) = {fn}({live(num(float(cell['angle']), 4))})"
            f" = <b>{live(signed(float(cell['value'])))}</b>"
            f"<br><small>{where}; partner column {live(int(cell['partner']))} holds "
            f"{other(fn)}({pt} · ω<sub>{i}</sub>)</small>"
        )

    # -- labels -------------------------------------------------------------------------------
    def _refresh_formula(self, ctx: Context) -> None:
        v = ctx.values
        dim, layout, positions = v.as_int("dim"), v.as_str("layout"), v.as_int("positions")
        b = base_text(v.as_float("base"))
        half = dim // 2
        if layout == "interleaved":
            this = (
                "<b>interleaved</b> (paper): PE[p, 2i] = sin(p·ω<sub>i</sub>), "
                "PE[p, 2i+1] = cos(p·ω<sub>i</sub>)"
            )
        else:
            this = (
                f"<b>concat</b>: PE[p, i] = sin(p·ω<sub>i</sub>), PE[p, {live(half)}+i] = "
                f"cos(p·ω<sub>i</sub>) (same values as the paper's PE[p, 2i], PE[p, 2i+1], "
                "columns reordered)"
            )
        self.formula_label.set_html(
            f"Layout {this}; &nbsp; ω<sub>i</sub> = base<sup>−2i/d</sup> = "
            f"{live(b)}<sup>−{live(f'2i/{dim}')}</sup>, i = {live(f'0…{half - 1}')}; &nbsp; "
            f"positions p = {span_text(positions)}. Colour scale fixed to [−1, 1]."
        )
        ctx.record("base", v.as_float("base"), "base")

    def _refresh_readouts(self, ctx: Context) -> None:
        v = ctx.values
        col, c, vec, spec = ctx["column"], ctx["cell"], ctx["vector"], ctx["spectrum"]
        p, j = v.as_int("position"), v.as_int("dimension")
        fn, other = str(col["function"]), str(col["partner_function"])
        pair, partner = int(col["pair"]), int(col["partner"])
        # painted: a step repaints the rows whose text changed (see ReadoutTable)
        self.readout_label.set_rows(
            [
                ("Position p", integer(p)),
                ("Dimension j", f"{j} = {fn} of pair i = {pair}"),
                ("Partner column", f"{partner} ({other})"),
                ("ω<sub>i</sub> = base<sup>−2i/d</sup>", sig(float(col["omega"]), 5)),
                ("Frequency ω<sub>i</sub>/2π",
                 f"{sig(float(col['frequency']))} turns/pos"),
                ("Wavelength λ<sub>i</sub>",
                 f"{sig(float(col['selected_wavelength']), 5)} pos"),
                ("Angle p·ω<sub>i</sub>", f"{num(float(c['angle']), 4)} rad"),
                (f"PE[p, {j}]", signed(float(c["value"]))),
                (f"PE[p, {partner}]", signed(float(c["partner_value"]))),
                ("|PE[p]|² (= d/2)", num(float(vec["vector_norm_sq"]), 4)),
                (
                    "Pairs with ≥ 1 full turn",
                    f"{spec['full_turn_pairs']} of {spec['pairs']}",
                ),
            ]
        )  # fmt: skip
        ctx.record(
            "numbers",
            [float(col["omega"]), float(c["angle"]), float(c["value"]), float(c["partner_value"]),
             float(vec["vector_norm_sq"])],
            "ω_i, angle p·ω_i, PE[p, j], PE[p, partner], |PE[p]|²",
        )  # fmt: skip
