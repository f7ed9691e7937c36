"""Parameters and the evented state: validation, dynamic limits, change signals."""

from __future__ import annotations

import dataclasses
import math

import pytest

from posenc_gui.state import ParamError, ParamState, TabModel, float_param, int_param
from posenc_gui.state.model import Limits
from posenc_gui.state.params import bool_param, choice_param, echo


class Toy(TabModel):
    id = "toy"
    title = "Toy"
    params = (
        float_param("gain", 1.0, 0.0, 2.0, "Gain", "a gain"),
        int_param("dim", 8, 2, 64, "Dim", "a dim", even=True),
        int_param("pair", 3, 0, 31, "Pair", "a pair index"),
        choice_param("layout", "interleaved", ("interleaved", "half"), "Layout", "pairing"),
        bool_param("lock", False, "Lock", "lock"),
    )

    @classmethod
    def limits(cls, values: object) -> Limits:
        assert isinstance(values, dict)
        return {"pair": (0, values["dim"] // 2 - 1)}

    @classmethod
    def readouts(cls, values: object) -> dict[str, object]:
        return {}


def test_parse_accepts_and_converts() -> None:
    assert Toy.param("gain").parse(" 1.5 ") == 1.5
    assert Toy.param("dim").parse("16") == 16
    assert Toy.param("dim").parse("1.6e1") == 16
    assert Toy.param("lock").parse("yes") is True
    assert Toy.param("layout").parse("half") == "half"


@pytest.mark.parametrize(
    ("name", "text", "fragment"),
    [
        ("gain", "3", "gain must be a number from 0 to 2"),
        ("gain", "abc", "gain must be a number"),
        ("gain", "nan", "gain must be a number"),
        ("dim", "7", "dim must be an even integer from 2 to 64"),
        ("dim", "8.5", "dim must be an even integer"),
        ("layout", "diagonal", "layout must be one of interleaved, half"),
        ("lock", "maybe", "lock must be true or false"),
    ],
)
def test_parse_rejects_with_message_naming_parameter(name: str, text: str, fragment: str) -> None:
    with pytest.raises(ParamError, match=fragment):
        Toy.param(name).parse(text)


def test_check_rejects_wrong_types() -> None:
    with pytest.raises(ParamError):
        Toy.param("gain").check("1.0")
    with pytest.raises(ParamError):
        Toy.param("dim").check(True)
    with pytest.raises(ParamError):
        Toy.param("gain").check(math.inf)


def test_unknown_parameter_lists_known_names() -> None:
    with pytest.raises(ParamError, match=r"unknown parameter 'nope'.*gain, dim, pair"):
        Toy.param("nope")


def test_resolve_clamps_dependents_but_rejects_given_values() -> None:
    # a smaller dim pulls the (not given) pair index into range
    assert Toy.resolve({"dim": 4}, {**Toy.defaults(), "pair": 3})["pair"] == 1
    # a given pair outside the dynamic range is an error naming the range
    with pytest.raises(ParamError, match="pair must be an integer from 0 to 1"):
        Toy.resolve({"dim": 4, "pair": 3})


def test_parse_assignments() -> None:
    values = Toy.parse_assignments(["dim=16", "pair=7", "layout=half"])
    assert (values["dim"], values["pair"], values["layout"]) == (16, 7, "half")
    with pytest.raises(ParamError, match="NAME=VALUE"):
        Toy.parse_assignments(["dim"])


def test_state_emits_only_real_changes_after_full_update() -> None:
    state = ParamState(Toy)
    seen: list[tuple[str, object, object]] = []
    state.changed.connect(lambda name, value: seen.append((name, value, state.get("dim"))))
    state.set("gain", 1.0)  # unchanged
    assert seen == []
    state.update({"dim": 4})  # pair 3 -> 1 is clamped in the same update
    assert sorted(n for n, _, _ in seen) == ["dim", "pair"]
    assert all(dim == 4 for _, _, dim in seen)  # handlers never see a half-applied update
    assert state.get("pair") == 1


def test_rejected_update_changes_nothing() -> None:
    state = ParamState(Toy)
    before = state.values()
    seen: list[str] = []
    state.changed.connect(lambda name, value: seen.append(name))
    with pytest.raises(ParamError):
        state.update({"gain": 0.5, "dim": 9})
    assert state.values() == before
    assert seen == []


def test_reset_and_typed_accessors() -> None:
    state = ParamState(Toy, {"gain": 0.25, "dim": 32})
    assert state.as_float("gain") == 0.25 and state.as_int("dim") == 32
    state.reset()
    assert state.values() == Toy.defaults()
    assert state.as_str("layout") == "interleaved"


@pytest.mark.parametrize(
    ("value", "shown"),
    [(2e6, "2000000"), (1e200, "1x10^200"), (-1.5e-30, "-1.5x10^-30"), (0.25, "0.25")],
)
def test_echoed_reals_never_use_e_notation(value: float, shown: str) -> None:
    assert echo(value) == shown
    p = float_param("amplitude", 1.0, 0.0, 2.0, "Amplitude", "A")
    if p.minimum <= value <= p.maximum:  # type: ignore[operator]
        return
    with pytest.raises(ParamError) as err:
        p.check(value)
    assert "e+" not in str(err.value) and str(err.value).endswith(f"got {shown}")


# -- issue 20, finding 11: exact messages, one parser for the window and the command line ----
def test_out_of_range_value_is_echoed_as_typed() -> None:
    angle = float_param("angle", 0.0, 0.0, 360.0, "Angle", "A")
    with pytest.raises(ParamError) as err:
        angle.parse("360.0000001")
    assert str(err.value) == "angle must be a number from 0 to 360, got 360.0000001"
    with pytest.raises(ParamError) as err:
        angle.check(360.0000001)
    assert str(err.value).endswith("got 360.0000001")


def test_underflow_and_overflow_are_named() -> None:
    base = float_param("base", 10000.0, 10.0, 1e7, "Base", "B")
    with pytest.raises(ParamError) as err:
        base.parse("1e-400")
    assert str(err.value) == (
        "base must be a number from 10 to 10000000, got 1e-400 (too small for a float: it "
        "would be 0)"
    )
    with pytest.raises(ParamError) as err:
        base.parse("1e400")
    assert str(err.value).endswith("got 1e400 (too large for a float)")
    with pytest.raises(ParamError) as err:
        Toy.param("dim").parse("2" + "0" * 5000)
    assert str(err.value).endswith("got a 5001-digit integer")


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("gain", "\u22120.5", -0.5),
        ("gain", "1 000", 1000.0),
        ("gain", "1,000.5", 1000.5),
        ("gain", "1\u202f000", 1000.0),
        ("dim", "1,000", 1000),
        ("dim", "1 000 000", 1000000),
        ("dim", "\u221216", -16),
    ],
)
def test_minus_sign_and_digit_groups_are_read(name: str, text: str, value: float) -> None:
    wide = dataclasses.replace(Toy.param(name), minimum=-1e7, maximum=1e7)
    got = wide.parse(text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("text", ["1,00", "1 0000", "10,00,000", "1,000 000", ",100", "1,5"])
def test_malformed_digit_groups_are_refused(text: str) -> None:
    wide = dataclasses.replace(Toy.param("gain"), minimum=-1e7, maximum=1e7)
    with pytest.raises(ParamError, match="gain must be a number"):
        wide.parse(text)
