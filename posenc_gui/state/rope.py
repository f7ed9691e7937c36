"""RoPE playground tab: one query and one key vector, rotated by their positions ``m`` and ``n``.

Conventions (GUIDE §4, :mod:`posenc_gui.core.rope`)
---------------------------------------------------
* Pair ``i`` of a vector at position ``m`` is rotated counter-clockwise by ``m·θ_i`` with
  ``θ_i = base^(-2i/d)``; its wavelength is ``λ_i = 2π/θ_i`` positions.
* ``layout="interleaved"`` pairs ``(x[2i], x[2i+1])`` (RoFormer, GPT-J, Meta LLaMA);
  ``layout="half"`` pairs ``(x[i], x[i+d/2])`` (GPT-NeoX, Hugging Face ``rotate_half``).
* The score ``<R_m q, R_n k>`` depends only on the relative distance ``r = m − n``; written with
  complex pairs ``q_i``, ``k_i`` it is ``Re Σ_i h_i e^{i r θ_i}`` with ``h_i = q_i · conj(k_i)``.
* RoFormer §3.4.3, eq. (37) (Abel summation, ``h_{d/2} = 0``, ``S_j = Σ_{l<j} e^{i r θ_l}``):
  ``|score(r)| <= |Σ_i h_i e^{i r θ_i}| <= (max_i |h_{i+1} − h_i|) · Σ_{j=1}^{d/2} |S_j(r)|``.
  :func:`posenc_gui.core.rope_decay_bound` returns ``(1/(d/2)) Σ_j |S_j|`` (the paper's Figure 2),
  so the bound for the current q, k is ``bound_coefficient · (d/2) · rope_decay_bound``.

Vectors
-------
``vectors="random"``: ``q`` and ``k`` are drawn from a standard normal with ``seed``;
``"q=k"``: ``q = k =`` that random key; ``"typed"``: the random vectors, except that the two
components of the *selected pair* (in the current layout) are the typed ``q0, q1`` and ``k0, k1``
(the part drawn on the circle). Parameters are scalars, so only that pair can be typed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from posenc_gui.state.model import Limits, TabModel
from posenc_gui.state.params import (
    Value,
    bool_param,
    choice_param,
    float_param,
    int_param,
)

if TYPE_CHECKING:
    from torch import Tensor

#: Largest query / key position.
MAX_POSITION = 100_000
LAYOUTS: tuple[str, ...] = ("interleaved", "half")
VECTOR_MODES: tuple[str, ...] = ("random", "q=k", "typed")
TAU = 2.0 * math.pi

_TYPED_NOTE = (
    " Used when vectors = typed: q and k are the random vectors (seed) except the two "
    "components of the selected pair, which are typed here (the part drawn on the circle)."
)


def _num(values: Mapping[str, Value], name: str) -> float:
    v = values[name]
    assert not isinstance(v, str)
    return float(v)


def _int(values: Mapping[str, Value], name: str) -> int:
    return int(_num(values, name))


def wrap_angle(x: float) -> float:
    """``x`` reduced to ``(−π, π]``."""
    y = math.remainder(x, TAU)
    return math.pi if y == -math.pi else y


def pair_indices(dim: int, pair: int, layout: str) -> tuple[int, int]:
    """Indices of the two coordinates that form pair ``pair`` in ``layout``."""
    if layout == "interleaved":
        return 2 * pair, 2 * pair + 1
    return pair, pair + dim // 2


def complex_pairs(x: Tensor, layout: str) -> Tensor:
    """The ``d/2`` pairs of ``x`` as complex numbers ``x_a + i·x_b`` (pair order of ``layout``)."""
    import torch

    half = x.shape[0] // 2
    if layout == "interleaved":
        return torch.complex(x[0::2], x[1::2])
    return torch.complex(x[:half], x[half:])


def bound_coefficient(q: Tensor, k: Tensor, layout: str) -> float:
    """RoFormer eq. (37) coefficient ``max_i |h_{i+1} − h_i|``.

    ``h_i = q_i·conj(k_i)`` with the complex pairs of ``layout``, and ``h_{d/2} = 0``.
    """
    import torch

    h = complex_pairs(q, layout) * torch.conj(complex_pairs(k, layout))
    h_ext = torch.cat((h, torch.zeros(1, dtype=h.dtype)))
    return float(torch.abs(h_ext[1:] - h_ext[:-1]).max())


class RopeModel(TabModel):
    """RoPE on one query/key pair: the rotation of one pair, scores, decay bound, layouts."""

    id = "rope"
    title = "RoPE playground"
    summary = (
        "Rotate a query at position m and a key at position n: the attention score depends only "
        "on m − n. Decay with distance, the score matrix's constant diagonals, and the "
        "interleaved-vs-half layout bug."
    )
    params = (
        int_param(
            "m", 5, 0, MAX_POSITION, "Query position m",
            "Position m of the query token (its pairs rotate by m·θ_i). The slider is coarse; "
            "type an exact value in the box.",
        ),
        int_param(
            "n", 2, 0, MAX_POSITION, "Key position n",
            "Position n of the key token (its pairs rotate by n·θ_i). The slider is coarse; "
            "type an exact value in the box.",
        ),
        bool_param(
            "lock", False, "Lock distance m − n",
            "Move m and n together: changing one moves the other by the same amount, so m − n "
            "(and the score) stay fixed. Stops at the ends of the position range.",
        ),
        int_param(
            "dim", 64, 2, 512, "Head dim d", "Head dimension d (even: d/2 rotated pairs).",
            even=True,
        ),
        float_param(
            "base", 10000.0, 10.0, 1e7, "Base", "Frequency base: θ_i = base^(−2i/d).",
            log=True, decimals=1,
        ),
        int_param(
            "pair", 0, 0, 255, "Pair i",
            "Which 2-D pair (frequency θ_i) is drawn on the circle (0 … d/2 − 1).",
        ),
        choice_param(
            "layout", "interleaved", LAYOUTS, "Pair layout",
            "Which coordinates form pair i: interleaved (x[2i], x[2i+1]) as in RoFormer, GPT-J "
            "and Meta LLaMA; half (x[i], x[i+d/2]) as in GPT-NeoX and Hugging Face rotate_half.",
            choice_labels=("interleaved (2i, 2i+1)", "half (i, i+d/2)"),
        ),
        choice_param(
            "vectors", "random", VECTOR_MODES, "Vectors q, k",
            "random: q and k drawn from a standard normal (seed); q=k: q = k = the random key; "
            "typed: random, but the selected pair's components are typed below (q0, q1, k0, k1).",
            choice_labels=("random (seed)", "q = k (random key)", "typed pair"),
        ),
        int_param("seed", 0, 0, 999, "Seed", "Seed of the random query and key vectors."),
        float_param(
            "q0", 1.0, -5.0, 5.0, "q pair, 1st", "First component of the query's selected pair."
            + _TYPED_NOTE, decimals=3, step=0.1,
        ),
        float_param(
            "q1", 0.0, -5.0, 5.0, "q pair, 2nd", "Second component of the query's selected pair."
            + _TYPED_NOTE, decimals=3, step=0.1,
        ),
        float_param(
            "k0", 1.0, -5.0, 5.0, "k pair, 1st", "First component of the key's selected pair."
            + _TYPED_NOTE, decimals=3, step=0.1,
        ),
        float_param(
            "k1", 0.0, -5.0, 5.0, "k pair, 2nd", "Second component of the key's selected pair."
            + _TYPED_NOTE, decimals=3, step=0.1,
        ),
        int_param(
            "range_max", 256, 16, MAX_POSITION, "Distance range",
            "The score-vs-distance plots cover m − n from −range to +range.",
            log=True,
        ),
        int_param(
            "window", 64, 8, 512, "Matrix window",
            "Side of the score matrix: query and key positions in a window of this many "
            "positions around m and n.",
        ),
    )  # fmt: skip

    @classmethod
    def limits(cls, values: Mapping[str, Value]) -> Limits:
        return {"pair": (0, _int(values, "dim") // 2 - 1)}

    # -- derived quantities shared with the panel ------------------------------------------
    @classmethod
    def vectors(cls, values: Mapping[str, Value]) -> tuple[Tensor, Tensor]:
        """The query and key vectors (float64, shape ``(dim,)``) for ``values``."""
        import torch

        dim = _int(values, "dim")
        gen = torch.Generator().manual_seed(_int(values, "seed"))
        qk = torch.randn(2, dim, dtype=torch.float64, generator=gen)
        q, k = qk[0].clone(), qk[1].clone()
        mode = str(values["vectors"])
        if mode == "q=k":
            q = k.clone()
        elif mode == "typed":
            a, b = pair_indices(dim, _int(values, "pair"), str(values["layout"]))
            q[a], q[b] = _num(values, "q0"), _num(values, "q1")
            k[a], k[b] = _num(values, "k0"), _num(values, "k1")
        return q, k

    @classmethod
    def origin_positions(cls, values: Mapping[str, Value]) -> tuple[int, int]:
        """The same distance started at the origin: ``(m−n, 0)`` or ``(0, n−m)``."""
        r = _int(values, "m") - _int(values, "n")
        return (r, 0) if r >= 0 else (0, -r)

    @classmethod
    def window_starts(cls, values: Mapping[str, Value]) -> tuple[int, int]:
        """First query and key positions of the score-matrix window (centred on m and n)."""
        size = _int(values, "window")
        top = MAX_POSITION - size + 1  # keep the window inside 0 … MAX_POSITION

        def start(p: int) -> int:
            return min(max(0, p - size // 2), top)

        return start(_int(values, "m")), start(_int(values, "n"))

    @classmethod
    def readouts(cls, values: Mapping[str, Value]) -> dict[str, Any]:
        import torch  # imported here so that validating parameters stays fast (no torch)

        from posenc_gui import core

        m, n = _int(values, "m"), _int(values, "n")
        dim, pair = _int(values, "dim"), _int(values, "pair")
        base = _num(values, "base")
        layout = str(values["layout"])
        lay: core.RopeLayout = "interleaved" if layout == "interleaved" else "half"
        q, k = cls.vectors(values)
        r = m - n

        score = float(core.rope_scores(q, k, [m], [n], base=base, layout=lay)[0, 0])
        om, on = cls.origin_positions(values)
        score_origin = float(core.rope_scores(q, k, [om], [on], base=base, layout=lay)[0, 0])
        score_offset = float(core.rope_score_by_offset(q, k, [r], base=base, layout=lay)[0])
        shares = core.rope_pair_scores(q, k, m, n, base=base, layout=lay)

        theta = float(core.inverse_frequencies(dim, base)[pair])
        a, b = pair_indices(dim, pair, layout)
        q_pair = [float(q[a]), float(q[b])]
        k_pair = [float(k[a]), float(k[b])]
        rq = core.apply_rope(q[None, :], [m], base=base, layout=lay)[0]
        rk = core.apply_rope(k[None, :], [n], base=base, layout=lay)[0]
        q_rot = [float(rq[a]), float(rq[b])]
        k_rot = [float(rk[a]), float(rk[b])]
        angle_m, angle_n, angle_diff = m * theta, n * theta, r * theta
        angle_q = math.atan2(q_pair[1], q_pair[0])
        angle_k = math.atan2(k_pair[1], k_pair[0])

        perm = core.layout_permutation(dim)
        s_inter = float(core.rope_scores(q, k, [m], [n], layout="interleaved", base=base)[0, 0])
        s_half = float(core.rope_scores(q, k, [m], [n], layout="half", base=base)[0, 0])
        s_half_perm = float(
            core.rope_scores(q[perm], k[perm], [m], [n], layout="half", base=base)[0, 0]
        )

        coeff = bound_coefficient(q, k, layout)
        rel_bound = float(core.rope_decay_bound([r], dim, base)[0])
        score_qk = float(core.rope_score_by_offset(k, k, [r], base=base, layout=lay)[0])
        m0, n0 = cls.window_starts(values)
        return {
            "q": q.tolist(),
            "k": k.tolist(),
            "q_norm": float(torch.linalg.vector_norm(q)),
            "k_norm": float(torch.linalg.vector_norm(k)),
            "relative_distance": r,
            "score": score,
            "origin_m": om,
            "origin_n": on,
            "score_at_origin": score_origin,
            "score_difference": score - score_origin,
            "score_from_offset": score_offset,
            "pair_scores": shares.tolist(),
            "pair_scores_sum": float(shares.sum()),
            "pair_score": float(shares[pair]),
            "pair_fraction": float(shares[pair]) / score if score != 0 else math.nan,
            "pair_indices": [a, b],
            "theta": theta,
            "wavelength": TAU / theta,
            "angle_m": angle_m,
            "angle_n": angle_n,
            "angle_difference": angle_diff,
            "angle_m_wrapped": wrap_angle(angle_m),
            "angle_n_wrapped": wrap_angle(angle_n),
            "angle_difference_wrapped": wrap_angle(angle_diff),
            "q_pair": q_pair,
            "k_pair": k_pair,
            "q_pair_rotated": q_rot,
            "k_pair_rotated": k_rot,
            "q_pair_norm": math.hypot(*q_pair),
            "k_pair_norm": math.hypot(*k_pair),
            "angle_q": angle_q,
            "angle_k": angle_k,
            "angle_between_rotated": wrap_angle(angle_q - angle_k + angle_diff),
            "score_interleaved": s_inter,
            "score_half": s_half,
            "score_half_permuted": s_half_perm,
            "layout_difference": s_inter - s_half,
            "permuted_difference": s_inter - s_half_perm,
            "bound_coefficient": coeff,
            "relative_decay_bound": rel_bound,
            "decay_bound": coeff * (dim // 2) * rel_bound,
            "score_qk": score_qk,
            "window_m_start": m0,
            "window_n_start": n0,
        }


MODEL = RopeModel
