"""Sinusoidal, binary, naive and learned encodings: closed forms and identities."""

from __future__ import annotations

import math

import pytest
import torch

from posenc_gui.core import (
    PositionalEncoding,
    SinusoidalLayout,
    binary_encoding,
    inverse_frequencies,
    layout_permutation,
    learned_encoding,
    naive_encoding,
    sinusoidal_at,
    sinusoidal_dot_by_offset,
    sinusoidal_encoding,
    wavelengths,
)


def hand_row(p: float, dim: int, base: float = 10000.0) -> list[float]:
    """Paper formula with math.sin/cos in float64: [sin(pω_0), cos(pω_0), sin(pω_1), ...]."""
    row: list[float] = []
    for i in range(dim // 2):
        omega = base ** (-2.0 * i / dim)
        row += [math.sin(p * omega), math.cos(p * omega)]
    return row


@pytest.mark.parametrize(("dim", "base"), [(2, 10000.0), (8, 10000.0), (512, 10000.0), (6, 2.5)])
def test_inverse_frequencies_closed_form(dim: int, base: float) -> None:
    omega = inverse_frequencies(dim, base)
    assert omega.dtype == torch.float64
    assert omega.shape == (dim // 2,)
    assert omega[0].item() == 1.0
    assert omega[-1].item() == pytest.approx(base ** (-(dim - 2) / dim), rel=1e-14)
    expected = torch.tensor([base ** (-2 * i / dim) for i in range(dim // 2)], dtype=torch.float64)
    torch.testing.assert_close(omega, expected, rtol=1e-14, atol=0)


def test_wavelengths_are_two_pi_over_omega() -> None:
    lam = wavelengths(64, 500.0)
    assert lam.dtype == torch.float64
    torch.testing.assert_close(lam, 2 * math.pi / inverse_frequencies(64, 500.0))
    assert lam[0].item() == pytest.approx(2 * math.pi)
    assert lam[-1].item() == pytest.approx(2 * math.pi * 500.0 ** (62 / 64))


def test_table_matches_hand_formula_and_squared_norm_is_half_dim() -> None:
    dim = 16
    pe = sinusoidal_encoding(50, dim, dtype=torch.float64)
    assert pe.shape == (50, dim)
    assert pe.dtype == torch.float64
    for p in (0, 1, 7, 49):
        torch.testing.assert_close(pe[p], torch.tensor(hand_row(p, dim), dtype=torch.float64))
    torch.testing.assert_close(
        (pe * pe).sum(dim=1), torch.full((50,), dim / 2, dtype=torch.float64)
    )


def test_default_dtype_is_float32() -> None:
    assert sinusoidal_encoding(3, 4).dtype == torch.float32
    assert sinusoidal_at([0.5], 4).dtype == torch.float32


def test_dot_product_at_distance_10_is_173_790_for_every_pair() -> None:
    pe = sinusoidal_encoding(400, 512, dtype=torch.float64)
    assert round(float(pe[32] @ pe[42]), 3) == 173.790
    dots = (pe[:-10] * pe[10:]).sum(dim=1)  # PE[p]·PE[p+10] for every p
    torch.testing.assert_close(dots, torch.full_like(dots, float(pe[32] @ pe[42])))
    closed_form = sum(math.cos(10 * 10000.0 ** (-2 * i / 512)) for i in range(256))
    assert float(pe[32] @ pe[42]) == pytest.approx(closed_form, abs=1e-9)


def test_sinusoidal_dot_by_offset_closed_form_and_table() -> None:
    dim = 32
    offsets = [0, 1, 5, 10, -10, 37]
    dots = sinusoidal_dot_by_offset(offsets, dim)
    assert dots.dtype == torch.float64
    assert dots.shape == (len(offsets),)
    assert dots[0].item() == pytest.approx(dim / 2)
    expected = [
        sum(math.cos(k * 10000.0 ** (-2 * i / dim)) for i in range(dim // 2)) for k in offsets
    ]
    torch.testing.assert_close(dots, torch.tensor(expected, dtype=torch.float64))
    pe = sinusoidal_encoding(100, dim, dtype=torch.float64)
    assert float(pe[50] @ pe[87]) == pytest.approx(
        sinusoidal_dot_by_offset([37], dim).item(), abs=1e-12
    )


@pytest.mark.parametrize("dim", [2, 8, 10])
def test_concat_layout_is_a_column_permutation_of_interleaved(dim: int) -> None:
    inter = sinusoidal_encoding(20, dim, dtype=torch.float64)
    concat = sinusoidal_encoding(20, dim, layout="concat", dtype=torch.float64)
    torch.testing.assert_close(concat, inter[:, layout_permutation(dim)], rtol=0, atol=0)
    torch.testing.assert_close(
        concat[:, : dim // 2],
        torch.sin(
            torch.arange(20.0, dtype=torch.float64)[:, None] * inverse_frequencies(dim)[None, :]
        ),
    )


def test_start_offsets_rows() -> None:
    full = sinusoidal_encoding(30, 8, dtype=torch.float64)
    shifted = sinusoidal_encoding(10, 8, start=20, dtype=torch.float64)
    torch.testing.assert_close(shifted, full[20:30], rtol=0, atol=0)


@pytest.mark.parametrize("layout", ["interleaved", "concat"])
def test_sinusoidal_at_agrees_with_table(layout: SinusoidalLayout) -> None:
    table = sinusoidal_encoding(64, 12, layout=layout, dtype=torch.float64)
    rows = sinusoidal_at(torch.tensor([0, 3, 63]), 12, layout=layout, dtype=torch.float64)
    torch.testing.assert_close(rows, table[[0, 3, 63]], rtol=0, atol=0)
    rows_list = sinusoidal_at([0.0, 3.0, 63.0], 12, layout=layout, dtype=torch.float64)
    torch.testing.assert_close(rows_list, table[[0, 3, 63]], rtol=0, atol=0)


def test_sinusoidal_at_large_and_fractional_positions_match_float64_hand_formula() -> None:
    dim = 64
    for p in (999_999.0, 123.25, 2_500_000.5):
        expected = torch.tensor(hand_row(p, dim), dtype=torch.float64)
        got64 = sinusoidal_at([p], dim, dtype=torch.float64)[0]
        torch.testing.assert_close(got64, expected, rtol=0, atol=1e-9)
        got32 = sinusoidal_at([p], dim)[0]  # float32 output, float64 angles
        torch.testing.assert_close(got32.double(), expected, rtol=0, atol=1e-6)
    table_row = sinusoidal_encoding(1, dim, start=999_999, dtype=torch.float64)[0]
    torch.testing.assert_close(
        table_row, torch.tensor(hand_row(999_999, dim), dtype=torch.float64), rtol=0, atol=1e-9
    )


def test_binary_encoding() -> None:
    enc = binary_encoding(16, 4)
    assert enc.shape == (16, 4)
    assert enc.dtype == torch.float32
    assert enc[5].tolist() == [1.0, 0.0, 1.0, 0.0]
    assert bool(((enc == 0) | (enc == 1)).all())
    weights = torch.tensor([1.0, 2.0, 4.0, 8.0])
    torch.testing.assert_close(enc @ weights, torch.arange(16, dtype=torch.float32))
    assert binary_encoding(3, 1).flatten().tolist() == [0.0, 1.0, 0.0]


def test_naive_encoding() -> None:
    raw = naive_encoding(5, 3)
    assert raw.shape == (5, 3)
    assert raw[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    torch.testing.assert_close(raw[:, 2], raw[:, 0])
    norm = naive_encoding(5, 3, normalized=True)
    assert norm[0, 1].item() == 0.0
    assert norm[-1].tolist() == [1.0, 1.0, 1.0]
    torch.testing.assert_close(norm[:, 0], torch.tensor([0.0, 0.25, 0.5, 0.75, 1.0]))
    assert naive_encoding(1, 4, normalized=True).tolist() == [[0.0, 0.0, 0.0, 0.0]]


def test_learned_encoding_deterministic_and_leaves_global_rng_alone() -> None:
    state = torch.random.get_rng_state()
    a = learned_encoding(10, 8, seed=3)
    b = learned_encoding(10, 8, seed=3)
    c = learned_encoding(10, 8, seed=4)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert torch.equal(a, b)
    assert not torch.equal(a, c)
    assert a.dtype == torch.float32
    big = learned_encoding(1000, 512)
    assert abs(big.std().item() - 0.02) < 5e-4
    assert abs(big.mean().item()) < 5e-4
    assert abs(learned_encoding(1000, 512, std=0.5).std().item() - 0.5) < 1e-2


def test_positional_encoding_module() -> None:
    mod = PositionalEncoding(16, max_len=40)
    assert mod.pe.shape == (40, 16)
    assert "pe" in dict(mod.named_buffers())
    assert "pe" in mod.state_dict()
    torch.testing.assert_close(mod.pe, sinusoidal_encoding(40, 16))
    x = torch.randn(3, 25, 16, generator=torch.Generator().manual_seed(0))
    torch.testing.assert_close(mod(x), x + sinusoidal_encoding(25, 16)[None])
    assert mod(x.double()).dtype == torch.float64
    with pytest.raises(ValueError, match="max_len"):
        mod(torch.zeros(1, 41, 16))
    with pytest.raises(ValueError, match="d_model"):
        mod(torch.zeros(1, 5, 15))


def test_inverse_frequency_is_the_tensors_entry() -> None:
    from posenc_gui.core.sinusoidal import inverse_frequency

    for dim, base in ((2, 10000.0), (128, 10000.0), (130, 2.5), (4096, 1e6)):
        omega = inverse_frequencies(dim, base)
        for pair in {0, dim // 4, dim // 2 - 1}:
            assert inverse_frequency(dim, base, pair) == float(omega[pair])
    with pytest.raises(ValueError):
        inverse_frequency(128, 10000.0, 64)
    with pytest.raises(ValueError):
        inverse_frequency(127, 10000.0, 0)
