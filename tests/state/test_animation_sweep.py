"""The animation sweep (Qt-free): every tab declares a numeric animated parameter; one loop stays
within its range, wraps, and maps phases and values both ways; speed and timer period."""

from __future__ import annotations

import pytest

from posenc_gui.state.animation import (
    BASE_LOOP_SECONDS,
    MAX_FPS,
    MIN_FPS,
    SPEEDS,
    Sweep,
    advance,
    frame_phases,
    loop_seconds,
    timer_interval_ms,
)
from posenc_gui.state.model import TabModel
from posenc_gui.state.params import float_param, int_param
from posenc_gui.state.registry import TAB_IDS, get_model
from posenc_gui.state.rope import MAX_POSITION, RopeModel


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_every_tab_declares_a_numeric_animated_parameter(tab_id: str) -> None:
    model = get_model(tab_id)
    name = getattr(model, "animated", None)
    assert isinstance(name, str), f"{tab_id} declares no animated parameter"
    p = model.param(name)
    assert p.kind in ("int", "float"), f"{tab_id} animates {name!r}, a {p.kind}"
    for key, value in model.animation_setup:
        assert model.param(key).check(value) == value


@pytest.mark.parametrize("tab_id", TAB_IDS)
def test_one_loop_stays_in_range_and_every_value_is_accepted(tab_id: str) -> None:
    model = get_model(tab_id)
    values = model.resolve(dict(model.animation_setup))
    sweep = Sweep.of(model, values)
    p = sweep.param
    lo, hi = model.limits(values).get(p.name, (p.minimum, p.maximum))
    assert lo is not None and hi is not None
    assert lo <= sweep.lo < sweep.hi <= hi
    frames = sweep.frames(60)
    assert len(set(frames)) > 10, "the loop must move"
    for v in frames:
        assert sweep.lo <= v <= sweep.hi
        model.resolve({p.name: v}, values)  # accepted as it is, no ParamError
    assert frames[0] == (sweep.lo if p.kind == "float" else int(sweep.lo))
    # values rise through the loop (wrap-around: the next loop starts again at the bottom)
    assert frames == sorted(frames)
    assert sweep.value_at(1.0) == frames[0]


def _model(*params: object, animated: str) -> type[TabModel]:
    class M(TabModel):
        id = "t"
        title = "t"

    M.params = tuple(params)  # type: ignore[assignment]
    M.animated = animated
    return M


def test_integer_sweep_gives_each_value_an_equal_share() -> None:
    m = _model(int_param("k", 0, 0, 4, "k", "k"), animated="k")
    s = Sweep.of(m, m.defaults())
    assert s.frames(10) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    for v in range(5):
        assert s.value_at(s.phase_of(v)) == v
        # half a share later it is still v, a share later v + 1 (mod 5)
        assert s.value_at(s.phase_of(v) + 0.09) == v
        assert s.value_at(s.phase_of(v) + 0.2) == (v + 1) % 5


def test_float_sweep_wraps_and_round_trips() -> None:
    m = _model(float_param("a", 0.0, -360.0, 360.0, "a", "a"), animated="a")
    s = Sweep.of(m, m.defaults())
    assert s.value_at(0.0) == -360.0 and s.value_at(0.5) == 0.0 and s.value_at(0.75) == 180.0
    assert s.value_at(1.25) == s.value_at(0.25)
    assert s.phase_of(360.0) == 0.0  # the top of the range is the start of the next loop
    assert s.phase_of(90.0) == pytest.approx(0.625)
    assert s.phase_of(-1000.0) == 0.0
    assert s.describe() == "a from -360 to 360"


def test_log_parameter_sweeps_in_ratios() -> None:
    m = _model(int_param("n", 10, 1, 10000, "n", "n", log=True), animated="n")
    s = Sweep.of(m, m.defaults())
    assert [s.value_at(f) for f in (0.0, 0.25, 0.5, 0.75)] == [1, 10, 100, 1000]


def test_choice_parameter_is_refused() -> None:
    from posenc_gui.state.params import choice_param

    m = _model(choice_param("c", "a", ("a", "b"), "c", "c"), animated="c")
    with pytest.raises(TypeError, match=r"not numeric|no numeric range"):
        Sweep.of(m, m.defaults())


def test_rope_sweeps_m_with_the_distance_locked() -> None:
    values = RopeModel.resolve({"m": 40, "n": 30, "lock": True, "window": 64})
    assert dict(RopeModel.animation_setup) == {"lock": True}
    s = Sweep.of(RopeModel, values)
    assert (s.name, s.lo, s.hi) == ("m", 10.0, 74.0)  # n = m − 10 ≥ 0
    state = dict(values)
    for v in s.frames(30):
        state = RopeModel.resolve({"m": v}, state)
        assert state["m"] == v and state["m"] - state["n"] == 10
    # negative distance, and the top end of the positions
    values = RopeModel.resolve({"m": MAX_POSITION - 5, "n": MAX_POSITION, "lock": True})
    s = Sweep.of(RopeModel, values)
    assert s.lo == 0 and s.hi == 64
    # unlocked: m alone, from 0
    s = Sweep.of(RopeModel, RopeModel.resolve({"m": 40, "n": 30}))
    assert (s.lo, s.hi) == (0.0, 64.0)


def test_speed_and_phase_advance() -> None:
    assert loop_seconds(1.0) == BASE_LOOP_SECONDS and loop_seconds(2.0) == BASE_LOOP_SECONDS / 2
    assert list(SPEEDS) == sorted(SPEEDS) and 1.0 in SPEEDS
    with pytest.raises(ValueError):
        loop_seconds(0)
    assert advance(0.0, BASE_LOOP_SECONDS / 4, 1.0) == pytest.approx(0.25)
    assert advance(0.9, BASE_LOOP_SECONDS / 5, 1.0) == pytest.approx(0.1)  # wraps
    assert advance(0.5, -3.0, 1.0) == 0.5  # time never runs backwards
    assert 0.0 <= advance(1.0 - 1e-18, 0.0, 1.0) < 1.0


def test_frame_phases_are_one_loop_without_repeating_the_first() -> None:
    assert frame_phases(4) == [0.0, 0.25, 0.5, 0.75]
    with pytest.raises(ValueError):
        frame_phases(0)


def test_timer_period_follows_the_frame_time() -> None:
    fastest = timer_interval_ms(None)
    assert fastest == timer_interval_ms(1.0) == pytest.approx(1000 / MAX_FPS, abs=1)
    assert timer_interval_ms(20.0) == 40  # twice the frame time: room for input
    assert timer_interval_ms(10_000.0) == pytest.approx(1000 / MIN_FPS, abs=1)
