"""Maths behind the PE heatmap: column roles, exact envelopes and exact pixel means."""

from __future__ import annotations

import math

import pytest
import torch

from posenc_gui.core.sinusoidal import (
    group_row_means,
    inverse_frequencies,
    sin_cos_means,
    sinusoidal_at,
    sinusoidal_column_envelope,
    sinusoidal_column_means,
    sinusoidal_column_role,
    sinusoidal_columns,
)


@pytest.mark.parametrize("layout", ["interleaved", "concat"])
def test_column_roles_match_the_table(layout: str) -> None:
    d = 16
    pos = torch.arange(40, dtype=torch.float64)
    table = sinusoidal_at(pos, d, 100.0, layout=layout, dtype=torch.float64)  # type: ignore[arg-type]
    omega = inverse_frequencies(d, 100.0)
    seen = set()
    for j in range(d):
        pair, is_sin, partner = sinusoidal_column_role(d, layout, j)
        f = torch.sin if is_sin else torch.cos
        torch.testing.assert_close(table[:, j], f(pos * omega[pair]), rtol=0, atol=1e-12)
        back = sinusoidal_column_role(d, layout, partner)
        assert back == (pair, not is_sin, j)
        seen.add((pair, is_sin))
    assert len(seen) == d
    with pytest.raises(ValueError, match="column"):
        sinusoidal_column_role(d, layout, d)


@pytest.mark.parametrize(("layout", "col"), [("interleaved", 0), ("interleaved", 7), ("concat", 9)])
def test_envelope_is_the_exact_extremes_of_dense_samples(layout: str, col: int) -> None:
    d, base = 16, 10000.0
    edges = torch.linspace(0.0, 5000.0, 201, dtype=torch.float64)
    lo, hi = sinusoidal_column_envelope(edges, col, d, base, layout=layout)  # type: ignore[arg-type]
    assert lo.shape == hi.shape == (200,)
    fine = torch.linspace(0.0, 1.0, 2001, dtype=torch.float64)
    xs = edges[:-1, None] + fine[None, :] * (edges[1:] - edges[:-1])[:, None]
    ys = sinusoidal_columns(xs.reshape(-1), [col], d, base, layout=layout).reshape(200, 2001)  # type: ignore[arg-type]
    # contains every sample, and is reached up to the sampling step
    assert bool((lo <= ys.min(dim=1).values + 1e-12).all())
    assert bool((hi >= ys.max(dim=1).values - 1e-12).all())
    torch.testing.assert_close(lo, ys.min(dim=1).values, rtol=0, atol=2e-3)
    torch.testing.assert_close(hi, ys.max(dim=1).values, rtol=0, atol=2e-3)
    pair, is_sin, _ = sinusoidal_column_role(d, layout, col)
    omega = base ** (-2 * pair / d)
    phi = 0.0 if is_sin else math.pi / 2
    for k in range(200):
        a, b = float(edges[k]) * omega + phi, float(edges[k + 1]) * omega + phi
        # ±1 exactly when a crest (π/2 + 2πm) / trough (3π/2 + 2πm) lies inside [a, b]
        crest = math.floor((b - math.pi / 2) / (2 * math.pi)) >= math.ceil(
            (a - math.pi / 2) / (2 * math.pi)
        )
        trough = math.floor((b - 3 * math.pi / 2) / (2 * math.pi)) >= math.ceil(
            (a - 3 * math.pi / 2) / (2 * math.pi)
        )
        assert (float(hi[k]) == 1.0) == crest or (not crest and float(hi[k]) > 1 - 1e-12)
        assert (float(lo[k]) == -1.0) == trough or (not trough and float(lo[k]) < -1 + 1e-12)
        if crest:
            assert float(hi[k]) == 1.0
        if trough:
            assert float(lo[k]) == -1.0
    # a bin at least one wavelength wide always holds the whole range [-1, 1]
    if 2 * math.pi / omega <= 25.0:
        assert bool((lo == -1).all()) and bool((hi == 1).all())


def test_envelope_without_extremum_is_the_ends() -> None:
    # column 0 (sin p) on [0.1, 0.2]: increasing, so (sin 0.1, sin 0.2)
    lo, hi = sinusoidal_column_envelope([0.1, 0.2, 1.4, 1.8], 0, 8)
    assert float(lo[0]) == pytest.approx(math.sin(0.1)) and float(hi[0]) == pytest.approx(
        math.sin(0.2)
    )
    assert float(hi[2]) == 1.0 and float(lo[2]) == pytest.approx(min(math.sin(1.4), math.sin(1.8)))


def _brute_mean(a: int, b: int, fn: object, omega: float) -> float:
    f = math.sin if fn == "sin" else math.cos
    return math.fsum(f(p * omega) for p in range(a, b + 1)) / (b - a + 1)


def test_sin_cos_means_closed_form_equals_the_sum() -> None:
    first = [0, 3, 17, 999_000, -5, 42]
    last = [0, 10, 400, 999_999, 5, 42]
    omega = [1.0, 0.5, 0.01, 1e-7, 2.0, math.pi, 2 * math.pi, 7.0]
    ms, mc = sin_cos_means(first, last, omega)
    assert ms.shape == mc.shape == (6, 8)
    for k, (a, b) in enumerate(zip(first, last, strict=True)):
        for i, w in enumerate(omega):
            assert float(ms[k, i]) == pytest.approx(_brute_mean(a, b, "sin", w), abs=1e-9)
            assert float(mc[k, i]) == pytest.approx(_brute_mean(a, b, "cos", w), abs=1e-9)


def test_sin_cos_means_guard_omega_zero() -> None:
    ms, mc = sin_cos_means([0, 5], [9, 1000], [0.0, 4 * math.pi, 1e-300])
    torch.testing.assert_close(ms, torch.zeros(2, 3, dtype=torch.float64), rtol=0, atol=1e-12)
    torch.testing.assert_close(mc, torch.ones(2, 3, dtype=torch.float64), rtol=0, atol=1e-9)
    with pytest.raises(ValueError, match="last must be >= first"):
        sin_cos_means([3], [2], [1.0])


@pytest.mark.parametrize("layout", ["interleaved", "concat"])
def test_column_means_equal_the_brute_force_mean(layout: str) -> None:
    d, base = 12, 100.0
    first = torch.tensor([0, 7, 30, 31, 95, 12_345], dtype=torch.float64)
    last = torch.tensor([6, 29, 30, 94, 95, 13_000], dtype=torch.float64)
    cols = list(range(d))
    got = sinusoidal_column_means(first, last, cols, d, base, layout=layout)  # type: ignore[arg-type]
    assert got.dtype == torch.float64 and got.shape == (6, d)
    for k in range(6):
        a, b = int(first[k]), int(last[k])
        rows = sinusoidal_at(torch.arange(a, b + 1), d, base, layout=layout, dtype=torch.float64)  # type: ignore[arg-type]
        torch.testing.assert_close(got[k], rows.mean(dim=0), rtol=0, atol=1e-12)


def test_single_position_means_are_the_table() -> None:
    pos = torch.tensor([0.0, 1.0, 37.0, 999_999.0], dtype=torch.float64)
    got = sinusoidal_column_means(pos, pos, [0, 1, 5, 63], 64, 10000.0)
    want = sinusoidal_columns(pos, [0, 1, 5, 63], 64, 10000.0)
    torch.testing.assert_close(got, want, rtol=0, atol=1e-12)


def test_fast_columns_average_to_zero_at_a_million_positions() -> None:
    """~1111 positions per pixel: columns with λ ≪ 1111 average to ~0 (no moiré)."""
    pixels, count = 900, 1_000_000
    edges = -0.5 + torch.arange(pixels + 1, dtype=torch.float64) * (count / pixels)
    first = torch.ceil(edges[:-1])
    last = torch.ceil(edges[1:]) - 1
    d = 128
    means = sinusoidal_column_means(first, last, list(range(d)), d, 10000.0)
    lam = 2 * math.pi * 10000.0 ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    fast = torch.repeat_interleave(lam < 20.0, 2)  # pairs with λ < 20 positions
    # |mean| ≤ 1/(n·|sin(ω/2)|) with n ≈ 1111
    assert float(means[:, fast].abs().max()) < 0.01
    # while point samples of the same columns swing over the whole range (the moiré)
    centres = torch.round((edges[:-1] + edges[1:]) / 2)
    samples = sinusoidal_columns(centres, list(range(d)), d, 10000.0)
    assert float(samples[:, fast].abs().max()) > 0.9
    # slow columns (λ ≫ positions per pixel) keep their value
    slow = torch.repeat_interleave(lam > 30 * count / pixels, 2)
    assert int(slow.sum()) >= 2
    torch.testing.assert_close(means[:, slow], samples[:, slow], rtol=0, atol=0.02)


@pytest.mark.parametrize("layout", ["interleaved", "concat"])
def test_column_means_columns_first_is_the_transpose(layout: str) -> None:
    """One row per column (what the heatmap image needs), contiguous, the same numbers."""
    first = torch.tensor([0, 5, 40, 41, 1000, 999_000], dtype=torch.float64)
    last = torch.tensor([4, 39, 40, 999, 1000, 999_999], dtype=torch.float64)
    cols = [0, 3, 17, 62, 63, 8]
    rows = sinusoidal_column_means(first, last, cols, 64, 500.0, layout=layout)  # type: ignore[arg-type]
    by_col = sinusoidal_column_means(
        first, last, cols, 64, 500.0, layout=layout, columns_first=True,  # type: ignore[arg-type]
    )  # fmt: skip
    assert by_col.shape == (6, 6) and by_col.is_contiguous() and rows.is_contiguous()
    torch.testing.assert_close(by_col, rows.T, rtol=0, atol=0)
    # equal widths (one distinct count) take the broadcast path: still the brute-force mean
    a = torch.arange(0, 300, 30, dtype=torch.float64)
    got = sinusoidal_column_means(a, a + 29, [1, 2], 8, 100.0, columns_first=True)
    for k in range(10):
        block = sinusoidal_at(
            torch.arange(int(a[k]), int(a[k]) + 30), 8, 100.0, dtype=torch.float64
        )
        torch.testing.assert_close(got[:, k], block.mean(dim=0)[[1, 2]], rtol=0, atol=1e-12)


def test_inverse_frequencies_are_cached_but_never_shared() -> None:
    one = inverse_frequencies(64, 10000.0)
    one.zero_()  # a caller scribbling on its copy does not change the next answer
    two = inverse_frequencies(64, 10000.0)
    assert float(two[0]) == 1.0 and float(two[1]) == pytest.approx(10000.0 ** (-2 / 64))
    assert two.data_ptr() != inverse_frequencies(64, 10000.0).data_ptr()


def _column_means_by_index(
    first: torch.Tensor, last: torch.Tensor, cols: list[int], dim: int, base: float, layout: str
) -> torch.Tensor:
    """The pixel means computed the plain way: sines and cosines gathered by index tensors,
    the counts' ratio gathered per position ((columns, positions), as ``columns_first``)."""
    c = torch.tensor(cols, dtype=torch.int64)
    half = dim // 2
    pair, is_sin = (c // 2, c % 2 == 0) if layout == "interleaved" else (c % half, c < half)
    omega = inverse_frequencies(dim, base)[pair]
    n = last - first + 1.0
    mid = ((first + last) / 2.0)[None, :]
    out = torch.empty((len(cols), len(first)), dtype=torch.float64)
    for rows, fn in ((torch.nonzero(is_sin), torch.sin), (torch.nonzero(~is_sin), torch.cos)):
        rows = rows.reshape(-1)
        if rows.numel():
            out[rows] = fn(omega[rows][:, None] * mid)
    if float(n.max()) > 1.0:
        half_w = omega / 2.0
        uniq, inverse = torch.unique(n, return_inverse=True)
        num = torch.sin(uniq[:, None] * half_w[None, :])
        den = uniq[:, None] * torch.sin(half_w)[None, :]
        zero = torch.sin(half_w)[None, :] == 0.0
        ratio = torch.where(zero, torch.ones_like(num), num / torch.where(zero, 1.0, den))
        out *= ratio.T[:, inverse]
    return out


@pytest.mark.parametrize("layout", ["interleaved", "concat"])
@pytest.mark.parametrize(
    "cols",
    [
        list(range(0, 64)),  # every column: sines and cosines as two regular runs
        list(range(7, 40)),  # consecutive from an odd column (a cosine first, interleaved)
        list(range(20, 45)),  # consecutive across d/2 (concat: sines, then cosines)
        list(range(40, 64)),  # consecutive, all cosines (concat)
        [5],  # one column
        [0, 3, 17, 62, 63, 8],  # scattered (an image with fewer pixel rows than columns)
        [2, 4, 6, 9, 11],  # regular steps that are not consecutive columns
    ],
)
@pytest.mark.parametrize("counts", ["one", "two", "many"])
def test_column_means_bits_do_not_depend_on_the_columns_pattern(
    layout: str, cols: list[int], counts: str
) -> None:
    """Runs of rows (slices) or scattered rows (indices), one, two or many positions per
    pixel: the same bits as the plain computation (each function's angles one block)."""
    k = 37
    if counts == "one":
        first = torch.arange(1000, 1000 + k, dtype=torch.float64)
        last = first.clone()
    elif counts == "two":  # pixels of two widths, as when positions do not divide evenly
        widths = torch.tensor([3.0 if i % 3 else 4.0 for i in range(k)], dtype=torch.float64)
        first = torch.cumsum(widths, 0) - widths + 12_345.0
        last = first + widths - 1.0
    else:
        widths = torch.arange(1, k + 1, dtype=torch.float64)
        first = torch.cumsum(widths, 0) - widths
        last = first + widths - 1.0
    want = _column_means_by_index(first, last, cols, 64, 777.0, layout)
    got = sinusoidal_column_means(
        first, last, cols, 64, 777.0, layout=layout, columns_first=True,  # type: ignore[arg-type]
    )  # fmt: skip
    assert got.shape == want.shape and got.is_contiguous()
    assert torch.equal(got, want)
    rows = sinusoidal_column_means(first, last, cols, 64, 777.0, layout=layout)  # type: ignore[arg-type]
    assert rows.is_contiguous() and torch.equal(rows, want.T)


def test_group_row_means_is_the_mean_of_each_block_of_rows() -> None:
    rows = torch.randn(40, 6, dtype=torch.float64)
    first, last = torch.tensor([2, 3, 10, 11]), torch.tensor([2, 9, 10, 30])
    got = group_row_means(rows, first, last)
    for r, (a, b) in enumerate(zip(first.tolist(), last.tolist(), strict=True)):
        torch.testing.assert_close(got[r], rows[a : b + 1].mean(dim=0), rtol=0, atol=1e-15)
    assert got.shape == (4, 6) and got.is_contiguous()
    with pytest.raises(ValueError, match="partition"):
        group_row_means(rows, torch.tensor([0, 5]), torch.tensor([3, 9]))  # gap 4
    with pytest.raises(ValueError, match="outside"):
        group_row_means(rows, torch.tensor([30]), torch.tensor([40]))


def test_block_means_of_the_table_over_positions_and_columns() -> None:
    """Column means then row groups: the mean of the table over a block of p × j."""
    table = sinusoidal_at(torch.arange(300), 64, 100.0, dtype=torch.float64)
    first, last = torch.tensor([0, 17, 150]), torch.tensor([16, 149, 299])
    cols = torch.arange(64)
    means = sinusoidal_column_means(first, last, cols, 64, 100.0, columns_first=True)
    got = group_row_means(means, torch.tensor([0, 5, 6]), torch.tensor([4, 5, 63]))
    for k, (a, b) in enumerate(zip(first.tolist(), last.tolist(), strict=True)):
        for r, (j0, j1) in enumerate(((0, 4), (5, 5), (6, 63))):
            want = float(table[a : b + 1, j0 : j1 + 1].mean())
            assert abs(float(got[r, k]) - want) < 1e-12
