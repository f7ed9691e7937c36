"""Encodings compared: tables, dot products at a distance, diagonal spreads, distinct rows."""

from __future__ import annotations

import math

import pytest
import torch

from posenc_gui.core import (
    ENCODING_SCHEMES,
    distinct_rows,
    dot_at_distance,
    encoding_table,
    mean_by_offset,
    spread_by_offset,
)


def test_binary_table_is_the_bits_least_significant_first() -> None:
    t = encoding_table("binary", 8, 3)
    expected = [[(p >> j) & 1 for j in range(3)] for p in range(8)]
    assert t.dtype == torch.float64 and t.tolist() == expected
    assert t[6].tolist() == [0.0, 1.0, 1.0]  # 6 = 110₂


def test_naive_and_normalized_tables() -> None:
    assert encoding_table("naive", 5, 2)[:, 1].tolist() == [0, 1, 2, 3, 4]
    norm = encoding_table("normalized", 5, 2)
    assert norm[:, 0].tolist() == pytest.approx([0, 0.25, 0.5, 0.75, 1.0])


def test_sinusoidal_dot_at_distance_is_the_constant_173_790() -> None:
    t = encoding_table("sinusoidal", 100, 512)
    dots = dot_at_distance(t, 10)
    omega = [10000.0 ** (-2 * i / 512) for i in range(256)]
    closed = sum(math.cos(10 * w) for w in omega)
    assert dots.shape == (90,)
    assert float(dots.min()) == pytest.approx(closed, rel=1e-9)
    assert float(dots.max() - dots.min()) < 1e-10
    assert round(closed, 3) == 173.790
    assert float(t[32] @ t[42]) == pytest.approx(173.790, abs=5e-4)


def test_binary_dot_at_distance_varies() -> None:
    t = encoding_table("binary", 16, 4)
    dots = dot_at_distance(t, 1)
    # popcount(i & (i+1)) for i = 0 … 14
    assert dots.tolist() == [bin(i & (i + 1)).count("1") for i in range(15)]
    assert float(dots.max() - dots.min()) > 0


def test_distance_zero_gives_squared_norms_and_bad_distance_fails() -> None:
    t = encoding_table("sinusoidal", 10, 8)
    assert dot_at_distance(t, 0).tolist() == pytest.approx([4.0] * 10)
    with pytest.raises(ValueError, match="distance must be an integer from 0 to 9"):
        dot_at_distance(t, 10)


def test_spread_by_offset_of_a_toeplitz_matrix_is_zero() -> None:
    t = encoding_table("sinusoidal", 64, 32)
    assert float(spread_by_offset(t @ t.T).abs().max()) < 1e-10
    g = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0], [0.0, 0.0, 9.0]])
    assert spread_by_offset(g).tolist() == [8.0, 5.0, 0.0]  # diag 1,5,9; (2,7); (3)
    assert mean_by_offset(g, [0, 1, 2]).tolist() == [5.0, 4.5, 3.0]


def test_distinct_rows_and_binary_wrap_around() -> None:
    assert distinct_rows(encoding_table("binary", 16, 4)) == 16
    assert distinct_rows(encoding_table("binary", 20, 4)) == 16  # 16 … 19 repeat 0 … 3
    assert distinct_rows(encoding_table("naive", 7, 3)) == 7


def test_learned_table_is_seeded_and_untrained_scale() -> None:
    a = encoding_table("learned", 50, 16, seed=3)
    assert torch.equal(a, encoding_table("learned", 50, 16, seed=3))
    assert not torch.equal(a, encoding_table("learned", 50, 16, seed=4))
    assert 0.01 < float(a.std()) < 0.03


def test_every_scheme_has_the_shape_and_unknown_fails() -> None:
    for s in ENCODING_SCHEMES:
        assert encoding_table(s, 12, 6).shape == (12, 6)
    with pytest.raises(ValueError, match="scheme"):
        encoding_table("rotary", 4, 4)


# -- rows of a table, offsets, cosine, smoothness, pairs, shares -----------------------------
@pytest.mark.parametrize("scheme", ENCODING_SCHEMES)
def test_first_rows_are_those_of_the_whole_table(scheme: str) -> None:
    from posenc_gui.core.encodings import LEARNED_ROWS

    for n, d in ((8, 2), (37, 6), (130, 16)):
        whole = encoding_table(scheme, n, d, layout="concat", seed=7)
        part = encoding_table(scheme, n, d, layout="concat", seed=7, rows=6)
        assert torch.equal(part, whole[:6])
    # positions keep their vector at any length, except normalized (p/(L−1) moves with L)
    short, long = encoding_table(scheme, 9, 4), encoding_table(scheme, LEARNED_ROWS, 4)[:9]
    assert torch.equal(short, long) is (scheme != "normalized")
    with pytest.raises(ValueError, match="rows must be an integer from 1 to 8"):
        encoding_table(scheme, 8, 4, rows=9)


def test_learned_table_is_a_slice_of_one_lookup_table() -> None:
    from posenc_gui.core import learned_encoding
    from posenc_gui.core.encodings import LEARNED_ROWS

    t = encoding_table("learned", 50, 16, seed=3)
    assert torch.equal(t, learned_encoding(LEARNED_ROWS, 16, seed=3)[:50].double())
    with pytest.raises(ValueError, match="at most 512 for a learned table"):
        encoding_table("learned", 513, 4)


def test_normalized_is_p_over_length_minus_one_in_float64() -> None:
    t = encoding_table("normalized", 7, 3)
    assert t.dtype == torch.float64
    assert t[5].tolist() == [5 / 6] * 3  # exact in float64, no float32 rounding


def test_offset_stats_against_a_loop() -> None:
    from posenc_gui.core.encodings import offset_stats

    g = torch.randn(9, 9, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    mean, lo, hi = offset_stats(g)
    for k in range(9):
        diag = torch.diagonal(g, k)
        assert float(mean[k]) == pytest.approx(float(diag.mean()))
        assert float(lo[k]) == float(diag.min()) and float(hi[k]) == float(diag.max())
    # sinusoidal: the mean of diagonal k is Σ_i cos(k·ω_i), for every k
    t = encoding_table("sinusoidal", 40, 16)
    mean, lo, hi = offset_stats(t @ t.T)
    omega = [10000.0 ** (-2 * i / 16) for i in range(8)]
    for k in (0, 1, 10, 39):
        assert float(mean[k]) == pytest.approx(sum(math.cos(k * w) for w in omega), abs=1e-12)
    assert float((hi - lo).max()) < 1e-12


def test_cosine_matrix_with_a_zero_row() -> None:
    from posenc_gui.core.encodings import cosine_matrix

    t = encoding_table("naive", 5, 3)  # row 0 is all zeros
    c = cosine_matrix(t)
    assert c[0].tolist() == [0.0] * 5 and c[:, 0].tolist() == [0.0] * 5
    assert torch.allclose(c[1:, 1:], torch.ones(4, 4, dtype=torch.float64))
    s = encoding_table("sinusoidal", 6, 4)
    assert torch.diagonal(cosine_matrix(s)).tolist() == pytest.approx([1.0] * 6)


def test_step_and_extent_closed_forms() -> None:
    from posenc_gui.core.encodings import step_and_extent

    # naive: every step √d, extent (L−1)√d
    step, extent = step_and_extent(encoding_table("naive", 10, 4))
    assert (step, extent) == (pytest.approx(2.0), pytest.approx(18.0))
    # binary: 0111 → 1000 flips every bit: the step is the whole extent
    step, extent = step_and_extent(encoding_table("binary", 16, 4))
    assert step == pytest.approx(2.0) and extent == pytest.approx(2.0)
    # sinusoidal: every step is √(Σ 2(1 − cos ω_i)) (the distance depends on k only)
    omega = [10000.0 ** (-2 * i / 8) for i in range(4)]
    step, extent = step_and_extent(encoding_table("sinusoidal", 64, 8))
    assert step == pytest.approx(math.sqrt(sum(2 * (1 - math.cos(w)) for w in omega)))
    assert extent <= math.sqrt(2 * 8) + 1e-12
    assert step_and_extent(encoding_table("naive", 1, 3)) == (0.0, 0.0)


def test_random_pair_starts_are_reproducible_and_in_range() -> None:
    from posenc_gui.core.encodings import random_pair_starts

    a = random_pair_starts(100, 10, 5, seed=3)
    assert a.tolist() == random_pair_starts(100, 10, 5, seed=3).tolist()
    assert a.tolist() != random_pair_starts(100, 10, 5, seed=4).tolist()
    many = random_pair_starts(20, 5, 1000, seed=0)
    assert int(many.min()) == 0 and int(many.max()) == 14  # i + k stays a position
    assert random_pair_starts(8, 7, 5, seed=1).tolist() == [0] * 5
    with pytest.raises(ValueError, match="distance must be an integer from 0 to 7"):
        random_pair_starts(8, 8, 5, seed=1)


def test_position_share_closed_form() -> None:
    from posenc_gui.core.encodings import position_share

    p = encoding_table("naive", 4, 2)  # ‖p_i‖² = 2i²
    w = torch.ones(4, 2, dtype=torch.float64)  # ‖w_i‖² = 2
    assert position_share(p, w).tolist() == pytest.approx([0.0, 0.5, 0.8, 0.9])
    assert position_share(torch.zeros(2, 2), torch.zeros(2, 2)).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="one shape"):
        position_share(p, w[:3])


# -- cheaper paths give the same numbers -------------------------------------------------------
def _tables() -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(4)
    out = [
        encoding_table(s, n, d, seed=2)
        for s in ENCODING_SCHEMES
        for n, d in ((1, 2), (2, 4), (9, 6), (64, 8), (130, 16))
    ]
    rand = torch.randn(50, 7, generator=gen, dtype=torch.float64)
    rand[::3] = rand[0]  # repeated rows
    out += [rand, rand.round(), torch.randn(1100, 3, generator=gen, dtype=torch.float64)]
    return out


def test_gram_summary_is_what_the_functions_compute_from_the_gram_matrix() -> None:
    from posenc_gui.core.encodings import (
        cosine_by_offset,
        gram_summary,
        offset_stats,
        step_and_extent,
    )

    for t in _tables():  # 1100 rows: larger than the kept scratch buffer
        g = t @ t.T
        ks = [k for k in (0, 1, 4, 16, 32) if k < t.shape[0]]
        s = gram_summary(t, ks)
        mean, lo, hi = offset_stats(g)
        assert torch.equal(s.offset_mean, mean) and torch.equal(s.offset_min, lo)
        assert torch.equal(s.offset_max, hi)
        assert s.largest == float(g.abs().max())
        assert (s.step, s.extent) == step_and_extent(t, g)
        assert torch.equal(s.cosine_means, cosine_by_offset(g, ks))


def test_offset_stats_reuse_their_scratch_buffer_without_leftovers() -> None:
    from posenc_gui.core.encodings import offset_stats

    big = torch.full((300, 300), 7.0, dtype=torch.float64)
    offset_stats(big)
    small = torch.arange(9.0, dtype=torch.float64).reshape(3, 3)
    mean, lo, hi = offset_stats(small)  # the buffer still holds the 7s past the small matrix
    assert mean.tolist() == [4.0, 3.0, 2.0] and lo.tolist() == [0.0, 1.0, 2.0]
    assert hi.tolist() == [8.0, 5.0, 2.0]


def test_cosine_by_offset_is_the_mean_of_the_cosine_diagonals() -> None:
    from posenc_gui.core.encodings import cosine_by_offset, cosine_matrix

    for t in _tables():
        g = t @ t.T
        ks = [k for k in (0, 1, 4, 16, 32) if k < t.shape[0]]
        expected = mean_by_offset(cosine_matrix(t, g), ks)
        assert torch.allclose(cosine_by_offset(g, ks), expected, rtol=1e-14, atol=1e-15)
    with pytest.raises(ValueError, match="offset must be an integer from 0 to 2"):
        cosine_by_offset(torch.eye(3, dtype=torch.float64), [3])


def test_distinct_rows_fast_test_agrees_with_unique() -> None:
    for t in _tables():
        assert distinct_rows(t) == int(torch.unique(t, dim=0).shape[0])
    # rows one rounding error apart are different rows (the fast test defers to the count)
    t = torch.ones(4, 3, dtype=torch.float64)
    t[1, 2] = math.nextafter(1.0, 2.0)
    t[2, 0] = math.nextafter(1.0, 0.0)
    assert distinct_rows(t) == 3


def test_learned_tables_slice_one_cached_draw_without_sharing_it() -> None:
    a = encoding_table("learned", 16, 4, seed=9)
    a += 1.0  # the caller's copy
    b = encoding_table("learned", 16, 4, seed=9)
    assert not torch.equal(a, b)
    assert torch.equal(b, encoding_table("learned", 512, 4, seed=9)[:16])
