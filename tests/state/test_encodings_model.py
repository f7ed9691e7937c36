"""Encodings-compared tab model: verdicts from the tables, limits, ``values`` on the CLI."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from posenc_gui import cli
from posenc_gui.state import ParamError, ParamState
from posenc_gui.state.encodings import MODEL, SCHEMES


def readouts(**given: Any) -> dict[str, Any]:
    return MODEL.readouts(MODEL.resolve(given))


def values(*sets: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    args = ["values", "--tab", "encodings"]
    for s in sets:
        args += ["--set", s]
    assert cli.run(args) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_values_sinusoidal_dot_is_constant(capsys: pytest.CaptureFixture[str]) -> None:
    out = values("scheme=sinusoidal", "dim=512", "distance=10", capsys=capsys)
    closed = sum(math.cos(10 * 10000.0 ** (-2 * i / 512)) for i in range(256))
    assert out["tab"] == "encodings"
    # the curve is the only list whose key says "dot"
    assert [k for k, v in out.items() if "dot" in k and isinstance(v, list)] == ["dot_at_distance"]
    assert out["dot_same_for_every_i"] is True
    assert all(line.endswith("is 173.790") for line in out["random_pair_lines"])
    assert len(out["dot_at_distance"]) == 128 - 10
    assert all(d == pytest.approx(closed, rel=1e-9) for d in out["dot_at_distance"])
    assert round(out["dot_mean"], 3) == 173.790
    assert out["dot_spread"] < 1e-9
    assert out["same_dot_at_equal_distance"] is True


def test_values_binary_dot_varies(capsys: pytest.CaptureFixture[str]) -> None:
    out = values("scheme=binary", "dim=8", "distance=10", capsys=capsys)
    expected = [bin(i & (i + 10)).count("1") for i in range(118)]
    assert out["dot_at_distance"] == expected
    assert out["dot_spread"] == max(expected) - min(expected) > 0
    assert out["same_dot_at_equal_distance"] is False
    assert out["dot_same_for_every_i"] is False


VERDICTS = ("unique", "bounded", "smooth", "same_dot_at_equal_distance",
            "same_vector_at_any_length")  # fmt: skip


@pytest.mark.parametrize(
    ("scheme", "expected"),
    [
        ("naive", (True, False, True, False, True)),
        ("normalized", (True, True, True, False, False)),
        ("binary", (True, True, False, False, True)),
        ("sinusoidal", (True, True, True, True, True)),
        ("learned", (True, True, False, False, True)),
    ],
)
@pytest.mark.parametrize(("positions", "dim"), [(8, 2), (64, 16), (512, 62)])
def test_verdicts(scheme: str, expected: tuple[bool, ...], positions: int, dim: int) -> None:
    r = readouts(scheme=scheme, positions=positions, dim=dim)
    if scheme == "binary" and 2**dim < positions:
        expected = (False, *expected[1:])
    assert tuple(r[k] for k in VERDICTS) == expected


def test_smooth_is_the_largest_step_against_the_extent() -> None:
    sin = readouts(scheme="sinusoidal", positions=8, dim=2)  # one pair: ω = 1
    assert sin["largest_step"] == pytest.approx(2 * math.sin(0.5))  # |e^{i(p+1)} − e^{ip}|
    assert sin["largest_distance"] == pytest.approx(2 * math.sin(1.5))  # k = 3, nearest to π
    assert sin["step_share_of_distance"] < 0.5 and sin["smooth"] is True
    binary = readouts(scheme="binary", positions=128, dim=8)
    assert binary["largest_step"] == pytest.approx(math.sqrt(7))  # 63 → 64 flips seven bits
    assert binary["step_share_of_distance"] == pytest.approx(1.0) and binary["smooth"] is False
    naive = readouts(scheme="naive", positions=100, dim=4)
    assert naive["step_share_of_distance"] == pytest.approx(1 / 99)


def test_binary_with_too_few_bits_is_not_unique() -> None:
    r = readouts(scheme="binary", positions=100, dim=6)  # 2⁶ = 64 codes for 100 positions
    assert r["distinct_rows"] == 64 and r["unique"] is False


def test_naive_range_and_vector() -> None:
    r = readouts(scheme="naive", positions=50, dim=4, position=7)
    assert r["table_max"] == 49 and r["max_abs_value"] == 49
    assert r["vector_at_position"] == [7.0] * 4 and r["vector_norm"] == pytest.approx(14.0)


def test_mean_cosine_at_offsets() -> None:
    r = readouts(scheme="naive", positions=16, dim=4)
    assert r["cosine_offsets"] == [1, 4]  # 16 and 32 do not fit in 16 positions
    # naive rows are all parallel: cosine 1 except with the zero row (0)
    assert r["mean_cosine_at_offsets"] == pytest.approx([14 / 15, 11 / 12])


def test_random_pairs_as_the_notebook_prints_them() -> None:
    r = readouts(scheme="binary", positions=40, dim=6, distance=10, draw=3)
    pairs = r["random_pair_positions"]
    assert len(pairs) == 5 and all(j - i == 10 and 0 <= i < 30 for i, j in pairs)
    for (i, j), x, line in zip(
        pairs, r["random_pair_products"], r["random_pair_lines"], strict=True
    ):
        assert x == bin(i & j).count("1")
        assert line == f"The dot product between p_{i} and p_{j} (distance: 10) is {x:.3f}"
    assert readouts(scheme="binary", positions=40, dim=6, distance=10, draw=3) == r
    other = readouts(scheme="binary", positions=40, dim=6, distance=10, draw=4)
    assert other["random_pair_positions"] != pairs


def test_product_against_distance() -> None:
    r = readouts(scheme="sinusoidal", positions=32, dim=8)
    omega = [10000.0 ** (-2 * i / 8) for i in range(4)]
    for k in (0, 5, 31):
        closed = sum(math.cos(k * w) for w in omega)
        assert r["product_mean_by_distance"][k] == pytest.approx(closed, abs=1e-12)
        assert r["product_max_by_distance"][k] - r["product_min_by_distance"][k] < 1e-12
    naive = readouts(scheme="naive", positions=10, dim=2)
    # diagonal k of P·Pᵀ: 2·i·(i+k), i = 0 … 9−k
    assert naive["product_min_by_distance"][3] == 0.0
    assert naive["product_max_by_distance"][3] == 2 * 6 * 9
    assert naive["product_mean_by_distance"][3] == pytest.approx(
        sum(2 * i * (i + 3) for i in range(7)) / 7
    )


def test_naive_dominates_the_sum_as_the_length_grows() -> None:
    short = readouts(scheme="naive", positions=8, dim=64)
    long = readouts(scheme="naive", positions=512, dim=64)
    assert short["position_share_first"] == 0.0  # p = 0: the word alone
    assert long["position_share_last"] > 0.9999 and long["position_share_mean"] > 0.99
    assert long["position_rms"] > 100 * long["word_rms"]
    sin = readouts(scheme="sinusoidal", positions=512, dim=64)
    assert sin["position_rms"] == pytest.approx(math.sqrt(0.5))
    assert 0.25 < sin["position_share_mean"] < 0.4  # ‖p‖² = d/2 beside ‖w‖² ≈ d
    assert sin["word_rms"] == pytest.approx(1.0, abs=0.02)


def test_position_5_moves_with_the_length_only_when_normalized() -> None:
    norm = readouts(scheme="normalized", dim=4)
    lengths = norm["lengths"]
    assert lengths[0] == 8 and lengths[-1] == 512 and norm["length_position"] == 5
    for n, row in zip(lengths, norm["vector_by_length"], strict=True):
        assert row == pytest.approx([5 / (n - 1)] * 4)
    assert norm["vector_change_across_lengths"] == pytest.approx(5 / 7 - 5 / 511)
    for scheme in ("naive", "binary", "sinusoidal", "learned"):
        r = readouts(scheme=scheme, dim=4)
        assert r["vector_change_across_lengths"] == 0.0
    sin = readouts(scheme="sinusoidal", dim=2)
    assert sin["vector_by_length"][0] == pytest.approx([math.sin(5), math.cos(5)])


def test_switching_to_binary_takes_the_bits_the_positions_need() -> None:
    state = ParamState(MODEL, {"dim": 128, "positions": 100})
    state.update({"scheme": "binary"})
    assert state.get("dim") == 8  # ⌈log₂ 100⌉ = 7 bits, even
    state.update({"scheme": "sinusoidal"})
    assert state.get("dim") == 64  # back to the default
    state.update({"scheme": "binary", "dim": 20})
    assert state.get("dim") == 20  # given: kept
    assert MODEL.resolve({"scheme": "binary", "positions": 512})["dim"] == 10
    assert MODEL.resolve({"scheme": "binary", "positions": 8})["dim"] == 4


def test_bad_values_say_what_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    cases = [
        (["scheme=binary", "dim=64"], "dim must be an even integer from 2 to 62, got 64"),
        (["dim=5"], "dim must be an even integer from 2 to 512, got 5"),
        (["positions=1000"], "positions must be an integer from 8 to 512"),
        (["positions=16", "distance=16"], "distance must be an integer from 0 to 15"),
        (["scheme=rotary"], "scheme"),
        (["heatmap=gram"], "heatmap"),
    ]
    for sets, message in cases:
        args = ["values", "--tab", "encodings"]
        for s in sets:
            args += ["--set", s]
        assert cli.main(args) == 2
        out, err = capsys.readouterr()
        assert out == "" and message in err and err.count("\n") == 1


def test_limits() -> None:
    with pytest.raises(ParamError, match="position must be an integer from 0 to 15"):
        MODEL.resolve({"positions": 16, "position": 16})
    with pytest.raises(ParamError, match="dim"):
        MODEL.resolve({"scheme": "binary", "dim": 64})
    state = ParamState(MODEL, {"dim": 128, "distance": 100, "positions": 128})
    state.update({"scheme": "binary", "dim": 62})
    assert state.get("dim") == 62
    state.update({"positions": 16})
    assert state.get("distance") == 15


def test_readouts_are_strict_json() -> None:
    for s in SCHEMES:
        json.dumps(readouts(scheme=s, positions=8, dim=2, distance=7), allow_nan=False)


def test_schemes_are_the_cores() -> None:
    from posenc_gui.core import ENCODING_SCHEMES
    from posenc_gui.core.encodings import LEARNED_ROWS
    from posenc_gui.state.encodings import MAX_POSITIONS

    assert SCHEMES == ENCODING_SCHEMES
    assert MAX_POSITIONS <= LEARNED_ROWS


# -- the shared analysis -------------------------------------------------------------------------
def test_the_square_matrices_are_built_only_when_asked_for() -> None:
    import torch

    from posenc_gui.core.encodings import cosine_matrix, mean_by_offset
    from posenc_gui.state.encodings import analysis_of, forget_analyses

    forget_analyses()
    a = analysis_of(MODEL.resolve({"positions": 100, "dim": 16}))
    readouts(positions=100, dim=16)  # every read-out group
    assert "gram_matrix" not in a.cache and "cosine_matrix" not in a.cache
    t = a.table
    assert torch.equal(a.gram, t @ t.T)
    assert torch.equal(a.cosine, cosine_matrix(t, t @ t.T))
    expected = mean_by_offset(a.cosine, list(a.cosine_offsets))
    assert torch.allclose(a.mean_cosine, expected, rtol=1e-14, atol=1e-15)


def test_analyses_are_kept_for_states_shown_again_within_a_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from posenc_gui.state import encodings as enc

    enc.forget_analyses()
    first = enc.analysis_of(MODEL.resolve({"positions": 64}))
    enc.analysis_of(MODEL.resolve({"positions": 65}))
    assert enc.analysis_of(MODEL.resolve({"positions": 64})) is first  # shown again: kept
    assert enc.analysis_of(MODEL.resolve({"positions": 64, "seed": 5})) is first  # unused seed
    monkeypatch.setattr(enc, "ANALYSES_KEPT_BYTES", 1)
    for n in (70, 71, 72):
        enc.analysis_of(MODEL.resolve({"positions": n}))
    assert len(enc._analyses) == 2  # the two newest, whatever their size
    assert enc.analysis_of(MODEL.resolve({"positions": 64})) is not first
    enc.forget_analyses()


def test_the_budget_counts_what_the_analyses_hold_without_measuring_them_all() -> None:
    """Each kept analysis's size is measured when it is made and again after it was shown
    (its lazily derived matrices count), not every kept one at every new analysis: the sizes
    the budget adds up are those of the analyses."""
    from posenc_gui.state import encodings as enc

    enc.forget_analyses()
    calls = []
    measure = enc.analysis_size

    def counted(a: enc.Analysis) -> int:
        calls.append(a.key)
        return measure(a)

    shown = enc.analysis_of(MODEL.resolve({"positions": 64}))
    _ = shown.cosine  # an L × L matrix derived while shown
    for n in (65, 66, 67, 68):
        enc.analysis_of(MODEL.resolve({"positions": n}))
    again = enc.analysis_of(MODEL.resolve({"positions": 65}))  # shown again, grows
    _ = again.gram
    try:
        enc.analysis_size = counted  # type: ignore[assignment]
        enc.analysis_of(MODEL.resolve({"positions": 69}))
    finally:
        enc.analysis_size = measure  # type: ignore[assignment]
    assert len(calls) == 2  # the one shown last (grown) and the new one, not all six
    assert enc._sizes == {k: measure(a) for k, a in enc._analyses.items()}
    assert enc._sizes[shown.key] > 64 * 64 * 8  # its cosine matrix counted
    enc.forget_analyses()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_analysed_table_is_the_tables_builder_s(scheme: str) -> None:
    """Tables of L positions are sliced from the longest one (all schemes but normalized):
    exactly the table ``encoding_table`` builds for L."""
    import torch

    from posenc_gui.core.encodings import encoding_table
    from posenc_gui.state.encodings import analysis_of

    for n, d in ((8, 2), (100, 6), (512, 16), (512, 6), (37, 6), (100, 6)):  # slices
        v = MODEL.resolve({"scheme": scheme, "positions": n, "dim": d, "seed": 3,
                           "layout": "concat"})  # fmt: skip
        layout = "concat" if scheme == "sinusoidal" else "interleaved"
        expected = encoding_table(scheme, n, d, layout=layout, seed=3)
        assert torch.equal(analysis_of(v).table, expected)
