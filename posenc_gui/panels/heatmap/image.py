"""The heatmap itself: its extent and zoom, the image of ``PE[p, j]`` computed for the pixels
of the view, and the crosshair lines at the selected position and dimension.

Views: ``extent`` (positions, shown), ``image`` (positions, dim, base, layout, shown,
heat_range), ``position_lines`` (positions, position), ``dimension_lines`` (shown, dimension).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyqtgraph as pg
import torch

from posenc_gui.core.colour import colour_index
from posenc_gui.core.sinusoidal import (
    SinusoidalLayout,
    group_row_means,
    sinusoidal_column_means,
)
from posenc_gui.panels.base import Panel
from posenc_gui.panels.heatmap.common import (
    crosshair,
    layout_of,
    position_bins,
    position_ticks,
    view_pixels,
)
from posenc_gui.state.heatmap import shown_count
from posenc_gui.state.params import ParamError
from posenc_gui.widgets import styled
from posenc_gui.widgets.render import AlignedAxes
from posenc_gui.widgets.render.binned_image import ColourTable, KeptRows
from posenc_gui.widgets.render.view_range import HouseViewBox, settle
from posenc_gui.widgets.style import Style
from posenc_gui.widgets.views import Context, Shown


class ImageViews(Panel):
    """The heatmap plot's views (a part of :class:`~posenc_gui.panels.heatmap.HeatmapPanel`)."""

    _shown: Shown  # the panel's (built by the panel)

    # built by the other parts of the panel
    curve_vb: pg.ViewBox
    vector_plot: pg.PlotWidget
    curve_pos_line: pg.InfiniteLine
    vec_dim_line: pg.InfiniteLine

    def _build_heatmap(self) -> None:
        b = self.book
        self._extent: tuple[int, int] | None = None
        self._applying_extent = False
        #: Per pixel column of the image: the positions it covers (``first … last``) and its
        #: centre position; per pixel row: the dimension columns it covers
        #: (``dim_first … dim_last``) and its centre one (``image_dims``).
        #: ``image_table[r, c]`` is the mean of ``PE[first[r] … last[r], dim_first[c] …
        #: dim_last[c]]`` (float64; the entry itself when the pixel covers one of each).
        self.image_positions = np.zeros(0, dtype=np.int64)
        self.image_first = np.zeros(0, dtype=np.int64)
        self.image_last = np.zeros(0, dtype=np.int64)
        self.image_dims = np.zeros(0, dtype=np.int64)
        self.image_dim_first = np.zeros(0, dtype=np.int64)
        self.image_dim_last = np.zeros(0, dtype=np.int64)
        self.image_table = np.zeros((0, 0))
        #: Average number of positions per pixel column (1 = exact rows, no averaging).
        self.image_mean_over = 1.0
        #: Average number of dimensions per pixel row (1 = one column per row, no averaging).
        self.image_dim_mean_over = 1.0
        self._image_rect = (0.0, 0.0, 1.0, 1.0)
        #: The image rows (pixel means and colour indices) last computed, kept for the steps
        #: that show them again (see :meth:`_image_rows`).
        self.kept_rows = KeptRows(colour_index)
        #: With more dimensions than pixel rows: every visible column's pixel means, kept
        #: uncoloured; each pixel row averages its columns (see :meth:`_image_rows`).
        self.kept_columns = KeptRows(None)
        #: Seconds spent in the last image recompute.
        self.last_view_seconds = 0.0

        self.heat_plot = styled.plot(
            b, self, "heatmap_plot", "Sinusoidal encoding PE[p, j]", "position", "dimension j",
            grid=False, mouse=(True, True),
        )  # fmt: skip
        self.heat_plot.invertY(True)
        self.heat_plot.hideButtons()
        #: Whole-number ticks and drawings shared by the axes that show the same range on the
        #: same length (the heatmap's and the curve plot's positions, its and the vector's
        #: dimensions).
        self._position_ticks, self._dimension_ticks = AlignedAxes(), AlignedAxes()
        self.heat_plot.getAxis("bottom").set_ticks(
            whole=True, aligned=self._position_ticks, labels=position_ticks
        )
        self.heat_plot.getAxis("left").set_ticks(whole=True, aligned=self._dimension_ticks)
        self.heat_vb: HouseViewBox = self.heat_plot.getViewBox()
        self.heat_vb.disableAutoRange()
        self.image, self.colorbar = styled.heatmap(
            b, self.heat_plot, (-1.0, 1.0), "diverging", "PE value"
        )
        # The image gets RGBA pixels coloured here (see :meth:`_push_image`), not float values
        # that pyqtgraph maps through levels and a LUT at every paint: the bar only shows the
        # scale.
        self.colorbar.setImageItem([])
        self.image.setLevels(None)
        #: Colour-map index (0…255) of every image pixel, (shown columns, pixel columns).
        self.image_index = np.zeros((0, 0), dtype=np.uint8)
        self._colours = ColourTable()
        b.add(self._style_image)
        self.pos_line = crosshair(b, self.heat_plot, 90, "Drag to choose the position p")
        self.dim_line = crosshair(b, self.heat_plot, 0, "Drag to choose the dimension j")

    # -- actions ------------------------------------------------------------------------------
    def reset_view(self) -> None:
        """Show every position and every shown dimension."""
        self._apply_extent(self.state.as_int("positions"), shown_count(self.state.values()))

    def _apply_extent(self, positions: int, shown: int) -> None:
        x, y = (-0.5, positions - 0.5), (-0.5, shown - 0.5)
        # only the axes whose range really moves: a ``dim`` step leaves the positions (the
        # heatmap's x, the linked curve plot) alone, a ``positions`` step the dimensions
        new_x, new_y = self.heat_vb.show_extent(
            x, y, min(4.0, float(positions)), min(2.0, float(shown))
        )
        if tuple(self.curve_vb.viewRange()[0]) != x:
            self.curve_vb.setXRange(*x, padding=0.0)
        self._extent = (positions, shown)
        # the new transforms now, not in the paint (which would then paint twice)
        boxes = [self.heat_vb] if new_x or new_y else []
        if new_x:
            boxes.append(self.curve_vb)
        if new_y:
            boxes.append(self.vector_plot.getViewBox())
        settle(*boxes)

    def view_state(self) -> dict[str, Any]:
        """The heatmap's zoom/pan: ``{"x_range": [x0, x1], "y_range": [y0, y1]}`` (floats)."""
        self.refresh_now()
        (x0, x1), (y0, y1) = self.heat_vb.viewRange()
        return {"x_range": [float(x0), float(x1)], "y_range": [float(y0), float(y1)]}

    def restore_view_state(self, state: Mapping[str, Any]) -> None:
        """Zoom/pan the heatmap to a :meth:`view_state`: each range that the table can show
        (the model's ``check_view``, as a session is checked when it loads); the others
        and unknown entries are ignored."""
        self.refresh_now()  # parameters first: a new extent would reset the zoom afterwards
        values = self.state.values()
        ranges: dict[str, tuple[float, float]] = {}
        for key in ("x_range", "y_range"):
            if key not in state:
                continue
            try:
                self.model.check_view(values, {key: state[key]})
            except ParamError:
                continue
            lo, hi = state[key]
            ranges[key] = (float(lo), float(hi))
        if ranges:
            self.heat_vb.setRange(
                xRange=ranges.get("x_range"), yRange=ranges.get("y_range"), padding=0.0
            )

    # -- plot interaction -> state ------------------------------------------------------------
    def _select_position(self, x: float) -> None:
        hi = self.state.as_int("positions") - 1
        self.state.set("position", round(min(max(x, 0.0), float(hi))))

    def _select_dimension(self, y: float) -> None:
        hi = shown_count(self.state.values()) - 1
        self.state.set("dimension", round(min(max(y, 0.0), float(hi))))

    def _heat_range_changed(self, *_: object) -> None:
        if not self._applying_extent:  # the extent view's own change: image refreshes anyway
            self.invalidate("heat_range")

    def _curve_range_changed(self, *_: object) -> None:
        if not self._applying_extent:
            self.invalidate("curve_range")

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        """The (position, dimension) under view point (x, y) of the image.

        Each is the one nearest the point among those its pixel covers (exact even where a
        pixel averages several positions or dimensions).
        """
        x0, y0, w, h = self._image_rect
        n, m = len(self.image_first), len(self.image_dim_first)
        if n == 0 or m == 0 or w <= 0 or h <= 0:
            return None
        r = math.floor((x - x0) / w * n)
        c = math.floor((y - y0) / h * m)
        if not (0 <= r < n and 0 <= c < m):
            return None
        p = min(max(round(x), int(self.image_first[r])), int(self.image_last[r]))
        j = min(max(round(y), int(self.image_dim_first[c])), int(self.image_dim_last[c]))
        return p, j

    # -- heatmap ------------------------------------------------------------------------------
    def _refresh_extent(self, ctx: Context) -> None:
        positions, shown = ctx.values.as_int("positions"), int(ctx["shown"]["shown"])
        if self._extent != (positions, shown):
            self._applying_extent = True
            try:
                self._apply_extent(positions, shown)
            finally:
                self._applying_extent = False
        ctx.record("extent", [positions, shown], "positions × shown dimension columns")

    def _refresh_image(self, ctx: Context) -> None:
        v = ctx.values
        start_time = time.perf_counter()
        positions, dim, base = v.as_int("positions"), v.as_int("dim"), v.as_float("base")
        layout = layout_of(v.as_str("layout"))
        shown = int(ctx["shown"]["shown"])
        (x0, x1), (y0, y1) = self.heat_vb.viewRange()
        first, last, xs, xw = position_bins(x0, x1, positions, view_pixels(self.heat_vb, True))
        dfirst, dlast, ys, yh = position_bins(y0, y1, shown, view_pixels(self.heat_vb, False))
        over_p, over_j = bool((last > first).any()), bool((dlast > dfirst).any())
        # one image row per pixel row; a pixel covering one position and one dimension is
        # that entry itself (the mean of one term)
        table_t, self.image_index = self._image_rows(first, last, dfirst, dlast, dim, base, layout)
        self.image_first, self.image_last = first, last
        self.image_dim_first, self.image_dim_last = dfirst, dlast
        self.image_positions, self.image_dims = (first + last) // 2, (dfirst + dlast) // 2
        self.image_table = table_t.numpy().T  # (pixel columns, pixel rows), a view
        self.image_mean_over = xw / len(first)
        self.image_dim_mean_over = yh / len(dfirst)
        self._push_image()
        # the rect is a scale per image pixel: set it again whenever the shape changed too
        self._image_rect = (xs, ys, xw, yh)
        if self._shown.changed("image_rect", (self._image_rect, self.image_table.shape)):
            self.image.setRect(*self._image_rect)
        # a long title would force the plot's minimum width: the note is in the hover label
        title = (
            "PE[p, j] averaged over p and j" if over_p and over_j
            else "PE[p, j] averaged over positions" if over_p
            else "PE[p, j] averaged over dimensions" if over_j
            else "Sinusoidal encoding PE[p, j]"
        )  # fmt: skip
        styled.set_title(self.book, self.heat_plot, title)
        ctx.record("values", self.image_table, "PE[p, j], mean over each pixel's p and j")
        ctx.record("first", first, "first position of each pixel column")
        ctx.record("last", last, "last position of each pixel column")
        ctx.record("dim_first", dfirst, "first dimension of each pixel row")
        ctx.record("dim_last", dlast, "last dimension of each pixel row")
        ctx.record("dims", self.image_dims, "centre dimension of each pixel row")
        ctx.record("mean_over", self.image_mean_over, "positions per pixel column (mean)")
        ctx.record("dim_mean_over", self.image_dim_mean_over, "dimensions per pixel row (mean)")
        self.last_view_seconds = time.perf_counter() - start_time

    def _image_rows(
        self,
        first: np.ndarray,
        last: np.ndarray,
        dfirst: np.ndarray,
        dlast: np.ndarray,
        dim: int,
        base: float,
        layout: SinusoidalLayout,
    ) -> tuple[torch.Tensor, np.ndarray]:
        """The image's rows: per pixel row, the pixel means over its columns ``dfirst[c] …
        dlast[c]`` (``(C, K)`` float64), and their colour-map indices (uint8).

        One column per row: taken from :attr:`kept_rows` when a step only changed which
        columns are shown. Several: the means of every visible column, from
        :attr:`kept_columns` (a step that shows fewer of them only averages again), averaged
        over each row's columns and coloured."""

        def means(first: np.ndarray, last: np.ndarray, cols: np.ndarray) -> torch.Tensor:
            return sinusoidal_column_means(
                torch.from_numpy(first), torch.from_numpy(last), torch.from_numpy(cols),
                dim, base, layout=layout, columns_first=True,
            )  # fmt: skip

        key = (dim, base, layout)
        if np.array_equal(dfirst, dlast):
            return self.kept_rows.rows(key, first, last, dfirst, means)
        cols = np.arange(int(dfirst[0]), int(dlast[-1]) + 1, dtype=np.int64)
        columns = self.kept_columns.values(key, first, last, cols, means)
        rows = group_row_means(columns, torch.from_numpy(dfirst - dfirst[0]),
                               torch.from_numpy(dlast - dfirst[0]))  # fmt: skip
        return rows, colour_index(rows)

    def _style_image(self, st: Style) -> None:
        self._colours.set_colormap(st.colormap("diverging"))
        if self.image_index.size:
            self._push_image()

    def _push_image(self) -> None:
        """Colour :attr:`image_index` with the colour map and hand the RGBA pixels over."""
        self.image.setImage(self._colours.rgba(self.image_index), autoLevels=False)

    def _set_bounds(self, line: pg.InfiniteLine, key: str, hi: float) -> None:
        """Bound a draggable line to ``0 … hi`` (when ``hi`` changed)."""
        if self._shown.changed(f"{key}_bounds", hi):
            styled.bound_line(line, 0.0, hi)

    def _refresh_position_lines(self, ctx: Context) -> None:
        p, hi = ctx.values.as_int("position"), float(ctx.values.as_int("positions") - 1)
        for key, line in (("pos", self.pos_line), ("curve_pos", self.curve_pos_line)):
            self._set_bounds(line, key, hi)
            styled.move_line(line, float(p))
        ctx.record("position", p, "selected position p")

    def _refresh_dimension_lines(self, ctx: Context) -> None:
        j, hi = ctx.values.as_int("dimension"), float(int(ctx["shown"]["shown"]) - 1)
        for key, line in (("dim", self.dim_line), ("vec_dim", self.vec_dim_line)):
            self._set_bounds(line, key, hi)
            styled.move_line(line, float(j))
        ctx.record("dimension", j, "selected dimension j")

    def _pixel_of(self, p: int) -> int | None:
        """The image's pixel column that covers position ``p`` (None when not in view)."""
        n = len(self.image_first)
        if n == 0 or p < int(self.image_first[0]) or p > int(self.image_last[-1]):
            return None
        return int(np.searchsorted(self.image_first, p, side="right")) - 1

    def _pixel_row_of(self, j: int) -> int | None:
        """The image's pixel row that covers dimension ``j`` (None when not in view)."""
        n = len(self.image_dim_first)
        if n == 0 or j < int(self.image_dim_first[0]) or j > int(self.image_dim_last[-1]):
            return None
        return int(np.searchsorted(self.image_dim_first, j, side="right")) - 1
