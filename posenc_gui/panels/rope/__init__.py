"""RoPE playground: a query at position m and a key at position n, rotated pair by pair.

Top left: the selected pair of q and k before (dashed) and after (solid) rotation by ``m·θ_i``
and ``n·θ_i`` on a circle (:mod:`.circle`). Top right: the score ``<R_m q, R_n k>`` as a
function of the relative distance ``r = m − n`` only, at *every* integer distance of the visible
range, drawn as a per-pixel-column min/max envelope when there are more distances than pixels
(so no peak, such as r = 0, is lost), with a draggable marker at the current distance. Bottom
right: the long-term decay, the per-column maximum of ``|score|`` against the RoFormer bound of
eq. (37), on a log axis (both :mod:`.curves`). Bottom left: the score matrix over a window of
(m, n), built from one row (Toeplitz: constant along diagonals; :mod:`.matrix`). The side column
shows the invariance (same distance at the origin, computed independently) and the
interleaved-vs-half layout check (:mod:`.readouts`).

Views and what they depend on are declared in :mod:`.panel`: the curves follow q, k, base,
layout, the distance range and the visible x range (``"x_range"``, zoom and resize) — never m or
n, which only move the markers; the eq. (37) bound over a long range is computed on a worker
thread (``"bound_ready"``) and appears when done. The circle and the read-outs follow the
read-out groups of the model.
"""

from __future__ import annotations

from posenc_gui.panels.rope.panel import PANEL, RopePanel

__all__ = ["PANEL", "RopePanel"]
