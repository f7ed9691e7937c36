"""core.rope_rows: RoPE scores along rows of distances from cached phase tables, their even
form for q = k, per-run min–max and the Toeplitz score matrix — against closed forms and
identities written here (score(r) = Re Σ h_i e^{i r θ_i}; <R_m q, R_n k> depends on m − n only)."""

from __future__ import annotations

import cmath
import math
import threading
from typing import Any

import numpy as np
import pytest
import torch

from posenc_gui.core import rope_complex_pairs, rope_score_by_offset, rope_scores
from posenc_gui.core.rope_rows import (
    SCORE_CHUNK,
    minmax_runs,
    rope_even_score_row,
    rope_phase_table,
    rope_score_row,
    toeplitz_float32,
    toeplitz_from_reversed,
)


def qk(dim: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, dim, dtype=torch.float64, generator=gen)
    return q, k


def products(q: torch.Tensor, k: torch.Tensor, layout: str = "interleaved") -> np.ndarray:
    lay: Any = layout
    out: np.ndarray = (rope_complex_pairs(q, lay) * rope_complex_pairs(k, lay).conj()).numpy()
    return out


def closed(h: np.ndarray, r: float, base: float) -> float:
    d = 2 * len(h)
    terms = (complex(h[i]) * cmath.exp(1j * r * base ** (-2 * i / d)) for i in range(len(h)))
    return sum(t.real for t in terms)


def test_phase_table_holds_cos_then_sin_of_t_theta() -> None:
    dim, base = 10, 321.0
    table = rope_phase_table(dim, base, 7)
    assert table.shape == (dim, 7) and table.dtype == torch.float64
    for i in range(dim // 2):
        theta = base ** (-2 * i / dim)
        for t in range(7):
            assert float(table[i, t]) == pytest.approx(math.cos(t * theta), abs=1e-15)
            assert float(table[dim // 2 + i, t]) == pytest.approx(math.sin(t * theta), abs=1e-15)
    longer = rope_phase_table(dim, base, 40)  # grows; the first columns are the same numbers
    assert longer.shape == (dim, 40) and torch.equal(longer[:, :7], table)
    assert torch.equal(rope_phase_table(dim, base, 3), longer[:, :3])


@pytest.mark.parametrize(
    ("dim", "base", "start", "count", "layout"),
    [(64, 1e4, -256, 513, "interleaved"), (64, 500.0, -10_000, 20_001, "half"),
     (8, 1e6, 99_000, 1_023, "interleaved"), (2, 1e4, 3, 1, "half")],
)  # fmt: skip
def test_score_row_is_the_score_at_each_distance(
    dim: int, base: float, start: int, count: int, layout: str
) -> None:
    """Equal to ⟨q, R_−r k⟩ rotated by apply_rope (rope_score_by_offset), and to the closed form
    Re Σ h_i e^{i r θ_i} at a few distances, over block boundaries (513 = 2 × 257)."""
    q, k = qk(dim, dim)
    h = products(q, k, layout)
    got = rope_score_row(h, base, start, count)
    assert got.shape == (count,) and got.dtype == np.float64
    ref = rope_score_by_offset(q, k, torch.arange(start, start + count, dtype=torch.float64),
                               base=base, layout=layout).numpy()  # type: ignore[arg-type]  # fmt: skip
    assert np.max(np.abs(got - ref)) <= 1e-9 * max(1.0, float(np.abs(ref).max()))
    for j in {0, count // 2, count - 1, min(SCORE_CHUNK, count - 1)}:
        assert got[j] == pytest.approx(closed(h, start + j, base), abs=1e-8)
    assert rope_score_row(h, base, start, 0).shape == (0,)


def test_score_row_from_two_threads_at_once() -> None:
    """Two threads asking for new tables of the same (dim, base) get the same numbers."""
    q, k = qk(48, 5)
    h = products(q, k)
    base = 777.125  # a table no other test made
    want = rope_score_by_offset(q, k, torch.arange(-3000, 3001.0), base=base).numpy()
    out: dict[int, np.ndarray] = {}

    def run(n: int) -> None:
        out[n] = rope_score_row(h, base, -3000, 6001)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for n in range(2):
        assert np.allclose(out[n], want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(("a", "b"), [(-300, 200), (-5, -1), (4, 90), (-7, 7), (0, 0)])
def test_even_score_row_of_q_equals_k(a: int, b: int) -> None:
    """q = k: h_i = |k_i|² is real, the score even in r and largest at r = 0 (= |k|²)."""
    _, k = qk(32, 11)
    h = products(k, k)
    got = rope_even_score_row(h, 700.0, a, b)
    assert got.shape == (b - a + 1,)
    direct = rope_score_by_offset(k, k, torch.arange(a, b + 1.0), base=700.0).numpy()
    assert np.allclose(got, direct, rtol=1e-9, atol=1e-9)
    if a <= 0 <= b:
        assert got[-a] == pytest.approx(float(k @ k), rel=1e-12)
        assert float(got.max()) <= float(k @ k) * (1 + 1e-12)  # Cauchy–Schwarz
    mirrored = rope_even_score_row(h, 700.0, -b, -a)
    assert np.allclose(got, mirrored[::-1], rtol=1e-12, atol=1e-12)


def test_minmax_runs() -> None:
    v = np.array([3.0, -1.0, 2.0, 7.0, 0.0, 5.0, -4.0])
    lo, hi = minmax_runs(v, 3)
    assert lo.tolist() == [-1.0, 0.0, -4.0] and hi.tolist() == [3.0, 7.0, -4.0]
    lo, hi = minmax_runs(v, 1)
    assert lo.tolist() == hi.tolist() == v.tolist()
    lo, hi = minmax_runs(v, 100)
    assert (lo.tolist(), hi.tolist()) == ([-4.0], [7.0])


def test_toeplitz_float32_is_the_score_matrix_of_the_window() -> None:
    """Row of scores at d₀ − size + 1 … d₀ + size − 1 → S[a, b] = score((m₀ + a) − (n₀ + b)),
    the matrix of every query and key rotated on its own (rope_scores), in float32."""
    q, k = qk(16, 9)
    size, m0, n0 = 33, 400, 125
    d0 = m0 - n0
    row = rope_score_row(products(q, k, "half"), 1e4, d0 - size + 1, 2 * size - 1)
    mat, rev = toeplitz_float32(row, size)
    assert mat.dtype == rev.dtype == np.float32 and mat.flags.c_contiguous
    assert mat.shape == (size, size) and rev.shape == (2 * size - 1,)
    expected = np.array([[row[a - b + size - 1] for b in range(size)] for a in range(size)],
                        dtype=np.float32)  # fmt: skip
    assert np.array_equal(mat, expected)
    assert np.array_equal(rev, row[::-1].astype(np.float32))
    full = rope_scores(q, k, torch.arange(m0, m0 + size), torch.arange(n0, n0 + size),
                       layout="half").numpy()  # fmt: skip
    assert np.allclose(mat, full, rtol=1e-5, atol=1e-5)
    for off in (-size + 1, -3, 0, 5, size - 1):  # constant along every diagonal
        assert np.all(np.diagonal(mat, off) == np.diagonal(mat, off)[0])


def test_toeplitz_from_reversed_any_dtype() -> None:
    size = 4
    rev = np.arange(2 * size - 1, dtype=np.uint32) * 10
    out = toeplitz_from_reversed(rev, size)
    assert out.dtype == np.uint32 and out.flags.c_contiguous and out.flags.writeable
    for a in range(size):
        for b in range(size):
            assert out[a, b] == rev[size - 1 - a + b]
    out[0, 0] = 7  # a new array: the row is not changed
    assert rev[size - 1] == 30
