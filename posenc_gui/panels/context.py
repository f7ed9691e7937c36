"""Long context: what a RoPE scaling scheme does to every pair, and to the score over distance.

Side column: the model (a bundled configuration or custom) and the scheme with every one of its
parameters; the read-out block (model, scheme, factor, attention factor, band counts).
Grid: top left every pair's wavelength ``λ_i = 2π/θ_i`` before (grey) and after scaling,
the scaled pairs coloured by band (kept / smoothed / divided), the original length ``L₀`` and
the context length ``L`` as horizontal lines and the band boundaries as vertical ones (log
axis); top right the per-pair factor ``θ_i/θ'_i`` (log axis) with the factor ``s``; second row
left the share of the circle each pair's angle ``m·θ`` sweeps in training (``m < L₀``, grey)
and up to ``L`` after scaling, the pairs that reach angles they never took in training marked;
second row right the chosen pair's angle ``m·θ'_i mod 2π`` over positions ``0 … L`` and
``m·θ_i mod 2π`` over ``0 … L₀`` (grey), the angles it never took in training shaded, ``L₀``
dashed; third row the softmax weight per token over distance ``r = 1 … L`` without and with
the attention factor (log axes, ``L₀`` dashed) and the score ``q·R_r k / d`` for
``q = k = (1, …, 1)`` against distance (log axis) before and after scaling (after: times the
attention factor squared), with ``L₀`` and ``L``; the read-out block under them.

Views and their inputs: ``wavelengths`` (scaling, original_length, seq_len); ``scale_factor``
(scaling, factor); ``coverage`` (coverage); ``angle`` (angle); ``temperature`` (temperature,
original_length); ``scores`` (scores, original_length, seq_len); ``readout`` (preset, scaling
and the scheme's parameters). The curves are set only when the lists they show changed (a
length step with a scheme that does not read the length leaves the pairs' plots alone).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg

from posenc_gui.panels.base import Cell, Panel
from posenc_gui.state.context import SCHEME_LABELS, TAB_SCHEMES, UNSEEN_EPS, ContextModel
from posenc_gui.widgets import styled
from posenc_gui.widgets.fmt import integer, num, sig
from posenc_gui.widgets.render.bands import MinMaxBands
from posenc_gui.widgets.render.view_range import ShownRange
from posenc_gui.widgets.style import Style, StyleBook
from posenc_gui.widgets.text import LiveText, live, span
from posenc_gui.widgets.views import Context, Same, Shown

#: Colour roles of the bands (kept, smoothed, divided), the curves before scaling, the lengths.
BAND_ROLES = ("accent", "third", "second")
BAND_WORDS = ("kept", "smoothed", "divided")
BEFORE_ROLE = "guide"
AFTER_ROLE = "query"
LENGTH_ROLE = "ink"
#: The parameters the read-out block names.
READOUT_INPUTS = ("scheme", "factor", "base", "dim", "original_length", "seq_len")
#: The score axis ends at multiples of this.
SCORE_STEP = 0.025
#: Share of the data's extent left on either side of an axis.
MARGIN = 0.02
#: Colour role of the pairs that reach angles they never took in training.
UNSEEN_ROLE = "second"
#: Space above and below the coverage plot's [0, 1].
COVER_PAD = 0.04
#: Opacity of the band of angles a pair never took in training (the curves show through).
UNTRAINED_ALPHA = 0.25
#: The angle axis' ticks (radians, named in units of π).
ANGLE_TICKS = (
    (0.0, "0"), (math.pi / 2, "π/2"), (math.pi, "π"), (1.5 * math.pi, "3π/2"), (2 * math.pi, "2π"),
)  # fmt: skip
#: Softmax weights below this are drawn at it (the log axis has no zero).
TINY_WEIGHT = 1e-300


class ContextPanel(Panel):
    """The ``context`` tab."""

    model = ContextModel

    def build(self) -> None:
        b = self.book
        #: What the plots' items show now (set again only when it changes).
        self.shown = Shown()

        model_box = self.controls("Model", "preset", "scheme", "base", "dim")
        length_box = self.controls("Lengths", "factor", "original_length", "seq_len")
        llama_box = self.controls("Llama 3", "low_freq_factor", "high_freq_factor")
        yarn_box = self.controls("YaRN", "beta_fast", "beta_slow", "mscale", "mscale_all_dim")
        longrope_box = self.controls("LongRoPE", "factor_lists")
        self.readout_label = LiveText("context_readout", self, b)

        # ---- wavelengths ----------------------------------------------------------------------
        self.wl_plot = styled.plot(
            b, self, "context_wavelength_plot", "Wavelengths before and after",
            "pair i", "λ<sub>i</sub> = 2π/θ<sub>i</sub> (tokens)", grid=False,
        )  # fmt: skip
        self.wl_plot.setLogMode(x=False, y=True)
        self.wl_plot.getAxis("left").setStyle(autoReduceTextSpace=False)
        self.wl_range = ShownRange(self.wl_plot)
        self.wl_before = styled.pixel_curve(b, self.wl_plot, BEFORE_ROLE, "line")
        self.wl_after = styled.pixel_curve(b, self.wl_plot, AFTER_ROLE, "line")
        self.wl_dots = [styled.markers(b, self.wl_plot, r, "dot") for r in BAND_ROLES]
        self.wl_original = styled.vline(b, self.wl_plot, LENGTH_ROLE, angle=0, line="dash")
        self.wl_target = styled.vline(b, self.wl_plot, LENGTH_ROLE, angle=0, line="dot")
        self.wl_bounds = [styled.vline(b, self.wl_plot, "guide", line="solid") for _ in range(2)]

        # ---- per-pair scale factor ------------------------------------------------------------
        self.sc_plot = styled.plot(
            b, self, "context_scale_plot", "Factor of each pair θ<sub>i</sub>/θ'<sub>i</sub>",
            "pair i", "θ<sub>i</sub>/θ'<sub>i</sub>", grid=False,
        )  # fmt: skip
        self.sc_plot.setLogMode(x=False, y=True)
        self.sc_plot.getAxis("left").setStyle(autoReduceTextSpace=False)
        self.sc_range = ShownRange(self.sc_plot)
        self.sc_curve = styled.pixel_curve(b, self.sc_plot, AFTER_ROLE, "line")
        self.sc_dots = [styled.markers(b, self.sc_plot, r, "dot") for r in BAND_ROLES]
        self.sc_factor = styled.vline(b, self.sc_plot, LENGTH_ROLE, angle=0, line="dash")

        # ---- score against distance ---------------------------------------------------------
        self.score_plot = styled.plot(
            b, self, "context_score_plot", "Score against distance",
            "distance r (tokens)", "q·R<sub>r</sub>k / d", grid=False,
        )  # fmt: skip
        self.score_plot.setLogMode(x=True, y=False)
        self.score_range = ShownRange(self.score_plot)
        self.score_before = styled.pixel_curve(b, self.score_plot, BEFORE_ROLE, "line")
        self.score_after = styled.pixel_curve(b, self.score_plot, AFTER_ROLE, "line")
        self.score_original = styled.vline(b, self.score_plot, LENGTH_ROLE, line="dash")
        self.score_target = styled.vline(b, self.score_plot, LENGTH_ROLE, line="dot")

        # ---- angle coverage ---------------------------------------------------------------------
        self.cov_plot = styled.plot(
            b, self, "context_coverage_plot", "Angles m·θ<sub>i</sub> reached: training and L",
            "pair i", "share of the circle swept", grid=False,
        )  # fmt: skip
        self.cov_range = ShownRange(self.cov_plot)
        self.cov_train = styled.pixel_curve(b, self.cov_plot, BEFORE_ROLE, "line")
        self.cov_target = styled.pixel_curve(b, self.cov_plot, AFTER_ROLE, "line")
        self.cov_unseen = styled.markers(b, self.cov_plot, UNSEEN_ROLE, "dot")

        # ---- the chosen pair's angle over positions -------------------------------------------
        self.ang_plot = styled.plot(
            b, self, "context_angle_plot", "Angle m·θ<sub>i</sub> mod 2π of pair i",
            "position m (tokens)", "angle (rad)", grid=False,
        )  # fmt: skip
        self.ang_plot.getAxis("left").setTicks([list(ANGLE_TICKS), []])
        self.ang_range = ShownRange(self.ang_plot)
        self.ang_untrained = _filled_band(b, self.ang_plot, UNSEEN_ROLE)
        self.ang_train = styled.pixel_curve(b, self.ang_plot, BEFORE_ROLE, "line")
        self.ang_target = styled.pixel_curve(b, self.ang_plot, AFTER_ROLE, "line")
        self.ang_train_dots = styled.markers(b, self.ang_plot, BEFORE_ROLE, "dot")
        self.ang_target_dots = styled.markers(b, self.ang_plot, AFTER_ROLE, "dot")
        self.ang_original = styled.vline(b, self.ang_plot, LENGTH_ROLE, line="dash")

        # ---- attention temperature -----------------------------------------------------------
        self.temp_plot = styled.plot(
            b, self, "context_temperature_plot", "Attention over distance: the factor's sharpening",
            "distance r (tokens)", "softmax weight per token", grid=False,
        )  # fmt: skip
        self.temp_plot.setLogMode(x=True, y=True)
        self.temp_plot.getAxis("left").setStyle(autoReduceTextSpace=False)
        self.temp_range = ShownRange(self.temp_plot)
        self.temp_without = styled.pixel_curve(b, self.temp_plot, BEFORE_ROLE, "line")
        self.temp_with = styled.pixel_curve(b, self.temp_plot, AFTER_ROLE, "line")
        self.temp_original = styled.vline(b, self.temp_plot, LENGTH_ROLE, line="dash")

        plots = (self.wl_plot, self.sc_plot, self.cov_plot, self.ang_plot, self.temp_plot,
                 self.score_plot)  # fmt: skip
        for plot in plots:
            styled.cache_texts(plot)
        # room for the widest tick label and a gap before the axis title (pyqtgraph sizes the
        # title at 0.8 of its height: at presentation scale it touched "0.8" and "10⁻⁴")
        for plot, widest in zip(
            plots,
            ("10⁻¹⁰", "2.5·10¹", "−0.00", "3π/2", "10⁻¹⁰⁰", "−0.000"),
            strict=True,
        ):
            styled.steady_axis(b, plot.getAxis("left"), widest)
        #: Lines whose pixels are kept only while a step leaves them alone.
        self.kept_lines = (
            self.wl_before, self.wl_after, self.sc_curve, self.score_before, self.score_after,
            self.cov_train, self.cov_target, self.ang_train, self.ang_target, self.temp_without,
            self.temp_with,
        )  # fmt: skip

        # ---- views ----------------------------------------------------------------------------
        self.view("wavelengths", self.wl_plot, ("scaling", "original_length", "seq_len"),
                  self._refresh_wavelengths, key=_wavelength_key)  # fmt: skip
        self.view("scale_factor", self.sc_plot, ("scaling", "factor"), self._refresh_scale,
                  key=_scale_key)  # fmt: skip
        self.view("coverage", self.cov_plot, ("coverage",), self._refresh_coverage,
                  key=_coverage_key)  # fmt: skip
        self.view("angle", self.ang_plot, ("angle",), self._refresh_angle, key=_angle_key)
        self.view("temperature", self.temp_plot, ("temperature", "original_length"),
                  self._refresh_temperature, key=_temperature_key)  # fmt: skip
        self.view("scores", self.score_plot, ("scores", "original_length", "seq_len"),
                  self._refresh_scores, key=_scores_key)  # fmt: skip
        self.view("readout", self.readout_label,
                  ("model", "scaling", "coverage", "temperature", *READOUT_INPUTS),
                  self._refresh_readout, key=_readout_key)  # fmt: skip

        angle_box = self.controls("Angle plot", "pair")
        self.place(
            [model_box, length_box, angle_box, llama_box, yarn_box, longrope_box],
            [
                Cell(self.wl_plot, 0, 0), Cell(self.sc_plot, 0, 1),
                Cell(self.cov_plot, 1, 0), Cell(self.ang_plot, 1, 1),
                Cell(self.temp_plot, 2, 0), Cell(self.score_plot, 2, 1),
                Cell(self.readout_label, 3, 0, 1, 2),
            ],
            row_stretch={0: 1, 1: 1, 2: 1}, col_stretch={0: 1, 1: 1},
        )  # fmt: skip

    # -- wavelengths ----------------------------------------------------------------------------
    def _refresh_wavelengths(self, ctx: Context) -> None:
        sc = ctx["scaling"]
        before = np.log10(np.asarray(sc["wavelength_original"], dtype=np.float64))
        after = np.log10(np.asarray(sc["wavelength"], dtype=np.float64))
        band = np.asarray(sc["band"], dtype=np.int64)
        i = np.arange(band.size, dtype=np.float64)
        if self.shown.changed("wl_before", Same(sc["wavelength_original"])):
            self.wl_before.setData(i, before)
        if self.shown.changed("wavelengths", (Same(sc["wavelength"]), Same(sc["band"]))):
            self.wl_after.setData(i, after)
            _band_dots(self.wl_dots, i, after, band)
            for line, at in zip(self.wl_bounds, _band_edges(band), strict=True):
                _place(line, at)
        v = ctx.values
        l0, length = v.as_int("original_length"), v.as_int("seq_len")
        _place(self.wl_original, math.log10(l0))
        _place(self.wl_target, math.log10(length))
        low = math.floor(float(before.min()))
        top = math.ceil(max(float(after.max()), math.log10(max(l0, length))) + 1e-9)
        self.wl_range.show(_pairs_range(band.size), (float(low), float(top)))
        st = ctx.style
        styled.retitle(self.book, self.wl_plot, "Wavelengths: " + span(st, BEFORE_ROLE, "before")
                       + ", after (" + _band_words(st) + "); L₀ dashed, L dotted")  # fmt: skip
        ctx.record("pair", i, "pair i")
        ctx.record("wavelength_original", 10**before, "λ_i before scaling", "tokens")
        ctx.record("wavelength", 10**after, "λ'_i after scaling", "tokens")
        ctx.record("band", band, "band: 0 kept, 1 smoothed, 2 divided")
        ctx.record("lengths", np.array([l0, length]), "original length L₀, context length L")

    # -- per-pair factor ------------------------------------------------------------------------
    def _refresh_scale(self, ctx: Context) -> None:
        sc = ctx["scaling"]
        ratio = np.asarray(sc["scale"], dtype=np.float64)
        band = np.asarray(sc["band"], dtype=np.int64)
        i = np.arange(ratio.size, dtype=np.float64)
        log_ratio = np.log10(ratio)
        self.sc_curve.setData(i, log_ratio)
        _band_dots(self.sc_dots, i, log_ratio, band)
        s = ctx.values.as_float("factor")
        _place(self.sc_factor, math.log10(s))
        # the ends at the minor ticks around the data: a factor step moves the axis only when
        # the factor passes one (1, 2 … 9, 10, 20 …)
        top = _minor_tick_above(max(math.log10(s), float(log_ratio.max())))
        low = _minor_tick_below(min(0.0, float(log_ratio.min())))
        pad = 0.04 * (top - low) if top > low else 0.05
        self.sc_range.show(_pairs_range(ratio.size), (low - pad, top + pad))
        styled.retitle(self.book, self.sc_plot, "Factor θ<sub>i</sub>/θ'<sub>i</sub> of each pair ("
                       + _band_words(ctx.style) + "); s dashed")  # fmt: skip
        ctx.record("pair", i, "pair i")
        ctx.record("scale", ratio, "θ_i/θ'_i (1: kept, s: divided)")
        ctx.record("factor", s, "factor s")

    # -- scores ----------------------------------------------------------------------------------
    def _refresh_scores(self, ctx: Context) -> None:
        sr = ctx["scores"]
        r = np.asarray(sr["score_distance"], dtype=np.float64)
        before = np.asarray(sr["score_before"], dtype=np.float64)
        after = np.asarray(sr["score_after"], dtype=np.float64)
        log_r = np.log10(r)
        if self.shown.changed("score_before", Same(sr["score_before"])):
            self.score_before.setData(log_r, before)
        self.score_after.setData(log_r, after)
        v = ctx.values
        l0, length = v.as_int("original_length"), v.as_int("seq_len")
        _place(self.score_original, math.log10(l0) if l0 <= length else None)
        _place(self.score_target, math.log10(length))
        end = float(log_r[-1])
        # the ends rounded out to SCORE_STEP: a step moves the axis only when the data pass one
        top = math.ceil(max(float(after.max()), float(before.max())) / SCORE_STEP) * SCORE_STEP
        low = math.floor(min(float(after.min()), float(before.min())) / SCORE_STEP) * SCORE_STEP
        self.score_range.show((-MARGIN * end, (1 + MARGIN) * end), (low, top))
        st = ctx.style
        styled.retitle(self.book, self.score_plot, "Score against distance: "
                       + span(st, BEFORE_ROLE, "before") + ", "
                       + span(st, AFTER_ROLE, "after scaling"))  # fmt: skip
        ctx.record("distance", r, "distance r (log-spaced samples)", "tokens")
        ctx.record("score_before", before, "q·R_r k/d before scaling, q = k = 1")
        ctx.record("score_after", after, "q·R'_r k/d after scaling, times att²")

    # -- angle coverage ---------------------------------------------------------------------------
    def _refresh_coverage(self, ctx: Context) -> None:
        cv = ctx["coverage"]
        train = np.asarray(cv["coverage_training"], dtype=np.float64)
        target = np.asarray(cv["coverage_target"], dtype=np.float64)
        unseen = np.asarray(cv["coverage_unseen"], dtype=np.float64)
        i = np.arange(train.size, dtype=np.float64)
        if self.shown.changed("cov_train", Same(cv["coverage_training"])):
            self.cov_train.setData(i, train)
        self.cov_target.setData(i, target)
        sel = unseen > UNSEEN_EPS
        self.cov_unseen.setData(i[sel], target[sel])
        self.cov_range.show(_pairs_range(train.size), (-COVER_PAD, 1.0 + COVER_PAD))
        st = ctx.style
        styled.retitle(self.book, self.cov_plot, "Angles m·θ<sub>i</sub> reached: "
                       + span(st, BEFORE_ROLE, "in training") + ", "
                       + span(st, AFTER_ROLE, "up to L") + ", "
                       + span(st, UNSEEN_ROLE, "● unseen"))  # fmt: skip
        ctx.record("pair", i, "pair i")
        ctx.record("coverage_training", train, "share of the circle swept for m ≤ L₀ (θ_i)")
        ctx.record("coverage_target", target, "share of the circle swept for m ≤ L (θ'_i)")
        ctx.record("coverage_unseen", unseen, "share reached only beyond training")

    # -- the chosen pair's angle ---------------------------------------------------------------
    def _refresh_angle(self, ctx: Context) -> None:
        an = ctx["angle"]
        m = np.asarray(an["angle_position"], dtype=np.float64)
        phi = np.asarray(an["angle"], dtype=np.float64)
        m0 = np.asarray(an["angle_position_training"], dtype=np.float64)
        phi0 = np.asarray(an["angle_training"], dtype=np.float64)
        # a pair that turns π or more between two samples aliases: its samples are drawn as
        # dots, not joined; otherwise the curve is joined except across each wrap at 2π
        aliased = float(an["angle_step_turn"]) >= math.pi
        for tag, line, dots, x, y, same in (
            ("ang_train", self.ang_train, self.ang_train_dots, m0, phi0, an["angle_training"]),
            ("ang_target", self.ang_target, self.ang_target_dots, m, phi, an["angle"]),
        ):
            if not self.shown.changed(tag, (Same(same), aliased)):
                continue
            if aliased:
                line.setData(x[:0], y[:0])
                dots.setData(x, y)
            else:
                line.setData(x, y, connect=np.append(np.diff(y) >= 0, False))
                dots.setData(x[:0], y[:0])
        end = float(max(m[-1], m0[-1]))
        untrained = an["angle_untrained"]
        if self.shown.changed("ang_band", (tuple(untrained), end)):
            if untrained:
                lo, hi = float(untrained[0]), float(untrained[1])
                self.ang_untrained.set_bands(np.array([0.0, end]), np.array([[lo, lo]]),
                                             np.array([[hi, hi]]), 0.0)  # fmt: skip
            else:
                self.ang_untrained.clear()
        _place(self.ang_original, float(m0[-1]))
        turn = 2 * math.pi
        pad = COVER_PAD * turn
        self.ang_range.show((-MARGIN * end, (1 + MARGIN) * end), (-pad, turn + pad))
        st, pair = ctx.style, int(an["angle_pair"])
        sampled = f", {integer(phi.size)} samples (aliased)" if aliased else ""
        styled.retitle(self.book, self.ang_plot, f"Angle of pair {pair} mod 2π: "
                       + span(st, BEFORE_ROLE, "training θ") + ", "
                       + span(st, AFTER_ROLE, "θ' up to L") + ", "
                       + span(st, UNSEEN_ROLE, "never reached in training") + sampled)  # fmt: skip
        ctx.record("position", m, "position m (samples)", "tokens")
        ctx.record("angle", phi, "m·θ'_i mod 2π", "rad")
        ctx.record("position_training", m0, "position m ≤ L₀ (samples)", "tokens")
        ctx.record("angle_training", phi0, "m·θ_i mod 2π", "rad")
        ctx.record(
            "untrained",
            np.asarray(untrained, dtype=np.float64),
            "angles never reached in training [L₀·θ_i, 2π] (empty: a full turn)",
            "rad",
        )
        ctx.record("unreached", float(an["angle_unreached"]),
                   "share of the circle reached up to L and not in training")  # fmt: skip

    # -- attention temperature --------------------------------------------------------------------
    def _refresh_temperature(self, ctx: Context) -> None:
        tp = ctx["temperature"]
        r = np.asarray(tp["temperature_distance"], dtype=np.float64)
        without = np.asarray(tp["per_token_without"], dtype=np.float64)
        with_ = np.asarray(tp["per_token_with"], dtype=np.float64)
        log_r = np.log10(r)
        floor = TINY_WEIGHT
        lw, lf = np.log10(np.maximum(without, floor)), np.log10(np.maximum(with_, floor))
        self.temp_without.setData(log_r, lw)
        self.temp_with.setData(log_r, lf)
        l0 = ctx.values.as_int("original_length")
        end = float(log_r[-1])
        _place(self.temp_original, math.log10(l0) if math.log10(l0) <= end else None)
        top = math.ceil(max(float(lw.max()), float(lf.max())) + 1e-9)
        low = math.floor(min(float(lw.min()), float(lf.min())) - 1e-9)
        self.temp_range.show((-MARGIN * end, (1 + MARGIN) * end), (float(low), float(top)))
        st = ctx.style
        styled.retitle(self.book, self.temp_plot, "Softmax over distance: "
                       + span(st, BEFORE_ROLE, "without") + ", "
                       + span(st, AFTER_ROLE, "with the attention factor"))  # fmt: skip
        ctx.record("distance", r, "distance r (log-spaced samples)", "tokens")
        ctx.record("per_token_without", without, "softmax weight per token, without the factor")
        ctx.record("per_token_with", with_, "softmax weight per token, with the factor²")
        ctx.record("effective_tokens",
                   np.array([tp["effective_tokens_without"], tp["effective_tokens_with"]]),
                   "exp(entropy): without, with the factor")  # fmt: skip

    # -- read-outs -------------------------------------------------------------------------------
    def _refresh_readout(self, ctx: Context) -> None:
        sc, st, v, tp = ctx["scaling"], ctx.style, ctx.values, ctx["temperature"]
        counts = sc["bands"]
        title = ctx["model"]["preset_title"]
        scheme = v.as_str("scheme")
        label = SCHEME_LABELS[TAB_SCHEMES.index(scheme)]
        bands = ", ".join(
            span(st, role, f"{live(integer(counts[word]))} {word}")
            for role, word in zip(BAND_ROLES, BAND_WORDS, strict=True)
        )
        att = float(sc["attention_factor"])
        self.readout_label.set_html(
            f"<b>{title}</b>: <b>{label}</b>, factor s = {live(num(v.as_float('factor'), 2))}, "
            f"base {live(sig(v.as_float('base'), 6))}, d = {live(integer(v.as_int('dim')))} "
            f"rotary dims ({live(integer(len(sc['band'])))} pairs); "
            f"L₀ = {live(integer(v.as_int('original_length')))} (dashed) → "
            f"L = {live(integer(v.as_int('seq_len')))} (dotted)"
            f"; attention factor {live(num(att, 4))} (scores × {live(num(att * att, 4))})<br>"
            f"Pairs: {bands}; "
            f"{span(st, BEFORE_ROLE, 'before scaling')}, "
            f"{span(st, AFTER_ROLE, 'after')}"
            f"{_bounds_text(sc['bounds'])}<br>"
            f"{span(st, UNSEEN_ROLE, 'Angles never reached in training')}: "
            f"{live(integer(ctx['coverage']['pairs_unseen']))} pairs; softmax over 1 … L spread "
            f"over e<sup>H</sup> = {live(sig(tp['effective_tokens_without'], 3))} tokens, "
            f"{live(sig(tp['effective_tokens_with'], 3))} with the factor "
            f"({live(num(100 * tp['near_share_with'], 1))} % within L₀)"
        )
        ctx.record("band_counts", np.array([counts[w] for w in BAND_WORDS]),
                   "pairs kept, smoothed, divided")  # fmt: skip
        ctx.record("attention_factor", att, "attention factor")


# -- helpers --------------------------------------------------------------------------------------
def _wavelength_key(ctx: Context) -> tuple[object, ...]:
    """The wavelength plot shows the lists of the scaling (by identity) and the two lengths."""
    sc, v = ctx["scaling"], ctx.values
    return Same(sc["wavelength"]), Same(sc["band"]), v["original_length"], v["seq_len"]


def _scores_key(ctx: Context) -> tuple[object, ...]:
    """The score plot shows the two score lists (by identity) and the two lengths."""
    sr, v = ctx["scores"], ctx.values
    return Same(sr["score_before"]), Same(sr["score_after"]), v["original_length"], v["seq_len"]


def _readout_key(ctx: Context) -> tuple[object, ...]:
    """The read-out block shows the model's title, the scaling (by identity) and the values
    it names."""
    return (ctx["model"]["preset_title"], Same(ctx["scaling"]["inv_freq"]),
            Same(ctx["coverage"]["coverage_target"]), Same(ctx["temperature"]["per_token_with"]),
            *(ctx.values[n] for n in READOUT_INPUTS))  # fmt: skip


def _angle_key(ctx: Context) -> tuple[object, ...]:
    """The angle plot shows the chosen pair's angle lists (by identity)."""
    return (Same(ctx["angle"]["angle"]), Same(ctx["angle"]["angle_training"]))


def _filled_band(book: StyleBook, plot: pg.PlotWidget, role: str) -> MinMaxBands:
    """An empty band on ``plot`` filled with ``role`` at :data:`UNTRAINED_ALPHA`."""
    item = MinMaxBands()
    plot.addItem(item)
    book.add(lambda st: item.set_brush(st.brush(role, UNTRAINED_ALPHA)))
    return item


def _coverage_key(ctx: Context) -> tuple[object, ...]:
    """The coverage plot shows the coverage lists (by identity)."""
    return (Same(ctx["coverage"]["coverage_target"]),)


def _temperature_key(ctx: Context) -> tuple[object, ...]:
    """The temperature plot shows the two weight lists (by identity) and ``L₀``."""
    tp = ctx["temperature"]
    return Same(tp["per_token_with"]), Same(tp["per_token_without"]), ctx.values["original_length"]


def _scale_key(ctx: Context) -> tuple[object, ...]:
    """The factor plot shows the per-pair factors (by identity) and ``s``."""
    sc = ctx["scaling"]
    return Same(sc["scale"]), Same(sc["band"]), ctx.values["factor"]


def _minor_tick_above(v: float) -> float:
    """On a log axis (``v`` a logarithm), the tick ``c·10^k`` (``c = 1 … 10``) at or above."""
    e = math.floor(v)
    return e + math.log10(math.ceil(10.0 ** (v - e) - 1e-9))


def _minor_tick_below(v: float) -> float:
    """On a log axis, the tick ``c·10^k`` at or below ``10^v``."""
    e = math.floor(v)
    return e + math.log10(max(math.floor(10.0 ** (v - e) + 1e-9), 1))


def _pairs_range(n: int) -> tuple[float, float]:
    end = float(max(n - 1, 1))
    return (-MARGIN * end, (1 + MARGIN) * end)


def _band_dots(dots: Sequence[styled.Dots], i: np.ndarray, y: np.ndarray, band: np.ndarray) -> None:
    for code, item in enumerate(dots):
        sel = band == code
        item.setData(i[sel], y[sel])


def _band_edges(band: np.ndarray) -> tuple[float | None, float | None]:
    """Where the smoothed band starts and the divided band starts (half a pair before the
    first pair of each), ``None`` when it is empty or starts at pair 0."""
    out: list[float | None] = []
    for code in (1, 2):
        hits = np.flatnonzero(band >= code)
        out.append(float(hits[0]) - 0.5 if hits.size and hits[0] > 0 else None)
    return out[0], out[1]


def _band_words(st: Style) -> str:
    """ "kept, smoothed, divided", each in its band's colour (the dots' legend)."""
    return ", ".join(span(st, r, w) for r, w in zip(BAND_ROLES, BAND_WORDS, strict=True))


def _place(line: pg.InfiniteLine, at: float | None) -> None:
    """Show ``line`` at ``at`` (``None``: hide it)."""
    if line.isVisible() != (at is not None):
        line.setVisible(at is not None)
    if at is not None:
        styled.move_line(line, at)


def _bounds_text(bounds: dict[str, float]) -> str:
    names = {
        "low_dim": "YaRN ramp from pair", "high_dim": "to pair",
        "high_freq_wavelen": "kept below λ", "low_freq_wavelen": "divided above λ",
        "base": "NTK base",
    }  # fmt: skip
    parts = [f"{names[k]} {live(sig(x, 6))}" for k, x in bounds.items() if k in names]
    return "; " + ", ".join(parts) if parts else ""


PANEL = ContextPanel
