"""Encodings-compared tab: one scheme's table, its waves, the dot product at a fixed distance,
the similarity of every pair of positions, what the encoding adds to a word, and the scheme's
verdicts.

Side column: the table controls (scheme, L, d, layout, seed); the read-off controls (p, k, the
random draw) with the "draw 5 random pairs" button; what three of the plots show; the verdicts
(unique? bounded? smooth? same dot product at equal distance? same vector at any length?), each
computed from the table by the model, with the number that decides it.

Grid: top left a heatmap — the table (positions × dims), ``P·Pᵀ`` or the cosine similarities
(the ``heatmap`` choice) — with the row of p outlined and, below, the mean cosine similarity
and dot product at offsets 1, 4, 16, 32; top right the first :data:`WAVES` dimensions over the
positions, stacked (binary: bits least significant first, top down), the values at p marked,
the vector at p read off below; bottom left the dot products (the ``dots`` choice):
``P[i]·P[i+k]`` over every ``i``, or its mean over ``i`` against the distance ``k`` with the
range min–max as a band; the drawn random pairs marked on either, listed below as the notebook
prints them; bottom right the magnitude (the ``magnitude`` choice): each position's share of
word + position, or the vector of position 5 at every length L.

Views and their inputs: ``heatmap`` (the shared table ``analysis``, heatmap); ``heatmap_marker``
(position, positions, dim, heatmap); ``similarity_text`` (the ``similarity`` group); ``waves``
(analysis); ``waves_marker`` (analysis, position); ``vector_text`` (the ``vector`` group);
``dots`` (the ``dot`` and ``offsets`` groups, dots); ``dot_pairs`` (the ``pairs`` group, dots);
``dot_text`` (the ``dot`` group); ``pairs_text`` (``pairs``); ``magnitude`` (the ``sum`` and
``length`` groups, magnitude); ``magnitude_marker`` (positions, magnitude); ``magnitude_text``
(``sum``, ``length``, magnitude); ``verdicts`` (the ``table`` group).
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGraphicsItem, QPushButton

from posenc_gui.core.rope import nice_ceil
from posenc_gui.panels.base import Cell, Panel
from posenc_gui.state.encodings import (
    LENGTH_POSITION,
    PAIRS,
    SCHEME_LABELS,
    SCHEMES,
    SMOOTH_SHARE,
    TABLE_INPUTS,
    WAVES,
    Analysis,
    EncodingsModel,
    analysis_of,
    bits_needed,
)
from posenc_gui.widgets import styled
from posenc_gui.widgets.fmt import integer, num, sig, superscript
from posenc_gui.widgets.render.polyline import rows_polyline
from posenc_gui.widgets.style import Style
from posenc_gui.widgets.text import NOWRAP, LiveText, live, span
from posenc_gui.widgets.views import Context, Shown

WAVE_ROLE = "sin"
MARK_ROLE = "ink"
DOT_ROLE = "accent"
PAIR_ROLE = "key"
SHARE_ROLE = "second"
GUIDE_ROLE = "guide"
#: Height of one wave's band in the stacked plot (1 = the distance between bands).
BAND = 0.8
#: Components of the vector at p written out.
SHOWN_COMPONENTS = 8
#: Values from 10^this on are drawn divided by a power of ten (named in the axis label).
SCALE_FROM = 4
#: Scheme names in plot titles.
SHORT_LABELS = ("naive p", "normalized p/(L−1)", "binary", "sinusoidal", "learned (untrained)")
#: A binary code longer than this is written with its leading zeros shortened.
CODE_DIGITS = 16


class EncodingsPanel(Panel):
    """The ``encodings`` tab."""

    model = EncodingsModel

    def build(self) -> None:
        b = self.book
        #: What each item shows now (set again only when it changes).
        self._shown = Shown()
        #: Axis labels by plot (re-applied after a restyle, which resets them).
        self._labels: dict[str, tuple[pg.PlotWidget, str, str]] = {}
        self._bar_label = "value P[p, j]"

        # ---- side column -------------------------------------------------------------------
        table_box = self.controls("Encoding table", "scheme", "positions", "dim", "layout", "seed")
        read_box = self.controls("Read off", "position", "distance", "draw")
        self.draw_button = QPushButton(f"Draw {PAIRS} random pairs", read_box)
        self.draw_button.setObjectName("draw_button")
        self.draw_button.setAccessibleName(f"Draw {PAIRS} random pairs")
        self.draw_button.setToolTip(
            f"Draw {PAIRS} new random positions i and list P[i]·P[i+k] (the next draw number)"
        )
        self.draw_button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.draw_button.clicked.connect(self.draw_pairs)
        read_box.grid.addWidget(self.draw_button, read_box.grid.rowCount(), 0, 1, 3)
        plots_box = self.controls("Plots show", "heatmap", "dots", "magnitude")
        self.verdict_label = LiveText("verdict_readout", self, b)

        # ---- heatmap: the table, P·Pᵀ or the cosine similarities -----------------------------
        self.heat_plot = styled.plot(
            b, self, "heatmap_plot", "Encoding table", "dimension j", "position p"
        )
        self.heat_plot.invertY(True)
        self.heat_image, self.heat_bar = styled.heatmap(
            b, self.heat_plot, (-1.0, 1.0), "diverging", label="value P[p, j]", widest="−0.05"
        )
        # not cached: the image changes with every table (a cache would be drawn, then blitted);
        # the row outline moving over it repaints only the strip it leaves and enters
        self.heat_image.setCacheMode(QGraphicsItem.CacheMode.NoCache)
        styled.steady_axis(b, self.heat_plot.getAxis("left"), "500")
        self.heat_row = styled.curve(b, self.heat_plot, MARK_ROLE, "normal")
        self.similarity_label = LiveText("similarity_readout", self, b)

        # ---- waves -------------------------------------------------------------------------
        self.wave_plot = styled.plot(
            b, self, "waves_plot", "Dimensions over the positions", "position p", "", grid=False
        )
        self.wave_plot.invertY(True)  # dimension / bit 0 on top: read top down
        self.wave_lines = styled.pixel_curve(b, self.wave_plot, WAVE_ROLE, "line")
        self.wave_line = styled.vline(b, self.wave_plot, MARK_ROLE)
        self.wave_dots = styled.markers(b, self.wave_plot, MARK_ROLE, "dot")
        styled.steady_axis(b, self.wave_plot.getAxis("left"), "bit 00")
        self.vector_label = LiveText("vector_readout", self, b)

        # ---- dot products --------------------------------------------------------------------
        self.dot_plot = styled.plot(
            b, self, "dot_plot", "Dot product at distance k", "position i", "P[i]·P[i+k]"
        )
        self.dot_low = styled.line(b, self.dot_plot, DOT_ROLE, "hair")
        self.dot_high = styled.line(b, self.dot_plot, DOT_ROLE, "hair")
        self.dot_band = pg.FillBetweenItem(self.dot_low, self.dot_high)
        self.dot_plot.addItem(self.dot_band)
        b.add(lambda st: self.dot_band.setBrush(st.brush(DOT_ROLE, 0.22)))
        self.dot_curve = styled.pixel_curve(b, self.dot_plot, DOT_ROLE, "thick")
        self.dot_k_line = styled.vline(b, self.dot_plot, MARK_ROLE)
        self.pair_dots = styled.markers(b, self.dot_plot, PAIR_ROLE, "marker")
        styled.steady_axis(b, self.dot_plot.getAxis("left"), "−0.000")
        self.dot_label = LiveText("dot_readout", self, b)
        self.pairs_label = LiveText("pairs_readout", self, b)

        # ---- magnitude: word + position, or P[5] at every length ---------------------------
        self.mag_plot = styled.plot(
            b, self, "magnitude_plot", "Word + position", "position i", "share of the position"
        )
        self.half_line = styled.vline(b, self.mag_plot, GUIDE_ROLE, angle=0)
        self.share_curve = styled.pixel_curve(b, self.mag_plot, SHARE_ROLE, "thick")
        self.length_lines = styled.pixel_curve(b, self.mag_plot, WAVE_ROLE, "line")
        self.length_line = styled.vline(b, self.mag_plot, MARK_ROLE)
        self.length_dots = styled.markers(b, self.mag_plot, MARK_ROLE, "dot")
        styled.steady_axis(b, self.mag_plot.getAxis("left"), "−0.00")
        self.mag_label = LiveText("magnitude_readout", self, b)
        b.add(self._restyle_labels)  # after the plots': their restyle resets the labels

        # ---- views ---------------------------------------------------------------------------
        self.derive("analysis", TABLE_INPUTS, lambda ctx: analysis_of(ctx.values))
        self.view("heatmap", self.heat_plot, ("analysis", "heatmap"), self._refresh_heatmap)
        self.view(
            "heatmap_marker", self.heat_plot, ("position", "positions", "dim", "heatmap"),
            self._refresh_heatmap_marker,
        )  # fmt: skip
        self.view(
            "similarity_text", self.similarity_label, ("similarity",), self._refresh_similarity
        )
        self.view("waves", self.wave_plot, ("analysis",), self._refresh_waves)
        self.view("waves_marker", self.wave_plot, ("analysis", "position"), self._refresh_marker)
        self.view("vector_text", self.vector_label, ("vector",), self._refresh_vector)
        self.view("dots", self.dot_plot, ("analysis", "dot", "offsets", "dots"), self._refresh_dots)
        self.view(
            "dot_pairs", self.dot_plot, ("analysis", "pairs", "dots"), self._refresh_dot_pairs
        )
        self.view("dot_text", self.dot_label, ("dot",), self._refresh_dot_text)
        self.view("pairs_text", self.pairs_label, ("pairs",), self._refresh_pairs_text)
        self.view(
            "magnitude", self.mag_plot, ("sum", "length", "magnitude"), self._refresh_magnitude
        )
        self.view(
            "magnitude_marker", self.mag_plot, ("analysis", "magnitude"),
            self._refresh_magnitude_marker,
        )  # fmt: skip
        self.view(
            "magnitude_text", self.mag_label, ("sum", "length", "magnitude"),
            self._refresh_magnitude_text,
        )  # fmt: skip
        self.view("verdicts", self.verdict_label, ("table",), self._refresh_verdicts)

        self.place(
            [table_box, read_box, plots_box, self.verdict_label],
            [
                Cell(self.heat_plot, 0, 0), Cell(self.wave_plot, 0, 1),
                Cell(self.similarity_label, 1, 0), Cell(self.vector_label, 1, 1),
                Cell(self.dot_plot, 2, 0), Cell(self.mag_plot, 2, 1),
                Cell(self.dot_label, 3, 0), Cell(self.mag_label, 3, 1),
                Cell(self.pairs_label, 4, 0, 1, 2),
            ],
            row_stretch={0: 1, 2: 1}, col_stretch={0: 1, 1: 1},
        )  # fmt: skip

    # -- actions -------------------------------------------------------------------------------
    def draw_pairs(self) -> None:
        """Draw the next :data:`PAIRS` random pairs (the draw number goes up by one)."""
        p = self.model.param("draw")
        assert p.maximum is not None
        self.state.set("draw", (int(self.state.get("draw")) + 1) % (int(p.maximum) + 1))

    # -- helpers ---------------------------------------------------------------------------------
    def _set_labels(self, plot: pg.PlotWidget, bottom: str, left: str) -> None:
        name = plot.objectName()
        self._labels[name] = (plot, bottom, left)
        if self._shown.changed(f"labels {name}", (bottom, left)):
            self._apply_labels(self.book.style, plot, bottom, left)

    def _apply_labels(self, st: Style, plot: pg.PlotWidget, bottom: str, left: str) -> None:
        font = {"font-size": st.css_pt("label"), "color": st.color("ink")}
        plot.setLabel("bottom", bottom, **font)
        plot.setLabel("left", left, **font)

    def _set_bar_label(self, text: str) -> None:
        self._bar_label = text
        if self._shown.changed("bar_label", text):
            self._apply_bar_label(self.book.style)

    def _apply_bar_label(self, st: Style) -> None:
        axis = self.heat_bar.getAxis("right")
        axis.setLabel(self._bar_label, **{"font-size": st.css_pt("label"),
                                          "color": st.color("ink")})  # fmt: skip

    def _restyle_labels(self, st: Style) -> None:
        for plot, bottom, left in self._labels.values():
            self._apply_labels(st, plot, bottom, left)
        self._apply_bar_label(st)

    # -- heatmap ---------------------------------------------------------------------------------
    def _refresh_heatmap(self, ctx: Context) -> None:
        a: Analysis = ctx["analysis"]
        mode = ctx.values.as_str("heatmap")
        scheme, n, d = a.key[0], a.key[1], a.key[2]
        image, levels, factor = _heat_image(a, mode)
        if self._shown.changed("heat_image", (a.key, mode)):
            self.heat_image.setImage(image, autoLevels=False)
        if self._shown.changed("heat_levels", levels):
            self.heat_bar.setLevels(levels)
        width = float(d) if mode == "table" else float(n)
        if self._shown.changed("heat_rect", (width, n)):
            self.heat_image.setRect(0.0, 0.0, width, float(n))
            styled.set_range(self.heat_plot, (0.0, width), (0.0, float(n)))
        what = _short(scheme)
        if mode == "table":
            title = f"{what}: {integer(n)} positions × {integer(d)} dims"
            self._set_labels(self.heat_plot, "dimension j", "position p")
            self._set_bar_label("value P[p, j]")
        elif mode == "dot":
            title = f"Dot products P·Pᵀ, {what}"
            self._set_labels(self.heat_plot, "position j", "position i")
            self._set_bar_label(f"P[i]·P[j]{_times(factor)}")
        else:
            title = f"Cosine similarity of positions, {what}"
            self._set_labels(self.heat_plot, "position j", "position i")
            self._set_bar_label("cos(P[i], P[j])")
        styled.retitle(self.book, self.heat_plot, title)
        names = {"table": ("table", "encoding P[p, j] (rows: positions, columns: dimensions)"),
                 "dot": ("dot_products", "P[i]·P[j]"),
                 "cosine": ("cosine", "cos(P[i], P[j])")}  # fmt: skip
        name, label = names[mode]
        source = a.table if mode == "table" else a.gram if mode == "dot" else a.cosine
        ctx.record(name, source.numpy(), label)
        ctx.record("levels", np.array(levels) * factor, "colour-bar range (in the data's units)")

    def _refresh_heatmap_marker(self, ctx: Context) -> None:
        v = ctx.values
        p = float(v.as_int("position"))
        width = float(v.as_int("dim") if v.as_str("heatmap") == "table" else v.as_int("positions"))
        xs = np.array([0.0, width, width, 0.0, 0.0])
        ys = np.array([p, p, p + 1.0, p + 1.0, p])
        if self._shown.changed("heat_row", (p, width)):
            self.heat_row.setData(xs, ys)
        ctx.record("position_row", np.stack([xs, ys]), "outline of the row of position p")

    def _refresh_similarity(self, ctx: Context) -> None:
        sim = ctx["similarity"]
        ks, cos, dots = (
            sim["cosine_offsets"], sim["mean_cosine_at_offsets"], sim["mean_product_at_offsets"]
        )  # fmt: skip
        head = "".join(f"<td align='right'>&nbsp;&nbsp;k = {integer(k)}</td>" for k in ks)
        cos_row = "".join(f"<td align='right'>&nbsp;&nbsp;{live(_value(c))}</td>" for c in cos)
        dot_row = "".join(f"<td align='right'>&nbsp;&nbsp;{live(_value(x))}</td>" for x in dots)
        self.similarity_label.set_html(
            f"<table {NOWRAP} cellspacing='0' cellpadding='0'>"
            f"<tr><td>Mean over i at offset</td>{head}</tr>"
            f"<tr><td>cos(P[i], P[i+k])</td>{cos_row}</tr>"
            f"<tr><td>P[i]·P[i+k]</td>{dot_row}</tr></table>"
        )
        ctx.record("cosine_offsets", np.asarray(ks), "offset k")
        ctx.record("mean_cosine_at_offsets", np.asarray(cos), "mean of cos(P[i], P[i+k]) over i")
        ctx.record("mean_product_at_offsets", np.asarray(dots), "mean of P[i]·P[i+k] over i")

    # -- waves -------------------------------------------------------------------------------------
    def _wave_columns(self, a: Analysis) -> tuple[np.ndarray, float, float]:
        cols = a.table.numpy()[:, :WAVES]
        lo, hi = _levels(a.key[0], a.table_min, a.table_max)
        return cols, lo, hi

    def _refresh_waves(self, ctx: Context) -> None:
        a: Analysis = ctx["analysis"]
        cols, lo, hi = self._wave_columns(a)
        n, w = cols.shape
        binary = a.key[0] == "binary"
        if self._shown.changed("waves", a.key):
            bands = np.arange(w, dtype=float)[None, :] + BAND * (hi - cols) / (hi - lo)
            xs, ys, connect = rows_polyline(np.arange(n, dtype=float), bands.T)
            self.wave_lines.setData(xs, ys, connect=connect)
        name = "bit" if binary else "dim"
        if self._shown.changed("wave_ticks", (w, name)):
            ticks = [(j + BAND / 2, f"{name} {j}") for j in range(w)]
            self.wave_plot.getAxis("left").setTicks([ticks, []])
        xrange, yrange = styled.positions_range(n), (-0.15, w - 1 + BAND + 0.15)
        if self._shown.changed("wave_range", (xrange, yrange)):
            styled.set_range(self.wave_plot, xrange, yrange)
        d = a.key[2]
        what = (
            "bits, least significant first"
            if binary
            else f"dims 0 … {w - 1}" + (f" of {integer(d)}" if d > w else "")
        )
        styled.retitle(self.book, self.wave_plot, f"Dimensions over the positions ({what})")
        ctx.record("positions", np.arange(n, dtype=float), "position p")
        ctx.record("waves", cols.T, f"P[p, j] of the first {w} dimensions (rows: j)")
        ctx.record("wave_range", np.array([lo, hi]), "value drawn at the bottom / top of a band")

    def _refresh_marker(self, ctx: Context) -> None:
        a: Analysis = ctx["analysis"]
        cols, lo, hi = self._wave_columns(a)
        p = ctx.values.as_int("position")
        w = cols.shape[1]
        ys = np.arange(w, dtype=float) + BAND * (hi - cols[p]) / (hi - lo)
        styled.move_line(self.wave_line, float(p))
        self.wave_dots.setData(np.full(w, float(p)), ys)
        ctx.record("values_at_position", cols[p], "P[p, j] of the dimensions drawn")

    def _refresh_vector(self, ctx: Context) -> None:
        vec = ctx["vector"]
        v = ctx.values
        row = np.asarray(vec["vector_at_position"])
        p, scheme = v.as_int("position"), v.as_str("scheme")
        shown = ", ".join(_component(scheme, x) for x in row[:SHOWN_COMPONENTS])
        more = (
            f", … ({live(integer(row.size - SHOWN_COMPONENTS))} more)"
            if row.size > SHOWN_COMPONENTS
            else ""
        )
        if scheme == "binary":
            code = "".join(str(int(x)) for x in row[::-1])
            if len(code) > CODE_DIGITS and not code[: len(code) - CODE_DIGITS].strip("0"):
                code = "0…0" + code[-CODE_DIGITS:]  # leading zeros shortened
            extra = (
                f" (bits least significant first): p = {live(integer(p))} = "
                f"{live(code)}<sub>2</sub>"
            )
        else:
            extra = f", ‖P[p]‖ = {live(_value(vec['vector_norm']))}"
        self.vector_label.set_html(f"<b>P[{live(integer(p))}]</b> = [{shown}{more}]{extra}")
        ctx.record("vector_at_position", row, "the vector of position p")
        ctx.record("vector_norm", vec["vector_norm"], "‖P[p]‖")

    # -- dot products ------------------------------------------------------------------------------
    def _refresh_dots(self, ctx: Context) -> None:
        v = ctx.values
        mode = v.as_str("dots")
        offsets = ctx["offsets"]
        k = v.as_int("distance")
        mean = np.asarray(offsets["product_mean_by_distance"])
        low = np.asarray(offsets["product_min_by_distance"])
        high = np.asarray(offsets["product_max_by_distance"])
        n = mean.size
        factor, yrange = _product_scale(ctx["analysis"])
        if mode == "pairs":
            dots = np.asarray(ctx["dot"]["dot_at_distance"])
            i = np.arange(dots.size, dtype=float)
            self.dot_curve.setData(i, dots / factor)
            self.dot_k_line.setVisible(False)
            self.dot_band.setVisible(False)
            xlabel, title = "position i", f"P[i]·P[i+k] at distance k = {k}, every i"
            ctx.record("positions", i, "position i")
            ctx.record("dot_at_distance", dots, "P[i]·P[i+k]")
        else:
            r = np.arange(n, dtype=float)
            if self._shown.changed("dot_band", ctx["analysis"].key):
                self.dot_low.setData(r, low / factor)
                self.dot_high.setData(r, high / factor)
                self.dot_curve.setData(r, mean / factor)
            self.dot_k_line.setVisible(True)
            self.dot_band.setVisible(True)
            styled.move_line(self.dot_k_line, float(k))
            xlabel, title = "distance k", "P[i]·P[i+k] against the distance k: mean, min–max"
            ctx.record("distance", r, "distance k")
            ctx.record("product_mean_by_distance", mean, "mean over i of P[i]·P[i+k]")
            ctx.record("product_min_by_distance", low, "min over i of P[i]·P[i+k]")
            ctx.record("product_max_by_distance", high, "max over i of P[i]·P[i+k]")
        if mode == "pairs":
            self._shown.forget("dot_band")
        # over the positions 0 … L−1 in both modes: the i of "pairs" end at L−1−k, but a range
        # that follows k is set again at almost every k step (+40 % frame time at L = 512)
        xrange = styled.positions_range(n)
        if self._shown.changed("dot_range", (xrange, yrange)):
            styled.set_range(self.dot_plot, xrange, yrange)
        self._set_labels(self.dot_plot, xlabel, f"P[i]·P[i+k]{_times(factor)}")
        styled.retitle(self.book, self.dot_plot, title)
        ctx.record("y_range", np.array(yrange) * factor, "y range drawn (the range of P·Pᵀ)")

    def _refresh_dot_pairs(self, ctx: Context) -> None:
        pairs = ctx["pairs"]
        starts = np.array([i for i, _ in pairs["random_pair_positions"]], dtype=float)
        products = np.asarray(pairs["random_pair_products"])
        factor, _ = _product_scale(ctx["analysis"])
        if ctx.values.as_str("dots") == "pairs":
            xs = starts
        else:
            xs = np.full(starts.size, float(ctx.values.as_int("distance")))
        self.pair_dots.setData(xs, products / factor)
        ctx.record("pair_starts", starts, "drawn positions i")
        ctx.record("pair_products", products, "P[i]·P[i+k] of the drawn pairs")

    def _refresh_dot_text(self, ctx: Context) -> None:
        dot = ctx["dot"]
        st, k = ctx.style, ctx.values.as_int("distance")
        n = len(dot["dot_at_distance"])
        verdict = (
            span(st, "good", "the same for every i")
            if dot["dot_same_for_every_i"]
            else span(st, "bad", "it depends on where the pair sits")
        )
        self.dot_label.set_html(
            f"{span(st, DOT_ROLE, f'P[i]·P[i+{live(integer(k))}]')} over i = 0 … "
            f"{live(integer(n - 1))}: from {live(_value(dot['dot_min']))} to "
            f"{live(_value(dot['dot_max']))}, mean {live(_value(dot['dot_mean']))}; "
            f"spread max − min = {live(sig(dot['dot_spread'], 3))}: {verdict}."
        )
        ctx.record("dot_spread", dot["dot_spread"], "max − min of P[i]·P[i+k]")

    def _refresh_pairs_text(self, ctx: Context) -> None:
        pairs = ctx["pairs"]
        st = ctx.style
        k = ctx.values.as_int("distance")
        lines = [
            f"The dot product between p_{live(integer(i))} and p_{live(integer(j))} "
            f"(distance: {live(integer(k))}) is {live(f'{x:.3f}'.replace('-', '−'))}"
            for (i, j), x in zip(
                pairs["random_pair_positions"], pairs["random_pair_products"], strict=True
            )
        ]
        draw = ctx.values.as_int("draw")
        self.pairs_label.set_html(
            f"{span(st, PAIR_ROLE, '●')} <b>{PAIRS} random pairs</b> (draw "
            f"{live(integer(draw))}):<br>" + "<br>".join(lines)
        )
        ctx.record("pair_lines", np.array(pairs["random_pair_lines"]), "the pairs as printed")

    # -- magnitude -------------------------------------------------------------------------------
    def _refresh_magnitude(self, ctx: Context) -> None:
        mode = ctx.values.as_str("magnitude")
        shares = mode == "sum"
        for item in (self.share_curve, self.half_line):
            item.setVisible(shares)
        for item in (self.length_lines, self.length_line, self.length_dots):
            item.setVisible(not shares)
        if shares:
            share = np.asarray(ctx["sum"]["position_share"])
            i = np.arange(share.size, dtype=float)
            self.share_curve.setData(i, share)
            if self._shown.changed("half", True):
                self.half_line.setValue(0.5)
            yrange: tuple[float, float] = (-0.03, 1.03)
            xrange = styled.positions_range(share.size)
            self._set_labels(self.mag_plot, "position i", "‖p‖² / (‖w‖² + ‖p‖²)")
            title = "The position's share of word + position"
            ctx.record("positions", i, "position i")
            ctx.record("position_share", share, "‖p_i‖² / (‖w_i‖² + ‖p_i‖²)")
        else:
            length = ctx["length"]
            lengths = np.asarray(length["lengths"], dtype=float)
            rows = np.asarray(length["vector_by_length"])  # (lengths, dims)
            w = rows.shape[1]
            xs, ys, connect = rows_polyline(lengths, rows.T)
            self.length_lines.setData(xs, ys, connect=connect)
            lo, hi = float(rows.min()), float(rows.max())
            pad = max(0.08 * (hi - lo), 0.05 * max(abs(hi), abs(lo), 1e-3))
            yrange = (lo - pad, hi + pad)
            xrange = (0.0, float(lengths[-1]) * 1.01)
            self._set_labels(self.mag_plot, "length L", f"P[{LENGTH_POSITION}, j], j < {w}")
            title = f"The vector of position {LENGTH_POSITION} at every length L"
            ctx.record("lengths", lengths, "length L")
            ctx.record("vector_by_length", rows.T, f"P[{LENGTH_POSITION}, j] (rows: j)")
        if self._shown.changed("mag_range", (xrange, yrange)):
            styled.set_range(self.mag_plot, xrange, yrange)
        styled.retitle(self.book, self.mag_plot, title)

    def _refresh_magnitude_marker(self, ctx: Context) -> None:
        a: Analysis = ctx["analysis"]
        n = a.key[1]
        row = a.table.numpy()[LENGTH_POSITION, :WAVES]
        if ctx.values.as_str("magnitude") == "length":
            styled.move_line(self.length_line, float(n))
            self.length_dots.setData(np.full(row.size, float(n)), row)
        ctx.record("length", float(n), "the current length L")
        ctx.record("vector_at_length", row, f"P[{LENGTH_POSITION}, j] at the current L")

    def _refresh_magnitude_text(self, ctx: Context) -> None:
        st, v = ctx.style, ctx.values
        if v.as_str("magnitude") == "sum":
            s = ctx["sum"]
            n = len(s["position_share"])
            self.mag_label.set_html(
                f"Word embeddings w ~ N(0, 1) (unit scale, seed {live(integer(v.as_int('seed')))})"
                f" plus the encoding p: RMS of w {live(_value(s['word_rms']))}, of p "
                f"{live(_value(s['position_rms']))}, of w + p {live(_value(s['sum_rms']))}. "
                f"{span(st, SHARE_ROLE, 'The position’s share')} of ‖w + p‖² (as "
                f"‖p‖²/(‖w‖²+‖p‖²)): {live(_percent(s['position_share_first']))} at p = 0, "
                f"{live(_percent(s['position_share_last']))} at p = {live(integer(n - 1))}, "
                f"{live(_percent(s['position_share_mean']))} on average."
            )
            ctx.record("position_share_mean", s["position_share_mean"], "mean share")
        else:
            length = ctx["length"]
            change = float(length["vector_change_across_lengths"])
            same = change == 0.0
            verdict = (
                span(st, "good", "the same vector at every length")
                if same
                else span(st, "bad", "a different vector for each length")
            )
            self.mag_label.set_html(
                f"P[{LENGTH_POSITION}] computed in tables of L = "
                f"{integer(length['lengths'][0])} … {integer(length['lengths'][-1])} positions "
                f"(dotted: the current L): largest change of an entry "
                f"{live(sig(change, 3))}: {verdict}."
            )
            ctx.record("vector_change_across_lengths", change, "largest change of P[5]")

    # -- verdicts ----------------------------------------------------------------------------------
    def _refresh_verdicts(self, ctx: Context) -> None:
        tab, st = ctx["table"], ctx.style
        n, d = (int(x) for x in tab["table_shape"])
        scheme = ctx.values.as_str("scheme")

        def mark(ok: bool) -> str:
            return span(st, "good", "<b>yes</b>") if ok else span(st, "bad", "<b>no</b>")

        # numbers marked live(): a step that changes only them edits them in place
        unique = (
            f"{live(integer(tab['distinct_rows']))} distinct vectors for "
            f"{live(integer(n))} positions"
        )
        if scheme == "binary" and not tab["unique"]:
            unique += (
                f" ({live(integer(d))} bits: {live(integer(2**d))} codes, L needs "
                f"{live(integer(bits_needed(n)))})"
            )
        rows = [
            ("Unique?", tab["unique"], unique),
            ("Bounded?", tab["bounded"],
             f"entries from {live(_value(tab['table_min']))} to "
             f"{live(_value(tab['table_max']))}"),
            ("Smooth?", tab["smooth"],
             f"largest step between neighbours {live(_value(tab['largest_step']))} = "
             f"{live(_percent(tab['step_share_of_distance']))} of the largest distance "
             f"{live(_value(tab['largest_distance']))} (smooth: ≤ {round(100 * SMOOTH_SHARE)} %)"),
            ("Same dot product at equal distance?", tab["same_dot_at_equal_distance"],
             f"largest spread of P[i]·P[i+k] over i: {live(sig(tab['max_product_spread'], 3))} "
             f"(at k = {live(integer(tab['max_product_spread_at']))})"),
            ("Same vector at any length?", tab["same_vector_at_any_length"],
             f"largest change of P[0 … 7] between L = 8, {live(integer(n))} and 512: "
             f"{live(sig(tab['change_with_length'], 3))}"),
        ]  # fmt: skip
        body = "".join(
            f"<tr><td>{q}</td><td>&nbsp;{mark(ok)}</td></tr>"
            f"<tr><td colspan='2' style='padding-left:10px'>{why}</td></tr>"
            for q, ok, why in rows
        )
        note = (
            "<br><i>An untrained table: random N(0, 0.02²), what training starts from.</i>"
            if scheme == "learned"
            else ""
        )
        self.verdict_label.set_html(
            f"<b>Verdict: {_label(scheme)}</b>"
            f"<table cellspacing='0' cellpadding='1'>{body}</table>{note}"
        )
        ctx.record(
            "verdicts",
            np.array([bool(ok) for _, ok, _ in rows]),
            "unique, bounded, smooth, same dot at equal distance, same vector at any length",
        )


# -- helpers -------------------------------------------------------------------------------------
def _label(scheme: str) -> str:
    return SCHEME_LABELS[SCHEMES.index(scheme)]


def _short(scheme: str) -> str:
    return SHORT_LABELS[SCHEMES.index(scheme)]


def _levels(scheme: str, low: float, high: float) -> tuple[float, float]:
    """Colour range of a table: [−1, 1] for sinusoidal, [0, 1] for binary and normalized, from 0
    to a round number above the largest for naive, symmetric and round for learned."""
    if scheme == "sinusoidal":
        return (-1.0, 1.0)
    if scheme in ("binary", "normalized"):
        return (0.0, 1.0)
    if scheme == "naive":
        return (0.0, nice_ceil(max(high, 1.0)))
    top = nice_ceil(max(abs(low), abs(high), 1e-12))
    return (-top, top)


def _range_of(low: float, high: float) -> tuple[float, tuple[float, float]]:
    """The divisor (a power of ten, 1 below 10^SCALE_FROM) and the round y range, divided, that
    holds ``[low, high]`` with a margin: from 0 when nothing is negative."""
    big = max(abs(low), abs(high), 1e-12)
    e = math.floor(math.log10(big))
    factor = 10.0**e if e >= SCALE_FROM else 1.0
    lo, hi = low / factor, high / factor
    pad = 0.06 * max(hi - lo, abs(hi), abs(lo), 1e-12)
    top = nice_ceil(hi + pad) if hi + pad > 0 else 0.0
    bottom = -nice_ceil(-(lo - pad)) if lo < 0 else -0.03 * top  # zeros above the axis
    return factor, (bottom, top)


def _product_scale(a: Analysis) -> tuple[float, tuple[float, float]]:
    return _range_of(float(a.offset_min.min()), float(a.offset_max.max()))


def _times(factor: float) -> str:
    if factor == 1.0:
        return ""
    return f" (× 10{superscript(round(math.log10(factor)))})"


def _heat_image(a: Analysis, mode: str) -> tuple[np.ndarray, tuple[float, float], float]:
    """The float32 image of ``mode`` (cached with the table), its colour levels (divided) and
    the divisor of its values."""
    cached = a.cache.get(mode)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    scheme = a.key[0]
    if mode == "table":
        levels = _levels(scheme, a.table_min, a.table_max)
        out = (a.table.numpy().astype(np.float32), levels, 1.0)
    elif mode == "cosine":
        out = (a.cosine.numpy().astype(np.float32), (-1.0, 1.0), 1.0)
    else:
        gram = a.gram.numpy()
        low, high = float(gram.min()), float(gram.max())
        factor, _ = _range_of(low, high)
        if low >= 0:
            levels = (0.0, nice_ceil(max(high / factor, 1e-12)))
        else:
            top = nice_ceil(max(abs(low), abs(high)) / factor)
            levels = (-top, top)
        out = ((gram / factor).astype(np.float32), levels, factor)
    a.cache[mode] = out
    return out


def _component(scheme: str, x: float) -> str:
    if scheme in ("binary", "naive"):
        return live(integer(x))
    return live(_value(x))


def _value(x: float) -> str:
    """A value as the notebook prints it (three decimals: ``173.790``), with significant
    digits instead when that would hide it (``−0.00580``) or be too long (``1.310·10⁸``)."""
    return num(x, 3) if x == 0 or 0.1 <= abs(x) < 1e6 else sig(x, 4 if abs(x) >= 1e6 else 3)


def _percent(x: float) -> str:
    """A share as a percentage, three significant digits: ``22.5 %``, ``0.195 %``."""
    return f"{sig(100.0 * x, 3)} %"


PANEL = EncodingsPanel
