"""ALiBi's head-count rule, one head's bias, one query's softmax and RoPE's expected score.

Expected values are written out from the paper's rule and from closed forms here, never taken
from the functions under test.
"""

from __future__ import annotations

import math

import pytest
import torch

from posenc_gui.core import (
    alibi_bias,
    alibi_bias_for_slope,
    alibi_rule,
    alibi_slopes,
    causal_softmax_row,
    nearest_keys_holding,
    rope_expected_score,
    rope_mean_score,
    rope_score_by_offset,
)

# Press et al.: n a power of two -> 2^(-8h/n), h = 1..n. Otherwise the nearest lower power of
# two p first, then every other slope of 2p (h = 1, 3, 5, ...), n - p of them.
SLOPES_8 = [2.0**-1, 2.0**-2, 2.0**-3, 2.0**-4, 2.0**-5, 2.0**-6, 2.0**-7, 2.0**-8]
SLOPES_12 = [*SLOPES_8, 2.0**-0.5, 2.0**-1.5, 2.0**-2.5, 2.0**-3.5]  # 2p = 16: 2^(-h/2)
SLOPES_20 = [2.0 ** (-h / 2) for h in range(1, 17)] + [  # p = 16: 2^(-h/2)
    2.0**-0.25, 2.0**-0.75, 2.0**-1.25, 2.0**-1.75,  # 2p = 32: 2^(-h/4) at h = 1, 3, 5, 7
]  # fmt: skip


@pytest.mark.parametrize(
    ("n", "expected", "lower", "extra"),
    [(8, SLOPES_8, 8, ()), (12, SLOPES_12, 8, (1, 3, 5, 7)), (20, SLOPES_20, 16, (1, 3, 5, 7))],
)
def test_slopes_follow_the_papers_rule(
    n: int, expected: list[float], lower: int, extra: tuple[int, ...]
) -> None:
    assert alibi_slopes(n).tolist() == pytest.approx(expected, rel=1e-15)
    rule = alibi_rule(n)
    assert list(rule.slopes) == pytest.approx(expected, rel=1e-15)
    assert rule.lower == lower and rule.extra_heads == extra
    assert rule.power_of_two == (n == lower) and rule.doubled == 2 * lower
    assert [2.0**e for e in rule.exponents] == pytest.approx(expected, rel=1e-15)


def test_rule_agrees_with_slopes_for_every_head_count() -> None:
    for n in range(1, 65):
        assert list(alibi_rule(n).slopes) == alibi_slopes(n).tolist(), n
    assert alibi_rule(1).slopes == (2.0**-8,)
    assert alibi_rule(3).extra_heads == (1,) and alibi_rule(3).lower == 2
    with pytest.raises(ValueError, match="num_heads"):
        alibi_rule(0)


def test_bias_of_one_slope() -> None:
    m, n = 0.25, 5
    bias = alibi_bias_for_slope(m, n)
    assert bias.shape == (n, n) and bias.dtype == torch.float64
    for i in range(n):
        for j in range(n):
            if j > i:
                assert bias[i, j].item() == -math.inf
            else:
                assert bias[i, j].item() == -m * (i - j)
    assert bias[4, 0].item() == -1.0 and bias[2, 2].item() == 0.0
    full = alibi_bias(12, 9)
    for h, slope in enumerate(SLOPES_12):
        torch.testing.assert_close(alibi_bias_for_slope(slope, 9), full[h])
    with pytest.raises(ValueError, match="slope"):
        alibi_bias_for_slope(-1.0, 3)


@pytest.mark.parametrize("slope", [0.0, 1 / 16, 0.5, 2.0**-0.5])
@pytest.mark.parametrize("query", [0, 1, 17, 63])
def test_softmax_rows_sum_to_one_and_mask_the_future(slope: float, query: int) -> None:
    gen = torch.Generator().manual_seed(3)
    logits = torch.randn(64, dtype=torch.float64, generator=gen)
    w = causal_softmax_row(logits, query, slope)
    assert w.shape == (64,)
    assert float(w.sum()) == pytest.approx(1.0, abs=1e-14)
    assert bool((w[query + 1 :] == 0).all()) and bool((w[: query + 1] > 0).all())
    # the definition, written out: exp(s_j − m(i − j)) / Σ_k exp(s_k − m(i − k))
    e = [math.exp(float(logits[j]) - slope * (query - j)) for j in range(query + 1)]
    assert w[: query + 1].tolist() == pytest.approx([x / sum(e) for x in e], rel=1e-12)


def test_zero_logits_give_uniform_and_geometric_weights() -> None:
    i, m = 63, 1 / 16
    flat = causal_softmax_row(torch.zeros(64), i, 0.0)
    assert flat[: i + 1].tolist() == pytest.approx([1 / 64] * 64, rel=1e-14)
    geo = causal_softmax_row(torch.zeros(64), i, m)
    norm = (1 - math.exp(-m)) / (1 - math.exp(-m * (i + 1)))
    expected = [math.exp(-m * (i - j)) * norm for j in range(i + 1)]
    assert geo.tolist() == pytest.approx(expected, rel=1e-12)


def test_nearest_keys_holding() -> None:
    flat = causal_softmax_row(torch.zeros(20), 9, 0.0)  # 10 keys of 0.1
    assert nearest_keys_holding(flat, 9, 0.5) == 5
    assert nearest_keys_holding(flat, 9, 0.9) == 9
    assert nearest_keys_holding(flat, 9, 1.0) == 10
    m = 0.5
    geo = causal_softmax_row(torch.zeros(64), 63, m)
    # nearest k keys hold (1 − e^{−mk}) / (1 − e^{−64m}): smallest k with that >= 1/2
    total = 1 - math.exp(-64 * m)
    k = next(k for k in range(1, 65) if (1 - math.exp(-m * k)) / total >= 0.5)
    assert nearest_keys_holding(geo, 63, 0.5) == k == 2
    with pytest.raises(ValueError, match="fraction"):
        nearest_keys_holding(flat, 9, 0.0)


@pytest.mark.parametrize(
    ("dim", "base", "rho"), [(64, 10000.0, 1.0), (16, 100.0, 0.3), (2, 10.0, 0.0)]
)
def test_rope_expected_score_closed_form(dim: int, base: float, rho: float) -> None:
    r = [0, 1, 5, 100, 2048]
    got = rope_expected_score(r, dim, base, correlation=rho)
    assert got[0].item() == pytest.approx(rho * dim, abs=1e-12)  # E⟨q, k⟩ = ρ·E|q|² = ρd
    for k, dist in enumerate(r):
        thetas = [base ** (-2 * i / dim) for i in range(dim // 2)]
        expected = 2 * rho * sum(math.cos(dist * t) for t in thetas)
        assert got[k].item() == pytest.approx(expected, abs=1e-9)
        assert got[k].item() >= -rho * dim - 1e-9


def test_rope_mean_score_is_the_mean_of_rope_scores() -> None:
    dim, base, rho, samples, seed = 8, 500.0, 0.6, 5, 11
    r = torch.arange(-3, 40, dtype=torch.float64)
    gen = torch.Generator().manual_seed(seed)
    q, z = torch.randn(2, samples, dim, dtype=torch.float64, generator=gen)
    k = rho * q + math.sqrt(1 - rho * rho) * z
    for layout in ("interleaved", "half"):
        scores = torch.stack(
            [rope_score_by_offset(q[s], k[s], r, base=base, layout=layout) for s in range(samples)]
        )
        got = rope_mean_score(
            r, dim, base, correlation=rho, samples=samples, seed=seed, layout=layout
        )
        torch.testing.assert_close(got, scores.mean(dim=0), rtol=1e-12, atol=1e-12)
    at_zero = rope_mean_score([0], dim, base, correlation=rho, samples=samples, seed=seed)
    assert at_zero.item() == pytest.approx(float((q * k).sum(dim=1).mean()), rel=1e-12)


def test_rope_mean_score_converges_to_the_expectation() -> None:
    r = torch.arange(0, 200, dtype=torch.float64)
    mean = rope_mean_score(r, 32, 10000.0, correlation=0.8, samples=20000, seed=1)
    expected = rope_expected_score(r, 32, 10000.0, correlation=0.8)
    # each pair's |q_i|² averages 2 with standard deviation 2/√S: a few tenths for 16 pairs
    assert float((mean - expected).abs().max()) < 0.5
    with pytest.raises(ValueError, match="correlation"):
        rope_expected_score([0], 8, correlation=1.5)
    with pytest.raises(ValueError, match="samples"):
        rope_mean_score([0], 8, samples=0)


def test_rope_mean_score_draws_once_per_samples_seed_and_dim() -> None:
    from posenc_gui.core import alibi as alibi_mod

    r = torch.arange(0, 30, dtype=torch.float64)
    alibi_mod._pair_moments.cache_clear()
    first = rope_mean_score(r, 16, 100.0, correlation=0.3, samples=7, seed=5)
    for rho, base in ((0.9, 100.0), (0.3, 900.0), (0.0, 50.0)):
        rope_mean_score(r, 16, base, correlation=rho, samples=7, seed=5)
    assert alibi_mod._pair_moments.cache_info().misses == 1
    again = rope_mean_score(r, 16, 100.0, correlation=0.3, samples=7, seed=5)
    assert torch.equal(first, again)


def test_alibi_rule_is_cached_per_head_count() -> None:
    """A slider step asks for the rule once per read-out group: the same immutable rule."""
    from posenc_gui.core import alibi_rule

    assert alibi_rule(12) is alibi_rule(12)
    assert alibi_rule(12).slopes == tuple(alibi_slopes(12).tolist())
    with pytest.raises(ValueError):
        alibi_rule(0)
