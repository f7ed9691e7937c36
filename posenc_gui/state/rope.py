"""RoPE playground tab: one query and one key vector, rotated by their positions ``m`` and ``n``.

Conventions (those of :mod:`posenc_gui.core.rope`)
--------------------------------------------------
* Pair ``i`` of a vector at position ``m`` is rotated counter-clockwise by ``m·θ_i`` with
  ``θ_i = base^(-2i/d)``; its wavelength is ``λ_i = 2π/θ_i`` positions.
* ``layout="interleaved"`` pairs ``(x[2i], x[2i+1])`` (RoFormer, GPT-J, Meta LLaMA);
  ``layout="half"`` pairs ``(x[i], x[i+d/2])`` (GPT-NeoX, Hugging Face ``rotate_half``).
* The score ``<R_m q, R_n k>`` depends only on the relative distance ``r = m − n``; written with
  complex pairs ``q_i``, ``k_i`` it is ``Re Σ_i h_i e^{i r θ_i}`` with ``h_i = q_i · conj(k_i)``.
* RoFormer §3.4.3, eq. (37) (Abel summation, ``h_{d/2} = 0``, ``S_j = Σ_{l<j} e^{i r θ_l}``):
  ``|score(r)| <= |Σ_i h_i e^{i r θ_i}| <= (max_i |h_{i+1} − h_i|) · Σ_{j=1}^{d/2} |S_j(r)|``.
  :func:`posenc_gui.core.rope_decay_bound` returns ``(1/(d/2)) Σ_j |S_j|`` (the paper's Figure 2);
  the bound for the current q, k is :func:`posenc_gui.core.rope.rope_score_bound`.

Coupling: with ``lock`` on, changing only one of ``m``, ``n`` moves the other by the same amount
(:meth:`RopeModel.couple`), whichever way the change comes in (widgets, drags, command line).

Vectors
-------
``vectors="random"``: ``q`` and ``k`` are drawn from a standard normal with ``seed``;
``"q=k"``: ``q = k =`` that random key; ``"typed"``: the random vectors, except that the two
components of the *selected pair* (in the current layout) are the typed ``q0, q1`` and ``k0, k1``
(the part drawn on the circle). Parameters are scalars, so only that pair can be typed.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from posenc_gui.state.model import Inputs, Limits, ReadoutGroup, TabModel, check_span
from posenc_gui.state.params import (
    ROPE_LAYOUT_CHOICES,
    Value,
    base_param,
    bool_param,
    choice_param,
    dim_param,
    float_param,
    int_param,
    rope_layout_param,
)

if TYPE_CHECKING:
    import numpy as np
    from torch import Tensor

    from posenc_gui.core import RopeLayout

#: Largest query / key position.
MAX_POSITION = 100_000
LAYOUTS: tuple[str, ...] = ROPE_LAYOUT_CHOICES
VECTOR_MODES: tuple[str, ...] = ("random", "q=k", "typed")
TAU = 2.0 * math.pi

#: What the query and key vectors depend on (the typed pair sits at ``pair`` in ``layout``).
VECTOR_INPUTS = ("dim", "seed", "vectors", "pair", "layout", "q0", "q1", "k0", "k1")
POSITION_INPUTS = ("m", "n")
WINDOW_INPUTS = ("m", "n", "window")
FREQUENCY_INPUTS = ("dim", "base", "pair")
ROTATION_INPUTS = (*FREQUENCY_INPUTS, "m", "n")
#: Scores at (m, n) and the eq. (37) bound there.
SCORE_INPUTS = (*VECTOR_INPUTS, "base", "m", "n")
#: The scores at every distance of the range (never m or n).
CURVE_INPUTS = (*VECTOR_INPUTS, "base", "range_max")
#: The typed components of the selected pair: they change q and k only when vectors = "typed".
TYPED_INPUTS = ("q0", "q1", "k0", "k1")
#: Read-outs kept per group (the latest first): a slider dragged back and forth, an undo.
GROUP_CACHE_SIZE = 8

_TYPED_NOTE = (
    " Used when vectors = typed: q and k are the random vectors (seed) except the two "
    "components of the selected pair, which are typed here (the part drawn on the circle)."
)


def pair_indices(dim: int, pair: int, layout: str) -> tuple[int, int]:
    """Indices of the two coordinates that form pair ``pair`` in ``layout``."""
    if layout == "interleaved":
        return 2 * pair, 2 * pair + 1
    return pair, pair + dim // 2


def rope_layout(name: str) -> RopeLayout:
    """``name`` as a :data:`posenc_gui.core.RopeLayout` (``"interleaved"`` or ``"half"``)."""
    return "interleaved" if name == "interleaved" else "half"


@lru_cache(maxsize=8)
def _vectors(
    dim: int, seed: int, mode: str, pair: int, layout: str, typed: tuple[float, ...]
) -> tuple[Tensor, Tensor]:
    import torch

    gen = torch.Generator().manual_seed(seed)
    qk = torch.randn(2, dim, dtype=torch.float64, generator=gen)
    q, k = qk[0].clone(), qk[1].clone()
    if mode == "q=k":
        q = k.clone()
    elif mode == "typed":
        a, b = pair_indices(dim, pair, layout)
        q[a], q[b], k[a], k[b] = typed
    return q, k


VectorKey = tuple[int, int, str, int, str, tuple[float, ...]]


def vector_key(values: Mapping[str, Value]) -> VectorKey:
    """What q and k are made from (the pair, layout and typed components only when typed)."""
    v = Inputs(values, frozenset(VECTOR_INPUTS), "rope vectors")
    mode = v.as_str("vectors")
    if mode == "typed":
        typed = tuple(v.as_float(n) for n in TYPED_INPUTS)
        pair, layout = v.as_int("pair"), v.as_str("layout")
    else:
        typed, pair, layout = (), 0, ""
    return (v.as_int("dim"), v.as_int("seed"), mode, pair, layout, typed)


def vectors(values: Mapping[str, Value]) -> tuple[Tensor, Tensor]:
    """The query and key vectors (float64, shape ``(dim,)``; fresh copies) for ``values``.

    Reads only :data:`VECTOR_INPUTS` (the pair, the layout and the typed components only when
    ``vectors = "typed"``: otherwise they do not change q and k).
    """
    q, k = _vectors(*vector_key(values))
    return q.clone(), k.clone()


# -- per-step maths in O(d) on cached arrays -----------------------------------------------------
# A slider step of m or n needs a handful of scores of one q, k pair. Everything that depends only
# on (q, k, layout) or (dim, base) is computed once (cached below); a step then costs a few numpy
# operations on d/2 numbers. The arithmetic is that of :func:`posenc_gui.core.apply_rope`
# (angles ``position·θ_i`` in float64, pairs ``(a cos φ − b sin φ, a sin φ + b cos φ)``), so the
# results agree with the torch references to rounding (tests: within 1e-12).


@lru_cache(maxsize=8)
def frequencies(dim: int, base: float) -> np.ndarray:
    """``θ_i = base^(−2i/d)`` as a read-only float64 numpy array (cached by ``(dim, base)``;
    :func:`posenc_gui.core.inverse_frequencies` returns a fresh tensor each call)."""
    from posenc_gui import core

    out = core.inverse_frequencies(dim, base).numpy().copy()
    out.flags.writeable = False
    return out


PairArrays = tuple["np.ndarray", "np.ndarray", "np.ndarray", "np.ndarray"]
PairArrays2 = tuple["np.ndarray", "np.ndarray"]


@lru_cache(maxsize=16)
def _pairs(key: VectorKey, layout: str) -> PairArrays:
    """``(q_a, q_b, k_a, k_b)``: the two coordinates of every pair of q and k (float64).

    ``layout`` is ``"interleaved"``, ``"half"`` or ``"half_permuted"`` (the half layout applied to
    q and k permuted by :func:`posenc_gui.core.layout_permutation`).
    """
    from posenc_gui import core

    q, k = (t.numpy() for t in _vectors(*key))
    dim = q.shape[0]
    if layout == "half_permuted":
        perm = core.layout_permutation(dim).numpy()
        q, k, layout = q[perm], k[perm], "half"
    half = dim // 2
    if layout == "interleaved":
        out = (q[0::2].copy(), q[1::2].copy(), k[0::2].copy(), k[1::2].copy())
    else:
        out = (q[:half].copy(), q[half:].copy(), k[:half].copy(), k[half:].copy())
    for x in out:
        x.flags.writeable = False
    return out


def _rotate(a: np.ndarray, b: np.ndarray, pos: float, theta: np.ndarray) -> PairArrays2:
    """Pairs ``(a, b)`` rotated by ``pos·θ_i`` (as in :func:`posenc_gui.core.apply_rope`)."""
    import numpy as np

    ang = pos * theta
    c, s = np.cos(ang), np.sin(ang)
    return a * c - b * s, a * s + b * c


def _score_at(p: PairArrays, theta: np.ndarray, m: float, n: float) -> float:
    """``<R_m q, R_n k>`` from the pairs of q and k."""
    qa, qb = _rotate(p[0], p[1], m, theta)
    ka, kb = _rotate(p[2], p[3], n, theta)
    return float(qa @ ka + qb @ kb)


def _score_offset(xa: np.ndarray, xb: np.ndarray, ya: np.ndarray, yb: np.ndarray,
                  theta: np.ndarray, r: float) -> float:  # fmt: skip
    """``<x, R_{−r} y>`` (:func:`posenc_gui.core.rope_score_by_offset`)."""
    ra, rb = _rotate(ya, yb, -r, theta)
    return float(xa @ ra + xb @ rb)


def effective_key(values: Mapping[str, Value], inputs: tuple[str, ...]) -> tuple[Value | None, ...]:
    """The values of ``inputs`` that decide a read-out group: the typed pair components count
    only when ``vectors = "typed"`` (otherwise they are ``None``: any value gives the same)."""
    typed = "vectors" in inputs and values["vectors"] == "typed"
    return tuple(None if n in TYPED_INPUTS and not typed else values[n] for n in inputs)


def _memo(
    compute: Callable[[Inputs], dict[str, Any]], inputs: tuple[str, ...]
) -> Callable[[Inputs], dict[str, Any]]:
    """``compute`` cached by :func:`effective_key` (the last :data:`GROUP_CACHE_SIZE` keys).

    The same inputs return the *same* dict (shared: read it, do not change it), so a view can
    tell by identity that what it shows did not change.
    """
    cache: OrderedDict[tuple[Value | None, ...], dict[str, Any]] = OrderedDict()

    def run(v: Inputs) -> dict[str, Any]:
        key = effective_key(v, inputs)
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = compute(v)
            if len(cache) > GROUP_CACHE_SIZE:
                cache.popitem(last=False)
        else:
            cache.move_to_end(key)
        return hit

    run.__doc__ = compute.__doc__
    return run


def _group(
    name: str, inputs: tuple[str, ...], compute: Callable[[Inputs], dict[str, Any]]
) -> ReadoutGroup:
    """A read-out group whose results are cached by their effective inputs (:func:`_memo`)."""
    return ReadoutGroup(name, inputs, _memo(compute, inputs))


def origin_positions(m: int, n: int) -> tuple[int, int]:
    """The same distance started at the origin: ``(m−n, 0)`` or ``(0, n−m)``."""
    r = m - n
    return (r, 0) if r >= 0 else (0, -r)


def window_start(p: int, size: int) -> int:
    """First position of a score-matrix window of ``size`` centred on ``p`` (inside the range)."""
    return min(max(0, p - size // 2), MAX_POSITION - size + 1)


#: Why the direction of q's (k's) selected pair is undefined.
ZERO_Q_PAIR = "q's selected pair is (0, 0): no direction"
ZERO_K_PAIR = "k's selected pair is (0, 0): no direction"


# -- read-out groups ---------------------------------------------------------------------------


def pair_angle(a: float, b: float) -> float:
    """The direction of the pair ``(a, b)`` (``atan2(b, a)``, radians); NaN for ``(0, 0)``,
    which has no direction (``atan2(0, 0) = 0`` would read as a direction along the axis)."""
    return math.atan2(b, a) if a != 0.0 or b != 0.0 else math.nan


def _vector_readouts(v: Inputs) -> dict[str, Any]:
    """q, k, their norms, the selected pair (before rotation) and the eq. (37) coefficient.

    What depends on q and k alone (norms, coefficient) is cached by what they are made from
    (:func:`_vector_norms`, :func:`_bound_coefficient`): a step of the pair reads the pair.
    """
    key = vector_key(v)
    layout = v.as_str("layout")
    q, k = (t.numpy() for t in _vectors(*key))  # cached: read only (lists, floats taken out)
    a, b = pair_indices(v.as_int("dim"), v.as_int("pair"), layout)
    q_pair, k_pair = [float(q[a]), float(q[b])], [float(k[a]), float(k[b])]
    q_norm, k_norm = _vector_norms(key)
    return {
        "q": q.tolist(),
        "k": k.tolist(),
        "q_norm": q_norm,
        "k_norm": k_norm,
        "pair_indices": [a, b],
        "q_pair": q_pair,
        "k_pair": k_pair,
        "q_pair_norm": math.hypot(*q_pair),
        "k_pair_norm": math.hypot(*k_pair),
        "angle_q": pair_angle(*q_pair),
        "angle_k": pair_angle(*k_pair),
        "bound_coefficient": _bound_coefficient(key, layout),
    }


@lru_cache(maxsize=16)
def _vector_norms(key: VectorKey) -> tuple[float, float]:
    """``|q|`` and ``|k|`` (as :func:`torch.linalg.vector_norm`) of the vectors of ``key``."""
    import torch

    q, k = _vectors(*key)
    return float(torch.linalg.vector_norm(q)), float(torch.linalg.vector_norm(k))


def _position_readouts(v: Inputs) -> dict[str, Any]:
    """The distance and the same distance started at the origin (no torch)."""
    m, n = v.as_int("m"), v.as_int("n")
    om, on = origin_positions(m, n)
    return {"relative_distance": m - n, "origin_m": om, "origin_n": on}


def _window_readouts(v: Inputs) -> dict[str, Any]:
    """First query and key positions of the score-matrix window (no torch)."""
    m, n, size = v.as_int("m"), v.as_int("n"), v.as_int("window")
    return {"window_m_start": window_start(m, size), "window_n_start": window_start(n, size)}


def _frequency_readouts(v: Inputs) -> dict[str, Any]:
    """Frequency ``θ_i = base^(−2i/d)`` and wavelength ``2π/θ_i`` of the selected pair."""
    theta = float(frequencies(v.as_int("dim"), v.as_float("base"))[v.as_int("pair")])
    return {"theta": theta, "wavelength": TAU / theta}


def _rotation_readouts(v: Inputs) -> dict[str, Any]:
    """Rotation angles of the selected pair at m and n, and of the distance."""
    from posenc_gui import core

    m, n = v.as_int("m"), v.as_int("n")
    theta = float(frequencies(v.as_int("dim"), v.as_float("base"))[v.as_int("pair")])
    angle_m, angle_n, angle_diff = m * theta, n * theta, (m - n) * theta
    return {
        "angle_m": angle_m,
        "angle_n": angle_n,
        "angle_difference": angle_diff,
        "angle_m_wrapped": core.wrap_angle(angle_m, signed=True),
        "angle_n_wrapped": core.wrap_angle(angle_n, signed=True),
        "angle_difference_wrapped": core.wrap_angle(angle_diff, signed=True),
    }


def _score_readouts(v: Inputs) -> dict[str, Any]:
    """The score at (m, n), three independent ways, its pair shares and the rotated pair.

    O(d) per step on cached pairs (:func:`_pairs`): ``R_m q`` and ``R_n k`` rotated pair by pair
    give the score and its shares; the same distance at the origin rotates them again at other
    positions; the offset form rotates k alone by ``−(m − n)``.
    """
    from posenc_gui import core

    m, n, base = v.as_int("m"), v.as_int("n"), v.as_float("base")
    dim, pair = v.as_int("dim"), v.as_int("pair")
    key = vector_key(v)
    qa, qb, ka, kb = p = _pairs(key, rope_layout(v.as_str("layout")))
    theta = frequencies(dim, base)
    r = m - n
    rqa, rqb = _rotate(qa, qb, m, theta)
    rka, rkb = _rotate(ka, kb, n, theta)
    score = float(rqa @ rka + rqb @ rkb)
    shares = rqa * rka + rqb * rkb
    om, on = origin_positions(m, n)
    score_origin = _score_at(p, theta, om, on)
    score_offset = _score_offset(qa, qb, ka, kb, theta, r)
    t = float(theta[pair])
    angle_q = pair_angle(float(qa[pair]), float(qb[pair]))
    angle_k = pair_angle(float(ka[pair]), float(kb[pair]))
    between = angle_q - angle_k + r * t  # NaN when either pair has no direction
    return {
        "score": score,
        "score_at_origin": score_origin,
        "score_difference": score - score_origin,
        "score_from_offset": score_offset,
        "pair_scores": shares.tolist(),
        "pair_scores_sum": float(shares.sum()),
        "pair_score": float(shares[pair]),
        "pair_fraction": float(shares[pair]) / score if score != 0 else math.nan,
        "q_pair_rotated": [float(rqa[pair]), float(rqb[pair])],
        "k_pair_rotated": [float(rka[pair]), float(rkb[pair])],
        "angle_between_rotated": (
            core.wrap_angle(between, signed=True) if math.isfinite(between) else math.nan
        ),
        "score_qk": _score_offset(ka, kb, ka, kb, theta, r),
    }


def _layout_readouts(v: Inputs) -> dict[str, Any]:
    """The same q, k, m, n through both pair layouts, and after the layout permutation."""
    m, n, base = v.as_int("m"), v.as_int("n"), v.as_float("base")
    key = vector_key(v)
    theta = frequencies(v.as_int("dim"), base)
    s_inter = _score_at(_pairs(key, "interleaved"), theta, m, n)
    s_half = _score_at(_pairs(key, "half"), theta, m, n)
    s_half_perm = _score_at(_pairs(key, "half_permuted"), theta, m, n)
    return {
        "score_interleaved": s_inter,
        "score_half": s_half,
        "score_half_permuted": s_half_perm,
        "layout_difference": s_inter - s_half,
        "permuted_difference": s_inter - s_half_perm,
    }


@lru_cache(maxsize=16)
def _bound_coefficient(key: VectorKey, layout: str) -> float:
    from posenc_gui import core

    q, k = _vectors(*key)
    return core.rope.rope_bound_coefficient(q, k, layout=rope_layout(layout))


def _bound_readouts(v: Inputs) -> dict[str, Any]:
    """RoFormer eq. (37) at r = m − n: the relative bound (Figure 2) and the bound for q, k.

    ``Σ_j |S_j(r)|`` with ``S_j = Σ_{l<j} e^{i r θ_l}`` in O(d) (as
    :func:`posenc_gui.core.rope_decay_bound` and :func:`posenc_gui.core.rope.rope_abel_sums`).
    """
    import numpy as np

    r, base, dim = v.as_int("m") - v.as_int("n"), v.as_float("base"), v.as_int("dim")
    ang = r * frequencies(dim, base)
    total = float(np.hypot(np.cumsum(np.cos(ang)), np.cumsum(np.sin(ang))).sum())
    coeff = _bound_coefficient(vector_key(v), v.as_str("layout"))
    return {"relative_decay_bound": total / (dim // 2), "decay_bound": coeff * total}


def _curve_readouts(v: Inputs) -> dict[str, Any]:
    """The score ``<R_m q, R_n k>`` and the score with ``q = k`` (the key) at every integer
    distance ``r = m − n = −range_max … +range_max``: the two curves of the tab at full range.

    By :func:`posenc_gui.core.rope_rows.rope_score_row` from ``h_i = q_i·conj(k_i)`` (and
    ``|k_i|²``), the arithmetic the tab's curves use.
    """
    import numpy as np

    from posenc_gui import core
    from posenc_gui.core import rope_rows

    lay = rope_layout(v.as_str("layout"))
    q, k = _vectors(*vector_key(v))
    qc, kc = (core.rope_complex_pairs(t, lay).numpy() for t in (q, k))
    h_kk = (kc * np.conj(kc)).real.astype(np.complex128)
    rng, base = v.as_int("range_max"), v.as_float("base")
    score = rope_rows.rope_score_row(qc * np.conj(kc), base, -rng, 2 * rng + 1)
    score_qk = rope_rows.rope_even_score_row(h_kk, base, -rng, rng)
    return {"score_by_distance": score.tolist(), "score_qk_by_distance": score_qk.tolist()}


def lock_coupling(given: Mapping[str, Value], base: Mapping[str, Value]) -> dict[str, Value]:
    """The distance lock: with ``lock`` on and only one of m, n given, move the other along.

    The other position moves by the same amount, clamped into ``[0, MAX_POSITION]``; the given
    one is then placed so that ``m − n`` keeps its value (always possible, as
    ``|m − n| <= MAX_POSITION``). Values that are not integers in range are left alone, so
    validation reports them as typed.
    """
    out = dict(given)
    lock = given.get("lock", base.get("lock"))
    if lock is not True or ("m" in given) == ("n" in given):
        return out
    name = "m" if "m" in given else "n"
    other = "n" if name == "m" else "m"
    raw, old, old_other = given[name], base.get(name), base.get(other)
    ints = all(isinstance(x, int) and not isinstance(x, bool) for x in (raw, old, old_other))
    if not ints:
        return out
    assert isinstance(raw, int) and isinstance(old, int) and isinstance(old_other, int)
    if not 0 <= raw <= MAX_POSITION or raw == old:
        return out
    keep = old - old_other  # the distance between `name` and `other`, kept fixed
    moved = min(max(old_other + (raw - old), 0), MAX_POSITION)
    out[other] = moved
    out[name] = moved + keep
    return out


class RopeModel(TabModel):
    """RoPE on one query/key pair: the rotation of one pair, scores, decay bound, layouts.

    Read-out groups: ``query_key`` (q, k, the selected pair, eq. (37) coefficient), ``positions``
    (distance, origin), ``matrix_window``, ``frequency`` (θ_i, λ_i), ``rotation``
    (angles), ``scores`` (the score at
    (m, n) three ways, pair shares), ``layouts`` (interleaved vs half), ``bound`` (eq. (37)
    at r = m − n) and ``score_curve`` (``score_by_distance`` and ``score_qk_by_distance``: the
    score and the q = k score at r = −range_max … +range_max, ``2·range_max + 1`` values).
    """

    id = "rope"
    title = "RoPE playground"
    short_title = "RoPE"
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
        dim_param(
            64, 512, label="Head dim d", description="Head dimension d (even: d/2 rotated pairs)."
        ),
        base_param(description="Frequency base: θ_i = base^(−2i/d)."),
        int_param(
            "pair", 0, 0, 255, "Pair i",
            "Which 2-D pair (frequency θ_i) is drawn on the circle (0 … d/2 − 1).",
        ),
        rope_layout_param(),
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
    groups = (
        _group("query_key", VECTOR_INPUTS, _vector_readouts),
        _group("positions", POSITION_INPUTS, _position_readouts),
        _group("matrix_window", WINDOW_INPUTS, _window_readouts),
        _group("frequency", FREQUENCY_INPUTS, _frequency_readouts),
        _group("rotation", ROTATION_INPUTS, _rotation_readouts),
        _group("scores", SCORE_INPUTS, _score_readouts),
        _group("layouts", (*VECTOR_INPUTS, "base", "m", "n"), _layout_readouts),
        _group("bound", SCORE_INPUTS, _bound_readouts),
        _group("score_curve", CURVE_INPUTS, _curve_readouts),
    )

    @classmethod
    def limits(cls, values: Mapping[str, Value]) -> Limits:
        v = Inputs(values, frozenset(("dim",)), "rope limits")
        return {"pair": (0, v.as_int("dim") // 2 - 1)}

    @classmethod
    def couple(cls, given: Mapping[str, Value], base: Mapping[str, Value]) -> dict[str, Value]:
        return lock_coupling(given, base)

    @classmethod
    def check_view(cls, values: Mapping[str, Value], view: Mapping[str, Any]) -> None:
        """The score plots' ``x_range`` (distances)."""
        rng = float(Inputs(values, frozenset(("range_max",)), "rope view").as_int("range_max"))
        check_span(view, "x_range", -rng, rng, "the distances")

    # -- helpers shared with the panel ---------------------------------------------------------
    @classmethod
    def vectors(cls, values: Mapping[str, Value]) -> tuple[Tensor, Tensor]:
        """The query and key vectors (float64, shape ``(dim,)``) for ``values``."""
        return vectors(values)

    @classmethod
    def origin_positions(cls, values: Mapping[str, Value]) -> tuple[int, int]:
        """The same distance started at the origin: ``(m−n, 0)`` or ``(0, n−m)``."""
        v = Inputs(values, frozenset(("m", "n")), "rope origin")
        return origin_positions(v.as_int("m"), v.as_int("n"))

    @classmethod
    def window_starts(cls, values: Mapping[str, Value]) -> tuple[int, int]:
        """First query and key positions of the score-matrix window (centred on m and n)."""
        v = Inputs(values, frozenset(WINDOW_INPUTS), "rope window")
        size = v.as_int("window")
        return window_start(v.as_int("m"), size), window_start(v.as_int("n"), size)

    # -- animation: m moves, n follows at the locked distance ----------------------------------
    figures = (
        "circle",
        "curves",
        "circle_formula",
        "curve_formula",
        "matrix",
        "decay",
        "layouts",
    )
    #: Presented together in F5: a plot and its read-out block.
    figure_pairs = (
        ("circle", "circle_formula"),
        ("curves", "curve_formula"),
    )
    animated = "m"
    undefined: ClassVar[Mapping[str, str]] = {
        "pair_fraction": "the score is 0",
        "angle_q": ZERO_Q_PAIR,
        "angle_k": ZERO_K_PAIR,
        "angle_between_rotated": "q's or k's selected pair is (0, 0): no direction",
    }
    animation_setup = (("lock", True),)

    @classmethod
    def animation_range(cls, values: Mapping[str, Value]) -> tuple[float, float]:
        """``window`` positions of ``m`` from the first one at which ``n = m − (m − n)`` is a
        position (``n ≥ 0``; from 0 when the lock is off): the rotations advance one step per
        position and the score stays put. The whole range (100,000) would be a blur."""
        v = Inputs(values, frozenset(("m", "n", "lock", "window")), "rope animation")
        gap = v.as_int("m") - v.as_int("n") if v["lock"] is True else 0
        lo = max(0, gap)
        return float(lo), float(min(lo + v.as_int("window"), MAX_POSITION + min(0, gap)))


MODEL = RopeModel
