"""RoPE scaling for long context: the schemes real models ship, exactly as the reference does.

Every scheme maps the default inverse frequencies ``θ_i = base^(-2i/d)`` (``i = 0 … d/2 - 1``,
``d`` the *rotary* dimension, see :func:`rotary_dim`) to scaled ones, and says by how much the
cos/sin tables are multiplied afterwards (the *attention factor*; 1.0 where the scheme has
none). The facts follow the Hugging Face ``transformers`` reference (``modeling_rope_utils``:
``_compute_linear_scaling_rope_parameters``, ``_compute_dynamic_ntk_parameters``,
``_compute_yarn_parameters``, ``_compute_longrope_parameters``, ``_compute_llama3_parameters``),
computed here in float64:

* **linear** (position interpolation): ``θ_i / s`` for every pair.
* **ntk** (NTK-aware, static): the base becomes ``base · s^(d/(d-2))``, so pair 0 is kept and
  the last pair is divided by exactly ``s``.
* **dynamic** (dynamic NTK): the same with ``s' = s·L/L₀ - (s - 1)`` for the current length
  ``L`` (``L₀ = max_position_embeddings``); nothing changes while ``L ≤ L₀``.
* **yarn** (NTK-by-parts): a ramp ``γ_i``, linear in the pair index, 0 below the low correction
  dim and 1 above the high one: ``θ'_i = θ_i·γ_i/s + θ_i·(1 - γ_i)``.
  The correction dim of ``n`` rotations is ``d·ln(L₀/(2πn)) / (2 ln base)``; ``beta_fast``
  gives the low one (floored), ``beta_slow`` the high one (ceiled) unless ``truncate=False``;
  clamped to ``[0, d - 1]``. Attention factor ``0.1·ln s + 1``, or ``mscale`` ratio
  ``get_mscale(s, mscale) / get_mscale(s, mscale_all_dim)`` when both are given and non-zero,
  or ``attention_factor`` itself when given.
* **longrope**: ``θ_i / f_i`` with ``f`` the *long* factor list when the current length exceeds
  the original one, else the *short* list; attention factor ``sqrt(1 + ln s / ln L₀)``
  (1 when ``s ≤ 1``), or given.
* **llama3**: wavelength ``λ_i = 2π/θ_i``; pairs with ``λ < L₀/high_freq_factor`` are kept,
  those with ``λ > L₀/low_freq_factor`` are divided by ``s``, the rest are smoothed:
  ``(1 - σ)·θ_i/s + σ·θ_i`` with ``σ = (L₀/λ - low) / (high - low)``.

Each function returns a :class:`RopeScaling`: ``inv_freq`` and ``attention_factor`` first (so
``inv_freq, attention, *_ = yarn_scaling(...)`` works), then what a view needs per pair: the
frequencies before scaling, the per-pair divisor ``inv_freq_original / inv_freq`` and the band
of each pair (:data:`KEPT`, :data:`SMOOTHED`, :data:`DIVIDED`), and the scheme's boundaries.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import torch
from torch import Tensor

from ._validate import check_base, check_choice, check_even_dim, check_positive_int

__all__ = [
    "BAND_NAMES",
    "DIVIDED",
    "KEPT",
    "SCHEMES",
    "SMOOTHED",
    "RopeScaling",
    "default_scaling",
    "dynamic_ntk_scaling",
    "linear_scaling",
    "llama3_scaling",
    "longrope_scaling",
    "ntk_scaling",
    "rope_inv_freq",
    "rotary_dim",
    "scale",
    "yarn_correction_dim",
    "yarn_correction_range",
    "yarn_get_mscale",
    "yarn_scaling",
]

#: Band of a pair: left as it was (extrapolated: high frequencies).
KEPT = 0
#: Band of a pair: between kept and divided (Llama 3's smoothing, YaRN's ramp, NTK's middle).
SMOOTHED = 1
#: Band of a pair: divided by the scheme's factor (interpolated: low frequencies).
DIVIDED = 2
#: Names of the bands, indexed by band code.
BAND_NAMES = ("kept", "smoothed", "divided")
#: The schemes :func:`scale` knows (the ``rope_type`` values of a config, plus static ``ntk``).
SCHEMES = ("default", "linear", "ntk", "dynamic", "yarn", "longrope", "llama3")


class RopeScaling(NamedTuple):
    """The result of a scaling scheme (all tensors float64, shape ``(d/2,)``).

    ``inv_freq``: the frequencies after scaling; ``attention_factor``: what cos and sin are
    multiplied by (1.0 where the scheme has none); ``inv_freq_original``: ``base^(-2i/d)``;
    ``scale``: ``inv_freq_original / inv_freq`` (1 = kept, ``s`` = divided by the factor);
    ``band``: int64 codes :data:`KEPT` / :data:`SMOOTHED` / :data:`DIVIDED`; ``bounds``: the
    scheme's boundaries by name (YaRN ``low_dim``/``high_dim`` in pair indices, Llama 3
    ``high_freq_wavelen``/``low_freq_wavelen`` in tokens, NTK ``base`` after scaling, LongRoPE
    ``long`` 1.0 when the long list is in use, else 0.0).
    """

    inv_freq: Tensor
    attention_factor: float
    inv_freq_original: Tensor
    scale: Tensor
    band: Tensor
    bounds: Mapping[str, float]

    def band_counts(self) -> dict[str, int]:
        """How many pairs are in each band: ``{"kept": …, "smoothed": …, "divided": …}``."""
        return {name: int((self.band == code).sum()) for code, name in enumerate(BAND_NAMES)}


# -- argument checks --------------------------------------------------------------------------
def _finite(value: object, name: str, *, minimum: float, strict: bool = False) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    real = float(value) if ok else math.nan  # type: ignore[arg-type]
    if not math.isfinite(real) or real < minimum or (strict and real == minimum):
        rel = ">" if strict else ">="
        raise ValueError(f"{name} must be a finite number {rel} {minimum:g}, got {value!r}")
    return real


def _factor(value: object, name: str = "factor") -> float:
    return _finite(value, name, minimum=1.0)


def _length(value: object, name: str) -> int:
    return check_positive_int(value, name, minimum=1, maximum=2**40)


def _seq_len(value: object) -> int | None:
    return None if value is None else check_positive_int(value, "seq_len", maximum=2**40)


# -- the default frequencies --------------------------------------------------------------------
def rotary_dim(head_dim: int, partial_rotary_factor: float = 1.0) -> int:
    """The number of rotated dimensions: ``int(head_dim · partial_rotary_factor)`` (the rest of
    the head passes through unrotated). Raises ``ValueError`` when it is not even and >= 2."""
    check_positive_int(head_dim, "head_dim")
    prf = _finite(partial_rotary_factor, "partial_rotary_factor", minimum=0.0, strict=True)
    if prf > 1.0:
        raise ValueError(f"partial_rotary_factor must be in (0, 1], got {partial_rotary_factor!r}")
    dim = int(head_dim * prf)
    if dim < 2 or dim % 2:
        raise ValueError(
            f"the rotary dimension int(head_dim * partial_rotary_factor) = int({head_dim} * "
            f"{prf:g}) = {dim} must be an even integer >= 2"
        )
    return dim


def rope_inv_freq(base: float, dim: int) -> Tensor:
    """``base^(-2i/d)`` for ``i = 0 … d/2 - 1``, float64, shape ``(d/2,)``."""
    b = check_base(base)
    d = check_even_dim(dim)
    return 1.0 / (b ** (torch.arange(0, d, 2, dtype=torch.float64) / d))


def _result(
    inv_freq: Tensor,
    original: Tensor,
    attention_factor: float,
    band: Tensor,
    bounds: Mapping[str, float] | None = None,
) -> RopeScaling:
    return RopeScaling(
        inv_freq, float(attention_factor), original, original / inv_freq, band, dict(bounds or {})
    )


def _bands(n: int, code: int) -> Tensor:
    return torch.full((n,), code, dtype=torch.int64)


def default_scaling(base: float, dim: int) -> RopeScaling:
    """No scaling: every pair kept, attention factor 1."""
    inv = rope_inv_freq(base, dim)
    return _result(inv.clone(), inv, 1.0, _bands(inv.numel(), KEPT))


def linear_scaling(base: float, dim: int, factor: float) -> RopeScaling:
    """Position interpolation: every frequency divided by ``factor`` (>= 1)."""
    s = _factor(factor)
    inv = rope_inv_freq(base, dim)
    code = DIVIDED if s > 1.0 else KEPT
    return _result(inv / s, inv, 1.0, _bands(inv.numel(), code))


def _ntk(base: float, dim: int, s: float) -> RopeScaling:
    inv = rope_inv_freq(base, dim)
    d = check_even_dim(dim)
    new_base = check_base(base) * s ** (d / (d - 2)) if d > 2 else check_base(base)
    # d = 2 has one pair, whose exponent is 0: NTK cannot move it (the reference divides by 0)
    scaled = 1.0 / (new_base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    band = _bands(inv.numel(), SMOOTHED if s > 1.0 else KEPT)
    band[0] = KEPT
    if s > 1.0 and inv.numel() > 1:
        band[-1] = DIVIDED  # exponent (d-2)/d · d/(d-2) = 1: divided by exactly s
    return _result(scaled, inv, 1.0, band, {"base": new_base, "factor": s})


def ntk_scaling(base: float, dim: int, factor: float) -> RopeScaling:
    """NTK-aware base scaling: ``base · factor^(d/(d-2))``; pair 0 kept, the last divided by
    ``factor``, the others in between."""
    return _ntk(base, dim, _factor(factor))


def dynamic_ntk_scaling(
    base: float,
    dim: int,
    factor: float,
    max_position_embeddings: int,
    seq_len: int | None = None,
) -> RopeScaling:
    """Dynamic NTK at the current length ``seq_len`` (``None``: the original length).

    ``max_position_embeddings`` is the original length ``L₀``; the length used is
    ``L = max(seq_len, L₀)`` and the effective factor ``factor·L/L₀ - (factor - 1)`` (1 at
    ``L₀``), so the frequencies are the default ones up to ``L₀`` and move as ``L`` grows.
    ``bounds["factor"]`` is that effective factor.
    """
    s = _factor(factor)
    original = _length(max_position_embeddings, "max_position_embeddings")
    n = _seq_len(seq_len)
    length = original if n is None else max(n, original)
    return _ntk(base, dim, s * length / original - (s - 1.0))


def yarn_get_mscale(scale: float, mscale: float = 1.0) -> float:
    """YaRN's attention scale: 1 for ``scale <= 1``, else ``0.1·mscale·ln(scale) + 1``."""
    if scale <= 1.0:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def yarn_correction_dim(num_rotations: float, dim: int, base: float, original: int) -> float:
    """The (fractional) pair-dimension at which the original length ``original`` makes
    ``num_rotations`` full turns: ``d·ln(original/(2π·num_rotations)) / (2·ln base)``."""
    return dim * math.log(original / (num_rotations * 2.0 * math.pi)) / (2.0 * math.log(base))


def yarn_correction_range(
    beta_fast: float,
    beta_slow: float,
    dim: int,
    base: float,
    original: int,
    truncate: bool = True,
) -> tuple[float, float]:
    """YaRN's ramp ends ``(low, high)``: the correction dims of ``beta_fast`` (floored) and
    ``beta_slow`` (ceiled; both left fractional when ``truncate`` is false), clamped to
    ``low >= 0`` and ``high <= d - 1`` as the reference does."""
    low = yarn_correction_dim(beta_fast, dim, base, original)
    high = yarn_correction_dim(beta_slow, dim, base, original)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(float(low), 0.0), min(float(high), float(dim - 1))


def yarn_scaling(
    base: float,
    dim: int,
    factor: float,
    original_max_position_embeddings: int,
    *,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    mscale: float | None = None,
    mscale_all_dim: float | None = None,
    attention_factor: float | None = None,
    truncate: bool = True,
) -> RopeScaling:
    """YaRN (NTK-by-parts) for ``factor`` over the original length.

    Pairs below the low correction dim (fast: more than ``beta_fast`` turns in the original
    length) are kept, those above the high one (``beta_slow`` turns) divided by ``factor``, and
    the ramp between them is linear in the pair index. ``bounds``: ``low_dim``, ``high_dim``
    (the ramp ends, after floor/ceil and clamping). Attention factor: ``attention_factor`` if
    given; else ``get_mscale(s, mscale)/get_mscale(s, mscale_all_dim)`` when both are non-zero;
    else ``0.1·ln s + 1``.
    """
    b = check_base(base)
    d = check_even_dim(dim)
    s = _factor(factor)
    original = _length(original_max_position_embeddings, "original_max_position_embeddings")
    slow = _finite(beta_slow, "beta_slow", minimum=0.0, strict=True)
    fast = _finite(beta_fast, "beta_fast", minimum=0.0, strict=True)
    if fast < slow:
        raise ValueError(f"beta_fast must be >= beta_slow, got {beta_fast!r} < {beta_slow!r}")
    if not isinstance(truncate, bool):
        raise ValueError(f"truncate must be true or false, got {truncate!r}")
    if attention_factor is not None:
        attention = _finite(attention_factor, "attention_factor", minimum=0.0, strict=True)
    else:
        ms = None if mscale is None else _finite(mscale, "mscale", minimum=0.0)
        msa = None if mscale_all_dim is None else _finite(mscale_all_dim, "mscale_all_dim",
                                                          minimum=0.0)  # fmt: skip
        if ms and msa:
            attention = yarn_get_mscale(s, ms) / yarn_get_mscale(s, msa)
        else:
            attention = yarn_get_mscale(s)
    inv = rope_inv_freq(b, d)
    low, high = yarn_correction_range(fast, slow, d, b, original, truncate)
    top = high + 0.001 if low == high else high  # the reference's guard against 0/0
    ramp = ((torch.arange(d // 2, dtype=torch.float64) - low) / (top - low)).clamp(0.0, 1.0)
    scaled = (inv / s) * ramp + inv * (1.0 - ramp)
    band = torch.where(ramp == 0.0, KEPT, torch.where(ramp == 1.0, DIVIDED, SMOOTHED))
    if s == 1.0:
        band = _bands(d // 2, KEPT)
    return _result(scaled, inv, attention, band.to(torch.int64), {"low_dim": low, "high_dim": high})


def llama3_scaling(
    base: float,
    dim: int,
    factor: float,
    low_freq_factor: float,
    high_freq_factor: float,
    original_max_position_embeddings: int,
) -> RopeScaling:
    """Llama 3.1's rule: keep short wavelengths, divide long ones, smooth between.

    ``bounds``: ``high_freq_wavelen = L₀/high_freq_factor`` (below: kept) and
    ``low_freq_wavelen = L₀/low_freq_factor`` (above: divided by ``factor``).
    """
    s = _factor(factor)
    low = _finite(low_freq_factor, "low_freq_factor", minimum=0.0, strict=True)
    high = _finite(high_freq_factor, "high_freq_factor", minimum=0.0, strict=True)
    if high <= low:
        raise ValueError(
            f"high_freq_factor must be > low_freq_factor, got {high_freq_factor!r} <= "
            f"{low_freq_factor!r}"
        )
    original = _length(original_max_position_embeddings, "original_max_position_embeddings")
    inv = rope_inv_freq(base, dim)
    low_wavelen = original / low
    high_wavelen = original / high
    wavelen = 2.0 * math.pi / inv
    divided = wavelen > low_wavelen
    kept = wavelen < high_wavelen
    smooth = (original / wavelen - low) / (high - low)
    smoothed = (1.0 - smooth) * inv / s + smooth * inv
    scaled = torch.where(divided, inv / s, torch.where(kept, inv, smoothed))
    band = torch.where(kept, KEPT, torch.where(divided, DIVIDED, SMOOTHED)).to(torch.int64)
    bounds = {"high_freq_wavelen": high_wavelen, "low_freq_wavelen": low_wavelen}
    return _result(scaled, inv, 1.0, band, bounds)


def _factor_list(values: Sequence[float] | Tensor, name: str, n: int) -> Tensor:
    t = torch.as_tensor(values, dtype=torch.float64) if not isinstance(values, Tensor) else values
    t = t.to(torch.float64)
    if t.dim() != 1 or t.numel() != n:
        raise ValueError(f"{name} must hold {n} numbers (one per pair), got {t.numel()}")
    if not bool(torch.isfinite(t).all()) or bool((t <= 0).any()):
        raise ValueError(f"{name} must hold finite numbers > 0")
    return t


def longrope_scaling(
    base: float,
    dim: int,
    short_factor: Sequence[float] | Tensor,
    long_factor: Sequence[float] | Tensor,
    original_max_position_embeddings: int,
    factor: float,
    seq_len: int | None = None,
    *,
    attention_factor: float | None = None,
) -> RopeScaling:
    """LongRoPE: each pair divided by its own factor, from the *long* list when ``seq_len``
    exceeds the original length, else from the *short* list (``seq_len=None``: short).

    ``factor`` is the context extension ``s`` (``max_position_embeddings /
    original_max_position_embeddings`` for Phi-3); the attention factor is
    ``attention_factor`` if given, else ``sqrt(1 + ln s / ln L₀)`` (1 when ``s <= 1``).
    Pairs whose factor is exactly 1 are :data:`KEPT`, the others :data:`DIVIDED`;
    ``bounds["long"]`` is 1.0 when the long list is in use.
    """
    d = check_even_dim(dim)
    original = _length(original_max_position_embeddings, "original_max_position_embeddings")
    s = _finite(factor, "factor", minimum=0.0, strict=True)
    short = _factor_list(short_factor, "short_factor", d // 2)
    long_ = _factor_list(long_factor, "long_factor", d // 2)
    n = _seq_len(seq_len)
    if attention_factor is not None:
        attention = _finite(attention_factor, "attention_factor", minimum=0.0, strict=True)
    elif s <= 1.0:
        attention = 1.0
    else:
        attention = math.sqrt(1.0 + math.log(s) / math.log(original))
    use_long = n is not None and n > original
    ext = long_ if use_long else short
    inv = rope_inv_freq(base, d)
    band = torch.where(ext == 1.0, KEPT, DIVIDED).to(torch.int64)
    return _result(inv / ext, inv, attention, band, {"long": 1.0 if use_long else 0.0})


def scale(
    scheme: str,
    base: float,
    dim: int,
    params: Mapping[str, object] | None = None,
    seq_len: int | None = None,
) -> RopeScaling:
    """Run scheme ``scheme`` (one of :data:`SCHEMES`) with keyword ``params`` named as the
    scheme function's arguments (``factor``, ``beta_fast``…); ``seq_len`` (the current length)
    is passed to the schemes that depend on it (``dynamic``, ``longrope``)."""
    check_choice(scheme, "scheme", SCHEMES)
    kw: dict[str, object] = dict(params or {})
    functions: dict[str, Callable[..., RopeScaling]] = {
        "default": default_scaling,
        "linear": linear_scaling,
        "ntk": ntk_scaling,
        "dynamic": dynamic_ntk_scaling,
        "yarn": yarn_scaling,
        "longrope": longrope_scaling,
        "llama3": llama3_scaling,
    }
    fn = functions[scheme]
    if scheme in ("dynamic", "longrope"):
        kw["seq_len"] = seq_len
    try:
        return fn(base, dim, **kw)
    except TypeError as err:  # a missing or unknown parameter name
        raise ValueError(f"{scheme} scaling: {err}") from None
