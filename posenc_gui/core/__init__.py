"""Pure-torch maths core of PosEnc Explorer (no Qt).

Sinusoidal / binary / naive / learned absolute encodings, RoPE, ALiBi and similarity helpers.
Conventions are documented in each module (the README sums them up): frequencies ``ω_i = θ_i =
base^(-2i/d)``; sinusoidal layouts ``"interleaved"`` (paper) and ``"concat"``; RoPE layouts
``"interleaved"`` (RoFormer, GPT-J, LLaMA) and ``"half"`` (GPT-NeoX, HF ``rotate_half``).
Invalid arguments raise :class:`ValueError` naming the argument and the accepted range.
:mod:`posenc_gui.core.rope_rows` holds the unchecked numpy fast paths behind the RoPE score
ranges (what the RoPE tab computes at each step); :func:`colour_index` maps values on the
fixed scale ``[−1, 1]`` to the indices of a 256-colour table.
"""

from __future__ import annotations

from .alibi import (
    AlibiRule,
    alibi_bias,
    alibi_bias_for_slope,
    alibi_rule,
    alibi_slopes,
    causal_softmax_row,
    nearest_keys_holding,
    rope_expected_score,
    rope_mean_score,
)
from .colour import colour_index
from .encodings import (
    ENCODING_SCHEMES,
    distinct_rows,
    dot_at_distance,
    encoding_table,
    mean_by_offset,
    spread_by_offset,
)
from .rope import (
    ROPE_LAYOUTS,
    RopeLayout,
    RotaryEmbedding,
    apply_rope,
    layout_permutation,
    minmax_bins,
    nice_ceil,
    rope_abel_sums,
    rope_angles,
    rope_bound_coefficient,
    rope_complex_pairs,
    rope_decay_bound,
    rope_matrix,
    rope_pair_scores,
    rope_score_bound,
    rope_score_by_offset,
    rope_score_range,
    rope_score_toeplitz,
    rope_scores,
)
from .rotation import rotation_matrix, wrap_angle
from .similarity import SIMILARITY_KINDS, SimilarityKind, similarity
from .sinusoidal import (
    SINUSOIDAL_LAYOUTS,
    PositionalEncoding,
    SinusoidalLayout,
    binary_encoding,
    inverse_frequencies,
    learned_encoding,
    naive_encoding,
    sinusoidal_at,
    sinusoidal_column_min_max,
    sinusoidal_columns,
    sinusoidal_columns_from_angles,
    sinusoidal_dot_by_offset,
    sinusoidal_encoding,
    sinusoidal_pair_angles,
    wavelengths,
)

__all__ = [
    "ENCODING_SCHEMES",
    "ROPE_LAYOUTS",
    "SIMILARITY_KINDS",
    "SINUSOIDAL_LAYOUTS",
    "AlibiRule",
    "PositionalEncoding",
    "RopeLayout",
    "RotaryEmbedding",
    "SimilarityKind",
    "SinusoidalLayout",
    "alibi_bias",
    "alibi_bias_for_slope",
    "alibi_rule",
    "alibi_slopes",
    "apply_rope",
    "binary_encoding",
    "causal_softmax_row",
    "colour_index",
    "distinct_rows",
    "dot_at_distance",
    "encoding_table",
    "inverse_frequencies",
    "layout_permutation",
    "learned_encoding",
    "mean_by_offset",
    "minmax_bins",
    "naive_encoding",
    "nearest_keys_holding",
    "nice_ceil",
    "rope_abel_sums",
    "rope_angles",
    "rope_bound_coefficient",
    "rope_complex_pairs",
    "rope_decay_bound",
    "rope_expected_score",
    "rope_matrix",
    "rope_mean_score",
    "rope_pair_scores",
    "rope_score_bound",
    "rope_score_by_offset",
    "rope_score_range",
    "rope_score_toeplitz",
    "rope_scores",
    "rotation_matrix",
    "similarity",
    "sinusoidal_at",
    "sinusoidal_column_min_max",
    "sinusoidal_columns",
    "sinusoidal_columns_from_angles",
    "sinusoidal_dot_by_offset",
    "sinusoidal_encoding",
    "sinusoidal_pair_angles",
    "spread_by_offset",
    "wavelengths",
    "wrap_angle",
]
