"""Attention-biases tab: ALiBi's per-head linear penalty, and RoPE's implicit decay beside it.

ALiBi (Press, Smith & Lewis, *Train Short, Test Long*, 2022) adds no position vector at all: it
adds ``−m_h·(i − j)`` to the attention logit of query ``i`` and key ``j <= i`` (keys after the
query are masked, ``−∞``), with one fixed slope ``m_h`` per head. The slopes are
``2^(−8h/n)``, ``h = 1 … n``, when the head count ``n`` is a power of two; otherwise the ``p``
slopes of the nearest lower power of two ``p`` come first, then every other slope of ``2p``
heads (``h = 1, 3, 5, …``) until there are ``n`` (:func:`posenc_gui.core.alibi_rule`).

Conventions: heads are numbered ``h = 1 … n`` as in the paper (``head`` is 1-based); query and
key positions ``0 … positions − 1``; the bias is added to the scaled logits ``q·k/√d``.
The content logits of the query are either all zero (only position matters) or drawn from a
standard normal with ``seed`` (the same draw for every sequence length: always 512 values, the
first ``positions`` used).

RoPE, for comparison, on the same distance axis: the expected *change* of the scaled logit
``q·R_{n−m}k/√d`` from distance 0 to distance ``r``, for ``q ~ N(0, I)`` and a key
``k = ρq + √(1−ρ²)z`` correlated with it (``ρ = correlation``): ``(2ρ/√d)·Σ_i (cos rθ_i − 1)``
(closed form, :func:`posenc_gui.core.rope_expected_score`) and its mean over ``samples`` random
pairs (:func:`posenc_gui.core.rope_mean_score`). It never falls below ``−2ρ√d``; ALiBi's
penalty ``−m·r`` passes that floor at ``r = 2ρ√d / m``.

Read-out groups: ``slopes`` (heads): the slopes and the rule; ``head_slope`` (heads, head): the
chosen head's slope; ``attention`` (heads, head, positions, query, logits, seed): one query's
softmax with and without the bias; ``rope`` (dim, base, correlation, samples, seed, positions):
the RoPE curves; ``crossing`` (heads, head, dim, correlation): where ALiBi passes RoPE's floor.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from posenc_gui.state.model import Inputs, Limits, ReadoutGroup, TabModel
from posenc_gui.state.params import (
    Value,
    base_param,
    choice_param,
    dim_param,
    float_param,
    int_param,
)
from posenc_gui.state.prefixes import Prefixes

if TYPE_CHECKING:
    from torch import Tensor

MAX_HEADS = 64
MAX_POSITIONS = 512
LOGIT_MODES: tuple[str, ...] = ("zero", "random")
#: Shares of the attention weight whose span (nearest keys) the read-outs give.
SPAN_FRACTIONS = (0.5, 0.9)

SLOPES_INPUTS = ("heads",)
HEAD_INPUTS = ("heads", "head")
ATTENTION_INPUTS = ("heads", "head", "positions", "query", "logits", "seed")
ROPE_INPUTS = ("dim", "base", "correlation", "samples", "seed", "positions")
CROSSING_INPUTS = ("heads", "head", "dim", "correlation")


@lru_cache(maxsize=8)
def _random_logits(seed: int) -> Tensor:
    import torch

    gen = torch.Generator().manual_seed(seed)
    return torch.randn(MAX_POSITIONS, dtype=torch.float64, generator=gen)


def content_logits(mode: str, seed: int, positions: int) -> Tensor:
    """The query's content logits over keys ``0 … positions−1``: zeros, or N(0, 1) (``seed``)."""
    import torch

    if mode == "zero":
        return torch.zeros(positions, dtype=torch.float64)
    return _random_logits(seed)[:positions].clone()


def _slopes(v: Inputs) -> dict[str, Any]:
    """The slopes of ``heads`` heads and the rule that gives them."""
    from posenc_gui.core import alibi_rule

    rule = alibi_rule(v.as_int("heads"))
    return {
        "slopes": list(rule.slopes),
        "slope_exponents": list(rule.exponents),
        "power_of_two": rule.power_of_two,
        "lower_power": rule.lower,
        "doubled_power": rule.doubled,
        "extra_heads_of_doubled": list(rule.extra_heads),
    }


def _head_slope(v: Inputs) -> tuple[float, float]:
    from posenc_gui.core import alibi_rule

    rule = alibi_rule(v.as_int("heads"))
    h = v.as_int("head")
    return rule.slopes[h - 1], rule.exponents[h - 1]


def _head(v: Inputs) -> dict[str, Any]:
    """The chosen head's slope (and its power of two)."""
    slope, exponent = _head_slope(v)
    return {"head_slope": slope, "head_slope_exponent": exponent}


def _attention(v: Inputs) -> dict[str, Any]:
    """One query's softmax over the keys, without and with the chosen head's bias.

    The same read-out (the same object) for inputs that give the same numbers: the seed counts
    only for random logits (a seed step with zero logits changes nothing here, and the panel
    draws nothing anew)."""
    slope, _ = _head_slope(v)
    mode = v.as_str("logits")
    seed = v.as_int("seed") if mode == "random" else 0
    return dict(_attention_of(slope, v.as_int("positions"), v.as_int("query"), mode, seed))


@lru_cache(maxsize=8)
def _attention_of(slope: float, n: int, i: int, mode: str, seed: int) -> dict[str, Any]:
    logits, plain, biased, spans = _attention_rows(slope, i, mode, seed)
    plain, biased = plain[:n], biased[:n]
    out: dict[str, Any] = {
        "content_logits": logits[:n].tolist(),
        "weights_without_bias": plain.tolist(),
        "weights_with_bias": biased.tolist(),
        "weight_sum_without_bias": float(plain.sum()),
        "weight_sum_with_bias": float(biased.sum()),
        "self_weight_without_bias": float(plain[i]),
        "self_weight_with_bias": float(biased[i]),
    }
    out.update(spans)
    return out


@lru_cache(maxsize=8)
def _attention_rows(
    slope: float, i: int, mode: str, seed: int
) -> tuple[Tensor, Tensor, Tensor, dict[str, int]]:
    """The content logits and both softmax rows of query ``i`` over :data:`MAX_POSITIONS` keys,
    and the spans of the nearest keys holding each share of the weight.

    The softmax reads the keys ``0 … i`` only (the keys after the query get 0) and the logits
    of a shorter sequence are the first ones of the longest: the rows of ``n > i`` keys are
    the first ``n`` numbers of these, bit for bit. A length step then slices them (no softmax
    computed anew)."""
    from posenc_gui.core import causal_softmax_row, nearest_keys_holding

    logits = content_logits(mode, seed, MAX_POSITIONS)
    plain = causal_softmax_row(logits, i, 0.0)
    biased = causal_softmax_row(logits, i, slope)
    spans: dict[str, int] = {}
    for f in SPAN_FRACTIONS:
        pct = round(100 * f)
        spans[f"keys_holding_{pct}_without_bias"] = nearest_keys_holding(plain, i, f)
        spans[f"keys_holding_{pct}_with_bias"] = nearest_keys_holding(biased, i, f)
    return logits, plain, biased, spans


def _rope_curves(
    dim: int, base: float, rho: float, samples: int, seed: int, n: int
) -> tuple[Tensor, Tensor]:
    """RoPE's expected and sampled scaled logits at the distances ``0 … n−1``.

    The value at each distance does not depend on the others (the same numbers, bit for bit,
    in a longer axis): once the length changes for one (dim, base, ρ, samples, seed), the
    curves of :data:`MAX_POSITIONS` distances are computed and kept, and the next lengths are
    slices of them (a length step computes nothing). A new dim, base, ρ … computes only the
    distances shown."""
    return _ROPE_CURVES.get((dim, base, rho, samples, seed), n)


def _rope_curves_of(rest: tuple[Any, ...], n: int) -> tuple[Tensor, Tensor]:
    """The curves of :func:`_rope_curves` at ``n`` distances, computed."""
    import torch

    from posenc_gui.core import rope_expected_score, rope_mean_score

    dim, base, rho, samples, seed = rest
    r = torch.arange(n, dtype=torch.float64)
    scale = 1.0 / math.sqrt(dim)
    expected = rope_expected_score(r, dim, base, correlation=rho) * scale
    sampled = rope_mean_score(r, dim, base, correlation=rho, samples=samples, seed=seed) * scale
    return expected, sampled


#: The RoPE curves of the last few (dim, base, ρ, samples, seed), kept at :data:`MAX_POSITIONS`
#: distances once their length changed.
_ROPE_CURVES: Prefixes[tuple[Any, ...], tuple[Tensor, Tensor]] = Prefixes(
    MAX_POSITIONS, _rope_curves_of, lambda curves, n: (curves[0][:n], curves[1][:n])
)


def _rope(v: Inputs) -> dict[str, Any]:
    """RoPE's expected change of the scaled logit vs distance 0: closed form and sampled."""
    import torch

    dim, base, rho = v.as_int("dim"), v.as_float("base"), v.as_float("correlation")
    expected, sampled = _rope_curves(
        dim, base, rho, v.as_int("samples"), v.as_int("seed"), v.as_int("positions")
    )
    shift, sampled_shift = expected - expected[0], sampled - sampled[0]
    low = int(torch.argmin(shift))
    return {
        "rope_expected_logit_at_zero": float(expected[0]),
        "rope_sampled_logit_at_zero": float(sampled[0]),
        "rope_expected_shift": shift.tolist(),
        "rope_sampled_shift": sampled_shift.tolist(),
        "rope_floor": -2.0 * rho * math.sqrt(dim),
        "rope_lowest_shift": float(shift[low]),
        "rope_lowest_at": low,
    }


def _crossing(v: Inputs) -> dict[str, Any]:
    """Distance at which ALiBi's ``−m·r`` passes RoPE's floor ``−2ρ√d``."""
    slope, _ = _head_slope(v)
    floor = 2.0 * v.as_float("correlation") * math.sqrt(v.as_int("dim"))
    return {"alibi_passes_rope_floor_at": floor / slope}


class AlibiModel(TabModel):
    """ALiBi's slopes, bias matrix and effect on one query's attention, and RoPE's decay."""

    id = "alibi"
    title = "Attention biases"
    short_title = "ALiBi"
    summary = (
        "ALiBi adds −m·(i − j) to each attention logit, one slope m per head (2^(−8h/n)); "
        "compared with RoPE's implicit decay on the same distance axis."
    )
    params = (
        int_param(
            "heads", 12, 1, MAX_HEADS, "Heads n",
            "Number of attention heads n (any count: powers of two use 2^(−8h/n) directly).",
        ),
        int_param("head", 4, 1, MAX_HEADS, "Head h", "The head shown: 1 … n (paper's numbering)."),
        int_param(
            "positions", 64, 8, MAX_POSITIONS, "Positions L",
            "Sequence length L: the bias matrix is L × L, distances 0 … L−1.", log=True,
        ),
        int_param("query", 63, 0, MAX_POSITIONS - 1, "Query i", "Query position i: 0 … L−1."),
        choice_param(
            "logits", "zero", LOGIT_MODES, "Content logits",
            "The query's logits before the bias: all zero (position alone decides), or random "
            "N(0, 1) from the seed (content plus position).",
            choice_labels=("zero (position only)", "random N(0, 1) (seed)"),
        ),
        int_param(
            "seed", 0, 0, 999, "Seed", "Seed of the random logits and of the random q, k pairs."
        ),
        dim_param(
            64, 256, label="RoPE head dim d",
            description="Head dimension d of the RoPE comparison (θ_i = base^(−2i/d)).",
        ),
        base_param(description="RoPE frequency base: θ_i = base^(−2i/d)."),
        float_param(
            "correlation", 1.0, 0.0, 1.0, "Correlation ρ",
            "How alike the key is to the query: k = ρ·q + √(1−ρ²)·z (ρ = 1: k = q; ρ = 0: "
            "independent, expected score 0 at every distance).",
            decimals=2, step=0.05,
        ),
        int_param(
            "samples", 256, 1, 1024, "Samples",
            "Random (q, k) pairs averaged for the sampled RoPE curve.", log=True,
        ),
    )  # fmt: skip

    groups = (
        ReadoutGroup("slopes", SLOPES_INPUTS, _slopes),
        ReadoutGroup("head_slope", HEAD_INPUTS, _head),
        ReadoutGroup("attention", ATTENTION_INPUTS, _attention),
        ReadoutGroup("rope", ROPE_INPUTS, _rope),
        ReadoutGroup("crossing", CROSSING_INPUTS, _crossing),
    )

    @classmethod
    def limits(cls, values: Mapping[str, Value]) -> Limits:
        v = Inputs(values, frozenset(("heads", "positions")), "alibi limits")
        return {"head": (1, v.as_int("heads")), "query": (0, v.as_int("positions") - 1)}

    figures = (
        "heatmap",
        "bias_lines",
        "attention",
        "comparison_rope",
        "attention_text",
        "comparison_text",
    )
    #: Presented together in F5: a plot and its read-out block.
    figure_pairs = (
        ("attention", "attention_text"),
        ("comparison_rope", "comparison_text"),
    )
    animated = "query"


MODEL = AlibiModel
