"""The wavelengths: every pair's ``λ_i = 2π/ω_i`` on a log axis against the span of the
sequence, the selected pair, and how many pairs complete a full turn.

Views: ``wavelengths`` (spectrum), ``wavelength_marker`` (column), ``turns_label`` (spectrum,
positions).
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtGui import QBrush

from posenc_gui.panels.base import Panel
from posenc_gui.panels.heatmap.common import SYMBOLS_MAX, span_text
from posenc_gui.widgets import styled
from posenc_gui.widgets.fmt import integer
from posenc_gui.widgets.render.guides import ViewGuides
from posenc_gui.widgets.render.marked_line import MarkedLine
from posenc_gui.widgets.render.straight import StraightCurve
from posenc_gui.widgets.render.view_range import ShownRange
from posenc_gui.widgets.style import Style
from posenc_gui.widgets.styled import Dots
from posenc_gui.widgets.text import LiveText, live, span
from posenc_gui.widgets.views import Context, Shown


class WavelengthViews(Panel):
    """The wavelength plot's views (a part of
    :class:`~posenc_gui.panels.heatmap.HeatmapPanel`)."""

    _shown: Shown  # the panel's (built by the panel)

    def _build_wavelengths(self) -> None:
        b = self.book
        self.wl_plot = styled.plot(
            b, self, "wavelength_plot", "Wavelengths λ<sub>i</sub> = 2π/ω<sub>i</sub>",
            "pair i", "λ<sub>i</sub> (positions)", grid=False,
        )  # fmt: skip
        self.wl_plot.setLogMode(x=False, y=True)
        # The room for the λ labels only grows: a range of two decades labels 20, 50, … (wider
        # than 10², 10³, …), and shrinking back when it widens again re-laid the plot out
        # (its title, axes and view resized, everything painted twice) in a dim or base drag.
        self.wl_plot.getAxis("left").setStyle(autoReduceTextSpace=False)
        self.wl_plot.getAxis("bottom").set_ticks(whole=True)
        self.decade_lines = ViewGuides(
            b, self.wl_plot.getViewBox(), tuple(float(k) for k in range(9)), vertical=False
        )
        self.wl_plot.getViewBox().disableAutoRange()
        self._wl_range = ShownRange(self.wl_plot)
        # bare cached curves of log10 λ (the view's coordinates on the log axis) and dots: a
        # PlotDataItem log-transforms its data, keeps datasets and rebuilds a scatter per set
        self.wl_full = self._wl_curve("accent")
        self.wl_never = self._wl_curve("third")
        self.wl_full_dots = styled.markers(b, self.wl_plot, "accent", "dot")
        self.wl_never_dots = styled.markers(b, self.wl_plot, "third", "dot")
        b.add(self._style_wl_dots)  # rimmed in a hair line (styled.markers: a normal one)
        # a ring at (i, log10 λ_i): a bare marker item, not a PlotDataItem whose setData
        # rebuilds its scatter and log-transforms for one point
        self.wl_selected = Dots()
        self.wl_plot.addItem(self.wl_selected)
        b.add(self._style_wl_selected)
        self.span_line = MarkedLine(
            angle=0, movable=False, label="",
            labelOpts={"position": 0.02, "anchors": [(0, 1), (0, 1)]},
        )  # fmt: skip
        self.wl_plot.addItem(self.span_line)
        b.add(self._style_span_line)
        self.turns_label = LiveText("turns_readout", self, b)

    def _wl_curve(self, role: str) -> StraightCurve:
        item = StraightCurve()  # drawn directly: see its module
        self.wl_plot.addItem(item)
        self.book.add(lambda st: item.setPen(st.pen(role, "bold")))
        return item

    def _style_wl_dots(self, st: Style) -> None:
        for item, role in ((self.wl_full_dots, "accent"), (self.wl_never_dots, "third")):
            item.set_style(st.marker("dot"), st.pen("rim", "hair"), st.brush(role))

    def _style_wl_selected(self, st: Style) -> None:
        self.wl_selected.set_style(st.marker("huge"), st.pen("ink", "thick"), QBrush())

    def _style_span_line(self, st: Style) -> None:
        self.span_line.setPen(st.pen("ink", "line", "dash"))
        self.span_line.label.setColor(st.qcolor("ink"))
        self.span_line.label.setFont(st.font("legend"))

    def _refresh_wavelengths(self, ctx: Context) -> None:
        spec = ctx["spectrum"]
        lam = np.asarray(spec["wavelength"], dtype=np.float64)
        pairs = int(spec["pairs"])
        i = np.arange(pairs, dtype=np.float64)
        span_ = int(spec["span"])
        k = int(spec["full_turn_pairs"])  # λ is increasing: pairs 0…k-1 complete a turn
        dots = pairs <= SYMBOLS_MAX
        # a new span alone (positions) rarely moves a pair across it
        if self._shown.changed("wavelengths", (k, lam, dots)):
            log_lam = np.log10(lam)
            self.wl_full.setData(i[:k], log_lam[:k])
            self.wl_never.setData(i[k:], log_lam[k:])
            empty = np.zeros(0)
            self.wl_full_dots.setData(*((i[:k], log_lam[:k]) if dots else (empty, empty)))
            self.wl_never_dots.setData(*((i[k:], log_lam[k:]) if dots else (empty, empty)))
        # λ's axis ends at the data: from 5 (under 2π, pair 0, with room for its dot) to the
        # next decade over the longest wavelength or the span line. A base or length step moves
        # it only when the data cross a decade (an end at every minor tick cost a range update,
        # the axes drawn again, at most base steps: +12 % frame time; a fixed axis up to
        # 2π·base_max left most of the plot empty). The right end is snapped to a round number
        # of pairs: the axes are drawn again (and the view settled) only when an end moves, not
        # at every dim (one range update for the axes that move: ShownRange).
        x0, x1 = styled.positions_range(pairs, 0.02)
        top = max(float(lam.max()), float(span_))
        y = (math.log10(5.0), float(math.ceil(math.log10(top) - 1e-9)))
        self._wl_range.show(x=(min(x0, -0.5), x1), y=y)
        # a dim or base step leaves the line and its label alone (MarkedLine)
        at = math.log10(span_) if span_ >= 1 else None
        # the label on the side of the line the wavelengths leave free: λ grows with i, so
        # the dots lie under the line left of pair k and over it right of k
        if k <= pairs / 2:
            self.span_line.label_at(0.98, (1, 0))  # right, under the line
        else:
            self.span_line.label_at(0.02, (0, 1))  # left, over the line
        self.span_line.mark(at, f"last position L−1 = {integer(span_)}")
        ctx.record("pair", i, "pair i")
        ctx.record("wavelength", lam, "λ_i = 2π/ω_i", "positions")
        ctx.record("span", span_, "last position L−1", "positions")

    def _refresh_wavelength_marker(self, ctx: Context) -> None:
        col = ctx["column"]
        pair, lam = float(col["pair"]), float(col["selected_wavelength"])
        self.wl_selected.setData([pair], [math.log10(lam)])
        ctx.record("marker", [pair, lam], "(i, λ_i) of the selected column", "positions")

    def _refresh_turns_label(self, ctx: Context) -> None:
        st, spec = ctx.style, ctx["spectrum"]
        positions = ctx.values.as_int("positions")
        k, n, never = (int(spec[key]) for key in ("full_turn_pairs", "pairs", "never_turn_pairs"))
        self.turns_label.set_html(
            span(st, "accent", f"<b>{live(k)} of {live(n)} pairs</b>")
            + f" complete ≥ 1 full turn within positions {span_text(positions)} "
            "(λ<sub>i</sub> ≤ L−1); " + span(st, "third", f"<b>{live(never)}</b>") + " never do."
        )
        ctx.record("full_turn_pairs", k, "pairs with ≥ 1 full turn")
        ctx.record("never_turn_pairs", never, "pairs that never turn fully")
