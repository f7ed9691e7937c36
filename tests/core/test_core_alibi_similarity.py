"""ALiBi slopes/bias and similarity matrices."""

from __future__ import annotations

import math

import pytest
import torch

from posenc_gui.core import alibi_bias, alibi_slopes, similarity, sinusoidal_encoding


def test_alibi_slopes_power_of_two() -> None:
    s8 = alibi_slopes(8)
    assert s8.dtype == torch.float64
    assert s8.tolist() == [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]
    assert alibi_slopes(1).tolist() == [2.0**-8]
    expected16 = torch.tensor([2.0 ** (-0.5 * h) for h in range(1, 17)], dtype=torch.float64)
    torch.testing.assert_close(alibi_slopes(16), expected16)


def test_alibi_slopes_non_power_of_two() -> None:
    # 12 heads: the 8 slopes of n=8, then every other slope of n=16 (h = 1, 3, 5, 7), 4 of them
    expected12 = [2.0 ** (-h) for h in range(1, 9)] + [2.0**-0.5, 2.0**-1.5, 2.0**-2.5, 2.0**-3.5]
    torch.testing.assert_close(alibi_slopes(12), torch.tensor(expected12, dtype=torch.float64))
    # 3 heads: slopes of n=2 (2^-4, 2^-8), then the first of every other slope of n=4 (2^-2)
    torch.testing.assert_close(
        alibi_slopes(3), torch.tensor([2.0**-4, 2.0**-8, 2.0**-2], dtype=torch.float64)
    )
    # 6 heads: n=4 slopes then n=8 slopes at h = 1, 3
    expected6 = [2.0**-2, 2.0**-4, 2.0**-6, 2.0**-8, 2.0**-1, 2.0**-3]
    torch.testing.assert_close(alibi_slopes(6), torch.tensor(expected6, dtype=torch.float64))


def test_alibi_bias_structure() -> None:
    heads, length = 4, 6
    bias = alibi_bias(heads, length)
    slopes = alibi_slopes(heads)
    assert bias.shape == (heads, length, length)
    assert bias.dtype == torch.float64
    for h in range(heads):
        for i in range(length):
            for j in range(length):
                if j > i:
                    assert bias[h, i, j].item() == -math.inf
                else:
                    assert bias[h, i, j].item() == pytest.approx(-slopes[h].item() * (i - j))
        assert torch.diagonal(bias[h]).tolist() == [0.0] * length
    assert alibi_bias(2, 1).tolist() == [[[0.0]], [[0.0]]]


def test_similarity_dot_and_cosine() -> None:
    table = sinusoidal_encoding(20, 16, dtype=torch.float64)
    dot = similarity(table)
    assert dot.shape == (20, 20)
    torch.testing.assert_close(dot, table @ table.T)
    cos = similarity(table, kind="cosine")
    torch.testing.assert_close(torch.diagonal(cos), torch.ones(20, dtype=torch.float64))
    torch.testing.assert_close(cos, cos.T)
    torch.testing.assert_close(cos, dot / 8.0)  # every row has |PE|^2 = d/2 = 8
    assert bool((cos.abs() <= 1 + 1e-12).all())


def test_similarity_cosine_zero_rows_and_integer_tables() -> None:
    table = torch.tensor([[3.0, 4.0], [0.0, 0.0], [-3.0, -4.0]])
    cos = similarity(table, kind="cosine")
    assert not bool(torch.isnan(cos).any())
    torch.testing.assert_close(cos[1], torch.zeros(3))
    torch.testing.assert_close(cos[:, 1], torch.zeros(3))
    assert cos[0, 2].item() == pytest.approx(-1.0)
    ints = similarity(torch.tensor([[1, 2], [3, 4]]))
    assert ints.dtype == torch.float64
    assert ints.tolist() == [[5.0, 11.0], [11.0, 25.0]]
