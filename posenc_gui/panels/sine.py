"""Sine explorer: ``A·sin(2πft+φ)``, its cosine, the unit circle, and the frequency ladder.

Top: the two waves over ``t ∈ [0, 2] s`` with a draggable cursor, and the circle on which
``(cos θ, sin θ)`` moves with that cursor (cos is sin shifted by π/2; the pair pins down θ).
Bottom: the first dimensions of a sinusoidal encoding drawn as waves over positions, each row
labelled with its ``ω_i`` and wavelength, with a draggable marker at position ``p``.

Views and what they depend on: the wave, circle and read-outs follow the wave parameters
(amplitude, frequency, phase, cursor); the ladder's curves follow dim, base, length and the
number of rows; its marker and the vector table follow the position as well.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from PySide6.QtGui import QFontMetricsF

from posenc_gui.core.sinusoidal import (
    sinusoidal_column_min_max,
    sinusoidal_columns_from_angles,
    sinusoidal_pair_angles,
)
from posenc_gui.panels.base import Cell, Panel
from posenc_gui.state.sine import LADDER_INPUTS, T_VIEW, TAU, WAVE_INPUTS, SineModel, wave_samples
from posenc_gui.widgets import styled
from posenc_gui.widgets.fmt import num, sig, signed
from posenc_gui.widgets.style import Style
from posenc_gui.widgets.text import LiveText, live, span, table_html
from posenc_gui.widgets.views import Context, Kept, Shown

LADDER_SAMPLES = 900  # at most, about the pixel width of a wide plot
#: Curve samples: one per four pixel columns, and at least this many per period of the fastest
#: row (ω₀ = 1 rad per position: a period of 2π positions; a chord of 1/24 period strays 0.9 %
#: of a row's amplitude, a fraction of a pixel). Each antialiased segment is most of the
#: ladder's paint: one per two columns drew twice as many for no visible difference.
SAMPLES_PER_PERIOD = 24
PIXELS_PER_SAMPLE = 4
ROW_GAP = 2.6  # vertical distance between ladder rows (values span [-1, 1])
#: Up to this many positions, the integer positions are marked on the ladder's curves.
MARK_INTEGERS = 200
LADDER_CURVE_INPUTS = ("dim", "base", "length", "ladder_dims")
#: Past this many positions per pixel column the ladder draws per-pixel min–max bands.
AGGREGATE_FACTOR = 2
MIN_PIXELS = 200


#: The widest right-axis label there can be (ω down to 10⁻⁸, λ up to 10⁸ with base <= 10⁷):
#: the axis keeps this width, so new labels never re-lay out (and re-draw) the whole plot.
WIDEST_PAIR_LABEL = "λ₇ = 8.888·10⁻⁸ "


def _role(j: int) -> str:
    """Column 2i (sin) in the sine colour, column 2i+1 (cos) in the cosine colour."""
    return "sin" if j % 2 == 0 else "cos"


class SinePanel(Panel):
    """The ``sine`` tab."""

    model = SineModel

    def build(self) -> None:
        b = self.book
        #: What some items show now (set again only when it changes).
        self.shown = Shown()
        # ---- wave -----------------------------------------------------------------------------
        self.wave_plot = styled.plot(
            b, self, "wave_plot", "A·sin(2πft+φ) and A·cos(2πft+φ)", "time t", "value",
            xunits="s",
        )  # fmt: skip
        self.wave_plot.setXRange(0.0, T_VIEW, padding=0.01)
        self.wave_plot.setYRange(-2.1, 2.1, padding=0)
        self._times = Kept(16)  # sample times by their number
        # no legend box over the data: the title names the curves in their colours
        self.sin_curve = styled.pixel_curve(b, self.wave_plot, "sin", "thick")
        self.cos_curve = styled.pixel_curve(b, self.wave_plot, "cos", "thick")
        self.cursor_line = styled.vline(
            b, self.wave_plot, movable=True, tooltip="Drag to move the cursor t",
            bounds=(0.0, T_VIEW),
        )  # fmt: skip
        self.bind_drag(
            self.cursor_line,
            lambda x: self.state.set("cursor", round(min(max(x, 0.0), T_VIEW), 3)),
            lambda: self.state.as_float("cursor"),
        )
        self.wave_dots = styled.markers(b, self.wave_plot, "ink", "large")
        self.wave_formula = LiveText("wave_formula", self, b)
        # the curves follow the wave's shape; the cursor line and its dots follow the cursor too
        self.view("wave", self.wave_plot, ("amplitude", "frequency", "phase"), self._refresh_wave)
        self.view("wave_cursor", self.wave_plot, ("cursor", "wave"), self._refresh_wave_cursor)
        self.view("wave_formula", self.wave_formula, (*WAVE_INPUTS, "wave"),
                  self._refresh_wave_formula)  # fmt: skip

        # ---- unit circle ----------------------------------------------------------------------
        self.circle_plot = styled.plot(b, self, "circle_plot", "The pair (cos θ, sin θ)", "cos",
                                       "sin")  # fmt: skip
        self.circle_plot.setAspectLocked(True)
        self.circle_plot.setXRange(-2.15, 2.15, padding=0)
        self.circle_plot.setYRange(-2.15, 2.15, padding=0)
        unit = styled.curve(b, self.circle_plot, "guide", "thin", "dash")
        unit.setData(*styled.circle_xy(1.0))
        self.amp_circle = styled.ring(b, self.circle_plot, "ink", "line")
        # a few segments each, set at every step: drawn directly, not kept as pixels
        self.angle_arc = styled.line(b, self.circle_plot, "accent", "thick", keep=False)
        self.radius_line = styled.line(b, self.circle_plot, "ink", "line", keep=False)
        self.sin_proj = styled.line(b, self.circle_plot, "sin", "bold", keep=False)
        self.cos_proj = styled.line(b, self.circle_plot, "cos", "bold", keep=False)
        self.circle_dot = styled.markers(b, self.circle_plot, "accent", "huge")
        self.angle_text = styled.text(b, self.circle_plot, "accent", anchor=(0, 0))
        self.circle_formula = LiveText("circle_formula", self, b)
        self.view("circle", self.circle_plot, ("amplitude", "wave"), self._refresh_circle)
        self.view("circle_formula", self.circle_formula, ("wave",), self._refresh_circle_formula)

        # ---- frequency ladder -----------------------------------------------------------------
        self.ladder_plot = styled.plot(
            b, self, "ladder_plot", "Frequency ladder: PE[p, j] over positions p", "position p",
            "dimension j", mouse=(True, False),
        )  # fmt: skip
        right = styled.axis_right(b, self.ladder_plot)

        def fixed_width(st: Style) -> None:
            # The right axis is as wide as its widest possible label: a new base never resizes
            # the plot (and a resize re-lays out, recomputes and repaints all of it).
            text = QFontMetricsF(st.font("tick")).horizontalAdvance(WIDEST_PAIR_LABEL)
            right.setWidth(math.ceil(text + right.style["tickTextOffset"][0] + 5 * st.scale))
            self.ladder_plot.getAxis("left").setWidth(math.ceil(70 * st.scale))

        b.add(fixed_width)
        # One item per colour, rows separated by breaks in `connect`: two items to paint and
        # bound instead of up to 16 (each pyqtgraph item costs its own paint and bounds pass).
        self.ladder_curves = {
            role: styled.pixel_curve(b, self.ladder_plot, role, "line") for role in ("sin", "cos")
        }
        self.ladder_samples = {
            role: styled.markers(b, self.ladder_plot, role, "small", rim=False)
            for role in ("sin", "cos")
        }
        # with more positions than pixels: per-column min–max bands instead of the curves
        self.ladder_bands = {
            role: styled.bands(b, self.ladder_plot, role) for role in ("sin", "cos")
        }
        # zooming or resizing the ladder recomputes it for the positions now on screen
        self._own_range_change = False
        self.ladder_plot.getPlotItem().getViewBox().sigXRangeChanged.connect(
            self._ladder_x_range_changed
        )
        self.ladder_plot.getPlotItem().getViewBox().sigResized.connect(
            lambda *_: self.invalidate("ladder_x_range")
        )
        self.position_line = styled.vline(
            b, self.ladder_plot, movable=True, tooltip="Drag to choose the position p"
        )
        self.bind_drag(
            self.position_line,
            lambda x: self.state.set(
                "position", round(min(max(x, 0.0), self.state.as_int("length") - 1.0))
            ),
            lambda: float(self.state.as_int("position")),
        )
        self.ladder_dots = styled.markers(b, self.ladder_plot, "ink", "marker")
        self.ladder_formula = LiveText("ladder_formula", self, b)
        self.vector_label = LiveText("ladder_vector", self, b)
        self.view("ladder", self.ladder_plot, (*LADDER_CURVE_INPUTS, "frequencies",
                  "ladder_x_range"), self._refresh_ladder)  # fmt: skip
        self.view("ladder_marker", self.ladder_plot, ("length", "position", "ladder_dims",
                                                      "ladder"), self._refresh_marker)  # fmt: skip
        self.view(
            "ladder_formula", self.ladder_formula, ("dim", "base"), self._refresh_ladder_formula
        )
        self.view("vector", self.vector_label, (*LADDER_INPUTS, "ladder", "frequencies"),
                  self._refresh_vector)  # fmt: skip

        # ---- side column ----------------------------------------------------------------------
        self.readout_label = LiveText("sine_readouts", self, b)
        self.view("readouts", self.readout_label, ("wave",), self._refresh_readouts)
        wave_box = self.controls("Wave", *WAVE_INPUTS)
        ladder_box = self.controls(
            "Encoding ladder", "dim", "base", "length", "position", "ladder_dims"
        )
        # lines drawn directly on the steps that set them, blitted on those that leave them
        self.kept_lines = (
            self.sin_curve, self.cos_curve, *self.ladder_curves.values(),
        )  # fmt: skip
        self.place(
            [wave_box, self.readout_label, ladder_box],
            [
                # in reading order: a narrow window stacks them like this
                Cell(self.wave_plot, 0, 0), Cell(self.wave_formula, 1, 0),
                Cell(self.circle_plot, 0, 1), Cell(self.circle_formula, 1, 1),
                Cell(self.ladder_plot, 2, 0), Cell(self.ladder_formula, 3, 0, 1, 2),
                Cell(self.vector_label, 2, 1),
            ],
            row_stretch={0: 5, 2: 6}, col_stretch={0: 3, 1: 2},
        )  # fmt: skip

    # -- wave ---------------------------------------------------------------------------------
    def _ladder_x_range_changed(self, *_: object) -> None:
        """A zoom or resize of the ladder (not the range a refresh set itself)."""
        if not self._own_range_change:
            self.invalidate("ladder_x_range")

    def _refresh_wave(self, ctx: Context) -> None:
        v, st = ctx.values, ctx.style
        styled.set_title(
            self.book, self.wave_plot,
            span(st, "sin", "A·sin(2πft+φ)") + " and " + span(st, "cos", "A·cos(2πft+φ)"),
        )  # fmt: skip
        amp, f = v.as_float("amplitude"), v.as_float("frequency")
        n = wave_samples(f)
        t = self._times.get(n, lambda: np.linspace(0.0, T_VIEW, n))
        angles = TAU * f * t + v.as_float("phase")
        ys, yc = amp * np.sin(angles), amp * np.cos(angles)
        self.sin_curve.setData(t, ys)
        self.cos_curve.setData(t, yc)
        ctx.record("t", t, "time t", "s")
        ctx.record("sin", ys, "A·sin(2πft+φ)")
        ctx.record("cos", yc, "A·cos(2πft+φ)")

    def _refresh_wave_cursor(self, ctx: Context) -> None:
        t, w = ctx.values.as_float("cursor"), ctx["wave"]
        styled.move_line(self.cursor_line, t)
        self.wave_dots.setData([t, t], [w["sin_value"], w["cos_value"]])
        ctx.record("cursor", t, "cursor t", "s")
        ctx.record("values", [w["sin_value"], w["cos_value"]], "(A·sin θ, A·cos θ) at the cursor")

    def _refresh_wave_formula(self, ctx: Context) -> None:
        v, w, st = ctx.values, ctx["wave"], ctx.style
        amp, f = num(v.as_float("amplitude"), 2), num(v.as_float("frequency"), 2)
        phase = live(_plus(v.as_float("phase")))
        self.wave_formula.set_html(
            f"<b>y</b> = {live(amp)}·sin(2π·{live(f)}·t {phase}) &nbsp; and &nbsp; "
            f"{live(amp)}·cos(2π·{live(f)}·t {phase})<br>"
            f"at t = {live(num(v.as_float('cursor'), 3))} s: θ = {live(num(w['angle'], 4))} rad, "
            + span(st, "sin", f"sin = {live(signed(w['sin_value']))}")
            + ", "
            + span(st, "cos", f"cos = {live(signed(w['cos_value']))}")
            + "<br>cos θ = sin(θ + π/2): the cosine runs a quarter period "
            f"(1/(4f) = {live(num(w['quarter_period'], 4))} s) ahead of the sine."
        )
        ctx.record("angle", w["angle"], "θ at the cursor", "rad")
        ctx.record("sin_value", w["sin_value"], "A·sin θ")
        ctx.record("cos_value", w["cos_value"], "A·cos θ")
        ctx.record("quarter_period", w["quarter_period"], "1/(4f)", "s")

    # -- circle -------------------------------------------------------------------------------
    def _refresh_circle(self, ctx: Context) -> None:
        w = ctx["wave"]
        amp = ctx.values.as_float("amplitude")
        theta, wrapped = float(w["angle"]), float(w["angle_wrapped"])
        cx, cy = amp * math.cos(theta), amp * math.sin(theta)
        rad = 0.35 if amp > 0.5 else 0.2
        # only what changed is set again (a new curve is drawn again, an unchanged one blitted)
        if self.shown.changed("amp_circle", amp):
            self.amp_circle.set_radius(amp)
        if self.shown.changed("arc", (wrapped, rad)):
            arc = np.linspace(0.0, wrapped, 90)
            self.angle_arc.setData(rad * np.cos(arc), rad * np.sin(arc))
        self.radius_line.setData([0.0, cx], [0.0, cy])
        self.sin_proj.setData([cx, cx], [0.0, cy])
        self.cos_proj.setData([0.0, cx], [0.0, 0.0])
        self.circle_dot.setData([cx], [cy])
        self.angle_text.setText(f"θ = {num(w['angle_degrees'], 1)}°")
        # top-left corner of the fixed view: outside every circle of radius <= 2, so no line
        # ever crosses the label
        self.angle_text.setPos(-2.1, 2.1)
        ctx.record("point", [cx, cy], "(A·cos θ, A·sin θ)")
        ctx.record("angle_degrees", w["angle_degrees"], "θ wrapped to [0°, 360°)", "°")

    def _refresh_circle_formula(self, ctx: Context) -> None:
        w, st = ctx["wave"], ctx.style
        self.circle_formula.set_html(
            f"θ = 2πft + φ = {live(num(w['angle'], 4))} rad ≡ "
            f"{live(num(w['angle_degrees'], 2))}°<br>("
            + span(st, "cos", "A·cos θ")
            + ", "
            + span(st, "sin", "A·sin θ")
            + f") = ({live(signed(w['cos_value']))}, {live(signed(w['sin_value']))})<br>"
            f"period T = 1/f = {live(num(w['period'], 4))} s, &nbsp; ω = 2πf = "
            f"{live(num(w['angular_frequency'], 4))} rad/s<br>"
            "sin alone is ambiguous (two angles share a sine); the pair pins θ down."
        )
        ctx.record("angle_degrees", w["angle_degrees"], "θ wrapped to [0°, 360°)", "°")
        ctx.record("period", w["period"], "period T = 1/f", "s")
        ctx.record("angular_frequency", w["angular_frequency"], "ω = 2πf", "rad/s")

    def _refresh_readouts(self, ctx: Context) -> None:
        w = ctx["wave"]
        self.readout_label.set_html(
            table_html(
                [
                    ("Period T = 1/f", f"{live(num(w['period'], 4))} s"),
                    ("Angular frequency ω = 2πf", f"{live(num(w['angular_frequency'], 4))} rad/s"),
                    ("Angle θ at t", f"{live(num(w['angle'], 4))} rad"),
                    ("A·sin θ", live(signed(w["sin_value"]))),
                    ("A·cos θ", live(signed(w["cos_value"]))),
                ]
            )
        )
        for key, label, unit in (
            ("period", "period T = 1/f", "s"),
            ("angular_frequency", "ω = 2πf", "rad/s"),
            ("angle", "θ at the cursor", "rad"),
            ("sin_value", "A·sin θ", ""),
            ("cos_value", "A·cos θ", ""),
        ):
            ctx.record(key, w[key], label, unit)

    # -- ladder -------------------------------------------------------------------------------
    def _ladder_window(self, length: int) -> tuple[float, float]:
        """The visible part of ``[0, L−1]`` (the ladder can be zoomed along x)."""
        lo, hi = self.ladder_plot.getPlotItem().getViewBox().viewRange()[0]
        lo, hi = max(0.0, lo), min(float(length - 1), hi)
        return (lo, hi) if hi > lo else (0.0, float(length - 1))

    def _refresh_ladder(self, ctx: Context) -> None:
        v, freq = ctx.values, ctx["frequencies"]
        dim, base = v.as_int("dim"), v.as_float("base")
        length, shown = v.as_int("length"), v.as_int("ladder_dims")
        columns = list(range(shown))
        self._set_ladder_axes(length, shown, freq["omega"], freq["wavelength"])
        vb = self.ladder_plot.getPlotItem().getViewBox()
        lo, hi = self._ladder_window(length)
        pixels = max(int(vb.width()), MIN_PIXELS)
        first, last = math.ceil(lo), math.floor(hi)
        count = last - first + 1
        aggregate = count > AGGREGATE_FACTOR * pixels
        rows: dict[str, list[int]] = {"sin": [], "cos": []}
        for j in range(shown):
            rows[_role(j)].append(j)
        if aggregate:
            # More positions than pixels: every integer position is computed and each pixel
            # column shows the min–max of its positions (point sampling would alias).
            group = math.ceil(count / pixels)
            ints = torch.arange(first, last + 1, dtype=torch.float64)
            angles = sinusoidal_pair_angles(ints, shown, dim, base)
            mins, maxs = (t.numpy() for t in sinusoidal_column_min_max(angles, group, shown))
            centres = first + np.arange(len(mins)) * group + (group - 1) / 2
            ctx.record("position", centres, f"position p (centre of {group} positions)")
            for j in columns:
                ctx.record(f"pe_{j}_min", mins[:, j], f"min of PE[p, {j}] per pixel column")
                ctx.record(f"pe_{j}_max", maxs[:, j], f"max of PE[p, {j}] per pixel column")
            # half the ladder's line width, in data units: a flat row is drawn as a line
            y0, y1 = vb.viewRange()[1]
            pixel = (y1 - y0) / max(vb.height(), 1.0)
            half_line = 0.5 * self.book.style.width("line") * pixel
            for role, js in rows.items():
                offsets = -ROW_GAP * np.asarray(js, dtype=np.float64)[:, None]
                self.ladder_bands[role].set_bands(
                    centres, mins[:, js].T + offsets, maxs[:, js].T + offsets, half_line, pixel
                )
                self.ladder_bands[role].setVisible(True)
                self.ladder_curves[role].setVisible(False)
                self.ladder_samples[role].setVisible(False)
            title = f"Frequency ladder: min–max of PE[p, j] per {group} positions"
        else:
            fastest = math.ceil(SAMPLES_PER_PERIOD * (hi - lo) / TAU)
            n = min(LADDER_SAMPLES, max(200, pixels // PIXELS_PER_SAMPLE, fastest))
            xs_t = torch.linspace(lo, hi, n, dtype=torch.float64)
            table_np = sinusoidal_columns_from_angles(
                sinusoidal_pair_angles(xs_t, shown, dim, base), shown
            ).numpy()
            marks = count <= MARK_INTEGERS
            ints = torch.arange(first, last + 1 if marks else first, dtype=torch.float64)
            samples = sinusoidal_columns_from_angles(
                sinusoidal_pair_angles(ints, shown, dim, base), shown
            ).numpy()
            ctx.record("position", xs_t.numpy(), "position p")
            for j in columns:
                ctx.record(f"pe_{j}", table_np[:, j], f"PE[p, {j}]")
            for role, js in rows.items():
                offsets = -ROW_GAP * np.asarray(js, dtype=np.float64)
                ys = (table_np[:, js] + offsets).T  # (rows, n)
                connect = np.ones(ys.shape, dtype=bool)
                connect[:, -1] = False  # no segment from one row's end to the next row's start
                self.ladder_curves[role].setData(
                    np.tile(xs_t.numpy(), len(js)), ys.reshape(-1), connect=connect.reshape(-1)
                )
                self.ladder_curves[role].setVisible(True)
                if self.ladder_bands[role].isVisible():
                    self.ladder_bands[role].clear()
                    self.ladder_bands[role].setVisible(False)
                dots = self.ladder_samples[role]
                dots.setVisible(marks)
                if marks:
                    sy = (samples[:, js] + offsets).T
                    dots.setData(np.tile(ints.numpy(), len(js)), sy.reshape(-1))
            title = "Frequency ladder: PE[p, j] over positions p"
        styled.set_title(self.book, self.ladder_plot, title)

    def _set_ladder_axes(
        self, length: int, shown: int, omega: list[float], wavelength: list[float]
    ) -> None:
        """Ranges, ticks and bounds — each only when it changes (a change repaints its axis)."""
        if self.shown.changed("ladder_x", (length, shown)):
            self._own_range_change = True  # this refresh computes for the new range already
            try:
                self.ladder_plot.setXRange(0.0, float(length - 1), padding=0.02)
            finally:
                self._own_range_change = False
        if self.shown.changed("ladder_length", length):  # the marker's bounds
            styled.bound_line(self.position_line, 0.0, float(length - 1))
        if self.shown.changed("ladder_rows", shown):  # the left axis and the y range
            ticks = [(-ROW_GAP * j, f"{j} {'sin' if j % 2 == 0 else 'cos'}") for j in range(shown)]
            self.ladder_plot.getAxis("left").setTicks([ticks, []])
            self.ladder_plot.setYRange(-ROW_GAP * (shown - 1) - 1.2, 1.4, padding=0)
        pair_ticks = []
        for j in range(0, shown, 2):
            i = j // 2
            centre = -ROW_GAP * j - (ROW_GAP / 2 if j + 1 < shown else 0.0)
            pair_ticks.append(
                (centre, f"ω{_sub(i)} = {sig(omega[i])}\nλ{_sub(i)} = {sig(wavelength[i])}")
            )
        if self.shown.changed("pair_ticks", pair_ticks):
            self.ladder_plot.getAxis("right").setTicks([pair_ticks, []])
        # pyqtgraph defers the view transform of a new range to the paint, and a transform set
        # while painting schedules a second paint of the whole plot: set it now, paint once
        self.ladder_plot.getPlotItem().getViewBox().updateMatrix()

    def _refresh_marker(self, ctx: Context) -> None:
        v, lad = ctx.values, ctx["ladder"]
        p = float(v.as_int("position"))
        vec = lad["ladder_vector"]
        marker_y = [-ROW_GAP * j + float(vec[j]) for j in range(len(vec))]
        styled.move_line(self.position_line, p)
        self.ladder_dots.setData([p] * len(marker_y), marker_y)
        ctx.record("vector", np.asarray(vec), f"PE[{int(p)}, j] for the rows shown")

    def _refresh_ladder_formula(self, ctx: Context) -> None:
        v = ctx.values
        self.ladder_formula.set_html(
            "PE[p, 2i] = sin(p·ω<sub>i</sub>), &nbsp; PE[p, 2i+1] = cos(p·ω<sub>i</sub>), "
            f"&nbsp; ω<sub>i</sub> = base<sup>−2i/d</sup> = {live(sig(v.as_float('base'), 5))}"
            f"<sup>−2i/{live(v.as_int('dim'))}</sup>, &nbsp; wavelength λ<sub>i</sub> = "
            "2π/ω<sub>i</sub>"
        )
        ctx.record("base", v.as_float("base"), "frequency base")
        ctx.record("dim", v.as_int("dim"), "model dimension d")

    def _refresh_vector(self, ctx: Context) -> None:
        v, lad, freq, st = ctx.values, ctx["ladder"], ctx["frequencies"], ctx.style
        p, shown, dim = v.as_int("position"), v.as_int("ladder_dims"), v.as_int("dim")
        omega, wavelength, vec = freq["omega"], freq["wavelength"], lad["vector"]
        sin_c, cos_c = st.color("sin")[:7], st.color("cos")[:7]
        # numbers never break inside (a narrow column widens the label or scrolls instead)
        cell = "<td align='right' style='white-space:nowrap{}'>{}</td>"
        rows = "".join(
            f"<tr><td>{i}</td>"
            + cell.format("", live(sig(omega[i])))
            + cell.format("", live(sig(wavelength[i])))
            + cell.format("", live(num(p * omega[i], 3)))
            + cell.format(f"; color:{sin_c}", live(signed(float(vec[2 * i]))))
            + (
                cell.format(f"; color:{cos_c}", live(signed(float(vec[2 * i + 1]))))
                if 2 * i + 1 < shown
                else "<td></td>"
            )
            + "</tr>"
            for i in range((shown + 1) // 2)
        )
        self.vector_label.set_html(
            f"<b>Encoding at p = {live(p)}</b> (first {live(shown)} of d = {live(dim)})"
            "<table cellspacing='0' cellpadding='3'>"
            "<tr><th>i</th><th>ω<sub>i</sub></th><th>λ<sub>i</sub></th><th>p·ω<sub>i</sub></th>"
            "<th>sin</th><th>cos</th></tr>"
            f"{rows}</table>"
        )
        ctx.record("omega", np.asarray(omega[: (shown + 1) // 2]), "ω_i", "rad/position")


def _plus(phase: float) -> str:
    return f"− {num(-phase, 3)}" if phase < 0 else f"+ {num(phase, 3)}"


_SUBS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _sub(i: int) -> str:
    return str(i).translate(_SUBS)


PANEL = SinePanel
