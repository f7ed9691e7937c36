"""RoPE playground model: readouts checked against closed forms and identities (no Qt)."""

from __future__ import annotations

import cmath
import json
import math
from typing import Any

import pytest

from posenc_gui.cli import main
from posenc_gui.state import ParamError, ParamState
from posenc_gui.state.rope import MAX_POSITION, RopeModel


def readouts(**given: Any) -> dict[str, Any]:
    return RopeModel.readouts(RopeModel.resolve(given))


def pairs(x: list[float], layout: str) -> list[complex]:
    """The d/2 pairs as complex numbers, written out from the layout definitions."""
    half = len(x) // 2
    if layout == "interleaved":
        return [complex(x[2 * i], x[2 * i + 1]) for i in range(half)]
    return [complex(x[i], x[i + half]) for i in range(half)]


def closed_form_terms(
    q: list[float], k: list[float], r: float, base: float, layout: str
) -> list[float]:
    """Per-pair terms Re(q_i conj(k_i) e^{i r θ_i}), θ_i = base^(-2i/d) (RoFormer eq. (16))."""
    d = len(q)
    return [
        (qi * kj.conjugate() * cmath.exp(1j * r * base ** (-2 * i / d))).real
        for i, (qi, kj) in enumerate(zip(pairs(q, layout), pairs(k, layout), strict=True))
    ]


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_score_is_the_closed_form_and_depends_only_on_distance(layout: str) -> None:
    base = 500.0
    ref = readouts(m=7, n=3, dim=16, base=base, layout=layout, seed=3)
    q, k = ref["q"], ref["k"]
    assert isinstance(q, list) and isinstance(k, list)
    expected = sum(closed_form_terms(q, k, 4, base, layout))
    for m, n in [(7, 3), (4, 0), (1004, 1000), (MAX_POSITION, MAX_POSITION - 4)]:
        r = readouts(m=m, n=n, dim=16, base=base, layout=layout, seed=3)
        assert r["relative_distance"] == 4
        assert r["score"] == pytest.approx(expected, rel=1e-9, abs=1e-9)
        assert r["score_at_origin"] == pytest.approx(r["score"], rel=1e-9, abs=1e-9)
        assert r["score_from_offset"] == pytest.approx(r["score"], rel=1e-9, abs=1e-9)
        assert abs(r["score_difference"]) < 1e-9
    # a different distance gives a different score (the check above could not pass trivially)
    other = readouts(m=8, n=3, dim=16, base=base, layout=layout, seed=3)
    assert abs(other["score"] - expected) > 1e-3


def test_origin_is_on_the_right_side_of_the_distance() -> None:
    r = readouts(m=3, n=10)
    assert (r["origin_m"], r["origin_n"]) == (0, 7)
    r = readouts(m=10, n=3)
    assert (r["origin_m"], r["origin_n"]) == (7, 0)


def test_pair_shares_sum_to_the_score_and_match_the_pair_geometry() -> None:
    r = readouts(m=40, n=11, dim=32, pair=5, seed=9)
    shares = r["pair_scores"]
    assert isinstance(shares, list) and len(shares) == 16
    assert sum(shares) == pytest.approx(r["score"], rel=1e-12, abs=1e-12)
    assert r["pair_scores_sum"] == pytest.approx(r["score"], rel=1e-12, abs=1e-12)
    q, k = r["q"], r["k"]
    assert isinstance(q, list) and isinstance(k, list)
    terms = closed_form_terms(q, k, 29, 10000.0, "interleaved")
    assert shares == pytest.approx(terms, abs=1e-10)
    assert r["pair_score"] == pytest.approx(terms[5], abs=1e-12)
    # share = |q_i||k_i| cos(angle between the rotated pairs)
    cos_angle = math.cos(r["angle_between_rotated"])
    geometric = r["q_pair_norm"] * r["k_pair_norm"] * cos_angle
    assert r["pair_score"] == pytest.approx(geometric, abs=1e-10)


def test_pair_rotation_frequency_and_angles() -> None:
    r = readouts(m=123, n=45, dim=64, base=10000.0, pair=3, layout="half")
    theta = 10000.0 ** (-6 / 64)
    assert r["theta"] == pytest.approx(theta, rel=1e-14)
    assert r["wavelength"] == pytest.approx(2 * math.pi / theta, rel=1e-14)
    assert r["angle_m"] == pytest.approx(123 * theta)
    assert r["angle_n"] == pytest.approx(45 * theta)
    assert r["angle_difference"] == pytest.approx(78 * theta)
    assert r["pair_indices"] == [3, 35]
    q, k = r["q"], r["k"]
    assert isinstance(q, list) and isinstance(k, list)
    assert r["q_pair"] == [q[3], q[35]] and r["k_pair"] == [k[3], k[35]]
    for before, after, pos in (("q_pair", "q_pair_rotated", 123), ("k_pair", "k_pair_rotated", 45)):
        x, y = r[before]
        c, s = math.cos(pos * theta), math.sin(pos * theta)
        assert r[after] == pytest.approx([c * x - s * y, s * x + c * y], abs=1e-12)
    wrapped = r["angle_m_wrapped"]
    assert isinstance(wrapped, float) and -math.pi < wrapped <= math.pi
    assert math.cos(wrapped) == pytest.approx(math.cos(123 * theta))
    assert math.sin(wrapped) == pytest.approx(math.sin(123 * theta))


def test_layout_permutation_makes_the_layouts_agree() -> None:
    r = readouts(m=9, n=2, dim=12, seed=4)
    q, k = r["q"], r["k"]
    assert isinstance(q, list) and isinstance(k, list)
    assert r["score_interleaved"] == pytest.approx(
        sum(closed_form_terms(q, k, 7, 1e4, "interleaved"))
    )
    assert r["score_half"] == pytest.approx(sum(closed_form_terms(q, k, 7, 1e4, "half")))
    assert abs(r["layout_difference"]) > 1e-3
    assert r["score_half_permuted"] == pytest.approx(r["score_interleaved"], abs=1e-12)
    assert abs(r["permuted_difference"]) < 1e-12
    # permuting by [0, 2, 4, …, 1, 3, 5, …] by hand gives the same
    perm = list(range(0, 12, 2)) + list(range(1, 12, 2))
    qp, kp = [q[i] for i in perm], [k[i] for i in perm]
    assert sum(closed_form_terms(qp, kp, 7, 1e4, "half")) == pytest.approx(r["score_interleaved"])
    # with one pair the two layouts are the same
    one = readouts(dim=2, m=5, n=1)
    assert one["score_half"] == pytest.approx(one["score_interleaved"], abs=1e-15)


def test_q_equals_k_at_distance_zero_is_the_squared_norm() -> None:
    r = readouts(vectors="q=k", m=777, n=777, dim=48, seed=11)
    q, k = r["q"], r["k"]
    assert isinstance(q, list) and q == k
    assert r["score"] == pytest.approx(sum(x * x for x in q), rel=1e-12)
    assert r["score_qk"] == pytest.approx(r["k_norm"] ** 2, rel=1e-12)
    # and that is the largest score any distance gives (Cauchy–Schwarz)
    for dist in (1, 5, 50, 5000):
        assert readouts(vectors="q=k", m=dist, n=0, dim=48, seed=11)["score"] < r["score"]


def test_typed_vectors_replace_only_the_selected_pair() -> None:
    typed = dict(vectors="typed", q0=1.5, q1=-2.0, k0=0.25, k1=3.0, dim=16, pair=2, seed=5)
    rand = readouts(dim=16, pair=2, seed=5)
    for layout, (a, b) in (("interleaved", (4, 5)), ("half", (2, 10))):
        r = readouts(**typed, layout=layout)
        q, k, q_r, k_r = r["q"], r["k"], rand["q"], rand["k"]
        assert isinstance(q, list) and isinstance(k, list)
        assert isinstance(q_r, list) and isinstance(k_r, list)
        assert (q[a], q[b], k[a], k[b]) == (1.5, -2.0, 0.25, 3.0)
        assert r["q_pair"] == [1.5, -2.0] and r["k_pair"] == [0.25, 3.0]
        others = [i for i in range(16) if i not in (a, b)]
        assert [q[i] for i in others] == [q_r[i] for i in others]
        assert [k[i] for i in others] == [k_r[i] for i in others]
        # the typed pair's share is the 2-D closed form
        dth = (r["relative_distance"]) * 10000.0 ** (-4 / 16)
        expected = (complex(1.5, -2.0) * complex(0.25, -3.0) * cmath.exp(1j * dth)).real
        assert r["pair_score"] == pytest.approx(expected, abs=1e-12)


def test_decay_bound_is_eq_37_and_bounds_the_score() -> None:
    dim, base = 32, 10000.0
    for m, n in [(0, 0), (3, 0), (40, 1), (500, 20), (0, 1234), (90000, 10)]:
        r = readouts(m=m, n=n, dim=dim, base=base, seed=2)
        q, k = r["q"], r["k"]
        assert isinstance(q, list) and isinstance(k, list)
        qc, kc = pairs(q, "interleaved"), pairs(k, "interleaved")
        h = [a * b.conjugate() for a, b in zip(qc, kc, strict=True)]
        h_ext = [*h, 0j]
        coeff = max(abs(h_ext[i + 1] - h_ext[i]) for i in range(dim // 2))
        assert r["bound_coefficient"] == pytest.approx(coeff, rel=1e-12)
        dist = m - n
        partial, total = 0j, 0.0
        for i in range(dim // 2):
            partial += cmath.exp(1j * dist * base ** (-2 * i / dim))
            total += abs(partial)
        assert r["decay_bound"] == pytest.approx(coeff * total, rel=1e-9)
        assert r["relative_decay_bound"] == pytest.approx(total / (dim // 2), rel=1e-9)
        full = abs(
            sum(hi * cmath.exp(1j * dist * base ** (-2 * i / dim)) for i, hi in enumerate(h))
        )
        assert abs(r["score"]) <= full + 1e-9 <= r["decay_bound"] + 2e-9
    at_zero = readouts(m=5, n=5, dim=dim, seed=2)
    half = dim // 2
    assert at_zero["relative_decay_bound"] == pytest.approx((half + 1) / 2)


def test_pair_limit_follows_dim() -> None:
    state = ParamState(RopeModel, {"dim": 64, "pair": 31})
    state.set("dim", 16)
    assert state.as_int("pair") == 7
    with pytest.raises(ParamError, match="pair must be an integer from 0 to 7"):
        state.set("pair", 8)
    assert RopeModel.limits(RopeModel.resolve({"dim": 512}))["pair"] == (0, 255)


def test_matrix_window_stays_in_range() -> None:
    for m, n, size in [(5, 2, 64), (100000, 3, 512), (50000, 50000, 8)]:
        m0, n0 = RopeModel.window_starts(RopeModel.resolve({"m": m, "n": n, "window": size}))
        for p, start in ((m, m0), (n, n0)):
            assert start >= 0 and start + size - 1 <= MAX_POSITION
            assert start <= p < start + size


# -- CLI ---------------------------------------------------------------------------------------


def _values(capsys: pytest.CaptureFixture[str], *sets: str) -> dict[str, Any]:
    args = ["values", "--tab", "rope"]
    for s in sets:
        args += ["--set", s]
    assert main(args) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_cli_same_distance_same_score(capsys: pytest.CaptureFixture[str]) -> None:
    far = _values(capsys, "m=105", "n=102")
    near = _values(capsys, "m=5", "n=2")
    assert far["tab"] == "rope" and far["params"]["m"] == 105
    assert far["relative_distance"] == near["relative_distance"] == 3
    assert abs(far["score"] - near["score"]) < 1e-12
    assert far["score"] != _values(capsys, "m=6", "n=2")["score"]
    for key in ("q", "k", "score", "relative_distance", "theta", "pair_score", "wavelength",
                "angle_m", "angle_n", "score_at_origin", "score_interleaved", "score_half",
                "score_half_permuted"):  # fmt: skip
        assert key in far, key


@pytest.mark.parametrize(
    ("assignment", "name"),
    [("dim=7", "dim"), ("m=100001", "m"), ("n=-1", "n"), ("vectors=zeros", "vectors"),
     ("pair=40", "pair"), ("base=5", "base"), ("lock=maybe", "lock"), ("q0=abc", "q0")],
)  # fmt: skip
def test_cli_bad_input_exits_2(
    capsys: pytest.CaptureFixture[str], assignment: str, name: str
) -> None:
    assert main(["values", "--tab", "rope", "--set", assignment]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and f"{name} must be" in lines[0]


# -- distance lock (a model rule: widgets, drags, CLI and sessions all obey it) -----------------


def _locked(**base: Any) -> dict[str, Any]:
    return RopeModel.resolve({"lock": True, **base})


@pytest.mark.parametrize(
    ("base", "given", "expected"),
    [
        ({"m": 105, "n": 102}, {"m": 5}, (5, 2)),  # n follows by the same amount
        ({"m": 5, "n": 2}, {"n": 1000}, (1003, 1000)),  # m follows n
        ({"m": 1003, "n": 1000}, {"m": MAX_POSITION}, (MAX_POSITION, MAX_POSITION - 3)),
        ({"m": 1003, "n": 1000}, {"n": 0}, (3, 0)),
        ({"m": 3, "n": 0}, {"m": 0}, (3, 0)),  # n cannot go below 0: the distance is kept
        ({"m": 2, "n": 5}, {"m": MAX_POSITION}, (MAX_POSITION - 3, MAX_POSITION)),
        ({"m": 2, "n": 5}, {"n": 1}, (0, 3)),
        ({"m": 3, "n": 0}, {"m": 50, "n": 10}, (50, 10)),  # both given: taken as they are
    ],
)  # fmt: skip
def test_lock_moves_the_other_position(
    base: dict[str, int], given: dict[str, int], expected: tuple[int, int]
) -> None:
    values = RopeModel.resolve(given, _locked(**base))
    assert (values["m"], values["n"]) == expected


def test_lock_off_or_unchanged_does_nothing_and_bad_values_are_reported() -> None:
    unlocked = RopeModel.resolve({"m": 60}, RopeModel.resolve({"m": 50, "n": 10}))
    assert (unlocked["m"], unlocked["n"]) == (60, 10)
    same = RopeModel.resolve({"m": 50}, _locked(m=50, n=10))
    assert (same["m"], same["n"]) == (50, 10)
    # out of range, or not an integer: validation reports the typed value, unchanged
    with pytest.raises(ParamError, match=r"m must be an integer from 0 to 100000, got 100001"):
        RopeModel.resolve({"m": 100001}, _locked(m=50, n=10))
    with pytest.raises(ParamError, match=r"n must be .*got 'x'"):
        RopeModel.resolve({"n": "x"}, _locked(m=50, n=10))
    # turning the lock on in the same update as a move applies it
    both = RopeModel.resolve({"lock": True, "m": 10})
    assert (both["m"], both["n"]) == (10, 7)


def test_lock_holds_for_the_state_object() -> None:
    state = ParamState(RopeModel, {"m": 105, "n": 102, "lock": True})
    seen: list[tuple[str, object]] = []
    state.changed.connect(lambda name, value: seen.append((name, value)))
    state.set("m", 5)
    assert (state.as_int("m"), state.as_int("n")) == (5, 2)
    assert sorted(seen) == [("m", 5), ("n", 2)]
    score = state.readouts()["score"]
    state.set("n", 40)
    assert (state.as_int("m"), state.as_int("n")) == (43, 40)
    assert state.readouts()["score"] == pytest.approx(score, abs=1e-12)


def test_cli_lock_moves_n_with_m(capsys: pytest.CaptureFixture[str]) -> None:
    out = _values(capsys, "lock=true", "m=10")
    assert out["params"]["m"] == 10 and out["params"]["n"] == 7  # default n = 2, moved by 5
    assert out["relative_distance"] == 3
    free = _values(capsys, "m=10")
    assert free["params"]["n"] == 2


def test_readout_groups_declare_their_inputs() -> None:
    """Every group reads only its declared inputs, and the union is every read-out."""
    values = RopeModel.resolve({"m": 40, "n": 11, "dim": 16, "pair": 3, "vectors": "typed"})
    union: dict[str, Any] = {}
    for g in RopeModel.groups:
        got = g(values)  # Inputs raises KeyError on an undeclared read
        assert not set(got) & set(union), g.name
        union.update(got)
    assert union.keys() == RopeModel.readouts(values).keys()
    assert "m" not in RopeModel.group("query_key").inputs
    assert set(RopeModel.group("frequency").inputs) == {"dim", "base", "pair"}


def test_typed_components_count_only_in_typed_mode() -> None:
    """A typed component moved while vectors = random changes nothing: the cached read-outs of
    the same effective inputs are returned as they are (the panel then redraws nothing)."""
    values = RopeModel.resolve({"m": 40, "n": 11, "dim": 16})
    moved = RopeModel.resolve({**values, "q0": 2.5, "k1": -1.0})
    for g in RopeModel.groups:
        assert g(moved) is g(values), g.name
    typed = RopeModel.resolve({**values, "vectors": "typed"})
    typed_moved = RopeModel.resolve({**typed, "q0": 2.5})
    assert (
        RopeModel.group("scores")(typed_moved)["score"] != RopeModel.group("scores")(typed)["score"]
    )
    assert readouts(**typed_moved)["q_pair"][0] == 2.5


def _reference_readouts(values: dict[str, Any]) -> dict[str, float]:
    """The per-step read-outs computed the direct way, with apply_rope and the torch references."""
    from posenc_gui import core
    from posenc_gui.state.rope import origin_positions, pair_indices, rope_layout, vectors

    m, n, base, dim, pair = (values[k] for k in ("m", "n", "base", "dim", "pair"))
    lay = rope_layout(values["layout"])
    q, k = vectors(values)
    om, on = origin_positions(m, n)
    shares = core.rope_pair_scores(q, k, m, n, base=base, layout=lay)
    a, b = pair_indices(dim, pair, values["layout"])
    rq = core.apply_rope(q[None, :], [m], base=base, layout=lay)[0]
    rk = core.apply_rope(k[None, :], [n], base=base, layout=lay)[0]
    perm = core.layout_permutation(dim)
    return {
        "score": float(core.rope_scores(q, k, [m], [n], base=base, layout=lay)[0, 0]),
        "score_at_origin": float(core.rope_scores(q, k, [om], [on], base=base, layout=lay)[0, 0]),
        "score_from_offset": float(
            core.rope_score_by_offset(q, k, [m - n], base=base, layout=lay)[0]
        ),
        "score_qk": float(core.rope_score_by_offset(k, k, [m - n], base=base, layout=lay)[0]),
        "pair_scores_sum": float(shares.sum()),
        "pair_score": float(shares[pair]),
        "q_pair_rotated_0": float(rq[a]),
        "q_pair_rotated_1": float(rq[b]),
        "k_pair_rotated_0": float(rk[a]),
        "k_pair_rotated_1": float(rk[b]),
        "score_interleaved": float(core.rope_scores(q, k, [m], [n], base=base)[0, 0]),
        "score_half": float(core.rope_scores(q, k, [m], [n], base=base, layout="half")[0, 0]),
        "score_half_permuted": float(
            core.rope_scores(q[perm], k[perm], [m], [n], base=base, layout="half")[0, 0]
        ),
        "relative_decay_bound": float(core.rope_decay_bound([m - n], dim, base)[0]),
        "decay_bound": float(core.rope.rope_score_bound(q, k, m - n, 1, base=base, layout=lay)[0]),
        "theta": float(core.inverse_frequencies(dim, base)[pair]),
    }


@pytest.mark.parametrize(
    "given",
    [
        {},
        {"m": 77_777, "n": 3, "dim": 512, "pair": 200, "base": 500.0},
        {"m": 0, "n": MAX_POSITION, "dim": 6, "pair": 2, "layout": "half", "seed": 9},
        {"m": 12_345, "n": 12_000, "dim": 128, "pair": 7, "vectors": "q=k"},
        {"m": 99_999, "n": 50, "dim": 64, "pair": 3, "vectors": "typed", "q0": 2.5, "k1": -1.0,
         "layout": "half", "base": 1e6},
    ],
)  # fmt: skip
def test_fast_readouts_equal_the_apply_rope_references(given: dict[str, Any]) -> None:
    """The O(d) read-outs on cached pairs agree with apply_rope / rope_scores within 1e-12."""
    values = RopeModel.resolve(given)
    r = RopeModel.readouts(values)
    ref = _reference_readouts(values)
    r["q_pair_rotated_0"], r["q_pair_rotated_1"] = r["q_pair_rotated"]
    r["k_pair_rotated_0"], r["k_pair_rotated_1"] = r["k_pair_rotated"]
    for name, want in ref.items():
        assert abs(r[name] - want) <= 1e-12 * max(1.0, abs(want)), name
    assert abs(r["score_difference"]) < 1e-9


def test_a_position_step_rotates_no_vector_with_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    """m and n steps use the cached pairs: no apply_rope, rope_scores or frequency table."""
    from posenc_gui import core
    from posenc_gui.core import rope as core_rope

    values = RopeModel.resolve({"dim": 128, "m": 10, "n": 4})
    RopeModel.readouts(values)  # caches: vectors, pairs, θ, coefficient
    calls: list[str] = []
    for mod in (core, core_rope):
        for name in ("apply_rope", "rope_scores", "rope_score_by_offset", "rope_pair_scores",
                     "inverse_frequencies", "rope_decay_bound", "rope_score_bound"):  # fmt: skip
            if hasattr(mod, name):
                orig = getattr(mod, name)

                def counted(*a: Any, _n: str = name, _f: Any = orig, **k: Any) -> Any:
                    calls.append(_n)
                    return _f(*a, **k)

                monkeypatch.setattr(mod, name, counted)
    for m in (11, 500, 99_000):
        r = RopeModel.readouts({**values, "m": m})
        assert r["relative_distance"] == m - 4
    assert calls == []


@pytest.mark.parametrize(
    ("given", "layout"),
    [({}, "interleaved"), ({"layout": "half", "vectors": "typed", "pair": 3, "q0": 2.0,
                            "k1": -1.5, "range_max": 40, "dim": 16, "base": 300.0}, "half"),
     ({"vectors": "q=k", "m": 9000, "n": 17, "range_max": 16}, "interleaved")],
)  # fmt: skip
def test_score_curves_are_the_closed_form_at_every_distance(
    given: dict[str, Any], layout: str
) -> None:
    """``score_by_distance[j]`` is the score at r = j − range_max, the closed form
    Re Σ_i q_i conj(k_i) e^{i r θ_i}; its entry at r = m − n is the score at (m, n); the q = k
    curve is even in r and largest at r = 0, where it is |k|²."""
    v = RopeModel.resolve(given)
    r = RopeModel.readouts(v)
    rng, base = int(v["range_max"]), float(v["base"])
    curve, curve_qk = r["score_by_distance"], r["score_qk_by_distance"]
    assert len(curve) == len(curve_qk) == 2 * rng + 1
    for dist in (-rng, -3, 0, 1, rng):
        want = sum(closed_form_terms(r["q"], r["k"], dist, base, layout))
        assert curve[dist + rng] == pytest.approx(want, abs=1e-9)
        want_qk = sum(closed_form_terms(r["k"], r["k"], dist, base, layout))
        assert curve_qk[dist + rng] == pytest.approx(want_qk, abs=1e-9)
    dist = int(v["m"]) - int(v["n"])
    if abs(dist) <= rng:
        assert curve[dist + rng] == pytest.approx(r["score"], abs=1e-10)
    assert curve_qk == pytest.approx(curve_qk[::-1], abs=1e-10)
    assert curve_qk[rng] == pytest.approx(r["k_norm"] ** 2, rel=1e-12)
    assert max(curve_qk) <= r["k_norm"] ** 2 * (1 + 1e-12)


def test_score_curves_ignore_m_and_n() -> None:
    """The curves are a function of q, k, base and the range: moving m or n keeps them."""
    a, b = readouts(m=5, n=2), readouts(m=70_000, n=12, lock=False)
    assert a["score_by_distance"] == b["score_by_distance"]
    assert a["score_qk_by_distance"] == b["score_qk_by_distance"]
