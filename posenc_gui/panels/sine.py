"""Sine explorer: ``A·sin(2πft+φ)``, its cosine, the unit circle, and the frequency ladder.

Top: the two waves over ``t ∈ [0, 2] s`` with a draggable cursor, and the circle on which
``(cos θ, sin θ)`` moves with that cursor (cos is sin shifted by π/2; the pair pins down θ).
Bottom: the first dimensions of a sinusoidal encoding drawn as waves over positions, each row
labelled with its ``ω_i`` and wavelength, with a draggable marker at position ``p``.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
import torch
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QScrollArea, QVBoxLayout, QWidget

from posenc_gui import core
from posenc_gui.panels.base import Panel
from posenc_gui.state.sine import T_VIEW, TAU, SineModel
from posenc_gui.widgets import plots
from posenc_gui.widgets.fmt import num, sig, signed
from posenc_gui.widgets.plots import BLUE, GREY, VERMILLION, FormulaLabel, make_plot

WAVE_SAMPLES = 801
LADDER_SAMPLES = 900  # about the pixel width of the plot
ROW_GAP = 2.6  # vertical distance between ladder rows (values span [-1, 1])


def _color(j: int) -> str:
    """Column 2i (sin) blue, column 2i+1 (cos) vermillion, as in the wave plot."""
    return BLUE if j % 2 == 0 else VERMILLION


class SinePanel(Panel):
    """The ``sine`` tab."""

    model = SineModel

    def build(self) -> None:
        # ---- controls ------------------------------------------------------------------
        wave_box = self.controls("Wave", "amplitude", "frequency", "phase", "cursor")
        ladder_box = self.controls(
            "Encoding ladder", "dim", "base", "length", "position", "ladder_dims"
        )
        self.readout_label = FormulaLabel("sine_readouts", self)
        side = QVBoxLayout()
        side.addWidget(wave_box)
        side.addWidget(self.readout_label)
        side.addWidget(ladder_box)
        side.addStretch(1)
        side_widget = QWidget(self)
        side_widget.setLayout(side)
        scroll = QScrollArea(self)
        scroll.setWidget(side_widget)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setMinimumWidth(430)
        scroll.setMaximumWidth(520)

        # ---- wave plot -----------------------------------------------------------------
        self.wave_plot = make_plot(
            self, "wave_plot", "A·sin(2πft+φ) and A·cos(2πft+φ)", "time t", "value",
            xunits="s", legend=True,
        )  # fmt: skip
        self.wave_plot.setXRange(0.0, T_VIEW, padding=0.01)
        self.wave_plot.setYRange(-2.1, 2.1, padding=0)
        self.wave_plot.setMouseEnabled(x=False, y=False)
        self.wave_plot.hideButtons()
        self._t = np.linspace(0.0, T_VIEW, WAVE_SAMPLES)
        self.sin_curve = plots.curve(self.wave_plot, BLUE, 2.5, name="A·sin(2πft+φ)")
        self.cos_curve = plots.curve(self.wave_plot, VERMILLION, 2.5, name="A·cos(2πft+φ)")
        self.cursor_line = pg.InfiniteLine(
            angle=90, movable=True, pen=plots.pen("#000000", 1.5, Qt.PenStyle.DashLine),
            hoverPen=plots.pen("#000000", 3), bounds=(0.0, T_VIEW),
        )  # fmt: skip
        self.cursor_line.setToolTip("Drag to move the cursor t")
        self.wave_plot.addItem(self.cursor_line)
        self.cursor_line.sigPositionChanged.connect(self._cursor_dragged)
        self.wave_dots = plots.dots(self.wave_plot, "#000000", 12)
        self.wave_formula = FormulaLabel("wave_formula", self)

        # ---- unit circle ---------------------------------------------------------------
        self.circle_plot = make_plot(self, "circle_plot", "The pair (cos θ, sin θ)", "cos", "sin")
        self.circle_plot.setAspectLocked(True)
        self.circle_plot.setXRange(-2.15, 2.15, padding=0)
        self.circle_plot.setYRange(-2.15, 2.15, padding=0)
        self.circle_plot.setMouseEnabled(x=False, y=False)
        self.circle_plot.hideButtons()
        ux, uy = plots.circle_xy(1.0)
        unit = plots.curve(self.circle_plot, GREY, 1.2)
        unit.setPen(plots.pen(GREY, 1.2, Qt.PenStyle.DashLine))
        unit.setData(ux, uy)
        self.amp_circle = plots.curve(self.circle_plot, "#000000", 2.0)
        self.angle_arc = plots.curve(self.circle_plot, plots.GREEN, 2.5)
        self.radius_line = plots.curve(self.circle_plot, "#000000", 2.0)
        self.sin_proj = plots.curve(self.circle_plot, BLUE, 3.0)
        self.cos_proj = plots.curve(self.circle_plot, VERMILLION, 3.0)
        self.circle_dot = plots.dots(self.circle_plot, plots.GREEN, 14)
        self.angle_text = plots.text_item(self.circle_plot, "#000000", anchor=(0, 1))
        self.circle_formula = FormulaLabel("circle_formula", self)

        # ---- frequency ladder ----------------------------------------------------------
        self.ladder_plot = make_plot(
            self, "ladder_plot", "Frequency ladder: PE[p, j] over positions p", "position p",
            "dimension j",
        )  # fmt: skip
        self.ladder_plot.setMouseEnabled(x=True, y=False)
        self.ladder_plot.showAxis("right")
        right = self.ladder_plot.getAxis("right")
        right.setTickFont(self.ladder_plot.getAxis("left").style["tickFont"])
        right.setGrid(False)
        self.ladder_plot.getAxis("left").setWidth(70)
        self.ladder_curves: list[pg.PlotDataItem] = []
        self.ladder_samples: list[pg.ScatterPlotItem] = []
        for j in range(16):
            c = plots.curve(self.ladder_plot, _color(j), 2.0)
            s = pg.ScatterPlotItem(size=5, brush=pg.mkBrush(_color(j)), pen=None)
            self.ladder_plot.addItem(s)
            self.ladder_curves.append(c)
            self.ladder_samples.append(s)
        self.position_line = pg.InfiniteLine(
            angle=90, movable=True, pen=plots.pen("#000000", 1.5, Qt.PenStyle.DashLine),
            hoverPen=plots.pen("#000000", 3),
        )  # fmt: skip
        self.position_line.setToolTip("Drag to choose the position p")
        self.ladder_plot.addItem(self.position_line)
        self.position_line.sigPositionChanged.connect(self._position_dragged)
        self.ladder_dots = plots.dots(self.ladder_plot, "#000000", 10)
        self.ladder_formula = FormulaLabel("ladder_formula", self)
        self.vector_label = FormulaLabel("ladder_vector", self)

        # ---- layout --------------------------------------------------------------------
        plots_grid = QGridLayout()
        plots_grid.addWidget(self.wave_plot, 0, 0)
        plots_grid.addWidget(self.circle_plot, 0, 1)
        plots_grid.addWidget(self.wave_formula, 1, 0)
        plots_grid.addWidget(self.circle_formula, 1, 1)
        plots_grid.addWidget(self.ladder_plot, 2, 0)
        plots_grid.addWidget(self.vector_label, 2, 1)
        plots_grid.addWidget(self.ladder_formula, 3, 0, 1, 2)
        plots_grid.setColumnStretch(0, 3)
        plots_grid.setColumnStretch(1, 2)
        plots_grid.setRowStretch(0, 5)
        plots_grid.setRowStretch(2, 6)
        root = QHBoxLayout(self)
        root.addWidget(scroll)
        root.addLayout(plots_grid, 1)

    # -- widget -> state from plot interaction ----------------------------------------------
    def _cursor_dragged(self) -> None:
        t = min(max(float(self.cursor_line.value()), 0.0), T_VIEW)
        self.state.set("cursor", round(t, 3))

    def _position_dragged(self) -> None:
        hi = self.state.as_int("length") - 1
        p = round(min(max(float(self.position_line.value()), 0.0), float(hi)))
        self.state.set("position", p)

    # -- state -> plots ---------------------------------------------------------------------
    def refresh(self) -> None:
        s = self.state
        r = s.readouts()
        amp, f, phase, t = (
            s.as_float("amplitude"),
            s.as_float("frequency"),
            s.as_float("phase"),
            s.as_float("cursor"),
        )
        theta = float(r["angle"])

        angles = TAU * f * self._t + phase
        self.sin_curve.setData(self._t, amp * np.sin(angles))
        self.cos_curve.setData(self._t, amp * np.cos(angles))
        _set_line(self.cursor_line, t)
        self.wave_dots.setData([t, t], [r["sin_value"], r["cos_value"]])
        self.wave_formula.set_html(
            f"<b>y</b> = {num(amp, 2)}·sin(2π·{num(f, 2)}·t {_plus(phase)}) "
            f"&nbsp; and &nbsp; {num(amp, 2)}·cos(2π·{num(f, 2)}·t {_plus(phase)})<br>"
            f"at t = {num(t, 3)} s: θ = {num(theta, 4)} rad, "
            f"<span style='color:{BLUE}'>sin = {signed(r['sin_value'])}</span>, "
            f"<span style='color:{VERMILLION}'>cos = {signed(r['cos_value'])}</span><br>"
            f"cos θ = sin(θ + π/2): the cosine runs a quarter period "
            f"(1/(4f) = {num(r['quarter_period'], 4)} s) ahead of the sine."
        )

        # circle
        cx, cy = amp * math.cos(theta), amp * math.sin(theta)
        self.amp_circle.setData(*plots.circle_xy(amp))
        wrapped = float(r["angle_wrapped"])
        arc = np.linspace(0.0, wrapped, 90)
        rad = 0.35 if amp > 0.5 else 0.2
        self.angle_arc.setData(rad * np.cos(arc), rad * np.sin(arc))
        self.radius_line.setData([0.0, cx], [0.0, cy])
        self.sin_proj.setData([cx, cx], [0.0, cy])
        self.cos_proj.setData([0.0, cx], [0.0, 0.0])
        self.circle_dot.setData([cx], [cy])
        self.angle_text.setText(f"θ = {num(r['angle_degrees'], 1)}°")
        self.angle_text.setPos(
            0.45 * math.cos(wrapped / 2) + 0.05, 0.45 * math.sin(wrapped / 2) + 0.05
        )
        self.circle_formula.set_html(
            f"θ = 2πft + φ = {num(theta, 4)} rad ≡ {num(r['angle_degrees'], 2)}°<br>"
            f"(<span style='color:{VERMILLION}'>A·cos θ</span>, "
            f"<span style='color:{BLUE}'>A·sin θ</span>) = "
            f"({signed(r['cos_value'])}, {signed(r['sin_value'])})<br>"
            f"period T = 1/f = {num(r['period'], 4)} s, &nbsp; ω = 2πf = "
            f"{num(r['angular_frequency'], 4)} rad/s<br>"
            "sin alone is ambiguous (two angles share a sine); the pair pins θ down."
        )
        self.readout_label.set_html(
            plots.table_html(
                [
                    ("Period T = 1/f", f"{num(r['period'], 4)} s"),
                    ("Angular frequency ω = 2πf", f"{num(r['angular_frequency'], 4)} rad/s"),
                    ("Angle θ at t", f"{num(theta, 4)} rad"),
                    ("A·sin θ", signed(r["sin_value"])),
                    ("A·cos θ", signed(r["cos_value"])),
                ]
            )
        )
        self._refresh_ladder(r)

    def _refresh_ladder(self, r: dict[str, object]) -> None:
        s = self.state
        dim, base = s.as_int("dim"), s.as_float("base")
        length, p, shown = s.as_int("length"), s.as_int("position"), s.as_int("ladder_dims")
        n = min(LADDER_SAMPLES, max(length * 8, 200))
        xs = torch.linspace(0.0, float(length - 1), n, dtype=torch.float64)
        # Only the columns on screen: the first `shown` of the (up to 1024) dimensions.
        table = _first_columns(xs, dim, base, shown)
        ints = torch.arange(length if length <= 200 else 0, dtype=torch.float64)
        samples = _first_columns(ints, dim, base, shown)
        omega = r["omega"]
        wavelength = r["wavelength"]
        vec = r["ladder_vector"]
        assert isinstance(omega, list) and isinstance(wavelength, list) and isinstance(vec, list)
        xnp = xs.numpy()
        ticks = []
        pair_ticks = []
        marker_y = []
        for j in range(16):
            curve, dots_ = self.ladder_curves[j], self.ladder_samples[j]
            visible = j < shown
            curve.setVisible(visible)
            dots_.setVisible(visible and length <= 200)
            if not visible:
                continue
            off = -ROW_GAP * j
            curve.setData(xnp, table[:, j] + off)
            if length <= 200:
                dots_.setData(ints.numpy(), samples[:, j] + off)
            i = j // 2
            fn = "sin" if j % 2 == 0 else "cos"
            ticks.append((off, f"{j} {fn}"))
            if j % 2 == 0:
                centre = off - (ROW_GAP / 2 if j + 1 < shown else 0.0)
                pair_ticks.append(
                    (centre, f"ω{_sub(i)} = {sig(omega[i])}\nλ{_sub(i)} = {sig(wavelength[i])}")
                )
            marker_y.append(off + float(vec[j]))
        self.ladder_plot.getAxis("left").setTicks([ticks, []])
        self.ladder_plot.getAxis("right").setTicks([pair_ticks, []])
        self.ladder_plot.setYRange(-ROW_GAP * (shown - 1) - 1.2, 1.4, padding=0)
        self.ladder_plot.setXRange(0.0, float(length - 1), padding=0.02)
        self.position_line.setBounds((0.0, float(length - 1)))
        _set_line(self.position_line, float(p))
        self.ladder_dots.setData([float(p)] * len(marker_y), marker_y)
        self.ladder_formula.set_html(
            f"PE[p, 2i] = sin(p·ω<sub>i</sub>), &nbsp; PE[p, 2i+1] = cos(p·ω<sub>i</sub>), "
            f"&nbsp; ω<sub>i</sub> = base<sup>−2i/d</sup> = {sig(base, 5)}<sup>−2i/{dim}</sup>, "
            f"&nbsp; wavelength λ<sub>i</sub> = 2π/ω<sub>i</sub>"
        )
        rows = "".join(
            f"<tr><td>{i}</td><td align='right'>{sig(omega[i])}</td>"
            f"<td align='right'>{sig(wavelength[i])}</td>"
            f"<td align='right'>{num(p * omega[i], 3)}</td>"
            f"<td align='right' style='color:{BLUE}'>{signed(float(vec[2 * i]))}</td>"
            + (
                f"<td align='right' style='color:{VERMILLION}'>{signed(float(vec[2 * i + 1]))}</td>"
                if 2 * i + 1 < shown
                else "<td></td>"
            )
            + "</tr>"
            for i in range((shown + 1) // 2)
        )
        self.vector_label.set_html(
            f"<b>Encoding at p = {p}</b> (first {shown} of d = {dim})"
            "<table cellspacing='0' cellpadding='3'>"
            "<tr><th>i</th><th>ω<sub>i</sub></th><th>λ<sub>i</sub></th><th>p·ω<sub>i</sub></th>"
            "<th>sin</th><th>cos</th></tr>"
            f"{rows}</table>"
        )


def _first_columns(positions: torch.Tensor, dim: int, base: float, columns: int) -> np.ndarray:
    """``PE[positions, :columns]`` (interleaved layout) without computing the other columns."""
    omega = core.inverse_frequencies(dim, base)[: (columns + 1) // 2]
    angles = positions[:, None] * omega[None, :]
    table = torch.stack((torch.sin(angles), torch.cos(angles)), dim=-1)
    table = table.reshape(len(positions), 2 * omega.numel())
    return table[:, :columns].numpy()


def _plus(phase: float) -> str:
    return f"− {num(-phase, 3)}" if phase < 0 else f"+ {num(phase, 3)}"


_SUBS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _sub(i: int) -> str:
    return str(i).translate(_SUBS)


def _set_line(line: pg.InfiniteLine, value: float) -> None:
    """Move a draggable line without echoing the move back into the state."""
    if abs(float(line.value()) - value) > 1e-12:
        line.blockSignals(True)
        try:
            line.setValue(value)
        finally:
            line.blockSignals(False)


PANEL = SinePanel
