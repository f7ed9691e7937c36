"""Attention-biases tab: ALiBi's slopes, one head's bias matrix, the bias of every head against
distance, one query's softmax with and without the bias, and RoPE's implicit decay beside
ALiBi's explicit penalty on one distance axis.

Side column: the head controls and the rule that makes the slopes (in words, with the numbers
of the current head count); the sequence controls; the RoPE controls; every head's slope.
Grid: top left the causal bias matrix of head h (colour bar; the masked keys after the query
left blank, the query's row outlined); top right ``−m_h·r`` for every head, head h
highlighted; bottom left the attention of query i over the keys without and with the bias
(drag the dashed line to move the query); bottom right RoPE's expected change of the scaled
logit against distance (closed form and sampled) with its floor ``−2ρ√d``, and ALiBi's line for
head h.

Views and their inputs: ``slopes_text`` (heads); ``heatmap`` (heads, head, positions);
``heatmap_query`` (query, positions); ``bias_lines`` (heads, positions); ``bias_highlight``
(heads, head, positions); ``attention`` and ``attention_text`` (the ``attention`` group);
``comparison_rope`` (the ``rope`` group); ``comparison_alibi`` (heads, head, positions, and the
``crossing`` group); ``comparison_text`` (rope, head, crossing).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from functools import lru_cache

import numpy as np

from posenc_gui.core.causal import causal_key_offsets
from posenc_gui.core.rope import nice_ceil
from posenc_gui.panels.base import Cell, Panel
from posenc_gui.state.alibi import MAX_HEADS, MAX_POSITIONS, SPAN_FRACTIONS, AlibiModel
from posenc_gui.widgets import styled
from posenc_gui.widgets.fmt import integer, num, sig
from posenc_gui.widgets.render.notes import note
from posenc_gui.widgets.render.polygon import CrispPolygon
from posenc_gui.widgets.render.view_range import ShownRange
from posenc_gui.widgets.text import LiveText, live, span
from posenc_gui.widgets.text.columns import ColumnGroups
from posenc_gui.widgets.views import Context, Same, Shown

#: Colour roles: the chosen ALiBi head, the other heads, attention without bias, RoPE.
ALIBI_ROLE = "accent"
OTHER_HEADS_ROLE = "guide"
PLAIN_ROLE = "second"
ROPE_ROLE = "query"
#: Slopes are listed in this many column groups (head, slope, value).
SLOPE_COLUMNS = 2
#: Room left and right of the distance and key axes (a share of their "nice" end).
X_MARGIN = 0.02


class AlibiPanel(Panel):
    """The ``alibi`` tab."""

    model = AlibiModel

    def build(self) -> None:
        b = self.book
        #: What the plots' items and ranges show now (set again only when it changes).
        self.shown = Shown()

        # ---- side column -------------------------------------------------------------------
        heads_box = self.controls("ALiBi heads", "heads", "head")
        # every head count's rule kept laid out: a heads slider dragged back shows them again
        self.rule_label = LiveText("slope_rule_readout", self, b, keep=MAX_HEADS)
        self.slopes_label = ColumnGroups("slopes_readout", self, b)
        # the room of the largest tables from the start: a heads step never lays the side
        # column out (the cells of n heads are among those of MAX_HEADS − 1 and MAX_HEADS)
        for n in (MAX_HEADS - 1, MAX_HEADS):
            self.slopes_label.reserve(*_slopes_table(n))
        seq_box = self.controls("One query's attention", "positions", "query", "logits", "seed")
        rope_box = self.controls("RoPE for comparison", "dim", "base", "correlation", "samples")

        # ---- bias matrix of one head -----------------------------------------------------------
        self.heat_plot = styled.plot(
            b, self, "bias_matrix_plot", "Bias of head h", "key position j", "query position i"
        )
        self.heat_plot.invertY(True)
        self.heat_image, self.heat_bar = styled.heatmap(
            b, self.heat_plot, (-1.0, 0.0), "sequential", label="bias −m·(i − j)", widest="−0.25",
            in_colour=True,
        )  # fmt: skip
        styled.steady_axis(b, self.heat_plot.getAxis("left"), "500")
        # the masked cells (key after query, −∞) in the theme's masked colour, over the image: a
        # staircase polygon along the diagonal (stacked above the image, under the text)
        self.mask_cover = CrispPolygon()
        self.heat_plot.addItem(self.mask_cover)
        b.add(lambda st: self.mask_cover.setBrush(st.brush("masked")))
        mask = "masked: −∞\n(key after query)"
        self.mask_text = note(b, self.heat_plot, "ink", (0.5, 0.5), text=mask)  # placed per length
        self.query_row = styled.pixel_curve(b, self.heat_plot, "ink", "normal")

        # ---- bias against distance, every head -------------------------------------------------
        self.bias_plot = styled.plot(
            b, self, "bias_distance_plot", "Bias against distance, every head",
            "distance r = i − j", "bias −m·r",
        )  # fmt: skip
        # one segment per head, drawn as separate lines (no PlotDataItem bookkeeping)
        self.other_lines = styled.pixel_curve(b, self.bias_plot, OTHER_HEADS_ROLE, "hair")
        self.head_line = styled.pixel_curve(b, self.bias_plot, ALIBI_ROLE, "heavy")
        # in the bottom-left corner, under the steepest line: the fan of lines leaves it free
        self.head_text = note(b, self.bias_plot, ALIBI_ROLE, anchor=(0, 1))
        styled.steady_axis(b, self.bias_plot.getAxis("left"), "−0.05")
        self.bias_range = ShownRange(self.bias_plot)

        # ---- one query's attention -------------------------------------------------------------
        self.att_plot = styled.plot(
            b, self, "attention_plot", "Attention of query i", "key position j",
            "attention weight",
        )  # fmt: skip
        self.plain_curve = styled.pixel_curve(b, self.att_plot, PLAIN_ROLE, "line")
        self.biased_curve = styled.pixel_curve(b, self.att_plot, ALIBI_ROLE, "thick")
        styled.steady_axis(b, self.att_plot.getAxis("left"), "0.025")
        self.att_range = ShownRange(self.att_plot)
        self.query_line = styled.vline(
            b, self.att_plot, movable=True, tooltip="Drag to move the query position i"
        )
        self.bind_drag(self.query_line, self._query_dragged, self._query_shown)
        self.att_label = LiveText("attention_readout", self, b)

        # ---- RoPE vs ALiBi on one distance axis -------------------------------------------------
        self.cmp_plot = styled.plot(
            b, self, "comparison_plot", "RoPE's implicit decay vs ALiBi's linear penalty",
            "distance r = m − n", "change of the logit from r = 0",
        )  # fmt: skip
        # the bias plot's x range, set by the bias lines' view (not linked: pyqtgraph lines
        # linked views up by their pixels, and the two have y axes of different widths)
        self.floor_line = styled.vline(b, self.cmp_plot, ROPE_ROLE, angle=0, line="dot")
        # dashed: a bare curve (its dashes run on along the whole path), solid: pixel curves
        self.rope_sampled = styled.line(b, self.cmp_plot, ROPE_ROLE, "thin", "dash", keep=False)
        self.rope_curve = styled.pixel_curve(b, self.cmp_plot, ROPE_ROLE, "thick")
        self.alibi_line = styled.pixel_curve(b, self.cmp_plot, ALIBI_ROLE, "thick")
        self.cross_dot = styled.markers(b, self.cmp_plot, ALIBI_ROLE, "large")
        styled.steady_axis(b, self.cmp_plot.getAxis("left"), "−2.5")
        self.cmp_range = ShownRange(self.cmp_plot)
        self.cmp_label = LiveText("comparison_readout", self, b)

        for plot in (self.heat_plot, self.bias_plot, self.att_plot, self.cmp_plot):
            styled.cache_texts(plot)
        #: Lines whose pixels are kept only while a step leaves them alone (see flush).
        self.kept_lines = (
            self.query_row, self.other_lines, self.head_line, self.plain_curve,
            self.biased_curve, self.rope_sampled, self.rope_curve, self.alibi_line,
        )  # fmt: skip

        # ---- views ------------------------------------------------------------------------------
        self.view("slopes_text", self.slopes_label, ("slopes",), self._refresh_slopes)
        # keys: a heads step that keeps head h's slope leaves the matrix and the head's line
        # alone; a seed step with zero logits (the same read-out) leaves the attention alone
        self.view("heatmap", self.heat_plot, ("head_slope", "positions"), self._refresh_heatmap,
                  key=_slope_key)  # fmt: skip
        self.view(
            "heatmap_query", self.heat_plot, ("query", "positions"), self._refresh_heatmap_query
        )
        self.view("bias_lines", self.bias_plot, ("slopes", "positions"), self._refresh_bias_lines)
        self.view(
            "bias_highlight",
            self.bias_plot,
            ("head_slope", "positions"),
            self._refresh_bias_highlight,
        )
        self.view("attention", self.att_plot, ("attention",), self._refresh_attention,
                  key=_attention_key)  # fmt: skip
        self.view("attention_text", self.att_label, ("attention",), self._refresh_attention_text)
        self.view("comparison_rope", self.cmp_plot, ("rope",), self._refresh_comparison_rope)
        self.view(
            "comparison_alibi", self.cmp_plot, ("head_slope", "positions", "crossing"),
            self._refresh_comparison_alibi, key=_crossing_key,
        )  # fmt: skip
        self.view(
            "comparison_text", self.cmp_label, ("rope", "head_slope", "crossing"),
            self._refresh_comparison_text,
        )  # fmt: skip

        self.place(
            [heads_box, self.rule_label, seq_box, rope_box, self.slopes_label],
            [
                Cell(self.heat_plot, 0, 0), Cell(self.bias_plot, 0, 1),
                Cell(self.att_plot, 1, 0), Cell(self.att_label, 2, 0),
                Cell(self.cmp_plot, 1, 1), Cell(self.cmp_label, 2, 1),
            ],
            row_stretch={0: 1, 1: 1}, col_stretch={0: 1, 1: 1},
        )  # fmt: skip

    # -- interaction ----------------------------------------------------------------------------
    def _query_dragged(self, x: float) -> None:
        top = self.state.as_int("positions") - 1
        self.state.set("query", min(max(round(x), 0), top))

    def _query_shown(self) -> float:
        return float(self.state.as_int("query"))

    # -- slopes and the rule ---------------------------------------------------------------------
    def _refresh_slopes(self, ctx: Context) -> None:
        sl = ctx["slopes"]
        n = ctx.values.as_int("heads")
        slopes, exps = sl["slopes"], sl["slope_exponents"]
        rule, cells = _slope_texts(n, tuple(slopes), tuple(exps), sl["power_of_two"],
                                   sl["lower_power"], sl["doubled_power"],
                                   tuple(sl["extra_heads_of_doubled"]))  # fmt: skip
        self.rule_label.set_html(rule)
        self.slopes_label.set_cells(*_table_of(n, cells))
        ctx.record("slopes", np.asarray(slopes), "slope m_h of head h = 1 … n")
        ctx.record("slope_exponents", np.asarray(exps), "log₂ m_h")

    # -- bias matrix -----------------------------------------------------------------------------
    def _refresh_heatmap(self, ctx: Context) -> None:
        v = ctx.values
        n, h = v.as_int("positions"), v.as_int("head")
        m = float(ctx["head_slope"]["head_slope"])
        offsets, unit, mask = causal_key_offsets(n, MAX_POSITIONS)
        # −m·(i − j) = m·(j − i): the same products as core.alibi_bias_for_slope; the masked
        # cells (0 here) are covered by the mask polygon. No NaN in the image: pyqtgraph's NaN
        # path (a transparent, non-premultiplied image) costs ~4 ms more per 512 × 512 image.
        self.heat_image.setImage(np.float32(m) * unit, autoLevels=False)
        low = -nice_ceil(m * (n - 1)) if n > 1 and m > 0 else -1.0
        if self.shown.changed("levels", low):  # "nice" levels: the bar's axis rarely changes
            self.heat_bar.setLevels((low, 0.0))
        if self.shown.changed("heat_size", n):
            self.heat_image.setRect(0.0, 0.0, float(n), float(n))
            styled.set_range(self.heat_plot, (0.0, float(n)), (0.0, float(n)))
            self.mask_text.setPos(0.72 * n, 0.25 * n)
            self.mask_cover.set_corners(_mask_corners(n))
        bias = m * offsets
        bias.flags.writeable = False  # recorded again while the view's key stays
        # no "(L × L)": the axes give the length, and a title that fits its plot at every
        # head and length keeps its height (scaled to fit, a title of another length asks
        # the plot for a layout pass); a length step then leaves the title alone
        styled.retitle(self.book, self.heat_plot, heat_title(h, m))
        ctx.record("bias", bias, "bias −m·(i − j) (masked cells: 0)")
        ctx.record("mask", mask, "masked (key j after query i: −∞)")
        ctx.record("levels", np.array([low, 0.0]), "colour-bar range")

    def _refresh_heatmap_query(self, ctx: Context) -> None:
        i = ctx.values.as_int("query")
        xs = np.array([0.0, i + 1.0, i + 1.0, 0.0, 0.0])
        ys = np.array([float(i), float(i), i + 1.0, i + 1.0, float(i)])
        self.query_row.setData(xs, ys)
        ctx.record("query_row", np.stack([xs, ys]), "outline of the query's row (keys 0 … i)")

    # -- bias against distance -------------------------------------------------------------------
    def _refresh_bias_lines(self, ctx: Context) -> None:
        slopes = np.asarray(ctx["slopes"]["slopes"])
        n = ctx.values.as_int("positions")
        r = np.arange(n, dtype=float)
        end = float(n - 1)
        xs = np.tile(np.array([0.0, end]), slopes.size)
        ys = np.column_stack([np.zeros_like(slopes), -slopes * end])
        self.other_lines.setData(xs, ys.ravel(), connect="pairs")
        low = -nice_ceil(float(slopes.max()) * end)  # "nice": the y axis changes in steps
        rng = (styled.positions_range(n, X_MARGIN), (low, -0.04 * low))  # x: a "nice" end too
        if self.bias_range.show(*rng):
            self._place_head_text()
        self.cmp_range.show(rng[0], None)  # the same distances
        ctx.record("distance", r, "distance r = i − j")
        ctx.record("bias_by_head", -slopes[:, None] * r[None, :], "bias −m_h·r, one row per head")

    def _refresh_bias_highlight(self, ctx: Context) -> None:
        hd = ctx["head_slope"]
        n, h = ctx.values.as_int("positions"), ctx.values.as_int("head")
        heads = ctx.values.as_int("heads")
        m = float(hd["head_slope"])
        end = float(n - 1)
        if self.shown.changed("head_line", (m, n)):  # (a heads step may keep head h's slope)
            self.head_line.setData(np.array([0.0, end]), np.array([0.0, -m * end]))
        self.head_text.setText(f"head {h}: m = {sig(m, 4)}")
        self._place_head_text()
        styled.retitle(
            self.book, self.bias_plot, f"Bias against distance, {heads} heads (head {h} bold)"
        )
        ctx.record("head_bias", -m * np.arange(n, dtype=float), f"bias of head {h}: −m·r")

    def _place_head_text(self) -> None:
        """The head's note in the bottom-left corner of the view (under every line)."""
        (x0, _), (y0, _) = self.bias_plot.getPlotItem().getViewBox().viewRange()
        self.head_text.setPos(x0, y0)

    # -- one query's attention -------------------------------------------------------------------
    def _refresh_attention(self, ctx: Context) -> None:
        att = ctx["attention"]
        v = ctx.values
        n, i = v.as_int("positions"), v.as_int("query")
        j = np.arange(n, dtype=float)
        plain = np.asarray(att["weights_without_bias"])
        biased = np.asarray(att["weights_with_bias"])
        self.plain_curve.setData(j, plain)
        self.biased_curve.setData(j, biased)
        top = nice_ceil(1.08 * float(max(plain.max(), biased.max())))
        if self.shown.changed("query_bounds", n):
            styled.bound_line(self.query_line, 0.0, float(n - 1))
        self.att_range.show(_keys_range(n, i), (0.0, top))
        styled.move_line(self.query_line, float(i))
        kind = "zero logits" if v.as_str("logits") == "zero" else "random logits"
        styled.retitle(
            self.book, self.att_plot,
            f"Attention of query i = {i} over keys j ≤ i ({kind})",
        )  # fmt: skip
        self._record_attention(ctx, j, plain, biased)

    @staticmethod
    def _record_attention(
        ctx: Context, j: np.ndarray, plain: np.ndarray, biased: np.ndarray
    ) -> None:
        ctx.record("keys", j, "key position j")
        ctx.record("weights_without_bias", plain, "softmax(s_j), causal")
        ctx.record("weights_with_bias", biased, "softmax(s_j − m·(i − j)), causal")

    def _refresh_attention_text(self, ctx: Context) -> None:
        # numbers marked live(): a step that changes only them edits them in place
        att, st, v = ctx["attention"], ctx.style, ctx.values
        i, h = v.as_int("query"), v.as_int("head")
        seen = live(integer(i + 1))
        if v.as_str("logits") == "zero":
            what = (
                "Content logits all <b>zero</b>: without the bias every visible key gets "
                # "1/64" one value: a value right after the leaning "/" could not be drawn
                # over the laid-out text (a query step would edit the document)
                f"1/(i+1) = {live('1/' + integer(i + 1))} = "
                f"{live(num(att['self_weight_without_bias'], 4))}; "
                "with it, w<sub>j</sub> ∝ e<sup>−m(i−j)</sup>, a geometric fall-off."
            )
        else:
            what = (
                "Content logits s<sub>j</sub> ~ N(0, 1) "
                f"(seed {live(integer(v.as_int('seed')))}); "
                "the bias multiplies each key's weight by e<sup>−m(i−j)</sup>."
            )
        spans = []
        for f in SPAN_FRACTIONS:
            pct = round(100 * f)
            plain = live(integer(att[f"keys_holding_{pct}_without_bias"]))
            biased = live(integer(att[f"keys_holding_{pct}_with_bias"]))
            spans.append(
                f"{pct}% of the weight on the nearest {span(st, PLAIN_ROLE, plain)} → "
                f"{span(st, ALIBI_ROLE, biased)} keys"
            )
        self.att_label.set_html(
            f"{what}<br>"
            f"{span(st, PLAIN_ROLE, 'without bias')} → "
            f"{span(st, ALIBI_ROLE, f'head {live(integer(h))} bias')}: "
            f"the query's own weight {live(num(att['self_weight_without_bias'], 4))} → "
            f"{live(num(att['self_weight_with_bias'], 4))}; {'; '.join(spans)} "
            f"(of {seen}). Both rows sum to "
            f"{live(num(att['weight_sum_without_bias'], 6))} and "
            f"{live(num(att['weight_sum_with_bias'], 6))}."
        )
        ctx.record(
            "self_weights",
            np.array([att["self_weight_without_bias"], att["self_weight_with_bias"]]),
            "weight of the query's own key, without / with bias",
        )
        ctx.record(
            "keys_holding",
            np.array([[att[f"keys_holding_{round(100 * f)}_{w}"] for f in SPAN_FRACTIONS]
                      for w in ("without_bias", "with_bias")]),
            "nearest keys holding 50% / 90% of the weight (rows: without, with bias)",
        )  # fmt: skip

    # -- RoPE vs ALiBi ---------------------------------------------------------------------------
    def _refresh_comparison_rope(self, ctx: Context) -> None:
        rp = ctx["rope"]
        expected = np.asarray(rp["rope_expected_shift"])
        sampled = np.asarray(rp["rope_sampled_shift"])
        r = np.arange(expected.size, dtype=float)
        self.rope_curve.setData(r, expected)
        self.rope_sampled.setData(r, sampled)
        floor = float(rp["rope_floor"])
        if self.floor_line.value() != floor:
            self.floor_line.setValue(floor)
        low = -nice_ceil(1.15 * max(-floor, float(-sampled.min()), 1.0))
        top = 0.035 * -low  # room for the sampled curve's noise above 0, in steps
        if float(sampled.max()) > top:
            top = nice_ceil(float(sampled.max()))
        self.cmp_range.show(None, (low, top))
        ctx.record("distance", r, "distance r = m − n")
        ctx.record("rope_expected_shift", expected, "RoPE: E[q·R k/√d](r) − E[…](0), closed form")
        ctx.record("rope_sampled_shift", sampled, "RoPE: mean over sampled (q, k), minus r = 0")
        ctx.record("rope_floor", floor, "RoPE's floor −2ρ√d")

    def _refresh_comparison_alibi(self, ctx: Context) -> None:
        m = float(ctx["head_slope"]["head_slope"])
        n = ctx.values.as_int("positions")
        cross = float(ctx["crossing"]["alibi_passes_rope_floor_at"])
        end = float(n - 1)
        self.alibi_line.setData(np.array([0.0, end]), np.array([0.0, -m * end]))
        shown = cross <= end and cross > 0
        self.cross_dot.setData([cross] if shown else [], [-m * cross] if shown else [])
        ctx.record("alibi_line", -m * np.arange(n, dtype=float), "ALiBi head h: −m·r")
        ctx.record("crossing", cross, "r where −m·r passes RoPE's floor")

    def _refresh_comparison_text(self, ctx: Context) -> None:
        # numbers marked live(): a step that changes only them edits them in place
        rp, st, v = ctx["rope"], ctx.style, ctx.values
        m = float(ctx["head_slope"]["head_slope"])
        cross = float(ctx["crossing"]["alibi_passes_rope_floor_at"])
        d, rho = v.as_int("dim"), v.as_float("correlation")
        rope = span(st, ROPE_ROLE, "<b>RoPE</b> (solid: expectation; dashed: "
                    f"mean of {live(integer(v.as_int('samples')))} random pairs)")  # fmt: skip
        alibi = span(st, ALIBI_ROLE, f"<b>ALiBi head {live(integer(v.as_int('head')))}</b>")
        beyond = " (beyond this axis)" if cross > v.as_int("positions") - 1 else ""
        # as long as the other case: a correlation reaching 0 keeps the label's height
        far = (
            f"passes RoPE's floor at r = {live(num(cross, 1))}{beyond}"
            if rho > 0
            else "is the only penalty (ρ = 0: RoPE's expected logit is 0)"
        )
        self.cmp_label.set_html(
            f"{rope}, d = {live(integer(d))}, base {live(sig(v.as_float('base'), 5))}, "
            f"key k = ρq + √(1−ρ²)z, ρ = {live(num(rho, 2))}: expected logit q·k/√d = ρ√d = "
            f"{live(num(rp['rope_expected_logit_at_zero'], 3))} at r = 0 (sampled "
            f"{live(num(rp['rope_sampled_logit_at_zero'], 3))}). Its change "
            f"(2ρ/√d)·Σ<sub>i</sub>(cos rθ<sub>i</sub> − 1) is bounded: never below "
            f"−2ρ√d = {live(num(rp['rope_floor'], 2))} (dotted); lowest on this axis "
            f"{live(num(rp['rope_lowest_shift'], 3))} at "
            f"r = {live(integer(rp['rope_lowest_at']))}.<br>"
            f"{alibi}: −m·r with m = {live(sig(m, 4))} keeps falling linearly and {far}."
        )
        ctx.record(
            "rope_logit_at_zero",
            np.array([rp["rope_expected_logit_at_zero"], rp["rope_sampled_logit_at_zero"]]),
            "RoPE logit at r = 0: expected ρ√d, sampled",
        )
        ctx.record("rope_lowest", rp["rope_lowest_shift"], "lowest RoPE change on the axis")


# -- view keys: what a view shows --------------------------------------------------------------
def _keys_range(n: int, i: int) -> tuple[float, float]:
    """The x range of one query's attention: the keys ``j ≤ i`` it sees (a query early in a
    long sequence fills the plot), to a round end past ``i`` (a query step rarely moves the
    axis), never past the sequence's end."""
    lo, hi = styled.positions_range(n, X_MARGIN)
    end = styled.nice_end(max(float(i), 8.0))
    return (-X_MARGIN * end, (1.0 + X_MARGIN) * end) if end < hi / (1.0 + X_MARGIN) else (lo, hi)


def _slope_key(ctx: Context) -> tuple[float, int, int]:
    """The bias matrix shows head h's slope over the length (and h in its title)."""
    v = ctx.values
    return float(ctx["head_slope"]["head_slope"]), v.as_int("positions"), v.as_int("head")


def _crossing_key(ctx: Context) -> tuple[float, int, float]:
    """The comparison's ALiBi line and dot: the slope, the length and the crossing."""
    m = float(ctx["head_slope"]["head_slope"])
    return m, ctx.values.as_int("positions"), float(ctx["crossing"]["alibi_passes_rope_floor_at"])


def _attention_key(ctx: Context) -> tuple[object, ...]:
    """The attention plot: the read-out's lists (by identity: zero logits give the same
    lists whatever the seed), the query, the length and the kind of logits (in the title)."""
    att, v = ctx["attention"], ctx.values
    return (Same(att["weights_without_bias"]), Same(att["weights_with_bias"]),
            v.as_int("query"), v.as_int("positions"), v.as_str("logits"))  # fmt: skip


# -- helpers -------------------------------------------------------------------------------------
def heat_title(head: int, slope: float) -> str:
    """The bias matrix's title: short enough to fit its plot unscaled at the default size
    whatever the head and slope."""
    return f"Bias of head {head}: −m·(i − j), m = {sig(slope, 4)}"


def _mask_corners(n: int) -> np.ndarray:
    """The corners of the cells with key ``j`` after query ``i`` (``x = j > y = i``) of an
    ``n × n`` matrix: row ``i`` is covered from ``x = i + 1`` to ``n`` (a staircase along the
    diagonal), ``2n + 1`` corners; none for ``n < 2``."""
    if n < 2:
        return np.zeros((0, 2))
    xy = np.empty((2 * n + 1, 2))
    xy[:3] = ((1.0, 0.0), (float(n), 0.0), (float(n), n - 1.0))
    steps = np.arange(n - 1, 0, -1, dtype=np.float64)  # up the staircase: (i, i), (i, i − 1)
    xy[3::2, 0], xy[3::2, 1] = steps, steps
    xy[4::2, 0], xy[4::2, 1] = steps, steps - 1.0
    return xy


@lru_cache(maxsize=64)
def _slope_texts(
    n: int,
    slopes: tuple[float, ...],
    exps: tuple[float, ...],
    power_of_two: bool,
    p: int,
    p2: int,
    extra: tuple[int, ...],
) -> tuple[str, tuple[tuple[str, str, str], ...]]:
    """The rule in words and the cells (head, power of two, value) of the slopes of ``n``
    heads (a pure function of the rule: cached, a heads slider comes back to the same counts)."""
    base = f"2<sup>−8h/{integer(p)}</sup> = 2<sup>{_per_head(p)}</sup>"
    if power_of_two:
        rule = (
            f"<b>n = {integer(n)} is a power of two:</b> m<sub>h</sub> = {base}, "
            f"h = 1 … {integer(n)}: {_pow(exps[0])} … {_pow(exps[-1])}, each half of "
            f"the one before (ratio 2<sup>{_per_head(p)}</sup>)."
        )
    else:
        picked = _elided([integer(h) for h in extra])
        got = _elided([_pow(e) for e in exps[p:]])
        rule = (
            f"<b>n = {integer(n)} is not a power of two.</b> The nearest lower power of two "
            f"is p = {integer(p)}: heads 1 … {integer(p)} take m<sub>h</sub> = {base} "
            f"({_pow(exps[0])} … {_pow(exps[p - 1])}). The other n − p = {integer(n - p)} "
            f"take every other slope of 2p = {integer(p2)} heads, "
            f"2<sup>−8h/{integer(p2)}</sup> = 2<sup>{_per_head(p2)}</sup> at h = {picked}: "
            f"{got}."
        )
    cells = tuple((integer(k + 1), _pow(exps[k]), f"=&nbsp;{sig(slopes[k], 4)}") for k in range(n))
    return rule, cells


#: Lists in the rule longer than this are written "first, second, …, last": the text keeps about
#: the same length for every head count (each slope is in the table under it), so it is parsed
#: and laid out quickly and keeps its height (no layout of the side column).
RULE_LIST = 4


def _elided(items: Sequence[str]) -> str:
    """``items`` joined by commas; more than :data:`RULE_LIST` as ``a, b, …, z``."""
    if len(items) > RULE_LIST:
        items = [*items[:2], "…", items[-1]]
    return ", ".join(items)


#: The header of each column group of the slopes table: head, power of two, value.
SLOPES_HEADER = ("<b>h</b>", "<b>m<sub>h</sub></b>", "")


def _table_of(
    n: int, cells: tuple[tuple[str, str, str], ...]
) -> tuple[str, tuple[str, ...], tuple[tuple[str, str, str], ...], int]:
    """The title, header, cells and rows per column group of the slopes table of ``n``
    heads."""
    return f"Slopes of the {integer(n)} heads", SLOPES_HEADER, cells, math.ceil(n / SLOPE_COLUMNS)


def _slopes_table(n: int) -> tuple[str, tuple[str, ...], tuple[tuple[str, str, str], ...], int]:
    """The slopes table of ``n`` heads as the panel shows it (from the model's read-out)."""
    group = next(g for g in AlibiModel.groups if g.name == "slopes")
    sl = group(AlibiModel.resolve({"heads": n}))
    _, cells = _slope_texts(n, tuple(sl["slopes"]), tuple(sl["slope_exponents"]),
                            sl["power_of_two"], sl["lower_power"], sl["doubled_power"],
                            tuple(sl["extra_heads_of_doubled"]))  # fmt: skip
    return _table_of(n, cells)


def _pow(e: float) -> str:
    """``2^e`` with a superscript exponent (see :func:`_exponent`)."""
    return f"2<sup>{_exponent(e)}</sup>"


@lru_cache(maxsize=512)
def _exponent(e: float) -> str:
    """An exponent of 2, exactly (ALiBi's exponents are short binary fractions: ``−8h/p``), as
    many significant digits as it has: ``−8``, ``−0.5``, ``−2.625``."""
    if float(e).is_integer():
        return integer(e)
    digits = len(Decimal(repr(abs(e))).normalize().as_tuple().digits)
    return sig(e, digits)


def _per_head(p: int) -> str:
    """``−8h/p`` simplified for a power of two ``p``: ``−4h``, ``−h``, ``−h/2`` …"""
    if p <= 8:
        k = 8 // p
        return "−h" if k == 1 else f"−{integer(k)}h"
    return f"−h/{integer(p // 8)}"


PANEL = AlibiPanel
