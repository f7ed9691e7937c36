"""Typed values are refused with a message, never mangled; sliders and arrows still work.

Every numeric parameter of every tab gets a control row of its own; strings are typed into its
spin box with real key events and Enter. The expected outcome is computed here from the
parameter's kind and its current (dynamic) range, independently of the widget code.
"""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFocusEvent, QKeyEvent
from PySide6.QtWidgets import QApplication, QDoubleSpinBox, QSlider, QSpinBox
from pytestqt.qtbot import QtBot

from posenc_gui.state import Param, ParamError, ParamState
from posenc_gui.state.params import Scale
from posenc_gui.state.registry import all_models
from posenc_gui.widgets.controls import SLIDER_STEPS, ControlGroup, FloatField, IntField, SliderMap
from posenc_gui.widgets.fmt import plain

MINUS = "\u2212"
NNBSP = "\u202f"
TYPED = ("2000", "1e309", "-1", "-720", "9999", "abc", "")

NUMERIC = [
    (tab_id, p.name)
    for tab_id, model in all_models().items()
    for p in model.params
    if p.kind in ("int", "float")
]


def _range(state: ParamState, p: Param) -> tuple[float, float]:
    lo, hi = state.limits().get(p.name, (None, None))
    assert p.minimum is not None and p.maximum is not None
    return (
        float(p.minimum if lo is None else max(lo, p.minimum)),
        float(p.maximum if hi is None else min(hi, p.maximum)),
    )


def _expected(state: ParamState, p: Param, text: str) -> float | int | None:
    """The value typing ``text`` must give, or None when it must be refused."""
    lo, hi = _range(state, p)
    try:
        x = float(text)
    except ValueError:
        return None
    if not math.isfinite(x) or not lo <= x <= hi:
        return None
    value: float | int = x
    if p.kind == "int":
        if not x.is_integer() or (p.even and int(x) % 2):
            return None
        value = int(x)
    try:
        state.model.resolve({p.name: value}, state.values())
    except ParamError:
        return None
    return value


def _group(qtbot: QtBot, tab_id: str, *names: str) -> tuple[ControlGroup, ParamState, list[str]]:
    state = ParamState(all_models()[tab_id])
    messages: list[str] = []
    group = ControlGroup("test", state, on_error=messages.append)
    for name in names:
        group.add(name)
    qtbot.addWidget(group)
    group.show()
    return group, state, messages


def _type(qtbot: QtBot, spin: QSpinBox | QDoubleSpinBox, text: str, enter: bool = True) -> None:
    spin.setFocus()
    spin.lineEdit().selectAll()
    if text.isascii() and text:
        qtbot.keyClicks(spin, text)
    elif text:  # QTest types ASCII only: send the key events a keyboard layout would
        for char in text:
            for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
                event = QKeyEvent(kind, Qt.Key.Key_unknown, Qt.KeyboardModifier.NoModifier, char)
                QApplication.sendEvent(spin, event)
    else:
        qtbot.keyClick(spin, Qt.Key.Key_Backspace)
    if enter:
        qtbot.keyClick(spin, Qt.Key.Key_Return)


@pytest.mark.parametrize(("tab_id", "name"), NUMERIC, ids=[f"{t}-{n}" for t, n in NUMERIC])
def test_typed_values_are_applied_exactly_or_refused(qtbot: QtBot, tab_id: str, name: str) -> None:
    group, state, messages = _group(qtbot, tab_id, name)
    p = state.model.param(name)
    spin = group.widgets[f"{name}_spin"]
    assert isinstance(spin, QSpinBox if p.kind == "int" else QDoubleSpinBox)
    _, hi = _range(state, p)
    past_hi = plain(hi + (p.step or 1) if p.kind == "int" else hi + max(1.0, abs(hi)))
    for text in (*TYPED, past_hi):
        before = state.values()
        lo, hi = _range(state, p)
        expected = _expected(state, p, text)
        messages.clear()
        _type(qtbot, spin, text)
        if expected is None:
            assert state.values() == before, f"{name}: {text!r} changed the state"
            assert len(messages) == 1, f"{name}: {text!r} refused without a message"
            assert messages[0].startswith(f"{name} must be"), messages[0]
            assert "e+" not in messages[0]
            try:
                x = float(text)
            except ValueError:
                x = math.nan
            if math.isfinite(x) and not lo <= x <= hi:  # out of range: the range is named
                assert f"from {plain(lo)} to {plain(hi)}" in messages[0], messages[0]
            assert spin.property("invalid") is True
            assert text in spin.lineEdit().text()  # kept as typed, not truncated
        else:
            assert messages == [], f"{name}: {text!r} gave {messages}"
            got = state.get(name)
            assert got == expected and type(got) is type(expected), f"{name}: {text!r} -> {got!r}"
            assert spin.property("invalid") is False


@pytest.mark.parametrize(("tab_id", "name"), NUMERIC, ids=[f"{t}-{n}" for t, n in NUMERIC])
def test_slider_moves_the_state(qtbot: QtBot, tab_id: str, name: str) -> None:
    group, state, _ = _group(qtbot, tab_id, name)
    p = state.model.param(name)
    slider = group.widgets[f"{name}_slider"]
    assert isinstance(slider, QSlider)
    lo, hi = _range(state, p)
    slider.setValue(slider.maximum())
    tolerance = 10.0**-p.decimals if p.kind == "float" else 0
    if not p.log:
        assert state.as_float(name) == pytest.approx(hi, abs=tolerance)
    slider.setValue(slider.minimum())
    assert state.as_float(name) == pytest.approx(lo, abs=tolerance, rel=1e-3)


def test_dynamic_upper_limit_is_named(qtbot: QtBot) -> None:
    group, state, messages = _group(qtbot, "sine", "length", "position")
    state.set("length", 50)
    before = state.values()
    _type(qtbot, group.widgets["position_spin"], "9999")
    assert state.values() == before
    assert messages == ["position must be an integer from 0 to 49, got 9999"]
    _type(qtbot, group.widgets["position_spin"], "10000")  # past the static maximum too
    assert messages[-1] == "position must be an integer from 0 to 49, got 10000"


def test_the_issue_examples_are_refused_not_mangled(qtbot: QtBot) -> None:
    group, state, messages = _group(qtbot, "sine", "dim", "length", "amplitude")
    rot, rot_state, rot_messages = _group(qtbot, "rotation", "angle")
    cases = [
        (group, state, "dim", "2000", "from 2 to 1024"),  # was 200
        (group, state, "length", "1e309", "from 2 to 10000"),  # was 1309
        (group, state, "dim", "-1", "from 2 to 1024"),  # was 1
        (group, state, "amplitude", "-1", "from 0 to 2"),  # was 0.000
        (rot, rot_state, "angle", "-720", "from -360 to 360"),  # was -72
    ]
    for g, st, name, text, fragment in cases:
        before = st.values()
        _type(qtbot, g.widgets[f"{name}_spin"], text)
        assert st.values() == before
        got = messages[-1] if g is group else rot_messages[-1]
        assert got.startswith(f"{name} must be") and fragment in got


def test_refused_text_stays_until_edited_or_escape(qtbot: QtBot) -> None:
    group, state, messages = _group(qtbot, "sine", "dim")
    spin = group.widgets["dim_spin"]
    tooltip = spin.toolTip()
    _type(qtbot, spin, "2000")
    assert spin.lineEdit().text() == "2000" and spin.property("invalid") is True
    assert messages[-1] in spin.toolTip() and spin.accessibleDescription() == messages[-1]
    assert spin.lineEdit().selectedText() == "2000"  # the next keystroke replaces it
    qtbot.keyClick(spin, Qt.Key.Key_Escape)
    assert spin.lineEdit().text() == "6" and spin.property("invalid") is False
    assert spin.toolTip() == tooltip and state.get("dim") == 6
    _type(qtbot, spin, "7")
    assert spin.property("invalid") is True
    qtbot.keyClick(spin, Qt.Key.Key_Backspace)  # editing clears the mark
    assert spin.property("invalid") is False and spin.lineEdit().text() == ""
    qtbot.keyClicks(spin, "8")
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert state.get("dim") == 8 and spin.property("invalid") is False


def _focus_out(spin: QSpinBox | QDoubleSpinBox) -> None:
    QApplication.sendEvent(spin, QFocusEvent(QEvent.Type.FocusOut, Qt.FocusReason.TabFocusReason))


def test_focus_out_applies_or_reverts(qtbot: QtBot) -> None:
    group, state, messages = _group(qtbot, "sine", "dim")
    spin = group.widgets["dim_spin"]
    _type(qtbot, spin, "16", enter=False)
    assert state.get("dim") == 6  # not per keystroke
    _focus_out(spin)
    assert state.get("dim") == 16 and messages == []
    _type(qtbot, spin, "17", enter=False)
    _focus_out(spin)
    assert state.get("dim") == 16 and len(messages) == 1 and "dim must be" in messages[0]
    assert spin.lineEdit().text() == "16" and spin.property("invalid") is False
    _type(qtbot, spin, "abc")  # refused on Enter: leaving the field does not report it again
    _focus_out(spin)
    assert len(messages) == 2 and spin.lineEdit().text() == "16" and state.get("dim") == 16


def test_hiding_with_pending_text_never_clamps(qtbot: QtBot) -> None:
    group, state, messages = _group(qtbot, "sine", "position", "amplitude")
    for name in ("position", "amplitude"):
        _type(qtbot, group.widgets[f"{name}_spin"], "abc", enter=False)
    before = state.values()
    group.hide()
    assert state.values() == before  # never clamped into the range, never set to the minimum
    assert [m.split()[0] for m in messages] == ["position", "amplitude"]  # reported, once each
    assert group.widgets["position_spin"].lineEdit().text() == "23"


def test_arrow_keys_step_within_range(qtbot: QtBot) -> None:
    group, state, messages = _group(qtbot, "sine", "dim", "amplitude")
    spin = group.widgets["dim_spin"]
    spin.setFocus()
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    assert state.get("dim") == 8
    state.set("dim", 1024)
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    assert state.get("dim") == 1024 and messages == []
    qtbot.keyClick(spin, Qt.Key.Key_PageDown)
    assert state.get("dim") == 1004
    # an edited text is applied before the step ...
    _type(qtbot, spin, "100", enter=False)
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    assert state.get("dim") == 102
    # ... and a refused one is reported and not stepped from
    _type(qtbot, spin, "100000", enter=False)
    qtbot.keyClick(spin, Qt.Key.Key_Down)
    assert state.get("dim") == 102 and "from 2 to 1024" in messages[-1]
    assert spin.property("invalid") is True
    amp = group.widgets["amplitude_spin"]
    state.set("amplitude", 2.0)
    amp.setFocus()
    qtbot.keyClick(amp, Qt.Key.Key_Up)
    assert state.get("amplitude") == 2.0


def test_float_is_applied_exactly_and_shown_rounded(qtbot: QtBot) -> None:
    group, state, messages = _group(qtbot, "sine", "amplitude", "phase")
    _type(qtbot, group.widgets["amplitude_spin"], "0.12345")
    assert state.get("amplitude") == 0.12345 and messages == []
    assert group.widgets["amplitude_spin"].lineEdit().text() == "0.123"
    _type(qtbot, group.widgets["phase_spin"], "-1")
    assert state.get("phase") == -1.0
    assert group.widgets["phase_spin"].lineEdit().text() == f"{MINUS}1.000 rad"


def test_int_accepts_scientific_and_unicode_minus(qtbot: QtBot) -> None:
    group, state, messages = _group(qtbot, "sine", "length")
    _type(qtbot, group.widgets["length_spin"], "1e4")
    assert state.get("length") == 10000
    assert group.widgets["length_spin"].lineEdit().text() == f"10{NNBSP}000"
    _type(qtbot, group.widgets["length_spin"], f"2{NNBSP}500")  # as displayed: digit groups
    assert state.get("length") == 2500 and messages == []
    rot, rot_state, _ = _group(qtbot, "rotation", "offset")
    _type(qtbot, rot.widgets["offset_spin"], f"{MINUS}720")
    assert rot_state.get("offset") == -720
    assert rot.widgets["offset_spin"].lineEdit().text() == f"{MINUS}720"


def test_display_groups_digits(qtbot: QtBot) -> None:
    group, state, _ = _group(qtbot, "heatmap", "positions", "base")
    state.set("positions", 1_000_000)
    assert group.widgets["positions_spin"].lineEdit().text() == f"1{NNBSP}000{NNBSP}000"
    assert group.widgets["positions_spin"].value() == 1_000_000
    assert group.widgets["base_spin"].lineEdit().text() == f"10{NNBSP}000.0"


def test_programmatic_value_the_state_refuses_snaps_back(qtbot: QtBot) -> None:
    group, state, messages = _group(qtbot, "sine", "dim")
    spin = group.widgets["dim_spin"]
    assert isinstance(spin, IntField)
    spin.setValue(7)
    assert messages == ["dim must be an even integer from 2 to 1024, got 7"]
    assert state.get("dim") == 6 and spin.value() == 6


def test_fields_keep_names_and_units(qtbot: QtBot) -> None:
    group, _, _ = _group(qtbot, "sine", "frequency", "dim")
    freq = group.widgets["frequency_spin"]
    assert isinstance(freq, FloatField) and freq.objectName() == "frequency_spin"
    assert freq.suffix() == " Hz" and freq.accessibleName() == "Frequency f value"
    assert "Accepts a number from 0.1 to 5" in freq.toolTip()
    assert not freq.keyboardTracking()


# -- SliderMap: the parameter's Scale ------------------------------------------------------------
@pytest.mark.parametrize(
    ("tab_id", "name"),
    [(t, n) for t, n in NUMERIC if all_models()[t].param(n).log or n in ("phase", "positions")],
)
def test_slider_map_uses_the_scale(tab_id: str, name: str) -> None:
    p = all_models()[tab_id].param(name)
    assert p.minimum is not None and p.maximum is not None
    m = SliderMap(p, p.minimum, p.maximum)
    scale = Scale.of(p, p.minimum, p.maximum)
    assert not m.direct and m.steps == SLIDER_STEPS and m.log == scale.log
    for v in scale.sweep(7):
        assert m.to_slider(v) == round(scale.to_fraction(v) * SLIDER_STEPS)
    for pos in (0, 1, 250, 999, SLIDER_STEPS):
        x = scale.from_fraction(pos / SLIDER_STEPS)
        step = (2 if p.even else 1) if p.kind == "int" else 1e-3  # ints round to a valid value
        assert float(m.from_slider(pos)) == pytest.approx(x, rel=1e-3, abs=step)


def test_negative_values_step_and_show_a_real_minus(qtbot: QtBot) -> None:
    group, state, messages = _group(qtbot, "rotation", "offset", "angle")
    offset = group.widgets["offset_spin"]
    state.set("offset", -720)
    offset.setFocus()
    qtbot.keyClick(offset, Qt.Key.Key_Up)
    assert state.get("offset") == -719 and offset.lineEdit().text() == f"{MINUS}719"
    qtbot.keyClick(offset, Qt.Key.Key_Return)  # Enter on the shown value changes nothing
    assert state.get("offset") == -719 and messages == []
    angle = group.widgets["angle_spin"]
    state.set("angle", -45.0)
    angle.setFocus()
    qtbot.keyClick(angle, Qt.Key.Key_Down)
    assert state.as_float("angle") == pytest.approx(-45.0 - angle.singleStep())
    assert angle.lineEdit().text().startswith(MINUS) and messages == []


def test_a_new_dynamic_limit_moves_nothing(qtbot: QtBot) -> None:
    """The position field's range follows the number of positions; its size hint must not, or
    every step of L would resize the grid's column and repaint the whole controls column."""
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QWidget

    from posenc_gui.state.sine import SineModel

    state = ParamState(SineModel)
    group = ControlGroup("Ladder", state)
    group.add_all("length", "position")
    qtbot.addWidget(group)
    group.show()
    qtbot.waitExposed(group)
    for _ in range(3):
        QApplication.processEvents()  # the first layout after show
    spin = group.findChild(IntField, "position_spin")
    assert spin is not None
    hint = spin.sizeHint()
    fresh = IntField()
    fresh.setRange(0, 9_999)  # the static range, 0 … max L − 1
    assert hint.width() >= fresh.sizeHint().width()
    geometry = {w.objectName(): w.geometry() for w in group.findChildren(QWidget)}
    for length in (3, 10_000, 40, 9_999):
        state.set("length", length)
        QApplication.processEvents()
        assert spin.maximum() == length - 1
        assert spin.sizeHint() == hint
        assert {w.objectName(): w.geometry() for w in group.findChildren(QWidget)} == geometry
    big = QFont(spin.font())
    big.setPointSizeF(big.pointSizeF() * 2.5)
    spin.setFont(big)  # a larger style scale: the field is measured again
    assert spin.sizeHint().height() > hint.height()
    assert spin.sizeHint().width() > hint.width()


def test_a_control_narrows_its_range_only_when_the_limits_move(qtbot: QtBot) -> None:
    """Every change asks the controls to follow the dynamic limits; they do the work only
    when the limits really changed (the position's range follows the length, not the
    amplitude), and then show the new range."""
    from posenc_gui.state.sine import SineModel
    from posenc_gui.widgets.binding import bind_value

    state = ParamState(SineModel)
    spin = QSpinBox()
    qtbot.addWidget(spin)
    calls: list[tuple[float | None, float | None]] = []

    def follow() -> None:
        calls.append(state.limits()["position"])
        spin.setMaximum(int(state.limits()["position"][1] or 0))

    bind_value(
        state, "position", spin, read=spin.value, write=lambda v: spin.setValue(int(v)),
        signal=spin.valueChanged, on_limits=follow,
    )  # fmt: skip
    assert len(calls) == 1  # at binding
    for amp in (0.5, 1.5, 2.0):
        state.set("amplitude", amp)
    assert len(calls) == 1  # the limits did not move
    token = state.limits_token()
    state.set("amplitude", 0.7)
    assert state.limits_token() is token
    state.set("length", 80)
    assert len(calls) == 2 and spin.maximum() == 79
    state.set("length", 30)
    assert len(calls) == 3 and spin.maximum() == 29


@pytest.mark.parametrize(
    ("tab_id", "name", "text", "value"),
    [
        ("sine", "length", "1 000", 1000),
        ("sine", "length", "1,000", 1000),
        ("rotation", "angle", "\u221230", -30.0),
        ("rotation", "angle", "\u221230.5", -30.5),
    ],
)
def test_typed_text_is_read_like_the_command_line(
    qtbot: QtBot, tab_id: str, name: str, text: str, value: float
) -> None:
    """Issue 20, finding 11: the window and ``--set`` read the same number texts."""
    group, state, messages = _group(qtbot, tab_id, name)
    _type(qtbot, group.widgets[f"{name}_spin"], text)
    assert messages == [] and state.get(name) == value
    assert state.model.param(name).parse(text) == value  # what --set NAME=TEXT reads


def test_accepted_values_are_announced_refused_ones_are_not(qtbot: QtBot) -> None:
    """Issue 20, finding 11: ``on_accept`` lets the owner withdraw an earlier refusal."""
    state = ParamState(all_models()["sine"])
    messages: list[str] = []
    accepted: list[str] = []
    group = ControlGroup(
        "test", state, on_error=messages.append, on_accept=lambda: accepted.append("ok")
    )
    group.add("dim")
    qtbot.addWidget(group)
    group.show()
    spin = group.widgets["dim_spin"]
    _type(qtbot, spin, "5")
    assert len(messages) == 1 and accepted == []
    _type(qtbot, spin, "8")
    assert state.get("dim") == 8 and accepted and len(messages) == 1
    accepted.clear()
    slider = group.widgets["dim_slider"]
    assert isinstance(slider, QSlider)
    slider.setValue(slider.value() + 1)
    assert accepted and state.get("dim") != 8
