"""The RoPE tab's read-outs: the circle's formula, the invariance, the pair, the layouts."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtWidgets import QWidget

from posenc_gui.panels.base import Panel
from posenc_gui.panels.rope.text import (
    SCORE_DIGITS,
    UNDEFINED_MARK,
    deg,
    diff,
    f,
    fixed,
    perm_text,
    signed_int,
    undefined,
)
from posenc_gui.state.rope import LAYOUTS, TAU, ZERO_K_PAIR, ZERO_Q_PAIR
from posenc_gui.widgets.fmt import sig
from posenc_gui.widgets.text import LiveText, live, span, table_html
from posenc_gui.widgets.views import Context

TYPED_PARAMS = ("q0", "q1", "k0", "k1")


class ReadoutViews(Panel):
    """The read-out views (part of :class:`~.panel.RopePanel`)."""

    circle_formula: LiveText
    invariance_label: LiveText
    pair_label: LiveText
    layout_label: LiveText
    vec_box: QWidget

    def _refresh_circle_formula(self, ctx: Context) -> None:
        vec, sc, rot, st = ctx["query_key"], ctx["scores"], ctx["rotation"], ctx.style
        freq = ctx["frequency"]
        i = ctx.values.as_int("pair")
        a, b = vec["pair_indices"]
        q_len, k_len = f(vec["q_pair_norm"]), f(vec["k_pair_norm"])
        turn_m, turn_n = f(rot["angle_m"]) % TAU, f(rot["angle_n"]) % TAU
        between = f(sc["angle_between_rotated"])
        if math.isfinite(between):
            between_text, cos_text = deg(between), fixed(math.cos(between), 5)
        else:  # a zero pair has no direction: no angle, no cosine
            reason = ZERO_Q_PAIR if f(vec["q_pair_norm"]) == 0 else ZERO_K_PAIR
            between_text, cos_text = undefined(reason), UNDEFINED_MARK
        # values of a steady width (see fixed): drawn over the laid-out text from step to step
        am, an = fixed(f(rot["angle_m"]), 7, False), fixed(f(rot["angle_n"]), 7, False)
        ad = fixed(f(rot["angle_difference"]), 7)
        self.circle_formula.set_html(
            f"pair i = {live(i)} = (x[{live(a)}], x[{live(b)}]), θ<sub>i</sub> = "
            f"{live(sig(f(freq['theta']), 6))} rad per "
            f"position, λ<sub>i</sub> = {live(sig(f(freq['wavelength']), 6))} positions<br>"
            + span(st, "query", f"m·θ<sub>i</sub> = {live(am)} rad "
                   f"≡ {live(deg(turn_m, sign=False))}")
            + ", &nbsp; "
            + span(st, "key", f"n·θ<sub>i</sub> = {live(an)} rad "
                   f"≡ {live(deg(turn_n, sign=False))}")
            # (a no-break space ends a line after a value: an upright neighbour, so the value
            # can be drawn over; at the end of a line it shows nothing)
            + f"&nbsp;<br>(m − n)·θ<sub>i</sub> = {live(ad)} rad ≡ "
            f"{live(deg(f(rot['angle_difference_wrapped'])))}; "
            + span(st, "accent", "∠ between the rotated pairs = ∠(q, k) + (m − n)θ"
                   f"<sub>i</sub> = {live(between_text)}")
            + "&nbsp;<br>pair share |q<sub>i</sub>||k<sub>i</sub>| cos ∠ = "
            f"{live(fixed(q_len, 4, False))} · {live(fixed(k_len, 4, False))} · "
            f"{live(cos_text)} = "
            f"<b>{live(fixed(f(sc['pair_score']), 5))}</b>"
        )  # fmt: skip
        ctx.record("theta", f(freq["theta"]), "θ_i", "rad/position")
        ctx.record("pair_score", f(sc["pair_score"]), "pair i's share of the score")

    def _refresh_invariance(self, ctx: Context) -> None:
        v, pos, sc = ctx.values, ctx["positions"], ctx["scores"]
        m, n = v.as_int("m"), v.as_int("n")
        om, on = pos["origin_m"], pos["origin_n"]
        d = SCORE_DIGITS
        self.invariance_label.set_html(
            "<b>Score depends only on m − n</b>"
            + table_html(
                [
                    ("relative distance m − n", live(signed_int(pos["relative_distance"]))),
                    (f"score ⟨R<sub>m</sub>q, R<sub>n</sub>k⟩ at ({live(m)}, {live(n)})",
                     live(fixed(f(sc["score"]), d + 1))),
                    (
                        f"same distance at ({live(om)}, {live(on)})",
                        live(fixed(f(sc["score_at_origin"]), d + 1)),
                    ),
                    ("difference (rounding only)", live(diff(f(sc["score_difference"])))),
                    (f"share of pair {live(v.as_int('pair'))}",
                     live(fixed(f(sc["pair_score"]), 5))),
                    (f"sum of all {live(v.as_int('dim') // 2)} pair shares",
                     live(fixed(f(sc["pair_scores_sum"]), d + 1))),
                ]
            )
            + "<span>Move m and n together (lock) and the score does not change.</span>"
        )  # fmt: skip
        ctx.record("score", f(sc["score"]), "score ⟨R_m q, R_n k⟩")
        ctx.record("score_at_origin", f(sc["score_at_origin"]), "score at the origin")
        ctx.record("pair_scores", np.asarray(sc["pair_scores"]), "per-pair shares of the score")

    def _refresh_pair_readout(self, ctx: Context) -> None:
        rot, vec = ctx["frequency"], ctx["query_key"]
        self.pair_label.set_html(
            table_html(
                [
                    (
                        "θ<sub>i</sub> = base<sup>−2i/d</sup>, "
                        f"i = {live(ctx.values.as_int('pair'))}",
                        f"{live(sig(f(rot['theta']), 6))} rad",
                    ),
                    ("wavelength λ = 2π/θ", f"{live(sig(f(rot['wavelength']), 6))} positions"),
                    (
                        "|q|, |k|",
                        f"{live(fixed(f(vec['q_norm']), 4, False))}, "
                        f"{live(fixed(f(vec['k_norm']), 4, False))}",
                    ),
                ]
            )
        )
        ctx.record("theta", f(rot["theta"]), "θ_i", "rad/position")
        ctx.record("wavelength", f(rot["wavelength"]), "λ_i = 2π/θ_i", "positions")
        ctx.record("norms", [f(vec["q_norm"]), f(vec["k_norm"])], "|q|, |k|")

    def _refresh_typed_controls(self, ctx: Context) -> None:
        typed = ctx.values.as_str("vectors") == "typed"
        for name in TYPED_PARAMS:
            for suffix in ("slider", "spin", "label"):
                w = self.vec_box.findChild(QWidget, f"{name}_{suffix}")
                if w is not None and w.isEnabled() != typed:
                    w.setEnabled(typed)
        ctx.record("typed_enabled", float(typed), "typed pair controls enabled (1) or not (0)")

    def _refresh_layouts(self, ctx: Context) -> None:
        v, r, st = ctx.values, ctx["layouts"], ctx.style
        current = v.as_str("layout")
        perm = perm_text(v.as_int("dim"))

        def row(name: str, value: str, difference: str, active: bool) -> str:
            weight = "bold" if active else "normal"
            return (
                f"<tr style='font-weight:{weight}'><td style='padding-right:14px'>{name}</td>"
                f"<td align='right' style='padding-right:14px'>{value}</td>"
                f"<td align='right'>{difference}</td></tr>"
            )

        d = SCORE_DIGITS
        rows = (
            row(
                "interleaved (x[2i], x[2i+1])", live(fixed(f(r["score_interleaved"]), d + 1)),
                "reference", current == LAYOUTS[0],
            )
            + row(
                "half (x[i], x[i+d/2])", live(fixed(f(r["score_half"]), d + 1)),
                f"differs by {live(fixed(-f(r['layout_difference']), 5))}",
                current == LAYOUTS[1],
            )
            + row(
                f"half after permuting q, k by [{live(perm)}]",
                live(fixed(f(r["score_half_permuted"]), d + 1)),
                f"differs by {live(diff(-f(r['permuted_difference'])))}", False,
            )
        )  # fmt: skip
        self.layout_label.set_html(
            "<b>Same q, k, m, n through the two pair layouts</b> — "
            + span(st, "bad", "<b>the most common RoPE bug in real code</b>")
            + ": weights trained with one layout run by code that uses the other (Hugging Face's "
            "LLaMA conversion permutes the q/k projection rows for exactly this reason)."
            "<table cellspacing='0' cellpadding='2'>"
            "<tr><th align='left'>layout</th><th align='right'>score</th><th></th></tr>"
            f"{rows}</table>"
        )
        ctx.record(
            "scores",
            [f(r["score_interleaved"]), f(r["score_half"]), f(r["score_half_permuted"])],
            "score: interleaved, half, half after the layout permutation",
        )
