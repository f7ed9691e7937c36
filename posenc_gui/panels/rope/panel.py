"""The RoPE tab's panel: its controls, its views and what each depends on, its layout."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from posenc_gui.panels.base import Cell
from posenc_gui.panels.rope.circle import CircleViews
from posenc_gui.panels.rope.curves import CurveViews, pair_products
from posenc_gui.panels.rope.matrix import MatrixViews
from posenc_gui.panels.rope.readouts import TYPED_PARAMS, ReadoutViews
from posenc_gui.state.rope import (
    MAX_POSITION,
    VECTOR_INPUTS,
    RopeModel,
    vector_key,
    vectors,
)
from posenc_gui.widgets import styled
from posenc_gui.widgets.text import LiveText
from posenc_gui.widgets.views import Context, Kept

#: Inputs of the score-vs-distance curves: never m or n.
CURVE_INPUTS = ("qk", "products", "dim", "base", "layout", "range_max", "x_range")


class RopePanel(CircleViews, CurveViews, MatrixViews, ReadoutViews):
    """The ``rope`` tab."""

    model = RopeModel

    def build(self) -> None:
        b = self.book
        #: q and k by what they are made from (see _make_qk).
        self._qk = Kept(1)
        self.derive("qk", VECTOR_INPUTS, self._make_qk)
        self.derive("products", ("qk", "layout"), _products)

        # ---- side column: controls and readouts --------------------------------------------
        pos_box = self.controls("Positions", "m", "n", "lock")
        self.invariance_label = LiveText("invariance_readout", self, b)
        freq_box = self.controls("Frequencies and layout", "dim", "base", "pair", "layout")
        self.pair_label = LiveText("pair_readout", self, b)
        self.vec_box = self.controls("Query and key vectors", "vectors", "seed", *TYPED_PARAMS)
        view_box = self.controls("Views", "range_max", "window")

        # ---- plots -----------------------------------------------------------------------------
        self._build_circle()
        self.circle_formula = LiveText("circle_formula", self, b)
        self._build_curves()
        self.bind_drag(self.distance_line, self._distance_dragged, self._distance_shown)
        self.curve_formula = LiveText("curve_formula", self, b)
        self._build_matrix()

        # stable geometry: a left axis as wide as its widest likely tick label from the start,
        # growing (never shrinking) past it. A y range whose labels change width would otherwise
        # re-lay the whole plot out and repaint it twice.
        for plot, widest in (
            (self.circle_plot, "-0.25"), (self.curve_plot, "-0.05"),
            (self.decay_plot, "0.0001"), (self.matrix_plot, "100000"),
        ):  # fmt: skip
            styled.steady_axis(self.book, plot.getPlotItem().getAxis("left"), widest)

        # texts painted from their pixels, the matrix from 32-bit colour (see the helpers)
        for plot in (self.circle_plot, self.curve_plot, self.decay_plot, self.matrix_plot):
            styled.cache_texts(plot)
        #: Lines whose pixels are kept only while a step leaves them alone (see flush): the
        #: markers that m and n move pass over them; dim, seed, base... redraw them.
        self.kept_lines = (
            self.q_circle, self.k_circle, self.q_arc, self.k_arc, self.between_arc,
            self.q_before, self.k_before, self.q_after, self.k_after, self.diagonal_line,
            self.score_curve, self.qk_curve, self.score_band, self.qk_band, self.abs_curve,
            self.abs_qk_curve, self.bound_curve,
        )  # fmt: skip

        # ---- layout comparison ---------------------------------------------------------------
        self.layout_label = LiveText("layout_readout", self, b)
        # read-outs paint their own background (the palette's, as their parents'): a new value
        # then repaints the read-out alone, not first the part of the plot grid or side column
        # beneath it
        for label in (self.invariance_label, self.pair_label, self.circle_formula,
                      self.curve_formula, self.layout_label):  # fmt: skip
            label.setAutoFillBackground(True)

        self._declare_views()
        self.place(
            [pos_box, self.invariance_label, freq_box, self.pair_label, self.vec_box, view_box],
            [
                Cell(self.circle_plot, 0, 0), Cell(self.curve_plot, 0, 1),
                Cell(self.circle_formula, 1, 0), Cell(self.curve_formula, 1, 1),
                Cell(self.matrix_plot, 2, 0), Cell(self.decay_plot, 2, 1),
                Cell(self.layout_label, 3, 0, 1, 2),
            ],
            row_stretch={0: 5, 2: 5}, col_stretch={0: 4, 1: 5},
        )  # fmt: skip

    def _declare_views(self) -> None:
        """Each view, its inputs and its key: what it shows. An input that changed without
        changing the key (a typed component while the vectors are random, a zoom that keeps
        the same columns...) runs nothing: no item is set, nothing is repainted."""
        circle_inputs = ("pair", "query_key", "scores", "rotation")
        formula_inputs = (
            "range_max", "dim", "x_range", "positions", "scores", "query_key", "bound",
        )  # fmt: skip
        # (the labels are placed apart in pixels: a new size of the plot places them again)
        self.view("circle", self.circle_plot, (*circle_inputs, "circle_size"),
                  self._refresh_circle,
                  key=lambda c: (c["query_key"], c["scores"], c["rotation"],
                                 c.values.as_int("pair"), self.circle_view_size()))  # fmt: skip
        self.view(
            "circle_formula", self.circle_formula, (*circle_inputs, "frequency"),
            self._refresh_circle_formula,
            key=lambda c: (c["query_key"], c["scores"], c["rotation"], c["frequency"],
                           c.values.as_int("pair")),
        )  # fmt: skip
        self.view(
            "invariance", self.invariance_label, ("m", "n", "pair", "dim", "positions", "scores"),
            self._refresh_invariance,
            key=lambda c: (c["positions"], c["scores"],
                           *(c.values.as_int(n) for n in ("m", "n", "pair", "dim"))),
        )  # fmt: skip
        self.view(
            "pair_readout", self.pair_label, ("pair", "frequency", "query_key"),
            self._refresh_pair_readout,
            key=lambda c: (c["frequency"], c["query_key"], c.values.as_int("pair")),
        )  # fmt: skip
        self.view("typed_controls", self.vec_box, ("vectors",), self._refresh_typed_controls)
        self.view("curves", self.curve_plot, CURVE_INPUTS, self._refresh_curves,
                  key=self._curves_key)  # fmt: skip
        self.view(
            "decay", self.decay_plot, (*CURVE_INPUTS, "query_key", "bound_ready"),
            self._refresh_decay, key=self._decay_key,
        )  # fmt: skip
        self.view(
            "distance_marker", self.curve_plot, ("positions", "scores", "x_range"),
            self._refresh_distance_marker, key=self._distance_marker_key,
        )  # fmt: skip
        self.view(
            "curve_formula", self.curve_formula, formula_inputs, self._refresh_curve_formula,
            key=self._curve_formula_key,
        )  # fmt: skip
        self.view(
            "matrix", self.matrix_plot,
            ("qk", "products", "base", "layout", "window", "matrix_window"), self._refresh_matrix,
        )  # fmt: skip
        self.view(
            "matrix_marker", self.matrix_plot, ("m", "n", "window", "matrix_window"),
            self._refresh_matrix_marker,
            key=lambda c: (c["matrix_window"], *(c.values.as_int(n) for n in ("m", "n", "window"))),
        )  # fmt: skip
        self.view(
            "layouts", self.layout_label, ("layout", "dim", "layouts"), self._refresh_layouts,
            key=lambda c: (c["layouts"], c.values.as_str("layout"), c.values.as_int("dim")),
        )  # fmt: skip

    def _make_qk(self, ctx: Context) -> tuple[torch.Tensor, torch.Tensor]:
        """q and k for the "qk" quantity: the same tensors while what they are made from is
        unchanged (a step of the pair or the layout while vectors = random), so the views keyed
        by them skip."""
        qk: tuple[torch.Tensor, torch.Tensor] = self._qk.get(
            vector_key(ctx.values), lambda: vectors(ctx.values)
        )
        return qk

    # -- view state (zoom of the distance plots) ------------------------------------------------
    def view_state(self) -> dict[str, Any]:
        """The visible distance range of the score plots, when zoomed: ``{"x_range": [lo, hi]}``."""
        rng = self.state.as_int("range_max")
        lo, hi = self.curve_plot.getPlotItem().getViewBox().viewRange()[0]
        if abs(lo + rng) < 1e-9 * rng and abs(hi - rng) < 1e-9 * rng:
            return {}
        return {"x_range": [float(lo), float(hi)]}

    def restore_view_state(self, state: Mapping[str, Any]) -> None:
        """Zoom the score plots back to a :meth:`view_state` (unknown keys are ignored)."""
        xr = state.get("x_range")
        if not (isinstance(xr, list | tuple) and len(xr) == 2):
            return
        lo, hi = (float(x) for x in xr)
        if math.isfinite(lo) and math.isfinite(hi) and lo < hi:
            self.refresh_now()  # the range of the current range_max first, then the zoom
            self.curve_plot.setXRange(lo, hi, padding=0.0)

    # -- plot interaction -> state --------------------------------------------------------------
    def _set_distance(self, r: int) -> None:
        """Keep m and move n so that m − n = r (moving m too at the ends of the range)."""
        m = self.state.as_int("m")
        n = m - r
        if n < 0:
            m, n = r, 0
        elif n > MAX_POSITION:
            m, n = MAX_POSITION + r, MAX_POSITION
        if 0 <= m <= MAX_POSITION:
            self.state.update({"m": m, "n": n})

    def _distance_dragged(self, x: float) -> None:
        rng = self.state.as_int("range_max")
        self._set_distance(round(min(max(x, -rng), rng)))

    def _distance_shown(self) -> float:
        return float(self.state.as_int("m") - self.state.as_int("n"))

    # -- background work ------------------------------------------------------------------------
    def stop_work(self) -> None:
        """Cancel the background bound (the running job stops at its next block) and the
        curve job, and wait for both threads to end; later requests start new ones."""
        self.bound_job.stop()
        self._second.stop()

    def settle(self) -> None:
        """Finish background work now and refresh (rendering, tests, exports): the bound still
        wanted is computed here, at the GUI thread's priority (the worker, at the lowest one,
        may wait long for a core on a busy machine) and the worker's job is cancelled."""
        self.flush()  # pending changes first: they decide which bound is wanted
        self.bound_job.settle()
        self.invalidate("bound_ready")
        self.flush()

    def refresh_all(self) -> None:
        """Refresh every view now, including the background bound (a complete picture)."""
        super().refresh_all()
        self.settle()


def _products(ctx: Context) -> tuple[Any, Any]:
    """The "products" quantity: :func:`~.curves.pair_products` of q, k in the layout."""
    q, k = ctx["qk"]
    return pair_products(q, k, ctx.values.as_str("layout"))


PANEL = RopePanel
