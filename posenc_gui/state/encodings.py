"""Encodings-compared tab: naive, normalized, binary, sinusoidal and (untrained) learned tables.

One table at a time (``scheme``), ``positions`` rows ``0 … L−1`` by ``dim`` columns (``dim`` is
the number of bits for ``binary``, at most :data:`MAX_BITS`; even, one sin/cos pair per
frequency, for every scheme so the sinusoidal one is always defined). The learned table is an
untrained random initialisation, ``N(0, 0.02²)`` drawn with ``seed`` — what a model starts
from, not what it learns. Tables are built by :func:`posenc_gui.core.encoding_table` in float64.

Verdicts, each computed from the table shown (not typed):

- *unique*: every position has its own vector (distinct rows = ``L``);
- *bounded*: every entry lies in ``[−1, 1]`` (the naive table grows with ``L``);
- *smooth*: the largest step between neighbouring positions ``‖P[i+1] − P[i]‖`` is at most
  :data:`SMOOTH_SHARE` of the largest distance between any two positions (binary: a carry
  flips every bit, a step as large as the whole table; learned: neighbours are unrelated);
- *same dot product at equal distance*: ``P[i]·P[i+k]`` depends on ``k`` only, for every ``k``
  (the spread ``max − min`` of each diagonal of ``P·Pᵀ`` is below
  :data:`SAME_DOT_TOLERANCE` ``· max|P·Pᵀ|``);
- *same vector at any length*: positions ``0 … 7`` have the same vectors in the tables of
  :data:`MIN_POSITIONS`, ``L`` and :data:`MAX_POSITIONS` positions (normalized: ``p/(L−1)``
  moves with ``L``).

Magnitude: the table is added to unit-scale word embeddings ``w ~ N(0, 1)`` (drawn with
``seed``, the same words at every size) and each position's share of the sum,
``‖p‖²/(‖w‖² + ‖p‖²)``, is reported; the vector of position :data:`LENGTH_POSITION` is
computed at every length of :data:`LENGTHS`.

Read-out groups (inputs): ``table`` (scheme, positions, dim, layout, seed): shape, range and
the verdicts; ``offsets`` (same): mean, min and max of ``P[i]·P[i+k]`` over ``i`` for every
``k``; ``similarity`` (same): mean cosine and dot product at :data:`COSINE_OFFSETS`;
``vector`` (… and position); ``dot`` (… and distance): ``P[i]·P[i+k]`` over every ``i``, its
spread; ``pairs`` (… and distance, draw): :data:`PAIRS` random pairs at distance ``k``, as the
notebook prints them; ``sum`` (table inputs): the word + position shares; ``length`` (scheme,
dim, layout, seed): ``P[5]`` at every length. Only ``dot_at_distance`` is a list whose key
contains ``dot``.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from posenc_gui.state.model import Inputs, Limits, ReadoutGroup, TabModel
from posenc_gui.state.params import (
    Value,
    choice_param,
    dim_param,
    int_param,
    sinusoidal_layout_param,
)
from posenc_gui.state.prefixes import Prefixes

if TYPE_CHECKING:
    from torch import Tensor

SCHEMES: tuple[str, ...] = ("naive", "normalized", "binary", "sinusoidal", "learned")
SCHEME_LABELS: tuple[str, ...] = (
    "naive (p)",
    "normalized (p / (L−1))",
    "binary (bits of p)",
    "sinusoidal (sin, cos)",
    "learned (untrained random table)",
)
HEATMAPS: tuple[str, ...] = ("table", "dot", "cosine")
DOT_VIEWS: tuple[str, ...] = ("pairs", "distance")
MAGNITUDE_VIEWS: tuple[str, ...] = ("sum", "length")
MIN_POSITIONS = 8
MAX_POSITIONS = 512
MAX_DIM = 512
MAX_BITS = 62
#: Offsets of the mean cosine similarity read-out (the chapter's table).
COSINE_OFFSETS: tuple[int, ...] = (1, 4, 16, 32)
#: A dot product "depends on the distance only" when every diagonal spread is below this share
#: of the largest |P·Pᵀ| entry (float64 round-off of a sum of ``d`` products is ~1e−15).
SAME_DOT_TOLERANCE = 1e-9
#: "Smooth": no step between neighbours larger than this share of the table's extent.
SMOOTH_SHARE = 0.5
#: Number of random pairs of the "draw" action.
PAIRS = 5
#: The position whose vector is followed over the lengths, and those lengths.
LENGTH_POSITION = 5
LENGTHS: tuple[int, ...] = tuple(
    sorted({round(MIN_POSITIONS * 2 ** (k / 8)) for k in range(49)} | {MAX_POSITIONS})
)
#: Number of dimensions drawn as waves over the positions (and followed over the lengths).
WAVES = 8

TABLE_INPUTS = ("scheme", "positions", "dim", "layout", "seed")
VECTOR_INPUTS = (*TABLE_INPUTS, "position")
DOT_INPUTS = (*TABLE_INPUTS, "distance")
PAIR_INPUTS = (*DOT_INPUTS, "draw")
LENGTH_INPUTS = ("scheme", "dim", "layout", "seed")


def table_key(scheme: str, positions: int, dim: int, layout: str, seed: int) -> tuple[Any, ...]:
    """What the table really depends on: the layout for sinusoidal, the seed for learned only
    (a new seed leaves a sinusoidal table, and everything computed from it, as it was)."""
    return (
        scheme, positions, dim,
        layout if scheme == "sinusoidal" else "",
        seed if scheme == "learned" else 0,
    )  # fmt: skip


@dataclass(frozen=True)
class Analysis:
    """One table and what every view and read-out takes from it (shared, read-only).

    The ``L × L`` matrices (:attr:`gram`, :attr:`cosine`) are built only when asked for (the
    heatmap of the dot products or of the cosines): every number read off them is computed
    here already, from one ``P·Pᵀ`` built in a reused scratch buffer."""

    key: tuple[Any, ...]
    table: Tensor  # (L, d) float64
    offset_mean: Tensor  # (L,): mean over i of P[i]·P[i+k], k = 0 … L−1
    offset_min: Tensor
    offset_max: Tensor
    distinct: int
    step: float  # largest ‖P[i+1] − P[i]‖
    extent: float  # largest ‖P[i] − P[j]‖
    change_with_length: float  # largest |P_L[i] − P_L'[i]|, i < 8, L' = 8 and 512
    largest_product: float  # max |P·Pᵀ|
    table_min: float
    table_max: float
    cosine_offsets: tuple[int, ...]  # the offsets of COSINE_OFFSETS that fit in the table
    mean_cosine: Tensor  # mean of cos(P[i], P[i+k]) over i, for k in cosine_offsets
    #: Arrays a panel derives once per table (float32 images…), filled on first use.
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def gram(self) -> Tensor:
        """``(L, L)``: ``P·Pᵀ`` (built on first use)."""
        gram = self.cache.get("gram_matrix")
        if gram is None:
            gram = self.cache["gram_matrix"] = self.table @ self.table.T
        return gram

    @property
    def cosine(self) -> Tensor:
        """``(L, L)``: the cosine similarity of the rows (built on first use)."""
        cos = self.cache.get("cosine_matrix")
        if cos is None:
            from posenc_gui.core.encodings import cosine_matrix

            cos = self.cache["cosine_matrix"] = cosine_matrix(self.table, self.gram)
        return cos


def _analysis(key: tuple[Any, ...]) -> Analysis:
    from posenc_gui.core.encodings import distinct_rows, gram_summary

    scheme, n, d, layout, seed = key
    table = _table_of(scheme, n, d, layout, seed)
    offsets = tuple(k for k in COSINE_OFFSETS if k < n)
    g = gram_summary(table, offsets)
    # positions 0 … 7 in the tables of 8 and 512 positions
    first = table[:MIN_POSITIONS]
    change = max(float((rows - first).abs().max()) for rows in _first_rows(scheme, d, layout, seed))
    return Analysis(
        key, table, g.offset_mean, g.offset_min, g.offset_max, distinct_rows(table), g.step,
        g.extent, change, g.largest, float(table.min()), float(table.max()), offsets,
        g.cosine_means,
    )  # fmt: skip


def _table_of(scheme: str, n: int, dim: int, layout: str, seed: int) -> Tensor:
    """The ``n``-row table. For every scheme but ``normalized`` (``p/(L−1)`` moves with ``L``)
    it is the first ``n`` rows of the :data:`MAX_POSITIONS`-row table (the core's contract):
    once the length changes for one (scheme, dim, layout, seed), the longest table is built
    and kept, and the next lengths are slices of it (read-only). A new dim or seed builds
    only the rows it shows."""
    layout = layout or "interleaved"
    return _TABLES.get((scheme, dim, layout, seed), n, sliceable=scheme != "normalized")


def _build_table(key: tuple[str, int, str, int], n: int) -> Tensor:
    from posenc_gui.core.encodings import encoding_table

    scheme, dim, layout, seed = key
    return encoding_table(scheme, n, dim, layout=layout, seed=seed)


#: The tables of the last few (scheme, dim, layout, seed), kept at :data:`MAX_POSITIONS` rows
#: once their length changed (read-only: slices are handed out).
_TABLES: Prefixes[tuple[str, int, str, int], Tensor] = Prefixes(
    MAX_POSITIONS, _build_table, lambda table, n: table[:n]
)


@lru_cache(maxsize=8)
def _first_rows(scheme: str, dim: int, layout: str, seed: int) -> tuple[Tensor, Tensor]:
    """Rows 0 … 7 of the tables of :data:`MIN_POSITIONS` and :data:`MAX_POSITIONS` positions
    (the same for every length ``L`` in between: a length step builds no other table)."""
    from posenc_gui.core.encodings import encoding_table

    def rows(n: int) -> Tensor:
        return encoding_table(scheme, n, dim, layout=layout or "interleaved", seed=seed,
                              rows=MIN_POSITIONS)  # fmt: skip

    return rows(MIN_POSITIONS), rows(MAX_POSITIONS)


#: Analyses kept for states shown again (a slider dragged back over the lengths it came
#: from): the most recent first, within this many bytes of tensors and arrays.
ANALYSES_KEPT_BYTES = 48 << 20
ANALYSES_KEPT = 32
_analyses: OrderedDict[tuple[Any, ...], Analysis] = OrderedDict()
#: Bytes of each kept analysis when last measured, and the analyses shown since then.
_sizes: dict[tuple[Any, ...], int] = {}
_used: set[tuple[Any, ...]] = set()


def _nbytes(x: Any) -> int:
    """Bytes of the tensors and arrays in ``x`` (nested in tuples, lists and dicts)."""
    if isinstance(x, (tuple, list)):
        return sum(_nbytes(y) for y in x)
    if isinstance(x, dict):
        return sum(_nbytes(y) for y in x.values())
    nbytes = getattr(x, "nbytes", None)  # numpy arrays and torch tensors
    return nbytes if isinstance(nbytes, int) else 0


def analysis_size(a: Analysis) -> int:
    """Bytes an :class:`Analysis` holds, with what was derived from it since (its cache)."""
    tensors = (a.table, a.offset_mean, a.offset_min, a.offset_max, a.mean_cosine)
    return sum(t.nbytes for t in tensors) + _nbytes(a.cache)


def analysis_of(v: Mapping[str, Value]) -> Analysis:
    """The table of the table inputs in ``v`` and what is computed from it (cached: every
    group and view of one state, states that differ only in an unused input, and states
    shown again a little later share it)."""
    key = table_key(
        str(v["scheme"]), int(v["positions"]), int(v["dim"]), str(v["layout"]), int(v["seed"])
    )
    a = _analyses.get(key)
    if a is not None:
        _analyses.move_to_end(key)
        _used.add(key)
        return a
    # an analysis grows (lazily derived matrices) only while it is shown: measured again are
    # the one shown last and those shown since the last new one, not every one kept
    if _analyses:
        _used.add(next(reversed(_analyses)))
    for k in _used:
        if k in _analyses:
            _sizes[k] = analysis_size(_analyses[k])
    _used.clear()
    a = _analyses[key] = _analysis(key)
    _sizes[key] = analysis_size(a)
    # forget the oldest beyond the budget (their lazily derived matrices counted); the two
    # newest stay whatever their size
    total = sum(_sizes.values())
    while len(_analyses) > 2 and (total > ANALYSES_KEPT_BYTES or len(_analyses) > ANALYSES_KEPT):
        old, _ = _analyses.popitem(last=False)
        total -= _sizes.pop(old)
    return a


def forget_analyses() -> None:
    """Drop every kept :class:`Analysis` (tests, memory measurements)."""
    _analyses.clear()
    _sizes.clear()
    _used.clear()


@lru_cache(maxsize=4)
def _words(seed: int) -> Tensor:
    import torch

    gen = torch.Generator().manual_seed(seed)
    return torch.randn(MAX_POSITIONS, MAX_DIM, generator=gen, dtype=torch.float32).double()


def word_embeddings(positions: int, dim: int, seed: int) -> Tensor:
    """Unit-scale word embeddings ``w ~ N(0, 1)``, ``(positions, dim)`` float64: the top-left
    corner of one ``512 × 512`` draw per ``seed`` (the same words whatever the size)."""
    return _words(seed)[:positions, :dim]


def _table(v: Inputs) -> dict[str, Any]:
    """The table's shape and range, and the scheme's verdicts computed from it."""
    a = analysis_of(v)
    n, d = a.table.shape
    low, high = a.table_min, a.table_max
    spreads = a.offset_max - a.offset_min
    scale = a.largest_product
    worst = int(spreads.argmax())
    share = a.step / a.extent if a.extent > 0 else 0.0
    return {
        "table_shape": [n, d],
        "table_min": low,
        "table_max": high,
        "max_abs_value": max(abs(low), abs(high)),
        "distinct_rows": a.distinct,
        "largest_step": a.step,
        "largest_distance": a.extent,
        "step_share_of_distance": share,
        "largest_product": scale,
        "max_product_spread": float(spreads[worst]),
        "max_product_spread_at": worst,
        "change_with_length": a.change_with_length,
        "unique": a.distinct == n,
        "bounded": max(abs(low), abs(high)) <= 1.0,
        "smooth": share <= SMOOTH_SHARE,
        "same_dot_at_equal_distance": float(spreads[worst]) <= SAME_DOT_TOLERANCE * max(scale, 1),
        "same_vector_at_any_length": a.change_with_length == 0.0,
    }


def _offsets(v: Inputs) -> dict[str, Any]:
    """``P[i]·P[i+k]`` against the distance: mean, min and max over ``i`` for every ``k``."""
    a = analysis_of(v)
    return {
        "product_mean_by_distance": a.offset_mean.tolist(),
        "product_min_by_distance": a.offset_min.tolist(),
        "product_max_by_distance": a.offset_max.tolist(),
    }


def _vector(v: Inputs) -> dict[str, Any]:
    """The vector of position ``p`` and its length."""
    row = analysis_of(v).table[v.as_int("position")]
    return {"vector_at_position": row.tolist(), "vector_norm": float(row.norm())}


def _dot(v: Inputs) -> dict[str, Any]:
    """``P[i]·P[i+k]`` for every ``i`` and its spread (0: depends on the distance only)."""
    from posenc_gui.core import dot_at_distance

    a = analysis_of(v)
    dots = dot_at_distance(a.table, v.as_int("distance"))
    low, high = float(dots.min()), float(dots.max())
    scale = a.largest_product
    return {
        "dot_at_distance": dots.tolist(),
        "dot_min": low,
        "dot_max": high,
        "dot_mean": float(dots.mean()),
        "dot_spread": high - low,
        "dot_same_for_every_i": high - low <= SAME_DOT_TOLERANCE * max(scale, 1.0),
    }


def _pairs(v: Inputs) -> dict[str, Any]:
    """:data:`PAIRS` random pairs ``(i, i+k)`` (draw number ``draw``) and their dot products,
    with the notebook's sentence for each."""
    from posenc_gui.core.encodings import random_pair_starts

    table = analysis_of(v).table
    k = v.as_int("distance")
    starts = random_pair_starts(table.shape[0], k, PAIRS, v.as_int("draw")).tolist()
    products = [float(table[i] @ table[i + k]) for i in starts]
    return {
        "random_pair_positions": [[i, i + k] for i in starts],
        "random_pair_products": products,
        "random_pair_lines": [
            f"The dot product between p_{i} and p_{i + k} (distance: {k}) is {x:.3f}"
            for i, x in zip(starts, products, strict=True)
        ],
    }


def _similarity(v: Inputs) -> dict[str, Any]:
    """Mean cosine similarity and dot product of ``P[i]`` and ``P[i+k]`` at the offsets that fit
    in the table."""
    a = analysis_of(v)
    offsets = list(a.cosine_offsets)
    return {
        "cosine_offsets": offsets,
        "mean_cosine_at_offsets": a.mean_cosine.tolist(),
        "mean_product_at_offsets": [float(a.offset_mean[k]) for k in offsets],
    }


def _sum(v: Inputs) -> dict[str, Any]:
    """Word embeddings plus the table: how much of each sum the position contributes."""
    from posenc_gui.core.encodings import position_share

    p = analysis_of(v).table
    n, d = p.shape
    # a view of the seed's draw: only the n × d numbers shown are read (a new dim copies and
    # sums no 512-row block of words)
    w = word_embeddings(n, d, v.as_int("seed"))
    share = position_share(p, w)
    e = w + p
    return {
        "position_share": share.tolist(),
        "position_share_first": float(share[0]),
        "position_share_last": float(share[-1]),
        "position_share_mean": float(share.mean()),
        "word_rms": float(w.square().mean().sqrt()),
        "position_rms": float(p.square().mean().sqrt()),
        "sum_rms": float(e.square().mean().sqrt()),
    }


@lru_cache(maxsize=8)
def _length_rows(scheme: str, dim: int, layout: str, seed: int) -> Tensor:
    import torch

    from posenc_gui.core.encodings import encoding_table

    layout = layout or "interleaved"
    rows = [
        encoding_table(scheme, n, dim, layout=layout, seed=seed, rows=LENGTH_POSITION + 1)[-1]
        for n in LENGTHS
    ]
    return torch.stack(rows)


def length_rows(v: Mapping[str, Value]) -> Tensor:
    """``P_L[5]`` (row :data:`LENGTH_POSITION` of the ``L``-row table) for every ``L`` of
    :data:`LENGTHS`: shape ``(len(LENGTHS), dim)``, cached."""
    scheme, _, dim, layout, seed = table_key(
        str(v["scheme"]), 0, int(v["dim"]), str(v["layout"]), int(v["seed"])
    )
    return _length_rows(scheme, dim, layout, seed)


def _length(v: Inputs) -> dict[str, Any]:
    """The vector of position 5 at every length: unchanged, or moving with ``L``."""
    rows = length_rows(v)
    change = float((rows - rows[-1]).abs().max())
    return {
        "lengths": list(LENGTHS),
        "length_position": LENGTH_POSITION,
        "vector_by_length": rows[:, :WAVES].tolist(),
        "vector_change_across_lengths": change,
    }


class EncodingsModel(TabModel):
    """Five absolute encodings, one table at a time, with their verdicts."""

    id = "encodings"
    title = "Encodings compared"
    short_title = "Compare"
    summary = (
        "Naive, normalized, binary, sinusoidal and (untrained) learned position tables: the "
        "table, its waves, the dot product at a fixed distance, the similarity matrix, what "
        "the encoding adds to a word, and each scheme's verdict."
    )
    params = (
        choice_param(
            "scheme", "sinusoidal", SCHEMES, "Scheme",
            "The encoding: p itself, p/(L−1), the bits of p, the paper's sines and cosines, or "
            "an untrained learned table (random N(0, 0.02²), not trained).",
            choice_labels=SCHEME_LABELS,
        ),
        int_param(
            "positions", 128, MIN_POSITIONS, MAX_POSITIONS, "Positions L",
            "Number of positions L (rows 0 … L−1).", log=True,
        ),
        dim_param(
            64, MAX_DIM, label="Dim d (bits)",
            description=f"Encoding dimension d, even (the number of bits for binary: at most "
            f"{MAX_BITS}; switching to binary takes the fewest bits that number every "
            "position).",
        ),
        sinusoidal_layout_param(),
        int_param(
            "seed", 0, 0, 999, "Seed",
            "Seed of the learned (untrained, random) table and of the random word embeddings.",
        ),
        choice_param(
            "heatmap", "table", HEATMAPS, "Heatmap",
            "What the heatmap shows: the table P (positions × dims), the dot products P·Pᵀ of "
            "every pair of positions, or their cosine similarities.",
            choice_labels=("table P[p, j]", "dot products P·Pᵀ", "cosine similarity"),
        ),
        choice_param(
            "dots", "pairs", DOT_VIEWS, "Dot products",
            "The dot-product plot: P[i]·P[i+k] for every i at the distance k, or its mean (and "
            "range) over i against the distance k.",
            choice_labels=("P[i]·P[i+k] over i", "against the distance k"),
        ),
        choice_param(
            "magnitude", "sum", MAGNITUDE_VIEWS, "Magnitude",
            "The magnitude plot: each position's share of word + position (random unit-scale "
            "words), or the vector of position 5 at every sequence length L.",
            choice_labels=("word + position", "P[5] at every length L"),
        ),
        int_param("position", 32, 0, MAX_POSITIONS - 1, "Position p", "The position read off."),
        int_param(
            "distance", 10, 0, MAX_POSITIONS - 1, "Distance k",
            "Distance k of the dot product P[i]·P[i+k] (0: the squared norms).",
        ),
        int_param(
            "draw", 0, 0, 999, "Random draw",
            f"Which draw of {PAIRS} random pairs (i, i+k) is listed (reproducible; the button "
            "draws the next).",
        ),
    )  # fmt: skip

    groups = (
        ReadoutGroup("table", TABLE_INPUTS, _table),
        ReadoutGroup("offsets", TABLE_INPUTS, _offsets),
        ReadoutGroup("similarity", TABLE_INPUTS, _similarity),
        ReadoutGroup("vector", VECTOR_INPUTS, _vector),
        ReadoutGroup("dot", DOT_INPUTS, _dot),
        ReadoutGroup("pairs", PAIR_INPUTS, _pairs),
        ReadoutGroup("sum", TABLE_INPUTS, _sum),
        ReadoutGroup("length", LENGTH_INPUTS, _length),
    )

    @classmethod
    def couple(cls, given: Mapping[str, Value], base: Mapping[str, Value]) -> dict[str, Value]:
        """Switching to binary (``dim`` not given) takes the fewest bits, even, that give every
        position its own code (8 for 128 positions); switching back from binary takes the
        default dimension again. Everywhere else ``dim`` stays as it is."""
        out = dict(given)
        scheme, old = given.get("scheme"), base.get("scheme")
        if scheme is None or scheme == old or "dim" in given:
            return out
        if scheme == "binary":
            positions = given.get("positions", base.get("positions"))
            if isinstance(positions, int) and not isinstance(positions, bool) and positions > 0:
                out["dim"] = min(MAX_BITS, 2 * math.ceil(bits_needed(positions) / 2))
        elif old == "binary":
            out["dim"] = cls.param("dim").default
        return out

    @classmethod
    def limits(cls, values: Mapping[str, Value]) -> Limits:
        v = Inputs(values, frozenset(("scheme", "positions")), "encodings limits")
        top = v.as_int("positions") - 1
        out: Limits = {"position": (0, top), "distance": (0, top)}
        if v.as_str("scheme") == "binary":
            out["dim"] = (2, MAX_BITS)
        return out

    figures = (
        "heatmap",
        "waves",
        "similarity_text",
        "vector_text",
        "dots",
        "magnitude",
        "dot_text",
        "magnitude_text",
        "pairs_text",
    )
    #: Presented together in F5: a plot and its read-out block.
    figure_pairs = (
        ("heatmap", "similarity_text"),
        ("waves", "vector_text"),
        ("dots", "dot_text"),
        ("magnitude", "magnitude_text"),
    )
    animated = "position"


def bits_needed(positions: int) -> int:
    """Bits that give every one of ``positions`` positions its own code: ``⌈log₂ L⌉``."""
    return max(1, math.ceil(math.log2(positions)))


MODEL = EncodingsModel
