"""Rotation matrix tab: R(θ)v on the circle, the live matrix product, property checks, the PE
shift as a rotation and RoPE's block-diagonal R_m.

Top row: v and R(θ)v as arrows with the swept angle (drag the tip of v to move it, drag the tip
of R(θ)v to turn θ), the matrix product written out with its numbers, and the properties
(|Rv| = |v|, det R = 1, RᵀR = I, composition, inverse) each with its numeric residual.
Bottom row: one sin/cos pair of a sinusoidal encoding at positions p and p′ and their partners
k positions later, related by one and the same matrix; and the RoPE matrix R_m as a heatmap
with its coupled 2×2 blocks outlined and the check R_mᵀR_n = R_{n−m}.

Views and their inputs: ``v`` (x, y), ``rv`` (angle, x, y), ``composed`` (angle, angle2, x, y)
and ``rot_labels`` (the same and the plot's size: v, R(θ)v and θ placed clear of the lines
and of each other) on the rotation plot; ``matrix`` (angle, x, y) and ``checks`` (+ angle2)
beside it;
``pe_plot`` (which also titles its axes by pe_order) and ``pe_text`` (dim, base, pair,
position, position2, offset, pe_order); ``rope_geometry`` (block_dim, layout),
``rope_heatmap`` (m, block_dim, base, layout),
``rope_cells`` (the same, and the plot's size) and ``rope_text`` (+ n). Labels inside plots are
placed clear of the lines, the markers, each other and the view's edge
(:func:`~posenc_gui.widgets.render.occupancy.place_labels`; re-placed when a plot is resized:
events ``rot_size``, ``pe_size``).

Frame time: every read-out of this tab changes its numbers at every step, so none is a rich
text document (a table in one is laid out again in full for any new number, ~0.2 ms a table,
and each edit repaints the document): the matrices are ``MatrixLine`` s and the stack of parts
a ``ReadoutStack`` (:mod:`posenc_gui.widgets.text.matrix`), the p/p′ table a ``GridTable``,
the sentences ``RichLines`` (wrapped, with sub- and superscripts), all painted from plain
strings, each with its HTML as :meth:`text`. Arrows and arcs are house ``PixelCurve`` s drawn
as segments (arcs a segment per 3°), in ``kept_lines``; the RoPE cell numbers are one item
(:class:`~posenc_gui.widgets.render.cells.CellTexts`), the labels of the arrows
:class:`~posenc_gui.widgets.render.notes.Note` s (a text set again unchanged is kept).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QBrush, QFontMetricsF
from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget

from posenc_gui.core.rotation import arc_angles
from posenc_gui.panels.base import Cell, Panel
from posenc_gui.state import ParamError
from posenc_gui.state.rotation import (
    COMPOSITION_INPUTS,
    PE_PAIR_INPUTS,
    ROPE_MATRIX_INPUTS,
    ROPE_RELATIVE_INPUTS,
    ROTATION_INPUTS,
    TOLERANCE,
    RotationModel,
)
from posenc_gui.widgets import styled
from posenc_gui.widgets.fmt import integer, num, sci, sig
from posenc_gui.widgets.render.arrows import Arrow
from posenc_gui.widgets.render.cells import CellTexts
from posenc_gui.widgets.render.items import Dots, PixelCurve
from posenc_gui.widgets.render.notes import note, place_notes
from posenc_gui.widgets.render.occupancy import (
    Arc,
    Bounds,
    Candidates,
    LineGrid,
    Spot,
    first_tip_spot,
    tip_candidates,
)
from posenc_gui.widgets.style import LineStyle, Style, StyleBook
from posenc_gui.widgets.text import NBSP, GridTable, LiveText, RichLines, Run, span
from posenc_gui.widgets.text.matrix import MatrixLine, ReadoutStack
from posenc_gui.widgets.views import Context, Shown

ROT_RANGE = 2.95  # |v| <= 2·√2 ≈ 2.83
PE_RANGE = 1.5  # the unit circle and the labels past its arrows' tips
CELL_TEXT_MAX = 8  # at most this head dimension gets numbers written into its cells
#: Cell numbers use this font kind; a cell shows its number only when the text fits.
CELL_FONT = "small"
PE_ROLES = ("query", "key", "fourth", "third")  # p, p+k, p′, p′+k
PE_NAMES = ("p", "p+k", "p′", "p′+k")


class RotationPanel(Panel):
    """The ``rotation`` tab."""

    model = RotationModel
    reflow_width = 1100  # four cells side by side: text beside plots needs the room

    def build(self) -> None:
        #: What some items show now (set again only when it changes).
        self.shown = Shown()
        self._build_rotation()
        self._build_pe()
        self._build_rope()
        rot_box = self.controls("2-D rotation R(θ)·v", "angle", "x", "y", "angle2")
        pe_box = self.controls(
            "From rotation to positional encoding",
            "dim", "base", "pair", "position", "position2", "offset", "pe_order",
        )  # fmt: skip
        rope_box = self.controls("RoPE block matrix R_m", "m", "n", "block_dim", "layout")
        text = QWidget(self)
        lay = QVBoxLayout(text)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.matrix_label)
        lay.addWidget(self.checks_label)
        lay.addStretch(1)
        self.place(
            [rot_box, self.hint_label, pe_box, self.pe_hint, rope_box, self.rope_label],
            [
                Cell(self.rot_plot, 0, 0, 1, 2),
                Cell(_scrolled(text, "rotation_text_scroll"), 0, 2, 1, 2),
                Cell(self.pe_plot, 1, 0),
                Cell(_scrolled(self.pe_label, "pe_text_scroll"), 1, 1, 1, 2),
                Cell(self.rope_plot, 1, 3),
            ],
            # top: plot 10 : text 18; bottom: plot 8 : text 10 : heatmap 10
            row_stretch={0: 1, 1: 1}, col_stretch={0: 8, 1: 2, 2: 8, 3: 10},
        )  # fmt: skip
        # titles and axis labels painted from their pixels, the matrix from 32-bit colour
        for plot in (self.rot_plot, self.pe_plot, self.rope_plot):
            styled.cache_texts(plot)
        #: A step draws the lines it set directly and blits those it left alone (Panel.flush).
        self.kept_lines = (*self.rot_lines, *self.pe_lines, self.quadrant_lines.curve,
                           self.block_outline.curve)  # fmt: skip

    # -- construction ---------------------------------------------------------------------------
    def _build_rotation(self) -> None:
        b = self.book
        p = self.rot_plot = styled.plot(b, self, "rotation_plot", "v and R(θ)·v", "x", "y")
        _fixed_square(p, ROT_RANGE)
        unit = _line(b, p, "guide", "thin", "dash")
        unit.setData(*styled.circle_xy(1.0))
        self.norm_circle = _line(b, p, "guide", "hair", "dot")
        self.arc = _line(b, p, "accent", "bold")
        self.composed_arrow = _arrow(b, p, "second", "line", "dash")
        self.v_arrow = _arrow(b, p, "query", "bold")
        self.rv_arrow = _arrow(b, p, "key", "bold")
        self.rot_lines = (unit, self.norm_circle, self.arc, self.composed_arrow, self.v_arrow,
                          self.rv_arrow)  # fmt: skip
        self.angle_text = note(b, p, "accent", anchor=(0.5, 0.5))
        self.v_text = note(b, p, "query", anchor=(0.5, 0.5), text="v")
        self.rv_text = note(b, p, "key", anchor=(0.5, 0.5), text="R(θ)v")
        self.v_text.set_names(self.v_arrow)
        self.rv_text.set_names(self.rv_arrow)
        self.angle_text.set_names(self.arc)
        self.v_target = self._target(p, "query", "Drag to move the vector v = (x, y)")
        self.rv_target = self._target(p, "key", "Drag to turn R(θ)v: sets the angle θ")
        self._bind_point(self.v_target, self._drag_v, self._shown_v)
        self._bind_point(self.rv_target, self._drag_rv, self._shown_rv)
        p.getPlotItem().getViewBox().sigResized.connect(self._rot_size_changed)
        # the matrices are painted (tables in a rich text are laid out anew for every number)
        self.matrix_title = RichLines("rotation_matrix_title", self, b, "title")
        self.matrix_line = MatrixLine("rotation_matrix_line", self, b, "title")
        self.product_line = MatrixLine("rotation_product_line", self, b, "title")
        self.coords_label = RichLines("rotation_coordinates", self, b, "legend")
        self.matrix_label = ReadoutStack(
            "rotation_matrix_text", self,
            [self.matrix_title, self.matrix_line, self.product_line, self.coords_label],
        )  # fmt: skip
        self.checks_label = RichLines("rotation_checks", self, b, "text")
        self.hint_label = LiveText("rotation_hint", self, b, "legend")
        self.view("v", p, ("x", "y", "rot_size"), self._refresh_v)
        self.view("rv", p, (*ROTATION_INPUTS, "rotation", "rot_size"), self._refresh_rv)
        self.view("composed", p, (*COMPOSITION_INPUTS, "composition"), self._refresh_composed)
        # after the arrows and the arc: the labels placed clear of all of them and of each other
        self._rot_grid = LineGrid()
        self.view("rot_labels", p, (*COMPOSITION_INPUTS, "rot_size"),
                  self._place_rot_labels)  # fmt: skip
        self.view("matrix", self.matrix_label, (*ROTATION_INPUTS, "rotation"),
                  self._refresh_matrix)  # fmt: skip
        self.view("checks", self.checks_label, (*COMPOSITION_INPUTS, "rotation", "composition"),
                  self._refresh_checks)  # fmt: skip
        b.add(self._style_hint)

    def _build_pe(self) -> None:
        b = self.book
        p = self.pe_plot = styled.plot(
            b, self, "pe_rotation_plot", "One PE pair: shift by k = rotation",
            "PE[p, 2i] = sin pω", "PE[p, 2i+1] = cos pω",
        )  # fmt: skip
        _fixed_square(p, PE_RANGE)
        unit = _line(b, p, "guide", "thin", "dash")
        unit.setData(*styled.circle_xy(1.0))
        self.pe_arc = _line(b, p, "accent", "bold")
        self.pe_arc2 = _line(b, p, "accent", "bold", "dash")
        self.pe2_arrow = _arrow(b, p, PE_ROLES[2], "thick")
        self.pe2k_arrow = _arrow(b, p, PE_ROLES[3], "thick")
        self.pe_arrow = _arrow(b, p, PE_ROLES[0], "bold")
        self.pek_arrow = _arrow(b, p, PE_ROLES[1], "bold")
        self.pe_lines = (unit, self.pe_arc, self.pe_arc2, self.pe2_arrow, self.pe2k_arrow,
                         self.pe_arrow, self.pek_arrow)  # fmt: skip
        self.pe_pred = Dots()
        p.addItem(self.pe_pred)
        b.add(lambda st: self.pe_pred.set_style(
            st.marker("huge"), st.pen("ink", "line"), QBrush(Qt.BrushStyle.NoBrush)  # rings
        ))  # fmt: skip
        self.pe_texts = []
        for role, name in zip(PE_ROLES, PE_NAMES, strict=True):
            self.pe_texts.append(note(b, p, role, anchor=(0.5, 0.5), text=name))
        for text, named in zip(self.pe_texts, (self.pe_arrow, self.pek_arrow, self.pe2_arrow,
                                               self.pe2k_arrow), strict=True):  # fmt: skip
            text.set_names(named)
        self._pe_grid = LineGrid()
        p.getPlotItem().getViewBox().sigResized.connect(self._pe_size_changed)
        # the matrices and the table are painted (see MatrixLine), the sentences are read-outs
        self.pe_head = RichLines("pe_rotation_head", self, b, "legend")
        self.pe_matrix_line = MatrixLine("pe_rotation_matrix", self, b, "legend")
        self.pe_numbers_line = MatrixLine("pe_rotation_numbers", self, b, "legend")
        self.pe_table = GridTable("pe_rotation_table", self, b, "legend")
        self.pe_tail = RichLines("pe_rotation_tail", self, b, "legend")
        self.pe_label = ReadoutStack(
            "pe_rotation_text", self,
            [self.pe_head, self.pe_matrix_line, self.pe_numbers_line, self.pe_table,
             self.pe_tail],
        )  # fmt: skip
        self.pe_hint = LiveText("pe_rotation_hint", self, b, "legend")
        self.view("pe_plot", p, (*PE_PAIR_INPUTS, "pe_order", "pe_shift", "pe_pairs", "pe_size"),
                  self._refresh_pe_plot)  # fmt: skip
        self.view("pe_text", self.pe_label, (*PE_PAIR_INPUTS, "pe_order", "pe_shift",
                                             "pe_pairs"), self._refresh_pe_text)  # fmt: skip
        b.add(self._style_pe_hint)

    def _build_rope(self) -> None:
        b = self.book
        p = self.rope_plot = styled.plot(b, self, "rope_matrix_plot", "RoPE R_m", "column", "row",
                                         grid=False)  # fmt: skip
        p.invertY(True)
        p.setAspectLocked(True)
        self.rope_image, self.rope_bar = styled.heatmap(
            b, p, (-1.0, 1.0), "diverging", in_colour=True
        )
        self.quadrant_lines = styled.curve(b, p, "guide", "normal", "dash", connect="finite")
        self.block_outline = styled.curve(b, p, "ink", "thick", connect="finite")
        self.cell_numbers = CellTexts()
        p.addItem(self.cell_numbers)
        b.add(lambda st: self.cell_numbers.set_style(st.font(CELL_FONT), st.qcolor("ink")))
        p.getPlotItem().getViewBox().sigResized.connect(self._rope_size_changed)
        self.rope_label = RichLines("rope_matrix_text", self, b, "text")
        self.view("rope_geometry", p, ("block_dim", "layout"), self._refresh_rope_geometry)
        self.view("rope_heatmap", p, (*ROPE_MATRIX_INPUTS, "rope_matrix"), self._refresh_heatmap)
        self.view("rope_cells", p, (*ROPE_MATRIX_INPUTS, "rope_matrix", "rope_size"),
                  self._refresh_cells)  # fmt: skip
        self.view("rope_text", self.rope_label,
                  (*ROPE_RELATIVE_INPUTS, "rope_matrix", "rope_relative"),
                  self._refresh_rope_text)  # fmt: skip

    def _rot_size_changed(self, *_: object) -> None:
        self.invalidate("rot_size")

    def _pe_size_changed(self, *_: object) -> None:
        self.invalidate("pe_size")

    def _rope_size_changed(self, *_: object) -> None:
        self.invalidate("rope_size")

    def _target(self, plot: pg.PlotWidget, role: str, tip: str) -> pg.TargetItem:
        t = pg.TargetItem(pos=(0.0, 0.0), symbol="o", movable=True)
        t.setToolTip(tip)
        t.setZValue(20)
        plot.addItem(t)

        def apply(st: Style) -> None:
            t.setPen(st.pen("rim", "line"))
            t.setBrush(st.brush(role))
            t.setHoverPen(st.pen("ink", "bold"))
            t.setHoverBrush(st.brush(role))
            t.scale = st.marker("huge")
            t.viewTransformChanged()  # re-builds the shape at the new size

        self.book.add(apply)
        return t

    def _bind_point(
        self,
        target: pg.TargetItem,
        apply: Callable[[float, float], None],
        shown: Callable[[], tuple[float, float]],
    ) -> None:
        """A draggable point drives the state; on release it snaps to where the state is."""

        def moved() -> None:
            pos = target.pos()
            try:
                apply(float(pos.x()), float(pos.y()))
            except ParamError as err:
                self.message.emit(str(err))

        target.sigPositionChanged.connect(moved)
        target.sigPositionChangeFinished.connect(lambda *_: _set_target(target, *shown()))

    # -- plot interaction -> state -----------------------------------------------------------
    def _drag_v(self, x: float, y: float) -> None:
        x, y = (round(min(max(c, -2.0), 2.0), 2) for c in (x, y))
        self.state.update({"x": x, "y": y})

    def _shown_v(self) -> tuple[float, float]:
        return self.state.as_float("x"), self.state.as_float("y")

    def _drag_rv(self, px: float, py: float) -> None:
        x, y = self._shown_v()
        if math.hypot(x, y) < 1e-9 or math.hypot(px, py) < 1e-9:
            return
        turn = math.degrees(math.atan2(py, px) - math.atan2(y, x))
        current = self.state.as_float("angle")
        # The representative of the turn (mod 360°) nearest the current angle: no jumps.
        angle = turn + 360.0 * round((current - turn) / 360.0)
        self.state.set("angle", round(min(max(angle, -360.0), 360.0), 1))

    def _shown_rv(self) -> tuple[float, float]:
        rx, ry = self.model.group("rotation")(self.state.values())["rotated"]
        return float(rx), float(ry)

    # -- 2-D rotation ----------------------------------------------------------------------------
    def _refresh_v(self, ctx: Context) -> None:
        x, y = ctx.values.as_float("x"), ctx.values.as_float("y")
        norm = math.hypot(x, y)
        self.v_arrow.point_to(x, y, 0.16)
        self.norm_circle.setData(*styled.circle_xy(norm))
        _set_target(self.v_target, x, y)
        ctx.record("v", [x, y], "v = (x, y)")
        ctx.record("norm_v", norm, "|v| (radius of the dotted circle)")

    def _refresh_rv(self, ctx: Context) -> None:
        v, r = ctx.values, ctx["rotation"]
        x, y, deg = v.as_float("x"), v.as_float("y"), v.as_float("angle")
        rx, ry = r["rotated"]
        theta = float(r["radians"])
        self.rv_arrow.point_to(rx, ry, 0.16)
        swept = _swept_arc(x, y, theta)
        arc = arc_angles(swept.start, theta, ARC_STEP_DEGREES)
        ax, ay = swept.radius * np.cos(arc), swept.radius * np.sin(arc)
        self.arc.setData(ax, ay)
        self.angle_text.setText(
            f"θ = {_fixed(deg, 1, plus=False)}° = {_fixed(theta, 3, plus=False)} rad"
        )
        _set_target(self.rv_target, rx, ry)
        ctx.record("rotated", [rx, ry], "R(θ)v")
        ctx.record("arc_x", ax, "swept angle arc, x")
        ctx.record("arc_y", ay, "swept angle arc, y")
        ctx.record("angle", deg, "θ", "°")

    def _refresh_composed(self, ctx: Context) -> None:
        cx, cy = ctx["composition"]["composed_vector"]
        self.composed_arrow.point_to(cx, cy, 0.16)
        ctx.record("composed", [cx, cy], "R(θ)R(θ₂)v")

    def _place_rot_labels(self, ctx: Context) -> None:
        """v and R(θ)v past their tips, θ in a corner away from them (or at an edge): each
        clear of the lines, the drag dots, the other labels and the plot's edge."""
        v = ctx.values
        x, y = v.as_float("x"), v.as_float("y")
        # the tip of R(θ)v as drawn (the rotation's read-outs are not needed for that)
        t = math.radians(v.as_float("angle"))
        rx, ry = x * math.cos(t) - y * math.sin(t), x * math.sin(t) + y * math.cos(t)
        tips = np.array([[x, y], [rx, ry]])

        def more(k: int, half: np.ndarray, gaps: np.ndarray, bounds: Bounds) -> Candidates:
            if k == 2:
                return _edge_spots(bounds, half[2], tips)
            tx, ty = tip_candidates(tips[k : k + 1], half[k : k + 1], float(gaps[k]))
            return tx[0], ty[0]

        def first(half: np.ndarray, gaps: np.ndarray, bounds: Bounds) -> list[Spot]:
            (vw, vh), (rw, rh) = half[0].tolist(), half[1].tolist()
            return [first_tip_spot(x, y, vw, vh, float(gaps[0])),
                    first_tip_spot(rx, ry, rw, rh, float(gaps[1])),
                    _far_corner(bounds, half[2], tips)]  # fmt: skip

        # the drag dots on the tips: rings the labels keep off, past them their own label
        dot = 0.5 * ctx.style.marker("huge") + 1.0
        notes = [self.v_text, self.rv_text, self.angle_text]
        drawn = (x, y, v.as_float("angle"), v.as_float("angle2"), dot)
        # the circle through v's tip and the swept angle's arc: tested as arcs, not segments
        unit, _, _, composed, v_arrow, rv_arrow = self.rot_lines
        lines = (unit, Arc(0.0, 0.0, math.hypot(x, y), 0.0, 2.0 * math.pi), _swept_arc(x, y, t),
                 composed, v_arrow, rv_arrow)  # fmt: skip
        spots = place_notes(self.shown, "rot_labels", drawn, self._rot_grid, self.rot_plot,
                             lines, [(x, y, dot), (rx, ry, dot)], notes,
                             (dot, dot, 0.0), first, more)  # fmt: skip
        ctx.record("labels", np.array(spots), "label centres: v, R(θ)v, θ")

    def _refresh_matrix(self, ctx: Context) -> None:
        v, r = ctx.values, ctx["rotation"]
        x, y, deg = v.as_float("x"), v.as_float("y"), v.as_float("angle")
        (c, ms), (sn, _) = r["matrix"]
        rx, ry = r["rotated"]
        cos_s, sin_s = _paren(c, 4), _paren(sn, 4)
        xs, ys = _paren(x, 2), _paren(y, 2)
        matrix = [[_fixed(c, 4), _fixed(ms, 4)], [_fixed(sn, 4), _fixed(c, 4)]]
        vec = [[_fixed(x, 2)], [_fixed(y, 2)]]
        rvec = [[_fixed(rx, 4)], [_fixed(ry, 4)]]
        sym = [[f"cos{NBSP}θ", f"−sin{NBSP}θ"], [f"sin{NBSP}θ", f"cos{NBSP}θ"]]
        heads = [("R(θ)", "", False), ("", "", False), ("v", "query", True), ("", "", False),
                 ("v′", "key", True)]  # fmt: skip
        self.matrix_title.set_lines(
            [[(f"Rotation by θ = {num(deg, 1)}° = {num(r['radians'], 4)} rad", "", True)]]
        )
        self.matrix_line.set_parts(["R(θ) =", sym, "=", matrix])
        self.product_line.set_parts([matrix, "×", vec, "=", rvec], heads)
        self.coords_label.set_lines(
            [
                [(f"x′ = x cos θ − y sin θ = {xs}·{cos_s} − {ys}·{sin_s} = ", "", False),
                 (_fixed(rx, 4, plus=False), "", True)],
                [(f"y′ = x sin θ + y cos θ = {xs}·{sin_s} + {ys}·{cos_s} = ", "", False),
                 (_fixed(ry, 4, plus=False), "", True)],
            ]
        )  # fmt: skip
        ctx.record("matrix", r["matrix"], "R(θ)")
        ctx.record("rotated", r["rotated"], "R(θ)v")

    def _refresh_checks(self, ctx: Context) -> None:
        v, r, c = ctx.values, ctx["rotation"], ctx["composition"]
        deg, deg2 = v.as_float("angle"), v.as_float("angle2")
        angle = r["measured_angle_degrees"]
        measured = (
            f"{num(angle, 2)}°"
            if math.isfinite(angle)
            else f"— ({RotationModel.undefined['measured_angle_degrees']})"
        )
        # painted lines (RichLines): the numbers change at every step
        self.checks_label.set_lines([
            [("Properties", "", True), (" (float64, from the matrices)", "", False)],
            _check_runs(r["norm_residual"], f"Length kept: |v| = {num(r['norm_v'], 4)}, "
                        f"|Rv| = {num(r['norm_rotated'], 4)}", "difference"),
            _check_runs(r["det_residual"], f"det R = cos²θ + sin²θ = {num(r['det'], 4)}",
                        "|det R − 1|"),
            _check_runs(r["orthogonality_residual"], "RᵀR = I (columns orthonormal)",
                        "max |RᵀR − I|"),
            _check_runs(c["composition_residual"], f"R({num(deg, 1)}°)·R({num(deg2, 1)}°) = "
                        f"R({num(c['angle_sum_degrees'], 1)}°)", "max diff"),
            [(f"{NBSP * 4}{_inline_text(c['composition_matrix'])} vs "
              f"{_inline_text(c['sum_matrix'])}", "", False)],
            _check_runs(r["inverse_residual"], "Inverse: R(−θ)·R(θ) = I",
                        "max |R(−θ)R(θ) − I|"),
            _check_runs(r["transpose_residual"], "R(−θ) = Rᵀ (undo = transpose)", "max diff"),
            [("Angle from v to Rv, measured (in (−180°, 180°]): " + measured, "", False)],
        ])  # fmt: skip
        names = ("norm_residual", "det_residual", "orthogonality_residual", "inverse_residual",
                 "transpose_residual")  # fmt: skip
        residuals = [r[n] for n in names] + [c["composition_residual"]]
        ctx.record("residuals", residuals, "residuals of the six checks")
        if math.isfinite(r["measured_angle_degrees"]):  # (undefined for v = (0, 0))
            ctx.record("measured_angle", r["measured_angle_degrees"], "angle from v to Rv", "°")

    def _style_hint(self, st: Style) -> None:
        """The legend under the rotation plot: static text, coloured by role (restyled live)."""
        self.hint_label.set_html(
            f"<b>Drag</b> the dot at the tip of {span(st, 'query', 'v')} to move v, the dot at "
            f"the tip of {span(st, 'key', 'R(θ)v')} to turn θ. "
            f"{span(st, 'accent', 'Arc')}: the swept angle θ; "
            f"{span(st, 'second', 'dashed arrow')}: R(θ)·R(θ₂)·v."
        )

    # -- PE pair ---------------------------------------------------------------------------------
    def _label_pe_axes(self, st: Style, swap: bool) -> None:
        """Axis titles follow the pair order (set only when the order or the style changed)."""
        if not self.shown.changed("pe_axes", (swap, st)):
            return
        sin_l, cos_l = "PE[p, 2i] = sin pω", "PE[p, 2i+1] = cos pω"
        font = {"font-size": st.css_pt("label"), "color": st.color("ink")}
        self.pe_plot.setLabel("bottom", cos_l if swap else sin_l, **font)
        self.pe_plot.setLabel("left", sin_l if swap else cos_l, **font)

    def _refresh_pe_plot(self, ctx: Context) -> None:
        v, sh, pp = ctx.values, ctx["pe_shift"], ctx["pe_pairs"]
        swap = v.as_str("pe_order") == "cos_sin"
        self._label_pe_axes(ctx.style, swap)

        def xy(pair: Sequence[float]) -> tuple[float, float]:
            return (pair[1], pair[0]) if swap else (pair[0], pair[1])

        keys = ("pe_pair", "pe_pair_shifted", "pe_pair2", "pe_pair2_shifted")
        pts = [xy(pp[key]) for key in keys]
        arrows = (self.pe_arrow, self.pek_arrow, self.pe2_arrow, self.pe2k_arrow)
        for arrow, (px, py) in zip(arrows, pts, strict=True):
            arrow.point_to(px, py, 0.09)
        pred = np.asarray([xy(pp["pe_rotated"]), xy(pp["pe_rotated2"])])
        self.pe_pred.setData(pred[:, 0], pred[:, 1])
        # In (sin, cos) coordinates the shift turns by −kω (clockwise), in (cos, sin) by +kω.
        net = float(sh["pe_angle_wrapped"]) * (1.0 if swap else -1.0)
        arcs = []
        for name, item, (px, py), rad in (("arc", self.pe_arc, pts[0], 0.3),
                                          ("arc2", self.pe_arc2, pts[2], 0.45)):  # fmt: skip
            a0 = math.atan2(py, px)
            arcs.append(Arc(0.0, 0.0, rad, a0, net))
            arc = arc_angles(a0, net, ARC_STEP_DEGREES)
            item.setData(rad * np.cos(arc), rad * np.sin(arc))
            ctx.record(name, arc, f"turn kω drawn from {'p' if name == 'arc' else 'p′'}", "rad")
        title = "(cos, sin)" if swap else "(sin, cos)"
        styled.set_title(self.book, self.pe_plot, f"PE pair i = {v.as_int('pair')} as {title}")
        for key, (px, py) in zip(keys, pts, strict=True):
            ctx.record(key, [px, py], f"{key} in plot coordinates {title}")
        ctx.record("predicted", pred, "M·pair at p and p′ (rings)")
        # the labels past their tips, clear of the lines, the rings and each other
        tips = np.asarray(pts, dtype=float)

        def more(k: int, half: np.ndarray, gaps: np.ndarray, bounds: Bounds) -> Candidates:
            tx, ty = tip_candidates(tips[k : k + 1], half[k : k + 1], float(gaps[k]))
            return tx[0], ty[0]

        def first(half: np.ndarray, gaps: np.ndarray, bounds: Bounds) -> list[Spot]:
            return [first_tip_spot(px, py, w, h, g) for (px, py), (w, h), g
                    in zip(pts, half.tolist(), gaps.tolist(), strict=True)]  # fmt: skip

        ring_r = 0.5 * ctx.style.marker("huge") + 1.0
        rings = [(float(a), float(b), ring_r) for a, b in pred]
        drawn = (tuple(pts), net)
        # the arcs tested as arcs, not segments
        spots = place_notes(self.shown, "pe_labels", drawn, self._pe_grid, self.pe_plot,
                             (self.pe_lines[0], *arcs, *self.pe_lines[3:]), rings, self.pe_texts,
                             (0.0, ring_r, 0.0, ring_r), first, more)  # fmt: skip
        ctx.record("labels", np.array(spots), "label centres: p, p+k, p′, p′+k")

    def _refresh_pe_text(self, ctx: Context) -> None:
        v, sh, pp = ctx.values, ctx["pe_shift"], ctx["pe_pairs"]
        swap = v.as_str("pe_order") == "cos_sin"
        dim, base, i, k = v.as_int("dim"), v.as_float("base"), v.as_int("pair"), v.as_int("offset")
        pos = pp["pe_positions"]

        def xy(pair: Sequence[float]) -> tuple[float, float]:
            return (pair[1], pair[0]) if swap else (pair[0], pair[1])

        mat = sh["pe_rotation_matrix_cos_sin"] if swap else sh["pe_rotation_matrix"]
        c, sn = f"cos{NBSP}kω", f"sin{NBSP}kω"
        if swap:
            sym = [[c, f"−{sn}"], [sn, c]]
            name, coords, turn = "R(+kω)", "(cos, sin)", "counter-clockwise"
        else:
            sym = [[c, sn], [f"−{sn}", c]]
            name, coords, turn = "R(−kω)", "(sin, cos)", "clockwise"
        nums = [[_fixed(mat[0][0], 4), _fixed(mat[0][1], 4)],
                [_fixed(mat[1][0], 4), _fixed(mat[1][1], 4)]]  # fmt: skip
        ok = "✓" if pp["pe_residual_all_pairs"] < TOLERANCE else "✗"

        def pair_txt(pair: Sequence[float]) -> str:
            a, b = xy(pair)
            return f"({_fixed(a, 3)}, {_fixed(b, 3)})"

        rows = [
            ("angle", f"pω = {num(pp['pe_position_angle'], 3)}",
             f"p′ω = {num(pp['pe_position2_angle'], 3)}"),
            ("pair", pair_txt(pp["pe_pair"]), pair_txt(pp["pe_pair2"])),
            ("M × pair", pair_txt(pp["pe_rotated"]), pair_txt(pp["pe_rotated2"])),
            ("pair at +k", pair_txt(pp["pe_pair_shifted"]),
             pair_txt(pp["pe_pair2_shifted"])),
            ("residual ‖·‖", _res_text(pp["pe_residual"]),
             _res_text(pp["pe_residual2"])),
        ]  # fmt: skip
        # all painted (RichLines, MatrixLine, GridTable): the numbers change at every step
        self.pe_head.set_lines([
            [("ω", "", False), (str(i), "", False, "sub"), (f" = {_power_base(base)}", "", False),
             (f"−2·{i}/{dim}", "", False, "sup"),
             (f" = {sig(sh['omega'], 5)} (λ = {sig(sh['wavelength'], 5)}), {NBSP}k = {k}", "",
              False)],
            [(f"kω = {num(sh['pe_angle'], 4)} rad = {num(sh['pe_angle_degrees'], 2)}° "
              f"({num(sh['pe_angle_turns'], 3)} turns)", "", False)],
            [("sin((p+k)ω) = cos kω·sin pω + sin kω·cos pω, cos((p+k)ω) = −sin kω·sin pω + "
              f"cos kω·cos pω, so on {coords} the shift is a ", "", False), (turn, "", True),
             (" turn:", "", False)],
        ])  # fmt: skip
        self.pe_matrix_line.set_parts([f"M{NBSP}={NBSP}{name}{NBSP}=", sym])
        self.pe_numbers_line.set_parts(["=", nums])
        self.pe_table.set_rows(
            [("", "", True), (f"p = {pos[0]} → {pos[1]}", PE_ROLES[0], True),
             (f"p′ = {pos[2]} → {pos[3]}", PE_ROLES[2], True)],
            [[(a, "", False), (b, PE_ROLES[0], False), (c, PE_ROLES[2], False)]
             for a, b, c in rows],
        )  # fmt: skip
        self.pe_tail.set_lines([
            [("M uses only k and ω", "", False), ("i", "", False, "sub"),
             (f", never p. Every pair i < {dim // 2} at p and p′: max residual "
              f"{_res_text(pp['pe_residual_all_pairs'])} {ok}.", "", False)],
            [("Wrong sign (R(+kω) on (sin, cos)) would miss by "
              f"{num(pp['pe_wrong_sign_residual'], 3)}.", "", False)],
        ])  # fmt: skip
        ctx.record("matrix", mat, f"M = {name} on {coords}")
        ctx.record("omega", sh["omega"], "ω_i", "rad/position")
        ctx.record("residual_all_pairs", pp["pe_residual_all_pairs"], "max residual, every pair")

    def _style_pe_hint(self, st: Style) -> None:
        """The legend under the PE-pair plot: static text, coloured by role."""
        names = ", ".join(span(st, r, n) for r, n in zip(PE_ROLES, PE_NAMES, strict=True))
        self.pe_hint.set_html(
            f"PE plot: {names}; rings: M·pair (prediction); {span(st, 'accent', 'arcs')}: the "
            "turn kω (solid from p, dashed from p′) — the same angle at both positions."
        )

    # -- RoPE --------------------------------------------------------------------------------------
    def _refresh_rope_geometry(self, ctx: Context) -> None:
        """Block outlines, quadrant lines, ticks and range for head dimension and layout."""
        bd, layout = ctx.values.as_int("block_dim"), ctx.values.as_str("layout")
        half = bd // 2
        if layout == "interleaved":
            squares = [(2.0 * i, 2.0 * i, 2.0) for i in range(half)]
            qx, qy = np.zeros(0), np.zeros(0)
        else:
            squares = [(float(b), float(a), 1.0) for i in range(half)
                       for a in (i, i + half) for b in (i, i + half)]  # fmt: skip
            qx = np.array([half, half, np.nan, 0.0, bd], dtype=float)
            qy = np.array([0.0, bd, np.nan, half, half], dtype=float)
        self.quadrant_lines.setData(qx, qy)
        xs = np.array([[x0, x0 + s, x0 + s, x0, x0, np.nan] for x0, _, s in squares]).ravel()
        ys = np.array([[y0, y0, y0 + s, y0 + s, y0, np.nan] for _, y0, s in squares]).ravel()
        self.block_outline.setData(xs, ys)
        self.block_outline.setPen(ctx.style.pen("ink", "thick" if bd <= 16 else "thin"))
        step = 1 if bd <= 16 else (4 if bd <= 32 else 8)
        ticks = [(j + 0.5, str(j)) for j in range(0, bd, step)]
        for axis in ("bottom", "left"):
            self.rope_plot.getAxis(axis).setTicks([ticks, []])
        # One call: with the aspect locked, two calls would let the second shrink the first.
        self.rope_plot.getPlotItem().getViewBox().setRange(
            xRange=(0.0, float(bd)), yRange=(0.0, float(bd)), padding=0.02
        )
        # the new view transform now, not lazily in the paint (which would then ask for a
        # second paint of the whole plot for the items that follow the view)
        styled.apply_transform(self.rope_plot)
        ctx.record("blocks", np.array(squares), "outlined cells: (column, row, size)")

    def _refresh_heatmap(self, ctx: Context) -> None:
        bd, m = ctx.values.as_int("block_dim"), ctx.values.as_int("m")
        mat = np.ascontiguousarray(np.asarray(ctx["rope_matrix"]["rope_matrix"], np.float32))
        self.rope_image.setImage(mat, autoLevels=False)
        if self.shown.changed("rope_rect", bd):  # the head dimension the image is placed for
            self.rope_image.setRect(0.0, 0.0, float(bd), float(bd))
        styled.set_title(self.book, self.rope_plot, f"Entries of RoPE R<sub>m</sub>, m = {m}")
        ctx.record("rope_matrix", mat, "R_m")

    def _refresh_cells(self, ctx: Context) -> None:
        bd = ctx.values.as_int("block_dim")
        mat = ctx["rope_matrix"]["rope_matrix"]
        digits = self._cell_digits(ctx.style, bd)
        shown = np.zeros((min(bd, CELL_TEXT_MAX),) * 2)
        cells = []
        if digits:
            for row in range(min(bd, CELL_TEXT_MAX)):
                for col in range(min(bd, CELL_TEXT_MAX)):
                    value = float(mat[row][col])
                    if value != 0.0:
                        cells.append((row, col, _fixed(value, digits, plus=False)))
                        shown[row, col] = round(value, digits)
        self.cell_numbers.set_cells(cells)
        ctx.record("cell_digits", digits, "decimals written in the cells (0: none)")
        ctx.record("cell_values", shown if digits else np.zeros((0, 0)), "numbers in the cells")

    def _cell_digits(self, st: Style, bd: int) -> int:
        """Decimals the cell numbers get: 2, 1, or 0 (hidden) when the text does not fit."""
        if bd > CELL_TEXT_MAX:
            return 0
        vb = self.rope_plot.getPlotItem().getViewBox()
        try:
            px, py = (abs(float(c)) for c in vb.viewPixelSize())
        except (ZeroDivisionError, ValueError, TypeError):
            return 0
        if not (math.isfinite(px) and math.isfinite(py) and px > 0 and py > 0):
            return 0
        fm = QFontMetricsF(st.font(CELL_FONT))
        if fm.height() > 1.0 / py:
            return 0
        pad = fm.horizontalAdvance(" ") / 2  # a little air between neighbouring numbers
        for digits in (2, 1):
            if fm.horizontalAdvance("−0." + "0" * digits) + pad <= 1.0 / px:
                return digits
        return 0

    def _refresh_rope_text(self, ctx: Context) -> None:
        v, rm, rr = ctx.values, ctx["rope_matrix"], ctx["rope_relative"]
        bd, layout, n = v.as_int("block_dim"), v.as_str("layout"), v.as_int("n")
        theta, angles = rm["rope_theta"], rm["rope_angles"]
        shown = min(4, len(theta))
        ang = ", ".join(sig(a, 3) for a in angles[:shown]) + (", …" if len(theta) > shown else "")
        pairs = "(2i, 2i+1) on the diagonal" if layout == "interleaved" else f"(i, i+{bd // 2})"
        sub: Callable[[str], Run] = lambda t: (t, "", False, "sub")  # noqa: E731
        rel, ortho = rr["rope_relative_residual"], rm["rope_orthogonality_residual"]
        # painted (RichLines): the numbers change at every step
        self.rope_label.set_lines([
            [(f"d = {bd}, {layout} layout.", "", True), (" Pair i turns by m·θ", "", False),
             sub("i"), (", θ", "", False), sub("i"), (" = base", "", False),
             ("−2i/d", "", False, "sup"), (f"; coupled entries {pairs} outlined.", "", False)],
            [("m·θ", "", False), sub("i"), (f" = {ang} rad", "", False)],
            [_mark(rel), (" R", "", False), sub("m"), ("ᵀR", "", False), sub("n"),
             (" = R", "", False), sub("n−m"),
             (f" (n = {integer(n)}, n−m = {integer(rr['rope_offset'])})"
              f"{_note(rel, 'max diff')}", "", False)],
            [_mark(ortho), (" R", "", False), sub("m"), ("ᵀR", "", False), sub("m"),
             (f" = I{_note(ortho, 'max diff')}", "", False)],
        ])  # fmt: skip
        ctx.record("angles", angles, "m·θ_i", "rad")
        ctx.record("residuals", [rr["rope_relative_residual"], rm["rope_orthogonality_residual"]],
                   "R_mᵀR_n − R_{n−m}, R_mᵀR_m − I")  # fmt: skip


# -- helpers ------------------------------------------------------------------------------------
def _scrolled(widget: QWidget, name: str) -> QScrollArea:
    """``widget`` in a frameless scroll area (scroll bars only when the window is small)."""
    area = QScrollArea(widget.parentWidget())
    area.setObjectName(name)
    area.setAccessibleName(name.replace("_", " "))
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    return area


def _edge_spots(bounds: Bounds, half: np.ndarray, away: np.ndarray) -> Candidates:
    """Spots for a label of half size ``half`` in the view's corners, then at the middles of
    its edges, each group farthest from the points ``away`` first."""
    x0, y0, x1, y1 = bounds
    hw, hh = float(half[0]), float(half[1])
    lx, rx, by, ty = x0 + hw, x1 - hw, y0 + hh, y1 - hh
    mx, my = 0.5 * (x0 + x1), 0.5 * (y0 + y1)
    points = away.tolist()

    def far(spot: tuple[float, float]) -> float:
        return -min(math.hypot(spot[0] - px, spot[1] - py) for px, py in points)

    spots = [*sorted([(lx, ty), (rx, ty), (lx, by), (rx, by)], key=far),
             *sorted([(mx, ty), (mx, by), (lx, my), (rx, my)], key=far)]  # fmt: skip
    return np.array([x for x, _ in spots]), np.array([y for _, y in spots])


def _far_corner(bounds: Bounds, half: np.ndarray, away: np.ndarray) -> Spot:
    """The first of :func:`_edge_spots`: the corner farthest from the points ``away``."""
    xs, ys = _edge_spots(bounds, half, away)
    return float(xs[0]), float(ys[0])


def _swept_arc(x: float, y: float, theta: float) -> Arc:
    """The arc of the swept angle: from v = (x, y) through ``theta``, inside v's tip."""
    norm = math.hypot(x, y)
    a0 = math.atan2(y, x) if norm > 0 else 0.0
    return Arc(0.0, 0.0, min(0.45, 0.55 * norm) if norm > 0 else 0.3, a0, theta)


def _fixed_square(plot: pg.PlotWidget, extent: float) -> None:
    plot.setAspectLocked(True)
    plot.setXRange(-extent, extent, padding=0)
    plot.setYRange(-extent, extent, padding=0)


def _line(
    book: StyleBook,
    plot: pg.PlotWidget,
    role: str,
    width: str,
    line: LineStyle = "solid",
    kind: type[PixelCurve] = PixelCurve,
) -> PixelCurve:
    """An empty :class:`PixelCurve` (or an :class:`Arrow`: ``kind``) on ``plot`` in the pen of
    ``role``, ``width`` and ``line`` (dashes too)."""
    item = kind()
    plot.addItem(item)
    book.add(lambda st: item.setPen(st.pen(role, width, line)))
    return item


def _arrow(book: StyleBook, plot: pg.PlotWidget, role: str, width: str,
           line: LineStyle = "solid") -> Arrow:  # fmt: skip
    """An empty :class:`Arrow` on ``plot`` (see :func:`_line`)."""
    item = _line(book, plot, role, width, line, Arrow)
    assert isinstance(item, Arrow)
    return item


#: Degrees an arc segment spans: the arcs have radii of 30–60 pixels, where a 3° chord is
#: ~3 px long and lies within 0.03 px of the circle (a segment per degree drew 3× the lines).
ARC_STEP_DEGREES = 3.0


def _set_target(target: pg.TargetItem, x: float, y: float) -> None:
    """Move a draggable dot without echoing the move back into the state."""
    pos = target.pos()
    if abs(float(pos.x()) - x) > 1e-12 or abs(float(pos.y()) - y) > 1e-12:
        target.blockSignals(True)
        try:
            target.setPos(QPointF(x, y))
        finally:
            target.blockSignals(False)


def _fixed(x: float, decimals: int = 3, plus: bool = True) -> str:
    """Fixed decimals with a real minus sign; values that round to zero show as 0."""
    text = f"{x:.{decimals}f}"
    if float(text) == 0.0:
        text = f"{0.0:.{decimals}f}"
    if plus and not text.startswith("-"):
        text = "+" + text
    return text.replace("-", "−")


def _inline_text(mat: Sequence[Sequence[float]]) -> str:
    """A 2×2 matrix on one line: ``[a, b; c, d]``."""
    a, b, c, d = (_fixed(v) for v in (mat[0][0], mat[0][1], mat[1][0], mat[1][1]))
    return f"[{a}, {b}; {c}, {d}]"


def _power_base(base: float) -> str:
    """The base as the base of a power: parenthesised when written in scientific form
    (``(1.0000·10⁷)<sup>…</sup>``, not a power of ten raised again)."""
    text = sig(base, 5)
    return f"({text})" if "·10" in text else text


def _paren(x: float, digits: int) -> str:
    """A factor in a written-out product: negative numbers in parentheses."""
    text = _fixed(x, digits, plus=False)
    return f"({text})" if text.startswith("−") else text


def _res_text(x: float) -> str:
    """A residual: exactly 0, or scientific with superscript digits (``1.1·10⁻¹⁶``)."""
    if x == 0.0:
        return "0"
    if x >= 1e-3:
        return num(x, 4)
    return sci(x, 2)


def _mark(residual: float) -> Run:
    """✓ (residual below :data:`TOLERANCE`) in the colour "good", or ✗ in "bad"."""
    return ("✓", "good", True) if residual < TOLERANCE else ("✗", "bad", True)


def _note(residual: float, what: str) -> str:
    """The residual after a property: ``  (max diff 1.1·10⁻¹⁶)``."""
    return f" {NBSP}({what} {_res_text(residual)})"


def _check_runs(residual: float, text: str, what: str) -> list[Run]:
    """One property line as runs: the mark, the text and the residual."""
    return [_mark(residual), (f" {text}{_note(residual, what)}", "", False)]


PANEL = RotationPanel
