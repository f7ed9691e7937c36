"""Every invalid argument raises ValueError naming the argument and the accepted range."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch

from posenc_gui import core
from posenc_gui.core import (
    PositionalEncoding,
    RotaryEmbedding,
    alibi_bias,
    alibi_slopes,
    apply_rope,
    binary_encoding,
    inverse_frequencies,
    layout_permutation,
    learned_encoding,
    naive_encoding,
    rope_decay_bound,
    rope_matrix,
    rope_pair_scores,
    rope_score_by_offset,
    rope_scores,
    rotation_matrix,
    similarity,
    sinusoidal_at,
    sinusoidal_dot_by_offset,
    sinusoidal_encoding,
    wavelengths,
)

X = torch.zeros(3, 8)
V = torch.ones(8)

CASES: list[tuple[str, Callable[[], object], tuple[str, ...]]] = [
    ("odd dim", lambda: inverse_frequencies(7), ("dim must be an even integer >= 2, got 7",)),
    ("zero dim", lambda: inverse_frequencies(0), ("dim", ">= 2")),
    ("negative dim", lambda: sinusoidal_encoding(4, -2), ("dim", ">= 2")),
    ("bool dim", lambda: wavelengths(True), ("dim",)),
    ("float dim", lambda: rope_matrix(1.0, 4.0), ("dim",)),  # type: ignore[arg-type]
    ("rope odd dim", lambda: rope_decay_bound([0], 5), ("dim", "even")),
    ("perm odd dim", lambda: layout_permutation(3), ("dim", "even")),
    ("base = 1", lambda: inverse_frequencies(8, 1.0), ("base must be a finite number > 1",)),
    ("base < 1", lambda: sinusoidal_at([0], 8, 0.5), ("base", "> 1")),
    ("base inf", lambda: sinusoidal_dot_by_offset([0], 8, float("inf")), ("base", "> 1")),
    ("rope base", lambda: apply_rope(X, base=-3.0), ("base", "> 1")),
    ("sin layout", lambda: sinusoidal_encoding(4, 8, layout="half"), ("layout", "'concat'")),  # type: ignore[arg-type]
    ("sin_at layout", lambda: sinusoidal_at([1], 8, layout="x"), ("layout",)),  # type: ignore[arg-type]
    ("rope layout", lambda: apply_rope(X, layout="concat"), ("layout", "'half'")),  # type: ignore[arg-type]
    ("matrix layout", lambda: rope_matrix(1, 8, layout="?"), ("layout",)),  # type: ignore[arg-type]
    ("scores layout", lambda: rope_scores(V, V, [0], [0], layout="?"), ("layout",)),  # type: ignore[arg-type]
    ("pair layout", lambda: rope_pair_scores(V, V, 0, 0, layout="?"), ("layout",)),  # type: ignore[arg-type]
    ("module layout", lambda: RotaryEmbedding(8, layout="?"), ("layout",)),  # type: ignore[arg-type]
    ("num_positions 0", lambda: sinusoidal_encoding(0, 8), ("num_positions", ">= 1", "got 0")),
    ("binary num_positions", lambda: binary_encoding(-1, 4), ("num_positions", ">= 1")),
    ("naive num_positions", lambda: naive_encoding(0, 4), ("num_positions", ">= 1")),
    ("learned num_positions", lambda: learned_encoding(0, 4), ("num_positions", ">= 1")),
    ("naive dim", lambda: naive_encoding(3, 0), ("dim", ">= 1")),
    ("learned dim", lambda: learned_encoding(3, -1), ("dim", ">= 1")),
    ("learned std", lambda: learned_encoding(3, 4, std=-0.1), ("std", ">= 0")),
    ("bits 0", lambda: binary_encoding(4, 0), ("bits", "[1, 63]", "got 0")),
    ("bits 64", lambda: binary_encoding(4, 64), ("bits", "[1, 63]")),
    ("num_heads 0", lambda: alibi_slopes(0), ("num_heads", ">= 1", "got 0")),
    ("bias num_heads", lambda: alibi_bias(-2, 4), ("num_heads", ">= 1")),
    ("bias length", lambda: alibi_bias(2, 0), ("length", ">= 1")),
    ("pe d_model", lambda: PositionalEncoding(7), ("d_model", "even", "got 7")),
    ("pe max_len", lambda: PositionalEncoding(8, max_len=0), ("max_len", ">= 1")),
    ("pe base", lambda: PositionalEncoding(8, base=1), ("base", "> 1")),
    ("rotary max_positions", lambda: RotaryEmbedding(8, max_positions=0), ("max_positions",)),
    ("rotary dim", lambda: RotaryEmbedding(9), ("dim", "even")),
    ("start", lambda: sinusoidal_encoding(2, 8, start=1.5), ("start", "integer")),  # type: ignore[arg-type]
    ("positions 2-D", lambda: sinusoidal_at([[1, 2]], 8), ("positions", "1-D")),  # type: ignore[list-item]
    ("offsets 2-D", lambda: rope_score_by_offset(V, V, torch.zeros(2, 2)), ("offsets", "1-D")),
    ("positions length", lambda: apply_rope(X, [0, 1]), ("positions", "length", "3")),
    ("x odd last dim", lambda: apply_rope(torch.zeros(3, 7)), ("dim", "even")),
    ("x 1-D", lambda: apply_rope(torch.zeros(8)), ("x", "(..., L, dim)")),
    ("x integer", lambda: apply_rope(torch.zeros(2, 8, dtype=torch.int64)), ("x", "floating")),
    ("q/k length", lambda: rope_scores(V, torch.ones(6), [0], [0]), ("q and k", "same length")),
    ("q odd", lambda: rope_score_by_offset(torch.ones(3), V, [0]), ("q", "even")),
    ("pair m", lambda: rope_pair_scores(V, V, "a", 0), ("m", "real number")),  # type: ignore[arg-type]
    ("matrix position", lambda: rope_matrix(None, 8), ("position", "real number")),  # type: ignore[arg-type]
    ("theta", lambda: rotation_matrix("x"), ("theta",)),  # type: ignore[arg-type]
    ("kind", lambda: similarity(X, kind="l2"), ("kind", "'cosine'")),  # type: ignore[arg-type]
    ("table 1-D", lambda: similarity(torch.zeros(3)), ("table", "2-D")),
]


@pytest.mark.parametrize(("label", "call", "fragments"), CASES, ids=[c[0] for c in CASES])
def test_invalid_arguments_raise_value_error_naming_them(
    label: str, call: Callable[[], object], fragments: tuple[str, ...]
) -> None:
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{label}: {fragment!r} not in {message!r}"


def test_rotary_forward_argument_errors() -> None:
    rot = RotaryEmbedding(8)
    q = torch.zeros(2, 5, 8)
    with pytest.raises(ValueError, match="dim = 8"):
        rot(torch.zeros(2, 5, 6), torch.zeros(2, 5, 6))
    with pytest.raises(ValueError, match=r"k\.shape\[-2\]"):
        rot(q, torch.zeros(2, 4, 8))
    with pytest.raises(ValueError, match="positions must have length"):
        rot(q, q, [0, 1])


def test_public_api_is_exported() -> None:
    expected = {
        "inverse_frequencies", "wavelengths", "sinusoidal_encoding", "sinusoidal_at",
        "binary_encoding", "naive_encoding", "learned_encoding", "PositionalEncoding",
        "rotation_matrix", "rope_matrix", "rope_angles", "apply_rope", "rope_scores",
        "rope_score_by_offset", "rope_pair_scores", "rope_decay_bound", "layout_permutation",
        "RotaryEmbedding", "alibi_slopes", "alibi_bias", "similarity", "sinusoidal_dot_by_offset",
    }  # fmt: skip
    assert expected <= set(core.__all__)
    for name in core.__all__:
        assert hasattr(core, name), name
