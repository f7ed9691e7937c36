"""Slices of the table beside the heatmap: the encoding vector ``PE[p, :]`` (sharing the
heatmap's dimension axis) and the selected column with its sin/cos partner over positions
(sharing its position axis), drawn exactly, or as a min–max band per pixel column where a
column oscillates faster than the pixels.

Views: ``vector`` (vector group, layout, dim), ``vector_marker`` (cell, dimension), ``curves``
(positions, dim, base, layout, dimension, column, curve_range), ``curve_markers`` (cell,
position), ``curve_label`` (column, turns, positions, dimension, curve_range).
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
import torch
from PySide6.QtCore import Qt
from PySide6.QtGui import QPen

from posenc_gui.core.sinusoidal import sinusoidal_column_envelope, sinusoidal_columns
from posenc_gui.panels.heatmap.common import (
    CURVE_DOTS_MAX,
    CURVE_Y_RANGE,
    crosshair,
    curve_samples,
    layout_of,
    other,
    position_ticks,
    span_text,
    view_pixels,
)
from posenc_gui.panels.heatmap.image import ImageViews
from posenc_gui.widgets import styled
from posenc_gui.widgets.fmt import num, sig
from posenc_gui.widgets.render.guides import ViewGuides
from posenc_gui.widgets.text import LiveText, live, span
from posenc_gui.widgets.views import Context, Shown


class CurveViews(ImageViews):
    """The vector and curve plots' views (a part of
    :class:`~posenc_gui.panels.heatmap.HeatmapPanel`)."""

    _shown: Shown  # the panel's (built by the panel)

    def _build_vector(self) -> None:
        b = self.book
        self.vector_plot = styled.plot(
            b, self, "vector_plot", "Encoding vector PE[p, j]", "PE value", "dimension j",
            grid=False, mouse=(False, True),
        )  # fmt: skip
        vec_axis = self.vector_plot.getAxis("bottom")
        b.add(
            lambda st: vec_axis.setLabel(
                "PE value: " + span(st, "sin", "● sin") + " " + span(st, "cos", "● cos"),
                **{"font-size": st.css_pt("label"), "color": st.color("ink")},
            )
        )
        self.vector_plot.getAxis("left").set_ticks(whole=True, aligned=self._dimension_ticks)
        self.vector_plot.invertY(True)
        self.vector_plot.hideButtons()
        self.vector_plot.setXRange(-1.15, 1.15, padding=0)
        self.vector_plot.getViewBox().disableAutoRange()
        self.vector_plot.setYLink(self.heat_plot)
        self.vector_guides = ViewGuides(
            b, self.vector_plot.getViewBox(), (-1.0, -0.5, 0.0, 0.5, 1.0), vertical=True
        )
        # thin connecting lines, drawn only while d is small, and one dot per column
        self.vec_sin_line = styled.curve(b, self.vector_plot, "sin", "thin")
        self.vec_cos_line = styled.curve(b, self.vector_plot, "cos", "thin")
        self.vec_sin = styled.markers(b, self.vector_plot, "sin", "dot")
        self.vec_cos = styled.markers(b, self.vector_plot, "cos", "dot")
        self.vec_dim_line = crosshair(b, self.vector_plot, 0, "Drag to choose the dimension j")
        self.vec_marker = styled.markers(b, self.vector_plot, "ink", "large")

    def _build_curves(self) -> None:
        b = self.book
        #: Whether the position curves are drawn as min–max bands (faster than the pixels).
        self.curve_is_band = False
        self.curve_plot = styled.plot(
            b, self, "dimension_plot", "Dimension j over positions", "position", "PE value",
            grid=False, mouse=(True, False),
        )  # fmt: skip
        self.curve_plot.hideButtons()
        right = styled.axis_right(b, self.curve_plot)
        right.setStyle(showValues=False)
        self.curve_plot.setYRange(-CURVE_Y_RANGE, CURVE_Y_RANGE, padding=0)
        self.curve_guides = ViewGuides(
            b, self.curve_plot.getViewBox(), (-1.0, -0.5, 0.0, 0.5, 1.0), vertical=False
        )
        self.curve_plot.getAxis("bottom").set_ticks(
            whole=True, aligned=self._position_ticks, labels=position_ticks
        )
        self.curve_vb: pg.ViewBox = self.curve_plot.getViewBox()
        self.curve_vb.disableAutoRange()
        self.curve_plot.setXLink(self.heat_plot)
        self.partner_curve = styled.pixel_curve(b, self.curve_plot, "cos", "line")
        self.sel_curve = styled.pixel_curve(b, self.curve_plot, "sin", "thick")
        # drawn directly on the steps that set them; a step that leaves them alone (a
        # position: the crosshair and markers move over them) keeps their pixels and blits
        # the strips it repaints, instead of stroking every segment again (Panel.kept_lines)
        for line in (self.partner_curve, self.sel_curve):
            styled.keep_pixels(line, False)
        self.kept_lines = (self.partner_curve, self.sel_curve)
        # integer samples: one item per function (fixed colour; the selected one on top), so
        # that a step from a sine to a cosine column recolours nothing
        self.samples = {
            fn: styled.markers(b, self.curve_plot, fn, "small", rim=False) for fn in ("sin", "cos")
        }
        self.curve_pos_line = crosshair(b, self.curve_plot, 90, "Drag to choose the position p")
        self.curve_markers = styled.markers(b, self.curve_plot, "ink", "huge")
        self.curve_label = LiveText("dimension_readout", self, b)

    def _show_enlarged(self) -> None:
        super()._show_enlarged()
        self._link_curve_plot()

    def _curves_under_image(self) -> bool:
        """Whether the curve plot is laid out under the heatmap (the whole grid is shown)."""
        return self.enlarged_figure is None

    def _link_curve_plot(self) -> None:
        """Under the heatmap, the curve plot shares its position axis (linked, aligned); on a
        stage of its own it is unlinked and spans its width over the positions: pyqtgraph lines
        linked views up by their screen geometry, and the hidden heatmap's would stretch it."""
        if self._curves_under_image():
            self.curve_plot.setXLink(self.heat_plot)
            self._align_curve_plot()
            return
        self.curve_plot.setXLink(None)
        self.curve_plot.getAxis("right").setWidth(0)
        positions = self.state.as_int("positions")
        self.curve_vb.setXRange(-0.5, positions - 0.5, padding=0.0)

    def _align_curve_plot(self, *_: object) -> None:
        """Make the curve plot's view end where the heatmap's does (left of the colour bar).

        The two share the position axis (``setXLink`` lines them up pixel by pixel), so with equal
        widths every curve sample sits exactly under its heatmap column.
        """
        if not self._curves_under_image():
            return
        heat, curve = self.heat_vb.screenGeometry(), self.curve_vb.screenGeometry()
        if heat is None or curve is None or heat.width() <= 0 or curve.width() <= 0:
            return
        diff = curve.right() - heat.right()
        axis = self.curve_plot.getAxis("right")
        if abs(diff) >= 1:
            axis.setWidth(min(max(0, round(axis.width() + diff)), 200))

    # -- vector -------------------------------------------------------------------------------
    def _refresh_vector(self, ctx: Context) -> None:
        v, st = ctx.values, ctx.style
        vec = np.asarray(ctx["vector"]["vector"], dtype=np.float64)
        dim, p = v.as_int("dim"), v.as_int("position")
        idx = np.arange(dim)
        is_sin = idx % 2 == 0 if v.as_str("layout") == "interleaved" else idx < dim // 2
        # Dots, one per column; thin lines only while the columns are few enough to follow
        # (for large d, neighbouring fast columns jump between -1 and 1 and lines become noise).
        kind = "dot" if dim <= 128 else ("small" if dim <= 512 else "tiny")
        lines = dim <= 64
        if self._shown.changed("vector_dots", (kind, st)):
            rim = st.pen("rim", "hair") if kind != "tiny" else QPen(Qt.PenStyle.NoPen)
            for dots, role in ((self.vec_sin, "sin"), (self.vec_cos, "cos")):
                dots.set_style(st.marker(kind), rim, st.brush(role))
        empty = np.zeros(0)
        for fn, dots, line, mask in (
            ("sin", self.vec_sin, self.vec_sin_line, is_sin),
            ("cos", self.vec_cos, self.vec_cos_line, ~is_sin),
        ):
            x, y = vec[mask], idx[mask].astype(np.float64)
            dots.setData(x, y)
            if self._shown.changed(f"{fn}_lines", lines) or lines:  # emptied once
                line.setData(*((x, y) if lines else (empty, empty)))
        ctx.record("vector", vec, f"PE[{p}, j]")
        ctx.record("is_sin", is_sin, "column holds a sine")

    def _refresh_vector_marker(self, ctx: Context) -> None:
        value, j = float(ctx["cell"]["value"]), ctx.values.as_int("dimension")
        self.vec_marker.setData([value], [float(j)])
        ctx.record("marker", [value, float(j)], "(PE[p, j], j)")

    # -- curves -------------------------------------------------------------------------------
    def _refresh_curves(self, ctx: Context) -> None:
        v, st, col = ctx.values, ctx.style, ctx["column"]
        positions, dim, base = v.as_int("positions"), v.as_int("dim"), v.as_float("base")
        layout = layout_of(v.as_str("layout"))
        j, partner = v.as_int("dimension"), int(col["partner"])
        fn = str(col["function"])
        cx0, cx1 = self.curve_vb.viewRange()[0]
        lo, hi = max(cx0, 0.0), min(cx1, float(positions - 1))
        n = view_pixels(self.curve_vb, True)
        self.curve_is_band = False
        empty = np.zeros(0)
        if hi - lo <= n:
            if hi <= lo:  # a single position (or the view is off the table)
                x = np.array([min(max(lo, 0.0), float(positions - 1))])
            else:
                height = float(self.curve_vb.height())
                count = curve_samples(hi - lo, float(col["omega"]), n, height)
                x = np.linspace(lo, hi, count)
            y = sinusoidal_columns(torch.from_numpy(x), [j, partner], dim, base, layout=layout)
            ys = y.numpy()
            sel_x, sel_y, par_x, par_y = x, ys[:, 0], x, ys[:, 1]
            aa, envelope, connect = True, False, "all"
        else:
            envelope, connect = True, "pairs"  # one vertical segment (min → max) per pixel
            edges = torch.linspace(lo, hi, n + 1, dtype=torch.float64)
            centres = (0.5 * (edges[:-1] + edges[1:])).numpy()
            xx = np.repeat(centres, 2)
            bands, is_band = [], []
            for c in (j, partner):
                bot, top = sinusoidal_column_envelope(edges, c, dim, base, layout=layout)
                bands.append(torch.stack((bot, top), dim=1).reshape(-1).numpy())
                is_band.append(bool(((top - bot) > 1.0).double().mean() > 0.5))
            self.curve_is_band = is_band[0]
            # A band of near-vertical segments: antialiasing (and width) there costs several
            # times the paint time and changes nothing visible; a partner band lies entirely
            # under the selected one, so it is not drawn at all.
            aa = not self.curve_is_band
            sel_x, sel_y = xx, bands[0]
            par_x, par_y = (empty, empty) if all(is_band) else (xx, bands[1])
        thin = self.curve_is_band
        if self._shown.changed("curve_pens", (fn, thin, st)):
            self.sel_curve.setPen(st.pen(fn, "hair" if thin else "thick"))
            self.partner_curve.setPen(st.pen(other(fn), "hair" if thin else "line"))
            self.samples[fn].setZValue(1)
            self.samples[other(fn)].setZValue(0)
        self.sel_curve.setData(sel_x, sel_y, antialias=aa, connect=connect)
        self.partner_curve.setData(par_x, par_y, antialias=aa, connect=connect)
        first, last = math.ceil(lo), math.floor(hi)
        if 0 <= last - first + 1 <= CURVE_DOTS_MAX:
            ints = np.arange(first, last + 1, dtype=np.float64)
            y = sinusoidal_columns(torch.from_numpy(ints), [j, partner], dim, base, layout=layout)
            samples = y.numpy()
        else:
            ints, samples = empty, np.zeros((0, 2))
        self.samples[fn].setData(ints, samples[:, 0])
        self.samples[other(fn)].setData(ints, samples[:, 1])
        ctx.record("x", sel_x, "position p", "positions")
        ctx.record("selected", sel_y, f"PE[p, {j}] (min, max pairs when drawn as a band)")
        ctx.record("partner_x", par_x, "position p", "positions")
        ctx.record("partner", par_y, f"PE[p, {partner}]")
        ctx.record("envelope", envelope, "drawn as (min, max) pairs per pixel column")
        ctx.record("is_band", self.curve_is_band, "mostly a full-height band")
        ctx.record("sample_positions", ints, "integer positions", "positions")
        ctx.record("selected_samples", samples[:, 0], f"PE[p, {j}] at integer p")
        ctx.record("partner_samples", samples[:, 1], f"PE[p, {partner}] at integer p")

    def _refresh_curve_markers(self, ctx: Context) -> None:
        c, p = ctx["cell"], float(ctx.values.as_int("position"))
        values = [float(c["value"]), float(c["partner_value"])]
        self.curve_markers.setData([p, p], values)
        ctx.record("markers", values, "PE[p, j] and PE[p, partner]")

    def _refresh_curve_label(self, ctx: Context) -> None:
        v, st, col = ctx.values, ctx.style, ctx["column"]
        positions, j = v.as_int("positions"), v.as_int("dimension")
        fn, other = str(col["function"]), str(col["partner_function"])
        pair, partner = int(col["pair"]), int(col["partner"])
        turns = float(ctx["turns"]["turns"])
        text = (
            span(st, fn, f"<b>PE[p, {live(j)}] = {fn}(p·ω<sub>{live(pair)}</sub>)</b>")
            + " and its partner "
            + span(
                st, other, f"<b>PE[p, {live(partner)}] = {other}(p·ω<sub>{live(pair)}</sub>)</b>"
            )
            + f", ω<sub>{live(pair)}</sub> = {live(sig(float(col['omega']), 5))}, λ = "
            f"{live(sig(float(col['selected_wavelength'])))}: {live(num(turns, 2))} turns over "
            f"positions {span_text(positions)}."
        )
        if self.curve_is_band:  # a second line either way: a label that grows re-lays out
            text += (
                "<br><i>Oscillates faster than the pixels here: each pixel column shows the "
                "band from the curve's minimum to its maximum over the positions it covers; "
                "zoom in.</i>"
            )
        else:
            text += (
                "<br><i>A smooth curve through the exact values here; where a column oscillates "
                "faster than the pixels, each pixel column shows its minimum–maximum band.</i>"
            )
        self.curve_label.set_html(text)
        ctx.record("turns", turns, "turns over positions 0…L−1")
