"""RoPE scaling schemes against closed forms written out here (numpy float64, from the published
formulas: Hugging Face ``modeling_rope_utils``, the YaRN paper, Llama 3.1's rule, LongRoPE).
Expected values never come from :mod:`posenc_gui.core.rope_scaling` itself."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from posenc_gui.core.rope_scaling import (
    BAND_NAMES,
    DIVIDED,
    KEPT,
    SMOOTHED,
    dynamic_ntk_scaling,
    linear_scaling,
    llama3_scaling,
    longrope_scaling,
    ntk_scaling,
    rope_inv_freq,
    rotary_dim,
    scale,
    yarn_correction_range,
    yarn_get_mscale,
    yarn_scaling,
)
from posenc_gui.state.model_config import load_preset

PRESETS = Path(__file__).resolve().parents[2] / "posenc_gui" / "resources" / "models"
RTOL = 1e-14  # float64 rounding (a pow and a division or two)


# -- closed forms, written from the published formulas -------------------------------------------
def theta(base: float, d: int) -> np.ndarray:
    """θ_i = base^(-2i/d), i = 0 … d/2 - 1."""
    return np.array([base ** (-(2.0 * i) / d) for i in range(d // 2)])


def llama3_closed(base: float, d: int, s: float, lo: float, hi: float, l0: int) -> np.ndarray:
    out = []
    for t in theta(base, d):
        wavelen = 2 * math.pi / t
        if wavelen < l0 / hi:
            out.append(t)
        elif wavelen > l0 / lo:
            out.append(t / s)
        else:
            sigma = (l0 / wavelen - lo) / (hi - lo)
            out.append((1 - sigma) * t / s + sigma * t)
    return np.array(out)


def yarn_ends(base: float, d: int, l0: int, fast: float, slow: float, trunc: bool) -> tuple:
    def dim_of(rotations: float) -> float:  # the dim at which l0 makes `rotations` turns
        return d * math.log(l0 / (2 * math.pi * rotations)) / (2 * math.log(base))

    lo, hi = dim_of(fast), dim_of(slow)
    if trunc:
        lo, hi = math.floor(lo), math.ceil(hi)
    return max(lo, 0), min(hi, d - 1)


def yarn_closed(
    base: float, d: int, s: float, l0: int, fast: float = 32, slow: float = 1, trunc: bool = True
) -> np.ndarray:
    lo, hi = yarn_ends(base, d, l0, fast, slow, trunc)
    if lo == hi:
        hi += 0.001
    out = []
    for j, t in enumerate(theta(base, d)):
        r = min(max((j - lo) / (hi - lo), 0.0), 1.0)  # 0: extrapolate (keep), 1: interpolate
        out.append(t / s * r + t * (1 - r))
    return np.array(out)


def ntk_closed(base: float, d: int, s: float) -> np.ndarray:
    return theta(base * s ** (d / (d - 2)), d)


def close(actual: torch.Tensor, expected: np.ndarray, rtol: float = RTOL) -> None:
    assert actual.dtype == torch.float64
    np.testing.assert_allclose(actual.numpy(), expected, rtol=rtol, atol=0)


# -- every bundled preset ----------------------------------------------------------------------
def preset_ids() -> list[str]:
    return sorted(p.stem for p in PRESETS.glob("*.json"))


def test_the_presets_of_the_issue_are_bundled() -> None:
    wanted = {
        *("llama-2-7b", "llama-3-8b", "llama-3.1-8b", "mistral-7b-v0.1", "mistral-7b-v0.3"),
        *("qwen2.5-7b", "qwen2.5-7b-yarn", "gpt-neox-20b", "deepseek-v3", "gemma-2-9b"),
    }
    assert wanted <= set(preset_ids())


@pytest.mark.parametrize("preset", preset_ids())
def test_preset_inverse_frequencies_match_the_closed_form(preset: str) -> None:
    raw = json.loads((PRESETS / f"{preset}.json").read_text(encoding="utf-8"))["config"]
    base = float(raw.get("rope_theta", raw.get("rotary_emb_base")))
    head = raw.get("qk_rope_head_dim") or raw.get("head_dim")
    head = head or raw["hidden_size"] // raw["num_attention_heads"]
    d = int(head * raw.get("partial_rotary_factor", raw.get("rotary_pct", 1.0)))
    rs = raw.get("rope_scaling") or {}
    kind = rs.get("rope_type", rs.get("type", "default"))
    if kind == "default":
        expected, attention = theta(base, d), 1.0
    elif kind == "llama3":
        lo, hi, l0 = (rs[k] for k in ("low_freq_factor", "high_freq_factor",
                                      "original_max_position_embeddings"))  # fmt: skip
        expected = llama3_closed(base, d, rs["factor"], lo, hi, l0)
        attention = 1.0
    elif kind == "yarn":
        s = rs["factor"]
        l0 = rs.get("original_max_position_embeddings") or raw["max_position_embeddings"]
        expected = yarn_closed(base, d, s, l0, rs.get("beta_fast", 32), rs.get("beta_slow", 1))
        m, mall = rs.get("mscale"), rs.get("mscale_all_dim")
        attention = (0.1 * m * math.log(s) + 1) / (0.1 * mall * math.log(s) + 1) if m and mall \
            else 0.1 * math.log(s) + 1  # fmt: skip
    elif kind in ("longrope", "su"):
        # Phi-3: θ_i / short_factor_i at the original length (no current length given), and
        # sqrt(1 + ln s / ln L₀) with s = max_position_embeddings / L₀
        l0 = raw.get("original_max_position_embeddings") or rs["original_max_position_embeddings"]
        expected = theta(base, d) / np.asarray(rs["short_factor"], dtype=np.float64)
        s = raw["max_position_embeddings"] / l0
        attention = math.sqrt(1 + math.log(s) / math.log(l0))
    else:
        pytest.fail(f"no closed form written for {kind}")
    config = load_preset(preset)
    assert config.rotary_dim == d
    result = scale(config.rope_type, config.rope_theta, config.rotary_dim, config.scheme_params())
    assert result.inv_freq.shape == (d // 2,)
    close(result.inv_freq, expected)
    close(result.inv_freq_original, theta(base, d))
    assert result.attention_factor == pytest.approx(attention, rel=1e-15)


def test_deepseek_v3_yarn_on_64_rotary_dims_has_attention_factor_one() -> None:
    c = load_preset("deepseek-v3")
    r = scale(c.rope_type, c.rope_theta, c.rotary_dim, c.scheme_params())
    assert c.rotary_dim == 64 and r.inv_freq.shape == (32,)
    assert r.attention_factor == 1.0  # mscale / mscale_all_dim = 1: the factor cancels
    lo, hi = yarn_ends(10000.0, 64, 4096, 32, 1, True)
    assert r.bounds == {"low_dim": lo, "high_dim": hi}
    assert (r.band[: int(lo) + 1] == KEPT).all() and (r.band[int(hi) :] == DIVIDED).all()


def test_qwen_yarn_attention_factor_is_the_paper_one() -> None:
    c = load_preset("qwen2.5-7b-yarn")
    r = scale(c.rope_type, c.rope_theta, c.rotary_dim, c.scheme_params())
    assert r.attention_factor == pytest.approx(0.1 * math.log(4.0) + 1.0, rel=1e-15)


# -- Llama 3 bands -----------------------------------------------------------------------------
def test_llama31_band_counts_follow_the_rule() -> None:
    base, d, l0 = 500000.0, 128, 8192
    wavelen = 2 * math.pi / theta(base, d)
    kept = int((wavelen < l0 / 4.0).sum())
    divided = int((wavelen > l0 / 1.0).sum())
    smoothed = d // 2 - kept - divided
    c = load_preset("llama-3.1-8b")
    r = scale(c.rope_type, c.rope_theta, c.rotary_dim, c.scheme_params())
    assert r.band_counts() == {"kept": kept, "smoothed": smoothed, "divided": divided}
    # by hand: 2π·500000^(i/64) < 2048 for i <= 28, > 8192 for i >= 35
    assert (kept, smoothed, divided) == (29, 6, 29)
    assert r.bounds == {"high_freq_wavelen": 2048.0, "low_freq_wavelen": 8192.0}
    close(r.scale[r.band == KEPT], np.ones(kept))
    close(r.scale[r.band == DIVIDED], np.full(divided, 8.0))
    mid = r.scale[r.band == SMOOTHED]
    assert ((mid > 1) & (mid < 8)).all() and (mid.diff() > 0).all()


def test_llama3_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match=r"^high_freq_factor must be > low_freq_factor"):
        llama3_scaling(500000.0, 128, 8.0, 4.0, 4.0, 8192)
    with pytest.raises(ValueError, match=r"^factor must be a finite number >= 1"):
        llama3_scaling(500000.0, 128, 0.5, 1.0, 4.0, 8192)
    with pytest.raises(ValueError, match=r"^original_max_position_embeddings must be an integer"):
        llama3_scaling(500000.0, 128, 8.0, 1.0, 4.0, 0)


# -- YaRN --------------------------------------------------------------------------------------
@pytest.mark.parametrize("trunc", [True, False])
def test_yarn_ramp_endpoints(trunc: bool) -> None:
    base, d, s, l0 = 10000.0, 128, 16.0, 4096
    lo, hi = yarn_ends(base, d, l0, 32, 1, trunc)
    assert yarn_correction_range(32, 1, d, base, l0, trunc) == (lo, hi)
    assert (lo == int(lo)) is True if trunc else lo != int(lo)
    r = yarn_scaling(base, d, s, l0, truncate=trunc)
    close(r.inv_freq, yarn_closed(base, d, s, l0, trunc=trunc))
    j = torch.arange(d // 2, dtype=torch.float64)
    assert (r.scale[j <= lo] == 1.0).all()  # below the low end: exactly kept
    close(r.scale[j >= hi], np.full(int((j >= hi).sum()), s))  # above the high end: divided
    inside = (j > lo) & (j < hi)
    assert (r.band[j <= lo] == KEPT).all() and (r.band[j >= hi] == DIVIDED).all()
    assert (r.band[inside] == SMOOTHED).all()
    # the ramp is linear in the pair index: r = (1 - θ'/θ) / (1 - 1/s) = (j - lo) / (hi - lo)
    ramp = (1 - r.inv_freq / r.inv_freq_original) / (1 - 1 / s)
    close(ramp[inside], ((j[inside] - lo) / (hi - lo)).numpy(), rtol=1e-12)


def test_yarn_attention_factor_variants() -> None:
    s = 8.0
    assert yarn_scaling(1e4, 64, s, 2048).attention_factor == pytest.approx(0.1 * math.log(s) + 1)
    ratio = yarn_scaling(1e4, 64, s, 2048, mscale=0.707, mscale_all_dim=1.0).attention_factor
    assert ratio == pytest.approx((0.0707 * math.log(s) + 1) / (0.1 * math.log(s) + 1))
    # only one of the two given: the paper's factor
    one = yarn_scaling(1e4, 64, s, 2048, mscale=0.707).attention_factor
    assert one == pytest.approx(0.1 * math.log(s) + 1)
    assert yarn_scaling(1e4, 64, s, 2048, attention_factor=1.5).attention_factor == 1.5
    assert yarn_get_mscale(1.0) == 1.0 and yarn_get_mscale(0.5, 3.0) == 1.0


def test_yarn_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match=r"^beta_fast must be >= beta_slow"):
        yarn_scaling(1e4, 64, 4.0, 2048, beta_fast=1.0, beta_slow=2.0)
    with pytest.raises(ValueError, match=r"^beta_slow must be a finite number > 0"):
        yarn_scaling(1e4, 64, 4.0, 2048, beta_slow=0.0)
    with pytest.raises(ValueError, match=r"^truncate must be true or false"):
        yarn_scaling(1e4, 64, 4.0, 2048, truncate=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^attention_factor must be a finite number > 0"):
        yarn_scaling(1e4, 64, 4.0, 2048, attention_factor=math.nan)


# -- NTK, dynamic NTK, linear ------------------------------------------------------------------
def test_linear_divides_every_pair() -> None:
    r = linear_scaling(10000.0, 64, 4.0)
    close(r.inv_freq, theta(10000.0, 64) / 4.0)
    assert r.band_counts() == {"kept": 0, "smoothed": 0, "divided": 32}
    assert r.attention_factor == 1.0


def test_ntk_keeps_pair_zero_and_divides_the_last_by_the_factor() -> None:
    r = ntk_scaling(10000.0, 128, 8.0)
    close(r.inv_freq, ntk_closed(10000.0, 128, 8.0))
    assert r.scale[0] == 1.0
    assert float(r.scale[-1]) == pytest.approx(8.0, rel=1e-13)
    assert r.band[0] == KEPT and r.band[-1] == DIVIDED and (r.band[1:-1] == SMOOTHED).all()


@pytest.mark.parametrize("length", [None, 1, 2048, 4096])
def test_dynamic_ntk_is_the_default_up_to_the_original_length(length: int | None) -> None:
    r = dynamic_ntk_scaling(10000.0, 128, 4.0, 4096, length)
    close(r.inv_freq, theta(10000.0, 128))
    assert r.band_counts()["kept"] == 64


@pytest.mark.parametrize("length", [4097, 8192, 65536])
def test_dynamic_ntk_above_the_original_length(length: int) -> None:
    s, l0, d = 4.0, 4096, 128
    effective = s * length / l0 - (s - 1)
    r = dynamic_ntk_scaling(10000.0, d, s, l0, length)
    close(r.inv_freq, ntk_closed(10000.0, d, effective))
    assert float(r.scale[-1]) == pytest.approx(effective, rel=1e-12)
    assert r.bounds["factor"] == pytest.approx(effective)
    longer = dynamic_ntk_scaling(10000.0, d, s, l0, length * 2)
    assert (longer.inv_freq[1:] < r.inv_freq[1:]).all()  # a longer input slows every pair


# -- LongRoPE ----------------------------------------------------------------------------------
SHORT = [1.0 + 0.01 * i for i in range(16)]
LONG = [1.0 + 2.0 * i for i in range(16)]


@pytest.mark.parametrize(("length", "which"), [(None, "short"), (4096, "short"), (4097, "long")])
def test_longrope_short_or_long_by_length(length: int | None, which: str) -> None:
    r = longrope_scaling(10000.0, 32, SHORT, LONG, 4096, 32.0, length)
    factors = np.array(SHORT if which == "short" else LONG)
    close(r.inv_freq, theta(10000.0, 32) / factors)
    assert r.bounds["long"] == (1.0 if which == "long" else 0.0)
    assert r.attention_factor == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)))
    assert r.band[0] == KEPT and (r.band[1:] == DIVIDED).all()


def test_longrope_attention_factor_given_or_none() -> None:
    assert longrope_scaling(1e4, 32, SHORT, LONG, 4096, 1.0).attention_factor == 1.0
    given = longrope_scaling(1e4, 32, SHORT, LONG, 4096, 32.0, attention_factor=1.25)
    assert given.attention_factor == 1.25
    with pytest.raises(ValueError, match=r"^long_factor must hold 16 numbers \(one per pair\)"):
        longrope_scaling(1e4, 32, SHORT, LONG[:-1], 4096, 32.0)
    with pytest.raises(ValueError, match=r"^short_factor must hold finite numbers > 0"):
        longrope_scaling(1e4, 32, [0.0] * 16, LONG, 4096, 32.0)


# -- partial rotary, dispatcher ----------------------------------------------------------------
def test_partial_rotary_shapes() -> None:
    assert rotary_dim(96, 0.25) == 24
    assert rotary_dim(128) == 128
    assert rope_inv_freq(10000.0, rotary_dim(96, 0.25)).shape == (12,)
    neox = load_preset("gpt-neox-20b")
    assert (neox.head_dim, neox.rotary_dim, neox.n_pairs) == (96, 24, 12)
    r = scale(neox.rope_type, neox.rope_theta, neox.rotary_dim, neox.scheme_params())
    close(r.inv_freq, theta(10000.0, 24))  # frequencies over the 24 rotated dims, not 96
    with pytest.raises(ValueError, match=r"rotary dimension .* must be an even integer >= 2"):
        rotary_dim(96, 0.01)
    with pytest.raises(ValueError, match=r"^partial_rotary_factor must be in \(0, 1\]"):
        rotary_dim(96, 1.5)


def test_scale_dispatches_and_refuses_unknown_schemes() -> None:
    assert scale("default", 10000.0, 8).band_counts() == {n: (4 if n == "kept" else 0)
                                                          for n in BAND_NAMES}  # fmt: skip
    close(scale("linear", 10000.0, 8, {"factor": 2.0}).inv_freq, theta(10000.0, 8) / 2)
    with pytest.raises(ValueError, match=r"^scheme must be one of 'default'"):
        scale("rope2", 10000.0, 8)
    with pytest.raises(ValueError, match=r"^linear scaling: "):
        scale("linear", 10000.0, 8, {"factr": 2.0})


def test_phi_35_longrope_uses_the_long_list_past_the_original_length() -> None:
    raw = json.loads((PRESETS / "phi-3.5-mini.json").read_text(encoding="utf-8"))["config"]
    c = load_preset("phi-3.5-mini")
    long_ = np.asarray(raw["rope_scaling"]["long_factor"], dtype=np.float64)
    short = np.asarray(raw["rope_scaling"]["short_factor"], dtype=np.float64)
    assert c.rotary_dim == 96 and long_.size == short.size == 48
    at_long = scale(c.rope_type, c.rope_theta, c.rotary_dim, c.scheme_params(), seq_len=4097)
    at_short = scale(c.rope_type, c.rope_theta, c.rotary_dim, c.scheme_params(), seq_len=4096)
    close(at_long.inv_freq, theta(10000.0, 96) / long_)
    close(at_short.inv_freq, theta(10000.0, 96) / short)
