"""Long-context tab: the RoPE scaling schemes real models ship, on their own configurations.

Every pair ``i`` of RoPE turns at ``θ_i = base^(−2i/d)`` (``d`` the rotary dims). A scheme
maps these to ``θ'_i`` so that a model trained at ``L₀`` tokens (``original_length``) reads
``L = s·L₀`` (``factor`` s); the maths is :mod:`posenc_gui.core.rope_scaling` (Hugging Face
``modeling_rope_utils`` in float64). Each pair ends up *kept*, *smoothed* or *divided* (by
``s``): the bands.

Parameters: ``preset`` (a bundled model configuration, or ``custom``); choosing a preset sets
every other parameter in the same update (:meth:`ContextModel.couple`), and moving any of them
away from the preset's value turns the preset to ``custom``. ``seq_len`` is the length shown
(the axes run to it) and the current length of dynamic NTK.

Read-out groups: ``preset`` (preset): its title and source; ``scaling`` (the scheme's
inputs): ``inv_freq``, ``inv_freq_original``, ``attention_factor``, ``scale`` (per pair
``θ_i/θ'_i``), ``band`` (per pair, 0 kept / 1 smoothed / 2 divided), ``bands`` (the counts),
``wavelength(_original)`` and the scheme's ``bounds``; ``scores`` (the same and ``seq_len``):
``q·R_r k / d`` for ``q = k = (1, …, 1)`` before and after scaling, at :data:`SCORE_SAMPLES`
log-spaced distances ``1 … seq_len`` (the attention factor multiplies both q and k: ``att²``);
``angle`` (the same and ``pair``): pair ``pair``'s angle ``m·θ'_i mod 2π`` at
:data:`ANGLE_SAMPLES` whole positions ``0 … L`` and ``m·θ_i mod 2π`` at as many ``0 … L₀``, the
angles it never took in training (``[L₀·θ_i, 2π)``, empty after a full turn) and the share of
the circle it reaches up to ``L`` beyond them (``angle_unreached``, the pair's
``coverage_unseen``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any

from posenc_gui.state.model import Inputs, Limits, ReadoutGroup, TabModel
from posenc_gui.state.model_config import (
    ConfigError,
    ModelConfig,
    load_preset,
    presets,
    read_config,
)
from posenc_gui.state.params import (
    ParamError,
    Value,
    base_param,
    choice_param,
    dim_param,
    float_param,
    int_param,
)

#: The schemes the tab shows (LongRoPE's per-pair factor lists come from a bundled model:
#: :data:`FACTOR_LISTS`).
TAB_SCHEMES: tuple[str, ...] = (
    "default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope",
)  # fmt: skip
SCHEME_LABELS: tuple[str, ...] = (
    "default (none)", "linear (PI)", "NTK-aware", "dynamic NTK", "YaRN", "Llama 3", "LongRoPE",
)  # fmt: skip
CUSTOM = "custom"
PRESET_IDS: tuple[str, ...] = tuple(p.id for p in presets())
PRESET_TITLES: dict[str, str] = {p.id: p.title for p in presets()}
DEFAULT_PRESET = "llama-3.1-8b"


FactorLists = tuple[tuple[float, ...], tuple[float, ...]]


def _lists_of(cfg: ModelConfig) -> FactorLists:
    """A LongRoPE config's ``(short_factor, long_factor)`` (tuples of floats once parsed)."""
    short, long_ = cfg.scaling["short_factor"], cfg.scaling["long_factor"]
    assert isinstance(short, tuple) and isinstance(long_, tuple)
    return tuple(float(x) for x in short), tuple(float(x) for x in long_)


@cache
def _factor_lists() -> dict[str, FactorLists]:
    out = {}
    for p in presets():
        cfg = load_preset(p.id)
        if cfg.rope_type == "longrope":
            out[p.id] = _lists_of(cfg)
    return out


#: The bundled models whose LongRoPE factor lists the tab can show (``factor_lists``).
FACTOR_LISTS: tuple[str, ...] = tuple(_factor_lists())


def factor_lists(lists_id: str) -> FactorLists:
    """The ``(short_factor, long_factor)`` lists of bundled model ``lists_id``."""
    return _factor_lists()[lists_id]


#: Distances at which the score curves are computed (log-spaced ``1 … seq_len``, whole
#: numbers, duplicates removed): about the pixels of a wide plot.
SCORE_SAMPLES = 600
#: The parameters a preset sets (all but the preset itself).
SCHEME_PARAMS: tuple[str, ...] = (
    "scheme", "base", "dim", "factor", "original_length", "low_freq_factor",
    "high_freq_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "factor_lists",
)  # fmt: skip
SCALING_INPUTS: tuple[str, ...] = (*SCHEME_PARAMS, "seq_len")
#: Gaps kept between coupled parameters (Llama 3: high > low; YaRN: fast >= slow).
FREQ_GAP = 0.25


def config_values(cfg: ModelConfig) -> dict[str, Value]:
    """The tab's parameters for a model configuration (``preset`` not included).
    :class:`ConfigError` when the tab cannot show its scheme."""
    if cfg.rope_type not in TAB_SCHEMES:
        raise ConfigError(
            f"rope_scaling: the long-context tab does not show {cfg.rope_type!r} scaling "
            f"(it shows {', '.join(TAB_SCHEMES)})"
        )
    s = cfg.scaling
    if s.get("attention_factor") is not None or s.get("truncate") is False:
        raise ConfigError(
            "rope_scaling: attention_factor and truncate are not controls of the long-context tab"
        )

    def number(key: str, default: float) -> float:
        v = s.get(key)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else default

    lists = FACTOR_LISTS[0]
    if cfg.rope_type == "longrope":
        pair = _lists_of(cfg)
        found = [k for k in FACTOR_LISTS if factor_lists(k) == pair]
        if not found:
            raise ConfigError(
                "rope_scaling.short_factor/long_factor: the long-context tab shows LongRoPE with "
                f"the factor lists of a bundled model ({', '.join(FACTOR_LISTS)}); "
                "these lists are not one of them"
            )
        lists = found[0]
    return {
        "scheme": cfg.rope_type,
        "base": float(cfg.rope_theta),
        "dim": cfg.rotary_dim,
        "factor": float(cfg.factor),
        "original_length": cfg.original_length,
        "seq_len": cfg.target_length,
        "low_freq_factor": number("low_freq_factor", 1.0),
        "high_freq_factor": number("high_freq_factor", 4.0),
        "beta_fast": number("beta_fast", 32.0),
        "beta_slow": number("beta_slow", 1.0),
        "mscale": number("mscale", 0.0),
        "mscale_all_dim": number("mscale_all_dim", 0.0),
        "factor_lists": lists,
    }


@cache
def preset_values(preset_id: str) -> dict[str, Value]:
    """The parameters preset ``preset_id`` sets (kept: read it, do not change it)."""
    return config_values(load_preset(preset_id))


def scheme_kwargs(v: Mapping[str, Value]) -> dict[str, object]:
    """Keyword arguments of :func:`posenc_gui.core.rope_scaling.scale` for the tab's values."""
    scheme = str(v["scheme"])
    if scheme == "default":
        return {}
    factor, original = float(v["factor"]), int(v.get("original_length") or 1)
    if scheme in ("linear", "ntk"):
        return {"factor": factor}
    if scheme == "dynamic":
        return {"factor": factor, "max_position_embeddings": original}
    if scheme == "llama3":
        return {"factor": factor, "low_freq_factor": float(v["low_freq_factor"]),
                "high_freq_factor": float(v["high_freq_factor"]),
                "original_max_position_embeddings": original}  # fmt: skip
    if scheme == "yarn":
        kw: dict[str, object] = {
            "factor": factor, "original_max_position_embeddings": original,
            "beta_fast": float(v["beta_fast"]), "beta_slow": float(v["beta_slow"]),
        }  # fmt: skip
        if float(v["mscale"]) > 0 and float(v["mscale_all_dim"]) > 0:
            kw["mscale"], kw["mscale_all_dim"] = float(v["mscale"]), float(v["mscale_all_dim"])
        return kw
    if scheme == "longrope":
        short, long_ = factor_lists(str(v["factor_lists"]))
        return {"short_factor": short, "long_factor": long_, "factor": factor,
                "original_max_position_embeddings": original}  # fmt: skip
    return {}


#: The parameters each scheme reads (besides base and dim): the others are left out of the
#: key its numbers are kept under, so a step of one of them gives the same lists (the same
#: objects) and the views that show them are not run.
SCHEME_READS: dict[str, tuple[str, ...]] = {
    "default": (),
    "linear": ("factor",),
    "ntk": ("factor",),
    "dynamic": ("factor", "original_length", "seq_len"),
    "yarn": ("factor", "original_length", "beta_fast", "beta_slow", "mscale", "mscale_all_dim"),
    "llama3": ("factor", "original_length", "low_freq_factor", "high_freq_factor"),
    "longrope": ("factor", "original_length", "seq_len", "factor_lists"),
}


def _key(v: Mapping[str, Value]) -> tuple[Value | None, ...]:
    """The values the scheme reads, in :data:`SCALING_INPUTS` order (``None`` for the rest)."""
    reads = {"scheme", "base", "dim", *SCHEME_READS[str(v["scheme"])]}
    return tuple(v[n] if n in reads else None for n in SCALING_INPUTS)


@lru_cache(maxsize=16)
def _scaling_of(key: tuple[Value | None, ...]) -> Any:
    from posenc_gui.core.rope_scaling import scale

    v = {n: x for n, x in zip(SCALING_INPUTS, key, strict=True) if x is not None}
    seq_len = v.get("seq_len")
    return scale(str(v["scheme"]), float(v["base"]), int(v["dim"]), scheme_kwargs(v),
                 seq_len=None if seq_len is None else int(seq_len))  # fmt: skip


@lru_cache(maxsize=8)
def _original(base: float, dim: int) -> tuple[list[float], list[float]]:
    """``θ_i`` and ``λ_i`` before scaling (the same lists for the same base and dim)."""
    from posenc_gui.core.rope_scaling import rope_inv_freq

    inv = rope_inv_freq(base, dim)
    return inv.tolist(), (2.0 * math.pi / inv).tolist()


def _scaling(v: Inputs) -> dict[str, Any]:
    """The frequencies before and after scaling, per pair, and the bands.

    The same lists (the same objects) for values that give the same frequencies: a step of a
    parameter the scheme does not read changes nothing here."""
    return dict(_scaling_dict(_key(v)))


@lru_cache(maxsize=16)
def _scaling_dict(key: tuple[Value | None, ...]) -> dict[str, Any]:
    r = _scaling_of(key)
    inv_orig, wl_orig = _original(_base(key), _dim(key))
    return {
        "inv_freq": r.inv_freq.tolist(),
        "inv_freq_original": inv_orig,
        "attention_factor": float(r.attention_factor),
        "scale": r.scale.tolist(),
        "band": r.band.tolist(),
        "bands": r.band_counts(),
        "wavelength": (2.0 * math.pi / r.inv_freq).tolist(),
        "wavelength_original": wl_orig,
        "bounds": {k: float(x) for k, x in r.bounds.items()},
    }


def _base(key: tuple[Value | None, ...]) -> float:
    return float(key[SCALING_INPUTS.index("base")])  # type: ignore[arg-type]


def _dim(key: tuple[Value | None, ...]) -> int:
    return int(key[SCALING_INPUTS.index("dim")])  # type: ignore[arg-type]


def score_distances(seq_len: int) -> list[int]:
    """The distances of the score curves: about :data:`SCORE_SAMPLES` whole numbers, log-spaced
    from 1 to ``seq_len``."""
    n = min(SCORE_SAMPLES, seq_len)
    return sorted({round(math.exp(math.log(seq_len) * k / (n - 1))) for k in range(n)})


@lru_cache(maxsize=8)
def _distances(seq_len: int) -> Any:
    import torch

    return torch.tensor(score_distances(seq_len), dtype=torch.float64)


def _mean_cos(dist: Any, inv_freq: Any) -> Any:
    import torch

    return torch.cos(dist[:, None] * inv_freq[None, :]).mean(dim=1)


@lru_cache(maxsize=8)
def _scores_before(base: float, dim: int, seq_len: int) -> tuple[list[float], list[float]]:
    """The distances and the score before scaling (the same lists for the same inputs)."""
    from posenc_gui.core.rope_scaling import rope_inv_freq

    dist = _distances(seq_len)
    return dist.tolist(), _mean_cos(dist, rope_inv_freq(base, dim)).tolist()


@lru_cache(maxsize=8)
def _scores_after(key: tuple[Value | None, ...], seq_len: int) -> list[float]:
    r = _scaling_of(key)
    att = float(r.attention_factor)
    after: list[float] = (att * att * _mean_cos(_distances(seq_len), r.inv_freq)).tolist()
    return after


def _scores(v: Inputs) -> dict[str, Any]:
    """``q·R_r k / d`` for ``q = k = (1, …, 1)`` before and after scaling, at the distances
    :func:`score_distances` of ``seq_len`` (the after-score times the attention factor²)."""
    key, seq_len = _key(v), v.as_int("seq_len")
    dist, before = _scores_before(v.as_float("base"), v.as_int("dim"), seq_len)
    return {
        "score_distance": dist,
        "score_before": before,
        "score_after": _scores_after(key, seq_len),
    }


def _coverage(v: Inputs) -> dict[str, Any]:
    """Per pair, the share of the circle its angle ``m·θ`` sweeps as ``m`` runs from 0 to the
    length: in training (``θ_i``, ``m`` up to ``L₀``) and at the context length (``θ'_i``, ``m``
    up to ``L``): ``min(1, L·θ/2π)``; and the share reached only at the context length (angles
    the pair never took in training). Interpolation by ``s`` at ``L = s·L₀`` reaches none."""
    return dict(_coverage_of(_key(v), v.as_int("original_length"), v.as_int("seq_len")))


@lru_cache(maxsize=16)
def _coverage_of(key: tuple[Value | None, ...], l0: int, length: int) -> dict[str, Any]:
    sc = _scaling_dict(key)
    turn = 2.0 * math.pi
    train = [min(1.0, l0 * t / turn) for t in sc["inv_freq_original"]]
    target = [min(1.0, length * t / turn) for t in sc["inv_freq"]]
    unseen = [max(0.0, b - a) for a, b in zip(train, target, strict=True)]
    return {
        "coverage_training": train,
        "coverage_target": target,
        "coverage_unseen": unseen,
        "pairs_unseen": sum(1 for u in unseen if u > UNSEEN_EPS),
    }


#: Positions at which the angle of the chosen pair is computed (whole numbers from 0 to the
#: length, about the pixels of a wide plot).
ANGLE_SAMPLES = 1000


def angle_positions(length: int) -> list[int]:
    """About :data:`ANGLE_SAMPLES` whole positions evenly spread over ``0 … length``."""
    n = min(ANGLE_SAMPLES, length + 1)
    return sorted({round(length * k / (n - 1)) for k in range(n)})


def _angle(v: Inputs) -> dict[str, Any]:
    """Pair ``pair``'s angle over positions: ``m·θ'_i mod 2π`` for ``m = 0 … L`` and
    ``m·θ_i mod 2π`` for ``m = 0 … L₀`` (at :func:`angle_positions`), ``angle_untrained``
    ``[L₀·θ_i, 2π]`` (the angles training never reached; ``[]`` when it made a full turn),
    ``angle_unreached`` the share of the circle reached up to ``L`` and not in training (the
    pair's ``coverage_unseen``) and ``angle_step_turn`` the largest turn between two samples
    (radians; at π or more the sampled curve aliases)."""
    return dict(_angle_of(_key(v), v.as_int("original_length"), v.as_int("seq_len"),
                          v.as_int("pair")))  # fmt: skip


@lru_cache(maxsize=16)
def _angle_of(key: tuple[Value | None, ...], l0: int, length: int, pair: int) -> dict[str, Any]:
    sc = _scaling_dict(key)
    theta, theta_s = float(sc["inv_freq_original"][pair]), float(sc["inv_freq"][pair])
    turn = 2.0 * math.pi
    pos, phi, step = _angle_series(theta_s, length)
    pos0, phi0, step0 = _angle_series(theta, l0)
    reach = l0 * theta
    return {
        "angle_pair": pair,
        "angle_position": pos,
        "angle": phi,
        "angle_position_training": pos0,
        "angle_training": phi0,
        "angle_untrained": [reach, turn] if reach < turn else [],
        "angle_unreached": _coverage_of(key, l0, length)["coverage_unseen"][pair],
        "angle_step_turn": max(step, step0),
    }


@lru_cache(maxsize=16)
def _angle_series(theta: float, length: int) -> tuple[list[float], list[float], float]:
    """Positions :func:`angle_positions` of ``length``, ``m·θ mod 2π`` at them and the largest
    turn between two (the same lists for the same pair frequency and length: a step that
    leaves them leaves the angle plot alone)."""
    import torch

    pos = torch.tensor(angle_positions(length), dtype=torch.float64)
    step = float((pos[1:] - pos[:-1]).max()) if pos.numel() > 1 else 0.0
    phi = torch.remainder(pos * theta, 2.0 * math.pi)
    return pos.tolist(), phi.tolist(), step * theta


#: A pair whose target sweep exceeds its training sweep by more than this share of the circle
#: reaches angles it never took in training.
UNSEEN_EPS = 1e-9


def _temperature(v: Inputs) -> dict[str, Any]:
    """How the attention factor sharpens a softmax over distance.

    Logits ``ℓ(r) = √d · a · S(r)`` for a query and keys at distances ``r = 1 … L`` with
    ``S(r)`` the mean of ``cos(r·θ'_i)`` after scaling (``q = k = (1, …, 1)``, so ``q·R_r k/√d
    = √d·S``) and ``a`` = 1 (without the factor) or the attention factor² (with it). The
    softmax runs over the score distances (:func:`score_distances`), each standing for the
    whole numbers nearest to it (``weight``): ``share`` is the attention each sample's run
    of distances takes, ``per_token`` that share divided by the run's length. ``entropy`` is
    the entropy of that piecewise-constant distribution (nats), ``effective_tokens`` its
    exponential, ``near_share`` the attention on the distances ≤ L₀."""
    return dict(_temperature_of(_key(v), v.as_int("seq_len"), v.as_int("original_length")))


@lru_cache(maxsize=8)
def _temperature_of(key: tuple[Value | None, ...], seq_len: int, l0: int) -> dict[str, Any]:
    import torch

    r = _distances(seq_len)
    edges = torch.cat([torch.tensor([0.5], dtype=torch.float64), (r[1:] + r[:-1]) / 2,
                       torch.tensor([seq_len + 0.5], dtype=torch.float64)])  # fmt: skip
    weight = edges[1:] - edges[:-1]
    att = float(_scaling_of(key).attention_factor)
    mean = torch.tensor(_scores_after(key, seq_len), dtype=torch.float64) / (att * att)
    root_d = math.sqrt(_dim(key))
    out: dict[str, Any] = {
        "temperature_distance": r.tolist(),
        "temperature_weight": weight.tolist(),
    }
    near = r <= l0
    for tag, a in (("without", 1.0), ("with", att * att)):
        logit = root_d * a * mean + torch.log(weight)
        share = torch.softmax(logit, dim=0)
        per_token = share / weight
        entropy = float(-(share * torch.log(per_token)).sum())
        out[f"per_token_{tag}"] = per_token.tolist()
        out[f"entropy_{tag}"] = entropy
        out[f"effective_tokens_{tag}"] = math.exp(entropy)
        out[f"near_share_{tag}"] = float(share[near].sum())
    return out


def _preset(v: Inputs) -> dict[str, Any]:
    p = v.as_str("preset")
    return {"preset_title": PRESET_TITLES.get(p, "custom settings")}


class ContextModel(TabModel):
    """RoPE scaling for long context: a model's frequencies before and after its scheme."""

    id = "context"
    title = "Long context (RoPE scaling)"
    short_title = "Context"
    summary = (
        "How real models stretch RoPE past their training length: per-pair wavelengths before "
        "and after linear, NTK, dynamic NTK, YaRN and Llama 3 scaling, the bands of kept, "
        "smoothed and divided pairs, and the score against distance out to the target length."
    )
    params = (
        choice_param(
            "preset", DEFAULT_PRESET, (*PRESET_IDS, CUSTOM), "Model",
            "A bundled model configuration (sets every parameter), or custom settings.",
            choice_labels=(*(PRESET_TITLES[p] for p in PRESET_IDS), "custom"),
        ),
        choice_param(
            "scheme", "llama3", TAB_SCHEMES, "Scheme",
            "The RoPE scaling scheme (rope_scaling.rope_type of the config).",
            choice_labels=SCHEME_LABELS,
        ),
        base_param(500000.0, description="rope_theta: θ_i = base^(−2i/d)."),
        dim_param(
            128, 512, label="Rotary dims d", minimum=4,
            description="The rotated dimensions of a head (head_dim · partial_rotary_factor).",
        ),
        float_param(
            "factor", 8.0, 1.0, 64.0, "Factor s",
            "Context extension s: the target length is s·L₀.", log=True, decimals=2,
        ),
        int_param(
            "original_length", 8192, 128, 1_048_576, "Original length L₀",
            "original_max_position_embeddings (max_position_embeddings for dynamic NTK): the "
            "length the model was trained at.", log=True,
        ),
        int_param(
            "seq_len", 131072, 128, 4_194_304, "Context length L",
            "The length shown (axes run to it); the current length of dynamic NTK.", log=True,
        ),
        float_param(
            "low_freq_factor", 1.0, 0.25, 32.0, "Low freq factor",
            "Llama 3: wavelengths above L₀/low_freq_factor are divided by s.",
            decimals=2, step=0.25,
        ),
        float_param(
            "high_freq_factor", 4.0, 0.5, 64.0, "High freq factor",
            "Llama 3: wavelengths below L₀/high_freq_factor are kept.", decimals=2, step=0.25,
        ),
        float_param(
            "beta_fast", 32.0, 0.25, 128.0, "β fast",
            "YaRN: pairs with more than β_fast turns in L₀ are kept.", decimals=2, step=0.25,
        ),
        float_param(
            "beta_slow", 1.0, 0.25, 128.0, "β slow",
            "YaRN: pairs with fewer than β_slow turns in L₀ are divided by s.",
            decimals=2, step=0.25,
        ),
        float_param(
            "mscale", 0.0, 0.0, 4.0, "mscale",
            "YaRN (DeepSeek): with mscale_all_dim, attention factor "
            "(0.1·mscale·ln s + 1)/(0.1·mscale_all_dim·ln s + 1); 0: not given (0.1·ln s + 1).",
            decimals=2, step=0.05,
        ),
        float_param(
            "mscale_all_dim", 0.0, 0.0, 4.0, "mscale_all_dim",
            "YaRN (DeepSeek): see mscale; 0: not given.", decimals=2, step=0.05,
        ),
        choice_param(
            "factor_lists", FACTOR_LISTS[0], FACTOR_LISTS, "Factor lists",
            "LongRoPE: the per-pair short_factor/long_factor lists (of a bundled model); the "
            "long list is used once L exceeds L₀. Rotary dims follow the lists' length.",
            choice_labels=tuple(PRESET_TITLES[p] for p in FACTOR_LISTS),
        ),
        int_param(
            "pair", 63, 0, 255, "Pair i",
            "The pair whose angle m·θ_i mod 2π the angle plot follows (0 … d/2 − 1).",
        ),
    )  # fmt: skip

    groups = (
        ReadoutGroup("model", ("preset",), _preset),
        ReadoutGroup("scaling", SCALING_INPUTS, _scaling),
        ReadoutGroup("scores", SCALING_INPUTS, _scores),
        ReadoutGroup("coverage", SCALING_INPUTS, _coverage),
        ReadoutGroup("temperature", SCALING_INPUTS, _temperature),
        ReadoutGroup("angle", (*SCALING_INPUTS, "pair"), _angle),
    )

    figures = (
        "wavelengths", "scale_factor", "coverage", "angle", "temperature", "scores", "readout",
    )  # fmt: skip
    figure_pairs = (("wavelengths", "readout"),)
    animated = "seq_len"

    @classmethod
    def limits(cls, values: Mapping[str, Value]) -> Limits:
        v = Inputs(values, frozenset(("low_freq_factor", "high_freq_factor", "beta_fast",
                                      "beta_slow", "scheme", "factor_lists", "dim")),
                   "context limits")  # fmt: skip
        out: Limits = {"pair": (0, v.as_int("dim") // 2 - 1)}
        if v.as_str("scheme") == "longrope":  # one factor per pair: d is the lists' length × 2
            n = 2 * len(factor_lists(v.as_str("factor_lists"))[0])
            out["dim"] = (n, n)
        return out | {
            "low_freq_factor": (None, v.as_float("high_freq_factor") - FREQ_GAP),
            "high_freq_factor": (v.as_float("low_freq_factor") + FREQ_GAP, None),
            "beta_slow": (None, v.as_float("beta_fast")),
            "beta_fast": (v.as_float("beta_slow"), None),
        }

    @classmethod
    def couple(cls, given: Mapping[str, Value], base: Mapping[str, Value]) -> dict[str, Value]:
        """A preset given (not ``custom``) sets every scheme parameter and the length; a
        parameter given with a value other than its preset's turns the preset to ``custom``."""
        out = dict(given)
        preset = given.get("preset", base.get("preset", CUSTOM))
        if preset == CUSTOM or preset not in PRESET_IDS:
            return out  # (an unknown preset is refused by validation)
        chosen = preset_values(str(preset))
        if "preset" in given:
            for name, value in chosen.items():
                out.setdefault(name, value)
        # the length shown is not the model's: a preset keeps its name when it moves
        moved = any(n in given and given[n] != chosen[n] for n in SCHEME_PARAMS)
        if moved:
            out["preset"] = CUSTOM
        return out


def values_for_config(cfg: ModelConfig) -> dict[str, Value]:
    """The tab's full value set for a model configuration (preset ``custom``), validated:
    :class:`ConfigError` when a value is out of the tab's ranges."""
    given: dict[str, Value] = {"preset": CUSTOM, **config_values(cfg)}
    try:
        return ContextModel.resolve(given)
    except ParamError as err:
        raise ConfigError(f"{cfg.name or 'config'}: {err}") from None


def read_config_values(path: str | os.PathLike[str]) -> dict[str, Value]:
    """The tab's full value set for the model config file ``path`` (``--config FILE`` and
    File ▸ Open model config… both read through here): :class:`ConfigError` naming the field
    when the file cannot be used, :class:`OSError` when it cannot be read."""
    return values_for_config(read_config(path))


MODEL = ContextModel
