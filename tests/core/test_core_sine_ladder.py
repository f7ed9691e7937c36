"""The sine ladder's maths (core.sinusoidal): pair angles computed once for a sine and a cosine
column, the columns made from them, and per-run min–max — against closed forms written here."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from posenc_gui import core
from posenc_gui.core.sinusoidal import (
    sinusoidal_column_min_max,
    sinusoidal_columns_from_angles,
    sinusoidal_pair_angles,
)


@pytest.mark.parametrize(("columns", "dim", "base"), [(6, 6, 10000.0), (5, 64, 100.0),
                                                      (16, 1024, 10.0), (1, 2, 2.0)])  # fmt: skip
def test_pair_angles_are_position_times_omega(columns: int, dim: int, base: float) -> None:
    pos = [0.0, 1.0, 23.0, 999.5, 1e6]
    got = sinusoidal_pair_angles(pos, columns, dim, base)
    pairs = (columns + 1) // 2
    assert got.shape == (len(pos), pairs) and got.dtype == torch.float64
    for n, p in enumerate(pos):
        for i in range(pairs):
            assert float(got[n, i]) == pytest.approx(p * base ** (-2 * i / dim), rel=1e-14)


def test_columns_from_angles_are_the_interleaved_table() -> None:
    """Column 2i = sin(p·ω_i), 2i+1 = cos(p·ω_i): by math.sin/cos here, and exactly the
    entries core.sinusoidal_columns computes one by one."""
    pos = torch.arange(3, 1000, dtype=torch.float64)
    for columns, dim, base in ((6, 6, 10000.0), (5, 64, 100.0), (16, 1024, 10.0)):
        table = sinusoidal_columns_from_angles(
            sinusoidal_pair_angles(pos, columns, dim, base), columns
        )
        assert table.shape == (len(pos), columns)
        ref = core.sinusoidal_columns(pos, list(range(columns)), dim, base)
        assert torch.equal(table, ref)
        p = 517.0
        row = table[int(p) - 3]
        for j in range(columns):
            angle = p * base ** (-2 * (j // 2) / dim)
            expected = math.sin(angle) if j % 2 == 0 else math.cos(angle)
            assert float(row[j]) == pytest.approx(expected, abs=1e-12)
    empty = sinusoidal_pair_angles(torch.zeros(0, dtype=torch.float64), 6, 64, 100.0)
    assert sinusoidal_columns_from_angles(empty, 6).shape == (0, 6)


def test_column_min_max_is_the_extreme_of_each_run() -> None:
    """Every position counts: the same as numpy's reduceat over runs of the full table."""
    pos = torch.arange(3, 1000, dtype=torch.float64)
    for columns, dim, base, group in ((6, 6, 10000.0, 7), (5, 64, 100.0, 1), (16, 1024, 10.0, 400)):
        angles = sinusoidal_pair_angles(pos, columns, dim, base)
        table = np.array(
            [[math.sin(a) if j % 2 == 0 else math.cos(a)
              for j, a in enumerate(np.repeat(row, 2)[:columns])] for row in angles.tolist()]
        )  # fmt: skip
        mins, maxs = sinusoidal_column_min_max(angles, group, columns)
        runs = -(-len(pos) // group)
        assert mins.shape == maxs.shape == (runs, columns)
        starts = np.arange(0, len(pos), group)
        np.testing.assert_allclose(mins.numpy(), np.minimum.reduceat(table, starts), atol=1e-12)
        np.testing.assert_allclose(maxs.numpy(), np.maximum.reduceat(table, starts), atol=1e-12)
        exact = core.sinusoidal_columns(pos, list(range(columns)), dim, base).numpy()
        np.testing.assert_array_equal(mins.numpy(), np.minimum.reduceat(exact, starts))
        np.testing.assert_array_equal(maxs.numpy(), np.maximum.reduceat(exact, starts))


def test_column_min_max_of_a_slow_pair_are_its_run_ends() -> None:
    """While p·ω stays in [0, π/2), sin rises and cos falls: a run's extremes sit at its ends."""
    omega = 1e6 ** (-2 / 4)  # pair 1 of d = 4, base 1e6: ω = 1e-3, p·ω < 1 for p < 1000
    pos = torch.arange(0, 1000, dtype=torch.float64)
    mins, maxs = sinusoidal_column_min_max(sinusoidal_pair_angles(pos, 4, 4, 1e6), 100, 4)
    for r in range(10):
        first, last = 100 * r * omega, (100 * r + 99) * omega
        assert float(mins[r, 2]) == pytest.approx(math.sin(first), abs=1e-15)
        assert float(maxs[r, 2]) == pytest.approx(math.sin(last), abs=1e-15)
        assert float(mins[r, 3]) == pytest.approx(math.cos(last), abs=1e-15)
        assert float(maxs[r, 3]) == pytest.approx(math.cos(first), abs=1e-15)


def test_ladder_maths_refuses_bad_arguments() -> None:
    with pytest.raises(ValueError, match="columns"):
        sinusoidal_pair_angles([1.0], 7, 6, 100.0)
    with pytest.raises(ValueError, match="dim"):
        sinusoidal_pair_angles([1.0], 2, 5, 100.0)
    angles = sinusoidal_pair_angles([1.0, 2.0], 4, 8, 100.0)
    with pytest.raises(ValueError, match="columns"):
        sinusoidal_columns_from_angles(angles, 5)
    with pytest.raises(ValueError, match="group"):
        sinusoidal_column_min_max(angles, 0, 4)
    with pytest.raises(ValueError, match="at least 1 row"):
        sinusoidal_column_min_max(angles[:0], 2, 4)
