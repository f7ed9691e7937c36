"""Attention-biases tab model: limits, read-outs against closed forms, ``values`` on the CLI.

No Qt here. Expected numbers come from the paper's rule and the closed forms written out below.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from posenc_gui import cli
from posenc_gui.state import ParamError, ParamState
from posenc_gui.state.alibi import MODEL, content_logits


def readouts(**given: Any) -> dict[str, Any]:
    return MODEL.readouts(MODEL.resolve(given))


def test_values_lists_the_twelve_slopes_of_the_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["values", "--tab", "alibi", "--set", "heads=12"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = [2.0**-h for h in range(1, 9)] + [2.0**-0.5, 2.0**-1.5, 2.0**-2.5, 2.0**-3.5]
    assert out["tab"] == "alibi" and out["params"]["heads"] == 12
    assert out["slopes"] == pytest.approx(expected, rel=1e-15)
    assert out["lower_power"] == 8 and out["doubled_power"] == 16
    assert out["extra_heads_of_doubled"] == [1, 3, 5, 7] and out["power_of_two"] is False


def test_readouts_are_strict_json() -> None:
    for logits in ("zero", "random"):
        json.dumps(readouts(logits=logits, heads=64, positions=512, query=511), allow_nan=False)


def test_limits_tie_head_to_heads_and_query_to_positions() -> None:
    with pytest.raises(ParamError, match="head must be an integer from 1 to 12"):
        MODEL.resolve({"head": 13})
    with pytest.raises(ParamError, match="query must be an integer from 0 to 15"):
        MODEL.resolve({"positions": 16, "query": 16})
    state = ParamState(MODEL, {"heads": 12, "head": 10, "query": 63})
    state.update({"heads": 6})
    assert state.get("head") == 6  # clamped, not refused: head was not given
    state.update({"positions": 8})
    assert state.get("query") == 7
    with pytest.raises(ParamError):
        MODEL.parse_assignments(["heads=65"])


@pytest.mark.parametrize(
    ("heads", "head", "slope"), [(8, 3, 1 / 8), (12, 9, 2**-0.5), (1, 1, 1 / 256)]
)
def test_head_slope(heads: int, head: int, slope: float) -> None:
    got = readouts(heads=heads, head=head)
    assert got["head_slope"] == pytest.approx(slope, rel=1e-15)
    assert 2.0 ** got["head_slope_exponent"] == pytest.approx(slope, rel=1e-15)


def test_attention_with_zero_logits_is_uniform_then_geometric() -> None:
    got = readouts(heads=8, head=4, positions=32, query=20, logits="zero")
    m, i = 1 / 16, 20
    assert got["weights_without_bias"][: i + 1] == pytest.approx([1 / 21] * 21, rel=1e-13)
    assert got["weights_without_bias"][i + 1 :] == [0.0] * 11
    norm = (1 - math.exp(-m)) / (1 - math.exp(-m * (i + 1)))
    geo = [math.exp(-m * (i - j)) * norm for j in range(i + 1)]
    assert got["weights_with_bias"][: i + 1] == pytest.approx(geo, rel=1e-12)
    assert got["weight_sum_with_bias"] == pytest.approx(1.0, abs=1e-14)
    assert got["self_weight_with_bias"] == pytest.approx(norm, rel=1e-12)
    assert got["keys_holding_50_without_bias"] == 11  # 11/21 >= 1/2 > 10/21


def test_random_logits_are_seeded_and_the_same_for_every_length() -> None:
    a = readouts(logits="random", seed=5, positions=16, query=15)
    b = readouts(logits="random", seed=5, positions=512, query=15)
    c = readouts(logits="random", seed=6, positions=16, query=15)
    assert a["content_logits"] == b["content_logits"][:16]
    assert a["content_logits"] != c["content_logits"]
    assert a["weights_with_bias"] == pytest.approx(b["weights_with_bias"][:16], rel=1e-14)
    s, m, i = a["content_logits"], a["head_slope"], 15
    e = [math.exp(s[j] - m * (i - j)) for j in range(16)]
    assert a["weights_with_bias"] == pytest.approx([x / sum(e) for x in e], rel=1e-12)
    assert content_logits("zero", 5, 4).tolist() == [0.0] * 4


@pytest.mark.parametrize(("dim", "rho"), [(64, 1.0), (16, 0.5), (128, 0.0)])
def test_rope_curve_and_crossing(dim: int, rho: float) -> None:
    got = readouts(dim=dim, correlation=rho, heads=8, head=1, positions=100, base=10000.0)
    root = math.sqrt(dim)
    assert got["rope_expected_logit_at_zero"] == pytest.approx(rho * root, abs=1e-12)
    assert got["rope_expected_shift"][0] == 0.0 and len(got["rope_expected_shift"]) == 100
    thetas = [10000.0 ** (-2 * i / dim) for i in range(dim // 2)]
    r = 37
    expected = 2 * rho / root * sum(math.cos(r * t) - 1 for t in thetas)
    assert got["rope_expected_shift"][r] == pytest.approx(expected, abs=1e-9)
    assert got["rope_floor"] == pytest.approx(-2 * rho * root)
    assert min(got["rope_expected_shift"]) >= got["rope_floor"] - 1e-12
    assert got["rope_lowest_shift"] == min(got["rope_expected_shift"])
    assert got["alibi_passes_rope_floor_at"] == pytest.approx(2 * rho * root / 0.5)


def test_a_length_step_slices_the_rope_curves_of_the_longest_axis() -> None:
    """Once the length changes for one (dim, base, ρ, samples, seed), the curves of 512
    distances are kept and each length shows their first distances: the same numbers, bit for
    bit, as curves computed at that length."""
    import torch

    from posenc_gui.state import alibi as state

    key = (32, 777.0, 0.65, 48, 11)
    kept = state._ROPE_CURVES
    kept.longest.pop(key, None)
    kept.lengths.pop(key, None)
    first = state._rope_curves(*key, 40)
    assert key not in kept.longest  # one length only: computed at that length
    for n in (41, 300, 8, 512):
        expected, sampled = state._rope_curves(*key, n)
        longest = kept.longest[key]
        assert expected.data_ptr() == longest[0].data_ptr()  # a view: nothing computed
        direct = state._rope_curves_of(key, n)
        assert torch.equal(expected, direct[0]) and torch.equal(sampled, direct[1])
    assert torch.equal(state._rope_curves(*key, 40)[1], first[1])
    got = readouts(dim=32, base=777.0, correlation=0.65, samples=48, seed=11, positions=300)
    direct_shift = (direct[0][:300] - direct[0][0]).tolist()
    assert got["rope_expected_shift"] == direct_shift


@pytest.mark.parametrize("logits", ["zero", "random"])
def test_a_length_step_slices_the_attention_rows_computed_once(logits: str) -> None:
    """The attention read-out of ``n`` keys is the first ``n`` numbers of the longest rows (the
    softmax reads keys ``0 … i`` only), bit for bit what the core computes at ``n``; a new
    length for the same query computes no softmax anew."""
    from posenc_gui.core import causal_softmax_row, nearest_keys_holding
    from posenc_gui.state import alibi as state_alibi

    slope, i = 2.0**-1.5, 20
    state_alibi._attention_of.cache_clear()
    state_alibi._attention_rows.cache_clear()
    for n in (21, 64, 37, 512, 100):
        got = readouts(heads=12, head=10, positions=n, query=i, logits=logits, seed=3)
        s = content_logits(logits, 3, n)
        plain, biased = causal_softmax_row(s, i, 0.0), causal_softmax_row(s, i, slope)
        assert got["content_logits"] == s.tolist()
        assert got["weights_without_bias"] == plain.tolist()
        assert got["weights_with_bias"] == biased.tolist()
        assert got["weight_sum_with_bias"] == float(biased.sum())
        assert got["weight_sum_without_bias"] == float(plain.sum())
        assert got["self_weight_with_bias"] == float(biased[i])
        assert got["keys_holding_90_with_bias"] == nearest_keys_holding(biased, i, 0.9)
    assert state_alibi._attention_rows.cache_info().misses == 1
