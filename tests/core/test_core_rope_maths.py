"""RoPE maths behind the playground: complex pairs, the eq. (37) bound, scores over integer
ranges, the Toeplitz score matrix, per-pixel envelopes — against closed forms written out here."""

from __future__ import annotations

import cmath
import math

import pytest
import torch

from posenc_gui.core import rope_decay_bound, rope_score_by_offset, rope_scores
from posenc_gui.core.rope import (
    minmax_bins,
    nice_ceil,
    rope_abel_sums,
    rope_bound_coefficient,
    rope_complex_pairs,
    rope_score_bound,
    rope_score_range,
    rope_score_toeplitz,
)

LAYOUTS = ["interleaved", "half"]


def rand(n: int, seed: int) -> torch.Tensor:
    return torch.randn(n, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))


def pairs(x: list[float], layout: str) -> list[complex]:
    half = len(x) // 2
    if layout == "interleaved":
        return [complex(x[2 * i], x[2 * i + 1]) for i in range(half)]
    return [complex(x[i], x[i + half]) for i in range(half)]


def closed_score(q: list[float], k: list[float], r: float, base: float, layout: str) -> float:
    """Re Σ_i q_i conj(k_i) e^{i r θ_i} (RoFormer eq. (16))."""
    d = len(q)
    return sum(
        (a * b.conjugate() * cmath.exp(1j * r * base ** (-2 * i / d))).real
        for i, (a, b) in enumerate(zip(pairs(q, layout), pairs(k, layout), strict=True))
    )


def closed_abel(r: float, dim: int, base: float) -> float:
    """Σ_{j=1}^{d/2} |Σ_{l<j} e^{i r θ_l}|."""
    partial, total = 0j, 0.0
    for i in range(dim // 2):
        partial += cmath.exp(1j * r * base ** (-2 * i / dim))
        total += abs(partial)
    return total


@pytest.mark.parametrize("layout", LAYOUTS)
def test_complex_pairs_follow_the_layout(layout: str) -> None:
    x = rand(10, 1)
    got = rope_complex_pairs(x, layout)  # type: ignore[arg-type]
    assert got.dtype == torch.complex128 and got.shape == (5,)
    assert got.tolist() == pytest.approx(pairs(x.tolist(), layout))
    with pytest.raises(ValueError, match="even length"):
        rope_complex_pairs(rand(5, 1))
    with pytest.raises(ValueError, match="layout"):
        rope_complex_pairs(x, "zigzag")  # type: ignore[arg-type]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_bound_coefficient_is_the_max_difference(layout: str) -> None:
    q, k = rand(12, 2), rand(12, 3)
    h = [a * b.conjugate() for a, b in zip(pairs(q.tolist(), layout), pairs(k.tolist(), layout),
                                           strict=True)]  # fmt: skip
    h_ext = [*h, 0j]
    expected = max(abs(h_ext[i + 1] - h_ext[i]) for i in range(6))
    assert rope_bound_coefficient(q, k, layout=layout) == pytest.approx(expected, rel=1e-14)  # type: ignore[arg-type]
    # one pair: h_1 = 0, so the coefficient is |h_0| = |q||k|
    q2, k2 = torch.tensor([3.0, 4.0]), torch.tensor([0.0, 2.0])
    assert rope_bound_coefficient(q2, k2) == pytest.approx(10.0)
    with pytest.raises(ValueError, match="same length"):
        rope_bound_coefficient(rand(4, 0), rand(6, 0))


def test_abel_sums_closed_form_symmetry_and_figure_2() -> None:
    dim, base = 16, 300.0
    got = rope_abel_sums(-37, 80, dim, base, chunk=7)
    assert got.shape == (80,) and got.dtype == torch.float64
    for j in (0, 5, 36, 37, 38, 79):
        assert got[j] == pytest.approx(closed_abel(-37 + j, dim, base), rel=1e-10)
    # A(0) = 1 + 2 + … + d/2, A(−r) = A(r), and A = (d/2) · rope_decay_bound (the Figure 2 curve)
    assert got[37] == pytest.approx(8 * 9 / 2, rel=1e-14)
    assert torch.allclose(got[:37], got[38:75].flip(0), rtol=1e-10)
    fig2 = rope_decay_bound(torch.arange(-37, 43, dtype=torch.float64), dim, base)
    assert torch.allclose(got, 8 * fig2, rtol=1e-10)
    assert rope_abel_sums(5, 0, dim, base).shape == (0,)
    with pytest.raises(ValueError, match="count"):
        rope_abel_sums(0, -1, dim, base)
    with pytest.raises(ValueError, match="start"):
        rope_abel_sums(0.5, 3, dim, base)  # type: ignore[arg-type]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_score_bound_holds_everywhere(layout: str) -> None:
    dim = 32
    q, k = rand(dim, 4), rand(dim, 5)
    bound = rope_score_bound(q, k, -300, 601, base=1000.0, layout=layout)  # type: ignore[arg-type]
    scores = rope_score_by_offset(q, k, torch.arange(-300, 301.0), base=1000.0, layout=layout)  # type: ignore[arg-type]
    assert torch.all(scores.abs() <= bound + 1e-9)
    coeff = rope_bound_coefficient(q, k, layout=layout)  # type: ignore[arg-type]
    assert bound[300] == pytest.approx(coeff * 16 * 17 / 2)
    assert bound[0] == pytest.approx(coeff * closed_abel(-300, dim, 1000.0), rel=1e-10)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(("start", "count", "chunk"), [(-50, 101, 512), (7, 33, 5), (-3, 1, 4),
                                                       (99_990, 20, 8)])  # fmt: skip
def test_score_range_is_the_score_at_each_distance(
    layout: str, start: int, count: int, chunk: int
) -> None:
    q, k = rand(12, 6), rand(12, 7)
    got = rope_score_range(q, k, start, count, base=500.0, layout=layout, chunk=chunk)  # type: ignore[arg-type]
    assert got.shape == (count,) and got.dtype == torch.float64
    offs = torch.arange(start, start + count, dtype=torch.float64)
    ref = rope_score_by_offset(q, k, offs, base=500.0, layout=layout)  # type: ignore[arg-type]
    assert torch.allclose(got, ref, rtol=1e-9, atol=1e-9)
    for j in {0, count // 2, count - 1}:
        r = start + j
        expected = closed_score(q.tolist(), k.tolist(), r, 500.0, layout)
        assert got[j] == pytest.approx(expected, abs=1e-9)


def test_score_range_q_equals_k_peaks_at_zero() -> None:
    k = rand(64, 8)
    got = rope_score_range(k, k, -1000, 2001)
    assert got[1000] == pytest.approx(float(k @ k), rel=1e-12)
    assert float(got.max()) == pytest.approx(float(k @ k), rel=1e-12)  # Cauchy–Schwarz
    assert torch.allclose(got, got.flip(0), atol=1e-9)  # h real: even in r
    assert rope_score_range(k, k, 0, 0).shape == (0,)


def test_toeplitz_matrix_is_the_score_matrix() -> None:
    q, k = rand(16, 9), rand(16, 10)
    size, m0, n0 = 6, 40, 25
    d0 = m0 - n0
    row = rope_score_range(q, k, d0 - size + 1, 2 * size - 1, layout="half")
    mat = rope_score_toeplitz(row, size)
    full = rope_scores(q, k, torch.arange(m0, m0 + size), torch.arange(n0, n0 + size),
                       layout="half")  # fmt: skip
    assert mat.shape == (size, size)
    assert torch.allclose(mat, full, rtol=1e-10, atol=1e-10)
    assert torch.allclose(torch.diagonal(mat, 2), mat[0, 2].expand(size - 2))
    with pytest.raises(ValueError, match="2·size − 1"):
        rope_score_toeplitz(row[:-1], size)


def test_minmax_bins() -> None:
    v = torch.tensor([3.0, -1.0, 2.0, 7.0, 0.0, 5.0, -4.0])
    lo, hi = minmax_bins(v, 3)
    assert lo.tolist() == [-1.0, 0.0, -4.0] and hi.tolist() == [3.0, 7.0, -4.0]
    lo, hi = minmax_bins(v, 1)
    assert lo.tolist() == hi.tolist() == v.tolist()
    lo, hi = minmax_bins(v, 100)
    assert (lo.item(), hi.item()) == (-4.0, 7.0)
    with pytest.raises(ValueError, match="group"):
        minmax_bins(v, 0)
    with pytest.raises(ValueError, match="values"):
        minmax_bins([], 2)


def test_nice_ceil() -> None:
    assert [nice_ceil(x) for x in (0.0, -3.0, 1.0, 1.2, 7.0, 52.5, 0.031, 9.0)] == [
        1.0, 1.0, 1.0, 1.5, 8.0, 60.0, 0.04, 10.0,
    ]  # fmt: skip
    for x in (0.37, 3.3, 123.0, 9.99e5):
        c = nice_ceil(x)
        assert c >= x and c / x < 1.6
        assert math.isclose(nice_ceil(c), c)
