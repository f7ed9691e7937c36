"""RoPE and 2-D rotations: identities, layout relations, closed-form reference implementations."""

from __future__ import annotations

import math

import pytest
import torch

from posenc_gui.core import (
    RopeLayout,
    RotaryEmbedding,
    apply_rope,
    inverse_frequencies,
    layout_permutation,
    rope_angles,
    rope_decay_bound,
    rope_matrix,
    rope_pair_scores,
    rope_score_by_offset,
    rope_scores,
    rotation_matrix,
)

LAYOUTS: list[RopeLayout] = ["interleaved", "half"]


def rand(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))


# --- reference implementations written from the papers / public code, not from posenc_gui ---


def ref_interleaved(
    x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0
) -> torch.Tensor:
    """Meta LLaMA style: view pairs (x[2i], x[2i+1]) as complex numbers, multiply by e^{i m θ_i}."""
    dim = x.shape[-1]
    theta = torch.tensor([base ** (-2 * i / dim) for i in range(dim // 2)], dtype=torch.float64)
    freqs = torch.polar(
        torch.ones(len(positions), dim // 2, dtype=torch.float64),
        positions.double()[:, None] * theta[None, :],
    )
    xc = torch.view_as_complex(x.double().reshape(*x.shape[:-1], dim // 2, 2).contiguous())
    return torch.view_as_real(xc * freqs).flatten(-2)


def ref_half(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """GPT-NeoX / Hugging Face style: x*cos + rotate_half(x)*sin with duplicated frequencies."""
    dim = x.shape[-1]
    theta = torch.tensor([base ** (-2 * i / dim) for i in range(dim // 2)], dtype=torch.float64)
    emb = torch.cat((theta, theta))[None, :] * positions.double()[:, None]
    x1, x2 = x[..., : dim // 2], x[..., dim // 2 :]
    rotate_half = torch.cat((-x2, x1), dim=-1)
    return x * emb.cos() + rotate_half * emb.sin()


REFS = {"interleaved": ref_interleaved, "half": ref_half}


def test_rotation_matrix_basic_and_composition() -> None:
    r = rotation_matrix(0.3)
    assert r.shape == (2, 2)
    assert r.dtype == torch.float64
    c, s = math.cos(0.3), math.sin(0.3)
    torch.testing.assert_close(r, torch.tensor([[c, -s], [s, c]], dtype=torch.float64))
    a, b = rand(3, 4, seed=1), rand(3, 4, seed=2)
    ra, rb = rotation_matrix(a), rotation_matrix(b)
    assert ra.shape == (3, 4, 2, 2)
    torch.testing.assert_close(ra @ rb, rotation_matrix(a + b))
    torch.testing.assert_close(
        ra.transpose(-1, -2) @ ra, torch.eye(2, dtype=torch.float64).expand(3, 4, 2, 2)
    )
    torch.testing.assert_close(torch.linalg.det(ra), torch.ones(3, 4, dtype=torch.float64))
    torch.testing.assert_close(
        rotation_matrix(math.pi / 2) @ torch.tensor([1.0, 0.0], dtype=torch.float64),
        torch.tensor([0.0, 1.0], dtype=torch.float64),
    )
    assert rotation_matrix(torch.tensor(1)).dtype == torch.float64
    assert rotation_matrix(torch.tensor([1.0])).dtype == torch.float32


def test_layout_permutation_values() -> None:
    assert layout_permutation(6).tolist() == [0, 2, 4, 1, 3, 5]
    assert layout_permutation(2).tolist() == [0, 1]
    assert layout_permutation(8).dtype == torch.int64


def test_rope_angles() -> None:
    ang = rope_angles([0, 2, 3.5], 8, 100.0)
    assert ang.shape == (3, 4)
    assert ang.dtype == torch.float64
    expected = [[m * 100.0 ** (-2 * i / 8) for i in range(4)] for m in (0, 2, 3.5)]
    torch.testing.assert_close(ang, torch.tensor(expected, dtype=torch.float64))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_apply_rope_matches_reference_implementations(layout: RopeLayout) -> None:
    x = rand(2, 3, 7, 16)
    pos = torch.tensor([0, 1, 2, 5, 100, 1234, 99999])
    torch.testing.assert_close(apply_rope(x, pos, layout=layout), REFS[layout](x, pos))
    torch.testing.assert_close(
        apply_rope(x, pos, base=500.0, layout=layout), REFS[layout](x, pos, 500.0)
    )


@pytest.mark.parametrize("layout", LAYOUTS)
def test_apply_rope_preserves_norms_dtype_and_identity_at_zero(layout: RopeLayout) -> None:
    x = rand(4, 10, 32, seed=5)
    y = apply_rope(x, torch.arange(10) * 37.5, layout=layout)
    assert y.shape == x.shape
    assert y.dtype == torch.float64
    torch.testing.assert_close(y.norm(dim=-1), x.norm(dim=-1), rtol=1e-13, atol=0)
    torch.testing.assert_close(apply_rope(x[:, :1], [0], layout=layout), x[:, :1], rtol=0, atol=0)
    torch.testing.assert_close(
        apply_rope(x, layout=layout), apply_rope(x, list(range(10)), layout=layout)
    )
    y32 = apply_rope(x.float(), torch.arange(10), layout=layout)
    assert y32.dtype == torch.float32
    torch.testing.assert_close(
        y32.double(), apply_rope(x, torch.arange(10), layout=layout), rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("m", [0.0, 1.0, 7.0, 2.5, -3.0, 1000.0])
def test_rope_matrix_equals_apply_rope(layout: RopeLayout, m: float) -> None:
    dim = 10
    x = rand(dim, seed=7)
    mat = rope_matrix(m, dim, layout=layout)
    assert mat.shape == (dim, dim)
    assert mat.dtype == torch.float64
    torch.testing.assert_close(mat @ x, apply_rope(x[None], [m], layout=layout)[0])
    torch.testing.assert_close(mat.T @ mat, torch.eye(dim, dtype=torch.float64))


def test_rope_matrix_block_structure() -> None:
    dim, m = 6, 3.0
    theta = inverse_frequencies(dim)
    inter = rope_matrix(m, dim, layout="interleaved")
    half = rope_matrix(m, dim, layout="half")
    for i in range(dim // 2):
        block = rotation_matrix(m * theta[i].item())
        torch.testing.assert_close(inter[2 * i : 2 * i + 2, 2 * i : 2 * i + 2], block)
        idx = torch.tensor([i, i + dim // 2])
        torch.testing.assert_close(half[idx][:, idx], block)
    # everything outside the blocks is zero
    assert int((inter != 0).sum()) == 4 * (dim // 2)
    assert int((half != 0).sum()) == 4 * (dim // 2)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_relative_property_of_rope_matrices(layout: RopeLayout) -> None:
    for m, n in [(0.0, 5.0), (3.0, 11.0), (105.0, 102.0), (-4.0, 2.5)]:
        lhs = rope_matrix(m, 8, layout=layout).T @ rope_matrix(n, 8, layout=layout)
        torch.testing.assert_close(lhs, rope_matrix(n - m, 8, layout=layout))
        torch.testing.assert_close(
            rope_matrix(m, 8, layout=layout) @ rope_matrix(n, 8, layout=layout),
            rope_matrix(m + n, 8, layout=layout),
        )


@pytest.mark.parametrize("layout", LAYOUTS)
def test_scores_depend_only_on_relative_offset(layout: RopeLayout) -> None:
    q, k = rand(16, seed=1), rand(16, seed=2)
    s = rope_scores(q, k, [105, 5], [102, 2], layout=layout)
    assert s.shape == (2, 2)
    assert s.dtype == torch.float64
    assert s[0, 0].item() == pytest.approx(s[1, 1].item(), abs=1e-12)  # m-n = 3
    pos = torch.arange(12)
    mat = rope_scores(q, k, pos, pos, layout=layout)
    for r in range(-11, 12):
        diag = torch.diagonal(mat, offset=-r)  # entries with m - n = r
        torch.testing.assert_close(diag, diag[:1].expand_as(diag))
    # explicit definition with rope matrices
    m, n = 9.0, 4.0
    explicit = (rope_matrix(m, 16, layout=layout) @ q) @ (rope_matrix(n, 16, layout=layout) @ k)
    assert rope_scores(q, k, [m], [n], layout=layout).item() == pytest.approx(
        explicit.item(), abs=1e-12
    )


@pytest.mark.parametrize("layout", LAYOUTS)
def test_score_by_offset_equals_rope_scores(layout: RopeLayout) -> None:
    q, k = rand(32, seed=3), rand(32, seed=4)
    offsets = torch.arange(-20, 21)
    by_off = rope_score_by_offset(q, k, offsets, layout=layout)
    assert by_off.shape == (41,)
    assert by_off.dtype == torch.float64
    for n in (0, 17, 500):
        m = offsets + n
        full = rope_scores(q, k, m, [n], layout=layout)[:, 0]
        torch.testing.assert_close(by_off, full)
    assert by_off[20].item() == pytest.approx(float(q @ k))  # r = 0: plain dot product


@pytest.mark.parametrize("layout", LAYOUTS)
def test_pair_scores_sum_to_score_and_match_2d_rotation(layout: RopeLayout) -> None:
    dim = 12
    q, k = rand(dim, seed=8), rand(dim, seed=9)
    m, n = 13.0, 4.0
    pairs = rope_pair_scores(q, k, m, n, layout=layout)
    assert pairs.shape == (dim // 2,)
    assert pairs.dtype == torch.float64
    assert pairs.sum().item() == pytest.approx(rope_scores(q, k, [m], [n], layout=layout).item())
    theta = inverse_frequencies(dim)
    for i in range(dim // 2):
        idx = [2 * i, 2 * i + 1] if layout == "interleaved" else [i, i + dim // 2]
        expected = q[idx] @ rotation_matrix((n - m) * theta[i].item()) @ k[idx]
        assert pairs[i].item() == pytest.approx(expected.item(), abs=1e-12)


def test_layouts_agree_after_permutation_and_differ_without() -> None:
    dim = 16
    perm = layout_permutation(dim)
    x = rand(5, dim, seed=11)
    pos = torch.tensor([0, 3, 8, 50, 1000])
    torch.testing.assert_close(
        apply_rope(x[:, perm], pos, layout="half"),
        apply_rope(x, pos, layout="interleaved")[:, perm],
    )
    q, k = rand(dim, seed=12), rand(dim, seed=13)
    s_inter = rope_scores(q, k, pos, pos, layout="interleaved")
    s_half_perm = rope_scores(q[perm], k[perm], pos, pos, layout="half")
    torch.testing.assert_close(s_inter, s_half_perm)
    s_half = rope_scores(q, k, pos, pos, layout="half")
    off_diag = ~torch.eye(5, dtype=torch.bool)
    assert (s_inter - s_half)[off_diag].abs().min().item() > 1e-6
    # both layouts are plain dot products at equal positions
    torch.testing.assert_close(torch.diagonal(s_inter), torch.diagonal(s_half))


def test_decay_bound_closed_form() -> None:
    dim = 8
    offsets = [0.0, 1.0, 3.0, 40.0]
    theta = [10000.0 ** (-2 * i / dim) for i in range(dim // 2)]
    expected = []
    for r in offsets:
        partial = [
            abs(sum(complex(math.cos(r * t), math.sin(r * t)) for t in theta[:j]))
            for j in range(1, dim // 2 + 1)
        ]
        expected.append(sum(partial) / (dim / 2))
    got = rope_decay_bound(offsets, dim)
    assert got.dtype == torch.float64
    torch.testing.assert_close(got, torch.tensor(expected, dtype=torch.float64))


def test_decay_bound_value_at_zero_and_decrease() -> None:
    dim = 128
    offsets = torch.arange(0, 256)
    bound = rope_decay_bound(offsets, dim)
    assert bound.shape == (256,)
    assert bound[0].item() == pytest.approx((dim / 2 + 1) / 2)  # |S_j| = j at r = 0
    rel = rope_decay_bound(offsets, dim, normalize=True)
    assert rel[0].item() == pytest.approx(1.0)
    torch.testing.assert_close(rel, bound / bound[0])
    assert bool((rel <= 1.0 + 1e-12).all())  # |S_j| <= j (triangle inequality)
    # decreases overall (with oscillations): block means decrease, end far below start
    blocks = rel.reshape(8, 32).mean(dim=1)
    assert bool((blocks[1:] < blocks[:-1]).all())
    assert rel[-1].item() < 0.5 * rel[1].item()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_rotary_embedding_equals_apply_rope_and_grows_cache(layout: RopeLayout) -> None:
    rot = RotaryEmbedding(16, layout=layout, max_positions=8)
    assert rot.cached_positions == 8
    assert rot.state_dict() == {}  # non-persistent buffers
    assert {name for name, _ in rot.named_buffers()} == {"cos_cached", "sin_cached"}
    q, k = rand(2, 4, 6, 16, seed=1), rand(2, 4, 6, 16, seed=2)
    rq, rk = rot(q, k)
    torch.testing.assert_close(rq, apply_rope(q, layout=layout), rtol=0, atol=0)
    torch.testing.assert_close(rk, apply_rope(k, layout=layout), rtol=0, atol=0)
    pos = torch.tensor([3, 9, 20, 2, 0, 15])
    rq, rk = rot(q, k, pos)
    assert rot.cached_positions >= 21
    torch.testing.assert_close(rq, apply_rope(q, pos, layout=layout), rtol=0, atol=0)
    torch.testing.assert_close(rk, apply_rope(k, pos, layout=layout), rtol=0, atol=0)
    # fractional / negative / huge positions are computed directly
    for odd_pos in ([0.5, 1, 2, 3, 4, 5], [-3, -2, -1, 0, 1, 2], [0, 1, 2, 3, 4, 1_000_000]):
        rq, _ = rot(q, k, odd_pos)
        torch.testing.assert_close(rq, apply_rope(q, odd_pos, layout=layout), rtol=0, atol=0)
    assert rot.cached_positions < 1_000_000
    # float32 inputs keep their dtype and match apply_rope
    rq32, rk32 = rot(q.float(), k.float(), pos)
    assert rq32.dtype == rk32.dtype == torch.float32
    torch.testing.assert_close(rq32, apply_rope(q.float(), pos, layout=layout), rtol=0, atol=0)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_rotary_embedding_inside_attention_gives_rope_scores(layout: RopeLayout) -> None:
    dim, length = 8, 9
    q0, k0 = rand(dim, seed=21), rand(dim, seed=22)
    rot = RotaryEmbedding(dim, layout=layout)
    q = q0.expand(1, 2, length, dim)  # (batch, heads, L, dim)
    k = k0.expand(1, 1, length, dim)  # grouped key head broadcast over query heads
    rq, rk = rot(q, k)
    logits = rq @ rk.transpose(-1, -2)
    pos = torch.arange(length)
    torch.testing.assert_close(logits[0, 1], rope_scores(q0, k0, pos, pos, layout=layout))
