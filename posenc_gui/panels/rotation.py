"""Rotation matrix tab: R(θ)v on the circle, the live matrix product, property checks, the PE
shift as a rotation and RoPE's block-diagonal R_m.

Top row: v and R(θ)v as arrows with the swept angle (drag the tip of v to move it, drag the tip
of R(θ)v to turn θ), the matrix product written out with its numbers, and the properties
(|Rv| = |v|, det R = 1, RᵀR = I, composition, inverse) each with its numeric residual.
Bottom row: one sin/cos pair of a sinusoidal encoding at positions p and p′ and their partners
k positions later, related by one and the same matrix; and the RoPE matrix R_m as a heatmap
with its coupled 2×2 blocks outlined and the check R_mᵀR_n = R_{n−m}.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QScrollArea, QVBoxLayout, QWidget

from posenc_gui.panels.base import Panel
from posenc_gui.state.rotation import TOLERANCE, RotationModel
from posenc_gui.widgets import plots
from posenc_gui.widgets.fmt import num, sig
from posenc_gui.widgets.plots import (
    BLUE,
    GREEN,
    GREY,
    ORANGE,
    PURPLE,
    SKY,
    VERMILLION,
    FormulaLabel,
    make_plot,
)

ROT_RANGE = 2.95  # |v| <= 2·√2 ≈ 2.83
PE_RANGE = 1.38
CELL_TEXT_MAX = 8  # write the numbers into the heatmap cells up to this head dimension
BLOCK_DIM_MAX = 64
BRACKET = "2px solid #111111"


class RotationPanel(Panel):
    """The ``rotation`` tab."""

    model = RotationModel

    def build(self) -> None:
        # ---- controls ------------------------------------------------------------------
        rot_box = self.controls("2-D rotation R(θ)·v", "angle", "x", "y", "angle2")
        pe_box = self.controls(
            "From rotation to positional encoding",
            "dim", "base", "pair", "position", "position2", "offset", "pe_order",
        )  # fmt: skip
        rope_box = self.controls("RoPE block matrix R_m", "m", "n", "block_dim", "layout")
        self.hint_label = FormulaLabel("rotation_hint", self, point_size=11)
        self.hint_label.set_html(
            f"<b>Drag</b> the <span style='color:{BLUE}'>blue dot</span> (tip of v) to move v, "
            f"the <span style='color:{VERMILLION}'>vermillion dot</span> (tip of R(θ)v) to turn "
            f"θ. <span style='color:{GREEN}'>Green arc</span>: the swept angle θ; "
            f"<span style='color:{PURPLE}'>dashed purple</span>: R(θ)·R(θ₂)·v."
        )
        self.pe_hint = FormulaLabel("pe_rotation_hint", self, point_size=11)
        self.pe_hint.set_html(
            f"PE plot: <span style='color:{BLUE}'>p</span>, "
            f"<span style='color:{VERMILLION}'>p+k</span>, <span style='color:{SKY}'>p′</span>, "
            f"<span style='color:{ORANGE}'>p′+k</span>; black rings: M·pair (prediction); "
            f"<span style='color:{GREEN}'>green arcs</span>: the turn kω (solid from p, dashed "
            "from p′) — the same angle at both positions."
        )
        self.rope_label = FormulaLabel("rope_matrix_text", self, point_size=11)
        side = QVBoxLayout()
        side.addWidget(rot_box)
        side.addWidget(self.hint_label)
        side.addWidget(pe_box)
        side.addWidget(self.pe_hint)
        side.addWidget(rope_box)
        side.addWidget(self.rope_label)
        side.addStretch(1)
        side_widget = QWidget(self)
        side_widget.setLayout(side)
        scroll = QScrollArea(self)
        scroll.setObjectName("rotation_controls")
        scroll.setWidget(side_widget)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setMinimumWidth(370)
        scroll.setMaximumWidth(400)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        self._build_rotation_plot()
        self._build_pe_plot()
        self._build_rope_plot()
        self.matrix_label = FormulaLabel("rotation_matrix_text", self, point_size=14)
        self.checks_label = FormulaLabel("rotation_checks", self, point_size=13)
        self.pe_label = FormulaLabel("pe_rotation_text", self, point_size=11)
        for label in (self.matrix_label, self.checks_label, self.pe_label):
            label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)

        # ---- layout --------------------------------------------------------------------
        # Two rows with their own column widths: the 2-D rotation (plot + matrix + checks),
        # then the PE pair (plot + numbers) and the RoPE heatmap.
        # The text blocks scroll rather than forcing a minimum window size on small screens.
        top_text = QVBoxLayout()
        top_text.setContentsMargins(0, 0, 0, 0)
        top_text.addWidget(self.matrix_label)
        top_text.addWidget(self.checks_label)
        top_text.addStretch(1)
        top_widget = QWidget(self)
        top_widget.setLayout(top_text)
        top = QHBoxLayout()
        top.addWidget(self.rot_plot, 5)
        top.addWidget(_scrolled(top_widget, "rotation_text_scroll"), 7)
        bottom = QHBoxLayout()
        bottom.addWidget(self.pe_plot, 8)
        bottom.addWidget(_scrolled(self.pe_label, "pe_text_scroll"), 10)
        bottom.addWidget(self.rope_plot, 10)
        rows = QVBoxLayout()
        rows.addLayout(top, 1)
        rows.addLayout(bottom, 1)
        root = QHBoxLayout(self)
        root.addWidget(scroll)
        root.addLayout(rows, 1)

    # -- construction helpers -----------------------------------------------------------------
    def _build_rotation_plot(self) -> None:
        p = self.rot_plot = make_plot(self, "rotation_plot", "v and R(θ)·v", "x", "y")
        _fixed_square(p, ROT_RANGE)
        unit = plots.curve(p, GREY, 1.2)
        unit.setPen(plots.pen(GREY, 1.2, Qt.PenStyle.DashLine))
        unit.setData(*plots.circle_xy(1.0))
        self.norm_circle = plots.curve(p, GREY, 1.0)
        self.norm_circle.setPen(plots.pen("#999999", 1.0, Qt.PenStyle.DotLine))
        self.arc = plots.curve(p, GREEN, 3.0)
        self.composed_arrow = plots.curve(p, PURPLE, 2.0, connect="finite")
        self.composed_arrow.setPen(plots.pen(PURPLE, 2.0, Qt.PenStyle.DashLine))
        self.v_arrow = plots.curve(p, BLUE, 3.5, connect="finite")
        self.rv_arrow = plots.curve(p, VERMILLION, 3.5, connect="finite")
        self.angle_text = plots.text_item(p, GREEN, anchor=(0, 0))
        self.angle_text.setPos(-ROT_RANGE + 0.1, ROT_RANGE - 0.1)
        self.v_text = plots.text_item(p, BLUE, anchor=(0.5, 0.5))
        self.rv_text = plots.text_item(p, VERMILLION, anchor=(0.5, 0.5))
        self.v_target = _target(BLUE, "Drag to move the vector v = (x, y)")
        self.rv_target = _target(VERMILLION, "Drag to turn R(θ)v: sets the angle θ")
        p.addItem(self.v_target)
        p.addItem(self.rv_target)
        self.v_target.sigPositionChanged.connect(self._v_dragged)
        self.rv_target.sigPositionChanged.connect(self._rv_dragged)

    def _build_pe_plot(self) -> None:
        p = self.pe_plot = make_plot(
            self, "pe_rotation_plot", "One PE pair: shift by k = rotation", "PE[p, 2i] = sin pω",
            "PE[p, 2i+1] = cos pω",
        )  # fmt: skip
        _fixed_square(p, PE_RANGE)
        unit = plots.curve(p, GREY, 1.2)
        unit.setPen(plots.pen(GREY, 1.2, Qt.PenStyle.DashLine))
        unit.setData(*plots.circle_xy(1.0))
        self.pe_arc = plots.curve(p, GREEN, 3.0)
        self.pe_arc2 = plots.curve(p, GREEN, 3.0)
        self.pe_arc2.setPen(plots.pen(GREEN, 3.0, Qt.PenStyle.DashLine))
        self.pe2_arrow = plots.curve(p, SKY, 2.5, connect="finite")
        self.pe2k_arrow = plots.curve(p, ORANGE, 2.5, connect="finite")
        self.pe_arrow = plots.curve(p, BLUE, 3.5, connect="finite")
        self.pek_arrow = plots.curve(p, VERMILLION, 3.5, connect="finite")
        self.pe_pred = pg.ScatterPlotItem(
            size=18, brush=None, pen=pg.mkPen("#000000", width=2.0), symbol="o"
        )
        p.addItem(self.pe_pred)
        self.pe_texts = [
            plots.text_item(p, c, anchor=(0.5, 0.5)) for c in (BLUE, VERMILLION, SKY, ORANGE)
        ]
        self._pe_order = ""

    def _build_rope_plot(self) -> None:
        p = self.rope_plot = make_plot(self, "rope_matrix_plot", "RoPE R_m", "column", "row")
        p.setMouseEnabled(x=False, y=False)
        p.hideButtons()
        p.showGrid(x=False, y=False)
        p.invertY(True)
        p.setAspectLocked(True)
        self.rope_image, self.rope_bar = plots.heatmap(p, (-1.0, 1.0), plots.DIVERGING)
        self.quadrant_lines = plots.curve(p, "#444444", 1.5, connect="finite")
        self.quadrant_lines.setPen(plots.pen("#444444", 1.5, Qt.PenStyle.DashLine))
        self.block_outline = plots.curve(p, "#111111", 2.0, connect="finite")
        font = QFont()
        font.setPointSize(9)
        self.cell_texts: list[pg.TextItem] = []
        for _ in range(CELL_TEXT_MAX * CELL_TEXT_MAX):
            t = pg.TextItem(color="#111111", anchor=(0.5, 0.5))
            t.setFont(font)
            t.setVisible(False)
            p.addItem(t)
            self.cell_texts.append(t)
        self._rope_key: tuple[int, str] = (0, "")

    # -- widget -> state from plot interaction ----------------------------------------------
    def _v_dragged(self) -> None:
        pos = self.v_target.pos()
        x = round(min(max(float(pos.x()), -2.0), 2.0), 2)
        y = round(min(max(float(pos.y()), -2.0), 2.0), 2)
        self.state.update({"x": x, "y": y})

    def _rv_dragged(self) -> None:
        x, y = self.state.as_float("x"), self.state.as_float("y")
        if math.hypot(x, y) < 1e-9:
            return
        pos = self.rv_target.pos()
        if math.hypot(float(pos.x()), float(pos.y())) < 1e-9:
            return
        turn = math.degrees(math.atan2(float(pos.y()), float(pos.x())) - math.atan2(y, x))
        current = self.state.as_float("angle")
        # The representative of the turn (mod 360°) nearest the current angle: no jumps.
        angle = turn + 360.0 * round((current - turn) / 360.0)
        angle = round(min(max(angle, -360.0), 360.0), 1)
        self.state.set("angle", angle)

    # -- state -> plots ---------------------------------------------------------------------
    def refresh(self) -> None:
        r = self.state.readouts()
        self._refresh_rotation(r)
        self._refresh_pe(r)
        self._refresh_rope(r)

    def _refresh_rotation(self, r: dict[str, Any]) -> None:
        s = self.state
        x, y = s.as_float("x"), s.as_float("y")
        deg, deg2 = s.as_float("angle"), s.as_float("angle2")
        (c, ms), (sn, _) = r["matrix"]
        rx, ry = r["rotated"]
        cx, cy = r["composed_vector"]
        norm = float(r["norm_v"])
        head = 0.16
        self.v_arrow.setData(*plots.arrow_xy(0.0, 0.0, x, y, head))
        self.rv_arrow.setData(*plots.arrow_xy(0.0, 0.0, rx, ry, head))
        self.composed_arrow.setData(*plots.arrow_xy(0.0, 0.0, cx, cy, head))
        self.norm_circle.setData(*plots.circle_xy(norm))
        a0 = math.atan2(y, x) if norm > 0 else 0.0
        theta = float(r["radians"])
        rad = min(0.45, 0.55 * norm) if norm > 0 else 0.3
        arc = np.linspace(a0, a0 + theta, max(2, int(abs(deg)) + 2))
        self.arc.setData(rad * np.cos(arc), rad * np.sin(arc))
        self.angle_text.setText(
            f"θ = {_fixed(deg, 1, plus=False)}° = {_fixed(theta, 3, plus=False)} rad"
        )
        _place_label(self.v_text, "v", x, y)
        _place_label(self.rv_text, "R(θ)v", rx, ry)
        _set_target(self.v_target, x, y)
        _set_target(self.rv_target, rx, ry)

        cos_s, sin_s = _paren(c, 4), _paren(sn, 4)
        matrix = _matrix_html([[_fixed(c, 4), _fixed(ms, 4)], [_fixed(sn, 4), _fixed(c, 4)]])
        vec = _matrix_html([[_fixed(x, 2)], [_fixed(y, 2)]])
        rvec = _matrix_html([[_fixed(rx, 4)], [_fixed(ry, 4)]])
        sym = _matrix_html([["cos&nbsp;θ", "−sin&nbsp;θ"], ["sin&nbsp;θ", "cos&nbsp;θ"]])
        self.matrix_label.set_html(
            _sup(
                f"<b>Rotation by θ = {num(deg, 1)}° = {num(r['radians'], 4)} rad</b>"
                "<table cellspacing='0' cellpadding='3'><tr>"
                f"<td valign='middle'>R(θ) =</td><td valign='middle'>{sym}</td>"
                f"<td valign='middle'>=</td><td valign='middle'>{matrix}</td></tr></table>"
                "<table cellspacing='0' cellpadding='2'>"
                "<tr><td align='center'>R(θ)</td><td></td>"
                f"<td align='center' style='color:{BLUE}'><b>v</b></td><td></td>"
                f"<td align='center' style='color:{VERMILLION}'><b>v′ = R(θ)·v</b></td></tr>"
                f"<tr><td valign='middle'>{matrix}</td><td valign='middle'>×</td>"
                f"<td valign='middle'>{vec}</td><td valign='middle'>=</td>"
                f"<td valign='middle' align='center'>{rvec}</td></tr></table>"
                "<span style='font-size:11pt'>"
                f"x′ = x cos θ − y sin θ = {_paren(x, 2)}·{cos_s} − {_paren(y, 2)}·{sin_s} "
                f"= <b>{_fixed(rx, 4, plus=False)}</b><br>"
                f"y′ = x sin θ + y cos θ = {_paren(x, 2)}·{sin_s} + {_paren(y, 2)}·{cos_s} "
                f"= <b>{_fixed(ry, 4, plus=False)}</b></span>"
            )
        )
        comp = r["composition_matrix"]
        summed = r["sum_matrix"]
        lines = [
            _check(
                r["norm_residual"],
                f"Length kept: |v| = {num(r['norm_v'], 4)}, |Rv| = {num(r['norm_rotated'], 4)}",
                "difference",
            ),
            _check(
                r["det_residual"],
                f"det R = cos²θ + sin²θ = {num(r['det'], 4)}",
                "|det R − 1|",
            ),
            _check(r["orthogonality_residual"], "RᵀR = I (columns orthonormal)", "max |RᵀR − I|"),
            _check(
                r["composition_residual"],
                f"R({num(deg, 1)}°)·R({num(deg2, 1)}°) = R({num(r['angle_sum_degrees'], 1)}°)",
                "max diff",
            )
            + f"<br>&nbsp;&nbsp;&nbsp;&nbsp;{_inline(comp)} vs {_inline(summed)}",
            _check(r["inverse_residual"], "Inverse: R(−θ)·R(θ) = I", "max |R(−θ)R(θ) − I|"),
            _check(r["transpose_residual"], "R(−θ) = Rᵀ (undo = transpose)", "max diff"),
        ]
        self.checks_label.set_html(
            _sup(
                "<b>Properties</b> (float64, from the matrices)<br>"
                + "<br>".join(lines)
                + "<br>Angle from v to Rv, measured (mod 360°): "
                f"{num(r['measured_angle_degrees'], 2)}°"
            )
        )

    def _refresh_pe(self, r: dict[str, Any]) -> None:
        s = self.state
        order = s.as_str("pe_order")
        swap = order == "cos_sin"
        dim, base, i = s.as_int("dim"), s.as_float("base"), s.as_int("pair")
        k = s.as_int("offset")
        pos = r["pe_positions"]

        def xy(pair: Sequence[float]) -> tuple[float, float]:
            return (pair[1], pair[0]) if swap else (pair[0], pair[1])

        if order != self._pe_order:
            self._pe_order = order
            sin_l, cos_l = "PE[p, 2i] = sin pω", "PE[p, 2i+1] = cos pω"
            self.pe_plot.setLabel("bottom", cos_l if swap else sin_l, **{"font-size": "12pt"})
            self.pe_plot.setLabel("left", sin_l if swap else cos_l, **{"font-size": "12pt"})
        pts = [xy(r[key]) for key in ("pe_pair", "pe_pair_shifted", "pe_pair2", "pe_pair2_shifted")]
        head = 0.09
        for arrow, (px, py) in zip(
            (self.pe_arrow, self.pek_arrow, self.pe2_arrow, self.pe2k_arrow), pts, strict=True
        ):
            arrow.setData(*plots.arrow_xy(0.0, 0.0, px, py, head))
        pred = [xy(r["pe_rotated"]), xy(r["pe_rotated2"])]
        self.pe_pred.setData([q[0] for q in pred], [q[1] for q in pred])
        names = ("p", "p+k", "p′", "p′+k")
        for text, name, (px, py) in zip(self.pe_texts, names, pts, strict=True):
            _place_label(text, name, px, py, 0.2)
        # In (sin, cos) coordinates the shift turns by −kω (clockwise), in (cos, sin) by +kω.
        net = float(r["pe_angle_wrapped"]) * (1.0 if swap else -1.0)
        for arc_item, (px, py), rad in ((self.pe_arc, pts[0], 0.3), (self.pe_arc2, pts[2], 0.45)):
            a0 = math.atan2(py, px)
            arc = np.linspace(a0, a0 + net, max(2, int(abs(math.degrees(net))) + 2))
            arc_item.setData(rad * np.cos(arc), rad * np.sin(arc))
        title = "(cos, sin)" if swap else "(sin, cos)"
        self.pe_plot.setTitle(f"PE pair i = {i} as {title}", size=plots.TITLE_PT)

        mat = r["pe_rotation_matrix_cos_sin"] if swap else r["pe_rotation_matrix"]
        if swap:
            sym = _matrix_html([["cos&nbsp;kω", "−sin&nbsp;kω"], ["sin&nbsp;kω", "cos&nbsp;kω"]])
            name, coords, turn = "R(+kω)", "(cos, sin)", "counter-clockwise"
        else:
            sym = _matrix_html([["cos&nbsp;kω", "sin&nbsp;kω"], ["−sin&nbsp;kω", "cos&nbsp;kω"]])
            name, coords, turn = "R(−kω)", "(sin, cos)", "clockwise"
        nums = _matrix_html([[_fixed(mat[0][0], 4), _fixed(mat[0][1], 4)],
                             [_fixed(mat[1][0], 4), _fixed(mat[1][1], 4)]])  # fmt: skip
        ok = "✓" if r["pe_residual_all_pairs"] < TOLERANCE else "✗"

        def pair_txt(pair: Sequence[float]) -> str:
            a, b = xy(pair)
            return f"({_fixed(a, 3)}, {_fixed(b, 3)})"

        rows = [
            ("angle", f"pω = {num(r['pe_position_angle'], 3)}",
             f"p′ω = {num(r['pe_position2_angle'], 3)}"),
            (f"PE pair {coords}", pair_txt(r["pe_pair"]), pair_txt(r["pe_pair2"])),
            ("M × pair", pair_txt(r["pe_rotated"]), pair_txt(r["pe_rotated2"])),
            ("PE pair at +k", pair_txt(r["pe_pair_shifted"]),
             pair_txt(r["pe_pair2_shifted"])),
            ("‖M·pair − pair<sub>+k</sub>‖", _res(r["pe_residual"]),
             _res(r["pe_residual2"])),
        ]  # fmt: skip
        table = "".join(
            f"<tr><td>{a}</td><td align='right' style='color:{BLUE}'>{b}</td>"
            f"<td align='right' style='color:{SKY}'>{c}</td></tr>"
            for a, b, c in rows
        )
        power = f"{_power_base(base)}<sup>−2·{i}/{dim}</sup>"
        label = f"M&nbsp;=&nbsp;{name}&nbsp;="
        self.pe_label.set_html(
            _sup(
                f"ω<sub>{i}</sub> = {power} = {sig(r['omega'], 5)} "
                f"(λ = {sig(r['wavelength'], 5)}), &nbsp;k = {k}<br>"
                f"kω = {num(r['pe_angle'], 4)} rad = {num(r['pe_angle_degrees'], 2)}° "
                f"({num(r['pe_angle_turns'], 3)} turns)<br>"
                f"sin((p+k)ω) = cos kω·sin pω + sin kω·cos pω, cos((p+k)ω) = −sin kω·sin pω + "
                f"cos kω·cos pω, so on {coords} the shift is a <b>{turn}</b> turn:"
                "<table cellspacing='0' cellpadding='2'><tr>"
                f"<td valign='middle'>{label}</td><td valign='middle'>{sym}</td>"
                f"<td valign='middle'>=</td><td valign='middle'>{nums}</td></tr></table>"
                "<table cellspacing='0' cellpadding='2'>"
                f"<tr><th></th><th style='color:{BLUE}'>p = {pos[0]} → {pos[1]}</th>"
                f"<th style='color:{SKY}'>p′ = {pos[2]} → {pos[3]}</th></tr>{table}</table>"
                f"M uses only k and ω<sub>i</sub>, never p. Every pair i &lt; {dim // 2} at p and "
                f"p′: max residual {_res(r['pe_residual_all_pairs'])} {ok}.<br>"
                f"Wrong sign (R(+kω) on (sin, cos)) would miss by "
                f"{num(r['pe_wrong_sign_residual'], 3)}."
            )
        )

    def _refresh_rope(self, r: dict[str, Any]) -> None:
        s = self.state
        bd, layout = s.as_int("block_dim"), s.as_str("layout")
        m, n = s.as_int("m"), s.as_int("n")
        mat = np.ascontiguousarray(np.asarray(r["rope_matrix"], dtype=np.float32))
        self.rope_image.setImage(mat, autoLevels=False)
        self.rope_image.setRect(0.0, 0.0, float(bd), float(bd))
        key = (bd, layout)
        if key != self._rope_key:
            self._rope_key = key
            self._rope_geometry(bd, layout)
        show_text = bd <= CELL_TEXT_MAX
        for idx, t in enumerate(self.cell_texts):
            row, col = divmod(idx, CELL_TEXT_MAX)
            visible = bool(show_text and row < bd and col < bd and mat[row, col] != 0.0)
            t.setVisible(visible)
            if visible:
                t.setText(_fixed(float(r["rope_matrix"][row][col]), 2, plus=False))
                t.setPos(col + 0.5, row + 0.5)
        self.rope_plot.setTitle(f"Entries of RoPE R<sub>m</sub>, m = {m}", size=plots.TITLE_PT)
        theta, angles = r["rope_theta"], r["rope_angles"]
        shown = min(4, len(theta))
        ang = ", ".join(sig(a, 3) for a in angles[:shown]) + (", …" if len(theta) > shown else "")
        pairs = "(2i, 2i+1) on the diagonal" if layout == "interleaved" else f"(i, i+{bd // 2})"
        relative = _check(
            r["rope_relative_residual"],
            f"R<sub>m</sub>ᵀR<sub>n</sub> = R<sub>n−m</sub> (n = {n}, n−m = {r['rope_offset']})",
            "max diff",
        )
        ortho = _check(
            r["rope_orthogonality_residual"], "R<sub>m</sub>ᵀR<sub>m</sub> = I", "max diff"
        )
        self.rope_label.set_html(
            _sup(
                f"<b>d = {bd}, {layout} layout.</b> Pair i turns by m·θ<sub>i</sub>, "
                f"θ<sub>i</sub> = base<sup>−2i/d</sup>; coupled entries {pairs} outlined.<br>"
                f"m·θ<sub>i</sub> = {ang} rad<br>{relative}<br>{ortho}"
            )
        )

    def _rope_geometry(self, bd: int, layout: str) -> None:
        """Block outlines, quadrant lines and ticks for head dimension ``bd`` in ``layout``."""
        half = bd // 2
        squares: list[tuple[float, float, float]] = []  # (x0, y0, size)
        if layout == "interleaved":
            squares = [(2.0 * i, 2.0 * i, 2.0) for i in range(half)]
            self.quadrant_lines.setData([], [])
        else:
            for i in range(half):
                for a in (i, i + half):
                    for b in (i, i + half):
                        squares.append((float(b), float(a), 1.0))
            self.quadrant_lines.setData(
                [half, half, np.nan, 0.0, bd], [0.0, bd, np.nan, half, half]
            )
        xs: list[float] = []
        ys: list[float] = []
        for x0, y0, size in squares:
            xs += [x0, x0 + size, x0 + size, x0, x0, np.nan]
            ys += [y0, y0, y0 + size, y0 + size, y0, np.nan]
        self.block_outline.setData(np.asarray(xs), np.asarray(ys))
        width = 2.5 if bd <= 16 else 1.2
        self.block_outline.setPen(plots.pen("#111111", width))
        step = 1 if bd <= 16 else (4 if bd <= 32 else 8)
        ticks = [(j + 0.5, str(j)) for j in range(0, bd, step)]
        for axis in ("bottom", "left"):
            self.rope_plot.getAxis(axis).setTicks([ticks, []])
        self.rope_plot.setXRange(0.0, float(bd), padding=0.02)
        self.rope_plot.setYRange(0.0, float(bd), padding=0.02)


# -- helpers ------------------------------------------------------------------------------------
def _scrolled(widget: QWidget, name: str) -> QScrollArea:
    """``widget`` in a frameless scroll area (scroll bars only when the window is small)."""
    area = QScrollArea(widget.parentWidget())
    area.setObjectName(name)
    area.setAccessibleName(name.replace("_", " "))
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    return area


def _fixed_square(plot: pg.PlotWidget, extent: float) -> None:
    plot.setAspectLocked(True)
    plot.setXRange(-extent, extent, padding=0)
    plot.setYRange(-extent, extent, padding=0)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()


def _target(color: str, tip: str) -> pg.TargetItem:
    t = pg.TargetItem(
        pos=(0.0, 0.0), size=16, symbol="o", pen=pg.mkPen("w", width=2),
        brush=pg.mkBrush(color), hoverPen=pg.mkPen("#000000", width=3),
        hoverBrush=pg.mkBrush(color), movable=True,
    )  # fmt: skip
    t.setToolTip(tip)
    t.setZValue(20)
    return t


def _set_target(target: pg.TargetItem, x: float, y: float) -> None:
    """Move a draggable dot without echoing the move back into the state."""
    pos = target.pos()
    if abs(float(pos.x()) - x) > 1e-12 or abs(float(pos.y()) - y) > 1e-12:
        target.blockSignals(True)
        try:
            target.setPos(QPointF(x, y))
        finally:
            target.blockSignals(False)


def _place_label(item: pg.TextItem, text: str, x: float, y: float, gap: float = 0.3) -> None:
    """Put ``text`` just beyond the tip (x, y) of an arrow from the origin."""
    length = math.hypot(x, y)
    ux, uy = (x / length, y / length) if length > 1e-12 else (1.0, 0.0)
    item.setText(text)
    item.setPos(x + gap * ux, y + gap * uy)


def _matrix_html(rows: Sequence[Sequence[str]]) -> str:
    """A bracketed matrix (HTML table; the brackets are cell borders)."""
    out = "<table cellspacing='0' cellpadding='3'>"
    last = len(rows) - 1
    for r, row in enumerate(rows):
        end = "border-top" if r == 0 else ("border-bottom" if r == last else "")
        cap = f"{end}:{BRACKET};" if end else ""
        out += (
            f"<tr><td width='5' style='border-left:{BRACKET};{cap}'></td>"
            + "".join(f"<td align='right'>&nbsp;{c}&nbsp;</td>" for c in row)
            + f"<td width='5' style='border-right:{BRACKET};{cap}'></td></tr>"
        )
    return out + "</table>"


def _fixed(x: float, decimals: int = 3, plus: bool = True) -> str:
    """Fixed decimals with a real minus sign; values that round to zero show as 0."""
    text = f"{x:.{decimals}f}"
    if float(text) == 0.0:
        text = f"{0.0:.{decimals}f}"
    if plus and not text.startswith("-"):
        text = "+" + text
    return text.replace("-", "−")


def _inline(mat: Sequence[Sequence[float]]) -> str:
    """A 2×2 matrix on one line: ``[a, b; c, d]``."""
    return f"[{_fixed(mat[0][0])}, {_fixed(mat[0][1])}; {_fixed(mat[1][0])}, {_fixed(mat[1][1])}]"


_SCI = re.compile(r"·10\^([−+]?\d+)")


def _sup(html: str) -> str:
    """Write the ``·10^−7`` of :mod:`posenc_gui.widgets.fmt` as a real superscript."""
    return _SCI.sub(r"·10<sup>\1</sup>", html)


def _power_base(base: float) -> str:
    """The base as the base of a power: parenthesised when written in scientific form."""
    text = sig(base, 5)
    return f"({text})" if "·10^" in text else text


def _paren(x: float, digits: int) -> str:
    """A factor in a written-out product: negative numbers in parentheses."""
    text = _fixed(x, digits, plus=False)
    return f"({text})" if text.startswith("−") else text


def _res(x: float) -> str:
    """A residual: exactly 0, or scientific with a real superscript exponent."""
    if x == 0.0:
        return "0"
    if x >= 1e-3:
        return num(x, 4)
    mant, _, exp = f"{x:.1e}".partition("e")
    return f"{mant}·10<sup>{int(exp)}</sup>".replace("-", "−")


def _check(residual: float, text: str, what: str) -> str:
    """One property line: ✓/✗ (residual below :data:`TOLERANCE`), the text, the residual."""
    ok = residual < TOLERANCE
    mark = (
        f"<span style='color:{GREEN}'><b>✓</b></span>"
        if ok
        else f"<span style='color:{VERMILLION}'><b>✗</b></span>"
    )
    return f"{mark} {text} &nbsp;({what} {_res(residual)})"


PANEL = RotationPanel
